//! `take_any_while` and `skip_any_while`: the unordered forms of `take_while` and
//! `skip_while`, with rayon's semantics.
//!
//! Both share one flag between all threads. `take_any_while` takes items while the flag is
//! up and the predicate holds; the first item that fails lowers the flag, after which no
//! thread takes more (items already past the check, on other threads, are still taken).
//! `skip_any_while` skips items while the flag is up and the predicate holds; the first item
//! that fails lowers the flag, after which every item is kept.

use super::plumbing::*;
use super::*;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// The iterator of [`ParallelIterator::take_any_while`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|&x| x < 50).collect();
/// assert!(v.iter().all(|&x| x < 50));
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

/// The iterator of [`ParallelIterator::skip_any_while`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|&x| x < 50).collect();
/// assert!(v.iter().filter(|&&x| x >= 50).count() == 50);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

impl<I: fmt::Debug, P> fmt::Debug for TakeAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TakeAnyWhile")
            .field("base", &self.base)
            .finish()
    }
}

impl<I: fmt::Debug, P> fmt::Debug for SkipAnyWhile<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkipAnyWhile")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, P> TakeAnyWhile<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I, P> SkipAnyWhile<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        // Relaxed: the flag orders nothing else; it only stops work early.
        let taking = AtomicBool::new(true);
        let (taking, predicate) = (&taking, &self.predicate);
        // `while_some` stops every thread at the first `None`, which is the flag going down.
        self.base
            .map(move |x| {
                if taking.load(Ordering::Relaxed) && predicate(&x) {
                    Some(x)
                } else {
                    taking.store(false, Ordering::Relaxed);
                    None
                }
            })
            .while_some()
            .drive_unindexed(consumer)
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        // Relaxed: as in `TakeAnyWhile`.
        let skipping = AtomicBool::new(true);
        let (skipping, predicate) = (&skipping, &self.predicate);
        self.base
            .filter(move |x| {
                if !skipping.load(Ordering::Relaxed) || !predicate(x) {
                    skipping.store(false, Ordering::Relaxed);
                    true
                } else {
                    false
                }
            })
            .drive_unindexed(consumer)
    }
}
