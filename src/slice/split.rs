//! `par_split`, `par_split_inclusive`, `par_chunk_by` and their `_mut` forms: slices cut at
//! separators or group boundaries. These are unindexed: a part is split near its middle at a
//! separator (or a boundary between groups), so that the pieces of the two halves are the
//! pieces of the whole. (An inclusive split never cuts at a separator in last place: its left
//! half would be the whole part again.)

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::fmt;

/// The separator nearest the middle of `slice` (after it first), if any; with `inclusive`,
/// not the last element.
fn separator_near_middle<T, P: Fn(&T) -> bool>(
    slice: &[T],
    is_sep: &P,
    inclusive: bool,
) -> Option<usize> {
    let slice = match slice.len() {
        n if inclusive && n > 0 => &slice[..n - 1],
        _ => slice,
    };
    let mid = slice.len() / 2;
    slice[mid..]
        .iter()
        .position(is_sep)
        .map(|i| mid + i)
        .or_else(|| slice[..mid].iter().rposition(is_sep))
}

/// The parallel iterator of [`ParallelSlice::par_split`](crate::slice::ParallelSlice::par_split).
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split(|&x| x == 0).collect();
/// assert_eq!(v, [&[1][..], &[2, 3][..], &[][..]]);
/// ```
pub struct Split<'data, T, P> {
    slice: &'data [T],
    separator: P,
}

impl<'data, T, P: Clone> Clone for Split<'data, T, P> {
    fn clone(&self) -> Self {
        Split {
            slice: self.slice,
            separator: self.separator.clone(),
        }
    }
}

impl<'data, T: fmt::Debug, P> fmt::Debug for Split<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("slice", &self.slice).finish()
    }
}

impl<'data, T, P> Split<'data, T, P> {
    pub(super) fn new(slice: &'data [T], separator: P) -> Self {
        Split { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for Split<'data, T, P>
where
    T: Sync,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            SplitProducer {
                slice: self.slice,
                separator: &self.separator,
                inclusive: false,
            },
            consumer,
        )
    }
}

struct SplitProducer<'data, 'p, T, P> {
    slice: &'data [T],
    separator: &'p P,
    /// `split_inclusive`: each piece keeps its separator at its end.
    inclusive: bool,
}

impl<'data, 'p, T: Sync, P: Fn(&T) -> bool + Sync> UnindexedProducer
    for SplitProducer<'data, 'p, T, P>
{
    type Item = &'data [T];
    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator, self.inclusive) {
            Some(at) => (
                SplitProducer {
                    slice: &self.slice[..at + usize::from(self.inclusive)],
                    separator: self.separator,
                    inclusive: self.inclusive,
                },
                Some(SplitProducer {
                    slice: &self.slice[at + 1..],
                    separator: self.separator,
                    inclusive: self.inclusive,
                }),
            ),
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data [T]>>(self, folder: F) -> F {
        if self.inclusive {
            folder.consume_iter(self.slice.split_inclusive(self.separator))
        } else {
            folder.consume_iter(self.slice.split(self.separator))
        }
    }
}

/// The parallel iterator of [`ParallelSliceMut::par_split_mut`](crate::slice::ParallelSliceMut::par_split_mut).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = [3, 1, 0, 2, 1];
/// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
/// assert_eq!(v, [1, 3, 0, 1, 2]);
/// ```
pub struct SplitMut<'data, T, P> {
    slice: &'data mut [T],
    separator: P,
}

impl<'data, T: fmt::Debug, P> fmt::Debug for SplitMut<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitMut")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> SplitMut<'data, T, P> {
    pub(super) fn new(slice: &'data mut [T], separator: P) -> Self {
        SplitMut { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for SplitMut<'data, T, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data mut [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data mut [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            SplitMutProducer {
                slice: self.slice,
                separator: &self.separator,
                inclusive: false,
            },
            consumer,
        )
    }
}

struct SplitMutProducer<'data, 'p, T, P> {
    slice: &'data mut [T],
    separator: &'p P,
    /// `split_inclusive_mut`: each piece keeps its separator at its end.
    inclusive: bool,
}

impl<'data, 'p, T: Send, P: Fn(&T) -> bool + Sync> UnindexedProducer
    for SplitMutProducer<'data, 'p, T, P>
{
    type Item = &'data mut [T];
    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator, self.inclusive) {
            Some(at) => {
                let (left, rest) = self.slice.split_at_mut(at + 1);
                let left = if self.inclusive {
                    left
                } else {
                    &mut left[..at]
                };
                (
                    SplitMutProducer {
                        slice: left,
                        separator: self.separator,
                        inclusive: self.inclusive,
                    },
                    Some(SplitMutProducer {
                        slice: rest,
                        separator: self.separator,
                        inclusive: self.inclusive,
                    }),
                )
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data mut [T]>>(self, folder: F) -> F {
        if self.inclusive {
            folder.consume_iter(self.slice.split_inclusive_mut(self.separator))
        } else {
            folder.consume_iter(self.slice.split_mut(self.separator))
        }
    }
}

/// The parallel iterator of [`ParallelSlice::par_chunk_by`](crate::slice::ParallelSlice::par_chunk_by).
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<&[i32]> = [1, 1, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
/// assert_eq!(v, [&[1, 1][..], &[2][..], &[3, 3, 3][..]]);
/// ```
pub struct ChunkBy<'data, T, P> {
    slice: &'data [T],
    same_group: P,
}

impl<'data, T: fmt::Debug, P> fmt::Debug for ChunkBy<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkBy")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P: Clone> Clone for ChunkBy<'data, T, P> {
    fn clone(&self) -> Self {
        ChunkBy {
            slice: self.slice,
            same_group: self.same_group.clone(),
        }
    }
}

impl<'data, T, P> ChunkBy<'data, T, P> {
    pub(super) fn new(slice: &'data [T], same_group: P) -> Self {
        ChunkBy { slice, same_group }
    }
}

impl<'data, T, P> ParallelIterator for ChunkBy<'data, T, P>
where
    T: Sync,
    P: Fn(&T, &T) -> bool + Sync + Send,
{
    type Item = &'data [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            ChunkByProducer {
                slice: self.slice,
                same_group: &self.same_group,
            },
            consumer,
        )
    }
}

struct ChunkByProducer<'data, 'p, T, P> {
    slice: &'data [T],
    same_group: &'p P,
}

impl<'data, 'p, T: Sync, P: Fn(&T, &T) -> bool + Sync> UnindexedProducer
    for ChunkByProducer<'data, 'p, T, P>
{
    type Item = &'data [T];
    fn split(self) -> (Self, Option<Self>) {
        let s = self.slice;
        let cut = group_boundary_near_middle(s, self.same_group);
        match cut {
            Some(at) => (
                ChunkByProducer {
                    slice: &s[..at],
                    same_group: self.same_group,
                },
                Some(ChunkByProducer {
                    slice: &s[at..],
                    same_group: self.same_group,
                }),
            ),
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data [T]>>(self, folder: F) -> F {
        folder.consume_iter(self.slice.chunk_by(self.same_group))
    }
}

/// The parallel iterator of
/// [`ParallelSlice::par_split_inclusive`](crate::slice::ParallelSlice::par_split_inclusive).
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split_inclusive(|&x| x == 0).collect();
/// assert_eq!(v, [&[1, 0][..], &[2, 3, 0][..]]);
/// ```
pub struct SplitInclusive<'data, T, P> {
    slice: &'data [T],
    separator: P,
}

impl<'data, T, P: Clone> Clone for SplitInclusive<'data, T, P> {
    fn clone(&self) -> Self {
        SplitInclusive {
            slice: self.slice,
            separator: self.separator.clone(),
        }
    }
}

impl<'data, T: fmt::Debug, P> fmt::Debug for SplitInclusive<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitInclusive")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> SplitInclusive<'data, T, P> {
    pub(super) fn new(slice: &'data [T], separator: P) -> Self {
        SplitInclusive { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for SplitInclusive<'data, T, P>
where
    T: Sync,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            SplitProducer {
                slice: self.slice,
                separator: &self.separator,
                inclusive: true,
            },
            consumer,
        )
    }
}

/// The parallel iterator of
/// [`ParallelSliceMut::par_split_inclusive_mut`](crate::slice::ParallelSliceMut::par_split_inclusive_mut).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = [3, 1, 0, 2, 1];
/// v.par_split_inclusive_mut(|&x| x == 0).for_each(|part| part.sort());
/// assert_eq!(v, [0, 1, 3, 1, 2]);
/// ```
pub struct SplitInclusiveMut<'data, T, P> {
    slice: &'data mut [T],
    separator: P,
}

impl<'data, T: fmt::Debug, P> fmt::Debug for SplitInclusiveMut<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitInclusiveMut")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> SplitInclusiveMut<'data, T, P> {
    pub(super) fn new(slice: &'data mut [T], separator: P) -> Self {
        SplitInclusiveMut { slice, separator }
    }
}

impl<'data, T, P> ParallelIterator for SplitInclusiveMut<'data, T, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Item = &'data mut [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data mut [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            SplitMutProducer {
                slice: self.slice,
                separator: &self.separator,
                inclusive: true,
            },
            consumer,
        )
    }
}

/// Where to cut `s` between two groups, near its middle: a cut at `i` separates `s[i - 1]`
/// and `s[i]`, valid where they are in different groups.
fn group_boundary_near_middle<T, P: Fn(&T, &T) -> bool>(s: &[T], same_group: &P) -> Option<usize> {
    let boundary = |i: &usize| !same_group(&s[*i - 1], &s[*i]);
    let mid = s.len() / 2;
    (mid.max(1)..s.len())
        .find(boundary)
        .or_else(|| (1..mid).rev().find(boundary))
}

/// The parallel iterator of
/// [`ParallelSliceMut::par_chunk_by_mut`](crate::slice::ParallelSliceMut::par_chunk_by_mut).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = [1, 1, 2, 3, 3, 3];
/// v.par_chunk_by_mut(|a, b| a == b).for_each(|group| {
///     let n = group.len() as i32;
///     group.iter_mut().for_each(|x| *x *= n);
/// });
/// assert_eq!(v, [2, 2, 2, 9, 9, 9]);
/// ```
pub struct ChunkByMut<'data, T, P> {
    slice: &'data mut [T],
    same_group: P,
}

impl<'data, T: fmt::Debug, P> fmt::Debug for ChunkByMut<'data, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkByMut")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> ChunkByMut<'data, T, P> {
    pub(super) fn new(slice: &'data mut [T], same_group: P) -> Self {
        ChunkByMut { slice, same_group }
    }
}

impl<'data, T, P> ParallelIterator for ChunkByMut<'data, T, P>
where
    T: Send,
    P: Fn(&T, &T) -> bool + Sync + Send,
{
    type Item = &'data mut [T];
    fn drive_unindexed<C: UnindexedConsumer<&'data mut [T]>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            ChunkByMutProducer {
                slice: self.slice,
                same_group: &self.same_group,
            },
            consumer,
        )
    }
}

struct ChunkByMutProducer<'data, 'p, T, P> {
    slice: &'data mut [T],
    same_group: &'p P,
}

impl<'data, 'p, T: Send, P: Fn(&T, &T) -> bool + Sync> UnindexedProducer
    for ChunkByMutProducer<'data, 'p, T, P>
{
    type Item = &'data mut [T];
    fn split(self) -> (Self, Option<Self>) {
        match group_boundary_near_middle(self.slice, self.same_group) {
            Some(at) => {
                let (left, right) = self.slice.split_at_mut(at);
                (
                    ChunkByMutProducer {
                        slice: left,
                        same_group: self.same_group,
                    },
                    Some(ChunkByMutProducer {
                        slice: right,
                        same_group: self.same_group,
                    }),
                )
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data mut [T]>>(self, folder: F) -> F {
        folder.consume_iter(self.slice.chunk_by_mut(self.same_group))
    }
}
