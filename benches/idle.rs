//! CPU burnt while idle, and under a bursty load: blitz-par vs rayon vs chili vs sequential.
//!
//! CPU time is the sum over every thread of the process of the run time the kernel reports
//! in `/proc/self/task/*/schedstat` (nanoseconds), so it includes spinning workers.
//!
//! - idle: CPU of all threads during the second after a parallel workload (the main thread
//!   sleeps meanwhile);
//! - bursty: a 50,000-element parallel sum every 1 ms for 500 rounds; total CPU divided by the
//!   CPU of the same rounds done with a sequential loop;
//! - medium: `par_iter().sum()` of 200,000, 1M and 3M elements every 1 ms for 300 rounds
//!   (long enough to wake workers): CPU against the sequential loop's, and the median call.
//!
//! Run: `cargo bench --bench idle` (Linux only).

use std::time::{Duration, Instant};

#[path = "common/fib.rs"]
mod fib;
use fib::{fib_blitz, fib_chili, fib_rayon};

fn cpu_ns() -> u64 {
    let mut total = 0;
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for entry in dir.flatten() {
            let path = entry.path().join("schedstat");
            if let Ok(s) = std::fs::read_to_string(path) {
                total += s
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
    }
    total
}

/// CPU (percent of one core) used by all threads in the second after `work`.
fn idle_after(work: impl FnOnce()) -> f64 {
    work();
    let start = cpu_ns();
    std::thread::sleep(Duration::from_secs(1));
    (cpu_ns() - start) as f64 / 1e9 * 100.0
}

fn sum_blitz(v: &[u64]) -> u64 {
    if v.len() <= 2048 {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (a, b) = blitz_par::join(|| sum_blitz(l), || sum_blitz(r));
    a + b
}

/// Total CPU (ns) of 500 rounds of `round`, one every millisecond.
fn bursty(mut round: impl FnMut() -> u64) -> u64 {
    let start = cpu_ns();
    let mut next = Instant::now();
    for _ in 0..500 {
        std::hint::black_box(round());
        next += Duration::from_millis(1);
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
    }
    cpu_ns() - start
}

/// Total CPU (ns) and median wall time (us) of `rounds` calls of `call`, one every millisecond.
fn paced(rounds: usize, mut call: impl FnMut() -> u64) -> (u64, f64) {
    let start = cpu_ns();
    let mut next = Instant::now();
    let mut walls = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        std::hint::black_box(call());
        walls.push(t.elapsed().as_secs_f64() * 1e6);
        next += Duration::from_millis(1);
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
    }
    walls.sort_by(f64::total_cmp);
    (cpu_ns() - start, walls[rounds / 2])
}

/// Medium parallel sums, one per millisecond: what waking workers costs and gains.
fn medium() {
    use rayon::prelude::ParallelIterator as _;
    let v: Vec<u64> = (0..3_000_000).collect();
    println!(
        "medium (sum every 1 ms, 300 rounds): CPU of all threads / sequential CPU, median call:"
    );
    for n in [200_000usize, 1_000_000, 3_000_000] {
        let s = &v[..n];
        let expected: u64 = s.iter().sum();
        let (seq, seq_wall) = paced(300, || std::hint::black_box(s).iter().sum());
        let (blitz, blitz_wall) = paced(300, || {
            use blitz_par::prelude::*;
            let sum: u64 = std::hint::black_box(s).par_iter().sum();
            assert_eq!(sum, expected);
            sum
        });
        let (rayon, rayon_wall) = paced(300, || {
            let sum: u64 =
                rayon::iter::IntoParallelRefIterator::par_iter(std::hint::black_box(s)).sum();
            assert_eq!(sum, expected);
            sum
        });
        println!(
            "  {n:>9}: blitz-par {:.2}x {blitz_wall:.0} us, rayon {:.2}x {rayon_wall:.0} us, sequential {seq_wall:.0} us",
            blitz as f64 / seq as f64,
            rayon as f64 / seq as f64
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` compatibility
    }
    let v: Vec<u64> = (0..50_000).collect();
    let expected: u64 = v.iter().sum();

    let seq = bursty(|| std::hint::black_box(&v).iter().sum::<u64>());
    let blitz = bursty(|| {
        let s = sum_blitz(std::hint::black_box(&v));
        assert_eq!(s, expected);
        s
    });
    let rayon = bursty(|| {
        use rayon::prelude::*;
        let s: u64 = std::hint::black_box(&v).par_iter().sum();
        assert_eq!(s, expected);
        s
    });
    println!("bursty (50,000-element sum every 1 ms, 500 rounds), total CPU of all threads:");
    println!("  sequential {:>8.2} ms", seq as f64 / 1e6);
    println!(
        "  blitz-par  {:>8.2} ms  ({:.2}x sequential)",
        blitz as f64 / 1e6,
        blitz as f64 / seq as f64
    );
    println!(
        "  rayon      {:>8.2} ms  ({:.2}x sequential)",
        rayon as f64 / 1e6,
        rayon as f64 / seq as f64
    );

    println!("CPU while idle in the second after parallel work (percent of one core):");
    let r = idle_after(|| assert_eq!(rayon::join(|| fib_rayon(27), || fib_rayon(26)).0, 196418));
    println!("  rayon      {r:>6.3}%");
    let b = idle_after(|| {
        assert_eq!(
            blitz_par::join(|| fib_blitz(27), || fib_blitz(26)).0,
            196418
        )
    });
    println!("  blitz-par  {b:>6.3}%");
    let c = {
        let pool = chili::ThreadPool::new();
        let value = idle_after(|| {
            let mut s = pool.scope();
            assert_eq!(fib_chili(27, &mut s), 196418);
        });
        drop(pool);
        value
    };
    println!("  chili      {c:>6.3}%");
    medium();
}
