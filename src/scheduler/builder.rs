//! Building pools: [`ThreadPoolBuilder`] and [`ThreadPoolBuildError`]. How the builder starts
//! its worker threads (`ThreadSpawn`, and the [`ThreadBuilder`] a custom spawn handler
//! receives) is in `thread.rs`.

use super::global::GLOBAL;
use super::pool::ThreadPool;
use super::registry::{
    has_seat, PanicHandler, Registry, RegistryConfig, ThreadHandler, GUEST_SEATS,
};
use super::thread::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use super::MAX_NUM_THREADS;
use crate::sync::{default_thread_stack, room_for_thread};
use std::any::Any;
use std::fmt;
use std::io;
use std::sync::Arc;

/// Why a pool could not be built.
///
/// ```
/// use blitz_par::ThreadPoolBuilder;
/// // A spawn handler that fails: `build` reports the I/O error.
/// let err = ThreadPoolBuilder::new()
///     .num_threads(2)
///     .spawn_handler(|_thread| Err(std::io::Error::other("no threads today")))
///     .build()
///     .unwrap_err();
/// assert!(err.to_string().contains("no threads today"));
/// ```
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    GlobalPoolAlreadyInitialized,
    CurrentThreadAlreadyInPool,
    IoError(io::Error),
}

impl ThreadPoolBuildError {
    fn new(kind: ErrorKind) -> ThreadPoolBuildError {
        ThreadPoolBuildError { kind }
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            ErrorKind::CurrentThreadAlreadyInPool => {
                f.write_str("The current thread is already part of another thread pool.")
            }
            ErrorKind::IoError(e) => write!(f, "could not spawn a pool thread: {e}"),
        }
    }
}

impl std::error::Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::IoError(e) => Some(e),
            ErrorKind::GlobalPoolAlreadyInitialized | ErrorKind::CurrentThreadAlreadyInPool => None,
        }
    }
}

/// Configures and builds a [`ThreadPool`], or the global pool.
///
/// `S` says how worker threads are started: by default with `std::thread`; after
/// [`spawn_handler`](Self::spawn_handler), with the given closure.
///
/// # The global pool
///
/// Parallel work started on a thread outside every pool runs in the global pool. It starts
/// with the first parallel call that needs it (a short loop of cheap items runs on the calling
/// thread and does not wait for it), in the configuration of
/// [`build_global`](Self::build_global) if that was called before, else in the default one:
/// `BLITZ_NUM_THREADS` threads, else `RAYON_NUM_THREADS`, else one per CPU.
///
/// By default the calling thread takes part in that work, so that a small parallel call costs
/// about what the sequential loop costs. Configured with a stack size, thread names, start,
/// exit or spawn handlers, or one thread (also by either environment variable), the global
/// pool runs every closure of that work on its own threads instead, as rayon does, the caller
/// waiting; [`pool_threads_only`](Self::pool_threads_only) chooses either way explicitly.
///
/// Started by a parallel call, the global pool cannot report an error, so it makes do with the
/// threads the system lets it start: under a limit on threads, processes or address space it
/// runs with fewer workers than asked for (an eighth fewer than it could start, to leave room
/// for the rest of the program), down to none, in which case the threads that start parallel
/// work run all of it. It says so once on stderr, with the error of the start that failed.
/// [`build`](Self::build) and [`build_global`](Self::build_global) return that error instead,
/// as rayon's do.
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
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: usize,
    use_current_thread: bool,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    panic_handler: Option<PanicHandler>,
    /// `None`: decided by the rest of the configuration (`pool_threads_only`'s docs).
    pool_threads_only: Option<bool>,
    /// `deterministic(..)`; `None`: as `BLITZ_DETERMINISTIC` says.
    deterministic: Option<bool>,
    spawn_handler: S,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: 0,
            use_current_thread: false,
            thread_name: None,
            stack_size: None,
            start_handler: None,
            exit_handler: None,
            panic_handler: None,
            pool_threads_only: None,
            deterministic: None,
            spawn_handler: DefaultSpawn,
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("use_current_thread", &self.use_current_thread)
            .field("stack_size", &self.stack_size)
            .field("pool_threads_only", &self.pool_threads_only)
            .field("deterministic", &self.deterministic)
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

    /// Builds a pool whose threads are scoped threads of the calling function, so that they
    /// may borrow from its stack; runs `with_pool` with it and returns its result. Every
    /// worker thread runs `wrapper(thread_builder)`, which sets up whatever the thread needs
    /// (say, a thread-local value) and must call [`ThreadBuilder::run`] to take part in the
    /// pool. All threads have exited when this returns.
    ///
    /// Errors are those of [`build`](Self::build) (a thread that could not be started, or
    /// [`use_current_thread`](Self::use_current_thread) on a thread already in a pool). If
    /// `with_pool` or a `wrapper` panics, the panic is propagated once every thread has
    /// exited.
    ///
    /// ```
    /// use std::cell::Cell;
    /// thread_local!(static SHARE: Cell<u64> = const { Cell::new(0) });
    ///
    /// let weights = vec![1u64, 10, 100];
    /// let weights = &weights; // the workers borrow from this stack frame
    /// let total = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(3)
    ///     .build_scoped(
    ///         |thread| {
    ///             SHARE.with(|s| s.set(weights[thread.index()]));
    ///             thread.run()
    ///         },
    ///         |pool| pool.broadcast(|_| SHARE.with(Cell::get)).iter().sum::<u64>(),
    ///     )
    ///     .unwrap();
    /// assert_eq!(total, 111);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        let wrapper = &wrapper;
        std::thread::scope(|scope| {
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        builder = builder.stack_size(size);
                    }
                    room_for_thread(thread.stack_size().unwrap_or_else(default_thread_stack))?;
                    builder.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            // Dropping the pool (also when `with_pool` panics) waits for every worker to leave
            // `run`; the scope then joins the threads.
            Ok(with_pool(&pool))
        })
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// The number of worker threads. Zero (the default) means `BLITZ_NUM_THREADS` if set to a
    /// positive integer, else `RAYON_NUM_THREADS` if set to one, else the number of CPUs.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 3);
    /// ```
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Makes the calling thread (the one that calls `build`, `build_global` or
    /// `build_scoped`) worker 0 of the new pool. It is not spawned: the spawn handler, the
    /// start handler and the exit handler are not called for it, and `thread_name` and
    /// `stack_size` do not apply to it. The other `num_threads - 1` workers start as usual.
    ///
    /// From then on the calling thread is a thread of the pool: `current_thread_index()`
    /// is `Some(0)` on it, `install` runs its closure directly, and `join`, scopes and
    /// parallel iterators it calls run in this pool. It runs no work-stealing loop of its own,
    /// though: it takes jobs (its share of a `broadcast` included) only while it waits inside
    /// the pool (in a `join` whose second closure was taken by another worker, at the end of a
    /// scope or a broadcast, or in [`yield_now`](crate::yield_now)). A pool of one thread
    /// built this way runs work from other threads (`spawn`, `install` from outside, and, for
    /// the global pool, any parallel call of another thread, since one thread keeps that work
    /// on the pool's threads) only then.
    ///
    /// Building fails if the calling thread already belongs to a pool (also while it runs
    /// parallel work as a guest of the global pool).
    ///
    /// Dropping the pool on this thread, outside any parallel operation, first runs the work
    /// left for the pool (as each worker does before exiting), then waits for the other
    /// workers, and leaves the thread outside every pool again, so it may build another pool
    /// this way. (rayon keeps the thread in the pool and leaks the pool's state for the rest of
    /// the thread's life.) Two cases keep part of that: dropped from inside a parallel
    /// operation running on this thread, the pool is left without waiting (as when a pool is
    /// dropped from one of its own threads), and its bookkeeping (not its threads) is freed
    /// only when the thread exits; dropped on another thread, the pool's other workers exit
    /// but this thread stays worker 0 of the finished pool until it exits, and parallel
    /// operations it starts then run on it alone (a broadcast would wait forever for the
    /// missing workers).
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .use_current_thread()
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.current_thread_index(), Some(0));
    /// assert_eq!(blitz_par::current_thread_index(), Some(0));
    /// let (a, b) = pool.join(|| 1, || 2);
    /// assert_eq!(a + b, 3);
    /// drop(pool);
    /// assert_eq!(blitz_par::current_thread_index(), None);
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Names the worker threads: `closure(index)`.
    ///
    /// Without it, the threads are unnamed (`std::thread::current().name()` is `None`), as in
    /// rayon, and on Linux show the OS name of the thread that built the pool, except the
    /// global pool's, which the OS calls `blitz-par-{index}`: that pool may be started by a
    /// short-lived thread of blitz-par's, whose name would be misleading.
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
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.thread_name = Some(Box::new(closure));
        self
    }

    /// The stack size of the worker threads, in bytes (default: std's, 2 MiB unless
    /// `RUST_MIN_STACK` says otherwise).
    ///
    /// Besides your closures' own frames, the radix sort of primitive keys puts a 64 KiB
    /// buffer on the stack of the thread that sorts a bucket; stay well above that.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().stack_size(8 << 20).build().unwrap();
    /// pool.install(|| ());
    /// ```
    pub fn stack_size(mut self, stack_size: usize) -> Self {
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
    pub fn start_handler<H>(mut self, handler: H) -> Self
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
    pub fn exit_handler<H>(mut self, handler: H) -> Self
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
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(handler));
        self
    }

    /// Whether parallel work that a thread outside every pool starts on this pool runs on the
    /// pool's threads only (`true`), the caller blocking until it is done, as in rayon; or
    /// partly on the calling thread (`false`), which takes part in the work as a *guest*.
    ///
    /// Work started on the pool from outside means, for the global pool, every parallel
    /// operation that a thread outside every pool calls (`join`, scopes, parallel iterators,
    /// sorts, `parallel_for`, ...); for a built pool, [`install`](ThreadPool::install) and the
    /// methods built on it (`join`, `scope`, `scope_fifo`) and the jobs of
    /// [`in_place_scope`](ThreadPool::in_place_scope) (whose own closure runs on the caller
    /// either way, as in rayon). Work started from one of the pool's threads runs in the pool
    /// as always; `spawn` and `broadcast` jobs run on its workers either way.
    ///
    /// The default is `true`, except for the global pool, where it is `false` unless the
    /// pool is configured with any of [`stack_size`](Self::stack_size),
    /// [`thread_name`](Self::thread_name), [`start_handler`](Self::start_handler),
    /// [`exit_handler`](Self::exit_handler), [`spawn_handler`](Self::spawn_handler), or one
    /// thread ([`num_threads(1)`](Self::num_threads), or, with `num_threads` unset,
    /// `BLITZ_NUM_THREADS=1` or `RAYON_NUM_THREADS=1`): such settings say that the work
    /// needs those threads (their stack, their name, their setup) or one thread at a time.
    ///
    /// The cost of `true`: every call from outside wakes a worker (unless one is awake) and
    /// waits for it to hand the result back, however small the work. From a thread outside
    /// the pool on the 2-core VM (`benches/outside.rs`, medians, three runs): a 1,000-item
    /// sum called in a loop takes 0.15 us as a guest and 0.9 to 1.8 us handed to the workers
    /// (the sequential loop: 0.11 us); after 5 ms of idle time, when a worker has to be
    /// woken, 3.4 to 4.1 us against 42 to 48 us. A 100,000-item sum: 9 to 14 us against 14
    /// to 41 us in a loop, 22 to 61 us against 66 to 128 us after idle time. (rayon, which
    /// always hands the work over: 20 to 23 us, 58 to 74 us, 38 to 44 us and 94 to 142 us.)
    ///
    /// A global pool that could start no thread at all (see [the global
    /// pool](ThreadPoolBuilder#the-global-pool)) runs the work on the calling threads whatever
    /// this says.
    ///
    /// ```
    /// // A pool whose `install` from outside runs on the calling thread, as a guest.
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .pool_threads_only(false)
    ///     .build()
    ///     .unwrap();
    /// let here = std::thread::current().id();
    /// assert_eq!(pool.install(|| std::thread::current().id()), here);
    /// assert_eq!(pool.install(blitz_par::current_num_threads), 2);
    ///
    /// // The default for a built pool: the closure runs on one of its threads.
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert!(pool.install(blitz_par::current_thread_index).is_some());
    /// ```
    pub fn pool_threads_only(mut self, pool_threads_only: bool) -> Self {
        self.pool_threads_only = Some(pool_threads_only);
        self
    }

    /// Starts the worker threads with `spawn` instead of `std::thread::spawn`: it is called
    /// once per worker, on the thread that builds the pool, with a [`ThreadBuilder`], and must
    /// start a thread that calls [`ThreadBuilder::run`] (or return an error). This lets the
    /// threads come from elsewhere (another thread API, a thread with special setup).
    ///
    /// If `spawn` returns an error, building fails with a [`ThreadPoolBuildError`] whose
    /// [`source`](std::error::Error::source) is that error, after the workers already started
    /// have been told to exit and have left [`ThreadBuilder::run`] (a `ThreadBuilder` that
    /// `spawn` kept without running it must be dropped for this to happen).
    ///
    /// Dropping the pool waits until every worker has left `run` (its exit handler has run),
    /// not for the threads themselves to end: code after `run` in a thread may still be
    /// running, so join the threads yourself if you need that.
    ///
    /// Only the workers come from `spawn`: the helper threads of the crate are
    /// `std::thread`s and run no user code (on Linux, `blitz-par-start`, which starts the
    /// global pool for a short loop watched before it started, then exits; elsewhere
    /// `blitz-par-watch`, which watches the first item of short parallel loops).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// let handles = Mutex::new(Vec::new());
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         let mut b = std::thread::Builder::new();
    ///         if let Some(name) = thread.name() {
    ///             b = b.name(name.to_owned());
    ///         }
    ///         if let Some(size) = thread.stack_size() {
    ///             b = b.stack_size(size);
    ///         }
    ///         handles.lock().unwrap().push(b.spawn(|| thread.run())?);
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| blitz_par::join(|| 1, || 2)), (1, 2));
    /// drop(pool);
    /// for handle in handles.into_inner().unwrap() {
    ///     handle.join().unwrap();
    /// }
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            use_current_thread: self.use_current_thread,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            panic_handler: self.panic_handler,
            pool_threads_only: self.pool_threads_only,
            deterministic: self.deterministic,
            spawn_handler: CustomSpawn(spawn),
        }
    }

    /// Makes every reduction in the pool reproducible: `sum`, `product`, `reduce`, `fold`
    /// then `reduce`, `min_by`, `max_by_key` and the rest then follow the fixed reduction tree
    /// of [`deterministic`](mod@crate::iter::deterministic) and give the same bits on any
    /// number of threads and on every run, as if every pipeline in the pool called
    /// [`deterministic()`](crate::iter::ParallelIterator::deterministic) before its
    /// reduction. Consumers whose results cannot depend on the grouping (`collect`,
    /// `for_each`, searches, `exact_sum`) keep splitting freely. Scans are deterministic
    /// anyway.
    ///
    /// Not set, a pool follows `BLITZ_DETERMINISTIC` (`1`, `true`, `on` or `yes` for on; `0`,
    /// `false`, `off`, `no` or empty for off; anything else is reported on stderr and means
    /// off), which so makes a whole program reproducible, global pool included, without
    /// editing it. rayon has no such switch.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<f32> = (1..100_000).map(|i| 1.0 / i as f32).collect();
    /// let sum_on = |threads| {
    ///     blitz_par::ThreadPoolBuilder::new()
    ///         .num_threads(threads)
    ///         .deterministic(true)
    ///         .build()
    ///         .unwrap()
    ///         .install(|| v.par_iter().sum::<f32>())
    /// };
    /// assert_eq!(sum_on(1).to_bits(), sum_on(4).to_bits());
    /// ```
    pub fn deterministic(mut self, deterministic: bool) -> Self {
        self.deterministic = Some(deterministic);
        self
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
    pub fn breadth_first(self) -> Self {
        self
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the registry and starts its workers (all but seat 0 with `use_current_thread`;
    /// the caller attaches itself once the registry is in place). `global`: for
    /// `build_global`, where outside callers take part in the work unless the configuration
    /// says otherwise ([`pool_threads_only`](Self::pool_threads_only)).
    pub(crate) fn into_registry(self, global: bool) -> Result<Arc<Registry>, ThreadPoolBuildError> {
        let custom_spawn = self.spawn_handler.is_custom();
        let ThreadPoolBuilder {
            num_threads,
            use_current_thread,
            thread_name,
            stack_size,
            start_handler,
            exit_handler,
            panic_handler,
            pool_threads_only,
            deterministic,
            mut spawn_handler,
        } = self;
        if use_current_thread && has_seat() {
            return Err(ThreadPoolBuildError::new(
                ErrorKind::CurrentThreadAlreadyInPool,
            ));
        }
        let (num_threads, chosen) = if num_threads == 0 {
            super::global::default_num_threads()
        } else {
            (num_threads, true)
        };
        let configured = stack_size.is_some()
            || thread_name.is_some()
            || start_handler.is_some()
            || exit_handler.is_some()
            || custom_spawn
            || (chosen && num_threads == 1);
        let pool_threads_only = pool_threads_only.unwrap_or(!global || configured);
        let config = RegistryConfig {
            num_threads: num_threads.clamp(1, MAX_NUM_THREADS),
            guest_seats: if pool_threads_only { 0 } else { GUEST_SEATS },
            use_current_thread,
            thread_name,
            stack_size,
            start_handler,
            exit_handler,
            panic_handler,
            deterministic: deterministic.unwrap_or_else(super::deterministic_from_env),
            one_cpu: !chosen && num_threads == 1,
            os_names: global,
        };
        if config.deterministic {
            super::note_deterministic();
        }
        Registry::new(config, &mut spawn_handler)
            .map_err(|e| ThreadPoolBuildError::new(ErrorKind::IoError(e.0)))
    }

    /// Builds a new pool.
    ///
    /// If a worker thread cannot be started (the system's limits on threads or memory, or the
    /// [`spawn_handler`](Self::spawn_handler) returned an error), this returns the error, as
    /// rayon does, once the workers already started have exited. (Only the global pool that
    /// the first parallel call starts makes do with the threads it could start.)
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (a, b) = pool.join(|| 1, || 2);
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let attach = self.use_current_thread;
        let registry = self.into_registry(false)?;
        if attach {
            registry.attach_current_thread();
        }
        Ok(ThreadPool { registry })
    }

    /// Makes this configuration the global pool's. Fails if the global pool already exists
    /// (it starts when parallel work first needs it, or by an earlier `build_global`: call
    /// this before any parallel work), or
    /// if a worker thread cannot be started (as [`build`](Self::build) does; the global pool
    /// is then left to start on first use, with the default configuration).
    ///
    /// ```
    /// // Some other test in this process may have started the global pool already.
    /// let _ = blitz_par::ThreadPoolBuilder::new().num_threads(2).build_global();
    /// assert!(blitz_par::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let already = || ThreadPoolBuildError::new(ErrorKind::GlobalPoolAlreadyInitialized);
        if GLOBAL.get().is_some() {
            return Err(already());
        }
        let attach = self.use_current_thread;
        let registry = self.into_registry(true)?;
        match GLOBAL.set(registry) {
            Ok(()) => {
                if attach {
                    // The global pool is never dropped: the thread stays its worker 0 until
                    // it exits.
                    GLOBAL.get().expect("just set").attach_current_thread();
                }
                Ok(())
            }
            Err(lost) => {
                lost.terminate();
                lost.wait_for_workers();
                Err(already())
            }
        }
    }
}
