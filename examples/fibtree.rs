//! Join cost in one run: fib and binary-tree sums with a join at every call, blitz-par against
//! the plain sequential recursion, chili and rayon. Every library visits the tree left subtree
//! first (chili's closures are swapped: its `join` runs the second one first), and all walk
//! the same tree, whose nodes lie in one allocation in the order they are visited
//! (`benches/common/tree.rs`: so that the layout, and with it the cache behaviour, is the same
//! in every process). Every library's timed runs run inside its pool, so that each join is
//! one from a pool thread (entering a pool from outside is `benches/outside.rs`'s). Prints
//! the best of several runs and the ratio to the sequential recursion.
//!
//! Also: fib(30); the 16.7M-node tree read as a 4-ary one, `join!` of four against nested
//! `join`s; and a 16.7M-node tree boxed node by node, summed from outside every pool as a new
//! user would (no wrapper).
//!
//! `cargo run --release --example fibtree` (pools use `BLITZ_NUM_THREADS`,
//! `RAYON_NUM_THREADS` and the CPUs the process may use, so `taskset -c 0` gives one core).
//! An argument limits the run to the rows whose name contains it (`fibtree 16.7M`).

use std::time::Instant;

#[path = "../benches/common/fib.rs"]
mod fib;
use fib::{fib_blitz, fib_chili, fib_rayon, fib_seq};
#[path = "../benches/common/tree.rs"]
mod tree;
use tree::{sum_blitz, sum_chili, sum_rayon, sum_seq};

/// Best of `reps` runs of `f`, in microseconds.
fn best<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e6
        })
        .fold(f64::MAX, f64::min)
}

/// Runs `f` inside blitz-par's global pool (as a guest, or on its worker when the environment
/// asks for one thread), so that every timed join is a join inside the pool: what entering the
/// pool from outside costs is `benches/outside.rs`'s to measure.
fn in_blitz<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    blitz_par::scope(|_| f())
}

/// Runs `f` on a thread of rayon's global pool (as chili's runs in its scope).
fn in_rayon<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let chili_pool = chili::ThreadPool::new();
    let mut scope = chili_pool.scope();
    let row = |name: &str, seq: f64, blitz: f64, chili: f64, rayon: f64, two: Option<f64>| {
        let two = two.map_or(String::new(), |two| {
            format!("  two threads {two:9.1} ({:.2}x)", two / seq)
        });
        println!(
            "{name:>12}  seq {seq:9.1} us  blitz {blitz:9.1} ({:.2}x)  chili {chili:9.1} ({:.2}x)  rayon {rayon:9.1} ({:.2}x){two}",
            blitz / seq,
            chili / seq,
            rayon / seq
        );
    };
    for (name, arg, reps) in [("fib(27)", 27, 20), ("fib(30)", 30, 5)] {
        if !name.contains(filter.as_str()) {
            continue;
        }
        // `black_box` in each run: a pure call on a loop-invariant argument would be hoisted
        // out of the timed loop.
        let n = || std::hint::black_box(arg);
        let want = fib_seq(n());
        let seq = best(reps, || assert_eq!(fib_seq(n()), want));
        let blitz = in_blitz(|| best(reps, || assert_eq!(fib_blitz(n()), want)));
        let chili = best(reps, || assert_eq!(fib_chili(n(), &mut scope), want));
        let rayon = in_rayon(|| best(reps, || assert_eq!(fib_rayon(n()), want)));
        row(name, seq, blitz, chili, rayon, None);
    }
    for (name, layers, reps) in [
        ("tree 1023", 10, 2000),
        ("tree 1M", 20, 20),
        ("tree 16.7M", 24, 5),
    ] {
        let tree_row = name.contains(filter.as_str());
        let join4_row = layers == 24 && "join4 16.7M".contains(filter.as_str());
        if !tree_row && !join4_row {
            continue;
        }
        let mut slots = tree::storage(layers);
        let t = std::hint::black_box(tree::build(&mut slots));
        let want = (1u64 << layers) - 1;
        if join4_row {
            // `join!` of four over the tree read as a 4-ary one, against the nested pairwise
            // joins users write without it.
            let nested = in_blitz(|| best(reps, || assert_eq!(tree::sum4_nested(t), want)));
            let many = in_blitz(|| best(reps, || assert_eq!(tree::sum4_join_many(t), want)));
            println!(
                "{:>12}  nested joins {nested:9.1} us  join! of 4 {many:9.1} ({:.2}x)",
                "join4 16.7M",
                many / nested
            );
        }
        if !tree_row {
            continue;
        }
        let seq = best(reps, || assert_eq!(sum_seq(t), want));
        let blitz = in_blitz(|| best(reps, || assert_eq!(sum_blitz(t), want)));
        let chili = best(reps, || assert_eq!(sum_chili(t, &mut scope), want));
        let rayon = in_rayon(|| best(reps, || assert_eq!(sum_rayon(t), want)));
        // The sequential recursion again: the first traversal of a new tree runs on other
        // cache and TLB state than the later ones.
        let seq = seq.min(best(reps, || assert_eq!(sum_seq(t), want)));
        // No scheduler at all, where there is more than one CPU and the tree is worth two
        // threads: the machine's own limit.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let two = (cpus > 1 && layers > 10)
            .then(|| best(reps, || assert_eq!(tree::sum_two_threads(t), want)));
        row(name, seq, blitz, chili, rayon, two);
    }
    if "boxed 16.7M".contains(filter.as_str()) {
        // A tree boxed node by node, called as a new user would (from outside every pool, no
        // wrapper): the allocator's layout, so compare within this row only.
        let t = tree::build_boxed(24);
        let t = std::hint::black_box(&*t);
        let want = (1u64 << 24) - 1;
        let seq = best(5, || assert_eq!(tree::sum_boxed_seq(t), want));
        let blitz = best(5, || assert_eq!(tree::sum_boxed_blitz(t), want));
        let chili = best(5, || assert_eq!(tree::sum_boxed_chili(t, &mut scope), want));
        let rayon = best(5, || assert_eq!(tree::sum_boxed_rayon(t), want));
        let seq = seq.min(best(5, || assert_eq!(tree::sum_boxed_seq(t), want)));
        row("boxed 16.7M", seq, blitz, chili, rayon, None);
    }
}
