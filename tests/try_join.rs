//! `try_join` and `try_join!`: successes in order, the leftmost failure, stopping the other
//! closures' parallel work, panics, nesting, 1 and 16 threads.

use blitz_par::prelude::*;
use blitz_par::ThreadPoolBuilder;
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "common/watchdog.rs"]
mod watchdog;

const BIG: u64 = 200_000_000;

fn pool(threads: usize) -> blitz_par::ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn successes_come_back_in_order() {
    let v = vec![1u32, 2, 3];
    let r: Result<(u32, &str), String> = blitz_par::try_join(|| Ok(v[0]), || Ok("b"));
    assert_eq!(r, Ok((1, "b")));
    let r: Result<_, String> = blitz_par::try_join!(|| Ok(1u8), || Ok(2u16), || Ok(3u32),);
    assert_eq!(r, Ok((1, 2, 3)));
    let r = blitz_par::try_join!(|| Some(1), || Some('x'));
    assert_eq!(r, Some((1, 'x')));
    let r = blitz_par::try_join!(|| Some(1), || None::<u8>);
    assert_eq!(r, None);
    let r: Result<_, ()> = blitz_par::try_join!(
        || Ok(0),
        || Ok(1),
        || Ok(2),
        || Ok(3),
        || Ok(4),
        || Ok(5),
        || Ok(6),
        || Ok(7),
        || Ok(8),
        || Ok(9),
        || Ok(10),
        || Ok(11),
        || Ok(12),
        || Ok(13),
        || Ok(14),
        || Ok(15)
    );
    let t = r.unwrap();
    assert_eq!((t.0, t.8, t.15), (0, 8, 15));
    for threads in [1, 16] {
        let r: Result<_, ()> = pool(threads).install(|| {
            blitz_par::try_join!(|| Ok(v.par_iter().sum::<u32>()), || Ok(v.len()), || Ok(()))
        });
        assert_eq!(r, Ok((6, 3, ())));
    }
}

#[test]
fn on_one_thread_the_first_error_skips_the_rest() {
    let pool = pool(1);
    let ran = AtomicUsize::new(0);
    let step = |i: u32, fail: bool| {
        let ran = &ran;
        move || {
            ran.fetch_add(1, Ordering::Relaxed);
            if fail {
                Err(i)
            } else {
                Ok(i)
            }
        }
    };
    let r = pool.install(|| {
        blitz_par::try_join!(step(0, false), step(1, true), step(2, true), step(3, false))
    });
    assert_eq!(r, Err(1));
    assert_eq!(
        ran.load(Ordering::Relaxed),
        2,
        "the closures after the failure are skipped"
    );
}

#[test]
fn the_leftmost_error_that_happened_is_returned() {
    let pool = pool(16);
    for _ in 0..200 {
        let happened = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        let fail = |i: usize| {
            let happened = &happened;
            move || -> Result<(), usize> {
                (0..1000u32).into_par_iter().for_each(|_| ());
                happened[i].store(1, Ordering::Relaxed);
                Err(i)
            }
        };
        let r = pool.install(|| blitz_par::try_join!(fail(0), fail(1), fail(2)));
        let first = happened.iter().position(|h| h.load(Ordering::Relaxed) == 1);
        assert_eq!(r, Err(first.expect("some closure failed")));
    }
}

/// A closure that waits (polling the scheduler) until `started` is non-zero, then fails.
fn fail_once_started(started: &AtomicUsize) -> Result<(), &'static str> {
    while started.load(Ordering::Relaxed) == 0 {
        blitz_par::join(std::hint::spin_loop, || ());
    }
    Err("stop")
}

#[test]
fn an_error_stops_the_other_closures_parallel_loop() {
    let processed = watchdog::within(
        watchdog::LIVENESS,
        "the sibling's loop stopped after the error",
        || {
            let items = AtomicUsize::new(0);
            let r = pool(16).install(|| {
                blitz_par::try_join(
                    || fail_once_started(&items),
                    || {
                        (0..BIG).into_par_iter().for_each(|_| {
                            items.fetch_add(1, Ordering::Relaxed);
                        });
                        Ok(())
                    },
                )
            });
            assert_eq!(r, Err("stop"));
            items.load(Ordering::Relaxed) as u64
        },
    );
    assert!(
        processed > 0 && processed < BIG,
        "{processed} items of {BIG}"
    );
}

#[test]
fn an_error_stops_the_first_closures_parallel_loop() {
    let processed = watchdog::within(
        watchdog::LIVENESS,
        "the first closure's loop stopped after the second's error",
        || {
            let items = AtomicUsize::new(0);
            let r = pool(16).install(|| {
                blitz_par::try_join!(
                    || {
                        (0..BIG).into_par_iter().for_each(|_| {
                            items.fetch_add(1, Ordering::Relaxed);
                        });
                        Ok(())
                    },
                    || Ok(()),
                    || fail_once_started(&items),
                )
            });
            assert_eq!(r, Err("stop"));
            items.load(Ordering::Relaxed) as u64
        },
    );
    assert!(processed < BIG, "{processed} items of {BIG}");
}

#[test]
fn on_one_thread_an_error_skips_the_later_loop() {
    let items = AtomicUsize::new(0);
    let r = pool(1).install(|| {
        blitz_par::try_join(
            || Err::<(), _>("first"),
            || {
                (0..BIG).into_par_iter().for_each(|_| {
                    items.fetch_add(1, Ordering::Relaxed);
                });
                Ok(())
            },
        )
    });
    assert_eq!(r, Err("first"));
    assert_eq!(items.load(Ordering::Relaxed), 0);
}

#[test]
fn a_panic_propagates_ahead_of_errors_and_the_leftmost_wins() {
    for threads in [1, 16] {
        let pool = pool(threads);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                blitz_par::try_join!(
                    || Ok(0),
                    || -> Result<u8, u8> { std::panic::panic_any(1u8) },
                    || Err(2u8)
                )
            })
        }));
        // On one thread the closures run in order, so the panic happens and wins. On more,
        // the third closure may fail first and cancel the second before it starts: a panic
        // that never happened cannot win, and the error is the call's result. Either way the
        // result is one of the two, never a success.
        match r {
            Err(payload) => assert_eq!(*payload.downcast_ref::<u8>().unwrap(), 1),
            Ok(result) => {
                assert!(
                    threads > 1,
                    "one thread runs the panicking closure: {result:?}"
                );
                assert_eq!(result, Err(2));
            }
        }

        // Two panics: the leftmost is resumed (closures that run in order on one thread;
        // on more, the later may be skipped or run, the leftmost still wins).
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                blitz_par::try_join!(
                    || -> Option<u8> { std::panic::panic_any(0u8) },
                    || -> Option<u8> { std::panic::panic_any(1u8) }
                )
            })
        }));
        assert_eq!(*r.unwrap_err().downcast_ref::<u8>().unwrap(), 0);
    }
}

#[test]
fn nested_try_joins() {
    for threads in [1, 16] {
        let pool = pool(threads);
        // An inner failure is the outer closure's value.
        let r: Result<(u32, u32), String> = pool.install(|| {
            blitz_par::try_join(
                || {
                    let inner: Result<(u32, u32), String> =
                        blitz_par::try_join(|| Ok(1), || Err("inner".to_string()));
                    assert_eq!(inner, Err("inner".to_string()));
                    Ok(1)
                },
                || Ok(2),
            )
        });
        assert_eq!(r, Ok((1, 2)));
    }
    // An outer failure stops the loops of an inner try_join.
    let processed = watchdog::within(
        watchdog::LIVENESS,
        "the inner try_join's loops stopped after the outer error",
        || {
            let items = AtomicUsize::new(0);
            let loop_ = || -> Result<(), &'static str> {
                (0..BIG).into_par_iter().for_each(|_| {
                    items.fetch_add(1, Ordering::Relaxed);
                });
                Ok(())
            };
            let r = pool(16).install(|| {
                blitz_par::try_join(
                    || fail_once_started(&items),
                    || blitz_par::try_join(loop_, loop_).map(|_| ()),
                )
            });
            assert_eq!(r, Err("stop"));
            items.load(Ordering::Relaxed) as u64
        },
    );
    assert!(processed > 0 && processed < 2 * BIG, "{processed} items");
}

#[test]
fn from_outside_every_pool() {
    let r: Result<(u64, u64), ()> = blitz_par::try_join(
        || Ok((0..1000u64).into_par_iter().sum()),
        || Ok((0..100u64).sum()),
    );
    assert_eq!(r, Ok((499_500, 4950)));
    assert_eq!(blitz_par::try_join!(|| None::<u8>, || Some(1)), None);
}

/// Counts its drops.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_stopped_join_all_drops_the_closures_it_did_not_run() {
    const N: usize = 100_000;
    let (ran, dropped) = watchdog::within(
        watchdog::LIVENESS,
        "the sibling's join_all stopped after the error",
        || {
            let ran = AtomicUsize::new(0);
            let dropped = AtomicUsize::new(0);
            let r = pool(16).install(|| {
                blitz_par::try_join(
                    || fail_once_started(&ran),
                    || {
                        let jobs: Vec<_> = (0..N)
                            .map(|_| {
                                let held = Counted(&dropped);
                                let ran = &ran;
                                move || {
                                    let _held = held;
                                    ran.fetch_add(1, Ordering::Relaxed);
                                    // Long enough that the error comes before the end.
                                    (0..1000u32).into_par_iter().for_each(|_| ());
                                }
                            })
                            .collect();
                        blitz_par::join_all(jobs);
                        Ok(())
                    },
                )
            });
            assert_eq!(r, Err("stop"));
            (ran.load(Ordering::Relaxed), dropped.load(Ordering::Relaxed))
        },
    );
    assert!(ran > 0 && ran < N, "{ran} of {N} closures ran");
    assert_eq!(dropped, N, "every closure dropped once, run or not");
}
