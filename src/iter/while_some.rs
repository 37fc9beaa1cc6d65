//! `while_some`: the items up to the first `None`, whichever thread meets it.

use super::plumbing::*;
use super::*;
use std::sync::atomic::AtomicBool;

/// The iterator of [`ParallelIterator::while_some`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..10).into_par_iter().map(|x| (x < 5).then_some(x)).while_some().collect();
/// assert!(v.iter().all(|&x| x < 5));
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base
            .drive_unindexed(collect_while_some(consumer, &stop))
    }
}

fn collect_while_some<C>(base: C, stop: &AtomicBool) -> super::collect::WhileSomeConsumer<'_, C> {
    super::collect::WhileSomeConsumer { base, flag: stop }
}
