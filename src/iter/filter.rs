//! `filter` and `filter_map`: consumer-side adapters (the result has no known length). Both
//! run through the `filter_map` consumer.

use super::plumbing::*;
use super::*;
use std::fmt;

/// The iterator of [`ParallelIterator::filter`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..10).into_par_iter().filter(|x| x % 5 == 0).collect::<Vec<_>>(), [0, 5]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Filter<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        Filter { base, filter_op }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        // A filter is a `filter_map` that keeps the item itself.
        let filter_op = &self.filter_op;
        let keep = move |item: I::Item| filter_op(&item).then_some(item);
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &keep,
        })
    }
}

/// The iterator of [`ParallelIterator::filter_map`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..6).into_par_iter().filter_map(|x| (x % 2 == 1).then_some(x * 10)).collect();
/// assert_eq!(v, [10, 30, 50]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FilterMap<I, P> {
    base: I,
    filter_op: P,
}

impl<I: fmt::Debug, P> fmt::Debug for FilterMap<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> FilterMap<I, P> {
    pub(super) fn new(base: I, filter_op: P) -> Self {
        FilterMap { base, filter_op }
    }
}

impl<I, P, R> ParallelIterator for FilterMap<I, P>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<R>,
    {
        self.base.drive_unindexed(FilterMapConsumer {
            base: consumer,
            op: &self.filter_op,
        })
    }
}

struct FilterMapConsumer<'p, C, P> {
    base: C,
    op: &'p P,
}

impl<'p, T, R, C, P> Consumer<T> for FilterMapConsumer<'p, C, P>
where
    C: Consumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    type Folder = FilterMapFolder<'p, C::Folder, P>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            FilterMapConsumer {
                base: left,
                op: self.op,
            },
            FilterMapConsumer {
                base: right,
                op: self.op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FilterMapFolder {
            base: self.base.into_folder(),
            op: self.op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    forward_hints!(base: C => R, len);
}

impl<'p, T, R, C, P> UnindexedConsumer<T> for FilterMapConsumer<'p, C, P>
where
    C: UnindexedConsumer<R>,
    P: Fn(T) -> Option<R> + Sync,
{
    fn split_off_left(&self) -> Self {
        FilterMapConsumer {
            base: self.base.split_off_left(),
            op: self.op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FilterMapFolder<'p, F, P> {
    base: F,
    op: &'p P,
}

impl<'p, T, R, F, P> Folder<T> for FilterMapFolder<'p, F, P>
where
    F: Folder<R>,
    P: Fn(T) -> Option<R>,
{
    type Result = F::Result;
    fn consume(self, item: T) -> Self {
        match (self.op)(item) {
            Some(mapped) => FilterMapFolder {
                base: self.base.consume(mapped),
                op: self.op,
            },
            None => self,
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        FilterMapFolder {
            base: self.base.consume_iter(iter.into_iter().filter_map(op)),
            op,
        }
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
