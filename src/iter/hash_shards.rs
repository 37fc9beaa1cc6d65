//! The hash-sharded kernels behind `counts`, the group maps, the grouping map and `unique`.
//!
//! Every key is hashed with one fast hasher (foldhash, seeded at random) shared by all
//! threads, and a few bits of the hash pick its shard (one of `S`, a power of two a few times
//! the thread count). Keys of different shards never meet, so each shard's table is built by
//! one thread without locks, and all shards are built at once. Two kernels:
//!
//! - [`by_key_in_order`]: every leaf deals its `(key, value)` pairs into per-shard vectors,
//!   in order; the leaves are collected in order, so shard `s` of leaf 0, then of leaf 1, ...
//!   hold shard `s`'s pairs in input order, and one task per shard folds them into its table
//!   with the user's step. The step sees each group's values in input order, as a sequential
//!   fold would: nothing needs to be associative (itertools' `fold`, `aggregate`, `collect`,
//!   and the group maps' `Vec`s in input order).
//! - [`by_key_associative`]: every leaf folds its pairs at once into one table of its own
//!   (for few distinct keys the table stays small and hot, no pair is copied, and no key is
//!   hashed twice), dealt into shards when the leaf ends. A leaf whose table holds more than
//!   one group per two items (many distinct keys: each would be inserted twice, into the
//!   leaf's table and again into its shard's) deals the rest of its pairs instead, as the
//!   in-order kernel does. One task per shard then merges shard `s` of every leaf, in leaf
//!   order (the leaf's groups with the user's `combine`, then its dealt pairs with `step`):
//!   sums, counts, extremes.
//! - [`first_of_each_key`] (`unique`): every leaf hashes its keys in order and deals
//!   `(hash, position)` into shards, sized so that each shard's set fits in a core's L2
//!   cache; the sets compare the carried hashes before the keys.
//!
//! Both end in [`Sharder::assemble`]: the shards' tables are moved into one std `HashMap`
//! (std's `RandomState`, the type the methods return), reserved once. That step is serial
//! (one insertion per distinct key): std's `HashMap` cannot be built from disjoint parts or
//! written by several threads (PERF.md). For many groups the shards first hash their keys
//! with the result's hasher and sort them by bucket, in parallel, so that the insertions
//! write the table in order instead of at random ([`extend_in_bucket_order`]).
//!
//! No unsafe code: a panic in a user closure unwinds through owned vectors and tables, which
//! drop every item they hold exactly once.

use super::ParallelIterator;
use crate::iter::IntoParallelIterator;
use std::collections::hash_map::{Entry, HashMap};
use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

/// The hasher of the inner tables and of the shard choice: a few multiplies per `u64`, where
/// SipHash (std's) is tens of instructions; seeded at random per grouping, so an input cannot
/// be chosen to collide.
type Fast = foldhash::fast::RandomState;

/// An inner table: a shard's or a leaf's groups.
type Table<K, A, H = Fast> = HashMap<K, A, H>;

/// One shard of one leaf of [`by_key_associative`]: its groups, then its dealt pairs.
type LeafShard<K, V, A> = (LeafGroups<K, A>, Vec<(K, V)>);

/// The groups of one shard of one leaf of [`by_key_associative`].
enum LeafGroups<K, A> {
    /// The leaf's whole table, where there is one shard: it can become the shard's table.
    Table(Table<K, Option<A>>),
    /// The groups of this shard, dealt out of the leaf's table when the leaf ended.
    List(Vec<(K, Option<A>)>),
}

/// The lowest bit of the hash that picks a shard. hashbrown (std's table) indexes its buckets
/// by the low bits of the hash and tags them with the top 7, so bits from 32 up (for tables
/// under 2^32 buckets) leave each shard's keys as spread over their table as any keys are.
const SHARD_SHIFT: u32 = 32;

/// Shards per thread: a few, so a thread with heavy shards (a Zipf key) is not the last.
const SHARDS_PER_THREAD: usize = 4;

/// At most this many shards: each leaf keeps one vector or table per shard.
const MAX_SHARDS: usize = 256;

/// [`Sharder::for_sets_of`]: about this many keys per shard.
const ITEMS_PER_SET_SHARD: usize = 1 << 16;

/// A leaf of [`by_key_associative`] first looks at its tables after this many items, then
/// at each power of two: below it a leaf keeps its tables whatever their size (a table of a
/// few thousand groups is cheap to merge), and a leaf of thousands of items over about as
/// many keys (a 1,000-key count) is not mistaken for one of all-distinct keys.
const DEAL_CHECK_FIRST: usize = 4096;

/// The hasher and the shard count of one grouping.
pub(crate) struct Sharder {
    state: Fast,
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
            state: Fast::default(),
            bits: shards.trailing_zeros(),
        }
    }

    /// A sharder for `items` keys that a set will be built from, shard by shard: enough
    /// shards that each one's set (`&K` entries, a few per item) fits in a core's L2 cache,
    /// where one random probe per key then costs an L2 hit, not a trip to memory.
    fn for_sets_of(items: usize) -> Self {
        let mut sharder = Sharder::new();
        if sharder.bits > 0 {
            let wanted = (items / ITEMS_PER_SET_SHARD)
                .next_power_of_two()
                .clamp(sharder.shards(), MAX_SHARDS);
            sharder.bits = wanted.trailing_zeros();
        }
        sharder
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

    /// An empty inner table with the grouping's hasher.
    fn table<K, A>(&self) -> Table<K, A> {
        HashMap::with_hasher(self.state.clone())
    }

    /// One std `HashMap` from the shards' tables (whose keys are disjoint), leaving out the
    /// groups whose accumulator is `None` (an `aggregate` that dropped its group). Sized
    /// once for all the groups: it never grows.
    ///
    /// The insertions are serial (see the module docs); for a table larger than the caches
    /// they are made in the order of the buckets they land in ([`extend_in_bucket_order`]).
    /// Each accumulator goes into the map as `finish` makes it.
    fn assemble<K, A, B, F>(&self, shards: Vec<Table<K, Option<A>>>, finish: &F) -> HashMap<K, B>
    where
        K: Eq + Hash + Send,
        A: Send,
        B: Send,
        F: Fn(A) -> B + Sync,
    {
        let groups = shards.iter().map(HashMap::len).sum();
        let mut map = HashMap::with_capacity(groups);
        if groups < BUCKET_ORDER_MIN || self.bits == 0 {
            for shard in shards {
                map.extend(shard.into_iter().filter_map(|(k, a)| Some((k, finish(a?)))));
            }
            return map;
        }
        extend_in_bucket_order(&mut map, shards, finish);
        map
    }
}

/// At least this many groups before [`Sharder::assemble`] orders its insertions by bucket:
/// below it the returned table fits in a core's caches, and a random order costs little.
const BUCKET_ORDER_MIN: usize = 1 << 16;

/// [`extend_in_bucket_order`] sorts the entries into this many ranges of buckets (a few
/// pages of the table each).
const BUCKET_RANGES_LOG: u32 = 12;

/// One shard's groups sorted by their range of buckets, each with its range, and the number
/// of groups in each range.
type RangeSorted<K, A> = (Vec<(u32, (K, A))>, Vec<u32>);

/// Inserts the groups of `shards` (keys distinct from each other and from `map`'s, which has
/// room for them all; `None` groups left out) into `map` in the order of the buckets it
/// first probes for them, so that the serial insertions write the table from one end to the
/// other instead of at random: one range of a few pages at a time, not a cache miss or two
/// per key.
///
/// std's table (hashbrown) probes first at `hash & (buckets - 1)`, with a power-of-two
/// number of buckets of which it fills at most 7/8, which `capacity` gives back. Only the
/// speed depends on that: distinct keys in any order build the same map. Each shard, in
/// parallel, hashes its keys with the map's own hasher and sorts them by range; the
/// insertions then take range 0 of every shard, range 1, and so on (they hash each key
/// again: std's table takes no hash from outside).
fn extend_in_bucket_order<K, A, B, S, FH, F>(
    map: &mut HashMap<K, B, S>,
    shards: Vec<Table<K, Option<A>, FH>>,
    finish: &F,
) where
    K: Eq + Hash + Send,
    A: Send,
    B: Send,
    S: BuildHasher + Sync,
    FH: Send,
    F: Fn(A) -> B + Sync,
{
    let buckets = (map.capacity() / 7 * 8).max(1).next_power_of_two();
    let shift = buckets.trailing_zeros().saturating_sub(BUCKET_RANGES_LOG);
    let ranges = (buckets >> shift).max(1);
    let hasher = map.hasher();
    // Per shard: its groups sorted by range, and how many fall in each range.
    let sorted: Vec<RangeSorted<K, B>> = shards
        .into_par_iter()
        .map(|shard| {
            let mut groups = Vec::with_capacity(shard.len());
            groups.extend(shard.into_iter().filter_map(|(k, a)| {
                let range = (hasher.hash_one(&k) as usize & (buckets - 1)) >> shift;
                Some((range as u32, (k, finish(a?))))
            }));
            groups.sort_unstable_by_key(|&(range, _)| range);
            let mut counts = vec![0u32; ranges];
            for &(range, _) in &groups {
                counts[range as usize] += 1;
            }
            (groups, counts)
        })
        .collect();
    let (groups, counts): (Vec<_>, Vec<_>) = sorted.into_iter().unzip();
    let mut groups: Vec<_> = groups.into_iter().map(Vec::into_iter).collect();
    for range in 0..ranges {
        for (shard, counts) in groups.iter_mut().zip(&counts) {
            let n = counts[range] as usize;
            map.extend(shard.by_ref().take(n).map(|(_, group)| group));
        }
    }
}

/// Applies one step of a fold to the group of `key` in `table`.
#[inline(always)]
fn step_into<K, V, A, F>(table: &mut Table<K, Option<A>>, key: K, value: V, step: &F)
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
    by_key_in_order_with(iter, &|table: &mut Table<K, Option<A>>, key, value| {
        step_into(table, key, value, step)
    })
}

/// [`by_key_in_order`] for a step that adds each value to its group's accumulator in place
/// (`collect`'s `extend`, the group maps' push), made by `init` for a group's first value:
/// the accumulator stays in its table slot, where a step by value moved it out and back
/// for every item.
pub(crate) fn by_key_in_order_in_place<I, K, V, A, N, F>(
    iter: I,
    init: &N,
    add: &F,
) -> HashMap<K, A>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    N: Fn() -> A + Sync,
    F: Fn(&mut A, V) + Sync,
{
    by_key_in_order_with(iter, &|table: &mut Table<K, Option<A>>, key, value| {
        add(
            table.entry(key).or_insert(None).get_or_insert_with(init),
            value,
        )
    })
}

/// [`by_key_in_order`], each pair put into its shard's table by `apply`.
fn by_key_in_order_with<I, K, V, A, G>(iter: I, apply: &G) -> HashMap<K, A>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    G: Fn(&mut Table<K, Option<A>>, K, V) + Sync,
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
    let tables: Vec<Table<K, Option<A>>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            let mut table = sharder.table();
            for (key, value) in parts.into_iter().flatten() {
                apply(&mut table, key, value);
            }
            table
        })
        .collect();
    sharder.assemble(tables, &|a| a)
}

/// Merges two tables of consecutive parts, `left` before `right`, into the larger one:
/// `combine(key, left's, right's)` for a key in both.
fn merge_in_order<K, A, C>(
    left: Table<K, Option<A>>,
    right: Table<K, Option<A>>,
    combine: &C,
) -> Table<K, Option<A>>
where
    K: Eq + Hash,
    C: Fn(&K, A, A) -> A,
{
    if left.len() >= right.len() {
        merge_into(left, right, combine, false)
    } else {
        merge_into(right, left, combine, true)
    }
}

/// Merges the groups of `source` into `target`, the parts of `source` coming after all of
/// `target`'s (or before them, if `source_first`): `combine(key, earlier, later)` for a key
/// in both.
fn merge_into<K, A, C>(
    mut target: Table<K, Option<A>>,
    source: impl IntoIterator<Item = (K, Option<A>)>,
    combine: &C,
    source_first: bool,
) -> Table<K, Option<A>>
where
    K: Eq + Hash,
    C: Fn(&K, A, A) -> A,
{
    for (key, from_source) in source {
        match target.entry(key) {
            Entry::Occupied(mut e) => {
                let in_target = e.get_mut().take();
                let (earlier, later) = if source_first {
                    (from_source, in_target)
                } else {
                    (in_target, from_source)
                };
                let next = match (earlier, later) {
                    (Some(l), Some(r)) => Some(combine(e.key(), l, r)),
                    (l, None) => l,
                    (None, r) => r,
                };
                *e.get_mut() = next;
            }
            Entry::Vacant(e) => {
                e.insert(from_source);
            }
        }
    }
    target
}

/// One leaf of [`by_key_associative`]: the groups folded in its table mode (one table for
/// all shards), then, per shard, the pairs dealt after it switched to dealing (all of them
/// after its table).
///
/// One table, not one per shard: a table per shard cost every item a second hash (std's
/// table takes none from outside) and a pick of its table, a quarter of a 1,000-key count
/// on one thread (PERF.md). The table is dealt into shards once, when the leaf ends, at
/// one hash per group instead of per item (a table leaf has at most one group per two
/// items).
struct Leaf<K, V, A> {
    table: Table<K, Option<A>>,
    pairs: Vec<Vec<(K, V)>>,
    /// Items folded into the table.
    items: usize,
    dealing: bool,
}

impl<K: Eq + Hash, V, A> Leaf<K, V, A> {
    fn new(sharder: &Sharder) -> Self {
        Leaf {
            table: sharder.table(),
            pairs: Vec::new(),
            items: 0,
            dealing: false,
        }
    }

    /// Folds `(key, value)` into the table, or deals it; after `first_check` items and at
    /// each power of two beyond, a leaf with more than one group per two items turns to
    /// dealing for good.
    ///
    /// Out of line, with the table step inlined into it: inlined into the fold's loop or
    /// not was LLVM's choice per binary, and the same count over `&u64` keys took 21 ms in
    /// one bench binary and 28 to 44 ms in another built from an unrelated change (PERF.md).
    /// The call costs an item a few instructions, the same in every binary.
    #[inline(never)]
    fn push<F>(&mut self, sharder: &Sharder, key: K, value: V, step: &F, first_check: usize)
    where
        F: Fn(Option<A>, &K, V) -> Option<A>,
    {
        if self.dealing {
            self.pairs[sharder.shard_of(&key)].push((key, value));
            return;
        }
        step_into(&mut self.table, key, value, step);
        self.items += 1;
        if self.items >= first_check && self.items.is_power_of_two() {
            self.check(sharder);
        }
    }

    /// Turns to dealing if the table holds more than one group per two items.
    #[cold]
    #[inline(never)]
    fn check(&mut self, sharder: &Sharder) {
        if self.table.len() * 2 > self.items {
            self.dealing = true;
            self.pairs = (0..sharder.shards()).map(|_| Vec::new()).collect();
        }
    }

    /// The leaf's shards: each one's groups and dealt pairs.
    fn into_shards(self, sharder: &Sharder) -> Vec<LeafShard<K, V, A>> {
        let shards = sharder.shards();
        let mut pairs = self.pairs;
        pairs.resize_with(shards, Vec::new);
        if shards == 1 {
            return vec![(
                LeafGroups::Table(self.table),
                pairs.pop().unwrap_or_default(),
            )];
        }
        let each = self.table.len() / shards * 5 / 4 + 1;
        let mut lists: Vec<Vec<(K, Option<A>)>> =
            (0..shards).map(|_| Vec::with_capacity(each)).collect();
        for (key, group) in self.table {
            lists[sharder.shard_of(&key)].push((key, group));
        }
        lists.into_iter().map(LeafGroups::List).zip(pairs).collect()
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
    by_key_associative_checking(iter, step, combine, &|a| a, DEAL_CHECK_FIRST)
}

/// [`by_key_associative`], each group's accumulator put into the result as `finish` makes
/// it: the tables may hold a smaller type than the result's (`counts`' `NonZeroUsize`, whose
/// `Option` has no tag to store).
pub(crate) fn by_key_associative_into<I, K, V, A, B, F, C, G>(
    iter: I,
    step: &F,
    combine: &C,
    finish: &G,
) -> HashMap<K, B>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    B: Send,
    F: Fn(Option<A>, &K, V) -> Option<A> + Sync,
    C: Fn(&K, A, A) -> A + Sync,
    G: Fn(A) -> B + Sync,
{
    by_key_associative_checking(iter, step, combine, finish, DEAL_CHECK_FIRST)
}

/// [`by_key_associative`], the leaves first checking their tables after `first_check` items
/// (tests take both sides of the switch to dealing).
fn by_key_associative_checking<I, K, V, A, B, F, C, G>(
    iter: I,
    step: &F,
    combine: &C,
    finish: &G,
    first_check: usize,
) -> HashMap<K, B>
where
    I: ParallelIterator<Item = (K, V)>,
    K: Eq + Hash + Send,
    V: Send,
    A: Send,
    B: Send,
    F: Fn(Option<A>, &K, V) -> Option<A> + Sync,
    C: Fn(&K, A, A) -> A + Sync,
    G: Fn(A) -> B + Sync,
{
    let sharder = Sharder::new();
    let shards = sharder.shards();
    // Boxed: the fold moves its accumulator into and out of the step on every item, and a
    // `Leaf` moved by value (72 bytes then) was written by the step and read back at once by
    // the loop in wider loads than its stores, a store-forwarding stall on every item.
    let leaves: Vec<Vec<LeafShard<K, V, A>>> = iter
        .fold(
            || Box::new(Leaf::new(&sharder)),
            |mut leaf, (key, value)| {
                leaf.push(&sharder, key, value, step, first_check);
                leaf
            },
        )
        .map(|leaf| leaf.into_shards(&sharder))
        .collect();
    let tables: Vec<Table<K, Option<A>>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            let mut shard = sharder.table();
            for (groups, pairs) in parts {
                shard = match groups {
                    LeafGroups::Table(table) => merge_in_order(shard, table, combine),
                    LeafGroups::List(list) => merge_into(shard, list, combine, false),
                };
                for (key, value) in pairs {
                    step_into(&mut shard, key, value, step);
                }
            }
            shard
        })
        .collect();
    sharder.assemble(tables, finish)
}

/// A key in a set of [`first_of_each_key`], with its hash computed once, where the key was
/// read in order: the set hashes it by that hash ([`PassThrough`]) and compares the hashes
/// before the keys, so only a key equal in hash (a duplicate, in practice) is read again.
struct Hashed<'a, K> {
    hash: u64,
    key: &'a K,
}

impl<K: Eq> PartialEq for Hashed<'_, K> {
    fn eq(&self, other: &Self) -> bool {
        // The key through `black_box`: without it LLVM read the new key before the set's
        // probe loop, on every insertion (a reference may be read early), which is the very
        // cache miss that carrying the hash avoids. Only the speed depends on it.
        self.hash == other.hash && *std::hint::black_box(self.key) == *other.key
    }
}

impl<K: Eq> Eq for Hashed<'_, K> {}

impl<K> Hash for Hashed<'_, K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// The hasher of a set of [`Hashed`] keys: the hash they carry, as it is.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is called (by `Hashed`); any other input still hashes correctly.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Which items are the first of their key: `keep[i]` for each `i` in `0..keys.len()`. Each
/// leaf reads its keys in order, hashes each once, and deals `(hash, position)` into shards
/// by the hash; each shard walks its positions in increasing order with a set of the keys
/// seen. The sets never read a key to hash it (a key read by position in a shard's walk was
/// a cache miss on every item over an input larger than the caches), and read one again
/// only to confirm a duplicate.
pub(crate) fn first_of_each_key<K>(keys: &[K]) -> Vec<bool>
where
    K: Eq + Hash + Sync,
{
    let sharder = Sharder::for_sets_of(keys.len());
    let shards = sharder.shards();
    if shards == 1 {
        // One thread: the set in one pass, without dealing out positions.
        let mut seen = HashSet::with_hasher(sharder.state.clone());
        return keys.iter().map(|key| seen.insert(key)).collect();
    }
    let mask = shards - 1;
    let leaves: Vec<Vec<Vec<(u64, usize)>>> = (0..keys.len())
        .into_par_iter()
        .fold(
            || Box::new((0..shards).map(|_| Vec::new()).collect::<Vec<_>>()),
            |mut parts: Box<Vec<Vec<(u64, usize)>>>, i| {
                let hash = sharder.state.hash_one(&keys[i]);
                parts[(hash >> SHARD_SHIFT) as usize & mask].push((hash, i));
                parts
            },
        )
        .map(|parts| *parts)
        .collect();
    let firsts: Vec<Vec<usize>> = transpose(leaves, shards)
        .into_par_iter()
        .map(|parts| {
            // Room for every position: the set never grows (a fifth of the time went to
            // growing it), at the price of room for the duplicates too.
            let positions = parts.iter().map(Vec::len).sum();
            let mut seen: HashSet<Hashed<'_, K>, BuildHasherDefault<PassThrough>> =
                HashSet::with_capacity_and_hasher(positions, Default::default());
            parts
                .into_iter()
                .flatten()
                .filter(|&(hash, i)| {
                    seen.insert(Hashed {
                        hash,
                        key: &keys[i],
                    })
                })
                .map(|(_, i)| i)
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

    /// A leaf turns to dealing at its first check with more than one group per two items,
    /// and keeps its tables with fewer.
    #[test]
    fn leaf_switches_to_dealing_only_over_many_groups() {
        // One shard (the leaf's table handed on whole) and several (its groups dealt out).
        for threads in [1, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let sharder = pool.install(Sharder::new);
            let step = |acc: Option<u32>, _: &u32, v: u32| Some(acc.unwrap_or(0) + v);
            let mut distinct = Leaf::new(&sharder);
            let mut few = Leaf::new(&sharder);
            for x in 0..64u32 {
                distinct.push(&sharder, x, 1, &step, 16);
                few.push(&sharder, x % 8, 1, &step, 16);
                // The first check is at 16 items.
                assert_eq!(distinct.dealing, x >= 15);
            }
            assert!(!few.dealing);
            let groups = |groups: &LeafGroups<u32, u32>| match groups {
                LeafGroups::Table(table) => table.iter().map(|(&k, &a)| (k, a)).collect(),
                LeafGroups::List(list) => list.clone(),
            };
            let shards = distinct.into_shards(&sharder);
            assert_eq!(shards.len(), sharder.shards());
            let mut tabled = Vec::new();
            let mut dealt = Vec::new();
            for (s, (g, pairs)) in shards.iter().enumerate() {
                for (k, a) in groups(g) {
                    assert_eq!(sharder.shard_of(&k), s);
                    tabled.push((k, a));
                }
                for &(k, v) in pairs {
                    assert_eq!(sharder.shard_of(&k), s);
                    dealt.push((k, v));
                }
            }
            tabled.sort_unstable();
            dealt.sort_unstable();
            assert_eq!(tabled, (0..16).map(|k| (k, Some(1))).collect::<Vec<_>>());
            assert_eq!(dealt, (16..64).map(|k| (k, 1)).collect::<Vec<_>>());
            let few: usize = few
                .into_shards(&sharder)
                .iter()
                .map(|(g, pairs)| groups(g).len() + pairs.len())
                .sum();
            assert_eq!(few, 8);
        }
    }

    /// Tables, dealing from the first item, and a switch midway all give the sequential
    /// answer, with the earlier of equal values kept by `step` and `combine` alike.
    #[test]
    fn associative_agrees_on_both_sides_of_the_switch() {
        let n = 60_000u32;
        for threads in [1, 2, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for modulus in [7, 5_000, n] {
                for first_check in [1, 64, usize::MAX] {
                    let (firsts, counts) = pool.install(|| {
                        let firsts = by_key_associative_checking(
                            (0..n).into_par_iter().map(|x| (x * 7919 % modulus, x)),
                            &|acc: Option<u32>, _: &u32, v| Some(acc.unwrap_or(v)),
                            &|_: &u32, l, _| l,
                            &|a| a,
                            first_check,
                        );
                        let counts = by_key_associative_checking(
                            (0..n).into_par_iter().map(|x| (x * 7919 % modulus, ())),
                            &|acc: Option<usize>, _: &u32, ()| Some(acc.unwrap_or(0) + 1),
                            &|_: &u32, l, r| l + r,
                            &|a| a,
                            first_check,
                        );
                        (firsts, counts)
                    });
                    let mut want_firsts = std::collections::HashMap::new();
                    let mut want_counts = std::collections::HashMap::new();
                    for x in 0..n {
                        want_firsts.entry(x * 7919 % modulus).or_insert(x);
                        *want_counts.entry(x * 7919 % modulus).or_insert(0) += 1;
                    }
                    assert_eq!(firsts, want_firsts, "{threads} {modulus} {first_check}");
                    assert_eq!(counts, want_counts, "{threads} {modulus} {first_check}");
                }
            }
        }
    }

    /// Over `BUCKET_ORDER_MIN` groups the result is inserted in bucket order: the same map,
    /// on one thread (one shard, the plain path) and on several.
    #[test]
    fn many_groups_assemble_in_bucket_order() {
        let n = 400_000u64;
        let modulus = 3 * BUCKET_ORDER_MIN as u64 + 1;
        let mut want = std::collections::HashMap::new();
        for x in 0..n {
            *want.entry(x * 7919 % modulus).or_insert(0usize) += 1;
        }
        assert!(want.len() > BUCKET_ORDER_MIN);
        for threads in [1, 2, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let counts = pool.install(|| {
                by_key_associative(
                    (0..n).into_par_iter().map(|x| (x * 7919 % modulus, ())),
                    &|acc: Option<usize>, _: &u64, ()| Some(acc.unwrap_or(0) + 1),
                    &|_: &u64, l, r| l + r,
                )
            });
            assert_eq!(counts, want, "{threads} threads");
        }
    }

    /// Any hasher, a map that already holds keys, groups dropped (`None`), and a few keys
    /// or none, over one shard or several.
    #[test]
    fn extend_in_bucket_order_inserts_every_group() {
        type Hasher = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
        for n in [0u32, 1, 7, 1000, 70_000] {
            for parts in [1, 3] {
                let mut shards: Vec<Table<u32, Option<u32>, Hasher>> =
                    (0..parts).map(|_| HashMap::default()).collect();
                for k in 0..n {
                    let group = (k % 5 != 0).then_some(k * 2);
                    shards[k as usize % parts].insert(k, group);
                }
                let mut map: HashMap<u32, u32, Hasher> = HashMap::default();
                map.insert(u32::MAX, 0);
                map.reserve(n as usize);
                extend_in_bucket_order(&mut map, shards, &|a| a);
                let kept = (0..n).filter(|k| k % 5 != 0);
                assert_eq!(map.len(), kept.clone().count() + 1, "{n} {parts}");
                assert!(kept.into_iter().all(|k| map[&k] == k * 2));
                assert_eq!(map[&u32::MAX], 0);
            }
        }
    }

    #[test]
    fn first_of_each_key_marks_first_positions() {
        let keys: Vec<u8> = (0..5000u32).map(|x| (x * 31 % 97) as u8).collect();
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<bool> = keys.iter().map(|k| seen.insert(*k)).collect();
        // One thread takes the one-pass path, several the dealt positions.
        for threads in [1, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| first_of_each_key(&keys)), expected);
        }
    }

    /// An input large enough for more shards than the threads ask for (`for_sets_of`), with
    /// keys that share their hash (the sets compare keys after equal hashes).
    #[test]
    #[cfg_attr(miri, ignore = "a million keys")]
    fn first_of_each_key_over_many_shards() {
        #[derive(PartialEq, Eq)]
        struct Colliding(u32);
        impl Hash for Colliding {
            fn hash<H: Hasher>(&self, state: &mut H) {
                (self.0 / 4).hash(state);
            }
        }
        let n = 10 * ITEMS_PER_SET_SHARD as u32;
        let keys: Vec<Colliding> = (0..n)
            .map(|x| Colliding((u64::from(x) * 7919 % u64::from(n / 2)) as u32))
            .collect();
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<bool> = keys.iter().map(|k| seen.insert(k.0)).collect();
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let sharder = pool.install(|| Sharder::for_sets_of(keys.len()));
        assert!(sharder.shards() > 2 * SHARDS_PER_THREAD);
        assert_eq!(pool.install(|| first_of_each_key(&keys)), expected);
    }
}
