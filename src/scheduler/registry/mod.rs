//! The registry: one per thread pool. It owns the seats (one per worker thread, plus guest
//! seats that threads outside every pool occupy while they run parallel work on the global
//! pool), the injector and the sleep state, and it runs the worker threads' main loop.
//!
//! A seat (`seat.rs`) is everything a participating thread needs: its Chase-Lev deque of
//! stealable jobs, the futex word it sleeps on, the flag through which idle threads ask it
//! for work, and its pending join frames (owner-only). The thread-local `CURRENT` points to
//! the seat of the calling thread, or is null outside every pool; [`Owner`] (`owner.rs`) is
//! the calling thread's seat as its owner, the only way to the owner side of a seat.
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
mod owner;
mod seat;

pub(crate) use lifecycle::{RegistryConfig, MAX_NUM_THREADS};
pub(crate) use owner::{Owner, Reading, Recorded, Want};
pub(crate) use seat::{has_seat, site, FrameHead, Seat, Site};

use super::injector::Injector;
use super::job::{JobRef, StackJob};
use super::latch::BlockingLatch;
use super::sleep::Sleep;
use crate::sync::{fence, AtomicU32, AtomicU64, AtomicUsize, Mutex, Ordering};
use seat::CURRENT;

pub(crate) use crate::tuning::GUEST_SEATS;
use std::any::Any;
use std::cell::Cell;

/// A pool's handler for panics of spawned jobs.
pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;
/// A pool's thread start or exit handler.
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;

/// A pool's shared state.
pub(crate) struct Registry {
    seats: Box<[Seat]>,
    pub(crate) num_workers: usize,
    /// 1 when seat 0 is taken by the thread that built the pool (`use_current_thread`),
    /// which runs no main loop; else 0. See [`main_loop_workers`](Self::main_loop_workers).
    first_main_loop_worker: usize,
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
    /// Every reduction in the pool follows the fixed tree (`ThreadPoolBuilder::deterministic`).
    pub(crate) deterministic: bool,
}

impl Drop for Registry {
    /// Out of the list of pools whose sleepers a deep sleep's end nudges, before any field
    /// (the seats' sleep words among them) goes (`watch::pool_dropped`).
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", not(loom), not(miri)))]
        super::watch::pool_dropped(self);
    }
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

    /// Debug builds only, for the stall watchdog (`stall.rs`): each seat's published state,
    /// with whether some thread asked it for work.
    #[cfg(all(debug_assertions, not(loom)))]
    pub(crate) fn stall_view(
        &self,
    ) -> impl Iterator<Item = (usize, &crate::scheduler::stall::SeatStall, bool)> {
        self.seats.iter().map(|seat| {
            (
                seat.index,
                &seat.stall,
                seat.split_request.load(Ordering::Relaxed),
            )
        })
    }

    /// Raises every seat's split-request flag, so that each thread's next split check takes
    /// its slow path: how the work of a cancelled `spawn_future` task notices the cancel,
    /// on whichever threads it runs (`Owner::cancelled`). A thread busy with other work pays
    /// one slow-path check, and perhaps a promotion nobody asked for.
    pub(crate) fn interrupt(&self) {
        for seat in self.seats.iter() {
            seat.raise_split_request();
        }
    }

    /// Whether the pool has a panic handler (else a panic nobody can receive aborts).
    pub(crate) fn has_panic_handler(&self) -> bool {
        self.panic_handler.is_some()
    }

    /// The worker seats whose threads run the worker main loop: all of them but seat 0 of a
    /// pool built with `use_current_thread`, whose thread runs the pool's jobs only while it
    /// waits inside the pool (and may be an async executor's thread: `spawn_future`).
    #[inline]
    pub(crate) fn main_loop_workers(&self) -> std::ops::Range<usize> {
        self.first_main_loop_worker..self.num_workers
    }

    /// Whether the calling thread is one of the [`main_loop_workers`](Self::main_loop_workers).
    #[inline]
    pub(crate) fn current_runs_main_loop(&self) -> bool {
        Owner::with_current(|owner| {
            self.owns(owner)
                && owner.is_some_and(|owner| self.main_loop_workers().contains(&owner.seat().index))
        })
    }

    /// The pool's thread count: its workers, or 1 for a global pool that could start none
    /// (`Registry::start_lenient`), where the threads that start parallel work run it.
    #[inline]
    pub(crate) fn num_threads(&self) -> usize {
        self.num_workers.max(1)
    }

    /// Whether threads outside every pool take part in this pool's work as guests (it has
    /// guest seats), rather than handing it to the workers and blocking.
    #[inline]
    pub(crate) fn takes_guests(&self) -> bool {
        self.seats.len() > self.num_workers
    }

    /// Whether `owner`'s seat belongs to this registry.
    #[inline]
    pub(crate) fn owns(&self, owner: Option<Owner<'_>>) -> bool {
        owner.is_some_and(|owner| std::ptr::eq(owner.seat().registry, self))
    }

    /// Makes every worker of this pool that sleeps look again at how long it sleeps: loops
    /// are being watched again, and a sleeping worker then patrols them (`watch.rs`).
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    pub(crate) fn nudge_sleepers(&self) {
        for seat in &self.seats[..self.num_workers] {
            seat.sleep_word.nudge();
        }
    }

    /// Whether the calling thread occupies a seat of this registry.
    #[inline]
    pub(crate) fn owns_current(&self) -> bool {
        Owner::with_current(|owner| self.owns(owner))
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

    /// How many sleeping workers a thread sharing work may wake without a guest and the awake
    /// workers outnumbering the pool's workers: the sleepers beyond those the guests running
    /// parallel work stand for (the guest cap, `README.md`, "The guest cap").
    #[inline]
    pub(crate) fn wakes_within_guest_cap(&self) -> usize {
        (self.sleep.sleeping_workers() as usize)
            .saturating_sub(self.active_guests.load(Ordering::Relaxed))
    }

    /// A guest stops holding a core while jobs may wait for it: it is about to sleep or block
    /// (waiting for a latch), or it leaves its seat. Uncounts it, then gives its core back:
    /// wakes one sleeping worker if, with the guest uncounted, the cap allows one and some
    /// seat's deque holds a job, which a sharer may have left unwoken because of the guest.
    /// The SeqCst fence pairs with the one a sharer runs between its push and its read of the
    /// guest count (`Sleep::new_jobs`): either the sharer reads the decrement and wakes within
    /// the new cap itself, or this reads its job (`README.md`, "The guest cap").
    pub(crate) fn guest_steps_out(&self) {
        self.active_guests.fetch_sub(1, Ordering::Relaxed);
        self.give_back_core();
    }

    /// [`guest_steps_out`](Self::guest_steps_out) for a guest already uncounted: the fence,
    /// and the wake if the cap allows one and a deque holds a job.
    pub(crate) fn give_back_core(&self) {
        fence(Ordering::SeqCst);
        if self.wakes_within_guest_cap() > 0 && self.jobs_in_deques() {
            self.wake_any_worker();
        }
    }

    /// Whether some worker's or occupied guest seat's deque holds a job (a racy snapshot).
    fn jobs_in_deques(&self) -> bool {
        let guests = self.guest_mask.load(Ordering::Relaxed);
        let workers = self.num_workers;
        self.seats.iter().enumerate().any(|(i, seat)| {
            (i < workers || guests & (1 << (i - workers)) != 0) && !seat.deque.is_empty()
        })
    }

    /// Wakes one sleeping worker; returns whether one was asleep.
    pub(crate) fn wake_any_worker(&self) -> bool {
        self.seats[..self.num_workers]
            .iter()
            .any(|seat| self.sleep.wake(&seat.sleep_word))
    }

    /// Pushes a job for any worker of this pool. A pool without workers (a global pool that
    /// could start none) runs it on the calling thread at once, as the only thread there is.
    pub(crate) fn inject(&self, job: JobRef) {
        if self.num_workers == 0 {
            // SAFETY: the job was handed over to be run once by whoever takes it; nobody else
            // can take it, since it was never pushed anywhere.
            unsafe { job.execute() };
            return;
        }
        let was_empty = self.injector.is_empty();
        self.injector.push(job);
        self.sleep
            .new_jobs(1, was_empty, true, || self.wake_any_worker());
    }

    /// Pushes a job that only worker `index` may run, and wakes it. In a pool without workers
    /// (whose one thread, as `num_threads` counts, is whichever starts the work), runs it on
    /// the calling thread at once.
    pub(crate) fn inject_to(&self, index: usize, job: JobRef) {
        if self.num_workers == 0 {
            // SAFETY: as in `inject`.
            unsafe { job.execute() };
            return;
        }
        let seat = &self.seats[index];
        seat.inbox.push(job);
        self.sleep.new_jobs(1, true, false, || false);
        self.sleep.wake(&seat.sleep_word);
    }

    /// Pushes a spawned job: on the caller's deque if it is a worker or guest of this pool
    /// that will stay until the job is done (`local_ok`), else on the injector.
    pub(crate) fn push_spawned(&self, job: JobRef, local_ok: bool) {
        Owner::with_current(|owner| match owner {
            Some(owner) if local_ok && self.owns(Some(owner)) => {
                owner.push(job);
                self.sleep
                    .new_jobs(1, true, true, || self.wake_any_worker());
            }
            _ => self.inject(job),
        })
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

    /// In a pool without workers, where injected work would run on the injecting thread
    /// without a seat: waits until a guest seat is free and claims it. Guests there run their
    /// whole operation themselves, so seats come free as operations end.
    #[cold]
    fn wait_for_guest_seat(&self) -> &Seat {
        let mut pause = std::time::Duration::from_micros(20);
        loop {
            std::thread::sleep(pause);
            if let Some(seat) = self.claim_guest() {
                return seat;
            }
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
        }
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
            run_on_worker_blocking(self, f);
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
        let seat = match self.claim_guest() {
            Some(seat) => seat,
            None if self.num_workers == 0 => self.wait_for_guest_seat(),
            None => return None,
        };
        // The claim (our bit of `guest_mask`) makes this thread the seat's only occupant.
        CURRENT.with(|c| c.set(seat));
        Owner::with_current(|owner| owner.expect("just entered").reset_for_guest());
        self.active_guests.fetch_add(1, Ordering::Relaxed);
        Some(seat)
    }
}

/// Leaves the guest seat the calling thread entered ([`Registry::enter_guest_seat`]) when
/// dropped, on return or unwinding.
struct LeaveGuestSeat<'a>(&'a Registry, &'a Seat);

impl Drop for LeaveGuestSeat<'_> {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(std::ptr::null()));
        debug_assert!(self.1.deque.is_empty());
        self.0.guest_steps_out();
        self.0.release_guest(self.1);
    }
}

/// Runs `f` on a worker of `registry` and blocks the calling thread (which has no seat that
/// could help) until it is done.
pub(crate) fn run_on_worker_blocking<F, R>(registry: &Registry, f: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    let job = StackJob::new(BlockingLatch::new(), f);
    // SAFETY: `job` lives on this stack until `wait` returns, i.e. until its latch is set.
    registry.inject(unsafe { job.as_job_ref() });
    trace_event!(WaitBegin);
    job.latch.wait();
    trace_event!(WaitEnd);
    job.into_result()
}

#[cfg(test)]
mod tests {
    use super::seat::beat_deadline;

    #[test]
    fn beat_deadline_is_never_the_not_started_value() {
        assert_eq!(beat_deadline(10, 5), 15);
        // A clock about to wrap: the deadline wraps too, past 0.
        assert_eq!(beat_deadline(u64::MAX - 2, 5), 2);
        assert_eq!(beat_deadline(u64::MAX - 4, 5), 1);
    }
}
