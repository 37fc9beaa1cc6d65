//! Parallel iterators of hashbrown's [`HashSet`], and its parallel methods
//! ([`ParallelHashSetExt`]): hashbrown's `hash_set::rayon` names.
//!
//! ```
//! use blitz_par::prelude::*;
//! use hashbrown::HashSet;
//!
//! let a: HashSet<u32> = (0..1000).into_par_iter().collect();
//! let b: HashSet<u32> = (500..1500).into_par_iter().collect();
//! assert_eq!(a.par_intersection(&b).count(), 500);
//! assert_eq!(a.par_union(&b).count(), 1500);
//! assert!(!a.par_is_disjoint(&b));
//! ```

use super::super::extend_in_order;
use crate::iter::plumbing::UnindexedConsumer;
use crate::iter::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, ParallelDrainFull,
    ParallelExtend, ParallelIterator, VecIntoIter,
};
use ::hashbrown::HashSet;
use std::fmt;
use std::hash::{BuildHasher, Hash};

delegating_iterator!(
    /// The parallel iterator of `&HashSet` (`par_iter`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// let it: blitz_par::hashbrown::hash_set::ParIter<'_, i32> = s.par_iter();
    /// assert_eq!(it.sum::<i32>(), 6);
    /// ```
    ParIter<'a, T>, inner VecIntoIter<&'a T>, item &'a T, where [T: Sync]
);

delegating_iterator!(
    /// The parallel iterator of `HashSet::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// assert_eq!(s.into_par_iter().max(), Some(3));
    /// ```
    IntoParIter<T>, inner VecIntoIter<T>, item T, where [T: Send]
);

delegating_iterator!(
    /// The parallel iterator of `HashSet::par_drain`: every item, leaving the set empty (with
    /// its capacity).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// assert_eq!(s.par_drain().count(), 3);
    /// assert!(s.is_empty());
    /// ```
    ParDrain<'a, T>, inner VecIntoIter<T>, marker &'a mut T, item T, where [T: Send]
);

impl<'a, T: Sync, S> IntoParallelIterator for &'a HashSet<T, S> {
    type Iter = ParIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        ParIter {
            inner: self.iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<T: Send, S> IntoParallelIterator for HashSet<T, S> {
    type Iter = IntoParIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, T: Send, S> ParallelDrainFull for &'a mut HashSet<T, S> {
    type Iter = ParDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        ParDrain {
            inner: self.drain().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }
}

/// Declares a set operation's parallel iterator: the two sets, and the pipeline that
/// `drive_unindexed` runs over them.
macro_rules! set_operation {
    ($(#[$doc:meta])* $name:ident, |$a:ident, $b:ident| $pipeline:expr) => {
        $(#[$doc])*
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<'a, T, S> {
            a: &'a HashSet<T, S>,
            b: &'a HashSet<T, S>,
        }

        impl<T, S> Clone for $name<'_, T, S> {
            fn clone(&self) -> Self {
                $name { a: self.a, b: self.b }
            }
        }

        impl<T: fmt::Debug, S> fmt::Debug for $name<'_, T, S> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("a", self.a)
                    .field("b", self.b)
                    .finish()
            }
        }

        impl<'a, T, S> ParallelIterator for $name<'a, T, S>
        where
            T: Eq + Hash + Sync,
            S: BuildHasher + Sync,
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
    /// The parallel iterator of [`ParallelHashSetExt::par_difference`]: the items of the
    /// first set that are not in the second.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3, 4].into_iter().collect();
    /// assert_eq!(a.par_difference(&b).copied().collect::<Vec<_>>(), [1]);
    /// ```
    ParDifference,
    |a, b| a.par_iter().filter(move |x| !b.contains(*x))
);

set_operation!(
    /// The parallel iterator of [`ParallelHashSetExt::par_symmetric_difference`]: the items
    /// in exactly one of the sets.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3, 4].into_iter().collect();
    /// let mut v: Vec<i32> = a.par_symmetric_difference(&b).copied().collect();
    /// v.sort();
    /// assert_eq!(v, [1, 4]);
    /// ```
    ParSymmetricDifference,
    |a, b| a.par_difference(b).chain(b.par_difference(a))
);

set_operation!(
    /// The parallel iterator of [`ParallelHashSetExt::par_intersection`]: the items in both
    /// sets.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3, 4].into_iter().collect();
    /// assert_eq!(a.par_intersection(&b).sum::<i32>(), 5);
    /// ```
    ParIntersection,
    |a, b| a.par_iter().filter(move |x| b.contains(*x))
);

set_operation!(
    /// The parallel iterator of [`ParallelHashSetExt::par_union`]: the items in either set,
    /// once each (the larger set whole, then what the smaller adds).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2, 3].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3, 4].into_iter().collect();
    /// assert_eq!(a.par_union(&b).sum::<i32>(), 10);
    /// ```
    ParUnion,
    |a, b| {
        let (smaller, larger) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        larger.par_iter().chain(smaller.par_difference(larger))
    }
);

/// hashbrown's parallel methods of [`HashSet`] (inherent methods there, with its `rayon`
/// feature), under the same names. In the prelude.
///
/// ```
/// use blitz_par::prelude::*;
/// use hashbrown::HashSet;
///
/// let small: HashSet<u32> = (0..10).collect();
/// let large: HashSet<u32> = (0..100).collect();
/// assert!(small.par_is_subset(&large));
/// assert!(large.par_is_superset(&small));
/// assert_eq!(large.par_difference(&small).count(), 90);
/// ```
pub trait ParallelHashSetExt<T, S> {
    /// The items of `self` that are not in `other`, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2].into_iter().collect();
    /// assert_eq!(a.par_difference(&b).count(), 1);
    /// ```
    fn par_difference<'a>(&'a self, other: &'a Self) -> ParDifference<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// The items in exactly one of `self` and `other`, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_symmetric_difference(&b).count(), 2);
    /// ```
    fn par_symmetric_difference<'a>(&'a self, other: &'a Self) -> ParSymmetricDifference<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// The items in both `self` and `other`, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_intersection(&b).collect::<Vec<_>>(), [&2]);
    /// ```
    fn par_intersection<'a>(&'a self, other: &'a Self) -> ParIntersection<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// The items in `self` or `other`, once each, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 3].into_iter().collect();
    /// assert_eq!(a.par_union(&b).count(), 3);
    /// ```
    fn par_union<'a>(&'a self, other: &'a Self) -> ParUnion<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// Whether `self` and `other` have no item in common, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [3].into_iter().collect();
    /// assert!(a.par_is_disjoint(&b));
    /// ```
    fn par_is_disjoint(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// Whether every item of `self` is in `other`, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// assert!(a.par_is_subset(&b) && !b.par_is_subset(&a));
    /// ```
    fn par_is_subset(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// Whether every item of `other` is in `self`, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [1].into_iter().collect();
    /// assert!(a.par_is_superset(&b));
    /// ```
    fn par_is_superset(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;

    /// Whether both sets hold the same items, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashSet<i32> = [1, 2].into_iter().collect();
    /// let b: hashbrown::HashSet<i32> = [2, 1].into_iter().collect();
    /// assert!(a.par_eq(&b));
    /// ```
    fn par_eq(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync;
}

impl<T, S> ParallelHashSetExt<T, S> for HashSet<T, S> {
    fn par_difference<'a>(&'a self, other: &'a Self) -> ParDifference<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        ParDifference { a: self, b: other }
    }

    fn par_symmetric_difference<'a>(&'a self, other: &'a Self) -> ParSymmetricDifference<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        ParSymmetricDifference { a: self, b: other }
    }

    fn par_intersection<'a>(&'a self, other: &'a Self) -> ParIntersection<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        ParIntersection { a: self, b: other }
    }

    fn par_union<'a>(&'a self, other: &'a Self) -> ParUnion<'a, T, S>
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        ParUnion { a: self, b: other }
    }

    fn par_is_disjoint(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        self.par_iter().all(|x| !other.contains(x))
    }

    fn par_is_subset(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        self.len() <= other.len() && self.par_iter().all(|x| other.contains(x))
    }

    fn par_is_superset(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        other.par_is_subset(self)
    }

    fn par_eq(&self, other: &Self) -> bool
    where
        T: Eq + Hash + Sync,
        S: BuildHasher + Sync,
    {
        self.len() == other.len() && self.par_is_subset(other)
    }
}

/// Makes room for `n` more items as hashbrown's `Extend` does.
fn reserve<T: Eq + Hash, S: BuildHasher>(set: &mut HashSet<T, S>, n: usize) {
    set.reserve(if set.is_empty() { n } else { n.div_ceil(2) });
}

impl<T, S> FromParallelIterator<T> for HashSet<T, S>
where
    T: Eq + Hash + Send,
    S: BuildHasher + Default,
{
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        let mut set = HashSet::with_hasher(S::default());
        set.par_extend(par_iter);
        set
    }
}

impl<T, S> ParallelExtend<T> for HashSet<T, S>
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

impl<'a, T, S> ParallelExtend<&'a T> for HashSet<T, S>
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
