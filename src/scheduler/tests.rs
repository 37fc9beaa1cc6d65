//! Scheduler tests that look at internal state: workers fall asleep when idle, the heartbeat
//! wakes them for long work, guests leave no trace.

use super::builder::ThreadPoolBuilder;
use super::registry::has_seat;
use crate::watchdog::{within, LIVENESS};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn wait_for(mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

fn busy_tree(depth: u32, on_worker: &AtomicUsize) -> u64 {
    if depth == 0 {
        if super::current_thread_index().is_some() {
            on_worker.fetch_add(1, Ordering::Relaxed);
        }
        return 1;
    }
    let (a, b) = super::join(
        || busy_tree(depth - 1, on_worker),
        || busy_tree(depth - 1, on_worker),
    );
    a + b
}

#[test]
fn idle_workers_go_to_sleep() {
    within(
        LIVENESS,
        "a pool woken for an install ran it and its workers went back to sleep",
        || {
            let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            let counter = AtomicUsize::new(0);
            pool.install(|| busy_tree(16, &counter));
            let registry = pool.registry.clone();
            assert!(
                wait_for(|| registry.sleep.sleeping_workers() == 3),
                "idle workers must end up asleep (sleeping = {})",
                registry.sleep.sleeping_workers()
            );
        },
    );
}

#[test]
fn heartbeat_wakes_sleepers_for_long_guest_work() {
    // The global pool's workers are asleep; a long computation on an outside thread must
    // reach them through the heartbeat (no idle thread is awake to ask for work).
    // On a loaded machine a woken worker may not get a core before a short computation ends,
    // so the work grows (up to ~10 ms) and the test gives up only after a deadline.
    // A global pool of one thread (a machine with one CPU) records no frame on its guests, so
    // no leaf can move: one round checks the result there.
    let counter = AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut depth = 18;
    let mut rounds = 0;
    while counter.load(Ordering::Relaxed) == 0
        && Instant::now() < deadline
        && (rounds == 0 || super::current_num_threads() > 1)
    {
        rounds += 1;
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(busy_tree(depth, &counter), 1 << depth);
        depth = (depth + 1).min(22);
    }
    if super::current_num_threads() > 1 {
        assert!(
            counter.load(Ordering::Relaxed) > 0,
            "no leaf ever ran on a worker"
        );
    }
    assert!(!has_seat(), "the guest seat is released after the call");
}

#[test]
fn tiny_outside_work_does_not_wake_workers() {
    within(
        LIVENESS,
        "a short install into a sleeping pool was run by a woken worker",
        || {
            let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            let registry = pool.registry.clone();
            assert!(wait_for(|| registry.sleep.sleeping_workers() == 2));
            let counter = AtomicUsize::new(0);
            // A short join tree (far under a heartbeat period) on one worker: the injection wakes one
            // worker to run it, and nothing may wake its sibling.
            pool.install(|| busy_tree(4, &counter));
            assert!(registry.sleep.sleeping_workers() >= 1);
        },
    );
}

/// Small enough for Miri: joins whose frames get promoted and stolen, scopes, spawns.
#[test]
fn small_join_scope_spawn() {
    within(
        LIVENESS,
        "joins, scopes and spawns on a pool of two woke and finished",
        || {
            let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            let counter = AtomicUsize::new(0);
            for _ in 0..if cfg!(miri) { 2 } else { 50 } {
                assert_eq!(pool.install(|| busy_tree(6, &counter)), 64);
                assert_eq!(busy_tree(5, &counter), 32);
                let mut v = [0u8; 8];
                pool.scope(|s| {
                    for (i, x) in v.iter_mut().enumerate() {
                        s.spawn(move |_| *x = i as u8);
                    }
                });
                assert_eq!(v, [0, 1, 2, 3, 4, 5, 6, 7]);
                // Closures that capture `&mut` halves: a recorded join keeps two bitwise copies
                // of its `b` (its own and the frame's) and uses exactly one.
                let mut w = [0u32; 32];
                pool.install(|| fill_halves(&mut w, 0));
                assert!(w.iter().enumerate().all(|(i, &x)| x == i as u32));
                let r = std::panic::catch_unwind(|| super::join(|| 1, || -> i32 { panic!("b") }));
                assert!(r.is_err());
                // Deeper than the recording window: unrecorded joins, with and without a panic.
                assert_eq!(pool.install(|| chain(12, false)), 78);
                let r = std::panic::catch_unwind(|| pool.install(|| chain(12, true)));
                assert!(r.is_err());
            }
        },
    );
}

/// Writes each element's index into `s` (`start` for the first), halving it with a join at
/// every level, each closure holding one `&mut` half.
fn fill_halves(s: &mut [u32], start: u32) {
    if let [only] = s {
        *only = start;
        return;
    }
    let mid = s.len() / 2;
    let (left, right) = s.split_at_mut(mid);
    super::join(
        || fill_halves(left, start),
        || fill_halves(right, start + mid as u32),
    );
}

/// A chain of nested joins `n` deep (`b` returns its level); panics at the bottom if asked.
fn chain(n: u32, panic_at_bottom: bool) -> u32 {
    if n == 0 {
        assert!(!panic_at_bottom, "bottom");
        return 0;
    }
    let (a, b) = super::join(|| chain(n - 1, panic_at_bottom), || n);
    a + b
}

/// A pool dropped as soon as a watched loop's rest came back: the watchman may still be in
/// the injection that handed the rest out (it reads the sleep state after the push), so it
/// must hold the registry itself. ThreadSanitizer reported the read racing with the free
/// before the watchman took a strong count; here every round ends that way.
#[test]
fn a_pool_dropped_right_after_a_rescue() {
    within(
        LIVENESS,
        "a watched loop's rest, handed to a worker, ran and came back",
        || {
            use std::sync::atomic::AtomicBool;
            for _ in 0..if cfg!(miri) { 2 } else { 20 } {
                let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
                let handed_out = AtomicBool::new(false);
                let rest = pool.install(|| {
                    let ((), rest) = super::watch::watch(
                        2,
                        0,
                        crate::sync::ticks(),
                        7u32,
                        |x, _elapsed| {
                            handed_out.store(true, Ordering::Release);
                            x + 1
                        },
                        || {
                            // The first chunk runs until the rest has run elsewhere (20 s guard).
                            assert!(wait_for(|| handed_out.load(Ordering::Acquire)));
                        },
                    );
                    rest
                });
                assert_eq!(rest, Err(8), "the rest was not handed out");
                drop(pool);
            }
        },
    );
}

/// A pool's only seat records no join frame, since no other thread could take one; a seat
/// with a neighbour (another worker, or guest seats) records. On the only seat, joins still
/// run both closures in order, report no migration, and propagate `a`'s panic after `b` ran.
#[test]
fn only_seat_records_no_frame() {
    use super::registry::Owner;
    let records = |pool: &super::ThreadPool| {
        pool.install(|| Owner::with_current(|owner| owner.expect("in the pool").records()))
    };
    let one = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert!(!records(&one), "the only seat recorded a frame");
    let two = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert!(records(&two), "a seat with a neighbour did not record");
    let with_guests = ThreadPoolBuilder::new()
        .num_threads(1)
        .pool_threads_only(false)
        .build()
        .unwrap();
    assert!(
        records(&with_guests),
        "a worker beside guest seats did not record"
    );

    let counter = AtomicUsize::new(0);
    assert_eq!(one.install(|| busy_tree(12, &counter)), 1 << 12);
    let order = std::sync::Mutex::new(Vec::new());
    let migrated = one.install(|| {
        super::join_context(
            |a| {
                order.lock().unwrap().push('a');
                a.migrated()
            },
            |b| {
                order.lock().unwrap().push('b');
                b.migrated()
            },
        )
    });
    assert_eq!(migrated, (false, false));
    assert_eq!(*order.lock().unwrap(), ['a', 'b']);
    let b_ran = AtomicUsize::new(0);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        one.install(|| {
            super::join(
                || panic!("a's panic"),
                || b_ran.fetch_add(1, Ordering::Relaxed),
            )
        })
    }));
    let payload = caught.expect_err("a's panic was lost");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"a's panic"));
    assert_eq!(
        b_ran.load(Ordering::Relaxed),
        1,
        "b did not run after a panicked"
    );
    assert_eq!(one.install(|| super::join(|| 1, || 2)), (1, 2));
}

/// A pool's only seat has no thief, but its joins must still poll: a cancel reaches running
/// work through the request flag of every seat (`Registry::interrupt`), which the join's poll
/// reads. Work of a dropped `spawn_future` task made of joins alone (no loop of the iterator
/// driver) stops at its next join on a pool of one thread; a join that skipped its poll there
/// would run all 2^16 leaves.
#[test]
fn only_seat_join_notices_a_cancel() {
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc::channel;
    use std::sync::Arc;

    fn leaves(depth: u32, count: &AtomicUsize) {
        if depth == 0 {
            count.fetch_add(1, Ordering::Relaxed);
            return;
        }
        super::join(|| leaves(depth - 1, count), || leaves(depth - 1, count));
    }
    /// Sends the leaf count when the task's closure ends, returned or unwound.
    struct Report(Arc<AtomicUsize>, std::sync::mpsc::Sender<usize>);
    impl Drop for Report {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.load(Ordering::Relaxed));
        }
    }

    within(LIVENESS, "cancelled join-only work ended", || {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert!(
            !pool.install(|| super::registry::Owner::with_current(|o| o.unwrap().records())),
            "not the only seat"
        );
        let (started_tx, started) = channel();
        let (report_tx, report) = channel();
        let dropped = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicUsize::new(0));
        let future = {
            let (dropped, count) = (dropped.clone(), count.clone());
            pool.spawn_future(move || {
                let _report = Report(count.clone(), report_tx);
                started_tx.send(()).unwrap();
                // No poll until the future is gone: the cancel is in place before the joins.
                while !dropped.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
                leaves(16, &count);
            })
        };
        started.recv().unwrap();
        drop(future);
        dropped.store(true, Ordering::Release);
        let ran = report.recv().unwrap();
        assert_eq!(ran, 0, "the joins ran {ran} leaves after the cancel");
    });
}

/// A thread that runs a job taken from a queue while older frames of its own wait unpromoted
/// (a scope's wait, or `yield_now`, inside a join's `a`) must not promote them under that
/// job's cancel token: a cancel of the job's work would then stop the outer join's `b`, which
/// belongs to no cancelled work, and the outer join would unwind with the private `Cancelled`
/// payload. The job here is what a stolen `try_join` closure is (a frame carrying the call's
/// node), and it promotes (a nested `try_join`, as a sort's `share` would) before its node is
/// cancelled.
#[test]
fn a_job_run_in_a_wait_does_not_promote_older_frames_under_its_token() {
    use super::future_slot::CancelNode;
    use super::job::HeapJob;
    use super::registry::Owner;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    within(
        LIVENESS,
        "an outer join around a job of cancelled work returned",
        || {
            let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            for _ in 0..50 {
                let outcome = pool.install(|| {
                    catch_unwind(AssertUnwindSafe(|| {
                        super::join(
                            || {
                                Owner::with_current(|owner| {
                                    let owner = owner.expect("a pool thread has a seat");
                                    let node = CancelNode::new(owner.cancel_token());
                                    let token = node.token();
                                    let job = HeapJob::into_job_ref(move || {
                                        Owner::with_current(|owner| {
                                            let owner = owner.expect("run in a seat");
                                            // SAFETY: the node outlives the job, which runs
                                            // before `run_job` below returns.
                                            unsafe {
                                                owner.with_cancel_token(token, || {
                                                    let _ = super::try_join(
                                                        || Ok::<_, ()>(1),
                                                        || Ok::<_, ()>(2),
                                                    );
                                                })
                                            }
                                        })
                                    });
                                    // As a scope's wait runs a job it found.
                                    // SAFETY: a fresh job, run once.
                                    unsafe { owner.run_job(job) };
                                    node.cancel();
                                    // The wait goes on: it may take the outer frame itself.
                                    owner.yield_one(true);
                                })
                            },
                            || 7,
                        )
                    }))
                });
                match outcome {
                    Ok(((), b)) => assert_eq!(b, 7),
                    Err(payload) => panic!(
                        "the outer join unwound (with `Cancelled`: {})",
                        payload.is::<super::future_slot::Cancelled>()
                    ),
                }
            }
        },
    );
}

/// The watchdog of the liveness tests (`tests/common/watchdog.rs`) passes results and panics
/// on, and names what did not happen.
mod watchdog {
    use crate::watchdog::within;
    use std::time::Duration;

    #[test]
    fn passes_the_result_on() {
        assert_eq!(within(Duration::from_secs(10), "an addition", || 1 + 1), 2);
    }

    #[test]
    #[should_panic(expected = "the impossible did not happen within 50ms")]
    fn names_what_did_not_happen() {
        within(Duration::from_millis(50), "the impossible", || loop {
            std::thread::park();
        });
    }

    #[test]
    #[should_panic(expected = "the body's own panic")]
    fn passes_a_panic_on() {
        within(Duration::from_secs(10), "a panic", || -> () {
            panic!("the body's own panic")
        });
    }
}
