//! Parallel iterators over the elements, chunks and windows of a slice.
//!
//! Every iterator here is indexed; its producer is a sub-slice (plus a chunk size) and its
//! leaves run std's sequential slice iterators, so a leaf is exactly the sequential loop.

use crate::iter::plumbing::*;
use crate::iter::*;

/// Implements `ParallelIterator` and `IndexedParallelIterator` for a slice iterator whose
/// fields `$field..` build its producer `$producer`.
macro_rules! indexed_slice_iter {
    ($name:ident<$lt:lifetime, $t:ident: $bound:ident>, $item:ty, $producer:ident { $($field:ident),* }, |$s:ident| $len:expr) => {
        impl<$lt, $t: $bound + $lt> ParallelIterator for $name<$lt, $t> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$lt, $t: $bound + $lt> IndexedParallelIterator for $name<$lt, $t> {
            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                let $s = self;
                $len
            }
            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                callback.callback($producer { $($field: self.$field),* })
            }
        }
    };
}

/// The parallel iterator of `par_iter()` on a slice.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!([1, 2, 3][..].par_iter().max(), Some(&3));
/// ```
#[derive(Debug)]
pub struct Iter<'data, T: Sync> {
    slice: &'data [T],
}

impl<'data, T: Sync> Clone for Iter<'data, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data [T] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;
    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

indexed_slice_iter!(
    Iter<'data, T: Sync>,
    &'data T,
    IterProducer { slice },
    |s| s.slice.len()
);

struct IterProducer<'data, T: Sync> {
    slice: &'data [T],
}

impl<'data, T: Sync + 'data> Producer for IterProducer<'data, T> {
    type Item = &'data T;
    type IntoIter = std::slice::Iter<'data, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (IterProducer { slice: left }, IterProducer { slice: right })
    }
}

/// The parallel iterator of `par_iter_mut()` on a slice.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = [1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x += 1);
/// assert_eq!(v, [2, 3, 4]);
/// ```
#[derive(Debug)]
pub struct IterMut<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut [T] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;
    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

indexed_slice_iter!(
    IterMut<'data, T: Send>,
    &'data mut T,
    IterMutProducer { slice },
    |s| s.slice.len()
);

struct IterMutProducer<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> Producer for IterMutProducer<'data, T> {
    type Item = &'data mut T;
    type IntoIter = std::slice::IterMut<'data, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.slice.iter_mut()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (
            IterMutProducer { slice: left },
            IterMutProducer { slice: right },
        )
    }
}

/// Declares a chunk iterator type, its producer and their impls. `$split` maps a chunk index
/// to the element index where the producer's slice is cut, with `$s` the producer.
macro_rules! chunk_iter {
    (
        $(#[$doc:meta])*
        $name:ident, $producer:ident, $t:ident: $bound:ident, $slice:ty, $item:ty, $seq:ty,
        into_iter = |$p:ident| $into_iter:expr,
        len = |$l:ident| $len:expr,
        split = |$s:ident, $index:ident| $split:expr
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'data, $t: $bound> {
            chunk_size: usize,
            slice: $slice,
            /// What the `_exact` forms leave out (empty for the others).
            rem: $slice,
        }

        impl<'data, $t: $bound> $name<'data, $t> {
            pub(super) fn new(chunk_size: usize, slice: $slice) -> Self {
                assert!(chunk_size != 0, "chunk_size must not be zero");
                $name { chunk_size, slice, rem: Default::default() }
            }

            #[allow(dead_code)] // only the `_exact` forms have a remainder
            pub(super) fn with_remainder(mut self, rem: $slice) -> Self {
                self.rem = rem;
                self
            }
        }

        indexed_slice_iter!($name<'data, $t: $bound>, $item, $producer { chunk_size, slice }, |$l| $len);

        struct $producer<'data, $t: $bound> {
            chunk_size: usize,
            slice: $slice,
        }

        impl<'data, $t: $bound + 'data> Producer for $producer<'data, $t> {
            type Item = $item;
            type IntoIter = $seq;
            fn into_iter(self) -> $seq {
                let $p = self;
                $into_iter
            }
            fn split_at(self, $index: usize) -> (Self, Self) {
                let $s = self;
                let chunk_size = $s.chunk_size;
                let (left, right) = $split;
                ($producer { chunk_size, slice: left }, $producer { chunk_size, slice: right })
            }
        }
    };
}

chunk_iter!(
    /// The parallel iterator of [`ParallelSlice::par_chunks`](crate::slice::ParallelSlice::par_chunks).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sums: Vec<i32> = [1, 2, 3, 4, 5].par_chunks(2).map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [3, 7, 5]);
    /// ```
    Chunks, ChunksProducer, T: Sync, &'data [T], &'data [T], std::slice::Chunks<'data, T>,
    into_iter = |p| p.slice.chunks(p.chunk_size),
    len = |s| s.slice.len().div_ceil(s.chunk_size),
    split = |s, index| s.slice.split_at(index.saturating_mul(s.chunk_size).min(s.slice.len()))
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSliceMut::par_chunks_mut`](crate::slice::ParallelSliceMut::par_chunks_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_chunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
    /// assert_eq!(v, [0, 0, 1, 1, 2]);
    /// ```
    ChunksMut, ChunksMutProducer, T: Send, &'data mut [T], &'data mut [T], std::slice::ChunksMut<'data, T>,
    into_iter = |p| p.slice.chunks_mut(p.chunk_size),
    len = |s| s.slice.len().div_ceil(s.chunk_size),
    split = |s, index| {
        let at = index.saturating_mul(s.chunk_size).min(s.slice.len());
        s.slice.split_at_mut(at)
    }
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSlice::par_chunks_exact`](crate::slice::ParallelSlice::par_chunks_exact);
    /// the slice it covers is already cut to a multiple of the chunk size.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 2, 3, 4, 5].par_chunks_exact(2).collect();
    /// assert_eq!(v, [&[1, 2][..], &[3, 4][..]]);
    /// ```
    ChunksExact, ChunksExactProducer, T: Sync, &'data [T], &'data [T], std::slice::ChunksExact<'data, T>,
    into_iter = |p| p.slice.chunks_exact(p.chunk_size),
    len = |s| s.slice.len() / s.chunk_size,
    split = |s, index| s.slice.split_at(index * s.chunk_size)
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSliceMut::par_chunks_exact_mut`](crate::slice::ParallelSliceMut::par_chunks_exact_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    ChunksExactMut, ChunksExactMutProducer, T: Send, &'data mut [T], &'data mut [T], std::slice::ChunksExactMut<'data, T>,
    into_iter = |p| p.slice.chunks_exact_mut(p.chunk_size),
    len = |s| s.slice.len() / s.chunk_size,
    split = |s, index| s.slice.split_at_mut(index * s.chunk_size)
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSlice::par_rchunks`](crate::slice::ParallelSlice::par_rchunks):
    /// chunks counted from the end.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 2, 3].par_rchunks(2).collect();
    /// assert_eq!(v, [&[2, 3][..], &[1][..]]);
    /// ```
    RChunks, RChunksProducer, T: Sync, &'data [T], &'data [T], std::slice::RChunks<'data, T>,
    into_iter = |p| p.slice.rchunks(p.chunk_size),
    len = |s| s.slice.len().div_ceil(s.chunk_size),
    split = |s, index| {
        let at = s.slice.len() - index.saturating_mul(s.chunk_size).min(s.slice.len());
        let (front, back) = s.slice.split_at(at);
        (back, front)
    }
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSliceMut::par_rchunks_mut`](crate::slice::ParallelSliceMut::par_rchunks_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [0; 3];
    /// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
    /// assert_eq!(v, [1, 0, 0]);
    /// ```
    RChunksMut, RChunksMutProducer, T: Send, &'data mut [T], &'data mut [T], std::slice::RChunksMut<'data, T>,
    into_iter = |p| p.slice.rchunks_mut(p.chunk_size),
    len = |s| s.slice.len().div_ceil(s.chunk_size),
    split = |s, index| {
        let at = s.slice.len() - index.saturating_mul(s.chunk_size).min(s.slice.len());
        let (front, back) = s.slice.split_at_mut(at);
        (back, front)
    }
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSlice::par_rchunks_exact`](crate::slice::ParallelSlice::par_rchunks_exact);
    /// the slice it covers is already cut (at the front) to a multiple of the chunk size.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 2, 3].par_rchunks_exact(2).collect();
    /// assert_eq!(v, [&[2, 3][..]]);
    /// ```
    RChunksExact, RChunksExactProducer, T: Sync, &'data [T], &'data [T], std::slice::RChunksExact<'data, T>,
    into_iter = |p| p.slice.rchunks_exact(p.chunk_size),
    len = |s| s.slice.len() / s.chunk_size,
    split = |s, index| {
        let (front, back) = s.slice.split_at(s.slice.len() - index * s.chunk_size);
        (back, front)
    }
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSliceMut::par_rchunks_exact_mut`](crate::slice::ParallelSliceMut::par_rchunks_exact_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [1, 3, 2]);
    /// ```
    RChunksExactMut, RChunksExactMutProducer, T: Send, &'data mut [T], &'data mut [T], std::slice::RChunksExactMut<'data, T>,
    into_iter = |p| p.slice.rchunks_exact_mut(p.chunk_size),
    len = |s| s.slice.len() / s.chunk_size,
    split = |s, index| {
        let at = s.slice.len() - index * s.chunk_size;
        let (front, back) = s.slice.split_at_mut(at);
        (back, front)
    }
);

chunk_iter!(
    /// The parallel iterator of [`ParallelSlice::par_windows`](crate::slice::ParallelSlice::par_windows).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let diffs: Vec<i32> = [1, 4, 9].par_windows(2).map(|w| w[1] - w[0]).collect();
    /// assert_eq!(diffs, [3, 5]);
    /// ```
    Windows, WindowsProducer, T: Sync, &'data [T], &'data [T], std::slice::Windows<'data, T>,
    into_iter = |p| p.slice.windows(p.chunk_size),
    len = |s| (s.slice.len() + 1).saturating_sub(s.chunk_size),
    split = |s, index| {
        // Windows overlap: the left part keeps `chunk_size - 1` elements past the cut.
        let left_end = (index + s.chunk_size - 1).min(s.slice.len());
        (&s.slice[..left_end], &s.slice[index.min(s.slice.len())..])
    }
);

impl<'data, T: Sync> Clone for Chunks<'data, T> {
    fn clone(&self) -> Self {
        Chunks {
            chunk_size: self.chunk_size,
            slice: self.slice,
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> Clone for ChunksExact<'data, T> {
    fn clone(&self) -> Self {
        ChunksExact {
            chunk_size: self.chunk_size,
            slice: self.slice,
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> Clone for RChunks<'data, T> {
    fn clone(&self) -> Self {
        RChunks {
            chunk_size: self.chunk_size,
            slice: self.slice,
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> Clone for RChunksExact<'data, T> {
    fn clone(&self) -> Self {
        RChunksExact {
            chunk_size: self.chunk_size,
            slice: self.slice,
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> Clone for Windows<'data, T> {
    fn clone(&self) -> Self {
        Windows {
            chunk_size: self.chunk_size,
            slice: self.slice,
            rem: self.rem,
        }
    }
}

impl<'data, T: Sync> ChunksExact<'data, T> {
    /// The elements left out at the end: fewer than `chunk_size` (as
    /// `slice::ChunksExact::remainder`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 3, 4, 5].par_chunks_exact(2).remainder(), &[5]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

impl<'data, T: Sync> RChunksExact<'data, T> {
    /// The elements left out at the front: fewer than `chunk_size` (as
    /// `slice::RChunksExact::remainder`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 3, 4, 5].par_rchunks_exact(2).remainder(), &[1]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

macro_rules! mut_remainder {
    ($name:ident, $end:literal) => {
        impl<'data, T: Send> $name<'data, T> {
            #[doc = concat!("The elements left out at the ", $end, ", for the iterator's lifetime.")]
            ///
            /// ```
            /// use blitz_par::prelude::*;
            /// let mut v = [1, 2, 3];
            /// assert_eq!(v.par_chunks_exact_mut(2).into_remainder(), &mut [3]);
            /// ```
            pub fn into_remainder(self) -> &'data mut [T] {
                self.rem
            }

            #[doc = concat!("The elements left out at the ", $end, ", borrowed from the iterator.")]
            ///
            /// ```
            /// use blitz_par::prelude::*;
            /// let mut v = [1, 2, 3];
            /// let mut chunks = v.par_rchunks_exact_mut(2);
            /// chunks.remainder()[0] = 10;
            /// chunks.for_each(|c| c.reverse());
            /// assert_eq!(v, [10, 3, 2]);
            /// ```
            pub fn remainder(&mut self) -> &mut [T] {
                self.rem
            }

            #[doc = concat!("Takes the elements left out at the ", $end, " (the iterator keeps an empty")]
            /// remainder).
            ///
            /// ```
            /// use blitz_par::prelude::*;
            /// let mut v = [1, 2, 3];
            /// let mut chunks = v.par_chunks_exact_mut(2);
            /// let rem = chunks.take_remainder();
            /// assert!(chunks.remainder().is_empty());
            /// rem[0] = 30;
            /// assert_eq!(v, [1, 2, 30]);
            /// ```
            pub fn take_remainder(&mut self) -> &'data mut [T] {
                std::mem::take(&mut self.rem)
            }
        }
    };
}

mut_remainder!(ChunksExactMut, "end");
mut_remainder!(RChunksExactMut, "front");
