//! `cargo run --release --example demo`: blitz-par's common uses on generated data, each
//! checked against the sequential result and timed against it (best of a few runs), and a
//! summary at the end.

use blitz_par::prelude::*;
use blitz_par::SyncPtr;
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// One line of the summary: a workload's name and its best sequential and parallel times.
struct Row {
    name: String,
    seq: Duration,
    par: Duration,
}

impl Row {
    fn speedup(&self) -> f64 {
        self.seq.as_secs_f64() / self.par.as_secs_f64().max(1e-12)
    }
}

/// The best time of a sequential and a parallel closure over `runs` rounds, and their last
/// results. The two alternate (sequential first in even rounds, parallel first in odd ones),
/// so that neither runs while the machine is still warming up or the data still settling.
struct Race<'s> {
    runs: usize,
    /// Every workload raced so far, for the summary.
    rows: &'s RefCell<Vec<Row>>,
}

impl Race<'_> {
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
        let row = Row {
            name: name.to_string(),
            seq: best[0],
            par: best[1],
        };
        println!(
            "{name:<44} sequential {:>9.3} ms   blitz-par {:>9.3} ms   speedup {:>5.2}x",
            row.seq.as_secs_f64() * 1e3,
            row.par.as_secs_f64() * 1e3,
            row.speedup(),
        );
        self.rows.borrow_mut().push(row);
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

    let rows = RefCell::new(Vec::new());
    Race {
        runs: 5,
        rows: &rows,
    }
    .run(
        "par_iter().sum() of 10M i64",
        || data.iter().sum::<i64>(),
        || data.par_iter().sum::<i64>(),
    );
    let race = Race {
        runs: 3,
        rows: &rows,
    };

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

    summarize(&rows.into_inner());
}

/// Prints what the runs above add up to, in a few lines.
fn summarize(rows: &[Row]) {
    let threads = blitz_par::current_num_threads();
    let geomean = (rows.iter().map(|r| r.speedup().ln()).sum::<f64>() / rows.len() as f64).exp();
    let by_speedup = |a: &&Row, b: &&Row| a.speedup().total_cmp(&b.speedup());
    let best = rows.iter().max_by(by_speedup).expect("some workloads");
    let worst = rows.iter().min_by(by_speedup).expect("some workloads");
    let (seq, par) = rows.iter().fold((0.0, 0.0), |(s, p), r| {
        (s + r.seq.as_secs_f64(), p + r.par.as_secs_f64())
    });
    println!();
    println!("Summary ({threads} threads, best of 3 to 5 runs each):");
    println!(
        "  {} workloads, every parallel result equal to the sequential one",
        rows.len()
    );
    println!("  speedup over sequential: {geomean:.2}x on average (geometric mean)");
    println!("  best:  {:.2}x  {}", best.speedup(), best.name);
    println!("  worst: {:.2}x  {}", worst.speedup(), worst.name);
    println!(
        "  all workloads: {:.0} ms sequential, {:.0} ms with blitz-par",
        seq * 1e3,
        par * 1e3
    );
}
