//! Stress: a million join and sleep/wake cycles must finish. A lost wake-up shows up as a
//! hang, so each phase runs under a watchdog that fails the test instead of hanging CI.

use std::sync::mpsc;
use std::time::Duration;

fn with_watchdog(name: &str, limit: Duration, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    if rx.recv_timeout(limit).is_err() {
        panic!("{name}: did not finish within {limit:?} (lost wake-up?)");
    }
}

fn tree(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (a, b) = blitz_par::join(|| tree(depth - 1), || tree(depth - 1));
    a + b
}

#[test]
fn a_million_joins_with_sleep_wake_cycles() {
    with_watchdog("joins", Duration::from_secs(300), || {
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
    });
}

#[test]
fn spawn_and_scope_storm() {
    with_watchdog("spawns", Duration::from_secs(300), || {
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
