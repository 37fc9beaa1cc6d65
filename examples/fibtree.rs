//! Join cost in one run: fib and binary-tree sums with a join at every call, blitz-par against
//! the plain sequential recursion, chili and rayon. Every library visits the tree left subtree
//! first (chili's closures are swapped: its `join` runs the second one first). Prints the best
//! of several runs and the ratio to the sequential recursion.
//!
//! `cargo run --release --example fibtree` (pools use `BLITZ_NUM_THREADS`,
//! `RAYON_NUM_THREADS` and the CPUs the process may use, so `taskset -c 0` gives one core).
//! An argument limits the run to the rows whose name contains it (`fibtree 16.7M`).

use std::time::Instant;

#[path = "../benches/common/fib.rs"]
mod fib;
use fib::{fib_blitz, fib_chili, fib_rayon, fib_seq};

struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn tree(layers: usize) -> Node {
    Node {
        val: 1,
        left: (layers > 1).then(|| Box::new(tree(layers - 1))),
        right: (layers > 1).then(|| Box::new(tree(layers - 1))),
    }
}

fn sum_seq(n: &Node) -> u64 {
    n.val + n.left.as_deref().map_or(0, sum_seq) + n.right.as_deref().map_or(0, sum_seq)
}

fn sum_blitz(n: &Node) -> u64 {
    let (l, r) = blitz_par::join(
        || n.left.as_deref().map_or(0, sum_blitz),
        || n.right.as_deref().map_or(0, sum_blitz),
    );
    n.val + l + r
}

fn sum_rayon(n: &Node) -> u64 {
    let (l, r) = rayon::join(
        || n.left.as_deref().map_or(0, sum_rayon),
        || n.right.as_deref().map_or(0, sum_rayon),
    );
    n.val + l + r
}

fn sum_chili(n: &Node, s: &mut chili::Scope<'_>) -> u64 {
    let (r, l) = s.join(
        |s| n.right.as_deref().map_or(0, |n| sum_chili(n, s)),
        |s| n.left.as_deref().map_or(0, |n| sum_chili(n, s)),
    );
    n.val + l + r
}

/// Best of `reps` runs of `f`, in milliseconds.
fn best<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let chili_pool = chili::ThreadPool::new();
    let mut scope = chili_pool.scope();
    let row = |name: &str, seq: f64, blitz: f64, chili: f64, rayon: f64| {
        println!(
            "{name:>12}  seq {seq:9.3} ms  blitz {blitz:9.3} ({:.2}x)  chili {chili:9.3} ({:.2}x)  rayon {rayon:9.3} ({:.2}x)",
            blitz / seq,
            chili / seq,
            rayon / seq
        );
    };
    if "fib(27)".contains(filter.as_str()) {
        // `black_box` in each run: a pure call on a loop-invariant argument would be hoisted
        // out of the timed loop.
        let n = || std::hint::black_box(27);
        let want = fib_seq(n());
        let seq = best(20, || assert_eq!(fib_seq(n()), want));
        let blitz = best(20, || assert_eq!(fib_blitz(n()), want));
        let chili = best(20, || assert_eq!(fib_chili(n(), &mut scope), want));
        let rayon = best(20, || assert_eq!(fib_rayon(n()), want));
        row("fib(27)", seq, blitz, chili, rayon);
    }
    for (name, layers, reps) in [
        ("tree 1023", 10, 2000),
        ("tree 1M", 20, 20),
        ("tree 16.7M", 24, 5),
    ] {
        if !name.contains(filter.as_str()) {
            continue;
        }
        let t = tree(layers);
        let want = (1u64 << layers) - 1;
        let t = std::hint::black_box(&t);
        let seq = best(reps, || assert_eq!(sum_seq(t), want));
        let blitz = best(reps, || assert_eq!(sum_blitz(t), want));
        let chili = best(reps, || assert_eq!(sum_chili(t, &mut scope), want));
        let rayon = best(reps, || assert_eq!(sum_rayon(t), want));
        // The sequential recursion again: the first traversal of a new tree runs on other
        // cache and TLB state than the later ones.
        let seq = seq.min(best(reps, || assert_eq!(sum_seq(t), want)));
        row(name, seq, blitz, chili, rayon);
    }
}
