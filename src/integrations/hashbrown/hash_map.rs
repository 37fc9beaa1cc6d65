//! Parallel iterators of hashbrown's [`HashMap`], and its parallel methods
//! ([`ParallelHashMapExt`]): hashbrown's `hash_map::rayon` names.
//!
//! ```
//! use blitz_par::prelude::*;
//! use hashbrown::HashMap;
//!
//! let mut m: HashMap<u32, u64> = (0..1000u32).into_par_iter().map(|k| (k, 2 * k as u64)).collect();
//! m.par_values_mut().for_each(|v| *v += 1);
//! assert_eq!(m.par_iter().map(|(_, &v)| v).sum::<u64>(), 999 * 1000 + 1000);
//! assert_eq!(m.par_keys().max(), Some(&999));
//! ```

use super::super::extend_in_order;
use crate::iter::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, ParallelDrainFull,
    ParallelExtend, ParallelIterator, VecIntoIter,
};
use ::hashbrown::HashMap;
use std::hash::{BuildHasher, Hash};

delegating_iterator!(
    /// The parallel iterator of `&HashMap` (`par_iter`): `(&K, &V)` pairs.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<i32, i32> = [(1, 2), (3, 4)].into_iter().collect();
    /// let it: blitz_par::hashbrown::hash_map::ParIter<'_, i32, i32> = m.par_iter();
    /// assert_eq!(it.map(|(k, v)| k * v).sum::<i32>(), 14);
    /// ```
    ParIter<'a, K, V>, inner VecIntoIter<(&'a K, &'a V)>, item (&'a K, &'a V),
    where [K: Sync, V: Sync]
);

delegating_iterator!(
    /// The parallel iterator of `&mut HashMap` (`par_iter_mut`): `(&K, &mut V)` pairs.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: hashbrown::HashMap<i32, i32> = [(1, 2), (3, 4)].into_iter().collect();
    /// m.par_iter_mut().for_each(|(k, v)| *v *= k);
    /// assert_eq!(m[&3], 12);
    /// ```
    ParIterMut<'a, K, V>, inner VecIntoIter<(&'a K, &'a mut V)>, item (&'a K, &'a mut V),
    where [K: Sync, V: Send]
);

delegating_iterator!(
    /// The parallel iterator of `HashMap::into_par_iter`: `(K, V)` pairs.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<i32, String> = [(1, "a".to_string())].into_iter().collect();
    /// let v: Vec<(i32, String)> = m.into_par_iter().collect();
    /// assert_eq!(v, [(1, "a".to_string())]);
    /// ```
    IntoParIter<K, V>, inner VecIntoIter<(K, V)>, item (K, V), where [K: Send, V: Send]
);

delegating_iterator!(
    /// The parallel iterator of [`ParallelHashMapExt::par_keys`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<i32, ()> = [(1, ()), (2, ())].into_iter().collect();
    /// assert_eq!(m.par_keys().sum::<i32>(), 3);
    /// ```
    ParKeys<'a, K, V>, inner VecIntoIter<&'a K>, marker (&'a K, &'a V), item &'a K,
    where [K: Sync, V: Sync]
);

delegating_iterator!(
    /// The parallel iterator of [`ParallelHashMapExt::par_values`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<i32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// assert_eq!(m.par_values().sum::<i32>(), 11);
    /// ```
    ParValues<'a, K, V>, inner VecIntoIter<&'a V>, marker (&'a K, &'a V), item &'a V,
    where [K: Sync, V: Sync]
);

delegating_iterator!(
    /// The parallel iterator of [`ParallelHashMapExt::par_values_mut`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: hashbrown::HashMap<i32, i32> = [(1, 5)].into_iter().collect();
    /// m.par_values_mut().for_each(|v| *v = 0);
    /// assert_eq!(m[&1], 0);
    /// ```
    ParValuesMut<'a, K, V>, inner VecIntoIter<&'a mut V>, marker (&'a K, &'a mut V),
    item &'a mut V, where [K: Sync, V: Send]
);

delegating_iterator!(
    /// The parallel iterator of `HashMap::par_drain`: every `(K, V)` pair, leaving the map
    /// empty (with its capacity).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: hashbrown::HashMap<i32, i32> = [(1, 5), (2, 6)].into_iter().collect();
    /// assert_eq!(m.par_drain().map(|(k, v)| k * v).sum::<i32>(), 17);
    /// assert!(m.is_empty());
    /// ```
    ParDrain<'a, K, V>, inner VecIntoIter<(K, V)>, marker &'a mut (K, V), item (K, V),
    where [K: Send, V: Send]
);

impl<'a, K: Sync, V: Sync, S> IntoParallelIterator for &'a HashMap<K, V, S> {
    type Iter = ParIter<'a, K, V>;
    type Item = (&'a K, &'a V);
    fn into_par_iter(self) -> Self::Iter {
        ParIter {
            inner: self.iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, K: Sync, V: Send, S> IntoParallelIterator for &'a mut HashMap<K, V, S> {
    type Iter = ParIterMut<'a, K, V>;
    type Item = (&'a K, &'a mut V);
    fn into_par_iter(self) -> Self::Iter {
        ParIterMut {
            inner: self.iter_mut().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<K: Send, V: Send, S> IntoParallelIterator for HashMap<K, V, S> {
    type Iter = IntoParIter<K, V>;
    type Item = (K, V);
    fn into_par_iter(self) -> Self::Iter {
        IntoParIter {
            inner: self.into_iter().collect::<Vec<_>>().into_par_iter(),
        }
    }
}

impl<'a, K: Send, V: Send, S> ParallelDrainFull for &'a mut HashMap<K, V, S> {
    type Iter = ParDrain<'a, K, V>;
    type Item = (K, V);
    fn par_drain(self) -> Self::Iter {
        ParDrain {
            inner: self.drain().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }
}

/// hashbrown's parallel methods of [`HashMap`] (inherent methods there, with its `rayon`
/// feature), under the same names. In the prelude.
///
/// ```
/// use blitz_par::prelude::*;
/// use hashbrown::HashMap;
///
/// let a: HashMap<u32, u32> = (0..100).map(|k| (k, k * k)).collect();
/// let b: HashMap<u32, u32> = (0..100).rev().map(|k| (k, k * k)).collect();
/// assert!(a.par_eq(&b));
/// assert_eq!(a.par_keys().count(), 100);
/// assert_eq!(a.par_values().max(), Some(&9801));
/// ```
pub trait ParallelHashMapExt<K, V, S> {
    /// The keys, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<u8, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
    /// let mut keys: Vec<u8> = m.par_keys().copied().collect();
    /// keys.sort();
    /// assert_eq!(keys, [1, 2]);
    /// ```
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let m: hashbrown::HashMap<u8, u32> = [(1, 10), (2, 20)].into_iter().collect();
    /// assert_eq!(m.par_values().sum::<u32>(), 30);
    /// ```
    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync;

    /// The values, mutably, in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut m: hashbrown::HashMap<u8, u32> = [(1, 10), (2, 20)].into_iter().collect();
    /// m.par_values_mut().for_each(|v| *v += 1);
    /// assert_eq!((m[&1], m[&2]), (11, 21));
    /// ```
    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send;

    /// Whether both maps hold the same keys with equal values, checked in parallel.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let a: hashbrown::HashMap<u8, u32> = [(1, 10), (2, 20)].into_iter().collect();
    /// let mut b = a.clone();
    /// assert!(a.par_eq(&b));
    /// b.insert(2, 0);
    /// assert!(!a.par_eq(&b));
    /// ```
    fn par_eq(&self, other: &Self) -> bool
    where
        K: Eq + Hash + Sync,
        V: PartialEq + Sync,
        S: BuildHasher + Sync;
}

impl<K, V, S> ParallelHashMapExt<K, V, S> for HashMap<K, V, S> {
    fn par_keys(&self) -> ParKeys<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        ParKeys {
            inner: self.keys().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }

    fn par_values(&self) -> ParValues<'_, K, V>
    where
        K: Sync,
        V: Sync,
    {
        ParValues {
            inner: self.values().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }

    fn par_values_mut(&mut self) -> ParValuesMut<'_, K, V>
    where
        K: Send,
        V: Send,
    {
        ParValuesMut {
            inner: self.values_mut().collect::<Vec<_>>().into_par_iter(),
            marker: std::marker::PhantomData,
        }
    }

    fn par_eq(&self, other: &Self) -> bool
    where
        K: Eq + Hash + Sync,
        V: PartialEq + Sync,
        S: BuildHasher + Sync,
    {
        self.len() == other.len()
            && self
                .par_iter()
                .all(|(key, value)| other.get(key).is_some_and(|v| value == v))
    }
}

/// Makes room for `n` more pairs as hashbrown's `Extend` does: all of them in an empty map,
/// half of them otherwise (some keys may be there already).
fn reserve<K: Eq + Hash, V, S: BuildHasher>(map: &mut HashMap<K, V, S>, n: usize) {
    map.reserve(if map.is_empty() { n } else { n.div_ceil(2) });
}

impl<K, V, S> FromParallelIterator<(K, V)> for HashMap<K, V, S>
where
    K: Eq + Hash + Send,
    V: Send,
    S: BuildHasher + Default,
{
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = (K, V)>,
    {
        let mut map = HashMap::with_hasher(S::default());
        map.par_extend(par_iter);
        map
    }
}

impl<K, V, S> ParallelExtend<(K, V)> for HashMap<K, V, S>
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

impl<'a, K, V, S> ParallelExtend<(&'a K, &'a V)> for HashMap<K, V, S>
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
