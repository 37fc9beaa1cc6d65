//! `spawn_future`: runs a closure on a pool's thread and hands its result to async code.
//!
//! The closure, its [`FutureSlot`] and the pool's registry live in one allocation, a `Task`,
//! which is also the job: the pool's injector holds one strong count of the task's `Arc` (as
//! the job's pointer), the returned [`SpawnFuture`] the other. No lock is taken on either
//! side; the slot's protocol and its races are in `future_slot.rs`.
//!
//! Where the closure runs: only on a thread that runs the pool's worker main loop. The job
//! goes to the pool's injector, never to the calling thread's deque and never through the
//! guest path (which runs parallel work on the calling thread). A thread that takes it out of
//! the injector without being one of those (a guest of the global pool, or the thread that
//! built a pool with `use_current_thread`, which both look at the injector while they wait
//! inside a parallel call of their own) passes it on to the inbox of a pool thread, which
//! only that thread reads. An async executor's thread is never a pool thread, so the closure
//! never runs on the thread that called `spawn_future` or polls the future there. A pool with
//! no such thread (one thread, `use_current_thread`) cannot run it: for the global pool a
//! thread is started for the task; any other pool panics at `spawn_future`, rather than
//! return a future that never completes.

use super::future_slot::{Cancel, FutureSlot};
use super::global::{current_registry, GLOBAL};
use super::job::{JobHeader, JobRef};
use super::pool::ThreadPool;
use super::registry::{Owner, Registry};
use crate::sync::{yield_now, UnsafeCell};
use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Runs `f` on a thread of the current pool (the global pool outside any pool) and returns
/// at once a future of its result, for async code that must not block its executor's thread.
///
/// A parallel iterator, `join` or sort called directly inside an async task runs on the
/// executor's thread, and blocks it until the whole computation is done: no other task of
/// that thread makes progress meanwhile (called outside every pool, blitz-par even runs part
/// of the work on the calling thread itself). `spawn_future` moves the work off that thread:
///
/// - **What runs where.** `f` runs on one of the pool's worker threads, never on the thread
///   that called `spawn_future` or the one that polls the future. Parallel work inside `f`
///   (iterators, joins, scopes, sorts) uses that pool. Awaiting the future blocks nothing:
///   the task is woken when `f` returns, with no lock taken on the way.
/// - **Cancellation.** Dropping the future before it completes cancels the work. If `f` has
///   not started, it never runs, and its captures are dropped once, by the drop. If it is
///   running, the parallel iterators, joins and scopes inside it stop at their next chunk or
///   split, on every thread that runs a part of them: parts not started never run, and the
///   rest unwind (privately: no panic message, nothing reaches a panic handler), each join
///   and scope still waiting for the parts that borrow its stack. Code of `f` between
///   parallel calls is not interrupted, and a parallel call that is past its last split
///   check (its last few chunks) finishes. Whatever `f` returns is dropped. To let the work
///   finish without awaiting it, call [`SpawnFuture::detach`]. Checking for a cancel costs
///   uncancellable work nothing: the check sits on the slow path of the split checks, which
///   a cancel forces every thread of the pool through once.
/// - **Panics.** A panic in `f` is caught on the pool's thread and re-raised where the future
///   is awaited, with its payload (through `resume_unwind`: the panic hook ran once, where
///   `f` panicked). It never reaches the pool's panic handler, and the pool keeps working.
///   After `detach`, it goes to the pool's panic handler if it has one, else it is dropped.
///
/// The future is `Send`, so a multi-threaded executor may move the awaiting task between its
/// threads. Like any work of the pool, `f` holds one of its threads until it returns: an `f`
/// that blocks (on I/O, a lock, a channel) takes a thread from parallel work, and one that
/// waits for another `spawn_future` of the same pool may wait forever on a pool of one
/// thread. The pool stays alive, like after [`spawn`](crate::spawn), until `f` has run.
///
/// # Panics
///
/// If the current pool has no thread that could run `f` besides the calling one: a pool of
/// one thread built with [`use_current_thread`](crate::ThreadPoolBuilder::use_current_thread),
/// whose only thread runs the pool's work while it waits inside the pool. (The global pool in
/// that configuration starts a thread for `f` instead, and panics only if it cannot.)
///
/// ```
/// use blitz_par::prelude::*;
///
/// async fn checksum(data: Vec<u64>) -> u64 {
///     // Not `data.par_iter().sum()` here: that would hold the executor's thread.
///     blitz_par::spawn_future(move || data.par_iter().map(|x| x ^ (x >> 3)).sum()).await
/// }
///
/// let data: Vec<u64> = (0..100_000).collect();
/// let expected: u64 = data.iter().map(|x| x ^ (x >> 3)).sum();
/// assert_eq!(futures::executor::block_on(checksum(data)), expected);
/// ```
///
/// A panic in `f` reaches the awaiting code:
///
/// ```
/// use futures::FutureExt; // catch_unwind
///
/// let result = futures::executor::block_on(async {
///     let future = blitz_par::spawn_future(|| -> u32 { panic!("bad input") });
///     std::panic::AssertUnwindSafe(future).catch_unwind().await
/// });
/// let payload = result.unwrap_err();
/// assert_eq!(payload.downcast_ref::<&str>(), Some(&"bad input"));
/// ```
pub fn spawn_future<F, R>(f: F) -> SpawnFuture<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_future_in(current_registry(), f)
}

impl ThreadPool {
    /// [`spawn_future`](crate::spawn_future) on this pool: `f` runs on one of this pool's
    /// threads, parallel work inside it uses this pool, and the returned future yields its
    /// result. Dropping the future cancels `f` if it has not started (see
    /// [`spawn_future`](crate::spawn_future) for what blocks, what cancels and where panics
    /// go).
    ///
    /// # Panics
    ///
    /// If the pool has no thread besides the one that built it: one thread and
    /// [`use_current_thread`](crate::ThreadPoolBuilder::use_current_thread).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    ///
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let future = pool.spawn_future(|| {
    ///     let mut v: Vec<u32> = (0..10_000).rev().collect();
    ///     v.par_sort_unstable();
    ///     (v[0], blitz_par::current_num_threads())
    /// });
    /// assert_eq!(futures::executor::block_on(future), (0, 2));
    /// ```
    pub fn spawn_future<F, R>(&self, f: F) -> SpawnFuture<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_future_in(self.registry.clone(), f)
    }
}

/// The future of a closure's result, returned by [`spawn_future`] and
/// [`ThreadPool::spawn_future`].
///
/// Awaiting it yields the closure's return value, or resumes the closure's panic. Dropping it
/// before it is ready cancels the closure: it never starts, or the parallel work inside it
/// stops at its next split check (see [`spawn_future`]); [`detach`](Self::detach) lets the
/// closure run to its end instead. It is `Send` and `Unpin`.
///
/// ```
/// let future = blitz_par::spawn_future(|| 6 * 7);
/// assert_eq!(futures::executor::block_on(future), 42);
/// ```
#[must_use = "dropping a `SpawnFuture` cancels its closure if it has not started; use `.detach()` to let it run"]
pub struct SpawnFuture<R> {
    /// The task, until the result was returned or the future let go (`detach`, drop).
    task: Option<Arc<dyn Awaited<R>>>,
}

impl<R> SpawnFuture<R> {
    /// Lets the closure run to its end without awaiting it: dropping the future no longer
    /// cancels it. Its result is dropped on the pool's thread; a panic goes to the pool's
    /// panic handler if the pool has one (see
    /// [`ThreadPoolBuilder::panic_handler`](crate::ThreadPoolBuilder::panic_handler)), else it
    /// is dropped (the panic hook has already reported it, where it happened).
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// blitz_par::spawn_future(move || tx.send(1).unwrap()).detach();
    /// assert_eq!(rx.recv().unwrap(), 1);
    /// ```
    pub fn detach(mut self) {
        if let Some(task) = self.task.take() {
            // SAFETY: this future is the task's one awaiter, and lets go of it here.
            if let Some(result) = unsafe { task.slot().detach() } {
                dispose_unawaited(task.registry(), result);
            }
        }
    }

    /// Whether the closure has returned (or panicked), so that awaiting the future would not
    /// wait. Also true once the future has yielded its result.
    ///
    /// ```
    /// let future = blitz_par::spawn_future(|| 1);
    /// while !future.is_finished() {
    ///     std::thread::yield_now();
    /// }
    /// assert_eq!(futures::executor::block_on(future), 1);
    /// ```
    pub fn is_finished(&self) -> bool {
        self.task
            .as_ref()
            .is_none_or(|task| task.slot().is_complete())
    }
}

impl<R> Future for SpawnFuture<R> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
        let task = self
            .task
            .as_ref()
            .expect("`SpawnFuture` polled after it returned its result");
        // SAFETY: this future is the task's one awaiter: it polls through `&mut self`, and
        // after `Ready` (below), a drop or `detach` it no longer holds the task.
        let result = match unsafe { task.slot().poll(cx.waker()) } {
            Poll::Ready(result) => result,
            Poll::Pending => return Poll::Pending,
        };
        self.task = None;
        match result {
            Ok(value) => Poll::Ready(value),
            Err(payload) => resume_unwind(payload),
        }
    }
}

impl<R> Drop for SpawnFuture<R> {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            // SAFETY: this future is the task's one awaiter, and lets go of it here.
            match unsafe { task.slot().cancel() } {
                Cancel::NotStarted => {
                    trace_event!(FutureCancel, Arc::as_ptr(&task).cast::<u8>());
                    // SAFETY: `cancel` found the closure unclaimed: it is ours.
                    unsafe { task.drop_closure() }
                }
                // Make every thread of the pool look at its token at its next split check.
                Cancel::Running => task.registry().interrupt(),
                Cancel::Complete => {}
            }
        }
    }
}

impl<R> fmt::Debug for SpawnFuture<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpawnFuture")
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
    }
}

/// A task as its [`SpawnFuture`] sees it: everything but the closure's type.
trait Awaited<R>: Send + Sync {
    fn slot(&self) -> &FutureSlot<R>;

    fn registry(&self) -> &Registry;

    /// Drops the closure, unrun.
    ///
    /// # Safety
    /// The slot's `cancel` returned `NotStarted` to the caller: the closure is the caller's.
    unsafe fn drop_closure(&self);
}

/// The job: a closure, the slot for its result and the pool it runs in. `repr(C)` with the
/// header first, so that a pointer to the task is a pointer to its job header.
#[repr(C)]
struct Task<F, R> {
    header: JobHeader,
    slot: FutureSlot<R>,
    /// The closure until someone claims it through the slot (`start`, or a `cancel` that
    /// returned `NotStarted`): only the claimant touches it.
    func: UnsafeCell<Option<F>>,
    registry: Arc<Registry>,
}

// SAFETY: `func` is touched by one claimant only (the slot's STARTED/CANCELLED bits decide
// which), and it is `Send`; the slot is Sync for `R: Send`; the registry is shared anyway.
unsafe impl<F: Send, R: Send> Sync for Task<F, R> {}

impl<F, R> Awaited<R> for Task<F, R>
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    fn slot(&self) -> &FutureSlot<R> {
        &self.slot
    }

    fn registry(&self) -> &Registry {
        &self.registry
    }

    unsafe fn drop_closure(&self) {
        // SAFETY: the closure is the caller's, by contract.
        drop(self.func.with_mut(|func| unsafe { (*func).take() }));
    }
}

impl<F, R> Task<F, R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    /// The job's reference to this task, holding one strong count.
    fn into_job_ref(self: Arc<Self>) -> JobRef {
        // SAFETY: `Arc::into_raw` points to the task, whose first field (repr(C)) is the job
        // header; the strong count it carries keeps the task alive until `execute` takes it
        // back, which happens once (whoever takes a JobRef out of a queue executes it once).
        unsafe { JobRef::new(Arc::into_raw(self).cast::<JobHeader>()) }
    }

    /// # Safety
    /// `header` came from `into_job_ref` of a `Task<F, R>`, and is executed once.
    unsafe fn execute(header: NonNull<JobHeader>) {
        // SAFETY: by contract, the pointer and the strong count of `into_job_ref`.
        let task = unsafe { Arc::from_raw(header.as_ptr().cast_const().cast::<Task<F, R>>()) };
        if !task.registry.current_runs_main_loop() {
            // A guest, or a `use_current_thread` builder, found the job in the injector while
            // it waited inside a parallel call: the closure must not run on that thread.
            return task.pass_on();
        }
        task.run();
    }

    /// Hands the job to the inbox of one of the pool's threads (round robin), which only
    /// that thread takes jobs from.
    #[cold]
    fn pass_on(self: Arc<Self>) {
        thread_local!(static NEXT: Cell<usize> = const { Cell::new(0) });
        let threads = self.registry.main_loop_workers();
        let turn = NEXT.with(|next| next.replace(next.get().wrapping_add(1)));
        let index = threads.start + turn % threads.len();
        let registry = self.registry.clone();
        registry.inject_to(index, self.into_job_ref());
    }

    /// Runs the closure unless the future was dropped first, completes the slot (waking the
    /// awaiter), and lets the pool terminate if this was the last thing keeping it.
    fn run(self: Arc<Self>) {
        if self.slot.start() {
            // SAFETY: `start` gave the closure to the job.
            let func = self
                .func
                .with_mut(|func| unsafe { (*func).take() })
                .expect("the closure is there until claimed");
            let token = self.slot.cancel_token();
            // The closure's parallel work carries the task's token (`future_slot.rs`,
            // "Cancelling running work"); once cancelled, it unwinds with `Cancelled` to here,
            // and that result, like any other, goes to a slot whose awaiter is gone.
            let result = Owner::with_current(|owner| match owner {
                // SAFETY: `self` keeps the slot alive until after the call.
                Some(owner) => unsafe {
                    owner.with_cancel_token(token, || catch_unwind(AssertUnwindSafe(func)))
                },
                // A thread started for the task (`run_on_own_thread`): its parallel work
                // enters the global pool as a guest, which does not carry the token.
                None => catch_unwind(AssertUnwindSafe(func)),
            });
            let completed = self.slot.complete(result);
            if let Some(unawaited) = completed.unawaited {
                dispose_unawaited(&self.registry, unawaited);
            }
            if completed.woke {
                // The awaiter's thread (an executor's, outside the pool) was woken and needs a
                // core: yield this one once unless more tasks wait, and let this thread go to
                // sleep early if another worker is awake for the next job (README, "Sleep and
                // wake": with every core held by idle pool threads, a loop of round trips
                // took 20 us a call on 2 cores, most of it the executor waiting for a core).
                self.registry.sleep.outside_woken();
                if self.registry.injector.is_empty() {
                    yield_now();
                }
            }
        }
        self.registry.terminate();
    }
}

/// Posts `f` as a job on `registry`'s pool; see the module docs.
pub(crate) fn spawn_future_in<F, R>(registry: Arc<Registry>, f: F) -> SpawnFuture<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let no_worker = registry.main_loop_workers().is_empty();
    let global = GLOBAL.get().is_some_and(|g| Arc::ptr_eq(g, &registry));
    if no_worker && !global {
        drop(f);
        panic!(
            "blitz-par: spawn_future on a pool whose only thread is the one that built it \
             (`use_current_thread` with one thread): no thread could run the work without \
             blocking its caller"
        );
    }
    let (task, future) = new_task(registry, f);
    if no_worker {
        run_on_own_thread(task);
    } else {
        let registry = task.registry.clone();
        let job = task.into_job_ref();
        trace_event!(FutureHandOver, job.as_ptr());
        registry.inject(job);
    }
    future
}

/// A task for `f` and its future. The task holds one count of the pool's termination (the
/// job keeps the workers running until it has run, as a spawned job does), which its `run`
/// gives back.
fn new_task<F, R>(registry: Arc<Registry>, f: F) -> (Arc<Task<F, R>>, SpawnFuture<R>)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    registry.increment_terminate_count();
    let task = Arc::new(Task {
        header: JobHeader {
            execute: Task::<F, R>::execute,
        },
        slot: FutureSlot::new(),
        func: UnsafeCell::new(Some(f)),
        registry,
    });
    let future = SpawnFuture {
        task: Some(task.clone()),
    };
    (task, future)
}

/// The global pool has no thread of its own that could run the task (it was built with
/// `use_current_thread` and one thread): run it on a thread started for it, outside every
/// pool, so that parallel work inside it runs as it would from any outside thread.
#[cold]
fn run_on_own_thread<F, R>(task: Arc<Task<F, R>>)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let spawned = std::thread::Builder::new()
        .name("blitz-par-future".into())
        .spawn({
            let task = task.clone();
            move || task.run()
        });
    if let Err(e) = spawned {
        // The thread's closure, and its count of the task, are gone; the future's count keeps
        // the task, which the drop of the panic's unwinding cancels (the closure unrun).
        task.registry.terminate();
        panic!("blitz-par: spawn_future could not start a thread for work the global pool has no thread for: {e}");
    }
}

/// The result of a closure nobody will await (detached): a panic goes to the pool's panic
/// handler if it has one; without one it is dropped rather than abort the process (the panic
/// hook reported it where it happened).
fn dispose_unawaited<R>(registry: &Registry, result: std::thread::Result<R>) {
    if let Err(payload) = result {
        if registry.has_panic_handler() {
            registry.handle_panic(payload);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    //! Unit tests of the future against a small pool; Miri runs them (`.ci/run`).

    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc::channel;
    use std::task::{Wake, Waker};

    /// Counts the captures of a closure that are dropped.
    struct DropCount(Arc<AtomicUsize>);

    impl Drop for DropCount {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    struct Flag(AtomicBool);

    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn round_trip_on_a_pool_thread() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let here = std::thread::current().id();
        let future = pool.spawn_future(move || {
            assert_ne!(std::thread::current().id(), here);
            (
                crate::current_thread_index().is_some(),
                crate::join(|| 1, || 2),
            )
        });
        assert_eq!(futures::executor::block_on(future), (true, (1, 2)));
    }

    #[test]
    fn panic_reaches_the_awaiter_with_its_payload_and_the_pool_keeps_working() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let future = pool.spawn_future(|| -> u8 { std::panic::panic_any(17u32) });
        let payload = catch_unwind(AssertUnwindSafe(|| futures::executor::block_on(future)))
            .expect_err("the panic is re-raised at the await");
        assert_eq!(payload.downcast_ref::<u32>(), Some(&17));
        assert_eq!(futures::executor::block_on(pool.spawn_future(|| 5)), 5);
    }

    #[test]
    fn dropped_before_start_never_runs_and_drops_its_captures_once() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        // Hold the only thread until the second future is dropped.
        let (release, hold) = channel::<()>();
        let busy = pool.spawn_future(move || hold.recv().unwrap());
        let drops = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicBool::new(false));
        let capture = DropCount(drops.clone());
        let ran2 = ran.clone();
        let cancelled = pool.spawn_future(move || {
            let _capture = &capture;
            ran2.store(true, Ordering::SeqCst);
        });
        drop(cancelled);
        assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped by the drop");
        release.send(()).unwrap();
        futures::executor::block_on(busy);
        // The cancelled job has been taken by now or will be; either way it never runs.
        futures::executor::block_on(pool.spawn_future(|| ()));
        drop(pool);
        assert!(!ran.load(Ordering::SeqCst));
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn detached_work_runs_to_its_end() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (tx, rx) = channel();
        pool.spawn_future(move || tx.send(crate::join(|| 3, || 4)).unwrap())
            .detach();
        assert_eq!(rx.recv().unwrap(), (3, 4));
    }

    #[test]
    fn detached_panic_goes_to_the_panic_handler() {
        let (tx, rx) = channel();
        let tx = std::sync::Mutex::new(tx);
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .panic_handler(move |payload| {
                let value = *payload.downcast_ref::<u32>().unwrap();
                tx.lock().unwrap().send(value).unwrap();
            })
            .build()
            .unwrap();
        pool.spawn_future(|| std::panic::panic_any(9u32)).detach();
        assert_eq!(rx.recv().unwrap(), 9);
    }

    #[test]
    fn a_waker_registered_by_another_task_is_the_one_woken() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (release, hold) = channel::<()>();
        let mut future = pool.spawn_future(move || {
            hold.recv().unwrap();
            8
        });
        let first = Arc::new(Flag(AtomicBool::new(false)));
        let second = Arc::new(Flag(AtomicBool::new(false)));
        let poll = |future: &mut SpawnFuture<i32>, flag: &Arc<Flag>| {
            let waker = Waker::from(flag.clone());
            Pin::new(future).poll(&mut Context::from_waker(&waker))
        };
        assert!(poll(&mut future, &first).is_pending());
        assert!(poll(&mut future, &second).is_pending());
        release.send(()).unwrap();
        while !second.0.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        assert!(future.is_finished());
        assert!(!first.0.load(Ordering::SeqCst), "the first task moved on");
        assert_eq!(poll(&mut future, &second), Poll::Ready(8));
        assert!(future.is_finished());
    }

    #[test]
    fn a_pool_of_only_its_builder_refuses_instead_of_hanging() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .unwrap();
        let drops = Arc::new(AtomicUsize::new(0));
        let capture = DropCount(drops.clone());
        let refused = catch_unwind(AssertUnwindSafe(|| {
            pool.spawn_future(move || drop(capture)).detach()
        }));
        assert!(refused.is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        drop(pool);
    }

    #[test]
    fn a_thread_outside_the_pool_passes_the_job_on() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let here = std::thread::current().id();
        let (task, future) = new_task(pool.registry.clone(), move || {
            (
                std::thread::current().id() != here,
                crate::current_thread_index(),
            )
        });
        // As a guest that popped the job from the injector would.
        // SAFETY: a fresh job reference, executed once.
        unsafe { task.into_job_ref().execute() };
        assert_eq!(futures::executor::block_on(future), (true, Some(0)));
    }

    #[test]
    fn with_use_current_thread_the_work_runs_on_another_pool_thread() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build()
            .unwrap();
        let here = std::thread::current().id();
        // The builder thread takes jobs from the injector while it waits inside the pool: it
        // must pass this one on.
        let future = pool.spawn_future(move || std::thread::current().id() != here);
        let (a, b) = pool.join(|| 1, || 2);
        assert_eq!((a, b), (1, 2));
        assert!(futures::executor::block_on(future));
        drop(pool);
    }
}
