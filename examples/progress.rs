//! `cargo run --release --example progress --features indicatif`: progress bars on long
//! parallel work, with indicatif. Finds the primes below a bound (default 20 million; give
//! another as the first argument) by trial division, an uneven amount of work per number,
//! with a bar that counts the numbers checked; then the longest Collatz chain among the
//! primes, with a second bar. Checks its count of primes against a sequential sieve and
//! exits non-zero if they differ.

use blitz_par::prelude::*;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::time::Instant;

fn is_prime(n: u64) -> bool {
    if n < 4 {
        return n >= 2;
    }
    if n % 2 == 0 {
        return false;
    }
    let mut d = 3;
    while d * d <= n {
        if n % d == 0 {
            return false;
        }
        d += 2;
    }
    true
}

fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

/// The number of primes below `n`, by a sequential sieve of Eratosthenes.
fn sieve_count(n: usize) -> usize {
    let mut composite = vec![false; n.max(2)];
    let mut count = 0;
    for i in 2..n {
        if !composite[i] {
            count += 1;
            for j in (i * i..n).step_by(i) {
                composite[j] = true;
            }
        }
    }
    count
}

fn main() {
    let bound: u64 = match std::env::args().nth(1) {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("usage: progress [BOUND]  (BOUND: a whole number, default 20000000)");
            std::process::exit(2)
        }),
        None => 20_000_000,
    };
    let style = ProgressStyle::with_template(
        "{prefix:>8} [{elapsed_precise}] {wide_bar:.cyan/blue} {human_pos:>11}/{human_len} (eta {eta})",
    )
    .expect("a valid template")
    .progress_chars("=> ");
    let bars = MultiProgress::new();
    let start = Instant::now();

    // Indexed: the bar's length is the range's.
    let checked = bars.add(ProgressBar::new(bound.saturating_sub(2)));
    let primes: Vec<u64> = (2..bound)
        .into_par_iter()
        .progress_with(checked)
        .with_style(style.clone())
        .with_prefix("primes")
        .filter(|&n| is_prime(n))
        .collect();

    // The primes are known now: their count is the second bar's length.
    let chains = bars.add(ProgressBar::new(primes.len() as u64));
    let longest = primes
        .par_iter()
        .progress_with(chains)
        .with_style(style)
        .with_prefix("collatz")
        .map(|&p| (collatz_steps(p), p))
        .max();
    let elapsed = start.elapsed();

    let expected = sieve_count(bound as usize);
    println!(
        "{} primes below {bound} ({} expected), found in {:.2} s on {} threads",
        primes.len(),
        expected,
        elapsed.as_secs_f64(),
        blitz_par::current_num_threads()
    );
    if let Some((steps, p)) = longest {
        println!("longest Collatz chain among them: {p} ({steps} steps)");
    }
    if primes.len() != expected {
        eprintln!("wrong count of primes");
        std::process::exit(1);
    }
}
