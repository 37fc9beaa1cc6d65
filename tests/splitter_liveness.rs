//! The splitter's liveness: items that run long or wait for each other are handed to other
//! threads (heavy items shared at once, the watch handing out the rest of a short loop while
//! its first item runs long), so that no item is left waiting behind another.

#[path = "common/waiting_items.rs"]
mod waiting_items;
#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use waiting_items::Item;

/// Items that each take long (blocking work: I/O, a lock, a sleep) are shared out as soon as
/// the first one shows it: after item 0, the other seven of eight run at the same time on a
/// pool of eight threads, each waiting until all seven have started. Through a range (the
/// indexed loop, its halves split off by joins), through `par_bridge`, whose leaves drain
/// one shared iterator, and through `par_lines` (an unindexed drive). Before the heavy-items
/// change they ran the items one after another, each waiting for the watchdog's guard; until the
/// share counted every job in the deque, the range form stalled about one run in five under
/// load, a job left in a blocked thread's deque with no worker woken for it; until stolen
/// halves made every later leaf share first, `par_lines` stalled in most runs (a thief that
/// started before item 0 ended blocked with its halves unshared), `par_bridge` in about one
/// in fifty. (Items that wait for each other are outside what a parallel
/// iterator promises, with rayon too; here they show whether any item is left waiting.)
#[test]
fn heavy_items_are_shared_at_once() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    waiting_items::run_each_loop(8, 10, &|drive| pool.install(drive));
}

/// Runs `drive`, a loop over `n` items that calls the item function it is given once for each
/// of `0..n`: item 0 waits (watchdog's guard) until every other item has run (`all`), or at least
/// the last one. Panics, naming `name`, if it waited out the guard.
fn first_item_waits(name: &str, n: usize, all: bool, drive: &(dyn Fn(Item<'_>) + Sync)) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let others = AtomicUsize::new(0);
    let last = AtomicBool::new(false);
    let gave_up = AtomicBool::new(false);
    let item = |i: usize| {
        if i > 0 {
            others.fetch_add(1, Ordering::SeqCst);
            last.fetch_or(i == n - 1, Ordering::SeqCst);
            return;
        }
        let done =
            || last.load(Ordering::SeqCst) && (!all || others.load(Ordering::SeqCst) == n - 1);
        if !watchdog::wait_until(done) {
            gave_up.store(true, Ordering::SeqCst);
        }
    };
    drive(&item);
    assert!(
        !gave_up.load(Ordering::SeqCst),
        "{name}, {n} items: the rest waited"
    );
}

/// Runs `case(n, on)` for 2, 5 and 16 items, where `on` runs a closure inside a 3-thread pool
/// and then from outside every pool. The latter is left out with a global pool of one
/// thread: from outside every pool the rest of a loop goes only to a worker the caller does
/// not hold the core of, so one thread runs the loop on the caller alone.
fn inside_and_outside(case: impl Fn(usize, &(dyn Fn(&(dyn Fn() + Sync)) + Sync))) {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let outside = blitz_par::current_num_threads() >= 2;
    for n in [2, 5, 16] {
        case(n, &|f| pool.install(f));
        if outside {
            case(n, &|f| f());
        }
    }
}

/// A short loop's first item that runs long has the rest of the loop handed to the pool
/// while it runs (the watch, `scheduler/watch.rs`): item 0 waits until every other item has
/// run (watchdog's guard), in a `for_each`, a collect into a vector (whose loop keeps one folder)
/// and a `sum`, and in searches from the back (`position_last`, `find_map_last`: the last
/// item waits), inside a pool (the caller waits in its seat) and from outside every pool
/// (with a global pool of two threads or more).
/// Before the watch the rest ran only after item 0, each case waiting out the guard.
#[test]
fn a_long_first_item_hands_out_the_rest() {
    inside_and_outside(|n, on| {
        let check =
            |name, drive: &(dyn Fn(Item<'_>) + Sync)| first_item_waits(name, n, true, drive);
        check("for_each", &|item| {
            on(&|| (0..n).into_par_iter().for_each(item))
        });
        check("collect", &|item| {
            on(&|| {
                let v: Vec<usize> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        item(i);
                        i * 3
                    })
                    .collect();
                assert_eq!(v, (0..n).map(|i| i * 3).collect::<Vec<_>>());
            })
        });
        check("sum", &|item| {
            on(&|| {
                let s: usize = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        item(i);
                        i
                    })
                    .sum();
                assert_eq!(s, n * (n - 1) / 2);
            })
        });
        // Searches from the back fold the last item first: it waits for the others, and
        // only it matches (a match among the others would end the search there).
        check("position_last", &|item| {
            on(&|| {
                let p = (0..n).into_par_iter().position_last(|i| {
                    item(n - 1 - i);
                    i == n - 1
                });
                assert_eq!(p, Some(n - 1));
            })
        });
        check("find_map_last", &|item| {
            on(&|| {
                let v: Vec<usize> = (0..n).collect();
                let f = v.par_iter().find_map_last(|&i| {
                    item(n - 1 - i);
                    (i == n - 1).then_some(i * 3)
                });
                assert_eq!(f, Some((n - 1) * 3));
            })
        });
    });
}

/// The watch also covers unindexed drives: their first split hands its second half to the
/// pool while the first half's first item runs long. Item 0 waits (watchdog's guard) until the last
/// item has run: through `par_bridge` (whose handed-out leaf drains the shared iterator, so
/// every other item runs), `par_lines` and `par_split`, inside a 3-thread pool and from
/// outside every pool (with a global pool of two threads or more). Before, the other items
/// waited for item 0, each case waiting out the guard.
#[test]
fn a_long_first_item_of_an_unindexed_drive_hands_out_the_rest() {
    inside_and_outside(|n, on| {
        let check =
            |name, all, drive: &(dyn Fn(Item<'_>) + Sync)| first_item_waits(name, n, all, drive);
        // No separator at the end: a string is split at the separator nearest after its
        // middle, which for "0\n1\n" is the last one (a split with nothing on its right).
        let numbers: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let (text, spaced) = (numbers.join("\n"), numbers.join(" "));
        check("par_bridge", true, &|item| {
            on(&|| {
                let s: usize = (0..n)
                    .par_bridge()
                    .map(|i| {
                        item(i);
                        i
                    })
                    .sum();
                assert_eq!(s, n * (n - 1) / 2);
            })
        });
        check("par_lines", false, &|item| {
            on(&|| {
                let v: Vec<usize> = text
                    .par_lines()
                    .map(|l| {
                        let i = l.parse().unwrap();
                        item(i);
                        i
                    })
                    .collect();
                assert_eq!(v, (0..n).collect::<Vec<_>>());
            })
        });
        check("par_split", false, &|item| {
            on(&|| {
                spaced
                    .par_split_whitespace()
                    .for_each(|w| item(w.parse().unwrap()));
            })
        });
    });
}
