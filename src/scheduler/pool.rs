//! Thread pools: [`ThreadPool`] and `install` (running a closure on a pool's thread). Building
//! a pool is in `builder.rs`, the global pool in `global.rs`.

use super::job::StackJob;
use super::latch::SpinLatch;
use super::registry::{Owner, Registry};
use std::fmt;
use std::sync::Arc;

/// A pool of worker threads; see [`ThreadPoolBuilder`](super::ThreadPoolBuilder).
///
/// Dropping a `ThreadPool` never waits for the jobs spawned on it
/// ([`spawn`](Self::spawn), [`spawn_fifo`](Self::spawn_fifo),
/// [`spawn_broadcast`](Self::spawn_broadcast), [`spawn_future`](Self::spawn_future)): as in
/// rayon, while any of them is still to run, `drop` returns at once, the pool's threads run
/// the rest of them and then exit. A pool with no such job left (the usual case: its
/// `install`, `join`, `scope` and `broadcast` calls have all returned when it can be dropped)
/// has nothing left for its threads to do, and then `drop` waits for them to leave: when it
/// returns, every worker has run its exit handler, and threads started by the default spawn
/// handler have been joined (rayon lets them wind down in the background). Threads started
/// by a [`spawn_handler`](super::ThreadPoolBuilder::spawn_handler) are not joined (the pool
/// has no handle to them): code they run after [`ThreadBuilder::run`](super::ThreadBuilder::run)
/// returns may still be running. Dropped from one of its own threads (say, by a spawned job
/// holding the last handle), the pool cannot wait for itself, and then returns without
/// waiting. For a pool built with
/// [`use_current_thread`](super::ThreadPoolBuilder::use_current_thread), see that method.
///
/// ```
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum: u64 = pool.install(|| {
///     let (a, b) = blitz_par::join(|| (0..500u64).sum::<u64>(), || (500..1000u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 499_500);
/// ```
pub struct ThreadPool {
    pub(crate) registry: Arc<Registry>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .finish()
    }
}

// A panic in user code never leaves the pool inconsistent (jobs catch their panics; the
// scheduler's own state is updated before or after user code, never across it), so a pool may
// be used across `catch_unwind`, as rayon's can.
impl std::panic::UnwindSafe for ThreadPool {}
impl std::panic::RefUnwindSafe for ThreadPool {}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        // Spawned jobs still to run may wait for the dropping thread (a bounded channel it
        // reads after the drop, a lock it holds): as in rayon, the drop does not wait for them.
        // Without such jobs the workers are out of work and only leave their loops, so the
        // drop waits for that, and their threads are gone when it returns.
        let out_of_work = self.registry.terminate();
        if self.registry.is_attached_here() {
            self.registry.detach_current_thread();
        } else if out_of_work {
            self.registry.wait_for_workers();
        }
        trace_event!(@pool_dropped);
    }
}

impl ThreadPool {
    /// Runs `op` on one of this pool's threads and returns its result; parallel operations
    /// inside it use this pool. Called from one of the pool's own threads, runs `op` directly.
    /// A panic in `op` propagates to the caller.
    ///
    /// Called from a thread outside every pool, of a pool built with
    /// [`pool_threads_only(false)`](super::ThreadPoolBuilder::pool_threads_only), runs `op` on
    /// the calling thread as a guest of this pool: the work it starts runs in this pool, the
    /// caller taking part (`current_thread_index()` is `None` in `op` then).
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.install(blitz_par::current_num_threads), 3);
    /// assert!(pool.install(blitz_par::current_thread_index).is_some());
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        install(&self.registry, op)
    }

    /// `join` on this pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| super::join::join(a, b))
    }

    /// `scope` on this pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut v = vec![0; 4];
    /// pool.scope(|s| {
    ///     for (i, x) in v.iter_mut().enumerate() {
    ///         s.spawn(move |_| *x = i);
    ///     }
    /// });
    /// assert_eq!(v, [0, 1, 2, 3]);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&super::scope::Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| super::scope::scope(op))
    }

    /// `scope_fifo` on this pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let n = std::sync::atomic::AtomicUsize::new(0);
    /// pool.scope_fifo(|s| {
    ///     s.spawn_fifo(|_| { n.fetch_add(1, std::sync::atomic::Ordering::SeqCst); });
    /// });
    /// assert_eq!(n.into_inner(), 1);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&super::scope::ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| super::scope::scope_fifo(op))
    }

    /// Spawns a `'static` job on this pool (fire and forget). A panic in it goes to the
    /// pool's panic handler, or aborts the process when there is none.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn(move || tx.send(7).unwrap());
    /// assert_eq!(rx.recv().unwrap(), 7);
    /// ```
    pub fn spawn<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        super::spawn::spawn_in(&self.registry, func, false)
    }

    /// Like [`spawn`](Self::spawn), in FIFO order relative to other `spawn_fifo` jobs.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn_fifo(move || tx.send(1).unwrap());
    /// assert_eq!(rx.recv().unwrap(), 1);
    /// ```
    pub fn spawn_fifo<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        super::spawn::spawn_in(&self.registry, func, true)
    }

    /// Runs `op` once on every thread of this pool and returns the results in thread order.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let ids = pool.broadcast(|ctx| ctx.index());
    /// assert_eq!(ids, vec![0, 1, 2]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(super::spawn::BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        super::spawn::broadcast_in(&self.registry, op)
    }

    /// [`spawn_broadcast`](super::spawn_broadcast) on this pool: `op` runs once on each of
    /// its threads, and this returns at once.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// pool.spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
    /// let mut seen: Vec<usize> = rx.iter().take(2).collect();
    /// seen.sort();
    /// assert_eq!(seen, [0, 1]);
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(super::spawn::BroadcastContext<'_>) + Send + Sync + 'static,
    {
        super::spawn::spawn_broadcast_in(&self.registry, op)
    }

    /// Creates a scope whose jobs run in this pool, with `op` running on the calling thread
    /// (which need not belong to the pool, so `op` and its result need not be `Send`). The
    /// jobs spawned in it go to this pool; at the end the calling thread waits for them:
    /// running jobs meanwhile if it is a thread of this pool (or of another pool, whose jobs it
    /// then runs), else blocking.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let here = std::thread::current().id();
    /// let factor = std::rc::Rc::new(2); // not `Send`: fine, `op` stays on this thread
    /// let mut v = [0; 3];
    /// let k = pool.in_place_scope(|s| {
    ///     assert_eq!(std::thread::current().id(), here);
    ///     let k = *factor;
    ///     for (i, x) in v.iter_mut().enumerate() {
    ///         s.spawn(move |_| *x = i * k);
    ///     }
    ///     factor.clone()
    /// });
    /// assert_eq!(v, [0, 2, 4]);
    /// assert_eq!(*k, 2);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&super::scope::Scope<'scope>) -> R,
    {
        super::scope::in_place_scope_in(&self.registry, op)
    }

    /// Like [`in_place_scope`](Self::in_place_scope), for jobs spawned with
    /// [`ScopeFifo::spawn_fifo`](super::ScopeFifo::spawn_fifo), which start in spawn order.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let n = std::sync::atomic::AtomicUsize::new(0);
    /// pool.in_place_scope_fifo(|s| {
    ///     s.spawn_fifo(|_| { n.fetch_add(1, std::sync::atomic::Ordering::Relaxed); });
    /// });
    /// assert_eq!(n.into_inner(), 1);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&super::scope::ScopeFifo<'scope>) -> R,
    {
        super::scope::in_place_scope_fifo_in(&self.registry, op)
    }

    /// [`yield_now`](super::yield_now) if the calling thread belongs to this pool, else
    /// `None`.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_now(), None);
    /// assert!(pool.install(|| pool.yield_now()).is_some());
    /// ```
    pub fn yield_now(&self) -> Option<super::Yield> {
        self.registry
            .owns_current()
            .then(super::yield_now)
            .flatten()
    }

    /// [`yield_local`](super::yield_local) if the calling thread belongs to this pool, else
    /// `None`.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_local(), None);
    /// assert_eq!(pool.install(|| pool.yield_local()), Some(blitz_par::Yield::Idle));
    /// ```
    pub fn yield_local(&self) -> Option<super::Yield> {
        self.registry
            .owns_current()
            .then(super::yield_local)
            .flatten()
    }

    /// [`current_thread_has_pending_tasks`](super::current_thread_has_pending_tasks) if the
    /// calling thread is one of this pool's workers, else `None`.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.current_thread_has_pending_tasks(), None);
    /// assert_eq!(pool.install(|| pool.current_thread_has_pending_tasks()), Some(false));
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.current_thread_index()
            .and_then(|_| super::current_thread_has_pending_tasks())
    }

    /// The number of threads in this pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 2);
    /// ```
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// The index of the calling thread in this pool, or `None` if it is not one of its threads.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert!(pool.install(|| pool.current_thread_index()).is_some());
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        Owner::with_current(|owner| {
            if !self.registry.owns(owner) {
                return None;
            }
            let index = owner?.seat().index;
            (index < self.registry.num_workers).then_some(index)
        })
    }
}

/// Runs `op` on a thread of `registry` (directly, if the caller is already one).
pub(crate) fn install<OP, R>(registry: &Registry, op: OP) -> R
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    Owner::with_current(|owner| match owner {
        _ if registry.owns(owner) => op(),
        // A guest if the pool takes guests and a seat is free, else on a worker.
        None => registry.enter_as_guest(op),
        // A thread of another pool: keep running that pool's jobs while waiting.
        Some(owner) => {
            let job = StackJob::new(SpinLatch::new(&owner.seat().sleep_word), op);
            // SAFETY: `job` stays on this stack until its latch is set (wait_until below).
            registry.inject(unsafe { job.as_job_ref() });
            owner.wait_until(&job.latch.core);
            job.into_result()
        }
    })
}
