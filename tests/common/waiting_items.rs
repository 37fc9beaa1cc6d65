//! Items that wait for each other, through each kind of parallel loop: whether a loop's items
//! are shared out as soon as the first one shows they are long. Item 0 sleeps 2 ms (long: the
//! rest splits and is shared at once); every other item waits until all of them have started
//! (bounded by the watchdog's `wait_until`), so a loop that leaves one waiting for a thread
//! fails in bounded time instead of hanging. Items that wait for each other are outside what a
//! parallel iterator promises, with rayon too; here they show whether any item is left waiting.
//!
//! Used by `tests/guest_threads.rs` and `tests/splitter_liveness.rs`
//! (`#[path = "common/waiting_items.rs"] mod waiting_items;`, beside `mod watchdog;`).

use crate::watchdog;
use blitz_par::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// An item function given to a loop: called once for each of `0..n`.
pub type Item<'a> = &'a (dyn Fn(usize) + Sync);

/// Runs `rounds` times, over `n` items, each loop: through a range (the indexed loop, its
/// halves split off by joins), `par_bridge` (whose leaves drain one shared iterator) and
/// `par_lines` (an unindexed drive: halves of the text, one line per leaf). Each loop runs
/// inside `on`, which calls the closure it is given once (in a pool's `install`, or on the
/// calling thread). Panics, naming the loop, if an item waited out the watchdog's guard.
pub fn run_each_loop(n: usize, rounds: usize, on: &(dyn Fn(&(dyn Fn() + Sync)) + Sync)) {
    let text: String = (0..n).map(|i| format!("{i}\n")).collect();
    let run = |name: &str, drive: &(dyn Fn(Item<'_>) + Sync)| {
        let started = AtomicUsize::new(0);
        let gave_up = AtomicBool::new(false);
        let item = |i: usize| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(2));
                return;
            }
            started.fetch_add(1, Ordering::SeqCst);
            if !watchdog::wait_until(|| started.load(Ordering::SeqCst) >= n - 1) {
                gave_up.store(true, Ordering::SeqCst);
            }
        };
        on(&|| drive(&item));
        assert!(
            !gave_up.load(Ordering::SeqCst),
            "{name}: items 1..{n} did not all run at once"
        );
    };
    for _ in 0..rounds {
        run("range", &|item| (0..n).into_par_iter().for_each(item));
        run("par_bridge", &|item| (0..n).par_bridge().for_each(item));
        run("par_lines", &|item| {
            text.par_lines().for_each(|l| item(l.parse().unwrap()))
        });
    }
}
