//! Parallel sorts behind `ParallelSliceMut::par_sort*`.
//!
//! Which algorithm serves which call, and why:
//!
//! | call | algorithm |
//! | --- | --- |
//! | any, fewer than `Tuning::sequential_below` elements | std's `sort_by` / `sort_unstable_by`: splitting does not pay |
//! | `par_sort`, `par_sort_unstable` on integers and `char` | [`radix`]: parallel MSD radix sort, in place ([`in_place`]); [`counting`] when a sample shows few distinct values; [`runs`] when the input is a few ascending or descending runs |
//! | `par_sort`, `par_sort_unstable` on `String`, `&str`, `Vec<u8>`, `&[u8]`, `Box<str>`, `Box<[u8]>` | [`strings`]: MSD radix sort of (character codes, index) keys, then a parallel gather |
//! | `par_sort_by`, `par_sort_unstable_by` on `f64`/`f32` given `f64::total_cmp`/`f32::total_cmp` itself | [`radix`], on the bits of the total order |
//! | every other stable call (`_by`, `_by_key`, non-primitive `T`) | [`merge`]: parallel merge sort, std's stable `sort_by` at the leaves |
//! | `par_sort_by_key`, `par_sort_unstable_by_key`, `par_sort_by_cached_key` with a key of the byte-string types above | [`strings`]: each key computed once, in parallel |
//! | the same calls with a primitive integer or `char` key | [`radix`] (`sort_by_key_bits`): each key computed once, in parallel, packed above its element's index into a `u64` (less the least key), radix sorted (stable: the index breaks ties), then a parallel gather; where the keys' range and the index need more than 64 bits, (key, index) pairs of the same keys sorted as by `par_sort_unstable`, then the gather |
//! | `par_sort_by_key` with another key that needs dropping (`Vec<u64>`, ...) | [`merge`], std's `sort_by_cached_key` at the leaves: one key per element there |
//! | `par_sort_unstable_by_key` with another key that needs dropping | [`merge`], std's `sort_by_cached_key` at the leaves |
//! | every other unstable call, on elements that need dropping (`String`, ...) | [`quick`]: parallel quicksort in place, std's `sort_unstable_by` at the leaves |
//! | every other unstable call, on plain data | [`merge`], std's `sort_unstable_by` at the leaves |
//! | `par_sort_by_cached_key`, other keys | keys computed in parallel, (key, index) pairs sorted as by `par_sort_unstable` ([`quick`] for keys that need dropping, else [`merge`]), then a parallel gather |
//!
//! Radix sort wins on primitive keys because it needs no comparisons and, skipping the bits
//! that do not differ, few passes; it is only sound for an order it knows, so only `par_sort`
//! and `par_sort_unstable` take it, after recognising the primitive type (see
//! `key::LifetimeFree` for why that recognition is sound without a `'static` bound), and the
//! `_by` forms when the comparator's type is the function item `f64::total_cmp` or
//! `f32::total_cmp` (a closure has a type of its own and cannot be recognised).
//!
//! Byte strings get a radix sort of their own because comparing two costs a cache miss or two
//! (the heap bytes), and a comparison sort makes `n log n` comparisons; see [`strings`].
//!
//! Scratch buffers come from [`scratch`], which backs large ones with transparent huge pages
//! and keeps the largest for 250 ms after a sort returns it, for the next sort. The radix
//! sorts of primitive keys need none the size of their input: a first sort in a process would
//! pay a page fault for every page of it.
//!
//! Comparison sorts use a merge sort (stable) or a quicksort (unstable) rather than a
//! samplesort: with `T: Send` but not `Sync`, no element may be visible to two threads at
//! once, which rules out splitters or pivots shared by threads that partition one slice.
//! Merging splits work by binary search on one thread and hands out disjoint pieces, so every
//! level is parallel; the quicksort partitions each piece on one thread (the top one is
//! sequential, as in rayon) but works in place: no scratch buffer, one pass per level, which
//! wins when comparisons are costly (strings) and loses to the merge sort when they are cheap
//! (see `par_unstable_comparison_sort` for the choice).
//!
//! Panic safety: the slice owns every element at every moment a user callback can run (see
//! `merge` and `quick` for the invariant). `par_sort_by_cached_key` moves elements only in its gather,
//! which runs no user code.

mod counting;
mod gather;
mod in_place;
mod key;
mod merge;
mod presorted;
pub(crate) mod quick;
mod radix;
mod radix_parts;
mod runs;
pub(super) mod scratch;
mod sequential_radix;
mod strings;
mod thresholds;

#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::mem;

use gather::gather_in_order;
pub(crate) use thresholds::Tuning;

/// Records the end of a sort when dropped, also on a panic (with the `trace` feature; a unit
/// without it).
#[inline(always)]
fn trace_sort_end() -> impl Drop {
    struct End;
    impl Drop for End {
        #[inline(always)]
        fn drop(&mut self) {
            trace_event!(SortEnd, crate::trace::phase::SORT);
        }
    }
    End
}

/// `par_sort`: stable, natural order.
pub(crate) fn par_sort<T: Send + Ord>(v: &mut [T]) {
    par_sort_with(v, &Tuning::DEFAULT)
}

fn par_sort_with<T: Send + Ord>(v: &mut [T], tuning: &Tuning) {
    trace_event!(SortBegin, crate::trace::phase::SORT, v.len());
    let _end = trace_sort_end();
    if v.len() < tuning.sequential_below {
        v.sort();
    } else if !radix::try_radix_sort(v, tuning) && !strings::try_sort(v, true, tuning) {
        merge::par_merge_sort(v, &T::cmp, &|leaf: &mut [T]| leaf.sort(), tuning);
    }
}

/// `par_sort_unstable`: unstable, natural order.
pub(crate) fn par_sort_unstable<T: Send + Ord>(v: &mut [T]) {
    par_sort_unstable_with(v, &Tuning::DEFAULT)
}

fn par_sort_unstable_with<T: Send + Ord>(v: &mut [T], tuning: &Tuning) {
    trace_event!(SortBegin, crate::trace::phase::SORT, v.len());
    let _end = trace_sort_end();
    if v.len() < tuning.sequential_below {
        v.sort_unstable();
    } else if !radix::try_radix_sort(v, tuning) && !strings::try_sort(v, false, tuning) {
        par_unstable_comparison_sort(v, &T::cmp, tuning);
    }
}

/// `par_sort_by` (and `par_sort_by_key`): stable, by comparator.
pub(crate) fn par_sort_by<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(v: &mut [T], compare: F) {
    par_sort_by_with(v, &compare, true, &Tuning::DEFAULT)
}

/// `par_sort_unstable_by` (and `par_sort_unstable_by_key`): unstable, by comparator.
pub(crate) fn par_sort_unstable_by<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(
    v: &mut [T],
    compare: F,
) {
    par_sort_by_with(v, &compare, false, &Tuning::DEFAULT)
}

fn par_sort_by_with<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(
    v: &mut [T],
    compare: &F,
    stable: bool,
    tuning: &Tuning,
) {
    trace_event!(SortBegin, crate::trace::phase::SORT, v.len());
    let _end = trace_sort_end();
    if v.len() < tuning.sequential_below {
        if stable {
            v.sort_by(compare);
        } else {
            v.sort_unstable_by(compare);
        }
    } else if radix::try_radix_sort_by(v, compare, tuning) {
    } else if stable {
        merge::par_merge_sort(v, compare, &|leaf: &mut [T]| leaf.sort_by(compare), tuning);
    } else {
        par_unstable_comparison_sort(v, compare, tuning);
    }
}

/// The unstable comparison sort for `v.len() >= sequential_below`.
///
/// Elements that need dropping (`String`, `Vec`, `Box`, ...) own memory elsewhere, which a
/// comparison typically reads: comparisons are costly, and the in-place quicksort (one pass per
/// level, block partitioning that overlaps the comparisons' cache misses) wins, measured on 1M
/// strings. Plain data compares cheaply: there the merge sort wins, since its every level is
/// parallel while the quicksort's top partition is sequential (measured on 1M `f64` by a
/// `total_cmp` closure: 1.5x rayon's time by quicksort).
fn par_unstable_comparison_sort<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(
    v: &mut [T],
    compare: &F,
    tuning: &Tuning,
) {
    if mem::needs_drop::<T>() {
        quick::par_quicksort(v, compare, tuning);
    } else {
        merge::par_merge_sort(
            v,
            compare,
            &|leaf: &mut [T]| leaf.sort_unstable_by(compare),
            tuning,
        );
    }
}

/// `par_sort_by_key` (`stable`) and `par_sort_unstable_by_key`.
///
/// Keys that need dropping (`String`, `Vec`, ...) are taken to be expensive to make: then each
/// leaf is sorted with std's `sort_by_cached_key`, one key per element instead of two per
/// comparison (the keys stay on the leaf's thread, so `K` need not be `Send`); only the merges
/// call `f` per comparison. Cheap keys are compared directly.
pub(crate) fn par_sort_by_key<T: Send, K: Ord, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: F,
    stable: bool,
) {
    par_sort_by_key_with(v, &f, stable, &Tuning::DEFAULT)
}

fn par_sort_by_key_with<T: Send, K: Ord, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: &F,
    stable: bool,
    tuning: &Tuning,
) {
    let compare = |a: &T, b: &T| f(a).cmp(&f(b));
    let parallel = v.len() >= tuning.sequential_below && mem::size_of::<T>() != 0;
    if parallel && strings::try_sort_by_key(v, f, stable, tuning) {
        // Byte-string keys: each computed once, then a radix sort.
    } else if parallel && try_sort_by_primitive_key(v, f, tuning) {
        // Primitive keys: each computed once, then a radix sort.
    } else if !mem::needs_drop::<K>() || v.len() < tuning.sequential_below {
        par_sort_by_with(v, &compare, stable, tuning);
    } else {
        merge::par_merge_sort(
            v,
            &compare,
            &|leaf: &mut [T]| leaf.sort_by_cached_key(f),
            tuning,
        );
    }
}

/// `par_sort_by_cached_key`: stable, each key computed once.
pub(crate) fn par_sort_by_cached_key<T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: F,
) {
    par_sort_by_cached_key_with(v, &f, &Tuning::DEFAULT)
}

fn par_sort_by_cached_key_with<T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: &F,
    tuning: &Tuning,
) {
    let len = v.len();
    if len < tuning.sequential_below || mem::size_of::<T>() == 0 {
        v.sort_by_cached_key(f);
        return;
    }
    if strings::try_sort_by_key(v, f, true, tuning) {
        return;
    }
    if try_sort_by_primitive_key(v, f, tuning) {
        return;
    }
    let keyed: Vec<(K, usize)> = {
        use crate::prelude::*;
        // (`par_iter_mut`, as `T` need not be `Sync`.)
        v.par_iter_mut()
            .enumerate()
            .map(|(index, x)| (f(&*x), index))
            .collect()
    };
    sort_by_keyed_pairs(v, keyed, tuning);
}

/// Sorts `v` stably by `f` if `K` is a primitive integer or `char`; returns whether it did.
/// Each key is computed once, in parallel; then a radix sort of the keys packed with their
/// indices, or, where they do not fit in 64 bits together, a sort of (key bits, index) pairs
/// made from the same keys (so `f` runs once per element either way).
fn try_sort_by_primitive_key<T: Send, K, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: &F,
    tuning: &Tuning,
) -> bool {
    let Some(bits) = radix::primitive_key_bits(v, f) else {
        return false;
    };
    if let Err(bits) = radix::sort_by_key_bits(v, bits, tuning) {
        sort_by_keyed_pairs(v, bits.into_iter().zip(0..).collect(), tuning);
    }
    true
}

/// Sorts `v` by `keyed`: each element's key, with the index of its element. The indices are
/// distinct, so an unstable sort of the pairs is a stable sort of the elements.
fn sort_by_keyed_pairs<T: Send, K: Ord + Send>(
    v: &mut [T],
    mut keyed: Vec<(K, usize)>,
    tuning: &Tuning,
) {
    // As for any unstable sort: the in-place quicksort when keys own memory elsewhere
    // (`String`: costly comparisons), the merge sort for plain keys. Device, 1M records keyed
    // by a cloned `String`: the merge sort made this slower than std's sequential
    // `sort_by_cached_key` on 2 cores.
    let compare = |a: &(K, usize), b: &(K, usize)| a.cmp(b);
    par_unstable_comparison_sort(&mut keyed, &compare, tuning);
    let order: Vec<u64> = keyed.into_iter().map(|(_, index)| index as u64).collect();
    // Gather the elements in key order into scratch, then copy them back. No user code runs
    // from here on, so nothing can panic between the moves.
    gather_in_order(v, &order, tuning);
}
