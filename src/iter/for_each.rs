//! `for_each`: a consumer that calls a function on every item.

use super::noop::NoopReducer;
use super::plumbing::*;
use super::ParallelIterator;

pub(super) fn for_each<I, F>(par_iter: I, op: &F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync,
{
    par_iter.drive_unindexed(ForEachConsumer { op })
}

struct ForEachConsumer<'f, F> {
    op: &'f F,
}

impl<'f, T, F: Fn(T) + Sync> Consumer<T> for ForEachConsumer<'f, F> {
    /// No result to group.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();
    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (ForEachConsumer { op: self.op }, self, NoopReducer)
    }
    fn into_folder(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

impl<'f, T, F: Fn(T) + Sync> Folder<T> for ForEachConsumer<'f, F> {
    type Result = ();
    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(self.op);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

impl<'f, T, F: Fn(T) + Sync> UnindexedConsumer<T> for ForEachConsumer<'f, F> {
    fn split_off_left(&self) -> Self {
        ForEachConsumer { op: self.op }
    }
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
