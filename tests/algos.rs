//! The algorithms beyond rayon (`par_is_sorted*`, `par_dedup*`, `par_select_nth_unstable*`)
//! against std's sequential results, on random inputs (quickcheck), at 1, 2, 3, 8 and 16
//! threads; edge cases (empty, one element, zero-sized types, all equal); panicking user
//! closures with drop counting.

use blitz_par::iter::MinMaxResult;
use blitz_par::prelude::*;
use blitz_par::{ThreadPool, ThreadPoolBuilder};
use quickcheck::{quickcheck, TestResult};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

const THREADS: [usize; 5] = [1, 2, 3, 8, 16];

/// One pool per thread count, built once for the whole test binary.
fn pools() -> &'static [ThreadPool] {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        THREADS
            .iter()
            .map(|&n| ThreadPoolBuilder::new().num_threads(n).build().unwrap())
            .collect()
    })
}

/// Runs `f` in every pool; true if it holds in all.
fn in_every_pool(f: impl Fn() -> bool + Sync) -> bool {
    pools().iter().all(|pool| pool.install(&f))
}

/// Repeats `v` up to `len` elements, so quickcheck's short vectors reach the parallel paths
/// (which start at tens of thousands of elements).
fn grow<T: Clone>(v: &[T], len: usize) -> Vec<T> {
    v.iter()
        .cloned()
        .cycle()
        .take(if v.is_empty() { 0 } else { len })
        .collect()
}

/// A long sorted vector with at most one disorder, at a position chosen by `at`.
fn nearly_sorted(len: usize, at: Option<usize>) -> Vec<u64> {
    let mut v: Vec<u64> = (0..len as u64).map(|x| x / 3).collect();
    if let Some(at) = at {
        if len > 1 {
            let i = at % (len - 1);
            v.swap(i, i + 1);
            v[i] += 1;
        }
    }
    v
}

quickcheck! {
    fn is_sorted_agrees_with_std(len: u32, at: Option<usize>) -> bool {
        let v = nearly_sorted(len as usize % 200_000, at);
        let expected = v.is_sorted();
        let by = v.is_sorted_by(|a, b| a >= b);
        let by_key = v.is_sorted_by_key(|&x| x % 1000);
        in_every_pool(|| {
            v.par_is_sorted() == expected
                && v.par_is_sorted_by(|a, b| a >= b) == by
                && v.par_is_sorted_by_key(|&x| x % 1000) == by_key
        })
    }

    fn is_sorted_random_small_values(v: Vec<u8>, len: u16) -> bool {
        let mut v = grow(&v, len as usize * 4);
        v.sort_unstable();
        let sorted = v.is_sorted();
        if let Some(x) = v.last_mut() { *x = x.wrapping_sub(1); }
        let after = v.is_sorted();
        in_every_pool(|| v.par_is_sorted() == after) && sorted
    }
}

#[test]
fn is_sorted_edge_cases() {
    in_every_pool(|| {
        assert!(Vec::<u32>::new().par_is_sorted());
        assert!([7].par_is_sorted());
        assert!([(); 1_000_000].par_is_sorted());
        assert!(vec![5u8; 1_000_000].par_is_sorted());
        let mut floats: Vec<f64> = (0..100_000).map(f64::from).collect();
        assert!(floats.par_is_sorted());
        floats[77_777] = f64::NAN;
        assert!(!floats.par_is_sorted());
        true
    });
}

#[test]
fn is_sorted_stops_early() {
    let v: Vec<u64> = (0..4_000_000).rev().collect();
    let calls = AtomicUsize::new(0);
    let sorted = pools()[1].install(|| {
        v.par_is_sorted_by(|a, b| {
            calls.fetch_add(1, Ordering::Relaxed);
            a <= b
        })
    });
    assert!(!sorted);
    assert!(calls.load(Ordering::Relaxed) < v.len() / 2, "no early exit");
}

quickcheck! {
    fn dedup_agrees_with_std(v: Vec<u8>, len: u32, modulus: u8) -> TestResult {
        let modulus = modulus.max(1);
        // Long runs (small values repeated) and short ones (the raw random bytes).
        let input: Vec<u8> = grow(&v, len as usize % 150_000)
            .iter()
            .enumerate()
            .map(|(i, &x)| if i % 3 == 0 { x } else { x % modulus })
            .collect();
        let mut expected = input.clone();
        expected.dedup();
        let mut by_key = input.clone();
        by_key.dedup_by_key(|x| *x / 4);
        let mut merged: Vec<(u8, u64)> = input.iter().map(|&x| (x % 3, 1)).collect();
        let merge = |a: &mut (u8, u64), b: &mut (u8, u64)| a.0 == b.0 && { b.1 += a.1; true };
        let merged_input = merged.clone();
        merged.dedup_by(merge);
        TestResult::from_bool(in_every_pool(|| {
            let mut got = input.clone();
            got.par_dedup();
            let mut got_key = input.clone();
            got_key.par_dedup_by_key(|x| *x / 4);
            let mut got_merged = merged_input.clone();
            got_merged.par_dedup_by(merge);
            got == expected && got_key == by_key && got_merged == merged
        }))
    }
}

#[test]
fn dedup_edge_cases() {
    in_every_pool(|| {
        let mut empty: Vec<u32> = Vec::new();
        empty.par_dedup();
        assert!(empty.is_empty());
        let mut one = vec![4];
        one.par_dedup();
        assert_eq!(one, [4]);
        let mut units = vec![(); 1_000_000];
        units.par_dedup();
        assert_eq!(units.len(), 1);
        let mut same = vec![9u64; 1_000_000];
        same.par_dedup();
        assert_eq!(same, [9]);
        let mut distinct: Vec<u64> = (0..1_000_000).collect();
        distinct.par_dedup();
        assert_eq!(distinct.len(), 1_000_000);
        true
    });
}

/// Counts its drops; `id` is its position in the input.
struct Counted<'a> {
    id: usize,
    key: u32,
    drops: &'a AtomicUsize,
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn dedup_panicking_same_bucket_drops_each_once() {
    let len = 300_000;
    for (pool, panic_at) in pools().iter().zip([5usize, 100_000, 150_000, 299_990, 77]) {
        let drops = AtomicUsize::new(0);
        let calls = AtomicUsize::new(0);
        let mut v: Vec<Counted> = (0..len)
            .map(|id| Counted {
                id,
                key: (id / 10) as u32,
                drops: &drops,
            })
            .collect();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                v.par_dedup_by(|a, b| {
                    if calls.fetch_add(1, Ordering::Relaxed) == panic_at {
                        panic!("same_bucket fails");
                    }
                    a.key == b.key
                })
            })
        }));
        assert!(result.is_err());
        assert!(v.windows(2).all(|w| w[0].id < w[1].id), "not a subsequence");
        let left = v.len();
        assert_eq!(drops.load(Ordering::Relaxed) + left, len);
        drop(v);
        assert_eq!(drops.load(Ordering::Relaxed), len);
    }
}

/// Whether `v` shows std's partition property around `v[k]`, with `v[k]` equal to `sorted[k]`
/// and `v` a permutation of `sorted`.
fn is_selected<T: Ord + Clone + std::fmt::Debug>(v: &[T], k: usize, sorted: &[T]) -> bool {
    let mut all = v.to_vec();
    all.sort();
    v[k] == sorted[k]
        && v[..k].iter().all(|x| *x <= v[k])
        && v[k + 1..].iter().all(|x| *x >= v[k])
        && all == sorted
}

quickcheck! {
    fn select_agrees_with_std(v: Vec<u64>, len: u32, k: usize, modulus: u64) -> TestResult {
        let modulus = modulus.max(1);
        let input: Vec<u64> = grow(&v, len as usize % 150_000)
            .iter()
            .enumerate()
            .map(|(i, &x)| x.wrapping_mul(i as u64 | 1) % modulus)
            .collect();
        if input.is_empty() {
            return TestResult::discard();
        }
        let k = k % input.len();
        let mut sorted = input.clone();
        sorted.sort_unstable();
        let mut by_std = input.clone();
        let expected = *by_std.select_nth_unstable(k).1;
        TestResult::from_bool(in_every_pool(|| {
            let mut got = input.clone();
            let (left, nth, right) = got.par_select_nth_unstable(k);
            let shape = left.len() == k && right.len() == input.len() - k - 1 && *nth == expected;
            let mut rev = input.clone();
            let rev_nth = *rev.par_select_nth_unstable_by(k, |a, b| b.cmp(a)).1;
            let mut keyed = input.clone();
            let key_nth = *keyed.par_select_nth_unstable_by_key(k, |&x| x % 1000).1;
            let mut keys: Vec<u64> = input.iter().map(|x| x % 1000).collect();
            keys.sort_unstable();
            shape
                && is_selected(&got, k, &sorted)
                && rev_nth == sorted[input.len() - 1 - k]
                && key_nth % 1000 == keys[k]
                && keyed[..k].iter().all(|x| x % 1000 <= keys[k])
                && keyed[k + 1..].iter().all(|x| x % 1000 >= keys[k])
        }))
    }
}

#[test]
fn select_edge_cases() {
    in_every_pool(|| {
        let mut one = [3];
        assert_eq!(
            one.par_select_nth_unstable(0),
            (&mut [][..], &mut 3, &mut [][..])
        );
        let mut units = [(); 1_000_000];
        assert_eq!(units.par_select_nth_unstable(999_999).0.len(), 999_999);
        let mut same = vec![7u64; 1_000_000];
        for k in [0, 500_000, 999_999] {
            assert_eq!(*same.par_select_nth_unstable(k).1, 7);
        }
        // Two values, in halves: the bracketing pivots hold everything between them.
        let mut two: Vec<u64> = (0..1_000_000).map(|i| i % 2).collect();
        assert_eq!(*two.par_select_nth_unstable(499_999).1, 0);
        assert_eq!(*two.par_select_nth_unstable(500_000).1, 1);
        let mut sorted: Vec<u64> = (0..1_000_000).collect();
        assert_eq!(*sorted.par_select_nth_unstable(123_456).1, 123_456);
        let mut reversed: Vec<u64> = (0..1_000_000).rev().collect();
        assert_eq!(*reversed.par_select_nth_unstable(654_321).1, 654_321);
        true
    });
}

#[test]
fn select_out_of_range_panics_as_std() {
    for len in [0usize, 1, 10, 1_000_000] {
        let mut v: Vec<u32> = (0..len as u32).collect();
        let ours = catch_unwind(AssertUnwindSafe(|| {
            v.par_select_nth_unstable(len);
        }));
        let std = catch_unwind(AssertUnwindSafe(|| {
            v.select_nth_unstable(len);
        }));
        let message = |r: Result<(), Box<dyn std::any::Any + Send>>| {
            let e = r.expect_err("k >= len must panic");
            e.downcast_ref::<String>()
                .cloned()
                .or(e.downcast_ref::<&str>().map(|s| s.to_string()))
        };
        assert_eq!(message(ours), message(std));
    }
}

#[test]
fn select_panicking_comparator_drops_each_once() {
    let len = 500_000;
    for (pool, panic_at) in pools()
        .iter()
        .zip([3usize, 1_000, 200_000, 400_000, 600_000])
    {
        let drops = AtomicUsize::new(0);
        let calls = AtomicUsize::new(0);
        let mut v: Vec<Counted> = (0..len)
            .map(|id| Counted {
                id,
                key: (id as u32).wrapping_mul(2_654_435_761),
                drops: &drops,
            })
            .collect();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                v.par_select_nth_unstable_by(len / 2, |a, b| {
                    if calls.fetch_add(1, Ordering::Relaxed) == panic_at {
                        panic!("compare fails");
                    }
                    a.key.cmp(&b.key)
                });
            })
        }));
        assert!(result.is_err(), "no panic at call {panic_at}");
        assert_eq!(drops.load(Ordering::Relaxed), 0);
        let mut ids: Vec<usize> = v.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        assert!(ids.iter().copied().eq(0..len), "not a permutation");
        drop(v);
        assert_eq!(drops.load(Ordering::Relaxed), len);
    }
}

/// A key whose hash sends every value to the same bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OneBucket(u16);

impl std::hash::Hash for OneBucket {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u8(0);
    }
}

fn sequential_counts<K: std::hash::Hash + Eq + Clone>(
    v: &[K],
) -> std::collections::HashMap<K, usize> {
    let mut map = std::collections::HashMap::new();
    for k in v {
        *map.entry(k.clone()).or_insert(0) += 1;
    }
    map
}

quickcheck! {
    fn counts_agree_with_sequential(v: Vec<u16>, len: u32, modulus: u16) -> bool {
        let modulus = modulus.max(1);
        let input: Vec<u16> = grow(&v, len as usize % 100_000).iter().map(|x| x % modulus).collect();
        let expected = sequential_counts(&input);
        let by_key = sequential_counts(&input.iter().map(|x| x / 3).collect::<Vec<_>>());
        let mut histogram = vec![0usize; 17];
        for &x in &input {
            histogram[usize::from(x % 17)] += 1;
        }
        in_every_pool(|| {
            input.par_iter().copied().counts() == expected
                && input.par_iter().counts_by(|x| x / 3) == by_key
                && input.par_iter().histogram(17, |&x| usize::from(x % 17)) == histogram
        })
    }

    fn minmax_agrees_with_sequential(v: Vec<(u8, u32)>, len: u32) -> bool {
        // Ties on the first field; the second is the position, to tell tied items apart.
        let input: Vec<(u8, usize)> =
            grow(&v, len as usize % 100_000).iter().enumerate().map(|(i, x)| (x.0 % 8, i)).collect();
        let expected = match input.len() {
            0 => MinMaxResult::NoElements,
            1 => MinMaxResult::OneElement(input[0]),
            _ => {
                let min = *input.iter().min_by_key(|x| x.0).unwrap(); // std: the first minimal
                let max = *input.iter().max_by_key(|x| x.0).unwrap(); // std: the last maximal
                MinMaxResult::MinMax(min, max)
            }
        };
        in_every_pool(|| {
            input.par_iter().copied().minmax_by_key(|x| x.0) == expected
                && input.par_iter().copied().minmax_by(|a, b| a.0.cmp(&b.0)) == expected
                && input.par_iter().map(|x| x.0).minmax() == match expected {
                    MinMaxResult::NoElements => MinMaxResult::NoElements,
                    MinMaxResult::OneElement(x) => MinMaxResult::OneElement(x.0),
                    MinMaxResult::MinMax(a, b) => MinMaxResult::MinMax(a.0, b.0),
                }
        })
    }
}

#[test]
fn counts_edge_cases() {
    in_every_pool(|| {
        assert!((0..0).into_par_iter().counts().is_empty());
        assert_eq!([5].par_iter().counts()[&5], 1);
        let units = vec![(); 100_000];
        assert_eq!(units.par_iter().counts()[&()], 100_000);
        let same = vec![3u8; 100_000];
        assert_eq!(same.par_iter().counts().len(), 1);
        let colliding: Vec<OneBucket> = (0..3000u16).map(|i| OneBucket(i % 1000)).collect();
        let counts = colliding.par_iter().copied().counts();
        assert_eq!(counts, sequential_counts(&colliding));
        assert!(counts.values().all(|&c| c == 3));
        assert_eq!((0..0).into_par_iter().histogram(3, |x: usize| x), [0, 0, 0]);
        assert_eq!(units.par_iter().minmax(), MinMaxResult::MinMax(&(), &()));
        true
    });
}

#[test]
fn counts_by_panicking_key_drops_each_once() {
    let len = 200_000;
    for (pool, panic_at) in pools().iter().zip([0usize, 10, 50_000, 100_000, 199_999]) {
        let drops = AtomicUsize::new(0);
        let items: Vec<Counted> = (0..len)
            .map(|id| Counted {
                id,
                key: (id % 100) as u32,
                drops: &drops,
            })
            .collect();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                items.into_par_iter().counts_by(|c| {
                    if c.id == panic_at {
                        panic!("key fails");
                    }
                    c.key
                })
            })
        }));
        assert!(result.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), len);
    }
}

mod grouping_maps {
    //! The group maps, the grouping map and `unique` against itertools.

    use super::*;
    use itertools::Itertools;
    use std::collections::{BTreeSet, HashMap};

    /// Quickcheck's short vectors grown long enough for the parallel paths, as `(key, position)`
    /// pairs: the position tells equal values apart, so order and ties are checked.
    fn keyed(v: &[u16], len: u32, modulus: u16) -> Vec<(u16, u32)> {
        let modulus = modulus.max(1);
        grow(v, len as usize % 20_000)
            .iter()
            .enumerate()
            .map(|(i, x)| (x % modulus, i as u32))
            .collect()
    }

    quickcheck! {
        fn group_maps_agree_with_itertools(v: Vec<u16>, len: u32, modulus: u16) -> bool {
            let input = keyed(&v, len, modulus);
            let group_map = input.iter().copied().into_group_map();
            let by = input.iter().copied().into_group_map_by(|x| x.0 / 3);
            in_every_pool(|| {
                input.par_iter().copied().into_group_map() == group_map
                    && input.par_iter().copied().into_group_map_by(|x| x.0 / 3) == by
            })
        }

        fn grouping_map_agrees_with_itertools(v: Vec<u16>, len: u32, modulus: u16) -> bool {
            let input = keyed(&v, len, modulus);
            let seq = || input.iter().copied().into_grouping_map();
            let par = || input.par_iter().copied().into_grouping_map();
            let fold = seq().fold(0u64, |acc, _, v| acc.wrapping_mul(31).wrapping_add(u64::from(v)));
            let fold_with = seq().fold_with(|&k, _| u64::from(k), |acc, _, v| acc * 3 % 1_000_003 + u64::from(v));
            let aggregate = seq().aggregate(|acc, _, v| match acc.unwrap_or(0) + v % 7 {
                s if s % 5 == 0 => None,
                s => Some(s),
            });
            let reduce = seq().reduce(|acc, _, v| acc.wrapping_mul(7) ^ v);
            let collect = seq().collect::<Vec<_>>();
            let set = seq().collect::<BTreeSet<_>>();
            let sum = input.iter().map(|&(k, v)| (k, u64::from(v))).into_grouping_map().sum();
            let product = input.iter().map(|&(k, v)| (k, std::num::Wrapping(u64::from(v % 3) + 1))).into_grouping_map().product();
            let mod10 = |_: &u16, v: &u32| v % 10;
            let (min, max) = (seq().min(), seq().max());
            let (min_k, max_k) = (seq().min_by_key(mod10), seq().max_by_key(mod10));
            let (min_b, max_b) = (
                seq().min_by(|_, a, b| (a % 10).cmp(&(b % 10))),
                seq().max_by(|_, a, b| (a % 10).cmp(&(b % 10))),
            );
            let minmax = seq().minmax_by_key(mod10);
            let minmax_plain = seq().minmax();
            let minmax_by = seq().minmax_by(|_, a, b| (a % 10).cmp(&(b % 10)));
            in_every_pool(|| {
                par().fold(0u64, |acc, _, v| acc.wrapping_mul(31).wrapping_add(u64::from(v))) == fold
                    && par().fold_with(|&k, _| u64::from(k), |acc, _, v| acc * 3 % 1_000_003 + u64::from(v)) == fold_with
                    && par().aggregate(|acc, _, v| match acc.unwrap_or(0) + v % 7 {
                        s if s % 5 == 0 => None,
                        s => Some(s),
                    }) == aggregate
                    && par().reduce(|acc, _, v| acc.wrapping_mul(7) ^ v) == reduce
                    && par().collect::<Vec<_>>() == collect
                    && par().collect::<BTreeSet<_>>() == set
                    && input.par_iter().map(|&(k, v)| (k, u64::from(v))).into_grouping_map().sum() == sum
                    && input.par_iter().map(|&(k, v)| (k, std::num::Wrapping(u64::from(v % 3) + 1))).into_grouping_map().product() == product
                    && par().min() == min
                    && par().max() == max
                    && par().min_by_key(mod10) == min_k
                    && par().max_by_key(mod10) == max_k
                    && par().min_by(|_, a, b| (a % 10).cmp(&(b % 10))) == min_b
                    && par().max_by(|_, a, b| (a % 10).cmp(&(b % 10))) == max_b
                    && same_minmax(&par().minmax_by_key(mod10), &minmax)
                    && same_minmax(&par().minmax(), &minmax_plain)
                    && same_minmax(&par().minmax_by(|_, a, b| (a % 10).cmp(&(b % 10))), &minmax_by)
            })
        }

        fn unique_agrees_with_itertools(v: Vec<u16>, len: u32, modulus: u16) -> bool {
            let modulus = modulus.max(1);
            let input: Vec<u16> = grow(&v, len as usize % 30_000).iter().map(|x| x % modulus).collect();
            let unique: Vec<u16> = input.iter().copied().unique().collect();
            let by: Vec<(usize, u16)> = input.iter().copied().enumerate().unique_by(|x| x.1 / 5).collect();
            in_every_pool(|| {
                input.par_iter().copied().unique().collect::<Vec<_>>() == unique
                    && input.par_iter().copied().enumerate().unique_by(|x| x.1 / 5).collect::<Vec<_>>() == by
            })
        }
    }

    /// Whether two maps of itertools' and our `MinMaxResult` hold the same values.
    fn same_minmax<V: PartialEq + Copy>(
        ours: &HashMap<u16, MinMaxResult<V>>,
        theirs: &HashMap<u16, itertools::MinMaxResult<V>>,
    ) -> bool {
        ours.len() == theirs.len()
            && theirs.iter().all(|(k, t)| {
                let t = match *t {
                    itertools::MinMaxResult::NoElements => MinMaxResult::NoElements,
                    itertools::MinMaxResult::OneElement(x) => MinMaxResult::OneElement(x),
                    itertools::MinMaxResult::MinMax(a, b) => MinMaxResult::MinMax(a, b),
                };
                ours.get(k) == Some(&t)
            })
    }

    #[test]
    fn edge_cases() {
        in_every_pool(|| {
            let empty: Vec<(u8, u8)> = Vec::new();
            assert!(empty.par_iter().copied().into_group_map().is_empty());
            assert!(empty
                .par_iter()
                .copied()
                .into_grouping_map()
                .sum()
                .is_empty());
            assert_eq!(empty.par_iter().unique().count(), 0);
            assert_eq!([(1, 2)].par_iter().copied().into_group_map()[&1], [2]);
            assert_eq!([7].par_iter().copied().unique().collect::<Vec<_>>(), [7]);
            let units = vec![(); 100_000];
            let groups = units.par_iter().copied().into_group_map_by(|_| ());
            assert_eq!(groups[&()].len(), 100_000);
            assert_eq!(units.par_iter().copied().unique().collect::<Vec<_>>(), [()]);
            let pairs = vec![((), ()); 50_000];
            assert_eq!(
                pairs
                    .par_iter()
                    .copied()
                    .into_grouping_map()
                    .collect::<Vec<()>>()[&()]
                    .len(),
                50_000
            );
            let same = vec![(3u8, 1u64); 100_000];
            assert_eq!(
                same.par_iter().copied().into_grouping_map().sum()[&3],
                100_000
            );
            let colliding: Vec<(OneBucket, u32)> = (0..3000u32)
                .map(|i| (OneBucket((i % 700) as u16), i))
                .collect();
            let ours = colliding.par_iter().copied().into_group_map();
            assert_eq!(ours, colliding.iter().copied().into_group_map());
            let unique: Vec<OneBucket> = colliding.par_iter().map(|x| x.0).unique().collect();
            assert_eq!(
                unique,
                colliding.iter().map(|x| x.0).unique().collect::<Vec<_>>()
            );
            true
        });
    }

    /// A key whose `Hash` or `Eq` panics at a chosen call, counting its drops.
    struct Touchy<'a> {
        key: u32,
        calls: &'a AtomicUsize,
        panic_at: usize,
        drops: &'a AtomicUsize,
    }

    impl Touchy<'_> {
        fn touch(&self) {
            if self.calls.fetch_add(1, Ordering::Relaxed) == self.panic_at {
                panic!("hash or eq fails");
            }
        }
    }

    impl std::hash::Hash for Touchy<'_> {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.touch();
            self.key.hash(state);
        }
    }

    impl PartialEq for Touchy<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.touch();
            self.key == other.key
        }
    }

    impl Eq for Touchy<'_> {}

    impl Drop for Touchy<'_> {
        fn drop(&mut self) {
            self.drops.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs `run` on `len` touchy items (panicking at the call `panic_at`) in each pool and
    /// checks that the panic arrives and every item was dropped exactly once.
    fn drops_each_once(run: impl Fn(Vec<Touchy<'_>>) + Sync) {
        let len = 100_000;
        for (pool, panic_at) in pools().iter().zip([0usize, 10, 50_000, 150_000, 99_999]) {
            let drops = AtomicUsize::new(0);
            let calls = AtomicUsize::new(0);
            let items: Vec<Touchy> = (0..len)
                .map(|i| Touchy {
                    key: (i % 5000) as u32,
                    calls: &calls,
                    panic_at,
                    drops: &drops,
                })
                .collect();
            let result = catch_unwind(AssertUnwindSafe(|| pool.install(|| run(items))));
            assert!(result.is_err(), "no panic at call {panic_at}");
            assert_eq!(drops.load(Ordering::Relaxed), len);
        }
    }

    #[test]
    fn panicking_hash_or_eq_drops_each_once() {
        drops_each_once(|items| drop(items.into_par_iter().counts()));
        drops_each_once(|items| {
            items.into_par_iter().unique().count();
        });
        drops_each_once(|items| {
            drop(
                items
                    .into_par_iter()
                    .map(|t| (t, 1u8))
                    .into_grouping_map()
                    .sum(),
            )
        });
        drops_each_once(|items| drop(items.into_par_iter().map(|t| (t, ())).into_group_map()));
    }

    #[test]
    fn panicking_key_or_fold_drops_each_once() {
        let panics_at = |at: u32| {
            move |t: &Counted| {
                if t.id as u32 == at {
                    panic!("user closure fails");
                }
                t.key
            }
        };
        for (i, pool) in pools().iter().enumerate() {
            let len = 100_000;
            let at = [0, 99_999, 50_000, 12_345, 77_777][i];
            let drops = AtomicUsize::new(0);
            let items = || -> Vec<Counted> {
                (0..len)
                    .map(|id| Counted {
                        id,
                        key: (id % 300) as u32,
                        drops: &drops,
                    })
                    .collect()
            };
            let before = drops.load(Ordering::Relaxed);
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| drop(items().into_par_iter().into_group_map_by(panics_at(at))))
            }));
            assert!(r.is_err());
            assert_eq!(drops.load(Ordering::Relaxed) - before, len);
            let before = drops.load(Ordering::Relaxed);
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| items().into_par_iter().unique_by(panics_at(at)).count())
            }));
            assert!(r.is_err());
            assert_eq!(drops.load(Ordering::Relaxed) - before, len);
            let before = drops.load(Ordering::Relaxed);
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    let fold = items()
                        .into_par_iter()
                        .map(|t| (t.key, t))
                        .into_grouping_map()
                        .fold_with(
                            |_, _| Vec::new(),
                            |mut acc: Vec<Counted>, _, t| {
                                if t.id as u32 == at {
                                    panic!("fold fails");
                                }
                                acc.push(t);
                                acc
                            },
                        );
                    drop(fold)
                })
            }));
            assert!(r.is_err());
            assert_eq!(drops.load(Ordering::Relaxed) - before, len);
            let before = drops.load(Ordering::Relaxed);
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    let max = items()
                        .into_par_iter()
                        .map(|t| (t.key, t))
                        .into_grouping_map()
                        .max_by(|_, a, b| {
                            if a.id as u32 == at || b.id as u32 == at {
                                panic!("compare fails");
                            }
                            a.id.cmp(&b.id)
                        });
                    drop(max)
                })
            }));
            assert!(r.is_err());
            assert_eq!(drops.load(Ordering::Relaxed) - before, len);
        }
    }
}

#[cfg(feature = "rand")]
mod shuffle {
    //! `par_shuffle`: a permutation, the same for a seed in every pool, and owned elements
    //! moved, never duplicated or lost. (Uniformity: the chi-square unit tests beside the code.)

    use super::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::SeedableRng;

    quickcheck! {
        fn same_permutation_for_a_seed_in_every_pool(len: u32, seed: u64) -> bool {
            let len = len as usize % 150_000;
            let reference = {
                let mut v: Vec<u32> = (0..len as u32).collect();
                pools()[0].install(|| v.par_shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed)));
                v
            };
            let mut sorted = reference.clone();
            sorted.sort_unstable();
            sorted.iter().copied().eq(0..len as u32)
                && pools().iter().all(|pool| {
                    let mut v: Vec<u32> = (0..len as u32).collect();
                    pool.install(|| v.par_shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed)));
                    v == reference
                })
        }
    }

    #[test]
    fn edge_cases_and_owned_elements() {
        in_every_pool(|| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let mut empty: [u8; 0] = [];
            empty.par_shuffle(&mut rng);
            let mut one = [5];
            one.par_shuffle(&mut rng);
            assert_eq!(one, [5]);
            let mut units = [(); 100_000];
            units.par_shuffle(&mut rng);
            assert_eq!(units.len(), 100_000);
            let mut strings: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
            strings.par_shuffle(&mut rng);
            let mut numbers: Vec<u32> = strings.iter().map(|s| s.parse().unwrap()).collect();
            numbers.sort_unstable();
            numbers.iter().copied().eq(0..100_000)
        });
    }
}
