//! A consumer that drops every item, and the reducer of `()` results.

use super::plumbing::*;

/// Consumes items by dropping them (behind `collect::<()>()` and `for_each`).
pub(super) struct NoopConsumer;

impl<T> Consumer<T> for NoopConsumer {
    /// No result to group.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = NoopConsumer;
    type Reducer = NoopReducer;
    type Result = ();
    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (NoopConsumer, NoopConsumer, NoopReducer)
    }
    fn into_folder(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T> Folder<T> for NoopConsumer {
    type Result = ();
    fn consume(self, _item: T) -> Self {
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(drop);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

impl<T> UnindexedConsumer<T> for NoopConsumer {
    fn split_off_left(&self) -> Self {
        NoopConsumer
    }
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}

/// Joins two `()` results.
pub(super) struct NoopReducer;

impl Reducer<()> for NoopReducer {
    fn reduce(self, _left: (), _right: ()) {}
}
