//! The pacer: the splitting policy's decisions for the indexed loop (see the module docs of
//! `splitter`): when to split, how long a chunk to peel, when to read the clock, when to
//! wake sleepers early, and when a loop is hot. The loop that acts on them is in `indexed.rs`.
//! A reading consults the world outside the drive only through [`Outside`].

use crate::scheduler::{poll, share, thief_awake, wake, Reading, Share, Wake, Want};
use crate::sync::{measured, rate, ticks, Rate};
use crate::tuning::{
    ASKED_SPLIT_NS, EAGER_INHERITED_MAX, EARLY_WAKE_NS, EARLY_WAKE_SPAN_NS, HEARTBEAT_NS,
    HOT_MIN_REMAINING, HOT_SPAN_ITEMS, LEAF_SPAN_NS, LONG_CHUNK_NS, LOOP_WAKE_NS, MAX_EARLY_WAKES,
    MIN_SPLIT_NS, PROVEN_NS, RAMP_GROWTH, RAMP_NS, READ_WORTH_NS, SEARCH_LEAD_NS,
    SETTLED_MIN_ITEMS, SETTLED_NS, SETTLED_READ_CHUNKS, SPLIT_ALIGN_ITEMS, STREAK_GAP_NS,
    TIMED_CHUNK, WAKE_SHARE_NS,
};
use std::cell::Cell;
use std::sync::OnceLock;

pub(super) use super::state::{EarlyWake, Growth, Heat, Place, Polling, Proof};

thread_local! {
    /// The start and estimated end of the last drive of this thread that had a split's worth
    /// of work for an awake thief ([`Pacer::note_thief`]); zeros before any. Per thread, not
    /// per seat: a loop of calls from a thread outside every pool is what it detects.
    static STREAK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// All that the pacer's decisions ([`Pacer::decide_by`], [`Pacer::record_by`]) consult or
/// ask of the world outside the drive: the clock, this thread's last drive, whether a worker
/// is awake and looking for work, whether the scheduler wants a split (polling), sharing the
/// halves split off so far, and waking sleepers. The driver passes [`Live`]; tests pass
/// their own, so that every decision is a function of its arguments and a test sets what the
/// pacer sees instead of writing thread-locals or private fields.
pub(super) trait Outside {
    /// The clock, read once per reading.
    fn now(&self) -> u64;
    /// Runs `f` with this thread's last drive with a split's worth of work for an awake thief:
    /// its start and estimated end, zeros before any ([`Pacer::look_at_streak`]).
    fn last_drive<R>(&self, f: impl FnOnce(&Cell<(u64, u64)>) -> R) -> R;
    /// Whether a worker is awake and looking for work (`scheduler::thief_awake`).
    fn thief_awake(&self) -> bool;
    /// Wakes sleeping workers, as `whom` says (`scheduler::wake`).
    fn wake(&self, whom: Wake);
    /// Whether the scheduler wants this thread to split (`scheduler::poll`).
    fn poll(&self, reading: Reading) -> Want;
    /// Makes the halves this thread has split off stealable (`scheduler::share`).
    fn share(&self, how: Share);
}

/// The world as the driver sees it: the clock (`sync::ticks`), the thread-local `STREAK`,
/// and the scheduler. Zero-sized, and every method inlined: a reading costs what it did
/// with these calls written in place.
pub(super) struct Live;

impl Outside for Live {
    #[inline(always)]
    fn now(&self) -> u64 {
        ticks()
    }

    #[inline(always)]
    fn last_drive<R>(&self, f: impl FnOnce(&Cell<(u64, u64)>) -> R) -> R {
        STREAK.with(f)
    }

    #[inline(always)]
    fn thief_awake(&self) -> bool {
        thief_awake()
    }

    #[inline(always)]
    fn wake(&self, whom: Wake) {
        wake(whom);
    }

    #[inline(always)]
    fn poll(&self, reading: Reading) -> Want {
        poll(reading)
    }

    #[inline(always)]
    fn share(&self, how: Share) {
        share(how);
    }
}

/// [`Live`] with a clock reading taken already (0: none, read as `Live` does): recording
/// (the `trace` feature), a leaf's end reads the clock for its event, and the pacer's reading
/// right after it (if one is due) is that one.
#[cfg(feature = "trace")]
pub(super) struct LiveAt(pub(super) u64);

#[cfg(feature = "trace")]
impl Outside for LiveAt {
    #[inline(always)]
    fn now(&self) -> u64 {
        if self.0 != 0 {
            self.0
        } else {
            ticks()
        }
    }

    #[inline(always)]
    fn last_drive<R>(&self, f: impl FnOnce(&Cell<(u64, u64)>) -> R) -> R {
        Live.last_drive(f)
    }

    #[inline(always)]
    fn thief_awake(&self) -> bool {
        Live.thief_awake()
    }

    #[inline(always)]
    fn wake(&self, whom: Wake) {
        Live.wake(whom);
    }

    #[inline(always)]
    fn poll(&self, reading: Reading) -> Want {
        Live.poll(reading)
    }

    #[inline(always)]
    fn share(&self, how: Share) {
        Live.share(how);
    }
}

/// Whether a reading that timed `items` items can make a loop hot (see [`HOT_SPAN_ITEMS`]).
#[inline]
pub(super) fn hot_span(items: usize) -> bool {
    items >= HOT_SPAN_ITEMS
}

/// Whether a reading that timed `items` items in `spent` ticks of a clock of rate `clock`,
/// with `remaining` items left, calls for an early wake (see [`EARLY_WAKE_NS`]).
#[inline]
pub(super) fn long_work_ahead(bars: &Bars, spent: u64, items: usize, remaining: usize) -> bool {
    spent >= bars.early_wake_span
        && (remaining as u128) * u128::from(spent) >= u128::from(bars.early_wake) * (items as u128)
}

/// How many sleepers an early wake asks for (see [`WAKE_SHARE_NS`]): at least 1, at most
/// [`MAX_EARLY_WAKES`].
/// `spent` is in ticks of a clock of rate `clock`.
#[inline]
pub(super) fn early_wakes(bars: &Bars, spent: u64, items: usize, remaining: usize) -> u32 {
    let left = (remaining as u128) * u128::from(spent) / (items.max(1) as u128);
    let share = u128::from(bars.wake_share.max(1));
    (left / share).clamp(1, u128::from(MAX_EARLY_WAKES)) as u32
}

/// The chunk size that a reading of `spent` ticks (of a clock of rate `clock`) over `items`
/// items allows (see [`RAMP_NS`]): the largest power of two of items estimated to take at
/// most [`RAMP_NS`], at most [`RAMP_GROWTH`] times `chunk`.
#[inline]
pub(super) fn ramp_chunk(bars: &Bars, spent: u64, items: usize, chunk: usize) -> usize {
    // floor(log2(work / spent)) by shifts, not a division (a reading is on the hot path of
    // short loops: a 1,000-item sum takes two, the module docs' figure).
    let work = (items as u64).saturating_mul(bars.ramp);
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

/// The time thresholds of the splitter (`crate::tuning`, in nanoseconds) in ticks of the
/// clock at one rate. Spans of ticks are compared with them as they are: a conversion of the
/// span at each reading put a multiplication on the path from the reading to the decision it
/// feeds, and a 1,000-item sum took 3 ns longer (137 against 134 ns, medians of 40 runs on
/// the 2-core VM); converting the thresholds at each reading, 6 ns.
#[derive(Debug)]
pub(super) struct Bars {
    pub(super) read_worth: u64,
    pub(super) settled: u64,
    pub(super) long_chunk: u64,
    pub(super) ramp: u64,
    pub(super) min_split: u64,
    pub(super) asked_split: u64,
    pub(super) proven: u64,
    pub(super) streak_gap: u64,
    pub(super) loop_wake: u64,
    pub(super) search_lead: u64,
    pub(super) early_wake: u64,
    pub(super) early_wake_span: u64,
    pub(super) wake_share: u64,
    pub(super) heartbeat: u64,
    pub(super) leaf_span: u64,
}

/// The thresholds of a clock that counts nanoseconds: what tests use.
#[cfg(test)]
pub(super) static NANOS: Bars = Bars::at(Rate::NANOS);

impl Bars {
    /// The thresholds at `rate`.
    pub(super) const fn at(rate: Rate) -> Bars {
        Bars {
            read_worth: rate.ticks(READ_WORTH_NS),
            settled: rate.ticks(SETTLED_NS),
            long_chunk: rate.ticks(LONG_CHUNK_NS),
            ramp: rate.ticks(RAMP_NS),
            min_split: rate.ticks(MIN_SPLIT_NS),
            asked_split: rate.ticks(ASKED_SPLIT_NS),
            proven: rate.ticks(PROVEN_NS),
            streak_gap: rate.ticks(STREAK_GAP_NS),
            loop_wake: rate.ticks(LOOP_WAKE_NS),
            search_lead: rate.ticks(SEARCH_LEAD_NS),
            early_wake: rate.ticks(EARLY_WAKE_NS),
            early_wake_span: rate.ticks(EARLY_WAKE_SPAN_NS),
            wake_share: rate.ticks(WAKE_SHARE_NS),
            heartbeat: rate.ticks(HEARTBEAT_NS),
            leaf_span: rate.ticks(LEAF_SPAN_NS),
        }
    }

    /// The thresholds at the clock's rate now: computed once for the rate assumed or stated
    /// at first, and once more when the rate has been measured (`sync::clock`).
    #[inline]
    pub(super) fn now() -> &'static Bars {
        static BARS: [OnceLock<Bars>; 2] = [OnceLock::new(), OnceLock::new()];
        // The flag first: once it is set, `rate` returns the measured rate.
        let slot = &BARS[usize::from(measured())];
        slot.get_or_init(|| Bars::at(rate()))
    }
}

/// What the driver does next with the `len` items it holds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Split in halves and run both, potentially in parallel.
    Split,
    /// Fold this many items off the front, then decide again.
    Peel(usize),
    /// Fold everything.
    FoldAll,
}

/// The per-branch state of the policy: leaf bounds, chunk size and cost estimate, and six
/// states, each an enum of its own. What moves each, and what each changes:
///
/// | state | from | to | when | effect |
/// |---|---|---|---|---|
/// | [`Proof`] | `Unproven` | `Proven` | a reading or request [`PROVEN_NS`] into a loop; an early wake `Decided`; a rescue | requests for work are honoured; the loop enters the scheduler |
/// | [`Polling`] | `Asking` | `Stopped` | a reading puts the rest under [`MIN_SPLIT_NS`] (and the loop is `Cold` and may not turn hot) | no more polls; the rest is folded as one chunk |
/// | [`Place`] | `Outside` | `Entered` | `Proven` or not `Cold`; a split for `with_max_len`; a folder that continues; a rescue | splits can happen; sleepers are woken and halves shared |
/// | [`EarlyWake`] | `Undecided` | `Seen` | a reading calls for a wake | the next reading decides |
/// | | `Seen` | `Undecided` | a reading does not | |
/// | | `Seen` | `Decided` | a second reading in a row calls for one | `wake_pending` sleepers are woken once `Entered`; with `Settled`, sparse readings |
/// | [`Growth`] | `Doubling` | `Settled` | a reading's chunk took [`SETTLED_NS`] (with [`SETTLED_MIN_ITEMS`] items) or [`LONG_CHUNK_NS`] | the chunk size holds; with `Decided`, a reading every [`SETTLED_READ_CHUNKS`] chunks |
/// | | `Settled` | `Doubling` | a reading's chunk is shorter | the chunk size grows again |
/// | [`Heat`] | `Cold` | `Offering` | a reading of [`HOT_SPAN_ITEMS`] items sees a worker awake with [`ASKED_SPLIT_NS`] left | enter at once; split for that worker without its request |
/// | | `Offering` | `Hot` | that split is made (its halves) or no longer worth it | awake workers' requests honoured down to [`ASKED_SPLIT_NS`] left |
///
/// Every state but `Offering` is inherited by both halves of a split; none moves backwards
/// except `EarlyWake::Seen` and `Growth`, whose readings may disagree with the last.
#[derive(Clone, Copy, Debug)]
pub(in crate::iter::plumbing) struct Pacer {
    /// `with_min_len`: no leaf shorter (unless the whole input is).
    pub(super) min_len: usize,
    /// `with_max_len`: no leaf longer.
    pub(super) max_len: usize,
    /// Items in the next chunk.
    pub(super) chunk: usize,
    /// Ticks and items of the last timed span (items 0: none yet): the cost estimate.
    /// Inherited by both halves of a split.
    pub(super) rate: (u64, usize),
    /// Whether some loop of this branch ran for [`PROVEN_NS`]; inherited.
    pub(super) proof: Proof,
    /// Whether to ask `scheduler::poll` at all. Saves the call, whose slow path is taken
    /// often while idle threads keep asking.
    pub(super) polling: Polling,
    /// The clock at this loop's start.
    pub(super) loop_start: u64,
    /// The clock at the last reading, and the items folded since.
    pub(super) mark: u64,
    pub(super) since_mark: usize,
    /// Items this loop has folded.
    pub(super) done: usize,
    /// Whether this branch runs inside `scheduler::enter`; inherited.
    pub(super) place: Place,
    /// Items of the whole drive between this loop's next item and the end a search starts
    /// from (the front, or the back for a consumer that folds from the back): grows as chunks
    /// are peeled and for the far side of a split. Sizes the lead of an ordered search
    /// ([`Pacer::search_split_point`]).
    pub(super) before: usize,
    /// Where the drive stands on an early wake ([`EarlyWake`]); inherited, so that a drive
    /// wakes early at most once.
    pub(super) early_wake: EarlyWake,
    /// The clock at the start of the drive's first loop (0 until then); inherited.
    pub(super) began: u64,
    /// How many sleepers the early wake asks for ([`early_wakes`]); 0 once asked (when
    /// entered) or if none.
    pub(super) wake_pending: u32,
    /// Whether the last reading paused the doubling. Inherited.
    pub(super) growth: Growth,
    /// Whether a reading saw a worker awake and looking for work ([`Heat`]). Inherited,
    /// except that the halves of a split made for that worker are [`Heat::Hot`].
    pub(super) heat: Heat,
    /// What this drive found when it compared itself with the thread's last one (`STREAK`,
    /// [`Pacer::look_at_streak`]): [`Streak::Unknown`] before. Inherited.
    pub(super) streak: Streak,
    /// Chunks folded since the last reading (0: `mark` was just read).
    pub(super) chunks_since_mark: u32,
    /// The thresholds in ticks, at the clock's rate when the drive began.
    pub(super) bars: &'static Bars,
}

impl Pacer {
    pub(in crate::iter::plumbing) fn new(min_len: usize, max_len: usize) -> Self {
        Pacer {
            min_len: min_len.max(1),
            max_len: max_len.max(1),
            chunk: 1,
            rate: (0, 0),
            proof: Proof::Unproven,
            polling: Polling::Asking,
            loop_start: 0,
            mark: 0,
            since_mark: 0,
            done: 0,
            place: Place::Outside,
            before: 0,
            early_wake: EarlyWake::Undecided,
            began: 0,
            wake_pending: 0,
            growth: Growth::Doubling,
            heat: Heat::Cold,
            streak: Streak::Unknown,
            chunks_since_mark: 0,
            bars: Bars::now(),
        }
    }

    /// Starts the loop of one `drive_indexed` call.
    #[inline]
    pub(super) fn start_loop(&mut self) {
        self.start_loop_at(Live.now());
    }

    /// [`Pacer::start_loop`] with the clock reading `now` (tests give readings of their own).
    #[inline(always)]
    pub(super) fn start_loop_at(&mut self, now: u64) {
        self.loop_start = now;
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
    pub(super) fn fresh(&self) -> bool {
        self.done == 0 && self.rate.1 == 0
    }

    /// The pacer of the rest of a watched loop whose first `n` items had run for `elapsed`
    /// ns when the watchman handed the rest to a worker: those items are heavy (a rescue
    /// comes after `tuning::RESCUE_NS`), so the rest splits at once.
    pub(super) fn rescued(mut self, elapsed: u64, n: usize) -> Pacer {
        self.rate = (Rate::ticks(rate(), elapsed).max(1), n);
        self.proof = Proof::Proven;
        self.place = Place::Entered;
        self.before = self.before.saturating_add(n);
        self
    }

    /// THE POLICY. Called before every chunk; `len > 0`. Always inline: with the indexed
    /// driver's watched path grown by its memory of rescued loops, LLVM put it out of line,
    /// some 40 instructions more per 1,000-item sum.
    #[inline(always)]
    pub(super) fn decide(&mut self, len: usize) -> Step {
        self.decide_by(len, &Live)
    }

    /// [`Pacer::decide`] with what it consults and asks of the world outside the drive as an
    /// argument ([`Outside`]): polling, sharing, waking and the clock.
    #[inline(always)]
    pub(super) fn decide_by(&mut self, len: usize, outside: &impl Outside) -> Step {
        let entered = self.place == Place::Entered;
        if self.wake_pending > 0 && entered {
            outside.wake(Wake::Sleepers(std::mem::take(&mut self.wake_pending)));
        }
        // Split only if both halves are long enough to be leaves.
        if len / 2 >= self.min_len {
            if len > self.max_len {
                return Step::Split;
            }
            // An estimate of this loop's own, or one inherited from the loop it was split
            // off (a thief's half of heavy items splits again at once, not after a chunk).
            let estimated = self.done > 0 || self.rate.1 > 0;
            if self.heat == Heat::Offering && entered {
                // The loop just turned hot: a worker is awake and looking for work; split for
                // it now rather than after its request. `Offering` stays for the split, whose
                // join offers its frame (`split_and_join`); the halves are `Hot`.
                if self.worth_asked_split(len) {
                    return Step::Split;
                }
                self.heat = Heat::Hot;
            }
            if self.polling == Polling::Asking && estimated {
                if entered
                    && self.heavy_items()
                    && (self.done > 0 || len <= EAGER_INHERITED_MAX)
                    && self.worth_splitting(len, outside)
                {
                    // Each item alone is worth a split: split without waiting for a request
                    // or a beat, which come between chunks, each a whole item here (the
                    // halves are shared before the next chunk runs, below). 8 items of 5 ms
                    // on 8 threads took 25 ms (rayon 5).
                    return Step::Split;
                }
                let wanted = if self.reads_sparsely() {
                    // The heartbeat reads the clock when we do (`SETTLED_READ_CHUNKS`): it
                    // gets `mark` just after a reading.
                    let fresh = self.chunks_since_mark == 0;
                    outside.poll(if fresh {
                        Reading::At(self.mark)
                    } else {
                        Reading::Untimed
                    })
                } else {
                    outside.poll(Reading::None)
                };
                let worth = match wanted {
                    Want::No => false,
                    Want::Asked if self.heat != Heat::Cold => self.worth_asked_split(len),
                    Want::Asked | Want::Beat => self.worth_splitting(len, outside),
                };
                if worth {
                    return Step::Split;
                }
            }
        }
        if entered && self.heavy_items() {
            // About to run a chunk that polls nothing for an item's time or more: let idle or
            // sleeping threads have the halves split off so far.
            outside.share(Share::Waking);
        }
        if self.polling == Polling::Stopped && len <= self.max_len {
            // No split will happen in this loop any more (polling stops for good once the
            // rest is too short to be worth a split, and the rest only gets shorter): further
            // chunks would buy nothing but their fixed costs and clock readings.
            return Step::FoldAll;
        }
        let mut chunk = self.chunk.min(self.max_len).max(self.min_len);
        if chunk.is_power_of_two() {
            // End the chunk at a multiple of its size from the loop's start, so that a chunk
            // size that grew faster than doubling ([`RAMP_NS`]) keeps chunk starts aligned
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

    /// Whether the estimate says one item takes at least [`MIN_SPLIT_NS`]: a split that
    /// hands off even a single item pays off.
    #[inline]
    pub(super) fn heavy_items(&self) -> bool {
        let (spent, items) = self.rate;
        items > 0 && spent >= self.bars.min_split.saturating_mul(items as u64)
    }

    /// Whether a requested split of the `len` items left pays off (see the module docs).
    #[inline(never)]
    pub(super) fn worth_splitting(&mut self, len: usize, outside: &impl Outside) -> bool {
        let now = outside.now();
        if self.proof == Proof::Unproven {
            if now.wrapping_sub(self.loop_start) < self.bars.proven {
                return false;
            }
            self.proof = Proof::Proven;
        }
        let (spent, items) = if self.rate.1 > 0 {
            self.rate
        } else {
            (now.wrapping_sub(self.loop_start), self.done)
        };
        (len as u128) * u128::from(spent) >= u128::from(self.bars.min_split) * (items as u128)
    }

    /// Whether a split an awake thread asked for pays off in a hot loop: [`ASKED_SPLIT_NS`]
    /// of the `len` items left, by the estimate of a reading (which made the loop hot).
    #[inline]
    pub(super) fn worth_asked_split(&self, len: usize) -> bool {
        let (spent, items) = self.rate;
        items > 0
            && (len as u128) * u128::from(spent)
                >= u128::from(self.bars.asked_split) * (items as u128)
    }

    /// Whether the loop should enter the scheduler now (when it has not): once it has run for
    /// [`PROVEN_NS`], before which no request would be honoured, or once it is hot.
    #[inline]
    pub(super) fn should_enter(&self) -> bool {
        (self.proof == Proof::Proven || self.heat != Heat::Cold) && self.place == Place::Outside
    }

    /// Whether the chunk size has settled and the early wake is decided: a reading then
    /// serves only to follow changes in the items' cost, and comes every
    /// [`SETTLED_READ_CHUNKS`]th chunk (see [`Pacer::record_by`]).
    #[inline(always)]
    pub(super) fn reads_sparsely(&self) -> bool {
        self.growth == Growth::Settled && self.early_wake == EarlyWake::Decided
    }

    /// [`Pacer::note_thief`] with this thread's last drive and the pool's idle workers (as
    /// `outside` says), and the wake it may ask for. Out of line: most readings never get
    /// here, and the 1,000-item sum's two readings ran measurably slower with it inline.
    #[cold]
    #[inline(never)]
    pub(super) fn look_for_thief(
        &mut self,
        now: u64,
        spent: u64,
        items: usize,
        remaining: usize,
        outside: &impl Outside,
    ) {
        let wake = outside.last_drive(|streak| {
            self.note_thief(now, spent, items, remaining, streak, || {
                outside.thief_awake()
            })
        });
        if wake {
            outside.wake(Wake::ForNextCall);
        }
    }

    /// Whether a loop that no reading could make hot yet, estimated at `now` to have `rest`
    /// ticks of work left (a split's worth for an awake thief), may turn hot: it continues a
    /// loop of calls ([`Pacer::look_at_streak`], which records it for the next drive), or a
    /// worker of the pool is awake and looking for work (as `outside` says).
    #[cold]
    #[inline(never)]
    pub(super) fn may_turn_hot(&mut self, now: u64, rest: u64, outside: &impl Outside) -> bool {
        outside.last_drive(|streak| self.look_at_streak(streak, now.saturating_add(rest)))
            != Streak::No
            || outside.thief_awake()
    }

    /// Whether this drive continues a loop of calls: whether it began right after the
    /// estimated end of the thread's last drive with a split's worth of work for an awake
    /// thief (`streak`: that drive's start and estimated end). Compared once per drive (the
    /// answer is kept); each call records this drive, with `end` as its estimated end, for
    /// the next drive to compare with.
    pub(super) fn look_at_streak(&mut self, streak: &Cell<(u64, u64)>, end: u64) -> Streak {
        if self.streak == Streak::Unknown {
            let (began, ended) = streak.get();
            let in_loop = began != 0
                && self.began > began
                && self.began <= ended.saturating_add(self.bars.streak_gap);
            self.streak = if in_loop { Streak::Yes } else { Streak::No };
        }
        streak.set((self.began, end));
        self.streak
    }

    /// At a reading taken at `now` that timed `items` items in `spent` ticks, with
    /// `remaining` items left: if the rest is worth a split to an awake thief (at least
    /// [`ASKED_SPLIT_NS`], by a reading of at least [`HOT_SPAN_ITEMS`] items), makes the
    /// loop hot when `thief` says a worker is awake and looking for work, and otherwise answers
    /// whether to wake one for the calls that follow (if at least [`LOOP_WAKE_NS`] of work
    /// are left): when this drive continues a loop of such calls
    /// ([`Pacer::look_at_streak`]), a worker woken now is awake for the next ones, where it
    /// keeps itself awake by taking its halves. Without that wake a loop of 100,000-item sums
    /// never woke anyone (nothing in a call of ~20 us does) and ran at the sequential loop's
    /// speed plus the driver's costs. A drive asks for one wake at most.
    #[inline]
    pub(super) fn note_thief(
        &mut self,
        now: u64,
        spent: u64,
        items: usize,
        remaining: usize,
        streak: &Cell<(u64, u64)>,
        thief: impl FnOnce() -> bool,
    ) -> bool {
        if self.heat != Heat::Cold || !hot_span(items) {
            return false;
        }
        let rest = (remaining as u128) * u128::from(spent) / (items.max(1) as u128);
        if rest < u128::from(self.bars.asked_split) {
            return false;
        }
        let end = now.saturating_add(u64::try_from(rest).unwrap_or(u64::MAX));
        let in_loop = self.look_at_streak(streak, end) == Streak::Yes;
        if thief() {
            self.heat = Heat::Offering;
            return false;
        }
        if in_loop && rest >= u128::from(self.bars.loop_wake) {
            self.streak = Streak::Woken;
            return true;
        }
        false
    }

    /// How many of the `len` items an ordered search keeps when it answers a request for work
    /// (`Consumer::searches_in_order`): those nearest the end it starts from, as many as
    /// take about [`SEARCH_LEAD_NS`] and at least half the items already behind the loop
    /// (`before`), and at most half of `len`. The rest goes to the thief, which thus scans
    /// right after this thread's lead instead of from the middle on: a `position_first`
    /// whose match lay just before the middle of 10M items scanned the whole back half
    /// meanwhile, and took twice the sequential loop's time on 2 cores. The growth with
    /// `before` bounds the nesting: each hand-off moves the search's front 1.5 times as far
    /// from its start, so a drive hands off a logarithmic number of times (a waiting thread
    /// runs what it steals on top of its stack).
    pub(super) fn search_split_point(&self, len: usize) -> usize {
        let (spent, items) = self.rate;
        let lead_items = if items == 0 || spent == 0 {
            0
        } else {
            let n = (items as u128) * u128::from(self.bars.search_lead) / u128::from(spent);
            usize::try_from(n).unwrap_or(usize::MAX)
        };
        let lead = lead_items.max(self.before / 2).max(self.min_len);
        if lead >= len / 2 {
            return split_point(len, self.min_len);
        }
        // Keep the thief's start aligned as `split_point` does.
        let rounded = lead.next_multiple_of(SPLIT_ALIGN_ITEMS);
        if rounded < len / 2 {
            rounded
        } else {
            lead
        }
    }

    /// Records that a chunk of `n` items was folded, `remaining` items are left, and reads
    /// the clock if due: updates the estimate, the chunk size and whether to keep asking.
    #[inline]
    pub(super) fn record(&mut self, n: usize, remaining: usize) {
        self.record_by(n, remaining, &Live);
    }

    /// [`Pacer::record`] with what it consults outside the drive as an argument: the clock
    /// (read once if a reading is due, and not at all otherwise), this thread's last drive and
    /// the pool's awake workers ([`Outside`]). Tests pass their own, so that a span lasts what
    /// the test says whatever the real clock's speed.
    #[inline(always)]
    pub(super) fn record_by(&mut self, n: usize, remaining: usize, outside: &impl Outside) {
        let first = self.done == 0;
        self.done += n;
        self.since_mark += n;
        self.chunks_since_mark += 1;
        if remaining == 0 {
            // The loop is over: nothing would use a reading (the third of a 1,000-item sum's
            // three chunks would make a third; module docs).
            return;
        }
        // Between readings the doubling follows the last reading's verdict.
        let mut pause = self.growth == Growth::Settled;
        let read = first
            || if self.reads_sparsely() {
                // The chunk size has settled and the early wake is decided: a reading serves
                // only to follow changes in the items' cost. See `SETTLED_READ_CHUNKS`.
                self.chunks_since_mark >= SETTLED_READ_CHUNKS
            } else {
                let (rate_ticks, rate_items) = self.rate;
                let worth_reading = rate_items > 0
                    && (self.since_mark as u128) * u128::from(rate_ticks)
                        >= u128::from(self.bars.read_worth) * (rate_items as u128);
                worth_reading || self.since_mark >= TIMED_CHUNK
            };
        if read {
            let now = outside.now();
            let spent = now.wrapping_sub(self.mark);
            let items = self.since_mark;
            self.rate = (spent, items);
            self.mark = now;
            self.since_mark = 0;
            self.chunks_since_mark = 0;
            if now.wrapping_sub(self.loop_start) >= self.bars.proven {
                self.proof = Proof::Proven;
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
            if self.early_wake != EarlyWake::Decided {
                let ahead = long_work_ahead(self.bars, spent, items, remaining);
                // A heartbeat period into the drive, with a split's worth of work left: beat
                // now (one wake), as the heartbeat would at its next clock read. That read
                // comes every fourth chunk (`SPLIT_CHECK_WEIGHT`), and a guest's heartbeat
                // counts from when the loop entered the pool: in a 30,000-item map on the
                // 2-core VM (~80 us alone), entered after ~14 us, the first beat came ~65 us
                // in and the second thread started at ~90 us of a ~110 us call; rayon's
                // starts at ~22 us.
                let beat = now.wrapping_sub(self.began) >= self.bars.heartbeat
                    && (remaining as u128) * u128::from(spent)
                        >= u128::from(self.bars.min_split) * (items as u128);
                let seen = self.early_wake == EarlyWake::Seen;
                if seen && ahead {
                    // Long work ahead, on an estimate to trust: enter the scheduler (the loop
                    // does once proven) and wake sleepers (the next `decide`).
                    self.early_wake = EarlyWake::Decided;
                    self.proof = Proof::Proven;
                    self.wake_pending = early_wakes(self.bars, spent, items, remaining);
                } else if seen && beat {
                    self.early_wake = EarlyWake::Decided;
                    self.wake_pending = 1;
                } else if ahead || beat {
                    self.early_wake = EarlyWake::Seen;
                } else {
                    self.early_wake = EarlyWake::Undecided;
                }
            }
            let qualified = hot_span(items);
            if qualified && self.heat == Heat::Cold {
                self.look_for_thief(now, spent, items, remaining, outside);
            }
            // Under a split's worth of work left, stop asking, unless the loop is hot and
            // an awake thief's split is still worth it; or unless no reading could make it hot
            // yet and it may turn so: a worker is awake, or this thread runs a loop of calls
            // (`may_turn_hot`). A reading of 240 items in a 100,000-item sum put the rest under
            // `MIN_SPLIT_NS` and folded it at once, hot or not. Not for loops too short to
            // have that much left at a reading of `HOT_SPAN_ITEMS`: the 1,000-item sum, whose
            // first reading (of one item) often says tens of microseconds, would make a chunk
            // and a reading more; nor for calls on their own, where a 50,000-item sum's extra
            // chunk made it 2-3% slower.
            let work_left = (remaining as u128) * u128::from(spent);
            if work_left < u128::from(self.bars.min_split) * (items as u128) {
                let keep = work_left >= u128::from(self.bars.asked_split) * (items as u128)
                    && (self.heat != Heat::Cold
                        || (!qualified
                            && remaining >= HOT_MIN_REMAINING
                            && self.may_turn_hot(
                                now,
                                u64::try_from(work_left / (items.max(1) as u128))
                                    .unwrap_or(u64::MAX),
                                outside,
                            )));
                if !keep {
                    self.polling = Polling::Stopped;
                }
            }
            // This chunk's share of the span.
            // Multiplied out: a 128-bit division is a call into the runtime library.
            let share_exceeds =
                |limit: u64| u128::from(spent) * (n as u128) > u128::from(limit) * (items as u128);
            pause = share_exceeds(self.bars.settled)
                && (n >= SETTLED_MIN_ITEMS || share_exceeds(self.bars.long_chunk));
            self.growth = if pause {
                Growth::Settled
            } else {
                Growth::Doubling
            };
            if !pause {
                self.chunk = self
                    .chunk
                    .max(ramp_chunk(self.bars, spent, items, self.chunk));
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

/// Where to split `len` items in two: the middle, rounded down to a multiple of
/// [`SPLIT_ALIGN_ITEMS`] when that leaves the front at least `min_len` (and at least
/// [`SPLIT_ALIGN_ITEMS`]) items, so that the back half's loop starts as aligned as the whole
/// (see `Pacer::record` on aligned chunks).
#[inline]
pub(super) fn split_point(len: usize, min_len: usize) -> usize {
    let half = len / 2;
    let rounded = half & !(SPLIT_ALIGN_ITEMS - 1);
    if rounded >= min_len.max(SPLIT_ALIGN_ITEMS) {
        rounded
    } else {
        half
    }
}

/// Whether a drive continues a loop of calls ([`Pacer::look_at_streak`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Streak {
    /// Not compared with the thread's last drive yet.
    Unknown,
    /// It does not.
    No,
    /// It does.
    Yes,
    /// It does, and it has asked for a worker to be woken for the calls that follow.
    Woken,
}
