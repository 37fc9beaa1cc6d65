//! `chain`: the items of one iterator, then those of another.

use super::plumbing::*;
use super::*;

/// The iterator of [`ParallelIterator::chain`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..2).into_par_iter().chain(vec![7]).collect::<Vec<_>>(), [0, 1, 7]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<A::Item>,
    {
        let Chain { a, b } = self;
        // Whole on a worker where the global pool keeps outside callers' work there: the
        // reduction below runs user code too.
        crate::scheduler::in_pool(move || {
            // With a known length on the left, split by index: indexed consumers (collect)
            // need it.
            let (left, right, reducer) = match a.opt_len() {
                Some(len) => consumer.split_at(len),
                None => {
                    let reducer = consumer.to_reducer();
                    (consumer.split_off_left(), consumer, reducer)
                }
            };
            let (a, b) = crate::scheduler::enter(|| {
                crate::join(
                    move || a.drive_unindexed(left),
                    move || b.drive_unindexed(right),
                )
            });
            reducer.reduce(a, b)
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: length overflows usize")
    }

    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<A::Item>,
    {
        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            a_len: usize,
        }
        impl<CB, B> ProducerCallback<B::Item> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = B::Item>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    a_len: self.a_len,
                })
            }
        }
        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            a_len: usize,
        }
        impl<CB, PA> ProducerCallback<PA::Item> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                self.callback.callback(ChainProducer {
                    a: self.a,
                    b,
                    a_len: self.a_len,
                })
            }
        }
        let a_len = self.a.len();
        self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            a_len,
        })
    }
}

struct ChainProducer<A, B> {
    a: A,
    b: B,
    /// Items in `a`: split points below it cut `a`, the others cut `b`.
    a_len: usize,
}

impl<A, B> Producer for ChainProducer<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = ChainIter<A::IntoIter, B::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        ChainIter {
            inner: self.a.into_iter().chain(self.b.into_iter()),
        }
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a_left, a_right) = self.a.split_at(index);
            let (b_left, b_right) = self.b.split_at(0);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len: index,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: self.a_len - index,
                },
            )
        } else {
            let (a_left, a_right) = self.a.split_at(self.a_len);
            let (b_left, b_right) = self.b.split_at(index - self.a_len);
            (
                ChainProducer {
                    a: a_left,
                    b: b_left,
                    a_len: self.a_len,
                },
                ChainProducer {
                    a: a_right,
                    b: b_right,
                    a_len: 0,
                },
            )
        }
    }
    fn fold_with<F: Folder<A::Item>>(self, folder: F) -> F {
        let folder = self.a.fold_with(folder);
        if folder.full() {
            folder
        } else {
            self.b.fold_with(folder)
        }
    }
}

/// `std::iter::Chain` with the exact length two exact-size parts have.
#[derive(Debug)]
pub(super) struct ChainIter<A, B> {
    inner: std::iter::Chain<A, B>,
}

impl<A, B> Iterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;
    fn next(&mut self) -> Option<A::Item> {
        self.inner.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
    fn fold<Acc, G: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, f: G) -> Acc {
        self.inner.fold(init, f)
    }
}

impl<A, B> DoubleEndedIterator for ChainIter<A, B>
where
    A: ExactSizeIterator + DoubleEndedIterator,
    B: ExactSizeIterator<Item = A::Item> + DoubleEndedIterator,
{
    fn next_back(&mut self) -> Option<A::Item> {
        self.inner.next_back()
    }
}

// Producers' parts are at most `usize::MAX` items together (checked by `Chain::len`), so the
// size hint is exact.
impl<A, B> ExactSizeIterator for ChainIter<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}
