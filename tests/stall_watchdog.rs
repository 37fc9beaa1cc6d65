//! The stall watchdog of debug builds: a join whose first closure blocks while its second
//! waits unpromoted (which hangs if the first waits for the second) is reported once, with the
//! join's location; a first closure that keeps polling (joins inside it) is not.

#![cfg(all(debug_assertions, not(loom)))]

use blitz_par::ThreadPoolBuilder;
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "common/watchdog.rs"]
mod watchdog;

/// Short, so that the tests are; both tests set the same value (they share the process).
const THRESHOLD: Duration = Duration::from_millis(200);

fn pool(threads: usize) -> blitz_par::ThreadPool {
    blitz_par::__stall::set_threshold(THRESHOLD);
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The reports that name this file's line `line`.
fn reports_at(line: u32) -> Vec<String> {
    let at = format!(" {}:{line} ", file!());
    blitz_par::__stall::reports()
        .into_iter()
        .filter(|r| r.contains(&at))
        .collect()
}

#[test]
fn a_first_closure_waiting_for_the_second_is_reported_once() {
    let (line, got) = watchdog::within(watchdog::LIVENESS, "the blocked join's return", || {
        pool(2).install(|| {
            // The other worker's requests for work, raised while it was idle and left on
            // this seat's flag, would have the join's own poll promote its frame (and the
            // second closure run at once, as in rayon): let it fall asleep, and answer them.
            std::thread::sleep(THRESHOLD / 2);
            blitz_par::join(|| (), || ());
            let mut attempt = 0;
            loop {
                let (tx, rx) = mpsc::channel();
                // The first closure waits for the second (which never runs meanwhile:
                // nobody promotes it), then gives up, and the second runs after it.
                let line = line!() + 1;
                let (got, ()) = blitz_par::join(
                    move || rx.recv_timeout(Duration::from_secs(2)).is_ok(),
                    move || {
                        let _ = tx.send(());
                    },
                );
                attempt += 1;
                // Taken anyway (a request came just before the poll): again.
                if !got || attempt == 5 {
                    break (line, got);
                }
            }
        })
    });
    assert!(
        !got,
        "the second closure ran while the first waited for it, every time"
    );
    let reports = reports_at(line);
    assert_eq!(
        reports.len(),
        1,
        "reports: {:?}",
        blitz_par::__stall::reports()
    );
    assert!(reports[0].contains("has not polled"), "{}", reports[0]);
}

#[test]
fn a_first_closure_that_polls_is_not_reported() {
    let line = watchdog::within(watchdog::LIVENESS, "the busy join's return", || {
        pool(2).install(|| {
            // Runs for five thresholds, joining all the while: each join polls.
            let line = line!() + 1;
            let (joins, ()) = blitz_par::join(
                || {
                    let start = Instant::now();
                    let mut joins = 0u64;
                    while start.elapsed() < THRESHOLD * 5 {
                        let (a, b) = blitz_par::join(|| std::hint::black_box(1), || 2);
                        joins += a + b;
                    }
                    joins
                },
                || (),
            );
            assert!(joins > 0);
            line
        })
    });
    assert_eq!(reports_at(line), Vec::<String>::new());
}
