//! `find_any`, `find_first`, `find_last`: searches that stop the other parts early.
//!
//! `find_any` shares one flag. `find_first`/`find_last` give every consumer a range of
//! positions `[lower, upper)`: indexed splits cut it at the item index (so a long run of chunks
//! peeled off the front never exhausts it), unindexed splits halve it. A match publishes its
//! consumer's position; consumers entirely after (for first) or before (for last) a published
//! match are full. Where ranges run out (deep unindexed nesting) positions repeat: the search
//! then stops less early, but the reducer still keeps the leftmost (rightmost) match.

use super::plumbing::*;
use super::ParallelIterator;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub(super) fn find_any<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let found = AtomicBool::new(false);
    par_iter.drive_unindexed(AnyConsumer {
        predicate: &predicate,
        found: &found,
    })
}

struct AnyConsumer<'p, P> {
    predicate: &'p P,
    found: &'p AtomicBool,
}

impl<'p, P> Clone for AnyConsumer<'p, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<'p, P> Copy for AnyConsumer<'p, P> {}

impl<'p, T, P> Consumer<T> for AnyConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = AnyFolder<'p, P, T>;
    type Reducer = AnyReducer;
    type Result = Option<T>;
    fn split_at(self, _index: usize) -> (Self, Self, AnyReducer) {
        (self, self, AnyReducer)
    }
    fn into_folder(self) -> Self::Folder {
        AnyFolder {
            consumer: self,
            item: None,
        }
    }
    fn full(&self) -> bool {
        // Relaxed: the flag only ends work early; the result travels through the reducers.
        self.found.load(Ordering::Relaxed)
    }
}

impl<'p, T, P> UnindexedConsumer<T> for AnyConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> AnyReducer {
        AnyReducer
    }
}

struct AnyFolder<'p, P, T> {
    consumer: AnyConsumer<'p, P>,
    item: Option<T>,
}

impl<'p, T, P> Folder<T> for AnyFolder<'p, P, T>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;
    fn consume(mut self, item: T) -> Self {
        if (self.consumer.predicate)(&item) {
            self.consumer.found.store(true, Ordering::Relaxed);
            self.item = Some(item);
        }
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let found = self.consumer.found;
        // Checks the shared flag every item, like the default loop, but without moving self.
        self.item = iter
            .into_iter()
            .take_while(|_| !found.load(Ordering::Relaxed))
            .find(|x| (self.consumer.predicate)(x));
        if self.item.is_some() {
            found.store(true, Ordering::Relaxed);
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        self.item.is_some() || self.consumer.found.load(Ordering::Relaxed)
    }
}

struct AnyReducer;

impl<T> Reducer<Option<T>> for AnyReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    First,
    Last,
}

pub(super) fn find_first<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find_ordered(par_iter, predicate, Direction::First)
}

pub(super) fn find_last<I, P>(par_iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    find_ordered(par_iter, predicate, Direction::Last)
}

fn find_ordered<I, P>(par_iter: I, predicate: P, direction: Direction) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let best = AtomicUsize::new(match direction {
        Direction::First => usize::MAX,
        Direction::Last => 0,
    });
    let consumer = OrderedConsumer {
        predicate: &predicate,
        best: &best,
        direction,
        lower: Cell::new(0),
        upper: usize::MAX,
    };
    par_iter.drive_unindexed(consumer)
}

struct OrderedConsumer<'p, P> {
    predicate: &'p P,
    /// The best published position: the least (first) or greatest (last) match so far.
    best: &'p AtomicUsize,
    direction: Direction,
    /// Start of this consumer's positions; a `Cell` because `split_off_left` (through `&self`)
    /// hands the lower half away.
    lower: Cell<usize>,
    upper: usize,
}

impl<'p, P> OrderedConsumer<'p, P> {
    fn with_range(&self, lower: usize, upper: usize) -> Self {
        OrderedConsumer {
            predicate: self.predicate,
            best: self.best,
            direction: self.direction,
            lower: Cell::new(lower),
            upper,
        }
    }

    /// The position a match here publishes.
    fn position(&self) -> usize {
        match self.direction {
            Direction::First => self.lower.get(),
            Direction::Last => self.upper,
        }
    }

    /// Whether a published match beats anything this consumer could find.
    fn beaten(&self) -> bool {
        // Relaxed: `best` only ends work early; the result travels through the reducers.
        let best = self.best.load(Ordering::Relaxed);
        match self.direction {
            Direction::First => best < self.lower.get(),
            Direction::Last => best > self.upper,
        }
    }

    fn publish(&self) {
        let position = self.position();
        match self.direction {
            Direction::First => self.best.fetch_min(position, Ordering::Relaxed),
            Direction::Last => self.best.fetch_max(position, Ordering::Relaxed),
        };
    }
}

impl<'p, T, P> Consumer<T> for OrderedConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    type Folder = OrderedFolder<'p, P, T>;
    type Reducer = OrderedReducer;
    type Result = Option<T>;
    fn split_at(self, index: usize) -> (Self, Self, OrderedReducer) {
        let lower = self.lower.get();
        let mid = lower.saturating_add(index).min(self.upper);
        (
            self.with_range(lower, mid),
            self.with_range(mid, self.upper),
            OrderedReducer(self.direction),
        )
    }
    fn into_folder(self) -> Self::Folder {
        OrderedFolder {
            consumer: self,
            item: None,
        }
    }
    fn full(&self) -> bool {
        self.beaten()
    }
    fn folds_from_back(&self) -> bool {
        // The last match is nearest the back: searching there first lets the rest stop.
        self.direction == Direction::Last
    }
}

impl<'p, T, P> UnindexedConsumer<T> for OrderedConsumer<'p, P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync,
{
    fn split_off_left(&self) -> Self {
        // Once the range is a single position the halves cannot be told apart; see the module
        // docs for why that stays correct.
        let lower = self.lower.get();
        let mid = lower + (self.upper - lower) / 2;
        self.lower.set(mid);
        self.with_range(lower, mid)
    }
    fn to_reducer(&self) -> OrderedReducer {
        OrderedReducer(self.direction)
    }
}

struct OrderedFolder<'p, P, T> {
    consumer: OrderedConsumer<'p, P>,
    item: Option<T>,
}

impl<'p, T, P> Folder<T> for OrderedFolder<'p, P, T>
where
    P: Fn(&T) -> bool,
{
    type Result = Option<T>;
    fn consume(mut self, item: T) -> Self {
        let take = match self.consumer.direction {
            Direction::First => self.item.is_none(),
            Direction::Last => true,
        };
        if take && (self.consumer.predicate)(&item) {
            self.item = Some(item);
            self.consumer.publish();
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        match self.consumer.direction {
            Direction::First => self.item.is_some() || self.consumer.beaten(),
            Direction::Last => self.consumer.beaten(),
        }
    }
}

struct OrderedReducer(Direction);

impl<T> Reducer<Option<T>> for OrderedReducer {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        match self.0 {
            Direction::First => left.or(right),
            Direction::Last => right.or(left),
        }
    }
}
