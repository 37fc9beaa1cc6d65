//! Idle workers stay asleep: once no loop has been watched for a while, nobody patrols the
//! watches and a sleeping worker waits for a nudge, or a second at most (`scheduler/watch.rs`,
//! "Who patrols, on Linux"), so an idle pool's workers hardly wake; and a loop watched after that
//! still has its rest handed out (the watch nudges the sleepers, and the nudge cannot be
//! lost). One test in its own file: in a process running other tests, their watches would
//! keep the sleepers patrolling.

#![cfg(target_os = "linux")]

#[path = "common/idle.rs"]
mod idle;
#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How long one measured stretch of idleness lasts.
const WINDOW: Duration = Duration::from_millis(300);
/// The most wake-ups, of all the pool's workers together, a quiet stretch may hold: at most
/// one per worker is expected (the one-second backstop of a deep sleep); one more is left for
/// the kernel's own (a migration, a signal). Before, each sleeping
/// worker woke every 50 ms while idle: 12 a stretch with two.
const MOST: u64 = 3;
/// Stretches to wait for a quiet one: the patrols stop some milliseconds after the last
/// watch, later under load, never if a worker wakes periodically.
const WINDOWS: usize = 20;

/// A loop of `n` items whose item 0 waits (watchdog's guard) until every other item has run:
/// only a rescue of the rest by a sleeping worker's patrol lets it end before the guard. Runs
/// it in `pool` and panics, naming `name`, if the rest waited.
fn first_item_waits(pool: &blitz_par::ThreadPool, name: &str, n: usize) {
    let others = AtomicUsize::new(0);
    let gave_up = AtomicBool::new(false);
    pool.install(|| {
        (0..n).into_par_iter().for_each(|i| {
            if i > 0 {
                others.fetch_add(1, Ordering::SeqCst);
            } else if !watchdog::wait_until(|| others.load(Ordering::SeqCst) == n - 1) {
                gave_up.store(true, Ordering::SeqCst);
            }
        })
    });
    assert!(!gave_up.load(Ordering::SeqCst), "{name}: the rest waited");
}

/// A pool of two workers, after a watched loop whose rest a patrol handed out, goes idle:
/// within a few stretches of `WINDOW` its workers stop waking (the patrols end and nobody
/// patrols), and stay so. Then a loop whose first item runs long, watched while the sleepers
/// wait for a nudge, still has its rest handed out; and the pool goes quiet again.
#[test]
fn idle_workers_do_not_wake_and_a_new_watch_still_rescues() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let tids = pool.broadcast(|_| idle::my_tid());
    for round in 0..4 {
        // Watched while nobody patrols (from the second round on, the pool was quiet: the
        // sleepers waited for a nudge), rescued at once if the nudge reached a sleeper (the
        // loom model `nudge_is_seen_or_pending` checks that it always does).
        first_item_waits(&pool, &format!("round {round}"), 4);
        let (counts, quiet) = idle::until_quiet(&tids, WINDOW, MOST, WINDOWS);
        assert!(
            quiet,
            "round {round}: the idle pool's workers kept waking: {counts:?} wake-ups in each \
             stretch of {WINDOW:?}"
        );
        // Quiet once: quiet the next stretch too (not a lull between patrols).
        let (counts, quiet) = idle::until_quiet(&tids, WINDOW, MOST, 1);
        assert!(
            quiet,
            "round {round}: the idle pool's workers woke again: {counts:?} wake-ups in a \
             stretch of {WINDOW:?}"
        );
    }
}
