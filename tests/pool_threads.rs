//! Where parallel work that a thread outside every pool starts runs: only on the pool's threads
//! when the pool is configured so (`ThreadPoolBuilder::pool_threads_only`, on by default for a
//! global pool given a stack size, thread names, start, exit or spawn handlers, or one thread,
//! by the builder or the environment), partly on the calling thread otherwise.
//!
//! Each configuration of the global pool is tested in a child process (a process has one
//! global pool): `exercise` runs every kind of parallel operation from the test's thread, and
//! every user closure checks where it runs.

mod support;
#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use blitz_par::ThreadPoolBuilder;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;
use support::run_child;

/// Records the checks made inside user closures: where each ran, and how many ran at once.
struct Probe {
    on_pool: Box<dyn Fn() -> bool + Send + Sync>,
    checks: AtomicUsize,
    /// The operations whose closures ran somewhere `on_pool` rejects, with the thread's name.
    strays: Mutex<BTreeMap<String, String>>,
    threads: Mutex<HashSet<ThreadId>>,
    active: AtomicUsize,
    most_active: AtomicUsize,
}

impl Probe {
    fn new(on_pool: impl Fn() -> bool + Send + Sync + 'static) -> Probe {
        Probe {
            on_pool: Box::new(on_pool),
            checks: AtomicUsize::new(0),
            strays: Mutex::new(BTreeMap::new()),
            threads: Mutex::new(HashSet::new()),
            active: AtomicUsize::new(0),
            most_active: AtomicUsize::new(0),
        }
    }

    /// A check inside a closure that may contain other checked closures (a join's, a scope's).
    fn check(&self, what: &str) {
        self.checks.fetch_add(1, Ordering::Relaxed);
        thread_local!(static SEEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        if !SEEN.with(|seen| seen.replace(true)) {
            self.threads
                .lock()
                .unwrap()
                .insert(std::thread::current().id());
        }
        if !(self.on_pool)() {
            let name = std::thread::current().name().unwrap_or("?").to_owned();
            self.strays.lock().unwrap().insert(what.to_owned(), name);
        }
    }

    /// A check inside a closure that runs no other checked closure: also counts how many such
    /// closures run at once.
    fn leaf(&self, what: &str) {
        let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_active.fetch_max(now, Ordering::SeqCst);
        self.check(what);
        self.active.fetch_sub(1, Ordering::SeqCst);
    }

    /// Runs `op` and checks that it made checks.
    fn op(&self, what: &str, op: impl FnOnce()) {
        let before = self.checks.load(Ordering::Relaxed);
        op();
        assert!(
            self.checks.load(Ordering::Relaxed) > before,
            "{what}: no closure ran"
        );
    }

    /// Panics if any closure ran off the pool's threads.
    fn assert_on_pool(&self) {
        let strays = self.strays.lock().unwrap();
        assert!(
            strays.is_empty(),
            "closures that ran off the pool's threads (operation: thread): {strays:?}"
        );
    }

    fn threads(&self) -> HashSet<ThreadId> {
        self.threads.lock().unwrap().clone()
    }
}

/// Runs every kind of parallel operation from the calling thread, small and large, each user
/// closure checking with `p`.
fn exercise(p: &Probe) {
    for n in [1usize, 2, 10, 1_000, 100_000] {
        p.op("for_each", || {
            (0..n).into_par_iter().for_each(|_| p.leaf("for_each"))
        });
        p.op("map sum", || {
            let s: usize = (0..n)
                .into_par_iter()
                .map(|x| (p.leaf("map sum"), x).1)
                .sum();
            assert_eq!(s, n * (n - 1) / 2);
        });
        p.op("filter count", || {
            (0..n)
                .into_par_iter()
                .filter(|x| (p.leaf("filter count"), x % 3 == 0).1)
                .count();
        });
        p.op("reduce", || {
            (0..n).into_par_iter().reduce(
                || (p.leaf("reduce identity"), 0).1,
                |a, b| {
                    p.leaf("reduce op");
                    a.max(b)
                },
            );
        });
        p.op("fold", || {
            (0..n)
                .into_par_iter()
                .fold(|| (p.leaf("fold identity"), 0).1, |a, b| a + b)
                .sum::<usize>();
        });
        p.op("chain reduce", || {
            (0..n)
                .into_par_iter()
                .chain(0..n)
                .filter(|_| (p.leaf("chain filter"), true).1)
                .reduce(|| 0, |a, b| (p.leaf("chain reduce"), a + b).1);
        });
        p.op("searches", || {
            (0..n)
                .into_par_iter()
                .find_any(|&x| (p.leaf("find_any"), x == n - 1).1);
            (0..n)
                .into_par_iter()
                .find_first(|&x| (p.leaf("find_first"), x == n / 2).1);
            (0..n)
                .into_par_iter()
                .position_last(|x| (p.leaf("position_last"), x == 0).1);
            (0..n).into_par_iter().any(|x| (p.leaf("any"), x == n).1);
            (0..n).into_par_iter().all(|x| (p.leaf("all"), x < n).1);
            (0..n)
                .into_par_iter()
                .min_by_key(|&x| (p.leaf("min_by_key"), x).1);
        });
        p.op("collect", || {
            let v: Vec<usize> = (0..n)
                .into_par_iter()
                .map(|x| (p.leaf("collect"), x).1)
                .collect();
            assert_eq!(v.len(), n);
            let (a, b): (Vec<usize>, Vec<usize>) =
                v.par_iter().map(|&x| (p.leaf("unzip"), (x, x)).1).unzip();
            assert_eq!(a, b);
            let (even, odd): (Vec<usize>, Vec<usize>) = v
                .par_iter()
                .partition(|&&x| (p.leaf("partition"), x % 2 == 0).1);
            assert_eq!(even.len() + odd.len(), n);
            let mut w = Vec::new();
            w.par_extend(v.par_iter().map(|&x| (p.leaf("par_extend"), x).1));
            let s: String = v.par_iter().map(|_| (p.leaf("string"), 'x').1).collect();
            assert_eq!(s.len() + w.len(), 2 * n);
        });
        p.op("zip enumerate max_len", || {
            (0..n)
                .into_par_iter()
                .zip(0..n)
                .enumerate()
                .with_max_len(1)
                .for_each(|_| p.leaf("zip"));
        });
        p.op("flat_map", || {
            (0..n.min(1000)).into_par_iter().for_each(|_| {
                p.check("flat_map outer");
                (0..3)
                    .into_par_iter()
                    .for_each(|_| p.check("flat_map inner"));
            });
        });
        p.op("try_for_each", || {
            let r: Result<(), ()> = (0..n)
                .into_par_iter()
                .try_for_each(|_| (p.leaf("try_for_each"), Ok(())).1);
            assert!(r.is_ok());
        });
        p.op("par_bridge", || {
            (0..n.min(1000))
                .map(|x| (p.check("par_bridge next"), x).1)
                .par_bridge()
                .for_each(|_| p.leaf("par_bridge"));
        });
        p.op("parallel_for", || {
            blitz_par::parallel_for(0..n, |_| p.leaf("parallel_for"));
            blitz_par::parallel_for_chunks(0..n, |_| p.leaf("parallel_for_chunks"));
        });
        if n < 2 {
            // Sorting one element calls nothing.
            continue;
        }
        let mut v: Vec<u64> = (0..n as u64)
            .rev()
            .map(|x| x.wrapping_mul(0x9E37))
            .collect();
        p.op("par_sort_by", || {
            v.par_sort_by(|a, b| (p.leaf("sort_by"), a.cmp(b)).1)
        });
        p.op("par_sort_unstable_by", || {
            v.par_sort_unstable_by(|a, b| (p.leaf("sort_unstable_by"), b.cmp(a)).1)
        });
        p.op("par_sort_by_key", || {
            v.par_sort_by_key(|&x| (p.leaf("sort_by_key"), x).1)
        });
        p.op("par_sort_unstable_by_key", || {
            v.par_sort_unstable_by_key(|&x| (p.leaf("sort_unstable_by_key"), x).1)
        });
        p.op("par_sort_by_cached_key", || {
            v.par_sort_by_cached_key(|&x| (p.leaf("sort_by_cached_key"), x.to_string()).1)
        });
        p.op("chunks", || {
            v.par_chunks(7).for_each(|_| p.leaf("par_chunks"));
            v.par_chunk_by(|a, b| (p.leaf("par_chunk_by"), a <= b).1)
                .count();
        });
    }
    p.op("sources", || {
        blitz_par::iter::once(1).for_each(|_| p.leaf("once"));
        blitz_par::iter::repeat_n(1, 5).for_each(|_| p.leaf("repeat_n"));
        blitz_par::iter::walk_tree(0u32, |&x| {
            p.check("walk_tree children");
            if x < 6 {
                vec![x + 1, x + 2]
            } else {
                vec![]
            }
        })
        .for_each(|_| p.leaf("walk_tree"));
    });
    p.op("strings", || {
        let text = "one two three\nfour five\nsix".repeat(50);
        text.par_split(' ').for_each(|_| p.leaf("par_split"));
        text.par_lines().for_each(|_| p.leaf("par_lines"));
        text.par_chars()
            .filter(|_| (p.leaf("par_chars"), true).1)
            .count();
    });
    p.op("join", || {
        blitz_par::join(
            || {
                p.check("join a");
                blitz_par::join(|| p.leaf("join a a"), || p.leaf("join a b"))
            },
            || p.leaf("join b"),
        );
        blitz_par::join_context(|_| p.leaf("join_context a"), |_| p.leaf("join_context b"));
    });
    p.op("scope", || {
        blitz_par::scope(|s| {
            p.check("scope op");
            for _ in 0..4 {
                s.spawn(|s| {
                    p.check("scope job");
                    s.spawn(|_| p.leaf("scope nested job"));
                });
            }
        });
        blitz_par::scope_fifo(|s| {
            p.check("scope_fifo op");
            s.spawn_fifo(|_| p.leaf("scope_fifo job"));
        });
    });
    p.op("in_place_scope jobs", || {
        // Its closure runs on the calling thread, as in rayon; its jobs go to the pool.
        blitz_par::in_place_scope(|s| {
            for _ in 0..4 {
                s.spawn(|_| p.leaf("in_place_scope job"));
            }
        });
        blitz_par::in_place_scope_fifo(|s| s.spawn_fifo(|_| p.leaf("in_place_scope_fifo job")));
    });
    p.op("broadcast", || {
        blitz_par::broadcast(|_| p.leaf("broadcast"));
    });
    p.op("heavy items (the watch hands out the rest)", || {
        (0..8).into_par_iter().for_each(|_| {
            p.leaf("heavy item");
            std::thread::sleep(Duration::from_millis(2));
        });
        (0..4).into_par_iter().for_each(|_| {
            p.check("heavy outer");
            std::thread::sleep(Duration::from_millis(1));
            (0..4).into_par_iter().for_each(|_| p.leaf("heavy inner"));
        });
    });
}

/// `spawn`, `spawn_fifo` and `spawn_broadcast` jobs (with a `'static` probe).
fn exercise_spawns(p: &'static Probe) {
    let (tx, rx) = mpsc::channel();
    for _ in 0..4 {
        let tx = tx.clone();
        blitz_par::spawn(move || {
            p.leaf("spawn");
            tx.send(()).unwrap();
        });
    }
    let fifo = tx.clone();
    blitz_par::spawn_fifo(move || {
        p.leaf("spawn_fifo");
        fifo.send(()).unwrap();
    });
    let tx = Mutex::new(tx);
    blitz_par::spawn_broadcast(move |_| {
        p.leaf("spawn_broadcast");
        tx.lock().unwrap().send(()).unwrap();
    });
    for _ in 0..5 + blitz_par::current_num_threads() {
        watchdog::recv(&rx, "a spawned job ran");
    }
    // `spawn_future` never runs its closure on the caller's thread, whatever the pool.
    let future = blitz_par::spawn_future(move || {
        p.leaf("spawn_future");
        (0..1_000)
            .into_par_iter()
            .for_each(|_| p.leaf("spawn_future item"));
        std::thread::current().id()
    });
    assert_ne!(
        futures::executor::block_on(future),
        std::thread::current().id()
    );
}

/// The probe of a child process, which lives as long as its spawned jobs may.
fn static_probe(on_pool: impl Fn() -> bool + Send + Sync + 'static) -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    assert!(
        PROBE.set(Probe::new(on_pool)).is_ok(),
        "one probe per process"
    );
    PROBE.get().unwrap()
}

/// Everything in `exercise` and `exercise_spawns` ran on the pool's threads.
fn exercise_on_pool(on_pool: impl Fn() -> bool + Send + Sync + 'static) -> &'static Probe {
    let p = static_probe(on_pool);
    exercise(p);
    exercise_spawns(p);
    p.assert_on_pool();
    assert!(!p.threads().contains(&std::thread::current().id()));
    p
}

fn on_a_worker() -> bool {
    blitz_par::current_thread_index().is_some()
}

fn name_starts_with(prefix: &'static str) -> impl Fn() -> bool + Send + Sync + 'static {
    move || {
        std::thread::current()
            .name()
            .is_some_and(|name| name.starts_with(prefix))
    }
}

/// One thread, one closure at a time: what the pool of one thread promises.
fn assert_one_thread_one_closure_at_a_time(p: &Probe) {
    assert_eq!(p.threads().len(), 1, "closures ran on several threads");
    assert_eq!(
        p.most_active.load(Ordering::SeqCst),
        1,
        "closures of one thread overlapped"
    );
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_thread_name() {
    ThreadPoolBuilder::new()
        .thread_name(|i| format!("named-{i}"))
        .build_global()
        .unwrap();
    exercise_on_pool(name_starts_with("named-"));
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_start_handler() {
    static STARTED: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());
    ThreadPoolBuilder::new()
        .start_handler(|_| STARTED.lock().unwrap().push(std::thread::current().id()))
        .build_global()
        .unwrap();
    exercise_on_pool(|| runs_on_one_of(&STARTED));
    println!("CHILD-DONE");
}

/// Whether the calling thread is one of `threads`.
fn runs_on_one_of(threads: &Mutex<Vec<ThreadId>>) -> bool {
    threads
        .lock()
        .unwrap()
        .contains(&std::thread::current().id())
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_exit_handler() {
    ThreadPoolBuilder::new()
        .exit_handler(|_| ())
        .build_global()
        .unwrap();
    exercise_on_pool(on_a_worker);
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_spawn_handler() {
    static SPAWNED: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());
    ThreadPoolBuilder::new()
        .spawn_handler(|thread| {
            let handle = std::thread::Builder::new().spawn(move || thread.run())?;
            SPAWNED.lock().unwrap().push(handle.thread().id());
            Ok(())
        })
        .build_global()
        .unwrap();
    exercise_on_pool(|| runs_on_one_of(&SPAWNED));
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_one_thread_by_builder() {
    ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .unwrap();
    let p = exercise_on_pool(on_a_worker);
    assert_one_thread_one_closure_at_a_time(p);
    println!("CHILD-DONE");
}

/// Run with `BLITZ_NUM_THREADS=1` or `RAYON_NUM_THREADS=1`: no `build_global`.
#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_one_thread_by_environment() {
    let p = exercise_on_pool(on_a_worker);
    assert_one_thread_one_closure_at_a_time(p);
    assert_eq!(blitz_par::current_num_threads(), 1);
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_pool_threads_only_alone() {
    ThreadPoolBuilder::new()
        .pool_threads_only(true)
        .build_global()
        .unwrap();
    exercise_on_pool(on_a_worker);
    println!("CHILD-DONE");
}

/// The caller takes part: the first closure of a join runs on it, so does a loop's first
/// chunk, and a small sort whole. `BLITZ_NUM_THREADS=2` (not one thread) is no configuration
/// that keeps work on the pool; `configure` says what else to set up.
fn caller_takes_part(configure: impl FnOnce()) {
    configure();
    let here = std::thread::current().id();
    let (a, _) = blitz_par::join(|| std::thread::current().id(), || ());
    assert_eq!(a, here);
    let threads: HashSet<ThreadId> = (0..10)
        .into_par_iter()
        .map(|_| std::thread::current().id())
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    assert!(threads.contains(&here), "{threads:?}");
    let mut v = [3, 1, 2];
    v.par_sort_by(|a, b| {
        assert_eq!(std::thread::current().id(), here);
        a.cmp(b)
    });
    // But never in a `spawn_future`'s closure.
    let future = blitz_par::spawn_future(|| std::thread::current().id());
    assert_ne!(futures::executor::block_on(future), here);
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_unconfigured() {
    caller_takes_part(|| ());
}

#[test]
#[ignore = "run in a child process by global_pool_configurations_keep_work_on_their_threads"]
fn child_configured_but_callers_take_part() {
    caller_takes_part(|| {
        ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|i| format!("named-{i}"))
            .pool_threads_only(false)
            .build_global()
            .unwrap();
    });
}

/// Each configuration item of the global pool keeps every closure of the work that the test's
/// thread starts on the pool's threads: thread names are seen inside the closures, start and
/// spawn handlers saw the threads that run them, one thread runs them one at a time (set by
/// the builder or by either environment variable). Without such a configuration, or with
/// `pool_threads_only(false)`, the caller takes part.
#[test]
fn global_pool_configurations_keep_work_on_their_threads() {
    for child in [
        "child_thread_name",
        "child_start_handler",
        "child_exit_handler",
        "child_spawn_handler",
        "child_one_thread_by_builder",
        "child_pool_threads_only_alone",
        "child_configured_but_callers_take_part",
    ] {
        run_child(child, &[]);
    }
    run_child(
        "child_one_thread_by_environment",
        &[("BLITZ_NUM_THREADS", "1")],
    );
    run_child(
        "child_one_thread_by_environment",
        &[("RAYON_NUM_THREADS", "1")],
    );
    run_child("child_unconfigured", &[("BLITZ_NUM_THREADS", "2")]);
}

/// Recurses until the stack is `bytes` deeper than at the first call; returns a value that
/// depends on every frame.
fn recurse(bytes: usize) -> u64 {
    #[inline(never)]
    fn down(top: usize, bytes: usize) -> u64 {
        let frame = std::hint::black_box([1u8; 4096]);
        let here = frame.as_ptr() as usize;
        if top.saturating_sub(here) >= bytes {
            return u64::from(frame[0]);
        }
        down(top, bytes) + u64::from(std::hint::black_box(frame)[4095])
    }
    let top = std::hint::black_box(0u8);
    down(&top as *const u8 as usize, bytes)
}

#[test]
#[ignore = "run in a child process by a_deep_recursion_runs_on_the_configured_stack"]
fn child_deep_recursion() {
    ThreadPoolBuilder::new()
        .stack_size(512 << 20)
        .build_global()
        .unwrap();
    let caller = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            (0..4).into_par_iter().for_each(|_| {
                assert!(recurse(200 << 20) > 0);
            });
            blitz_par::join(|| recurse(200 << 20), || recurse(200 << 20));
            let mut v: Vec<u32> = (0..100).rev().collect();
            v.par_sort_by(|a, b| {
                assert!(recurse(8 << 20) > 0);
                a.cmp(b)
            });
        })
        .unwrap();
    caller.join().unwrap();
    println!("CHILD-DONE");
}

/// `stack_size(512 MiB)` on the global pool, then items that recurse 200 MB deep, started from
/// a thread with a 2 MiB stack: they run on the pool's threads, so the process does not abort
/// with a stack overflow.
#[test]
fn a_deep_recursion_runs_on_the_configured_stack() {
    run_child("child_deep_recursion", &[]);
}

/// Built pools keep outside callers' work on their threads unless built with
/// `pool_threads_only(false)`, which lets the caller run `install`'s closure, and the work it
/// starts in the pool, as a guest.
#[test]
fn built_pools_keep_outside_work_unless_told_otherwise() {
    let here = std::thread::current().id();
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_ne!(pool.install(|| std::thread::current().id()), here);
    let (a, ()) = pool.join(|| std::thread::current().id(), || ());
    assert_ne!(a, here);
    pool.in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), here);
        s.spawn(|_| assert!(pool.current_thread_index().is_some()));
    });

    let guest = ThreadPoolBuilder::new()
        .num_threads(3)
        .pool_threads_only(false)
        .build()
        .unwrap();
    let threads = guest.install(|| {
        assert_eq!(std::thread::current().id(), here);
        assert_eq!(blitz_par::current_thread_index(), None);
        assert_eq!(blitz_par::current_num_threads(), 3);
        let (a, _) = blitz_par::join(|| std::thread::current().id(), || ());
        assert_eq!(a, here);
        (0..100_000)
            .into_par_iter()
            .map(|_| blitz_par::current_num_threads())
            .max()
    });
    assert_eq!(threads, Some(3));
    assert_eq!(guest.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    let sum: u64 = guest.install(|| (0..1_000_000u64).into_par_iter().sum());
    assert_eq!(sum, 499_999_500_000);
    // Outside callers take part in the guest pool's work, but not in a `spawn_future`'s.
    let on = guest.spawn_future(|| {
        (
            std::thread::current().id(),
            blitz_par::current_thread_index(),
        )
    });
    let (thread, index) = futures::executor::block_on(on);
    assert_ne!(thread, here);
    assert!(index.is_some());
}
