//! The life of a registry: building it and handing its workers to the spawn handler, the
//! worker main loop, termination and waiting for the workers to exit, and the calling thread
//! taking seat 0 (`use_current_thread`). See `../README.md`, "Termination".

use super::seat::{Local, LocalCell};
use super::{has_seat, Owner, PanicHandler, Registry, Seat, ThreadHandler, CURRENT, GUEST_SEATS};
use super::{Injector, Sleep};
use crate::scheduler::deque::Deque;
use crate::scheduler::latch::CoreLatch;
use crate::scheduler::sleep::SleepWord;
use crate::scheduler::thread::{ThreadBuilder, ThreadSpawn};
use crate::sync::{
    default_thread_stack, futex, room_for_thread, AtomicBool, AtomicU32, AtomicU64, AtomicUsize,
    CachePadded, Mutex, Ordering, StartGate,
};
use std::cell::RefCell;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The most worker threads a pool can have: the sleep protocol counts workers in 16 bits
/// (`sleep.rs`). A larger `num_threads` is clamped to this, as rayon clamps to its own
/// maximum.
pub(crate) const MAX_NUM_THREADS: usize = 0xFFFF;

thread_local! {
    /// The registry whose seat 0 the calling thread took with `use_current_thread`, and the
    /// registries it left while something on its stack could still refer to their seat 0.
    static ATTACHED: RefCell<Attachment> = const {
        RefCell::new(Attachment {
            registry: None,
            retired: Vec::new(),
        })
    };
}

/// What keeps a registry alive for a thread that joined it with `use_current_thread`: that
/// thread's `CURRENT` points into the registry, so it must not be freed before the thread
/// leaves it (when the pool is dropped on that thread) or exits.
struct Attachment {
    registry: Option<Arc<Registry>>,
    /// Registries left by a drop from inside a parallel operation on this thread: the outer
    /// frames still use seat 0, so these are freed only when the thread exits.
    retired: Vec<Arc<Registry>>,
}

impl Drop for Attachment {
    fn drop(&mut self) {
        // The thread is exiting while still worker 0 of a pool: leave it before the registry
        // can be freed. (`CURRENT` has no destructor, so it is still accessible here.)
        if self.registry.is_some() {
            let _ = CURRENT.try_with(|c| c.set(std::ptr::null()));
        }
    }
}

/// Handlers and settings a registry is built with (from `ThreadPoolBuilder`).
#[derive(Default)]
pub(crate) struct RegistryConfig {
    pub(crate) num_threads: usize,
    pub(crate) guest_seats: usize,
    /// Seat 0 is left for the building thread (`use_current_thread`): no thread is spawned
    /// for it.
    pub(crate) use_current_thread: bool,
    pub(crate) thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    /// The global pool's: a worker that blitz-par starts without a `thread_name` takes the
    /// OS thread name `blitz-par-{index}` (Linux: otherwise it would show the name of the
    /// thread that started it, `blitz-par-start` for a pool started by a watch). Its std
    /// name stays unset, as rayon's is (`ThreadBuilder::run_default`).
    pub(crate) os_names: bool,
    pub(crate) stack_size: Option<usize>,
    /// Every reduction in the pool follows the fixed tree (`ThreadPoolBuilder::deterministic`).
    pub(crate) deterministic: bool,
    /// The pool was sized by a CPU count of one, no thread count chosen (the global pool on a
    /// machine or container with one CPU): every seat shares that CPU, so no seat records a
    /// join frame, as on the only seat (`README.md`, "The only seat"). Guests still run their
    /// work in place, without the hop to the worker that a pool without guest seats makes.
    pub(crate) one_cpu: bool,
    pub(crate) start_handler: Option<ThreadHandler>,
    pub(crate) exit_handler: Option<ThreadHandler>,
    pub(crate) panic_handler: Option<PanicHandler>,
}

/// Spawning a worker thread failed.
#[derive(Debug)]
pub(crate) struct SpawnError(pub(crate) std::io::Error);

/// The spawn handler of `Registry::start_lenient`: hands each worker to a thread started
/// beforehand, which waits for it, and keeps that thread's join handle.
struct HandOver(std::vec::IntoIter<(SyncSender<ThreadBuilder>, JoinHandle<()>)>);

impl ThreadSpawn for HandOver {
    fn spawn(&mut self, thread: ThreadBuilder) -> std::io::Result<()> {
        let (hand, handle) = self
            .0
            .next()
            .ok_or_else(|| std::io::Error::other("no thread left"))?;
        let registry = thread.registry().clone();
        hand.send(thread)
            .map_err(|_| std::io::Error::other("a waiting thread exited"))?;
        registry.add_thread_handle(handle);
        Ok(())
    }
}

impl Registry {
    /// Builds the registry and hands its worker threads to `spawn` (all but seat 0 when
    /// `config.use_current_thread`: the caller then attaches itself with
    /// [`attach_current_thread`](Self::attach_current_thread)). If `spawn` fails, or it or
    /// the thread-name callback panics, the workers already handed out are told to exit and
    /// waited for (and the panic goes on to the caller).
    pub(crate) fn new<S: ThreadSpawn>(
        mut config: RegistryConfig,
        spawn: &mut S,
    ) -> Result<Arc<Registry>, SpawnError> {
        let n = config.num_threads;
        let guests = config.guest_seats.min(64);
        // The sleep counters hold worker counts in 16 bits (sleep.rs): `max_num_threads`. A
        // pool without workers (`start_lenient`) needs guest seats: its callers run its work.
        debug_assert!(n <= MAX_NUM_THREADS && (n > 0 || guests > 0));
        #[cfg(not(loom))]
        super::super::watch::pool_started(n);
        trace_event!(@pool_built);
        let registry = Arc::new_cyclic(|weak| {
            let ptr = weak.as_ptr();
            let seats = (0..n + guests)
                .map(|index| Seat {
                    deque: Deque::new(),
                    split_request: CachePadded(AtomicBool::new(false)),
                    sleep_word: CachePadded(SleepWord::new()),
                    local: CachePadded(LocalCell::new(Local::new(
                        0x9E37_79B9_7F4A_7C15u64.wrapping_mul(index as u64 + 1),
                        n + guests == 1 || config.one_cpu,
                    ))),
                    terminate: CoreLatch::new(),
                    inbox: Injector::new(if index < n { 16 } else { 2 }),
                    registry: ptr,
                    index,
                    #[cfg(all(debug_assertions, not(loom)))]
                    stall: crate::scheduler::stall::SeatStall::new(),
                })
                .collect();
            Registry {
                seats,
                num_workers: n,
                first_main_loop_worker: usize::from(config.use_current_thread),
                guest_mask: AtomicU64::new(0),
                active_guests: AtomicUsize::new(0),
                injector: Injector::new(1024),
                sleep: Sleep::new(),
                terminate_count: AtomicUsize::new(1),
                live_workers: AtomicU32::new(0),
                handles: Mutex::new(Vec::new()),
                start_handler: config.start_handler.take(),
                exit_handler: config.exit_handler.take(),
                panic_handler: config.panic_handler.take(),
                deterministic: config.deterministic,
            }
        });
        // Before its workers start: from here on a deep sleep's end nudges them
        // (`watch::pool_registered`); a pool without workers has nobody to nudge.
        #[cfg(all(target_os = "linux", not(loom), not(miri)))]
        if n > 0 {
            super::super::watch::pool_registered(&registry);
        }
        // If naming or spawning a worker fails or panics, the workers already handed out are
        // told to exit and waited for, so that none is left running for a pool nobody holds.
        struct StopOnUnwind<'a>(&'a Registry);
        impl Drop for StopOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.terminate();
                self.0.wait_for_workers();
            }
        }
        let stop = StopOnUnwind(&registry);
        for index in usize::from(config.use_current_thread)..n {
            let name = config.thread_name.as_mut().map(|name| name(index));
            let thread = ThreadBuilder::new(
                registry.clone(),
                index,
                name,
                config.stack_size,
                config.os_names,
            );
            if let Err(e) = spawn.spawn(thread) {
                drop(stop);
                return Err(SpawnError(e));
            }
        }
        std::mem::forget(stop);
        #[cfg(all(debug_assertions, not(loom)))]
        crate::scheduler::stall::register(&registry);
        Ok(registry)
    }

    /// A registry of `config.num_threads` workers, or of as many as the system lets start,
    /// down to none: for the global pool started by the first parallel call, which nobody can
    /// ask to handle an error. (`ThreadPoolBuilder::build` and `build_global` return the error
    /// instead, as rayon's do.) `what` names the pool in the message.
    ///
    /// The threads are started first, each waiting for its worker, and the registry is made
    /// for those that started, so that its seats, sleep counts and broadcasts know only
    /// threads that exist. If a start fails (a limit on threads, on address space for their
    /// stacks, or on processes), an eighth of the threads started so far exit again: a limit
    /// reached by this pool would otherwise leave nothing for the rest of the program (under
    /// an address-space limit, not even a large allocation). The pool says once on stderr how
    /// many threads it runs with and why. With none, the threads that start parallel work run
    /// all of it as guests, and the work handed to workers elsewhere (spawns, broadcasts) runs
    /// on the thread that hands it over (`Registry::inject`).
    ///
    /// Only for configurations without handlers, names or stack sizes (those of
    /// `ThreadPoolBuilder::new()`): the threads are plain `std::thread`s.
    pub(crate) fn start_lenient(mut config: RegistryConfig, what: &str) -> Arc<Registry> {
        debug_assert!(config.thread_name.is_none() && config.stack_size.is_none());
        let wanted = config.num_threads;
        let mut waiting = Vec::with_capacity(wanted);
        let mut failure = None;
        while waiting.len() < wanted {
            // Each thread waits for its `ThreadBuilder`, or exits when the sender goes.
            let (hand, take) = std::sync::mpsc::sync_channel::<ThreadBuilder>(1);
            // Under an address-space limit, one thread at a time (`sync/address_space.rs`).
            let (gate, opener) = StartGate::new();
            let started = room_for_thread(default_thread_stack()).and_then(|()| {
                std::thread::Builder::new().spawn(move || {
                    opener.open();
                    if let Ok(thread) = take.recv() {
                        thread.run_default();
                    }
                })
            });
            match started {
                Ok(handle) => {
                    gate.wait();
                    waiting.push((hand, handle));
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        let started = waiting.len();
        if failure.is_some() {
            for (hand, handle) in waiting.drain(started - started / 8..) {
                drop(hand);
                let _ = handle.join();
            }
        }
        let workers = waiting.len();
        config.num_threads = workers;
        if workers == 0 {
            config.guest_seats = GUEST_SEATS;
        }
        let mut hand_over = HandOver(waiting.into_iter());
        let registry = Registry::new(config, &mut hand_over)
            .expect("every thread handed a worker is waiting for it");
        if let Some(e) = failure {
            let runs = match workers {
                0 => "runs parallel work on the threads that start it".to_owned(),
                1 => "runs with 1".to_owned(),
                n => format!("runs with {n}"),
            };
            eprintln!(
                "blitz-par: the {what} started {started} of the {wanted} threads asked for; \
                 the next could not start ({e}); it {runs}"
            );
        }
        registry
    }

    /// The main loop of worker `index`, on the calling thread: run jobs until the pool
    /// terminates. Called by `ThreadBuilder::run`.
    ///
    /// # Panics
    /// If the calling thread already has a seat (in this or another pool).
    pub(crate) fn main_loop(&self, index: usize) {
        assert!(
            !has_seat(),
            "blitz-par: ThreadBuilder::run called on a thread that already belongs to a pool"
        );
        let seat = &self.seats[index];
        // Worker `index` has one thread, this one, for the rest of this function.
        CURRENT.with(|c| c.set(seat));
        trace_event!(@worker_started);
        if let Some(handler) = &self.start_handler {
            self.catch_handler(|| handler(index));
        }
        Owner::with_current(|owner| {
            owner
                .expect("a worker occupies its seat")
                .wait_until_cold(&seat.terminate, true)
        });
        if let Some(handler) = &self.exit_handler {
            self.catch_handler(|| handler(index));
        }
        CURRENT.with(|c| c.set(std::ptr::null()));
    }

    /// A `ThreadBuilder` was handed out: one more worker to wait for.
    pub(crate) fn worker_handed_out(&self) {
        self.live_workers.fetch_add(1, Ordering::Relaxed);
    }

    /// A `ThreadBuilder` finished `run` or was dropped without running. The caller holds a
    /// strong count, so the registry is alive for the wake after the decrement.
    pub(crate) fn worker_exited(&self) {
        if self.live_workers.fetch_sub(1, Ordering::Release) == 1 {
            futex::wake_all(&self.live_workers);
        }
    }

    /// Keeps a join handle of a thread the default spawn handler started, for
    /// `wait_for_workers` to join.
    pub(crate) fn add_thread_handle(&self, handle: std::thread::JoinHandle<()>) {
        self.handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(handle);
    }

    fn catch_handler(&self, f: impl FnOnce()) {
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            self.handle_panic(payload);
        }
    }

    /// One more reason to keep the workers alive (a spawned job).
    pub(crate) fn increment_terminate_count(&self) {
        self.terminate_count.fetch_add(1, Ordering::Relaxed);
    }

    /// One reason fewer; the last one tells every worker to exit once out of work. Returns
    /// whether this was the last one (no spawned job was left to run).
    pub(crate) fn terminate(&self) -> bool {
        let last = self.terminate_count.fetch_sub(1, Ordering::AcqRel) == 1;
        if last {
            for seat in &self.seats[..self.num_workers] {
                // SAFETY: the seat's latch and sleep word live as long as the registry, which
                // the caller holds.
                unsafe { CoreLatch::set_and_wake(&seat.terminate, &*seat.sleep_word) };
                // A worker may be sleeping on a different latch (a join); wake it anyway so
                // that it notices termination once it returns to its main loop.
                self.sleep.wake(&seat.sleep_word);
            }
        }
        last
    }

    /// Waits until every worker handed to the spawn handler has left its main loop (after
    /// its exit handler), then joins the threads the default spawn handler started. Returns at
    /// once when called from one of this registry's threads, which cannot wait for itself.
    pub(crate) fn wait_for_workers(&self) {
        if self.owns_current() {
            return;
        }
        loop {
            let live = self.live_workers.load(Ordering::Acquire);
            if live == 0 {
                break;
            }
            futex::wait(&self.live_workers, live);
        }
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        for handle in handles {
            let _ = handle.join();
        }
    }

    /// `use_current_thread`: the calling thread becomes worker 0. It runs no main loop; it
    /// takes part when it waits inside the pool (a join, a scope, a broadcast).
    ///
    /// # Panics
    /// If the calling thread already has a seat (the builder checks this first).
    pub(crate) fn attach_current_thread(self: &Arc<Self>) {
        assert!(
            !has_seat(),
            "blitz-par: the current thread is already part of a thread pool"
        );
        let previous = ATTACHED.with(|a| a.borrow_mut().registry.replace(self.clone()));
        debug_assert!(
            previous.is_none(),
            "a thread with no seat is attached to no pool"
        );
        CURRENT.with(|c| c.set(&self.seats[0]));
    }

    /// Whether the calling thread joined this registry with `use_current_thread` and is still
    /// its worker 0.
    pub(crate) fn is_attached_here(&self) -> bool {
        ATTACHED
            .try_with(|a| {
                a.borrow()
                    .registry
                    .as_ref()
                    .is_some_and(|r| std::ptr::eq(&**r, self))
            })
            .unwrap_or(false)
    }

    /// The pool is dropped on the thread attached to it (after `terminate`). At the top level
    /// (nothing on the stack uses seat 0): finish the pool's work as a worker's main loop
    /// does before exiting, leave seat 0, wait for the other workers, and release the
    /// registry. From inside a parallel operation on this thread, the outer frames still use
    /// seat 0: leave it without waiting (as a drop from any pool thread does) and keep the
    /// registry alive until the thread exits.
    pub(crate) fn detach_current_thread(&self) {
        let seat = &self.seats[0];
        let top_level = Owner::with_current(|owner| {
            let owner = owner.expect("the caller checked `is_attached_here`");
            debug_assert!(std::ptr::eq(owner.seat(), seat));
            let top_level = owner.unused_on_stack();
            if top_level {
                owner.wait_until_cold(&seat.terminate, true);
            }
            top_level
        });
        CURRENT.with(|c| c.set(std::ptr::null()));
        let registry = ATTACHED.with(|a| {
            let mut a = a.borrow_mut();
            let registry = a.registry.take();
            if top_level {
                registry
            } else {
                a.retired.extend(registry);
                None
            }
        });
        if top_level {
            self.wait_for_workers();
        }
        // Dropped outside the `ATTACHED` borrow: the registry's handlers are user closures.
        drop(registry);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Registry, RegistryConfig, GUEST_SEATS};
    use crate::scheduler::thread::DefaultSpawn;
    use crate::scheduler::{pool, spawn};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc};

    /// The registry of a global pool that could start no thread (`start_lenient`).
    fn without_workers() -> Arc<Registry> {
        let config = RegistryConfig {
            num_threads: 0,
            guest_seats: GUEST_SEATS,
            ..RegistryConfig::default()
        };
        Registry::new(config, &mut DefaultSpawn).unwrap()
    }

    /// Without workers, the callers run everything: their own joins and scopes as guests, and
    /// the jobs handed to workers elsewhere (spawns, broadcasts) at once.
    #[test]
    fn a_pool_without_workers_runs_work_on_its_callers() {
        let registry = without_workers();
        assert_eq!(registry.num_threads(), 1);
        let here = std::thread::current().id();
        let sum = pool::install(&registry, || {
            assert_eq!(std::thread::current().id(), here);
            let (a, b) = crate::join(|| 1, || 2);
            let mut hits = [0u8; 16];
            crate::scope(|s| {
                for hit in hits.iter_mut() {
                    s.spawn(move |_| *hit = 1);
                }
            });
            a + b + hits.iter().map(|&h| u32::from(h)).sum::<u32>()
        });
        assert_eq!(sum, 19);
        let seen = spawn::broadcast_in(&registry, |ctx| (ctx.index(), ctx.num_threads()));
        assert_eq!(seen, [(0, 1)]);
        let (tx, rx) = mpsc::channel();
        spawn::spawn_in(
            &registry,
            move || tx.send(std::thread::current().id()).unwrap(),
            false,
        );
        assert_eq!(
            rx.try_recv(),
            Ok(here),
            "the spawned job ran before spawn returned"
        );
    }

    /// A registry sized by one CPU (`one_cpu`) records no frame, on its worker nor on a guest
    /// seat, and its joins and scopes still run everything, in order on one seat.
    #[test]
    fn one_cpu_records_no_frame() {
        use crate::scheduler::registry::Owner;
        let records = || Owner::with_current(|owner| owner.expect("in the pool").records());
        for one_cpu in [false, true] {
            let config = RegistryConfig {
                num_threads: 1,
                guest_seats: GUEST_SEATS,
                one_cpu,
                ..RegistryConfig::default()
            };
            let registry = Registry::new(config, &mut DefaultSpawn).unwrap();
            let on_guest = registry.enter_as_guest(records);
            assert_eq!(on_guest, !one_cpu, "one_cpu: {one_cpu}, on a guest seat");
            let (tx, rx) = mpsc::channel();
            registry.inject(crate::scheduler::job::HeapJob::into_job_ref(move || {
                tx.send(records()).unwrap()
            }));
            assert_eq!(
                rx.recv().unwrap(),
                !one_cpu,
                "one_cpu: {one_cpu}, on the worker"
            );
            let sum = registry.enter_as_guest(|| {
                let mut hits = [0u32; 8];
                crate::scope(|s| {
                    for (i, hit) in hits.iter_mut().enumerate() {
                        s.spawn(move |_| *hit = i as u32);
                    }
                });
                let (a, b) = crate::join(|| 1, || 2);
                a + b + hits.iter().sum::<u32>()
            });
            assert_eq!(sum, 3 + 28);
            registry.terminate();
            registry.wait_for_workers();
        }
    }

    /// More callers at once than there are guest seats: the extra ones wait for a seat.
    #[test]
    fn callers_beyond_the_guest_seats_wait_for_one() {
        let registry = without_workers();
        let callers = if cfg!(miri) {
            GUEST_SEATS + 2
        } else {
            GUEST_SEATS + 8
        };
        let done = AtomicUsize::new(0);
        let inside = AtomicUsize::new(0);
        let most_inside = AtomicUsize::new(0);
        let start = std::sync::Barrier::new(callers);
        std::thread::scope(|s| {
            for _ in 0..callers {
                s.spawn(|| {
                    start.wait();
                    pool::install(&registry, || {
                        most_inside
                            .fetch_max(inside.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        let (a, b) = crate::join(|| 1, || 1);
                        done.fetch_add(a + b, Ordering::Relaxed);
                        inside.fetch_sub(1, Ordering::SeqCst);
                    })
                });
            }
        });
        assert_eq!(done.into_inner(), 2 * callers);
        assert!(most_inside.into_inner() <= GUEST_SEATS);
    }
}
