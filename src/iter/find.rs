//! `find_any`, `find_first`, `find_last`: searches that stop the other parts early.
//!
//! `find_any` shares one flag. `find_first`/`find_last` give every consumer a range of
//! positions `[lower, upper)`. An indexed drive lays its items out over the range it starts
//! with (`with_len_hint`), front-loaded from the end the search starts at (item 0 gets half,
//! item 1 a quarter, ...: [`front_loaded`]), and every indexed split cuts that one layout: a
//! long run of chunks peeled off the front does not exhaust it, and the items searched first
//! keep room for searches nested in them (`flat_map`). Unindexed splits halve the range. A
//! match publishes its consumer's position; consumers entirely after (for first) or before
//! (for last) a published match are full. Where ranges run out (deep nesting) positions
//! repeat: the search then stops less early, but the reducer still keeps the leftmost
//! (rightmost) match.

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
    /// Any match will do; which one depends on timing, not on the grouping.
    const GROUPING: Grouping = Grouping::Free;
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
    const MAY_STOP_EARLY: bool = true;
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
        scale: Cell::new(None),
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
    /// The positions of the items, when the indexed driver said how many there are
    /// (`with_len_hint`) and no unindexed split has happened since; a `Cell` for the same
    /// reason as `lower`. `None`: an indexed split cuts one position per item from `lower`.
    scale: Cell<Option<Scale>>,
}

/// How an indexed drive lays its items out on positions: the range and the length it was
/// hinted with (its root), and where this consumer's items start among the root's.
#[derive(Clone, Copy)]
struct Scale {
    root_lower: usize,
    root_width: usize,
    root_len: usize,
    start: usize,
}

impl<'p, P> OrderedConsumer<'p, P> {
    fn with_range(&self, lower: usize, upper: usize, scale: Option<Scale>) -> Self {
        OrderedConsumer {
            predicate: self.predicate,
            best: self.best,
            direction: self.direction,
            lower: Cell::new(lower),
            upper,
            scale: Cell::new(scale),
        }
    }

    /// Where an indexed split before item `index` cuts the positions. With a scale, the
    /// items of the whole indexed drive are laid out front-loaded from the end the search
    /// starts at (see [`front_loaded`]); every split of the drive cuts that one layout, so a
    /// long run of chunks peeled off one end does not halve its way out of positions.
    /// Without one, one position per item from `lower`.
    fn cut(&self, index: usize) -> usize {
        let (lower, upper) = (self.lower.get(), self.upper);
        let Some(s) = self.scale.get() else {
            return lower.saturating_add(index).min(upper);
        };
        let item = s.start.saturating_add(index);
        let cut = match self.direction {
            Direction::First => s.root_lower + front_loaded(item, s.root_width),
            Direction::Last => {
                s.root_lower + s.root_width
                    - front_loaded(s.root_len.saturating_sub(item), s.root_width)
            }
        };
        cut.clamp(lower, upper)
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
    /// The first (or last) match, whatever the grouping.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = OrderedFolder<'p, P, T>;
    type Reducer = OrderedReducer;
    type Result = Option<T>;
    fn split_at(self, index: usize) -> (Self, Self, OrderedReducer) {
        let lower = self.lower.get();
        let mid = self.cut(index);
        let scale = self.scale.get();
        let right_scale = scale.map(|s| Scale {
            start: s.start.saturating_add(index),
            ..s
        });
        (
            self.with_range(lower, mid, scale),
            self.with_range(mid, self.upper, right_scale),
            OrderedReducer(self.direction),
        )
    }
    fn with_len_hint(self, len: usize) -> Self {
        let lower = self.lower.get();
        self.scale.set(Some(Scale {
            root_lower: lower,
            root_width: self.upper - lower,
            root_len: len,
            start: 0,
        }));
        self
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
    const MAY_STOP_EARLY: bool = true;
    const MAY_FOLD_FROM_BACK: bool = true;
    fn folds_from_back(&self) -> bool {
        // The last match is nearest the back: searching there first lets the rest stop.
        self.direction == Direction::Last
    }
    fn searches_in_order(&self) -> bool {
        true
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
        // An unindexed split: how many items each side gets is unknown.
        self.scale.set(None);
        self.with_range(lower, mid, None)
    }
    fn to_reducer(&self) -> OrderedReducer {
        OrderedReducer(self.direction)
    }
}

// One of the thresholds kept beside their code: listed, with its origin, in the second table
// of `src/tuning.rs` (`tests/docs_stay_true.rs` holds the two to the same value).
/// Items an ordered search folds between two reads of the published best: a chunk of cheap
/// items stops within a microsecond of being beaten, and the loop does not pay a load at
/// every item.
const CHECK_EVERY: u32 = 256;

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
    /// One loop over the chunk that keeps the folder in place (item by item, it went through
    /// memory at every item: a search over 5M items took 1.5 times the sequential `find`),
    /// and reads the published best every [`CHECK_EVERY`] items, not at every one.
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let consumer = &self.consumer;
        let mut countdown = 0u32;
        let mut go_on = move || {
            if countdown == 0 {
                countdown = CHECK_EVERY;
                !consumer.beaten()
            } else {
                countdown -= 1;
                true
            }
        };
        match consumer.direction {
            Direction::First => {
                if self.item.is_some() {
                    return self;
                }
                self.item = iter
                    .into_iter()
                    .take_while(|_| go_on())
                    .find(|x| (consumer.predicate)(x));
                if self.item.is_some() {
                    consumer.publish();
                }
            }
            Direction::Last => {
                let last = iter
                    .into_iter()
                    .take_while(|_| go_on())
                    .filter(|x| (consumer.predicate)(x))
                    .last();
                if last.is_some() {
                    self.item = last;
                    consumer.publish();
                }
            }
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

/// The offset, within `width` positions, of the cut before the `i`-th item counted from the end
/// a search starts at. Item 0 gets half the positions, item 1 a quarter, items 2 and 3 an
/// eighth between them, and in general items `2^k..2^(k+1)` share `2^-(k+2)` of them equally:
/// the items a search reaches first keep the most room for the positions of searches nested
/// in them (three `flat_map` levels of 10^9 items need about 90 bits if every item gets the
/// same share), while the cuts stay distinct for the first 2^31 items of a 64-bit range, so
/// a long run of chunks peeled off the front does not run out of positions either.
/// Nondecreasing in `i`, and at most `width`.
fn front_loaded(i: usize, width: usize) -> usize {
    if i == 0 {
        return 0;
    }
    let k = usize::BITS - 1 - i.leading_zeros();
    // Positions from band k to the end, and from band k + 1 to the end.
    let tail = width.checked_shr(k + 1).unwrap_or(0);
    let next_tail = width.checked_shr(k + 2).unwrap_or(0);
    let per_item = (tail - next_tail) >> k;
    (width - tail) + (i - (1 << k)) * per_item
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

#[cfg(test)]
mod tests {
    use super::front_loaded;

    #[test]
    fn front_loaded_cuts_are_ordered_and_in_range() {
        for width in [0usize, 1, 2, 3, 7, 1000, 1 << 40, usize::MAX] {
            let mut last = 0;
            for i in (0..5000).chain([1 << 20, 1 << 31, 1 << 40, usize::MAX / 2, usize::MAX]) {
                let cut = front_loaded(i, width);
                assert!(cut >= last, "cut {i} of {width} went back");
                assert!(cut <= width, "cut {i} of {width} out of range");
                last = cut;
            }
        }
    }

    #[test]
    fn front_loaded_keeps_room_up_front_and_distinct_cuts() {
        let w = usize::MAX;
        assert_eq!(front_loaded(1, w), w - w / 2);
        assert_eq!(front_loaded(2, w), w - w / 4);
        // The first 2^31 items of a full range each keep at least one position of their own.
        for i in [1usize, 2, 3, 1000, 1 << 30, (1 << 31) - 1] {
            assert!(
                front_loaded(i + 1, w) > front_loaded(i, w),
                "item {i} has no room"
            );
        }
        // Item 0 keeps half of any range, so three nested levels still have room.
        let first = front_loaded(1, w);
        let second = front_loaded(1, front_loaded(1_000_000, first));
        assert!(front_loaded(1, second) > 1 << 20);
    }
}
