//! Progress bars on parallel iterators with [indicatif] (cargo feature `indicatif`).
//!
//! The names are those of indicatif's own `rayon` feature: [`ParallelProgressIterator`] (in
//! the prelude) adds `progress()`, `progress_count(n)`, `progress_with(bar)` and
//! `progress_with_style(style)` to every parallel iterator, and returns a [`ProgressBarIter`]
//! with a public `progress` field and the `with_*` builders. Code written for rayon and
//! indicatif compiles unchanged once `use rayon::prelude::*` becomes
//! `use blitz_par::prelude::*` (and `use indicatif::ParallelProgressIterator` is dropped:
//! the prelude brings this crate's).
//!
//! ```
//! use blitz_par::prelude::*;
//! use indicatif::ProgressBar;
//!
//! let bar = ProgressBar::hidden();
//! let total: u64 = (0..100_000u64).into_par_iter().progress_with(bar.clone()).sum();
//! assert_eq!(total, 99_999 * 100_000 / 2);
//! assert_eq!(bar.position(), 100_000);
//! assert!(bar.is_finished());
//! ```
//!
//! # Cost
//!
//! indicatif's adapter adds 1 to the bar for every item: an atomic add on a line that every
//! thread writes, and a clock reading. Here each thread counts the items of a chunk in a
//! local variable and adds the chunk's count to the bar once, when the chunk is done (a
//! folder that is fed item by item adds once its count reaches a batch that grows while
//! additions come less than a millisecond apart). The driver's chunks take a few
//! microseconds each once their size settles, so the bar still moves smoothly, and its cost
//! disappears in the work: see `PERF.md` for a 10M-item sum with and without a bar.
//!
//! # Differences from indicatif's adapter
//!
//! - The bar finishes (with its [`ProgressFinish`] style, as indicatif's sequential iterator
//!   does when it runs out) when the parallel iterator has been driven to its end with every
//!   item passed on, unless finishing would move the bar (its position, counted on from
//!   [`with_position`](ProgressBarIter::with_position), is not its length: it stays where the
//!   items put it, as with indicatif's adapter); a search that stops early (`find_any`, `any`,
//!   ...) leaves the bar where it stopped. indicatif's rayon adapter never finishes the bar through `sum`, `collect` and
//!   the other consumers, and finishes it as soon as the first chunk ends behind `zip` or
//!   `enumerate`.
//! - The position counts the items passed on, exactly, also when a search stops early.
//!
//! [indicatif]: https://docs.rs/indicatif

use crate::iter::plumbing::{
    forward_hints, Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer,
};
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use ::indicatif::{ProgressBar, ProgressFinish, ProgressStyle};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Progress bars on parallel iterators: indicatif's `ParallelProgressIterator`, for
/// blitz-par's iterators. Brought into scope by `use blitz_par::prelude::*`.
///
/// ```
/// use blitz_par::prelude::*;
/// use indicatif::{ProgressBar, ProgressStyle};
///
/// let v: Vec<u32> = (0..1000).collect();
/// // A bar of `v.len()` steps, drawn to standard error (hidden here, as in a test).
/// let doubled: Vec<u32> = v.par_iter().progress().map(|x| x * 2).collect();
/// assert_eq!(doubled[999], 1998);
///
/// // An unindexed iterator needs its count, or a bar.
/// let evens = v.par_iter().filter(|&&x| x % 2 == 0).progress_count(500).count();
/// assert_eq!(evens, 500);
///
/// let bar = ProgressBar::hidden();
/// v.par_iter().progress_with(bar.clone()).for_each(|_| {});
/// assert_eq!(bar.position(), 1000);
///
/// let style = ProgressStyle::with_template("{bar:40} {pos}/{len}").unwrap();
/// assert_eq!(v.par_iter().progress_with_style(style).count(), 1000);
/// ```
pub trait ParallelProgressIterator: ParallelIterator {
    /// Wraps the iterator with `progress`, which counts the items as they pass.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let bar = indicatif::ProgressBar::hidden();
    /// let n = (0..10).into_par_iter().progress_with(bar.clone()).count();
    /// assert_eq!((n, bar.position()), (10, 10));
    /// ```
    fn progress_with(self, progress: ProgressBar) -> ProgressBarIter<Self>;

    /// Wraps the iterator with a new bar of `len` steps.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it = (0..10).into_par_iter().filter(|x| x % 2 == 0).progress_count(5);
    /// assert_eq!(it.progress.length(), Some(5));
    /// # it.progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    /// assert_eq!(it.count(), 5);
    /// ```
    fn progress_count(self, len: u64) -> ProgressBarIter<Self> {
        self.progress_with(ProgressBar::new(len))
    }

    /// Wraps an indexed iterator with a new bar of as many steps as it has items.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it = (0..10).into_par_iter().progress();
    /// assert_eq!(it.progress.length(), Some(10));
    /// # it.progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    /// assert_eq!(it.sum::<i32>(), 45);
    /// ```
    fn progress(self) -> ProgressBarIter<Self>
    where
        Self: IndexedParallelIterator,
    {
        let len = self.len() as u64;
        self.progress_count(len)
    }

    /// Wraps an indexed iterator with a new bar of as many steps as it has items, drawn in
    /// `style`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let style = indicatif::ProgressStyle::with_template("{wide_bar} {pos}/{len}").unwrap();
    /// let it = (0..10).into_par_iter().progress_with_style(style);
    /// # it.progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    /// assert_eq!(it.count(), 10);
    /// ```
    fn progress_with_style(self, style: ProgressStyle) -> ProgressBarIter<Self>
    where
        Self: IndexedParallelIterator,
    {
        let len = self.len() as u64;
        self.progress_with(ProgressBar::new(len).with_style(style))
    }
}

impl<T: ParallelIterator> ParallelProgressIterator for T {
    fn progress_with(self, progress: ProgressBar) -> ProgressBarIter<Self> {
        ProgressBarIter { it: self, progress }
    }
}

/// A parallel iterator that counts its items on a progress bar: the iterator of
/// [`ParallelProgressIterator`]'s methods. Indexed when the iterator it wraps is.
///
/// ```
/// use blitz_par::prelude::*;
/// use indicatif::ProgressBar;
///
/// let it = (0..4).into_par_iter()
///     .progress_with(ProgressBar::hidden())
///     .with_message("adding")
///     .with_prefix("[1/2]");
/// assert_eq!(it.progress.message(), "adding");
/// // Still indexed: `zip`, `enumerate` and `collect_into_vec` work behind it.
/// let pairs: Vec<(usize, i32)> = it.enumerate().collect();
/// assert_eq!(pairs, [(0, 0), (1, 1), (2, 2), (3, 3)]);
/// ```
#[derive(Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct ProgressBarIter<T> {
    it: T,
    /// The bar the items are counted on.
    pub progress: ProgressBar,
}

impl<T> ProgressBarIter<T> {
    /// Sets the bar's style ([`ProgressBar::with_style`]).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let style = indicatif::ProgressStyle::with_template("{pos}").unwrap();
    /// let it = (0..3).into_par_iter().progress_count(3).with_style(style);
    /// # it.progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    /// assert_eq!(it.count(), 3);
    /// ```
    pub fn with_style(mut self, style: ProgressStyle) -> Self {
        self.progress = self.progress.with_style(style);
        self
    }

    /// Sets the bar's prefix ([`ProgressBar::with_prefix`]).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it = (0..3).into_par_iter().progress_with(indicatif::ProgressBar::hidden());
    /// assert_eq!(it.with_prefix("files").progress.prefix(), "files");
    /// ```
    pub fn with_prefix(mut self, prefix: impl Into<Cow<'static, str>>) -> Self {
        self.progress = self.progress.with_prefix(prefix);
        self
    }

    /// Sets the bar's message ([`ProgressBar::with_message`]).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it = (0..3).into_par_iter().progress_with(indicatif::ProgressBar::hidden());
    /// assert_eq!(it.with_message("hashing").progress.message(), "hashing");
    /// ```
    pub fn with_message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.progress = self.progress.with_message(message);
        self
    }

    /// Sets the bar's position ([`ProgressBar::with_position`]): the items are counted from
    /// there, as indicatif's `rayon` adapter counts them (a bar whose count then ends past its
    /// length is left there, not finished).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let bar = indicatif::ProgressBar::hidden();
    /// (0..3).into_par_iter().progress_with(bar.clone()).with_position(10).for_each(|_| {});
    /// assert_eq!(bar.position(), 13);
    /// // A bar of 10 started at 5: 15 after 10 items.
    /// let bar = indicatif::ProgressBar::new(10);
    /// bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    /// (0..10).into_par_iter().progress_with(bar.clone()).with_position(5).for_each(|_| {});
    /// assert_eq!(bar.position(), 15);
    /// ```
    pub fn with_position(mut self, position: u64) -> Self {
        self.progress = self.progress.with_position(position);
        self
    }

    /// Sets the bar's elapsed time ([`ProgressBar::with_elapsed`]).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use std::time::Duration;
    /// let it = (0..3).into_par_iter().progress_with(indicatif::ProgressBar::hidden());
    /// let it = it.with_elapsed(Duration::from_secs(60));
    /// assert!(it.progress.elapsed() >= Duration::from_secs(60));
    /// ```
    pub fn with_elapsed(mut self, elapsed: Duration) -> Self {
        self.progress = self.progress.with_elapsed(elapsed);
        self
    }

    /// Sets what the bar does when the iterator has been driven to its end
    /// ([`ProgressBar::with_finish`]).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use indicatif::{ProgressBar, ProgressFinish};
    /// let bar = ProgressBar::hidden();
    /// let it = (0..3).into_par_iter().progress_with(bar.clone());
    /// it.with_finish(ProgressFinish::Abandon).for_each(|_| {});
    /// assert_eq!(bar.position(), 3);
    /// ```
    pub fn with_finish(mut self, finish: ProgressFinish) -> Self {
        self.progress = self.progress.with_finish(finish);
        self
    }
}

/// One drive of a [`ProgressBarIter`]: the bar, and what decides whether the drive ran to the
/// end. Borrowed by every producer, consumer and folder of the drive (it outlives them all:
/// the drive runs inside the call that made it).
struct Drive {
    bar: ProgressBar,
    /// Items added to the bar by this drive.
    passed: AtomicU64,
    /// Set when a consumer or folder of the drive was seen full: the consumer behind stopped
    /// taking items before the end.
    stopped: AtomicBool,
}

impl Drive {
    fn new(bar: &ProgressBar) -> Self {
        Drive {
            bar: bar.clone(),
            passed: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        }
    }

    /// Adds `n` items to the bar.
    #[inline]
    fn add(&self, n: u64) {
        if n > 0 {
            self.add_cold(n);
        }
    }

    #[cold]
    fn add_cold(&self, n: u64) {
        self.bar.inc(n);
        self.passed.fetch_add(n, Ordering::Relaxed);
    }

    /// Notes that the consumer behind stopped early when `full` is true; returns `full`.
    #[inline]
    fn note_full(&self, full: bool) -> bool {
        if full {
            self.stopped.store(true, Ordering::Relaxed);
        }
        full
    }

    /// Finishes the bar if the drive passed every item (`len` of them when it is known) and
    /// finishing leaves the position where the items put it: the bar has no length, or its
    /// position is its length. (Finishing in the default style sets the position to the
    /// length: a bar started at `with_position(5)` that counted 10 items to 15 of 10 stays at
    /// 15, as indicatif's own `rayon` adapter, which never finishes, leaves it.)
    fn end(self, len: Option<usize>) {
        let complete = !self.stopped.load(Ordering::Relaxed)
            && len.is_none_or(|len| self.passed.load(Ordering::Relaxed) == len as u64)
            && self
                .bar
                .length()
                .is_none_or(|length| self.bar.position() == length);
        if complete && !self.bar.is_finished() {
            self.bar.finish_using_style();
        }
    }
}

impl<T: ParallelIterator> ParallelIterator for ProgressBarIter<T> {
    type Item = T::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let len = self.it.opt_len();
        let drive = Drive::new(&self.progress);
        let result = self.it.drive_unindexed(ProgressConsumer {
            base: consumer,
            drive: &drive,
        });
        drive.end(len);
        result
    }

    fn opt_len(&self) -> Option<usize> {
        self.it.opt_len()
    }
}

impl<T: IndexedParallelIterator> IndexedParallelIterator for ProgressBarIter<T> {
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>,
    {
        let len = self.it.len();
        let drive = Drive::new(&self.progress);
        let result = self.it.drive(ProgressConsumer {
            base: consumer,
            drive: &drive,
        });
        drive.end(Some(len));
        result
    }

    fn len(&self) -> usize {
        self.it.len()
    }

    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>,
    {
        struct Callback<'d, CB> {
            callback: CB,
            drive: &'d Drive,
        }
        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'_, CB> {
            type Output = CB::Output;
            fn callback<P>(self, base: P) -> CB::Output
            where
                P: Producer<Item = T>,
            {
                self.callback.callback(ProgressProducer {
                    base,
                    drive: self.drive,
                })
            }
        }
        let len = self.it.len();
        let drive = Drive::new(&self.progress);
        let output = self.it.with_producer(Callback {
            callback,
            drive: &drive,
        });
        drive.end(Some(len));
        output
    }
}

struct ProgressProducer<'d, P> {
    base: P,
    drive: &'d Drive,
}

impl<'d, P: Producer> Producer for ProgressProducer<'d, P> {
    type Item = P::Item;
    type IntoIter = ProgressSeqIter<'d, P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        let it = self.base.into_iter();
        ProgressSeqIter {
            unreported: it.len(),
            it,
            drive: self.drive,
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
        let drive = self.drive;
        (
            ProgressProducer { base: left, drive },
            ProgressProducer { base: right, drive },
        )
    }
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        let mut passed = 0;
        let folder = self
            .base
            .fold_with(CountingFolder {
                base: folder,
                passed: &mut passed,
            })
            .base;
        self.drive.add(passed);
        folder
    }
}

/// A folder that counts the items it passes on to `base` (the downstream folder of an indexed
/// adapter's chunk).
struct CountingFolder<'n, F> {
    base: F,
    passed: &'n mut u64,
}

impl<T, F: Folder<T>> Folder<T> for CountingFolder<'_, F> {
    type Result = F::Result;
    fn consume(self, item: T) -> Self {
        *self.passed += 1;
        CountingFolder {
            base: self.base.consume(item),
            passed: self.passed,
        }
    }
    fn consume_iter<I>(self, iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
    {
        let base = self.base.consume_iter(Counted {
            it: iter.into_iter(),
            passed: &mut *self.passed,
        });
        CountingFolder {
            base,
            passed: self.passed,
        }
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// An iterator that counts the items taken from it: one increment of a local per item
/// taken with `next`, and none when it is folded whole (its length is then known).
struct Counted<'n, I> {
    it: I,
    passed: &'n mut u64,
}

impl<I: Iterator> Iterator for Counted<'_, I> {
    type Item = I::Item;
    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        let item = self.it.next();
        *self.passed += u64::from(item.is_some());
        item
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
    #[inline]
    fn fold<B, G>(self, init: B, mut f: G) -> B
    where
        G: FnMut(B, I::Item) -> B,
    {
        match self.it.size_hint() {
            (lower, Some(upper)) if lower == upper => {
                *self.passed += lower as u64;
                self.it.fold(init, f)
            }
            _ => {
                let passed = self.passed;
                self.it.fold(init, move |acc, item| {
                    *passed += 1;
                    f(acc, item)
                })
            }
        }
    }
}

/// The sequential iterator of a chunk behind an indexed adapter (`zip`, `enumerate`, ...):
/// adds the items taken from it to the bar when it is dropped (or runs out).
struct ProgressSeqIter<'d, I: ExactSizeIterator> {
    it: I,
    /// The iterator's length when the bar was last told.
    unreported: usize,
    drive: &'d Drive,
}

impl<I: ExactSizeIterator> ProgressSeqIter<'_, I> {
    fn report(&mut self) {
        let left = self.it.len();
        self.drive.add((self.unreported - left) as u64);
        self.unreported = left;
    }
}

impl<I: ExactSizeIterator> Drop for ProgressSeqIter<'_, I> {
    fn drop(&mut self) {
        self.report();
    }
}

impl<I: ExactSizeIterator> Iterator for ProgressSeqIter<'_, I> {
    type Item = I::Item;
    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        self.it.next()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
    #[inline]
    fn fold<B, G>(mut self, init: B, f: G) -> B
    where
        G: FnMut(B, I::Item) -> B,
    {
        // Through `&mut`, so that `drop` still sees the iterator (now empty) and reports.
        let acc = self.it.by_ref().fold(init, f);
        self.report();
        acc
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for ProgressSeqIter<'_, I> {}

impl<I: ExactSizeIterator + DoubleEndedIterator> DoubleEndedIterator for ProgressSeqIter<'_, I> {
    #[inline]
    fn next_back(&mut self) -> Option<I::Item> {
        self.it.next_back()
    }
    #[inline]
    fn rfold<B, G>(mut self, init: B, f: G) -> B
    where
        G: FnMut(B, I::Item) -> B,
    {
        let acc = self.it.by_ref().rfold(init, f);
        self.report();
        acc
    }
}

struct ProgressConsumer<'d, C> {
    base: C,
    drive: &'d Drive,
}

impl<'d, T, C: Consumer<T>> Consumer<T> for ProgressConsumer<'d, C> {
    type Folder = ProgressFolder<'d, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let drive = self.drive;
        (
            ProgressConsumer { base: left, drive },
            ProgressConsumer { base: right, drive },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        ProgressFolder {
            base: self.base.into_folder(),
            drive: self.drive,
            pending: 0,
            batch: 1,
            since: None,
        }
    }
    fn full(&self) -> bool {
        self.drive.note_full(self.base.full())
    }
    forward_hints!(base: C => T, len);
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for ProgressConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        ProgressConsumer {
            base: self.base.split_off_left(),
            drive: self.drive,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// The most items a folder fed one item at a time holds back from the bar.
const MAX_BATCH: u64 = 1 << 16;

/// A folder fed one item at a time adds to the bar at most about this often: its batch
/// doubles while additions come faster, and shrinks when they come 8 times slower.
const BATCH_INTERVAL: Duration = Duration::from_millis(1);

struct ProgressFolder<'d, F> {
    base: F,
    drive: &'d Drive,
    /// Items passed on and not yet added to the bar.
    pending: u64,
    /// Items fed one at a time (`consume`) are added to the bar once `pending` reaches this.
    batch: u64,
    /// When items were last added from `consume`.
    since: Option<Instant>,
}

impl<F> ProgressFolder<'_, F> {
    /// Adds the pending items of a `consume` call to the bar, and resizes the batch so that
    /// additions come about every [`BATCH_INTERVAL`].
    #[cold]
    fn add_batch(&mut self) {
        let now = Instant::now();
        if let Some(since) = self.since {
            let elapsed = now.saturating_duration_since(since);
            if elapsed < BATCH_INTERVAL {
                self.batch = (self.batch * 2).min(MAX_BATCH);
            } else if elapsed > BATCH_INTERVAL * 8 {
                self.batch = (self.batch / 4).max(1);
            }
        }
        self.since = Some(now);
        self.drive.add(std::mem::take(&mut self.pending));
    }
}

impl<T, F: Folder<T>> Folder<T> for ProgressFolder<'_, F> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        self.base = self.base.consume(item);
        self.pending += 1;
        if self.pending >= self.batch {
            self.add_batch();
        }
        self
    }
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
    {
        // A chunk of the driver: its items go to the bar at once, with those pending.
        let mut passed = std::mem::take(&mut self.pending);
        self.base = self.base.consume_iter(Counted {
            it: iter.into_iter(),
            passed: &mut passed,
        });
        self.drive.add(passed);
        self
    }
    fn complete(self) -> F::Result {
        self.drive.add(self.pending);
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.drive.note_full(self.base.full())
    }
}
