//! Public-API tests of the scheduler: join, scopes, spawns, broadcasts, pools, panics. A test
//! whose progress needs a wake-up (a job taken by a worker that sleeps when it starts, a latch
//! setter waking its waiter) runs under the watchdog, which fails it in bounded time.

#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::{ThreadPool, ThreadPoolBuilder};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;
use watchdog::{within, LIVENESS};

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = blitz_par::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn join_computes_fib_outside_and_inside_pools() {
    assert_eq!(fib(25), 75025);
    for n in [1, 2, 4] {
        assert_eq!(pool(n).install(|| fib(22)), 17711);
    }
}

#[test]
fn join_runs_in_parallel_when_work_is_long() {
    // Two closures that each wait for the other: only completes if they run on two threads.
    within(
        LIVENESS,
        "a join's `b`, promoted while its `a` kept joining, ran on the other worker",
        || {
            let p = pool(2);
            let (tx1, rx1) = mpsc::channel::<()>();
            let (tx2, rx2) = mpsc::channel::<()>();
            p.install(|| {
                blitz_par::join(
                    move || {
                        // Keep joining so the heartbeat/split requests have a chance to
                        // promote `b`.
                        loop {
                            if rx2.try_recv().is_ok() {
                                break;
                            }
                            blitz_par::join(std::thread::yield_now, || ());
                        }
                        tx1.send(()).unwrap();
                    },
                    move || {
                        tx2.send(()).unwrap();
                        rx1.recv().unwrap();
                    },
                )
            });
        },
    );
}

#[test]
fn join_context_reports_migration() {
    let p = pool(2);
    let migrated = p.install(|| {
        let (a, _) = blitz_par::join_context(|ctx| ctx.migrated(), |_| ());
        a
    });
    assert!(!migrated);
}

#[test]
fn join_panics_propagate_after_both_finish() {
    let p = pool(2);
    for _ in 0..50 {
        let b_ran = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            p.install(|| {
                blitz_par::join(
                    || panic!("A"),
                    || {
                        b_ran.fetch_add(1, Ordering::SeqCst);
                    },
                )
            })
        }));
        assert_eq!(*r.unwrap_err().downcast::<&str>().unwrap(), "A");
        assert_eq!(
            b_ran.load(Ordering::SeqCst),
            1,
            "B still runs when A panics"
        );

        let r = catch_unwind(AssertUnwindSafe(|| {
            blitz_par::join(|| 1, || -> u32 { panic!("B") })
        }));
        assert_eq!(*r.unwrap_err().downcast::<&str>().unwrap(), "B");

        let r = catch_unwind(AssertUnwindSafe(|| {
            blitz_par::join(|| -> u32 { panic!("A") }, || -> u32 { panic!("B") })
        }));
        assert_eq!(
            *r.unwrap_err().downcast::<&str>().unwrap(),
            "A",
            "A's panic wins"
        );
    }
    // The pool still works.
    assert_eq!(p.install(|| fib(20)), 6765);
    assert_eq!(fib(20), 6765);
}

#[test]
fn deep_panics_inside_recursion_leave_pool_usable() {
    fn rec(n: u32) -> u32 {
        if n == 0 {
            panic!("leaf");
        }
        let (a, b) = blitz_par::join(|| rec(n - 1), || if n % 2 == 0 { rec(n - 1) } else { 1 });
        a + b
    }
    let p = pool(2);
    for _ in 0..20 {
        assert!(catch_unwind(|| p.install(|| rec(12))).is_err());
        assert!(catch_unwind(|| rec(10)).is_err());
    }
    assert_eq!(p.install(|| fib(18)), 2584);
}

/// Past the first few levels (and past 64) joins skip recording their frame: at every depth
/// `b` must still run exactly once after `a` panics, and the panic must reach the caller.
#[test]
fn deep_joins_run_b_once_after_a_panics() {
    fn chain(n: u32, b_runs: &AtomicUsize, drops: &AtomicUsize) -> u32 {
        if n == 0 {
            panic!("bottom");
        }
        let guard = DropCounter(drops);
        let (a, b) = blitz_par::join(
            || chain(n - 1, b_runs, drops),
            move || {
                let _guard = guard;
                b_runs.fetch_add(1, Ordering::SeqCst);
                1
            },
        );
        a + b
    }
    for threads in [1, 2] {
        let p = pool(threads);
        for n in [1, 5, 9, 20, 70, 100] {
            let b_runs = AtomicUsize::new(0);
            let drops = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| p.install(|| chain(n, &b_runs, &drops))));
            assert_eq!(*r.unwrap_err().downcast::<&str>().unwrap(), "bottom");
            assert_eq!(b_runs.load(Ordering::SeqCst), n as usize);
            assert_eq!(drops.load(Ordering::SeqCst), n as usize);
        }
        assert_eq!(p.install(|| fib(20)), 6765);
    }
}

struct DropCounter<'a>(&'a AtomicUsize);
impl Drop for DropCounter<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn join_drops_each_closure_and_result_once() {
    let drops = &AtomicUsize::new(0);
    let p = pool(2);
    for i in 0..200 {
        let a = DropCounter(drops);
        let b = DropCounter(drops);
        let r = catch_unwind(AssertUnwindSafe(|| {
            p.install(|| {
                blitz_par::join(
                    move || {
                        let _a = a;
                        if i % 3 == 0 {
                            panic!("x");
                        }
                        DropCounter(drops)
                    },
                    move || {
                        let _b = b;
                        if i % 5 == 0 {
                            panic!("y");
                        }
                        DropCounter(drops)
                    },
                )
            })
        }));
        drop(r);
    }
    // Per round: the two captures, plus each result that was produced.
    let produced: usize = (0..200)
        .map(|i| usize::from(i % 3 != 0) + usize::from(i % 5 != 0))
        .sum();
    assert_eq!(drops.load(Ordering::SeqCst), 400 + produced);
}

#[test]
fn scope_waits_for_all_jobs_and_allows_borrows() {
    let mut v = vec![0usize; 1000];
    blitz_par::scope(|s| {
        for (i, chunk) in v.chunks_mut(10).enumerate() {
            s.spawn(move |s| {
                for x in chunk.iter_mut() {
                    *x = i;
                }
                s.spawn(|_| ());
            });
        }
    });
    assert!(v.iter().enumerate().all(|(j, &x)| x == j / 10));
    let p = pool(3);
    let count = AtomicUsize::new(0);
    p.scope(|s| {
        for _ in 0..100 {
            s.spawn(|s| {
                count.fetch_add(1, Ordering::SeqCst);
                s.spawn(|_| {
                    count.fetch_add(1, Ordering::SeqCst);
                });
            });
        }
    });
    assert_eq!(count.load(Ordering::SeqCst), 200);
}

#[test]
fn scope_reraises_first_panic_after_all_jobs() {
    let p = pool(2);
    let finished = AtomicUsize::new(0);
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.scope(|s| {
            for i in 0..20 {
                let finished = &finished;
                s.spawn(move |_| {
                    if i == 7 {
                        panic!("job 7");
                    }
                    std::thread::sleep(Duration::from_millis(1));
                    finished.fetch_add(1, Ordering::SeqCst);
                });
            }
        })
    }));
    assert!(r.is_err());
    assert_eq!(
        finished.load(Ordering::SeqCst),
        19,
        "every other job finished first"
    );
    // A panicking body too.
    let r = catch_unwind(|| blitz_par::scope(|_| panic!("body")));
    assert_eq!(*r.unwrap_err().downcast::<&str>().unwrap(), "body");
    assert_eq!(p.install(|| fib(15)), 610);
}

#[test]
fn scope_fifo_starts_jobs_in_order_on_one_thread() {
    let p = pool(1);
    let order = Mutex::new(Vec::new());
    p.scope_fifo(|s| {
        for i in 0..50 {
            let order = &order;
            s.spawn_fifo(move |_| order.lock().unwrap().push(i));
        }
    });
    assert_eq!(order.into_inner().unwrap(), (0..50).collect::<Vec<_>>());
    // More jobs than the scope's queue holds without a lock (64), and a job that spawns
    // another once the first ones have run: it starts after every job spawned before it.
    let order = Mutex::new(Vec::new());
    p.scope_fifo(|s| {
        let order = &order;
        for i in 0..150 {
            s.spawn_fifo(move |s| {
                order.lock().unwrap().push(i);
                if i < 3 {
                    s.spawn_fifo(move |_| order.lock().unwrap().push(150 + i));
                }
            });
        }
    });
    assert_eq!(order.into_inner().unwrap(), (0..153).collect::<Vec<_>>());
    let n = AtomicUsize::new(0);
    blitz_par::in_place_scope_fifo(|s| {
        for _ in 0..100 {
            s.spawn_fifo(|_| {
                n.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    assert_eq!(n.load(Ordering::SeqCst), 100);
}

#[test]
fn spawn_runs_and_panics_reach_the_handler() {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let p = ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |p| {
            let msg = p.downcast::<&str>().map(|s| *s).unwrap_or("?");
            tx.lock().unwrap().send(msg.to_string()).unwrap();
        })
        .build()
        .unwrap();
    p.spawn(|| panic!("spawned"));
    let panicked = watchdog::recv(&rx, "the spawned job's panic reached the handler");
    assert_eq!(panicked, "spawned");
    let (tx2, rx2) = mpsc::channel();
    for i in 0..100 {
        let tx2 = tx2.clone();
        p.spawn(move || tx2.send(i).unwrap());
    }
    let mut got: Vec<i32> = (0..100)
        .map(|_| watchdog::recv(&rx2, "each of 100 spawned jobs ran"))
        .collect();
    got.sort();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn dropping_a_pool_returns_and_its_threads_run_the_spawned_work_before_exiting() {
    within(
        LIVENESS,
        "a dropped pool's workers ran its spawned jobs and exited",
        dropping_a_pool_returns_and_its_threads_run_the_spawned_work_before_exiting_body,
    );
}

fn dropping_a_pool_returns_and_its_threads_run_the_spawned_work_before_exiting_body() {
    let (events, seen) = mpsc::channel();
    let exits = Mutex::new(events.clone());
    let p = ThreadPoolBuilder::new()
        .num_threads(3)
        .exit_handler(move |_| exits.lock().unwrap().send("exit").unwrap())
        .build()
        .unwrap();
    for _ in 0..10 {
        let events = events.clone();
        p.spawn(move || {
            std::thread::sleep(Duration::from_millis(2));
            events.send("job").unwrap();
        });
    }
    drop(events);
    // As in rayon, the drop does not wait for the jobs.
    drop(p);
    // The channel closes when the last job and the pool's state (which holds the exit handler)
    // are gone. Every job ran before any worker exited.
    let events: Vec<&str> = seen.iter().collect();
    let mut expected = vec!["job"; 10];
    expected.extend(["exit"; 3]);
    assert_eq!(events, expected);
}

#[test]
fn broadcast_runs_once_per_thread() {
    let p = pool(4);
    let r = p.broadcast(|ctx| {
        (
            ctx.index(),
            ctx.num_threads(),
            blitz_par::current_thread_index(),
        )
    });
    assert_eq!(r, (0..4).map(|i| (i, 4, Some(i))).collect::<Vec<_>>());
    let r = blitz_par::broadcast(|ctx| ctx.index());
    assert_eq!(r.len(), blitz_par::current_num_threads());
    // From inside the pool, too.
    let r = p.install(|| blitz_par::broadcast(|ctx| ctx.index()));
    assert_eq!(r, vec![0, 1, 2, 3]);
}

#[test]
fn broadcast_from_every_kind_of_caller() {
    within(
        LIVENESS,
        "broadcasts from outside, from another pool and from a guest reached every worker",
        broadcast_from_every_kind_of_caller_body,
    );
}

fn broadcast_from_every_kind_of_caller_body() {
    let p = pool(3);
    let other = pool(2);
    let expected = vec![0, 1, 2];
    // From a thread outside every pool (it hands out the jobs and blocks), from a worker of
    // another pool (it waits in its own seat), and from a guest of the pool.
    assert_eq!(p.broadcast(|ctx| ctx.index()), expected);
    assert_eq!(other.install(|| p.broadcast(|ctx| ctx.index())), expected);
    assert_eq!(
        other
            .install(|| blitz_par::join(|| p.broadcast(|c| c.index()), || 1))
            .0,
        expected
    );
    // Several outside threads at once, each call waiting for its own results.
    std::thread::scope(|s| {
        for t in 0..4usize {
            let p = &p;
            s.spawn(move || {
                for i in 0..200usize {
                    let r = p.broadcast(|ctx| ctx.index() * 1_000 + t + i);
                    assert_eq!(r, [t + i, 1_000 + t + i, 2_000 + t + i]);
                }
            });
        }
    });
    // A panic on one thread reaches the outside caller after every part has run, and the
    // pool goes on.
    let ran = AtomicUsize::new(0);
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.broadcast(|ctx| {
            ran.fetch_add(1, Ordering::SeqCst);
            assert_ne!(ctx.index(), 1, "broadcast part 1 panics");
        })
    }));
    assert!(r.is_err());
    assert_eq!(ran.load(Ordering::SeqCst), 3);
    assert_eq!(p.broadcast(|ctx| ctx.index()), expected);
}

#[test]
fn install_from_another_pool_and_thread_indices() {
    let a = pool(2);
    let b = pool(3);
    let (na, nb) = a.install(|| {
        (
            blitz_par::current_num_threads(),
            b.install(blitz_par::current_num_threads),
        )
    });
    assert_eq!((na, nb), (2, 3));
    assert_eq!(b.current_thread_index(), None);
    assert!(b.install(|| b.current_thread_index()).is_some());
    assert_eq!(a.install(|| b.current_thread_index()), None);
    let r = catch_unwind(AssertUnwindSafe(|| {
        a.install(|| -> () { panic!("in install") })
    }));
    assert!(r.is_err());
    assert_eq!(a.install(|| 5), 5);
}

/// A thread waiting in its own pool's seat for another pool (`install`, `in_place_scope`,
/// `broadcast` into another pool) returns as soon as it reads its latch SET, and its pool may
/// then be dropped and freed at once, sleep word included: the other pool's worker, which set
/// the latch, must be done with that word by then (scheduler README, "Jobs and latches").
/// Short-lived pools installing into each other from several threads, each dropped right
/// after; every other round the waits are long enough for the waiter to fall asleep.
#[test]
fn cross_pool_waits_then_the_waiting_pool_is_dropped() {
    within(
        LIVENESS,
        "waits across pools (install, in_place_scope, broadcast) were woken by their setters",
        cross_pool_waits_then_the_waiting_pool_is_dropped_body,
    );
}

fn cross_pool_waits_then_the_waiting_pool_is_dropped_body() {
    let rounds = if cfg!(miri) { 2 } else { 60 };
    std::thread::scope(|s| {
        for t in 0..4usize {
            s.spawn(move || {
                for round in 0..rounds {
                    let nap = Duration::from_micros(if round % 2 == 0 { 0 } else { 1000 });
                    let other = pool(1);
                    // This thread becomes worker 0 of `mine` and waits for `other` in seat 0.
                    let mine = ThreadPoolBuilder::new()
                        .num_threads(1)
                        .use_current_thread()
                        .build()
                        .unwrap();
                    let r = other.install(|| {
                        std::thread::sleep(nap);
                        t + round
                    });
                    assert_eq!(r, t + round);
                    let mut x = 0;
                    other.in_place_scope(|sc| {
                        sc.spawn(|_| {
                            std::thread::sleep(nap);
                            x = 1;
                        })
                    });
                    assert_eq!(x, 1);
                    // No other worker to wait for: seat 0 is freed at once.
                    drop(mine);
                    // A spawned worker of `theirs` waits for `other`; then `theirs` goes.
                    let theirs = pool(2);
                    let r = theirs.install(|| {
                        other.broadcast(|ctx| {
                            std::thread::sleep(nap);
                            ctx.index()
                        })
                    });
                    assert_eq!(r, [0]);
                    drop(theirs);
                    drop(other);
                }
            });
        }
    });
}

#[test]
fn many_outside_threads_join_at_once() {
    // More outside threads than guest seats: the extra ones fall back to injection.
    within(
        LIVENESS,
        "80 outside threads' joins (16 of them injected, for want of a guest seat) finished",
        || {
            let handles: Vec<_> = (0..80)
                .map(|_| std::thread::spawn(|| (0..20).map(|_| fib(12)).sum::<u64>()))
                .collect();
            for h in handles {
                assert_eq!(h.join().unwrap(), 20 * 144);
            }
        },
    );
}

#[test]
fn build_global_twice_fails() {
    let _ = ThreadPoolBuilder::new().build_global();
    let err = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert!(err.to_string().contains("already"));
}

#[test]
fn yield_now_outside_and_inside() {
    assert_eq!(blitz_par::yield_now(), None);
    let p = pool(1);
    assert_eq!(
        p.install(blitz_par::yield_local),
        Some(blitz_par::Yield::Idle)
    );
}

#[test]
fn a_scope_job_is_stealable_while_its_spawner_blocks() {
    // What `join`'s documentation offers for closures that wait for each other: a spawned
    // job is taken by another thread even while the spawning thread blocks.
    within(
        LIVENESS,
        "a spawned job ran on another worker while its spawner blocked waiting for it",
        || {
            let p = pool(2);
            for _ in 0..50 {
                let got = p.install(|| {
                    let (tx, rx) = mpsc::channel();
                    blitz_par::scope(move |s| {
                        s.spawn(move |_| tx.send(7).unwrap());
                        rx.recv().unwrap()
                    })
                });
                assert_eq!(got, 7);
            }
        },
    );
}
