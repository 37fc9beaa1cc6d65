//! Idle workers stay asleep: once no loop has been watched for a while, nobody patrols the
//! watches and a sleeping worker waits for a nudge or a wake (`scheduler/watch.rs`, "Who
//! patrols, on Linux"; a second at most where `membarrier` is not available), so an idle
//! pool's workers do not wake; and a loop watched after that still has its rest handed out
//! (the watch nudges the sleepers, and the nudge cannot be lost). In a file of their own, and
//! one at a time: in a process running other tests, their watches would keep the sleepers
//! patrolling.

#![cfg(target_os = "linux")]

#[path = "common/idle.rs"]
mod idle;
#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Held by each test of this file: one's watches would make the other's workers patrol.
static ALONE: Mutex<()> = Mutex::new(());

/// How long one measured stretch of idleness lasts.
const WINDOW: Duration = Duration::from_millis(300);
/// The most wake-ups, of all the pool's workers together, a quiet stretch may hold: none is
/// expected, at most one per worker where `membarrier` is not available (the one-second
/// backstop of a deep sleep); one more is left for the kernel's own. Before the nudge, each
/// sleeping worker woke every 50 ms while idle: 12 a stretch with two.
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
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
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

/// Whether this kernel offers `membarrier`'s private expedited barrier, which lets a deep
/// sleep go without a timeout (`sync::asymmetric`): its query command's answer.
fn membarrier_available() -> bool {
    extern "C" {
        fn syscall(number: std::ffi::c_long, ...) -> std::ffi::c_long;
    }
    #[cfg(target_arch = "x86_64")]
    const SYS_MEMBARRIER: std::ffi::c_long = 324;
    #[cfg(target_arch = "aarch64")]
    const SYS_MEMBARRIER: std::ffi::c_long = 283;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return false;
    const CMD_QUERY: std::ffi::c_int = 0;
    const CMD_PRIVATE_EXPEDITED: std::ffi::c_long = 1 << 3;
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        // SAFETY: libc's variadic `syscall`; membarrier's query takes two integers and
        // touches no memory.
        let supported = unsafe { syscall(SYS_MEMBARRIER, CMD_QUERY, 0 as std::ffi::c_uint) };
        supported > 0 && supported & CMD_PRIVATE_EXPEDITED != 0
    }
}

/// Once its patrols have ended, an idle pool's workers make no wake-ups at all: a stretch of
/// 2.5 s in which neither wakes (of three at most: a stretch may begin before the patrols
/// end). With the deep sleep's old one-second backstop, each stretch held two or three
/// wake-ups per worker.
#[test]
fn an_idle_pools_workers_make_no_wake_ups() {
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    if !membarrier_available() {
        eprintln!("membarrier is not available: the deep sleep keeps its backstop; skipped");
        return;
    }
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let tids = pool.broadcast(|_| idle::my_tid());
    // Patrols begin (a watch, a rescue), then end.
    first_item_waits(&pool, "before the stretch", 4);
    let (counts, quiet) = idle::until_quiet(&tids, Duration::from_millis(2_500), 0, 3);
    assert!(
        quiet,
        "the idle pool's workers woke: {counts:?} wake-ups in each stretch of 2.5 s"
    );
}
