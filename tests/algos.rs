//! The algorithms beyond rayon (`par_is_sorted*`, `par_dedup*`, `par_select_nth_unstable*`)
//! against std's sequential results, on random inputs (quickcheck), at 1, 2, 3, 8 and 16
//! threads; edge cases (empty, one element, zero-sized types, all equal); panicking user
//! closures with drop counting.

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
        assert!(vec![(); 1_000_000].par_is_sorted());
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
