//! Properties of the second wave of adapters, consumers and sources against std.

use blitz_par::prelude::*;
use quickcheck::quickcheck;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

fn small(n: usize) -> usize {
    n % 9 + 1
}

quickcheck! {
    fn step_by_and_chunks(v: Vec<i32>, k: usize) -> bool {
        let k = small(k);
        let a: Vec<i32> = v.par_iter().copied().step_by(k).collect();
        let ar: Vec<i32> = v.par_iter().copied().step_by(k).rev().collect();
        let c: Vec<Vec<i32>> = v.par_iter().copied().chunks(k).collect();
        let cr: Vec<Vec<i32>> = v.par_iter().copied().chunks(k).rev().collect();
        a == v.iter().copied().step_by(k).collect::<Vec<_>>()
            && ar == v.iter().copied().step_by(k).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>()
            && c == v.chunks(k).map(|c| c.to_vec()).collect::<Vec<_>>()
            && cr == v.chunks(k).rev().map(|c| c.to_vec()).collect::<Vec<_>>()
    }

    fn interleave_matches_sequential(a: Vec<u8>, b: Vec<u8>) -> bool {
        let mut expected = Vec::new();
        let (mut i, mut j) = (a.iter(), b.iter());
        loop {
            match (i.next(), j.next()) {
                (None, None) => break,
                (x, y) => {
                    expected.extend(x);
                    expected.extend(y);
                }
            }
        }
        let got: Vec<u8> = a.par_iter().copied().interleave(b.par_iter().copied()).collect();
        let rev: Vec<u8> = a.par_iter().copied().interleave(b.par_iter().copied()).rev().collect();
        let with_max: Vec<u8> = a.par_iter().copied().interleave(b.clone()).with_max_len(1).collect();
        got == expected && with_max == expected && rev == expected.iter().rev().copied().collect::<Vec<_>>()
    }

    fn intersperse_matches(v: Vec<u8>) -> bool {
        let mut expected = Vec::new();
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                expected.push(0);
            }
            expected.push(x);
        }
        let a: Vec<u8> = v.par_iter().copied().intersperse(0).collect();
        let b: Vec<u8> = v.par_iter().copied().filter(|_| true).intersperse(0).collect();
        a == expected && b == expected
    }

    fn any_counts(v: Vec<u8>, n: usize) -> bool {
        let n = n % (v.len() + 3);
        let took: Vec<u8> = v.par_iter().copied().take_any(n).collect();
        let skipped = v.par_iter().skip_any(n).count();
        took.len() == n.min(v.len()) && skipped == v.len().saturating_sub(n)
    }

    fn while_some_prefix(v: Vec<Option<u8>>) -> bool {
        let got: Vec<u8> = v.par_iter().copied().while_some().collect();
        let all: Vec<u8> = v.iter().copied().flatten().collect();
        // Some subset, in order, of the items: everything if no None.
        let complete = v.iter().all(Option::is_some);
        (!complete || got == all) && got.iter().all(|x| all.contains(x))
    }

    fn try_family(v: Vec<u8>) -> bool {
        let sum: Option<u8> = v.par_iter().map(|&x| Some(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
        let seq: Option<u8> = v.iter().try_fold(0u8, |a, &b| a.checked_add(b));
        let with: Option<Option<u8>> = v.par_iter().map(|&x| Some(x)).try_reduce_with(|a, b| a.checked_add(b));
        let folded: Option<u8> = v.par_iter().try_fold(|| 0u8, |a, &b| a.checked_add(b)).try_reduce(|| 0, |a, b| a.checked_add(b));
        let each: Result<(), u8> = v.par_iter().try_for_each(|&x| if x == 200 { Err(x) } else { Ok(()) });
        sum == seq
            && folded == seq
            && with == if v.is_empty() { None } else { Some(seq) }
            && each == if v.contains(&200) { Err(200) } else { Ok(()) }
    }

    fn comparisons(a: Vec<u8>, b: Vec<u8>) -> bool {
        a.par_iter().cmp(&b) == a.iter().cmp(&b)
            && a.par_iter().partial_cmp(&b) == a.iter().partial_cmp(&b)
            && a.par_iter().eq(&b) == a.iter().eq(&b)
            && a.par_iter().ne(&b) == a.iter().ne(&b)
            && a.par_iter().lt(&b) == a.iter().lt(&b)
            && a.par_iter().le(&b) == a.iter().le(&b)
            && a.par_iter().gt(&b) == a.iter().gt(&b)
            && a.par_iter().ge(&b) == a.iter().ge(&b)
    }

    fn bridge_and_collections(v: Vec<u16>) -> bool {
        let mut sorted = v.clone();
        sorted.sort();
        let mut bridged: Vec<u16> = v.clone().into_iter().par_bridge().collect();
        bridged.sort();
        let hs: HashSet<u16> = v.iter().copied().collect();
        let bs: BTreeSet<u16> = v.iter().copied().collect();
        let hm: HashMap<u16, usize> = v.iter().copied().enumerate().map(|(i, x)| (x, i)).collect();
        let bm: BTreeMap<u16, usize> = v.iter().copied().enumerate().map(|(i, x)| (x, i)).collect();
        let dq: VecDeque<u16> = v.iter().copied().collect();
        let ll: LinkedList<u16> = v.iter().copied().collect();
        let bh: BinaryHeap<u16> = v.iter().copied().collect();
        let total: u64 = v.iter().map(|&x| u64::from(x)).sum();
        bridged == sorted
            && hs.par_iter().map(|&x| u64::from(x)).sum::<u64>() == hs.iter().map(|&x| u64::from(x)).sum::<u64>()
            && bs.par_iter().copied().collect::<Vec<_>>() == bs.iter().copied().collect::<Vec<_>>()
            && hm.par_iter().map(|(&k, &i)| (k, i)).collect::<BTreeMap<_, _>>() == bm
            && bm.par_iter().map(|(&k, &i)| (k, i)).collect::<Vec<_>>() == bm.iter().map(|(&k, &i)| (k, i)).collect::<Vec<_>>()
            && dq.par_iter().copied().collect::<Vec<_>>() == v
            && dq.clone().into_par_iter().collect::<Vec<_>>() == v
            && ll.par_iter().copied().collect::<Vec<_>>() == v
            && bh.par_iter().map(|&x| u64::from(x)).sum::<u64>() == total
            && hs.clone().into_par_iter().count() == hs.len()
            && bm.clone().into_par_iter().map(|(k, _)| k).collect::<Vec<_>>() == bm.keys().copied().collect::<Vec<_>>()
    }

    fn vec_deque_mut_and_wrapped(v: Vec<u8>, rot: usize) -> bool {
        let mut dq: VecDeque<u8> = v.iter().copied().collect();
        if !v.is_empty() {
            dq.rotate_left(rot % v.len());
        }
        let expected: Vec<u8> = dq.iter().map(|x| x.wrapping_add(1)).collect();
        dq.par_iter_mut().for_each(|x| *x = x.wrapping_add(1));
        dq.iter().copied().collect::<Vec<_>>() == expected
    }
}

#[test]
fn sources_and_edge_cases() {
    assert_eq!(
        blitz_par::iter::empty::<u8>().collect::<Vec<_>>(),
        Vec::<u8>::new()
    );
    assert_eq!(blitz_par::iter::once(3).collect::<Vec<_>>(), [3]);
    assert_eq!(
        blitz_par::iter::repeat_n("a", 4).rev().collect::<Vec<_>>(),
        ["a"; 4]
    );
    assert_eq!(blitz_par::iter::repeat(1).take(1000).sum::<i32>(), 1000);
    assert_eq!(blitz_par::iter::repeat(7).find_any(|&x| x == 7), Some(7));
    assert_eq!(Some(5).par_iter().copied().sum::<i32>(), 5);
    assert_eq!(Ok::<i32, ()>(2).into_par_iter().collect::<Vec<_>>(), [2]);
    assert_eq!(
        (0..10)
            .into_par_iter()
            .with_min_len(usize::MAX)
            .sum::<i32>(),
        45
    );
    assert_eq!(
        (0..10).into_par_iter().with_max_len(1).collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(
        (0..10)
            .into_par_iter()
            .with_min_len(usize::MAX)
            .with_max_len(1)
            .count(),
        10
    );
    let one = [42];
    assert_eq!(one.par_iter().max(), Some(&42));
    assert_eq!(one.par_windows(2).count(), 0);
    let empty: [u8; 0] = [];
    assert_eq!(empty.par_iter().min(), None);
    assert_eq!(empty.par_chunks(3).count(), 0);
}

#[test]
fn huge_ranges_return_promptly() {
    assert_eq!(
        (0..u64::MAX).into_par_iter().find_first(|&x| x == 1_000),
        Some(1_000)
    );
    assert!((0..u64::MAX)
        .into_par_iter()
        .find_any(|&x| x == 1_000)
        .is_some());
    assert!((0..u64::MAX).into_par_iter().any(|x| x == 1_000));
    assert_eq!(
        (0..usize::MAX)
            .into_par_iter()
            .position_first(|x| x == 1_000),
        Some(1_000)
    );
    assert_eq!(
        (0..u128::MAX).into_par_iter().find_first(|&x| x == 1_000),
        Some(1_000)
    );
    assert!(!(0..u64::MAX).into_par_iter().all(|x| x < 1_000));
}

#[test]
fn pool_usable_after_panics_in_every_consumer() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let boom = |x: i32| {
        assert!(x != 77, "injected");
        x
    };
    let runs: Vec<Box<dyn Fn()>> = vec![
        Box::new(move || {
            let _ = (0..200).into_par_iter().map(boom).sum::<i32>();
        }),
        Box::new(move || {
            let _ = (0..200).into_par_iter().map(boom).collect::<Vec<_>>();
        }),
        Box::new(move || {
            let _ = (0..200)
                .into_par_iter()
                .map(boom)
                .filter(|_| true)
                .collect::<Vec<_>>();
        }),
        Box::new(move || {
            (0..200).into_par_iter().for_each(|x| {
                boom(x);
            })
        }),
        Box::new(move || {
            let _ = (0..200).into_par_iter().map(boom).find_first(|_| false);
        }),
        Box::new(move || {
            let _ = (0..200).into_par_iter().flat_map(|x| vec![boom(x)]).count();
        }),
        Box::new(move || {
            let _ = (0..200).into_par_iter().map(boom).panic_fuse().count();
        }),
        Box::new(move || {
            let _ = (0..200)
                .into_par_iter()
                .map(boom)
                .try_for_each(|_| Some(()));
        }),
    ];
    for run in runs {
        assert!(catch_unwind(AssertUnwindSafe(&run)).is_err());
        assert_eq!((0..1000).into_par_iter().sum::<i32>(), 499_500);
    }
}

quickcheck! {
    fn slice_split_family(v: Vec<u8>) -> bool {
        let sep = |x: &u8| x % 5 == 0;
        let a: Vec<&[u8]> = v.par_split(sep).collect();
        let mut m1 = v.clone();
        m1.par_split_mut(sep).for_each(|p| p.reverse());
        let mut m2 = v.clone();
        m2.split_mut(sep).for_each(|p| p.reverse());
        let same = |a: &u8, b: &u8| a / 64 == b / 64;
        let g: Vec<&[u8]> = v.par_chunk_by(same).collect();
        a == v.split(sep).collect::<Vec<_>>() && m1 == m2 && g == v.chunk_by(same).collect::<Vec<_>>()
    }

    fn char_ranges(a: char, b: char) -> bool {
        let (lo, hi) = (a.min(b), a.max(b));
        let n = (lo..hi).count();
        (lo..hi).into_par_iter().count() == n
            && (lo..=hi).into_par_iter().len() == n + 1
            && (lo..hi).into_par_iter().take(50).collect::<Vec<_>>() == (lo..hi).take(50).collect::<Vec<_>>()
            && (lo..=hi).into_par_iter().rev().take(50).collect::<Vec<_>>() == (lo..=hi).rev().take(50).collect::<Vec<_>>()
    }
}

/// Collects of unknown length large enough for the parallel copy into place (over 256 KiB),
/// in a pool that splits: the blocks of every thread land in order, once each, also when
/// extending a vector that already holds items, and for items that own memory.
#[test]
fn large_unknown_length_collects_match_std() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    pool.install(|| {
        let v: Vec<u64> = (0..1_000_000u64)
            .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let expected: Vec<u64> = v.iter().copied().filter(|x| x % 3 == 0).collect();
        for _ in 0..5 {
            let got: Vec<u64> = v.par_iter().copied().filter(|x| x % 3 == 0).collect();
            assert_eq!(got, expected);
        }
        let mut extended = vec![7u64, 8, 9];
        extended.par_extend(v.par_iter().copied().filter(|x| x % 3 == 0));
        assert_eq!(&extended[..3], &[7, 8, 9]);
        assert_eq!(&extended[3..], &expected[..]);

        let strings: Vec<String> = (0..200_000u32)
            .into_par_iter()
            .filter(|x| x % 5 != 1)
            .map(|x| x.to_string())
            .collect();
        let expected: Vec<String> = (0..200_000u32)
            .filter(|x| x % 5 != 1)
            .map(|x| x.to_string())
            .collect();
        assert_eq!(strings, expected);

        let flat: Vec<u32> = (0..100_000u32)
            .into_par_iter()
            .flat_map_iter(|x| 0..x % 4)
            .collect();
        let expected: Vec<u32> = (0..100_000u32).flat_map(|x| 0..x % 4).collect();
        assert_eq!(flat, expected);
    });
}

/// `find_last`, `position_last` and `find_map_last` search from the back and stop once a
/// match there is found, instead of testing every item.
#[test]
fn last_searches_stop_early() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    for threads in [1, 3] {
        let pool = blitz_par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let n = 10_000_000usize;
            let calls = AtomicUsize::new(0);
            let found = (0..n).into_par_iter().find_last(|&x| {
                calls.fetch_add(1, Ordering::Relaxed);
                x % 1000 == 0
            });
            assert_eq!(found, Some(n - 1000));
            assert!(
                calls.load(Ordering::Relaxed) < n / 10,
                "find_last tested every item"
            );

            calls.store(0, Ordering::Relaxed);
            let v: Vec<u32> = (0..n as u32).collect();
            let position = v.par_iter().position_last(|&x| {
                calls.fetch_add(1, Ordering::Relaxed);
                x % 777 == 0
            });
            assert_eq!(position, (0..n).rev().find(|x| x % 777 == 0));
            assert!(
                calls.load(Ordering::Relaxed) < n / 10,
                "position_last tested every item"
            );

            calls.store(0, Ordering::Relaxed);
            let mapped = v.par_iter().find_map_last(|&x| {
                calls.fetch_add(1, Ordering::Relaxed);
                (x % 999 == 5).then_some(x / 2)
            });
            assert_eq!(
                mapped,
                (0..n as u32).rev().find(|x| x % 999 == 5).map(|x| x / 2)
            );
            assert!(
                calls.load(Ordering::Relaxed) < n / 10,
                "find_map_last tested every item"
            );

            // Behind adapters, whose consumers forward the search's hints.
            calls.store(0, Ordering::Relaxed);
            let behind = v
                .par_iter()
                .map(|&x| x as usize)
                .filter(|&x| x % 2 == 0)
                .map_init(|| (), |_, x| x)
                .find_last(|&x| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    x % 1000 == 0
                });
            assert_eq!(behind, Some(n - 1000));
            assert!(
                calls.load(Ordering::Relaxed) < n / 10,
                "find_last behind map, filter and map_init tested every item"
            );

            // Too long to scan: only a search from the back returns.
            assert_eq!(
                (0..u64::MAX).into_par_iter().find_last(|&x| x % 10 == 3),
                Some(u64::MAX - 2)
            );
        });
    }
}

/// A source that records, when it is driven, the blitz-par hints of the consumer it gets: the
/// constants `FOLDER_MAY_CONTINUE` and `MAY_FOLD_FROM_BACK`, and the methods they stand for.
struct Probe<'a, I> {
    base: I,
    seen: &'a std::sync::atomic::AtomicU8,
}

const DRIVEN: u8 = 1;
const MAY_CONTINUE: u8 = 2;
const MAY_FROM_BACK: u8 = 4;
const CONTINUES: u8 = 8;
const FROM_BACK: u8 = 16;
const MAY_STOP: u8 = 32;

fn record<T, C: blitz_par::iter::plumbing::Consumer<T>>(
    seen: &std::sync::atomic::AtomicU8,
    consumer: &C,
) {
    let bit = |b: bool, value: u8| if b { value } else { 0 };
    let hints = DRIVEN
        | bit(C::FOLDER_MAY_CONTINUE, MAY_CONTINUE)
        | bit(C::MAY_FOLD_FROM_BACK, MAY_FROM_BACK)
        | bit(consumer.folder_continues(), CONTINUES)
        | bit(consumer.folds_from_back(), FROM_BACK)
        | bit(C::MAY_STOP_EARLY, MAY_STOP);
    seen.store(hints, std::sync::atomic::Ordering::Relaxed);
}

impl<I: ParallelIterator> ParallelIterator for Probe<'_, I> {
    type Item = I::Item;
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: blitz_par::iter::plumbing::UnindexedConsumer<I::Item>,
    {
        record(self.seen, &consumer);
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Probe<'_, I> {
    fn drive<C: blitz_par::iter::plumbing::Consumer<I::Item>>(self, consumer: C) -> C::Result {
        record(self.seen, &consumer);
        self.base.drive(consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: blitz_par::iter::plumbing::ProducerCallback<I::Item>,
    {
        self.base.with_producer(callback)
    }
}

/// The consumers' constants say that their hints may be true wherever they are, through every
/// adapter that forwards the hints: a constant left false would silently turn a search from
/// the back into a full scan, or a collect's one vector per loop into one per chunk.
#[test]
fn consumer_hint_constants_follow_the_hints_through_adapters() {
    use std::sync::atomic::{AtomicU8, Ordering};
    let v: Vec<u32> = (0..10_000).collect();
    let seen = AtomicU8::new(0);
    let probe = || Probe {
        base: v.par_iter().copied(),
        seen: &seen,
    };
    let hints = |name: &str, expected: u8| {
        let got = seen.swap(0, Ordering::Relaxed);
        assert_eq!(
            got & (DRIVEN | MAY_CONTINUE | MAY_FROM_BACK | MAY_STOP),
            expected,
            "{name}"
        );
        // Where a method says yes, its constant must too.
        assert!(got & CONTINUES == 0 || got & MAY_CONTINUE != 0, "{name}");
        assert!(got & FROM_BACK == 0 || got & MAY_FROM_BACK != 0, "{name}");
        got
    };

    assert_eq!(
        probe().map(|x| x + 1).sum::<u32>(),
        v.iter().map(|x| x + 1).sum()
    );
    hints("sum", DRIVEN);

    let last = probe()
        .map(|x| x / 2)
        .filter(|x| x % 3 == 0)
        .map_init(|| (), |_, x| x)
        .panic_fuse()
        .find_last(|&x| x < 100);
    assert_eq!(last, Some(99));
    let got = hints("find_last", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    assert!(got & FROM_BACK != 0, "find_last folds from the back");
    let got_first = probe().filter(|x| x % 3 == 0).find_first(|&x| x > 100);
    assert_eq!(got_first, Some(102));
    let got = hints("find_first", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    assert!(got & FROM_BACK == 0, "find_first folds from the front");
    let nested = probe().flat_map(|x| vec![x, x]).find_last(|&x| x < 7);
    assert_eq!(nested, Some(6));
    hints("flat_map, find_last", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    let nested = probe().flat_map_iter(|x| [x, x]).find_last(|&x| x < 7);
    assert_eq!(nested, Some(6));
    hints(
        "flat_map_iter, find_last",
        DRIVEN | MAY_FROM_BACK | MAY_STOP,
    );

    let kept: Vec<u32> = probe().filter(|x| x % 7 == 0).map(|x| x * 2).collect();
    assert_eq!(
        kept,
        v.iter()
            .filter(|&x| x % 7 == 0)
            .map(|x| x * 2)
            .collect::<Vec<_>>()
    );
    let got = hints("filter, collect", DRIVEN | MAY_CONTINUE);
    assert!(
        got & CONTINUES != 0,
        "an unindexed collect continues its folder"
    );
    let total: u32 = probe().map(|x| x % 5).fold(|| 0, |a, x| a + x).sum();
    assert_eq!(total, v.iter().map(|x| x % 5).sum());
    hints("fold", DRIVEN | MAY_CONTINUE);
    // Ahead of a search, a fold keeps an accumulator per chunk, and passes the search on.
    let any = probe().fold(|| 0, |a, x| a + x).find_any(|&a| a > 0);
    assert!(any.is_some());
    let got = hints("fold, find_any", DRIVEN | MAY_STOP);
    assert!(got & CONTINUES == 0, "a fold ahead of a search");
    let first = probe()
        .try_fold(|| 0, |a, x| Some(a + x))
        .while_some()
        .find_first(|_| true);
    assert!(first.is_some());
    hints(
        "try_fold, while_some, find_first",
        DRIVEN | MAY_FROM_BACK | MAY_STOP,
    );
    let some: Vec<u32> = probe().map(Some).while_some().collect();
    assert_eq!(some, v);
    hints("while_some, collect", DRIVEN | MAY_CONTINUE | MAY_STOP);
    let (a, b): (Vec<u32>, Vec<u32>) = probe().filter(|x| x % 2 == 0).map(|x| (x, x)).unzip();
    assert_eq!(a, b);
    hints("filter, unzip", DRIVEN | MAY_CONTINUE);
}

/// Ordered searches hand work off by keeping a lead at the end they start from (see
/// `Pacer::search_split_point`): long searches, whose loops are asked to split, find the
/// same match as the sequential search wherever the matches lie, with one match, two (the
/// first and last differ), none, and nested in `flat_map`.
#[test]
fn ordered_searches_find_the_nearest_match_wherever_it_lies() {
    let n = 1usize << 20;
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    pool.install(|| {
        let v: Vec<usize> = (0..n).collect();
        for at in [0, 1, n / 7, n / 2 - 1, n / 2, n / 2 + 1, 3 * n / 4, n - 2] {
            let hit = |x: usize| x == at || x == at + 1 || x == n - 1 - at;
            let first = v.iter().position(|&x| hit(x));
            let last = v.iter().rposition(|&x| hit(x));
            assert_eq!(v.par_iter().position_first(|&x| hit(x)), first, "{at}");
            assert_eq!(v.par_iter().position_last(|&x| hit(x)), last, "{at}");
            assert_eq!(
                v.par_iter().find_first(|&&x| hit(x)).copied(),
                first,
                "{at}"
            );
            assert_eq!(v.par_iter().find_last(|&&x| hit(x)).copied(), last, "{at}");
            let mapped = v
                .par_iter()
                .filter(|&&x| x % 3 != 1)
                .find_map_first(|&x| hit(x).then_some(x));
            assert_eq!(
                mapped,
                v.iter().filter(|&&x| x % 3 != 1).copied().find(|&x| hit(x))
            );
            let nested = (0..n / 1024)
                .into_par_iter()
                .flat_map(|i| (i * 1024..(i + 1) * 1024).into_par_iter())
                .find_first(|&x| hit(x));
            assert_eq!(nested, first, "{at}");
        }
        assert_eq!(v.par_iter().position_first(|&x| x == n), None);
        assert_eq!(v.par_iter().position_last(|&x| x == n), None);
    });
}

/// `panic_fuse` also stops the other parts on the producer path (here through
/// `with_max_len`, which drives its base's producer): once one item panics, the other threads
/// stop within a chunk instead of running their whole share.
#[test]
fn panic_fuse_stops_producer_paths() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    /// Records how many items had run when the panic began to unwind: after the panic hook,
    /// which may take long (printing a backtrace under ThreadSanitizer took seconds, while
    /// the other thread ran on, fuse or not).
    struct OnUnwind<'a> {
        done: &'a AtomicUsize,
        at_unwind: &'a AtomicUsize,
    }
    impl Drop for OnUnwind<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                let done = self.done.load(Ordering::Relaxed);
                self.at_unwind.store(done, Ordering::Relaxed);
            }
        }
    }
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // Without the fuse, the other thread would run its share: about 0.5 s of 10 us items.
    let n = 100_000;
    let done = AtomicUsize::new(0);
    let at_unwind = AtomicUsize::new(usize::MAX);
    let panicked = AtomicBool::new(false);
    // The first panic of a process can take a long while to unwind (loading unwind tables);
    // take that cost here, not while the other thread runs on.
    let _ = std::panic::catch_unwind(|| panic!("warm-up"));
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            (0..n)
                .into_par_iter()
                .panic_fuse()
                .with_max_len(n)
                .for_each(|_| {
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_micros(10) {}
                    if start.elapsed() > Duration::from_millis(20)
                        && !panicked.swap(true, Ordering::Relaxed)
                    {
                        let _record = OnUnwind {
                            done: &done,
                            at_unwind: &at_unwind,
                        };
                        panic!("fuse test");
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                })
        })
    }));
    assert!(result.is_err());
    let (done, at_unwind) = (done.into_inner(), at_unwind.into_inner());
    assert!(at_unwind <= done, "the unwind was not recorded");
    // Once unwinding, the fuse blows within a few frames; the other thread stops at its next
    // chunk (tens of items). Without the fuse it would run all the rest.
    assert!(
        done - at_unwind < n / 4,
        "{} of {n} items ran after the panic unwound ({done} in all)",
        done - at_unwind
    );
}

/// `par_bridge` hands out every item exactly once with its batched takes, for cheap items
/// (large batches) and for expensive ones (batches of about one).
#[test]
fn par_bridge_batches_lose_nothing() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    pool.install(|| {
        let mut got: Vec<u32> = (0..200_000u32).par_bridge().map(|x| x ^ 5).collect();
        got.sort_unstable();
        assert_eq!(
            got,
            (0..200_000u32)
                .map(|x| x ^ 5)
                .collect::<Vec<_>>()
                .tap_sort()
        );
        let slow: u64 = (0..200u64)
            .par_bridge()
            .map(|x| {
                std::thread::sleep(std::time::Duration::from_micros(50));
                x
            })
            .sum();
        assert_eq!(slow, 199 * 200 / 2);
        assert_eq!((0..1000).par_bridge().find_any(|&x| x == 999), Some(999));
    });
}

trait TapSort {
    fn tap_sort(self) -> Self;
}

impl TapSort for Vec<u32> {
    fn tap_sort(mut self) -> Self {
        self.sort_unstable();
        self
    }
}

/// The leaf bounds of the producer an indexed iterator hands out.
struct LeafBounds;

impl<T> blitz_par::iter::plumbing::ProducerCallback<T> for LeafBounds {
    type Output = (usize, usize);
    fn callback<P: blitz_par::iter::plumbing::Producer<Item = T>>(self, p: P) -> (usize, usize) {
        (p.min_len(), p.max_len())
    }
}

#[test]
fn leaf_bounds_carry_through_regrouping_adapters() {
    let base = || (0..1_000).into_par_iter().with_min_len(10).with_max_len(20);
    // Positions that gather k base positions: at least ceil(10 / k), at most 20 / k (>= 1).
    assert_eq!(base().with_producer(LeafBounds), (10, 20));
    assert_eq!(base().map(|x| x + 1).with_producer(LeafBounds), (10, 20));
    assert_eq!(base().step_by(3).with_producer(LeafBounds), (4, 6));
    assert_eq!(base().chunks(3).with_producer(LeafBounds), (4, 6));
    assert_eq!(base().step_by(40).with_producer(LeafBounds), (1, 1));
    assert_eq!(
        base()
            .fold_chunks(3, || 0, |a, x| a + x)
            .with_producer(LeafBounds),
        (4, 6)
    );
    assert_eq!(
        base()
            .fold_chunks_with(5, 0, |a, x| a + x)
            .with_producer(LeafBounds),
        (2, 4)
    );
    // A separator per item: twice the bounds, in output positions.
    assert_eq!(base().intersperse(0).with_producer(LeafBounds), (20, 40));
    assert_eq!(
        (0..10)
            .into_par_iter()
            .intersperse(0)
            .with_producer(LeafBounds),
        (2, usize::MAX)
    );

    // And the driver honours them: no leaf of `with_max_len(4).chunks(2)` folds more than 2.
    let leaves: Vec<usize> = (0..1_000)
        .into_par_iter()
        .with_max_len(4)
        .chunks(2)
        .fold(|| 0, |n, _| n + 1)
        .collect();
    assert_eq!(leaves.iter().sum::<usize>(), 500);
    assert!(leaves.iter().all(|&n| n <= 2), "{leaves:?}");
}

/// Items that each take long (blocking work: I/O, a lock, a sleep) are shared out as soon as
/// the first one shows it: after item 0, the other seven of eight run at the same time on a
/// pool of eight threads, each waiting until all seven have started. Through a range (the
/// indexed loop, its halves split off by joins), through `par_bridge`, whose leaves drain
/// one shared iterator, and through `par_lines` (an unindexed drive). Before the heavy-items
/// change they ran the items one after another, each waiting for the 10 s guard; until the
/// share counted every job in the deque, the range form stalled about one run in five under
/// load, a job left in a blocked thread's deque with no worker woken for it; until stolen
/// halves made every later leaf share first, `par_lines` stalled in most runs (a thief that
/// started before item 0 ended blocked with its halves unshared), `par_bridge` in about one
/// in fifty. (Items that wait for each other are outside what a parallel
/// iterator promises, with rayon too; here they show whether any item is left waiting.)
#[test]
fn heavy_items_are_shared_at_once() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    // Item 0 shows that items are long (over the ~20 us a split costs); each other item
    // waits until all seven have started (or 10 s have passed: then it fails the test).
    type Item<'a> = &'a (dyn Fn(usize) + Sync);
    let run = |name: &str, drive: &(dyn Fn(Item<'_>) + Sync)| {
        let started = AtomicUsize::new(0);
        let gave_up = AtomicBool::new(false);
        let item = |i: usize| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(2));
                return;
            }
            started.fetch_add(1, Ordering::SeqCst);
            let guard = Instant::now();
            while started.load(Ordering::SeqCst) < 7 {
                if guard.elapsed() > Duration::from_secs(10) {
                    gave_up.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        };
        pool.install(|| drive(&item));
        assert!(
            !gave_up.load(Ordering::SeqCst),
            "{name}: items 1..8 did not all run at once"
        );
    };
    let text: String = (0..8).map(|i| format!("{i}\n")).collect();
    for _ in 0..10 {
        run("range", &|item| (0..8usize).into_par_iter().for_each(item));
        // One shared iterator drained by a leaf per thread.
        run("par_bridge", &|item| (0..8).par_bridge().for_each(item));
        // An unindexed drive: halves of the text, one line per leaf.
        run("par_lines", &|item| {
            text.par_lines().for_each(|l| item(l.parse().unwrap()))
        });
    }
}

/// An item function for [`first_item_waits`]'s loops.
type Item<'a> = &'a (dyn Fn(usize) + Sync);

/// Runs `drive`, a loop over `n` items that calls the item function it is given once for each
/// of `0..n`: item 0 waits (10 s guard) until every other item has run (`all`), or at least
/// the last one. Panics, naming `name`, if it waited out the guard.
fn first_item_waits(name: &str, n: usize, all: bool, drive: &(dyn Fn(Item<'_>) + Sync)) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let others = AtomicUsize::new(0);
    let last = AtomicBool::new(false);
    let gave_up = AtomicBool::new(false);
    let item = |i: usize| {
        if i > 0 {
            others.fetch_add(1, Ordering::SeqCst);
            last.fetch_or(i == n - 1, Ordering::SeqCst);
            return;
        }
        let guard = Instant::now();
        while !(last.load(Ordering::SeqCst) && (!all || others.load(Ordering::SeqCst) == n - 1)) {
            if guard.elapsed() > Duration::from_secs(10) {
                gave_up.store(true, Ordering::SeqCst);
                return;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    };
    drive(&item);
    assert!(
        !gave_up.load(Ordering::SeqCst),
        "{name}, {n} items: the rest waited"
    );
}

/// Runs `case(n, on)` for 2, 5 and 16 items, where `on` runs a closure inside a 3-thread pool
/// and then from outside every pool. The latter is left out with a global pool of one
/// thread: from outside every pool the rest of a loop goes only to a worker the caller does
/// not hold the core of, so one thread runs the loop on the caller alone.
fn inside_and_outside(case: impl Fn(usize, &(dyn Fn(&(dyn Fn() + Sync)) + Sync))) {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let outside = blitz_par::current_num_threads() >= 2;
    for n in [2, 5, 16] {
        case(n, &|f| pool.install(f));
        if outside {
            case(n, &|f| f());
        }
    }
}

/// A short loop's first item that runs long has the rest of the loop handed to the pool
/// while it runs (the watch, `scheduler/watch.rs`): item 0 waits until every other item has
/// run (10 s guard), in a `for_each`, a collect into a vector (whose loop keeps one folder)
/// and a `sum`, and in searches from the back (`position_last`, `find_map_last`: the last
/// item waits), inside a pool (the caller waits in its seat) and from outside every pool
/// (with a global pool of two threads or more).
/// Before the watch the rest ran only after item 0, each case waiting out the guard.
#[test]
fn a_long_first_item_hands_out_the_rest() {
    inside_and_outside(|n, on| {
        let check =
            |name, drive: &(dyn Fn(Item<'_>) + Sync)| first_item_waits(name, n, true, drive);
        check("for_each", &|item| {
            on(&|| (0..n).into_par_iter().for_each(item))
        });
        check("collect", &|item| {
            on(&|| {
                let v: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        item(i);
                        i * 3
                    })
                    .collect();
                assert_eq!(v, (0..n).map(|i| i * 3).collect::<Vec<_>>());
            })
        });
        check("sum", &|item| {
            on(&|| {
                let s: usize = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        item(i);
                        i
                    })
                    .sum();
                assert_eq!(s, n * (n - 1) / 2);
            })
        });
        // Searches from the back fold the last item first: it waits for the others, and
        // only it matches (a match among the others would end the search there).
        check("position_last", &|item| {
            on(&|| {
                let p = (0..n).into_par_iter().position_last(|i| {
                    item(n - 1 - i);
                    i == n - 1
                });
                assert_eq!(p, Some(n - 1));
            })
        });
        check("find_map_last", &|item| {
            on(&|| {
                let v: Vec<usize> = (0..n).collect();
                let f = v.par_iter().find_map_last(|&i| {
                    item(n - 1 - i);
                    (i == n - 1).then_some(i * 3)
                });
                assert_eq!(f, Some((n - 1) * 3));
            })
        });
    });
}

/// The watch also covers unindexed drives: their first split hands its second half to the
/// pool while the first half's first item runs long. Item 0 waits (10 s guard) until the last
/// item has run: through `par_bridge` (whose handed-out leaf drains the shared iterator, so
/// every other item runs), `par_lines` and `par_split`, inside a 3-thread pool and from
/// outside every pool (with a global pool of two threads or more). Before, the other items
/// waited for item 0, each case waiting out the guard.
#[test]
fn a_long_first_item_of_an_unindexed_drive_hands_out_the_rest() {
    inside_and_outside(|n, on| {
        let check =
            |name, all, drive: &(dyn Fn(Item<'_>) + Sync)| first_item_waits(name, n, all, drive);
        // No separator at the end: a string is split at the separator nearest after its
        // middle, which for "0\n1\n" is the last one (a split with nothing on its right).
        let numbers: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let (text, spaced) = (numbers.join("\n"), numbers.join(" "));
        check("par_bridge", true, &|item| {
            on(&|| {
                let s: usize = (0..n)
                    .par_bridge()
                    .map(|i| {
                        item(i);
                        i
                    })
                    .sum();
                assert_eq!(s, n * (n - 1) / 2);
            })
        });
        check("par_lines", false, &|item| {
            on(&|| {
                let v: Vec<usize> = text
                    .par_lines()
                    .map(|l| {
                        let i = l.parse().unwrap();
                        item(i);
                        i
                    })
                    .collect();
                assert_eq!(v, (0..n).collect::<Vec<_>>());
            })
        });
        check("par_split", false, &|item| {
            on(&|| {
                spaced
                    .par_split_whitespace()
                    .for_each(|w| item(w.parse().unwrap()));
            })
        });
    });
}

#[test]
fn a_fold_ahead_of_a_search_folds_few_items() {
    use blitz_par::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // On one thread nothing splits: a fold keeping one accumulator per loop would fold every
    // item before `find_any` saw its first accumulator.
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let n = 1_000_000u64;
    let folded = AtomicUsize::new(0);
    let count = |acc: u64, x: u64| {
        folded.fetch_add(1, Ordering::Relaxed);
        acc + x
    };
    let found = pool.install(|| (0..n).into_par_iter().fold(|| 0, count).find_any(|_| true));
    assert!(found.is_some());
    assert!(folded.load(Ordering::Relaxed) < 1_000, "{folded:?}");
    folded.store(0, Ordering::Relaxed);
    let found = pool.install(|| {
        (0..n)
            .into_par_iter()
            .try_fold(|| 0, |acc, x| Some(count(acc, x)))
            .while_some()
            .find_any(|_| true)
    });
    assert!(found.is_some());
    assert!(folded.load(Ordering::Relaxed) < 1_000, "{folded:?}");
}
