//! The fixed reduction tree: the driver mode of deterministic drives, whose results depend on
//! the input's length alone, not on the thread count, steals or timing.
//!
//! The input of `len` items is cut into leaves of [`LEAF_LEN`] items (the last may be
//! shorter); each leaf is folded sequentially by a fresh folder of the consumer, front to
//! back; leaves `[lo, hi)` with `hi - lo > 1` split at [`tree_split`]`(lo, hi)` (the middle
//! rounded up to a power of two), and the two halves' results are joined by the reducer of
//! that split. The tree is the public contract of [`crate::iter::deterministic`], which
//! `blitz-par-mpi` reproduces across ranks.
//!
//! Scheduling stays dynamic: every inner node is a `join`, which costs a few nanoseconds
//! unless a thread steals its second half, so idle threads take whole subtrees while the
//! results are combined in the same places whoever computes them. A thief times its first
//! leaf; a leaf longer than a split's worth ([`MIN_SPLIT_NS`]) makes every later leaf of the
//! drive share its thread's pending halves first (`scheduler::share(Share::Waking)`), as the adaptive
//! driver does for heavy items: nothing polls inside a leaf.
//!
//! A drive is deterministic ([`wants_fixed_tree`]) when its consumer says so
//! ([`Grouping::Fixed`], the consumer of `deterministic()`), when a `deterministic()`
//! iterator's producer is being driven on this thread ([`Requested`]), when it starts inside a
//! leaf of a fixed drive (so reductions nested in the closures of a deterministic drive are
//! deterministic too), or, for consumers whose result depends on the grouping, when the pool
//! is deterministic (`ThreadPoolBuilder::deterministic`, `BLITZ_DETERMINISTIC`).
//!
//! Unindexed producers (strings, `par_bridge`, `walk_tree`) do not know their items'
//! positions up front: a deterministic drive first gathers their items, in order, into a
//! vector (through the adaptive driver, which keeps the order), then reduces that along the
//! fixed tree ([`gather_then_fixed`]). Producers of other crates, whose items need not be
//! `Send`, fold all their items in one leaf instead ([`fold_one_leaf`]).

use super::{
    Consumer, Folder, Grouping, Producer, ProducerCallback, Reducer, UnindexedConsumer,
    UnindexedProducer,
};
use crate::iter::reduction_tree::{leaf_count, tree_split, LEAF_LEN};
use crate::sync::{ticks, ticks_in};
use crate::tuning::MIN_SPLIT_NS;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// How many `deterministic()` iterators are being driven on this thread with no fixed
    /// drive started below them ([`Requested`]).
    static REQUESTED: Cell<u32> = const { Cell::new(0) };
    /// How many leaves of fixed drives this thread is folding (nested in each other).
    static IN_LEAF: Cell<u32> = const { Cell::new(0) };
}

/// Whether the drive of `C` must follow the fixed tree (see the module docs). One relaxed
/// load for consumers that do not say `Fixed`, while nothing deterministic exists.
#[inline]
pub(crate) fn wants_fixed_tree<C: Consumer<T>, T>() -> bool {
    match C::GROUPING {
        Grouping::Fixed => true,
        grouping => {
            crate::scheduler::may_be_deterministic()
                && asked_at_run_time(grouping == Grouping::Matters)
        }
    }
}

/// The run-time part of [`wants_fixed_tree`], once something may be deterministic.
#[cold]
#[inline(never)]
fn asked_at_run_time(grouping_matters: bool) -> bool {
    REQUESTED.with(Cell::get) > 0
        || IN_LEAF.with(Cell::get) > 0
        || (grouping_matters && crate::scheduler::deterministic_pool())
}

/// Marks that a `deterministic()` iterator is being driven on this thread, until dropped: the
/// next drive this thread starts follows the fixed tree (for the iterators whose producers
/// are driven through `with_producer`, such as `zip`, which the consumer's
/// [`Grouping::Fixed`] does not reach).
pub(crate) struct Requested(());

impl Requested {
    pub(crate) fn new() -> Requested {
        crate::scheduler::note_deterministic();
        REQUESTED.with(|r| r.set(r.get() + 1));
        Requested(())
    }
}

impl Drop for Requested {
    fn drop(&mut self) {
        REQUESTED.with(|r| r.set(r.get() - 1));
    }
}

/// Sets a thread-local counter to a value for a while, and back when dropped (a panic
/// included).
struct SetFor(&'static std::thread::LocalKey<Cell<u32>>, u32);

impl SetFor {
    fn new(key: &'static std::thread::LocalKey<Cell<u32>>, value: u32) -> SetFor {
        SetFor(key, key.with(|c| c.replace(value)))
    }
}

impl Drop for SetFor {
    fn drop(&mut self) {
        let old = self.1;
        self.0.with(|c| c.set(old));
    }
}

/// Runs `producer`'s `len` items into `consumer` along the fixed tree.
pub(crate) fn drive_fixed<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    crate::scheduler::note_deterministic();
    // The request is answered by this drive; work this thread runs while it waits for a
    // thief (unrelated jobs) must not see it.
    let _answered = SetFor::new(&REQUESTED, 0);
    // As the adaptive driver: the consumer learns the length once, before any split.
    let consumer = consumer.with_len_hint(len);
    let leaves = leaf_count(len);
    if leaves <= 1 {
        return fold_leaf(producer, consumer);
    }
    let share = AtomicBool::new(false);
    crate::scheduler::enter(|| node(0, leaves, producer, consumer, &share, true))
}

/// The subtree of leaves `lo..hi` (the producer's items). `first`: whether this thread starts
/// here (the drive's root, or a stolen half), so that its first leaf is timed.
fn node<P, C>(
    lo: usize,
    hi: usize,
    producer: P,
    consumer: C,
    share: &AtomicBool,
    first: bool,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    if hi - lo == 1 {
        if share.load(Ordering::Relaxed) {
            crate::scheduler::share(crate::scheduler::Share::Waking);
        }
        if !first {
            return fold_leaf(producer, consumer);
        }
        let start = ticks();
        let result = fold_leaf(producer, consumer);
        if ticks().wrapping_sub(start) >= ticks_in(MIN_SPLIT_NS) && !share.load(Ordering::Relaxed) {
            share.store(true, Ordering::Relaxed);
        }
        return result;
    }
    let mid = tree_split(lo, hi);
    // Every leaf left of `mid` is whole.
    let split = (mid - lo) * LEAF_LEN;
    let (left_p, right_p) = producer.split_at(split);
    let (left_c, right_c, reducer) = consumer.split_at(split);
    let (left, right) = crate::join_context(
        |_| node(lo, mid, left_p, left_c, share, first),
        |ctx| {
            if ctx.migrated() {
                // A stolen half: the drive runs in parallel now.
                let _answered = SetFor::new(&REQUESTED, 0);
                node(mid, hi, right_p, right_c, share, true)
            } else {
                node(mid, hi, right_p, right_c, share, false)
            }
        },
    );
    reducer.reduce(left, right)
}

/// Folds one leaf with a fresh folder, marked as inside a fixed drive so that drives nested in
/// its closures are deterministic too.
#[inline]
fn fold_leaf<P, C>(producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let depth = IN_LEAF.with(Cell::get);
    let _inside = SetFor::new(&IN_LEAF, depth + 1);
    producer.fold_with(consumer.into_folder()).complete()
}

/// A deterministic drive of an unindexed producer whose items may cross threads: its items,
/// gathered in order through the adaptive driver, then reduced along the fixed tree over
/// their positions (`UnindexedProducer::drive_fixed` of the crate's producers).
pub(crate) fn gather_then_fixed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    P::Item: Send,
    C: UnindexedConsumer<P::Item>,
{
    let items = {
        // The gathering is not the deterministic drive: its own drive must not come back here.
        let _gathering = (SetFor::new(&REQUESTED, 0), SetFor::new(&IN_LEAF, 0));
        let list = super::splitter::drive_unindexed_root(
            producer,
            crate::iter::ListVecConsumer::new(),
            None,
        );
        let mut items = Vec::with_capacity(list.iter().map(Vec::len).sum());
        for mut part in list {
            items.append(&mut part);
        }
        items
    };
    drive_vec_fixed(items, consumer)
}

/// The default deterministic drive of an unindexed producer: every item in one leaf, on this
/// thread (see `UnindexedProducer::drive_fixed`).
pub(crate) fn fold_one_leaf<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    crate::scheduler::note_deterministic();
    let _answered = SetFor::new(&REQUESTED, 0);
    let depth = IN_LEAF.with(Cell::get);
    let _inside = SetFor::new(&IN_LEAF, depth + 1);
    producer.fold_with(consumer.into_folder()).complete()
}

/// Reduces the items of `items` into `consumer` along the fixed tree.
pub(crate) fn drive_vec_fixed<T, C>(items: Vec<T>, consumer: C) -> C::Result
where
    T: Send,
    C: Consumer<T>,
{
    struct Callback<C> {
        len: usize,
        consumer: C,
    }
    impl<T, C: Consumer<T>> ProducerCallback<T> for Callback<C> {
        type Output = C::Result;
        fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
            drive_fixed(self.len, producer, self.consumer)
        }
    }
    use crate::iter::{IndexedParallelIterator, IntoParallelIterator};
    let len = items.len();
    items
        .into_par_iter()
        .with_producer(Callback { len, consumer })
}
