//! `par_is_sorted` and its `_by` / `_by_key` forms: std's `is_sorted*` checked by blocks in
//! parallel, stopping early once any block finds a pair out of order.
//!
//! The slice is cut by length into blocks of `BLOCK` adjacent pairs; block `b` checks the pairs
//! `(v[i], v[i + 1])` for `i` in `b * BLOCK..(b + 1) * BLOCK`, so every adjacent pair is
//! checked by exactly one block and the blocks overlap by one element. The blocks run through
//! `all`, which stops handing out blocks once one answers `false`.

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
        block.windows(2).all(|w| in_order(&w[0], &w[1]))
    })
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
