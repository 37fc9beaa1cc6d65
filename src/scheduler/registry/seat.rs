//! A seat: one participant's place in a registry, and the thread-local `CURRENT` that says
//! which seat the calling thread occupies.
//!
//! A seat has two sides. Its *shared* side is what every thread of the pool may touch: the
//! steal end of its deque, the `split_request` flag through which idle threads ask it for
//! work, its sleep word, its inbox. Its *owner* side (the push/pop end of the deque, the
//! recorded join frames, the heartbeat clock: [`Local`]) belongs to the one thread that
//! occupies the seat, and is reachable only through an [`Owner`](super::Owner), a token that
//! exists only on that thread (`owner.rs`). crossbeam-deque draws the same line with its
//! `Worker` and `Stealer`.

use super::Registry;
use crate::scheduler::deque::Deque;
use crate::scheduler::future_slot::CancelToken;
use crate::scheduler::injector::Injector;
use crate::scheduler::job::JobHeader;
use crate::scheduler::latch::{CoreLatch, SpinLatch};
use crate::scheduler::sleep::SleepWord;
use crate::sync::{ticks, ticks_in, AtomicBool, AtomicI32, CachePadded, Ordering};
use crate::tuning::{JOINS_PER_CLOCK_READ, MAX_FRAMES, PROVEN_BEAT_NS, RECORD_WINDOW};
use std::cell::{Cell, UnsafeCell};
use std::mem::MaybeUninit;
#[cfg(all(debug_assertions, not(loom)))]
use std::panic::Location;
use std::sync::Arc;

/// The common prefix of a join's stack frame: what the erased promotion code touches.
#[repr(C)]
pub(crate) struct FrameHead {
    pub(crate) header: JobHeader,
    /// Written at promotion, before the frame becomes visible to other threads.
    pub(crate) latch: UnsafeCell<MaybeUninit<SpinLatch>>,
    /// The cancellation token of the work that recorded the frame (`Local::cancel`), written
    /// at promotion like the latch, so that a thief runs `b` as work of the same task. Left
    /// uninitialised otherwise: an unpromoted frame costs nothing more.
    pub(crate) cancel: UnsafeCell<MaybeUninit<CancelToken>>,
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

    /// The frame's cancellation token.
    ///
    /// # Safety
    /// The frame has been promoted (the token was written).
    #[inline]
    pub(crate) unsafe fn cancel(&self) -> CancelToken {
        // SAFETY: written at promotion, by contract.
        unsafe { (*self.cancel.get()).assume_init() }
    }
}

/// Where a join was called, for the stall watchdog of debug builds (`stall.rs`); nothing in
/// release builds.
#[cfg(all(debug_assertions, not(loom)))]
pub(crate) type Site = &'static Location<'static>;
/// Where a join was called, for the stall watchdog of debug builds (`stall.rs`); nothing in
/// release builds.
#[cfg(not(all(debug_assertions, not(loom))))]
pub(crate) type Site = ();

/// The [`Site`] of the caller (through `#[track_caller]` functions).
#[cfg(all(debug_assertions, not(loom)))]
#[track_caller]
#[inline]
pub(crate) fn site() -> Site {
    Location::caller()
}

/// The [`Site`] of the caller: nothing in release builds.
#[cfg(not(all(debug_assertions, not(loom))))]
#[inline(always)]
pub(crate) fn site() -> Site {}

/// The clock reading `period` ticks after `now`; never 0, which `Local::next_beat` keeps for
/// "not started".
pub(super) fn beat_deadline(now: u64, period: u64) -> u64 {
    now.wrapping_add(period).max(1)
}

/// Owner-only state of a seat. Reached only through [`Owner`](super::Owner) (or, before any
/// thread occupies the seat, by the registry that builds it). Its fields are cells: the owner
/// thread re-enters its own seat from user code (a join inside a join), never from another
/// thread.
pub(crate) struct Local {
    /// Number of recorded join frames open on this thread's stack (`frames[..depth]`).
    pub(super) depth: Cell<usize>,
    /// Frames `[0, promoted)` have been pushed on the deque; always a prefix.
    pub(super) promoted: Cell<usize>,
    /// `min(promoted + record_window, MAX_FRAMES)`: a join records its frame iff
    /// `depth < record_below`.
    pub(super) record_below: Cell<usize>,
    /// How many recorded frames may wait unpromoted: `RECORD_WINDOW`, or 0 on the only seat of
    /// a registry, which no other thread can ever steal from (`README.md`, "Recording
    /// window"). Fixed when the seat is made.
    record_window: usize,
    /// Frames of this thread, other than open joins (those are counted by `depth`), that keep
    /// using this seat after running user code: a wait that runs jobs, a scope. While it is
    /// zero and `depth` is zero, nothing on the stack refers to the seat, which is what lets
    /// a thread that joined a pool with `use_current_thread` release the registry at once
    /// when the pool is dropped (`Registry::detach_current_thread`).
    pub(super) holds: Cell<u32>,
    /// When the next heartbeat is due, in `ticks`; 0 until the busy period's first clock read.
    pub(super) next_beat: Cell<u64>,
    pub(super) beat_pending: Cell<bool>,
    /// How many sleepers the pending beat may wake: 1, or more when the iterator driver's
    /// estimate of the work left says so (`Owner::beat_now`).
    pub(super) beat_wakes: Cell<u32>,
    rng: Cell<u64>,
    /// The cancellation token of the work this thread runs now: the state of the
    /// `spawn_future` task it belongs to, or none. Set and restored around that work by
    /// `Owner::with_cancel_token` and `Owner::run_job`, whose callers keep the task alive
    /// meanwhile; read by `Owner::cancelled` on the slow paths of the split checks.
    pub(super) cancel: Cell<CancelToken>,
    /// The recorded join frames, oldest first: `frames[..depth]` are live frames on this
    /// thread's stack (each recorded by `Owner::record`, which states the frames' lifetime
    /// rule).
    pub(super) frames: [Cell<*const FrameHead>; MAX_FRAMES],
    /// Debug builds only: where each recorded frame's join was called (`stall.rs`).
    #[cfg(all(debug_assertions, not(loom)))]
    pub(super) sites: [Cell<*const Location<'static>>; MAX_FRAMES],
}

impl Local {
    /// The owner state of a seat; `only_seat`: the registry has no other seat.
    pub(super) fn new(seed: u64, only_seat: bool) -> Local {
        let record_window = if only_seat { 0 } else { RECORD_WINDOW };
        Local {
            depth: Cell::new(0),
            promoted: Cell::new(0),
            record_below: Cell::new(record_window),
            record_window,
            holds: Cell::new(0),
            next_beat: Cell::new(0),
            beat_pending: Cell::new(false),
            beat_wakes: Cell::new(1),
            rng: Cell::new(seed | 1),
            cancel: Cell::new(CancelToken::NONE),
            frames: [const { Cell::new(std::ptr::null()) }; MAX_FRAMES],
            #[cfg(all(debug_assertions, not(loom)))]
            sites: [const { Cell::new(std::ptr::null()) }; MAX_FRAMES],
        }
    }

    /// Frames `[0, promoted)` have been pushed on the deque.
    #[inline]
    pub(super) fn promoted(&self) -> usize {
        self.promoted.get()
    }

    /// Sets the promoted prefix, and with it the recording limit.
    #[inline]
    pub(super) fn set_promoted(&self, promoted: usize) {
        self.promoted.set(promoted);
        self.record_below
            .set((promoted + self.record_window).min(MAX_FRAMES));
    }

    /// Restart the heartbeat clock (new busy period): the first beat comes after
    /// `HEARTBEAT_NS` of busy time.
    #[inline]
    pub(super) fn reset_heartbeat(&self) {
        self.next_beat.set(0);
    }

    /// Start a busy period whose work is already proven long (a worker woken from sleep: it
    /// was woken because some thread had been busy for a heartbeat period): the first beat
    /// comes after `PROVEN_BEAT_NS`.
    #[inline]
    pub(super) fn start_proven_heartbeat(&self) {
        self.next_beat
            .set(beat_deadline(ticks(), ticks_in(PROVEN_BEAT_NS)));
    }

    pub(super) fn next_random(&self) -> u64 {
        // xorshift64*
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The owner side of a seat, in a cell that the seat may share between threads because only
/// the occupying thread opens it.
pub(super) struct LocalCell {
    /// The poll's countdown, beside the owner state it guards (one cache line).
    pub(super) countdown: Countdown,
    pub(super) cell: UnsafeCell<Local>,
}

impl LocalCell {
    pub(super) fn new(local: Local) -> LocalCell {
        LocalCell {
            countdown: Countdown::new(),
            cell: UnsafeCell::new(local),
        }
    }
}

/// Polls left until the owner's next slow-path check, less one (`Owner::poll`): the
/// heartbeat's clock read once it runs out, and at once when another thread *expires* it
/// (subtracts a large constant) after raising the seat's request flag, so that the poll's
/// fast path is one subtraction and a sign test, with no load of the flag (`README.md`,
/// "The countdown").
///
/// Only the owner counts down; any thread may expire it. The owner's subtraction is a load
/// and a store, not an atomic read-modify-write: an expiry that lands between them is lost,
/// and its request is then seen when the count runs out, within `JOINS_PER_CLOCK_READ` polls.
pub(crate) struct Countdown(AtomicI32);

impl Countdown {
    fn new() -> Countdown {
        Countdown(AtomicI32::new(JOINS_PER_CLOCK_READ as i32 - 1))
    }

    /// The count (owner: whether the clock read is due).
    #[inline]
    pub(super) fn get(&self) -> i32 {
        self.0.load(Ordering::Relaxed)
    }

    /// Owner only: sets the count.
    #[inline]
    pub(super) fn set(&self, left: i32) {
        self.0.store(left, Ordering::Relaxed);
    }

    /// Any thread: the owner's next poll takes its slow path (unless the owner's subtraction
    /// overwrites it, see the type's doc). Subtracts [`EXPIRY`](Self::EXPIRY) instead of
    /// storing a negative count, so that the slow path can take it back ([`settle`]) and the
    /// heartbeat's clock reads keep their schedule: a request is not a clock read.
    ///
    /// [`settle`]: Self::settle
    ///
    /// A count that is expired already is left as it is (a compare-and-swap loop, on the
    /// raiser's side only), so at most one expiry is ever outstanding however many threads
    /// raise the flag (every cancel interrupts every seat) while the owner does not poll: the
    /// count cannot wrap around to a large positive value, which would silence the polls.
    #[inline]
    pub(super) fn expire(&self) {
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |count| {
                (count >= -Self::EXPIRY / 2).then(|| count - Self::EXPIRY)
            });
    }

    /// What an expiry subtracts: far below any count the polls make (from
    /// `JOINS_PER_CLOCK_READ - 1` down to minus the heaviest poll's weight).
    const EXPIRY: i32 = 1 << 24;

    /// Owner only, first thing on a poll's slow path: takes back the expiry that made the
    /// count negative, leaving the count the polls made.
    #[inline]
    pub(super) fn settle(&self) {
        let count = self.get();
        if count < -Self::EXPIRY / 2 {
            self.set(count + Self::EXPIRY);
        }
    }
}

// SAFETY: `Local` is reached only through `Owner::local`, and an `Owner` exists only on the
// thread occupying the seat (`Owner::with_current`), so no two threads touch it at once.
unsafe impl Sync for LocalCell {}

/// One participant's place in a registry.
pub(crate) struct Seat {
    /// Stealable jobs. Any thread steals; push and pop are the owner's (`Owner::push`,
    /// `Owner::pop`).
    pub(crate) deque: Deque,
    /// Set by idle threads that want work; cleared by the owner when it answers.
    pub(super) split_request: CachePadded<AtomicBool>,
    /// The word the occupying thread sleeps on; any thread may wake it.
    pub(crate) sleep_word: CachePadded<SleepWord>,
    /// Owner-only state (`Owner::local`).
    pub(super) local: CachePadded<LocalCell>,
    /// Set when the worker should exit once out of work (workers only).
    pub(super) terminate: CoreLatch,
    /// Jobs addressed to this worker only (broadcasts).
    pub(super) inbox: Injector,
    /// The registry that owns this seat; fixed at construction.
    pub(super) registry: *const Registry,
    /// The seat's place in the registry: `0..num_workers` for workers, above for guests.
    pub(crate) index: usize,
    /// Debug builds only: what the stall watchdog looks at (`stall.rs`).
    #[cfg(all(debug_assertions, not(loom)))]
    pub(crate) stall: crate::scheduler::stall::SeatStall,
}

// SAFETY: shared fields are atomics or Sync; `local` is owner-only (see `LocalCell`); the
// registry pointer is valid for the seat's whole life (the registry owns the seat).
unsafe impl Sync for Seat {}
// SAFETY: as above.
unsafe impl Send for Seat {}

impl Seat {
    /// Raises the seat's request flag and expires its countdown, so that its owner's next
    /// poll takes the slow path and finds the flag: the call of a thread asking for work, a
    /// cancel, and the owner's own beat.
    #[inline]
    pub(super) fn raise_split_request(&self) {
        self.split_request.store(true, Ordering::Relaxed);
        self.local.countdown.expire();
    }

    /// Owner only (`Owner::poll`): counts `W` polls down on the seat's [`Countdown`]; true
    /// if the count is now below zero (the slow path is due). Counts below zero, not
    /// saturating: the sign of the subtraction is the test. One `sub` on memory and a `js` on
    /// x86-64 when the compiler takes `label` operands in assembly (Rust 1.87, `build.rs`);
    /// else a relaxed load and store, which LLVM does not fold into one instruction.
    #[inline(always)]
    pub(super) fn tick<const W: i32>(&self) -> bool {
        #[cfg(all(blitz_asm_goto, target_arch = "x86_64", not(miri), not(loom)))]
        {
            let mut out = false;
            // SAFETY: the operand is `self.local.0.countdown.0`, the aligned `i32` of an
            // `AtomicI32` that lives as long as the seat (`self` borrows it), addressed from the
            // seat's own pointer so that the subtraction needs no register of its own (`sub
            // dword ptr [seat + offset]`). On x86-64 that is an aligned 4-byte load and store,
            // each single-copy atomic: it behaves as `load(Relaxed)` then `store(Relaxed)` of
            // the difference, which is what the portable arm does. Only the owner thread
            // writes the count this way; other threads store (`Countdown::expire`), and a store
            // between the load and the store is lost, as `Countdown`'s doc allows. The block
            // touches no other memory and no stack; `js` jumps on the difference's sign.
            unsafe {
                std::arch::asm!(
                    "sub dword ptr [{seat} + {offset}], {w}",
                    "js {slow}",
                    seat = in(reg) self as *const Seat,
                    offset = const std::mem::offset_of!(Seat, local.0.countdown.0),
                    w = const W,
                    slow = label { out = true; },
                    options(nostack),
                );
            }
            out
        }
        #[cfg(not(all(blitz_asm_goto, target_arch = "x86_64", not(miri), not(loom))))]
        {
            // `fetch_sub` would be a locked instruction: the owner is the only subtractor.
            let count = &self.local.0.countdown.0;
            let left = count.load(Ordering::Relaxed).wrapping_sub(W);
            count.store(left, Ordering::Relaxed);
            left < 0
        }
    }

    /// The registry this seat belongs to.
    #[inline]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: the registry owns its seats and outlives them.
        unsafe { &*self.registry }
    }

    /// Whether this is a worker's seat (not a guest's).
    #[inline]
    pub(crate) fn is_worker(&self) -> bool {
        self.index < self.registry().num_workers
    }

    /// The registry's data pointer, as `Arc::as_ptr` of the registry's `Arc` gives it.
    #[inline]
    pub(crate) fn registry_ptr(&self) -> *const Registry {
        self.registry
    }

    /// One more `Arc` of the registry.
    pub(crate) fn registry_arc(&self) -> Arc<Registry> {
        // SAFETY: the registry was built by `Arc::new_cyclic` with this seat in it, so the
        // pointer is an `Arc`'s data pointer, and the seat (inside it) is alive, so the
        // strong count is not zero: taking one more and an `Arc` for it is sound.
        unsafe {
            Arc::increment_strong_count(self.registry);
            Arc::from_raw(self.registry)
        }
    }
}

thread_local! {
    /// The seat the calling thread occupies, or null. Set only by the functions that start
    /// an occupancy (a worker's main loop, entering a guest seat, `use_current_thread`) and
    /// cleared by the ones that end it.
    pub(super) static CURRENT: Cell<*const Seat> = const { Cell::new(std::ptr::null()) };
}

/// Whether the calling thread occupies a seat of some pool (as a worker or a guest).
#[inline]
pub(crate) fn has_seat() -> bool {
    !CURRENT.with(|c| c.get()).is_null()
}
