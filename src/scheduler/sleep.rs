//! Sleep and wake: idle workers spin, then yield, then sleep on a futex; posters of new work
//! wake a sleeper only when no awake idle worker will find the work. No lock anywhere.
//!
//! The protocol (seeds 000 and 001, rayon's jobs-event-counter design on futexes) and the proof
//! sketch for each SeqCst operation are in `src/scheduler/README.md`, "Sleep and wake".
//!
//! State:
//! - one counters word: sleeping workers (bits 0..16), inactive workers (16..32, idle or
//!   sleeping), and the jobs event counter JEC (32..64). JEC is odd while "active" (work was
//!   posted since the last sleepy announcement) and even while "sleepy";
//! - one [`SleepWord`] per seat, the futex the seat's thread sleeps on: AWAKE, BLOCKED
//!   (about to sleep, not counted yet), COUNTED (asleep and counted among the sleeping
//!   workers), NUDGED (asleep and counted, and must look again at who patrols the watches:
//!   [`SleepWord::nudge`]) or RELEASED (woken by its pool, which took it off the sleeping
//!   count). A pool waker ([`Sleep::wake`]) moves COUNTED or NUDGED -> RELEASED and
//!   decrements the count itself, so that a worker it woke stops counting as asleep at once,
//!   not when it next runs (tens of microseconds on a VM); any other waker (a latch's setter)
//!   moves BLOCKED, COUNTED or NUDGED -> AWAKE and leaves the count to the sleeper. Then it
//!   calls futex wake. A nudge moves COUNTED -> NUDGED only, and the sleeper moves it back:
//!   it never ends a sleep.

use super::latch::CoreLatch;
use crate::sync::{
    fence, futex, spinning_pays, yield_now, AtomicU32, AtomicU64, CachePadded, Ordering,
};
use crate::tuning::{SPIN_PAUSES, SPIN_ROUNDS, YIELD_ROUNDS};

const AWAKE: u32 = 0;
const BLOCKED: u32 = 1;
const COUNTED: u32 = 2;
const RELEASED: u32 = 3;
/// Asleep and counted, as COUNTED, and told to look again at who patrols the watches
/// ([`SleepWord::nudge`]); the sleeper moves it back to COUNTED before it looks. Every waker
/// treats it as COUNTED.
const NUDGED: u32 = 4;

/// The futex word a seat's thread sleeps on.
pub(crate) struct SleepWord {
    state: AtomicU32,
}

impl SleepWord {
    pub(crate) fn new() -> SleepWord {
        SleepWord {
            state: AtomicU32::new(AWAKE),
        }
    }

    /// Sleeper: mark itself blocked (published by the SeqCst operation that follows).
    #[inline]
    pub(crate) fn block(&self) {
        self.state.store(BLOCKED, Ordering::SeqCst);
    }

    /// Sleeper: undo `block` when it decides not to sleep after all (before it is counted).
    #[inline]
    fn unblock(&self) {
        let _ = self
            .state
            .compare_exchange(BLOCKED, AWAKE, Ordering::SeqCst, Ordering::Relaxed);
    }

    /// Sleeper: block until a waker moves the word to AWAKE or RELEASED. A nudge is taken
    /// back (NUDGED -> COUNTED) and the wait goes on: nobody here looks at the watches.
    fn wait_while_blocked(&self) {
        trace_event!(SleepBegin, self as *const SleepWord);
        while self.wait_once(|| None) {}
        trace_event!(SleepEnd, self as *const SleepWord);
    }

    /// Sleeper, asleep: waits once while the word is BLOCKED or COUNTED, for at most the
    /// nanoseconds that `look` returns, if any (the patrol of the watches,
    /// `watch::sleep_watching`, reads `WATCHER` there). Returns false if the word was woken
    /// (AWAKE or RELEASED), true after the wait (woken, timed out, nudged or spuriously: the
    /// caller calls again).
    ///
    /// A nudge (NUDGED) is taken back to COUNTED first, then a SeqCst fence, then `look`:
    /// either the nudger's CAS to NUDGED comes after this load, and the futex wait on COUNTED
    /// returns at once (the value differs) or is woken by the nudger's futex wake, or `look`
    /// sees what the nudger stored before its own fence (README, "Who patrols, on Linux").
    /// So no nudge is lost, and the word never leaves the asleep-and-counted states here.
    pub(crate) fn wait_once(&self, look: impl FnOnce() -> Option<u64>) -> bool {
        let mut state = self.state.load(Ordering::Acquire);
        if state == NUDGED {
            // SeqCst CAS and fence: the sleeper's side of the nudge's Dekker pair (the same
            // pair as `Sleep::sleep`'s step 4 fence after its CAS to COUNTED).
            state = match self.state.compare_exchange(
                NUDGED,
                COUNTED,
                Ordering::SeqCst,
                Ordering::Acquire,
            ) {
                Ok(_) => COUNTED,
                Err(now) => now,
            };
            fence(Ordering::SeqCst);
        }
        if state != BLOCKED && state != COUNTED {
            // Woken: AWAKE or RELEASED (only this thread moves NUDGED back to COUNTED).
            return false;
        }
        match look() {
            None => futex::wait(&self.state, state),
            #[cfg(all(target_os = "linux", not(loom), not(miri)))]
            Some(ns) => futex::wait_timeout(&self.state, state, ns),
            // No timed wait here: the caller looks again after a spurious return.
            #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
            Some(_) => futex::wait(&self.state, state),
        }
        true
    }

    /// Makes the thread asleep and counted on this word, if any, look again at how long it
    /// sleeps (`wait_once`'s `look`): COUNTED -> NUDGED, then a futex wake. The thread stays
    /// asleep and counted: it moves the word back to COUNTED and sleeps on. Returns whether
    /// it nudged.
    ///
    /// What the sleeper must see (a store to `WATCHER`) is stored before this call; the
    /// SeqCst fence here orders that store before the load of the word, against the
    /// sleeper's CAS to COUNTED and its fence before `look` (README, "Who patrols, on
    /// Linux"): either this load sees COUNTED and the word becomes NUDGED, which the
    /// sleeper's futex wait cannot miss, or the sleeper's `look` sees the store. A word found
    /// BLOCKED (not counted yet) or NUDGED (a nudge pending) needs nothing: its sleeper's
    /// `look` comes after its next CAS to COUNTED and fence.
    #[cfg(any(all(target_os = "linux", not(miri)), loom))]
    pub(crate) fn nudge(&self) -> bool {
        fence(Ordering::SeqCst);
        let mut state = self.state.load(Ordering::SeqCst);
        while state == COUNTED {
            match self
                .state
                .compare_exchange(COUNTED, NUDGED, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => {
                    futex::wake_one(&self.state);
                    return true;
                }
                Err(now) => state = now,
            }
        }
        false
    }

    /// Whether the word is BLOCKED, COUNTED or NUDGED (for the loom models).
    #[cfg(test)]
    pub(crate) fn is_blocked(&self) -> bool {
        matches!(
            self.state.load(Ordering::SeqCst),
            BLOCKED | COUNTED | NUDGED
        )
    }

    /// Whether the word holds COUNTED, the value a sleeper's futex wait blocks on (for the
    /// loom models: a sleeper that waits there is woken only by a change of the word).
    #[cfg(all(test, loom))]
    pub(crate) fn is_counted(&self) -> bool {
        self.state.load(Ordering::SeqCst) == COUNTED
    }

    /// Waker without access to the sleeping count (a latch's setter): wake the thread if it
    /// is blocked, leaving the count to the sleeper. Returns whether it was blocked.
    #[inline]
    pub(crate) fn wake(&self) -> bool {
        let mut state = self.state.load(Ordering::Relaxed);
        while state == BLOCKED || state == COUNTED || state == NUDGED {
            match self
                .state
                .compare_exchange(state, AWAKE, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => {
                    trace_event!(Wake, self as *const SleepWord);
                    futex::wake_one(&self.state);
                    return true;
                }
                Err(now) => state = now,
            }
        }
        false
    }
}

/// The round at which a worker announces it is sleepy: it spins for `SPIN_ROUNDS` rounds, then
/// yields for `YIELD_ROUNDS` (`crate::tuning`).
pub(crate) const ROUNDS_UNTIL_SLEEPY: u32 = SPIN_ROUNDS + YIELD_ROUNDS;
/// The round at which it goes to sleep.
pub(crate) const ROUNDS_UNTIL_SLEEPING: u32 = ROUNDS_UNTIL_SLEEPY + 1;

std::thread_local! {
    /// Set by [`Sleep::outside_woken`] on the thread that woke an outside thread; taken by
    /// that thread's next [`IdleState::check_outside`] that sees the counter change.
    static WOKE_OUTSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Per-search idle bookkeeping of one thread.
pub(crate) struct IdleState {
    pub(crate) rounds: u32,
    /// JEC value recorded when announcing sleepy.
    jobs_counter: u32,
    /// `Sleep::outside_wakes` when this thread last looked.
    outside_seen: u32,
    /// Rounds that spin before the rounds that yield: `SPIN_ROUNDS`, or 0 where the process
    /// may run on one CPU only (`sync::spinning_pays`). Looked up once per idle period, so
    /// that a round costs what it did.
    spin_rounds: u32,
}

impl IdleState {
    pub(crate) fn new() -> IdleState {
        IdleState {
            rounds: 0,
            jobs_counter: 0,
            outside_seen: 0,
            spin_rounds: if spinning_pays() { SPIN_ROUNDS } else { 0 },
        }
    }

    /// Idle state for the searches of a wait in `sleep`'s pool (outside wakes counted from
    /// now).
    pub(crate) fn in_pool(sleep: &Sleep) -> IdleState {
        IdleState {
            outside_seen: sleep.outside_wakes.load(Ordering::Relaxed),
            ..IdleState::new()
        }
    }

    /// A new search after a job. It keeps `outside_seen`: a task that this thread ran and
    /// that woke its awaiter is seen by its next search.
    pub(crate) fn restart(&mut self) {
        self.rounds = 0;
    }

    /// Before the sleepy round: if this worker woke a thread outside the pool since it last
    /// looked, and another worker is awake and idle (it takes the next job), go on to the
    /// sleepy round at once, leaving its core to the woken thread (README, "Sleep and wake").
    /// The counter, read once a round, keeps the thread-local flag off the rounds' path.
    #[inline]
    pub(crate) fn check_outside(&mut self, sleep: &Sleep, worker: bool) {
        if self.rounds < ROUNDS_UNTIL_SLEEPY {
            let now = sleep.outside_wakes.load(Ordering::Relaxed);
            if now != self.outside_seen {
                self.outside_seen = now;
                let woke = WOKE_OUTSIDE.with(|woke| woke.replace(false));
                if woke && worker && sleep.idle_awake_workers() >= 2 {
                    self.rounds = ROUNDS_UNTIL_SLEEPY;
                }
            }
        }
    }

    /// Pause between unsuccessful searches: spin first, then yield. On one CPU, yield from
    /// the first round: a spinning thread holds the only CPU that the thread whose work it
    /// waits for needs (`sync::spinning_pays`).
    #[inline]
    pub(crate) fn pause(&self) {
        if self.rounds < self.spin_rounds {
            for _ in 0..SPIN_PAUSES {
                std::hint::spin_loop();
            }
        } else {
            std::thread::yield_now();
        }
    }
}

const SLEEPING_ONE: u64 = 1;
const INACTIVE_ONE: u64 = 1 << 16;
const JEC_ONE: u64 = 1 << 32;

#[inline]
fn sleeping(c: u64) -> u32 {
    (c & 0xffff) as u32
}
#[inline]
fn inactive(c: u64) -> u32 {
    ((c >> 16) & 0xffff) as u32
}
#[inline]
fn jec(c: u64) -> u32 {
    (c >> 32) as u32
}

/// The pool-wide sleep state.
pub(crate) struct Sleep {
    counters: CachePadded<AtomicU64>,
    /// Bumped (Relaxed) each time a pool thread wakes a thread outside the pool that waits
    /// for it (a `spawn_future` task's awaiter): the waking thread, seeing it change, may go
    /// to sleep early so that the woken thread finds a core. Only a hint; no ordering rides
    /// on it.
    outside_wakes: AtomicU32,
}

impl Sleep {
    pub(crate) fn new() -> Sleep {
        Sleep {
            counters: CachePadded(AtomicU64::new(0)),
            outside_wakes: AtomicU32::new(0),
        }
    }

    /// The calling pool thread woke a thread outside the pool (see `outside_wakes`).
    #[inline]
    pub(crate) fn outside_woken(&self) {
        WOKE_OUTSIDE.with(|woke| woke.set(true));
        self.outside_wakes.fetch_add(1, Ordering::Relaxed);
    }

    /// Workers asleep now (a hint).
    #[inline]
    pub(crate) fn sleeping_workers(&self) -> u32 {
        sleeping(self.counters.load(Ordering::Relaxed))
    }

    /// Workers idle but awake now (a hint).
    #[inline]
    pub(crate) fn idle_awake_workers(&self) -> u32 {
        let c = self.counters.load(Ordering::Relaxed);
        inactive(c).saturating_sub(sleeping(c))
    }

    /// A worker starts searching for work.
    #[inline]
    pub(crate) fn start_looking(&self) {
        self.counters.fetch_add(INACTIVE_ONE, Ordering::SeqCst);
    }

    /// A searching worker found work (or stops searching).
    #[inline]
    pub(crate) fn work_found(&self) {
        self.counters.fetch_sub(INACTIVE_ONE, Ordering::SeqCst);
    }

    /// Announce "sleepy": make JEC even (sleepy) if it is odd, and remember its value.
    pub(crate) fn announce_sleepy(&self, idle: &mut IdleState) {
        let mut c = self.counters.load(Ordering::SeqCst);
        loop {
            if jec(c) & 1 == 0 {
                break;
            }
            match self.counters.compare_exchange_weak(
                c,
                c.wrapping_add(JEC_ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => {
                    c = c.wrapping_add(JEC_ONE);
                    break;
                }
                Err(now) => c = now,
            }
        }
        idle.jobs_counter = jec(c);
    }

    /// New jobs were posted (pushed on a deque or injected). Makes JEC active so that no
    /// sleepy worker goes to sleep without seeing them, then wakes up to `num_jobs` sleepers if
    /// `allow_wake` and no awake idle worker will find the jobs.
    ///
    /// `wake_one` is called for each sleeper to wake and returns whether it woke one.
    pub(crate) fn new_jobs(
        &self,
        num_jobs: u32,
        queue_was_empty: bool,
        allow_wake: bool,
        mut wake_one: impl FnMut() -> bool,
    ) {
        // The job is already published (deque slot + bottom, or injector slot). This fence
        // orders that publication before our read of the counters, against the SeqCst fence a
        // thief runs inside `steal` (README, "Sleep and wake", case analysis).
        fence(Ordering::SeqCst);
        // JEC += 1 if even (sleepy); if odd, nobody announced sleepy since the last post.
        let mut c = self.counters.load(Ordering::SeqCst);
        while jec(c) & 1 == 0 {
            match self.counters.compare_exchange_weak(
                c,
                c.wrapping_add(JEC_ONE),
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break,
                Err(now) => c = now,
            }
        }
        let sleepers = sleeping(c);
        if sleepers == 0 || !allow_wake {
            return;
        }
        let idle_awake = inactive(c).saturating_sub(sleepers);
        let to_wake = if queue_was_empty {
            num_jobs.saturating_sub(idle_awake).min(sleepers)
        } else {
            num_jobs.min(sleepers)
        };
        for _ in 0..to_wake {
            if !wake_one() {
                break;
            }
        }
    }

    /// A worker that searched for `ROUNDS_UNTIL_SLEEPING` rounds goes to sleep on its sleep
    /// word, unless the latch it waits for is set, new jobs were posted since it announced
    /// sleepy, or the injector holds jobs. Returns after being woken (or deciding not to
    /// sleep); the caller then searches again. Returns whether it registered as sleeping
    /// (then it was woken, or saw jobs posted while it registered).
    pub(crate) fn sleep(
        &self,
        idle: &mut IdleState,
        latch: &CoreLatch,
        word: &SleepWord,
        injector_has_jobs: impl Fn() -> bool,
    ) -> bool {
        // A worker may patrol the watches while it sleeps (`watch.rs`); elsewhere the
        // watchman thread does.
        #[cfg(all(target_os = "linux", not(loom), not(miri)))]
        let wait = super::watch::sleep_watching;
        #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
        let wait = SleepWord::wait_while_blocked;
        self.sleep_with(idle, latch, word, injector_has_jobs, wait)
    }

    /// [`Sleep::sleep`], whose sleep, once counted, is `wait(word)`: it returns once the word
    /// is woken (AWAKE or RELEASED). The loom models pass their own.
    pub(crate) fn sleep_with(
        &self,
        idle: &mut IdleState,
        latch: &CoreLatch,
        word: &SleepWord,
        injector_has_jobs: impl Fn() -> bool,
        wait: impl FnOnce(&SleepWord),
    ) -> bool {
        if !latch.get_sleepy() {
            if !latch.probe() {
                // WAKING: a setter found us asleep, woke us and is about to store SET. Let it
                // run, and search from the yielding rounds meanwhile (not a tight loop).
                idle.rounds = SPIN_ROUNDS;
                yield_now();
            }
            return false;
        }
        // BLOCKED before the latch CAS and the counters CAS, so that a setter or poster that
        // sees us registered also sees the word blocked and wakes it.
        word.block();
        if !latch.fall_asleep() {
            word.unblock();
            idle.rounds = SPIN_ROUNDS;
            return false;
        }
        // Register as sleeping, only if JEC is still what we announced.
        let mut c = self.counters.load(Ordering::SeqCst);
        loop {
            if jec(c) != idle.jobs_counter {
                word.unblock();
                latch.wake_up();
                idle.rounds = SPIN_ROUNDS;
                return false;
            }
            match self.counters.compare_exchange_weak(
                c,
                c + SLEEPING_ONE,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break,
                Err(now) => c = now,
            }
        }
        // Counted: mark the word so, unless a waker already moved it to AWAKE (having seen it
        // BLOCKED, it could not know we were counted: we take ourselves off the count).
        if word
            .state
            .compare_exchange(BLOCKED, COUNTED, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            self.counters.fetch_sub(SLEEPING_ONE, Ordering::SeqCst);
            latch.wake_up();
            idle.rounds = 0;
            return true;
        }
        // Pairs with the fence an injector runs between pushing and reading the counters:
        // either it sees us sleeping and wakes us, or we see its job here. It is also the
        // sleeper's fence of the nudge's pair (`SleepWord::nudge`): the first `look` of the
        // wait below comes after it.
        fence(Ordering::SeqCst);
        if injector_has_jobs() || latch.probe() {
            // COUNTED, or NUDGED if a nudge came meanwhile: either way still asleep here.
            let mut state = word.state.load(Ordering::Relaxed);
            while state == COUNTED || state == NUDGED {
                match word
                    .state
                    .compare_exchange(state, AWAKE, Ordering::SeqCst, Ordering::Relaxed)
                {
                    Ok(_) => break,
                    Err(now) => state = now,
                }
            }
        }
        wait(word);
        // RELEASED: a pool waker took us off the sleeping count; otherwise we do.
        if word.state.swap(AWAKE, Ordering::SeqCst) != RELEASED {
            self.counters.fetch_sub(SLEEPING_ONE, Ordering::SeqCst);
        }
        latch.wake_up();
        idle.rounds = 0;
        true
    }

    /// Pool waker: wakes `word`'s thread if it is blocked. If it is asleep and counted
    /// (COUNTED or NUDGED), marks it RELEASED and takes it off the sleeping count now: until the woken
    /// thread runs (tens of microseconds on a VM, more under load) the count would otherwise
    /// still hold it, and the heartbeat, which wakes only while more workers sleep than guests
    /// run parallel work, woke one worker too many on the 2-core VM in most calls that began
    /// with the pool asleep: three threads on two cores, a compute-bound map 20% slower.
    /// Returns whether it woke the thread.
    #[inline]
    pub(crate) fn wake(&self, word: &SleepWord) -> bool {
        let mut state = word.state.load(Ordering::Relaxed);
        loop {
            let (new, counted) = match state {
                BLOCKED => (AWAKE, false),
                COUNTED | NUDGED => (RELEASED, true),
                _ => return false,
            };
            match word
                .state
                .compare_exchange(state, new, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => {
                    if counted {
                        self.counters.fetch_sub(SLEEPING_ONE, Ordering::SeqCst);
                    }
                    trace_event!(Wake, word as *const SleepWord);
                    futex::wake_one(&word.state);
                    return true;
                }
                Err(now) => state = now,
            }
        }
    }

    /// A thread with no part in the counters (a guest: it is never woken for new work) sleeps
    /// until `latch` is set.
    pub(crate) fn sleep_on_latch(latch: &CoreLatch, word: &SleepWord) {
        if !latch.get_sleepy() {
            if !latch.probe() {
                // WAKING: the setter stores SET right after its wake; let it run.
                yield_now();
            }
            return;
        }
        word.block();
        if !latch.fall_asleep() {
            word.unblock();
            return;
        }
        word.wait_while_blocked();
        latch.wake_up();
    }
}
