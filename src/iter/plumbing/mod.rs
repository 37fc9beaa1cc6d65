//! The protocol between parallel iterators and the one splitting driver.
//!
//! A parallel iterator is driven by handing it a [`Consumer`]; an indexed one can also hand out
//! a [`Producer`] through a [`ProducerCallback`]. The driver ([`bridge_producer_consumer`] for
//! producers that split at any index, [`bridge_unindexed`] for those that only split "somewhere")
//! decides where to split and where to fold sequentially; adapters only wrap producers,
//! consumers and folders and never split on their own. The splitting policy itself is one small
//! function in `splitter/`. Reductions that must not depend on the thread count follow the
//! fixed tree of `fixed_tree.rs` instead, when their consumer's [`Grouping`], the pool or an
//! enclosing deterministic drive asks for it.
//!
//! The names and meanings follow rayon's `iter::plumbing`, so that code written against rayon's
//! plumbing ports by changing the import.

mod fixed_tree;
mod splitter;
pub(crate) use fixed_tree::{
    drive_fixed, drive_vec_fixed, gather_then_fixed, wants_fixed_tree, Requested,
};
pub(crate) use splitter::{eager_depth, join_halves};

use crate::iter::IndexedParallelIterator;

/// Receives the producer of an indexed parallel iterator (see
/// [`IndexedParallelIterator::with_producer`]). Needed because the producer's type is only known
/// inside the iterator.
///
/// ```
/// use blitz_par::iter::plumbing::{Producer, ProducerCallback};
/// use blitz_par::prelude::*;
/// struct Len;
/// impl<T> ProducerCallback<T> for Len {
///     type Output = usize;
///     fn callback<P: Producer<Item = T>>(self, producer: P) -> usize {
///         producer.into_iter().len()
///     }
/// }
/// assert_eq!([1, 2, 3].par_iter().with_producer(Len), 3);
/// ```
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;
    /// Called with the iterator's producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// A splittable source of a known number of items: the indexed side of the protocol.
///
/// ```
/// use blitz_par::iter::plumbing::Producer;
/// use blitz_par::prelude::*;
/// // Producers are normally reached through `with_producer`; see `ProducerCallback`.
/// # let _ = [1].par_iter();
/// ```
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;
    /// The sequential iterator a leaf of the split tree runs.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// Turns the producer into its sequential iterator.
    fn into_iter(self) -> Self::IntoIter;

    /// The smallest leaf the driver may fold (`with_min_len`).
    #[inline]
    fn min_len(&self) -> usize {
        1
    }

    /// The largest leaf the driver may fold (`with_max_len`).
    #[inline]
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the items before `index` and those from `index` on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Folds every item into `folder`, stopping early when it is full. Override to fold faster
    /// than item by item.
    #[inline]
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }
}

/// The receiving side of an indexed drive: splits like its producer, turns into a [`Folder`]
/// at a leaf, and joins results with its [`Reducer`].
///
/// ```
/// use blitz_par::iter::plumbing::Consumer;
/// use blitz_par::prelude::*;
/// // Consumers are built by the consuming methods (`sum`, `collect`, ...).
/// assert_eq!((0..4).into_par_iter().sum::<i32>(), 6);
/// ```
pub trait Consumer<Item>: Send + Sized {
    /// The folder a leaf uses.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Joins the results of the two halves of a split.
    type Reducer: Reducer<Self::Result>;
    /// The result of consuming.
    type Result: Send;

    /// Splits into consumers of the items before and from `index`, plus the reducer that joins
    /// their results (left, right).
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// Turns into the folder of a leaf.
    fn into_folder(self) -> Self::Folder;

    /// Whether further items are useless (a search has found its answer); the driver then stops.
    fn full(&self) -> bool;

    /// Whether this consumer's folder may go on to fold the items of consumers split off to
    /// its right, in order, as if it had been made for all of them: true when folding does
    /// not depend on where the items sit (collecting into a list of vectors, say). The driver
    /// then runs the chunks it peels off one loop through one folder, instead of a folder and
    /// a reduce per chunk, so a collect grows one vector per loop, as a sequential one does.
    /// The default, false, is always correct. A blitz-par extension (rayon's plumbing has no
    /// such method); adapters of consumers forward it.
    #[inline]
    fn folder_continues(&self) -> bool {
        false
    }

    /// Whether [`folder_continues`] may return true for this type: the driver asks that method
    /// only when this is true, and otherwise leaves the loop that continues a folder out of
    /// the code it compiles for the pipeline. A consumer that overrides the method sets this
    /// to true (adapters forward their base's). The default, false, is always correct. A
    /// blitz-par extension.
    ///
    /// [`folder_continues`]: Consumer::folder_continues
    const FOLDER_MAY_CONTINUE: bool = false;

    /// Whether the driver should peel chunks off the back of each loop instead of the front,
    /// and run the back half of a split first: true for searches that want the last match
    /// (`find_last`), which can then stop as soon as one is found. Chunks are still folded
    /// front to back inside. The default, false, is always correct. A blitz-par extension;
    /// adapters of consumers forward it.
    #[inline]
    fn folds_from_back(&self) -> bool {
        false
    }

    /// Whether [`folds_from_back`] may return true for this type: the driver asks that method
    /// only when this is true, and otherwise leaves the loops that fold from the back out of
    /// the code it compiles for the pipeline. A consumer that overrides the method sets this
    /// to true (adapters forward their base's). The default, false, is always correct. A
    /// blitz-par extension.
    ///
    /// [`folds_from_back`]: Consumer::folds_from_back
    const MAY_FOLD_FROM_BACK: bool = false;

    /// Whether this consumer searches for the match nearest one end (`find_first`,
    /// `position_first`, `find_last`, ...; the end is the back when [`folds_from_back`] says
    /// so). The driver then answers a request for work by keeping a lead of the items nearest
    /// that end and handing off the rest, instead of splitting in halves, so that the threads
    /// scan side by side from that end rather than one of them far ahead. The default, false,
    /// is always correct. A blitz-par extension; adapters of consumers forward it.
    ///
    /// [`folds_from_back`]: Consumer::folds_from_back
    #[inline]
    fn searches_in_order(&self) -> bool {
        false
    }

    /// Whether an item given to this consumer may make it [`full`]: true for searches
    /// (`find_any`, `find_first`, `any`, ...), `while_some` and `take_any`, which end the work
    /// early. A consumer that holds its items back in an accumulator until it completes
    /// (`fold`, `try_fold`) keeps one accumulator per chunk instead of one per loop ahead of
    /// such a consumer ([`folder_continues`]), so that the search sees the accumulators as they
    /// are made: `(0..u64::MAX).into_par_iter().fold(..).find_any(..)` returns. The default,
    /// false, gives the same results, perhaps later. A blitz-par extension; adapters forward
    /// their base's.
    ///
    /// [`full`]: Consumer::full
    /// [`folder_continues`]: Consumer::folder_continues
    const MAY_STOP_EARLY: bool = false;

    /// Whether this consumer's result depends on how the driver groups its items into leaves
    /// and joins, and so whether a deterministic drive must follow the fixed tree for it
    /// (see [`Grouping`]). The default, [`Grouping::Matters`], is always correct. A blitz-par
    /// extension; adapters forward their base's (`fold` makes it at least `Matters`).
    const GROUPING: Grouping = Grouping::Matters;

    /// Tells the consumer that it is about to be given exactly `len` items, indexed
    /// `0..len` by `split_at`. The indexed driver ([`bridge_producer_consumer`]) calls it once,
    /// before any split. Consumers that place their items on a scale of their own use it:
    /// `find_first` and `find_last` spread their positions over the items, so that searches
    /// nested in `flat_map` still have positions to split. The default ignores it, which is
    /// always correct. A blitz-par extension; adapters whose `split_at` hands the same index
    /// to their base forward it.
    #[inline]
    fn with_len_hint(self, len: usize) -> Self {
        let _ = len;
        self
    }
}

/// How a consumer's result depends on the grouping of its items into leaves and joins, which
/// the splitting driver chooses at run time (by the thread count, by steals): the driver reads
/// [`Consumer::GROUPING`] to decide whether a deterministic drive (a pool built with
/// `ThreadPoolBuilder::deterministic`, `BLITZ_DETERMINISTIC=1`, or
/// [`deterministic()`](crate::iter::ParallelIterator::deterministic)) must follow the fixed
/// reduction tree of [`crate::iter::deterministic`].
///
/// ```
/// use blitz_par::iter::plumbing::{Consumer, Grouping};
/// // A sum of floats changes with the grouping; consumers say so by default.
/// fn grouping<C: Consumer<f64>>(_: &C) -> Grouping { C::GROUPING }
/// assert_eq!(Grouping::Free.at_least(Grouping::Matters), Grouping::Matters);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grouping {
    /// The result is the same whatever the grouping: collecting in order, `for_each`,
    /// searches, exact sums. A deterministic pool lets the driver split these as it likes.
    Free,
    /// The result may change with the grouping (floating-point sums, `reduce`, `fold`): the
    /// driver follows the fixed tree in a deterministic pool or drive.
    Matters,
    /// Always follow the fixed tree: the consumer of `deterministic()`.
    Fixed,
}

impl Grouping {
    /// The stricter of the two (`Free < Matters < Fixed`).
    ///
    /// ```
    /// use blitz_par::iter::plumbing::Grouping;
    /// assert_eq!(Grouping::Fixed.at_least(Grouping::Matters), Grouping::Fixed);
    /// ```
    pub const fn at_least(self, other: Grouping) -> Grouping {
        if (self as u8) < (other as u8) {
            other
        } else {
            self
        }
    }
}

/// Implements [`Consumer`]'s blitz-par hints (`folder_continues`, `folds_from_back`,
/// `searches_in_order`, the constants that say whether the first two may be true,
/// `MAY_STOP_EARLY` and `GROUPING`) by asking the adapter's field `$base`, a `$c: Consumer<$item>`:
/// `forward_hints!(base: C => R)`. `forward_hints!(base: C => R, len)` also forwards
/// `with_len_hint`, for adapters whose `split_at(i)` splits the base at `i`;
/// `forward_hints!(base: C => R, len, stops_early)` also says that the adapter may end the
/// work early itself.
///
/// Every adapter of a consumer that keeps its items' order uses it, so that a search or a
/// collect behind `map_init`, `panic_fuse` or `while_some` is driven as it is behind `map`.
macro_rules! forward_hints {
    ($base:ident: $c:ty => $item:ty) => {
        const MAY_STOP_EARLY: bool = <$c as $crate::iter::plumbing::Consumer<$item>>::MAY_STOP_EARLY;
        $crate::iter::plumbing::forward_hints!(@others $base: $c => $item);
    };
    ($base:ident: $c:ty => $item:ty, len) => {
        $crate::iter::plumbing::forward_hints!($base: $c => $item);
        $crate::iter::plumbing::forward_hints!(@len $base);
    };
    // An adapter that may end the work early on its own (`take_any`, `while_some`).
    ($base:ident: $c:ty => $item:ty, len, stops_early) => {
        const MAY_STOP_EARLY: bool = true;
        $crate::iter::plumbing::forward_hints!(@others $base: $c => $item);
        $crate::iter::plumbing::forward_hints!(@len $base);
    };
    (@others $base:ident: $c:ty => $item:ty) => {
        const FOLDER_MAY_CONTINUE: bool =
            <$c as $crate::iter::plumbing::Consumer<$item>>::FOLDER_MAY_CONTINUE;
        const GROUPING: $crate::iter::plumbing::Grouping =
            <$c as $crate::iter::plumbing::Consumer<$item>>::GROUPING;
        #[inline]
        fn folder_continues(&self) -> bool {
            self.$base.folder_continues()
        }
        $crate::iter::plumbing::forward_hints!(@order $base: $c => $item);
    };
    // The hints of a search's order (`folds_from_back`, `searches_in_order`), for adapters
    // that decide `folder_continues` themselves.
    (@order $base:ident: $c:ty => $item:ty) => {
        const MAY_FOLD_FROM_BACK: bool =
            <$c as $crate::iter::plumbing::Consumer<$item>>::MAY_FOLD_FROM_BACK;
        #[inline]
        fn folds_from_back(&self) -> bool {
            self.$base.folds_from_back()
        }
        #[inline]
        fn searches_in_order(&self) -> bool {
            self.$base.searches_in_order()
        }
    };
    (@len $base:ident) => {
        #[inline]
        fn with_len_hint(self, len: usize) -> Self {
            Self {
                $base: self.$base.with_len_hint(len),
                ..self
            }
        }
    };
}
pub(crate) use forward_hints;

/// Consumes the items of one leaf sequentially.
///
/// ```
/// use blitz_par::iter::plumbing::Folder;
/// struct Sum(i64);
/// impl Folder<i64> for Sum {
///     type Result = i64;
///     fn consume(self, item: i64) -> Self { Sum(self.0 + item) }
///     fn complete(self) -> i64 { self.0 }
///     fn full(&self) -> bool { false }
/// }
/// assert_eq!(Sum(0).consume_iter(1..=3).complete(), 6);
/// ```
pub trait Folder<Item>: Sized {
    /// The result of the leaf.
    type Result;

    /// Consumes one item.
    fn consume(self, item: Item) -> Self;

    /// Consumes items until `iter` ends or the folder is full. Folders whose `full` is always
    /// false override this with a plain loop, which the compiler vectorises.
    #[inline]
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// Whether [`consume`](Folder::consume) is as cheap as a store into place, with the
    /// folder's state kept in registers: then a folder that feeds two folders item by item
    /// (the one of `unzip` and `partition`) does so, which runs as fast as one loop, and
    /// otherwise sorts its items into batches and hands each side a batch through
    /// [`consume_iter`](Folder::consume_iter). The crate's collecting folders set it. The
    /// default, false, is always correct (the batches cost a copy where they were not
    /// needed); an adapter of a folder whose `consume` adds only register work may forward its
    /// base's. A blitz-par extension (rayon's plumbing has no such constant).
    ///
    /// ```
    /// use blitz_par::iter::plumbing::Folder;
    /// struct Count(usize);
    /// impl Folder<u8> for Count {
    ///     type Result = usize;
    ///     // One add on a register: nothing for `unzip` to batch.
    ///     const CHEAP_CONSUME: bool = true;
    ///     fn consume(self, _: u8) -> Self { Count(self.0 + 1) }
    ///     fn complete(self) -> usize { self.0 }
    ///     fn full(&self) -> bool { false }
    /// }
    /// assert!(Count::CHEAP_CONSUME);
    /// assert_eq!(Count(0).consume_iter([1, 2, 3]).complete(), 3);
    /// ```
    const CHEAP_CONSUME: bool = false;

    /// Finishes the leaf.
    fn complete(self) -> Self::Result;

    /// Whether further items are useless.
    fn full(&self) -> bool;
}

/// Joins the results of two adjacent parts, left then right.
///
/// ```
/// use blitz_par::iter::plumbing::Reducer;
/// struct Add;
/// impl Reducer<i32> for Add {
///     fn reduce(self, left: i32, right: i32) -> i32 { left + right }
/// }
/// assert_eq!(Add.reduce(1, 2), 3);
/// ```
pub trait Reducer<Result> {
    /// Joins `left` (the earlier items) with `right`.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A consumer that can also split without an index, for unindexed producers.
///
/// ```
/// use blitz_par::prelude::*;
/// // `filter` makes an iterator unindexed; `count` still works through this trait.
/// assert_eq!((0..10).into_par_iter().filter(|x| x % 2 == 0).count(), 5);
/// ```
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// A consumer for items that come before all the items `self` will see afterwards.
    fn split_off_left(&self) -> Self;

    /// A reducer for results of `split_off_left` (left) and `self` (right).
    fn to_reducer(&self) -> Self::Reducer;
}

/// A source that can split itself roughly in two, but not at a chosen index.
///
/// ```
/// use blitz_par::iter::plumbing::{bridge_unindexed, Folder, UnindexedProducer};
/// use blitz_par::prelude::*;
/// struct Evens(std::ops::Range<u32>);
/// impl UnindexedProducer for Evens {
///     type Item = u32;
///     fn split(self) -> (Self, Option<Self>) {
///         let mid = self.0.start + (self.0.end - self.0.start) / 2;
///         if self.0.len() < 2 { (self, None) } else { (Evens(self.0.start..mid), Some(Evens(mid..self.0.end))) }
///     }
///     fn fold_with<F: Folder<u32>>(self, folder: F) -> F {
///         folder.consume_iter(self.0.filter(|x| x % 2 == 0))
///     }
/// }
/// struct It(std::ops::Range<u32>);
/// impl ParallelIterator for It {
///     type Item = u32;
///     fn drive_unindexed<C: blitz_par::iter::plumbing::UnindexedConsumer<u32>>(self, c: C) -> C::Result {
///         bridge_unindexed(Evens(self.0), c)
///     }
/// }
/// assert_eq!(It(0..100).count(), 50);
/// ```
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;
    /// Splits in two if worthwhile; otherwise returns `(self, None)`.
    fn split(self) -> (Self, Option<Self>);
    /// Folds every item into `folder`, stopping early when it is full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;

    /// Drives the items into `consumer` along the fixed reduction tree of a deterministic
    /// drive (see [`crate::iter::deterministic`]): [`bridge_unindexed`] calls it instead of
    /// splitting when the consumer's [`Grouping`], the pool or an enclosing `deterministic()`
    /// asks for a result that does not depend on the thread count. The default folds every
    /// item in one leaf, on this thread, which is deterministic for any producer whose items
    /// come in a fixed order, and always correct. An override may do the work in parallel as
    /// long as the result stays that of the fixed tree over the items in order: gathering
    /// the items into a `Vec` and driving it (`items.into_par_iter().drive_unindexed(consumer)`
    /// follows the fixed tree here), as the crate's own unindexed sources do (they gather in
    /// parallel). A blitz-par extension (rayon's plumbing has no such method); a producer
    /// written for rayon gets the default.
    ///
    /// ```
    /// use blitz_par::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
    /// use blitz_par::prelude::*;
    /// struct Squares(std::ops::Range<u64>);
    /// impl UnindexedProducer for Squares {
    ///     type Item = f64;
    ///     fn split(self) -> (Self, Option<Self>) {
    ///         let mid = self.0.start + (self.0.end - self.0.start) / 2;
    ///         if self.0.end - self.0.start < 2 { (self, None) }
    ///         else { (Squares(self.0.start..mid), Some(Squares(mid..self.0.end))) }
    ///     }
    ///     fn fold_with<F: Folder<f64>>(self, folder: F) -> F {
    ///         folder.consume_iter(self.0.map(|x| (x * x) as f64 / 3.0))
    ///     }
    ///     // The items in order, then the fixed tree over them, in parallel.
    ///     fn drive_fixed<C: UnindexedConsumer<f64>>(self, consumer: C) -> C::Result {
    ///         let items: Vec<f64> = self.0.map(|x| (x * x) as f64 / 3.0).collect();
    ///         items.into_par_iter().drive_unindexed(consumer)
    ///     }
    /// }
    /// struct It(std::ops::Range<u64>);
    /// impl ParallelIterator for It {
    ///     type Item = f64;
    ///     fn drive_unindexed<C: UnindexedConsumer<f64>>(self, c: C) -> C::Result {
    ///         bridge_unindexed(Squares(self.0), c)
    ///     }
    /// }
    /// // The bits of the fixed tree over these items, as any deterministic drive of them.
    /// let fixed = It(0..10_000).deterministic().sum::<f64>();
    /// let vec: Vec<f64> = (0..10_000u64).map(|x| (x * x) as f64 / 3.0).collect();
    /// assert_eq!(fixed.to_bits(), vec.into_par_iter().deterministic().sum::<f64>().to_bits());
    /// ```
    fn drive_fixed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        fixed_tree::fold_one_leaf(self, consumer)
    }
}

/// Drives an indexed parallel iterator into a consumer through the splitting driver: how an
/// indexed iterator implements `drive_unindexed` and `drive`.
///
/// ```
/// use blitz_par::iter::plumbing::{bridge, UnindexedConsumer};
/// use blitz_par::prelude::*;
/// struct Wrapped(blitz_par::range::Iter<usize>);
/// impl ParallelIterator for Wrapped {
///     type Item = usize;
///     fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
///         bridge(self.0, consumer)
///     }
/// }
/// assert_eq!(Wrapped((0..10).into_par_iter()).sum::<usize>(), 45);
/// ```
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    struct Callback<C> {
        len: usize,
        consumer: C,
    }
    impl<C, T> ProducerCallback<T> for Callback<C>
    where
        C: Consumer<T>,
    {
        type Output = C::Result;
        fn callback<P>(self, producer: P) -> C::Result
        where
            P: Producer<Item = T>,
        {
            bridge_producer_consumer(self.len, producer, self.consumer)
        }
    }
    let len = par_iter.len();
    par_iter.with_producer(Callback { len, consumer })
}

/// Runs `producer` (of `len` items) into `consumer`: splits in halves when the scheduler asks
/// for work or a leaf would exceed `max_len`, and otherwise folds growing chunks off the front.
/// Enters the scheduler once the work proves long enough to be worth splitting (a short loop
/// never pays for entering).
///
/// ```
/// use blitz_par::prelude::*;
/// // Every indexed iterator reaches the driver through this function.
/// assert_eq!([1u8, 2, 3].par_iter().map(|&x| u32::from(x)).sum::<u32>(), 6);
/// ```
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if wants_fixed_tree::<C, P::Item>() {
        // Decided here, from this thread's requests; run where the adaptive drive would.
        return crate::scheduler::in_pool(move || drive_fixed(len, producer, consumer));
    }
    // The driver enters the scheduler itself, once the loop proves long (splitter/); where
    // the global pool keeps outside callers' work on its workers, it runs there whole.
    crate::scheduler::in_pool(move || {
        let pacer = splitter::Pacer::new(producer.min_len(), producer.max_len());
        splitter::drive_indexed(len, producer, consumer.with_len_hint(len), pacer)
    })
}

/// Runs an unindexed producer into a consumer: splits eagerly to a modest depth, then whenever
/// the scheduler asks for work, and folds the rest.
///
/// ```
/// use blitz_par::prelude::*;
/// // Unindexed sources (`par_bridge`, ranges longer than usize) go through this function.
/// assert_eq!((0..1000u64).into_par_iter().filter(|x| x % 3 == 0).count(), 334);
/// ```
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if wants_fixed_tree::<C, P::Item>() {
        return producer.drive_fixed(consumer);
    }
    splitter::drive_unindexed_root(producer, consumer, None)
}

/// As [`bridge_unindexed`], for producers whose halves hold about equal work (strings and
/// slices cut near the middle): the first leaf's time then estimates the whole drive's, and
/// a long drive wakes sleeping workers at once rather than one per heartbeat.
pub(crate) fn bridge_unindexed_halving<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if wants_fixed_tree::<C, P::Item>() {
        return producer.drive_fixed(consumer);
    }
    splitter::drive_unindexed_root(producer, consumer, Some(0))
}
