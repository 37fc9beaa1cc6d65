//! Panic safety and broken comparators through the public API, at sizes that take the
//! parallel paths: the panic reaches the caller, the slice stays a permutation, every element
//! is dropped exactly once.
//!
//! Each test counts its own drops: the tests run concurrently.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use blitz_par::prelude::*;

/// Drops counted per test (the tests run concurrently).
static PANIC_DROPS: AtomicUsize = AtomicUsize::new(0);
static RANDOM_DROPS: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug)]
struct Counted(u64, usize, &'static AtomicUsize);

impl Drop for Counted {
    fn drop(&mut self) {
        self.2.fetch_add(1, Relaxed);
    }
}

fn input(len: usize, drops: &'static AtomicUsize) -> Vec<Counted> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|i| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            Counted(x % 1000, i, drops)
        })
        .collect()
}

fn check(len: usize, sort: impl Fn(&mut Vec<Counted>, &AtomicUsize, usize), panic_at: usize) {
    const DROPS: &AtomicUsize = &PANIC_DROPS;
    let before = DROPS.load(Relaxed);
    let calls = AtomicUsize::new(0);
    let mut v = input(len, &PANIC_DROPS);
    let result = panic::catch_unwind(AssertUnwindSafe(|| sort(&mut v, &calls, panic_at)));
    assert!(result.is_err(), "len {len} panic_at {panic_at}: no panic");
    let mut ids: Vec<usize> = v.iter().map(|c| c.1).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..len),
        "len {len} panic_at {panic_at}: not a permutation"
    );
    assert_eq!(DROPS.load(Relaxed), before);
    drop(v);
    assert_eq!(DROPS.load(Relaxed), before + len);
}

#[test]
fn panics_propagate_and_keep_a_permutation() {
    let len = 50_000;
    for panic_at in [0, 1, 1000, 30_000, 200_000, 500_000] {
        let cmp = |a: &Counted, b: &Counted, calls: &AtomicUsize, at: usize| {
            if calls.fetch_add(1, Relaxed) == at {
                panic!("boom");
            }
            a.0.cmp(&b.0)
        };
        check(
            len,
            |v, calls, at| v.par_sort_by(|a, b| cmp(a, b, calls, at)),
            panic_at,
        );
        check(
            len,
            |v, calls, at| v.par_sort_unstable_by(|a, b| cmp(a, b, calls, at)),
            panic_at,
        );
        let key = |a: &Counted, calls: &AtomicUsize, at: usize| {
            if calls.fetch_add(1, Relaxed) == at {
                panic!("boom");
            }
            a.0
        };
        if panic_at < len {
            // Integer keys, as `String` keys below, are computed once per element before
            // anything moves, so only calls up to `len` can panic.
            check(
                len,
                |v, calls, at| v.par_sort_by_key(|a| key(a, calls, at)),
                panic_at,
            );
            check(
                len,
                |v, calls, at| v.par_sort_unstable_by_key(|a| key(a, calls, at)),
                panic_at,
            );
            // A key the radix path does not take (a tuple): compared, called many times.
            check(
                len,
                |v, calls, at| v.par_sort_unstable_by_key(|a| (key(a, calls, at), 0u8)),
                panic_at,
            );
        } else {
            check(
                len,
                |v, calls, at| v.par_sort_by_key(|a| (key(a, calls, at), 0u8)),
                panic_at,
            );
        }
        if panic_at < len {
            // A `String` key: computed once per element before anything moves.
            check(
                len,
                |v, calls, at| v.par_sort_by_key(|a| key(a, calls, at).to_string()),
                panic_at,
            );
        }
        if panic_at < len {
            check(
                len,
                |v, calls, at| v.par_sort_by_cached_key(|a| key(a, calls, at)),
                panic_at,
            );
        }
    }
}

#[test]
fn random_comparators_keep_a_permutation() {
    for len in [0, 1, 2, 100, 20_000, 100_000] {
        for stable in [true, false] {
            const DROPS: &AtomicUsize = &RANDOM_DROPS;
            let before = DROPS.load(Relaxed);
            let mut v = input(len, &RANDOM_DROPS);
            let state = AtomicUsize::new(12345);
            let random = |_: &Counted, _: &Counted| {
                let x = state
                    .fetch_add(0x9e37_79b9, Relaxed)
                    .wrapping_mul(0x2545_f491)
                    >> 7;
                [
                    std::cmp::Ordering::Less,
                    std::cmp::Ordering::Equal,
                    std::cmp::Ordering::Greater,
                ][x % 3]
            };
            // std's sorts, which sort our leaves, may panic on a comparator that is not a total
            // order (documented since Rust 1.81); ours never does. Either way: a permutation.
            let _ = panic::catch_unwind(AssertUnwindSafe(|| {
                if stable {
                    v.par_sort_by(random);
                } else {
                    v.par_sort_unstable_by(random);
                }
            }));
            let mut ids: Vec<usize> = v.iter().map(|c| c.1).collect();
            ids.sort_unstable();
            assert!(ids.iter().copied().eq(0..len));
            drop(v);
            assert_eq!(DROPS.load(Relaxed), before + len);
        }
    }
}
