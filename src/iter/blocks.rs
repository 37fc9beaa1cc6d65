//! `by_exponential_blocks` and `by_uniform_blocks`: an indexed iterator consumed as a sequence
//! of blocks, one after the other, each block in parallel.
//!
//! The blocks are cut here, in sequence, but each block goes to the one splitting driver
//! ([`bridge_producer_consumer`]), which alone decides how to split inside it. Between blocks
//! the consumer is asked whether it is `full`, so that a search (`find_first`, `take_any`, ...)
//! over a long iterator stops after the block that found its answer.

use super::plumbing::*;
use super::*;

/// Consumes the producer block by block: `sizes` gives the block lengths (the last is cut to
/// what remains). Rayon's algorithm, and rayon's way to get a neutral first result: the left
/// half of a split at 0, folded with no items.
struct BlocksCallback<S, C> {
    sizes: S,
    consumer: C,
    len: usize,
}

impl<T, S, C> ProducerCallback<T> for BlocksCallback<S, C>
where
    C: UnindexedConsumer<T>,
    S: Iterator<Item = usize>,
{
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(mut self, mut producer: P) -> C::Result {
        let mut remaining = self.len;
        let (empty, mut consumer, _) = self.consumer.split_at(0);
        let mut result = empty.into_folder().complete();
        while remaining > 0 && !consumer.full() {
            let size = self.sizes.next().unwrap_or(usize::MAX).clamp(1, remaining);
            remaining -= size;
            let (block, rest) = producer.split_at(size);
            producer = rest;
            let (block_consumer, rest_consumer, _) = consumer.split_at(size);
            consumer = rest_consumer;
            let block_result = bridge_producer_consumer(size, block, block_consumer);
            result = consumer.to_reducer().reduce(result, block_result);
        }
        result
    }
}

/// The iterator of [`IndexedParallelIterator::by_exponential_blocks`]: blocks of
/// `current_num_threads()` items, then twice as many each time.
///
/// ```
/// use blitz_par::prelude::*;
/// let first = (0..10_000).into_par_iter().by_exponential_blocks().find_first(|&x| x % 777 == 776);
/// assert_eq!(first, Some(776));
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(super) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let first = crate::current_num_threads();
        let sizes = std::iter::successors(Some(first), |&size| Some(size.saturating_mul(2)));
        let len = self.base.len();
        self.base.with_producer(BlocksCallback {
            sizes,
            consumer,
            len,
        })
    }
}

/// The iterator of [`IndexedParallelIterator::by_uniform_blocks`]: blocks of `block_size`
/// items.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..10).into_par_iter().by_uniform_blocks(3).collect();
/// assert_eq!(v, (0..10).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> UniformBlocks<I> {
    pub(super) fn new(base: I, block_size: usize) -> Self {
        assert!(
            block_size != 0,
            "by_uniform_blocks: block_size must not be zero"
        );
        UniformBlocks { base, block_size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        self.base.with_producer(BlocksCallback {
            sizes: std::iter::repeat(self.block_size),
            consumer,
            len,
        })
    }
}
