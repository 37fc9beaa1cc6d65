//! `cargo run --release --example demo`: blitz-par's common uses on generated data, each
//! checked against the sequential result and timed against it (best of a few runs).

use blitz_par::prelude::*;
use blitz_par::SyncPtr;
use std::time::{Duration, Instant};

/// The best time of a sequential and a parallel closure over `runs` rounds, and their last
/// results. The two alternate (sequential first in even rounds, parallel first in odd ones),
/// so that neither runs while the machine is still warming up or the data still settling.
struct Race {
    runs: usize,
}

impl Race {
    /// Times `seq` and `par` on fresh inputs from `setup`, which is not timed (a copy of the
    /// data to sort in place), checks that they agree, and prints both times.
    fn on<I, R: PartialEq + std::fmt::Debug>(
        &self,
        name: &str,
        mut setup: impl FnMut() -> I,
        mut seq: impl FnMut(I) -> R,
        mut par: impl FnMut(I) -> R,
    ) {
        let mut best = [Duration::MAX; 2];
        let mut results: [Option<R>; 2] = [None, None];
        for round in 0..self.runs {
            for side in [round % 2, 1 - round % 2] {
                let input = setup();
                let start = Instant::now();
                let r = if side == 0 {
                    std::hint::black_box(seq(input))
                } else {
                    std::hint::black_box(par(input))
                };
                best[side] = best[side].min(start.elapsed());
                results[side] = Some(r);
            }
        }
        let [seq_r, par_r] = results.map(|r| r.expect("runs > 0"));
        assert_eq!(
            seq_r, par_r,
            "{name}: parallel result differs from sequential"
        );
        let ratio = best[0].as_secs_f64() / best[1].as_secs_f64().max(1e-12);
        println!(
            "{name:<44} sequential {:>9.3} ms   blitz-par {:>9.3} ms   speedup {ratio:>5.2}x",
            best[0].as_secs_f64() * 1e3,
            best[1].as_secs_f64() * 1e3,
        );
    }

    /// [`Race::on`] for closures that need no input.
    fn run<R: PartialEq + std::fmt::Debug>(
        &self,
        name: &str,
        mut seq: impl FnMut() -> R,
        mut par: impl FnMut() -> R,
    ) {
        self.on(name, || (), |()| seq(), |()| par());
    }
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

    Race { runs: 5 }.run(
        "par_iter().sum() of 10M i64",
        || data.iter().sum::<i64>(),
        || data.par_iter().sum::<i64>(),
    );
    let race = Race { runs: 3 };

    race.run(
        "map/filter/collect pipeline over 10M i64",
        || {
            data.iter()
                .map(|x| x * 3)
                .filter(|x| x % 7 == 0)
                .collect::<Vec<i64>>()
        },
        || {
            data.par_iter()
                .map(|x| x * 3)
                .filter(|x| x % 7 == 0)
                .collect::<Vec<i64>>()
        },
    );

    let heavy = |x: i64| {
        let mut y = x as f64;
        for _ in 0..200 {
            y = (y.abs() + 1.0).sqrt();
        }
        y
    };
    let small = &data[..100_000];
    race.run(
        "compute-bound map+sum (200 sqrt, 100k items)",
        || small.iter().map(|&x| heavy(x)).sum::<f64>().round(),
        || small.par_iter().map(|&x| heavy(x)).sum::<f64>().round(),
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
    race.run("parallel_for + SyncPtr fill of 10M i64", fill_seq, fill_par);

    race.on(
        "par_sort_unstable of 10M i64",
        || data.clone(),
        |mut v| {
            v.sort_unstable();
            v
        },
        |mut v| {
            v.par_sort_unstable();
            v
        },
    );
}
