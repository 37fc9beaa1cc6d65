//! What a process with one CPU pays for joins and for calls handed to a pool, for callgrind
//! and `perf stat` (counts, which other load on the machine does not change). Run under
//! `taskset -c 0` with no thread-count variable (the global pool sized by a CPU count of one:
//! outside callers run as its guests), or with `BLITZ_NUM_THREADS=1` (its only worker runs
//! every call, handed over):
//!
//! ```text
//! cargo build --release --example one_cpu
//! taskset -c 0 valgrind --tool=callgrind --separate-threads=yes target/release/examples/one_cpu boxed 18 4
//! taskset -c 0 perf stat -e task-clock,context-switches target/release/examples/one_cpu hop 0 20000
//! ```
//!
//! Modes (then `layers` and `reps`): `boxed` / `boxed_seq` sum a tree boxed node by node
//! `reps` times with a join at every node (from outside every pool, as a user's code calls
//! it) / by plain recursion; `tree` / `tree_seq` the same for the tree in one allocation
//! (`benches/common/tree.rs`), the joins inside a `scope`; a run with `reps` 0 counts the
//! tree's construction and drop alone, to subtract. `hop` makes `reps` calls of
//! `install` on a pool of one thread (each handed to its worker, the caller waiting),
//! `outside` `reps` joins from outside every pool (guests of the global pool, or handed to
//! its worker with `BLITZ_NUM_THREADS=1`); both print the time per call. `time` times both
//! trees' sums against their plain recursion, alternated, best of `reps`.

#[path = "../benches/common/tree.rs"]
mod tree;
use std::hint::black_box;
use std::time::Instant;

/// Milliseconds `f` takes.
fn ms<R>(f: impl FnOnce() -> R) -> f64 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .map_or(default, |s| s.parse().expect("a number"))
    };
    let mode = std::env::args().nth(1).unwrap_or_default();
    let layers = arg(2, 20) as u32;
    let reps = arg(3, 3);
    let want = (1u64 << layers) - 1;
    match mode.as_str() {
        "hop" | "outside" => {
            let pool = blitz_par::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            let start = Instant::now();
            let mut acc = 0u64;
            for i in 0..reps as u64 {
                acc += if mode == "hop" {
                    pool.install(|| black_box(i))
                } else {
                    let (a, b) = blitz_par::join(|| black_box(i), || 1u64);
                    a + b
                };
            }
            black_box(acc);
            let us = start.elapsed().as_secs_f64() * 1e6 / reps.max(1) as f64;
            println!("{mode}: {us:.2} us per call");
        }
        "boxed" | "boxed_seq" => {
            let t = tree::build_boxed(layers);
            let t = black_box(&*t);
            for _ in 0..reps {
                let sum = if mode == "boxed" {
                    tree::sum_boxed_blitz(t)
                } else {
                    tree::sum_boxed_seq(t)
                };
                assert_eq!(sum, want);
            }
        }
        "tree" | "tree_seq" => {
            let mut slots = tree::storage(layers);
            let t = black_box(tree::build(&mut slots));
            for _ in 0..reps {
                let sum = if mode == "tree" {
                    blitz_par::scope(|_| tree::sum_blitz(t))
                } else {
                    tree::sum_seq(t)
                };
                assert_eq!(sum, want);
            }
        }
        "time" => {
            let boxed = tree::build_boxed(layers);
            let boxed = black_box(&*boxed);
            let mut slots = tree::storage(layers);
            let t = black_box(tree::build(&mut slots));
            let mut best = [f64::MAX; 4];
            for _ in 0..reps {
                let runs = [
                    ms(|| assert_eq!(tree::sum_boxed_seq(boxed), want)),
                    ms(|| assert_eq!(tree::sum_boxed_blitz(boxed), want)),
                    ms(|| assert_eq!(tree::sum_seq(t), want)),
                    ms(|| assert_eq!(blitz_par::scope(|_| tree::sum_blitz(t)), want)),
                ];
                for (best, run) in best.iter_mut().zip(runs) {
                    *best = best.min(run);
                }
            }
            let [bs, bb, ts, tb] = best;
            println!(
                "boxed: seq {bs:.1} ms, blitz {bb:.1} ({:.2}x); one allocation: seq {ts:.1} ms, blitz {tb:.1} ({:.2}x)",
                bb / bs,
                tb / ts
            );
        }
        _ => eprintln!("modes: boxed, boxed_seq, tree, tree_seq, hop, outside, time"),
    }
}
