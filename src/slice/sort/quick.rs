//! Parallel quicksort in place: the unstable comparison sort for elements that need dropping
//! (see `par_unstable_comparison_sort` in the parent module for when it is chosen).
//!
//! Each step picks a pivot (median of three medians of three, spread over the slice), moves it
//! to the front, partitions the rest in place into "less than the pivot" and "not less", puts
//! the pivot between them, and sorts both sides in parallel through `join`. Pieces of at most
//! `len / (threads * leaves_per_thread * 4)` elements (uneven pieces balance better when there
//! are many) go to std's `sort_unstable_by`.
//!
//! Why not a parallel partition (IPS4o): the element bound is `T: Send`, not `Sync`, so no
//! element may be seen by two threads at once, and a pivot shared by the threads partitioning
//! blocks of one slice would be exactly that (a comparator may mutate it through a `Cell`).
//! Here every partition runs on one thread, on a slice it holds by `&mut`, with the pivot
//! inside that slice; the two sides are handed out only after it, as disjoint `&mut` slices.
//! Against the merge sort this needs no scratch buffer and makes one pass per level where the
//! merge sort makes a merge plus a copy back: it wins when comparisons are costly (strings),
//! and loses when they are cheap, because its top partition runs on one thread.
//!
//! Equal elements: when the "not less" side takes almost everything, it is partitioned once
//! more into "equal to the pivot" (done) and "greater", so few distinct values cost about one
//! pass per value group. Bad pivots: after `log2(len)` unbalanced partitions a piece goes to
//! std's `sort_unstable_by`, whose own worst case is `O(n log n)`.
//!
//! Panic safety: elements only ever move by `swap` inside the slice, so at every moment a user
//! comparator runs the slice holds a permutation of its input, each element in its latest
//! state, and a panic leaves it so. A comparator that is not a total order changes only the
//! split points, which every loop bounds, so no index goes out of range.

use std::cmp::Ordering;

use super::thresholds::{poll_scheduler, Tuning};

/// Sorts `v` by `compare`, unstably, in parallel.
pub(super) fn par_quicksort<T, F>(v: &mut [T], compare: &F, tuning: &Tuning)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    let threads = crate::current_num_threads().max(1);
    let leaf_len = len
        .div_ceil(threads * tuning.leaves_per_thread * 4)
        .max(tuning.min_leaf_len)
        .max(MIN_PARTITION_LEN);
    let bad_pivots_allowed = usize::BITS - len.leading_zeros();
    sort_recursive(v, compare, leaf_len, bad_pivots_allowed);
}

/// Pieces below this go to std's sort whatever the tuning: the pivot choice needs 9 elements.
const MIN_PARTITION_LEN: usize = 16;

fn sort_recursive<T, F>(v: &mut [T], compare: &F, leaf_len: usize, bad_pivots_allowed: u32)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    poll_scheduler();
    if len <= leaf_len || bad_pivots_allowed == 0 {
        v.sort_unstable_by(compare);
        return;
    }
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    let pivot_index = choose_pivot(v, &is_less);
    v.swap(0, pivot_index);
    let (pivot, rest) = v.split_first_mut().expect("len > leaf_len > 0");
    trace_event!(SortBegin, crate::trace::phase::PARTITION, rest.len());
    let less = partition(rest, |x| is_less(x, pivot));
    trace_event!(SortEnd, crate::trace::phase::PARTITION);
    // `rest[..less]` < pivot <= `rest[less..]`.
    let (left, right) = rest.split_at_mut(less);
    let mut right = right;
    if right.len() > len - len / 8 {
        // Almost nothing was less than the pivot: perhaps many elements equal it. Those go
        // first, and are done.
        let equal = partition(right, |x| !is_less(pivot, x));
        right = &mut right[equal..];
    }
    // Bad: the larger side still holds more than 7/8 (equal elements set aside do not count).
    let balanced = left.len().max(right.len()) <= len - len / 8;
    let bad_pivots_allowed = bad_pivots_allowed - u32::from(!balanced);
    // Put the pivot at its place between the sides: swap it with the last "less" element
    // (nothing moves if there is none). `v` is re-borrowed through `left`'s end: split again.
    let left_len = left.len();
    let right_len = right.len();
    v.swap(0, left_len);
    let (left, rest) = v.split_at_mut(left_len);
    let right_start = rest.len() - right_len;
    let right = &mut rest[right_start..];
    crate::join(
        || sort_recursive(left, compare, leaf_len, bad_pivots_allowed),
        || sort_recursive(right, compare, leaf_len, bad_pivots_allowed),
    );
}

/// Elements classified per block by `partition`; offsets in a block fit a `u8`.
const BLOCK: usize = 64;

/// Moves the elements for which `goes_left` holds to the front of `v` (by swaps) and returns
/// how many there are.
///
/// Block partitioning (Edelkamp and Weiss, "BlockQuicksort", ESA 2016): classify a block of
/// `BLOCK` elements at each end without branching on the answers (record the offsets of the
/// misplaced ones), then swap misplaced pairs. The comparisons of a block are independent, so
/// the processor overlaps them (and their cache misses, for strings) instead of stalling on a
/// mispredicted branch after each. The last few blocks' worth goes to `hoare_partition`.
pub(crate) fn partition<T>(v: &mut [T], goes_left: impl Fn(&T) -> bool) -> usize {
    // `v[..low]` go left, `v[high..]` go right. The block at `low` has `left_count` misplaced
    // elements not yet swapped, at offsets `left_offsets[left_next..][..left_count]`; likewise
    // the block ending at `high`, counted from its end.
    let mut low = 0;
    let mut high = v.len();
    let mut left_offsets = [0u8; BLOCK];
    let mut right_offsets = [0u8; BLOCK];
    let (mut left_next, mut left_count) = (0, 0);
    let (mut right_next, mut right_count) = (0, 0);
    while high - low > 2 * BLOCK {
        if left_count == 0 {
            left_next = 0;
            for i in 0..BLOCK {
                left_offsets[left_count] = i as u8;
                left_count += usize::from(!goes_left(&v[low + i]));
            }
        }
        if right_count == 0 {
            right_next = 0;
            for i in 0..BLOCK {
                right_offsets[right_count] = i as u8;
                right_count += usize::from(goes_left(&v[high - 1 - i]));
            }
        }
        let pairs = left_count.min(right_count);
        for k in 0..pairs {
            let from_left = low + usize::from(left_offsets[left_next + k]);
            let from_right = high - 1 - usize::from(right_offsets[right_next + k]);
            v.swap(from_left, from_right);
        }
        left_next += pairs;
        right_next += pairs;
        left_count -= pairs;
        right_count -= pairs;
        // A block with no misplaced element left is done. The blocks are disjoint: they lie
        // in `low..high`, which is longer than both together.
        if left_count == 0 {
            low += BLOCK;
        }
        if right_count == 0 {
            high -= BLOCK;
        }
    }
    // What is left (a partly classified block or two) is classified again.
    low + hoare_partition(&mut v[low..high], goes_left)
}

/// `partition`'s contract, by Hoare's scheme: each swap fixes two misplaced elements.
fn hoare_partition<T>(v: &mut [T], goes_left: impl Fn(&T) -> bool) -> usize {
    let mut low = 0;
    let mut high = v.len();
    // `v[..low]` go left, `v[high..]` go right; `low <= high` throughout.
    loop {
        while low < high && goes_left(&v[low]) {
            low += 1;
        }
        while low < high && !goes_left(&v[high - 1]) {
            high -= 1;
        }
        if low >= high {
            return low;
        }
        // `v[low]` goes right and `v[high - 1]` goes left, and `low < high - 1`.
        high -= 1;
        v.swap(low, high);
        low += 1;
    }
}

/// The index of the median of three medians of three, taken at nine spread positions
/// (Tukey's ninther). `v.len() >= 9`.
fn choose_pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    debug_assert!(len >= 9);
    let step = len / 9;
    let at = |k: usize| k * step + step / 2;
    let median3 = |a: usize, b: usize, c: usize| {
        // The index of the median of v[a], v[b], v[c].
        let ab = is_less(&v[a], &v[b]);
        let bc = is_less(&v[b], &v[c]);
        if ab == bc {
            return b;
        }
        let ac = is_less(&v[a], &v[c]);
        if ab == ac {
            c
        } else {
            a
        }
    };
    let m0 = median3(at(0), at(1), at(2));
    let m1 = median3(at(3), at(4), at(5));
    let m2 = median3(at(6), at(7), at(8));
    median3(m0, m1, m2)
}
