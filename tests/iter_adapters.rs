//! Adapters, consumers and sources against std: quickcheck properties, edge cases, panics
//! in user closures, and searches that stop early.

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
