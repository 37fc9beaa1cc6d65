//! `par_bridge`: a parallel iterator over any sequential `Iterator + Send`.
//!
//! The iterator sits behind a mutex; every leaf takes items from it in batches whose size
//! adapts to the cost of an item (see `fold_with`). It is split
//! eagerly (by the unindexed driver) so that every thread can take part; items come in no
//! particular order, as in rayon.

use super::plumbing::MIN_SPLIT_TICKS;
use super::plumbing::*;
use super::*;
use crate::sync::ticks;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Turns a sequential iterator into a parallel one (rayon's `ParallelBridge`).
///
/// ```
/// use blitz_par::prelude::*;
/// let (sender, receiver) = std::sync::mpsc::channel();
/// for i in 0..10 {
///     sender.send(i).unwrap();
/// }
/// drop(sender);
/// let total: i32 = receiver.into_iter().par_bridge().sum();
/// assert_eq!(total, 45);
/// ```
pub trait ParallelBridge: Sized {
    /// The parallel iterator over the items of `self`, in no particular order.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T: Iterator + Send> ParallelBridge for T
where
    T::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator of [`ParallelBridge::par_bridge`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..5).par_bridge().count(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct IterBridge<I> {
    iter: I,
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        // An iterator that says it holds at most one item (`once`, `once_with`, an empty one)
        // makes no join at all. In rayon's recursion test (a join inside such an iterator,
        // bridged in every item of a `flat_map`, on 10 threads), the eager splits of every
        // item's bridge were stolen, and each thread waiting for a half ran another item's
        // bridge meanwhile, nesting deep enough to overflow a 2 MiB stack in a debug build.
        // Longer iterators keep a leaf per thread and one more.
        let at_most_one = self.iter.size_hint().1.is_some_and(|n| n <= 1);
        let splits = if at_most_one {
            0
        } else {
            crate::current_num_threads()
        };
        let shared = Shared {
            iter: Mutex::new(self.iter),
            done: AtomicBool::new(false),
            splits: AtomicUsize::new(splits),
            leaves: AtomicUsize::new(0),
        };
        bridge_unindexed(BridgeProducer { shared: &shared }, consumer)
    }
}

struct Shared<I> {
    iter: Mutex<I>,
    /// The iterator has returned `None` (or a user `next` panicked).
    done: AtomicBool,
    /// Splits left: one leaf per thread is enough, as every leaf drains the shared iterator
    /// (none for an iterator of at most one item).
    splits: AtomicUsize,
    /// Leaves that have started folding.
    leaves: AtomicUsize,
}

struct BridgeProducer<'s, I> {
    shared: &'s Shared<I>,
}

impl<'s, I> UnindexedProducer for BridgeProducer<'s, I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;

    fn split(self) -> (Self, Option<Self>) {
        let splits = &self.shared.splits;
        let took = splits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if took && !self.shared.done.load(Ordering::Relaxed) {
            (
                BridgeProducer {
                    shared: self.shared,
                },
                Some(BridgeProducer {
                    shared: self.shared,
                }),
            )
        } else {
            (self, None)
        }
    }

    fn fold_with<F: Folder<I::Item>>(self, mut folder: F) -> F {
        // Items are taken under the lock in batches, consumed outside it. A batch doubles
        // while consuming one takes under BATCH_FAST_TICKS and halves when it takes more than
        // BATCH_SLOW_TICKS, so cheap items cost one lock per many, while expensive ones are
        // still handed out about one at a time (a thread never sits on much work others could
        // do).
        let mut batch: Vec<I::Item> = Vec::new();
        let mut size = 1usize;
        // Every leaf but the first to start shares its halves (and wakes a sleeper for each)
        // before its first batch. It runs on a thief, or after a whole leaf: the loop is
        // parallel already. Its halves, split off before it started, are join frames that
        // only a poll would promote, and a blocking item polls nothing. A thief that stole
        // before any batch showed items to be long took a blocking item with its halves
        // unshared; in a test of mutually waiting items, one run in fifty stalled.
        let mut share = self.shared.leaves.fetch_add(1, Ordering::Relaxed) > 0;
        while !folder.full() && !self.shared.done.load(Ordering::Relaxed) {
            if std::mem::take(&mut share) {
                crate::scheduler::share_waking();
            }
            {
                // A poisoned lock means another leaf's `next` panicked: stop; that panic
                // reaches the caller.
                let Ok(mut iter) = self.shared.iter.lock() else {
                    self.shared.done.store(true, Ordering::Relaxed);
                    break;
                };
                batch.extend(iter.by_ref().take(size));
            }
            let ended = batch.len() < size;
            if ended {
                self.shared.done.store(true, Ordering::Relaxed);
            }
            let start = ticks();
            // A panic in `consume` drops the rest of the batch (the drain owns it).
            for item in batch.drain(..) {
                folder = folder.consume(item);
                if folder.full() {
                    break;
                }
            }
            let spent = ticks().wrapping_sub(start);
            if spent >= MIN_SPLIT_TICKS {
                // This leaf drains the shared iterator while its sibling leaves wait as join
                // frames, which only a poll would promote, and this loop polls nothing: with
                // items worth a split each, let idle and sleeping threads take those leaves.
                // Without this, 16 items of 2 ms on 8 threads ran one after another: 33 ms
                // (rayon 4.2).
                crate::scheduler::share_waking();
            }
            if spent < BATCH_FAST_TICKS {
                size = (size * 2).min(MAX_BATCH);
            } else if spent > BATCH_SLOW_TICKS {
                size = (size / 2).max(1);
            }
            if ended {
                break;
            }
        }
        folder
    }
}

/// A batch that took less than this (about 2 us) doubles: the lock is then a real part of it.
const BATCH_FAST_TICKS: u64 = 5_000;
/// A batch that took more than this (about 40 us) halves.
const BATCH_SLOW_TICKS: u64 = 100_000;
/// The largest batch: items taken ahead are not available to other threads.
const MAX_BATCH: usize = 256;
