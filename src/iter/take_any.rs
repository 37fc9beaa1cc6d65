//! `take_any` and `skip_any`: `n` items (or all but `n`), whichever the threads reach first.

use super::plumbing::*;
use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The iterator of [`ParallelIterator::take_any`]: keeps `n` items, whichever the threads
/// reach first.
///
/// ```
/// use blitz_par::prelude::*;
/// let t: blitz_par::iter::TakeAny<_> = (0..9).into_par_iter().take_any(2);
/// assert_eq!(t.count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

impl<I> TakeAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let n = self.n;
        if n == 0 {
            return super::sources::empty().drive_unindexed(consumer);
        }
        let counter = AtomicUsize::new(0);
        let counter = &counter;
        let done = move || counter.load(Ordering::Relaxed) >= n;
        self.base
            .map(move |x| claim(counter, n).then_some(x))
            .while_some_until(done)
            .drive_unindexed(consumer)
    }
}

/// The iterator of [`ParallelIterator::skip_any`]: drops `n` items, whichever the threads
/// reach first.
///
/// ```
/// use blitz_par::prelude::*;
/// let s: blitz_par::iter::SkipAny<_> = (0..9).into_par_iter().skip_any(2);
/// assert_eq!(s.count(), 7);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

impl<I> SkipAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let n = self.n;
        let counter = AtomicUsize::new(0);
        let counter = &counter;
        self.base
            .filter(move |_| !claim(counter, n))
            .drive_unindexed(consumer)
    }
}

/// Claims one of the first `n` slots of `counter`; true while slots remain.
fn claim(counter: &AtomicUsize, n: usize) -> bool {
    counter
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
            (c < n).then_some(c + 1)
        })
        .is_ok()
}

/// `while_some` that also stops once `done()`: for `take_any`, stop as soon as `n` are taken.
trait WhileSomeUntil: ParallelIterator {
    fn while_some_until<T, D>(self, done: D) -> WhileSomeUntilIter<Self, D>
    where
        Self: ParallelIterator<Item = Option<T>>,
        D: Fn() -> bool + Sync + Send,
    {
        WhileSomeUntilIter { base: self, done }
    }
}

impl<I: ParallelIterator> WhileSomeUntil for I {}

struct WhileSomeUntilIter<I, D> {
    base: I,
    done: D,
}

impl<I, D, T> ParallelIterator for WhileSomeUntilIter<I, D>
where
    I: ParallelIterator<Item = Option<T>>,
    D: Fn() -> bool + Sync + Send,
    T: Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let done = &self.done;
        self.base.drive_unindexed(UntilConsumer {
            base: consumer,
            done,
        })
    }
}

struct UntilConsumer<'d, C, D> {
    base: C,
    done: &'d D,
}

impl<'d, T, C: Consumer<T>, D: Fn() -> bool + Sync> Consumer<Option<T>>
    for UntilConsumer<'d, C, D>
{
    type Folder = UntilFolder<'d, C::Folder, D>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            UntilConsumer {
                base: l,
                done: self.done,
            },
            UntilConsumer {
                base: r,
                done: self.done,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        UntilFolder {
            base: self.base.into_folder(),
            done: self.done,
            stopped: false,
        }
    }
    fn full(&self) -> bool {
        (self.done)() || self.base.full()
    }
    forward_hints!(base: C => T, len, stops_early);
}

impl<'d, T, C: UnindexedConsumer<T>, D: Fn() -> bool + Sync> UnindexedConsumer<Option<T>>
    for UntilConsumer<'d, C, D>
{
    fn split_off_left(&self) -> Self {
        UntilConsumer {
            base: self.base.split_off_left(),
            done: self.done,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct UntilFolder<'d, F, D> {
    base: F,
    done: &'d D,
    stopped: bool,
}

impl<'d, T, F: Folder<T>, D: Fn() -> bool> Folder<Option<T>> for UntilFolder<'d, F, D> {
    type Result = F::Result;
    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(x) => self.base = self.base.consume(x),
            None => self.stopped = true,
        }
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.stopped || (self.done)() || self.base.full()
    }
}
