//! Parallel sorts. PLACEHOLDER: std's sequential sorts until the parallel ones land.

use std::cmp::Ordering;

pub(crate) fn par_sort_by<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(v: &mut [T], compare: F) {
    v.sort_by(compare)
}

pub(crate) fn par_sort_unstable_by<T: Send, F: Fn(&T, &T) -> Ordering + Sync>(
    v: &mut [T],
    compare: F,
) {
    v.sort_unstable_by(compare)
}

pub(crate) fn par_sort_by_cached_key<T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync>(
    v: &mut [T],
    f: F,
) {
    v.sort_by_cached_key(f)
}
