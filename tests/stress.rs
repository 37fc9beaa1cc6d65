//! Stress: a million join and sleep/wake cycles must finish. A lost wake-up shows up as a
//! hang, so each phase runs under a watchdog that fails the test instead of hanging CI.

#[path = "common/watchdog.rs"]
mod watchdog;

use std::time::Duration;
use watchdog::within;

/// A stress phase's limit: minutes of work under ThreadSanitizer on a loaded machine.
const STRESS: Duration = Duration::from_secs(300);

fn tree(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (a, b) = blitz_par::join(|| tree(depth - 1), || tree(depth - 1));
    a + b
}

#[test]
fn a_million_joins_with_sleep_wake_cycles() {
    within(
        STRESS,
        "a million joins, with sleep/wake cycles between, finished",
        || {
            let pool = blitz_par::ThreadPoolBuilder::new()
                .num_threads(4)
                .build()
                .unwrap();
            let mut joins = 0u64;
            let mut round = 0u32;
            while joins < 1_000_000 {
                // Alternate big rounds (wake workers, steal) with tiny ones and pauses long
                // enough for the workers to go back to sleep, so that sleep and wake race.
                let depth = if round % 4 == 0 { 14 } else { 3 };
                assert_eq!(pool.install(|| tree(depth)), 1 << depth);
                assert_eq!(tree(depth), 1 << depth);
                joins += 2 * ((1 << depth) - 1);
                if round % 8 == 7 {
                    std::thread::sleep(Duration::from_micros(300));
                }
                round += 1;
            }
        },
    );
}

#[test]
fn spawn_and_scope_storm() {
    within(STRESS, "2,000 scopes of spawned jobs finished", || {
        let pool = blitz_par::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for round in 0..2_000 {
            let n = std::sync::atomic::AtomicUsize::new(0);
            pool.scope(|s| {
                for _ in 0..(round % 17) {
                    s.spawn(|_| {
                        n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    });
                }
            });
            assert_eq!(n.into_inner(), round % 17);
            if round % 100 == 99 {
                std::thread::sleep(Duration::from_micros(500));
            }
        }
    });
}

/// Watched loops (`scheduler/watch.rs`) from many short-lived threads at once: their watch
/// slots are taken, given back when the threads end and taken again; first items are long
/// (handed-out rests), short (taken back) or a nested short loop (one watch per thread at a
/// time), inside a pool and from outside every pool. Every result must be right and every
/// call must end.
#[test]
fn watched_loops_from_many_threads() {
    within(
        STRESS,
        "watched loops from 120 short-lived threads finished",
        || {
            use blitz_par::prelude::*;
            let pool = std::sync::Arc::new(
                blitz_par::ThreadPoolBuilder::new()
                    .num_threads(3)
                    .build()
                    .unwrap(),
            );
            for wave in 0..20u64 {
                let threads: Vec<_> = (0..6u64)
                    .map(|t| {
                        let pool = pool.clone();
                        std::thread::spawn(move || {
                            for call in 0..10u64 {
                                let n = 2 + (wave + t + call) % 12;
                                let long = (wave + t + call) % 3 == 0;
                                let item = |i: u64| {
                                    if i == 0 && long {
                                        std::thread::sleep(Duration::from_micros(300));
                                    }
                                    if i == 1 {
                                        // A nested short loop inside an item.
                                        return (0..4u64)
                                            .into_par_iter()
                                            .map(|j| j + 1)
                                            .sum::<u64>();
                                    }
                                    i * 3
                                };
                                let expect: u64 = (0..n).map(item).sum();
                                let v: Vec<u64> = (0..n).into_par_iter().map(item).collect();
                                assert_eq!(v, (0..n).map(item).collect::<Vec<_>>());
                                let s: u64 = if t % 2 == 0 {
                                    pool.install(|| (0..n).into_par_iter().map(item).sum())
                                } else {
                                    (0..n).into_par_iter().map(item).sum()
                                };
                                assert_eq!(s, expect);
                            }
                        })
                    })
                    .collect();
                for thread in threads {
                    thread.join().unwrap();
                }
            }
        },
    );
}
