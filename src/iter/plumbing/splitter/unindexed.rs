//! The unindexed driver: producers that split only in halves, eagerly to a depth, along each
//! thread's spine, and where the scheduler asks; the first leaf's time may wake sleepers early.

use super::policy::{early_wakes, Bars};
use crate::iter::plumbing::{Folder, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::scheduler::{self, poll, wake, watch, Reading, Share, Wake, Watch};
use crate::sync::ticks;
use crate::tuning::{EAGER_LEAVES_PER_THREAD, SPINE_DEPTH};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// How many times an unindexed producer is split in halves before any fold, without being
/// asked: so that every thread can get [`EAGER_LEAVES_PER_THREAD`] leaves. A fold of an
/// unindexed producer cannot be interrupted to answer a hungry thread, so some parallel slack
/// must exist before folding starts.
pub(crate) fn eager_depth() -> u32 {
    let threads = crate::current_num_threads().max(1);
    threads.ilog2() + EAGER_LEAVES_PER_THREAD.ilog2()
}

thread_local! {
    /// An unindexed drive's first leaf that called for an early wake ([`first_leaf_timed`]):
    /// the drive (`drive_token`) and the leaf's depth; zeros for none.
    pub(super) static FIRST_LEAF: Cell<(usize, u32)> = const { Cell::new((0, 0)) };
}

/// After the first leaf of an unindexed drive whose producer halves its items evenly (the
/// root thread's first leaf, `levels` splits down, of the drive `drive`): wakes sleepers
/// early, as the indexed loop does ([`EARLY_WAKE_NS`], [`early_wakes`]), when the leaf's
/// time, `spent`, and the next leaf's ([`next_leaf_timed`]; its sibling, as long, unless
/// stolen) both say long work is left. Without this, only the heartbeat woke workers during
/// an unindexed drive, one per beat. Two readings, as in the indexed loop (`Pacer::record`):
/// a first leaf of 100 ns that an interrupt held up for microseconds looks like milliseconds
/// of work, and alone it woke the pool for a drive of a few microseconds. A first leaf of
/// [`MIN_SPLIT_NS`] or more wakes at once, as before: no interrupt makes such a leaf out
/// of a short one, and waiting for a second leaf of heavy items (`par_lines` over 8 lines of
/// 0.8 ms) made the call 4.0 ms instead of 3.3 to 3.4 in most runs.
#[cold]
pub(super) fn first_leaf_timed(bars: &Bars, spent: u64, levels: u32, drive: usize) {
    let wakes = first_leaf_wakes(bars, spent, levels);
    let split = bars.min_split;
    let pending = if wakes > 0 && spent < split {
        (drive, levels)
    } else {
        (0, 0)
    };
    FIRST_LEAF.with(|first| first.set(pending));
    if wakes > 0 && spent >= split {
        wake(Wake::Sleepers(wakes));
    }
}

/// After a leaf of the drive `drive` that is not its first, on a thread whose last first leaf
/// ([`first_leaf_timed`]) called for an early wake: wakes as that leaf's time, `spent`, says,
/// if that drive is this one. The first leaf's verdict is used once, by the next leaf.
#[inline]
pub(super) fn next_leaf_timed(spent: u64, drive: usize) {
    let (first_drive, levels) = FIRST_LEAF.with(Cell::get);
    if first_drive == drive {
        second_leaf_timed(Bars::now(), spent, levels);
    }
}

/// At the end of the unindexed drive whose shared flag is `share` (on the thread that began
/// it): forgets its first leaf's verdict if no later leaf used it (the next leaf was stolen),
/// so that a later drive whose flag has the same address does not use it.
#[inline]
pub(in crate::iter::plumbing) fn drive_unindexed_ended(share: &AtomicBool) {
    FIRST_LEAF.with(|first| {
        if first.get().0 == drive_token(share) {
            first.set((0, 0));
        }
    });
}

#[cold]
pub(super) fn second_leaf_timed(bars: &Bars, spent: u64, levels: u32) {
    FIRST_LEAF.with(|first| first.set((0, 0)));
    let wakes = first_leaf_wakes(bars, spent, levels);
    if wakes > 0 {
        wake(Wake::Sleepers(wakes));
    }
}

/// How many sleepers [`first_leaf_timed`] wakes: 0 for none.
pub(super) fn first_leaf_wakes(bars: &Bars, spent: u64, levels: u32) -> u32 {
    // Leaves of the same size make up the rest of the drive; more than 2^40 is as good as
    // infinite.
    let remaining = (1usize << levels.min(40)) - 1;
    if spent >= bars.leaf_span
        && (remaining as u128) * u128::from(spent) >= u128::from(bars.early_wake)
    {
        early_wakes(bars, spent, 1, remaining)
    } else {
        0
    }
}

/// The root of an unindexed drive: as [`drive_unindexed`], but its first split is watched
/// (`scheduler::watch`) rather than joined. The half this thread drives first runs while the
/// other is published for the watchman, which hands it to the pool once this thread has gone
/// `RESCUE_NS` without finishing a leaf of the drive (each leaf's end moves the watch's
/// clock: `scheduler::Watch::touch`), with a worker idle or asleep. Nothing polls inside a user's item,
/// and the halves split off above a leaf are join frames that only this thread can promote:
/// without the watch, the first item of a few heavy ones (`par_bridge` or `par_lines` over
/// 8 items of 2 ms on 2 cores) ran alone, 10 ms against rayon's 8.
///
/// The other half is then the largest piece, and only the watchman hands it out: a long
/// cheap drive gets its first thieves from the first half's frames (promoted by requests and
/// beats, as before), and the other half when the watchman finds a worker idle, or after
/// the first half.
pub(in crate::iter::plumbing) fn drive_unindexed_root<P, C>(
    producer: P,
    consumer: C,
    depth: u32,
    timed: Option<u32>,
    share: &AtomicBool,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if depth == 0 || consumer.full() {
        return drive_unindexed(producer, consumer, depth, SPINE_DEPTH, timed, share);
    }
    let since = ticks();
    let (left_p, right_p) = match producer.split() {
        (left_p, Some(right_p)) => (left_p, right_p),
        // As `drive_unindexed` after a split that gave nothing: fold.
        (producer, None) => return drive_unindexed(producer, consumer, 0, 0, timed, share),
    };
    let reducer = consumer.to_reducer();
    let left_c = consumer.split_off_left();
    let (depth, timed) = (depth - 1, timed.map(|levels| levels + 1));
    // A consumer that folds from the back drives the back half first.
    let from_back = C::MAY_FOLD_FROM_BACK && consumer.folds_from_back();
    let ((first_p, first_c), rest) = if from_back {
        ((right_p, consumer), (left_p, left_c))
    } else {
        ((left_p, left_c), (right_p, consumer))
    };
    let (first, rest) = watch(
        0,
        drive_token(share),
        since,
        rest,
        move |(p, c), _elapsed| {
            // Handed out: the drive runs in parallel now, as after a steal (below).
            share.store(true, Ordering::Relaxed);
            drive_unindexed(p, c, depth, SPINE_DEPTH, None, share)
        },
        || drive_unindexed(first_p, first_c, depth, SPINE_DEPTH, timed, share),
    );
    let rest = match rest {
        Err(result) => result,
        Ok((p, c)) => drive_unindexed(p, c, depth, 0, None, share),
    };
    if from_back {
        reducer.reduce(rest, first)
    } else {
        reducer.reduce(first, rest)
    }
}

/// The name of an unindexed drive for its watch ([`crate::scheduler::Watch::touch`]): the address
/// of its shared flag, which lives as long as the drive.
#[inline]
pub(super) fn drive_token(share: &AtomicBool) -> usize {
    share as *const AtomicBool as usize
}

/// The unindexed driver: split while `depth` lasts (then while `spine` lasts, on the half
/// this thread runs first) or the scheduler asks, then fold. A consumer that folds from the
/// back runs the back half of each split itself. A stolen half starts a spine of its own.
///
/// `timed`: on the path of first halves from the root, for producers whose halves hold about
/// equal work: the number of splits so far. The leaf at its end is timed
/// ([`first_leaf_timed`]). `None` elsewhere.
pub(super) fn drive_unindexed<P, C>(
    producer: P,
    consumer: C,
    depth: u32,
    spine: u32,
    timed: Option<u32>,
    share: &AtomicBool,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let producer = if depth > 0 || spine > 0 || poll(Reading::None).any() {
        match producer.split() {
            (left_p, Some(right_p)) => {
                let reducer = consumer.to_reducer();
                let left_c = consumer.split_off_left();
                let (depth, first_spine) = match depth {
                    0 => (0, spine.saturating_sub(1)),
                    _ => (depth - 1, spine),
                };
                let second_spine = |ctx: crate::FnContext| match ctx.migrated() {
                    true => {
                        // The drive runs in parallel now: from here on every leaf shares
                        // its thread's halves first (below).
                        if !share.load(Ordering::Relaxed) {
                            share.store(true, Ordering::Relaxed);
                        }
                        SPINE_DEPTH
                    }
                    false => 0,
                };
                let timed = timed.map(|levels| levels + 1);
                let (left, right) = if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
                    let (right, left) = crate::join_context(
                        move |_| {
                            drive_unindexed(right_p, consumer, depth, first_spine, timed, share)
                        },
                        move |ctx| {
                            drive_unindexed(left_p, left_c, depth, second_spine(ctx), None, share)
                        },
                    );
                    (left, right)
                } else {
                    crate::join_context(
                        move |_| drive_unindexed(left_p, left_c, depth, first_spine, timed, share),
                        move |ctx| {
                            drive_unindexed(
                                right_p,
                                consumer,
                                depth,
                                second_spine(ctx),
                                None,
                                share,
                            )
                        },
                    )
                };
                return reducer.reduce(left, right);
            }
            (producer, None) => producer,
        }
    } else {
        producer
    };
    // Leaves long enough to be worth a split on their own poll nothing while they run, so the
    // halves split off above them (join frames, promoted only by requests and beats seen at
    // polls) would wait them out. Once a leaf of the drive has been that long, or a half of
    // it was stolen (`share`), each thread lets idle and sleeping threads have its halves
    // before it folds a leaf. Without this, 16 lines of 2 ms each through `par_lines` on 8
    // threads took 20.7 ms (rayon 4.2). The steal matters where a thief took its half before
    // any leaf was seen to be long: its first leaf could block (items that wait for each
    // other, on I/O) with halves nobody else could take; eight mutually waiting lines on 8
    // threads stalled in most runs. A drive stolen from is parallel already, so the pushes
    // (a few per leaf) and wakes are what rayon pays on every split.
    if share.load(Ordering::Relaxed) {
        scheduler::share(Share::Waking);
    }
    let start = ticks();
    let folder = producer.fold_with(consumer.into_folder());
    let end = ticks();
    let spent = end.wrapping_sub(start);
    // Not stuck in an item: the watch of the drive's first half, if this thread holds it,
    // need not hand the rest out yet.
    let drive = drive_token(share);
    Watch::touch(drive, end);
    if let Some(levels @ 1..) = timed {
        first_leaf_timed(Bars::now(), spent, levels, drive);
    } else {
        next_leaf_timed(spent, drive);
    }
    if spent >= Bars::now().min_split {
        share.store(true, Ordering::Relaxed);
        scheduler::share(Share::Waking);
    }
    folder.complete()
}
