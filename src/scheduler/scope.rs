//! Scopes: spawn any number of jobs that may borrow from the enclosing stack; the scope
//! returns once all of them have finished.
//!
//! Spawned jobs are heap jobs pushed on the spawning thread's deque (so the spawner's own
//! thread runs them LIFO when nobody steals them); a [`CountLatch`] counts the scope body
//! plus every job not yet finished, and the scope's owner runs other jobs while it waits.
//! `spawn_fifo` jobs go through a per-scope FIFO queue instead: each spawn pushes the job on
//! that queue and a "ticket" on the deque, and whichever thread runs a ticket runs the oldest
//! queued job, so the jobs start in spawn order.

use super::future_slot::{unwind_cancelled, CancelToken};
use super::global::current_registry;
use super::injector::Injector;
use super::job::{HeapJob, JobHeader, JobRef};
use super::latch::CountLatch;
use super::registry::{has_seat, Owner, Registry};
use super::spawn::BroadcastContext;
use crate::sync::{AtomicPtr, Ordering};
use std::any::Any;
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

/// A scope in which to spawn jobs that borrow from the enclosing stack; see [`scope`].
///
/// ```
/// let mut parts = [0u64; 4];
/// blitz_par::scope(|s: &blitz_par::Scope<'_>| {
///     for (i, part) in parts.iter_mut().enumerate() {
///         s.spawn(move |_| *part = (i as u64 + 1) * 10);
///     }
/// });
/// assert_eq!(parts, [10, 20, 30, 40]);
/// ```
pub struct Scope<'scope> {
    base: ScopeBase<'scope>,
}

/// A scope whose spawned jobs start in spawn order; see [`scope_fifo`].
///
/// ```
/// use std::sync::Mutex;
/// let order = Mutex::new(Vec::new());
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.scope_fifo(|s: &blitz_par::ScopeFifo<'_>| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///     }
/// });
/// // One thread runs them, first spawned first.
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
#[repr(C)]
pub struct ScopeFifo<'scope> {
    /// The ticket job pushed on a deque per `spawn_fifo`; first, so that its address is the
    /// scope's.
    ticket: JobHeader,
    fifo: Injector,
    base: ScopeBase<'scope>,
}

type ScopeMarker<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

struct ScopeBase<'scope> {
    registry: Arc<Registry>,
    /// The first panic of the body or a job.
    panic: AtomicPtr<Box<dyn Any + Send + 'static>>,
    latch: CountLatch,
    /// The cancellation token of the work that made the scope (`spawn_future`): its jobs run
    /// as work of the same task, and do not start once it is cancelled.
    cancel: CancelToken,
    /// Invariant in `'scope`, like rayon's.
    marker: PhantomData<ScopeMarker<'scope>>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

/// A pointer that may cross threads; the scope guarantees the pointee outlives every job.
struct SendPtr<T>(*const T);
// SAFETY: used only for scopes, which are Sync and outlive their jobs.
unsafe impl<T> Send for SendPtr<T> {}
impl<T> SendPtr<T> {
    fn get(&self) -> *const T {
        self.0
    }
}

impl<'scope> ScopeBase<'scope> {
    /// A scope whose jobs go to `registry`, owned by the calling thread: waiting in `owner`,
    /// its seat (in `registry` or in another pool), or blocking when it has none.
    fn new(registry: Arc<Registry>, owner: Option<Owner<'_>>) -> Self {
        ScopeBase {
            registry,
            panic: AtomicPtr::new(std::ptr::null_mut()),
            latch: match owner {
                Some(owner) => CountLatch::new(&owner.seat().sleep_word),
                None => CountLatch::new_blocking(),
            },
            cancel: owner.map_or(CancelToken::NONE, Owner::cancel_token),
            marker: PhantomData,
        }
    }

    fn store_panic(&self, payload: Box<dyn Any + Send>) {
        let boxed = Box::into_raw(Box::new(payload));
        if self
            .panic
            .compare_exchange(
                std::ptr::null_mut(),
                boxed,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_err()
        {
            // A panic is already recorded; drop this one.
            // SAFETY: we just created it and nobody else saw it.
            drop(unsafe { Box::from_raw(boxed) });
        }
    }

    /// Runs the body, waits for every job, then returns the body's result or re-raises the
    /// first panic. `owner` is the calling thread's seat, as given to `new`.
    fn complete<R>(&self, owner: Option<Owner<'_>>, body: impl FnOnce() -> R) -> R {
        // The wait below uses the seat after the body (user code) ran.
        let _hold = owner.map(Owner::hold);
        let result = match catch_unwind(AssertUnwindSafe(body)) {
            Ok(r) => Some(r),
            Err(payload) => {
                self.store_panic(payload);
                None
            }
        };
        // SAFETY: the latch lives in `self` until we return; our own count.
        unsafe { CountLatch::decrement(&self.latch) };
        match owner {
            Some(owner) => owner.wait_until(self.latch.seat_latch()),
            None => self.latch.wait_blocking(),
        }
        let panic = self.panic.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !panic.is_null() {
            // SAFETY: stored by store_panic, taken once by the swap.
            let payload = unsafe { *Box::from_raw(panic) };
            resume_unwind(payload);
        }
        result.expect("the scope body returned")
    }

    /// Wraps a job body so that it records its panic and counts itself done.
    fn job<S, BODY>(&self, scope: &S, body: BODY) -> JobRef
    where
        BODY: FnOnce(&S) + Send,
        S: Sync,
    {
        self.latch.increment();
        let scope = SendPtr(scope as *const S);
        let base = SendPtr(self as *const ScopeBase<'scope>);
        HeapJob::into_job_ref(move || {
            // SAFETY: the scope (and its base) waits for this job's decrement before it
            // returns, so both are alive here.
            let (scope, base) = unsafe { (&*scope.get(), &*base.get()) };
            let token = base.cancel;
            let run = AssertUnwindSafe(move || {
                // SAFETY: the token's task outlives the work that made the scope, which waits
                // for this job.
                if unsafe { token.is_cancelled() } {
                    // Cancelled before it started: it never runs.
                    drop(body);
                    unwind_cancelled();
                }
                body(scope)
            });
            let result = Owner::with_current(|owner| match owner {
                // SAFETY: as above.
                Some(owner) => unsafe { owner.with_cancel_token(token, || catch_unwind(run)) },
                None => catch_unwind(run),
            });
            if let Err(payload) = result {
                base.store_panic(payload);
            }
            // SAFETY: alive until this decrement, as above; nothing touches it afterwards.
            unsafe { CountLatch::decrement(&base.latch) };
        })
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns `body` once on every thread of the scope's pool, each call with its
    /// [`BroadcastContext`]; the scope waits for all of them.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let seen = Mutex::new(Vec::new());
    /// pool.scope(|s| s.spawn_broadcast(|_, ctx| seen.lock().unwrap().push(ctx.index())));
    /// let mut seen = seen.into_inner().unwrap();
    /// seen.sort();
    /// assert_eq!(seen, [0, 1, 2]);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.base.spawn_broadcast(self, body)
    }

    /// Spawns a job that may borrow anything that outlives the scope. It runs on any thread
    /// of the pool, and the scope does not return before it has finished. A panic in it is
    /// re-raised by `scope` once every job has finished.
    ///
    /// ```
    /// let mut a = 0;
    /// let mut b = 0;
    /// blitz_par::scope(|s| {
    ///     s.spawn(|_| a = 1);
    ///     s.spawn(|s| {
    ///         s.spawn(|_| b = 2); // jobs may spawn more jobs
    ///     });
    /// });
    /// assert_eq!((a, b), (1, 2));
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let job = self.base.job(self, body);
        trace_event!(ScopeSpawn, job.as_ptr());
        self.base.registry.push_spawned(job, true);
    }
}

impl<'scope> ScopeBase<'scope> {
    /// One job per worker of the scope's pool, each in that worker's inbox (as `broadcast`
    /// posts its jobs), each counted by the scope's latch (as a spawned job is).
    fn spawn_broadcast<S, BODY>(&self, scope: &S, body: BODY)
    where
        BODY: Fn(&S, BroadcastContext<'_>) + Send + Sync + 'scope,
        S: Sync,
    {
        let body = Arc::new(body);
        let n = self.registry.num_threads();
        for index in 0..n {
            let body = body.clone();
            let job = self.job(scope, move |scope: &S| {
                body(scope, BroadcastContext::new(index, n));
                super::spawn::let_other_broadcast_jobs_run(n);
            });
            self.registry.inject_to(index, job);
        }
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns `body` once on every thread of the scope's pool, each call with its
    /// [`BroadcastContext`]; the scope waits for all of them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let calls = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _| { calls.fetch_add(1, Ordering::Relaxed); }));
    /// assert_eq!(calls.into_inner(), 3);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.base.spawn_broadcast(self, body)
    }

    /// Spawns a job like [`Scope::spawn`]; jobs spawned with `spawn_fifo` start in the order
    /// they were spawned (they may still finish in any order).
    ///
    /// ```
    /// let order = std::sync::Mutex::new(Vec::new());
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// pool.scope_fifo(|s| {
    ///     for i in 0..4 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        let job = self.base.job(self, body);
        trace_event!(ScopeSpawn, job.as_ptr());
        self.fifo.push(job);
        // SAFETY: the ticket lives in the scope, which outlives every job and ticket: each
        // ticket runs exactly one queued job, and the scope waits for all of them.
        let ticket = unsafe { JobRef::new(self as *const Self as *const JobHeader) };
        self.base.registry.push_spawned(ticket, true);
    }

    /// Runs the oldest queued job of the scope whose ticket this is.
    ///
    /// # Safety
    /// `header` is the ticket of a live `ScopeFifo` that has a queued job for this ticket.
    unsafe fn run_ticket(header: NonNull<JobHeader>) {
        // SAFETY: see contract; the ticket is the first field of the repr(C) ScopeFifo, so
        // its address is the scope's (the lifetime does not matter for reading `fifo`).
        unsafe {
            let scope = header.as_ptr() as *const ScopeFifo<'static>;
            let job = (*scope)
                .fifo
                .pop()
                .expect("a FIFO ticket without a queued job");
            job.execute();
        }
    }
}

/// Creates a scope on the calling thread's pool (the global pool outside any pool): runs `op`,
/// in which jobs may be spawned that borrow from the enclosing stack, then waits until every
/// spawned job has finished, running jobs itself meanwhile.
///
/// `op` runs on the calling thread (rayon runs it on a pool thread when called from outside the
/// pool; for that, wrap the call in `ThreadPool::install`).
///
/// # Panics
/// If `op` or a spawned job panics, the first panic is re-raised after all jobs finished.
///
/// ```
/// let v = vec![1, 2, 3];
/// let mut sums = [0; 2];
/// let (first, second) = sums.split_at_mut(1);
/// blitz_par::scope(|s| {
///     s.spawn(|_| first[0] = v.iter().sum());
///     s.spawn(|_| second[0] = v.iter().product());
/// });
/// assert_eq!(sums, [6, 6]);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    super::enter(move || {
        Owner::with_current(|owner| {
            let scope = Scope {
                base: ScopeBase::new(current_registry(), owner),
            };
            scope.base.complete(owner, || op(&scope))
        })
    })
}

/// Like [`scope`], with `op` always running on the calling thread, so that neither `op` nor
/// its result need be `Send` (as in rayon).
///
/// The scope belongs to the calling thread's pool
/// (the global pool outside any pool). Outside every pool the calling thread takes part in
/// the global pool for the duration of the call, as with `scope`; if the global pool's 64
/// guest places are all taken, its jobs go to the pool's workers and the calling thread
/// blocks at the end of the scope until they are done.
///
/// ```
/// let here = std::thread::current().id();
/// let name = std::rc::Rc::new("not Send"); // `op` may capture it: it stays on this thread
/// let mut x = 0;
/// let len = blitz_par::in_place_scope(|s| {
///     assert_eq!(std::thread::current().id(), here);
///     s.spawn(|_| x += 1);
///     name.len()
/// });
/// assert_eq!((x, len), (1, 8));
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place_scope_in(&current_registry(), op)
}

/// `in_place_scope` with jobs going to `registry`.
pub(crate) fn in_place_scope_in<'scope, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place(registry, op, |registry, owner, op| {
        let scope = Scope {
            base: ScopeBase::new(registry, owner),
        };
        scope.base.complete(owner, || op(&scope))
    })
}

/// `in_place_scope_fifo` with jobs going to `registry`.
pub(crate) fn in_place_scope_fifo_in<'scope, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place(registry, op, |registry, owner, op| {
        let scope = ScopeFifo {
            ticket: JobHeader {
                execute: ScopeFifo::run_ticket,
            },
            fifo: Injector::new(64),
            base: ScopeBase::new(registry, owner),
        };
        scope.base.complete(owner, || op(&scope))
    })
}

/// Runs `run(registry, owner, op)` on the calling thread, where `owner` is where the thread
/// waits for the scope's jobs: its own seat if it has one (in `registry` or in another pool,
/// as `install` from another pool waits); else a guest seat of `registry` if one is free (only
/// the global pool has them); else none, and the scope's owner blocks.
fn in_place<OP, R>(
    registry: &Arc<Registry>,
    op: OP,
    run: impl for<'s> FnOnce(Arc<Registry>, Option<Owner<'s>>, OP) -> R,
) -> R {
    if has_seat() {
        return Owner::with_current(|owner| run(registry.clone(), owner, op));
    }
    match registry.try_enter_as_guest((op, run), |(op, run)| {
        // `try_enter_as_guest` gave the calling thread a seat for this closure.
        Owner::with_current(|owner| run(registry.clone(), owner, op))
    }) {
        Ok(result) => result,
        Err((op, run)) => run(registry.clone(), None, op),
    }
}

/// Like [`scope`], for jobs spawned with [`ScopeFifo::spawn_fifo`], which start in spawn
/// order.
///
/// ```
/// let n = std::sync::atomic::AtomicUsize::new(0);
/// blitz_par::scope_fifo(|s| {
///     for _ in 0..10 {
///         s.spawn_fifo(|_| { n.fetch_add(1, std::sync::atomic::Ordering::SeqCst); });
///     }
/// });
/// assert_eq!(n.into_inner(), 10);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    super::enter(move || {
        Owner::with_current(|owner| {
            let scope = ScopeFifo {
                ticket: JobHeader {
                    execute: ScopeFifo::run_ticket,
                },
                fifo: Injector::new(64),
                base: ScopeBase::new(current_registry(), owner),
            };
            scope.base.complete(owner, || op(&scope))
        })
    })
}

/// Like [`scope_fifo`], with `op` always running on the calling thread, so that neither `op`
/// nor its result need be `Send` (see [`in_place_scope`]).
///
/// ```
/// let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new())); // not Send
/// let mut x = 0;
/// blitz_par::in_place_scope_fifo(|s| {
///     s.spawn_fifo(|_| x += 1);
///     log.borrow_mut().push("spawned");
/// });
/// assert_eq!(x, 1);
/// assert_eq!(*log.borrow(), ["spawned"]);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place_scope_fifo_in(&current_registry(), op)
}
