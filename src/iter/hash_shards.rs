//! The hash-sharded kernels behind `counts`, the group maps, the grouping map and `unique`.
//!
//! Every key is hashed once with one `RandomState` shared by all threads, and a few bits of
//! the hash pick its shard (one of `S`, a power of two a few times the thread count). Keys of
//! different shards never meet, so each shard's table is built by one thread without locks,
//! and all shards are built at once. Two kernels:
//!
//! - [`by_key_in_order`]: every leaf deals its `(key, value)` pairs into per-shard vectors,
//!   in order; the leaves are collected in order, so shard `s` of leaf 0, then of leaf 1, ...
//!   hold shard `s`'s pairs in input order, and one task per shard folds them into its table
//!   with the user's step. The step sees each group's values in input order, as a sequential
//!   fold would: nothing needs to be associative (itertools' `fold`, `aggregate`, `collect`,
//!   and the group maps' `Vec`s in input order).
//! - [`by_key_associative`]: every leaf folds its pairs at once into per-shard tables (for
//!   few distinct keys the tables stay small and hot, and no pair is copied); one task per
//!   shard then merges shard `s` of every leaf, in leaf order, with the user's `combine`
//!   (sums, counts, extremes).
//!
//! Both end in [`Sharder::assemble`]: the shards' tables are moved into one std `HashMap` with
//! the same hasher, reserved once. That step is serial (one insertion per distinct key): std's
//! `HashMap` cannot be built from disjoint parts or written by several threads (PERF.md).
//!
//! No unsafe code: a panic in a user closure unwinds through owned vectors and tables, which
//! drop every item they hold exactly once.

use super::ParallelIterator;
use crate::iter::IntoParallelIterator;
use std::collections::hash_map::{Entry, HashMap, RandomState};
use std::hash::{BuildHasher, Hash};

/// The lowest bit of the hash that picks a shard. hashbrown (std's table) indexes its buckets
/// by the low bits of the hash and tags them with the top 7, so bits from 32 up (for tables
/// under 2^32 buckets) leave each shard's keys as spread over their table as any keys are.
const SHARD_SHIFT: u32 = 32;

/// Shards per thread: a few, so a thread with heavy shards (a Zipf key) is not the last.
const SHARDS_PER_THREAD: usize = 4;

/// At most this many shards: each leaf keeps one vector or table per shard.
const MAX_SHARDS: usize = 256;

/// The hasher and the shard count of one grouping.
pub(crate) struct Sharder {
    state: RandomState,
    bits: u32,
}

impl Sharder {
    /// One shard on one thread (nothing to deal out), else a few per thread.
    pub(crate) fn new() -> Self {
        let threads = crate::current_num_threads();
        let shards = if threads <= 1 {
            1
        } else {
            (threads * SHARDS_PER_THREAD)
                .next_power_of_two()
                .min(MAX_SHARDS)
        };
        Sharder {
            state: RandomState::new(),
            bits: shards.trailing_zeros(),
        }
    }

    /// The number of shards.
    pub(crate) fn shards(&self) -> usize {
        1 << self.bits
    }

    /// The shard of `key` (no hashing with one shard).
    pub(crate) fn shard_of<K: Hash + ?Sized>(&self, key: &K) -> usize {
        if self.bits == 0 {
            return 0;
        }
        (self.state.hash_one(key) >> SHARD_SHIFT) as usize & (self.shards() - 1)
    }

    /// An empty table with the grouping's hasher.
    pub(crate) fn table<K, A>(&self) -> HashMap<K, A> {
        HashMap::with_hasher(self.state.clone())
    }

    /// One `HashMap` from the shards' tables (whose keys are disjoint), leaving out the
    /// groups whose accumulator is `None` (an `aggregate` that dropped its group).
    pub(crate) fn assemble<K: Eq + Hash, A>(
        &self,
        shards: Vec<HashMap<K, Option<A>>>,
    ) -> HashMap<K, A> {
        let mut map = self.table();
        map.reserve(shards.iter().map(HashMap::len).sum());
        for shard in shards {
            map.extend(shard.into_iter().filter_map(|(k, a)| Some((k, a?))));
        }
        map
    }
}

/// Applies one step of a fold to the group of `key` in `table`.
fn step_into<K, V, A, F>(table: &mut HashMap<K, Option<A>>, key: K, value: V, step: &F)
where
    K: Eq + Hash,
    F: Fn(Option<A>, &K, V) -> Option<A>,
{
    match table.entry(key) {
        Entry::Occupied(mut e) => {
            let acc = e.get_mut().take();
            let next = step(acc, e.key(), value);
            *e.get_mut() = next;
        }
        Entry::Vacant(e) => {
            let next = step(None, e.key(), value);
            e.insert(next);
        }
    }
}

/// Moves shard `s` of every leaf, in leaf order, into one list per shard.
fn transpose<P>(leaves: Vec<Vec<P>>, shards: usize) -> Vec<Vec<P>> {
    let mut by_shard: Vec<Vec<P>> = (0..shards)
        .map(|_| Vec::with_capacity(leaves.len()))
        .collect();
    for leaf in leaves {
        for (parts, part) in by_shard.iter_mut().zip(leaf) {
            parts.push(part);
        }
    }
    by_shard
}

/// Groups the pairs by key and folds each group's values, in input order, with `step`
/// (itertools' `aggregate`: `None` drops the group's accumulator). See the module docs.
pub(crate) fn by_key_in_order<I, K, V, A, F>(iter: I, step: &F) -> HashMap<K, A>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    F: Fn(Option<A>, &K, V) -> Option<A> + Sync,
{
    let sharder = Sharder::new();
    let shards = sharder.shards();
    let leaves: Vec<Vec<Vec<(K, V)>>> = iter
        .fold(
            || (0..shards).map(|_| Vec::new()).collect::<Vec<_>>(),
            |mut parts: Vec<Vec<(K, V)>>, (key, value)| {
                parts[sharder.shard_of(&key)].push((key, value));
                parts
            },
        )
        .collect();
    let tables: Vec<HashMap<K, Option<A>>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            let mut table = sharder.table();
            for (key, value) in parts.into_iter().flatten() {
                step_into(&mut table, key, value, step);
            }
            table
        })
        .collect();
    sharder.assemble(tables)
}

/// Merges two tables of consecutive parts, `left` before `right`, into the larger one:
/// `combine(key, left's, right's)` for a key in both.
fn merge_in_order<K, A, C>(
    left: HashMap<K, Option<A>>,
    right: HashMap<K, Option<A>>,
    combine: &C,
) -> HashMap<K, Option<A>>
where
    K: Eq + Hash,
    C: Fn(&K, A, A) -> A,
{
    let both = |key: &K, l: Option<A>, r: Option<A>| match (l, r) {
        (Some(l), Some(r)) => Some(combine(key, l, r)),
        (l, None) => l,
        (None, r) => r,
    };
    if left.len() >= right.len() {
        let mut target = left;
        for (key, r) in right {
            match target.entry(key) {
                Entry::Occupied(mut e) => {
                    let l = e.get_mut().take();
                    let next = both(e.key(), l, r);
                    *e.get_mut() = next;
                }
                Entry::Vacant(e) => {
                    e.insert(r);
                }
            }
        }
        target
    } else {
        let mut target = right;
        for (key, l) in left {
            match target.entry(key) {
                Entry::Occupied(mut e) => {
                    let r = e.get_mut().take();
                    let next = both(e.key(), l, r);
                    *e.get_mut() = next;
                }
                Entry::Vacant(e) => {
                    e.insert(l);
                }
            }
        }
        target
    }
}

/// Groups the pairs by key and folds each group with `step` inside each leaf, then merges
/// the leaves' groups in order with `combine(key, earlier, later)`, which must be
/// associative with `step` (as `+` is for a sum). `step` never returns `None` here.
pub(crate) fn by_key_associative<I, K, V, A, F, C>(iter: I, step: &F, combine: &C) -> HashMap<K, A>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    F: Fn(Option<A>, &K, V) -> Option<A> + Sync,
    C: Fn(&K, A, A) -> A + Sync,
{
    let sharder = Sharder::new();
    let shards = sharder.shards();
    let leaves: Vec<Vec<HashMap<K, Option<A>>>> = iter
        .fold(
            || (0..shards).map(|_| sharder.table()).collect::<Vec<_>>(),
            |mut tables: Vec<HashMap<K, Option<A>>>, (key, value)| {
                let s = sharder.shard_of(&key);
                step_into(&mut tables[s], key, value, step);
                tables
            },
        )
        .collect();
    let tables: Vec<HashMap<K, Option<A>>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            parts
                .into_iter()
                .reduce(|l, r| merge_in_order(l, r, combine))
                .unwrap_or_else(|| sharder.table())
        })
        .collect();
    sharder.assemble(tables)
}

/// Which items are the first of their key: `keep[i]` for each `i` in `0..keys.len()`. The
/// positions are dealt into shards by their key's hash (in order, per leaf), and each shard
/// walks its positions in increasing order with a set of the keys seen.
pub(crate) fn first_of_each_key<K>(keys: &[K]) -> Vec<bool>
where
    K: Eq + Hash + Sync,
{
    let sharder = Sharder::new();
    let shards = sharder.shards();
    let leaves: Vec<Vec<Vec<usize>>> = (0..keys.len())
        .into_par_iter()
        .fold(
            || (0..shards).map(|_| Vec::new()).collect::<Vec<_>>(),
            |mut parts: Vec<Vec<usize>>, i| {
                parts[sharder.shard_of(&keys[i])].push(i);
                parts
            },
        )
        .collect();
    let firsts: Vec<Vec<usize>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            let mut seen = std::collections::HashSet::with_hasher(sharder.state.clone());
            parts
                .into_iter()
                .flatten()
                .filter(|&i| seen.insert(&keys[i]))
                .collect()
        })
        .collect();
    let mut keep = vec![false; keys.len()];
    // Scattering the kept positions is one store each, on the calling thread: cheaper than
    // any handing out of disjoint writes for the millions of distinct keys where it matters.
    for i in firsts.into_iter().flatten() {
        keep[i] = true;
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    #[test]
    fn in_order_keeps_each_groups_order() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let groups = pool.install(|| {
            by_key_in_order(
                (0..10_000u32).into_par_iter().map(|x| (x % 7, x)),
                &|acc: Option<Vec<u32>>, _: &u32, v| {
                    let mut acc = acc.unwrap_or_default();
                    acc.push(v);
                    Some(acc)
                },
            )
        });
        assert_eq!(groups.len(), 7);
        for (k, v) in groups {
            assert!(v.iter().all(|x| x % 7 == k));
            assert!(v.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(v.len(), (0..10_000).filter(|x| x % 7 == k).count());
        }
    }

    #[test]
    fn associative_merges_in_order() {
        let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let firsts = pool.install(|| {
            by_key_associative(
                (0..100_000u32).into_par_iter().map(|x| (x % 10, x)),
                &|acc: Option<u32>, _: &u32, v| Some(acc.unwrap_or(v)),
                &|_: &u32, l, _| l,
            )
        });
        assert_eq!(firsts, (0..10).map(|k| (k, k)).collect());
    }

    #[test]
    fn first_of_each_key_marks_first_positions() {
        let keys: Vec<u8> = (0..5000u32).map(|x| (x * 31 % 97) as u8).collect();
        let keep = first_of_each_key(&keys);
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<bool> = keys.iter().map(|k| seen.insert(*k)).collect();
        assert_eq!(keep, expected);
    }
}
