//! Latches: one-shot "this is done" signals that a waiting thread can sleep on.
//!
//! - [`CoreLatch`]: the 4-state latch (UNSET, SLEEPY, SLEEPING, SET) that lets a setter know
//!   whether the waiting thread is asleep and must be woken (`scheduler/README.md`, "Jobs and
//!   latches").
//! - [`SpinLatch`]: a core latch plus the sleep word of the thread that waits on it; what a
//!   join's promoted frame and `install` from inside a pool use.
//! - [`CountLatch`]: set when a counter reaches zero; what scopes and broadcasts wait on
//!   (in a seat, or blocking for an in-place scope started outside every pool).
//! - [`BlockingLatch`]: for a thread with no seat in any pool (it cannot help with work while
//!   waiting): spins briefly, then sleeps on a futex.
//!
//! The rule for every latch: the store that lets the waiter return (SET) is the setter's last
//! access to anything of the waiter's, because the waiter may return at once and free the
//! latch, and then its seat, sleep word included (its pool may be dropped). So a setter that
//! must wake the waiter does so *before* that store, with the latch in the intermediate state
//! WAKING, which the waiter does not take for SET (`scheduler/README.md`, "Jobs and latches").

use super::sleep::SleepWord;
use crate::sync::{futex, spinning_pays, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

const UNSET: u32 = 0;
const SLEEPY: u32 = 1;
const SLEEPING: u32 = 2;
const SET: u32 = 3;
/// Being set: the setter found the waiter SLEEPING and is waking it; SET follows.
const WAKING: u32 = 4;

/// The 4-state latch (plus WAKING, the setter's step between SLEEPING and SET). Only the
/// waiting thread moves it between UNSET, SLEEPY and SLEEPING; one setter moves it to SET
/// (through WAKING if the waiter was SLEEPING).
pub(crate) struct CoreLatch {
    state: AtomicU32,
}

impl CoreLatch {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> CoreLatch {
        CoreLatch {
            state: AtomicU32::new(UNSET),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> CoreLatch {
        CoreLatch {
            state: AtomicU32::new(UNSET),
        }
    }

    /// Whether the latch is set. Acquire: pairs with the Release of `set`, so the waiter sees
    /// everything the setter wrote before setting (a job's result).
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }

    /// Waiter: announce that it is about to sleep. False if the latch is already set.
    #[inline]
    pub(crate) fn get_sleepy(&self) -> bool {
        self.state
            .compare_exchange(UNSET, SLEEPY, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
    }

    /// Waiter: commit to sleeping. False if a setter got in first. SeqCst: the setter's swap
    /// either comes before this CAS (which then fails) or after it (and the setter then sees
    /// SLEEPING and wakes the waiter).
    #[inline]
    pub(crate) fn fall_asleep(&self) -> bool {
        self.state
            .compare_exchange(SLEEPY, SLEEPING, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
    }

    /// Waiter: back to UNSET after waking up without the latch being set.
    #[inline]
    pub(crate) fn wake_up(&self) {
        if !self.probe() {
            let _ =
                self.state
                    .compare_exchange(SLEEPING, UNSET, Ordering::SeqCst, Ordering::Relaxed);
            let _ = self
                .state
                .compare_exchange(SLEEPY, UNSET, Ordering::SeqCst, Ordering::Relaxed);
        }
    }

    /// Sets the latch, and wakes `owner` (the waiting thread's sleep word) first if the waiter
    /// is SLEEPING. Returns whether it was.
    ///
    /// The waiter returns once it reads SET, and may then free the latch and its seat (the
    /// sleep word with it); so SET is stored last. A waiter found SLEEPING is first moved to
    /// WAKING (not SET for `probe`, and the waiter neither sleeps nor leaves in it), woken, and
    /// only then released. Orderings: the CAS to WAKING is Acquire, reading from the waiter's
    /// SeqCst `fall_asleep`, which follows its BLOCKED store, so the wake's CAS finds the word
    /// BLOCKED unless another waker got there first; the store of SET (or the CAS to SET when
    /// no wake is needed) is Release, pairing with the waiter's Acquire `probe`, so the waiter
    /// sees everything the setter wrote before setting (a job's result).
    ///
    /// # Safety
    /// `this` and `owner` are alive on entry, and stay alive until the latch is SET: `this` is
    /// freed at the earliest when its waiter returns, `owner` when the waiter's thread has left
    /// its seat, both only after the waiter has read SET.
    #[inline]
    pub(crate) unsafe fn set_and_wake(this: *const CoreLatch, owner: *const SleepWord) -> bool {
        // SAFETY: alive until the final store below, by contract. (Not used after that store.)
        let state = unsafe { &(*this).state };
        let mut current = UNSET;
        loop {
            if current == SLEEPING {
                match state.compare_exchange(SLEEPING, WAKING, Ordering::Acquire, Ordering::Relaxed)
                {
                    Ok(_) => {
                        // SAFETY: the latch is not SET yet, so its waiter has not returned and
                        // `owner` is alive (contract).
                        unsafe { (*owner).wake() };
                        state.store(SET, Ordering::Release);
                        return true;
                    }
                    Err(now) => current = now,
                }
            } else {
                debug_assert!(current < SET, "a latch is set once");
                match state.compare_exchange(current, SET, Ordering::Release, Ordering::Relaxed) {
                    Ok(_) => return false,
                    // The waiter moved (UNSET -> SLEEPY -> SLEEPING, or back to UNSET): retry
                    // from its new state. It moves only a few times per sleep, so this ends.
                    Err(now) => current = now,
                }
            }
        }
    }
}

/// A core latch that knows whom to wake: the sleep word of the thread that waits on it.
pub(crate) struct SpinLatch {
    pub(crate) core: CoreLatch,
    owner: AtomicPtr<SleepWord>,
}

impl SpinLatch {
    pub(crate) fn new(owner: &SleepWord) -> SpinLatch {
        SpinLatch {
            core: CoreLatch::new(),
            owner: AtomicPtr::new(owner as *const _ as *mut _),
        }
    }

    /// Whether `word` is the sleep word of the latch's owner.
    #[inline]
    pub(crate) fn is_owned_by(&self, word: &SleepWord) -> bool {
        std::ptr::eq(self.owner.load(Ordering::Relaxed), word)
    }

    /// Sets the latch and wakes its owner if it sleeps (see [`CoreLatch::set_and_wake`]).
    ///
    /// # Safety
    /// `this` is alive on entry; it may be freed by the owner as soon as it is SET. Its owner
    /// is the thread waiting on it, in the seat whose sleep word it names (so that word is
    /// alive until the latch is SET: the thread cannot leave the seat before).
    #[inline]
    pub(crate) unsafe fn set(this: *const SpinLatch) {
        // SAFETY: alive on entry, by contract.
        let (core, owner) = unsafe {
            (
                &raw const (*this).core,
                (*this).owner.load(Ordering::Relaxed),
            )
        };
        // SAFETY: the latch is alive until SET (contract), and its owner's sleep word too, as
        // the owner waits in its seat until it reads SET; `set_and_wake` stores SET last.
        unsafe { CoreLatch::set_and_wake(core, owner) };
    }
}

/// A latch set when its counter drops to zero. Starts at 1 (the owner's own count).
///
/// The owner waits in one of two ways, fixed at creation: with a seat it runs jobs until the
/// inner [`SpinLatch`] is set (`Seat::wait_until` on [`seat_latch`](Self::seat_latch)); a
/// thread with no seat (an in-place scope started outside every pool) blocks on a
/// [`BlockingLatch`] instead ([`wait_blocking`](Self::wait_blocking)).
pub(crate) struct CountLatch {
    counter: AtomicUsize,
    target: CountTarget,
}

enum CountTarget {
    Seat(SpinLatch),
    Blocking(BlockingLatch),
}

impl CountLatch {
    /// A count latch whose owner waits in its seat, whose sleep word is `owner`.
    pub(crate) fn new(owner: &SleepWord) -> CountLatch {
        CountLatch {
            counter: AtomicUsize::new(1),
            target: CountTarget::Seat(SpinLatch::new(owner)),
        }
    }

    /// A count latch whose owner has no seat and blocks.
    pub(crate) fn new_blocking() -> CountLatch {
        CountLatch {
            counter: AtomicUsize::new(1),
            target: CountTarget::Blocking(BlockingLatch::new()),
        }
    }

    /// Whether the count reached zero (Acquire, as the inner latch's probe).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn probe(&self) -> bool {
        match &self.target {
            CountTarget::Seat(latch) => latch.core.probe(),
            CountTarget::Blocking(latch) => latch.probe(),
        }
    }

    /// The latch a seat owner waits on with `Seat::wait_until`.
    ///
    /// # Panics
    /// If the latch was made with [`new_blocking`](Self::new_blocking).
    pub(crate) fn seat_latch(&self) -> &CoreLatch {
        match &self.target {
            CountTarget::Seat(latch) => &latch.core,
            CountTarget::Blocking(_) => unreachable!("a blocking count latch has no seat"),
        }
    }

    /// The latch a thread with no seat waits on.
    #[cfg(not(loom))]
    ///
    /// # Panics
    /// If the latch was made with [`new`](Self::new).
    pub(crate) fn blocking_latch(&self) -> &BlockingLatch {
        match &self.target {
            CountTarget::Blocking(latch) => latch,
            CountTarget::Seat(_) => unreachable!("a seat's count latch is waited on in the seat"),
        }
    }

    /// Blocks until the count reaches zero.
    ///
    /// # Panics
    /// If the latch was made with [`new`](Self::new) (its owner must wait in its seat).
    pub(crate) fn wait_blocking(&self) {
        match &self.target {
            CountTarget::Blocking(latch) => latch.wait(),
            CountTarget::Seat(_) => unreachable!("a seat's count latch is waited on in the seat"),
        }
    }

    /// One more thing to wait for. Relaxed: the caller already holds a count, so the counter
    /// cannot reach zero concurrently.
    #[inline]
    pub(crate) fn increment(&self) {
        self.counter.fetch_add(1, Ordering::Relaxed);
    }

    /// One thing done; the last one sets the latch.
    ///
    /// # Safety
    /// As for [`SpinLatch::set`]: after the final decrement the latch may be freed.
    #[inline]
    pub(crate) unsafe fn decrement(this: *const CountLatch) {
        // SAFETY: alive until our decrement lands, by contract. AcqRel: every decrement's
        // writes are visible to the one that reaches zero, which publishes them via set.
        if unsafe { (*this).counter.fetch_sub(1, Ordering::AcqRel) } == 1 {
            // SAFETY: we own the final count; the latch is alive until it is set, and each
            // inner `set` touches nothing of it (nor of its owner's seat) after its final
            // store or swap.
            unsafe {
                match &(*this).target {
                    CountTarget::Seat(latch) => SpinLatch::set(latch),
                    CountTarget::Blocking(latch) => BlockingLatch::set(latch),
                }
            }
        }
    }
}

/// A latch for threads outside every pool: they cannot run jobs while waiting, so they spin a
/// little and then sleep on the latch's own futex word.
pub(crate) struct BlockingLatch {
    state: AtomicU32,
}

impl BlockingLatch {
    pub(crate) fn new() -> BlockingLatch {
        BlockingLatch {
            state: AtomicU32::new(UNSET),
        }
    }

    #[inline]
    pub(crate) fn probe(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }

    /// Blocks until the latch is set.
    pub(crate) fn wait(&self) {
        // About 10 to 50 us of polling before paying for a futex sleep and wake: enough for
        // short jobs injected into an awake pool. On one CPU, yields only: spinning would
        // hold the CPU that the setter needs (`sync::spinning_pays`).
        let first = if spinning_pays() { 0 } else { 100 };
        for i in first..200u32 {
            if self.probe() {
                return;
            }
            if i < 100 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        loop {
            match self
                .state
                .compare_exchange(UNSET, SLEEPING, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) | Err(SLEEPING) => futex::wait(&self.state, SLEEPING),
                Err(_) => return, // SET
            }
            if self.probe() {
                return;
            }
        }
    }

    /// Sets the latch and wakes the waiter if it sleeps.
    ///
    /// # Safety
    /// `this` is alive on entry; it may be freed once the swap lands, after which only its
    /// address is passed to the futex wake (harmless, see `sync::futex`).
    pub(crate) unsafe fn set(this: *const BlockingLatch) {
        // SAFETY: alive on entry by contract.
        let state: *const AtomicU32 = unsafe { &(*this).state };
        // SAFETY: as above.
        if unsafe { (*state).swap(SET, Ordering::AcqRel) } == SLEEPING {
            futex::wake_all(state);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::watchdog::{within, LIVENESS};
    use std::sync::Arc;

    #[test]
    fn core_latch_states() {
        let word = SleepWord::new();
        let l = CoreLatch::new();
        assert!(!l.probe());
        assert!(l.get_sleepy());
        word.block();
        assert!(l.fall_asleep());
        // SAFETY: the latch and the word live for the whole test.
        let woke = unsafe { CoreLatch::set_and_wake(&l, &word) };
        assert!(woke, "setter sees the sleeper");
        assert!(!word.is_blocked(), "and wakes it before the latch is SET");
        assert!(l.probe());
        assert!(!l.get_sleepy());
        let l = CoreLatch::new();
        assert!(l.get_sleepy());
        // SAFETY: as above.
        let woke = unsafe { CoreLatch::set_and_wake(&l, &word) };
        assert!(!woke, "a sleepy (not yet sleeping) waiter needs no wake");
        assert!(!l.fall_asleep(), "and then it does not fall asleep");
    }

    #[test]
    fn waking_is_not_set_and_blocks_sleep() {
        let l = CoreLatch::new();
        assert!(l.get_sleepy());
        assert!(l.fall_asleep());
        // What a setter does first when it finds the waiter asleep.
        l.state.store(WAKING, Ordering::Relaxed);
        assert!(
            !l.probe(),
            "the waiter may not leave while the setter wakes it"
        );
        l.wake_up();
        assert!(!l.get_sleepy(), "nor go to sleep again");
        l.state.store(SET, Ordering::Release);
        assert!(l.probe());
    }

    #[test]
    fn wake_up_returns_to_unset() {
        let l = CoreLatch::new();
        assert!(l.get_sleepy());
        assert!(l.fall_asleep());
        l.wake_up();
        assert!(l.get_sleepy());
    }

    #[test]
    fn count_latch_sets_at_zero() {
        let word = SleepWord::new();
        let l = CountLatch::new(&word);
        l.increment();
        l.increment();
        // SAFETY: the latch is alive for the whole test.
        unsafe {
            CountLatch::decrement(&l);
            CountLatch::decrement(&l);
            assert!(!l.probe());
            CountLatch::decrement(&l);
        }
        assert!(l.probe());
    }

    #[test]
    fn blocking_count_latch_wakes_owner() {
        within(
            LIVENESS,
            "a blocking count latch's owner woke when another thread's decrement set it",
            || {
                let l = Arc::new(CountLatch::new_blocking());
                l.increment();
                let l2 = l.clone();
                // SAFETY: kept alive by the Arc.
                let t = std::thread::spawn(move || unsafe { CountLatch::decrement(&*l2) });
                // SAFETY: the owner's own count; kept alive by the Arc.
                unsafe { CountLatch::decrement(&*l) };
                l.wait_blocking();
                assert!(l.probe());
                t.join().unwrap();
            },
        );
    }

    #[test]
    fn blocking_latch_wakes_sleeper() {
        within(
            LIVENESS,
            "a thread blocked on a blocking latch woke when another thread set it",
            || {
                let rounds = if cfg!(miri) { 3 } else { 200 };
                for _ in 0..rounds {
                    let l = Arc::new(BlockingLatch::new());
                    let l2 = l.clone();
                    let t = std::thread::spawn(move || l2.wait());
                    if !cfg!(miri) {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    // SAFETY: kept alive by the Arc.
                    unsafe { BlockingLatch::set(&*l) };
                    t.join().unwrap();
                    assert!(l.probe());
                }
            },
        );
    }
}
