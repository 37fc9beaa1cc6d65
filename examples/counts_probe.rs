//! The hash-based algorithms one at a time, timed per call: for profiling their kernels
//! (`perf record -e cpu-clock`) without the bench's other rows in the same process.
//!
//!     cargo build --release --example counts_probe
//!     target/release/examples/counts_probe [MODULUS] [MODE] [CALLS]
//!
//! 10M `u64` keys from xorshift64* modulo `MODULUS` (1,000 by default; `zipf`: Zipf over
//! 10^6 ranks, exponent 1, by inverse CDF, as `benches/algos.rs` draws them); `MODE`: `ref`
//! (`par_iter().counts()`, the default), `copied` (`counts` over owned keys), `gm`
//! (`into_group_map_by`), `unique`, `sum` (`into_grouping_map().sum()`). Prints the fastest
//! and the median call in ms. `BLITZ_NUM_THREADS` sets the pool.

use blitz_par::prelude::*;
use std::time::Instant;

fn main() {
    let arg = |i: usize| std::env::args().nth(i);
    let input = arg(1).unwrap_or_else(|| "1000".to_string());
    let mode = arg(2).unwrap_or_else(|| "ref".to_string());
    let calls: usize = arg(3).and_then(|s| s.parse().ok()).unwrap_or(10).max(1);
    let mut s = 1u64;
    let mut next = move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let v: Vec<u64> = if input == "zipf" {
        let mut h = 0.0;
        let cdf: Vec<f64> = (0..1_000_000)
            .map(|r| {
                h += 1.0 / (r + 1) as f64;
                h
            })
            .collect();
        (0..10_000_000)
            .map(|_| {
                let u = (next() >> 11) as f64 / 9_007_199_254_740_992.0 * h;
                cdf.partition_point(|&c| c < u) as u64
            })
            .collect()
    } else {
        let m: u64 = input.parse().expect("MODULUS: a number or `zipf`");
        (0..10_000_000).map(|_| next() % m).collect()
    };
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let n = match mode.as_str() {
            "ref" => v.par_iter().counts().len(),
            "copied" => v.par_iter().copied().counts().len(),
            "gm" => v.par_iter().copied().into_group_map_by(|&x| x).len(),
            "unique" => v.par_iter().copied().unique().count(),
            "sum" => v
                .par_iter()
                .map(|&x| (x, x))
                .into_grouping_map()
                .sum()
                .len(),
            other => panic!("unknown mode {other:?}: ref, copied, gm, unique or sum"),
        };
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(n);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{mode} {input}: min {:.2} median {:.2} ms",
        times[0],
        times[times.len() / 2]
    );
}
