//! Instruction counts of the ways to join a few closures, for callgrind (valgrind counts
//! instructions, which other load on the machine does not change):
//!
//! ```text
//! cargo build --release --example join_shapes
//! valgrind --tool=callgrind --separate-threads=yes target/release/examples/join_shapes tree [threads]
//! ```
//!
//! Each shape runs `ROUNDS` times inside `install` on a pool of two threads (or as many as
//! the second argument says, or in the global pool for `global`, as a guest unless it has one
//! seat: `taskset -c 0` gives it one CPU; the counts of the busiest thread's file are the
//! loop's): `plain`
//! (the four calls one after the other), `tree` (`join!` of four), `chain` (`join(a, ||
//! join(b, || join(c, d)))`), `try` (`try_join!` of four that succeed), `parmap` (an array of
//! four closures as a parallel iterator, collected into a `Vec`), `joinall` (a recursive join
//! over the same closures, written into a `Vec`) and `joinall_fn` (`blitz_par::join_all`).
//! Subtract `plain` and divide by `ROUNDS`. `treesum_seq` and `treesum_join` sum a 1,023-node
//! tree in one round of 100 (plain recursion, and a join at every node): the cost per node of
//! a join against a call.

use blitz_par::prelude::*;
use std::hint::black_box;
use std::mem::MaybeUninit;

const ROUNDS: u64 = 100_000;

#[inline(never)]
fn work(i: u64) -> u64 {
    black_box(i).wrapping_mul(3) + 1
}

/// A join of a known list of closures, as a `join_all` would be: halves joined recursively,
/// each result written in place.
fn join_all<F: FnOnce() -> u64 + Send>(fs: &mut [Option<F>], out: &mut [MaybeUninit<u64>]) {
    if fs.len() == 1 {
        out[0].write((fs[0].take().expect("each closure runs once"))());
        return;
    }
    let mid = fs.len() / 2;
    let (fl, fr) = fs.split_at_mut(mid);
    let (ol, or) = out.split_at_mut(mid);
    blitz_par::join(|| join_all(fl, ol), || join_all(fr, or));
}

#[path = "../benches/common/tree.rs"]
mod tree;

/// A 1,023-node tree in one allocation (`benches/common/tree.rs`), built once.
fn small_tree() -> &'static tree::Node<'static> {
    static TREE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let addr = *TREE.get_or_init(|| {
        let slots = Box::leak(tree::storage(10).into_boxed_slice());
        tree::build(slots) as *const tree::Node<'static> as usize
    });
    // SAFETY: the tree was leaked, so it lives for the rest of the process, and is never
    // written again.
    unsafe { &*(addr as *const tree::Node<'static>) }
}

fn round(shape: &str, i: u64) -> u64 {
    match shape {
        // One round in 100 sums the tree: instructions per node are the total's divided by
        // 1,023 * ROUNDS / 100.
        "treesum_seq" if i % 100 == 0 => tree::sum_seq(black_box(small_tree())),
        "treesum_join" if i % 100 == 0 => tree::sum_blitz(black_box(small_tree())),
        "treesum_seq" | "treesum_join" => 0,
        "plain" => work(i) + work(i + 1) + work(i + 2) + work(i + 3),
        "tree" => {
            let (a, b, c, d) =
                blitz_par::join!(|| work(i), || work(i + 1), || work(i + 2), || work(i + 3));
            a + b + c + d
        }
        "chain" => {
            let (a, (b, (c, d))) = blitz_par::join(
                || work(i),
                || {
                    blitz_par::join(
                        || work(i + 1),
                        || blitz_par::join(|| work(i + 2), || work(i + 3)),
                    )
                },
            );
            a + b + c + d
        }
        "try" => {
            let r: Result<_, ()> = blitz_par::try_join!(
                || Ok(work(i)),
                || Ok(work(i + 1)),
                || Ok(work(i + 2)),
                || Ok(work(i + 3))
            );
            let (a, b, c, d) = r.unwrap();
            a + b + c + d
        }
        "parmap" => {
            let fs = [0, 1, 2, 3].map(|k| move || work(i + k));
            let v: Vec<u64> = fs.into_par_iter().map(|f| f()).collect();
            v.iter().sum()
        }
        "joinall_fn" => {
            let fs = [0, 1, 2, 3].map(|k| move || work(i + k));
            blitz_par::join_all(fs).iter().sum()
        }
        "joinall" => {
            let mut fs = [0, 1, 2, 3].map(|k| Some(move || work(i + k)));
            let mut v: Vec<u64> = Vec::with_capacity(4);
            join_all(&mut fs, &mut v.spare_capacity_mut()[..4]);
            // SAFETY: `join_all` wrote all four.
            unsafe { v.set_len(4) };
            v.iter().sum()
        }
        other => {
            panic!(
                "unknown shape {other}: plain, tree, chain, try, parmap, joinall, joinall_fn, \
                 treesum_seq, treesum_join"
            )
        }
    }
}

fn main() {
    let shape = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tree".to_string());
    let threads = std::env::args().nth(2);
    let rounds = || (0..ROUNDS).map(|i| round(&shape, i)).sum::<u64>();
    let total = if threads.as_deref() == Some("global") {
        // In the global pool, as a user's first call would run (the caller a guest there).
        blitz_par::scope(|_| rounds())
    } else {
        let threads = threads.map_or(2, |t| t.parse().expect("a thread count, or `global`"));
        let pool = blitz_par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(rounds)
    };
    println!("{shape}: {total}");
}
