//! Thread pools: [`ThreadPoolBuilder`], [`ThreadPool`], the lazily started global pool, and
//! `install` (running a closure on a pool's thread).

use super::job::{JobHeader, JobRef};
use super::latch::{BlockingLatch, SpinLatch};
use super::registry::{
    current_seat, PanicHandler, Registry, RegistryConfig, ThreadHandler, GLOBAL_GUEST_SEATS,
};
use std::any::Any;
use std::cell::UnsafeCell;
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();

/// The global pool's registry, started on first use.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    GLOBAL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .into_registry(GLOBAL_GUEST_SEATS)
            .unwrap_or_else(|e| panic!("blitz-par: could not start the global thread pool: {e}"))
    })
}

/// The registry of the calling thread's pool, or the global one.
pub(crate) fn current_registry() -> Arc<Registry> {
    let seat = current_seat();
    if seat.is_null() {
        return global_registry().clone();
    }
    // SAFETY: a non-null CURRENT points to a live seat; its registry was created by
    // `Arc::new_cyclic`, so the pointer is an Arc's data pointer and is alive while the seat
    // is occupied: taking one more strong count and then an Arc from it is sound.
    unsafe {
        let registry = (*seat).registry;
        Arc::increment_strong_count(registry);
        Arc::from_raw(registry)
    }
}

/// The number of threads the global pool uses when none is configured: `BLITZ_NUM_THREADS`
/// if it holds a positive integer, else `std::thread::available_parallelism()`. An unusable
/// value is reported on stderr once.
fn default_num_threads() -> usize {
    static REPORTED: std::sync::Once = std::sync::Once::new();
    let fallback = || {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    };
    match std::env::var("BLITZ_NUM_THREADS") {
        Ok(value) => match value.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                let n = fallback();
                REPORTED.call_once(|| {
                    eprintln!(
                        "blitz-par: ignoring BLITZ_NUM_THREADS={value:?}: expected a positive \
                         integer; using {n} threads"
                    )
                });
                n
            }
        },
        Err(_) => fallback(),
    }
}

/// Why a pool could not be built.
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    GlobalPoolAlreadyInitialized,
    IoError(std::io::Error),
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::GlobalPoolAlreadyInitialized => {
                f.write_str("the global thread pool has already been initialized")
            }
            ErrorKind::IoError(e) => write!(f, "could not spawn a pool thread: {e}"),
        }
    }
}

impl std::error::Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::IoError(e) => Some(e),
            ErrorKind::GlobalPoolAlreadyInitialized => None,
        }
    }
}

/// Configures and builds a [`ThreadPool`], or the global pool.
///
/// ```
/// let pool = blitz_par::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("worker-{i}"))
///     .build()
///     .unwrap();
/// assert_eq!(pool.current_num_threads(), 2);
/// assert_eq!(pool.install(|| blitz_par::current_num_threads()), 2);
/// ```
#[derive(Default)]
pub struct ThreadPoolBuilder {
    num_threads: usize,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    panic_handler: Option<PanicHandler>,
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// A builder with default settings.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().build().unwrap();
    /// assert!(pool.current_num_threads() >= 1);
    /// ```
    pub fn new() -> ThreadPoolBuilder {
        ThreadPoolBuilder::default()
    }

    /// The number of worker threads. Zero (the default) means `BLITZ_NUM_THREADS` if set to a
    /// positive integer, else the number of CPUs.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 3);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> ThreadPoolBuilder {
        self.num_threads = num_threads;
        self
    }

    /// Names the worker threads: `closure(index)`.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("calc-{i}"))
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(String::from));
    /// assert_eq!(name.as_deref(), Some("calc-0"));
    /// ```
    pub fn thread_name<F>(mut self, closure: F) -> ThreadPoolBuilder
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// The stack size of the worker threads, in bytes.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().stack_size(8 << 20).build().unwrap();
    /// pool.install(|| ());
    /// ```
    pub fn stack_size(mut self, stack_size: usize) -> ThreadPoolBuilder {
        self.stack_size = Some(stack_size);
        self
    }

    /// A closure each worker thread runs when it starts, with its index.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let s = started.clone();
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .start_handler(move |_| { s.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // waits for the workers
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, handler: H) -> ThreadPoolBuilder
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(handler));
        self
    }

    /// A closure each worker thread runs when it exits, with its index.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let e = exited.clone();
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_| { e.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn exit_handler<H>(mut self, handler: H) -> ThreadPoolBuilder
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Box::new(handler));
        self
    }

    /// A closure that receives the panics of spawned jobs (`spawn`, `ThreadPool::spawn`),
    /// which have no caller to propagate to. Without one, such a panic aborts the process.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let (tx, rx) = mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .panic_handler(move |_| tx.lock().unwrap().send(()).unwrap())
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("boom"));
    /// rx.recv().unwrap();
    /// ```
    pub fn panic_handler<H>(mut self, handler: H) -> ThreadPoolBuilder
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(handler));
        self
    }

    fn into_registry(self, guest_seats: usize) -> Result<Arc<Registry>, ThreadPoolBuildError> {
        let num_threads = if self.num_threads == 0 {
            default_num_threads()
        } else {
            self.num_threads
        };
        Registry::new(RegistryConfig {
            num_threads,
            guest_seats,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            panic_handler: self.panic_handler,
        })
        .map_err(|e| ThreadPoolBuildError {
            kind: ErrorKind::IoError(e.0),
        })
    }

    /// rayon's deprecated scheduling hint (prefer the oldest local job). Accepted and ignored:
    /// rayon promises nothing observable for it ("an execution hint"), and blitz-par's
    /// workers always take their newest local job. Use `scope_fifo` / `spawn_fifo` for FIFO
    /// order, as rayon's deprecation note says.
    ///
    /// ```
    /// #[allow(deprecated)]
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).breadth_first().build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 1);
    /// ```
    #[deprecated(note = "use `scope_fifo` and `spawn_fifo` for similar effect")]
    pub fn breadth_first(self) -> ThreadPoolBuilder {
        self
    }

    /// Builds a new pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (a, b) = pool.join(|| 1, || 2);
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        Ok(ThreadPool {
            registry: self.into_registry(0)?,
        })
    }

    /// Makes this configuration the global pool's. Fails if the global pool already exists
    /// (it starts on first use of any parallel operation, or by an earlier `build_global`).
    ///
    /// ```
    /// // Some other test in this process may have started the global pool already.
    /// let _ = blitz_par::ThreadPoolBuilder::new().num_threads(2).build_global();
    /// assert!(blitz_par::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let already = || ThreadPoolBuildError {
            kind: ErrorKind::GlobalPoolAlreadyInitialized,
        };
        if GLOBAL.get().is_some() {
            return Err(already());
        }
        let registry = self.into_registry(GLOBAL_GUEST_SEATS)?;
        GLOBAL.set(registry).map_err(|lost| {
            lost.terminate();
            lost.join_threads();
            already()
        })
    }
}

/// A pool of worker threads.
///
/// Dropping a `ThreadPool` lets its threads finish the work already given to them (spawned
/// jobs included), then joins them: when `drop` returns, the threads have exited. (rayon's
/// drop returns at once and lets the threads wind down in the background.) Dropped from one of
/// its own threads (say, by a spawned job holding the last handle), it cannot wait for itself,
/// and then returns without joining.
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
        self.registry.terminate();
        self.registry.join_threads();
    }
}

impl ThreadPool {
    /// Runs `op` on one of this pool's threads and returns its result; parallel operations
    /// inside it use this pool. Called from one of the pool's own threads, runs `op` directly.
    /// A panic in `op` propagates to the caller.
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

    /// `in_place_scope` on this pool. Unlike rayon's, which runs `op` on the calling thread,
    /// `op` runs on one of this pool's threads (as with [`scope`](Self::scope)), so it must
    /// be `Send`: the scheduler has no way to count a foreign thread's scope in another pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut v = [0; 3];
    /// pool.in_place_scope(|s| {
    ///     for (i, x) in v.iter_mut().enumerate() {
    ///         s.spawn(move |_| *x = i * 2);
    ///     }
    /// });
    /// assert_eq!(v, [0, 2, 4]);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&super::scope::Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| super::scope::in_place_scope(op))
    }

    /// `in_place_scope_fifo` on this pool (with the same difference from rayon as
    /// [`in_place_scope`](Self::in_place_scope)).
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
        OP: FnOnce(&super::scope::ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| super::scope::in_place_scope_fifo(op))
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
            .owns(current_seat())
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
            .owns(current_seat())
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
        let seat = current_seat();
        if self.registry.owns(seat) {
            // SAFETY: owned seats are alive.
            let index = unsafe { (*seat).index };
            (index < self.registry.num_workers).then_some(index)
        } else {
            None
        }
    }
}

/// Something a [`StackJob`] can set when done.
pub(crate) trait SetLatch {
    /// # Safety
    /// `this` is alive on entry and may be freed once set.
    unsafe fn set_latch(this: *const Self);
}

impl SetLatch for SpinLatch {
    unsafe fn set_latch(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { SpinLatch::set(this) }
    }
}

impl SetLatch for BlockingLatch {
    unsafe fn set_latch(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { BlockingLatch::set(this) }
    }
}

/// A job on the waiting thread's stack that runs a closure once on another thread.
#[repr(C)]
pub(crate) struct StackJob<L, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
}

impl<L: SetLatch, F: FnOnce() -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(latch: L, func: F) -> Self {
        StackJob {
            header: JobHeader {
                execute: Self::execute,
            },
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
        }
    }

    /// # Safety
    /// The job must stay alive (and unmoved) until its latch is set.
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: alive until executed, by contract.
        // (The pointer is derived from the whole job, not just its header: `execute` reaches
        // the other fields through it.)
        unsafe { JobRef::new(self as *const Self as *const JobHeader) }
    }

    unsafe fn execute(header: NonNull<JobHeader>) {
        let this = header.as_ptr() as *const Self;
        // SAFETY: the job is alive until its latch is set (as_job_ref's contract) and is
        // executed once, so `func` and `result` are ours until then.
        unsafe {
            let func = (*(*this).func.get())
                .take()
                .expect("StackJob executed twice");
            *(*this).result.get() = Some(catch_unwind(AssertUnwindSafe(func)));
            L::set_latch(&(*this).latch);
        }
    }

    /// The result, once the latch is set; re-raises a panic of the closure.
    pub(crate) fn into_result(self) -> R {
        match self.result.into_inner().expect("StackJob not executed") {
            Ok(r) => r,
            Err(payload) => resume_unwind(payload),
        }
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
    job.latch.wait();
    job.into_result()
}

/// Runs `op` on a thread of `registry` (directly, if the caller is already one).
pub(crate) fn install<OP, R>(registry: &Registry, op: OP) -> R
where
    OP: FnOnce() -> R + Send,
    R: Send,
{
    let seat = current_seat();
    if registry.owns(seat) {
        return op();
    }
    if seat.is_null() {
        return run_on_worker_blocking(registry, op);
    }
    // A thread of another pool: keep running that pool's jobs while waiting.
    // SAFETY: our own seat, alive during this call.
    let seat = unsafe { &*seat };
    let job = StackJob::new(SpinLatch::new(&seat.sleep_word), op);
    // SAFETY: `job` stays on this stack until its latch is set (wait_until below).
    registry.inject(unsafe { job.as_job_ref() });
    // SAFETY: our own seat.
    unsafe { seat.wait_until(&job.latch.core) };
    job.into_result()
}
