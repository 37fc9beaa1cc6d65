//! `fold` and `fold_with`: one accumulator per leaf of the split tree, yielded as items.

use super::plumbing::*;
use super::*;
use std::fmt;

/// Where a leaf's accumulator comes from: `identity()` or a clone of a value.
trait Start: Send {
    type Acc;
    fn split_off(&self) -> Self;
    fn into_acc(self) -> Self::Acc;
}

struct CallStart<'i, ID>(&'i ID);

impl<'i, ID, T> Start for CallStart<'i, ID>
where
    ID: Fn() -> T + Sync,
{
    type Acc = T;
    fn split_off(&self) -> Self {
        CallStart(self.0)
    }
    fn into_acc(self) -> T {
        (self.0)()
    }
}

struct CloneStart<T>(T);

impl<T: Clone + Send> Start for CloneStart<T> {
    type Acc = T;
    fn split_off(&self) -> Self {
        CloneStart(self.0.clone())
    }
    fn into_acc(self) -> T {
        self.0
    }
}

/// The iterator of [`ParallelIterator::fold`].
///
/// ```
/// use blitz_par::prelude::*;
/// let parts: Vec<Vec<i32>> = (0..5).into_par_iter().fold(Vec::new, |mut v, x| { v.push(x); v }).collect();
/// assert_eq!(parts.concat(), [0, 1, 2, 3, 4]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let consumer = FoldConsumer {
            base: consumer,
            start: CallStart(&self.identity),
            fold_op: &self.fold_op,
        };
        self.base.drive_unindexed(consumer)
    }
}

/// The iterator of [`ParallelIterator::fold_with`].
///
/// ```
/// use blitz_par::prelude::*;
/// let n: usize = (0..5).into_par_iter().fold_with(0usize, |n, _| n + 1).sum();
/// assert_eq!(n, 5);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldWith<I, T, F> {
    base: I,
    item: T,
    fold_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for FoldWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> FoldWith<I, T, F> {
    pub(super) fn new(base: I, item: T, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, F, T> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    T: Send + Clone,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let consumer = FoldConsumer {
            base: consumer,
            start: CloneStart(self.item),
            fold_op: &self.fold_op,
        };
        self.base.drive_unindexed(consumer)
    }
}

struct FoldConsumer<'f, C, S, F> {
    base: C,
    start: S,
    fold_op: &'f F,
}

impl<'f, U, C, S, F> Consumer<U> for FoldConsumer<'f, C, S, F>
where
    C: Consumer<S::Acc>,
    S: Start,
    F: Fn(S::Acc, U) -> S::Acc + Sync,
{
    type Folder = FoldFolder<'f, C::Folder, S::Acc, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left_start = self.start.split_off();
        (
            FoldConsumer {
                base: left,
                start: left_start,
                fold_op: self.fold_op,
            },
            FoldConsumer {
                base: right,
                start: self.start,
                fold_op: self.fold_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FoldFolder {
            base: self.base.into_folder(),
            acc: self.start.into_acc(),
            fold_op: self.fold_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    /// One accumulator may take any run of consecutive items (`fold` promises nothing about
    /// how many accumulators there are), so one per loop of the driver: a
    /// `fold(Vec::new, ..).reduce(..)` then joins a few vectors, not one per chunk. Ahead of
    /// a consumer that an accumulator may end early (`find_any`), one per chunk, which the
    /// search sees as soon as the chunk is folded: over 10^27 items, one per loop never
    /// reached it.
    const FOLDER_MAY_CONTINUE: bool = !C::MAY_STOP_EARLY;
    fn folder_continues(&self) -> bool {
        !C::MAY_STOP_EARLY
    }
    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;
    // The accumulators themselves depend on the grouping.
    const GROUPING: Grouping = C::GROUPING.at_least(Grouping::Matters);
    // The accumulators come in the order of the chunks they fold, each from the consumer of
    // its chunk's items: a search behind this one sees them as it would the items.
    forward_hints!(@order base: C => S::Acc);
    forward_hints!(@len base);
}

impl<'f, U, C, S, F> UnindexedConsumer<U> for FoldConsumer<'f, C, S, F>
where
    C: UnindexedConsumer<S::Acc>,
    S: Start,
    F: Fn(S::Acc, U) -> S::Acc + Sync,
{
    fn split_off_left(&self) -> Self {
        FoldConsumer {
            base: self.base.split_off_left(),
            start: self.start.split_off(),
            fold_op: self.fold_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<'f, G, T, F> {
    base: G,
    acc: T,
    fold_op: &'f F,
}

impl<'f, U, G, T, F> Folder<U> for FoldFolder<'f, G, T, F>
where
    G: Folder<T>,
    F: Fn(T, U) -> T,
{
    type Result = G::Result;
    fn consume(self, item: U) -> Self {
        FoldFolder {
            base: self.base,
            acc: (self.fold_op)(self.acc, item),
            fold_op: self.fold_op,
        }
    }
    fn consume_iter<I: IntoIterator<Item = U>>(self, iter: I) -> Self {
        let acc = iter.into_iter().fold(self.acc, self.fold_op);
        FoldFolder {
            base: self.base,
            acc,
            fold_op: self.fold_op,
        }
    }
    fn complete(self) -> G::Result {
        self.base.consume(self.acc).complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
