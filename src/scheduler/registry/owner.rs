//! [`Owner`]: the calling thread's seat, as its owner.
//!
//! Each seat is occupied by at most one thread at a time (`CURRENT` points to it on that
//! thread), and only that thread may push and pop at the bottom of the seat's deque or touch
//! its [`Local`] state: the recorded join frames, the heartbeat clock, the holds. An `Owner`
//! is the proof of that occupancy. It is neither `Send` nor `Sync`, and the only way to get
//! one is [`Owner::with_current`], which hands it to a closure for as long as the closure
//! runs, on the occupying thread; so code that holds an `Owner` may use the owner side of
//! the seat without a contract of its own. crossbeam-deque makes the same split between the
//! `Worker` of a deque and its `Stealer`s; here the owner's operations of the deque and of
//! the seat's bookkeeping are methods of `Owner`, and the shared side is `Seat`'s.
//!
//! The token compiles away: it is one pointer, and `with_current` is one thread-local load
//! and a null check, which every caller made before it existed.
//!
//! What an `Owner` can do: the join frames' recording and promotion (`README.md`,
//! "Splitting"), the heartbeat, the iterator driver's split checks, and the owner's wait loops
//! (`wait_until`, `help_until`) that run other jobs until a latch is set.

use super::seat::{beat_deadline, Countdown, FrameHead, Local, Seat, Site, CURRENT};
use super::Registry;
use crate::scheduler::deque::Steal;
use crate::scheduler::future_slot::{unwind_cancelled, CancelToken};
use crate::scheduler::job::{JobHeader, JobRef};
use crate::scheduler::latch::{CoreLatch, SpinLatch};
use crate::scheduler::sleep::{IdleState, Sleep, ROUNDS_UNTIL_SLEEPING, ROUNDS_UNTIL_SLEEPY};
use crate::sync::{ticks, ticks_in, Ordering};
use crate::tuning::{
    HEARTBEAT_NS, JOINS_PER_CLOCK_READ, MAX_FRAMES, PROVEN_BEAT_NS, RECORD_WINDOW,
    SPLIT_CHECK_WEIGHT,
};
use std::marker::PhantomData;

/// What the driver tells [`poll`] of the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Nothing: the heartbeat reads the clock itself, every `SPLIT_CHECK_WEIGHT`th poll.
    None,
    /// The driver reads the clock for the heartbeat, but did not time the chunk just run:
    /// only an idle thread's request (or a beat already pending) can say yes.
    Untimed,
    /// The driver's own reading, taken at the end of the chunk just run: the heartbeat uses
    /// it instead of reading the clock (one `rdtsc` serves both, see `SETTLED_READ_CHUNKS`).
    At(u64),
}

/// What [`poll`] found: whether, and why, the driver should split the work it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    /// Nobody wants work.
    No,
    /// An idle thread of the pool, awake, asked this thread for work: a split's half is taken
    /// within about a microsecond.
    Asked,
    /// The heartbeat says a sleeping worker should be woken to share the work (or the driver
    /// asked for an early wake, [`Wake::Sleepers`]): a woken worker starts tens of
    /// microseconds later.
    Beat,
}

impl Want {
    /// Whether to split at all.
    #[inline]
    pub(crate) fn any(self) -> bool {
        self != Want::No
    }
}

/// The calling thread's seat, as its owner: access to the owner side of the seat (the bottom
/// of its deque, its recorded join frames, its heartbeat). See the module docs.
#[derive(Clone, Copy)]
pub(crate) struct Owner<'a> {
    seat: &'a Seat,
    /// Neither `Send` nor `Sync`: the token proves something about the calling thread only.
    _on_this_thread: PhantomData<*const ()>,
}

// `Owner` is neither `Send` nor `Sync`: if it were either, the blanket impl below for that
// trait would make the call ambiguous, and this would not build (the trick of
// `static_assertions::assert_not_impl_any!`).
const _: () = {
    trait AmbiguousIf<Marker> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIf<()> for T {}
    struct IfSend;
    impl<T: ?Sized + Send> AmbiguousIf<IfSend> for T {}
    struct IfSync;
    impl<T: ?Sized + Sync> AmbiguousIf<IfSync> for T {}
    let _ = <Owner<'static> as AmbiguousIf<_>>::check;
};

/// A join frame recorded by [`Owner::record`], to be closed by [`Owner::close`]: the depth it
/// was recorded at, which safe code cannot forge.
#[must_use = "a recorded frame must be closed before it goes"]
pub(crate) struct Recorded {
    depth: usize,
}

impl<'a> Owner<'a> {
    /// Runs `f` with the calling thread's `Owner`, or `None` if the thread occupies no seat.
    /// The token lives only as long as the call (`f` cannot return it), so it cannot outlast
    /// the occupancy it proves.
    #[inline(always)]
    pub(crate) fn with_current<R>(f: impl for<'s> FnOnce(Option<Owner<'s>>) -> R) -> R {
        let seat = CURRENT.with(|c| c.get());
        // SAFETY: a non-null `CURRENT` is the seat the calling thread occupies. Occupancies
        // nest with the calls of this thread: each is started and ended by one function (a
        // worker's main loop, `try_enter_as_guest`, a pool built with `use_current_thread`
        // and dropped), and an occupancy that started before this call ends only after it
        // returns, except when a `use_current_thread` pool is dropped inside it, which keeps
        // the seat's registry alive until the thread exits (`detach_current_thread`) and
        // never gives seat 0 to another thread. So the seat is alive, and no other thread
        // occupies it, for the whole call of `f`, which is all the token's lifetime allows.
        let seat = unsafe { seat.as_ref() };
        f(seat.map(|seat| Owner {
            seat,
            _on_this_thread: PhantomData,
        }))
    }

    /// The seat this thread occupies (its shared side).
    #[inline(always)]
    pub(crate) fn seat(self) -> &'a Seat {
        self.seat
    }

    /// The registry of the seat.
    #[inline(always)]
    pub(crate) fn registry(self) -> &'a Registry {
        self.seat.registry()
    }

    /// The seat's owner-only state.
    #[inline(always)]
    pub(super) fn local(self) -> &'a Local {
        // SAFETY: only the occupying thread has an `Owner`, so no other thread reads or
        // writes `Local` while this reference lives (it is `!Sync`, so it stays here too).
        unsafe { &*self.seat.local.0.cell.get() }
    }

    /// Pushes `job` at the bottom of the seat's deque (no wake: see `Sleep::new_jobs`).
    #[inline]
    pub(crate) fn push(self, job: JobRef) {
        // SAFETY: the deque's push and pop belong to the thread occupying its seat: us.
        unsafe { self.seat.deque.push(job) }
    }

    /// Pops the newest job of the seat's deque.
    #[inline]
    pub(crate) fn pop(self) -> Option<JobRef> {
        // SAFETY: as in `push`.
        unsafe { self.seat.deque.pop() }
    }

    /// Records that the calling frame keeps using this seat after running user code, until the
    /// returned guard drops (see `Local::holds`).
    #[inline]
    pub(crate) fn hold(self) -> SeatHold<'a> {
        let local = self.local();
        local.holds.set(local.holds.get() + 1);
        SeatHold(local)
    }

    /// Whether nothing on this thread's stack uses the seat: no open recorded join, no hold.
    pub(crate) fn unused_on_stack(self) -> bool {
        let local = self.local();
        local.depth.get() == 0 && local.holds.get() == 0
    }

    /// Resets the owner state for a new guest (the seat was just claimed).
    pub(super) fn reset_for_guest(self) {
        let local = self.local();
        local.depth.set(0);
        local.set_promoted(0);
        local.reset_heartbeat();
        local.beat_pending.set(false);
        local.beat_wakes.set(1);
        local.cancel.set(CancelToken::NONE);
        self.seat.split_request.store(false, Ordering::Relaxed);
        #[cfg(all(debug_assertions, not(loom)))]
        self.publish_site();
    }

    /// Debug builds only: publishes where the oldest recorded frame that waits unpromoted was
    /// recorded (null: none), for the stall watchdog (`stall.rs`). Called wherever `depth`
    /// or `promoted` changes.
    #[cfg(all(debug_assertions, not(loom)))]
    fn publish_site(self) {
        let local = self.local();
        let promoted = local.promoted();
        let site = if promoted < local.depth.get() {
            local.sites[promoted].get()
        } else {
            std::ptr::null()
        };
        self.seat.stall.set_site(site);
    }

    // ---- Cancellation (`spawn_future`; `future_slot.rs`, "Cancelling running work") ----

    /// The cancellation token of the work this thread runs now.
    #[inline]
    pub(crate) fn cancel_token(self) -> CancelToken {
        self.local().cancel.get()
    }

    /// Whether the work this thread runs belongs to a `spawn_future` task whose future was
    /// dropped. Read on slow paths only.
    #[inline]
    pub(crate) fn cancelled(self) -> bool {
        // SAFETY: a token is in `Local::cancel` only while `with_cancel_token` runs its work,
        // whose caller keeps the task alive for that long (its contract).
        unsafe { self.cancel_token().is_cancelled() }
    }

    /// Runs `work` as work of the task whose token `token` is (`NONE`: of no task), then puts
    /// back the token the thread had, also if `work` unwinds.
    ///
    /// # Safety
    /// `token` is `NONE`, or its task's slot stays alive until this returns.
    #[inline]
    pub(crate) unsafe fn with_cancel_token<R>(
        self,
        token: CancelToken,
        work: impl FnOnce() -> R,
    ) -> R {
        struct Restore<'a>(&'a Local, CancelToken);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.cancel.set(self.1);
            }
        }
        let local = self.local();
        self.promote_before_token_change();
        let _restore = Restore(local, local.cancel.replace(token));
        work()
    }

    /// Before this thread's token changes (a job taken from a queue, a `try_join` call's own
    /// node): promotes the recorded frames still waiting unpromoted, under the token they were
    /// recorded under, which is the current one. A frame takes the token its thread carries
    /// when it is promoted, so one promoted later, inside the other work, would carry that
    /// work's token, and a cancel of that work would stop the frame's `b` (`README.md`,
    /// "Cancelling running work"). Frames wait unpromoted there only in a wait that runs jobs
    /// inside a join's `a` (a scope's, `yield_now`), never in the unstolen join path.
    #[inline]
    fn promote_before_token_change(self) {
        let local = self.local();
        if local.promoted() < local.depth.get() {
            self.promote_all();
        }
    }

    /// Runs a job taken out of a queue. It runs as work of no task: a job that belongs to
    /// one (a stolen join frame, a scope's job, a `spawn_future` task) carries its token and
    /// sets it itself.
    ///
    /// # Safety
    /// The caller took `job` out of a queue, so it owns its execution.
    #[inline]
    pub(crate) unsafe fn run_job(self, job: JobRef) {
        let local = self.local();
        self.promote_before_token_change();
        let token = local.cancel.replace(CancelToken::NONE);
        trace_event!(JobBegin, job.as_ptr());
        // SAFETY: by contract. Jobs catch their own panics, so nothing unwinds past the
        // restore below.
        unsafe { job.execute() };
        trace_event!(JobEnd, job.as_ptr());
        local.cancel.set(token);
    }

    // ---- Join frames (`README.md`, "Splitting") ----

    /// Whether a join opened now records its frame: fewer than `RECORD_WINDOW` recorded frames
    /// wait unpromoted (and fewer than `MAX_FRAMES` are recorded), and the registry has
    /// another seat, whose thread could take the frame.
    #[inline(always)]
    pub(crate) fn records(self) -> bool {
        let local = self.local();
        local.depth.get() < local.record_below.get()
    }

    /// Records `frame` as the newest open join frame, which promotion may push on the deque
    /// from now on. Call only when [`records`](Self::records) says so.
    ///
    /// # Safety
    /// `frame` points to a `FrameHead` at the start of a join frame whose `execute` may run
    /// it on another thread (the pointer derived from the whole frame). That frame stays
    /// alive and in place until the returned [`Recorded`] has been given to
    /// [`close`](Self::close) and, if `close` said it was promoted, until its job was popped
    /// back or its latch set. Frames are closed in the reverse order of their recording.
    /// [`records`](Self::records) said yes just before, with nothing recorded or closed since.
    /// `site`: where the join was called (debug builds; nothing in release builds).
    #[inline(always)]
    pub(crate) unsafe fn record(self, frame: *const FrameHead, site: Site) -> Recorded {
        const { assert!(RECORD_WINDOW <= MAX_FRAMES) };
        let local = self.local();
        let depth = local.depth.get();
        debug_assert!(depth < local.record_below.get());
        // SAFETY: `records` said `depth < record_below` (contract), and `record_below` is at
        // most `MAX_FRAMES` (`set_promoted` caps it; it starts at `RECORD_WINDOW` or 0, checked
        // above), so the index is in bounds. Unchecked: the bounds check was two of the
        // recorded join's instructions (`examples/join_shapes`).
        unsafe { local.frames.get_unchecked(depth) }.set(frame);
        local.depth.set(depth + 1);
        #[cfg(all(debug_assertions, not(loom)))]
        {
            local.sites[depth].set(site);
            self.publish_site();
        }
        #[cfg(not(all(debug_assertions, not(loom))))]
        let () = site;
        Recorded { depth }
    }

    /// Closes a recorded join frame (its `a` has returned or unwound, and the frames recorded
    /// inside `a` have closed): true if it was promoted, in which case its job is on the
    /// deque or was stolen, and the caller must resolve it (pop it back or wait for its
    /// latch) before the frame goes.
    #[inline(always)]
    pub(crate) fn close(self, frame: Recorded) -> bool {
        let local = self.local();
        let depth = frame.depth;
        debug_assert_eq!(
            local.depth.get(),
            depth + 1,
            "join frames close in LIFO order"
        );
        local.depth.set(depth);
        #[cfg(all(debug_assertions, not(loom)))]
        self.publish_site();
        if depth < local.promoted() {
            local.set_promoted(depth);
            return true;
        }
        false
    }

    /// The fast-path check of a join or the iterator driver, after recording a frame:
    /// does anyone want work from us, or is the heartbeat's clock read due?
    #[inline(always)]
    pub(crate) fn poll<const WEIGHT: i32>(self) -> bool {
        #[cfg(all(debug_assertions, not(loom)))]
        self.seat.stall.polled();
        // One subtraction and the sign of its result (`sub mem; js` on x86-64). The request
        // flag is not read here: whoever raises it expires the countdown too
        // (`Seat::raise_split_request`). `heartbeat` sets the count back once it is negative.
        self.seat.tick::<WEIGHT>()
    }

    /// The seat's poll countdown (the owner's side of it: see `Countdown`).
    #[inline(always)]
    fn countdown(self) -> &'a Countdown {
        &self.seat.local.0.countdown
    }

    /// The slow path after `poll` said yes: heartbeat bookkeeping, then promote the oldest
    /// recorded frame if anyone wants work. Returns true instead, doing nothing else, when
    /// the work this thread runs is cancelled (`spawn_future`): the caller, a join, then runs
    /// neither closure. The request flag is left raised, so that every later poll of the
    /// cancelled work takes this path too.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_poll(self) -> bool {
        self.on_poll_asked(false)
    }

    /// [`on_poll`](Self::on_poll) for a join whose split the driver offers to an awake idle
    /// thread (`join_offered`): as if that thread had asked already, so that the frame just
    /// recorded is promoted (if the deque is empty, and without a wake: that is a beat's).
    /// The thread's own request would come only after this one entered the pool, and be seen
    /// only at the end of the next chunk.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_offer(self) -> bool {
        self.on_poll_asked(true)
    }

    /// [`on_poll`](Self::on_poll), with `offered` counting as a request.
    #[inline(always)]
    fn on_poll_asked(self, offered: bool) -> bool {
        self.countdown().settle();
        if self.cancelled() {
            self.seat.raise_split_request();
            return true;
        }
        let local = self.local();
        let seat = self.seat;
        let beat = self.heartbeat(None) || local.beat_pending.replace(false);
        let requested = seat.split_request.load(Ordering::Relaxed);
        if requested {
            seat.split_request.store(false, Ordering::Relaxed);
        }
        if (beat || requested || offered) && seat.deque.is_empty() {
            self.promote_oldest(beat);
        } else if beat && !seat.deque.is_empty() {
            // A heartbeat found a sleeper and no idle awake worker while our deque holds a job
            // nobody took: wake one. The sleep protocol should have made this unnecessary, but
            // a job left behind then would otherwise wait until we pop it ourselves, which a
            // thread blocked on that very job (its `a` waits for its `b`) never does. The
            // heartbeat thus bounds any missed wake-up to one beat. Within the guest cap: a
            // pending beat (`beat_now`) may be stale, and the cap may have filled since; a
            // job the cap leaves is covered as in `promote_all_waking`.
            let registry = self.registry();
            if registry.wakes_within_guest_cap() > 0 {
                registry.wake_any_worker();
            }
        }
        // A count of wakes that `beat_now` asked for is spent by this poll's promotion, or
        // stale (no promotion: our deque was not empty); the next beat wakes one.
        local.beat_wakes.set(1);
        false
    }

    // ---- The iterator driver's checks ----

    /// For the iterator driver (`scheduler::poll`): poll, and if work should be split, make
    /// sure the next join promotes (and wakes a sleeper if the heartbeat asked for it). With
    /// [`Reading::None`], a poll of weight `SPLIT_CHECK_WEIGHT`, the heartbeat reading the
    /// clock itself; once the driver's chunk size has settled, the heartbeat takes its clock
    /// reading from the driver's own ([`Reading::At`], or [`Reading::Untimed`] for a chunk it
    /// did not time: only the request flag is read), so that one `rdtsc` serves both (see the
    /// driver's `SETTLED_READ_CHUNKS`). Every caller passes a constant variant, or picks one
    /// in a branch of its own: the match folds away.
    #[inline]
    pub(crate) fn poll_for_split(self, reading: Reading) -> Want {
        #[cfg(all(debug_assertions, not(loom)))]
        if reading != Reading::None {
            // `poll` counts the other.
            self.seat.stall.polled();
        }
        match reading {
            Reading::None => {
                if !self.poll::<{ SPLIT_CHECK_WEIGHT as i32 }>() {
                    return Want::No;
                }
                self.poll_for_split_cold(None)
            }
            Reading::Untimed => {
                if !self.seat.split_request.load(Ordering::Relaxed) {
                    return Want::No;
                }
                self.poll_for_split_cold(None)
            }
            Reading::At(now) => self.poll_for_split_cold(Some(now)),
        }
    }

    /// The slow path of the driver's checks. The work of a cancelled task unwinds from here
    /// (`unwind_cancelled`): the driver calls these between chunks, where unwinding is what a
    /// panic in the next item would do.
    #[cold]
    fn poll_for_split_cold(self, now: Option<u64>) -> Want {
        self.countdown().settle();
        let local = self.local();
        let seat = self.seat;
        if self.cancelled() {
            // Keep every later check of this work on the slow path (see `on_poll`).
            seat.raise_split_request();
            unwind_cancelled();
        }
        if now.is_some() {
            self.countdown().set(-1);
        }
        // Raised by another thread: only our own beats raise it with `beat_pending` set. (A
        // request that comes while a beat of ours is pending counts as the beat.)
        let asked = !local.beat_pending.get() && seat.split_request.load(Ordering::Relaxed);
        if self.heartbeat(now) {
            // The driver's next join must promote (and wake): raise our own request flag,
            // which that join's poll sees, and remember that a wake is wanted.
            local.beat_pending.set(true);
            seat.raise_split_request();
        }
        let want = if asked {
            Want::Asked
        } else if local.beat_pending.get() {
            Want::Beat
        } else {
            return Want::No;
        };
        // The driver's next join promotes only if its poll takes the slow path: the flag is
        // still raised, but `settle` above took back the expiry that came with it.
        self.countdown().expire();
        want
    }

    /// For the iterator driver, once its estimate says that a long stretch of work lies ahead
    /// (`scheduler::wake(Wake::Sleepers(wakes))`): beat now instead of at the busy period's
    /// first beat, so that the next `poll_for_split` says yes and the join it leads to wakes up to `wakes` sleeping
    /// workers (the estimate's share for each, within the guest cap); later beats follow every
    /// `PROVEN_BEAT_NS` and wake one each. Does nothing unless a beat would wake someone
    /// (`Registry::beat_should_wake`).
    pub(crate) fn beat_now(self, wakes: u32) {
        if !self.registry().beat_should_wake() {
            return;
        }
        let local = self.local();
        local.beat_pending.set(true);
        local.beat_wakes.set(wakes.max(1));
        local.start_proven_heartbeat();
        self.seat.raise_split_request();
    }

    /// For code about to run a long stretch of work without joins (`scheduler::share(Share::Now)`):
    /// makes every recorded frame stealable, then takes the heartbeat check at once.
    pub(crate) fn share_now(self) {
        self.promote_all();
        self.countdown().set(-1);
        // A cancelled sort stops at its next join or split check instead.
        let _cancelled = self.on_poll();
    }

    /// Heartbeat: once every `JOINS_PER_CLOCK_READ` polls, read the clock; when a beat is due,
    /// answer whether a sleeping worker should be woken to share our work. The first beat of
    /// a busy period comes `HEARTBEAT_NS` after its first clock read, later ones every
    /// `PROVEN_BEAT_NS`: work that outlasted one period is worth spreading fast. Workers
    /// wake only while fewer threads are busy than the pool has workers (a guest running
    /// parallel work counts as one) and no worker is awake and idle.
    /// `now`: a clock reading the caller just took, if it has one.
    fn heartbeat(self, now: Option<u64>) -> bool {
        let local = self.local();
        if self.countdown().get() >= 0 {
            return false;
        }
        self.countdown().set(JOINS_PER_CLOCK_READ as i32 - 1);
        let now = now.unwrap_or_else(ticks);
        let next = local.next_beat.get();
        if next == 0 {
            local
                .next_beat
                .set(beat_deadline(now, ticks_in(HEARTBEAT_NS)));
            return false;
        }
        // Signed difference: the clock does not wrap in practice, and this stays right if it
        // does.
        if (now.wrapping_sub(next) as i64) < 0 {
            return false;
        }
        local
            .next_beat
            .set(beat_deadline(now, ticks_in(PROVEN_BEAT_NS)));
        self.registry().beat_should_wake()
    }

    // ---- Promotion ----

    /// How many join frames this thread has recorded and not yet closed: where a watch
    /// opened now stands among them (`watch::take_own_rest`).
    #[inline]
    pub(crate) fn recorded_frames(self) -> usize {
        self.local().depth.get()
    }

    /// Pushes every recorded, not yet promoted join frame onto the deque, oldest first,
    /// without waking anyone (the heartbeat decides that).
    pub(crate) fn promote_all(self) {
        while self.promote_oldest(false) {}
    }

    /// Pushes every recorded, not yet promoted join frame onto the deque, oldest first, and
    /// wakes a sleeper for each job the deque then holds (within the guest cap): the frames
    /// just pushed and those promoted earlier on a request, which wake nobody. The idle
    /// thread that asked may have taken another job and then fallen asleep, so nobody is
    /// awake for that one. Unlike a beat, it wakes even while some worker is idle and awake:
    /// that worker may take another job or fall asleep, and this thread is about to poll
    /// nothing for a long time (items worth a split each), so a job left to it alone could
    /// wait that long; a sleeper woken for nothing costs microseconds against such items.
    /// (Counting the idle awake workers against the new frames, or waking for new frames
    /// only, left a test's seven mutually waiting items stuck, one thread's last job
    /// untaken; a trace of pushes, wakes and steals showed the request-promoted job taken by
    /// the sleeper woken for another.)
    pub(crate) fn promote_all_waking(self) {
        // Each promotion, not waking, only makes sure that no worker goes to sleep without
        // seeing its job.
        self.promote_all();
        let jobs = self.seat.deque.len();
        if jobs == 0 {
            return;
        }
        let registry = self.registry();
        // Within the guest cap, as the beats: a guest running parallel work holds a core, so
        // waking past the cap would make a guest and the workers outnumber the pool's threads
        // (with long leaves from outside a 2-thread pool, the guest computed beside both
        // workers, and the end of every call waited for whichever of the three was
        // preempted). A job the cap leaves unwoken is taken by a thread that holds a core
        // when it next looks for work, or gets a worker woken when a guest stops holding
        // one (`Registry::guest_steps_out`: sleeping, blocking or leaving). A cap here
        // without that hand-back once stalled the mutually waiting items of
        // `heavy_items_are_shared_at_once` (then run from a guest) now and then, a job left
        // with no one woken for it. The read of the cap comes after the SeqCst fence of each
        // push (`Sleep::new_jobs`), which is what `guest_steps_out` pairs with (`README.md`,
        // "The guest cap").
        for _ in 0..jobs.min(registry.wakes_within_guest_cap()) {
            if !registry.wake_any_worker() {
                break;
            }
        }
    }

    /// Pushes the oldest recorded, not yet promoted join frame onto the deque; or, where it
    /// is older, the rest of the unindexed drive this thread runs under watch
    /// (`watch::take_own_rest`). Returns false if there was nothing to push.
    fn promote_oldest(self, wake: bool) -> bool {
        let local = self.local();
        let index = local.promoted();
        if let Some(rest) = crate::scheduler::watch::take_own_rest(index) {
            self.push(rest);
            trace_event!(Promote, rest.as_ptr());
            // Always wakes a sleeper, whatever `wake` and the guest cap say: out of the slot,
            // the rest is beyond the watchman's rescue, and this thread may be about to block
            // in a long item (one that waits for the rest's items, in
            // `tests/splitter_liveness.rs`), so a thread must come for it.
            let registry = self.registry();
            registry
                .sleep
                .new_jobs(1, true, true, || registry.wake_any_worker());
            return true;
        }
        if index >= local.depth.get() {
            return false;
        }
        let frame = local.frames[index].get();
        local.set_promoted(index + 1);
        #[cfg(all(debug_assertions, not(loom)))]
        self.publish_site();
        // SAFETY: frames [promoted, depth) are live recorded join frames on this thread's
        // stack (`record`'s contract), and nobody else can see this one before the push below,
        // so writing its latch is not a race; the frame stays alive until its job is popped
        // back or its latch is set, as a `JobRef` requires.
        unsafe {
            (*(*frame).latch.get()).write(SpinLatch::new(&self.seat.sleep_word));
            (*(*frame).cancel.get()).write(local.cancel.get());
            self.push(JobRef::new(frame.cast::<JobHeader>()));
        }
        trace_event!(Promote, frame);
        self.posted(wake);
        true
    }

    /// After a promotion's push: posts the job to the sleep state, waking a sleeper if `wake`
    /// (a beat) says so.
    fn posted(self, wake: bool) {
        let local = self.local();
        let registry = self.registry();
        // A beat wakes one sleeper, or as many as `beat_now` asked for: those beyond the first
        // find no job at once, and ask the busy threads for splits, which answer within a
        // chunk. Never more than the sleepers a guest does not stand for (the guest cap).
        let jobs = if wake {
            let cap = registry.wakes_within_guest_cap();
            local.beat_wakes.replace(1).min(cap as u32)
        } else {
            1
        };
        registry
            .sleep
            .new_jobs(jobs, true, wake, || registry.wake_any_worker());
    }

    // ---- Finding work and waiting ----

    /// Finds a job: own deque, own inbox, other seats' deques, the injector.
    pub(crate) fn find_work(self) -> Option<JobRef> {
        if let Some(job) = self.pop() {
            return Some(job);
        }
        if let Some(job) = self.seat.inbox.pop() {
            return Some(job);
        }
        if let Some(job) = self.steal_from_others() {
            return Some(job);
        }
        self.registry().injector.pop()
    }

    /// The seats other than ours that may hold work, starting at a random one: every worker,
    /// and the guests whose seats are taken.
    fn others(self) -> impl Iterator<Item = &'a Seat> {
        let registry = self.registry();
        let workers = registry.num_workers;
        let guests = registry.guest_mask.load(Ordering::Relaxed);
        let total = registry.seats.len();
        let start = self.local().next_random() as usize % total;
        let me = self.seat.index;
        (0..total)
            .map(move |k| (start + k) % total)
            .filter(move |&i| i != me && (i < workers || guests & (1 << (i - workers)) != 0))
            .map(move |i| &registry.seats[i])
    }

    fn steal_from_others(self) -> Option<JobRef> {
        let mut retry = true;
        while retry {
            retry = false;
            for seat in self.others() {
                match seat.deque.steal() {
                    Steal::Success(job) => {
                        trace_event!(Steal, job.as_ptr(), seat.index);
                        return Some(job);
                    }
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
        }
        None
    }

    /// Asks one other busy-looking seat to split its work.
    fn request_split(self) {
        for seat in self.others() {
            if !seat.split_request.load(Ordering::Relaxed) {
                seat.raise_split_request();
                return;
            }
        }
    }

    /// Runs jobs until `latch` is set: the wait of a join whose frame was stolen, of a scope,
    /// of `install` from another pool.
    pub(crate) fn wait_until(self, latch: &CoreLatch) {
        if latch.probe() {
            return;
        }
        self.wait_until_cold(latch, false)
    }

    /// The loop of [`wait_until`](Self::wait_until); with `drain`, it also runs every job it
    /// can find before it returns (a worker's main loop, with the terminate latch).
    #[cold]
    pub(super) fn wait_until_cold(self, latch: &CoreLatch, drain: bool) {
        let _hold = self.hold();
        let seat = self.seat;
        let registry = self.registry();
        let worker = seat.is_worker();
        if worker {
            registry.sleep.start_looking();
        }
        let mut idle = IdleState::in_pool(&registry.sleep);
        trace_event!(WaitBegin);
        // Whether we slept since the last job.
        let mut woken = false;
        loop {
            if !drain && latch.probe() {
                break;
            }
            if let Some(job) = self.find_work() {
                if worker {
                    registry.sleep.work_found();
                }
                let local = self.local();
                if woken {
                    // Someone had been busy for a heartbeat period, or posted work for us:
                    // spread it fast (see `PROVEN_BEAT_NS`).
                    local.start_proven_heartbeat();
                    woken = false;
                } else {
                    local.reset_heartbeat();
                }
                // SAFETY: we took the job out of a queue, so we own its execution.
                unsafe { self.run_job(job) };
                if worker {
                    registry.sleep.start_looking();
                }
                idle.restart();
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
            idle.check_outside(&registry.sleep, worker);
            if idle.rounds < ROUNDS_UNTIL_SLEEPY {
                self.request_split();
                idle.pause();
            } else if idle.rounds == ROUNDS_UNTIL_SLEEPY && worker {
                registry.sleep.announce_sleepy(&mut idle);
                idle.pause();
            } else if idle.rounds >= ROUNDS_UNTIL_SLEEPING || !worker {
                if worker {
                    // About to sleep anyway: the moment to measure the clock's rate.
                    crate::sync::calibrate();
                    woken |= registry
                        .sleep
                        .sleep(&mut idle, latch, &seat.sleep_word, || {
                            !registry.injector.is_empty() || !seat.inbox.is_empty()
                        });
                } else {
                    registry.guest_steps_out();
                    Sleep::sleep_on_latch(latch, &seat.sleep_word);
                    registry.active_guests.fetch_add(1, Ordering::Relaxed);
                    idle.rounds = 0;
                }
            }
        }
        trace_event!(WaitEnd);
        if worker {
            registry.sleep.work_found();
        }
    }

    /// For a guest that waits on a blocking latch (the owner of a watched loop whose rest
    /// was handed out, `watch.rs`, which entered the pool only then): runs jobs while there
    /// are any, asking busy seats for splits as an idle guest does, then blocks on the latch,
    /// as `wait_until` puts a guest to sleep (a guest is not woken for new work).
    #[cfg(not(loom))]
    pub(crate) fn help_until(self, latch: &crate::scheduler::latch::BlockingLatch) {
        debug_assert!(!self.seat.is_worker());
        let _hold = self.hold();
        let mut idle = IdleState::new();
        while !latch.probe() {
            if let Some(job) = self.find_work() {
                self.local().reset_heartbeat();
                // SAFETY: we took the job out of a queue, so we own its execution.
                unsafe { self.run_job(job) };
                idle = IdleState::new();
                continue;
            }
            idle.rounds += 1;
            if idle.rounds < ROUNDS_UNTIL_SLEEPY {
                self.request_split();
                idle.pause();
            } else {
                let registry = self.registry();
                registry.guest_steps_out();
                latch.wait();
                registry.active_guests.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Executes one available job if there is one (for `yield_now`; only from the own deque
    /// with `local_only`).
    pub(crate) fn yield_one(self, local_only: bool) -> bool {
        let job = if local_only {
            self.pop()
        } else {
            self.find_work()
        };
        match job {
            Some(job) => {
                // SAFETY: we took the job out of a queue, so we own its execution.
                unsafe { self.run_job(job) };
                true
            }
            None => false,
        }
    }
}

/// Counts one holder of a seat (`Local::holds`) for as long as it lives.
pub(crate) struct SeatHold<'a>(&'a Local);

impl Drop for SeatHold<'_> {
    fn drop(&mut self) {
        self.0.holds.set(self.0.holds.get() - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::Owner;
    use crate::scheduler::ThreadPoolBuilder;
    use crate::sync::Ordering;

    /// The poll's countdown: the poll that takes it below zero says so (it holds the polls
    /// left less one), it counts a poll's weight, and a raised request (or a cancel) expires
    /// it, so that the next poll takes the slow path even though it was far from running
    /// out; the slow path then takes the expiries back, and the count goes on.
    #[test]
    fn a_raised_request_expires_the_countdown() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        pool.install(|| {
            Owner::with_current(|owner| {
                let owner = owner.expect("in the pool");
                let count = owner.countdown();
                count.set(2);
                assert!(!owner.poll::<1>());
                assert!(!owner.poll::<1>());
                assert!(owner.poll::<1>(), "the count ran out unnoticed");
                assert_eq!(count.get(), -1);
                count.set(200);
                assert!(!owner.poll::<128>());
                assert!(owner.poll::<128>(), "a poll's weight was not counted");
                count.set(1_000);
                // Twice: the second finds the count expired already and leaves it.
                owner.seat.raise_split_request();
                owner.seat.raise_split_request();
                assert_eq!(count.get(), 1_000 - (1 << 24));
                assert!(owner.seat.split_request.load(Ordering::Relaxed));
                assert!(owner.poll::<1>(), "a raised request left the count running");
                // The slow path answers: the flag is lowered, and the count goes on from where
                // the polls left it (no clock read: the heartbeat keeps its schedule).
                assert!(!owner.on_poll());
                assert!(!owner.seat.split_request.load(Ordering::Relaxed));
                assert_eq!(count.get(), 999, "the expiry was not taken back");
                assert!(!owner.poll::<1>());
                // An expiry of a count that had run out already leaves it due.
                count.set(-1);
                owner.seat.raise_split_request();
                count.settle();
                assert_eq!(count.get(), -1);
            })
        });
    }

    /// The iterator driver's check reads the request flag itself, and the slow path it takes
    /// settles the count; when it says yes, the join it splits with must still take the
    /// slow path, which promotes that join's frame. (Without that, a request the driver
    /// answered split nothing: the grouping kernels ran on one thread.)
    #[test]
    fn a_yes_from_the_drivers_check_sends_the_next_join_to_the_slow_path() {
        use super::{Reading, Want};
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        pool.install(|| {
            Owner::with_current(|owner| {
                let owner = owner.expect("in the pool");
                let count = owner.countdown();
                count.set(100);
                owner.seat.raise_split_request();
                assert_eq!(owner.poll_for_split(Reading::Untimed), Want::Asked);
                assert!(
                    owner.poll::<1>(),
                    "the join after a yes skipped the slow path"
                );
                assert!(!owner.on_poll());
                assert!(!owner.seat.split_request.load(Ordering::Relaxed));
                assert_eq!(owner.poll_for_split(Reading::Untimed), Want::No);
                assert!(!owner.poll::<1>());
                // The same through the check that counts (`Reading::None`).
                owner.seat.raise_split_request();
                assert_eq!(owner.poll_for_split(Reading::None), Want::Asked);
                assert!(
                    owner.poll::<1>(),
                    "the join after a yes skipped the slow path"
                );
                assert!(!owner.on_poll());
            })
        });
    }
}
