//! Parallel iterators of indexmap's [`IndexSet`] and its [`Slice`], and the set's parallel
//! methods, set operations and sorts ([`ParallelIndexSetExt`]): indexmap's `set::rayon`
//! names. The iterators of the set and its slices are indexed and
//! keep the set's order; the set operations keep the order of the set they start from.
//!
//! ```
//! use blitz_par::prelude::*;
//! use indexmap::IndexSet;
//!
//! let a: IndexSet<u32> = [5, 1, 4, 2].into_iter().collect();
//! let b: IndexSet<u32> = [4, 5, 6].into_iter().collect();
//! let both: Vec<u32> = a.par_intersection(&b).copied().collect();
//! assert_eq!(both, [5, 4]);
//! let all: Vec<u32> = a.par_union(&b).copied().collect();
//! assert_eq!(all, [5, 1, 4, 2, 6]);
//! ```

use super::super::extend_in_order;
use super::{slice_iterator, sort_set_items};
use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, ParallelDrainRange,
    ParallelExtend, ParallelIterator, VecIntoIter,
};
use crate::slice::ParallelSliceMut;
use ::indexmap::set::{Iter, Slice};
use ::indexmap::IndexSet;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::ops::RangeBounds;

slice_iterator!(
    /// The parallel iterator of `&IndexSet` and `&Slice` (`par_iter`): the items, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: indexmap::IndexSet<i32> = [3, 1, 2].into_iter().collect();
    /// let it: blitz_par::indexmap::set::ParIter<'_, i32> = s.par_iter();
    /// assert_eq!(it.copied().collect::<Vec<_>>(), [3, 1, 2]);
    /// ```
    ParIter<'a, T>, IterProducer, slice &'a Slice<T>, split split_at,
    seq Iter<'a, T>, |s| s.iter(), item &'a T, where [T: Sync]
);

impl<T> Clone for ParIter<'_, T> {
    fn clone(&self) -> Self {
        ParIter { slice: self.slice }
    }
}

delegating_iterator!(
    /// The parallel iterator of `IndexSet::into_par_iter` (and of a boxed `Slice`, and of
    /// [`ParallelIndexSetExt::par_sorted_by`]): the items, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: indexmap::IndexSet<i32> = [3, 1, 2].into_iter().collect();
    /// assert_eq!(s.into_par_iter().collect::<Vec<_>>(), [3, 1, 2]);
    /// ```
    IntoParIter<T>, inner VecIntoIter<T>, item T, where [T: Send], indexed
);

delegating_iterator!(
    /// The parallel iterator of `IndexSet::par_drain(range)`: the items of `range`, in order;
    /// the set keeps the others.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = (0..10).collect();
    /// assert_eq!(s.par_drain(..3).collect::<Vec<_>>(), [0, 1, 2]);
    /// assert_eq!(s.len(), 7);
    /// ```
    ParDrain<'a, T>, inner VecIntoIter<T>, marker &'a mut T, item T, where [T: Send], indexed
);

impl<'a, T: Sync, S> IntoParallelIterator for &'a IndexSet<T, S> {
    type Iter = ParIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        ParIter {
            slice: self.as_slice(),
        }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Slice<T> {
    type Iter = ParIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        ParIter { slice: self }
    }
}

impl<T: Send, S> IntoParallelIterator for IndexSet<T, S> {
    type Iter = IntoParIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<T: Send> IntoParallelIterator for Box<Slice<T>> {
    type Iter = IntoParIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, T: Send, S> ParallelDrainRange<usize> for &'a mut IndexSet<T, S> {
    type Iter = ParDrain<'a, T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        ParDrain {
            inner: self.drain(range).collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }
}

/// Declares a set operation's parallel iterator: the two sets (of hashers `S1` and `S2`),
/// and the pipeline that `drive_unindexed` runs over them.
macro_rules! set_operation {
    ($(#[$doc:meta])* $name:ident, |$a:ident, $b:ident| $pipeline:expr) => {
        $(#[$doc])*
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<'a, T, S1, S2> {
            a: &'a IndexSet<T, S1>,
            b: &'a IndexSet<T, S2>,
        }

        impl<T, S1, S2> Clone for $name<'_, T, S1, S2> {
            fn clone(&self) -> Self {
                $name { a: self.a, b: self.b }
            }
        }

        impl<T: fmt::Debug, S1, S2> fmt::Debug for $name<'_, T, S1, S2> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("a", self.a)
                    .field("b", self.b)
                    .finish()
            }
        }

        impl<'a, T, S1, S2> ParallelIterator for $name<'a, T, S1, S2>
        where
            T: Hash + Eq + Sync,
            S1: BuildHasher + Sync,
            S2: BuildHasher + Sync,
        {
            type Item = &'a T;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                let ($a, $b) = (self.a, self.b);
                $pipeline.drive_unindexed(consumer)
            }
        }
    };
}

set_operation!(
    /// The parallel iterator of [`ParallelIndexSetExt::par_difference`]: the items of the
    /// first set that are not in the second, in the first set's order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [3, 1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [1].into_iter().collect();
    /// assert_eq!(a.par_difference(&b).copied().collect::<Vec<_>>(), [3, 2]);
    /// ```
    ParDifference,
    |a, b| a.par_iter().filter(move |x| !b.contains(*x))
);

set_operation!(
    /// The parallel iterator of [`ParallelIndexSetExt::par_symmetric_difference`]: the
    /// items of the first set not in the second, then those of the second not in the first.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [3, 1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [4, 1].into_iter().collect();
    /// assert_eq!(a.par_symmetric_difference(&b).copied().collect::<Vec<_>>(), [3, 2, 4]);
    /// ```
    ParSymmetricDifference,
    |a, b| a.par_difference(b).chain(b.par_difference(a))
);

set_operation!(
    /// The parallel iterator of [`ParallelIndexSetExt::par_intersection`]: the items of the
    /// first set that are also in the second, in the first set's order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [3, 1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_intersection(&b).copied().collect::<Vec<_>>(), [3, 2]);
    /// ```
    ParIntersection,
    |a, b| a.par_iter().filter(move |x| b.contains(*x))
);

set_operation!(
    /// The parallel iterator of [`ParallelIndexSetExt::par_union`]: the first set's items,
    /// then those of the second that are not in the first.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [3, 1].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_union(&b).copied().collect::<Vec<_>>(), [3, 1, 2]);
    /// ```
    ParUnion,
    |a, b| a.par_iter().chain(b.par_difference(a))
);

/// indexmap's parallel methods of [`IndexSet`] (inherent methods there, with its `rayon`
/// feature), under the same names. In the prelude.
///
/// ```
/// use blitz_par::prelude::*;
/// use indexmap::IndexSet;
///
/// let mut s: IndexSet<i32> = [3, -1, 2].into_iter().collect();
/// s.par_sort();
/// assert_eq!(s.as_slice().par_iter().copied().collect::<Vec<_>>(), [-1, 2, 3]);
/// let other: IndexSet<i32> = [2, 3, -1].into_iter().collect();
/// assert!(s.par_eq(&other));
/// ```
pub trait ParallelIndexSetExt<T, S> {
    /// The items of `self` not in `other`, in parallel, in `self`'s order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2].into_iter().collect();
    /// assert_eq!(a.par_difference(&b).count(), 1);
    /// ```
    fn par_difference<'a, S2>(&'a self, other: &'a IndexSet<T, S2>) -> ParDifference<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// The items in exactly one of `self` and `other`, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_symmetric_difference(&b).count(), 2);
    /// ```
    fn par_symmetric_difference<'a, S2>(
        &'a self,
        other: &'a IndexSet<T, S2>,
    ) -> ParSymmetricDifference<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// The items of `self` also in `other`, in parallel, in `self`'s order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_intersection(&b).collect::<Vec<_>>(), [&2]);
    /// ```
    fn par_intersection<'a, S2>(
        &'a self,
        other: &'a IndexSet<T, S2>,
    ) -> ParIntersection<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// The items of `self`, then those of `other` not in `self`, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_union(&b).count(), 3);
    /// ```
    fn par_union<'a, S2>(&'a self, other: &'a IndexSet<T, S2>) -> ParUnion<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// Whether both sets hold the same items, in any order, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [2, 1].into_iter().collect();
    /// assert!(a.par_eq(&b));
    /// ```
    fn par_eq<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// Whether `self` and `other` have no item in common, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [3].into_iter().collect();
    /// assert!(a.par_is_disjoint(&b));
    /// ```
    fn par_is_disjoint<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// Whether every item of `other` is in `self`, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [1].into_iter().collect();
    /// assert!(a.par_is_superset(&b));
    /// ```
    fn par_is_superset<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// Whether every item of `self` is in `other`, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexSet<i32> = [1].into_iter().collect();
    /// let b: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// assert!(a.par_is_subset(&b));
    /// ```
    fn par_is_subset<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync;

    /// Sorts the items, stably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [2, 1].into_iter().collect();
    /// s.par_sort();
    /// assert_eq!(s.get_index_of(&2), Some(1));
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord + Hash + Send,
        S: BuildHasher;

    /// Sorts the items with `cmp`, stably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// s.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, cmp: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the items with `cmp`, stably, in parallel, and returns them as a parallel
    /// iterator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// assert_eq!(s.par_sorted_by(|a, b| b.cmp(a)).collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sorted_by<F>(self, cmp: F) -> IntoParIter<T>
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the items by the key `sort_key` gives, stably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [-3, 2].into_iter().collect();
    /// s.par_sort_by_key(|x| x.abs());
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), [2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord,
        F: Fn(&T) -> K + Sync;

    /// Sorts the items, in parallel; equal items cannot occur, so this is as good as
    /// [`par_sort`](Self::par_sort).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [2, 1].into_iter().collect();
    /// s.par_sort_unstable();
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord + Hash + Send,
        S: BuildHasher;

    /// Sorts the items with `cmp`, in parallel, perhaps reordering equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// s.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, cmp: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the items with `cmp`, in parallel, perhaps reordering equal ones, and returns
    /// them as a parallel iterator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: indexmap::IndexSet<i32> = [1, 2].into_iter().collect();
    /// assert_eq!(s.par_sorted_unstable_by(|a, b| b.cmp(a)).collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sorted_unstable_by<F>(self, cmp: F) -> IntoParIter<T>
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the items by the key `sort_key` gives, in parallel, perhaps reordering equal
    /// ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<i32> = [-3, 2].into_iter().collect();
    /// s.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), [2, -3]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord,
        F: Fn(&T) -> K + Sync;

    /// Sorts the items by the key `sort_key` gives, computed once per item, stably, in
    /// parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: indexmap::IndexSet<&str> = ["ccc", "a"].into_iter().collect();
    /// s.par_sort_by_cached_key(|x| x.len());
    /// assert_eq!(s.iter().copied().collect::<Vec<_>>(), ["a", "ccc"]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord + Send,
        F: Fn(&T) -> K + Sync;
}

impl<T, S> ParallelIndexSetExt<T, S> for IndexSet<T, S> {
    fn par_difference<'a, S2>(&'a self, other: &'a IndexSet<T, S2>) -> ParDifference<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        ParDifference { a: self, b: other }
    }

    fn par_symmetric_difference<'a, S2>(
        &'a self,
        other: &'a IndexSet<T, S2>,
    ) -> ParSymmetricDifference<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        ParSymmetricDifference { a: self, b: other }
    }

    fn par_intersection<'a, S2>(
        &'a self,
        other: &'a IndexSet<T, S2>,
    ) -> ParIntersection<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        ParIntersection { a: self, b: other }
    }

    fn par_union<'a, S2>(&'a self, other: &'a IndexSet<T, S2>) -> ParUnion<'a, T, S, S2>
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        ParUnion { a: self, b: other }
    }

    fn par_eq<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        self.len() == other.len() && self.par_is_subset(other)
    }

    fn par_is_disjoint<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        // Look the smaller set's items up in the larger.
        if self.len() <= other.len() {
            self.par_iter().all(|x| !other.contains(x))
        } else {
            other.par_iter().all(|x| !self.contains(x))
        }
    }

    fn par_is_superset<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        other.par_is_subset(self)
    }

    fn par_is_subset<S2>(&self, other: &IndexSet<T, S2>) -> bool
    where
        T: Hash + Eq + Sync,
        S: BuildHasher + Sync,
        S2: BuildHasher + Sync,
    {
        self.len() <= other.len() && self.par_iter().all(|x| other.contains(x))
    }

    fn par_sort(&mut self)
    where
        T: Ord + Hash + Send,
        S: BuildHasher,
    {
        sort_set_items(self, |items| items.par_sort());
    }

    fn par_sort_by<F>(&mut self, cmp: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort_set_items(self, |items| items.par_sort_by(cmp));
    }

    fn par_sorted_by<F>(self, cmp: F) -> IntoParIter<T>
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let mut items: Vec<T> = self.into_iter().collect();
        items.par_sort_by(cmp);
        IntoParIter {
            inner: items.into_par_iter(),
        }
    }

    fn par_sort_by_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort_set_items(self, |items| items.par_sort_by_key(sort_key));
    }

    fn par_sort_unstable(&mut self)
    where
        T: Ord + Hash + Send,
        S: BuildHasher,
    {
        sort_set_items(self, |items| items.par_sort_unstable());
    }

    fn par_sort_unstable_by<F>(&mut self, cmp: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        sort_set_items(self, |items| items.par_sort_unstable_by(cmp));
    }

    fn par_sorted_unstable_by<F>(self, cmp: F) -> IntoParIter<T>
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        let mut items: Vec<T> = self.into_iter().collect();
        items.par_sort_unstable_by(cmp);
        IntoParIter {
            inner: items.into_par_iter(),
        }
    }

    fn par_sort_unstable_by_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        sort_set_items(self, |items| items.par_sort_unstable_by_key(sort_key));
    }

    fn par_sort_by_cached_key<K, F>(&mut self, sort_key: F)
    where
        T: Hash + Eq + Send,
        S: BuildHasher,
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        sort_set_items(self, |items| items.par_sort_by_cached_key(sort_key));
    }
}

/// Makes room for `n` more items as indexmap's `Extend` does.
fn reserve<T: Hash + Eq, S: BuildHasher>(set: &mut IndexSet<T, S>, n: usize) {
    set.reserve(if set.is_empty() { n } else { n.div_ceil(2) });
}

impl<T, S> FromParallelIterator<T> for IndexSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher + Default,
{
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        let mut set = IndexSet::with_hasher(S::default());
        set.par_extend(par_iter);
        set
    }
}

impl<T, S> ParallelExtend<T> for IndexSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher,
{
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        extend_in_order(self, par_iter, reserve);
    }
}

impl<'a, T, S> ParallelExtend<&'a T> for IndexSet<T, S>
where
    T: 'a + Copy + Eq + Hash + Sync,
    S: BuildHasher,
{
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = &'a T>,
    {
        extend_in_order(self, par_iter, reserve);
    }
}
