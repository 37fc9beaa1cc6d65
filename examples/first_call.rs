//! The latency of a process's first parallel calls: the first `par_iter().sum()` pays for
//! starting the global pool (its threads) and for anything done once per process. Prints one
//! line of nanoseconds: a 1,000-item sum (which never enters the pool), then a 1M-item sum
//! (which enters it and starts it), then a second 1M-item sum.
//!
//! Run it many times, each in a fresh process, and compare medians; `scripts/first_call.py`
//! does that for two builds, interleaved:
//!
//! `cargo run --release --example first_call`

use blitz_par::prelude::*;
use std::hint::black_box;
use std::time::Instant;

fn timed(f: impl FnOnce() -> u64) -> u128 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_nanos()
}

fn main() {
    let small: Vec<u64> = (0..1_000).collect();
    let large: Vec<u64> = (0..1_000_000).collect();
    let first_small = timed(|| black_box(&small).par_iter().sum());
    let first_large = timed(|| black_box(&large).par_iter().sum());
    let second_large = timed(|| black_box(&large).par_iter().sum());
    println!("{first_small} {first_large} {second_large}");
}
