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
