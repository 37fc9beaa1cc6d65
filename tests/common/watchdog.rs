//! A watchdog for liveness tests: a test whose progress depends on a wake-up (a sleeping
//! worker woken for a job, a latch's waiter woken by its setter) fails in bounded time, with a
//! message naming what did not happen, instead of hanging the test run.
//!
//! Used by the tests in `tests/` (`#[path = "common/watchdog.rs"] mod watchdog;`) and by the
//! library's own unit tests (`crate::watchdog`, whose tests of it are in
//! `src/scheduler/tests.rs`).

#![allow(dead_code)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The limit for a test whose work takes well under a second when nothing is lost: generous
/// enough for a loaded 2-core machine under ThreadSanitizer, short against a CI step. Under
/// Miri, whose clock advances with the code it interprets (about real time on a desktop CPU,
/// by Miri's estimate; tests run hundreds of times slower than native), an hour of it.
pub const LIVENESS: Duration = if cfg!(miri) {
    Duration::from_secs(3600)
} else {
    Duration::from_secs(60)
};

/// Runs `body` on a thread of its own and returns its result. If it has not finished within
/// `limit`, panics with "`what` did not happen within `limit`": `what` names the event the
/// test waits for ("a stolen `b` ran while its `a` waited for it"). A panic of `body` is
/// passed on as it is. A body that never finishes is left running; the test process ends it.
pub fn within<R: Send + 'static>(
    limit: Duration,
    what: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (done, finished) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("watched: {what}"))
        .spawn(move || {
            let _ = done.send(catch_unwind(AssertUnwindSafe(body)));
        })
        .expect("a thread for the watched body");
    match finished.recv_timeout(limit) {
        Ok(Ok(result)) => result,
        Ok(Err(payload)) => resume_unwind(payload),
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what} did not happen within {limit:?} (a lost wake-up, or a deadlock)")
        }
        Err(RecvTimeoutError::Disconnected) => {
            unreachable!("the watched thread sends its result, or its panic, before it ends")
        }
    }
}

/// Receives from `rx`, waiting at most [`LIVENESS`]: the one bounded wait for a message that
/// a test expects (from a spawned job, a handler, another thread). Panics with "`what` did
/// not happen within ..." if none came, or if every sender is gone.
pub fn recv<T>(rx: &Receiver<T>, what: &str) -> T {
    match rx.recv_timeout(LIVENESS) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => {
            panic!("{what} did not happen within {LIVENESS:?} (a lost wake-up, or a deadlock)")
        }
        Err(RecvTimeoutError::Disconnected) => {
            panic!("{what} did not happen: every sender is gone")
        }
    }
}

/// Waits, polling every 100 us, until `ready()` holds; returns false if it did not within
/// [`LIVENESS`]. For a wait inside work the test runs on a pool (an item that waits for the
/// others), which must end, and then fail the test, rather than hold the pool's thread.
pub fn wait_until(ready: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > LIVENESS {
            return false;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    true
}
