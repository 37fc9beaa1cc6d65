//! `par_split`, `par_split_mut` and `par_chunk_by`: slices cut at separators or group
//! boundaries. These are unindexed: a part is split near its middle at a separator (or a
//! boundary between groups), so that the pieces of the two halves are the pieces of the whole.

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::ParallelIterator;
use std::fmt;

/// The separator nearest the middle of `slice` (after it first), if any.
fn separator_near_middle<T, P: Fn(&T) -> bool>(slice: &[T], is_sep: &P) -> Option<usize> {
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
            },
            consumer,
        )
    }
}

struct SplitProducer<'data, 'p, T, P> {
    slice: &'data [T],
    separator: &'p P,
}

impl<'data, 'p, T: Sync, P: Fn(&T) -> bool + Sync> UnindexedProducer
    for SplitProducer<'data, 'p, T, P>
{
    type Item = &'data [T];
    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator) {
            Some(at) => (
                SplitProducer {
                    slice: &self.slice[..at],
                    separator: self.separator,
                },
                Some(SplitProducer {
                    slice: &self.slice[at + 1..],
                    separator: self.separator,
                }),
            ),
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data [T]>>(self, folder: F) -> F {
        folder.consume_iter(self.slice.split(self.separator))
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
            },
            consumer,
        )
    }
}

struct SplitMutProducer<'data, 'p, T, P> {
    slice: &'data mut [T],
    separator: &'p P,
}

impl<'data, 'p, T: Send, P: Fn(&T) -> bool + Sync> UnindexedProducer
    for SplitMutProducer<'data, 'p, T, P>
{
    type Item = &'data mut [T];
    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice, self.separator) {
            Some(at) => {
                let (left, rest) = self.slice.split_at_mut(at);
                (
                    SplitMutProducer {
                        slice: left,
                        separator: self.separator,
                    },
                    Some(SplitMutProducer {
                        slice: &mut rest[1..],
                        separator: self.separator,
                    }),
                )
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<&'data mut [T]>>(self, folder: F) -> F {
        folder.consume_iter(self.slice.split_mut(self.separator))
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
        let boundary = |i: &usize| !(self.same_group)(&s[*i - 1], &s[*i]);
        let mid = s.len() / 2;
        // A cut at `i` separates `s[i - 1]` and `s[i]`: valid where they are in different groups.
        let cut = (mid.max(1)..s.len())
            .find(boundary)
            .or_else(|| (1..mid).rev().find(boundary));
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
