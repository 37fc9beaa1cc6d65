//! `take` and `skip`: a prefix or suffix of an indexed iterator, by splitting its producer.
//! `take` drops the rest unproduced (as std does); `skip` runs the skipped part for its side
//! effects (as std and rayon do).

use super::plumbing::*;
use super::*;

/// The iterator of [`IndexedParallelIterator::take`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..10).into_par_iter().take(2).collect::<Vec<_>>(), [0, 1]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Take<I> {
    base: I,
    n: usize,
}

/// The iterator of [`IndexedParallelIterator::skip`].
///
/// The skipped items are produced and dropped, as by std's and rayon's `skip`, so that the
/// closures of adapters before it run for them too.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..10).into_par_iter().skip(8).collect::<Vec<_>>(), [8, 9]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I: IndexedParallelIterator> Take<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Take { base, n }
    }
}

impl<I: IndexedParallelIterator> Skip<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        let n = n.min(base.len());
        Skip { base, n }
    }
}

/// Splits the producer at `at` and passes on the left part (`keep_left`) or the right one.
struct SplitCallback<CB> {
    callback: CB,
    at: usize,
    keep_left: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for SplitCallback<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (left, right) = base.split_at(self.at);
        if self.keep_left {
            drop(right);
            self.callback.callback(left)
        } else {
            // As in std and rayon, the skipped items are still produced (and dropped), for
            // the side effects of the adapters before `skip`. The driver runs them, in
            // parallel when they are many, before the rest.
            if self.at > 0 {
                bridge_producer_consumer(self.at, left, super::noop::NoopConsumer);
            }
            self.callback.callback(right)
        }
    }
}

macro_rules! split_adapter {
    ($name:ident, $len:expr, $keep_left:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<I::Item>,
            {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                #[allow(clippy::redundant_closure_call)]
                ($len)(self)
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<I::Item>,
            {
                self.base.with_producer(SplitCallback {
                    callback,
                    at: self.n,
                    keep_left: $keep_left,
                })
            }
        }
    };
}

split_adapter!(Take, |s: &Take<I>| s.n, true);
split_adapter!(Skip, |s: &Skip<I>| s.base.len() - s.n, false);
