//! The rayon API that blitz-par added for parity (iterator methods, sources, collection
//! targets, drains, slice and string splits, rayon's module paths, scheduler functions): each
//! is compared with std's sequential result or with rayon's, on edge cases (empty, one item),
//! on inputs large enough to split, and on random inputs (quickcheck).

use blitz_par::iter::Either;
use blitz_par::prelude::*;
use quickcheck::{quickcheck, TestResult};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[path = "common/watchdog.rs"]
mod watchdog;

/// The same operations through rayon, for the methods whose results rayon defines exactly.
mod rayon_ref {
    use rayon::prelude::*;

    pub fn interleave_shortest(a: &[i32], b: &[i32]) -> Vec<i32> {
        a.par_iter().interleave_shortest(b).copied().collect()
    }

    pub fn fold_chunks(v: &[i32], size: usize) -> Vec<i64> {
        v.par_iter()
            .fold_chunks(
                size,
                || 0i64,
                |a, &x| a.wrapping_mul(3).wrapping_add(i64::from(x)),
            )
            .collect()
    }

    pub fn positions(v: &[i32]) -> Vec<usize> {
        v.par_iter().positions(|&x| x % 3 == 0).collect()
    }

    pub fn walk_prefix(root: u32, limit: u32) -> Vec<u32> {
        rayon::iter::walk_tree_prefix(root, |&n| {
            [2 * n, 2 * n + 1].into_iter().filter(move |&c| c <= limit)
        })
        .collect()
    }

    pub fn walk_postfix(root: u32, limit: u32) -> Vec<u32> {
        rayon::iter::walk_tree_postfix(root, |&n| {
            [2 * n, 2 * n + 1].into_iter().filter(move |&c| c <= limit)
        })
        .collect()
    }
}

fn chunk_fold(v: &[i32], size: usize) -> Vec<i64> {
    v.chunks(size)
        .map(|c| {
            c.iter()
                .fold(0i64, |a, &x| a.wrapping_mul(3).wrapping_add(i64::from(x)))
        })
        .collect()
}

// ---- ParallelIterator / IndexedParallelIterator methods ----

#[test]
fn positions_matches_std_and_rayon() {
    for n in [0usize, 1, 2, 10, 100_000] {
        let v: Vec<i32> = (0..n as i32).map(|x| x.wrapping_mul(7919) % 1000).collect();
        let par: Vec<usize> = v.par_iter().positions(|&x| x % 3 == 0).collect();
        let seq: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, &x)| x % 3 == 0)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(par, seq);
        assert_eq!(par, rayon_ref::positions(&v));
    }
}

/// Runs a producer as one leaf, from the back.
struct RevLeaf;

impl<T> blitz_par::iter::plumbing::ProducerCallback<T> for RevLeaf {
    type Output = Vec<T>;
    fn callback<P: blitz_par::iter::plumbing::Producer<Item = T>>(self, producer: P) -> Vec<T> {
        producer.into_iter().rev().collect()
    }
}

#[test]
fn fold_chunks_matches_std_and_rayon() {
    for n in [0usize, 1, 7, 1000, 100_003] {
        let v: Vec<i32> = (0..n as i32).collect();
        for size in [1usize, 2, 3, 64, 1000, n.max(1), n + 5] {
            let par: Vec<i64> = v
                .par_iter()
                .fold_chunks(
                    size,
                    || 0i64,
                    |a, &x| a.wrapping_mul(3).wrapping_add(i64::from(x)),
                )
                .collect();
            assert_eq!(par, chunk_fold(&v, size), "n={n} size={size}");
            assert_eq!(par, rayon_ref::fold_chunks(&v, size));
            let with: Vec<i64> = v
                .par_iter()
                .fold_chunks_with(size, 0i64, |a, &x| {
                    a.wrapping_mul(3).wrapping_add(i64::from(x))
                })
                .collect();
            assert_eq!(with, par);
            // Exact length, indexed (so `rev`, `zip` and `len` work), splits at chunk bounds.
            let it = v
                .par_iter()
                .fold_chunks(size, || 0i64, |a, &x| a + i64::from(x));
            assert_eq!(it.len(), n.div_ceil(size));
            let rev: Vec<i64> = v
                .par_iter()
                .fold_chunks(
                    size,
                    || 0i64,
                    |a, &x| a.wrapping_mul(3).wrapping_add(i64::from(x)),
                )
                .with_max_len(1)
                .rev()
                .collect();
            let mut seq_rev = chunk_fold(&v, size);
            seq_rev.reverse();
            assert_eq!(rev, seq_rev);
            // One leaf of all the chunks, folded from the back (the partial chunk first): the
            // driver only ever hands a reversed leaf the partial chunk alone.
            let rev_leaf = v
                .par_iter()
                .fold_chunks_with(size, 0i64, |a, &x| {
                    a.wrapping_mul(3).wrapping_add(i64::from(x))
                })
                .with_producer(RevLeaf);
            assert_eq!(rev_leaf, seq_rev);
        }
    }
}

#[test]
fn fold_chunks_with_needs_no_sync_init() {
    // `Cell` is Send + Clone but not Sync: rayon accepts it, so must we.
    let v: Vec<u32> = (0..100).collect();
    let out: Vec<u32> = v
        .par_iter()
        .fold_chunks_with(10, std::cell::Cell::new(0u32), |c, &x| {
            c.set(c.get() + x);
            c
        })
        .map(|c| c.get())
        .collect();
    assert_eq!(
        out,
        v.chunks(10).map(|c| c.iter().sum()).collect::<Vec<u32>>()
    );
}

#[test]
fn non_sync_values_where_rayon_takes_them() {
    use std::cell::Cell;
    // `try_fold_with`'s initial value and `intersperse`'s separator need only be `Send +
    // Clone` in rayon; `Cell` is not `Sync`.
    let r: Option<Cell<u64>> = (0..10_000u64)
        .into_par_iter()
        .try_fold_with(Cell::new(0u64), |acc, x| {
            acc.set(acc.get().checked_add(x)?);
            Some(acc)
        })
        .try_reduce(|| Cell::new(0), |a, b| Some(Cell::new(a.get() + b.get())));
    assert_eq!(r.map(Cell::into_inner), Some((0..10_000u64).sum()));
    let v: Vec<u32> = (0..1000u32)
        .into_par_iter()
        .map(Cell::new)
        .intersperse(Cell::new(7))
        .map(Cell::into_inner)
        .collect();
    let mut want = Vec::new();
    for x in 0..1000u32 {
        if x > 0 {
            want.push(7);
        }
        want.push(x);
    }
    assert_eq!(v, want);
    // The adapters' types have rayon's names and parameters.
    let _: blitz_par::iter::Intersperse<blitz_par::range::Iter<i32>> =
        (0..3).into_par_iter().intersperse(0);
    let _: blitz_par::iter::TryFoldWith<blitz_par::range::Iter<i32>, Option<i32>, _> =
        (0..3).into_par_iter().try_fold_with(0, |a, x| Some(a + x));
}

#[test]
#[should_panic(expected = "chunk_size must not be zero")]
fn fold_chunks_zero_panics() {
    let _ = (0..4).into_par_iter().fold_chunks(0, || 0, |a, x| a + x);
}

#[test]
fn blocks_keep_order_and_stop_early() {
    for n in [0usize, 1, 5, 10_000, 200_000] {
        let v: Vec<u64> = (0..n as u64).collect();
        let e: Vec<u64> = v.par_iter().copied().by_exponential_blocks().collect();
        let u: Vec<u64> = v.par_iter().copied().by_uniform_blocks(1000).collect();
        assert_eq!(e, v);
        assert_eq!(u, v);
        assert_eq!(
            v.par_iter().by_uniform_blocks(7).map(|&x| x).sum::<u64>(),
            v.iter().sum::<u64>()
        );
    }
    // A search near the front of a huge range ends after a few blocks.
    let visited = AtomicUsize::new(0);
    let found = (0..usize::MAX / 2)
        .into_par_iter()
        .by_exponential_blocks()
        .inspect(|_| {
            visited.fetch_add(1, Ordering::Relaxed);
        })
        .find_first(|&x| x == 5000);
    assert_eq!(found, Some(5000));
    assert!(visited.into_inner() < 1 << 30);
    let found = (0..usize::MAX / 2)
        .into_par_iter()
        .by_uniform_blocks(1 << 16)
        .find_any(|&x| x == 77);
    assert_eq!(found, Some(77));
}

#[test]
#[should_panic(expected = "block_size must not be zero")]
fn uniform_blocks_zero_panics() {
    let _ = (0..4).into_par_iter().by_uniform_blocks(0);
}

#[test]
fn interleave_shortest_matches_rayon() {
    for (na, nb) in [
        (0, 0),
        (0, 3),
        (3, 0),
        (1, 1),
        (5, 3),
        (3, 5),
        (4, 4),
        (10_000, 9_999),
    ] {
        let a: Vec<i32> = (0..na).collect();
        let b: Vec<i32> = (0..nb).map(|x| -x - 1).collect();
        let par: Vec<i32> = a.par_iter().interleave_shortest(&b).copied().collect();
        assert_eq!(par, rayon_ref::interleave_shortest(&a, &b), "{na} {nb}");
        let it = a.par_iter().interleave_shortest(&b);
        assert_eq!(it.len(), par.len());
    }
}

#[test]
fn take_any_while_and_skip_any_while() {
    let v: Vec<u32> = (0..100_000).collect();
    // Always true / always false: the whole input or nothing, in order.
    let all: Vec<u32> = v.par_iter().copied().take_any_while(|_| true).collect();
    assert_eq!(all, v);
    let none: Vec<u32> = v.par_iter().copied().take_any_while(|_| false).collect();
    assert!(none.is_empty());
    let all: Vec<u32> = v.par_iter().copied().skip_any_while(|_| false).collect();
    assert_eq!(all, v);
    let none: Vec<u32> = v.par_iter().copied().skip_any_while(|_| true).collect();
    assert!(none.is_empty());
    // Mixed: taken items satisfy the predicate and keep their order; skipping never drops an
    // item that fails it.
    let taken: Vec<u32> = v
        .par_iter()
        .copied()
        .take_any_while(|&x| x < 50_000)
        .collect();
    assert!(taken.iter().all(|&x| x < 50_000));
    assert!(taken.windows(2).all(|w| w[0] < w[1]));
    let kept: Vec<u32> = v
        .par_iter()
        .copied()
        .skip_any_while(|&x| x < 50_000)
        .collect();
    assert!(kept.windows(2).all(|w| w[0] < w[1]));
    assert!((50_000..100_000).all(|x| kept.binary_search(&x).is_ok()));
    // Empty and one item.
    assert_eq!(
        Vec::<u32>::new()
            .into_par_iter()
            .take_any_while(|_| true)
            .count(),
        0
    );
    assert_eq!(
        vec![1].into_par_iter().skip_any_while(|&x| x > 1).count(),
        1
    );
}

#[test]
fn intersperse_is_indexed_on_indexed_bases() {
    for n in [0usize, 1, 2, 3, 10, 10_001] {
        let v: Vec<u32> = (1..=n as u32).collect();
        let mut want = Vec::new();
        for &x in &v {
            if !want.is_empty() {
                want.push(0);
            }
            want.push(x);
        }
        let it = v.par_iter().copied().intersperse(0);
        assert_eq!(it.len(), want.len());
        for max in [1usize, 2, 3, 1000] {
            let got: Vec<u32> = v
                .par_iter()
                .copied()
                .intersperse(0)
                .with_max_len(max)
                .collect();
            assert_eq!(got, want, "n={n} max={max}");
            let rev: Vec<u32> = v
                .par_iter()
                .copied()
                .intersperse(0)
                .with_max_len(max)
                .rev()
                .collect();
            assert!(rev.iter().eq(want.iter().rev()), "n={n} max={max}");
        }
        // Indexed, so it zips and enumerates.
        let zipped: Vec<(usize, u32)> = v
            .par_iter()
            .copied()
            .intersperse(0)
            .enumerate()
            .zip_eq(want.par_iter().copied())
            .map(|((i, a), b)| {
                assert_eq!(a, b);
                (i, a)
            })
            .collect();
        assert_eq!(zipped.len(), want.len());
    }
}

#[test]
fn panic_fuse_stops_adapters_that_read_the_sequential_iterator() {
    // rayon's tests/iter_panic.rs: one thread, so that the counts are deterministic.
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    const PANIC: i32 = 0xC000;
    let check = |&i: &i32| {
        if i == PANIC {
            panic!("boom")
        }
    };
    pool.install(|| {
        fn count(iter: impl ParallelIterator + std::panic::UnwindSafe) -> usize {
            let count = AtomicUsize::new(0);
            let result = std::panic::catch_unwind(|| {
                iter.for_each(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            });
            assert!(result.is_err());
            count.into_inner()
        }
        let expected = 0x1_0000 - 1;
        let iter = (0..0x1_0000).into_par_iter().with_max_len(1);
        assert_eq!(count(iter.clone().inspect(check)), expected);
        assert!(count(iter.clone().inspect(check).panic_fuse()) < expected);
        assert!(count(iter.clone().panic_fuse().inspect(check)) < expected);
        assert!(count(iter.clone().panic_fuse().inspect(check).rev()) < expected);
        let other: Vec<i32> = (0..0x1_0000).collect();
        assert!(count(iter.panic_fuse().zip(&other).inspect(|(i, _)| check(i))) < expected);
    });
}

#[test]
fn collect_vec_list_keeps_order() {
    for n in [0usize, 1, 100_000] {
        let list = (0..n)
            .into_par_iter()
            .filter(|x| x % 3 != 1)
            .collect_vec_list();
        let flat: Vec<usize> = list.into_iter().flatten().collect();
        assert_eq!(flat, (0..n).filter(|x| x % 3 != 1).collect::<Vec<_>>());
    }
}

#[test]
#[allow(deprecated)]
fn deprecated_names_still_work() {
    assert_eq!((0..100).into_par_iter().find(|&x| x == 42), Some(42));
    assert_eq!((0..100).into_par_iter().position(|x| x == 42), Some(42));
    assert_eq!(
        blitz_par::iter::repeatn(3, 4).collect::<Vec<_>>(),
        [3, 3, 3, 3]
    );
}

// ---- sources ----

#[test]
fn tuples_zip_like_rayon() {
    let a: Vec<i32> = (0..1000).collect();
    let b: Vec<i64> = (0..900).map(|x| x * 2).collect();
    let c = 5u8..255;
    let par: Vec<(i32, i64, u8)> = (a.clone(), b.clone(), c.clone()).into_par_iter().collect();
    let seq: Vec<(i32, i64, u8)> = a
        .iter()
        .zip(&b)
        .zip(c.clone())
        .map(|((&x, &y), z)| (x, y, z))
        .collect();
    assert_eq!(par, seq);
    assert_eq!((&a, &b, c).into_par_iter().len(), 250);
    let owned = (a.clone(), b.clone());
    let refs: Vec<(&i32, &i64)> = owned.par_iter().collect();
    assert_eq!(refs.len(), 900);
    // Mutable members, through `&mut (A, B)`.
    let mut pair = (vec![0i32; 10], (0..10).collect::<Vec<i32>>());
    (&mut pair.0, &pair.1)
        .into_par_iter()
        .for_each(|(x, &y)| *x = y * y);
    assert_eq!(pair.0, (0..10).map(|y| y * y).collect::<Vec<_>>());
    pair.par_iter_mut().for_each(|(x, y)| std::mem::swap(x, y));
    assert_eq!(pair.1, (0..10).map(|y| y * y).collect::<Vec<_>>());
    // One member, twelve members, empty members, reversed.
    let one: Vec<(i32,)> = (vec![1, 2],).into_par_iter().collect();
    assert_eq!(one, [(1,), (2,)]);
    let r = 0..3;
    let twelve: Vec<_> = (
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r.clone(),
        r,
    )
        .into_par_iter()
        .map(|t| t.0 + t.11)
        .collect();
    assert_eq!(twelve, [0, 2, 4]);
    let empty: Vec<(i32, i32)> = (Vec::<i32>::new(), vec![1]).into_par_iter().collect();
    assert!(empty.is_empty());
    let rev: Vec<(i32, i32)> = (vec![1, 2, 3], vec![4, 5, 6])
        .into_par_iter()
        .rev()
        .collect();
    assert_eq!(rev, [(3, 6), (2, 5), (1, 4)]);
}

#[test]
fn split_covers_the_data() {
    let pieces: Vec<std::ops::Range<u64>> = blitz_par::iter::split(0..100_000u64, |r| {
        if r.end - r.start <= 100 {
            (r, None)
        } else {
            let mid = r.start + (r.end - r.start) / 2;
            (r.start..mid, Some(mid..r.end))
        }
    })
    .collect();
    // The pieces tile the range, in order.
    assert_eq!(pieces.first().map(|r| r.start), Some(0));
    assert_eq!(pieces.last().map(|r| r.end), Some(100_000));
    assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
    let sum: u64 = pieces.into_par_iter().map(|r| r.sum::<u64>()).sum();
    assert_eq!(sum, (0..100_000u64).sum());
    // Data that never splits is one item.
    assert_eq!(
        blitz_par::iter::split(7, |x| (x, None)).collect::<Vec<_>>(),
        [7]
    );
}

fn tree_prefix(n: u32, limit: u32, out: &mut Vec<u32>) {
    out.push(n);
    for c in [2 * n, 2 * n + 1] {
        if c <= limit {
            tree_prefix(c, limit, out);
        }
    }
}

fn tree_postfix(n: u32, limit: u32, out: &mut Vec<u32>) {
    for c in [2 * n, 2 * n + 1] {
        if c <= limit {
            tree_postfix(c, limit, out);
        }
    }
    out.push(n);
}

#[test]
fn walk_tree_orders_match_rayon() {
    for limit in [1u32, 2, 3, 7, 100, 65_535] {
        let children = move |&n: &u32| [2 * n, 2 * n + 1].into_iter().filter(move |&c| c <= limit);
        let pre: Vec<u32> = blitz_par::iter::walk_tree_prefix(1u32, children).collect();
        let post: Vec<u32> = blitz_par::iter::walk_tree_postfix(1u32, children).collect();
        let (mut seq_pre, mut seq_post) = (Vec::new(), Vec::new());
        tree_prefix(1, limit, &mut seq_pre);
        tree_postfix(1, limit, &mut seq_post);
        assert_eq!(pre, seq_pre);
        assert_eq!(post, seq_post);
        assert_eq!(pre, rayon_ref::walk_prefix(1, limit));
        assert_eq!(post, rayon_ref::walk_postfix(1, limit));
        let mut any: Vec<u32> = blitz_par::iter::walk_tree(1u32, children).collect();
        any.sort_unstable();
        assert_eq!(any, (1..=limit).collect::<Vec<_>>());
    }
}

#[test]
fn walk_tree_deep_chain_and_early_stop() {
    // A list 200_000 deep: no recursion, so no stack overflow.
    let chain = |&n: &u32| (n < 200_000).then_some(n + 1);
    assert_eq!(
        blitz_par::iter::walk_tree_prefix(1u32, chain).count(),
        200_000
    );
    assert_eq!(
        blitz_par::iter::walk_tree_postfix(1u32, chain).count(),
        200_000
    );
    let first = blitz_par::iter::walk_tree_postfix(1u32, chain).find_first(|_| true);
    assert_eq!(first, Some(200_000));
    // Wide: one root with many leaves.
    let wide = |&n: &u32| {
        if n == 0 {
            (1..50_000).collect()
        } else {
            Vec::new()
        }
    };
    let pre: Vec<u32> = blitz_par::iter::walk_tree_prefix(0u32, wide).collect();
    assert_eq!(pre, (0..50_000).collect::<Vec<_>>());
    let post: Vec<u32> = blitz_par::iter::walk_tree_postfix(0u32, wide).collect();
    assert_eq!(post, (1..50_000).chain([0]).collect::<Vec<_>>());
}

#[test]
fn integer_ranges_of_every_type() {
    macro_rules! check {
        ($($t:ty),*) => {$(
            let r: Vec<$t> = (<$t>::MIN..<$t>::MIN + 100).into_par_iter().collect();
            assert_eq!(r, (<$t>::MIN..<$t>::MIN + 100).collect::<Vec<$t>>());
            let r: Vec<$t> = (<$t>::MAX - 100..=<$t>::MAX).into_par_iter().collect();
            assert_eq!(r, (<$t>::MAX - 100..=<$t>::MAX).collect::<Vec<$t>>());
            assert_eq!((0 as $t..0 as $t).into_par_iter().count(), 0);
            assert_eq!((1 as $t..=1 as $t).into_par_iter().count(), 1);
        )*};
    }
    check!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
}

#[test]
fn range_items_infer_like_rayon() {
    // rayon's issue 833: the item of `(0..n).into_par_iter()` is the range's `{integer}` at
    // once, so closures may use operators and trait methods on it before the type is known.
    let v: Vec<_> = (0..8).into_par_iter().map(|x| -x).collect();
    assert_eq!(v, (0..8).map(|x: i32| -x).collect::<Vec<_>>());
    let v: Vec<String> = (0..3).into_par_iter().map(|x| x.to_string()).collect();
    assert_eq!(v, ["0", "1", "2"]);
    let v: Vec<String> = (0..=3).into_par_iter().map(|x| x.to_string()).collect();
    assert_eq!(v, ["0", "1", "2", "3"]);
    let (first, (left, right)): (Vec<_>, (Vec<_>, Vec<_>)) = (0..8)
        .into_par_iter()
        .map(|x| {
            if x % 2 == 0 {
                (x, Either::Left(x * 4))
            } else {
                (-x, Either::Right(x * 3))
            }
        })
        .collect();
    assert_eq!(first, [0, -1, 2, -3, 4, -5, 6, -7]);
    assert_eq!(left, [0, 8, 16, 24]);
    assert_eq!(right, [3, 9, 15, 21]);
}

// ---- Either ----

#[test]
fn either_is_rayons() {
    // The either crate's type, so that its methods are there.
    let e: Either<i32, i32> = Either::Left(3);
    assert!(e.is_left());
    let it = if e.is_left() {
        Either::Left((0..10).into_par_iter())
    } else {
        Either::Right((0..10).into_par_iter().rev())
    };
    assert_eq!(it.collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    let (evens, odds): (Vec<i32>, HashSet<i32>) = (0..100)
        .into_par_iter()
        .map(|x| {
            if x % 2 == 0 {
                Either::Left(x)
            } else {
                Either::Right(x)
            }
        })
        .collect();
    assert_eq!(evens, (0..100).step_by(2).collect::<Vec<_>>());
    assert_eq!(odds, (1..100).step_by(2).collect::<HashSet<_>>());
    let mut pair: (Vec<i32>, Vec<i32>) = (vec![-1], vec![]);
    pair.par_extend((0..4).into_par_iter().map(|x| {
        if x < 2 {
            Either::Left(x)
        } else {
            Either::Right(x)
        }
    }));
    assert_eq!(pair, (vec![-1, 0, 1], vec![2, 3]));
    let mut target: Either<Vec<i32>, LinkedList<i32>> = Either::Right(LinkedList::new());
    target.par_extend(0..3);
    assert_eq!(
        target.right().unwrap().into_iter().collect::<Vec<_>>(),
        [0, 1, 2]
    );
}

#[test]
fn pairs_collect_from_parallel_iterator_only() {
    // `Box<[T]>` is FromParallelIterator but neither Default nor ParallelExtend.
    let (a, b): (Box<[i32]>, String) = (0..5)
        .into_par_iter()
        .map(|x| (x, char::from(b'a' + x as u8)))
        .collect();
    assert_eq!(&*a, &[0, 1, 2, 3, 4]);
    assert_eq!(b, "abcde");
}

// ---- collect and extend targets ----

#[test]
fn more_collect_targets() {
    let v: Vec<i32> = (0..10_000).collect();
    let rc: Rc<[i32]> = v.par_iter().copied().collect();
    let arc: Arc<[i32]> = v.par_iter().copied().collect();
    assert_eq!(&*rc, &v[..]);
    assert_eq!(&*arc, &v[..]);
    let empty: Arc<[i32]> = Vec::<i32>::new().into_par_iter().collect();
    assert!(empty.is_empty());

    let words = ["alpha", "beta", "", "gamma"];
    let expected: String = words.concat();
    let b: Box<str> = words.par_iter().copied().collect();
    assert_eq!(&*b, expected);
    let b: Box<str> = words.par_iter().map(|w| w.to_string()).collect();
    assert_eq!(&*b, expected);
    let b: Box<str> = expected.par_chars().collect();
    assert_eq!(&*b, expected);
    let boxes: Vec<Box<str>> = words.iter().map(|&w| w.into()).collect();
    let s: String = boxes.par_iter().cloned().collect();
    assert_eq!(s, expected);
    let b: Box<str> = boxes.into_par_iter().collect();
    assert_eq!(&*b, expected);
    let cows: Vec<Cow<'_, str>> = words
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if i % 2 == 0 {
                Cow::Borrowed(w)
            } else {
                Cow::Owned(w.to_string())
            }
        })
        .collect();
    let s: String = cows.par_iter().cloned().collect();
    assert_eq!(s, expected);
    let mut s = String::from(">");
    s.par_extend(cows.into_par_iter());
    assert_eq!(s, format!(">{expected}"));

    let parts = [OsStr::new("a"), OsStr::new("b/"), OsStr::new("c")];
    let os: OsString = parts.par_iter().copied().collect();
    assert_eq!(os, OsString::from("ab/c"));
    let os: OsString = parts.par_iter().map(|p| p.to_os_string()).collect();
    assert_eq!(os, OsString::from("ab/c"));
    let os: OsString = parts.par_iter().map(|&p| Cow::Borrowed(p)).collect();
    assert_eq!(os, OsString::from("ab/c"));
}

#[test]
fn extend_with_references() {
    let v: Vec<u32> = (0..5000).map(|x| x * 7 % 1000).collect();
    let mut d = VecDeque::from([1u32]);
    d.par_extend(v.par_iter());
    let mut sd = VecDeque::from([1u32]);
    sd.extend(v.iter());
    assert_eq!(d, sd);
    let mut l: LinkedList<u32> = LinkedList::new();
    l.par_extend(&v);
    assert_eq!(l.into_iter().collect::<Vec<_>>(), v);
    let mut h: BinaryHeap<u32> = BinaryHeap::new();
    h.par_extend(v.par_iter());
    assert_eq!(h.into_sorted_vec(), {
        let mut s = v.clone();
        s.sort();
        s
    });
    let mut b: BTreeSet<u32> = BTreeSet::new();
    b.par_extend(&v);
    assert_eq!(b, v.iter().copied().collect::<BTreeSet<_>>());
    let mut hs: HashSet<u32> = HashSet::new();
    hs.par_extend(&v);
    assert_eq!(hs, v.iter().copied().collect::<HashSet<_>>());
    let m: HashMap<u32, u32> = v.iter().map(|&x| (x, x + 1)).collect();
    let mut bm: BTreeMap<u32, u32> = BTreeMap::new();
    bm.par_extend(m.par_iter());
    assert_eq!(
        bm,
        m.iter().map(|(&k, &v)| (k, v)).collect::<BTreeMap<_, _>>()
    );
    let mut hm: HashMap<u32, u32> = HashMap::new();
    hm.par_extend(&bm);
    assert_eq!(hm, m);
}

#[test]
fn boxed_slices_are_sources() {
    let mut b: Box<[i32]> = (0..1000).collect::<Vec<_>>().into_boxed_slice();
    (&mut b).into_par_iter().for_each(|x| *x *= 2);
    assert_eq!((&b).into_par_iter().sum::<i32>(), 999 * 1000);
    let v: Vec<i32> = b.into_par_iter().collect();
    assert_eq!(v, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
    let empty: Box<[String]> = Box::new([]);
    assert_eq!(empty.into_par_iter().count(), 0);
}

// ---- drains ----

#[test]
fn drain_full_collections() {
    let mut m: HashMap<u32, String> = (0..1000).map(|x| (x, x.to_string())).collect();
    let expect = m.clone();
    let got: HashMap<u32, String> = m.par_drain().collect();
    assert_eq!(got, expect);
    assert!(m.is_empty());
    let mut s: HashSet<u32> = (0..1000).collect();
    assert_eq!(s.par_drain().sum::<u32>(), (0..1000).sum());
    assert!(s.is_empty());
    let mut h: BinaryHeap<u32> = (0..1000).collect();
    let mut got: Vec<u32> = h.par_drain().collect();
    got.sort();
    assert_eq!(got, (0..1000).collect::<Vec<_>>());
    assert!(h.is_empty());
    assert!(
        h.capacity() >= 1000,
        "the heap keeps its capacity, as rayon's does"
    );
    let mut e: HashSet<u32> = HashSet::new();
    assert_eq!(e.par_drain().count(), 0);
    // Dropped without running: still emptied, items dropped once.
    let counter = Arc::new(());
    let mut s: HashSet<u32> = (0..10).collect();
    let mut hs: HashMap<u32, Arc<()>> = (0..10).map(|x| (x, counter.clone())).collect();
    drop(s.par_drain());
    drop(hs.par_drain());
    assert!(s.is_empty() && hs.is_empty());
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn drain_vec_deque_ranges() {
    for (lo, hi) in [(0, 0), (0, 1), (3, 7), (0, 1000), (999, 1000), (500, 500)] {
        let mut d: VecDeque<u32> = (0..1000).collect();
        d.rotate_left(300); // make it wrap around
        let mut sd = d.clone();
        let got: Vec<u32> = d.par_drain(lo..hi).collect();
        let want: Vec<u32> = sd.drain(lo..hi).collect();
        assert_eq!(got, want);
        assert_eq!(d, sd);
    }
    let mut d: VecDeque<u32> = (0..10).collect();
    let got: Vec<u32> = d.par_drain(..=2).collect();
    assert_eq!(got, [0, 1, 2]);
    let got: Vec<u32> = d.par_drain(5..).collect();
    assert_eq!(got, [8, 9]);
    assert_eq!(d, [3, 4, 5, 6, 7]);
}

#[test]
#[should_panic(expected = "range end")]
fn drain_vec_deque_out_of_bounds() {
    let mut d: VecDeque<u32> = (0..10).collect();
    let _ = d.par_drain(5..11);
}

#[test]
fn drain_string_ranges() {
    let text = "héllo, wörld — ünïcode ✓ ".repeat(200);
    let n = text.len();
    let bounds: Vec<usize> = (0..=n).filter(|&i| text.is_char_boundary(i)).collect();
    for (lo, hi) in [(0, 0), (0, n), (bounds[3], bounds[40]), (bounds[100], n)] {
        let mut s = text.clone();
        let mut ss = text.clone();
        let got: String = s.par_drain(lo..hi).collect();
        let want: String = ss.drain(lo..hi).collect();
        assert_eq!(got, want);
        assert_eq!(s, ss);
    }
    // Not run: the range still leaves the string.
    let mut s = String::from("abcdef");
    drop(s.par_drain(1..3));
    assert_eq!(s, "adef");
}

#[test]
#[should_panic(expected = "char boundaries")]
fn drain_string_inside_a_char_panics() {
    let mut s = String::from("é");
    let _ = s.par_drain(1..);
}

// ---- slices and strings ----

#[test]
fn slice_split_inclusive_and_chunk_by_mut() {
    for n in [0usize, 1, 2, 100, 100_000] {
        let v: Vec<u32> = (0..n as u32)
            .map(|x| x.wrapping_mul(2_654_435_761) % 97)
            .collect();
        let sep = |&x: &u32| x % 13 == 0;
        let par: Vec<&[u32]> = v.par_split_inclusive(sep).collect();
        let seq: Vec<&[u32]> = v.split_inclusive(sep).collect();
        assert_eq!(par, seq, "n={n}");
        // Separator in last place, and every element a separator.
        let mut w = v.clone();
        w.push(0);
        let par: Vec<&[u32]> = w.par_split_inclusive(sep).collect();
        assert_eq!(par, w.split_inclusive(sep).collect::<Vec<_>>());
        let zeros = vec![0u32; n];
        assert_eq!(
            zeros.par_split_inclusive(sep).count(),
            zeros.split_inclusive(sep).count()
        );

        let mut a = v.clone();
        let mut b = v.clone();
        a.par_split_inclusive_mut(sep).for_each(|p| p.reverse());
        b.split_inclusive_mut(sep).for_each(|p| p.reverse());
        assert_eq!(a, b);

        let mut a = v.clone();
        let mut b = v.clone();
        a.par_chunk_by_mut(|x, y| x / 10 == y / 10)
            .for_each(|g| g.sort());
        b.chunk_by_mut(|x, y| x / 10 == y / 10)
            .for_each(|g| g.sort());
        assert_eq!(a, b);
        let mut a = v.clone();
        let groups = a.par_chunk_by_mut(|x, y| x <= y).count();
        assert_eq!(groups, v.chunk_by(|x, y| x <= y).count());
    }
}

#[test]
fn str_split_inclusive() {
    let text = "line one\nline two\n\nthird\u{2028}line\nlast".repeat(3000);
    for t in [
        "",
        "\n",
        "a",
        "a\n",
        "\n\n",
        "no newline",
        text.as_str(),
        &text[..text.len() - 4],
    ] {
        let par: Vec<&str> = t.par_split_inclusive('\n').collect();
        assert_eq!(par, t.split_inclusive('\n').collect::<Vec<_>>());
        let par: Vec<&str> = t.par_split_inclusive(char::is_whitespace).collect();
        assert_eq!(
            par,
            t.split_inclusive(char::is_whitespace).collect::<Vec<_>>()
        );
    }
    let it: blitz_par::str::SplitTerminator<'_, char> = "a;b;".par_split_terminator(';');
    assert_eq!(it.collect::<Vec<_>>(), ["a", "b"]);
    let it: blitz_par::str::SplitAsciiWhitespace<'_> = " a  b ".par_split_ascii_whitespace();
    assert_eq!(it.collect::<Vec<_>>(), ["a", "b"]);
}

#[test]
fn slice_array_windows() {
    for n in [0usize, 1, 2, 3, 10_000] {
        let v: Vec<u32> = (0..n as u32).collect();
        let par: Vec<&[u32; 3]> = v.par_array_windows().collect();
        let seq: Vec<&[u32; 3]> = v.windows(3).map(|w| w.try_into().unwrap()).collect();
        assert_eq!(par, seq);
        assert_eq!(v.par_array_windows::<1>().len(), n);
        let rev: Vec<[u32; 2]> = v.par_array_windows().rev().copied().collect();
        let mut seq: Vec<[u32; 2]> = v.windows(2).map(|w| [w[0], w[1]]).collect();
        seq.reverse();
        assert_eq!(rev, seq);
    }
}

#[test]
fn exact_chunks_remainders() {
    for n in [0usize, 1, 5, 6, 1001] {
        let mut v: Vec<u32> = (0..n as u32).collect();
        for size in [1usize, 2, 3, 7] {
            assert_eq!(
                v.par_chunks_exact(size).remainder(),
                v.chunks_exact(size).remainder()
            );
            assert_eq!(
                v.par_rchunks_exact(size).remainder(),
                v.rchunks_exact(size).remainder()
            );
            let want = v.chunks_exact(size).remainder().to_vec();
            assert_eq!(v.par_chunks_exact_mut(size).into_remainder(), &want[..]);
            let want = v.rchunks_exact(size).remainder().to_vec();
            let mut it = v.par_rchunks_exact_mut(size);
            assert_eq!(it.remainder(), &want[..]);
            let taken = it.take_remainder();
            assert!(it.remainder().is_empty());
            assert_eq!(it.count(), n / size);
            assert_eq!(taken, &want[..]);
        }
    }
}

#[test]
#[allow(deprecated)]
fn builder_breadth_first_is_accepted() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .breadth_first()
        .build()
        .unwrap();
    assert_eq!(pool.install(|| (0..100).into_par_iter().sum::<i32>()), 4950);
}

// ---- rayon's module paths ----

#[test]
fn rayon_module_paths_name_the_types() {
    let v = vec![1, 2, 3];
    let _: blitz_par::vec::IntoIter<i32> = v.clone().into_par_iter();
    let mut w = v.clone();
    let _: blitz_par::vec::Drain<'_, i32> = w.par_drain(..1);
    let _: blitz_par::range::Iter<i32> = (0..3).into_par_iter();
    let _: blitz_par::range_inclusive::Iter<i32> = (0..=3).into_par_iter();
    let _: blitz_par::array::IntoIter<i32, 2> = [1, 2].into_par_iter();
    let o = Some(1);
    let _: blitz_par::option::IntoIter<i32> = o.into_par_iter();
    let _: blitz_par::option::Iter<'_, i32> = o.par_iter();
    let r: Result<i32, ()> = Ok(1);
    let _: blitz_par::result::Iter<'_, i32> = r.par_iter();
    let m: HashMap<i32, i32> = HashMap::new();
    let _: blitz_par::collections::hash_map::Iter<'_, i32, i32> = m.par_iter();
    let _: blitz_par::collections::hash_map::IntoIter<i32, i32> = m.into_par_iter();
    let mut d: VecDeque<i32> = VecDeque::new();
    let _: blitz_par::collections::vec_deque::Drain<'_, i32> = d.par_drain(..);
    let mut h: BinaryHeap<i32> = BinaryHeap::new();
    let _: blitz_par::collections::binary_heap::Drain<'_, i32> = h.par_drain();
    let mut s = String::new();
    let _: blitz_par::string::Drain<'_> = s.par_drain(..);
    let _: blitz_par::iter::MultiZip<(blitz_par::range::Iter<i32>,)> = (0..1,).into_par_iter();
}

// ---- scheduler ----

#[test]
fn scheduler_additions() {
    assert!(blitz_par::max_num_threads() >= 1024);
    assert_eq!(blitz_par::current_thread_has_pending_tasks(), None);
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    assert_eq!(pool.yield_now(), None);
    assert_eq!(pool.yield_local(), None);
    assert_eq!(
        pool.install(|| pool.yield_local()),
        Some(blitz_par::Yield::Idle)
    );
    assert!(pool
        .install(|| pool.current_thread_has_pending_tasks())
        .is_some());
    // A pool's own functions are `None` on another pool's threads.
    let other = blitz_par::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(other.install(|| pool.yield_now()), None);
    assert_eq!(
        other.install(|| pool.current_thread_has_pending_tasks()),
        None
    );

    // spawn_broadcast: once per thread, each with its own index, without waiting.
    for _ in 0..20 {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        pool.spawn_broadcast(move |ctx| {
            assert_eq!(ctx.num_threads(), 3);
            assert_eq!(blitz_par::current_thread_index(), Some(ctx.index()));
            tx.lock().unwrap().send(ctx.index()).unwrap();
        });
        let mut seen: Vec<usize> = rx.iter().collect();
        seen.sort();
        assert_eq!(seen, [0, 1, 2]);
    }
    // From inside the pool too, and through the free function.
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    pool.install(move || {
        blitz_par::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap())
    });
    let mut seen: Vec<usize> = rx.iter().collect();
    seen.sort();
    assert_eq!(seen, [0, 1, 2]);

    // Scope::spawn_broadcast and ScopeFifo::spawn_broadcast borrow from the stack.
    for _ in 0..20 {
        let hits = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        pool.scope(|s| {
            s.spawn_broadcast(|s2, ctx| {
                hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
                s2.spawn(|_| {
                    hits[0].fetch_add(0, Ordering::Relaxed);
                });
            });
        });
        pool.scope_fifo(|s| {
            s.spawn_broadcast(|_, ctx| {
                hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
            })
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 2));
    }
    // From a thread outside every pool: the global pool's threads.
    let n = blitz_par::current_num_threads();
    let calls = AtomicUsize::new(0);
    blitz_par::scope(|s| {
        s.spawn_broadcast(|_, _| {
            calls.fetch_add(1, Ordering::Relaxed);
        })
    });
    assert_eq!(calls.into_inner(), n);

    let mut v = vec![0; 4];
    pool.in_place_scope(|s| {
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn(move |_| *x = i);
        }
    });
    assert_eq!(v, [0, 1, 2, 3]);
    pool.in_place_scope_fifo(|s| {
        for x in v.iter_mut() {
            s.spawn_fifo(move |_| *x += 1);
        }
    });
    assert_eq!(v, [1, 2, 3, 4]);
}

#[test]
fn spawn_broadcast_panics_go_to_the_handler() {
    let (panicked, panics) = std::sync::mpsc::channel();
    let panicked = Mutex::new(panicked);
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |_| panicked.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    pool.spawn_broadcast(|ctx| {
        if ctx.index() == 1 {
            panic!("boom");
        }
    });
    // The drop does not wait for the broadcast; its jobs still run before the threads exit,
    // and the handler's sender goes with the pool's state, which ends the count.
    drop(pool);
    let count = watchdog::within(watchdog::LIVENESS, "the pool's state freed", move || {
        panics.iter().count()
    });
    assert_eq!(count, 1);
}

// ---- random inputs ----

quickcheck! {
    fn prop_positions(v: Vec<i32>) -> bool {
        let par: Vec<usize> = v.par_iter().positions(|&x| x % 3 == 0).collect();
        par == rayon_ref::positions(&v)
    }

    fn prop_fold_chunks(v: Vec<i32>, size: usize) -> bool {
        let size = size % 17 + 1;
        let par: Vec<i64> = v.par_iter().with_max_len(1)
            .fold_chunks(size, || 0i64, |a, &x| a.wrapping_mul(3).wrapping_add(i64::from(x))).collect();
        par == chunk_fold(&v, size)
    }

    fn prop_interleave_shortest(a: Vec<i32>, b: Vec<i32>) -> bool {
        let par: Vec<i32> = a.par_iter().interleave_shortest(&b).copied().collect();
        par == rayon_ref::interleave_shortest(&a, &b)
    }

    fn prop_blocks(v: Vec<u16>, size: usize) -> bool {
        let size = size % 9 + 1;
        let u: Vec<u16> = v.par_iter().copied().by_uniform_blocks(size).collect();
        let e: Vec<u16> = v.par_iter().copied().by_exponential_blocks().collect();
        u == v && e == v
    }

    fn prop_slice_split_inclusive(v: Vec<u8>) -> bool {
        let sep = |&x: &u8| x % 5 == 0;
        let par: Vec<&[u8]> = v.par_split_inclusive(sep).collect();
        let mut a = v.clone();
        let mut b = v.clone();
        a.par_split_inclusive_mut(sep).for_each(|p| p.sort());
        b.split_inclusive_mut(sep).for_each(|p| p.sort());
        par == v.split_inclusive(sep).collect::<Vec<_>>() && a == b
    }

    fn prop_chunk_by_mut(v: Vec<u8>) -> bool {
        let mut a = v.clone();
        let mut b = v.clone();
        a.par_chunk_by_mut(|x, y| x <= y).for_each(|g| g.reverse());
        b.chunk_by_mut(|x, y| x <= y).for_each(|g| g.reverse());
        a == b
    }

    fn prop_str_split_inclusive(s: String) -> bool {
        let par: Vec<&str> = s.par_split_inclusive(|c: char| c.is_ascii_punctuation()).collect();
        par == s.split_inclusive(|c: char| c.is_ascii_punctuation()).collect::<Vec<_>>()
    }

    fn prop_walk_tree(shape: Vec<u8>) -> TestResult {
        // Node i's children: the next `shape[i] % 4` unused indices, breadth first.
        let n = shape.len();
        if n == 0 {
            return TestResult::discard();
        }
        let mut children = vec![Vec::new(); n];
        let mut next = 1;
        for (i, &k) in shape.iter().enumerate() {
            for _ in 0..k % 4 {
                if next < n {
                    children[i].push(next);
                    next += 1;
                }
            }
        }
        let kids = |&i: &usize| children[i].clone();
        let pre: Vec<usize> = blitz_par::iter::walk_tree_prefix(0, kids).collect();
        let post: Vec<usize> = blitz_par::iter::walk_tree_postfix(0, kids).collect();
        let rpre: Vec<usize> = {
            use rayon::prelude::*;
            rayon::iter::walk_tree_prefix(0, kids).collect()
        };
        let rpost: Vec<usize> = {
            use rayon::prelude::*;
            rayon::iter::walk_tree_postfix(0, kids).collect()
        };
        TestResult::from_bool(pre == rpre && post == rpost)
    }

    fn prop_drain_deque(v: Vec<i32>, a: usize, b: usize, rot: usize) -> bool {
        let mut d: VecDeque<i32> = v.iter().copied().collect();
        if !d.is_empty() {
            d.rotate_left(rot % d.len());
        }
        let len = d.len();
        let (lo, hi) = {
            let (x, y) = (a % (len + 1), b % (len + 1));
            (x.min(y), x.max(y))
        };
        let mut sd = d.clone();
        let got: Vec<i32> = d.par_drain(lo..hi).collect();
        got == sd.drain(lo..hi).collect::<Vec<_>>() && d == sd
    }

    fn prop_tuple_zip(a: Vec<u8>, b: Vec<i16>, c: Vec<char>) -> bool {
        let par: Vec<(u8, i16, char)> = (&a, &b, &c).into_par_iter().map(|(&x, &y, &z)| (x, y, z)).collect();
        let seq: Vec<(u8, i16, char)> = a.iter().zip(&b).zip(&c).map(|((&x, &y), &z)| (x, y, z)).collect();
        par == seq
    }
}

#[test]
fn skip_produces_the_skipped_items() {
    // As std's and rayon's `skip`: the closures before it run for every item, the skipped
    // ones included; short and long inputs (the skipped part runs in parallel when long).
    for (len, n) in [
        (10usize, 5usize),
        (10, 0),
        (10, 10),
        (10, 20),
        (200_000, 150_000),
    ] {
        let calls = AtomicUsize::new(0);
        let count = |x: usize| {
            calls.fetch_add(1, Ordering::Relaxed);
            x
        };
        let kept: Vec<usize> = (0..len).into_par_iter().map(count).skip(n).collect();
        assert_eq!(kept, (n.min(len)..len).collect::<Vec<_>>());
        assert_eq!(calls.load(Ordering::Relaxed), len, "len {len} skip {n}");
        let std_calls = AtomicUsize::new(0);
        let _ = (0..len)
            .map(|x| std_calls.fetch_add(1, Ordering::Relaxed) + x)
            .skip(n)
            .count();
        assert_eq!(std_calls.load(Ordering::Relaxed), len);
    }
    // A panic in a skipped item reaches the caller.
    let caught = std::panic::catch_unwind(|| {
        (0..1000)
            .into_par_iter()
            .map(|x| assert_ne!(x, 3, "item 3"))
            .skip(500)
            .count()
    });
    assert!(caught.is_err());
}

#[test]
fn build_errors_read_as_rayons() {
    let ours = {
        let _ = blitz_par::ThreadPoolBuilder::new().build_global();
        blitz_par::ThreadPoolBuilder::new()
            .build_global()
            .unwrap_err()
    };
    let theirs = {
        let _ = rayon::ThreadPoolBuilder::new().build_global();
        rayon::ThreadPoolBuilder::new().build_global().unwrap_err()
    };
    assert_eq!(ours.to_string(), theirs.to_string());
    assert!(std::error::Error::source(&ours).is_none());
}

#[test]
fn zero_chunk_sizes_panic_with_rayons_message() {
    for case in [
        (|| assert_eq!((0..4).into_par_iter().chunks(0).count(), 0)) as fn(),
        || assert_eq!([1, 2, 3].par_chunks(0).count(), 0),
        || assert_eq!([1, 2, 3].par_rchunks_exact(0).count(), 0),
        || {
            let folded = (0..4).into_par_iter().fold_chunks_with(0, 0, |a, x| a + x);
            assert_eq!(folded.count(), 0);
        },
    ] {
        let payload = std::panic::catch_unwind(case).unwrap_err();
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap();
        assert!(message.contains("chunk_size must not be zero"), "{message}");
    }
}

#[test]
fn bridges_of_one_item_with_a_join_inside_nest_no_deeper_than_rayons() {
    // rayon's `par_bridge_recursion` test: a join inside the bridged iterator of every item
    // of a `flat_map`, on 10 threads, each running the whole pipeline. With every item's
    // bridge split ten ways, threads waiting for stolen halves ran other items' bridges
    // meanwhile, and a debug build overflowed its 2 MiB worker stacks.
    const N: usize = 100_000;
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(10)
        .build()
        .unwrap();
    let seq: Vec<(usize, String)> = (0..N).map(|i| (i, i.to_string())).collect();
    pool.broadcast(|_| {
        let mut par: Vec<(usize, String)> = (0..N)
            .into_par_iter()
            .flat_map(|i| {
                std::iter::once_with(move || blitz_par::join(move || i, move || i.to_string()))
                    .par_bridge()
            })
            .collect();
        par.par_sort_unstable();
        assert_eq!(seq, par);
    });
}

#[test]
fn repeat_n_skips_without_cloning() {
    // `step_by` over `repeat_n` clones the element only for the items it yields (rayon's
    // `count_repeat_n_clones` counts the same).
    static CLONES: AtomicUsize = AtomicUsize::new(0);
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Clone for Counted {
        fn clone(&self) -> Self {
            CLONES.fetch_add(1, Ordering::Relaxed);
            Counted
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
        }
    }
    let yielded = blitz_par::iter::repeat_n(Counted, 100)
        .step_by(99)
        .with_min_len(200)
        .count();
    assert_eq!(yielded, 2);
    // One leaf: a clone for the first item, the element itself moved out for the second.
    assert!(CLONES.load(Ordering::Relaxed) <= 1, "{CLONES:?}");
    assert_eq!(
        DROPS.load(Ordering::Relaxed),
        CLONES.load(Ordering::Relaxed) + 1
    );
    let items: Vec<usize> = blitz_par::iter::repeat_n(5usize, 10)
        .step_by(3)
        .rev()
        .collect();
    assert_eq!(items, [5; 4]);
}
