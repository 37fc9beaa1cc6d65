//! The worker threads of a pool being built: how a builder starts them ([`ThreadSpawn`]: the
//! default, `std::thread`, or the closure given to
//! [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler)) and the
//! [`ThreadBuilder`] each one runs.
//!
//! The builder is generic over how worker threads are started, as rayon's is: `DefaultSpawn`
//! starts them with `std::thread::Builder` and keeps their join handles; `CustomSpawn` calls
//! the closure given to `spawn_handler`. Both are hidden (they are named only through the
//! builder's `S` parameter), like rayon's. Whoever starts a thread, the registry counts every
//! `ThreadBuilder` handed out until it has finished [`ThreadBuilder::run`] (or was dropped
//! unrun), so that dropping a pool can wait for its workers without owning their join handles
//! (`README.md`, "Termination").

use super::registry::Registry;
use crate::sync::{default_thread_stack, room_for_thread, StartGate};
use std::fmt;
use std::io;
use std::sync::Arc;

/// How a builder starts its worker threads: the default (`std::thread`) or the closure given to
/// [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler). An implementation
/// detail, as in rayon: this trait cannot be named or implemented outside blitz-par.
pub trait ThreadSpawn {
    /// Starts a thread that calls `thread.run()`.
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()>;

    /// Whether this is a spawn handler the user gave: part of a configuration that keeps
    /// outside callers' work on the pool's threads (see
    /// [`ThreadPoolBuilder::pool_threads_only`](crate::ThreadPoolBuilder::pool_threads_only)).
    fn is_custom(&self) -> bool {
        true
    }
}

/// The default spawn handler: a `std::thread` per worker, with the configured name and stack
/// size, joined when the pool is dropped.
///
/// Not nameable outside blitz-par (nor is rayon's); it is what `ThreadPoolBuilder::new()`
/// uses:
///
/// ```
/// use blitz_par::ThreadPoolBuilder;
/// let builder = ThreadPoolBuilder::new();
/// let pool = builder.num_threads(2).thread_name(|i| format!("worker-{i}")).build().unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("worker-"));
/// ```
#[derive(Debug, Default)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        let mut builder = std::thread::Builder::new();
        if let Some(name) = thread.name() {
            builder = builder.name(name.to_owned());
        }
        if let Some(size) = thread.stack_size() {
            builder = builder.stack_size(size);
        }
        // Under an address-space limit, a thread that starts with too little room left aborts
        // the process (`sync/address_space.rs`); fail the build instead.
        room_for_thread(thread.stack_size().unwrap_or_else(default_thread_stack))?;
        let registry = thread.registry.clone();
        // Under such a limit, the next check waits for what this thread takes as it starts.
        let (gate, opener) = StartGate::new();
        let handle = builder.spawn(move || {
            opener.open();
            thread.run_default()
        })?;
        gate.wait();
        registry.add_thread_handle(handle);
        Ok(())
    }

    fn is_custom(&self) -> bool {
        false
    }
}

/// A spawn handler given to
/// [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler).
///
/// Not nameable outside blitz-par (nor is rayon's); `spawn_handler` returns a builder of it:
///
/// ```
/// use blitz_par::{ThreadBuilder, ThreadPoolBuilder};
/// let builder = ThreadPoolBuilder::new().num_threads(2).spawn_handler(|thread: ThreadBuilder| {
///     std::thread::spawn(move || thread.run());
///     Ok(())
/// });
/// let pool = builder.build().unwrap();
/// assert_eq!(pool.install(|| blitz_par::current_num_threads()), 2);
/// ```
#[derive(Debug)]
pub struct CustomSpawn<F>(pub(super) F);

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        (self.0)(thread)
    }
}

/// One worker of a pool being built, handed to the spawn handler (see
/// [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler)), which must start
/// a thread that calls [`run`](Self::run).
///
/// A `ThreadBuilder` is `Send`, so it can be moved to the thread that will run it. Dropping it
/// without calling `run` leaves its worker seat empty: the pool then has one thread fewer
/// than it reports, and jobs addressed to that worker alone (a broadcast) never run.
///
/// ```
/// let pool = blitz_par::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("w{i}"))
///     .spawn_handler(|thread| {
///         assert_eq!(thread.name(), Some(format!("w{}", thread.index()).as_str()));
///         std::thread::spawn(move || thread.run());
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
/// ```
pub struct ThreadBuilder {
    name: Option<String>,
    stack_size: Option<usize>,
    index: usize,
    /// Without a `name`, a blitz-par thread running it takes the OS name `blitz-par-{index}`
    /// (the global pool's workers: [`run_default`](Self::run_default)).
    #[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
    os_name: bool,
    /// Counted in the registry's live workers from creation until this is dropped (at the
    /// end of `run`, or unrun).
    registry: Arc<Registry>,
}

impl ThreadBuilder {
    pub(crate) fn new(
        registry: Arc<Registry>,
        index: usize,
        name: Option<String>,
        stack_size: Option<usize>,
        os_name: bool,
    ) -> ThreadBuilder {
        registry.worker_handed_out();
        ThreadBuilder {
            name,
            stack_size,
            index,
            os_name,
            registry,
        }
    }

    /// [`run`](Self::run) on a thread that blitz-par started (the default spawn handler, the
    /// global pool's start): first, a global pool's worker with no name of its own takes the
    /// OS thread name `blitz-par-{index}` (`RegistryConfig::os_names`). On Linux an unnamed
    /// thread inherits the name of the thread that started it, which for the global pool is
    /// whichever thread's parallel call started it, or `blitz-par-start`, a thread that has
    /// exited since. Only the kernel's name is set: `std::thread::current().name()` stays
    /// `None`, as on rayon's workers. A spawn handler's threads keep the names it gave.
    pub(crate) fn run_default(self) {
        #[cfg(all(target_os = "linux", not(miri)))]
        if self.os_name && self.name.is_none() {
            // At most 15 bytes and a NUL, the kernel's limit: "blitz-par-65534".
            let name = format!("blitz-par-{}\0", self.index);
            // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes (longer
            // ones are cut), which `name` is and outlives the call; it renames this thread.
            unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
        }
        self.run();
    }

    /// The registry this worker belongs to.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The index of this worker in its pool: what
    /// [`current_thread_index`](crate::current_thread_index) returns on it.
    ///
    /// ```
    /// let mut seen = Vec::new();
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         seen.push(thread.index());
    ///         std::thread::spawn(move || thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(seen, [0, 1]);
    /// # drop(pool);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name [`ThreadPoolBuilder::thread_name`](crate::ThreadPoolBuilder::thread_name) gave this
    /// worker, if any.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("calc-{i}"))
    ///     .spawn_handler(|thread| {
    ///         let name = thread.name().map(str::to_owned);
    ///         assert_eq!(name.as_deref(), Some("calc-0"));
    ///         std::thread::Builder::new().name(name.unwrap()).spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(String::from));
    /// assert_eq!(name.as_deref(), Some("calc-0"));
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size [`ThreadPoolBuilder::stack_size`](crate::ThreadPoolBuilder::stack_size) asked
    /// for, if any.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .stack_size(4 << 20)
    ///     .spawn_handler(|thread| {
    ///         let size = thread.stack_size().unwrap();
    ///         assert_eq!(size, 4 << 20);
    ///         std::thread::Builder::new().stack_size(size).spawn(move || thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.install(|| ());
    /// ```
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs this worker on the calling thread: its start handler, then the work-stealing loop
    /// until the pool is dropped and its work is done, then its exit handler. Returns when the
    /// worker has exited.
    ///
    /// # Panics
    /// If the calling thread already belongs to a pool (it is a worker, or runs parallel work
    /// as a guest of the global pool, or joined a pool with
    /// [`use_current_thread`](crate::ThreadPoolBuilder::use_current_thread)).
    ///
    /// ```
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let pool = blitz_par::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .spawn_handler(move |thread| {
    ///         let tx = tx.clone();
    ///         std::thread::spawn(move || {
    ///             thread.run(); // returns once the pool has been dropped
    ///             tx.send("worker done").unwrap();
    ///         });
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool);
    /// assert_eq!(rx.recv().unwrap(), "worker done");
    /// ```
    pub fn run(self) {
        self.registry.main_loop(self.index);
    }
}

impl Drop for ThreadBuilder {
    fn drop(&mut self) {
        self.registry.worker_exited();
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}
