//! The splitting policy: the one place that decides between splitting, peeling a chunk and
//! folding. Replaces rayon's "split about `num_threads` times, then again on every steal",
//! whose fixed splits cost ~70x a sequential loop on a 1,000-element sum.
//!
//! Indexed work is processed as a loop over chunks taken off the front. A chunk starts at one
//! item and doubles, so that a thread that gets hungry is answered within a few items even when
//! items are heavy (where a clock reading says items are cheap, it grows faster, to about
//! [`RAMP_TICKS`] of work, ending each chunk at a multiple of its size); doubling pauses while
//! chunks take more than [`SETTLED_TICKS`] of work and hold at least [`SETTLED_MIN_ITEMS`]
//! items (or take more than [`LONG_CHUNK_TICKS`]), so that the fixed cost of a chunk (a split
//! of producer and consumer, a fold, a reduce, one call to `split_wanted`) stays small against
//! the work. Growth only pauses, it never stops: one slow chunk (page faults on fresh memory, a
//! preempted thread) must not pin the chunk size low for the rest of the loop, which made
//! leaves 64 items long in early measurements.
//! Between chunks the driver splits the rest in halves when the scheduler says an idle thread
//! wants work (`split_wanted`), or when the rest is longer than `with_max_len` allows. Both
//! halves run the same loop.
//!
//! A request to split is honoured only when the loop has already run for [`PROVEN_TICKS`] (or
//! descends from one that has) and the rest is estimated to take at least
//! [`MIN_SPLIT_TICKS`]: handing a thief a few microseconds of work costs the owner more (a
//! promoted join, possibly a wake-up, waiting for the thief's result) than doing it, and idle
//! workers ask for work all the time. Estimates from short chunks overstate the cost per item
//! (fixed costs dominate), hence the first condition.
//!
//! The clock is read at the start of a loop, after its first chunk, and then once the items
//! since the last reading are estimated to take [`READ_WORTH_TICKS`] (so every chunk when
//! items are heavy, and the doubling pauses in time) or number [`TIMED_CHUNK`]; a reading
//! times all the items since the previous one. Once the chunk size has settled and the early
//! wake is decided, only every [`SETTLED_READ_CHUNKS`]th chunk is timed, and the scheduler's
//! heartbeat takes that reading instead of its own: a clock reading at the end of a chunk
//! costs far more than alone. Once a reading says the rest of the loop is
//! too short to be worth a split, the rest is folded as one chunk, since nothing else uses
//! chunks: a 1,000-item sum makes 2 chunks and 2 readings (it made 11 and 4 before, and ran
//! 0.21 against 0.15 µs, best of 200,000, on the 2-core VM; the sequential loop takes 0.10).
//!
//! A loop that finds a worker awake and looking for work at a reading of at least
//! [`HOT_SPAN_ITEMS`] items, with at least [`ASKED_SPLIT_TICKS`] of work left, is *hot*: it
//! enters the scheduler at once, splits for that worker without waiting for its request
//! (`scheduler::offer_split`), and honours requests of awake threads ([`Want::Asked`], not
//! beats) down to [`ASKED_SPLIT_TICKS`] left instead of [`MIN_SPLIT_TICKS`]: such a thief
//! starts on its half within a microsecond. A thread that runs such loops one right after
//! another wakes one worker for the next ones ([`Pacer::note_thief`]). A loop of 100,000-item
//! sums, which no heartbeat ever reached, so runs on two threads.
//!
//! Items that each take at least [`MIN_SPLIT_TICKS`] by the estimate (blocking work, a
//! nested parallel call, a big chunk of a slice) are the exception to splitting on request:
//! inside the pool the loop splits them at once, down to single items, and before each chunk
//! pushes the halves it split off where other threads can take them, waking sleepers
//! (`scheduler::share_waking`), since such a chunk polls nothing for an item's time or more.
//! The first chunk of a drive runs before anything is known of the items' cost, so a short
//! loop's first chunk is *watched* (`scheduler::watch`, for drives of up to 16 items per
//! thread): the rest of the loop is published for a background thread, which hands it to
//! the pool if the chunk is still running after ~50 us, with that time as the rest's
//! estimate (`Pacer::rescued`), so the rest splits at once. Before, a loop of 8 items of 5 ms
//! on 8 threads took 10 ms (rayon, which splits up front: 5 ms).
//!
//! The driver enters the scheduler (`scheduler::enter`, which makes a thread outside the pool
//! a guest of it) lazily: only once the loop has run [`PROVEN_TICKS`], or must split for
//! `with_max_len`. Before that no split request would be honoured anyway, so a short loop
//! costs no more than the sequential loop plus its chunking; entering costs 20-70 ns for a
//! guest, a third of a 1,000-item sum.
//!
//! Three consumer properties change the loop's shape, not its policy. A consumer whose folder
//! continues (`Consumer::folder_continues`: collecting into vectors) gets one folder for all
//! the chunks of a loop, so a thread's items between two splits go to one run of blocks; such
//! a loop enters the scheduler before its first chunk, since a folder need not be `Send` and
//! cannot be carried into `enter` later. A consumer that folds from the back
//! (`Consumer::folds_from_back`: `find_last`) gets chunks peeled off the back and runs the back
//! half of each split itself, so the search meets the last match first and stops. An ordered
//! search (`Consumer::searches_in_order`: `find_first`, `position_last`, ...) answers a
//! request for work by keeping only a lead at the end it starts from and handing off the rest
//! ([`Pacer::search_split_point`]), so the threads scan side by side from that end.
//!
//! Unindexed producers (strings, `par_bridge`, ...) cannot be cut at a chosen index, so they
//! split in halves: [`eager_depth`] levels before any fold, [`SPINE_DEPTH`] more down the halves
//! each thread runs first (so its first leaves are short and it soon polls), and further
//! wherever the scheduler asks before a leaf starts. Where halves hold about equal work
//! (strings, slices cut near the middle), the root thread times its first leaf, and that
//! time, once the next leaf's agrees, estimates the drive's for the early wake
//! ([`first_leaf_timed`]). Every leaf is timed:
//! once one takes [`MIN_SPLIT_TICKS`] or more, the drive's threads push their recorded halves
//! and wake sleepers after it and before each later leaf, as the indexed loop does for heavy
//! items. They do the same once a half of the drive has been stolen: a thief that took its
//! part before any leaf was seen to be long could otherwise block in its first leaf with its
//! halves unshared.
//!
//! THE TUNING KNOBS are `Pacer::decide`, [`SETTLED_TICKS`], [`SETTLED_MIN_ITEMS`],
//! [`SETTLED_READ_CHUNKS`], [`RAMP_TICKS`], [`RAMP_GROWTH`],
//! [`LONG_CHUNK_TICKS`], [`MIN_SPLIT_TICKS`], [`ASKED_SPLIT_TICKS`], [`HOT_SPAN_ITEMS`],
//! [`HOT_MIN_REMAINING`], [`STREAK_GAP_TICKS`], [`LOOP_WAKE_TICKS`], [`PROVEN_TICKS`],
//! [`TIMED_CHUNK`],
//! [`EARLY_WAKE_TICKS`], [`WAKE_SHARE_TICKS`],
//! [`LEAF_SPAN_TICKS`], [`eager_depth`] and [`SPINE_DEPTH`]; nothing else in the crate splits,
//! except the driver of ranges longer than a `usize` (`iter/range.rs`), which halves them
//! [`eager_depth`] times and hands every piece to this driver.

use super::{Consumer, Folder, Producer, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::scheduler::{
    beat_now, join, may_watch, offer_split, share_waking, split_wanted, split_wanted_at,
    thief_awake, touch, wake_for_next_call, watch, Want,
};
use crate::sync::{ticks, ticks_for, HEARTBEAT_TICKS};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Items between two clock readings (after a loop's first chunk): a reading costs 7-15 ns
/// with `rdtsc` (15 ns measured on a 16-core Xeon VM) and 20-40 ns with `Instant::now`, while
/// a cheap item costs well under 1 ns; over 256 items a reading stays a small part of the
/// chunk, and items costly enough to matter are caught by the first chunk's reading. (With 64,
/// a profile of a 1,000-item sum on the 2-core VM put a quarter of its time in `rdtsc`: one
/// reading per doubled chunk; 256 saved about 15% of that sum's time.)
const TIMED_CHUNK: usize = 256;

/// Items estimated to take this many ticks (about 400 ns at 2.5 GHz) are worth a clock
/// reading: a reading then costs under 5%.
const READ_WORTH_TICKS: u64 = ticks_for(1_000, 400);

/// A chunk that took more than this many clock ticks pauses the doubling: about 4 us at the
/// 2.5 GHz TSC rate of current x86 parts (invariant TSCs tick at 1 to 4 GHz, so 2.5 to 10 us);
/// `ticks` counts nanoseconds elsewhere (and under Miri). A few microseconds is long enough
/// that the per-chunk overhead (tens of nanoseconds) is below 1%, and short enough that an
/// idle thread waits at most that long for work.
const SETTLED_TICKS: u64 = ticks_for(10_000, 4_000);

/// A chunk of fewer items than this keeps doubling past [`SETTLED_TICKS`] (up to
/// [`LONG_CHUNK_TICKS`]). The end of a chunk costs more than its bookkeeping when items are
/// long dependency chains: the processor overlaps the tail of one item with the start of the
/// next only inside a loop, and the chunk's exit (a mispredicted branch, calls) throws that
/// overlap away. With ~4 us chunks of ~3 items, a map of 200 dependent `sqrt` per item (1.3 us
/// each) burnt 2-3% more CPU than rayon's long leaves, single-threaded too (1.32 against 1.28
/// s for 10 runs on the 2-core VM; the sequential loop 1.30); with 32 items per chunk it runs
/// at par (1.30 s), and on 2 cores of the 16-core Xeon it went from 74.3 ms against rayon's
/// 72.5 to 60.5 against 61.6 (criterion medians). Cheap items are unaffected: their chunks
/// hold thousands of items by the time they take 4 us.
const SETTLED_MIN_ITEMS: usize = 32;

/// Once the chunk size has settled (and the early wake is decided), the clock is read only
/// every this many chunks, and the scheduler's heartbeat uses that reading
/// (`scheduler::split_wanted_at`) instead of reading the clock itself every fourth chunk:
/// one reading per 4 chunks, where there were 5. On the 2-core Xeon VM a `rdtsc` alone takes
/// 12 ns, but at the end of a chunk it costs far more: about 300 ns after items of 200
/// dependent `sqrt` (the processor no longer overlaps the next item with the last one's
/// tail), which made the map of `benches/iter.rs` 1.3% slower than one fold of it, single
/// threaded; and about 50 ns in a memory-bound sum (3% of 4,000-item chunks of `i64`). Four
/// keeps the heartbeat's cadence (`SPLIT_CHECK_WEIGHT`).
const SETTLED_READ_CHUNKS: u32 = 4;

/// The chunk length at which doubling pauses however few items it holds: about 32 us (80,000
/// TSC ticks), a bound on how long an idle thread waits for its split when items are heavy.
const LONG_CHUNK_TICKS: u64 = ticks_for(80_000, 32_000);

/// A split on request needs at least this much estimated work left: about 20 us at a 2.5 GHz
/// TSC (nanoseconds elsewhere: 20 us). A steal by an awake thief and the join that waits for
/// it cost a microsecond or more, and more when the thief is slow to start (a shared 2-core
/// machine: a 12 us sum of 100,000 i64 ran 10-20% slower than sequential with a 10 us bound);
/// waking a sleeping worker costs tens of microseconds. Above ~20 us a split pays off even
/// with a slow thief; the price is that the last ~20 us of a loop are not shared.
pub(crate) const MIN_SPLIT_TICKS: u64 = ticks_for(50_000, 20_000);

/// A split that an awake idle thread asked for ([`Want::Asked`]) needs only this much
/// estimated work left (about 10 us at 2.5 GHz) in a *hot* loop: one that saw a worker awake
/// and looking for work at a reading (see [`Pacer::note_thief`]). Such a thief takes its half
/// within about a microsecond of the split, so what [`MIN_SPLIT_TICKS`] guards against, a
/// woken worker that starts tens of microseconds late, does not apply. In loops of
/// 100,000-item sums of `i64` on the 2-core VM (18 to 20 us alone), each call then took 11
/// to 13 us, the worker woken for the loop taking half of every call; with 5 us, loops of
/// 30,000-item sums (~5.5 us alone) ran 15% slower than the sequential loop where calls came
/// in bursts of 20: a wake per burst and splits of ~2 us each.
const ASKED_SPLIT_TICKS: u64 = ticks_for(25_000, 10_000);

/// A reading must time at least this many items to make a loop hot ([`ASKED_SPLIT_TICKS`]),
/// or to count towards a loop of calls: the fixed costs of the chunks in it are then a small
/// part of the estimate, and so is an interrupt in it of a few microseconds. Not a time: a
/// reading of one or a few items that an interrupt held up looked like milliseconds of work,
/// about once in 20,000 1,000-item sums on the 2-core VM, and (with a bound of 0.5 us of
/// work instead) a loop of them woke a worker 100 times in 2M calls and split 96 of them.
/// A 100,000-item sum of `i64` gets such a reading after 4,096 items (a chunk of 3,840).
/// Loops of fewer, heavier items are served as before: they split on request after
/// [`PROVEN_TICKS`], and long ones wake workers early.
const HOT_SPAN_ITEMS: usize = 1_024;

/// A drive that begins at most this long (about 10 us at 2.5 GHz) after the estimated end of
/// the thread's last drive with a split's worth of work for an awake thief continues a loop of
/// such calls (see [`Pacer::note_thief`]).
const STREAK_GAP_TICKS: u64 = ticks_for(25_000, 10_000);

/// The work a drive in a loop of calls must have left (about 15 us at 2.5 GHz) to wake a
/// sleeping worker for the calls that follow ([`Pacer::note_thief`]); once a worker is awake,
/// loops split for it from [`ASKED_SPLIT_TICKS`] on. Loops of 50,000-item sums of `i64` (~9.5
/// us alone on the 2-core VM, ~9 us left at their reading) woke a worker at the
/// [`ASKED_SPLIT_TICKS`] bar now and then, which took part in some calls, spun through
/// others, and slept and was woken again: 0.92 to 0.99 times the sequential loop's time for
/// 1.9 times its CPU. They now stay on one thread.
const LOOP_WAKE_TICKS: u64 = ticks_for(31_250, 12_500);

thread_local! {
    /// The start and estimated end of the last drive of this thread that had a split's worth
    /// of work for an awake thief ([`Pacer::note_thief`]); zeros before any.
    static STREAK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Items a loop must have left for an early reading (of fewer than [`HOT_SPAN_ITEMS`]) to keep
/// it asking on an awake thief's bar, [`ASKED_SPLIT_TICKS`] (see `Pacer::record`): cheap items
/// (a sum of `i64`: 0.1 to 0.2 ns each on the 2-core VM) take that long only by the tens of
/// thousands.
const HOT_MIN_REMAINING: usize = 16 * HOT_SPAN_ITEMS;

/// Whether a reading that timed `items` items can make a loop hot (see [`HOT_SPAN_ITEMS`]).
#[inline]
fn hot_span(items: usize) -> bool {
    items >= HOT_SPAN_ITEMS
}

/// The most items a loop splits at once on an estimate it inherited (from the loop it was
/// split off) that says items are heavy; a longer one first runs a chunk of its own, whose
/// reading confirms the estimate or replaces it. An estimate can come from a single item
/// that a page fault or a preemption made look heavy (the first reading of a loop is of its
/// first item): inherited without a check, it made every half split again at once, down to
/// single items. A 10M-item map and collect into fresh memory did so in about half the
/// processes of a benchmark run on the 2-core VM: 5M single-item splits, 350 ms against
/// 20 ms. Splitting this many items wrongly costs tens of microseconds; truly heavy items
/// this many take far longer than the one chunk that checks.
const EAGER_INHERITED_MAX: usize = 256;

/// A loop honours split requests only after running this long (about 10 us at 2.5 GHz): by
/// then its cost estimate comes from chunks long enough to be accurate. On a 16-core Xeon a
/// 100,000-item sum (12 us) split on the estimate of its first 16-item chunk and ran 45%
/// slower than sequential as a guest of the pool.
const PROVEN_TICKS: u64 = ticks_for(25_000, 10_000);

/// The lead an ordered search keeps when it hands work off: about 40 us at a 2.5 GHz TSC
/// (nanoseconds elsewhere: 40 us). Twice what a split must leave to pay off
/// ([`MIN_SPLIT_TICKS`]), so that a hand-off's cost stays small against the lead.
const SEARCH_LEAD_TICKS: u64 = ticks_for(100_000, 40_000);

/// A reading that estimates at least this much work left (about 100 us at 2.5 GHz) wakes
/// sleeping workers at once ([`crate::scheduler::beat_now`], as many as [`early_wakes`] says)
/// instead of one at the heartbeat's first beat, ~20 us into the work: rayon wakes a worker
/// when the work is posted, and ran a 150 us `flat_map_iter` (1,000 x 1,000) in 92-96 us
/// against our 118-120 us. Work this long repays a wake-up many times over.
const EARLY_WAKE_TICKS: u64 = ticks_for(250_000, 100_000);

/// An early wake needs a reading that timed at least this much work (about 1.6 us at 2.5
/// GHz): the fixed costs of the chunks in it (tens of nanoseconds each) then overstate the
/// cost per item by far less than the factor of 5 between [`EARLY_WAKE_TICKS`] and
/// [`MIN_SPLIT_TICKS`]. Cheap items (a 100,000-item sum) give such a reading only after
/// thousands of items, when the estimate is right.
const EARLY_WAKE_SPAN_TICKS: u64 = ticks_for(4_000, 1_600);

/// Whether a reading that timed `items` items in `spent` ticks, with `remaining` items left,
/// calls for an early wake (see [`EARLY_WAKE_TICKS`]).
#[inline]
fn long_work_ahead(spent: u64, items: usize, remaining: usize) -> bool {
    spent >= EARLY_WAKE_SPAN_TICKS
        && (remaining as u128) * u128::from(spent) >= u128::from(EARLY_WAKE_TICKS) * (items as u128)
}

/// The work an early wake hands each sleeper it wakes (about 50 us at 2.5 GHz): the wake asks
/// for one sleeper per this much work left, within the guest cap. On the lent 16-core VM,
/// where a woken worker took ~85 us to start, waking one per beat left 16 threads running
/// only ~450 us into a call, rayon's ~150 us; waking all of them at once made a 60 us call
/// burn 6.9 times the sequential CPU (one per beat: 1.2), and waking four, a 350 us call 4.5
/// times (one per beat: 2.1, rayon 8.4). One per 50 us of work is in between: a sum of 1M
/// `u64` (~350 us alone) wakes about 7, a 10M one all of them.
const WAKE_SHARE_TICKS: u64 = ticks_for(125_000, 50_000);

/// How many sleepers an early wake asks for (see [`WAKE_SHARE_TICKS`]): at least 1, at most 64.
#[inline]
fn early_wakes(spent: u64, items: usize, remaining: usize) -> u32 {
    let left = (remaining as u128) * u128::from(spent) / (items.max(1) as u128);
    (left / u128::from(WAKE_SHARE_TICKS)).clamp(1, 64) as u32
}

/// Work that a chunk may grow to at once, faster than doubling (about 1 us at 2.5 GHz): after
/// a reading, the next chunk holds at least as many items as the estimate says take this
/// long (a power of two, at most [`RAMP_GROWTH`] times the chunk before). Doubling from one
/// item took a 100,000-item sum of `i64` through 11 chunks (1, 1, 2, ... 512) and 4 readings
/// before the estimate let it fold the rest at once, 1-2% over one fold of it on the 2-core
/// VM; now it takes 4 or 5 chunks (1, 15, 240, then 1,792 or 3,840, both ending at multiples
/// of their size) and 1.2% (best of 301 rounds of 20 calls: 9,070 against 8,962 ns; 9,104
/// to 9,112 before). A hungry thread waits no longer for it: a chunk this short is far below
/// [`SETTLED_TICKS`], and items that cost this much or more grow by doubling as before. (A
/// 1,000-item sum, 1, 15 and the rest now, where it took 6 chunks, runs about as before:
/// 126-129 against 126-127 ns, medians.)
const RAMP_TICKS: u64 = ticks_for(2_500, 1_000);

/// The most a chunk grows at one reading (see [`RAMP_TICKS`]): an estimate from a single
/// item, which holds a chunk's fixed costs too, is only a guide.
const RAMP_GROWTH: usize = 32;

/// The chunk size that a reading of `spent` ticks over `items` items allows (see
/// [`RAMP_TICKS`]): the largest power of two of items estimated to take at most
/// [`RAMP_TICKS`], at most [`RAMP_GROWTH`] times `chunk`.
#[inline]
fn ramp_chunk(spent: u64, items: usize, chunk: usize) -> usize {
    // floor(log2(work / spent)) by shifts, not a division (a reading is on the hot path of
    // short loops: a 1,000-item sum takes three).
    let work = (items as u64).saturating_mul(RAMP_TICKS);
    let spent = spent.max(1);
    if work < spent {
        return 0;
    }
    let mut shift = spent.leading_zeros() - work.leading_zeros();
    if spent << shift > work {
        shift -= 1;
    }
    usize::try_from(1u64 << shift)
        .unwrap_or(usize::MAX)
        .min(chunk.saturating_mul(RAMP_GROWTH))
}

/// What the driver does next with the `len` items it holds.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Split in halves and run both, potentially in parallel.
    Split,
    /// Fold this many items off the front, then decide again.
    Peel(usize),
    /// Fold everything.
    FoldAll,
}

/// The per-branch state of the policy: leaf bounds, chunk size and cost estimate.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacer {
    /// `with_min_len`: no leaf shorter (unless the whole input is).
    min_len: usize,
    /// `with_max_len`: no leaf longer.
    max_len: usize,
    /// Items in the next chunk.
    chunk: usize,
    /// Ticks and items of the last timed span (items 0: none yet): the cost estimate.
    /// Inherited by both halves of a split.
    rate: (u64, usize),
    /// Whether some loop of this branch ran for [`PROVEN_TICKS`]; inherited.
    proven: bool,
    /// Whether to ask `split_wanted` at all: cleared once the estimate says the rest of the
    /// loop is too short to be worth splitting (it only gets shorter). Saves the call, whose
    /// slow path is taken often while idle threads keep asking.
    asking: bool,
    /// The clock at this loop's start.
    loop_start: u64,
    /// The clock at the last reading, and the items folded since.
    mark: u64,
    since_mark: usize,
    /// Items this loop has folded.
    done: usize,
    /// Whether this branch runs inside `scheduler::enter`; inherited.
    entered: bool,
    /// Items of the whole drive between this loop's next item and the end a search starts
    /// from (the front, or the back for a consumer that folds from the back): grows as chunks
    /// are peeled and for the far side of a split. Sizes the lead of an ordered search
    /// ([`Pacer::search_split_point`]).
    before: usize,
    /// Whether two readings in a row have asked for an early wake: [`EARLY_WAKE_TICKS`] of
    /// work left, or [`HEARTBEAT_TICKS`] since the drive began with a split's worth left;
    /// inherited, so that a drive wakes early at most once.
    long: bool,
    /// The clock at the start of the drive's first loop (0 until then); inherited.
    began: u64,
    /// How many sleepers that reading's early wake asks for ([`early_wakes`]); 0 once asked
    /// (when entered) or if none.
    wake_pending: u32,
    /// Whether the last reading alone called for an early wake: the next one must agree
    /// before the wake is asked for (see `Pacer::record`).
    wake_seen: bool,
    /// Whether the last reading paused the doubling: the chunk size has settled. Inherited.
    settled: bool,
    /// Whether a reading saw a worker awake and looking for work, with at least
    /// [`ASKED_SPLIT_TICKS`] of work left: the loop then enters the scheduler at once, and
    /// honours requests from awake threads down to that much work left, without waiting for
    /// [`PROVEN_TICKS`] ([`Pacer::note_thief`]). Inherited.
    hot: bool,
    /// Whether to split at the next `decide` once entered, without waiting for a request:
    /// set with `hot`, for the awake worker that made the loop hot. Not inherited.
    offer: bool,
    /// What this drive found when it compared itself with the thread's last one (`STREAK`,
    /// [`Pacer::look_at_streak`]): [`Streak::Unknown`] before. Inherited.
    streak: Streak,
    /// Chunks folded since the last reading (0: `mark` was just read).
    chunks_since_mark: u32,
}

impl Pacer {
    pub(super) fn new(min_len: usize, max_len: usize) -> Self {
        Pacer {
            min_len: min_len.max(1),
            max_len: max_len.max(1),
            chunk: 1,
            rate: (0, 0),
            proven: false,
            asking: true,
            loop_start: 0,
            mark: 0,
            since_mark: 0,
            done: 0,
            entered: false,
            before: 0,
            long: false,
            began: 0,
            wake_pending: 0,
            wake_seen: false,
            settled: false,
            hot: false,
            offer: false,
            streak: Streak::Unknown,
            chunks_since_mark: 0,
        }
    }

    /// Starts the loop of one `drive_indexed` call.
    #[inline]
    fn start_loop(&mut self) {
        self.loop_start = ticks();
        if self.began == 0 {
            self.began = self.loop_start.max(1);
        }
        self.mark = self.loop_start;
        self.since_mark = 0;
        self.chunks_since_mark = 0;
        self.done = 0;
    }

    /// Whether nothing is known of the items' cost: no chunk of this loop has run and no
    /// estimate was inherited (the first chunk of a drive, which the driver watches:
    /// `scheduler::watch`).
    #[inline]
    fn fresh(&self) -> bool {
        self.done == 0 && self.rate.1 == 0
    }

    /// The pacer of the rest of a watched loop whose first `n` items had run for `elapsed`
    /// ticks when the watchman handed the rest to a worker: those items are heavy (a rescue
    /// comes after `scheduler::RESCUE_TICKS`), so the rest splits at once.
    fn rescued(mut self, elapsed: u64, n: usize) -> Pacer {
        self.rate = (elapsed.max(1), n);
        self.proven = true;
        self.entered = true;
        self.before = self.before.saturating_add(n);
        self
    }

    /// THE POLICY. Called before every chunk; `len > 0`.
    #[inline]
    fn decide(&mut self, len: usize) -> Step {
        if self.wake_pending > 0 && self.entered {
            beat_now(std::mem::take(&mut self.wake_pending));
        }
        // Split only if both halves are long enough to be leaves.
        if len / 2 >= self.min_len {
            if len > self.max_len {
                return Step::Split;
            }
            // An estimate of this loop's own, or one inherited from the loop it was split
            // off (a thief's half of heavy items splits again at once, not after a chunk).
            let estimated = self.done > 0 || self.rate.1 > 0;
            if self.offer && self.entered {
                // The loop just turned hot: a worker is awake and looking for work; split for
                // it now rather than after its request.
                self.offer = false;
                if self.worth_asked_split(len) {
                    offer_split();
                    return Step::Split;
                }
            }
            if self.asking && estimated {
                if self.entered
                    && self.heavy_items()
                    && (self.done > 0 || len <= EAGER_INHERITED_MAX)
                    && self.worth_splitting(len)
                {
                    // Each item alone is worth a split: split without waiting for a request
                    // or a beat, which come between chunks, each a whole item here (the
                    // halves are shared before the next chunk runs, below). 8 items of 5 ms
                    // on 8 threads took 25 ms (rayon 5).
                    return Step::Split;
                }
                let wanted = if self.settled && self.long {
                    // The heartbeat reads the clock when we do (`SETTLED_READ_CHUNKS`): it
                    // gets `mark` just after a reading.
                    let fresh = self.chunks_since_mark == 0;
                    split_wanted_at(if fresh { self.mark } else { 0 })
                } else {
                    split_wanted()
                };
                let worth = match wanted {
                    Want::No => false,
                    Want::Asked if self.hot => self.worth_asked_split(len),
                    Want::Asked | Want::Beat => self.worth_splitting(len),
                };
                if worth {
                    return Step::Split;
                }
            }
        }
        if self.entered && self.heavy_items() {
            // About to run a chunk that polls nothing for an item's time or more: let idle or
            // sleeping threads have the halves split off so far.
            share_waking();
        }
        if !self.asking && len <= self.max_len {
            // No split will happen in this loop any more (`asking` is cleared for good once
            // the rest is too short to be worth one, and the rest only gets shorter): further
            // chunks would buy nothing but their fixed costs and clock readings.
            return Step::FoldAll;
        }
        let mut chunk = self.chunk.min(self.max_len).max(self.min_len);
        if chunk.is_power_of_two() {
            // End the chunk at a multiple of its size from the loop's start, so that a chunk
            // size that grew faster than doubling ([`RAMP_TICKS`]) keeps chunk starts aligned
            // (a no-op for plain doubling, whose chunks start at multiples of their size).
            let aligned = chunk - (self.done & (chunk - 1));
            if aligned >= self.min_len {
                chunk = aligned;
            }
        }
        // Peel only if what remains can still be a leaf on its own.
        if chunk < len && len - chunk >= self.min_len {
            Step::Peel(chunk)
        } else {
            Step::FoldAll
        }
    }

    /// Whether the estimate says one item takes at least [`MIN_SPLIT_TICKS`]: a split that
    /// hands off even a single item pays off.
    #[inline]
    fn heavy_items(&self) -> bool {
        let (spent, items) = self.rate;
        items > 0 && spent >= MIN_SPLIT_TICKS.saturating_mul(items as u64)
    }

    /// Whether a requested split of the `len` items left pays off (see the module docs).
    #[inline(never)]
    fn worth_splitting(&mut self, len: usize) -> bool {
        let now = ticks();
        if !self.proven {
            if now.wrapping_sub(self.loop_start) < PROVEN_TICKS {
                return false;
            }
            self.proven = true;
        }
        let (spent, items) = if self.rate.1 > 0 {
            self.rate
        } else {
            (now.wrapping_sub(self.loop_start), self.done)
        };
        (len as u128) * u128::from(spent) >= u128::from(MIN_SPLIT_TICKS) * (items as u128)
    }

    /// Whether a split an awake thread asked for pays off in a hot loop: [`ASKED_SPLIT_TICKS`]
    /// of the `len` items left, by the estimate of a reading (which made the loop hot).
    #[inline]
    fn worth_asked_split(&self, len: usize) -> bool {
        let (spent, items) = self.rate;
        items > 0
            && (len as u128) * u128::from(spent) >= u128::from(ASKED_SPLIT_TICKS) * (items as u128)
    }

    /// Whether the loop should enter the scheduler now (when it has not): once it has run for
    /// [`PROVEN_TICKS`], before which no request would be honoured, or once it is hot.
    #[inline]
    fn should_enter(&self) -> bool {
        (self.proven || self.hot) && !self.entered
    }

    /// [`Pacer::note_thief`] with this thread's `STREAK` and the pool's idle workers, and the
    /// wake it may ask for. Out of line: most readings never get here, and the 1,000-item
    /// sum's two readings ran measurably slower with it inline.
    #[cold]
    #[inline(never)]
    fn look_for_thief(&mut self, now: u64, spent: u64, items: usize, remaining: usize) {
        if STREAK.with(|streak| self.note_thief(now, spent, items, remaining, streak, thief_awake))
        {
            wake_for_next_call();
        }
    }

    /// Whether a loop that no reading could make hot yet, estimated at `now` to have `rest`
    /// ticks of work left (a split's worth for an awake thief), may turn hot: it continues a
    /// loop of calls ([`Pacer::look_at_streak`], which records it for the next drive), or a
    /// worker of the pool is awake and looking for work.
    #[cold]
    #[inline(never)]
    fn may_turn_hot(&mut self, now: u64, rest: u64) -> bool {
        STREAK.with(|streak| self.look_at_streak(streak, now.saturating_add(rest))) != Streak::No
            || thief_awake()
    }

    /// Whether this drive continues a loop of calls: whether it began right after the
    /// estimated end of the thread's last drive with a split's worth of work for an awake
    /// thief (`streak`: that drive's start and estimated end). Compared once per drive (the
    /// answer is kept); each call records this drive, with `end` as its estimated end, for
    /// the next drive to compare with.
    fn look_at_streak(&mut self, streak: &Cell<(u64, u64)>, end: u64) -> Streak {
        if self.streak == Streak::Unknown {
            let (began, ended) = streak.get();
            let in_loop = began != 0
                && self.began > began
                && self.began <= ended.saturating_add(STREAK_GAP_TICKS);
            self.streak = if in_loop { Streak::Yes } else { Streak::No };
        }
        streak.set((self.began, end));
        self.streak
    }

    /// At a reading taken at `now` that timed `items` items in `spent` ticks, with
    /// `remaining` items left: if the rest is worth a split to an awake thief (at least
    /// [`ASKED_SPLIT_TICKS`], by a reading of at least [`HOT_SPAN_ITEMS`] items), makes the
    /// loop hot when `thief` says a worker is awake and looking for work, and otherwise answers
    /// whether to wake one for the calls that follow (if at least [`LOOP_WAKE_TICKS`] of work
    /// are left): when this drive continues a loop of such calls
    /// ([`Pacer::look_at_streak`]), a worker woken now is awake for the next ones, where it
    /// keeps itself awake by taking its halves. Without that wake a loop of 100,000-item sums
    /// never woke anyone (nothing in a call of ~20 us does) and ran at the sequential loop's
    /// speed plus the driver's costs. A drive asks for one wake at most.
    #[inline]
    fn note_thief(
        &mut self,
        now: u64,
        spent: u64,
        items: usize,
        remaining: usize,
        streak: &Cell<(u64, u64)>,
        thief: impl FnOnce() -> bool,
    ) -> bool {
        if self.hot || !hot_span(items) {
            return false;
        }
        let rest = (remaining as u128) * u128::from(spent) / (items.max(1) as u128);
        if rest < u128::from(ASKED_SPLIT_TICKS) {
            return false;
        }
        let end = now.saturating_add(u64::try_from(rest).unwrap_or(u64::MAX));
        let in_loop = self.look_at_streak(streak, end) == Streak::Yes;
        if thief() {
            self.hot = true;
            self.offer = true;
            return false;
        }
        if in_loop && rest >= u128::from(LOOP_WAKE_TICKS) {
            self.streak = Streak::Woken;
            return true;
        }
        false
    }

    /// How many of the `len` items an ordered search keeps when it answers a request for work
    /// (`Consumer::searches_in_order`): those nearest the end it starts from, as many as
    /// take about [`SEARCH_LEAD_TICKS`] and at least half the items already behind the loop
    /// (`before`), and at most half of `len`. The rest goes to the thief, which thus scans
    /// right after this thread's lead instead of from the middle on: a `position_first`
    /// whose match lay just before the middle of 10M items scanned the whole back half
    /// meanwhile, and took twice the sequential loop's time on 2 cores. The growth with
    /// `before` bounds the nesting: each hand-off moves the search's front 1.5 times as far
    /// from its start, so a drive hands off a logarithmic number of times (a waiting thread
    /// runs what it steals on top of its stack).
    fn search_split_point(&self, len: usize) -> usize {
        let (spent, items) = self.rate;
        let lead_items = if items == 0 || spent == 0 {
            0
        } else {
            let n = (items as u128) * u128::from(SEARCH_LEAD_TICKS) / u128::from(spent);
            usize::try_from(n).unwrap_or(usize::MAX)
        };
        let lead = lead_items.max(self.before / 2).max(self.min_len);
        if lead >= len / 2 {
            return split_point(len, self.min_len);
        }
        // Keep the thief's start aligned as `split_point` does.
        let rounded = lead.next_multiple_of(64);
        if rounded < len / 2 {
            rounded
        } else {
            lead
        }
    }

    /// Records that a chunk of `n` items was folded, `remaining` items are left, and reads
    /// the clock if due: updates the estimate, the chunk size and whether to keep asking.
    #[inline]
    fn record(&mut self, n: usize, remaining: usize) {
        let first = self.done == 0;
        self.done += n;
        self.since_mark += n;
        self.chunks_since_mark += 1;
        if remaining == 0 {
            // The loop is over: nothing would use a reading (a 1,000-item sum makes 5).
            return;
        }
        // Between readings the doubling follows the last reading's verdict.
        let mut pause = self.settled;
        let read = first
            || if self.settled && self.long {
                // The chunk size has settled and the early wake is decided: a reading serves
                // only to follow changes in the items' cost. See `SETTLED_READ_CHUNKS`.
                self.chunks_since_mark >= SETTLED_READ_CHUNKS
            } else {
                let (rate_ticks, rate_items) = self.rate;
                let worth_reading = rate_items > 0
                    && (self.since_mark as u128) * u128::from(rate_ticks)
                        >= u128::from(READ_WORTH_TICKS) * (rate_items as u128);
                worth_reading || self.since_mark >= TIMED_CHUNK
            };
        if read {
            let now = ticks();
            let spent = now.wrapping_sub(self.mark);
            let items = self.since_mark;
            self.rate = (spent, items);
            self.mark = now;
            self.since_mark = 0;
            self.chunks_since_mark = 0;
            if now.wrapping_sub(self.loop_start) >= PROVEN_TICKS {
                self.proven = true;
            }
            // An early wake needs two readings in a row that call for one. A reading also
            // times whatever held the thread up meanwhile (an interrupt, the hypervisor
            // running another guest): taken alone, a reading of one item, held up for a few
            // microseconds, made a 1,000-item sum look like 2 ms of work, and it woke the
            // workers, which then asked for splits. That happened about once in 20,000 such
            // sums on the 2-core VM (100 to 170 times a second in a loop of them), and the
            // woken workers took 12% of the CPU samples of that loop. The next reading,
            // one short chunk later (an estimate this high keeps chunks short), is seldom held
            // up too; where items truly are slow it agrees, and the wake comes a chunk late.
            if !self.long {
                let ahead = long_work_ahead(spent, items, remaining);
                // A heartbeat period into the drive, with a split's worth of work left: beat
                // now (one wake), as the heartbeat would at its next clock read. That read
                // comes every fourth chunk (`SPLIT_CHECK_WEIGHT`), and a guest's heartbeat
                // counts from when the loop entered the pool: in a 30,000-item map on the
                // 2-core VM (~80 us alone), entered after ~14 us, the first beat came ~65 us
                // in and the second thread started at ~90 us of a ~110 us call; rayon's
                // starts at ~22 us.
                let beat = now.wrapping_sub(self.began) >= HEARTBEAT_TICKS
                    && (remaining as u128) * u128::from(spent)
                        >= u128::from(MIN_SPLIT_TICKS) * (items as u128);
                if self.wake_seen && ahead {
                    // Long work ahead, on an estimate to trust: enter the scheduler (the loop
                    // does once proven) and wake sleepers (the next `decide`).
                    self.long = true;
                    self.proven = true;
                    self.wake_pending = early_wakes(spent, items, remaining);
                } else if self.wake_seen && beat {
                    self.long = true;
                    self.wake_pending = 1;
                }
                self.wake_seen = ahead || beat;
            }
            let qualified = hot_span(items);
            if qualified && !self.hot {
                self.look_for_thief(now, spent, items, remaining);
            }
            // Under a split's worth of work left, stop asking, unless the loop is hot and
            // an awake thief's split is still worth it; or unless no reading could make it hot
            // yet and it may turn so: a worker is awake, or this thread runs a loop of calls
            // (`may_turn_hot`). A reading of 240 items in a 100,000-item sum put the rest under
            // `MIN_SPLIT_TICKS` and folded it at once, hot or not. Not for loops too short to
            // have that much left at a reading of `HOT_SPAN_ITEMS`: the 1,000-item sum, whose
            // first reading (of one item) often says tens of microseconds, would make a chunk
            // and a reading more; nor for calls on their own, where a 50,000-item sum's extra
            // chunk made it 2-3% slower.
            let work_left = (remaining as u128) * u128::from(spent);
            if work_left < u128::from(MIN_SPLIT_TICKS) * (items as u128) {
                let keep = work_left >= u128::from(ASKED_SPLIT_TICKS) * (items as u128)
                    && (self.hot
                        || (!qualified
                            && remaining >= HOT_MIN_REMAINING
                            && self.may_turn_hot(
                                now,
                                u64::try_from(work_left / (items.max(1) as u128))
                                    .unwrap_or(u64::MAX),
                            )));
                if !keep {
                    self.asking = false;
                }
            }
            // This chunk's share of the span.
            // Multiplied out: a 128-bit division is a call into the runtime library.
            let share_exceeds =
                |limit: u64| u128::from(spent) * (n as u128) > u128::from(limit) * (items as u128);
            pause = share_exceeds(SETTLED_TICKS)
                && (n >= SETTLED_MIN_ITEMS || share_exceeds(LONG_CHUNK_TICKS));
            self.settled = pause;
            if !pause {
                self.chunk = self.chunk.max(ramp_chunk(spent, items, self.chunk));
            }
        }
        // The first chunk of a loop is repeated before the doubling starts, so that chunks
        // start at power-of-two offsets from the loop's start (1, 2, 4, ... for a fresh
        // pacer; multiples of the chunk size once it pauses). From a well-aligned start (a
        // `Vec`'s), a chunk's vector loop then reads whole aligned blocks: with starts at
        // 1, 3, 7, ... every fourth 16-byte load of an `i64` sum crossed a cache line, and a
        // 100,000-item sum ran 40% slower than one fold of it on the 16-core Xeon.
        if n >= self.chunk && !pause && !first {
            self.chunk = self.chunk.saturating_mul(2);
        }
    }
}

/// Folds `producer` into a fresh folder of `consumer` and records it in `pacer`. Also returns
/// whether the folder ended up full: then the items after these are useless too, as they
/// would be to one sequential fold (`find_first` found its match, `while_some` met a `None`).
#[inline]
fn fold_leaf<P, C>(
    producer: P,
    consumer: C,
    n: usize,
    remaining: usize,
    pacer: &mut Pacer,
) -> (C::Result, bool)
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let folder = producer.fold_with(consumer.into_folder());
    let full = folder.full();
    pacer.record(n, remaining);
    (folder.complete(), full)
}

/// Joins `acc` (the results so far, with the reducer that joins them to what follows) and
/// `result` (what follows).
#[inline]
fn finish<R, Red: Reducer<R>>(acc: Option<(R, Red)>, result: R) -> R {
    match acc {
        None => result,
        Some((left, reducer)) => reducer.reduce(left, result),
    }
}

/// Whether a drive continues a loop of calls ([`Pacer::look_at_streak`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Streak {
    /// Not compared with the thread's last drive yet.
    Unknown,
    /// It does not.
    No,
    /// It does.
    Yes,
    /// It does, and it has asked for a worker to be woken for the calls that follow.
    Woken,
}

/// What a chunk loop of the indexed driver leaves to [`drive_indexed`]: its result, or a split
/// of the items it has not folded.
enum Driven<P, C, R, Red> {
    /// The loop's result.
    Done(R),
    /// Split these `len` items in halves (`split_and_join`), then join their result to `acc`
    /// (the results of the chunks folded so far and their reducer): after it, or before it
    /// for a loop that folds from the back (`back`).
    Split {
        acc: Option<(R, Red)>,
        back: bool,
        len: usize,
        producer: P,
        consumer: C,
        pacer: Pacer,
    },
}

/// The indexed driver (see the module docs): the chunk loop, then the split it asks for.
///
/// The split runs here, after the loop has returned, not inside the loop: a frame stays on
/// the stack under every nested split, and a debug build makes a function's frame as large as
/// all its locals. Splitting from the loop, each level of `tests/octillion.rs` (three nested
/// ranges, 60 splits deep) took 15.7 KB of stack in a debug build (rayon 4.4 KB) and 2.4 KB
/// in a release one (rayon 1.1 KB); with this, the pacer shared by reference
/// (`split_and_join`) and the two paths of a join in frames of their own in debug builds
/// (`scheduler::join`), 7.7 KB and 1.8 KB. `tests/stack_depth.rs` holds it to that.
#[inline]
pub(super) fn drive_indexed<P, C>(len: usize, producer: P, consumer: C, pacer: Pacer) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    match chunk_loop(len, producer, consumer, pacer) {
        Driven::Done(result) => result,
        Driven::Split {
            acc,
            back,
            len,
            producer,
            consumer,
            pacer,
        } => {
            let rest = split_and_join(len, producer, consumer, pacer);
            match acc {
                None => rest,
                Some((done, reducer)) if back => reducer.reduce(rest, done),
                Some((done, reducer)) => reducer.reduce(done, rest),
            }
        }
    }
}

/// The chunk loop of [`drive_indexed`], or of one of its variants for consumers that fold from
/// the back or keep their folder open.
fn chunk_loop<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if C::FOLDER_MAY_CONTINUE && consumer.folder_continues() {
        if !pacer.entered && len > 0 {
            // The open folder cannot be carried into `enter` (folders need not be `Send`),
            // so a loop that keeps one enters first: a few tens of nanoseconds, against the
            // allocation a collect into vectors makes anyway.
            return Driven::Done(enter_and_drive(len, producer, consumer, pacer));
        }
        return drive_continuing(len, producer, consumer, pacer);
    }
    if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
        return drive_from_back(len, producer, consumer, pacer);
    }
    pacer.start_loop();
    // Results of the chunks folded so far, and the reducer that joins them to the next part.
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    if len >= 2 && pacer.fresh() && may_watch(len) {
        let fold = |p: P, c: C, n, pacer: &mut Pacer| fold_leaf(p, c, n, len - n, pacer);
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(first, reducer, rest) => {
                return Driven::Done(reducer.reduce(first, rest))
            }
            Watched::Go(rest_len, rest_p, rest_c, first) => {
                (len, producer, consumer, acc) = (rest_len, rest_p, rest_c, first);
                if acc.is_some() && pacer.should_enter() && len > 0 {
                    // As after any chunk (below).
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(acc, rest));
                }
            }
        }
    }
    loop {
        if len == 0 || consumer.full() {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish(acc, rest));
        }
        match pacer.decide(len) {
            Step::Split if !pacer.entered => {
                let rest = enter_and_drive(len, producer, consumer, pacer);
                return Driven::Done(finish(acc, rest));
            }
            Step::Split => {
                return Driven::Split {
                    acc,
                    back: false,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (front_p, rest_p) = producer.split_at(n);
                let (front_c, rest_c, reducer) = consumer.split_at(n);
                let (result, full) = fold_leaf(front_p, front_c, n, len - n, &mut pacer);
                acc = Some(match acc {
                    None => (result, reducer),
                    Some((left, previous)) => (previous.reduce(left, result), reducer),
                });
                producer = rest_p;
                consumer = rest_c;
                len = if full { 0 } else { len - n };
                pacer.before = pacer.before.saturating_add(n);
                if pacer.should_enter() {
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(acc, rest));
                }
            }
            Step::FoldAll => {
                let (result, _) = fold_leaf(producer, consumer, len, 0, &mut pacer);
                return Driven::Done(finish(acc, result));
            }
        }
    }
}

/// What a loop's watched first chunk leaves to do ([`watch_first_chunk`]).
enum Watched<P, C, A, Red, R> {
    /// The watchman handed the rest to the pool: the first chunk's `A` (its result, or its
    /// open folder), the reducer that joins it to the rest (the chunk first; the rest first
    /// for a consumer that folds from the back), and the rest's result.
    Handed(A, Red, R),
    /// Go on with this many items, producer, consumer, and the first chunk's `A` and reducer
    /// (`None` if no chunk was folded).
    Go(usize, P, C, Option<(A, Red)>),
}

/// The first chunk of a fresh loop (`Pacer::fresh`), folded by `fold` (into an `A`, and
/// whether its folder is full) while the rest of the loop is watched (`scheduler::watch`).
/// The chunk is the loop's front, or its back for a consumer that folds from the back.
/// Out of the chunk loop, and out of line: in the loop, the check and the moves of the rest
/// through the watch made the chunks of long cheap loops slower (a 10M-item sum took 2.0 to
/// 2.6 against 1.5 ms on the 2-core VM).
#[inline(never)]
#[allow(clippy::type_complexity)]
fn watch_first_chunk<P, C, A>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: &mut Pacer,
    fold: impl FnOnce(P, C, usize, &mut Pacer) -> (A, bool),
) -> Watched<P, C, A, C::Reducer, C::Result>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let n = match pacer.decide(len) {
        Step::Peel(n) if !consumer.full() => n,
        // Not a chunk and a rest: the chunk loop decides again, with the same outcome.
        _ => return Watched::Go(len, producer, consumer, None),
    };
    // A consumer that folds from the back takes its first chunk from the back
    // (`drive_from_back`); its reducer then joins the rest (front) to the chunk (back).
    let ((first_p, first_c), (rest_p, rest_c), reducer) =
        if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
            let (rest_p, back_p) = producer.split_at(len - n);
            let (rest_c, back_c, reducer) = consumer.split_at(len - n);
            ((back_p, back_c), (rest_p, rest_c), reducer)
        } else {
            let (front_p, rest_p) = producer.split_at(n);
            let (front_c, rest_c, reducer) = consumer.split_at(n);
            ((front_p, front_c), (rest_p, rest_c), reducer)
        };
    let rest_pacer = *pacer;
    let ((first, full), rest) = watch(
        len,
        0,
        pacer.loop_start,
        (rest_p, rest_c),
        move |(p, c), elapsed| drive_indexed(len - n, p, c, rest_pacer.rescued(elapsed, n)),
        || fold(first_p, first_c, n, pacer),
    );
    match rest {
        Err(rest_result) => Watched::Handed(first, reducer, rest_result),
        Ok((rest_p, rest_c)) => {
            pacer.before = pacer.before.saturating_add(n);
            let rest_len = if full { 0 } else { len - n };
            Watched::Go(rest_len, rest_p, rest_c, Some((first, reducer)))
        }
    }
}

/// Splits the `len` items in halves and drives both, potentially in parallel. A consumer
/// that folds from the back runs the back half on this thread and offers the front one.
#[inline]
fn split_and_join<P, C>(len: usize, producer: P, consumer: C, pacer: Pacer) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let from_back = C::MAY_FOLD_FROM_BACK && consumer.folds_from_back();
    let mid = if consumer.searches_in_order() && len <= pacer.max_len {
        // The lead stays with this thread, at the end the search starts from.
        let lead = pacer.search_split_point(len);
        if from_back {
            len - lead
        } else {
            lead
        }
    } else {
        split_point(len, pacer.min_len)
    };
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    // Each half copies the pacer when it starts: the halves capture a reference, not a copy,
    // and so stay smaller on every frame of the join they pass through (a stack's worth in
    // deeply nested loops). The half this thread runs keeps `before`; the other lies beyond
    // this one's items.
    let pacer = &pacer;
    let front = move || {
        let mut left_pacer = *pacer;
        left_pacer.offer = false;
        if from_back {
            left_pacer.before = pacer.before.saturating_add(len - mid);
        }
        drive_indexed(mid, left_p, left_c, left_pacer)
    };
    let back = move || {
        let mut right_pacer = *pacer;
        right_pacer.offer = false;
        if !from_back {
            right_pacer.before = pacer.before.saturating_add(mid);
        }
        drive_indexed(len - mid, right_p, right_c, right_pacer)
    };
    // The test of the constant leaves the swapped join out of the code of consumers that
    // never fold from the back.
    let (left, right) = if C::MAY_FOLD_FROM_BACK {
        join_halves(from_back, front, back)
    } else {
        join(front, back)
    };
    reducer.reduce(left, right)
}

/// Where to split `len` items in two: the middle, rounded down to a multiple of 64 items when
/// that leaves the front at least `min_len` (and at least 64) items, so that the back half's
/// loop starts as aligned as the whole (see `Pacer::record` on aligned chunks). Costs at most
/// 63 items of balance.
#[inline]
fn split_point(len: usize, min_len: usize) -> usize {
    let half = len / 2;
    let rounded = half & !63;
    if rounded >= min_len.max(64) {
        rounded
    } else {
        half
    }
}

/// Runs the two halves of a split, potentially in parallel, and returns their results as
/// (front, back): the front half on this thread and the back one offered to thieves, or the
/// other way round for a consumer that folds from the back, so that its search meets the last
/// match first.
#[inline]
pub(crate) fn join_halves<A, B, RA, RB>(from_back: bool, front: A, back: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if from_back {
        let (back, front) = join(back, front);
        (front, back)
    } else {
        join(front, back)
    }
}

/// The loop of [`drive_indexed`] for a consumer that folds from the back
/// (`Consumer::folds_from_back`): the mirror image of the front loop. `acc` holds the results
/// of the chunks after the items left, with the reducer that joins those items to them.
#[inline(never)]
fn drive_from_back<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.start_loop();
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    let finish_back = |result: C::Result, acc: Option<(C::Result, C::Reducer)>| match acc {
        None => result,
        Some((right, reducer)) => reducer.reduce(result, right),
    };
    if len >= 2 && pacer.fresh() && may_watch(len) {
        // A full folder says nothing of the items before it (as below).
        let fold = |p: P, c: C, n, pacer: &mut Pacer| (fold_leaf(p, c, n, len - n, pacer).0, false);
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(last, reducer, rest) => {
                return Driven::Done(reducer.reduce(rest, last))
            }
            Watched::Go(rest_len, rest_p, rest_c, last) => {
                (len, producer, consumer, acc) = (rest_len, rest_p, rest_c, last);
                if acc.is_some() && pacer.should_enter() && len > 0 {
                    // As after any chunk (below).
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish_back(rest, acc));
                }
            }
        }
    }
    loop {
        if len == 0 || consumer.full() {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish_back(rest, acc));
        }
        match pacer.decide(len) {
            Step::Split if !pacer.entered => {
                let rest = enter_and_drive(len, producer, consumer, pacer);
                return Driven::Done(finish_back(rest, acc));
            }
            Step::Split => {
                return Driven::Split {
                    acc,
                    back: true,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (rest_p, back_p) = producer.split_at(len - n);
                let (rest_c, back_c, reducer) = consumer.split_at(len - n);
                // A full folder here says nothing of the items before it: keep going (for
                // `find_last` the consumer of those items is then beaten anyway).
                let (result, _) = fold_leaf(back_p, back_c, n, len - n, &mut pacer);
                acc = Some(match acc {
                    None => (result, reducer),
                    Some((right, previous)) => (previous.reduce(result, right), reducer),
                });
                producer = rest_p;
                consumer = rest_c;
                len -= n;
                pacer.before = pacer.before.saturating_add(n);
                if pacer.should_enter() {
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish_back(rest, acc));
                }
            }
            Step::FoldAll => {
                let (result, _) = fold_leaf(producer, consumer, len, 0, &mut pacer);
                return Driven::Done(finish_back(result, acc));
            }
        }
    }
}

/// The loop of [`drive_indexed`] for a consumer whose folder continues over the chunks
/// (`Consumer::folder_continues`): one folder takes every chunk up to the next split or the
/// end, and the consumers of the chunks after the first are dropped unused. Runs entered.
#[inline(never)]
fn drive_continuing<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.start_loop();
    // The folder holding every item folded so far, and the reducer that joins its result to
    // the rest.
    let mut open: Option<(C::Folder, C::Reducer)> = None;
    if len >= 2 && pacer.fresh() && may_watch(len) {
        // A full folder ends the loop at the top of the chunk loop, as after any chunk.
        let fold = |p: P, c: C, n, pacer: &mut Pacer| {
            let folder = p.fold_with(c.into_folder());
            pacer.record(n, len - n);
            (folder, false)
        };
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(first, reducer, rest) => {
                return Driven::Done(reducer.reduce(first.complete(), rest))
            }
            Watched::Go(rest_len, rest_p, rest_c, first) => {
                (len, producer, consumer, open) = (rest_len, rest_p, rest_c, first);
            }
        }
    }
    let close = |open: Option<(C::Folder, C::Reducer)>| open.map(|(f, r)| (f.complete(), r));
    loop {
        if len == 0 || consumer.full() || open.as_ref().is_some_and(|(f, _)| f.full()) {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish(close(open), rest));
        }
        match pacer.decide(len) {
            Step::Split => {
                return Driven::Split {
                    acc: close(open),
                    back: false,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (front_p, rest_p) = producer.split_at(n);
                let (front_c, rest_c, reducer) = consumer.split_at(n);
                let folder = match open {
                    Some((folder, _)) => folder,
                    None => front_c.into_folder(),
                };
                let folder = front_p.fold_with(folder);
                pacer.record(n, len - n);
                open = Some((folder, reducer));
                producer = rest_p;
                consumer = rest_c;
                len -= n;
            }
            Step::FoldAll => {
                let folder = match open {
                    Some((folder, _)) => folder,
                    None => consumer.into_folder(),
                };
                let result = producer.fold_with(folder).complete();
                pacer.record(len, 0);
                return Driven::Done(result);
            }
        }
    }
}

/// Continues the loop inside `scheduler::enter` (see the module docs).
#[cold]
#[inline(never)]
fn enter_and_drive<P, C>(len: usize, producer: P, consumer: C, mut pacer: Pacer) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.entered = true;
    crate::scheduler::enter(move || drive_indexed(len, producer, consumer, pacer))
}

/// How many times an unindexed producer is split in halves before any fold, without being
/// asked: log2 of the thread count plus 4, so every thread can get about 16 leaves. A fold
/// of an unindexed producer cannot be interrupted to answer a hungry thread, so some
/// parallel slack must exist before folding starts. (Plus 2 until 2026-11-27: with four
/// leaves a thread, the last leaves left the threads unevenly loaded; `par_lines` and
/// `par_chars` over 14 MB on 2 cores ran 1.1 to 1.2 times rayon's time, against 1.0 to 1.1
/// with 16, both with [`SPINE_DEPTH`].)
pub(crate) fn eager_depth() -> u32 {
    let threads = crate::current_num_threads().max(1);
    (usize::BITS - threads.leading_zeros() - 1) + 4
}

/// Splits beyond [`eager_depth`] along the spine of a thread's part of an unindexed drive:
/// the path of first halves that the thread runs itself, from the root or from a half it
/// stole. The spine's leaves are then 1/32 of what they would be, and its other halves
/// grow geometrically: a thread reaches the end of a leaf, where it polls, soon after it
/// starts. Without a spine, the first leaf of a 4.7 ms `par_lines` (1/8 of it on 2 threads)
/// ran before anything polled, so the heartbeat could not wake the sleeping worker for
/// 0.6 ms: 4.0 ms against rayon's 2.4 ms (2.6 ms with the spine).
pub(super) const SPINE_DEPTH: u32 = 5;

/// The least a timed first leaf of an unindexed drive must take for its estimate to count
/// (about 200 ns at 2.5 GHz): a leaf is one fold, whose fixed cost (a folder, a few
/// nanoseconds) is small against this, unlike the chunks of the indexed loop, which
/// [`EARLY_WAKE_SPAN_TICKS`] guards. Lower than that bound because the first leaf is
/// 1/2^([`eager_depth`] + [`SPINE_DEPTH`]) of the input, 1/8192 on 16 threads: a 7 ms
/// `par_lines` has leaves of under 1 us there.
const LEAF_SPAN_TICKS: u64 = ticks_for(500, 200);

thread_local! {
    /// An unindexed drive's first leaf that called for an early wake ([`first_leaf_timed`]):
    /// the drive (`drive_token`) and the leaf's depth; zeros for none.
    static FIRST_LEAF: Cell<(usize, u32)> = const { Cell::new((0, 0)) };
}

/// After the first leaf of an unindexed drive whose producer halves its items evenly (the
/// root thread's first leaf, `levels` splits down, of the drive `drive`): wakes sleepers
/// early, as the indexed loop does ([`EARLY_WAKE_TICKS`], [`early_wakes`]), when the leaf's
/// time, `spent`, and the next leaf's ([`next_leaf_timed`]; its sibling, as long, unless
/// stolen) both say long work is left. Without this, only the heartbeat woke workers during
/// an unindexed drive, one per beat. Two readings, as in the indexed loop (`Pacer::record`):
/// a first leaf of 100 ns that an interrupt held up for microseconds looks like milliseconds
/// of work, and alone it woke the pool for a drive of a few microseconds. A first leaf of
/// [`MIN_SPLIT_TICKS`] or more wakes at once, as before: no interrupt makes such a leaf out
/// of a short one, and waiting for a second leaf of heavy items (`par_lines` over 8 lines of
/// 0.8 ms) made the call 4.0 ms instead of 3.3 to 3.4 in most runs.
#[cold]
fn first_leaf_timed(spent: u64, levels: u32, drive: usize) {
    let wakes = first_leaf_wakes(spent, levels);
    let pending = if wakes > 0 && spent < MIN_SPLIT_TICKS {
        (drive, levels)
    } else {
        (0, 0)
    };
    FIRST_LEAF.with(|first| first.set(pending));
    if wakes > 0 && spent >= MIN_SPLIT_TICKS {
        beat_now(wakes);
    }
}

/// After a leaf of the drive `drive` that is not its first, on a thread whose last first leaf
/// ([`first_leaf_timed`]) called for an early wake: wakes as that leaf's time, `spent`, says,
/// if that drive is this one. The first leaf's verdict is used once, by the next leaf.
#[inline]
fn next_leaf_timed(spent: u64, drive: usize) {
    let (first_drive, levels) = FIRST_LEAF.with(Cell::get);
    if first_drive == drive {
        second_leaf_timed(spent, levels);
    }
}

/// At the end of the unindexed drive whose shared flag is `share` (on the thread that began
/// it): forgets its first leaf's verdict if no later leaf used it (the next leaf was stolen),
/// so that a later drive whose flag has the same address does not use it.
#[inline]
pub(super) fn drive_unindexed_ended(share: &AtomicBool) {
    FIRST_LEAF.with(|first| {
        if first.get().0 == drive_token(share) {
            first.set((0, 0));
        }
    });
}

#[cold]
fn second_leaf_timed(spent: u64, levels: u32) {
    FIRST_LEAF.with(|first| first.set((0, 0)));
    let wakes = first_leaf_wakes(spent, levels);
    if wakes > 0 {
        beat_now(wakes);
    }
}

/// How many sleepers [`first_leaf_timed`] wakes: 0 for none.
fn first_leaf_wakes(spent: u64, levels: u32) -> u32 {
    // Leaves of the same size make up the rest of the drive; more than 2^40 is as good as
    // infinite.
    let remaining = (1usize << levels.min(40)) - 1;
    if spent >= LEAF_SPAN_TICKS
        && (remaining as u128) * u128::from(spent) >= u128::from(EARLY_WAKE_TICKS)
    {
        early_wakes(spent, 1, remaining)
    } else {
        0
    }
}

/// The root of an unindexed drive: as [`drive_unindexed`], but its first split is watched
/// (`scheduler::watch`) rather than joined. The half this thread drives first runs while the
/// other is published for the watchman, which hands it to the pool once this thread has gone
/// `RESCUE_TICKS` without finishing a leaf of the drive (each leaf's end moves the watch's
/// clock: `scheduler::touch`), with a worker idle or asleep. Nothing polls inside a user's item,
/// and the halves split off above a leaf are join frames that only this thread can promote:
/// without the watch, the first item of a few heavy ones (`par_bridge` or `par_lines` over
/// 8 items of 2 ms on 2 cores) ran alone, 10 ms against rayon's 8.
///
/// The other half is then the largest piece, and only the watchman hands it out: a long
/// cheap drive gets its first thieves from the first half's frames (promoted by requests and
/// beats, as before), and the other half when the watchman finds a worker idle, or after
/// the first half.
pub(super) fn drive_unindexed_root<P, C>(
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

/// The name of an unindexed drive for its watch ([`crate::scheduler::touch`]): the address
/// of its shared flag, which lives as long as the drive.
#[inline]
fn drive_token(share: &AtomicBool) -> usize {
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
    let producer = if depth > 0 || spine > 0 || split_wanted().any() {
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
        share_waking();
    }
    let start = ticks();
    let folder = producer.fold_with(consumer.into_folder());
    let end = ticks();
    let spent = end.wrapping_sub(start);
    // Not stuck in an item: the watch of the drive's first half, if this thread holds it,
    // need not hand the rest out yet.
    let drive = drive_token(share);
    touch(drive, end);
    if let Some(levels @ 1..) = timed {
        first_leaf_timed(spent, levels, drive);
    } else {
        next_leaf_timed(spent, drive);
    }
    if spent >= MIN_SPLIT_TICKS {
        share.store(true, Ordering::Relaxed);
        share_waking();
    }
    folder.complete()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Halves of a range of items; records the length of every leaf it folds, in order.
    struct Halving<'r> {
        range: std::ops::Range<usize>,
        leaves: &'r std::sync::Mutex<Vec<usize>>,
    }

    impl UnindexedProducer for Halving<'_> {
        type Item = usize;
        fn split(self) -> (Self, Option<Self>) {
            let mid = self.range.start + self.range.len() / 2;
            if mid == self.range.start {
                return (self, None);
            }
            let right = Halving {
                range: mid..self.range.end,
                leaves: self.leaves,
            };
            (
                Halving {
                    range: self.range.start..mid,
                    leaves: self.leaves,
                },
                Some(right),
            )
        }
        fn fold_with<F: Folder<usize>>(self, folder: F) -> F {
            self.leaves.lock().unwrap().push(self.range.len());
            folder.consume_iter(self.range)
        }
    }

    struct Count;
    impl Consumer<usize> for Count {
        type Folder = CountFolder;
        type Reducer = Sum;
        type Result = usize;
        fn split_at(self, _: usize) -> (Self, Self, Sum) {
            (Count, Count, Sum)
        }
        fn into_folder(self) -> CountFolder {
            CountFolder(0)
        }
        fn full(&self) -> bool {
            false
        }
    }
    impl UnindexedConsumer<usize> for Count {
        fn split_off_left(&self) -> Self {
            Count
        }
        fn to_reducer(&self) -> Sum {
            Sum
        }
    }
    struct CountFolder(usize);
    impl Folder<usize> for CountFolder {
        type Result = usize;
        fn consume(self, _: usize) -> Self {
            CountFolder(self.0 + 1)
        }
        fn complete(self) -> usize {
            self.0
        }
        fn full(&self) -> bool {
            false
        }
    }
    struct Sum;
    impl Reducer<usize> for Sum {
        fn reduce(self, a: usize, b: usize) -> usize {
            a + b
        }
    }

    #[test]
    fn unindexed_drive_splits_eagerly_then_along_the_spine() {
        // One thread, so nothing is stolen, nobody asks and nothing is watched (a slow first
        // half would have its sibling handed out, with a spine of its own): the splits are
        // exactly the eager ones (2^eager_depth leaves) and SPINE_DEPTH more down the first
        // halves.
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let leaves = std::sync::Mutex::new(Vec::new());
        const N: usize = 1 << 20;
        let count = pool.install(|| {
            let depth = eager_depth();
            assert_eq!(depth, 4);
            let producer = Halving {
                range: 0..N,
                leaves: &leaves,
            };
            crate::iter::plumbing::bridge_unindexed(producer, Count)
        });
        assert_eq!(count, N);
        let leaves = leaves.into_inner().unwrap();
        assert_eq!(leaves.len(), (1 << 4) + SPINE_DEPTH as usize, "{leaves:?}");
        // The first leaf is the spine's end; its siblings double back up to an eager leaf.
        assert_eq!(leaves[0], N >> (4 + SPINE_DEPTH));
        assert_eq!(leaves[1], N >> (4 + SPINE_DEPTH));
        assert_eq!(leaves[2], N >> (3 + SPINE_DEPTH));
        assert!(leaves[SPINE_DEPTH as usize + 1..]
            .iter()
            .all(|&n| n == N >> 4));
    }

    #[test]
    fn bounds_are_respected_by_decide() {
        let mut p = Pacer::new(usize::MAX, usize::MAX);
        assert_eq!(p.decide(10), Step::FoldAll);
        let mut p = Pacer {
            chunk: 4,
            ..Pacer::new(3, usize::MAX)
        };
        // 4 off 6 leaves 2 < min_len 3: fold all (a split needs 6/2 >= 3 and a request).
        let step = p.decide(6);
        assert!(step == Step::FoldAll || step == Step::Split);
        let mut p = Pacer::new(1, 1);
        assert_eq!(p.decide(2), Step::Split);
    }

    #[test]
    fn ramp_chunks_hold_about_ramp_ticks_of_work() {
        // Items estimated at a RAMP_TICKS each, or slower: no faster growth (doubling only).
        assert_eq!(ramp_chunk(RAMP_TICKS, 1, 1), 1);
        assert_eq!(ramp_chunk(2 * RAMP_TICKS, 1, 1), 0);
        assert_eq!(
            ramp_chunk(0, 1, 1),
            RAMP_GROWTH,
            "a zero reading is a fast one"
        );
        // Cheap items: the largest power of two that fits, at most RAMP_GROWTH times the chunk.
        assert_eq!(ramp_chunk(RAMP_TICKS, 100, 8), 64);
        assert_eq!(ramp_chunk(RAMP_TICKS, 100, 2), 2 * RAMP_GROWTH);
        assert_eq!(
            ramp_chunk(1, usize::MAX, usize::MAX),
            1 << (usize::BITS - 1)
        );
    }

    #[test]
    fn chunks_double_pause_and_resume() {
        // A span "fast" whatever the clock says: so many items that even a thread paused for
        // seconds between two readings gives each a tiny share (the test asserts no time).
        const MANY: usize = 1 << 40;
        let mut p = Pacer::new(1, usize::MAX);
        p.start_loop();
        p.since_mark = MANY;
        p.record(1, usize::MAX);
        // A fast reading lets the chunk grow at once, by at most RAMP_GROWTH.
        assert_eq!(p.chunk, RAMP_GROWTH);
        // The next peel ends at a multiple of the chunk size, then whole chunks follow; with
        // no reading due (the estimate says these items are cheap), a whole chunk doubles the
        // size and the aligning rest does not.
        assert_eq!(p.decide(usize::MAX), Step::Peel(RAMP_GROWTH - 1));
        p.record(RAMP_GROWTH - 1, usize::MAX);
        assert_eq!(p.chunk, RAMP_GROWTH);
        assert_ne!(p.chunks_since_mark, 0, "no reading");
        assert_eq!(p.decide(usize::MAX), Step::Peel(RAMP_GROWTH));
        p.record(RAMP_GROWTH, usize::MAX);
        assert_eq!(p.chunk, 2 * RAMP_GROWTH);
        let mut p = Pacer { chunk: 4, ..p };
        // A slow span pauses the growth once the chunk is long; the next fast one resumes it.
        // The chunk's share of a span of TIMED_CHUNK items is n / TIMED_CHUNK of its time.
        let slow_span = |p: &mut Pacer, chunk_ticks: u64, n: usize| {
            p.since_mark = TIMED_CHUNK - n;
            p.mark = ticks().wrapping_sub(chunk_ticks * (TIMED_CHUNK / n) as u64);
            p.record(n, usize::MAX);
        };
        slow_span(&mut p, LONG_CHUNK_TICKS * 2, 4);
        assert_eq!(p.chunk, 4);
        assert!(p.settled);
        // Settled, with the early wake decided, the pacer reads the clock only every
        // SETTLED_READ_CHUNKS chunks and hands that reading to the heartbeat; the chunk holds
        // until the next reading.
        p.long = true;
        for _ in 1..SETTLED_READ_CHUNKS {
            p.record(4, usize::MAX);
            assert_eq!(p.chunk, 4);
            assert_ne!(p.chunks_since_mark, 0, "no reading");
        }
        p.since_mark = MANY;
        p.record(4, usize::MAX);
        assert_eq!(p.chunks_since_mark, 0, "a reading");
        assert_eq!(
            p.chunk,
            4 * RAMP_GROWTH,
            "a fast reading resumes the growth"
        );
        assert!(!p.settled);
        p.record(3, usize::MAX);
        assert_eq!(p.chunk, 4 * RAMP_GROWTH);
        // Over SETTLED_TICKS but short of LONG_CHUNK_TICKS: a chunk of few items keeps
        // doubling (its end costs more than its bookkeeping), one of many items pauses. The
        // clock runs on between the two readings, making the chunk look longer: a thread
        // held up for most of a millisecond there would see a long chunk, hence the retries.
        const { assert!(SETTLED_TICKS * 2 < LONG_CHUNK_TICKS / 2) };
        let doubled = (0..5).any(|_| {
            let mut q = Pacer { chunk: 8, ..p };
            slow_span(&mut q, SETTLED_TICKS * 2, 8);
            q.chunk == 16
        });
        assert!(
            doubled,
            "a chunk of 8 items short of LONG_CHUNK_TICKS paused"
        );
        let mut q = Pacer {
            chunk: SETTLED_MIN_ITEMS,
            ..p
        };
        slow_span(&mut q, SETTLED_TICKS * 2, SETTLED_MIN_ITEMS);
        assert_eq!(q.chunk, SETTLED_MIN_ITEMS);
    }

    #[test]
    fn a_heartbeat_into_the_drive_with_a_split_left_asks_for_one_wake() {
        // A reading of a span of ITEMS items over SPAN ticks (one tick an item, whatever the
        // clock adds while the test runs is small against SPAN), `age` ticks after the drive
        // began, with `left` items to go.
        const ITEMS: usize = 100_000;
        const SPAN: u64 = ITEMS as u64;
        // The reading before it called for a wake too (`wake_seen`): a lone reading asks for
        // none (`a_lone_reading_wakes_nobody`).
        let reading = |age: u64, left: u64| {
            let mut p = Pacer::new(1, usize::MAX);
            p.start_loop();
            let now = ticks();
            p.began = now.wrapping_sub(age).max(1);
            p.mark = now.wrapping_sub(SPAN);
            p.since_mark = ITEMS - 1;
            p.wake_seen = true;
            p.record(1, left as usize);
            (p.wake_pending, p.long)
        };
        // Short of the early wake's EARLY_WAKE_TICKS of work left, but a split's worth.
        const { assert!(2 * MIN_SPLIT_TICKS < EARLY_WAKE_TICKS) };
        assert_eq!(reading(2 * HEARTBEAT_TICKS, 2 * MIN_SPLIT_TICKS), (1, true));
        // Less than a split's worth left: no wake.
        assert_eq!(
            reading(2 * HEARTBEAT_TICKS, MIN_SPLIT_TICKS / 2),
            (0, false)
        );
        // Not yet a heartbeat into the drive (retried: a thread held up between the two clock
        // readings would see the drive older than it is).
        assert!((0..5).any(|_| reading(0, 2 * MIN_SPLIT_TICKS) == (0, false)));
        // Long work left wakes by the early-wake rule, however young the drive.
        assert!(reading(0, 4 * EARLY_WAKE_TICKS).0 >= 1);
    }

    #[test]
    fn a_lone_reading_wakes_nobody() {
        // Readings of TIMED_CHUNK items (always a reading) that took EARLY_WAKE_SPAN_TICKS
        // (as a thread held up by an interrupt measures them), or next to nothing, with enough
        // items left for twice EARLY_WAKE_TICKS of work at the slow rate.
        let left = TIMED_CHUNK * (2 * EARLY_WAKE_TICKS / EARLY_WAKE_SPAN_TICKS) as usize;
        let span = |p: &mut Pacer, ticks_ago: u64| {
            p.since_mark = TIMED_CHUNK - 1;
            let now = ticks();
            p.mark = now.wrapping_sub(ticks_ago);
            // A drive just begun: the heartbeat's rule (a wake once the drive is a heartbeat
            // period old) stays out of it however slowly the test runs (ThreadSanitizer).
            p.began = now;
            p.record(1, left);
            assert_eq!(p.chunks_since_mark, 0, "a reading");
        };
        let slow = |p: &mut Pacer| span(p, EARLY_WAKE_SPAN_TICKS);
        let fast = |p: &mut Pacer| span(p, 0);
        let mut p = Pacer::new(1, usize::MAX);
        p.start_loop();
        slow(&mut p);
        assert_eq!((p.wake_pending, p.long), (0, false), "one slow reading");
        assert!(p.wake_seen);
        // The next reading finds the items cheap: still no wake, and the first one is
        // forgotten.
        fast(&mut p);
        assert_eq!((p.wake_pending, p.long, p.wake_seen), (0, false, false));
        slow(&mut p);
        assert_eq!((p.wake_pending, p.long), (0, false));
        // Two slow readings in a row: the items are slow, wake.
        slow(&mut p);
        assert!(p.long && p.wake_pending >= 1, "two slow readings in a row");
        assert!(p.proven);
    }

    #[test]
    fn an_awake_thief_makes_a_loop_hot() {
        // A reading of HOT_SPAN_ITEMS items at 1 tick each, with `left` items left.
        let note = |p: &mut Pacer, items: usize, left: u64, streak: &Cell<(u64, u64)>, thief| {
            let now = p.began + 1_000;
            p.note_thief(now, items as u64, items, left as usize, streak, || thief)
        };
        let enough = 2 * ASKED_SPLIT_TICKS;
        let fresh = || {
            let mut p = Pacer::new(1, usize::MAX);
            p.start_loop();
            p
        };
        let none = Cell::new((0, 0));
        // An awake thief and a split's worth left: hot, with a split offered at once.
        let mut p = fresh();
        assert!(!note(&mut p, HOT_SPAN_ITEMS, enough, &none, true));
        assert!(p.hot && p.offer);
        // Too little left, or a reading of too few items (an interrupt in a reading of one
        // item looked like milliseconds of work): nothing.
        let mut p = fresh();
        assert!(!note(
            &mut p,
            HOT_SPAN_ITEMS,
            ASKED_SPLIT_TICKS / 2,
            &none,
            true
        ));
        assert!(!note(
            &mut p,
            HOT_SPAN_ITEMS - 1,
            1_000 * enough,
            &none,
            true
        ));
        assert!(!p.hot && !p.offer);
        // Hot loops split on an awake thread's request down to ASKED_SPLIT_TICKS of work
        // left, without waiting for PROVEN_TICKS; others only past MIN_SPLIT_TICKS.
        p.rate = (1, 1);
        assert!(!p.worth_splitting(ASKED_SPLIT_TICKS as usize));
        p.hot = true;
        assert!(p.worth_asked_split(ASKED_SPLIT_TICKS as usize));
        assert!(!p.worth_asked_split(ASKED_SPLIT_TICKS as usize / 2));
        // And they enter the pool at once.
        assert!(p.should_enter());
    }

    #[test]
    fn a_loop_of_calls_wakes_a_worker_for_the_next_ones() {
        let streak = Cell::new((0, 0));
        let enough = 2 * ASKED_SPLIT_TICKS;
        // A drive that began at `began`, read at began + 1,000 with `enough` ticks of work left
        // (estimated end: began + 1,000 + enough), and no thief awake: whether it wakes one.
        let drive = |began: u64| {
            let mut p = Pacer::new(1, usize::MAX);
            p.began = began;
            let now = began + 1_000;
            let items = HOT_SPAN_ITEMS;
            let wake = p.note_thief(now, items as u64, items, enough as usize, &streak, || false);
            assert!(!p.hot);
            // A drive compares itself with the last one once.
            assert!(!p.note_thief(now, items as u64, items, enough as usize, &streak, || false));
            wake
        };
        let t = 1_000_000;
        // The first drive has nothing to follow.
        assert!(!drive(t));
        let end = t + 1_000 + enough;
        // One that begins right after the last one's end continues a loop: wake.
        assert!(drive(end + STREAK_GAP_TICKS / 2));
        // One that begins long after it does not.
        let end = end + STREAK_GAP_TICKS / 2 + 1_000 + enough;
        assert!(!drive(end + 2 * STREAK_GAP_TICKS));
        // A drive with less than LOOP_WAKE_TICKS of work left does not, even in a loop.
        let mut p = Pacer::new(1, usize::MAX);
        let (_, last_end) = streak.get();
        p.began = last_end + 1;
        let items = HOT_SPAN_ITEMS;
        let left = (ASKED_SPLIT_TICKS + LOOP_WAKE_TICKS) / 2;
        const { assert!(ASKED_SPLIT_TICKS < LOOP_WAKE_TICKS) };
        let now = p.began + 1_000;
        assert!(!p.note_thief(now, items as u64, items, left as usize, &streak, || false));
        // Nor does a half of the same drive (inherited `began`), were it to compare again.
        let (began, _) = streak.get();
        assert!(!drive(began));
    }

    #[test]
    fn short_loops_stop_asking_as_before() {
        // A first reading of 1,000 items (fewer than HOT_SPAN_ITEMS: it cannot make the loop
        // hot) that says 3/4 of MIN_SPLIT_TICKS of work are left. A loop with few items left
        // keeps MIN_SPLIT_TICKS as its bar and folds the rest at once, as before loops could
        // turn hot (the 1,000-item sum's first reading, of one item, often says tens of
        // microseconds). One with HOT_MIN_REMAINING items left, in a loop of calls (the drive
        // begins right after the thread's last one with a split's worth for an awake thief),
        // keeps asking, on the awake thief's bar, until a reading that can make it hot.
        const ITEMS: u64 = 1_000;
        let first_reading = |left: usize| {
            let per_item = 3 * MIN_SPLIT_TICKS / 4 / left as u64;
            let mut p = Pacer::new(1, usize::MAX);
            p.start_loop();
            STREAK.with(|streak| streak.set((p.began - 1, p.began)));
            p.since_mark = ITEMS as usize - 1;
            p.mark = ticks().wrapping_sub(per_item * ITEMS);
            p.record(1, left);
            p.asking
        };
        const { assert!(ASKED_SPLIT_TICKS < 3 * MIN_SPLIT_TICKS / 4) };
        assert!(!first_reading(37));
        assert!(first_reading(HOT_MIN_REMAINING));
        STREAK.with(|streak| streak.set((0, 0)));
    }

    #[test]
    fn heavy_items_split_without_a_request() {
        // An estimate (inherited: this loop has folded nothing yet) of items worth a split
        // each: a loop inside the pool splits at once. The test thread has no seat, so
        // `split_wanted` says no: only the heavy-items rule can split here.
        let heavy = |entered: bool, per_item: u64| {
            let mut p = Pacer::new(1, usize::MAX);
            p.start_loop();
            p.rate = (per_item * 10, 10);
            p.proven = true;
            p.entered = entered;
            p.decide(8)
        };
        assert_eq!(heavy(true, 2 * MIN_SPLIT_TICKS), Step::Split);
        assert_ne!(heavy(true, MIN_SPLIT_TICKS / 4), Step::Split);
        // Outside the pool it first enters (after the chunk under way), then splits.
        assert_ne!(heavy(false, 2 * MIN_SPLIT_TICKS), Step::Split);
        // One item is no split.
        let mut p = Pacer::new(1, usize::MAX);
        p.start_loop();
        p.rate = (2 * MIN_SPLIT_TICKS, 1);
        p.proven = true;
        p.entered = true;
        assert_eq!(p.decide(1), Step::FoldAll);
        // A long loop does not split at once on an inherited estimate: it runs a chunk
        // first, whose reading may show the estimate to be a glitch; with a reading of its
        // own that confirms heavy items, it splits.
        let mut p = Pacer::new(1, usize::MAX);
        p.start_loop();
        p.rate = (2 * MIN_SPLIT_TICKS, 1);
        p.proven = true;
        p.entered = true;
        assert_eq!(p.decide(EAGER_INHERITED_MAX), Step::Split);
        assert!(matches!(p.decide(5_000_000), Step::Peel(_)));
        p.done = 1;
        assert_eq!(p.decide(5_000_000), Step::Split);
    }

    #[test]
    fn short_loops_stop_asking() {
        let mut p = Pacer::new(1, usize::MAX);
        p.start_loop();
        p.record(1, 10);
        assert!(
            !p.asking,
            "10 items left after a ~instant first item are not worth a split"
        );
        // Nothing will split this loop, so the rest goes in one chunk...
        assert_eq!(p.decide(10), Step::FoldAll);
        // ...unless `with_max_len` still demands splits.
        let mut p = Pacer::new(1, 4);
        p.start_loop();
        p.record(1, 10);
        assert!(!p.asking);
        assert_eq!(p.decide(10), Step::Split);
        assert_eq!(p.decide(4), Step::FoldAll);
    }

    #[test]
    fn split_points_are_aligned_when_that_keeps_leaves_long_enough() {
        assert_eq!(split_point(1000, 1), 448);
        assert_eq!(split_point(129, 1), 64);
        assert_eq!(split_point(127, 1), 63);
        assert_eq!(split_point(1000, 460), 500);
        for len in 2..3000 {
            let mid = split_point(len, 1);
            assert!(mid > 0 && mid <= len / 2 && len / 2 - mid < 64, "{len}");
        }
    }

    #[test]
    fn ordered_searches_keep_a_lead_that_grows_with_the_distance_searched() {
        let mut pacer = Pacer::new(1, usize::MAX);
        // 1,000 items took the lead's time: the lead is 1,000 items, rounded up to 64.
        pacer.rate = (SEARCH_LEAD_TICKS, 1000);
        assert_eq!(pacer.search_split_point(1_000_000), 1024);
        // Far from the start, the lead is half the distance.
        pacer.before = 100_000;
        assert_eq!(pacer.search_split_point(1_000_000), 50_048);
        // Never more than half: then the split is in halves.
        assert_eq!(pacer.search_split_point(3000), split_point(3000, 1));
        // No estimate yet: the least lead.
        pacer.rate = (0, 0);
        pacer.before = 0;
        assert_eq!(pacer.search_split_point(1_000_000), 64);
        pacer.min_len = 5000;
        assert_eq!(pacer.search_split_point(1_000_000), 5056);
        for len in 2..3000 {
            for before in [0, 1, 100, 2999, 1 << 40] {
                pacer.min_len = 1;
                pacer.before = before;
                let lead = pacer.search_split_point(len);
                assert!(lead > 0 && lead <= len / 2, "{len} {before}");
            }
        }
    }

    #[test]
    fn early_wakes_need_a_long_reading_and_long_work_left() {
        let span = EARLY_WAKE_SPAN_TICKS;
        // One item took the whole span: the work left is that many spans.
        let items_left = (EARLY_WAKE_TICKS / span + 1) as usize;
        assert!(long_work_ahead(span, 1, items_left));
        assert!(!long_work_ahead(span, 1, items_left / 2));
        // The same rate measured over a shorter span is not trusted.
        assert!(!long_work_ahead(span / 2, 1, 2 * items_left));
        // Cheap items: a span of 100,000 of them leaves too little for 10,000 more.
        assert!(!long_work_ahead(span, 100_000, 10_000));
        assert!(long_work_ahead(span, 100_000, 100_000 * items_left));
        assert!(!long_work_ahead(u64::MAX, 1, 0));
    }

    #[test]
    fn early_wakes_ask_one_sleeper_per_share_of_the_work_left() {
        let share = WAKE_SHARE_TICKS;
        // 1 item per share: as many wakes as items left, at least 1, at most 64.
        assert_eq!(early_wakes(share, 1, 7), 7);
        assert_eq!(early_wakes(share, 1, 0), 1);
        assert_eq!(early_wakes(share, 1, 1_000), 64);
        // The work left just below two shares asks for one.
        assert_eq!(early_wakes(share, 2, 3), 1);
        // Cheap items: 100,000 per share, 350,000 left.
        assert_eq!(early_wakes(share, 100_000, 350_000), 3);
        assert_eq!(early_wakes(u64::MAX, 1, usize::MAX), 64);
    }

    #[test]
    fn a_first_leaf_wakes_by_the_work_its_time_says_is_left() {
        // A leaf too short to time well wakes nobody, however many leaves follow.
        assert_eq!(first_leaf_wakes(LEAF_SPAN_TICKS - 1, 40), 0);
        // Work left below the early-wake bound: nobody (one leaf of a two-leaf drive).
        assert_eq!(first_leaf_wakes(EARLY_WAKE_TICKS - 1, 1), 0);
        // Just enough work left: two shares of it, two wakes.
        assert_eq!(first_leaf_wakes(EARLY_WAKE_TICKS, 1), 2);
        // 13 levels (16 threads): 8,191 more leaves of one share each is more than 64 wakes.
        assert_eq!(first_leaf_wakes(WAKE_SHARE_TICKS, 13), 64);
        // 7 more leaves of one share each: 7 wakes.
        assert_eq!(first_leaf_wakes(WAKE_SHARE_TICKS, 3), 7);
        // No overflow on absurd inputs.
        assert_eq!(first_leaf_wakes(u64::MAX, u32::MAX), 64);
    }

    #[test]
    fn a_first_leaf_alone_wakes_nobody() {
        // A first leaf whose time calls for an early wake only leaves its verdict to the next
        // leaf of the same drive on this thread, which wakes if its own time agrees (the wake
        // itself, `beat_now`, does nothing on this thread, outside any pool).
        let (drive, other) = (0x1000, 0x2000);
        let long = MIN_SPLIT_TICKS - 1;
        const { assert!(LEAF_SPAN_TICKS < MIN_SPLIT_TICKS) };
        // Enough work left behind a first leaf just short of MIN_SPLIT_TICKS: 7 more leaves.
        assert!(first_leaf_wakes(long, 3) > 0);
        let pending = || FIRST_LEAF.with(Cell::get);
        first_leaf_timed(long, 3, drive);
        assert_eq!(pending(), (drive, 3));
        // A leaf of another drive (a nested one) leaves it alone.
        next_leaf_timed(0, other);
        assert_eq!(pending(), (drive, 3));
        // The next leaf of the drive uses it up, whatever its own verdict.
        next_leaf_timed(0, drive);
        assert_eq!(pending(), (0, 0));
        // A first leaf too short to call for a wake leaves nothing; one of MIN_SPLIT_TICKS or
        // more wakes at once (nothing outside a pool) and leaves nothing either.
        first_leaf_timed(LEAF_SPAN_TICKS - 1, 3, drive);
        assert_eq!(pending(), (0, 0));
        first_leaf_timed(MIN_SPLIT_TICKS, 3, drive);
        assert_eq!(pending(), (0, 0));
        // The end of a drive forgets its own verdict only.
        first_leaf_timed(long, 3, drive);
        let flag = AtomicBool::new(false);
        drive_unindexed_ended(&flag);
        assert_eq!(pending(), (drive, 3));
        FIRST_LEAF.with(|first| first.set((drive_token(&flag), 3)));
        drive_unindexed_ended(&flag);
        assert_eq!(pending(), (0, 0));
    }

    #[test]
    fn a_timed_first_leaf_changes_no_result() {
        let leaves = std::sync::Mutex::new(Vec::new());
        let producer = Halving {
            range: 0..100_000,
            leaves: &leaves,
        };
        let depth = eager_depth();
        let n = crate::scheduler::enter(|| {
            drive_unindexed(
                producer,
                Count,
                depth,
                SPINE_DEPTH,
                Some(0),
                &AtomicBool::new(false),
            )
        });
        assert_eq!(n, 100_000);
        let leaves = leaves.into_inner().unwrap();
        assert_eq!(leaves.iter().sum::<usize>(), 100_000);
    }

    #[test]
    fn eager_depth_is_small() {
        assert!((2..=10).contains(&eager_depth()));
    }
}
