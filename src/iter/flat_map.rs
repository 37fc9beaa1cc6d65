//! `flat_map`, `flat_map_iter`, `flatten`, `flatten_iter`: every item becomes several.
//!
//! `flat_map` drives each inner parallel iterator with a consumer split off the outer one, so
//! inner iterators are split by the same driver; `flat_map_iter` runs inner iterators
//! sequentially inside the outer leaf, which is cheaper when they are short.

use super::plumbing::*;
use super::*;
use std::fmt;

/// The iterator of [`ParallelIterator::flat_map`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..3).into_par_iter().flat_map(|x| vec![x; x as usize]).collect();
/// assert_eq!(v, [1, 2, 2]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FlatMap<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMap").field("base", &self.base).finish()
    }
}

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMap { base, map_op }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;
    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, PI> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FlatMapConsumer {
                base: left,
                map_op: self.map_op,
            },
            FlatMapConsumer {
                base: right,
                map_op: self.map_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous: None,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    const MAY_STOP_EARLY: bool = <C as Consumer<PI::Item>>::MAY_STOP_EARLY;
    const GROUPING: Grouping = <C as Consumer<PI::Item>>::GROUPING;
    forward_hints!(@order base: C => PI::Item);
    forward_hints!(@len base);
}

impl<'f, T, C, F, PI> UnindexedConsumer<T> for FlatMapConsumer<'f, C, F>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapFolder<'f, C, F, R> {
    /// The consumer every inner iterator's consumer is split off from.
    base: C,
    map_op: &'f F,
    /// The reduced results of the inner iterators so far.
    previous: Option<R>,
}

impl<'f, T, C, F, PI> Folder<T> for FlatMapFolder<'f, C, F, C::Result>
where
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
    PI: IntoParallelIterator,
{
    type Result = C::Result;
    fn consume(self, item: T) -> Self {
        let inner = (self.map_op)(item).into_par_iter();
        let result = inner.drive_unindexed(self.base.split_off_left());
        let previous = Some(match self.previous {
            None => result,
            Some(previous) => self.base.to_reducer().reduce(previous, result),
        });
        FlatMapFolder {
            base: self.base,
            map_op: self.map_op,
            previous,
        }
    }
    fn complete(self) -> C::Result {
        match self.previous {
            Some(result) => result,
            None => self.base.into_folder().complete(),
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// The iterator of [`ParallelIterator::flat_map_iter`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..3).into_par_iter().flat_map_iter(|x| std::iter::repeat(x).take(x as usize)).collect();
/// assert_eq!(v, [1, 2, 2]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FlatMapIter<I, F> {
    base: I,
    map_op: F,
}

impl<I: fmt::Debug, F> fmt::Debug for FlatMapIter<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        FlatMapIter { base, map_op }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator,
    SI::Item: Send,
{
    type Item = SI::Item;
    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapIterConsumer {
            base: consumer,
            map_op: &self.map_op,
        })
    }
}

struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    map_op: &'f F,
}

impl<'f, T, C, F, SI> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FlatMapIterConsumer {
                base: left,
                map_op: self.map_op,
            },
            FlatMapIterConsumer {
                base: right,
                map_op: self.map_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder {
            base: self.base.into_folder(),
            map_op: self.map_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    forward_hints!(base: C => SI::Item, len);
}

impl<'f, T, C, F, SI> UnindexedConsumer<T> for FlatMapIterConsumer<'f, C, F>
where
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
    SI: IntoIterator,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer {
            base: self.base.split_off_left(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapIterFolder<'f, G, F> {
    base: G,
    map_op: &'f F,
}

impl<'f, T, G, F, SI> Folder<T> for FlatMapIterFolder<'f, G, F>
where
    G: Folder<SI::Item>,
    F: Fn(T) -> SI,
    SI: IntoIterator,
{
    type Result = G::Result;
    fn consume(self, item: T) -> Self {
        FlatMapIterFolder {
            base: self.base.consume_iter((self.map_op)(item)),
            map_op: self.map_op,
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let map_op = self.map_op;
        FlatMapIterFolder {
            base: self.base.consume_iter(iter.into_iter().flat_map(map_op)),
            map_op,
        }
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// The iterator of [`ParallelIterator::flatten`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![vec![1, 2], vec![3]].into_par_iter().flatten().collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator,
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map(|x| x).drive_unindexed(consumer)
    }
}

/// The iterator of [`ParallelIterator::flatten_iter`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![vec![1, 2], vec![3]].into_par_iter().flatten_iter().collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator,
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.flat_map_iter(|x| x).drive_unindexed(consumer)
    }
}
