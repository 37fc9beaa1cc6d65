//! The registry: one per thread pool. It owns the seats (one per worker thread, plus guest
//! seats that threads outside every pool occupy while they run parallel work on the global
//! pool), the injector and the sleep state, and it runs the worker threads' main loop.
//!
//! A seat is everything a participating thread needs: its Chase-Lev deque of stealable jobs,
//! the futex word it sleeps on, the flag through which idle threads ask it for work, and its
//! pending join frames (owner-only). The thread-local `CURRENT` points to the seat of the
//! calling thread, or is null outside every pool.
//!
//! Splitting (see `README.md`, "Splitting"): a join does not push its second closure on the
//! deque. It records the frame in the seat's `frames` array (two stores) and only *promotes*
//! the oldest recorded frame onto the deque when asked: by an idle thread's split request, or
//! by the heartbeat when sleeping workers should be woken. So a join that nobody needs to
//! steal costs a few nanoseconds, and parallelism is still exposed where it is largest (the
//! oldest frame, nearest the root of the recursion).
//!
//! Building a registry, the workers' main loop, termination and `use_current_thread` are in
//! `lifecycle.rs`.

mod lifecycle;

pub(crate) use lifecycle::RegistryConfig;

use super::deque::{Deque, Steal};
use super::injector::Injector;
use super::job::{JobHeader, JobRef};
use super::latch::{CoreLatch, SpinLatch};
use super::sleep::{IdleState, Sleep, SleepWord, ROUNDS_UNTIL_SLEEPING, ROUNDS_UNTIL_SLEEPY};
use super::Want;
use crate::sync::{
    ticks, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, CachePadded, Mutex, Ordering,
    HEARTBEAT_TICKS, PROVEN_BEAT_TICKS,
};
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::mem::MaybeUninit;

/// How many join frames per seat can be recorded (and so promoted). A join opened while this
/// many are recorded runs unrecorded (see `RECORD_WINDOW`).
pub(crate) const MAX_FRAMES: usize = 64;

/// A join is recorded only while fewer than this many recorded frames wait unpromoted: the
/// outermost ones, which promotion takes first. Deeper joins skip the bookkeeping (they still
/// poll), which makes most joins of a deep recursion as cheap as two calls plus a countdown.
pub(crate) const RECORD_WINDOW: usize = 8;

/// Joins between two reads of the clock for the heartbeat. A join costs 1-3 ns and the clock
/// about 7 ns, so 512 keeps the clock under 1% of join overhead while the heartbeat still
/// notices its 20 us first beat within a microsecond or two.
const JOINS_PER_CLOCK_READ: u32 = 512;
/// The clock reading `period` ticks after `now`; never 0, which `Local::next_beat` keeps for
/// "not started".
fn beat_deadline(now: u64, period: u64) -> u64 {
    now.wrapping_add(period).max(1)
}

/// What a `split_wanted` call (one chunk of the iterator driver) counts for, in joins: a
/// settled chunk takes a few microseconds, so every fourth one reads the clock, often enough
/// for the proven-work beat (`PROVEN_BEAT_TICKS`, about 12 us). With 32 (every sixteenth
/// chunk, ~64 us) a 16-core pool took several hundred microseconds to wake all its workers.
pub(crate) const SPLIT_CHECK_WEIGHT: u32 = 128;

/// Guest seats in the global registry (threads outside the pool running parallel work at the
/// same time). A 65th concurrent outside thread injects its work instead.
pub(crate) const GLOBAL_GUEST_SEATS: usize = 64;

/// The common prefix of a join's stack frame: what the erased promotion code touches.
#[repr(C)]
pub(crate) struct FrameHead {
    pub(crate) header: JobHeader,
    /// Written at promotion, before the frame becomes visible to other threads.
    pub(crate) latch: UnsafeCell<MaybeUninit<SpinLatch>>,
}

impl FrameHead {
    /// The frame's latch.
    ///
    /// # Safety
    /// The frame has been promoted (the latch was initialised).
    #[inline]
    pub(crate) unsafe fn latch(&self) -> &SpinLatch {
        // SAFETY: initialised at promotion, by contract.
        unsafe { (*self.latch.get()).assume_init_ref() }
    }
}

/// Owner-only state of a seat.
pub(crate) struct Local {
    /// Number of recorded join frames open on this thread's stack (`frames[..depth]`).
    pub(crate) depth: Cell<usize>,
    /// Frames `[0, promoted)` have been pushed on the deque; always a prefix.
    promoted: Cell<usize>,
    /// `min(promoted + RECORD_WINDOW, MAX_FRAMES)`: a join records its frame iff
    /// `depth < record_below`.
    pub(crate) record_below: Cell<usize>,
    pub(crate) countdown: Cell<u32>,
    /// Frames of this thread, other than open joins (those are counted by `depth`), that keep
    /// using this seat after running user code: a wait that runs jobs, a scope. While it is
    /// zero and `depth` is zero, nothing on the stack refers to the seat, which is what lets
    /// a thread that joined a pool with `use_current_thread` release the registry at once
    /// when the pool is dropped (`Registry::detach_current_thread`).
    holds: Cell<u32>,
    /// When the next heartbeat is due, in `ticks`; 0 until the busy period's first clock read.
    next_beat: Cell<u64>,
    beat_pending: Cell<bool>,
    /// How many sleepers the pending beat may wake: 1, or more when the iterator driver's
    /// estimate of the work left says so (`Seat::beat_now`).
    beat_wakes: Cell<u32>,
    rng: Cell<u64>,
    pub(crate) frames: [Cell<*const FrameHead>; MAX_FRAMES],
}

impl Local {
    fn new(seed: u64) -> Local {
        Local {
            depth: Cell::new(0),
            promoted: Cell::new(0),
            record_below: Cell::new(RECORD_WINDOW),
            countdown: Cell::new(JOINS_PER_CLOCK_READ),
            holds: Cell::new(0),
            next_beat: Cell::new(0),
            beat_pending: Cell::new(false),
            beat_wakes: Cell::new(1),
            rng: Cell::new(seed | 1),
            frames: [const { Cell::new(std::ptr::null()) }; MAX_FRAMES],
        }
    }

    /// Frames `[0, promoted)` have been pushed on the deque.
    #[inline]
    pub(crate) fn promoted(&self) -> usize {
        self.promoted.get()
    }

    /// Sets the promoted prefix, and with it the recording limit.
    #[inline]
    pub(crate) fn set_promoted(&self, promoted: usize) {
        self.promoted.set(promoted);
        self.record_below
            .set((promoted + RECORD_WINDOW).min(MAX_FRAMES));
    }

    /// Restart the heartbeat clock (new busy period): the first beat comes after
    /// `HEARTBEAT_TICKS` of busy time.
    #[inline]
    pub(crate) fn reset_heartbeat(&self) {
        self.next_beat.set(0);
    }

    /// Start a busy period whose work is already proven long (a worker woken from sleep: it
    /// was woken because some thread had been busy for a heartbeat period): the first beat
    /// comes after `PROVEN_BEAT_TICKS`.
    #[inline]
    pub(crate) fn start_proven_heartbeat(&self) {
        self.next_beat
            .set(beat_deadline(ticks(), PROVEN_BEAT_TICKS));
    }

    fn next_random(&self) -> u64 {
        // xorshift64*
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Counts one holder of a seat (`Local::holds`) for as long as it lives.
pub(crate) struct SeatHold<'a>(&'a Local);

impl Drop for SeatHold<'_> {
    fn drop(&mut self) {
        self.0.holds.set(self.0.holds.get() - 1);
    }
}

struct LocalCell(UnsafeCell<Local>);
// SAFETY: only the thread occupying the seat touches `Local` (Seat::local's contract).
unsafe impl Sync for LocalCell {}

/// One participant's place in a registry.
pub(crate) struct Seat {
    pub(crate) deque: Deque,
    /// Set by idle threads that want work; cleared by the owner when it answers.
    split_request: CachePadded<AtomicBool>,
    pub(crate) sleep_word: CachePadded<SleepWord>,
    local: CachePadded<LocalCell>,
    /// Set when the worker should exit once out of work (workers only).
    terminate: CoreLatch,
    /// Jobs addressed to this worker only (broadcasts).
    inbox: Injector,
    pub(crate) registry: *const Registry,
    pub(crate) index: usize,
}

// SAFETY: shared fields are atomics or Sync; `local` is owner-only; the registry pointer is
// valid for the seat's whole life (the registry owns the seat).
unsafe impl Sync for Seat {}
// SAFETY: as above.
unsafe impl Send for Seat {}

thread_local! {
    static CURRENT: Cell<*const Seat> = const { Cell::new(std::ptr::null()) };
}

/// The seat of the calling thread, or null outside every pool.
#[inline]
pub(crate) fn current_seat() -> *const Seat {
    CURRENT.with(|c| c.get())
}

impl Seat {
    /// Owner-only state.
    ///
    /// # Safety
    /// Only the thread occupying this seat may call it.
    #[inline]
    pub(crate) unsafe fn local(&self) -> &Local {
        // SAFETY: owner-only by contract, so no other reference exists concurrently.
        unsafe { &*self.local.0 .0.get() }
    }

    /// Records that the calling frame keeps using this seat after running user code, until the
    /// returned guard drops (see `Local::holds`). Owner only.
    ///
    /// # Safety
    /// Only the thread occupying this seat may call it.
    #[inline]
    pub(crate) unsafe fn hold(&self) -> SeatHold<'_> {
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        local.holds.set(local.holds.get() + 1);
        SeatHold(local)
    }

    #[inline]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: the registry owns its seats and outlives them.
        unsafe { &*self.registry }
    }

    #[inline]
    pub(crate) fn is_worker(&self) -> bool {
        self.index < self.registry().num_workers
    }

    /// The fast-path check of a join or the iterator driver, after recording a frame:
    /// does anyone want work from us, or is the heartbeat's clock read due? Owner only.
    #[inline(always)]
    pub(crate) unsafe fn poll(&self, weight: u32) -> bool {
        // SAFETY: owner-only by this function's contract.
        let local = unsafe { self.local() };
        let c = local.countdown.get();
        local.countdown.set(c.saturating_sub(weight));
        (c <= weight) | self.split_request.load(Ordering::Relaxed)
    }

    /// The slow path after `poll` said yes: heartbeat bookkeeping, then promote the oldest
    /// recorded frame if anyone wants work. Owner only.
    #[cold]
    #[inline(never)]
    pub(crate) unsafe fn on_poll(&self) {
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        let beat = self.heartbeat(local, None) || local.beat_pending.replace(false);
        let requested = self.split_request.load(Ordering::Relaxed);
        if requested {
            self.split_request.store(false, Ordering::Relaxed);
        }
        if (beat || requested) && self.deque.is_empty() {
            // SAFETY: owner, by contract.
            unsafe { self.promote_oldest(local, beat) };
        } else if beat && !self.deque.is_empty() {
            // A heartbeat found a sleeper and no idle awake worker while our deque holds a job
            // nobody took: wake one. The sleep protocol should have made this unnecessary, but
            // a job left behind then would otherwise wait until we pop it ourselves, which a
            // thread blocked on that very job (its `a` waits for its `b`) never does. The
            // heartbeat thus bounds any missed wake-up to one beat.
            self.registry().wake_any_worker();
        }
        // A count of wakes that `beat_now` asked for is spent by this poll's promotion, or
        // stale (no promotion: our deque was not empty); the next beat wakes one.
        local.beat_wakes.set(1);
    }

    /// For the iterator driver: poll, and if work should be split, make sure the next join
    /// promotes (and wakes a sleeper if the heartbeat asked for it). Owner only.
    #[inline]
    pub(crate) unsafe fn split_wanted(&self) -> Want {
        // SAFETY: owner-only by contract.
        if !unsafe { self.poll(SPLIT_CHECK_WEIGHT) } {
            return Want::No;
        }
        // SAFETY: as above.
        unsafe { self.split_wanted_cold(None) }
    }

    /// For the iterator driver once its chunk size has settled: `split_wanted`, with the
    /// heartbeat's clock reading taken from the driver's own (`now`; 0 for a chunk it did
    /// not time) instead of every fourth call, so that one `rdtsc` serves both (see the
    /// driver's `SETTLED_READ_CHUNKS`). Owner only.
    #[inline]
    pub(crate) unsafe fn split_wanted_at(&self, now: u64) -> Want {
        if now == 0 {
            if !self.split_request.load(Ordering::Relaxed) {
                return Want::No;
            }
            // SAFETY: owner-only by contract.
            return unsafe { self.split_wanted_cold(None) };
        }
        // SAFETY: as above.
        unsafe { self.split_wanted_cold(Some(now)) }
    }

    #[cold]
    unsafe fn split_wanted_cold(&self, now: Option<u64>) -> Want {
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        if now.is_some() {
            local.countdown.set(0);
        }
        // Raised by another thread: only our own beats raise it with `beat_pending` set. (A
        // request that comes while a beat of ours is pending counts as the beat.)
        let asked = !local.beat_pending.get() && self.split_request.load(Ordering::Relaxed);
        if self.heartbeat(local, now) {
            // The driver's next join must promote (and wake): raise our own request flag,
            // which that join's poll sees, and remember that a wake is wanted.
            local.beat_pending.set(true);
            self.split_request.store(true, Ordering::Relaxed);
        }
        if asked {
            Want::Asked
        } else if local.beat_pending.get() {
            Want::Beat
        } else {
            Want::No
        }
    }

    /// For the iterator driver (`scheduler::offer_split`): raise our own request flag, so that
    /// the next join's poll promotes its frame (without a wake: that is a beat's). Owner only.
    #[inline]
    pub(crate) unsafe fn offer_split(&self) {
        self.split_request.store(true, Ordering::Relaxed);
    }

    /// For the iterator driver, once its estimate says that a long stretch of work lies ahead
    /// (`scheduler::beat_now`): beat now instead of at the busy period's first beat, so that
    /// the next `split_wanted` says yes and the join it leads to wakes up to `wakes` sleeping
    /// workers (the estimate's share for each, within the guest cap); later beats follow every
    /// `PROVEN_BEAT_TICKS` and wake one each. Does nothing unless a beat would wake someone
    /// (`Registry::beat_should_wake`). Owner only.
    pub(crate) unsafe fn beat_now(&self, wakes: u32) {
        if !self.registry().beat_should_wake() {
            return;
        }
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        local.beat_pending.set(true);
        local.beat_wakes.set(wakes.max(1));
        local.start_proven_heartbeat();
        self.split_request.store(true, Ordering::Relaxed);
    }

    /// Heartbeat: once every `JOINS_PER_CLOCK_READ` polls, read the clock; when a beat is due,
    /// answer whether a sleeping worker should be woken to share our work. The first beat of
    /// a busy period comes `HEARTBEAT_TICKS` after its first clock read, later ones every
    /// `PROVEN_BEAT_TICKS`: work that outlasted one period is worth spreading fast. Workers
    /// wake only while fewer threads are busy than the pool has workers (a guest running
    /// parallel work counts as one) and no worker is awake and idle.
    /// `now`: a clock reading the caller just took, if it has one.
    fn heartbeat(&self, local: &Local, now: Option<u64>) -> bool {
        if local.countdown.get() > 0 {
            return false;
        }
        local.countdown.set(JOINS_PER_CLOCK_READ);
        let now = now.unwrap_or_else(ticks);
        let next = local.next_beat.get();
        if next == 0 {
            local.next_beat.set(beat_deadline(now, HEARTBEAT_TICKS));
            return false;
        }
        // Signed difference: the clock does not wrap in practice, and this stays right if it
        // does.
        if (now.wrapping_sub(next) as i64) < 0 {
            return false;
        }
        local.next_beat.set(beat_deadline(now, PROVEN_BEAT_TICKS));
        self.registry().beat_should_wake()
    }

    /// Pushes every recorded, not yet promoted join frame onto the deque, oldest first,
    /// without waking anyone (the heartbeat decides that).
    ///
    /// # Safety
    /// Owner only: the calling thread occupies this seat.
    pub(crate) unsafe fn promote_all(&self) {
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        while local.promoted() < local.depth.get() {
            // SAFETY: owner, by contract; each call promotes one frame.
            unsafe { self.promote_oldest(local, false) };
        }
    }

    /// Pushes every recorded, not yet promoted join frame onto the deque, oldest first, and
    /// wakes a sleeper for each job the deque then holds (beyond the guest cap): the frames
    /// just pushed and those promoted earlier on a request, which wake nobody. The idle
    /// thread that asked may have taken another job and then fallen asleep, so nobody is
    /// awake for that one. Unlike a beat, it wakes even while some worker is idle and awake:
    /// that worker may take another job or fall asleep, and this thread is about to poll
    /// nothing for a long time (items worth a split each), so a job left to it alone could
    /// wait that long; a sleeper woken for nothing costs microseconds against such items.
    /// (Counting the idle awake workers against the new frames, or waking for new frames
    /// only, left a test's seven mutually waiting items stuck, one thread's last job
    /// untaken, about one run in six under load; a trace of pushes, wakes and steals showed
    /// the request-promoted job taken by the sleeper woken for another.)
    ///
    /// # Safety
    /// Owner only: the calling thread occupies this seat.
    pub(crate) unsafe fn promote_all_waking(&self) {
        // SAFETY: owner-only by contract.
        let local = unsafe { self.local() };
        while local.promoted() < local.depth.get() {
            // SAFETY: owner, by contract; each call promotes one frame (and, not waking,
            // only makes sure that no worker goes to sleep without seeing it).
            unsafe { self.promote_oldest(local, false) };
        }
        let jobs = self.deque.len();
        if jobs == 0 {
            return;
        }
        let registry = self.registry();
        // Not within the guest cap (which the beats keep): a guest counts as a thread that
        // takes work a worker would, but here the caller is about to poll nothing for an
        // item's time or more, and a guest may be blocked in an item as well. With the cap, the
        // mutually waiting items of `heavy_items_are_shared_at_once` (the test thread a guest)
        // stalled about one run in sixty: a job left with no one woken for it; in 150 runs
        // without it, none. The price: with a guest running too, items worth a split each
        // may run on one thread more than the cores.
        let sleeping = registry.sleep.sleeping_workers() as usize;
        for _ in 0..jobs.min(sleeping) {
            if !registry.wake_any_worker() {
                break;
            }
        }
    }

    /// Pushes the oldest recorded, not yet promoted join frame onto the deque.
    ///
    /// # Safety
    /// Owner only; `local` is this seat's.
    unsafe fn promote_oldest(&self, local: &Local, wake: bool) {
        let index = local.promoted();
        if index >= local.depth.get() {
            return;
        }
        let frame = local.frames[index].get();
        local.set_promoted(index + 1);
        // SAFETY: frames [promoted, depth) are live recorded join frames on this thread's
        // stack, recorded by `join`; nobody else can see this one before the push below.
        unsafe {
            (*(*frame).latch.get()).write(SpinLatch::new(&self.sleep_word));
            self.deque.push(JobRef::new(frame as *const JobHeader));
        }
        let registry = self.registry();
        // A beat wakes one sleeper, or as many as `beat_now` asked for: those beyond the first
        // find no job at once, and ask the busy threads for splits, which answer within a
        // chunk. Never more than the sleepers a guest does not stand for (the guest cap).
        let jobs = if wake {
            let cap = (registry.sleep.sleeping_workers() as usize)
                .saturating_sub(registry.active_guests.load(Ordering::Relaxed));
            local.beat_wakes.replace(1).min(cap as u32).max(1)
        } else {
            1
        };
        registry
            .sleep
            .new_jobs(jobs, true, wake, || registry.wake_any_worker());
    }

    /// Finds a job: own deque, own inbox, other seats' deques, the injector. Owner only.
    pub(crate) unsafe fn find_work(&self) -> Option<JobRef> {
        // SAFETY: owner, by contract.
        if let Some(job) = unsafe { self.deque.pop() } {
            return Some(job);
        }
        if let Some(job) = self.inbox.pop() {
            return Some(job);
        }
        // SAFETY: owner, by contract.
        if let Some(job) = unsafe { self.steal_from_others() } {
            return Some(job);
        }
        self.registry().injector.pop()
    }

    unsafe fn steal_from_others(&self) -> Option<JobRef> {
        let registry = self.registry();
        let workers = registry.num_workers;
        let guests = registry.guest_mask.load(Ordering::Relaxed);
        let total = registry.seats.len();
        // SAFETY: owner, by contract.
        let start = unsafe { self.local() }.next_random() as usize % total;
        let mut retry = true;
        while retry {
            retry = false;
            for k in 0..total {
                let i = (start + k) % total;
                if i == self.index || (i >= workers && guests & (1 << (i - workers)) == 0) {
                    continue;
                }
                match registry.seats[i].deque.steal() {
                    Steal::Success(job) => return Some(job),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
        }
        None
    }

    /// Asks one other busy-looking seat to split its work.
    unsafe fn request_split(&self) {
        let registry = self.registry();
        let workers = registry.num_workers;
        let guests = registry.guest_mask.load(Ordering::Relaxed);
        let total = registry.seats.len();
        // SAFETY: owner, by contract.
        let start = unsafe { self.local() }.next_random() as usize % total;
        for k in 0..total {
            let i = (start + k) % total;
            if i == self.index || (i >= workers && guests & (1 << (i - workers)) == 0) {
                continue;
            }
            let flag = &registry.seats[i].split_request;
            if !flag.load(Ordering::Relaxed) {
                flag.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// Runs jobs until `latch` is set: the wait of a join whose frame was stolen, of a scope,
    /// of `install` from another pool, and (with the terminate latch) a worker's main loop.
    /// Owner only.
    pub(crate) unsafe fn wait_until(&self, latch: &CoreLatch) {
        if latch.probe() {
            return;
        }
        // SAFETY: owner, by contract.
        unsafe { self.wait_until_cold(latch, false) }
    }

    #[cold]
    unsafe fn wait_until_cold(&self, latch: &CoreLatch, drain: bool) {
        // SAFETY: owner, by contract.
        let _hold = unsafe { self.hold() };
        let registry = self.registry();
        let worker = self.is_worker();
        if worker {
            registry.sleep.start_looking();
        }
        let mut idle = IdleState::new();
        // Whether we slept since the last job.
        let mut woken = false;
        loop {
            if !drain && latch.probe() {
                break;
            }
            // SAFETY: owner, by contract.
            if let Some(job) = unsafe { self.find_work() } {
                if worker {
                    registry.sleep.work_found();
                }
                // SAFETY: owner, by contract.
                let local = unsafe { self.local() };
                if woken {
                    // Someone had been busy for a heartbeat period, or posted work for us:
                    // spread it fast (see `PROVEN_BEAT_TICKS`).
                    local.start_proven_heartbeat();
                    woken = false;
                } else {
                    local.reset_heartbeat();
                }
                // SAFETY: we took the job out of a queue, so we own its execution.
                unsafe { job.execute() };
                if worker {
                    registry.sleep.start_looking();
                }
                idle = IdleState::new();
                continue;
            }
            if drain && latch.probe() {
                break;
            }
            idle.rounds += 1;
            if worker && idle.rounds < ROUNDS_UNTIL_SLEEPY && registry.oversubscribed() {
                // More threads are busy or searching than the pool has workers (a guest came
                // back while we were awake): do not compete for a core; get ready to sleep.
                idle.rounds = ROUNDS_UNTIL_SLEEPY;
            }
            if idle.rounds < ROUNDS_UNTIL_SLEEPY {
                // SAFETY: owner, by contract.
                unsafe { self.request_split() };
                idle.pause();
            } else if idle.rounds == ROUNDS_UNTIL_SLEEPY && worker {
                registry.sleep.announce_sleepy(&mut idle);
                idle.pause();
            } else if idle.rounds >= ROUNDS_UNTIL_SLEEPING || !worker {
                if worker {
                    woken |= registry
                        .sleep
                        .sleep(&mut idle, latch, &self.sleep_word, || {
                            !registry.injector.is_empty() || !self.inbox.is_empty()
                        });
                } else {
                    registry.active_guests.fetch_sub(1, Ordering::Relaxed);
                    Sleep::sleep_on_latch(latch, &self.sleep_word);
                    registry.active_guests.fetch_add(1, Ordering::Relaxed);
                    idle.rounds = 0;
                }
            }
        }
        if worker {
            registry.sleep.work_found();
        }
    }

    /// For a guest that waits on a blocking latch (the owner of a watched loop whose rest
    /// was handed out, `watch.rs`, which entered the pool only then): runs jobs while there
    /// are any, asking busy seats for splits as an idle guest does, then blocks on the latch,
    /// as `wait_until` puts a guest to sleep (a guest is not woken for new work). Owner only.
    ///
    /// # Safety
    /// Only the thread occupying this seat, a guest seat, may call it.
    #[cfg(not(loom))]
    pub(crate) unsafe fn help_until(&self, latch: &super::latch::BlockingLatch) {
        debug_assert!(!self.is_worker());
        // SAFETY: owner, by contract.
        let _hold = unsafe { self.hold() };
        let mut idle = IdleState::new();
        while !latch.probe() {
            // SAFETY: owner, by contract.
            if let Some(job) = unsafe { self.find_work() } {
                // SAFETY: owner, by contract.
                unsafe { self.local() }.reset_heartbeat();
                // SAFETY: we took the job out of a queue, so we own its execution.
                unsafe { job.execute() };
                idle = IdleState::new();
                continue;
            }
            idle.rounds += 1;
            if idle.rounds < ROUNDS_UNTIL_SLEEPY {
                // SAFETY: owner, by contract.
                unsafe { self.request_split() };
                idle.pause();
            } else {
                let registry = self.registry();
                registry.active_guests.fetch_sub(1, Ordering::Relaxed);
                latch.wait();
                registry.active_guests.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Executes one available job if there is one (for `yield_now`). Owner only.
    pub(crate) unsafe fn yield_one(&self, local_only: bool) -> bool {
        let job = if local_only {
            // SAFETY: owner, by contract.
            unsafe { self.deque.pop() }
        } else {
            // SAFETY: owner, by contract.
            unsafe { self.find_work() }
        };
        match job {
            Some(job) => {
                // SAFETY: we own the job we took.
                unsafe { job.execute() };
                true
            }
            None => false,
        }
    }
}

/// A pool's handler for panics of spawned jobs.
pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;
/// A pool's thread start or exit handler.
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;

/// A pool's shared state.
pub(crate) struct Registry {
    seats: Box<[Seat]>,
    pub(crate) num_workers: usize,
    guest_mask: AtomicU64,
    pub(crate) active_guests: AtomicUsize,
    pub(crate) injector: Injector,
    pub(crate) sleep: Sleep,
    /// Reasons to keep running: the owning `ThreadPool` handle (or the global pool's
    /// permanent one) plus one per spawned job not yet finished. At zero, workers terminate.
    terminate_count: AtomicUsize,
    /// Worker threads handed to the spawn handler (as a `ThreadBuilder`) whose main loop has
    /// not finished: each `ThreadBuilder` counts itself out when `run` returns, or when it is
    /// dropped without running. `wait_for_workers` futex-waits for zero. The decrement is
    /// Release and the waiter's load Acquire, so everything a worker did (its exit handler
    /// included) happens before `wait_for_workers` returns.
    live_workers: AtomicU32,
    /// Join handles of the threads the default spawn handler started.
    handles: Mutex<Vec<std::thread::JoinHandle<()>>>,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    panic_handler: Option<PanicHandler>,
}

impl Registry {
    /// A panic nobody can receive (from a spawned job or a handler): give it to the panic
    /// handler, or abort as rayon does when there is none.
    pub(crate) fn handle_panic(&self, payload: Box<dyn Any + Send>) {
        match &self.panic_handler {
            Some(handler) => {
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(payload)));
                if result.is_err() {
                    eprintln!("blitz-par: the panic handler panicked; aborting");
                    std::process::abort();
                }
            }
            None => {
                eprintln!(
                    "blitz-par: a spawned job panicked and the pool has no panic handler; aborting"
                );
                std::process::abort();
            }
        }
    }

    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        self.num_workers
    }

    /// Whether `seat` belongs to this registry.
    #[inline]
    pub(crate) fn owns(&self, seat: *const Seat) -> bool {
        !seat.is_null()
            && std::ptr::eq(
                // SAFETY: a non-null CURRENT points to a live seat of a live registry.
                unsafe { (*seat).registry },
                self,
            )
    }

    /// Workers awake and looking for work now (a hint).
    #[inline]
    pub(crate) fn idle_awake_workers(&self) -> u32 {
        self.sleep.idle_awake_workers()
    }

    /// Whether a heartbeat should wake a sleeping worker: one sleeps (and not only because a
    /// guest running parallel work holds its core), and no worker is awake and idle, which
    /// would ask for work itself.
    pub(crate) fn beat_should_wake(&self) -> bool {
        let sleeping = self.sleep.sleeping_workers() as usize;
        sleeping > self.active_guests.load(Ordering::Relaxed)
            && self.sleep.idle_awake_workers() == 0
    }

    /// Whether awake workers plus guests running parallel work exceed the worker count.
    #[inline]
    fn oversubscribed(&self) -> bool {
        self.active_guests.load(Ordering::Relaxed) > self.sleep.sleeping_workers() as usize
    }

    /// Wakes one sleeping worker; returns whether one was asleep.
    pub(crate) fn wake_any_worker(&self) -> bool {
        self.seats[..self.num_workers]
            .iter()
            .any(|seat| self.sleep.wake(&seat.sleep_word))
    }

    /// Pushes a job for any worker of this pool.
    pub(crate) fn inject(&self, job: JobRef) {
        let was_empty = self.injector.is_empty();
        self.injector.push(job);
        self.sleep
            .new_jobs(1, was_empty, true, || self.wake_any_worker());
    }

    /// Pushes a job that only worker `index` may run, and wakes it.
    pub(crate) fn inject_to(&self, index: usize, job: JobRef) {
        let seat = &self.seats[index];
        seat.inbox.push(job);
        self.sleep.new_jobs(1, true, false, || false);
        self.sleep.wake(&seat.sleep_word);
    }

    /// Pushes a spawned job: on the caller's deque if it is a worker or guest of this pool
    /// that will stay until the job is done (`local_ok`), else on the injector.
    pub(crate) fn push_spawned(&self, job: JobRef, local_ok: bool) {
        let seat = current_seat();
        if local_ok && self.owns(seat) {
            // SAFETY: CURRENT is the calling thread's own seat, so we are its owner.
            unsafe {
                (*seat).deque.push(job);
            }
            self.sleep
                .new_jobs(1, true, true, || self.wake_any_worker());
        } else {
            self.inject(job);
        }
    }

    /// Claims a guest seat for the calling thread, if one is free.
    fn claim_guest(&self) -> Option<&Seat> {
        thread_local!(static HINT: Cell<u32> = const { Cell::new(0) });
        let guests = self.seats.len() - self.num_workers;
        if guests == 0 {
            return None;
        }
        let all = if guests == 64 {
            u64::MAX
        } else {
            (1u64 << guests) - 1
        };
        let mut try_bit = HINT.with(|h| h.get()) as usize % guests;
        for _ in 0..guests {
            let bit = 1u64 << try_bit;
            if self.guest_mask.fetch_or(bit, Ordering::AcqRel) & bit == 0 {
                HINT.with(|h| h.set(try_bit as u32));
                return Some(&self.seats[self.num_workers + try_bit]);
            }
            let free = !self.guest_mask.load(Ordering::Relaxed) & all;
            if free == 0 {
                return None;
            }
            try_bit = free.trailing_zeros() as usize;
        }
        None
    }

    fn release_guest(&self, seat: &Seat) {
        let bit = 1u64 << (seat.index - self.num_workers);
        self.guest_mask.fetch_and(!bit, Ordering::AcqRel);
    }

    /// Runs `f` with the calling thread (outside every pool) as a guest of this registry; if
    /// no guest seat is free, runs `f` on a worker and blocks until it is done.
    #[cold]
    pub(crate) fn enter_as_guest<F, R>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        // Only the call of `f` depends on the types: entering, and the job that runs `f` on a
        // worker when no guest seat is free, are compiled once (`enter_as_guest_erased`)
        // rather than for every pipeline. One indirect call is nothing against entering.
        let mut f = Some(f);
        let mut result = None;
        self.enter_as_guest_erased(&mut || {
            let f = f.take().expect("entered once");
            result = Some(f());
        });
        result.expect("the entered closure ran")
    }

    /// [`enter_as_guest`](Self::enter_as_guest) for a closure behind a pointer.
    #[inline(never)]
    fn enter_as_guest_erased(&self, f: &mut (dyn FnMut() + Send)) {
        if let Err(f) = self.try_enter_as_guest(f, |f| f()) {
            super::pool::run_on_worker_blocking(self, f);
        }
    }

    /// Runs `f(value)` on the calling thread (outside every pool) as a guest of this registry,
    /// or gives `value` back if no guest seat is free.
    pub(crate) fn try_enter_as_guest<T, R>(
        &self,
        value: T,
        f: impl FnOnce(T) -> R,
    ) -> Result<R, T> {
        let Some(seat) = self.enter_guest_seat() else {
            return Err(value);
        };
        let _leave = LeaveGuestSeat(self, seat);
        Ok(f(value))
    }

    /// Claims a guest seat and makes it the calling thread's, or `None` if none is free. The
    /// type-independent part of [`try_enter_as_guest`](Self::try_enter_as_guest), which
    /// leaves the seat with a [`LeaveGuestSeat`].
    #[inline]
    fn enter_guest_seat(&self) -> Option<&Seat> {
        let seat = self.claim_guest()?;
        // SAFETY: we just claimed the seat, so this thread is its only occupant.
        let local = unsafe { seat.local() };
        local.depth.set(0);
        local.set_promoted(0);
        local.reset_heartbeat();
        local.beat_pending.set(false);
        local.beat_wakes.set(1);
        seat.split_request.store(false, Ordering::Relaxed);
        self.active_guests.fetch_add(1, Ordering::Relaxed);
        CURRENT.with(|c| c.set(seat));
        Some(seat)
    }
}

/// Leaves the guest seat the calling thread entered ([`Registry::enter_guest_seat`]) when
/// dropped, on return or unwinding.
struct LeaveGuestSeat<'a>(&'a Registry, &'a Seat);

impl Drop for LeaveGuestSeat<'_> {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(std::ptr::null()));
        self.0.active_guests.fetch_sub(1, Ordering::Relaxed);
        debug_assert!(self.1.deque.is_empty());
        self.0.release_guest(self.1);
    }
}

#[cfg(test)]
mod tests {
    use super::beat_deadline;

    #[test]
    fn beat_deadline_is_never_the_not_started_value() {
        assert_eq!(beat_deadline(10, 5), 15);
        // A clock about to wrap: the deadline wraps too, past 0.
        assert_eq!(beat_deadline(u64::MAX - 2, 5), 2);
        assert_eq!(beat_deadline(u64::MAX - 4, 5), 1);
    }
}
