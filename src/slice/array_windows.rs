//! `par_array_windows`: the windows of `par_windows` as `&[T; N]` (rayon 1.12), by mapping
//! the window producer.

use super::iter::Windows;
use crate::iter::plumbing::{bridge, Consumer, ProducerCallback, UnindexedConsumer};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// The parallel iterator of
/// [`ParallelSlice::par_array_windows`](crate::slice::ParallelSlice::par_array_windows).
///
/// ```
/// use blitz_par::prelude::*;
/// let w: Vec<&[i32; 2]> = [1, 2, 3].par_array_windows().collect();
/// assert_eq!(w, [&[1, 2], &[2, 3]]);
/// ```
pub struct ArrayWindows<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<'data, T, const N: usize> ArrayWindows<'data, T, N> {
    pub(super) fn new(slice: &'data [T]) -> Self {
        ArrayWindows { slice }
    }
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { slice: self.slice }
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for ArrayWindows<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayWindows")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<'data, T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        assert!(N >= 1, "par_array_windows: window size must not be zero");
        self.slice.len().saturating_sub(N - 1)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        Windows::new(N, self.slice)
            .map(|window| -> &'data [T; N] { window.try_into().expect("windows have N items") })
            .with_producer(callback)
    }
}
