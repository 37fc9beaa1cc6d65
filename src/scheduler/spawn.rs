//! Fire-and-forget jobs (`spawn`, `spawn_fifo`) and `broadcast`.

use super::global::current_registry;
use super::job::{HeapJob, JobHeader, JobRef};
use super::latch::CountLatch;
use super::registry::{Owner, Registry};
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

/// Spawns a `'static` job on the current pool (the global pool outside any pool) and returns at
/// once.
///
/// A panic in the job goes to the pool's panic handler, or aborts the process when there
/// is none (the global pool has none unless built with one).
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// blitz_par::spawn(move || tx.send(42).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in(&current_registry(), func, false)
}

/// Like [`spawn`]; jobs spawned with `spawn_fifo` start in spawn order.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// blitz_par::spawn_fifo(move || tx.send(1).unwrap());
/// assert_eq!(rx.recv().unwrap(), 1);
/// ```
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in(&current_registry(), func, true)
}

pub(crate) fn spawn_in<F>(registry: &Arc<Registry>, func: F, fifo: bool)
where
    F: FnOnce() + Send + 'static,
{
    // The job keeps the pool alive (and its workers running) until it has finished.
    registry.increment_terminate_count();
    let r = registry.clone();
    let job = HeapJob::into_job_ref(move || {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(func)) {
            r.handle_panic(payload);
        }
        r.terminate();
    });
    if fifo {
        registry.inject(job);
    } else {
        // A worker's own deque (LIFO, cheap); not a guest's, which may leave before the job
        // runs.
        let local_ok = Owner::with_current(|owner| {
            registry.owns(owner) && owner.is_some_and(|owner| owner.seat().is_worker())
        });
        registry.push_spawned(job, local_ok);
    }
}

/// Runs `op` once on every thread of the current pool (the global pool outside any pool),
/// without waiting.
///
/// Each call is a spawned job for one thread, as with [`spawn`]: a panic goes to the pool's
/// panic handler, or aborts when there is none.
///
/// ```
/// use std::sync::mpsc::channel;
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let (tx, rx) = channel();
/// let tx = std::sync::Mutex::new(tx);
/// pool.install(|| blitz_par::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap()));
/// let mut seen: Vec<usize> = rx.iter().take(3).collect();
/// seen.sort();
/// assert_eq!(seen, [0, 1, 2]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    spawn_broadcast_in(&current_registry(), op)
}

/// One heap job per worker of `registry`, each in that worker's own inbox (as `broadcast`
/// posts its jobs), each holding the pool alive until it has run (as `spawn`'s job does).
pub(crate) fn spawn_broadcast_in<OP>(registry: &Arc<Registry>, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let op = Arc::new(op);
    let n = registry.num_threads();
    for index in 0..n {
        registry.increment_terminate_count();
        let (r, op) = (registry.clone(), op.clone());
        let job = HeapJob::into_job_ref(move || {
            let ctx = BroadcastContext {
                index,
                num_threads: n,
                _marker: PhantomData,
            };
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| op(ctx))) {
                r.handle_panic(payload);
            }
            r.terminate();
            let_other_broadcast_jobs_run(n);
        });
        registry.inject_to(index, job);
    }
}

/// Called by a worker right after its part of a broadcast: yields its core once, so that
/// another worker woken for the same broadcast can run there.
///
/// A broadcast wakes every worker at once, and the kernel may queue two of them on the same
/// core (the others being busy, with the caller say). Each job can only run on its own
/// worker, so the second waits until the first stops running; and a worker that finds no
/// more work spins for a while before it yields. Measured on the 2-core VM, a broadcast's
/// second job started about 20 us after the first; with this yield, 1.5 us after it.
pub(super) fn let_other_broadcast_jobs_run(num_threads: usize) {
    if num_threads > 1 {
        std::thread::yield_now();
    }
}

/// What a [`broadcast`] closure learns about where it runs.
///
/// ```
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
/// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
/// ```
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    _marker: PhantomData<&'a ()>,
}

impl BroadcastContext<'_> {
    pub(super) fn new(index: usize, num_threads: usize) -> Self {
        BroadcastContext {
            index,
            num_threads,
            _marker: PhantomData,
        }
    }

    /// The index of the thread running this call, in `0..num_threads()`.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let same = pool.broadcast(|ctx| Some(ctx.index()) == blitz_par::current_thread_index());
    /// assert_eq!(same, [true, true]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of threads in the pool (and of calls of the broadcast closure).
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.num_threads()), [4; 4]);
    /// ```
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Runs `op` once on every thread of the current pool (the global pool outside any pool) and
/// returns the results in thread order. Each call runs on its own thread.
///
/// ```
/// let indices = blitz_par::broadcast(|ctx| ctx.index());
/// assert_eq!(indices, (0..blitz_par::current_num_threads()).collect::<Vec<_>>());
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    broadcast_in(&current_registry(), op)
}

#[repr(C)]
struct BroadcastJob<'a, OP, R> {
    header: JobHeader,
    op: &'a OP,
    index: usize,
    num_threads: usize,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
    latch: *const CountLatch,
}

impl<OP, R> BroadcastJob<'_, OP, R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    /// # Safety
    /// `header` heads a live BroadcastJob, executed once; its latch outlives the call.
    unsafe fn execute(header: NonNull<JobHeader>) {
        let this = header.as_ptr() as *const Self;
        // SAFETY: alive and executed once, by contract; the latch is decremented last.
        unsafe {
            let ctx = BroadcastContext {
                index: (*this).index,
                num_threads: (*this).num_threads,
                _marker: PhantomData,
            };
            let op = (*this).op;
            *(*this).result.get() = Some(catch_unwind(AssertUnwindSafe(|| op(ctx))));
            let num_threads = (*this).num_threads;
            CountLatch::decrement((*this).latch);
            let_other_broadcast_jobs_run(num_threads);
        }
    }
}

pub(crate) fn broadcast_in<OP, R>(registry: &Registry, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    // The caller hands a job to each worker's inbox itself, from wherever it runs: a worker
    // or guest of any pool waits in its seat (running its own pool's jobs), a thread outside
    // every pool blocks. Going through `install` first would put one more wake-up (a worker
    // woken to do the handing out) before the workers' own.
    Owner::with_current(|owner| match owner {
        None => {
            let latch = CountLatch::new_blocking();
            broadcast_with(registry, &op, &latch, || latch.wait_blocking())
        }
        Some(owner) => {
            let latch = CountLatch::new(&owner.seat().sleep_word);
            broadcast_with(registry, &op, &latch, || {
                owner.wait_until(latch.seat_latch())
            })
        }
    })
}

/// Runs `op` on each worker of `registry` through `latch` (holding the caller's count) and
/// `wait`, which returns once the latch is set.
fn broadcast_with<OP, R>(
    registry: &Registry,
    op: &OP,
    latch: &CountLatch,
    wait: impl FnOnce(),
) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = registry.num_threads();
    let jobs: Vec<BroadcastJob<'_, OP, R>> = (0..n)
        .map(|index| {
            latch.increment();
            BroadcastJob {
                header: JobHeader {
                    execute: BroadcastJob::<OP, R>::execute,
                },
                op,
                index,
                num_threads: n,
                result: UnsafeCell::new(None),
                latch,
            }
        })
        .collect();
    for (index, job) in jobs.iter().enumerate() {
        // SAFETY: the jobs live in `jobs` until the latch is set below.
        registry.inject_to(index, unsafe {
            JobRef::new(job as *const BroadcastJob<'_, OP, R> as *const JobHeader)
        });
    }
    // SAFETY: our own count; the latch outlives the wait.
    unsafe { CountLatch::decrement(latch) };
    wait();
    let mut results = Vec::with_capacity(n);
    let mut panic = None;
    for job in jobs {
        match job.result.into_inner().expect("broadcast job ran") {
            Ok(r) => results.push(r),
            Err(p) => {
                panic.get_or_insert(p);
            }
        }
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
    results
}
