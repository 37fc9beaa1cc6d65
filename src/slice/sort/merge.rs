//! Parallel merge sort: the stable comparison sort (and the unstable one for keys that own
//! memory, whose leaves cache keys).
//!
//! The slice is halved recursively (each half sorted by its own `join` branch) down to leaves
//! of about `len / (threads * LEAVES_PER_THREAD)` elements, which std's sequential sorts handle
//! (`sort_by` for the stable sort, `sort_unstable_by` otherwise). Two sorted halves are then
//! merged into a scratch buffer by a parallel merge (split the longer run at its middle, find
//! the matching split of the shorter one by binary search, merge both pairs in parallel) and
//! copied back in parallel.
//!
//! Why a merge sort and not a samplesort or a parallel partition: the element bound is
//! `T: Send`, not `Sync`, so no element may be seen by two threads at once (a comparator may
//! mutate it through a `Cell`). Partitioning against shared pivots or splitters would do exactly
//! that. Merging needs only disjoint pieces: every split decision (binary search) is taken by
//! one thread before the pieces are handed out.
//!
//! Spine: the scheduler wakes a sleeping worker only on a heartbeat seen at a poll (at a join,
//! or at `poll_scheduler`, which also makes every pending `join` of the thread stealable), the
//! first one after about 20 us of work. A std sort of a coarse leaf polls nowhere, so while
//! the first leaf is sorted no worker would be woken to take the other half. Hence the leftmost
//! path of the recursion (the spine), and the leftmost path of every stolen subtree, uses small
//! leaves (`min_leaf_len`, tens of microseconds of work): the first heartbeat comes within tens
//! of microseconds and gives the oldest pending join (the largest piece) to the woken worker. Everything
//! off the spine uses coarse leaves (`len / (threads * leaves_per_thread)`), which need few
//! merge levels. The extra merges of the spine cover a geometric series, about one extra merge
//! pass over its half.
//!
//! Panic safety rests on one invariant: **the slice `v` always owns every element**. Leaves sort
//! in place (std's sorts keep their own guarantee), a merge only *copies* bits out of `v` into
//! the scratch buffer and calls the comparator only on elements in `v` that it has not copied
//! yet, and only a merge that finished completely is copied back, by code that cannot panic.
//! The scratch buffer holds `MaybeUninit<T>` and never drops anything. So a comparator panic at
//! any point leaves `v` a permutation of its input with every element in its latest state.
//! A comparator that is not a total order changes which permutation comes out, never how many
//! elements each merge writes: every index computation is bounded by construction.

use std::cmp::Ordering;
use std::mem::{self, MaybeUninit};
use std::ptr;

use super::scratch::Scratch;
use super::thresholds::{poll_scheduler, Tuning};

/// Sorts `v` by `compare` with a parallel merge sort whose leaves `leaf_sort` sorts (by the
/// same order). Stable if `leaf_sort` is.
///
/// `v.len()` must exceed `tuning.sequential_below`'s intent (the caller decides); any length
/// is correct.
pub(super) fn par_merge_sort<T, F, L>(v: &mut [T], compare: &F, leaf_sort: &L, tuning: &Tuning)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
    L: Fn(&mut [T]) + Sync,
{
    let len = v.len();
    if mem::size_of::<T>() == 0 || len < 2 {
        // Zero-sized elements: every permutation is the same; std handles them.
        leaf_sort(v);
        return;
    }
    let threads = crate::current_num_threads().max(1);
    let leaf_len = len
        .div_ceil(threads * tuning.leaves_per_thread)
        .max(tuning.min_leaf_len)
        .max(1);
    let mut scratch = Scratch::<T>::uninit(len);
    sort_recursive(
        v,
        scratch.as_uninit(),
        compare,
        leaf_sort,
        leaf_len,
        true,
        tuning,
    );
    // `scratch` is dropped as `MaybeUninit`: the bit copies in it are never dropped.
}

fn sort_recursive<T, F, L>(
    v: &mut [T],
    scratch: &mut [MaybeUninit<T>],
    compare: &F,
    leaf_sort: &L,
    leaf_len: usize,
    spine: bool,
    tuning: &Tuning,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
    L: Fn(&mut [T]) + Sync,
{
    debug_assert_eq!(v.len(), scratch.len());
    let len = v.len();
    // On the spine, leaves are small so that the scheduler is polled often: see `Spine` in the
    // module documentation.
    let this_leaf_len = if spine {
        tuning.min_leaf_len.max(1)
    } else {
        leaf_len
    };
    if len <= this_leaf_len || len < 2 {
        poll_scheduler();
        trace_event!(SortBegin, crate::trace::phase::LEAF_SORT, len);
        leaf_sort(v);
        trace_event!(SortEnd, crate::trace::phase::LEAF_SORT);
        return;
    }
    let mid = len / 2;
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    {
        let (left, right) = v.split_at_mut(mid);
        let (scratch_left, scratch_right) = scratch.split_at_mut(mid);
        crate::join_context(
            |_| {
                sort_recursive(
                    left,
                    scratch_left,
                    compare,
                    leaf_sort,
                    leaf_len,
                    spine,
                    tuning,
                )
            },
            |context| {
                let stolen = context.migrated();
                sort_recursive(
                    right,
                    scratch_right,
                    compare,
                    leaf_sort,
                    leaf_len,
                    stolen,
                    tuning,
                )
            },
        );
        // The halves already meet in order (sorted input, runs): nothing to merge.
        if !is_less(&right[0], &left[mid - 1]) {
            return;
        }
        // Every element of the right half is strictly less than every element of the left
        // (reversed input): a rotation is the stable merge, and needs no scratch.
        if !is_less(&right[right.len() - 1], &left[0]) {
            par_merge(left, right, scratch, &is_less, tuning);
            par_copy_back(scratch, v, tuning);
            return;
        }
    }
    v.rotate_left(mid);
}

/// Merges the sorted runs `left` and `right` into `dest` (stably: equal elements of `left`
/// first), in parallel. Only copies bits out of `left` and `right`; they keep ownership.
/// Afterwards every slot of `dest` is initialised, whatever `is_less` answered.
fn par_merge<T, L>(
    left: &mut [T],
    right: &mut [T],
    dest: &mut [MaybeUninit<T>],
    is_less: &L,
    tuning: &Tuning,
) where
    T: Send,
    L: Fn(&T, &T) -> bool + Sync,
{
    assert_eq!(left.len() + right.len(), dest.len());
    let len = dest.len();
    // Both halves of a split below are non-empty and smaller than `len` once the longer run
    // has at least 2 elements, which `len > max(merge_sequential_below, 3)` ensures.
    if len <= tuning.merge_sequential_below.max(3) || left.is_empty() || right.is_empty() {
        poll_scheduler();
        trace_event!(SortBegin, crate::trace::phase::MERGE, dest.len());
        sequential_merge(left, right, dest, is_less);
        trace_event!(SortEnd, crate::trace::phase::MERGE);
        return;
    }
    let (left_mid, right_mid) = if left.len() >= right.len() {
        let left_mid = left.len() / 2;
        let pivot = &left[left_mid];
        // Elements of `right` strictly less than the pivot go before it.
        (left_mid, right.partition_point(|x| is_less(x, pivot)))
    } else {
        let right_mid = right.len() / 2;
        let pivot = &right[right_mid];
        // Elements of `left` not greater than the pivot go before it (stability).
        (left.partition_point(|x| !is_less(pivot, x)), right_mid)
    };
    let (left_low, left_high) = left.split_at_mut(left_mid);
    let (right_low, right_high) = right.split_at_mut(right_mid);
    let (dest_low, dest_high) = dest.split_at_mut(left_mid + right_mid);
    crate::join(
        || par_merge(left_low, right_low, dest_low, is_less, tuning),
        || par_merge(left_high, right_high, dest_high, is_less, tuning),
    );
}

/// The sequential merge under `par_merge`; same contract.
fn sequential_merge<T, L>(left: &mut [T], right: &mut [T], dest: &mut [MaybeUninit<T>], is_less: &L)
where
    L: Fn(&T, &T) -> bool,
{
    assert_eq!(left.len() + right.len(), dest.len());
    let mut l = left.as_ptr();
    let mut r = right.as_ptr();
    let mut out = dest.as_mut_ptr().cast::<T>();
    // SAFETY: `l` walks `left` and `r` walks `right`, each advanced by one only when its
    // element was copied, and only while below its end, so every read is in bounds. `out`
    // advances once per copied element; `left.len() + right.len() == dest.len()` keeps it in
    // `dest`. The three slices are distinct borrows, so the copies do not overlap. Copying bits
    // does not move ownership (the caller keeps `left` and `right` as the owners), and the
    // comparator only ever sees elements that were not copied yet, so their latest state is in
    // `left`/`right`. A panic in `is_less` leaves `dest` partly written, which its
    // `MaybeUninit` type makes harmless.
    unsafe {
        let left_end = l.add(left.len());
        let right_end = r.add(right.len());
        while l < left_end && r < right_end {
            let take_right = is_less(&*r, &*l);
            let source = if take_right { r } else { l };
            ptr::copy_nonoverlapping(source, out, 1);
            out = out.add(1);
            r = r.add(take_right as usize);
            l = l.add(!take_right as usize);
        }
        let left_rest = left_end.offset_from(l) as usize;
        ptr::copy_nonoverlapping(l, out, left_rest);
        out = out.add(left_rest);
        let right_rest = right_end.offset_from(r) as usize;
        ptr::copy_nonoverlapping(r, out, right_rest);
    }
}

/// Copies a finished merge from `scratch` back over `v`, in parallel.
///
/// Every slot of `scratch` must be initialised by a merge that completed, with a permutation
/// of the elements `v` owns (so overwriting `v` without dropping is right: its old contents are
/// the same elements). Panic-free.
fn par_copy_back<T: Send>(scratch: &mut [MaybeUninit<T>], v: &mut [T], tuning: &Tuning) {
    debug_assert_eq!(scratch.len(), v.len());
    let bytes = mem::size_of_val(v);
    if bytes <= tuning.copy_sequential_bytes || v.len() < 2 {
        poll_scheduler();
        // SAFETY: by this function's contract (upheld by `sort_recursive`, which calls it only
        // after `par_merge` returned): `scratch` is fully initialised with the very elements
        // `v` owns. The two slices are distinct borrows of equal length.
        unsafe { ptr::copy_nonoverlapping(scratch.as_ptr().cast::<T>(), v.as_mut_ptr(), v.len()) };
        return;
    }
    let mid = v.len() / 2;
    let (scratch_low, scratch_high) = scratch.split_at_mut(mid);
    let (v_low, v_high) = v.split_at_mut(mid);
    crate::join(
        || par_copy_back(scratch_low, v_low, tuning),
        || par_copy_back(scratch_high, v_high, tuning),
    );
}
