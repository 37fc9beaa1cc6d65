//! Public-API tests of the pool builder: custom spawn handlers and `ThreadBuilder`,
//! `build_scoped`, `use_current_thread`, what dropping such pools waits for, in-place
//! scopes whose closure is not `Send`, and the environment variables that size the global
//! pool.

mod support;

use blitz_par::{ThreadBuilder, ThreadPoolBuilder};
use std::cell::Cell;
use std::error::Error;
use std::io;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[path = "common/watchdog.rs"]
mod watchdog;

/// A spawn handler that starts each worker with `std::thread::Builder` (name and stack size
/// from the `ThreadBuilder`) and keeps the join handles.
fn std_spawn(
    handles: &Arc<Mutex<Vec<JoinHandle<()>>>>,
) -> impl FnMut(ThreadBuilder) -> io::Result<()> {
    let handles = handles.clone();
    move |thread| {
        let mut builder = std::thread::Builder::new();
        if let Some(name) = thread.name() {
            builder = builder.name(name.to_owned());
        }
        if let Some(size) = thread.stack_size() {
            builder = builder.stack_size(size);
        }
        let handle = builder.spawn(move || thread.run())?;
        handles.lock().unwrap().push(handle);
        Ok(())
    }
}

fn counter() -> (Arc<AtomicUsize>, impl Fn(usize) + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    (count, move |_| {
        c.fetch_add(1, Ordering::SeqCst);
    })
}

#[test]
fn thread_builder_is_send_and_debug() {
    fn assert_send<T: Send>() {}
    assert_send::<ThreadBuilder>();
    let seen = Mutex::new(String::new());
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|i| format!("dbg-{i}"))
        .stack_size(1 << 20)
        .spawn_handler(|thread| {
            *seen.lock().unwrap() = format!("{thread:?}");
            std::thread::spawn(move || thread.run());
            Ok(())
        })
        .build()
        .unwrap();
    drop(pool);
    let seen = seen.into_inner().unwrap();
    assert!(seen.contains("ThreadBuilder"), "{seen}");
    assert!(seen.contains("dbg-0"), "{seen}");
}

#[test]
fn spawn_handler_with_std_builder_counts_and_joins_threads() {
    let handles = Arc::new(Mutex::new(Vec::new()));
    let spawned = Arc::new(Mutex::new(Vec::new()));
    let (exits, on_exit) = counter();
    let mut spawn = std_spawn(&handles);
    let record = spawned.clone();
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("custom-{i}"))
        .exit_handler(on_exit)
        .spawn_handler(move |thread| {
            record
                .lock()
                .unwrap()
                .push((thread.index(), thread.name().map(String::from)));
            spawn(thread)
        })
        .build()
        .unwrap();
    assert_eq!(
        *spawned.lock().unwrap(),
        [
            (0, Some("custom-0".to_owned())),
            (1, Some("custom-1".to_owned())),
            (2, Some("custom-2".to_owned())),
        ]
    );
    assert_eq!(pool.current_num_threads(), 3);
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2]);
    let names = pool.broadcast(|_| std::thread::current().name().map(String::from));
    assert_eq!(
        names,
        [
            Some("custom-0".to_owned()),
            Some("custom-1".to_owned()),
            Some("custom-2".to_owned())
        ]
    );
    let sum: u64 = pool.install(|| {
        let (a, b) = blitz_par::join(|| (0..1000u64).sum::<u64>(), || 7u64);
        a + b
    });
    assert_eq!(sum, 499_507);
    drop(pool);
    assert_eq!(exits.load(Ordering::SeqCst), 3, "drop waits for every exit");
    let handles = std::mem::take(&mut *handles.lock().unwrap());
    assert_eq!(handles.len(), 3);
    for handle in handles {
        handle.join().unwrap();
    }
}

#[test]
fn drop_with_custom_spawn_waits_for_every_exit_handler() {
    for _ in 0..20 {
        let (exits, on_exit) = counter();
        let (starts, on_start) = counter();
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .start_handler(on_start)
            .exit_handler(move |i| {
                // A slow exit makes a drop that does not wait visibly wrong.
                std::thread::sleep(Duration::from_millis(2));
                on_exit(i);
            })
            .spawn_handler(|thread| {
                // Detached threads: only the pool's own count can tell when they are done.
                std::thread::spawn(move || thread.run());
                Ok(())
            })
            .build()
            .unwrap();
        // Work that is not spawned: the drop that follows has none left, so it waits.
        pool.broadcast(|_| ());
        drop(pool);
        assert_eq!(starts.load(Ordering::SeqCst), 4);
        assert_eq!(exits.load(Ordering::SeqCst), 4);
    }
}

#[test]
fn drop_with_custom_spawn_still_runs_the_spawned_work() {
    let (exits, on_exit) = counter();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .exit_handler(on_exit)
        .spawn_handler(|thread| {
            std::thread::spawn(move || thread.run());
            Ok(())
        })
        .build()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let exited_early = Arc::new(AtomicUsize::new(0));
    for _ in 0..50 {
        let tx = tx.clone();
        let exits = exits.clone();
        let exited_early = exited_early.clone();
        pool.spawn(move || {
            std::thread::yield_now();
            // No worker exits while spawned work is left.
            exited_early.fetch_add(exits.load(Ordering::SeqCst), Ordering::SeqCst);
            tx.send(()).unwrap();
        });
    }
    drop(tx);
    // As in rayon, the drop returns without waiting for the jobs; they run before the
    // workers exit.
    drop(pool);
    let ran = watchdog::within(watchdog::LIVENESS, "the spawned jobs ran", move || {
        rx.iter().count()
    });
    assert_eq!(ran, 50);
    assert_eq!(exited_early.load(Ordering::SeqCst), 0);
}

#[test]
fn custom_spawn_pool_dropped_by_its_own_worker_does_not_hang() {
    let (exits, on_exit) = counter();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .exit_handler(on_exit)
        .spawn_handler(|thread| {
            std::thread::spawn(move || thread.run());
            Ok(())
        })
        .build()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let pool = Arc::new(pool);
    let last = pool.clone();
    pool.spawn(move || {
        // Wait until the test has dropped its handle, so that this job drops the last one.
        while Arc::strong_count(&last) > 1 {
            std::thread::yield_now();
        }
        drop(last);
        tx.send(()).unwrap();
    });
    drop(pool);
    rx.recv().unwrap();
    // The workers still exit on their own.
    while exits.load(Ordering::SeqCst) < 2 {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn spawn_handler_error_fails_build_and_stops_started_threads() {
    for fail_at in 0..4 {
        let handles = Arc::new(Mutex::new(Vec::new()));
        let (starts, on_start) = counter();
        let (exits, on_exit) = counter();
        let mut spawn = std_spawn(&handles);
        let result = ThreadPoolBuilder::new()
            .num_threads(4)
            .start_handler(on_start)
            .exit_handler(on_exit)
            .spawn_handler(move |thread| {
                if thread.index() == fail_at {
                    return Err(io::Error::other("no more threads"));
                }
                spawn(thread)
            })
            .build();
        let err = result.unwrap_err();
        assert!(err.to_string().contains("no more threads"), "{err}");
        let source = err.source().expect("the handler's error is the source");
        assert_eq!(source.to_string(), "no more threads");
        // The threads already started have run their exit handler before `build` returned.
        assert_eq!(exits.load(Ordering::SeqCst), starts.load(Ordering::SeqCst));
        let handles = std::mem::take(&mut *handles.lock().unwrap());
        assert_eq!(handles.len(), fail_at);
        for handle in handles {
            handle.join().unwrap();
        }
        assert_eq!(starts.load(Ordering::SeqCst), fail_at);
        assert_eq!(exits.load(Ordering::SeqCst), fail_at);
    }
}

#[test]
fn a_panicking_thread_name_fails_build_and_stops_started_threads() {
    let (starts, on_start) = counter();
    let (exits, on_exit) = counter();
    let result = std::panic::catch_unwind(|| {
        ThreadPoolBuilder::new()
            .num_threads(6)
            .start_handler(on_start)
            .exit_handler(on_exit)
            .thread_name(|i| {
                assert!(i < 3, "no name for worker {i}");
                format!("named-{i}")
            })
            .build()
    });
    let payload = result.expect_err("the callback's panic reaches the caller");
    let message = payload.downcast_ref::<String>().map(String::as_str);
    assert_eq!(message, Some("no name for worker 3"));
    // The three workers already started have exited (after their exit handler) before the
    // panic left `build`.
    assert_eq!(starts.load(Ordering::SeqCst), 3);
    assert_eq!(exits.load(Ordering::SeqCst), 3);
}

#[test]
fn spawn_handler_that_drops_a_thread_builder_does_not_hang_drop() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .spawn_handler(|thread| {
            if thread.index() != 1 {
                std::thread::spawn(move || thread.run());
            } // else: dropped, never run
            Ok(())
        })
        .build()
        .unwrap();
    assert_eq!(pool.install(|| blitz_par::join(|| 1, || 2)), (1, 2));
    drop(pool);
}

#[test]
fn build_scoped_borrows_data_and_sets_up_thread_locals() {
    thread_local!(static WEIGHT: Cell<usize> = const { Cell::new(0) });
    let weights = vec![3usize, 5, 7, 11];
    let ran = AtomicUsize::new(0);
    let log = Mutex::new(Vec::new());
    let total = ThreadPoolBuilder::new()
        .num_threads(4)
        .thread_name(|i| format!("scoped-{i}"))
        .build_scoped(
            |thread| {
                WEIGHT.with(|w| w.set(weights[thread.index()]));
                assert_eq!(
                    std::thread::current().name(),
                    Some(format!("scoped-{}", thread.index()).as_str())
                );
                thread.run();
                ran.fetch_add(1, Ordering::SeqCst);
            },
            |pool| {
                let per_thread = pool.broadcast(|_| WEIGHT.with(Cell::get));
                assert_eq!(per_thread, weights);
                pool.install(|| {
                    blitz_par::scope(|s| {
                        for i in 0..8 {
                            let log = &log;
                            s.spawn(move |_| log.lock().unwrap().push(i));
                        }
                    })
                });
                per_thread.iter().sum::<usize>()
            },
        )
        .unwrap();
    assert_eq!(total, 26);
    assert_eq!(
        ran.load(Ordering::SeqCst),
        4,
        "every thread left run before return"
    );
    let mut log = log.into_inner().unwrap();
    log.sort();
    assert_eq!(log, (0..8).collect::<Vec<_>>());
}

#[test]
fn build_scoped_propagates_a_panic_of_with_pool() {
    let ran = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ThreadPoolBuilder::new().num_threads(2).build_scoped(
            |thread| {
                thread.run();
                ran.fetch_add(1, Ordering::SeqCst);
            },
            |_| panic!("with_pool failed"),
        )
    }));
    assert!(result.is_err());
    assert_eq!(ran.load(Ordering::SeqCst), 2);
}

#[test]
fn build_scoped_reports_build_errors() {
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let result = pool.install(|| {
        ThreadPoolBuilder::new()
            .num_threads(2)
            .use_current_thread()
            .build_scoped(ThreadBuilder::run, |_| ())
    });
    let err = result.unwrap_err();
    assert!(
        err.to_string()
            .contains("already part of another thread pool"),
        "{err}"
    );
}

#[test]
fn use_current_thread_makes_the_caller_worker_zero() {
    let handles = Arc::new(Mutex::new(Vec::new()));
    let (starts, on_start) = counter();
    let (exits, on_exit) = counter();
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .use_current_thread()
        .start_handler(on_start)
        .exit_handler(on_exit)
        .spawn_handler(std_spawn(&handles))
        .build()
        .unwrap();
    assert_eq!(
        handles.lock().unwrap().len(),
        1,
        "only one thread is spawned"
    );
    assert_eq!(pool.current_thread_index(), Some(0));
    assert_eq!(blitz_par::current_thread_index(), Some(0));
    assert_eq!(blitz_par::current_num_threads(), 2);

    // A thread already in a pool cannot join another one.
    let err = ThreadPoolBuilder::new()
        .num_threads(2)
        .use_current_thread()
        .build()
        .unwrap_err();
    assert!(err
        .to_string()
        .contains("already part of another thread pool"));

    // install runs here; join and scope run in the pool.
    let here = std::thread::current().id();
    assert_eq!(pool.install(|| std::thread::current().id()), here);
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    assert_eq!(blitz_par::join(|| 3, || 4), (3, 4));
    let mut v = vec![0; 16];
    blitz_par::scope(|s| {
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn(move |_| *x = i);
        }
    });
    assert_eq!(v, (0..16).collect::<Vec<_>>());

    // A spawned job runs on the other worker while this thread blocks outside the pool.
    let (tx, rx) = mpsc::channel();
    pool.spawn(move || tx.send(blitz_par::current_thread_index()).unwrap());
    assert_eq!(rx.recv().unwrap(), Some(1));

    // A broadcast from here runs its share here, when this thread waits for the others.
    assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);

    drop(pool);
    // Spawned threads ran their handlers; this thread did not.
    assert_eq!(starts.load(Ordering::SeqCst), 1);
    assert_eq!(exits.load(Ordering::SeqCst), 1);
    assert_eq!(blitz_par::current_thread_index(), None, "left the pool");
    for handle in std::mem::take(&mut *handles.lock().unwrap()) {
        handle.join().unwrap();
    }

    // And it may join a new pool the same way.
    let again = ThreadPoolBuilder::new()
        .num_threads(2)
        .use_current_thread()
        .build()
        .unwrap();
    assert_eq!(again.current_thread_index(), Some(0));
}

#[test]
fn use_current_thread_drop_runs_the_work_left_for_the_pool() {
    let done = Arc::new(AtomicUsize::new(0));
    // One thread: nobody but this one can run what is spawned.
    let pool = ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .unwrap();
    for _ in 0..10 {
        let done = done.clone();
        pool.spawn(move || {
            done.fetch_add(1, Ordering::SeqCst);
        });
    }
    assert_eq!(pool.yield_now(), Some(blitz_par::Yield::Executed));
    drop(pool);
    assert_eq!(done.load(Ordering::SeqCst), 10);
}

#[test]
fn use_current_thread_pool_dropped_inside_a_join_on_its_thread() {
    for _ in 0..20 {
        let (exits, on_exit) = counter();
        let pool = ThreadPoolBuilder::new()
            .num_threads(3)
            .use_current_thread()
            .exit_handler(on_exit)
            .build()
            .unwrap();
        let (a, b) = blitz_par::join(
            move || {
                let (x, y) = blitz_par::join(|| 1, || 2);
                drop(pool);
                // Left the pool: further joins run as a guest of the global pool.
                assert_eq!(blitz_par::current_thread_index(), None);
                x + y + blitz_par::join(|| 3, || 4).0
            },
            || (0..100u32).sum::<u32>(),
        );
        assert_eq!((a, b), (6, 4950));
        assert_eq!(blitz_par::current_thread_index(), None);
        while exits.load(Ordering::SeqCst) < 2 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[test]
fn use_current_thread_pool_dropped_on_another_thread() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .use_current_thread()
        .build()
        .unwrap();
    std::thread::spawn(move || drop(pool)).join().unwrap();
    // Still worker 0 of the finished pool: joins and scopes run here alone.
    assert_eq!(blitz_par::current_thread_index(), Some(0));
    assert_eq!(blitz_par::join(|| 1, || 2), (1, 2));
    let mut x = 0;
    blitz_par::scope(|s| s.spawn(|_| x += 1));
    assert_eq!(x, 1);
}

#[test]
fn use_current_thread_with_build_scoped() {
    let data = [1u32, 2, 3];
    let sum = ThreadPoolBuilder::new()
        .num_threads(3)
        .use_current_thread()
        .build_scoped(ThreadBuilder::run, |pool| {
            assert_eq!(pool.current_thread_index(), Some(0));
            pool.broadcast(|ctx| data[ctx.index()]).iter().sum::<u32>()
        })
        .unwrap();
    assert_eq!(sum, 6);
    assert_eq!(blitz_par::current_thread_index(), None);
}

#[test]
fn in_place_scope_runs_a_non_send_closure_on_the_calling_thread() {
    let here = std::thread::current().id();
    let shared = Rc::new(Cell::new(0));
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut out = vec![0; 8];
    // From a thread outside the pool: the scope's owner blocks on a latch at the end.
    let rc = pool.in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), here);
        for (i, x) in out.iter_mut().enumerate() {
            s.spawn(move |_| {
                assert!(blitz_par::current_thread_index().is_some());
                *x = i * i;
            });
        }
        shared.set(1);
        shared.clone()
    });
    assert_eq!(rc.get(), 1);
    assert_eq!(out, (0..8).map(|i| i * i).collect::<Vec<_>>());

    let n = AtomicUsize::new(0);
    pool.in_place_scope_fifo(|s| {
        shared.set(2);
        for _ in 0..8 {
            s.spawn_fifo(|_| {
                n.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    assert_eq!((shared.get(), n.load(Ordering::SeqCst)), (2, 8));

    // From a thread of another pool, and from the pool itself.
    let other = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let got = other.install(|| {
        let local = Rc::new(5);
        pool.in_place_scope(|s| {
            s.spawn(|_| assert!(blitz_par::current_thread_index().is_some()));
            *local
        })
    });
    assert_eq!(got, 5);
    let got = pool.install(|| {
        let local = Rc::new(6);
        blitz_par::in_place_scope(|s| {
            s.spawn(|_| ());
            *local
        })
    });
    assert_eq!(got, 6);

    // The free functions outside every pool.
    let local = Rc::new(7);
    let mut x = 0;
    let got = blitz_par::in_place_scope(|s| {
        s.spawn(|_| x += 1);
        *local
    });
    assert_eq!((got, x), (7, 1));
}

#[test]
fn in_place_scope_reraises_a_job_panic_after_all_jobs() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let finished = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.in_place_scope(|s| {
            s.spawn(|_| panic!("job failed"));
            for _ in 0..4 {
                s.spawn(|_| {
                    finished.fetch_add(1, Ordering::SeqCst);
                });
            }
        })
    }));
    assert!(result.is_err());
    assert_eq!(finished.load(Ordering::SeqCst), 4);
}

/// Prints the global pool's size. Run only in a child process by
/// `environment_variables_size_the_global_pool`, with the variables under test set.
#[test]
#[ignore = "run in a child process by environment_variables_size_the_global_pool"]
fn child_prints_the_global_pool_size() {
    println!("threads={}", blitz_par::current_num_threads());
    println!("CHILD-DONE");
}

/// Runs `child_prints_the_global_pool_size` in a new process of this test binary with `vars`
/// set (and neither variable inherited); returns the pool size it printed and its stderr.
fn global_pool_size_with(vars: &[(&str, &str)]) -> (usize, String) {
    let (stdout, stderr) = support::run_child_output("child_prints_the_global_pool_size", vars);
    // libtest prints the test's name on the same line, before the output.
    let threads = stdout
        .split("threads=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no size printed: {stdout}\n{stderr}"))
        .parse()
        .unwrap();
    (threads, stderr)
}

/// `BLITZ_NUM_THREADS` sizes the global pool; unset, `RAYON_NUM_THREADS` does (so that a
/// deployment configured for rayon keeps its limit), where 0 means the default as in rayon.
/// A value that is not a positive integer is reported on stderr, naming the variable, and
/// the next source decides.
#[test]
fn environment_variables_size_the_global_pool() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let quiet = |stderr: &str| !stderr.contains("blitz-par:");
    let (n, err) = global_pool_size_with(&[]);
    assert_eq!(n, cpus);
    assert!(quiet(&err), "{err}");
    let (n, err) = global_pool_size_with(&[("BLITZ_NUM_THREADS", "3")]);
    assert_eq!(n, 3);
    assert!(quiet(&err), "{err}");
    let (n, err) = global_pool_size_with(&[("RAYON_NUM_THREADS", "5")]);
    assert_eq!(n, 5);
    assert!(quiet(&err), "{err}");
    let (n, _) = global_pool_size_with(&[("BLITZ_NUM_THREADS", "2"), ("RAYON_NUM_THREADS", "5")]);
    assert_eq!(n, 2);
    let (n, err) = global_pool_size_with(&[("RAYON_NUM_THREADS", "0")]);
    assert_eq!(n, cpus);
    assert!(quiet(&err), "{err}");
    for bad in ["abc", "0", "-1", ""] {
        let (n, err) = global_pool_size_with(&[("BLITZ_NUM_THREADS", bad)]);
        assert_eq!(n, cpus, "BLITZ_NUM_THREADS={bad:?}");
        assert!(
            err.contains(&format!("ignoring BLITZ_NUM_THREADS={bad:?}")),
            "BLITZ_NUM_THREADS={bad:?}: {err}"
        );
    }
    let (n, err) = global_pool_size_with(&[("BLITZ_NUM_THREADS", "x"), ("RAYON_NUM_THREADS", "4")]);
    assert_eq!(n, 4);
    assert!(err.contains("ignoring BLITZ_NUM_THREADS=\"x\""), "{err}");
    assert!(err.contains("using 4 threads"), "{err}");
    let (n, err) = global_pool_size_with(&[("RAYON_NUM_THREADS", "many")]);
    assert_eq!(n, cpus);
    assert!(err.contains("ignoring RAYON_NUM_THREADS=\"many\""), "{err}");
}
