use super::policy::*;
use super::unindexed::*;
use crate::iter::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::scheduler::{Reading, Share, Wake, Want};
use crate::tuning::*;
use std::cell::Cell;

/// A pacer whose thresholds are those of a clock that counts nanoseconds ([`NANOS`]): the
/// tests give spans in nanoseconds.
fn pacer(min_len: usize, max_len: usize) -> Pacer {
    Pacer {
        bars: &NANOS,
        ..Pacer::new(min_len, max_len)
    }
}

/// Where the tests' clock starts: far from 0 and from wrapping, so that readings before and
/// after it stay ordered. Tests that time a span read this clock, not the real one, and move
/// it by what the span should last: a span then lasts that long on any clock, at any speed,
/// under any load (under emulation, with the thread held up between two readings).
const T0: u64 = 1 << 40;

/// What a test's pacer sees outside the drive ([`Outside`]): the clock at `now`, a last
/// drive of its own (none unless the test says), whether a worker is awake, and what a poll
/// answers (`want`); it counts the wakes asked for the calls that follow, the sleepers woken
/// early and the shares.
struct Seen {
    now: u64,
    last_drive: Cell<(u64, u64)>,
    thief: bool,
    want: Want,
    wakes: Cell<u32>,
    sleepers: Cell<u32>,
    shares: Cell<u32>,
}

impl Seen {
    fn at(now: u64) -> Seen {
        Seen {
            now,
            last_drive: Cell::new((0, 0)),
            thief: false,
            want: Want::No,
            wakes: Cell::new(0),
            sleepers: Cell::new(0),
            shares: Cell::new(0),
        }
    }
}

impl Outside for Seen {
    fn now(&self) -> u64 {
        self.now
    }

    fn last_drive<R>(&self, f: impl FnOnce(&Cell<(u64, u64)>) -> R) -> R {
        f(&self.last_drive)
    }

    fn thief_awake(&self) -> bool {
        self.thief
    }

    fn wake(&self, whom: Wake) {
        match whom {
            Wake::ForNextCall => self.wakes.set(self.wakes.get() + 1),
            Wake::Sleepers(n) => self.sleepers.set(self.sleepers.get() + n),
        }
    }

    fn poll(&self, _: Reading) -> Want {
        self.want
    }

    fn share(&self, how: Share) {
        assert_eq!(how, Share::Waking);
        self.shares.set(self.shares.get() + 1);
    }
}

/// `p.record(n, remaining)` with the reading `now` if a reading is due, no thief awake and
/// no last drive.
fn record_at(p: &mut Pacer, n: usize, remaining: usize, now: u64) {
    p.record_by(n, remaining, &Seen::at(now));
}

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
    let mut p = pacer(usize::MAX, usize::MAX);
    assert_eq!(p.decide(10), Step::FoldAll);
    let mut p = Pacer {
        chunk: 4,
        ..pacer(3, usize::MAX)
    };
    // 4 off 6 leaves 2 < min_len 3: fold all (a split needs 6/2 >= 3 and a request).
    let step = p.decide(6);
    assert!(step == Step::FoldAll || step == Step::Split);
    let mut p = pacer(1, 1);
    assert_eq!(p.decide(2), Step::Split);
}

#[test]
fn ramp_chunks_hold_about_ramp_ticks_of_work() {
    // Items estimated at a RAMP_NS each, or slower: no faster growth (doubling only).
    assert_eq!(ramp_chunk(&NANOS, RAMP_NS, 1, 1), 1);
    assert_eq!(ramp_chunk(&NANOS, 2 * RAMP_NS, 1, 1), 0);
    assert_eq!(
        ramp_chunk(&NANOS, 0, 1, 1),
        RAMP_GROWTH,
        "a zero reading is a fast one"
    );
    // Cheap items: the largest power of two that fits, at most RAMP_GROWTH times the chunk.
    assert_eq!(ramp_chunk(&NANOS, RAMP_NS, 100, 8), 64);
    assert_eq!(ramp_chunk(&NANOS, RAMP_NS, 100, 2), 2 * RAMP_GROWTH);
    assert_eq!(
        ramp_chunk(&NANOS, 1, usize::MAX, usize::MAX),
        1 << (usize::BITS - 1)
    );
}

#[test]
fn chunks_double_pause_and_resume() {
    // A fast span: so many items in a microsecond that each takes a tiny share of it.
    const MANY: usize = 1 << 40;
    // Readings that come due take `p.mark + span`: the clock moves by what the test says.
    let fast = |p: &mut Pacer, n: usize| record_at(p, n, usize::MAX, p.mark + 1_000);
    let mut p = pacer(1, usize::MAX);
    p.start_loop_at(T0);
    p.since_mark = MANY;
    fast(&mut p, 1);
    // A fast reading lets the chunk grow at once, by at most RAMP_GROWTH.
    assert_eq!(p.chunk, RAMP_GROWTH);
    // The next peel ends at a multiple of the chunk size, then whole chunks follow; with
    // no reading due (the estimate says these items are cheap), a whole chunk doubles the
    // size and the aligning rest does not.
    assert_eq!(p.decide(usize::MAX), Step::Peel(RAMP_GROWTH - 1));
    fast(&mut p, RAMP_GROWTH - 1);
    assert_eq!(p.chunk, RAMP_GROWTH);
    assert_ne!(p.chunks_since_mark, 0, "no reading");
    assert_eq!(p.decide(usize::MAX), Step::Peel(RAMP_GROWTH));
    fast(&mut p, RAMP_GROWTH);
    assert_eq!(p.chunk, 2 * RAMP_GROWTH);
    let mut p = Pacer { chunk: 4, ..p };
    // A slow span pauses the growth once the chunk is long; the next fast one resumes it.
    // The chunk's share of a span of TIMED_CHUNK items is n / TIMED_CHUNK of its time.
    let slow_span = |p: &mut Pacer, chunk_ns: u64, n: usize| {
        p.since_mark = TIMED_CHUNK - n;
        let now = p.mark + chunk_ns * (TIMED_CHUNK / n) as u64;
        record_at(p, n, usize::MAX, now);
    };
    slow_span(&mut p, LONG_CHUNK_NS * 2, 4);
    assert_eq!(p.chunk, 4);
    assert_eq!(p.growth, Growth::Settled);
    // Settled, with the early wake decided, the pacer reads the clock only every
    // SETTLED_READ_CHUNKS chunks and hands that reading to the heartbeat; the chunk holds
    // until the next reading.
    p.early_wake = EarlyWake::Decided;
    for _ in 1..SETTLED_READ_CHUNKS {
        fast(&mut p, 4);
        assert_eq!(p.chunk, 4);
        assert_ne!(p.chunks_since_mark, 0, "no reading");
    }
    p.since_mark = MANY;
    fast(&mut p, 4);
    assert_eq!(p.chunks_since_mark, 0, "a reading");
    assert_eq!(
        p.chunk,
        4 * RAMP_GROWTH,
        "a fast reading resumes the growth"
    );
    assert_eq!(p.growth, Growth::Doubling);
    fast(&mut p, 3);
    assert_eq!(p.chunk, 4 * RAMP_GROWTH);
    // Over SETTLED_NS but short of LONG_CHUNK_NS: a chunk of few items keeps
    // doubling (its end costs more than its bookkeeping), one of many items pauses.
    const { assert!(SETTLED_NS * 2 < LONG_CHUNK_NS) };
    let mut q = Pacer { chunk: 8, ..p };
    slow_span(&mut q, SETTLED_NS * 2, 8);
    assert_eq!(
        q.chunk, 16,
        "a chunk of 8 items short of LONG_CHUNK_NS paused"
    );
    let mut q = Pacer {
        chunk: SETTLED_MIN_ITEMS,
        ..p
    };
    slow_span(&mut q, SETTLED_NS * 2, SETTLED_MIN_ITEMS);
    assert_eq!(q.chunk, SETTLED_MIN_ITEMS);
}

#[test]
fn a_heartbeat_into_the_drive_with_a_split_left_asks_for_one_wake() {
    // A reading of a span of ITEMS items over SPAN ns (one nanosecond an item), `age` ns
    // after the drive began, with `left` items to go.
    const ITEMS: usize = 100_000;
    const SPAN: u64 = ITEMS as u64;
    // The reading before it called for a wake too (`EarlyWake::Seen`): a lone reading asks for
    // none (`a_lone_reading_wakes_nobody`).
    let reading = |age: u64, left: u64| {
        let mut p = pacer(1, usize::MAX);
        let now = T0;
        p.start_loop_at(now);
        p.began = now - age;
        p.mark = now - SPAN;
        p.since_mark = ITEMS - 1;
        p.early_wake = EarlyWake::Seen;
        record_at(&mut p, 1, left as usize, now);
        (p.wake_pending, p.early_wake == EarlyWake::Decided)
    };
    // Short of the early wake's EARLY_WAKE_NS of work left, but a split's worth.
    const { assert!(2 * MIN_SPLIT_NS < EARLY_WAKE_NS) };
    assert_eq!(reading(2 * HEARTBEAT_NS, 2 * MIN_SPLIT_NS), (1, true));
    // Less than a split's worth left: no wake.
    assert_eq!(reading(2 * HEARTBEAT_NS, MIN_SPLIT_NS / 2), (0, false));
    // Not yet a heartbeat into the drive.
    assert_eq!(reading(0, 2 * MIN_SPLIT_NS), (0, false));
    // Long work left wakes by the early-wake rule, however young the drive.
    assert!(reading(0, 4 * EARLY_WAKE_NS).0 >= 1);
}

#[test]
fn a_lone_reading_wakes_nobody() {
    // Readings of TIMED_CHUNK items (always a reading) that took EARLY_WAKE_SPAN_NS
    // (as a thread held up by an interrupt measures them), or next to nothing, with enough
    // items left for twice EARLY_WAKE_NS of work at the slow rate.
    let left = TIMED_CHUNK * (2 * EARLY_WAKE_NS / EARLY_WAKE_SPAN_NS) as usize;
    let span = |p: &mut Pacer, ns: u64| {
        p.since_mark = TIMED_CHUNK - 1;
        let now = p.mark + ns;
        // A drive just begun: the heartbeat's rule (a wake once the drive is a heartbeat
        // period old) stays out of it.
        p.began = now;
        record_at(p, 1, left, now);
        assert_eq!(p.chunks_since_mark, 0, "a reading");
    };
    let slow = |p: &mut Pacer| span(p, EARLY_WAKE_SPAN_NS);
    let fast = |p: &mut Pacer| span(p, 0);
    let mut p = pacer(1, usize::MAX);
    p.start_loop_at(T0);
    slow(&mut p);
    assert_eq!(
        (p.wake_pending, p.early_wake),
        (0, EarlyWake::Seen),
        "one slow reading"
    );
    // The next reading finds the items cheap: still no wake, and the first one is
    // forgotten.
    fast(&mut p);
    assert_eq!((p.wake_pending, p.early_wake), (0, EarlyWake::Undecided));
    slow(&mut p);
    assert_eq!((p.wake_pending, p.early_wake), (0, EarlyWake::Seen));
    // Two slow readings in a row: the items are slow, wake.
    slow(&mut p);
    assert!(
        p.early_wake == EarlyWake::Decided && p.wake_pending >= 1,
        "two slow readings in a row"
    );
    assert_eq!(p.proof, Proof::Proven);
}

#[test]
fn an_awake_thief_makes_a_loop_hot() {
    // A reading of HOT_SPAN_ITEMS items at 1 tick each, with `left` items left.
    let note = |p: &mut Pacer, items: usize, left: u64, streak: &Cell<(u64, u64)>, thief| {
        let now = p.began + 1_000;
        p.note_thief(now, items as u64, items, left as usize, streak, || thief)
    };
    let enough = 2 * ASKED_SPLIT_NS;
    let fresh = || {
        let mut p = pacer(1, usize::MAX);
        p.start_loop();
        p
    };
    let none = Cell::new((0, 0));
    // An awake thief and a split's worth left: hot, with a split offered at once.
    let mut p = fresh();
    assert!(!note(&mut p, HOT_SPAN_ITEMS, enough, &none, true));
    assert_eq!(p.heat, Heat::Offering);
    // Too little left, or a reading of too few items (an interrupt in a reading of one
    // item looked like milliseconds of work): nothing.
    let mut p = fresh();
    assert!(!note(
        &mut p,
        HOT_SPAN_ITEMS,
        ASKED_SPLIT_NS / 2,
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
    assert_eq!(p.heat, Heat::Cold);
    // Hot loops split on an awake thread's request down to ASKED_SPLIT_NS of work
    // left, without waiting for PROVEN_NS; others only past MIN_SPLIT_NS.
    p.rate = (1, 1);
    assert!(!p.worth_splitting(ASKED_SPLIT_NS as usize, &Seen::at(p.loop_start)));
    p.heat = Heat::Hot;
    assert!(p.worth_asked_split(ASKED_SPLIT_NS as usize));
    assert!(!p.worth_asked_split(ASKED_SPLIT_NS as usize / 2));
    // And they enter the pool at once.
    assert!(p.should_enter());
}

#[test]
fn a_loop_of_calls_wakes_a_worker_for_the_next_ones() {
    let streak = Cell::new((0, 0));
    let enough = 2 * ASKED_SPLIT_NS;
    // A drive that began at `began`, read at began + 1,000 with `enough` of work
    // left (estimated end: began + 1,000 + enough), and no thief awake: whether it
    // wakes one.
    let drive = |began: u64| {
        let mut p = pacer(1, usize::MAX);
        p.began = began;
        let now = began + 1_000;
        let items = HOT_SPAN_ITEMS;
        let wake = p.note_thief(now, items as u64, items, enough as usize, &streak, || false);
        assert_eq!(p.heat, Heat::Cold);
        // A drive compares itself with the last one once.
        assert!(!p.note_thief(now, items as u64, items, enough as usize, &streak, || false));
        wake
    };
    let t = 1_000_000;
    // The first drive has nothing to follow.
    assert!(!drive(t));
    let end = t + 1_000 + enough;
    let gap = STREAK_GAP_NS;
    // One that begins right after the last one's end continues a loop: wake.
    assert!(drive(end + gap / 2));
    // One that begins long after it does not.
    let end = end + gap / 2 + 1_000 + enough;
    assert!(!drive(end + 2 * gap));
    // A drive with less than LOOP_WAKE_NS of work left does not, even in a loop.
    let mut p = pacer(1, usize::MAX);
    let (_, last_end) = streak.get();
    p.began = last_end + 1;
    let items = HOT_SPAN_ITEMS;
    let left = (ASKED_SPLIT_NS + LOOP_WAKE_NS) / 2;
    const { assert!(ASKED_SPLIT_NS < LOOP_WAKE_NS) };
    let now = p.began + 1_000;
    assert!(!p.note_thief(now, items as u64, items, left as usize, &streak, || false));
    // Nor does a half of the same drive (inherited `began`), were it to compare again.
    let (began, _) = streak.get();
    assert!(!drive(began));
}

#[test]
fn a_reading_sees_the_loop_of_calls_and_the_thief_it_is_shown() {
    // A reading of HOT_SPAN_ITEMS items, 1 ns each, with a split's worth for an awake
    // thief and LOOP_WAKE_NS left, in a drive that began right after the thread's last one
    // (`Outside::last_drive`): with no thief awake it asks for a wake for the next calls;
    // with one awake the loop turns hot instead. What the pacer sees comes only from `Seen`.
    let reading = |thief: bool| {
        let mut p = pacer(1, usize::MAX);
        p.start_loop_at(T0);
        p.since_mark = HOT_SPAN_ITEMS - 1;
        let mut seen = Seen::at(T0 + HOT_SPAN_ITEMS as u64);
        seen.last_drive.set((p.began - 1, p.began));
        seen.thief = thief;
        let left = 2 * (ASKED_SPLIT_NS + LOOP_WAKE_NS);
        p.record_by(1, left as usize, &seen);
        (
            p.heat != Heat::Cold,
            seen.wakes.get(),
            seen.last_drive.get().0 == p.began,
        )
    };
    assert_eq!(reading(false), (false, 1, true));
    assert_eq!(reading(true), (true, 0, true));
}

#[test]
fn short_loops_stop_asking_as_before() {
    // A first reading of 1,000 items (fewer than HOT_SPAN_ITEMS: it cannot make the loop
    // hot) that says 3/4 of MIN_SPLIT_NS of work are left. A loop with few items left
    // keeps MIN_SPLIT_NS as its bar and folds the rest at once, as before loops could
    // turn hot (the 1,000-item sum's first reading, of one item, often says tens of
    // microseconds). One with HOT_MIN_REMAINING items left, in a loop of calls (the drive
    // begins right after the thread's last one with a split's worth for an awake thief),
    // keeps asking, on the awake thief's bar, until a reading that can make it hot.
    const ITEMS: u64 = 1_000;
    let first_reading = |left: usize| {
        let span = 3 * MIN_SPLIT_NS / 4 * ITEMS / left as u64;
        let mut p = pacer(1, usize::MAX);
        p.start_loop_at(T0);
        let seen = Seen::at(T0 + span);
        seen.last_drive.set((p.began - 1, p.began));
        p.since_mark = ITEMS as usize - 1;
        p.record_by(1, left, &seen);
        p.polling == Polling::Asking
    };
    const { assert!(ASKED_SPLIT_NS < 3 * MIN_SPLIT_NS / 4) };
    assert!(!first_reading(37));
    assert!(first_reading(HOT_MIN_REMAINING));
}

#[test]
fn heavy_items_split_without_a_request() {
    // An estimate (inherited: this loop has folded nothing yet) of items worth a split
    // each: a loop inside the pool splits at once. Polls say no (`Seen`): only the
    // heavy-items rule can split here.
    let heavy = |entered: bool, per_item: u64| {
        let mut p = pacer(1, usize::MAX);
        p.start_loop_at(T0);
        p.rate = (per_item * 10, 10);
        p.proof = Proof::Proven;
        p.place = if entered {
            Place::Entered
        } else {
            Place::Outside
        };
        p.decide_by(8, &Seen::at(T0))
    };
    assert_eq!(heavy(true, 2 * MIN_SPLIT_NS), Step::Split);
    assert_ne!(heavy(true, MIN_SPLIT_NS / 4), Step::Split);
    // Outside the pool it first enters (after the chunk under way), then splits.
    assert_ne!(heavy(false, 2 * MIN_SPLIT_NS), Step::Split);
    // One item is no split.
    let mut p = pacer(1, usize::MAX);
    p.start_loop();
    p.rate = (2 * MIN_SPLIT_NS, 1);
    p.proof = Proof::Proven;
    p.place = Place::Entered;
    assert_eq!(p.decide(1), Step::FoldAll);
    // A long loop does not split at once on an inherited estimate: it runs a chunk
    // first, whose reading may show the estimate to be a glitch; with a reading of its
    // own that confirms heavy items, it splits.
    let mut p = pacer(1, usize::MAX);
    p.start_loop();
    p.rate = (2 * MIN_SPLIT_NS, 1);
    p.proof = Proof::Proven;
    p.place = Place::Entered;
    assert_eq!(p.decide(EAGER_INHERITED_MAX), Step::Split);
    assert!(matches!(p.decide(5_000_000), Step::Peel(_)));
    p.done = 1;
    assert_eq!(p.decide(5_000_000), Step::Split);
}

#[test]
fn short_loops_stop_asking() {
    // A first item of 10 ns: 10 items left are not worth a split.
    let mut p = pacer(1, usize::MAX);
    p.start_loop_at(T0);
    record_at(&mut p, 1, 10, T0 + 10);
    assert!(
        p.polling == Polling::Stopped,
        "10 items left after a ~instant first item are not worth a split"
    );
    // Nothing will split this loop, so the rest goes in one chunk...
    assert_eq!(p.decide(10), Step::FoldAll);
    // ...unless `with_max_len` still demands splits.
    let mut p = pacer(1, 4);
    p.start_loop_at(T0);
    record_at(&mut p, 1, 10, T0 + 10);
    assert!(p.polling == Polling::Stopped);
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
    let mut pacer = pacer(1, usize::MAX);
    // 1,000 items took the lead's time: the lead is 1,000 items, rounded up to 64.
    pacer.rate = (SEARCH_LEAD_NS, 1000);
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
    let span = EARLY_WAKE_SPAN_NS;
    // One item took the whole span: the work left is that many spans.
    let items_left = (EARLY_WAKE_NS / span + 1) as usize;
    assert!(long_work_ahead(&NANOS, span, 1, items_left));
    assert!(!long_work_ahead(&NANOS, span, 1, items_left / 2));
    // The same rate measured over a shorter span is not trusted.
    assert!(!long_work_ahead(&NANOS, span / 2, 1, 2 * items_left));
    // Cheap items: a span of 100,000 of them leaves too little for 10,000 more.
    assert!(!long_work_ahead(&NANOS, span, 100_000, 10_000));
    assert!(long_work_ahead(&NANOS, span, 100_000, 100_000 * items_left));
    assert!(!long_work_ahead(&NANOS, u64::MAX, 1, 0));
}

#[test]
fn early_wakes_ask_one_sleeper_per_share_of_the_work_left() {
    let share = WAKE_SHARE_NS;
    // 1 item per share: as many wakes as items left, at least 1, at most 64.
    assert_eq!(early_wakes(&NANOS, share, 1, 7), 7);
    assert_eq!(early_wakes(&NANOS, share, 1, 0), 1);
    assert_eq!(early_wakes(&NANOS, share, 1, 1_000), 64);
    // The work left just below two shares asks for one.
    assert_eq!(early_wakes(&NANOS, share, 2, 3), 1);
    // Cheap items: 100,000 per share, 350,000 left.
    assert_eq!(early_wakes(&NANOS, share, 100_000, 350_000), 3);
    assert_eq!(early_wakes(&NANOS, u64::MAX, 1, usize::MAX), 64);
}

#[test]
fn a_first_leaf_wakes_by_the_work_its_time_says_is_left() {
    // A leaf too short to time well wakes nobody, however many leaves follow.
    assert_eq!(first_leaf_wakes(&NANOS, LEAF_SPAN_NS - 1, 40), 0);
    // Work left below the early-wake bound: nobody (one leaf of a two-leaf drive).
    assert_eq!(first_leaf_wakes(&NANOS, EARLY_WAKE_NS - 1, 1), 0);
    // Just enough work left: two shares of it, two wakes.
    assert_eq!(first_leaf_wakes(&NANOS, EARLY_WAKE_NS, 1), 2);
    // 13 levels (16 threads): 8,191 more leaves of one share each is more than 64 wakes.
    assert_eq!(first_leaf_wakes(&NANOS, WAKE_SHARE_NS, 13), 64);
    // 7 more leaves of one share each: 7 wakes.
    assert_eq!(first_leaf_wakes(&NANOS, WAKE_SHARE_NS, 3), 7);
    // No overflow on absurd inputs.
    assert_eq!(first_leaf_wakes(&NANOS, u64::MAX, u32::MAX), 64);
}

#[test]
fn a_first_leaf_alone_wakes_nobody() {
    // A first leaf whose time calls for an early wake only leaves its verdict to the next
    // leaf of the same drive, which wakes if its own time agrees (the wake itself,
    // `Wake::Sleepers`, does nothing on this thread, outside any pool).
    let long = MIN_SPLIT_NS - 1;
    const { assert!(LEAF_SPAN_NS < MIN_SPLIT_NS) };
    // Enough work left behind a first leaf just short of MIN_SPLIT_NS: 7 more leaves.
    assert!(first_leaf_wakes(&NANOS, long, 3) > 0);
    let (drive, other) = (Drive::default(), Drive::default());
    first_leaf_timed(&NANOS, long, 3, &drive);
    assert_eq!(drive.pending_first_leaf(), 3);
    // A leaf of another drive (a nested one) leaves it alone.
    next_leaf_timed(0, &other);
    assert_eq!(drive.pending_first_leaf(), 3);
    // The next leaf of the drive uses it up, whatever its own verdict.
    next_leaf_timed(0, &drive);
    assert_eq!(drive.pending_first_leaf(), 0);
    // A first leaf too short to call for a wake leaves nothing; one of MIN_SPLIT_NS or
    // more wakes at once (nothing outside a pool) and leaves nothing either.
    first_leaf_timed(&NANOS, LEAF_SPAN_NS - 1, 3, &drive);
    assert_eq!(drive.pending_first_leaf(), 0);
    first_leaf_timed(&NANOS, MIN_SPLIT_NS, 3, &drive);
    assert_eq!(drive.pending_first_leaf(), 0);
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
            &Drive::default(),
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

#[test]
fn decisions_poll_share_and_wake_through_outside() {
    // A proven loop inside the pool with a split's worth left, items of 1 ns: it splits
    // exactly when the poll it is shown says a thread wants work.
    let decide = |want: Want, hot: bool| {
        let mut p = pacer(1, usize::MAX);
        p.start_loop_at(T0);
        p.rate = (1, 1);
        p.done = 1;
        p.proof = Proof::Proven;
        p.place = Place::Entered;
        if hot {
            p.heat = Heat::Hot;
        }
        let seen = Seen {
            want,
            ..Seen::at(T0)
        };
        p.decide_by(2 * MIN_SPLIT_NS as usize, &seen)
    };
    assert_eq!(decide(Want::Beat, false), Step::Split);
    assert_eq!(decide(Want::Asked, false), Step::Split);
    assert_ne!(decide(Want::No, false), Step::Split);
    // Too little left for a split but an awake thread's in a hot loop.
    let mut p = pacer(1, usize::MAX);
    p.start_loop_at(T0);
    p.rate = (1, 1);
    p.done = 1;
    p.proof = Proof::Proven;
    p.place = Place::Entered;
    let seen = Seen {
        want: Want::Asked,
        ..Seen::at(T0)
    };
    let len = (ASKED_SPLIT_NS + MIN_SPLIT_NS) as usize / 2;
    assert_ne!(p.decide_by(len, &seen), Step::Split);
    p.heat = Heat::Hot;
    assert_eq!(p.decide_by(len, &seen), Step::Split);
    // A pending early wake is asked for at the first decision inside the pool, once;
    // heavy items share the halves before each chunk.
    let mut p = pacer(1, usize::MAX);
    p.start_loop_at(T0);
    p.wake_pending = 3;
    let seen = Seen::at(T0);
    p.decide_by(1, &seen);
    assert_eq!(seen.sleepers.get(), 0, "outside the pool: not yet");
    p.place = Place::Entered;
    p.rate = (2 * MIN_SPLIT_NS, 1);
    p.decide_by(1, &seen);
    p.decide_by(1, &seen);
    assert_eq!(seen.sleepers.get(), 3);
    assert_eq!(seen.shares.get(), 2);
}
