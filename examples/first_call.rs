//! The latency of a process's first parallel calls: the first `par_iter().sum()` pays for
//! anything done once per process, and for starting the global pool (its threads) if it
//! needs the pool. Prints one line of nanoseconds: a 1,000-item sum (which runs on the calling
//! thread and needs no pool), then a 1M-item sum (which needs the pool, and starts it), then a
//! second 1M-item sum.
//!
//! With the argument `rayon`, the same sums with rayon (which starts its pool on first use
//! too); with `seq`, with the sequential loop, for comparisons in the same run. With a second
//! argument `large`, the 1,000-item sum is left out (printed as 0): the first 1M-item sum is
//! then the process's first call.
//!
//! Run it many times, each in a fresh process, and compare medians; `scripts/first_call.py`
//! does that for several builds or arguments, interleaved:
//!
//! `cargo run --release --example first_call [blitz|rayon|seq] [large]`

use std::hint::black_box;
use std::time::Instant;

fn timed(f: impl FnOnce() -> u64) -> u128 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_nanos()
}

fn blitz(v: &[u64]) -> u64 {
    use blitz_par::prelude::*;
    v.par_iter().sum()
}

fn rayon(v: &[u64]) -> u64 {
    use rayon::prelude::*;
    v.par_iter().sum()
}

fn sequential(v: &[u64]) -> u64 {
    v.iter().sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sum = match args.first().map(String::as_str) {
        None | Some("blitz") => blitz,
        Some("rayon") => rayon,
        Some("seq") => sequential,
        Some(other) => panic!("unknown library {other:?}: blitz, rayon or seq"),
    };
    let small: Vec<u64> = (0..1_000).collect();
    let large: Vec<u64> = (0..1_000_000).collect();
    let first_small = match args.get(1).map(String::as_str) {
        None => timed(|| sum(black_box(&small))),
        Some("large") => 0,
        Some(other) => panic!("unknown option {other:?}: large"),
    };
    let first_large = timed(|| sum(black_box(&large)));
    let second_large = timed(|| sum(black_box(&large)));
    println!("{first_small} {first_large} {second_large}");
}
