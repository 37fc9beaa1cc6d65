//! Parallel iterators of indexmap's [`IndexMap`] and its [`Slice`], and their parallel
//! methods and sorts ([`ParallelIndexMapExt`], [`ParallelMapSliceExt`]): indexmap's
//! `map::rayon` names. Every iterator is indexed and keeps the map's order.
//!
//! ```
//! use blitz_par::prelude::*;
//! use indexmap::IndexMap;
//!
//! let m: IndexMap<u32, char> = [(3, 'c'), (1, 'a'), (2, 'b')].into_iter().collect();
//! let keys: Vec<u32> = m.par_keys().copied().collect();
//! assert_eq!(keys, [3, 1, 2]);
//! let pairs: Vec<(usize, char)> = m.par_values().copied().enumerate().collect();
//! assert_eq!(pairs, [(0, 'c'), (1, 'a'), (2, 'b')]);
//! ```

use super::super::extend_in_order;
use super::{slice_iterator, sort_map_entries};
use crate::iter::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, ParallelDrainRange,
    ParallelExtend, ParallelIterator, VecIntoIter,
};
use crate::slice::ParallelSliceMut;
use ::indexmap::map::{Iter, IterMut, Keys, Slice, Values, ValuesMut};
use ::indexmap::IndexMap;
use std::cmp::Ordering;
use std::hash::{BuildHasher, Hash};
use std::ops::RangeBounds;

slice_iterator!(
    /// The parallel iterator of `&IndexMap` and `&Slice` (`par_iter`): `(&K, &V)` pairs, in
    /// order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<i32, i32> = [(2, 20), (1, 10)].into_iter().collect();
    /// let it: blitz_par::indexmap::map::ParIter<'_, i32, i32> = m.par_iter();
    /// assert_eq!(it.map(|(&k, _)| k).collect::<Vec<_>>(), [2, 1]);
    /// ```
    ParIter<'a, K, V>, IterProducer, slice &'a Slice<K, V>, split split_at,
    seq Iter<'a, K, V>, |s| s.iter(), item (&'a K, &'a V), where [K: Sync, V: Sync]
);

slice_iterator!(
    /// The parallel iterator of `&mut IndexMap` and `&mut Slice` (`par_iter_mut`):
    /// `(&K, &mut V)` pairs, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<i32, i32> = [(2, 20), (1, 10)].into_iter().collect();
    /// m.par_iter_mut().for_each(|(k, v)| *v += k);
    /// assert_eq!(m[&2], 22);
    /// ```
    ParIterMut<'a, K, V>, IterMutProducer, slice &'a mut Slice<K, V>, split split_at_mut,
    seq IterMut<'a, K, V>, |s| s.iter_mut(), item (&'a K, &'a mut V),
    where [K: Sync + Send, V: Send]
);

slice_iterator!(
    /// The parallel iterator of [`ParallelIndexMapExt::par_keys`]: the keys, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<i32, ()> = [(2, ()), (1, ())].into_iter().collect();
    /// assert_eq!(m.par_keys().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    ParKeys<'a, K, V>, KeysProducer, slice &'a Slice<K, V>, split split_at,
    seq Keys<'a, K, V>, |s| s.keys(), item &'a K, where [K: Sync, V: Sync]
);

slice_iterator!(
    /// The parallel iterator of [`ParallelIndexMapExt::par_values`]: the values, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<i32, char> = [(2, 'b'), (1, 'a')].into_iter().collect();
    /// assert_eq!(m.par_values().collect::<String>(), "ba");
    /// ```
    ParValues<'a, K, V>, ValuesProducer, slice &'a Slice<K, V>, split split_at,
    seq Values<'a, K, V>, |s| s.values(), item &'a V, where [K: Sync, V: Sync]
);

slice_iterator!(
    /// The parallel iterator of [`ParallelIndexMapExt::par_values_mut`]: the values,
    /// mutably, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<i32, i32> = [(2, 20), (1, 10)].into_iter().collect();
    /// m.par_values_mut().enumerate().for_each(|(i, v)| *v = i as i32);
    /// assert_eq!(m[&1], 1);
    /// ```
    ParValuesMut<'a, K, V>, ValuesMutProducer, slice &'a mut Slice<K, V>, split split_at_mut,
    seq ValuesMut<'a, K, V>, |s| s.values_mut(), item &'a mut V, where [K: Send, V: Send]
);

impl<K, V> Clone for ParIter<'_, K, V> {
    fn clone(&self) -> Self {
        ParIter { slice: self.slice }
    }
}

impl<K, V> Clone for ParKeys<'_, K, V> {
    fn clone(&self) -> Self {
        ParKeys { slice: self.slice }
    }
}

impl<K, V> Clone for ParValues<'_, K, V> {
    fn clone(&self) -> Self {
        ParValues { slice: self.slice }
    }
}

delegating_iterator!(
    /// The parallel iterator of `IndexMap::into_par_iter` (and of a boxed `Slice`, and of
    /// [`ParallelIndexMapExt::par_sorted_by`]): `(K, V)` pairs, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<i32, String> =
    ///     [(2, "b".to_string()), (1, "a".to_string())].into_iter().collect();
    /// let v: Vec<String> = m.into_par_iter().map(|(_, s)| s).collect();
    /// assert_eq!(v, ["b", "a"]);
    /// ```
    IntoParIter<K, V>, inner VecIntoIter<(K, V)>, item (K, V), where [K: Send, V: Send], indexed
);

delegating_iterator!(
    /// The parallel iterator of `IndexMap::par_drain(range)`: the pairs of `range`, in
    /// order; the map keeps the others.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<i32, i32> = (0..10).map(|i| (i, i)).collect();
    /// let drained: Vec<(i32, i32)> = m.par_drain(2..5).collect();
    /// assert_eq!(drained, [(2, 2), (3, 3), (4, 4)]);
    /// assert_eq!(m.len(), 7);
    /// ```
    ParDrain<'a, K, V>, inner VecIntoIter<(K, V)>, marker &'a mut (K, V), item (K, V),
    where [K: Send, V: Send], indexed
);

impl<'a, K: Sync, V: Sync, S> IntoParallelIterator for &'a IndexMap<K, V, S> {
    type Iter = ParIter<'a, K, V>;
    type Item = (&'a K, &'a V);
    fn into_par_iter(self) -> Self::Iter {
        ParIter {
            slice: self.as_slice(),
        }
    }
}

impl<'a, K: Sync, V: Sync> IntoParallelIterator for &'a Slice<K, V> {
    type Iter = ParIter<'a, K, V>;
    type Item = (&'a K, &'a V);
    fn into_par_iter(self) -> Self::Iter {
        ParIter { slice: self }
    }
}

impl<'a, K: Sync + Send, V: Send, S> IntoParallelIterator for &'a mut IndexMap<K, V, S> {
    type Iter = ParIterMut<'a, K, V>;
    type Item = (&'a K, &'a mut V);
    fn into_par_iter(self) -> Self::Iter {
        ParIterMut {
            slice: self.as_mut_slice(),
        }
    }
}

impl<'a, K: Sync + Send, V: Send> IntoParallelIterator for &'a mut Slice<K, V> {
    type Iter = ParIterMut<'a, K, V>;
    type Item = (&'a K, &'a mut V);
    fn into_par_iter(self) -> Self::Iter {
        ParIterMut { slice: self }
    }
}

impl<K: Send, V: Send, S> IntoParallelIterator for IndexMap<K, V, S> {
    type Iter = IntoParIter<K, V>;
    type Item = (K, V);
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<K: Send, V: Send> IntoParallelIterator for Box<Slice<K, V>> {
    type Iter = IntoParIter<K, V>;
    type Item = (K, V);
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, K: Send, V: Send, S> ParallelDrainRange<usize> for &'a mut IndexMap<K, V, S> {
    type Iter = ParDrain<'a, K, V>;
    type Item = (K, V);
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        ParDrain {
            inner: self.drain(range).collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }
}

/// indexmap's parallel methods of [`IndexMap`] (inherent methods there, with its `rayon`
/// feature), under the same names. In the prelude.
///
/// ```
/// use blitz_par::prelude::*;
/// use indexmap::IndexMap;
///
/// let mut m: IndexMap<u32, &str> = [(3, "c"), (1, "a"), (2, "b")].into_iter().collect();
/// m.par_sort_keys();
/// assert_eq!(m.par_values().copied().collect::<Vec<_>>(), ["a", "b", "c"]);
/// ```
pub trait ParallelIndexMapExt<K, V, S> {
    /// The keys, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, ()> = [(5, ()), (4, ())].into_iter().collect();
    /// assert_eq!(m.par_keys().copied().collect::<Vec<_>>(), [5, 4]);
    /// ```
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, u8> = [(5, 50), (4, 40)].into_iter().collect();
    /// assert_eq!(m.par_values().copied().collect::<Vec<_>>(), [50, 40]);
    /// ```
    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, mutably, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(5, 50), (4, 40)].into_iter().collect();
    /// m.par_values_mut().for_each(|v| *v /= 10);
    /// assert_eq!(m[&4], 4);
    /// ```
    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send;

    /// Whether both maps hold the same keys with equal values, in any order, checked in
    /// parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: indexmap::IndexMap<u8, u8> = [(1, 10), (2, 20)].into_iter().collect();
    /// let b: indexmap::IndexMap<u8, u8> = [(2, 20), (1, 10)].into_iter().collect();
    /// assert!(a.par_eq(&b));
    /// ```
    fn par_eq<V2, S2>(&self, other: &IndexMap<K, V2, S2>) -> bool
    where
        K: Hash + Eq + Sync,
        V: PartialEq<V2> + Sync,
        V2: Sync,
        S: BuildHasher,
        S2: BuildHasher + Sync;

    /// Sorts the entries by key, stably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(2, 0), (1, 0)].into_iter().collect();
    /// m.par_sort_keys();
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [1, 2]);
    /// assert_eq!(m.get_index_of(&2), Some(1));
    /// ```
    fn par_sort_keys(&mut self)
    where
        K: Ord + Hash + Send,
        V: Send,
        S: BuildHasher;

    /// Sorts the entries with `cmp` (given both entries' key and value), stably, in
    /// parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(1, 20), (2, 10)].into_iter().collect();
    /// m.par_sort_by(|_, v1, _, v2| v1.cmp(v2));
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, cmp: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync;

    /// Sorts the entries with `cmp`, stably, in parallel, and returns them as a parallel
    /// iterator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, u8> = [(1, 20), (2, 10)].into_iter().collect();
    /// let v: Vec<(u8, u8)> = m.par_sorted_by(|_, v1, _, v2| v1.cmp(v2)).collect();
    /// assert_eq!(v, [(2, 10), (1, 20)]);
    /// ```
    fn par_sorted_by<F>(self, cmp: F) -> IntoParIter<K, V>
    where
        K: Send,
        V: Send,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync;

    /// Sorts the entries by the key `sort_key` gives, stably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, i8> = [(1, 5), (2, -7)].into_iter().collect();
    /// m.par_sort_by_key(|_, v| v.abs());
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    fn par_sort_by_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord,
        F: Fn(&K, &V) -> T + Sync;

    /// Sorts the entries by key, in parallel; equal keys cannot occur, so this is as good as
    /// [`par_sort_keys`](Self::par_sort_keys).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(2, 0), (1, 0)].into_iter().collect();
    /// m.par_sort_unstable_keys();
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    fn par_sort_unstable_keys(&mut self)
    where
        K: Ord + Hash + Send,
        V: Send,
        S: BuildHasher;

    /// Sorts the entries with `cmp`, in parallel, perhaps reordering equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(1, 20), (2, 10)].into_iter().collect();
    /// m.par_sort_unstable_by(|_, v1, _, v2| v1.cmp(v2));
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, cmp: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync;

    /// Sorts the entries with `cmp`, in parallel, perhaps reordering equal ones, and returns
    /// them as a parallel iterator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, u8> = [(1, 20), (2, 10)].into_iter().collect();
    /// let v: Vec<u8> = m.par_sorted_unstable_by(|k1, _, k2, _| k2.cmp(k1)).map(|(k, _)| k).collect();
    /// assert_eq!(v, [2, 1]);
    /// ```
    fn par_sorted_unstable_by<F>(self, cmp: F) -> IntoParIter<K, V>
    where
        K: Send,
        V: Send,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync;

    /// Sorts the entries by the key `sort_key` gives, in parallel, perhaps reordering equal
    /// ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, i8> = [(1, 5), (2, -7)].into_iter().collect();
    /// m.par_sort_unstable_by_key(|_, v| *v);
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_unstable_by_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord,
        F: Fn(&K, &V) -> T + Sync;

    /// Sorts the entries by the key `sort_key` gives, computed once per entry, stably, in
    /// parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, &str> = [(1, "ccc"), (2, "a")].into_iter().collect();
    /// m.par_sort_by_cached_key(|_, v| v.len());
    /// assert_eq!(m.keys().copied().collect::<Vec<_>>(), [2, 1]);
    /// ```
    fn par_sort_by_cached_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord + Send,
        F: Fn(&K, &V) -> T + Sync;
}

impl<K, V, S> ParallelIndexMapExt<K, V, S> for IndexMap<K, V, S> {
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        self.as_slice().par_keys()
    }

    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        self.as_slice().par_values()
    }

    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send,
    {
        self.as_mut_slice().par_values_mut()
    }

    fn par_eq<V2, S2>(&self, other: &IndexMap<K, V2, S2>) -> bool
    where
        K: Hash + Eq + Sync,
        V: PartialEq<V2> + Sync,
        V2: Sync,
        S: BuildHasher,
        S2: BuildHasher + Sync,
    {
        self.len() == other.len()
            && self
                .par_iter()
                .all(move |(key, value)| other.get(key).is_some_and(|v| *value == *v))
    }

    fn par_sort_keys(&mut self)
    where
        K: Ord + Hash + Send,
        V: Send,
        S: BuildHasher,
    {
        sort_map_entries(self, |entries| entries.par_sort_by(|a, b| a.0.cmp(&b.0)));
    }

    fn par_sort_by<F>(&mut self, cmp: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_by(|a, b| cmp(&a.0, &a.1, &b.0, &b.1))
        });
    }

    fn par_sorted_by<F>(self, cmp: F) -> IntoParIter<K, V>
    where
        K: Send,
        V: Send,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync,
    {
        let mut entries: Vec<(K, V)> = self.into_iter().collect();
        entries.par_sort_by(|a, b| cmp(&a.0, &a.1, &b.0, &b.1));
        IntoParIter {
            inner: entries.into_par_iter(),
        }
    }

    fn par_sort_by_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord,
        F: Fn(&K, &V) -> T + Sync,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_by_key(|entry| sort_key(&entry.0, &entry.1))
        });
    }

    fn par_sort_unstable_keys(&mut self)
    where
        K: Ord + Hash + Send,
        V: Send,
        S: BuildHasher,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_unstable_by(|a, b| a.0.cmp(&b.0))
        });
    }

    fn par_sort_unstable_by<F>(&mut self, cmp: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_unstable_by(|a, b| cmp(&a.0, &a.1, &b.0, &b.1))
        });
    }

    fn par_sorted_unstable_by<F>(self, cmp: F) -> IntoParIter<K, V>
    where
        K: Send,
        V: Send,
        F: Fn(&K, &V, &K, &V) -> Ordering + Sync,
    {
        let mut entries: Vec<(K, V)> = self.into_iter().collect();
        entries.par_sort_unstable_by(|a, b| cmp(&a.0, &a.1, &b.0, &b.1));
        IntoParIter {
            inner: entries.into_par_iter(),
        }
    }

    fn par_sort_unstable_by_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord,
        F: Fn(&K, &V) -> T + Sync,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_unstable_by_key(|entry| sort_key(&entry.0, &entry.1))
        });
    }

    fn par_sort_by_cached_key<T, F>(&mut self, sort_key: F)
    where
        K: Hash + Eq + Send,
        V: Send,
        S: BuildHasher,
        T: Ord + Send,
        F: Fn(&K, &V) -> T + Sync,
    {
        sort_map_entries(self, |entries| {
            entries.par_sort_by_cached_key(|entry| sort_key(&entry.0, &entry.1))
        });
    }
}

/// indexmap's parallel methods of a map [`Slice`], under the same names. In the prelude.
///
/// ```
/// use blitz_par::prelude::*;
/// let m: indexmap::IndexMap<u8, u8> = (0..10).map(|i| (i, i * i)).collect();
/// let tail = m.get_range(5..).unwrap();
/// assert_eq!(tail.par_keys().copied().collect::<Vec<_>>(), [5, 6, 7, 8, 9]);
/// assert_eq!(tail.par_values().copied().max(), Some(81));
/// ```
pub trait ParallelMapSliceExt<K, V> {
    /// The keys, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, ()> = [(5, ()), (4, ())].into_iter().collect();
    /// assert_eq!(m.as_slice().par_keys().count(), 2);
    /// ```
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: indexmap::IndexMap<u8, u8> = [(5, 50), (4, 40)].into_iter().collect();
    /// assert_eq!(m.as_slice().par_values().sum::<u8>(), 90);
    /// ```
    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, mutably, in parallel and in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: indexmap::IndexMap<u8, u8> = [(5, 50), (4, 40)].into_iter().collect();
    /// m.as_mut_slice().par_values_mut().for_each(|v| *v = 0);
    /// assert_eq!(m[&5], 0);
    /// ```
    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send;
}

impl<K, V> ParallelMapSliceExt<K, V> for Slice<K, V> {
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        ParKeys { slice: self }
    }

    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        ParValues { slice: self }
    }

    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send,
    {
        ParValuesMut { slice: self }
    }
}

/// Makes room for `n` more pairs as indexmap's `Extend` does.
fn reserve<K: Hash + Eq, V, S: BuildHasher>(map: &mut IndexMap<K, V, S>, n: usize) {
    map.reserve(if map.is_empty() { n } else { n.div_ceil(2) });
}

impl<K, V, S> FromParallelIterator<(K, V)> for IndexMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Default,
{
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = (K, V)>,
    {
        let mut map = IndexMap::with_hasher(S::default());
        map.par_extend(par_iter);
        map
    }
}

impl<K, V, S> ParallelExtend<(K, V)> for IndexMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher,
{
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = (K, V)>,
    {
        extend_in_order(self, par_iter, reserve);
    }
}

impl<'a, K, V, S> ParallelExtend<(&'a K, &'a V)> for IndexMap<K, V, S>
where
    K: Copy + Eq + Hash + Sync,
    V: Copy + Sync,
    S: BuildHasher,
{
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = (&'a K, &'a V)>,
    {
        extend_in_order(self, par_iter, reserve);
    }
}
