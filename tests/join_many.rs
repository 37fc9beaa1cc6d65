//! `join!`: results in order, arity 1 to 16, borrowing, panics, nesting, thread counts.

use blitz_par::ThreadPoolBuilder;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[test]
fn results_come_back_in_order() {
    let v = [1u32, 2, 3];
    let (a, b) = blitz_par::join!(|| v[0], || v[1]);
    assert_eq!((a, b), (1, 2));
    let (a, b, c) = blitz_par::join!(|| 1u8, || "two", || vec![3u64],);
    assert_eq!((a, b, c), (1, "two", vec![3]));
    let (a,) = blitz_par::join!(|| 7);
    assert_eq!(a, 7);
    let t = blitz_par::join!(
        || 0,
        || 1,
        || 2,
        || 3,
        || 4,
        || 5,
        || 6,
        || 7,
        || 8,
        || 9,
        || 10,
        || 11,
        || 12,
        || 13,
        || 14,
        || 15
    );
    assert_eq!((t.0, t.7, t.15), (0, 7, 15));
}

#[test]
fn every_arity_from_one_to_sixteen_is_in_order() {
    macro_rules! check {
        ($($i:tt)+) => {{
            let got = blitz_par::join!($(|| $i * 10),+);
            // Tuples of more than 12 have no `PartialEq`: compare field by field.
            assert_eq!([$(got.$i),+], [$($i * 10),+]);
        }};
    }
    check!(0);
    check!(0 1);
    check!(0 1 2);
    check!(0 1 2 3);
    check!(0 1 2 3 4);
    check!(0 1 2 3 4 5);
    check!(0 1 2 3 4 5 6);
    check!(0 1 2 3 4 5 6 7);
    check!(0 1 2 3 4 5 6 7 8);
    check!(0 1 2 3 4 5 6 7 8 9);
    check!(0 1 2 3 4 5 6 7 8 9 10);
    check!(0 1 2 3 4 5 6 7 8 9 10 11);
    check!(0 1 2 3 4 5 6 7 8 9 10 11 12);
    check!(0 1 2 3 4 5 6 7 8 9 10 11 12 13);
    check!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14);
    check!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

#[test]
fn closures_are_evaluated_once_in_order_and_run_in_order_on_one_thread() {
    let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let log = Mutex::new(Vec::new());
    let made = Mutex::new(Vec::new());
    let make = |i: usize| {
        made.lock().unwrap().push(i);
        let log = &log;
        move || log.lock().unwrap().push(i)
    };
    pool.install(|| blitz_par::join!(make(0), make(1), make(2), make(3), make(4)));
    assert_eq!(*made.lock().unwrap(), [0, 1, 2, 3, 4]);
    assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3, 4]);
}

#[test]
fn fn_once_closures_may_move_and_borrow() {
    let owned = String::from("moved");
    let mut out = vec![0u8; 4];
    let (left, right) = out.split_at_mut(2);
    let (s, (), ()) = blitz_par::join!(move || owned, || left.fill(1), || right.fill(2));
    assert_eq!(s, "moved");
    assert_eq!(out, [1, 1, 2, 2]);
}

fn tree_sum(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (a, b, c, d) = blitz_par::join!(
        || tree_sum(depth - 1),
        || tree_sum(depth - 1),
        || tree_sum(depth - 1),
        || tree_sum(depth - 1)
    );
    1 + a + b + c + d
}

#[test]
fn nested_joins_on_1_and_16_threads() {
    let expect: u64 = (0..=7).map(|d| 4u64.pow(d)).sum();
    for threads in [1, 2, 16] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| tree_sum(7)), expect, "{threads} threads");
    }
    assert_eq!(tree_sum(7), expect, "global pool, from outside");
}

#[test]
fn every_closure_runs_and_the_leftmost_panic_propagates() {
    for threads in [1, 16] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for panicking in [
            0b0000_0001u32,
            0b0000_0110,
            0b1010_0000,
            0b1000_0000,
            0b1111_1111,
        ] {
            let ran = AtomicUsize::new(0);
            let job = |i: u32| {
                let ran = &ran;
                move || {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if panicking & (1 << i) != 0 {
                        std::panic::panic_any(i);
                    }
                    i
                }
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    blitz_par::join!(
                        job(0),
                        job(1),
                        job(2),
                        job(3),
                        job(4),
                        job(5),
                        job(6),
                        job(7)
                    )
                })
            }));
            let payload = r.expect_err("a closure panicked");
            assert_eq!(
                *payload.downcast_ref::<u32>().unwrap(),
                panicking.trailing_zeros(),
                "{threads} threads, panicking {panicking:#b}"
            );
            assert_eq!(ran.load(Ordering::Relaxed), 8, "every closure ran");
        }
    }
}

#[test]
fn closures_after_the_first_can_be_stolen() {
    // The first closure waits until every other closure has run: each must have been stolen,
    // since nothing after the first runs on the caller before the first returns. It polls the
    // scheduler (a join) while waiting, as the first closure of a `join` must.
    let seen = watchdog::within(
        watchdog::LIVENESS,
        "join!'s later closures were stolen while the first waited",
        || {
            let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
            let done = AtomicUsize::new(0);
            let others = || {
                done.fetch_add(1, Ordering::SeqCst);
            };
            pool.install(|| {
                blitz_par::join!(
                    || {
                        while done.load(Ordering::SeqCst) < 3 {
                            blitz_par::join(std::hint::spin_loop, || ());
                        }
                    },
                    others,
                    others,
                    others
                )
            });
            done.load(Ordering::SeqCst)
        },
    );
    assert_eq!(seen, 3);
}

#[path = "common/watchdog.rs"]
mod watchdog;

/// Counts its drops (results and closures of `join_all`).
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn join_all_returns_results_in_order() {
    assert!(blitz_par::join_all(Vec::<fn() -> u8>::new()).is_empty());
    assert_eq!(blitz_par::join_all([|| 5]), [5]);
    for threads in [1, 16] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for n in [2usize, 3, 7, 64, 1000] {
            let v: Vec<usize> = (0..n).collect();
            let jobs: Vec<_> = v.iter().map(|&i| move || i * 2).collect();
            let got = pool.install(|| blitz_par::join_all(jobs));
            assert_eq!(
                got,
                v.iter().map(|i| i * 2).collect::<Vec<_>>(),
                "{threads} threads"
            );
        }
        let boxed: Vec<Box<dyn FnOnce() -> String + Send>> = vec![
            Box::new(|| "a".into()),
            Box::new(|| tree_sum(3).to_string()),
        ];
        assert_eq!(pool.install(|| blitz_par::join_all(boxed)), ["a", "85"]);
    }
}

#[test]
fn join_all_runs_every_closure_drops_every_result_and_the_leftmost_panic_wins() {
    for threads in [1, 16] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for panicking in [vec![0usize], vec![5], vec![3, 9], vec![11]] {
            let ran = AtomicUsize::new(0);
            let results_dropped = AtomicUsize::new(0);
            let closures_dropped = AtomicUsize::new(0);
            let jobs: Vec<_> = (0..12usize)
                .map(|i| {
                    let (ran, results, closures) = (&ran, &results_dropped, &closures_dropped);
                    let panicking = &panicking;
                    let held = Counted(closures);
                    move || {
                        let _held = held;
                        ran.fetch_add(1, Ordering::Relaxed);
                        if panicking.contains(&i) {
                            std::panic::panic_any(i);
                        }
                        Counted(results)
                    }
                })
                .collect();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| blitz_par::join_all(jobs))
            }));
            let Err(payload) = r else {
                panic!("a closure panicked, yet join_all returned")
            };
            assert_eq!(*payload.downcast_ref::<usize>().unwrap(), panicking[0]);
            assert_eq!(ran.load(Ordering::Relaxed), 12, "every closure ran");
            assert_eq!(
                closures_dropped.load(Ordering::Relaxed),
                12,
                "every closure dropped once"
            );
            assert_eq!(
                results_dropped.load(Ordering::Relaxed),
                12 - panicking.len(),
                "every result made is dropped once"
            );
        }
    }
}
