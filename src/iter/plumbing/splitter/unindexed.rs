//! The unindexed driver: producers that split only in halves, eagerly to a depth, along each
//! thread's spine, and where the scheduler asks; the first leaf's time may wake sleepers early.

use super::policy::{early_wakes, Bars};
use crate::iter::plumbing::{Folder, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::scheduler::{self, poll, wake, watch, Reading, Share, Wake, Watch};
use crate::sync::ticks;
use crate::tuning::{EAGER_LEAVES_PER_THREAD, SPINE_DEPTH};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// How many times an unindexed producer is split in halves before any fold, without being
/// asked: so that every thread can get [`EAGER_LEAVES_PER_THREAD`] leaves. A fold of an
/// unindexed producer cannot be interrupted to answer a hungry thread, so some parallel slack
/// must exist before folding starts.
pub(crate) fn eager_depth() -> u32 {
    let threads = crate::current_num_threads().max(1);
    threads.ilog2() + EAGER_LEAVES_PER_THREAD.ilog2()
}

/// What the threads of one unindexed drive share, on the stack of the thread that began it
/// ([`drive_unindexed_root`]), for as long as the drive runs. Its address names the
/// drive for the watch ([`Drive::token`]).
#[derive(Debug, Default)]
pub(in crate::iter::plumbing) struct Drive {
    /// Set once a leaf of the drive takes long or a half of it is stolen: every later leaf
    /// then shares its thread's halves first (see [`drive_unindexed`]).
    share: AtomicBool,
    /// The depth of the drive's first leaf while its call for an early wake waits for the
    /// next leaf to agree ([`first_leaf_timed`]); 0 for none.
    first_leaf: AtomicU32,
}

impl Drive {
    /// The name of the drive for its watch (`scheduler::Watch::touch`): its address, nonzero,
    /// unique while the drive runs.
    #[inline]
    pub(super) fn token(&self) -> usize {
        self as *const Drive as usize
    }

    /// The depth of a first leaf whose call for an early wake waits (0 for none).
    #[cfg(test)]
    pub(super) fn pending_first_leaf(&self) -> u32 {
        self.first_leaf.load(Ordering::Relaxed)
    }
}

/// After the first leaf of the unindexed drive `drive` whose producer halves its items evenly
/// (the root thread's first leaf, `levels` splits down): wakes sleepers early, as the indexed
/// loop does ([`EARLY_WAKE_NS`], [`early_wakes`]), when the leaf's time, `spent`, and the next
/// leaf's ([`next_leaf_timed`]; its sibling, as long, unless stolen) both say long work is
/// left. Without this, only the heartbeat woke workers during an unindexed drive, one per beat.
/// Two readings, as in the indexed loop (`Pacer::record`): a first leaf of 100 ns that an
/// interrupt held up for microseconds looks like milliseconds of work, and alone it woke the
/// pool for a drive of a few microseconds. A first leaf of [`MIN_SPLIT_NS`] or more wakes at
/// once, as before: no interrupt makes such a leaf out of a short one, and waiting for a
/// second leaf of heavy items (`par_lines` over 8 lines of 0.8 ms) made the call 4.0 ms
/// instead of 3.3 to 3.4 in most runs.
///
/// The verdict waits in the drive's state, not the thread's: the next leaf of the drive to
/// end uses it, on whichever thread (a thief's leaf, where the sibling was stolen).
#[cold]
pub(super) fn first_leaf_timed(bars: &Bars, spent: u64, levels: u32, drive: &Drive) {
    let wakes = first_leaf_wakes(bars, spent, levels);
    let split = bars.min_split;
    let pending = if wakes > 0 && spent < split {
        levels
    } else {
        0
    };
    drive.first_leaf.store(pending, Ordering::Relaxed);
    if wakes > 0 && spent >= split {
        wake(Wake::Sleepers(wakes));
    }
}

/// After a leaf of `drive` that is not its first: if the first leaf's call for an early wake
/// waits ([`first_leaf_timed`]), wakes as this leaf's time, `spent`, says. The first leaf's
/// verdict is used once, by the next leaf.
#[inline]
pub(super) fn next_leaf_timed(spent: u64, drive: &Drive) {
    if drive.first_leaf.load(Ordering::Relaxed) != 0 {
        second_leaf_timed(Bars::now(), spent, drive);
    }
}

#[cold]
pub(super) fn second_leaf_timed(bars: &Bars, spent: u64, drive: &Drive) {
    // Taken once, should two leaves end at once.
    let levels = drive.first_leaf.swap(0, Ordering::Relaxed);
    if levels == 0 {
        return;
    }
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

/// The root of an unindexed drive (`plumbing::bridge_unindexed`): enters the pool, then splits
/// eagerly ([`eager_depth`] levels) from [`drive_watched_root`]. `timed`: whether the first
/// leaf is timed (see [`drive_unindexed`]).
pub(in crate::iter::plumbing) fn drive_unindexed_root<P, C>(
    producer: P,
    consumer: C,
    timed: Option<u32>,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    let depth = eager_depth();
    scheduler::enter(move || {
        // What the drive's threads share: whether its leaves share their thread's halves
        // first, and its first leaf's call for an early wake.
        let drive = Drive::default();
        drive_watched_root(producer, consumer, depth, timed, &drive)
    })
}

/// The first split of an unindexed drive: as [`drive_unindexed`], but its first split is watched
/// (`scheduler::watch`) rather than joined. The half this thread drives first runs while the
/// other is published for the watchman, which hands it to the pool once this thread has gone
/// `RESCUE_NS` without finishing a leaf of the drive (each leaf's end moves the watch's
/// clock: `scheduler::Watch::touch`), with a worker idle or asleep. Nothing polls inside a user's item,
/// and the halves split off above a leaf are join frames that only this thread can promote:
/// without the watch, the first item of a few heavy ones (`par_bridge` or `par_lines` over
/// 8 items of 2 ms on 2 cores) ran alone, 10 ms against rayon's 8.
///
/// The other half is then the largest piece, and the oldest: the first promotion of this
/// thread (a request of an idle thread, a beat, or the sharing before long leaves) hands it
/// out before any frame of the first half (`scheduler::watch`'s `take_own_rest`). When the
/// watchman alone handed it out, a thread that asked for work got the first half's frames
/// (a quarter, then an eighth, ...) while the half waited for the first half's end or a
/// rescue: ndarray's `Zip::par_for_each` over 2,048 x 2,048 `f64` on 2 threads took 1.07x
/// rayon's time, against 1.00x with the half handed out first.
fn drive_watched_root<P, C>(
    producer: P,
    consumer: C,
    depth: u32,
    timed: Option<u32>,
    drive: &Drive,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if depth == 0 || consumer.full() {
        return drive_unindexed(producer, consumer, depth, SPINE_DEPTH, timed, drive);
    }
    let since = ticks();
    let (left_p, right_p) = match producer.split() {
        (left_p, Some(right_p)) => (left_p, right_p),
        // As `drive_unindexed` after a split that gave nothing: fold.
        (producer, None) => return drive_unindexed(producer, consumer, 0, 0, timed, drive),
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
        drive.token(),
        since,
        rest,
        move |(p, c), _elapsed| {
            // Handed out: the drive runs in parallel now, as after a steal (below).
            drive.share.store(true, Ordering::Relaxed);
            drive_unindexed(p, c, depth, SPINE_DEPTH, None, drive)
        },
        || drive_unindexed(first_p, first_c, depth, SPINE_DEPTH, timed, drive),
    );
    let rest = match rest {
        Err(result) => result,
        Ok((p, c)) => drive_unindexed(p, c, depth, 0, None, drive),
    };
    if from_back {
        reducer.reduce(rest, first)
    } else {
        reducer.reduce(first, rest)
    }
}

/// The unindexed driver: split while `depth` lasts (then while `spine` lasts, on the half
/// this thread runs first) or the scheduler asks, then fold. A consumer that folds from the
/// back runs the back half of each split itself. A stolen half starts a spine of its own.
///
/// `timed`: on the path of first halves from the root, for producers whose halves hold about
/// equal work: the number of splits so far. The leaf at its end is timed
/// ([`first_leaf_timed`]). `None` elsewhere. `drive`: the state the drive's threads share.
pub(super) fn drive_unindexed<P, C>(
    producer: P,
    consumer: C,
    depth: u32,
    spine: u32,
    timed: Option<u32>,
    drive: &Drive,
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
                        if !drive.share.load(Ordering::Relaxed) {
                            drive.share.store(true, Ordering::Relaxed);
                        }
                        SPINE_DEPTH
                    }
                    false => 0,
                };
                let timed = timed.map(|levels| levels + 1);
                let (left, right) = if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
                    let (right, left) = crate::join_context(
                        move |_| {
                            drive_unindexed(right_p, consumer, depth, first_spine, timed, drive)
                        },
                        move |ctx| {
                            drive_unindexed(left_p, left_c, depth, second_spine(ctx), None, drive)
                        },
                    );
                    (left, right)
                } else {
                    crate::join_context(
                        move |_| drive_unindexed(left_p, left_c, depth, first_spine, timed, drive),
                        move |ctx| {
                            drive_unindexed(
                                right_p,
                                consumer,
                                depth,
                                second_spine(ctx),
                                None,
                                drive,
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
    // it was stolen (`Drive::share`), each thread lets idle and sleeping threads have its halves
    // before it folds a leaf. Without this, 16 lines of 2 ms each through `par_lines` on 8
    // threads took 20.7 ms (rayon 4.2). The steal matters where a thief took its half before
    // any leaf was seen to be long: its first leaf could block (items that wait for each
    // other, on I/O) with halves nobody else could take; eight mutually waiting lines on 8
    // threads stalled in most runs. A drive stolen from is parallel already, so the pushes
    // (a few per leaf) and wakes are what rayon pays on every split.
    if drive.share.load(Ordering::Relaxed) {
        scheduler::share(Share::Waking);
    }
    let start = ticks();
    trace_event!(@at start, LeafBegin);
    let folder = producer.fold_with(consumer.into_folder());
    let end = ticks();
    trace_event!(@at end, LeafEnd, 0);
    let spent = end.wrapping_sub(start);
    // Not stuck in an item: the watch of the drive's first half, if this thread holds it,
    // need not hand the rest out yet.
    Watch::touch(drive.token(), end);
    if let Some(levels @ 1..) = timed {
        first_leaf_timed(Bars::now(), spent, levels, drive);
    } else {
        next_leaf_timed(spent, drive);
    }
    if spent >= Bars::now().min_split {
        drive.share.store(true, Ordering::Relaxed);
        scheduler::share(Share::Waking);
    }
    folder.complete()
}
