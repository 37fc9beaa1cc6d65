//! `zip` and `zip_eq`: pairs of items at equal positions, by splitting both producers alike.

use super::plumbing::*;
use super::*;

/// The iterator of [`IndexedParallelIterator::zip`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<(i32, i32)> = (0..2).into_par_iter().zip(3..9).collect();
/// assert_eq!(v, [(0, 3), (1, 4)]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>,
    {
        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            len: usize,
        }
        impl<CB, ItemA, B> ProducerCallback<ItemA> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<(ItemA, B::Item)>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = ItemA>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CallbackB {
                    callback: self.callback,
                    a,
                    len: self.len,
                })
            }
        }
        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            len: usize,
        }
        impl<CB, PA, ItemB> ProducerCallback<ItemB> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<(PA::Item, ItemB)>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = ItemB>>(self, b: PB) -> CB::Output {
                // Cut both to the common length, so that splits and reversal line up.
                let (a, _) = self.a.split_at(self.len);
                let (b, _) = b.split_at(self.len);
                self.callback.callback(ZipProducer { a, b })
            }
        }
        let len = self.len();
        self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            len,
        })
    }
}

struct ZipProducer<A, B> {
    a: A,
    b: B,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = std::iter::Zip<A::IntoIter, B::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.split_at(index);
        let (b_left, b_right) = self.b.split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
            },
        )
    }
}

/// The iterator of [`IndexedParallelIterator::zip_eq`]: a [`Zip`] of two iterators checked to
/// have the same length.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..2).into_par_iter().zip_eq(0..2).count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A, B> ZipEq<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        ZipEq {
            zip: Zip::new(a, b),
        }
    }
}

impl<A, B> ParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        bridge(self.zip, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.zip.len())
    }
}

impl<A, B> IndexedParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self.zip, consumer)
    }
    fn len(&self) -> usize {
        self.zip.len()
    }
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>,
    {
        self.zip.with_producer(callback)
    }
}
