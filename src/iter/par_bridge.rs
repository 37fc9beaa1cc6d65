//! `par_bridge`: a parallel iterator over any sequential `Iterator + Send`.
//!
//! The iterator sits behind a mutex; every leaf takes items from it one at a time. It is split
//! eagerly (by the unindexed driver) so that every thread can take part; items come in no
//! particular order, as in rayon.

use super::plumbing::*;
use super::*;
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
        let shared = Shared {
            iter: Mutex::new(self.iter),
            done: AtomicBool::new(false),
            splits: AtomicUsize::new(crate::current_num_threads()),
        };
        bridge_unindexed(BridgeProducer { shared: &shared }, consumer)
    }
}

struct Shared<I> {
    iter: Mutex<I>,
    /// The iterator has returned `None` (or a user `next` panicked).
    done: AtomicBool,
    /// Splits left: one leaf per thread is enough, as every leaf drains the shared iterator.
    splits: AtomicUsize,
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
        while !folder.full() && !self.shared.done.load(Ordering::Relaxed) {
            let next = {
                // A poisoned lock means another leaf's `next` panicked: stop; that panic
                // reaches the caller.
                let Ok(mut iter) = self.shared.iter.lock() else {
                    self.shared.done.store(true, Ordering::Relaxed);
                    break;
                };
                iter.next()
            };
            match next {
                Some(item) => folder = folder.consume(item),
                None => {
                    self.shared.done.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        folder
    }
}
