//! `par_drain` for the collections other than `Vec`: the whole of a `HashMap`, `HashSet` or
//! `BinaryHeap` ([`ParallelDrainFull`]), a range of a `VecDeque` or `String`
//! ([`ParallelDrainRange`]).
//!
//! As for iterating those collections by value, the hashed collections and the heap cannot be
//! split in place, so their items are first moved into a `Vec` (sequentially), which is then
//! iterated in parallel; the `VecDeque` range is moved the same way. The collection is left
//! empty (or without the range) as soon as `par_drain` returns, as rayon's is once its
//! iterator has been dropped. A `String` range is iterated in place (its `char`s) and removed
//! when the iterator is dropped, used or not.

use super::plumbing::*;
use super::vec::checked_range;
use super::*;
use crate::str::ParallelString;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::marker::PhantomData;
use std::ops::{Range, RangeBounds};

/// `par_drain()` with no range: removes every item of a collection, yielding them in
/// parallel (rayon's `ParallelDrainFull`).
///
/// ```
/// use blitz_par::prelude::*;
/// use std::collections::HashSet;
/// let mut set: HashSet<i32> = (0..10).collect();
/// assert_eq!(set.par_drain().sum::<i32>(), 45);
/// assert!(set.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Removes every item, yielding them (in the collection's iteration order where it has
    /// one; a `BinaryHeap`'s is arbitrary).
    fn par_drain(self) -> Self::Iter;
}

macro_rules! drained_vec {
    ($(#[$doc:meta])* $name:ident<$lt:lifetime, $($g:ident),*>, item $item:ty, marker $marker:ty) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$lt, $($g: Send),*> {
            inner: VecIntoIter<$item>,
            _collection: PhantomData<$marker>,
        }

        impl<$lt, $($g: Send),*> $name<$lt, $($g),*> {
            fn new(items: Vec<$item>) -> Self {
                $name { inner: items.into_par_iter(), _collection: PhantomData }
            }
        }

        via_inner_vec!([$lt, $($g: Send),*] $name<$lt, $($g),*>, item $item);
    };
}

drained_vec!(
    /// The iterator of `HashMap::par_drain`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: std::collections::HashMap<i32, i32> = [(1, 2), (3, 4)].into();
    /// assert_eq!(m.par_drain().map(|(k, v)| k * v).sum::<i32>(), 14);
    /// ```
    HashMapDrain<'a, K, V>, item (K, V), marker &'a mut (K, V)
);
drained_vec!(
    /// The iterator of `HashSet::par_drain`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut s: std::collections::HashSet<i32> = [1, 2].into();
    /// assert_eq!(s.par_drain().count(), 2);
    /// ```
    HashSetDrain<'a, T>, item T, marker &'a mut T
);
drained_vec!(
    /// The iterator of `BinaryHeap::par_drain`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut h: std::collections::BinaryHeap<i32> = [3, 1, 2].into();
    /// assert_eq!(h.par_drain().max(), Some(3));
    /// assert!(h.is_empty());
    /// ```
    BinaryHeapDrain<'a, T>, item T, marker &'a mut T
);
drained_vec!(
    /// The iterator of `VecDeque::par_drain`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut d: std::collections::VecDeque<i32> = (0..6).collect();
    /// let mid: Vec<i32> = d.par_drain(1..4).collect();
    /// assert_eq!(mid, [1, 2, 3]);
    /// assert_eq!(d, [0, 4, 5]);
    /// ```
    VecDequeDrain<'a, T>, item T, marker &'a mut T
);

impl<'a, K: Send, V: Send, S> ParallelDrainFull for &'a mut HashMap<K, V, S> {
    type Iter = HashMapDrain<'a, K, V>;
    type Item = (K, V);
    fn par_drain(self) -> Self::Iter {
        HashMapDrain::new(self.drain().collect())
    }
}

impl<'a, T: Send, S> ParallelDrainFull for &'a mut HashSet<T, S> {
    type Iter = HashSetDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        HashSetDrain::new(self.drain().collect())
    }
}

impl<'a, T: Send> ParallelDrainFull for &'a mut BinaryHeap<T> {
    type Iter = BinaryHeapDrain<'a, T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        // `drain`, not `take`: the heap keeps its capacity, as rayon's does.
        BinaryHeapDrain::new(self.drain().collect())
    }
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut VecDeque<T> {
    type Iter = VecDequeDrain<'a, T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        let range = checked_range(range, self.len());
        VecDequeDrain::new(self.drain(range).collect())
    }
}

/// The iterator of `String::par_drain`: the `char`s of the range, which leaves the string
/// when the iterator is dropped (run or not).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut s = String::from("hello, world");
/// let hello: String = s.par_drain(..5).collect();
/// assert_eq!(hello, "hello");
/// assert_eq!(s, ", world");
/// ```
#[derive(Debug)]
pub struct StringDrain<'a> {
    string: &'a mut String,
    range: Range<usize>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = StringDrain<'a>;
    type Item = char;
    /// Panics if the range is out of bounds or does not lie on `char` boundaries.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> StringDrain<'a> {
        let range = checked_range(range, self.len());
        assert!(
            self.is_char_boundary(range.start) && self.is_char_boundary(range.end),
            "par_drain: range {range:?} is not on char boundaries"
        );
        StringDrain {
            string: self,
            range,
        }
    }
}

impl ParallelIterator for StringDrain<'_> {
    type Item = char;
    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        self.string[self.range.clone()]
            .par_chars()
            .drive_unindexed(consumer)
    }
}

impl Drop for StringDrain<'_> {
    fn drop(&mut self) {
        self.string.drain(self.range.clone());
    }
}
