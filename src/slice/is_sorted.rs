//! `par_is_sorted` and its `_by` / `_by_key` forms: std's `is_sorted*` checked by blocks in
//! parallel, stopping early once any block finds a pair out of order.
//!
//! The slice is cut by length into blocks of `BLOCK` adjacent pairs; block `b` checks the pairs
//! `(v[i], v[i + 1])` for `i` in `b * BLOCK..(b + 1) * BLOCK`, so every adjacent pair is
//! checked by exactly one block and the blocks overlap by one element. The blocks run through
//! `all`, which stops handing out blocks once one answers `false`.
//!
//! Inside a block the pairs are checked in runs of a few dozen with no early exit within a
//! run (`ok & in_order(a, b)` folded over the run), and the check stops between runs: the
//! comparisons of a run then compile to vector code where the type allows it. For `u64` on
//! x86-64 that needs a 64-bit vector compare, which the baseline target (SSE2) lacks, so on a
//! CPU with AVX2 the runs are checked by a copy of the loop compiled for AVX2 (detected once,
//! at run time): about 1.1 instructions per pair under callgrind, against 3.1 for std's
//! `is_sorted` and 8 for `windows(2).all` (scripts/algos_icount.sh).

use crate::iter::{IntoParallelIterator, ParallelIterator};

/// Adjacent pairs per block: 16 Ki pairs of `u64` are 128 KiB, enough that the driver's cost
/// per block is noise, and few enough that an early violation stops the others quickly.
const BLOCK: usize = 1 << 14;

/// Slices shorter than this are checked on the calling thread (a few microseconds of work).
const SEQUENTIAL_LEN: usize = 1 << 15;

/// Whether `in_order(v[i], v[i + 1])` holds for every adjacent pair of `v`.
pub(super) fn is_sorted_by<T, F>(v: &[T], in_order: &F) -> bool
where
    T: Sync,
    F: Fn(&T, &T) -> bool + Sync,
{
    check_blocks(v, BLOCK, SEQUENTIAL_LEN, &|block: &[T]| {
        in_runs(block, in_order)
    })
}

/// Pairs per run on CPUs with AVX2: long enough for a few unrolled vector iterations.
#[cfg(all(target_arch = "x86_64", not(miri)))]
const AVX2_RUN: usize = 64;

/// Pairs per run otherwise. Without 64-bit vector compares, longer runs of `u64` only add
/// instructions (32 pairs: 3.1 per pair, as std's `is_sorted`; 64: 4.6).
const RUN: usize = 32;

/// Whether `in_order` holds for every adjacent pair of `v`, by runs (module docs).
#[inline]
fn in_runs<T, F>(v: &[T], in_order: &F) -> bool
where
    F: Fn(&T, &T) -> bool,
{
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature `in_runs_avx2` is compiled for.
        return unsafe { in_runs_avx2(v, in_order) };
    }
    in_runs_of(v, in_order, RUN)
}

/// [`in_runs_of`] compiled for AVX2.
///
/// # Safety
///
/// The CPU supports AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn in_runs_avx2<T, F>(v: &[T], in_order: &F) -> bool
where
    F: Fn(&T, &T) -> bool,
{
    in_runs_of(v, in_order, AVX2_RUN)
}

/// Checks runs of `run` pairs (`run >= 1`) without an early exit inside a run, stopping at
/// the first run with a pair out of order; the last, shorter run stops at its first such pair.
#[inline(always)]
fn in_runs_of<T, F>(v: &[T], in_order: &F, run: usize) -> bool
where
    F: Fn(&T, &T) -> bool,
{
    let mut rest = v;
    while rest.len() > run {
        let ok = rest[..run]
            .iter()
            .zip(&rest[1..=run])
            .fold(true, |ok, (a, b)| ok & in_order(a, b));
        if !ok {
            return false;
        }
        rest = &rest[run..];
    }
    rest.windows(2).all(|w| in_order(&w[0], &w[1]))
}

/// Whether the keys `key(v[i])` are in order (`<=`, as std's `is_sorted_by_key`). Each key is
/// computed once per block it falls in (once, or twice at a block's first element).
pub(super) fn is_sorted_by_key<T, K, F>(v: &[T], key: &F) -> bool
where
    T: Sync,
    K: PartialOrd,
    F: Fn(&T) -> K + Sync,
{
    check_blocks(v, BLOCK, SEQUENTIAL_LEN, &|block: &[T]| {
        let mut keys = block.iter().map(key);
        let Some(mut previous) = keys.next() else {
            return true;
        };
        for next in keys {
            if previous.partial_cmp(&next).is_none_or(|o| o.is_gt()) {
                return false;
            }
            previous = next;
        }
        true
    })
}

/// Runs `check` over overlapping blocks of `block_pairs + 1` elements covering every adjacent
/// pair of `v` once; `true` if every block answers `true`.
fn check_blocks<T, C>(v: &[T], block_pairs: usize, sequential_len: usize, check: &C) -> bool
where
    T: Sync,
    C: Fn(&[T]) -> bool + Sync,
{
    let pairs = v.len().saturating_sub(1);
    if v.len() < sequential_len || crate::current_num_threads() == 1 {
        return check(v);
    }
    let blocks = pairs.div_ceil(block_pairs);
    (0..blocks).into_par_iter().all(|b| {
        let start = b * block_pairs;
        let end = (start + block_pairs).min(pairs);
        check(&v[start..=end])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    /// Every block size and every position of one violation agree with std.
    #[test]
    fn small_blocks_agree_with_std() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            for len in 0..40usize {
                for bad in 0..len {
                    let mut v: Vec<u32> = (0..len as u32).collect();
                    v[bad] = 1000 - v[bad] * 7 % 5;
                    let expected = v.is_sorted();
                    for block in 1..6 {
                        let got = check_blocks(&v, block, 0, &|b: &[u32]| b.is_sorted());
                        assert_eq!(got, expected, "len {len}, bad {bad}, block {block}");
                    }
                }
                let sorted: Vec<u32> = (0..len as u32).collect();
                assert!(check_blocks(&sorted, 2, 0, &|b: &[u32]| b.is_sorted()));
            }
        });
    }

    /// The runs overlap by one element and cover every pair: one pair out of order anywhere,
    /// for every run length and every length around it, is found.
    #[test]
    fn runs_find_every_violation() {
        for run in [1, 2, 3, RUN] {
            for len in 0..3 * run + 3 {
                let sorted: Vec<u32> = (0..len as u32).collect();
                assert!(in_runs_of(&sorted, &|a: &u32, b: &u32| a <= b, run));
                for bad in 0..len.saturating_sub(1) {
                    let mut v = sorted.clone();
                    v.swap(bad, bad + 1);
                    assert!(
                        !in_runs_of(&v, &|a: &u32, b: &u32| a <= b, run),
                        "run {run}, len {len}, swapped at {bad}"
                    );
                }
            }
        }
        let mut v: Vec<u64> = (0..10_000).collect();
        assert!(in_runs(&v, &|a: &u64, b: &u64| a <= b));
        for bad in [0, 63, 64, 65, 4_999, 9_998] {
            v.swap(bad, bad + 1);
            assert!(!in_runs(&v, &|a: &u64, b: &u64| a <= b), "swapped at {bad}");
            v.swap(bad, bad + 1);
        }
    }

    #[test]
    fn every_pair_checked_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let calls = AtomicUsize::new(0);
        let v: Vec<u32> = (0..1000).collect();
        let sorted = pool.install(|| {
            check_blocks(&v, 7, 0, &|b: &[u32]| {
                calls.fetch_add(b.len() - 1, Ordering::Relaxed);
                b.is_sorted()
            })
        });
        assert!(sorted);
        assert_eq!(calls.load(Ordering::Relaxed), 999);
    }
}
