//! Parallel iterators of hashbrown's [`HashTable`]: hashbrown's `hash_table::rayon` names.
//!
//! `par_iter` splits the table's buckets by index ([`HashTable::num_buckets`],
//! [`HashTable::get_bucket`]), so it allocates nothing and every thread scans its own part
//! of the table: a parallel scan, as hashbrown's own. The others gather the items (or
//! references to them) into a `Vec` first, as the map's and the set's do.
//!
//! ```
//! use blitz_par::prelude::*;
//! use hashbrown::{DefaultHashBuilder, HashTable};
//! use std::hash::BuildHasher;
//!
//! let hasher = DefaultHashBuilder::default();
//! let mut table = HashTable::new();
//! for x in 0..1000u64 {
//!     table.insert_unique(hasher.hash_one(x), x, |v| hasher.hash_one(v));
//! }
//! assert_eq!(table.par_iter().sum::<u64>(), 999 * 1000 / 2);
//! table.par_iter_mut().for_each(|x| *x *= 2);
//! assert_eq!(table.par_iter().max(), Some(&1998));
//! ```

use crate::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::iter::{IntoParallelIterator, ParallelDrainFull, ParallelIterator, VecIntoIter};
use ::hashbrown::HashTable;
use std::fmt;
use std::ops::Range;

/// The parallel iterator of `&HashTable` (`par_iter`): its items, found by scanning bucket
/// ranges in parallel.
///
/// ```
/// use blitz_par::prelude::*;
/// use hashbrown::{DefaultHashBuilder, HashTable};
/// use std::hash::BuildHasher;
/// let hasher = DefaultHashBuilder::default();
/// let mut table = HashTable::new();
/// table.insert_unique(hasher.hash_one("a"), "a", |v| hasher.hash_one(v));
/// let it: blitz_par::hashbrown::hash_table::ParIter<'_, &str> = table.par_iter();
/// assert_eq!(it.collect::<Vec<_>>(), [&"a"]);
/// ```
#[must_use = "iterator adapters are lazy"]
pub struct ParIter<'a, T> {
    table: &'a HashTable<T>,
}

impl<T> Clone for ParIter<'_, T> {
    fn clone(&self) -> Self {
        ParIter { table: self.table }
    }
}

impl<T: fmt::Debug> fmt::Debug for ParIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.table.iter()).finish()
    }
}

impl<'a, T: Sync> ParallelIterator for ParIter<'a, T> {
    type Item = &'a T;
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let buckets = BucketRange {
            table: self.table,
            range: 0..self.table.num_buckets(),
        };
        bridge_unindexed(buckets, consumer)
    }
}

/// A range of bucket indices of a table: splits in halves, and folds the items found in
/// the range's full buckets.
struct BucketRange<'a, T> {
    table: &'a HashTable<T>,
    range: Range<usize>,
}

/// The fewest buckets a split leaves on each side: a few groups of control bytes (16 each
/// with SSE2), so that a piece's scan costs more than its split.
const MIN_BUCKETS: usize = 64;

impl<'a, T: Sync> UnindexedProducer for BucketRange<'a, T> {
    type Item = &'a T;
    fn split(self) -> (Self, Option<Self>) {
        let Range { start, end } = self.range;
        if end - start < 2 * MIN_BUCKETS {
            return (self, None);
        }
        let mid = start + (end - start) / 2;
        let table = self.table;
        (
            BucketRange {
                table,
                range: start..mid,
            },
            Some(BucketRange {
                table,
                range: mid..end,
            }),
        )
    }
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        let table = self.table;
        folder.consume_iter(self.range.filter_map(|index| table.get_bucket(index)))
    }
}

delegating_iterator!(
    /// The parallel iterator of `&mut HashTable` (`par_iter_mut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use hashbrown::{DefaultHashBuilder, HashTable};
    /// use std::hash::BuildHasher;
    /// let hasher = DefaultHashBuilder::default();
    /// let mut table = HashTable::new();
    /// table.insert_unique(hasher.hash_one(1), (1, 0), |v| hasher.hash_one(v.0));
    /// table.par_iter_mut().for_each(|(_, count)| *count += 1);
    /// assert_eq!(table.iter().next(), Some(&(1, 1)));
    /// ```
    ParIterMut<'a, T>, inner VecIntoIter<&'a mut T>, item &'a mut T, where [T: Send]
);

delegating_iterator!(
    /// The parallel iterator of `HashTable::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use hashbrown::{DefaultHashBuilder, HashTable};
    /// use std::hash::BuildHasher;
    /// let hasher = DefaultHashBuilder::default();
    /// let mut table = HashTable::new();
    /// table.insert_unique(hasher.hash_one(7), 7, |v| hasher.hash_one(v));
    /// assert_eq!(table.into_par_iter().collect::<Vec<_>>(), [7]);
    /// ```
    IntoParIter<T>, inner VecIntoIter<T>, item T, where [T: Send]
);

delegating_iterator!(
    /// The parallel iterator of `HashTable::par_drain`: every item, leaving the table empty
    /// (with its capacity).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use hashbrown::{DefaultHashBuilder, HashTable};
    /// use std::hash::BuildHasher;
    /// let hasher = DefaultHashBuilder::default();
    /// let mut table = HashTable::new();
    /// table.insert_unique(hasher.hash_one(7), 7, |v| hasher.hash_one(v));
    /// assert_eq!(table.par_drain().sum::<i32>(), 7);
    /// assert!(table.is_empty());
    /// ```
    ParDrain<'a, T>, inner VecIntoIter<T>, marker &'a mut T, item T, where [T: Send]
);

impl<'a, T: Sync> IntoParallelIterator for &'a HashTable<T> {
    type Iter = ParIter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        ParIter { table: self }
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut HashTable<T> {
    type Iter = ParIterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        ParIterMut {
            inner: self.iter_mut().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<T: Send> IntoParallelIterator for HashTable<T> {
    type Iter = IntoParIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, T: Send> ParallelDrainFull for &'a mut HashTable<T> {
    type Iter = ParDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        ParDrain {
            inner: self.drain().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }
}
