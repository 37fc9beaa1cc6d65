//! std's collections other than `Vec` as parallel iterators (by value, `&` and `&mut`).
//!
//! `VecDeque` is indexed (its two slices chained). The others cannot be split in place, so, as
//! rayon does, their items (or references to them) are first gathered into a `Vec`, which is
//! then iterated in parallel.

use super::plumbing::*;
use super::*;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

macro_rules! via_vec {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($g:ident),*> $([$($extra:ident),*])?, item $item:ty,
     for $coll:ty, where [$($bounds:tt)*], |$c:ident| $gather:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$($lt,)? $($g),*>
        where
            $($bounds)*
        {
            inner: VecIntoIter<$item>,
        }

        // Clone where the items are (not the `_mut` iterators), as rayon's are.
        impl<$($lt,)? $($g),*> Clone for $name<$($lt,)? $($g),*>
        where
            VecIntoIter<$item>: Clone,
            $($bounds)*
        {
            fn clone(&self) -> Self {
                $name { inner: self.inner.clone() }
            }
        }

        impl<$($lt,)? $($g,)* $($($extra),*)?> IntoParallelIterator for $coll
        where
            $($bounds)*
        {
            type Iter = $name<$($lt,)? $($g),*>;
            type Item = $item;
            fn into_par_iter(self) -> Self::Iter {
                let $c = self;
                let gathered: Vec<$item> = $gather;
                $name { inner: gathered.into_par_iter() }
            }
        }

        via_inner_vec!([$($lt,)? $($g),*] $name<$($lt,)? $($g),*>, item $item, where [$($bounds)*]);
    };
}

via_vec!(
    /// The parallel iterator of `HashMap::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: std::collections::HashMap<i32, i32> = [(1, 2), (3, 4)].into();
    /// assert_eq!(m.into_par_iter().map(|(k, v)| k + v).sum::<i32>(), 10);
    /// ```
    HashMapIntoIter<K, V> [S], item (K, V), for HashMap<K, V, S>, where [K: Send, V: Send],
    |c| c.into_iter().collect()
);
via_vec!(
    /// The parallel iterator of `HashMap::par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: std::collections::HashMap<i32, i32> = [(1, 2), (3, 4)].into();
    /// assert_eq!(m.par_iter().map(|(k, v)| k + v).sum::<i32>(), 10);
    /// ```
    HashMapIter<'a, K, V> [S], item (&'a K, &'a V), for &'a HashMap<K, V, S>, where [K: Sync, V: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `HashMap::par_iter_mut`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: std::collections::HashMap<i32, i32> = [(1, 2)].into();
    /// m.par_iter_mut().for_each(|(_, v)| *v += 1);
    /// assert_eq!(m[&1], 3);
    /// ```
    HashMapIterMut<'a, K, V> [S], item (&'a K, &'a mut V), for &'a mut HashMap<K, V, S>, where [K: Sync, V: Send],
    |c| c.iter_mut().collect()
);
via_vec!(
    /// The parallel iterator of `HashSet::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: std::collections::HashSet<i32> = [1, 2].into();
    /// assert_eq!(s.into_par_iter().sum::<i32>(), 3);
    /// ```
    HashSetIntoIter<T> [S], item T, for HashSet<T, S>, where [T: Send],
    |c| c.into_iter().collect()
);
via_vec!(
    /// The parallel iterator of `HashSet::par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: std::collections::HashSet<i32> = [1, 2].into();
    /// assert_eq!(s.par_iter().sum::<i32>(), 3);
    /// ```
    HashSetIter<'a, T> [S], item &'a T, for &'a HashSet<T, S>, where [T: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `BTreeMap::into_par_iter` (in key order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: std::collections::BTreeMap<i32, char> = [(2, 'b'), (1, 'a')].into();
    /// assert_eq!(m.into_par_iter().map(|(_, c)| c).collect::<String>(), "ab");
    /// ```
    BTreeMapIntoIter<K, V>, item (K, V), for BTreeMap<K, V>, where [K: Send, V: Send],
    |c| c.into_iter().collect()
);
via_vec!(
    /// The parallel iterator of `BTreeMap::par_iter` (in key order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: std::collections::BTreeMap<i32, char> = [(2, 'b'), (1, 'a')].into();
    /// assert_eq!(m.par_iter().map(|(_, &c)| c).collect::<String>(), "ab");
    /// ```
    BTreeMapIter<'a, K, V>, item (&'a K, &'a V), for &'a BTreeMap<K, V>, where [K: Sync, V: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `BTreeMap::par_iter_mut` (in key order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: std::collections::BTreeMap<i32, i32> = [(1, 1)].into();
    /// m.par_iter_mut().for_each(|(_, v)| *v = 5);
    /// assert_eq!(m[&1], 5);
    /// ```
    BTreeMapIterMut<'a, K, V>, item (&'a K, &'a mut V), for &'a mut BTreeMap<K, V>, where [K: Sync, V: Send],
    |c| c.iter_mut().collect()
);
via_vec!(
    /// The parallel iterator of `BTreeSet::into_par_iter` (in order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: std::collections::BTreeSet<i32> = [2, 1].into();
    /// assert_eq!(s.into_par_iter().collect::<Vec<_>>(), [1, 2]);
    /// ```
    BTreeSetIntoIter<T>, item T, for BTreeSet<T>, where [T: Send],
    |c| c.into_iter().collect()
);
via_vec!(
    /// The parallel iterator of `BTreeSet::par_iter` (in order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: std::collections::BTreeSet<i32> = [2, 1].into();
    /// assert_eq!(s.par_iter().copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    BTreeSetIter<'a, T>, item &'a T, for &'a BTreeSet<T>, where [T: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `LinkedList::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let l: std::collections::LinkedList<i32> = [1, 2].into();
    /// assert_eq!(l.into_par_iter().collect::<Vec<_>>(), [1, 2]);
    /// ```
    LinkedListIntoIter<T>, item T, for LinkedList<T>, where [T: Send],
    |c| c.into_iter().collect()
);
via_vec!(
    /// The parallel iterator of `LinkedList::par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let l: std::collections::LinkedList<i32> = [1, 2].into();
    /// assert_eq!(l.par_iter().sum::<i32>(), 3);
    /// ```
    LinkedListIter<'a, T>, item &'a T, for &'a LinkedList<T>, where [T: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `LinkedList::par_iter_mut`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut l: std::collections::LinkedList<i32> = [1, 2].into();
    /// l.par_iter_mut().for_each(|x| *x *= 2);
    /// assert_eq!(l.into_iter().collect::<Vec<_>>(), [2, 4]);
    /// ```
    LinkedListIterMut<'a, T>, item &'a mut T, for &'a mut LinkedList<T>, where [T: Send],
    |c| c.iter_mut().collect()
);
via_vec!(
    /// The parallel iterator of `BinaryHeap::into_par_iter` (in no particular order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let h: std::collections::BinaryHeap<i32> = [1, 5].into();
    /// assert_eq!(h.into_par_iter().sum::<i32>(), 6);
    /// ```
    BinaryHeapIntoIter<T>, item T, for BinaryHeap<T>, where [T: Send],
    |c| c.into_vec()
);
via_vec!(
    /// The parallel iterator of `BinaryHeap::par_iter` (in no particular order).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let h: std::collections::BinaryHeap<i32> = [1, 5].into();
    /// assert_eq!(h.par_iter().max(), Some(&5));
    /// ```
    BinaryHeapIter<'a, T>, item &'a T, for &'a BinaryHeap<T>, where [T: Sync],
    |c| c.iter().collect()
);
via_vec!(
    /// The parallel iterator of `VecDeque::into_par_iter`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let d: std::collections::VecDeque<i32> = [1, 2].into();
    /// assert_eq!(d.into_par_iter().collect::<Vec<_>>(), [1, 2]);
    /// ```
    VecDequeIntoIter<T>, item T, for VecDeque<T>, where [T: Send],
    |c| Vec::from(c)
);

/// The parallel iterators of `VecDeque::par_iter` and `par_iter_mut`: its two slices, chained
/// (each its own type, as in rayon).
macro_rules! vec_deque_iter {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $slice_iter:ident, $item:ty, $src:ty, $slices:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "iterators are lazy"]
        pub struct $name<'a, T: $bound> {
            inner: Chain<crate::slice::$slice_iter<'a, T>, crate::slice::$slice_iter<'a, T>>,
        }

        impl<'a, T: $bound> IntoParallelIterator for $src {
            type Iter = $name<'a, T>;
            type Item = $item;
            fn into_par_iter(self) -> Self::Iter {
                let (front, back) = self.$slices();
                $name {
                    inner: front.into_par_iter().chain(back.into_par_iter()),
                }
            }
        }

        impl<'a, T: $bound> ParallelIterator for $name<'a, T> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                self.inner.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }

        impl<'a, T: $bound> IndexedParallelIterator for $name<'a, T> {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                self.inner.drive(consumer)
            }
            fn len(&self) -> usize {
                self.inner.len()
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                self.inner.with_producer(callback)
            }
        }
    };
}

vec_deque_iter!(
    /// The parallel iterator of `VecDeque::par_iter`: its two slices, chained.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let d: std::collections::VecDeque<i32> = [1, 2].into();
    /// let it: blitz_par::collections::vec_deque::Iter<'_, i32> = d.par_iter();
    /// assert_eq!(it.sum::<i32>(), 3);
    /// ```
    VecDequeIter, Sync, Iter, &'a T, &'a VecDeque<T>, as_slices
);

// As rayon's: a shared iterator can be cloned (the mutable one cannot).
impl<T: Sync> Clone for VecDequeIter<'_, T> {
    fn clone(&self) -> Self {
        VecDequeIter {
            inner: self.inner.clone(),
        }
    }
}

vec_deque_iter!(
    /// The parallel iterator of `VecDeque::par_iter_mut`: its two slices, chained.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut d: std::collections::VecDeque<i32> = [1, 2].into();
    /// let it: blitz_par::collections::vec_deque::IterMut<'_, i32> = d.par_iter_mut();
    /// it.for_each(|x| *x += 1);
    /// assert_eq!(d, [2, 3]);
    /// ```
    VecDequeIterMut, Send, IterMut, &'a mut T, &'a mut VecDeque<T>, as_mut_slices
);
