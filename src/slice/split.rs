//! `par_split`, `par_split_inclusive`, `par_chunk_by` and their `_mut` forms: slices cut at
//! separators or group boundaries. These are unindexed: a part is split near its middle at a
//! separator (or a boundary between groups), so that the pieces of the two halves are the
//! pieces of the whole. (An inclusive split never cuts at a separator in last place: its left
//! half would be the whole part again.)
//!
//! One producer per kind of cut serves the shared and the `_mut` forms alike, through
//! `SlicePart`; the six public iterators are declared by `cut_iter!`.

use crate::iter::plumbing::{
    bridge_unindexed_halving, Folder, UnindexedConsumer, UnindexedProducer,
};
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

/// Where to cut `s` between two groups, near its middle: a cut at `i` separates `s[i - 1]`
/// and `s[i]`, valid where they are in different groups.
fn group_boundary_near_middle<T, P: Fn(&T, &T) -> bool>(s: &[T], same_group: &P) -> Option<usize> {
    let boundary = |i: &usize| !same_group(&s[*i - 1], &s[*i]);
    let mid = s.len() / 2;
    (mid.max(1)..s.len())
        .find(boundary)
        .or_else(|| (1..mid).rev().find(boundary))
}

/// A slice borrowed shared (`&[T]`) or exclusively (`&mut [T]`): what the producers here cut
/// in two, and fold at a leaf with std's sequential iterator of the same kind.
trait SlicePart: Sized + Send {
    /// The element type.
    type Elem;
    /// The elements, to look for a cut in.
    fn elems(&self) -> &[Self::Elem];
    /// The elements before `mid` and those from `mid` on.
    fn cut(self, mid: usize) -> (Self, Self);
    /// Folds the pieces between separators (std's `split`, or `split_inclusive`).
    fn fold_split<P, F>(self, separator: &P, inclusive: bool, folder: F) -> F
    where
        P: Fn(&Self::Elem) -> bool,
        F: Folder<Self>;
    /// Folds the groups (std's `chunk_by`).
    fn fold_chunk_by<P, F>(self, same_group: &P, folder: F) -> F
    where
        P: Fn(&Self::Elem, &Self::Elem) -> bool,
        F: Folder<Self>;
}

impl<T: Sync> SlicePart for &[T] {
    type Elem = T;
    fn elems(&self) -> &[T] {
        self
    }
    fn cut(self, mid: usize) -> (Self, Self) {
        self.split_at(mid)
    }
    fn fold_split<P, F>(self, separator: &P, inclusive: bool, folder: F) -> F
    where
        P: Fn(&T) -> bool,
        F: Folder<Self>,
    {
        if inclusive {
            folder.consume_iter(self.split_inclusive(separator))
        } else {
            folder.consume_iter(self.split(separator))
        }
    }
    fn fold_chunk_by<P, F>(self, same_group: &P, folder: F) -> F
    where
        P: Fn(&T, &T) -> bool,
        F: Folder<Self>,
    {
        folder.consume_iter(self.chunk_by(same_group))
    }
}

impl<T: Send> SlicePart for &mut [T] {
    type Elem = T;
    fn elems(&self) -> &[T] {
        self
    }
    fn cut(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
    fn fold_split<P, F>(self, separator: &P, inclusive: bool, folder: F) -> F
    where
        P: Fn(&T) -> bool,
        F: Folder<Self>,
    {
        if inclusive {
            folder.consume_iter(self.split_inclusive_mut(separator))
        } else {
            folder.consume_iter(self.split_mut(separator))
        }
    }
    fn fold_chunk_by<P, F>(self, same_group: &P, folder: F) -> F
    where
        P: Fn(&T, &T) -> bool,
        F: Folder<Self>,
    {
        folder.consume_iter(self.chunk_by_mut(same_group))
    }
}

/// The producer of the four separator splits: `S` is the (shared or `mut`) slice.
struct SplitProducer<'p, S, P> {
    slice: S,
    separator: &'p P,
    /// `split_inclusive`: each piece keeps its separator at its end.
    inclusive: bool,
}

impl<'p, S: SlicePart, P: Fn(&S::Elem) -> bool + Sync> UnindexedProducer
    for SplitProducer<'p, S, P>
{
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = S;
    fn split(self) -> (Self, Option<Self>) {
        match separator_near_middle(self.slice.elems(), self.separator, self.inclusive) {
            Some(at) => {
                let (left, right) = self.slice.cut(at + 1);
                // Only an inclusive piece keeps its separator.
                let (left, _) = left.cut(at + usize::from(self.inclusive));
                let part = |slice| SplitProducer {
                    slice,
                    separator: self.separator,
                    inclusive: self.inclusive,
                };
                (part(left), Some(part(right)))
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        self.slice
            .fold_split(self.separator, self.inclusive, folder)
    }
}

/// The producer of the two group splits: `S` is the (shared or `mut`) slice.
struct ChunkByProducer<'p, S, P> {
    slice: S,
    same_group: &'p P,
}

impl<'p, S: SlicePart, P: Fn(&S::Elem, &S::Elem) -> bool + Sync> UnindexedProducer
    for ChunkByProducer<'p, S, P>
{
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = S;
    fn split(self) -> (Self, Option<Self>) {
        match group_boundary_near_middle(self.slice.elems(), self.same_group) {
            Some(at) => {
                let (left, right) = self.slice.cut(at);
                let part = |slice| ChunkByProducer {
                    slice,
                    same_group: self.same_group,
                };
                (part(left), Some(part(right)))
            }
            None => (self, None),
        }
    }
    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        self.slice.fold_chunk_by(self.same_group, folder)
    }
}

/// Declares the public iterator `$name` over a `shared` slice (`&'data [T]`, `T: Sync`, and
/// `Clone` where `P` is) or a `mut` one (`&'data mut [T]`, `T: Send`): the struct, with the
/// predicate in field `$pred`, its `Debug` (the slice only), its `new(slice, $pred)`, and its
/// `ParallelIterator`, which bridges to `$producer` with `$pred` borrowed and the given
/// further fields.
macro_rules! cut_iter {
    ($(#[$doc:meta])* shared $name:ident, $pred:ident: $($rest:tt)*) => {
        cut_iter!(@common $(#[$doc])* $name, [&'data [T]], Sync, $pred: $($rest)*);

        impl<'data, T, P: Clone> Clone for $name<'data, T, P> {
            fn clone(&self) -> Self {
                $name {
                    slice: self.slice,
                    $pred: self.$pred.clone(),
                }
            }
        }
    };
    ($(#[$doc:meta])* mut $name:ident, $($rest:tt)*) => {
        cut_iter!(@common $(#[$doc])* $name, [&'data mut [T]], Send, $($rest)*);
    };
    (
        @common $(#[$doc:meta])* $name:ident, [$slice:ty], $elem:ident,
        $pred:ident: Fn($($arg:ty),*), $producer:ident { $($field:ident: $value:expr),* }
    ) => {
        $(#[$doc])*
        pub struct $name<'data, T, P> {
            slice: $slice,
            $pred: P,
        }

        impl<'data, T: fmt::Debug, P> fmt::Debug for $name<'data, T, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish()
            }
        }

        impl<'data, T, P> $name<'data, T, P> {
            pub(super) fn new(slice: $slice, $pred: P) -> Self {
                $name { slice, $pred }
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $elem,
            P: Fn($($arg),*) -> bool + Sync + Send,
        {
            type Item = $slice;
            fn drive_unindexed<C: UnindexedConsumer<$slice>>(self, consumer: C) -> C::Result {
                bridge_unindexed_halving(
                    $producer {
                        slice: self.slice,
                        $pred: &self.$pred,
                        $($field: $value),*
                    },
                    consumer,
                )
            }
        }
    };
}

cut_iter!(
    /// The parallel iterator of [`ParallelSlice::par_split`](crate::slice::ParallelSlice::par_split).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split(|&x| x == 0).collect();
    /// assert_eq!(v, [&[1][..], &[2, 3][..], &[][..]]);
    /// ```
    shared Split, separator: Fn(&T), SplitProducer { inclusive: false }
);

cut_iter!(
    /// The parallel iterator of
    /// [`ParallelSlice::par_split_inclusive`](crate::slice::ParallelSlice::par_split_inclusive).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 0, 2, 3, 0].par_split_inclusive(|&x| x == 0).collect();
    /// assert_eq!(v, [&[1, 0][..], &[2, 3, 0][..]]);
    /// ```
    shared SplitInclusive, separator: Fn(&T), SplitProducer { inclusive: true }
);

cut_iter!(
    /// The parallel iterator of [`ParallelSlice::par_chunk_by`](crate::slice::ParallelSlice::par_chunk_by).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 1, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(v, [&[1, 1][..], &[2][..], &[3, 3, 3][..]]);
    /// ```
    shared ChunkBy, same_group: Fn(&T, &T), ChunkByProducer {}
);

cut_iter!(
    /// The parallel iterator of [`ParallelSliceMut::par_split_mut`](crate::slice::ParallelSliceMut::par_split_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [3, 1, 0, 2, 1];
    /// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
    /// assert_eq!(v, [1, 3, 0, 1, 2]);
    /// ```
    mut SplitMut, separator: Fn(&T), SplitProducer { inclusive: false }
);

cut_iter!(
    /// The parallel iterator of
    /// [`ParallelSliceMut::par_split_inclusive_mut`](crate::slice::ParallelSliceMut::par_split_inclusive_mut).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [3, 1, 0, 2, 1];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|part| part.sort());
    /// assert_eq!(v, [0, 1, 3, 1, 2]);
    /// ```
    mut SplitInclusiveMut, separator: Fn(&T), SplitProducer { inclusive: true }
);

cut_iter!(
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
    mut ChunkByMut, same_group: Fn(&T, &T), ChunkByProducer {}
);
