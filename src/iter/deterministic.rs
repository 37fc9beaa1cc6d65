//! Reproducible reductions: the fixed reduction tree, and [`Deterministic`], the iterator of
//! [`ParallelIterator::deterministic`].
//!
//! A deterministic drive of `n` items cuts them into leaves of [`LEAF_LEN`] items (leaf `k`
//! holds items `k * LEAF_LEN .. min((k + 1) * LEAF_LEN, n)`); a leaf is folded sequentially,
//! first item first, by a fresh folder of the reduction (`sum` starts from its first item,
//! `reduce` from `identity()`); leaves `lo..hi` with `hi - lo > 1` split at
//! [`tree_split`]`(lo, hi)`, and `op(left, right)` joins the halves. The tree is the perfect
//! binary tree over leaf indices in which a missing right child passes its left child up.
//! Nothing depends on the thread count, on steals or on timing, so the result is the same bit
//! for bit on every run and every pool.
//!
//! Every node of the tree is an *aligned subtree*: for a level `j`, the leaves
//! `i * 2^j .. min((i + 1) * 2^j, leaves)`. Reducing such a node's items on their own (a
//! deterministic reduction of just those items) gives that node's value, so a machine holding
//! any contiguous range of leaves can reduce its complete nodes ([`subtrees`]) and send
//! `O(log n)` values, which [`TreeReduction`] combines elsewhere into the same bits.
//!
//! ```
//! use blitz_par::prelude::*;
//! // Order changes a float sum; the deterministic one is the same on any pool.
//! let v: Vec<f64> = (0..100_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
//! let on = |threads| {
//!     let pool = blitz_par::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
//!     pool.install(|| v.par_iter().deterministic().sum::<f64>())
//! };
//! assert_eq!(on(1).to_bits(), on(3).to_bits());
//! ```

use super::plumbing::*;
use super::{IndexedParallelIterator, ParallelIterator};
use crate::iter::plumbing::Requested;

pub use super::reduction_tree::{leaf_count, subtrees, tree_split, TreeReduction, LEAF_LEN};

/// The iterator of [`ParallelIterator::deterministic`]: the same items, driven along the fixed
/// reduction tree (see the [module docs](self)), so that every reduction of them (`sum`,
/// `product`, `reduce`, `fold` then `reduce`, `min_by`, `max_by_key`, ...) and every reduction
/// nested in the closures of the drive gives the same bits on any number of threads.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<f32> = (1..=50_000).map(|i| 1.0 / i as f32).collect();
/// let a = v.par_iter().deterministic().map(|x| x * x).sum::<f32>();
/// let b = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
///     .install(|| v.par_iter().deterministic().map(|x| x * x).sum::<f32>());
/// assert_eq!(a.to_bits(), b.to_bits());
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Deterministic<I> {
    base: I,
}

impl<I> Deterministic<I> {
    pub(super) fn new(base: I) -> Self {
        Deterministic { base }
    }
}

impl<I: ParallelIterator> ParallelIterator for Deterministic<I> {
    type Item = I::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        let _requested = Requested::new();
        self.base.drive_unindexed(FixedConsumer { base: consumer })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Deterministic<I> {
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<I::Item>,
    {
        let _requested = Requested::new();
        self.base.drive(FixedConsumer { base: consumer })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<I::Item>,
    {
        // Adapters that take this iterator's producer (`zip`, `enumerate`, ...) drive it with
        // a consumer of their own, which does not say `Fixed`: the request does, for the
        // drives this thread starts while the callback runs.
        let _requested = Requested::new();
        self.base.with_producer(callback)
    }
}

/// The consumer of a [`Deterministic`] drive: its base, with [`Grouping::Fixed`], so that the
/// driver follows the fixed tree wherever the drive goes (the second half of a `chain` on a
/// thief, the inner iterators of a `flat_map`).
struct FixedConsumer<C> {
    base: C,
}

impl<T, C: Consumer<T>> Consumer<T> for FixedConsumer<C> {
    type Folder = C::Folder;
    type Reducer = C::Reducer;
    type Result = C::Result;

    const GROUPING: Grouping = Grouping::Fixed;
    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;
    const FOLDER_MAY_CONTINUE: bool = C::FOLDER_MAY_CONTINUE;
    const MAY_FOLD_FROM_BACK: bool = C::MAY_FOLD_FROM_BACK;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FixedConsumer { base: left },
            FixedConsumer { base: right },
            reducer,
        )
    }

    fn into_folder(self) -> C::Folder {
        self.base.into_folder()
    }

    fn full(&self) -> bool {
        self.base.full()
    }

    fn folder_continues(&self) -> bool {
        self.base.folder_continues()
    }

    fn folds_from_back(&self) -> bool {
        self.base.folds_from_back()
    }

    fn searches_in_order(&self) -> bool {
        self.base.searches_in_order()
    }

    fn with_len_hint(self, len: usize) -> Self {
        FixedConsumer {
            base: self.base.with_len_hint(len),
        }
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FixedConsumer<C> {
    fn split_off_left(&self) -> Self {
        FixedConsumer {
            base: self.base.split_off_left(),
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}
