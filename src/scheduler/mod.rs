//! The work-stealing scheduler: `join`, scopes, spawns, broadcasts and thread pools.
//!
//! Layout (one file per concept; protocols and their memory-ordering arguments are in
//! `README.md` beside this file):
//! - `deque.rs`: the Chase-Lev deque each seat owns;
//! - `job.rs`: type-erased jobs (stack jobs for joins, heap jobs for spawns);
//! - `latch.rs`: the 4-state core latch, count latch, blocking latch;
//! - `sleep.rs`: the sleep/wake protocol (jobs event counter, futex sleep words);
//! - `injector.rs`: the MPMC queue for work from outside the pool;
//! - `registry/`: the registry of a pool, its guests and wakes (`mod.rs`); a seat and the
//!   thread-local `CURRENT` (`seat.rs`); `Owner`, the calling thread's seat as its owner, with
//!   join-frame recording and promotion, the heartbeat, work finding and the wait loops
//!   (`owner.rs`); building a registry, the worker main loop, termination and
//!   `use_current_thread` (`lifecycle.rs`);
//! - `stall.rs`: debug builds only, the stall watchdog, which reports a join whose first
//!   closure seems to wait for its unpromoted second (`README.md`, "A first closure that
//!   blocks")
//! - `watch.rs`, `watch_slot.rs`: the watch, which hands the rest of a short loop to the pool
//!   while its first item runs long, and the slot it is handed over through;
//! - `join.rs`, `scope.rs`, `spawn.rs`, `pool.rs`: the public operations;
//! - `join_many.rs`: the `join!` macro, a tree of `join`s; `try_join.rs`: `try_join` and
//!   `try_join!`, which stop the other closures once one fails;
//! - this file: the iterators' interface (`enter`, `poll`, `share`, `wake`, `thief_awake`,
//!   `Watch`; `README.md`, "The iterators' interface"), and the public queries of the pool;
//! - `spawn_future.rs`, `future_slot.rs`: `spawn_future`, and the lock-free slot through which
//!   its job hands the result to the awaiting task and wakes it;
//! - `builder.rs`: `ThreadPoolBuilder` and its error;
//! - `thread.rs`: the spawn handlers that start a pool's threads and the `ThreadBuilder` each
//!   thread runs;
//! - `global.rs`: the global pool: its registry, started on first use, the environment's thread
//!   count, and how work started outside every pool reaches it;
//! - `deterministic.rs`: the deterministic switch of pools and the process-wide hint;
//! - `loom_models.rs` (under `--cfg loom`) and `tests.rs`: the protocols' models and the tests
//!   that look at internal state.

mod builder;
mod deque;
mod deterministic;
mod future_slot;
mod global;
mod injector;
mod job;
mod join;
mod join_many;
mod latch;
mod pool;
mod registry;
mod scope;
mod sleep;
mod spawn;
mod spawn_future;
#[cfg(all(debug_assertions, not(loom)))]
pub(crate) mod stall;
mod thread;
mod try_join;
#[cfg(not(loom))]
mod watch;
mod watch_slot;

#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(loom)]
pub mod loom_models;

pub use builder::{ThreadPoolBuildError, ThreadPoolBuilder};
pub(crate) use deterministic::{deterministic_from_env, may_be_deterministic, note_deterministic};
pub(crate) use global::deterministic_pool;
pub(crate) use join::join_offered;
pub use join::{join, join_context, FnContext};
#[doc(hidden)]
pub use join_many::__join_call;
pub use join_many::join_all;
pub use pool::ThreadPool;
pub use scope::{in_place_scope, in_place_scope_fifo, scope, scope_fifo, Scope, ScopeFifo};
pub use spawn::{broadcast, spawn, spawn_broadcast, spawn_fifo, BroadcastContext};
pub use spawn_future::{spawn_future, SpawnFuture};
pub use thread::ThreadBuilder;
#[doc(hidden)]
pub use try_join::{__try_join_kind, __try_join_scope, TryScope};
pub use try_join::{try_join, TryJoinResult};

use registry::Owner;
pub(crate) use registry::{Reading, Want, MAX_NUM_THREADS};

/// The number of threads of the pool the caller runs in: the global pool's outside any pool.
///
/// ```
/// assert!(blitz_par::current_num_threads() >= 1);
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// assert_eq!(pool.install(blitz_par::current_num_threads), 3);
/// ```
pub fn current_num_threads() -> usize {
    Owner::with_current(|owner| match owner {
        Some(owner) => owner.registry().num_threads(),
        None => global::global_registry().num_threads(),
    })
}

/// The index of the calling thread in its pool (`0..current_num_threads()`), or `None` when
/// it is not a pool thread (also while it runs parallel work as a guest of the global pool).
///
/// ```
/// assert_eq!(blitz_par::current_thread_index(), None);
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert!(pool.install(blitz_par::current_thread_index).unwrap() < 2);
/// ```
pub fn current_thread_index() -> Option<usize> {
    Owner::with_current(|owner| {
        let seat = owner?.seat();
        seat.is_worker().then_some(seat.index)
    })
}

/// The largest number of threads a pool can have; `ThreadPoolBuilder::num_threads` above it
/// is clamped to it (as in rayon).
///
/// ```
/// assert!(blitz_par::max_num_threads() >= blitz_par::current_num_threads());
/// ```
pub fn max_num_threads() -> usize {
    MAX_NUM_THREADS
}

/// Whether the calling worker thread has jobs waiting in its own deque (`None` when it is
/// not a worker of any pool).
///
/// Racy by nature: a thief may take them at any moment.
///
/// ```
/// assert_eq!(blitz_par::current_thread_has_pending_tasks(), None);
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(blitz_par::current_thread_has_pending_tasks), Some(false));
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    Owner::with_current(|owner| {
        let seat = owner?.seat();
        seat.is_worker().then(|| !seat.deque.is_empty())
    })
}

/// What [`yield_now`] and [`yield_local`] did.
///
/// ```
/// use blitz_par::Yield;
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// // Nothing else is pending on the only worker.
/// assert_eq!(pool.install(blitz_par::yield_now), Some(Yield::Idle));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Yield {
    /// A pending job was executed.
    Executed,
    /// No job was available.
    Idle,
}

/// Runs one pending job of the current pool, if there is one. `None` outside any pool.
///
/// ```
/// assert_eq!(blitz_par::yield_now(), None);
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert!(pool.install(blitz_par::yield_now).is_some());
/// ```
pub fn yield_now() -> Option<Yield> {
    yield_impl(false)
}

/// Runs one job from the calling thread's own deque, if there is one. `None` outside any pool.
///
/// ```
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// assert_eq!(pool.install(blitz_par::yield_local), Some(blitz_par::Yield::Idle));
/// ```
pub fn yield_local() -> Option<Yield> {
    yield_impl(true)
}

fn yield_impl(local_only: bool) -> Option<Yield> {
    let executed = Owner::with_current(|owner| Some(owner?.yield_one(local_only)))?;
    Some(if executed {
        Yield::Executed
    } else {
        Yield::Idle
    })
}

/// Runs `f`, a parallel operation that the calling thread starts, where its closures may run:
/// on this thread, unless it is outside every pool and the global pool keeps the work of
/// outside callers on its own threads (`ThreadPoolBuilder::pool_threads_only`): then on a
/// worker of the global pool, this thread blocking until it is done.
///
/// Every public operation that may run user code before it enters the scheduler goes through
/// this first: the iterator driver (which runs the first chunks of a loop, and all of a short
/// one, before it enters), the sorts (small inputs are sorted on the spot), `chain`. Those that
/// enter at once get the same from [`enter`]. Costs a thread-local read, an Acquire load and
/// a field read when the work stays.
#[inline]
pub(crate) fn in_pool<F, R>(f: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    if !registry::has_seat() && global::outside_work_runs_on_workers() {
        return in_global_worker(f);
    }
    f()
}

/// [`in_pool`]'s way to a worker: only the call of `f` depends on its type.
#[cold]
#[inline(never)]
fn in_global_worker<F, R>(f: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    let mut f = Some(f);
    let mut result = None;
    global::run_on_global_worker(&mut || {
        let f = f.take().expect("run once");
        result = Some(f());
    });
    result.expect("the closure ran")
}

/// Makes sure the calling thread runs inside a scheduler context (a pool thread, or a guest of
/// the global pool), then runs `f`. Cheap when already inside one. Every parallel entry point
/// of the iterator driver calls this first, so that [`poll`] has a context. A thread outside
/// every pool runs `f` as a guest of the global pool if it takes guests (and a guest seat is
/// free), else on one of its workers, blocking (see [`in_pool`]).
#[inline]
pub(crate) fn enter<F, R>(f: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    if !registry::has_seat() {
        return global::global_registry().enter_as_guest(f);
    }
    f()
}

// ---- The iterators' interface (`README.md`, "The iterators' interface") ----
//
// What the iterator driver, the sorts and the other splitting code ask of the scheduler, besides
// `in_pool`, `enter`, `join` and `join_offered`: `poll`, `share`, `wake`, `thief_awake` and the
// watch. Each takes an enum that names what it is asked for; every call site passes a constant,
// so the match folds away (all are `#[inline]`), and each forwards to one method of the calling
// thread's `Owner`, or does nothing without a seat.

/// Whether the splitting driver should split the work it holds now: [`Want::Asked`] when an
/// idle thread asked for work, [`Want::Beat`] when the heartbeat says a sleeping worker should
/// be woken to share it. Cheap on the fast path (with [`Reading::None`], a countdown; with
/// [`Reading::Untimed`], one relaxed load of the request flag); the driver calls it between chunks. If
/// the answer is yes, the next join promotes its frame (and wakes a sleeper for a beat).
/// `Want::No` outside a pool. Forwards to `Owner::poll_for_split`.
#[inline]
pub(crate) fn poll(reading: Reading) -> Want {
    Owner::with_current(|owner| owner.map_or(Want::No, |owner| owner.poll_for_split(reading)))
}

/// How [`share`] makes the join frames this thread has recorded (the halves it has split off
/// and not yet run) stealable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Share {
    /// Before a chunk of items that each take long enough to be worth a split (the iterator
    /// driver): push them all, and wake a sleeper for each job the deque then holds, within
    /// the guest cap (`README.md`, "The guest cap"). The
    /// chunk may run for milliseconds without polling, so the frames cannot wait for a
    /// request or a beat. Forwards to `Owner::promote_all_waking`.
    Waking,
    /// Before a long stretch of work without joins (a sort's partition or leaf sort, a scan's
    /// block): push them all, oldest first, then take the heartbeat's check (one clock read):
    /// if a beat is due, a sleeping worker is woken to take them. A recorded frame otherwise
    /// becomes stealable only at this thread's next poll after an idle thread asks, which the
    /// stretch delays until its end. Sharing costs a deque push per frame and a pop for each
    /// one nobody takes, nothing against a stretch of many microseconds. Forwards to
    /// `Owner::share_now`.
    Now,
}

/// Makes the join frames this thread has recorded stealable now, as `how` says. Does nothing
/// outside a pool.
#[inline]
pub(crate) fn share(how: Share) {
    Owner::with_current(|owner| {
        if let Some(owner) = owner {
            match how {
                Share::Waking => owner.promote_all_waking(),
                Share::Now => owner.share_now(),
            }
        }
    });
}

/// Whom [`wake`] wakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// When the driver's cost estimate says at least ~100 us of work remain: up to this many
    /// sleeping workers, now, through the next split, rather than one at the heartbeat's
    /// first beat (within the guest cap; nothing unless a beat would wake someone). Forwards
    /// to `Owner::beat_now`; nothing outside a pool.
    Sleepers(u32),
    /// In a loop of parallel calls that each leave an awake thief work worth taking: one
    /// sleeping worker of the pool this thread's parallel work runs in, if a heartbeat would
    /// wake one (some worker sleeps, none is awake and idle, within the guest cap). It comes
    /// too late for this call; it is awake for the next ones (see the driver's
    /// `Pacer::note_thief`). Works without a seat (the global pool's, if it has started):
    /// `Registry::beat_should_wake` and `Registry::wake_any_worker`.
    ForNextCall,
}

/// Wakes sleeping workers early, as `whom` says.
#[inline]
pub(crate) fn wake(whom: Wake) {
    match whom {
        Wake::Sleepers(wakes) => {
            Owner::with_current(|owner| owner.map(|owner| owner.beat_now(wakes)));
        }
        Wake::ForNextCall => wake_for_next_call(),
    }
}

/// [`Wake::ForNextCall`].
#[cold]
fn wake_for_next_call() {
    with_work_registry(|registry| {
        if let Some(registry) = registry {
            if registry.beat_should_wake() {
                registry.wake_any_worker();
            }
        }
    })
}

/// The registry that parallel work of this thread runs in: its own pool's, or the global
/// one's for a thread outside any pool (`None` if that has not started yet).
#[inline]
fn with_work_registry<R>(f: impl FnOnce(Option<&registry::Registry>) -> R) -> R {
    Owner::with_current(|owner| match owner {
        Some(owner) => f(Some(owner.registry())),
        None => f(global::GLOBAL.get().map(|registry| &**registry)),
    })
}

/// Whether a worker of the pool that parallel work of this thread runs in is awake and
/// looking for work: a hint, one relaxed load (`Registry::idle_awake_workers`). False when no
/// pool is running yet.
#[inline]
pub(crate) fn thief_awake() -> bool {
    with_work_registry(|registry| registry.is_some_and(|r| r.idle_awake_workers() > 0))
}

/// The watch's checks for the driver between watches ([`watch`] runs one): whether a loop is
/// short enough to be watched, and the clock of an unindexed drive's watch. A type of its own
/// so that the driver names the watch once; under loom nothing is watched.
pub(crate) struct Watch;

impl Watch {
    /// Whether a loop of `items` items may be watched by [`watch`]: false for loops longer
    /// than any started pool watches (one relaxed load). Before the first pool starts, true.
    /// Forwards to `watch::may_watch`.
    #[inline]
    pub(crate) fn worth(items: usize) -> bool {
        watch::may_watch(items)
    }

    /// At the end of a leaf of the unindexed drive `drive` (0: none) at clock `now`: if this
    /// thread's open watch is that drive's, moves its clock to `now`, so that the rest is
    /// handed out only once the thread has gone `RESCUE_NS` without finishing a leaf.
    /// Forwards to `watch::touch`.
    #[inline]
    pub(crate) fn touch(drive: usize, now: u64) {
        watch::touch(drive, now);
    }
}

pub(crate) use watch::watch;

/// Under loom nothing is watched (the watchman is a real thread with timed sleeps).
#[cfg(loom)]
mod watch {
    #[inline]
    pub(crate) fn touch(_drive: usize, _now: u64) {}

    #[inline]
    pub(crate) fn may_watch(_items: usize) -> bool {
        false
    }

    /// Nothing is watched, so no rest is ever taken.
    #[inline]
    pub(crate) fn take_own_rest(_promoted: usize) -> Option<super::job::JobRef> {
        None
    }

    /// `first` runs and `data` comes back.
    pub(crate) fn watch<T, F, R, RA>(
        _items: usize,
        _drive: usize,
        _since: u64,
        data: T,
        _rescue: F,
        first: impl FnOnce() -> RA,
    ) -> (RA, Result<T, R>)
    where
        T: Send,
        F: FnOnce(T, u64) -> R + Send,
        R: Send,
    {
        (first(), Ok(data))
    }
}
