//! `spawn_future` through the public API: many futures awaited from tokio's multi-threaded
//! runtime and from `futures::executor::block_on`, all results checked; where the work runs;
//! cancellation by drop and by timeout, with every capture dropped once.
//!
//! A lost wake-up would leave an await pending forever. Each run therefore happens under the
//! project's watchdog (`tests/common/watchdog.rs`): past its limit (minutes, far beyond the
//! seconds a run takes even in a debug build on a loaded machine), the test fails, and says
//! how many futures had finished, which tells a lost wake-up (work done, task never woken)
//! from work that never ran.

#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use std::collections::HashSet;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

/// The watchdog's limit here: the stress runs take seconds in a debug build, and about a
/// minute under ThreadSanitizer on a loaded 2-core machine, longer than `LIVENESS` allows.
const LIMIT: Duration = Duration::from_secs(300);

/// Runs `run` under the watchdog (`LIMIT`). If it fails (the limit passed, or the run
/// panicked), first reports how many futures had completed their work (`progress`).
fn bounded(what: &str, progress: Arc<AtomicUsize>, run: impl FnOnce() + Send + 'static) {
    let watched = catch_unwind(AssertUnwindSafe(|| watchdog::within(LIMIT, what, run)));
    if let Err(payload) = watched {
        eprintln!(
            "{what}: {} futures had completed their work",
            progress.load(Ordering::SeqCst)
        );
        resume_unwind(payload);
    }
}

/// Sum of `k..k + 1000`.
fn expected(k: u64) -> u64 {
    1000 * k + 999 * 1000 / 2
}

#[test]
fn hundred_thousand_futures_from_a_tokio_multi_thread_runtime() {
    const FUTURES: u64 = 100_000;
    let progress = Arc::new(AtomicUsize::new(0));
    let done = progress.clone();
    bounded("100,000 futures on tokio", progress, move || {
        // The runtime's threads are the ones that poll: the work must never run on them.
        let pollers: Arc<Mutex<HashSet<ThreadId>>> = Arc::default();
        let record = pollers.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .on_thread_start(move || {
                record.lock().unwrap().insert(std::thread::current().id());
            })
            .build()
            .unwrap();
        let wrong = runtime.block_on(async move {
            let tasks: Vec<_> = (0..FUTURES)
                .map(|k| {
                    let (done, pollers) = (done.clone(), pollers.clone());
                    tokio::spawn(async move {
                        let sum = blitz_par::spawn_future(move || {
                            assert!(
                                !pollers
                                    .lock()
                                    .unwrap()
                                    .contains(&std::thread::current().id()),
                                "the work ran on an executor thread"
                            );
                            let sum: u64 = (k..k + 1000).into_par_iter().sum();
                            done.fetch_add(1, Ordering::SeqCst);
                            sum
                        })
                        .await;
                        sum != expected(k)
                    })
                })
                .collect();
            let mut wrong = 0;
            for task in tasks {
                wrong += usize::from(task.await.unwrap());
            }
            wrong
        });
        assert_eq!(wrong, 0, "futures with a wrong sum");
    });
}

#[test]
fn ten_thousand_futures_through_block_on() {
    let progress = Arc::new(AtomicUsize::new(0));
    let done = progress.clone();
    bounded("10,000 futures through block_on", progress, move || {
        // One at a time: each await races its own completion (register, then check).
        for k in 0..5_000u64 {
            let done = done.clone();
            let sum = futures::executor::block_on(blitz_par::spawn_future(move || {
                let sum: u64 = (k..k + 1000).into_par_iter().sum();
                done.fetch_add(1, Ordering::SeqCst);
                sum
            }));
            assert_eq!(sum, expected(k));
        }
        // All at once, polled by one `join_all` that re-polls each as it is woken.
        let futures: Vec<_> = (0..5_000u64)
            .map(|k| {
                let done = done.clone();
                blitz_par::spawn_future(move || {
                    let v: Vec<u64> = (k..k + 1000).collect();
                    done.fetch_add(1, Ordering::SeqCst);
                    v.par_iter().sum::<u64>()
                })
            })
            .collect();
        let sums = futures::executor::block_on(futures::future::join_all(futures));
        for (k, sum) in sums.into_iter().enumerate() {
            assert_eq!(sum, expected(k as u64));
        }
    });
}

/// Counts drops of a closure's capture.
struct Capture(Arc<AtomicUsize>);

impl Drop for Capture {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn timeouts_cancel_and_every_capture_drops_once() {
    const FUTURES: usize = 2_000;
    let drops = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let (d, r) = (drops.clone(), ran.clone());
    bounded("timeouts", ran.clone(), move || {
        let pool = Arc::new(
            blitz_par::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap(),
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap();
        let finished = runtime.block_on(async move {
            let tasks: Vec<_> = (0..FUTURES)
                .map(|i| {
                    let (pool, capture, ran) = (pool.clone(), Capture(d.clone()), r.clone());
                    tokio::spawn(async move {
                        let future = pool.spawn_future(move || {
                            let _capture = &capture;
                            ran.fetch_add(1, Ordering::SeqCst);
                            // Long enough that many time out while queued or running.
                            (0..20_000u64).into_par_iter().map(|x| x % 7).sum::<u64>()
                        });
                        // Some are dropped at once, the others after a short timeout.
                        if i % 3 == 0 {
                            drop(future);
                            return None;
                        }
                        tokio::time::timeout(Duration::from_micros(50), future)
                            .await
                            .ok()
                    })
                })
                .collect();
            let mut finished = 0;
            for task in tasks {
                if let Some(sum) = task.await.unwrap() {
                    assert_eq!(sum, (0..20_000u64).map(|x| x % 7).sum::<u64>());
                    finished += 1;
                }
            }
            finished
        });
        // Every task's closure is gone by now, run or not: each capture dropped exactly once.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while drops.load(Ordering::SeqCst) < FUTURES && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(drops.load(Ordering::SeqCst), FUTURES);
        assert!(ran.load(Ordering::SeqCst) >= finished);
    });
}

#[test]
fn a_future_moves_between_runtime_threads_and_is_still_woken() {
    let progress = Arc::new(AtomicUsize::new(0));
    bounded("moved future", progress, || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            for round in 0..200u64 {
                let (tx, rx) = channel::<()>();
                let mut future = blitz_par::spawn_future(move || {
                    rx.recv().unwrap();
                    round
                });
                // Poll once here (registering this task's waker), then hand the future to
                // another task, which registers its own.
                let first = std::future::poll_fn(|cx| {
                    std::task::Poll::Ready(std::pin::Pin::new(&mut future).poll(cx))
                })
                .await;
                assert!(first.is_pending());
                let other = tokio::spawn(future);
                tokio::task::yield_now().await;
                tx.send(()).unwrap();
                assert_eq!(other.await.unwrap(), round);
            }
        });
    });
}

/// Sends on drop: tells the test that a closure's stack has unwound (or returned).
struct Unwound(std::sync::mpsc::Sender<()>);

impl Drop for Unwound {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// A pool whose panic handler counts the panics that reach it: none may (a cancel unwinds
/// privately).
fn counting_pool(threads: usize) -> (blitz_par::ThreadPool, Arc<AtomicUsize>) {
    let handled = Arc::new(AtomicUsize::new(0));
    let count = handled.clone();
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .panic_handler(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    (pool, handled)
}

#[test]
fn a_running_parallel_loop_stops_when_its_future_is_dropped() {
    let progress = Arc::new(AtomicUsize::new(0));
    let items = progress.clone();
    bounded("cancelled loop", progress, move || {
        let (pool, handled) = counting_pool(2);
        let (unwound, unwinding) = channel();
        let counted = items.clone();
        // Some 10^12 items: days of work unless the cancel stops it.
        let future = pool.spawn_future(move || {
            let _unwound = Unwound(unwound);
            (0..1u64 << 40).into_par_iter().for_each(|_| {
                counted.fetch_add(1, Ordering::Relaxed);
            });
        });
        while items.load(Ordering::Relaxed) < 100_000 {
            std::thread::yield_now();
        }
        drop(future);
        unwinding.recv().unwrap();
        // Both threads are free again.
        assert_eq!(futures::executor::block_on(pool.spawn_future(|| 5)), 5);
        assert_eq!(
            handled.load(Ordering::SeqCst),
            0,
            "a cancel reached the panic handler"
        );
    });
}

#[test]
fn cancelled_scope_jobs_that_have_not_started_never_run() {
    const JOBS: usize = 10_000;
    let progress = Arc::new(AtomicUsize::new(0));
    let started = progress.clone();
    bounded("cancelled scope", progress, move || {
        let (pool, handled) = counting_pool(2);
        let (unwound, unwinding) = channel();
        let (first, first_ran) = channel();
        let drops = Arc::new(AtomicUsize::new(0));
        let (count, dropped) = (started.clone(), drops.clone());
        let future = pool.spawn_future(move || {
            let _unwound = Unwound(unwound);
            let first = Mutex::new(Some(first));
            blitz_par::scope(|s| {
                for _ in 0..JOBS {
                    let capture = Capture(dropped.clone());
                    let (count, first) = (&count, &first);
                    s.spawn(move |_| {
                        let _capture = capture;
                        count.fetch_add(1, Ordering::SeqCst);
                        if let Some(first) = first.lock().unwrap().take() {
                            first.send(()).unwrap();
                        }
                        // Each job a parallel loop of about a millisecond.
                        let sum: u64 = (0..1_000_000u64).into_par_iter().map(|x| x % 3).sum();
                        assert!(sum > 0);
                    });
                }
            });
        });
        first_ran.recv().unwrap();
        drop(future);
        unwinding.recv().unwrap();
        let ran = started.load(Ordering::SeqCst);
        assert!(
            ran < JOBS / 2,
            "{ran} of {JOBS} jobs started after the cancel"
        );
        assert_eq!(
            drops.load(Ordering::SeqCst),
            JOBS,
            "every job's capture dropped once"
        );
        assert_eq!(
            handled.load(Ordering::SeqCst),
            0,
            "a cancel reached the panic handler"
        );
        assert_eq!(futures::executor::block_on(pool.spawn_future(|| 6)), 6);
    });
}

#[test]
fn cancelled_recursive_joins_unwind_on_every_thread() {
    fn recurse(depth: u32, leaves: &AtomicUsize) -> u64 {
        if depth == 0 {
            leaves.fetch_add(1, Ordering::Relaxed);
            return (0..2_000u64).map(std::hint::black_box).sum();
        }
        let (a, b) = blitz_par::join(|| recurse(depth - 1, leaves), || recurse(depth - 1, leaves));
        a + b
    }
    let progress = Arc::new(AtomicUsize::new(0));
    let leaves = progress.clone();
    bounded("cancelled joins", progress, move || {
        let (pool, handled) = counting_pool(2);
        let (unwound, unwinding) = channel();
        let counted = leaves.clone();
        // 2^34 leaves: hours of work unless the cancel stops it.
        let future = pool.spawn_future(move || {
            let _unwound = Unwound(unwound);
            recurse(34, &counted)
        });
        while leaves.load(Ordering::Relaxed) < 10_000 {
            std::thread::yield_now();
        }
        drop(future);
        unwinding.recv().unwrap();
        assert_eq!(futures::executor::block_on(pool.spawn_future(|| 7)), 7);
        assert_eq!(
            handled.load(Ordering::SeqCst),
            0,
            "a cancel reached the panic handler"
        );
    });
}

#[test]
fn cancelling_one_task_leaves_the_others_alone() {
    let progress = Arc::new(AtomicUsize::new(0));
    bounded("cancel one of two", progress, || {
        let (pool, handled) = counting_pool(2);
        let (started, first_started) = channel();
        let cancelled = pool.spawn_future(move || {
            started.send(()).unwrap();
            (0..1u64 << 40).into_par_iter().for_each(|x| {
                std::hint::black_box(x);
            });
        });
        let kept = pool.spawn_future(|| {
            (0..3_000_000u64)
                .into_par_iter()
                .map(|x| x % 5)
                .sum::<u64>()
        });
        first_started.recv().unwrap();
        drop(cancelled);
        let expected: u64 = (0..3_000_000u64).map(|x| x % 5).sum();
        assert_eq!(futures::executor::block_on(kept), expected);
        assert_eq!(handled.load(Ordering::SeqCst), 0);
    });
}
