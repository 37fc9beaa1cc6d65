//! Counting and extremes of parallel iterators, with itertools' names: `counts`,
//! `counts_by`, `histogram` (counts by a bucket index) and `minmax` (+ `_by`, `_by_key`).
//!
//! All are consumers over the one driver: every leaf folds its items into a local table (a
//! `Vec` of bucket counts, a `MinMaxResult`), and the tables meet in the driver's reduction
//! tree. `counts` runs on the hash-sharded kernel of `hash_shards` instead: each leaf's
//! counts are cut by hash into shards, and the shards are added up in parallel.

use super::ParallelIterator;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroUsize;

/// The smallest and the largest item of an iterator, as itertools' `MinMaxResult`: what
/// [`ParallelIterator::minmax`] and its `_by` / `_by_key` forms return.
///
/// ```
/// use blitz_par::iter::MinMaxResult;
/// use blitz_par::prelude::*;
/// assert_eq!((0..0).into_par_iter().minmax(), MinMaxResult::NoElements);
/// assert_eq!((3..4).into_par_iter().minmax(), MinMaxResult::OneElement(3));
/// assert_eq!((3..9).into_par_iter().minmax(), MinMaxResult::MinMax(3, 8));
/// assert_eq!((3..9).into_par_iter().minmax().into_option(), Some((3, 8)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMaxResult<T> {
    /// The iterator was empty.
    NoElements,
    /// The iterator had one item, both the smallest and the largest.
    OneElement(T),
    /// The smallest (the first of the smallest) and the largest (the last of the largest)
    /// of two or more items.
    MinMax(T, T),
}

impl<T: Clone> MinMaxResult<T> {
    /// `None` for no items, else `Some((min, max))`, cloning a single item (itertools'
    /// `into_option`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// assert_eq!(MinMaxResult::OneElement(4).into_option(), Some((4, 4)));
    /// assert_eq!(MinMaxResult::<u8>::NoElements.into_option(), None);
    /// ```
    pub fn into_option(self) -> Option<(T, T)> {
        match self {
            MinMaxResult::NoElements => None,
            MinMaxResult::OneElement(x) => Some((x.clone(), x)),
            MinMaxResult::MinMax(min, max) => Some((min, max)),
        }
    }
}

/// Combines the results of two consecutive parts, `left` before `right`: the first of the
/// smallest (the right's only if strictly less) and the last of the largest (the right's if
/// not less), so the grouping of the parts does not change the answer.
pub(super) fn combine<T>(
    left: MinMaxResult<T>,
    right: MinMaxResult<T>,
    less: &impl Fn(&T, &T) -> bool,
) -> MinMaxResult<T> {
    use MinMaxResult::*;
    match (left, right) {
        (NoElements, r) => r,
        (l, NoElements) => l,
        (OneElement(x), OneElement(y)) => {
            if less(&y, &x) {
                MinMax(y, x)
            } else {
                MinMax(x, y)
            }
        }
        (OneElement(x), MinMax(a, b)) => {
            if !less(&a, &x) {
                MinMax(x, b)
            } else if less(&b, &x) {
                MinMax(a, x)
            } else {
                MinMax(a, b)
            }
        }
        (MinMax(a, b), OneElement(y)) => {
            if less(&y, &a) {
                MinMax(y, b)
            } else if !less(&y, &b) {
                MinMax(a, y)
            } else {
                MinMax(a, b)
            }
        }
        (MinMax(a, b), MinMax(c, d)) => {
            let min = if less(&c, &a) { c } else { a };
            let max = if less(&d, &b) { b } else { d };
            MinMax(min, max)
        }
    }
}

pub(super) fn minmax_by<I, F>(iter: I, compare: &F) -> MinMaxResult<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync,
{
    let less = |a: &I::Item, b: &I::Item| compare(a, b) == Ordering::Less;
    iter.fold(
        || MinMaxResult::NoElements,
        |acc, x| combine(acc, MinMaxResult::OneElement(x), &less),
    )
    .reduce(|| MinMaxResult::NoElements, |l, r| combine(l, r, &less))
}

pub(super) fn minmax_by_key<I, K, F>(iter: I, key: &F) -> MinMaxResult<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync,
{
    // Each key computed once, carried beside its item.
    let keyed = minmax_by(
        iter.map(|x| (key(&x), x)),
        &|a: &(K, I::Item), b: &(K, I::Item)| a.0.cmp(&b.0),
    );
    match keyed {
        MinMaxResult::NoElements => MinMaxResult::NoElements,
        MinMaxResult::OneElement((_, x)) => MinMaxResult::OneElement(x),
        MinMaxResult::MinMax((_, a), (_, b)) => MinMaxResult::MinMax(a, b),
    }
}

/// Counts on the hash-sharded kernel: each leaf counts into a table of its own, dealt into
/// shards when the leaf ends, and one task per shard adds up that shard's parts (see
/// `hash_shards`).
///
/// The tables count in `NonZeroUsize` (a group exists once it has an item), whose `Option`
/// is a word where `Option<usize>`'s is two: a third smaller entry for a `u64` key, and
/// more of a table in the caches on every probe.
pub(super) fn counts<I>(iter: I) -> HashMap<I::Item, usize>
where
    I: ParallelIterator,
    I::Item: Eq + Hash + Send,
{
    super::hash_shards::by_key_associative_into(
        iter.map(|x| (x, ())),
        &|acc: Option<NonZeroUsize>, _, ()| {
            Some(acc.map_or(NonZeroUsize::MIN, |n| n.saturating_add(1)))
        },
        &|_, a, b| a.saturating_add(b.get()),
        &NonZeroUsize::get,
    )
}

pub(super) fn histogram<I, F>(iter: I, buckets: usize, bucket: &F) -> Vec<usize>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> usize + Sync,
{
    // One check per item, against the length the loop keeps in a register: with a second
    // check against `buckets`, which the count's store could alias, LLVM reloaded `buckets`
    // through the closure and spilled `b` for the panic message on every item.
    let count = move |mut counts: Vec<usize>, x| {
        let b = bucket(x);
        match counts.get_mut(b) {
            Some(n) => *n += 1,
            None => bucket_out_of_range(b, buckets),
        }
        counts
    };
    iter.fold(|| vec![0; buckets], count).reduce(
        || vec![0; buckets],
        |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        },
    )
}

#[cold]
#[inline(never)]
fn bucket_out_of_range(b: usize, buckets: usize) -> ! {
    panic!("bucket {b} out of range 0..{buckets}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every grouping of a sequence into parts gives itertools' answer (first min, last max).
    #[test]
    fn combine_keeps_first_min_and_last_max() {
        let items = [(2, 'a'), (1, 'b'), (3, 'c'), (1, 'd'), (3, 'e'), (2, 'f')];
        let less = |a: &(i32, char), b: &(i32, char)| a.0 < b.0;
        for split in 0..=items.len() {
            for inner in 0..=split {
                let fold = |part: &[(i32, char)]| {
                    part.iter().fold(MinMaxResult::NoElements, |acc, &x| {
                        combine(acc, MinMaxResult::OneElement(x), &less)
                    })
                };
                let parts = [
                    fold(&items[..inner]),
                    fold(&items[inner..split]),
                    fold(&items[split..]),
                ];
                let [a, b, c] = parts;
                let got = combine(combine(a, b, &less), c, &less);
                assert_eq!(got, MinMaxResult::MinMax((1, 'b'), (3, 'e')));
            }
        }
    }
}
