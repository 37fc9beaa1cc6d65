//! Consumer-side adapters with shared state: `while_some`, `panic_fuse`, `take_any`,
//! `skip_any`, and `intersperse`.

use super::plumbing::*;
use super::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The iterator of [`ParallelIterator::while_some`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..10).into_par_iter().map(|x| (x < 5).then_some(x)).while_some().collect();
/// assert!(v.iter().all(|&x| x < 5));
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base
            .drive_unindexed(collect_while_some(consumer, &stop))
    }
}

fn collect_while_some<C>(base: C, stop: &AtomicBool) -> super::collect::WhileSomeConsumer<'_, C> {
    super::collect::WhileSomeConsumer { base, flag: stop }
}

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

/// The iterator of [`ParallelIterator::take_any`] and [`ParallelIterator::skip_any`]: keeps
/// (or drops) `n` items, whichever the threads reach first.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..100).into_par_iter().take_any(5).count(), 5);
/// assert_eq!((0..100).into_par_iter().skip_any(5).count(), 95);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct TakeSkipAny<I> {
    base: I,
    n: usize,
    take: bool,
}

/// The iterator of [`ParallelIterator::take_any`].
///
/// ```
/// use blitz_par::prelude::*;
/// let t: blitz_par::iter::TakeAny<_> = (0..9).into_par_iter().take_any(2);
/// assert_eq!(t.count(), 2);
/// ```
pub type TakeAny<I> = TakeSkipAny<I>;
/// The iterator of [`ParallelIterator::skip_any`].
///
/// ```
/// use blitz_par::prelude::*;
/// let s: blitz_par::iter::SkipAny<_> = (0..9).into_par_iter().skip_any(2);
/// assert_eq!(s.count(), 7);
/// ```
pub type SkipAny<I> = TakeSkipAny<I>;

impl<I> TakeSkipAny<I> {
    pub(super) fn new(base: I, n: usize, take: bool) -> Self {
        TakeSkipAny { base, n, take }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeSkipAny<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let counter = AtomicUsize::new(0);
        let (n, take) = (self.n, self.take);
        let counter = &counter;
        // Claims one of the first `n` slots; true while slots remain.
        let claim = move || {
            counter
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                    (c < n).then_some(c + 1)
                })
                .is_ok()
        };
        if take {
            if n == 0 {
                return super::sources::empty().drive_unindexed(consumer);
            }
            let done = move || counter.load(Ordering::Relaxed) >= n;
            self.base
                .map(move |x| claim().then_some(x))
                .while_some_until(done)
                .drive_unindexed(consumer)
        } else {
            self.base
                .filter(move |_| !claim())
                .drive_unindexed(consumer)
        }
    }
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

/// The iterator of [`ParallelIterator::intersperse`]: a clone of the separator between every
/// two items.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().intersperse(0).collect();
/// assert_eq!(v, [1, 0, 2, 0, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    base: I,
    separator: I::Item,
}

impl<I> Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    pub(super) fn new(base: I, separator: I::Item) -> Self {
        Intersperse { base, separator }
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        if self.base.opt_len().is_none() {
            // Without a length the base splits anywhere, and a part cannot tell whether the
            // parts before it produced anything (whether its first item needs a separator).
            // Collect first; the indexed path below is exact.
            let items: Vec<I::Item> = self.base.collect();
            return Intersperse::new(items.into_par_iter(), self.separator)
                .drive_unindexed(consumer);
        }
        // The separator is cloned into each part (not shared), so it need not be `Sync`, as
        // in rayon.
        let consumer = IntersperseConsumer {
            base: consumer,
            separator: self.separator,
            sep_first: false,
        };
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.opt_len()?.saturating_mul(2).saturating_sub(1))
    }
}

struct IntersperseConsumer<C, T> {
    base: C,
    separator: T,
    /// Whether this consumer's first item is preceded by a separator (it is not the first).
    sep_first: bool,
}

impl<C, T> Consumer<T> for IntersperseConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        // Base item k lands at 2k + 1 after a leading separator, else at 2k.
        let out_index = match (index, self.sep_first) {
            (0, _) => 0,
            (i, true) => 2 * i,
            (i, false) => 2 * i - 1,
        };
        let (l, r, reducer) = self.base.split_at(out_index);
        let right_sep = index > 0 || self.sep_first;
        (
            IntersperseConsumer {
                base: l,
                separator: self.separator.clone(),
                sep_first: self.sep_first,
            },
            IntersperseConsumer {
                base: r,
                separator: self.separator,
                sep_first: right_sep,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            separator: self.separator,
            sep_next: self.sep_first,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    forward_hints!(base: C => T);
}

impl<C, T> UnindexedConsumer<T> for IntersperseConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    fn split_off_left(&self) -> Self {
        unreachable!("intersperse: the base has a length, so it splits by index")
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct IntersperseFolder<F, T> {
    base: F,
    separator: T,
    sep_next: bool,
}

impl<F: Folder<T>, T: Clone> Folder<T> for IntersperseFolder<F, T> {
    type Result = F::Result;
    fn consume(mut self, item: T) -> Self {
        if self.sep_next {
            self.base = self.base.consume(self.separator.clone());
        }
        self.sep_next = true;
        self.base = self.base.consume(item);
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// An indexed base gives an indexed `Intersperse` (as in rayon): `n` items become `2n - 1`.
impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator,
    I::Item: Clone,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len().saturating_mul(2).saturating_sub(1)
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB, T> {
            callback: CB,
            separator: T,
            len: usize,
        }
        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(IntersperseProducer {
                    base,
                    separator: self.separator,
                    len: self.len,
                    sep_first: false,
                })
            }
        }
        let len = self.len();
        self.base.with_producer(Callback {
            callback,
            separator: self.separator,
            len,
        })
    }
}

/// `len` output positions: base items with separators between them, and one more separator
/// in front when `sep_first` (a right part cut just after an item).
struct IntersperseProducer<P: Producer> {
    base: P,
    separator: P::Item,
    len: usize,
    sep_first: bool,
}

impl<P> Producer for IntersperseProducer<P>
where
    P: Producer,
    P::Item: Clone + Send,
{
    type Item = P::Item;
    type IntoIter = IntersperseSeq<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        IntersperseSeq {
            base: self.base.into_iter(),
            separator: self.separator,
            sep_first: self.len > 0 && self.sep_first,
            // A part of even length ends opposite to how it starts; a part of one position
            // has no room for a second separator.
            sep_last: self.len > 1 && ((self.len % 2 == 0) != self.sep_first),
        }
    }
    // Each base item comes with a separator: twice the base's bounds, in output positions.
    fn min_len(&self) -> usize {
        self.base.min_len().saturating_mul(2)
    }
    fn max_len(&self) -> usize {
        self.base.max_len().saturating_mul(2)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.len);
        // Output positions alternate item, separator (or separator, item): the left part
        // holds half of `index` base items, rounded up when it starts with an item.
        let base_index = (index + usize::from(!self.sep_first)) / 2;
        let (left, right) = self.base.split_at(base_index);
        (
            IntersperseProducer {
                base: left,
                separator: self.separator.clone(),
                len: index,
                sep_first: self.sep_first,
            },
            IntersperseProducer {
                base: right,
                separator: self.separator,
                len: self.len - index,
                sep_first: (index % 2 == 1) != self.sep_first,
            },
        )
    }
}

/// A leaf of an indexed [`Intersperse`].
struct IntersperseSeq<I: Iterator> {
    base: I,
    separator: I::Item,
    sep_first: bool,
    sep_last: bool,
}

impl<I> Iterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        if self.sep_first {
            self.sep_first = false;
            Some(self.separator.clone())
        } else if let Some(item) = self.base.next() {
            // Another base item after this one needs a separator before it.
            self.sep_first = self.base.len() != 0;
            Some(item)
        } else if self.sep_last {
            self.sep_last = false;
            Some(self.separator.clone())
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let items = self.base.len();
        let n = (items + items.saturating_sub(1))
            .saturating_add(usize::from(self.sep_first) + usize::from(self.sep_last));
        (n, Some(n))
    }
}

impl<I> DoubleEndedIterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
    fn next_back(&mut self) -> Option<I::Item> {
        if self.sep_last {
            self.sep_last = false;
            Some(self.separator.clone())
        } else if let Some(item) = self.base.next_back() {
            self.sep_last = self.base.len() != 0;
            Some(item)
        } else if self.sep_first {
            self.sep_first = false;
            Some(self.separator.clone())
        } else {
            None
        }
    }
}

impl<I> ExactSizeIterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
}
