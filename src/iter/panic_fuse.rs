//! `panic_fuse`: a panic in one part stops the others early.

use super::plumbing::*;
use super::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The iterator of [`ParallelIterator::panic_fuse`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..10).into_par_iter().panic_fuse().sum::<i32>(), 45);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(super) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

/// Sets the fuse if dropped while its thread unwinds.
struct FuseGuard<'f>(&'f AtomicBool);

impl Drop for FuseGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let fuse = AtomicBool::new(false);
        self.base.drive_unindexed(FuseConsumer {
            base: consumer,
            fuse: &fuse,
        })
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let fuse = AtomicBool::new(false);
        self.base.drive(FuseConsumer {
            base: consumer,
            fuse: &fuse,
        })
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let fuse = AtomicBool::new(false);
        return self.base.with_producer(Callback {
            callback,
            fuse: &fuse,
        });

        struct Callback<'f, CB> {
            callback: CB,
            fuse: &'f AtomicBool,
        }

        impl<'f, T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'f, CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(FuseProducer {
                    base,
                    fuse: self.fuse,
                })
            }
        }
    }
}

/// The producer of [`PanicFuse`]: every fold goes through a [`FuseFolder`], so a panic in one
/// part stops the folds of the others. Adapters that read the sequential iterator directly
/// (`zip`, `rev`, ...) get a [`FuseIter`], which checks the fuse before each item and sets it
/// if dropped by a panic, as rayon's does.
struct FuseProducer<'f, P> {
    base: P,
    fuse: &'f AtomicBool,
}

impl<'f, P: Producer> Producer for FuseProducer<'f, P> {
    type Item = P::Item;
    type IntoIter = FuseIter<'f, P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        FuseIter {
            base: self.base.into_iter(),
            guard: FuseGuard(self.fuse),
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            FuseProducer {
                base: left,
                fuse: self.fuse,
            },
            FuseProducer {
                base: right,
                fuse: self.fuse,
            },
        )
    }
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        if self.fuse.load(Ordering::Relaxed) {
            return folder;
        }
        self.base
            .fold_with(FuseFolder {
                base: folder,
                fuse: self.fuse,
            })
            .base
    }
}

/// The sequential iterator of a [`FuseProducer`]: ends once the fuse is set, and sets it when
/// dropped while its thread unwinds (a panic downstream, in the adapter or folder reading it).
struct FuseIter<'f, I> {
    base: I,
    guard: FuseGuard<'f>,
}

impl<I: Iterator> Iterator for FuseIter<'_, I> {
    type Item = I::Item;
    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.guard.0.load(Ordering::Relaxed) {
            return None;
        }
        self.base.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        // The base's (exact) length, as rayon's: a fused stop only follows a panic.
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for FuseIter<'_, I> {
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        if self.guard.0.load(Ordering::Relaxed) {
            return None;
        }
        self.base.next_back()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for FuseIter<'_, I> {}

struct FuseConsumer<'f, C> {
    base: C,
    fuse: &'f AtomicBool,
}

impl<'f, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'f, C> {
    type Folder = FuseFolder<'f, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            FuseConsumer {
                base: l,
                fuse: self.fuse,
            },
            FuseConsumer {
                base: r,
                fuse: self.fuse,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        FuseFolder {
            base: self.base.into_folder(),
            fuse: self.fuse,
        }
    }
    fn full(&self) -> bool {
        self.fuse.load(Ordering::Relaxed) || self.base.full()
    }
    forward_hints!(base: C => T, len);
}

impl<'f, T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FuseConsumer<'f, C> {
    fn split_off_left(&self) -> Self {
        FuseConsumer {
            base: self.base.split_off_left(),
            fuse: self.fuse,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FuseFolder<'f, F> {
    base: F,
    fuse: &'f AtomicBool,
}

impl<'f, T, F: Folder<T>> Folder<T> for FuseFolder<'f, F> {
    type Result = F::Result;
    fn consume(mut self, item: T) -> Self {
        let guard = FuseGuard(self.fuse);
        self.base = self.base.consume(item);
        drop(guard);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let guard = FuseGuard(self.fuse);
        let fuse = self.fuse;
        self.base = self.base.consume_iter(
            iter.into_iter()
                .take_while(|_| !fuse.load(Ordering::Relaxed)),
        );
        drop(guard);
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.fuse.load(Ordering::Relaxed) || self.base.full()
    }
}
