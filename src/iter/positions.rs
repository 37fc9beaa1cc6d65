//! `positions`: the indices of the items that satisfy a predicate, in order.

use super::plumbing::*;
use super::*;
use std::fmt;

/// The iterator of [`IndexedParallelIterator::positions`].
///
/// ```
/// use blitz_par::prelude::*;
/// let p: Vec<usize> = [3, 1, 4, 1, 5].par_iter().positions(|&x| x == 1).collect();
/// assert_eq!(p, [1, 3]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for Positions<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Positions")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> Positions<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;
    fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
        let predicate = &self.predicate;
        self.base
            .enumerate()
            .filter_map(move |(i, x)| predicate(x).then_some(i))
            .drive_unindexed(consumer)
    }
}
