//! Parallel iterators: rayon's iterator API.
//!
//! Most code needs only `use blitz_par::prelude::*`, which brings the traits of this module:
//! [`IntoParallelIterator`], [`IntoParallelRefIterator`] and [`IntoParallelRefMutIterator`]
//! give collections and ranges their `into_par_iter`, `par_iter` and `par_iter_mut`;
//! [`ParallelIterator`] has the adapters and consumers every parallel iterator has (`map`,
//! `filter`, `reduce`, `collect`, ...); [`IndexedParallelIterator`] adds those that need an
//! exact length and a split at any index (`zip`, `enumerate`, `rev`, `position_first`,
//! `collect_into_vec`, ...). [`ParallelExtend`] and [`FromParallelIterator`] are the targets
//! of `par_extend` and `collect`.
//!
//! The structs are the iterators those methods return. They are also reachable under rayon's
//! module paths (`blitz_par::vec::IntoIter`, `blitz_par::range::Iter`, ...), and
//! [`plumbing`] is the protocol for writing parallel iterators and consumers of your own.
//!
//! ```
//! use blitz_par::prelude::*;
//! let v: Vec<i64> = (0..1000).collect();
//! let even_squares: i64 = v.par_iter().filter(|&&x| x % 2 == 0).map(|&x| x * x).sum();
//! assert_eq!(even_squares, v.iter().filter(|&&x| x % 2 == 0).map(|&x| x * x).sum());
//! ```

// This file is long on purpose: it is the API surface (two traits whose provided methods are
// the documented user API); the machinery lives in the submodules, one per adapter family.
// Every adapter wraps producers, consumers and folders; every consuming method builds a
// consumer and hands it to the driver in `plumbing`, which alone decides where to split.

use std::cmp::Ordering;
use std::iter::{Product, Sum};

/// Implements `ParallelIterator` and `IndexedParallelIterator` for `$ty`, an iterator whose
/// items were gathered into the `VecIntoIter` in its field `inner`, by running that (the
/// iterators of `collections.rs` and `drain.rs`, which have `plumbing::*` in scope).
macro_rules! via_inner_vec {
    ([$($params:tt)*] $ty:ty, item $item:ty $(, where [$($bounds:tt)*])?) => {
        impl<$($params)*> ParallelIterator for $ty
        where
            $($($bounds)*)?
        {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self.inner, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.inner.len())
            }
        }

        impl<$($params)*> IndexedParallelIterator for $ty
        where
            $($($bounds)*)?
        {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self.inner, consumer)
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

pub mod plumbing;

mod any_while;
mod blocks;
mod chain;
mod cloned;
mod collect;
pub(crate) mod collections;
pub mod deterministic;
pub(crate) mod drain;
mod enumerate;
mod exact_sum;
mod filter;
mod find;
mod flat_map;
mod fold;
mod fold_chunks;
mod for_each;
mod grouping;
pub use grouping::MinMaxResult;
mod grouping_map;
pub use grouping_map::GroupingMap;
mod hash_shards;
mod inspect;
mod intersperse;
mod len;
mod map;
mod map_with;
mod multizip;
mod noop;
mod panic_fuse;
mod par_bridge;
mod par_either;
mod positions;
pub(crate) mod range;
mod reduce;
mod reduction_tree;
mod regroup;
mod rev;
pub(crate) mod scan;
pub(crate) mod sources;
mod take_any;
mod take_skip;
mod try_ops;
pub(crate) mod unzip;
pub(crate) mod vec;
mod walk_tree;
mod while_some;
mod zip;

pub use any_while::{SkipAnyWhile, TakeAnyWhile};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use chain::Chain;
pub use cloned::{Cloned, Copied};
pub(crate) use collect::ListVecConsumer;
pub use deterministic::Deterministic;
pub use drain::ParallelDrainFull;
/// A value of one of two types: the `either` crate's `Either`, re-exported as rayon does,
/// used by [`ParallelIterator::partition_map`] and itself a parallel iterator when both sides
/// are.
///
/// ```
/// use blitz_par::prelude::*;
/// use blitz_par::iter::Either;
/// let it: Either<_, blitz_par::iter::Empty<i32>> = Either::Left((0..3).into_par_iter());
/// assert_eq!(it.sum::<i32>(), 3);
/// ```
pub use either::Either;
pub use enumerate::Enumerate;
pub use exact_sum::{ExactSum, ExactSummand};
pub use filter::{Filter, FilterMap};
pub use flat_map::{FlatMap, FlatMapIter, Flatten, FlattenIter};
pub use fold::{Fold, FoldWith};
pub use fold_chunks::{FoldChunks, FoldChunksWith};
pub use inspect::{Inspect, Update};
pub use intersperse::Intersperse;
pub use len::{MaxLen, MinLen};
pub use map::Map;
pub use map_with::{MapInit, MapWith};
pub use multizip::MultiZip;
pub use panic_fuse::PanicFuse;
pub use par_bridge::{IterBridge, ParallelBridge};
pub use positions::Positions;
pub use regroup::{Chunks, Interleave, InterleaveShortest, StepBy};
pub use rev::Rev;
pub use scan::{scan_block_len, Scan, SCAN_BLOCK_BYTES};
#[allow(deprecated)]
pub use sources::repeatn;
pub use sources::{empty, once, repeat, repeat_n, Empty, Once, Repeat, RepeatN, RepeatNIter};
pub use take_any::{SkipAny, TakeAny};
pub use take_skip::{Skip, Take};
pub use try_ops::{Try, TryFold, TryFoldWith};
pub use vec::ParallelDrainRange;
pub(crate) use vec::VecIntoIter;
pub use walk_tree::{
    split, walk_tree, walk_tree_postfix, walk_tree_prefix, Split, WalkTree, WalkTreePostfix,
    WalkTreePrefix,
};
pub use while_some::WhileSome;
pub use zip::{Zip, ZipEq};

use plumbing::{Consumer, ProducerCallback, UnindexedConsumer};

/// Conversion into a parallel iterator: `into_par_iter()` on owned collections and ranges, and
/// on references to collections (`(&v).into_par_iter()` is `v.par_iter()`).
///
/// ```
/// use blitz_par::prelude::*;
/// let total: u64 = (1..=10u64).into_par_iter().sum();
/// assert_eq!(total, 55);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Converts `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

/// `par_iter()`: a parallel iterator over shared references, for every collection `C` with
/// `&C: IntoParallelIterator`.
///
/// ```
/// use blitz_par::prelude::*;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().map(|x| x * 2).sum::<i32>(), 12);
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data T`).
    type Item: Send + 'data;
    /// Iterates over `&self` in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (usually `&'data mut T`).
    type Item: Send + 'data;
    /// Iterates over `&mut self` in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;
    fn into_par_iter(self) -> T {
        self
    }
}

/// Building a collection from a parallel iterator (the target of `collect`).
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..5).into_par_iter().collect();
/// assert_eq!(v, [0, 1, 2, 3, 4]);
/// ```
pub trait FromParallelIterator<T: Send> {
    /// Builds `Self` from the items of `par_iter`, in order where `Self` keeps an order.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// Extending a collection with the items of a parallel iterator.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = vec![0];
/// v.par_extend((1..4).into_par_iter());
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Appends the items of `par_iter`, in order where `Self` keeps an order.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

/// A parallel iterator: the items are processed by several threads, in pieces chosen by the
/// splitting driver. Consuming methods (`sum`, `collect`, `for_each`, ...) return once every
/// item is processed; a panic in a closure reaches the caller after all work has stopped.
///
/// ```
/// use blitz_par::prelude::*;
/// let n = (0..100).into_par_iter().filter(|x| x % 7 == 0).count();
/// assert_eq!(n, 15);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The type of the items.
    type Item: Send;

    /// Drives every item into `consumer` (the plumbing entry point; users call the consuming
    /// methods instead).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..3).into_par_iter().count(), 3); // count() calls drive_unindexed
    /// ```
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The exact number of items, if known without iterating.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..3).into_par_iter().opt_len(), Some(3));
    /// assert_eq!((0..3).into_par_iter().filter(|_| true).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// Calls `op` on every item, in parallel and in no particular order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let total = AtomicUsize::new(0);
    /// (0..10usize).into_par_iter().for_each(|x| { total.fetch_add(x, Ordering::Relaxed); });
    /// assert_eq!(total.into_inner(), 45);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        for_each::for_each(self, &op)
    }

    /// Calls `op` on every item with a clone of `init` per leaf of the split tree.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (sender, receiver) = channel();
    /// (0..5).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<_> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).collect::<()>()
    }

    /// Calls `op` on every item with a value made by `init` once per leaf of the split tree.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![0u8; 100];
    /// v.par_chunks_mut(10).for_each_init(|| 7u8, |seven, chunk| chunk.fill(*seven));
    /// assert!(v.iter().all(|&x| x == 7));
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).collect::<()>()
    }

    /// The number of items.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().filter(|x| x % 10 == 0).count(), 100);
    /// ```
    fn count(self) -> usize {
        reduce::count(self)
    }

    /// Applies `map_op` to every item.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(v, [0, 1, 4, 9]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Applies `map_op` to every item with a mutable clone of `init` per leaf.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().map_with(10, |ten, x| x + *ten).collect();
    /// assert_eq!(v, [10, 11, 12, 13]);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` to every item with a value made by `init` once per leaf.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<usize> = (0..4usize).into_par_iter().map_init(Vec::new, |buf, x| { buf.push(x); x }).collect();
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Clones every item (of an iterator over references).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v = vec![String::from("a")];
    /// let w: Vec<String> = v.par_iter().cloned().collect();
    /// assert_eq!(v, w);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Copies every item (of an iterator over references).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v = vec![1, 2];
    /// let w: Vec<i32> = v.par_iter().copied().collect();
    /// assert_eq!(v, w);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Calls `inspect_op` on a reference to every item as it passes.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let sum: i32 = (0..4).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((sum, seen.into_inner()), (6, 4));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Calls `update_op` on a mutable reference to every item as it passes.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<String> = ["a", "b"].par_iter().map(|s| s.to_string()).update(|s| s.push('!')).collect();
    /// assert_eq!(v, ["a!", "b!"]);
    /// ```
    fn update<OP>(self, update_op: OP) -> Update<Self, OP>
    where
        OP: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Keeps the items for which `filter_op` is true.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..10).into_par_iter().filter(|x| x % 3 == 0).collect();
    /// assert_eq!(v, [0, 3, 6, 9]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps and keeps the `Some` results.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u32> = ["1", "x", "3"].par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(v, [1, 3]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps every item to a parallel iterator and flattens the results.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| (0..n).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps every item to a sequential iterator and flattens the results.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Flattens items that are themselves parallel iterables.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = vec![vec![1], vec![], vec![2, 3]].into_par_iter().flatten().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Flattens items that are sequential iterables.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = vec![vec![1], vec![], vec![2, 3]].into_par_iter().flatten_iter().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// Reduces the items with `op`, starting every part from `identity()`. `op` must be
    /// associative and `identity()` its neutral element; the grouping is unspecified, so
    /// floating-point results may differ from a sequential fold by rounding.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sum = (1..=100).into_par_iter().reduce(|| 0, |a, b| a + b);
    /// assert_eq!(sum, 5050);
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        reduce::reduce(self, &identity, &op)
    }

    /// Reduces the items with `op`; `None` when there are none. `op` must be associative;
    /// floating-point results may differ from a sequential fold by rounding.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((1..5).into_par_iter().reduce_with(|a, b| a * b), Some(24));
    /// assert_eq!((0..0).into_par_iter().reduce_with(|a, b| a * b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        let op = &op;
        self.map(Some).reduce(
            || None,
            move |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
        )
    }

    /// Folds the items of every leaf into an accumulator started by `identity()`; yields one
    /// accumulator per leaf (how many is up to the driver), to be combined with `reduce` or
    /// `sum`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let total: usize = (0..100usize).into_par_iter().fold(|| 0, |a, x| a + x).sum();
    /// assert_eq!(total, 4950);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// As [`fold`](Self::fold), starting every leaf from a clone of `init`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let total: usize = (0..100usize).into_par_iter().fold_with(0, |a, x| a + x).sum();
    /// assert_eq!(total, 4950);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// The sum of the items. Floating-point sums may differ from the sequential sum by
    /// rounding, since the additions are grouped differently.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i64> = (0..1000).collect();
    /// assert_eq!(v.par_iter().sum::<i64>(), 499_500);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        reduce::sum(self)
    }

    /// The same items, with every reduction of them made reproducible: `sum`, `product`,
    /// `reduce`, `reduce_with`, `fold` then `reduce`, `min_by`/`max_by` (ties included),
    /// `min_by_key`/`max_by_key` and the rest give the same bits on any number of threads and
    /// on every run, floating point included. The drive follows a reduction tree fixed by the
    /// number of items alone ([`deterministic`](mod@deterministic) describes it); reductions
    /// started inside its closures are deterministic too.
    ///
    /// The tree is over the positions of the first indexed source the drive reaches
    /// (`v.par_iter().filter(..).deterministic()` groups by positions in `v`); an unindexed
    /// source (`par_chars`, `par_bridge`, `walk_tree`) first gathers its items in order.
    /// Inputs of at most [`LEAF_LEN`](deterministic::LEAF_LEN) items are reduced by one
    /// thread. `ThreadPoolBuilder::deterministic(true)` (or `BLITZ_DETERMINISTIC=1` for the
    /// global pool) does the same for every reduction in a pool, without editing pipelines.
    ///
    /// rayon has no such method.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// // Summed in different orders, these give different floats...
    /// let v: Vec<f64> = (0..200_000).map(|i| ((i * 7919) % 1000) as f64 * 1e-3 + 1e8).collect();
    /// // ...but the deterministic sum is the same on every pool.
    /// let sums: Vec<u64> = [1, 2, 7].iter().map(|&threads| {
    ///     let pool = blitz_par::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    ///     pool.install(|| v.par_iter().deterministic().sum::<f64>().to_bits())
    /// }).collect();
    /// assert!(sums.windows(2).all(|w| w[0] == w[1]));
    /// ```
    fn deterministic(self) -> Deterministic<Self> {
        Deterministic::new(self)
    }

    /// The sum of `f64` or `f32` items (or references to them), correctly rounded from the
    /// exact real sum, as Python's `math.fsum`: no order, thread count or grouping can change
    /// it, and no cancellation loses precision. A NaN item gives NaN, and so do `+inf` and
    /// `-inf` together; a finite sum too large for the type gives the infinity of its sign;
    /// an exact zero is `-0.0` only when every item is `-0.0`. See [`ExactSum`], the
    /// accumulator behind it, for sums kept across calls or machines.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v = vec![1e308, 1.0, -1e308];
    /// assert_eq!(v.par_iter().exact_sum(), 1.0);
    /// let tenths = vec![0.1f64; 10];
    /// assert_eq!(tenths.par_iter().exact_sum(), 1.0);
    /// assert_ne!(tenths.iter().sum::<f64>(), 1.0);
    /// ```
    fn exact_sum(self) -> <Self::Item as ExactSummand>::Output
    where
        Self::Item: ExactSummand,
    {
        exact_sum::exact_sum(self)
    }

    /// The product of the items. Floating-point products may differ from the sequential
    /// product by rounding.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((1..=10u64).into_par_iter().product::<u64>(), 3_628_800);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        reduce::product(self)
    }

    /// The least item; the first of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.min_by(Ord::cmp)
    }

    /// The least item by `f`; the first of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().min_by(|a, b| b.cmp(a)), Some(&3));
    /// ```
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.reduce_with(move |a, b| if f(&b, &a) == Ordering::Less { b } else { a })
    }

    /// The item with the least key; the first of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([-3i32, 1, 2].par_iter().min_by_key(|x| x.abs()), Some(&1));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.map(move |x| (f(&x), x))
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
    }

    /// The greatest item; the last of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.max_by(Ord::cmp)
    }

    /// The greatest item by `f`; the last of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().max_by(|a, b| b.cmp(a)), Some(&1));
    /// ```
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        self.reduce_with(move |a, b| if f(&b, &a) == Ordering::Less { a } else { b })
    }

    /// The item with the greatest key; the last of several equal ones.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([-3i32, 1, 2].par_iter().max_by_key(|x| x.abs()), Some(&-3));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.map(move |x| (f(&x), x))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
    }

    /// The items of `self`, then those of `chain`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..2).into_par_iter().chain(5..7).collect();
    /// assert_eq!(v, [0, 1, 5, 6]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Some item that satisfies `predicate`, not necessarily the first.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_any(|&x| x == 42), Some(42));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_any(self, predicate)
    }

    /// The first item that satisfies `predicate`. Parts after a match stop early.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_first(|&x| x % 7 == 6), Some(6));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_first(self, predicate)
    }

    /// The last item that satisfies `predicate`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..100).into_par_iter().find_last(|&x| x % 7 == 6), Some(97));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_last(self, predicate)
    }

    /// Some `Some` result of `f`, not necessarily the first.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!(["a", "4"].par_iter().find_map_any(|s| s.parse::<u8>().ok()), Some(4));
    /// ```
    fn find_map_any<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_any(|_| true)
    }

    /// The first `Some` result of `f`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!(["a", "4", "5"].par_iter().find_map_first(|s| s.parse::<u8>().ok()), Some(4));
    /// ```
    fn find_map_first<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_first(|_| true)
    }

    /// The last `Some` result of `f`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!(["a", "4", "5"].par_iter().find_map_last(|s| s.parse::<u8>().ok()), Some(5));
    /// ```
    fn find_map_last<P, R>(self, f: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_last(|_| true)
    }

    /// Whether any item satisfies `predicate`; stops early once one does.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..u32::MAX).into_par_iter().any(|x| x == 10));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&p| p).is_some()
    }

    /// Whether every item satisfies `predicate`; stops early once one does not.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!(!(0..u32::MAX).into_par_iter().all(|x| x < 10));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&p| !p).is_none()
    }

    /// Folds every leaf like [`fold`](Self::fold), stopping a leaf at its first failure
    /// (`None`, `Err`, `ControlFlow::Break`); yields one result per leaf.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Result<u8, String> = (1..=10u8).into_par_iter()
    ///     .try_fold(|| 0u8, |a, x| a.checked_add(x).ok_or("overflow".to_string()))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b).ok_or("overflow".to_string()));
    /// assert_eq!(r, Ok(55));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// As [`try_fold`](Self::try_fold), starting every leaf from a clone of `init`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Option<u32> = (1..5u32).into_par_iter().try_fold_with(0u32, |a, x| a.checked_add(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(10));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Reduces items that are `Try` values (`Option`, `Result`, `ControlFlow`); the first
    /// failure seen stops the others early and is returned.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sum: Option<u8> = (0..30u8).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, None); // 435 overflows u8
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
        <Self::Item as Try>::Residual: Send,
        T: Send,
    {
        try_ops::try_reduce(self, &identity, &op)
    }

    /// As [`try_reduce`](Self::try_reduce) without an identity; `None` when there are no
    /// items.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Option<Result<i32, ()>> = (1..4).into_par_iter().map(Ok).try_reduce_with(|a, b| Ok(a * b));
    /// assert_eq!(r, Some(Ok(6)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        <Self::Item as Try>::Residual: Send,
        T: Send,
    {
        use std::ops::ControlFlow;
        let op = &op;
        let flow: ControlFlow<<Self::Item as Try>::Residual, Option<T>> = self
            .map(|item| match item.branch() {
                ControlFlow::Continue(t) => ControlFlow::Continue(Some(t)),
                ControlFlow::Break(r) => ControlFlow::Break(r),
            })
            .try_reduce(
                || None,
                |a, b| match (a, b) {
                    (Some(a), Some(b)) => match op(a, b).branch() {
                        ControlFlow::Continue(t) => ControlFlow::Continue(Some(t)),
                        ControlFlow::Break(r) => ControlFlow::Break(r),
                    },
                    (a, None) => ControlFlow::Continue(a),
                    (None, b) => ControlFlow::Continue(b),
                },
            );
        match flow {
            ControlFlow::Continue(t) => t.map(Self::Item::from_output),
            ControlFlow::Break(r) => Some(Self::Item::from_residual(r)),
        }
    }

    /// Calls a fallible `op` on every item; the first failure seen stops the others early and
    /// is returned.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r = (0..100).into_par_iter().try_for_each(|x| if x == 50 { Err(x) } else { Ok(()) });
    /// assert_eq!(r, Err(50));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        self.map(op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// As [`try_for_each`](Self::try_for_each) with a clone of `init` per leaf.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Result<(), i32> = (0..10).into_par_iter().try_for_each_with(5, |five, x| if x < *five + 5 { Ok(()) } else { Err(x) });
    /// assert!(r.is_ok());
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        self.map_with(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// As [`try_for_each`](Self::try_for_each) with a value made by `init` per leaf.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Option<()> = (0..10).into_par_iter().try_for_each_init(|| 3, |three, x| (x >= 0 && *three == 3).then_some(()));
    /// assert_eq!(r, Some(()));
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
        R::Residual: Send,
    {
        self.map_init(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Yields the `Some` values until a `None` is seen; after that, other parts stop soon
    /// (which items before the `None` are yielded is unspecified, as in rayon).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// After a panic in any closure of the chain, other parts stop taking items soon (the
    /// panic still reaches the caller).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..10).into_par_iter().panic_fuse().count(), 10);
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Some `n` items (whichever the threads reach first), in no particular order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any(3).collect();
    /// assert_eq!(v.len(), 3);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All items except some `n` (whichever the threads reach first).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..100).into_par_iter().skip_any(3).count(), 97);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Takes items while `predicate` holds, from anywhere in the iterator: once it fails
    /// for some item, threads stop taking more (items other threads have already checked are
    /// still taken). Which items come out depends on scheduling, as in rayon; the order of
    /// those that do is kept.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|&x| x < 50).collect();
    /// assert!(v.len() <= 50 && v.iter().all(|&x| x < 50));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items while `predicate` holds, from anywhere in the iterator: once it fails for
    /// some item, every item after that (in time, on any thread) is kept. Every item for
    /// which `predicate` is false is always kept.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|&x| x < 50).collect();
    /// assert!(v.len() >= 50 && (50..100).all(|x| v.contains(&x)));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Collects the items, in order, into a linked list of vectors (one or more per piece of
    /// work): the cheapest way to gather an iterator of unknown length, when the caller can
    /// use the pieces as they are.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let list = (0..10).into_par_iter().filter(|x| x % 3 == 0).collect_vec_list();
    /// let flat: Vec<i32> = list.into_iter().flatten().collect();
    /// assert_eq!(flat, [0, 3, 6, 9]);
    /// ```
    fn collect_vec_list(self) -> std::collections::LinkedList<Vec<Self::Item>> {
        collect::collect_list(self)
    }

    /// Deprecated rayon name of [`find_any`](Self::find_any) (kept, hidden, as rayon keeps it).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// #[allow(deprecated)]
    /// let found = (0..10).into_par_iter().find(|&x| x == 3);
    /// assert_eq!(found, Some(3));
    /// ```
    #[doc(hidden)]
    #[deprecated(note = "parallel `find` does not search in order -- use `find_any`, \
                         `find_first`, or `find_last`")]
    fn find<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.find_any(predicate)
    }

    /// A clone of `element` between every two items. Over an iterator of unknown length the
    /// items are collected first.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let s: String = ["a", "b", "c"].into_par_iter().intersperse("-").collect();
    /// assert_eq!(s, "a-b-c");
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// Collects the items into a collection (see [`FromParallelIterator`] for the targets).
    /// Ordered collections keep the iterator's order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<String> = (0..3u32).into_par_iter().map(|x| x.to_string()).collect();
    /// assert_eq!(v, ["0", "1", "2"]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits pairs into two collections.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let (a, b): (Vec<i32>, Vec<char>) = vec![(1, 'a'), (2, 'b')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['a', 'b']));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        unzip::unzip(self)
    }

    /// Splits the items into those for which `predicate` is true and the others.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let (even, odd): (Vec<i32>, Vec<i32>) = (0..6).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        unzip::partition(self, predicate)
    }

    /// Splits the items by `predicate` into `Either::Left` and `Either::Right` collections.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use blitz_par::iter::Either;
    /// let (small, big): (Vec<i32>, Vec<String>) = (0..4i32).into_par_iter()
    ///     .partition_map(|x| if x < 2 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!((small, big), (vec![0, 1], vec!["2".to_string(), "3".to_string()]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        unzip::partition_map(self, predicate)
    }

    /// How many times each distinct item occurs (itertools' `counts`). Each leaf counts into
    /// its own tables, one per shard of the keys' hashes; the shards are added up in
    /// parallel, one task each, and moved into one `HashMap` at the end.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let counts = ["a", "b", "a", "c", "a"].par_iter().counts();
    /// assert_eq!((counts[&"a"], counts[&"b"], counts.len()), (3, 1, 3));
    /// ```
    fn counts(self) -> std::collections::HashMap<Self::Item, usize>
    where
        Self::Item: Eq + std::hash::Hash,
    {
        grouping::counts(self)
    }

    /// How many items have each distinct key `key(item)` (itertools' `counts_by`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let by_parity = (0..10u32).into_par_iter().counts_by(|x| x % 2 == 0);
    /// assert_eq!((by_parity[&true], by_parity[&false]), (5, 5));
    /// ```
    fn counts_by<K, F>(self, key: F) -> std::collections::HashMap<K, usize>
    where
        K: Eq + std::hash::Hash + Send,
        F: Fn(Self::Item) -> K + Sync + Send,
    {
        grouping::counts(self.map(key))
    }

    /// A histogram: how many items fall in each bucket `bucket(item)` of `0..buckets`, as a
    /// `Vec` of `buckets` counts. Each leaf counts into its own `Vec`; the `Vec`s are added
    /// pairwise. Panics if `bucket` returns `buckets` or more.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let bytes: Vec<u8> = (0..1000u32).map(|x| (x * 7) as u8).collect();
    /// let by_high_bits = bytes.par_iter().histogram(4, |&b| usize::from(b >> 6));
    /// assert_eq!(by_high_bits.iter().sum::<usize>(), 1000);
    /// assert_eq!(by_high_bits.len(), 4);
    /// ```
    fn histogram<F>(self, buckets: usize, bucket: F) -> Vec<usize>
    where
        F: Fn(Self::Item) -> usize + Sync + Send,
    {
        grouping::histogram(self, buckets, &bucket)
    }

    /// The smallest and the largest item, with itertools' shape and ties: the first of the
    /// smallest and the last of the largest (itertools' `minmax`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let v = [3, 1, 4, 1, 5, 9, 2, 6];
    /// assert_eq!(v.par_iter().copied().minmax(), MinMaxResult::MinMax(1, 9));
    /// ```
    fn minmax(self) -> MinMaxResult<Self::Item>
    where
        Self::Item: Ord,
    {
        grouping::minmax_by(self, &Self::Item::cmp)
    }

    /// As [`minmax`](Self::minmax), ordered by `compare` (itertools' `minmax_by`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let v = [(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
    /// let r = v.par_iter().minmax_by(|a, b| a.0.cmp(&b.0));
    /// assert_eq!(r, MinMaxResult::MinMax(&(0, 'b'), &(1, 'c')));
    /// ```
    fn minmax_by<F>(self, compare: F) -> MinMaxResult<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> std::cmp::Ordering + Sync + Send,
    {
        grouping::minmax_by(self, &compare)
    }

    /// As [`minmax`](Self::minmax), ordered by a key computed once per item (itertools'
    /// `minmax_by_key`).
    ///
    /// ```
    /// use blitz_par::iter::MinMaxResult;
    /// use blitz_par::prelude::*;
    /// let words = ["bb", "a", "ccc", "dd", "e", "fff"];
    /// let r = words.par_iter().minmax_by_key(|w| w.len());
    /// assert_eq!(r, MinMaxResult::MinMax(&"a", &"fff"));
    /// ```
    fn minmax_by_key<K, F>(self, key: F) -> MinMaxResult<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        grouping::minmax_by_key(self, &key)
    }

    /// The values of `(key, value)` items grouped by key, each group's `Vec` in input order
    /// (itertools' `into_group_map`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let groups = (0..10u32).into_par_iter().map(|x| (x % 3, x)).into_group_map();
    /// assert_eq!(groups[&1], [1, 4, 7]);
    /// ```
    fn into_group_map<K, V>(self) -> std::collections::HashMap<K, Vec<V>>
    where
        Self: ParallelIterator<Item = (K, V)>,
        K: Eq + std::hash::Hash + Send,
        V: Send,
    {
        grouping_map::into_group_map(self)
    }

    /// The items grouped by `key(&item)`, each group's `Vec` in input order (itertools'
    /// `into_group_map_by`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let words = ["ant", "bee", "asp", "bat", "cow"];
    /// let groups = words.par_iter().copied().into_group_map_by(|w| w.as_bytes()[0]);
    /// assert_eq!(groups[&b'a'], ["ant", "asp"]);
    /// ```
    fn into_group_map_by<K, F>(self, key: F) -> std::collections::HashMap<K, Vec<Self::Item>>
    where
        K: Eq + std::hash::Hash + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        grouping_map::into_group_map(self.map(move |item| (key(&item), item)))
    }

    /// A [`GroupingMap`] over `(key, value)` items: a group-and-fold builder (itertools'
    /// `into_grouping_map`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sums = [("a", 1), ("b", 2), ("a", 3)].par_iter().copied().into_grouping_map().sum();
    /// assert_eq!(sums[&"a"], 4);
    /// ```
    fn into_grouping_map<K, V>(self) -> GroupingMap<Self>
    where
        Self: ParallelIterator<Item = (K, V)>,
        K: Eq + std::hash::Hash + Send,
        V: Send,
    {
        GroupingMap::new(self)
    }

    /// A [`GroupingMap`] over the items keyed by `key(&item)` (itertools'
    /// `into_grouping_map_by`). The iterator type it wraps cannot be named (itertools names
    /// it `GroupingMapBy`); bind the result with `let` or use it at once.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let longest = ["a", "bcd", "ef", "ghij"]
    ///     .par_iter()
    ///     .into_grouping_map_by(|w| w.len() % 2)
    ///     .max_by_key(|_, w| w.len());
    /// assert_eq!(longest[&0], &"ghij");
    /// ```
    fn into_grouping_map_by<K, F>(
        self,
        key: F,
    ) -> GroupingMap<impl ParallelIterator<Item = (K, Self::Item)>>
    where
        K: Eq + std::hash::Hash + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        GroupingMap::new(self.map(move |item| (key(&item), item)))
    }

    /// The first occurrence of each distinct item, in input order (itertools' `unique`): an
    /// indexed parallel iterator, so `collect` keeps that order. Unlike itertools' (lazy),
    /// it reads the whole input first; the items need `Sync` (not `Clone`), as they are
    /// hashed in place by several threads.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u32> = [3, 1, 3, 2, 1, 4].par_iter().copied().unique().collect();
    /// assert_eq!(v, [3, 1, 2, 4]);
    /// ```
    fn unique(self) -> crate::vec::IntoIter<Self::Item>
    where
        Self::Item: Eq + std::hash::Hash + Sync,
    {
        grouping_map::unique(self)
    }

    /// The first item of each distinct `key(&item)`, in input order (itertools'
    /// `unique_by`), as [`unique`](Self::unique).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let words = ["apple", "bob", "avocado", "cat", "banana"];
    /// let firsts: Vec<_> = words.par_iter().unique_by(|w| w.as_bytes()[0]).collect();
    /// assert_eq!(firsts, [&"apple", &"bob", &"cat"]);
    /// ```
    fn unique_by<K, F>(self, key: F) -> crate::vec::IntoIter<Self::Item>
    where
        K: Eq + std::hash::Hash + Send + Sync,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        grouping_map::unique_by(self, &key)
    }
}

/// A parallel iterator with an exact length whose producer splits at any index: slices, `Vec`,
/// ranges of integers up to 32 bits and `usize`, and the adapters that keep those properties.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
/// assert_eq!(v, [(0, 'a'), (1, 'b')]);
/// ```
#[allow(clippy::len_without_is_empty)] // rayon's trait has `len` alone too
pub trait IndexedParallelIterator: ParallelIterator {
    /// Drives every item into `consumer`, in order positions (plumbing).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = Vec::new();
    /// (0..3).into_par_iter().collect_into_vec(&mut v); // uses drive
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>;

    /// The exact number of items.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..10).into_par_iter().skip(3).len(), 7);
    /// ```
    fn len(&self) -> usize;

    /// Calls `callback` with this iterator's producer (plumbing).
    ///
    /// ```
    /// use blitz_par::iter::plumbing::{Producer, ProducerCallback};
    /// use blitz_par::prelude::*;
    /// struct First;
    /// impl<T> ProducerCallback<T> for First {
    ///     type Output = Option<T>;
    ///     fn callback<P: Producer<Item = T>>(self, p: P) -> Option<T> { p.into_iter().next() }
    /// }
    /// assert_eq!((5..9).into_par_iter().with_producer(First), Some(5));
    /// ```
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>;

    /// Collects into `target`, replacing its contents and reusing its allocation.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![9; 100];
    /// (0..3).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect::collect_into_vec(self, target)
    }

    /// Unzips pairs into two vectors, replacing their contents.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// (0..3).into_par_iter().map(|x| (x, x * 2)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 2, 4]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        collect::unzip_into_vecs(self, left, right)
    }

    /// Pairs items of `self` and `zip_op` up to the shorter length.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(i32, char)> = (0..5).into_par_iter().zip(vec!['a', 'b']).collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// As [`zip`](Self::zip), but panics if the lengths differ.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(i32, i32)> = (0..2).into_par_iter().zip_eq(5..7).collect();
    /// assert_eq!(v, [(0, 5), (1, 6)]);
    /// ```
    #[track_caller]
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let (a, b) = (self.len(), other.len());
        assert_eq!(a, b, "zip_eq: iterators have different lengths");
        ZipEq::new(self, other)
    }

    /// Pairs every item with its index.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(usize, i32)> = (5..7).into_par_iter().enumerate().collect();
    /// assert_eq!(v, [(0, 5), (1, 6)]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..3).into_par_iter().rev().collect();
    /// assert_eq!(v, [2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// The inclusive prefix scan: `x0`, `x0 ∘ x1`, `x0 ∘ x1 ∘ x2`, ..., computed in parallel,
    /// as an indexed parallel iterator of the same length (`collect`, `zip`, `enumerate`, ...).
    ///
    /// `op` must be associative; it need not be commutative (the order of the items is kept,
    /// so matrix products or string concatenation give the sequential result). It takes its
    /// operands by reference, so items are cloned only where the scan must keep one.
    ///
    /// The result does not depend on the number of threads, floats included: the input is cut
    /// into blocks of [`scan_block_len`] items, fixed by the item type, and every output is
    /// `prefix ∘ (the block's items up to it)`, where `prefix` is the left fold of the earlier
    /// blocks' totals. For floats this differs from the sequential loop's rounding, but it is
    /// the same bits on any pool and in every run. Threads scan in a single pass over memory
    /// (a chained scan with decoupled look-back; see the module `iter::scan`).
    ///
    /// Driven into a consumer (`collect`, `for_each`, `sum`, ...), the outputs go straight to
    /// it; adapters that need a producer (`zip`, `enumerate`, `rev`, ...) get one over the
    /// outputs, computed into a vector first.
    ///
    /// A panic in `op` propagates after the other threads stop, and every item is dropped once.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sums: Vec<u64> = vec![1u64, 2, 3, 4, 5].into_par_iter().inclusive_scan(|a, b| a + b).collect();
    /// assert_eq!(sums, [1, 3, 6, 10, 15]);
    ///
    /// // Not commutative: the order is kept.
    /// let words = vec!["a".to_string(), "b".into(), "c".into()];
    /// let joined: Vec<String> = words.into_par_iter().inclusive_scan(|a, b| a.clone() + b).collect();
    /// assert_eq!(joined, ["a", "ab", "abc"]);
    ///
    /// // An indexed iterator: zip it with its input.
    /// let v = [3, 1, 4, 1, 5];
    /// let running_max: Vec<(i32, i32)> =
    ///     v.par_iter().copied().inclusive_scan(|a, b| *a.max(b)).zip(v.par_iter().copied()).collect();
    /// assert_eq!(running_max, [(3, 3), (3, 1), (4, 4), (4, 1), (5, 5)]);
    /// ```
    fn inclusive_scan<F>(self, op: F) -> Scan<Self, F>
    where
        Self::Item: Clone + Sync,
        F: Fn(&Self::Item, &Self::Item) -> Self::Item + Sync + Send,
    {
        Scan::new(self, None, op)
    }

    /// The exclusive prefix scan: `identity`, `identity ∘ x0`, `identity ∘ x0 ∘ x1`, ...:
    /// each output combines the items before it, so it has the input's length and leaves out
    /// the total. `identity` must be an identity of `op` only for the outputs to mean
    /// "everything before"; the scan itself just puts it in front.
    ///
    /// The same rules as [`inclusive_scan`](Self::inclusive_scan): `op` associative, order
    /// kept, results independent of the number of threads, panics propagated.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// // Sizes in, offsets out: where each part starts in a concatenation.
    /// let sizes = vec![3usize, 0, 2, 5];
    /// let offsets: Vec<usize> = sizes.par_iter().copied().exclusive_scan(0, |a, b| a + b).collect();
    /// assert_eq!(offsets, [0, 3, 3, 5]);
    /// assert_eq!(sizes.par_iter().copied().exclusive_scan(0, |a, b| a + b).len(), 4);
    /// ```
    fn exclusive_scan<F>(self, identity: Self::Item, op: F) -> Scan<Self, F>
    where
        Self::Item: Clone + Sync,
        F: Fn(&Self::Item, &Self::Item) -> Self::Item + Sync + Send,
    {
        Scan::new(self, Some(identity), op)
    }

    /// The first `n` items.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..10).into_par_iter().take(3).collect();
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// All but the first `n` items. The skipped items are still produced and dropped, as by
    /// std's and rayon's `skip`, so the closures of adapters before it run for them too.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().skip(3).collect();
    /// assert_eq!(v, [3, 4]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// Leaves of the split tree have at least `min` items (unless the whole input is
    /// shorter): use it when per-item work is tiny and per-leaf setup (`map_init`) is costly.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let leaves = (0..1000).into_par_iter().with_min_len(300).fold(|| 0, |n, _| n + 1).count();
    /// assert!(leaves <= 3);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Leaves of the split tree have at most `max` items: use it when items are so uneven
    /// that a leaf should not hold many.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let leaves = (0..10).into_par_iter().with_max_len(1).fold(|| 0, |n, _| n + 1).count();
    /// assert_eq!(leaves, 10);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Every `step`-th item, starting with the first. Panics if `step` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..7).into_par_iter().step_by(3).collect::<Vec<_>>(), [0, 3, 6]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// The items in `Vec`s of `chunk_size` (the last may be shorter). Panics if `chunk_size`
    /// is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<Vec<i32>> = (0..3).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![0, 1], vec![2]]);
    /// ```
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        Chunks::new(self, chunk_size)
    }

    /// Items of `self` and `other` in turn, then the rest of the longer.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..2).into_par_iter().interleave(10..13).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 12]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// Compares lexicographically with `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..3).into_par_iter().cmp(0..4), std::cmp::Ordering::Less);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| Ord::cmp(&a, &b))
            .find_first(|&o| o != Ordering::Equal)
            .unwrap_or(by_len)
    }

    /// Compares lexicographically with `other` by `PartialOrd`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1.0, f64::NAN].par_iter().partial_cmp(&[1.0, 2.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| PartialOrd::partial_cmp(&a, &b))
            .find_first(|&o| o != Some(Ordering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// Whether the items equal those of `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a == b)
    }

    /// Whether the items differ from those of `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..3).into_par_iter().ne(0..2));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether `self` is lexicographically less than `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..3).into_par_iter().lt(1..2));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Whether `self` is lexicographically less than or equal to `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..3).into_par_iter().le(0..3));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Whether `self` is lexicographically greater than `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((1..2).into_par_iter().gt(0..3));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Whether `self` is lexicographically greater than or equal to `other`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!((0..3).into_par_iter().ge(0..3));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Deprecated rayon name of [`position_any`](Self::position_any) (kept, hidden, as rayon
    /// keeps it).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// #[allow(deprecated)]
    /// let found = [1, 5, 9].par_iter().position(|&x| x == 9);
    /// assert_eq!(found, Some(2));
    /// ```
    #[doc(hidden)]
    #[deprecated(
        note = "parallel `position` does not search in order -- use `position_any`, \
                `position_first`, or `position_last`"
    )]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The indices of the items that satisfy `predicate`, in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29];
    /// let p: Vec<usize> = primes.par_iter().positions(|&p| p % 6 == 1).collect();
    /// assert_eq!(p, [3, 5, 7]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// Consumes the iterator as a sequence of blocks: first `current_num_threads()` items,
    /// then twice as many each time. Each block runs in parallel; the next starts when it is
    /// done, and none starts once the consumer is full. A search for an item near the front
    /// of a long (or endless-looking) iterator then does little work past it.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let first = (0..usize::MAX).into_par_iter().by_exponential_blocks().find_first(|&x| x >= 1000);
    /// assert_eq!(first, Some(1000));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Consumes the iterator as a sequence of blocks of `block_size` items, each in parallel,
    /// one after the other (see [`by_exponential_blocks`](Self::by_exponential_blocks)).
    /// Panics if `block_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u32> = (0..1000u32).into_par_iter().by_uniform_blocks(64).collect();
    /// assert_eq!(v, (0..1000).collect::<Vec<_>>());
    /// ```
    #[track_caller]
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        UniformBlocks::new(self, block_size)
    }

    /// Items of `self` and `other` in turn, stopping when the next one to take from runs
    /// out (so `self` may give one item more than `other`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..5).into_par_iter().interleave_shortest(10..12).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// One sequential `fold` per chunk of `chunk_size` items (the last chunk may be
    /// shorter), each starting from `identity()`: an indexed iterator of the results, in
    /// order. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let nums = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    /// let sums: Vec<i32> = nums.into_par_iter().fold_chunks(2, || 0, |a, n| a + n).collect();
    /// assert_eq!(sums, [3, 7, 11, 15, 19]);
    /// ```
    #[track_caller]
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// [`fold_chunks`](Self::fold_chunks) starting each chunk from a clone of `init` (which
    /// need not be `Sync`). Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let nums = vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    /// let sums: Vec<i32> = nums.into_par_iter().fold_chunks_with(2, 0, |a, n| a + n).collect();
    /// assert_eq!(sums, [3, 7, 11, 15, 19]);
    /// ```
    #[track_caller]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// The index of some item that satisfies `predicate`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 5, 9].par_iter().position_any(|&x| x == 5), Some(1));
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_any(|&(_, p)| p)
            .map(|(i, _)| i)
    }

    /// The index of the first item that satisfies `predicate`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..usize::MAX).into_par_iter().position_first(|x| x == 1000), Some(1000));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_first(|&(_, p)| p)
            .map(|(i, _)| i)
    }

    /// The index of the last item that satisfies `predicate`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([5, 1, 5].par_iter().position_last(|&x| x == 5), Some(2));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_last(|&(_, p)| p)
            .map(|(i, _)| i)
    }
}
