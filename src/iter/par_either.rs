//! `Either` of two parallel iterators with the same items is itself one (as in rayon).

use super::plumbing::*;
use super::*;

impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;
    fn drive_unindexed<C: UnindexedConsumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(iter) => iter.drive_unindexed(consumer),
            Either::Right(iter) => iter.drive_unindexed(consumer),
        }
    }
    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(iter) => iter.opt_len(),
            Either::Right(iter) => iter.opt_len(),
        }
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(iter) => iter.drive(consumer),
            Either::Right(iter) => iter.drive(consumer),
        }
    }
    fn len(&self) -> usize {
        match self {
            Either::Left(iter) => iter.len(),
            Either::Right(iter) => iter.len(),
        }
    }
    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(iter) => iter.with_producer(callback),
            Either::Right(iter) => iter.with_producer(callback),
        }
    }
}
