//! `cargo run --release --example demo`: blitz-par's common uses on generated data, each
//! checked against the sequential result and timed against it (best of a few runs).

use blitz_par::prelude::*;
use blitz_par::SyncPtr;
use std::time::{Duration, Instant};

/// The best of `runs` timings of `f`, and its last result.
fn best_of<R>(runs: usize, mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..runs {
        let start = Instant::now();
        let r = std::hint::black_box(f());
        best = best.min(start.elapsed());
        result = Some(r);
    }
    (best, result.expect("runs > 0"))
}

fn report<R: PartialEq + std::fmt::Debug>(name: &str, seq: (Duration, R), par: (Duration, R)) {
    assert_eq!(
        seq.1, par.1,
        "{name}: parallel result differs from sequential"
    );
    let ratio = seq.0.as_secs_f64() / par.0.as_secs_f64().max(1e-12);
    println!(
        "{name:<44} sequential {:>9.3} ms   blitz-par {:>9.3} ms   speedup {ratio:>5.2}x",
        seq.0.as_secs_f64() * 1e3,
        par.0.as_secs_f64() * 1e3,
    );
}

fn main() {
    println!(
        "blitz-par demo on {} threads",
        blitz_par::current_num_threads()
    );
    let n = 10_000_000usize;
    let data: Vec<i64> = (0..n as i64)
        .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64) >> 20)
        .collect();

    report(
        "par_iter().sum() of 10M i64",
        best_of(5, || data.iter().sum::<i64>()),
        best_of(5, || data.par_iter().sum::<i64>()),
    );

    report(
        "map/filter/collect pipeline over 10M i64",
        best_of(3, || {
            data.iter()
                .map(|x| x * 3)
                .filter(|x| x % 7 == 0)
                .collect::<Vec<i64>>()
        }),
        best_of(3, || {
            data.par_iter()
                .map(|x| x * 3)
                .filter(|x| x % 7 == 0)
                .collect::<Vec<i64>>()
        }),
    );

    let heavy = |x: i64| {
        let mut y = x as f64;
        for _ in 0..200 {
            y = (y.abs() + 1.0).sqrt();
        }
        y
    };
    let small = &data[..100_000];
    report(
        "compute-bound map+sum (200 sqrt, 100k items)",
        best_of(3, || small.iter().map(|&x| heavy(x)).sum::<f64>().round()),
        best_of(3, || {
            small.par_iter().map(|&x| heavy(x)).sum::<f64>().round()
        }),
    );

    // parallel_for with SyncPtr: every index written by exactly one call.
    let fill_seq = || {
        let mut out = vec![0i64; n];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = data[i] ^ i as i64;
        }
        out
    };
    let fill_par = || {
        let mut out = vec![0i64; n];
        let ptr = SyncPtr::new(&mut out);
        // SAFETY: `i` ranges over distinct indices of `out`, which outlives the loop.
        blitz_par::parallel_for(0..n, |i| unsafe { ptr.write(i, data[i] ^ i as i64) });
        out
    };
    report(
        "parallel_for + SyncPtr fill of 10M i64",
        best_of(3, fill_seq),
        best_of(3, fill_par),
    );

    report(
        "par_sort_unstable of 10M i64",
        best_of(3, || {
            let mut v = data.clone();
            v.sort_unstable();
            v
        }),
        best_of(3, || {
            let mut v = data.clone();
            v.par_sort_unstable();
            v
        }),
    );
}
