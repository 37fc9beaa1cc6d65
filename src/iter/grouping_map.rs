//! [`GroupingMap`]: itertools' group-and-fold builder on a parallel iterator of `(key, value)`
//! pairs, with the group maps (`into_group_map*`) and `unique*` beside it.
//!
//! All run on the hash-sharded kernels of `hash_shards`: the order-sensitive methods
//! (`aggregate`, `fold`, `fold_with`, `reduce`, `collect`, the group maps) fold each group in
//! input order exactly as itertools does; the others (`sum`, `product`, the extremes) fold
//! inside each leaf and merge the leaves in order, with itertools' ties.

use super::hash_shards::{self, by_key_associative, by_key_in_order};
use super::{IndexedParallelIterator, IntoParallelIterator, MinMaxResult, ParallelIterator};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::Hash;
use std::ops::{Add, Mul};

/// A parallel group-and-fold builder over `(key, value)` pairs, as itertools' `GroupingMap`:
/// made by [`ParallelIterator::into_grouping_map`] and
/// [`into_grouping_map_by`](ParallelIterator::into_grouping_map_by); each method groups
/// the values by key and folds every group, returning a `HashMap` from key to result.
///
/// Differences from itertools, all owed to running on several threads: the closures are
/// `Fn + Sync` (not `FnMut`), and the accumulators and values are `Send`. `fold` and
/// `aggregate` see each group's values in input order, as itertools' do. `sum`, `product`,
/// `min*`, `max*` and `minmax*` fold parts of a group on different threads and combine the
/// parts in order, so `+` and `*` must be associative (floating-point sums may round
/// differently from a sequential sum); the ties are itertools' (first minimum, last maximum).
/// Of equal keys, which one the map keeps is unspecified.
///
/// ```
/// use blitz_par::prelude::*;
/// let words = ["apple", "bob", "cat", "avocado", "banana"];
/// let longest = words
///     .par_iter()
///     .into_grouping_map_by(|w| w.as_bytes()[0])
///     .max_by_key(|_, w| w.len());
/// assert_eq!(longest[&b'a'], &"avocado");
/// assert_eq!(longest[&b'b'], &"banana");
/// ```
#[must_use = "a GroupingMap does nothing until one of its methods runs"]
#[derive(Clone, Debug)]
pub struct GroupingMap<I> {
    iter: I,
}

impl<I> GroupingMap<I> {
    pub(super) fn new(iter: I) -> Self {
        GroupingMap { iter }
    }
}

impl<I, K, V> GroupingMap<I>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
{
    /// The general group fold: `operation(acc, key, value)` runs on each value of a group in
    /// input order, `acc` being the group's accumulator (`None` at its first value, or after
    /// `operation` returned `None`); groups whose last result is `None` are left out.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (1..=10u32)
    ///     .into_par_iter()
    ///     .into_grouping_map_by(|x| x % 3)
    ///     // The sum of each group, dropped while it is above 10.
    ///     .aggregate(|acc, _, v| match acc.unwrap_or(0) + v {
    ///         s if s > 10 => None,
    ///         s => Some(s),
    ///     });
    /// assert_eq!(r.get(&0), None); // 3 + 6 = 9, + 9 = 18 dropped
    /// assert_eq!(r[&1], 10); // 1 + 4 = 5, + 7 = 12 dropped, then 10
    /// ```
    pub fn aggregate<FO, R>(self, operation: FO) -> HashMap<K, R>
    where
        FO: Fn(Option<R>, &K, V) -> Option<R> + Sync + Send,
        R: Send,
    {
        by_key_in_order(self.iter, &operation)
    }

    /// Folds each group in input order from a clone of `init` (itertools' `fold`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let digits = (0..100u32)
    ///     .into_par_iter()
    ///     .into_grouping_map_by(|x| x % 10)
    ///     .fold(String::new(), |mut s, _, v| {
    ///         s.push_str(&(v / 10).to_string());
    ///         s
    ///     });
    /// assert_eq!(digits[&7], "0123456789");
    /// ```
    pub fn fold<FO, R>(self, init: R, operation: FO) -> HashMap<K, R>
    where
        R: Clone + Send + Sync,
        FO: Fn(R, &K, V) -> R + Sync + Send,
    {
        self.aggregate(|acc, key, value| {
            Some(operation(acc.unwrap_or_else(|| init.clone()), key, value))
        })
    }

    /// Folds each group in input order from `init(key, first value)` (itertools'
    /// `fold_with`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (0..20u32)
    ///     .into_par_iter()
    ///     .into_grouping_map_by(|x| x % 2)
    ///     .fold_with(|&key, _| key * 1000, |acc, _, v| acc + v);
    /// assert_eq!(r[&1], 1000 + 100);
    /// ```
    pub fn fold_with<FI, FO, R>(self, init: FI, operation: FO) -> HashMap<K, R>
    where
        FI: Fn(&K, &V) -> R + Sync + Send,
        FO: Fn(R, &K, V) -> R + Sync + Send,
        R: Send,
    {
        self.aggregate(|acc, key, value| {
            let acc = acc.unwrap_or_else(|| init(key, &value));
            Some(operation(acc, key, value))
        })
    }

    /// Folds each group from its first value, in input order (itertools' `reduce`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (1..=6u32)
    ///     .into_par_iter()
    ///     .into_grouping_map_by(|x| x % 2)
    ///     .reduce(|acc, _, v| acc * 10 + v);
    /// assert_eq!((r[&1], r[&0]), (135, 246));
    /// ```
    pub fn reduce<FO>(self, operation: FO) -> HashMap<K, V>
    where
        FO: Fn(V, &K, V) -> V + Sync + Send,
    {
        self.aggregate(|acc, key, value| {
            Some(match acc {
                None => value,
                Some(acc) => operation(acc, key, value),
            })
        })
    }

    /// Collects each group's values, in input order, into a new `C` (itertools' `collect`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use std::collections::BTreeSet;
    /// let r = [3, 1, 3, 2, 1]
    ///     .par_iter()
    ///     .map(|&x| (x % 2, x))
    ///     .into_grouping_map()
    ///     .collect::<BTreeSet<_>>();
    /// assert_eq!(r[&1], BTreeSet::from([1, 3]));
    /// ```
    pub fn collect<C>(self) -> HashMap<K, C>
    where
        C: Default + Extend<V> + Send,
    {
        hash_shards::by_key_in_order_in_place(self.iter, &C::default, &|acc: &mut C, value| {
            acc.extend(Some(value))
        })
    }

    /// Folds with an associative `step`, merging parts of a group with `combine`.
    fn associative<F, C>(self, step: F, combine: C) -> HashMap<K, V>
    where
        F: Fn(V, &K, V) -> V + Sync,
        C: Fn(&K, V, V) -> V + Sync,
    {
        by_key_associative(
            self.iter,
            &|acc, key, value| {
                Some(match acc {
                    None => value,
                    Some(acc) => step(acc, key, value),
                })
            },
            &combine,
        )
    }

    /// The largest value of each group, the last of equal ones (itertools' `max`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (0..100u32).into_par_iter().into_grouping_map_by(|x| x % 3).max();
    /// assert_eq!((r[&0], r[&1], r[&2]), (99, 97, 98));
    /// ```
    pub fn max(self) -> HashMap<K, V>
    where
        V: Ord,
    {
        self.max_by(|_, a, b| a.cmp(b))
    }

    /// The largest value of each group by `compare(key, a, b)`, the last of equal ones
    /// (itertools' `max_by`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = [(1, 'a'), (1, 'b'), (2, 'c')]
    ///     .par_iter()
    ///     .copied()
    ///     .into_grouping_map()
    ///     .max_by(|_, _, _| std::cmp::Ordering::Equal);
    /// assert_eq!(r[&1], 'b');
    /// ```
    pub fn max_by<F>(self, compare: F) -> HashMap<K, V>
    where
        F: Fn(&K, &V, &V) -> Ordering + Sync + Send,
    {
        let later_unless_less = |key: &K, a: V, b: V| match compare(key, &a, &b) {
            Ordering::Greater => a,
            _ => b,
        };
        self.associative(|a, key, b| later_unless_less(key, a, b), later_unless_less)
    }

    /// The value with the largest `key_of(key, value)` in each group, the last of equal ones
    /// (itertools' `max_by_key`). The key is computed at each comparison.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = ["ab", "c", "de"]
    ///     .par_iter()
    ///     .into_grouping_map_by(|_| 0)
    ///     .max_by_key(|_, w| w.len());
    /// assert_eq!(r[&0], &"de");
    /// ```
    pub fn max_by_key<F, CK>(self, key_of: F) -> HashMap<K, V>
    where
        F: Fn(&K, &V) -> CK + Sync + Send,
        CK: Ord,
    {
        self.max_by(|key, a, b| key_of(key, a).cmp(&key_of(key, b)))
    }

    /// The smallest value of each group, the first of equal ones (itertools' `min`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (0..100u32).into_par_iter().into_grouping_map_by(|x| x % 3).min();
    /// assert_eq!((r[&0], r[&1], r[&2]), (0, 1, 2));
    /// ```
    pub fn min(self) -> HashMap<K, V>
    where
        V: Ord,
    {
        self.min_by(|_, a, b| a.cmp(b))
    }

    /// The smallest value of each group by `compare(key, a, b)`, the first of equal ones
    /// (itertools' `min_by`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = [(1, 'a'), (1, 'b'), (2, 'c')]
    ///     .par_iter()
    ///     .copied()
    ///     .into_grouping_map()
    ///     .min_by(|_, _, _| std::cmp::Ordering::Equal);
    /// assert_eq!(r[&1], 'a');
    /// ```
    pub fn min_by<F>(self, compare: F) -> HashMap<K, V>
    where
        F: Fn(&K, &V, &V) -> Ordering + Sync + Send,
    {
        let earlier_unless_greater = |key: &K, a: V, b: V| match compare(key, &a, &b) {
            Ordering::Greater => b,
            _ => a,
        };
        self.associative(
            |a, key, b| earlier_unless_greater(key, a, b),
            earlier_unless_greater,
        )
    }

    /// The value with the smallest `key_of(key, value)` in each group, the first of equal
    /// ones (itertools' `min_by_key`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = ["ab", "c", "d"]
    ///     .par_iter()
    ///     .into_grouping_map_by(|_| 0)
    ///     .min_by_key(|_, w| w.len());
    /// assert_eq!(r[&0], &"c");
    /// ```
    pub fn min_by_key<F, CK>(self, key_of: F) -> HashMap<K, V>
    where
        F: Fn(&K, &V) -> CK + Sync + Send,
        CK: Ord,
    {
        self.min_by(|key, a, b| key_of(key, a).cmp(&key_of(key, b)))
    }

    /// The smallest and the largest value of each group, with itertools' shape and ties
    /// (itertools' `minmax`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let r = [(0, 5), (1, 2), (0, 1), (0, 9)]
    ///     .par_iter()
    ///     .copied()
    ///     .into_grouping_map()
    ///     .minmax();
    /// assert_eq!(r[&0], MinMaxResult::MinMax(1, 9));
    /// assert_eq!(r[&1], MinMaxResult::OneElement(2));
    /// ```
    pub fn minmax(self) -> HashMap<K, MinMaxResult<V>>
    where
        V: Ord,
    {
        self.minmax_by(|_, a, b| a.cmp(b))
    }

    /// As [`minmax`](Self::minmax), ordered by `compare(key, a, b)` (itertools'
    /// `minmax_by`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let r = [(0, 'a'), (0, 'b'), (0, 'c')]
    ///     .par_iter()
    ///     .copied()
    ///     .into_grouping_map()
    ///     .minmax_by(|_, _, _| std::cmp::Ordering::Equal);
    /// assert_eq!(r[&0], MinMaxResult::MinMax('a', 'c'));
    /// ```
    pub fn minmax_by<F>(self, compare: F) -> HashMap<K, MinMaxResult<V>>
    where
        F: Fn(&K, &V, &V) -> Ordering + Sync + Send,
    {
        let combine = |key: &K, l: MinMaxResult<V>, r: MinMaxResult<V>| {
            super::grouping::combine(l, r, &|a: &V, b: &V| compare(key, a, b) == Ordering::Less)
        };
        by_key_associative(
            self.iter,
            &|acc: Option<MinMaxResult<V>>, key, value| {
                let acc = acc.unwrap_or(MinMaxResult::NoElements);
                Some(combine(key, acc, MinMaxResult::OneElement(value)))
            },
            &combine,
        )
    }

    /// As [`minmax`](Self::minmax), ordered by `key_of(key, value)` (itertools'
    /// `minmax_by_key`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let r = ["bb", "a", "ccc", "d"]
    ///     .par_iter()
    ///     .into_grouping_map_by(|_| ())
    ///     .minmax_by_key(|_, w| w.len());
    /// assert_eq!(r[&()], MinMaxResult::MinMax(&"a", &"ccc"));
    /// ```
    pub fn minmax_by_key<F, CK>(self, key_of: F) -> HashMap<K, MinMaxResult<V>>
    where
        F: Fn(&K, &V) -> CK + Sync + Send,
        CK: Ord,
    {
        self.minmax_by(|key, a, b| key_of(key, a).cmp(&key_of(key, b)))
    }

    /// The sum of each group's values (itertools' `sum`); `+` must be associative.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (0..10u64).into_par_iter().into_grouping_map_by(|x| x % 2).sum();
    /// assert_eq!((r[&0], r[&1]), (20, 25));
    /// ```
    pub fn sum(self) -> HashMap<K, V>
    where
        V: Add<V, Output = V>,
    {
        self.associative(|a, _, b| a + b, |_, a, b| a + b)
    }

    /// The product of each group's values (itertools' `product`); `*` must be associative.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (1..=6u64).into_par_iter().into_grouping_map_by(|x| x % 2).product();
    /// assert_eq!((r[&0], r[&1]), (48, 15));
    /// ```
    pub fn product(self) -> HashMap<K, V>
    where
        V: Mul<V, Output = V>,
    {
        self.associative(|a, _, b| a * b, |_, a, b| a * b)
    }
}

/// The items grouped by key, each group's values in input order.
pub(super) fn into_group_map<I, K, V>(iter: I) -> HashMap<K, Vec<V>>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
{
    GroupingMap::new(iter).collect()
}

/// `unique_by`: the first item of each key, in input order. The items and their keys are
/// collected in order (two vectors, in parallel), the first position of each key found by
/// [`hash_shards::first_of_each_key`], and the kept items filtered out in parallel.
pub(super) fn unique_by<I, K, F>(iter: I, key: &F) -> crate::vec::IntoIter<I::Item>
where
    I: ParallelIterator,
    I::Item: Send,
    K: Eq + Hash + Send + Sync,
    F: Fn(&I::Item) -> K + Sync,
{
    let (keys, items): (Vec<K>, Vec<I::Item>) = iter.map(|item| (key(&item), item)).unzip();
    let keep = hash_shards::first_of_each_key(&keys);
    drop(keys);
    kept(items, keep)
}

/// `unique`: the items are their own keys, so no key is computed or stored.
pub(super) fn unique<I>(iter: I) -> crate::vec::IntoIter<I::Item>
where
    I: ParallelIterator,
    I::Item: Eq + Hash + Send + Sync,
{
    let items: Vec<I::Item> = iter.collect();
    let keep = hash_shards::first_of_each_key(&items);
    kept(items, keep)
}

/// The items whose `keep` is true, in order, filtered in parallel.
fn kept<T: Send>(items: Vec<T>, keep: Vec<bool>) -> crate::vec::IntoIter<T> {
    let kept: Vec<T> = items
        .into_par_iter()
        .zip(keep)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect();
    kept.into_par_iter()
}
