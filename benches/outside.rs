//! What `ThreadPoolBuilder::pool_threads_only` costs a thread outside every pool: the same
//! `par_iter().sum()` of 1,000 and 100,000 `u64` run as a guest (the caller takes part) and
//! handed to the pool's workers (the caller blocks), against the sequential loop and rayon
//! (which always hands the work over), in the same run.
//!
//! - guest: a pool built with `pool_threads_only(false)`, called through `install`, and the
//!   global pool (unconfigured, so callers take part) called directly;
//! - workers: the same pool built with `pool_threads_only(true)`, through `install`;
//! - rayon: its global pool, called directly.
//!
//! Two ways of calling: in a loop (calls back to back: median time per call over batches),
//! and after idle time (5 ms of sleep before each call, so that the workers have gone to
//! sleep: median of single calls).
//!
//! Run: `cargo bench --bench outside` (prints a table; about 30 s).

use blitz_par::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median per-call time of `call` run back to back: batches of `per_batch` calls.
fn in_a_loop(per_batch: usize, mut call: impl FnMut() -> u64) -> Duration {
    for _ in 0..per_batch {
        black_box(call());
    }
    let mut times: Vec<Duration> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_batch {
                black_box(call());
            }
            start.elapsed() / per_batch as u32
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Median time of `call` made after 5 ms of sleep each time (the workers asleep).
fn after_idle(mut call: impl FnMut() -> u64) -> Duration {
    let mut times: Vec<Duration> = (0..151)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(5));
            let start = Instant::now();
            black_box(call());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn micros(d: Duration) -> String {
    format!("{:8.2}", d.as_secs_f64() * 1e6)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        // `cargo test --benches` lists benchmarks; this program has no criterion groups.
        return;
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let guests = blitz_par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .pool_threads_only(false)
        .build()
        .unwrap();
    let workers = blitz_par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .pool_threads_only(true)
        .build()
        .unwrap();
    println!("{threads} threads per pool; times in microseconds (median)");
    println!(
        "{:>8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "items", "calls", "seq", "global", "guest", "workers", "rayon"
    );
    for n in [1_000u64, 100_000] {
        let v: Vec<u64> = (0..n).collect();
        let v = &v;
        let seq = || black_box(v).iter().sum::<u64>();
        let global = || black_box(v).par_iter().sum::<u64>();
        let guest = || guests.install(|| black_box(v).par_iter().sum::<u64>());
        let worker = || workers.install(|| black_box(v).par_iter().sum::<u64>());
        let rayon = || {
            rayon::iter::ParallelIterator::sum::<u64>(
                rayon::iter::IntoParallelRefIterator::par_iter(black_box(v)),
            )
        };
        let per_batch = (2_000_000 / n as usize).max(20);
        println!(
            "{n:>8} {:>10} {} {} {} {} {}",
            "loop",
            micros(in_a_loop(per_batch, seq)),
            micros(in_a_loop(per_batch, global)),
            micros(in_a_loop(per_batch, guest)),
            micros(in_a_loop(per_batch, worker)),
            micros(in_a_loop(per_batch, rayon)),
        );
        println!(
            "{n:>8} {:>10} {} {} {} {} {}",
            "after idle",
            micros(after_idle(seq)),
            micros(after_idle(global)),
            micros(after_idle(guest)),
            micros(after_idle(worker)),
            micros(after_idle(rayon)),
        );
    }
}
