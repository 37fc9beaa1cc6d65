//! Parallel quicksort in place: the unstable comparison sort.
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
//! merge sort makes a merge plus a copy back: it wins when comparisons are costly (strings).
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

use super::{poll_scheduler, Tuning};

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
    let less = partition(rest, |x| is_less(x, pivot));
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

/// Moves the elements for which `goes_left` holds to the front of `v` (by swaps) and returns
/// how many there are. Hoare's scheme: each swap fixes two misplaced elements.
fn partition<T>(v: &mut [T], goes_left: impl Fn(&T) -> bool) -> usize {
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
