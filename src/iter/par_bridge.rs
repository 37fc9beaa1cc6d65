//! `par_bridge`: a parallel iterator over any sequential `Iterator + Send`.
//!
//! The iterator sits behind a mutex; every leaf takes items from it in batches whose size
//! adapts to the cost of an item (see `fold_with`). It is split
//! eagerly (by the unindexed driver) so that every thread can take part; items come in no
//! particular order, as in rayon.
//!
//! A `next` or a consumer that waits for a join lets its thread run stolen work meanwhile,
//! which can be another leaf of the same bridge, or of another bridge. A thread therefore
//! folds at most one leaf of a bridge at a time (a nested one ends at once; the one below it
//! goes on draining), and a thread that holds a bridge's lock only tries another's: waiting
//! for a lock whose holder waits, in its `next`, for this thread would never end.

use super::plumbing::*;
use super::*;
use crate::sync::{ns_in, ticks};
use crate::tuning::{BATCH_FAST_NS, BATCH_SLOW_NS, MAX_BATCH, MIN_SPLIT_NS};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

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
            taken: AtomicBool::new(false),
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
    /// A leaf has taken the iterator's first batch (set under the iterator's lock).
    taken: AtomicBool,
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

    /// A deterministic drive takes the items in the iterator's order, on this thread (where
    /// the leaves would take them in whatever order they come), then reduces them in
    /// parallel along the fixed tree.
    fn drive_fixed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let items: Vec<I::Item> = {
            let mut iter = self.shared.iter.lock().unwrap_or_else(|e| e.into_inner());
            iter.by_ref().collect()
        };
        self.shared.done.store(true, Ordering::Relaxed);
        crate::iter::plumbing::drive_vec_fixed(items, consumer)
    }

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
        // A leaf of a bridge this thread is folding already: this thread stole it while an
        // item of the bridge waited for a join, in the iterator's `next` or in the consumer.
        // End it at once; the leaf below it on this thread goes on draining the iterator.
        // Folding it would deadlock on the lock if this thread holds it (in `next`), and
        // nest one leaf in another otherwise. (rayon's bridge does the same.)
        let Some(_folding) = Folding::enter(self.shared as *const Shared<I> as usize) else {
            return folder;
        };
        // Items are taken under the lock in batches, consumed outside it. A batch doubles
        // while consuming one takes under BATCH_FAST_NS and halves when it takes more than
        // BATCH_SLOW_NS, so cheap items cost one lock per many, while expensive ones are
        // still handed out about one at a time (a thread never sits on much work others could
        // do).
        let mut batch: Vec<I::Item> = Vec::new();
        let mut size = 1usize;
        // Every leaf but the one that takes the iterator's first batch shares its halves (and
        // wakes a sleeper for each) before it consumes its first batch. It runs on a thief, or
        // after a whole leaf: the loop is parallel already. Its halves, split off before it
        // started, are join frames that only a poll would promote, and a blocking item polls
        // nothing. Which leaf that is, the lock decides: a leaf that started first but lost
        // the lock to a thief's leaf took a later item, which may block (items that wait for
        // each other), with its halves unshared. Deciding by the order the leaves started,
        // eight mutually waiting items on 8 threads stalled about one run in 150.
        let mut share = true;
        while !folder.full() && !self.shared.done.load(Ordering::Relaxed) {
            {
                let Some(mut iter) = lock_bridge(&self.shared.iter) else {
                    // Poisoned: another leaf's `next` panicked. Stop; that panic reaches the
                    // caller.
                    self.shared.done.store(true, Ordering::Relaxed);
                    break;
                };
                let Some(iter) = iter.as_mut() else {
                    // Held by another thread while this one holds another bridge's lock:
                    // end this leaf, as above; the holder goes on draining.
                    break;
                };
                let _holding = Holding::enter();
                if share && !self.shared.taken.swap(true, Ordering::Relaxed) {
                    // The iterator's first batch: this leaf may be the drive's only one.
                    share = false;
                }
                batch.extend(iter.by_ref().take(size));
            }
            // (Nothing is left to share once the iterator has run dry.)
            if std::mem::take(&mut share) && !batch.is_empty() {
                crate::scheduler::share(crate::scheduler::Share::Waking);
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
            let spent = ns_in(ticks().wrapping_sub(start));
            if spent >= MIN_SPLIT_NS {
                // This leaf drains the shared iterator while its sibling leaves wait as join
                // frames, which only a poll would promote, and this loop polls nothing: with
                // items worth a split each, let idle and sleeping threads take those leaves.
                // Without this, 16 items of 2 ms on 8 threads ran one after another: 33 ms
                // (rayon 4.2).
                crate::scheduler::share(crate::scheduler::Share::Waking);
            }
            if spent < BATCH_FAST_NS {
                size = (size * 2).min(MAX_BATCH);
            } else if spent > BATCH_SLOW_NS {
                size = (size / 2).max(1);
            }
            if ended {
                break;
            }
        }
        folder
    }
}

thread_local! {
    /// The bridges (addresses of their `Shared`) that this thread is folding a leaf of.
    static FOLDING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    /// How many bridge locks this thread holds (more than one when a `next` waited for a
    /// join and this thread ran a leaf of another bridge meanwhile).
    static HOLDING: Cell<usize> = const { Cell::new(0) };
}

/// This thread's leaf of one bridge, on [`FOLDING`] while it lives.
struct Folding(usize);

impl Folding {
    /// `None` if this thread is folding a leaf of `bridge` already.
    fn enter(bridge: usize) -> Option<Folding> {
        FOLDING.with(|folding| {
            let mut folding = folding.borrow_mut();
            if folding.contains(&bridge) {
                return None;
            }
            folding.push(bridge);
            Some(Folding(bridge))
        })
    }
}

impl Drop for Folding {
    fn drop(&mut self) {
        // Leaves end in the reverse order they started in on a thread, a panic's unwinding
        // included, but find the entry rather than trust that.
        FOLDING.with(|folding| {
            let mut folding = folding.borrow_mut();
            if let Some(i) = folding.iter().rposition(|&b| b == self.0) {
                folding.remove(i);
            }
        });
    }
}

/// A bridge lock held by this thread, counted on [`HOLDING`] while it lives.
struct Holding;

impl Holding {
    fn enter() -> Holding {
        HOLDING.with(|holding| holding.set(holding.get() + 1));
        Holding
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        HOLDING.with(|holding| holding.set(holding.get() - 1));
    }
}

/// Locks a bridge's iterator: `None` if the lock is poisoned, `Some(None)` if this thread
/// holds another bridge's lock and this one is held elsewhere. Such a thread does not wait:
/// the holder of this lock could be waiting, in its `next`, for a join whose other half this
/// thread's `next` is below (two bridges' leaves stolen crosswise).
fn lock_bridge<I>(iter: &Mutex<I>) -> Option<Option<MutexGuard<'_, I>>> {
    if HOLDING.with(Cell::get) == 0 {
        return iter.lock().ok().map(Some);
    }
    match iter.try_lock() {
        Ok(guard) => Some(Some(guard)),
        Err(TryLockError::WouldBlock) => Some(None),
        Err(TryLockError::Poisoned(_)) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;

    /// Collects what a leaf folds.
    struct Collect(Vec<u32>);

    impl Folder<u32> for Collect {
        type Result = Vec<u32>;
        fn consume(mut self, item: u32) -> Self {
            self.0.push(item);
            self
        }
        fn complete(self) -> Vec<u32> {
            self.0
        }
        fn full(&self) -> bool {
            false
        }
    }

    fn shared<I: Iterator + Send>(iter: I) -> Shared<I> {
        Shared {
            iter: Mutex::new(iter),
            done: AtomicBool::new(false),
            splits: AtomicUsize::new(0),
            taken: AtomicBool::new(false),
        }
    }

    /// Folds one leaf of `shared`'s bridge on this thread.
    fn fold_leaf<I: Iterator<Item = u32> + Send>(shared: &Shared<I>) -> Vec<u32> {
        BridgeProducer { shared }
            .fold_with(Collect(Vec::new()))
            .complete()
    }

    /// Items whose `next` folds a leaf of a bridge, as a `next` that waits for a join does
    /// when its thread runs a stolen leaf meanwhile: of the bridge it is in (`own`), or of
    /// another bridge over a `Range<u32>` (`other`). Records what each nested leaf folded.
    struct Reentrant<'a> {
        items: Range<u32>,
        own: usize,
        other: Option<&'a Shared<Range<u32>>>,
        nested: Vec<Vec<u32>>,
    }

    impl Iterator for Reentrant<'_> {
        type Item = u32;
        fn next(&mut self) -> Option<u32> {
            let item = self.items.next()?;
            let got = match self.other {
                Some(other) => fold_leaf(other),
                None => {
                    let own = self.own as *const Shared<Reentrant<'_>>;
                    // SAFETY: the test sets `own` to the address of the bridge this iterator
                    // is in, which outlives the fold; a shared reference to it while its lock
                    // is held (by our caller) is sound, as the nested leaf could reach the
                    // iterator only by locking it.
                    fold_leaf(unsafe { &*own })
                }
            };
            self.nested.push(got);
            Some(item)
        }
    }

    /// Runs `f` on a thread of its own: a deadlock fails the test instead of hanging it.
    fn without_deadlock(f: impl FnOnce() + Send + 'static) {
        crate::watchdog::within(
            crate::watchdog::LIVENESS,
            "a reentrant bridge's leaf ended",
            f,
        );
    }

    #[test]
    fn a_leaf_nested_in_a_leaf_of_its_own_bridge_ends_at_once() {
        without_deadlock(|| {
            let bridge = shared(Reentrant {
                items: 0..10,
                own: 0,
                other: None,
                nested: Vec::new(),
            });
            bridge.iter.lock().unwrap().own = &bridge as *const Shared<Reentrant<'_>> as usize;
            assert_eq!(fold_leaf(&bridge), (0..10).collect::<Vec<_>>());
            let nested = std::mem::take(&mut bridge.iter.lock().unwrap().nested);
            assert_eq!(nested, vec![Vec::<u32>::new(); 10]);
        });
    }

    #[test]
    fn a_leaf_nested_under_a_bridge_lock_does_not_wait_for_another() {
        without_deadlock(|| {
            let other = shared(100..110u32);
            let bridge = shared(Reentrant {
                items: 0..10,
                own: 0,
                other: Some(&other),
                nested: Vec::new(),
            });
            std::thread::scope(|s| {
                // Another thread holds the other bridge's lock until the leaf is done.
                let (locked, wait) = std::sync::mpsc::channel();
                let (release, released) = std::sync::mpsc::channel::<()>();
                let other = &other;
                let holder = s.spawn(move || {
                    let _guard = other.iter.lock().unwrap();
                    locked.send(()).unwrap();
                    released.recv().unwrap();
                });
                wait.recv().unwrap();
                assert_eq!(fold_leaf(&bridge), (0..10).collect::<Vec<_>>());
                release.send(()).unwrap();
                holder.join().unwrap();
            });
            let nested = std::mem::take(&mut bridge.iter.lock().unwrap().nested);
            assert_eq!(nested, vec![Vec::<u32>::new(); 10]);
            // Unheld, the other bridge's leaf is folded as usual, nested or not.
            assert_eq!(fold_leaf(&other), (100..110).collect::<Vec<_>>());
        });
    }
}
