//! A process's first parallel calls, each in a child process of this test binary (a process
//! starts its global pool once): a short first loop runs on the calling thread without waiting
//! for the pool to start, yet still reports an unusable thread count in the environment, and a
//! first loop of heavy items is still shared with the pool, which starts meanwhile.

mod support;

use blitz_par::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs one short loop, the process's only parallel call.
#[test]
#[ignore = "run in a child process by a_short_first_loop_reports_an_unusable_variable"]
fn child_runs_one_short_loop() {
    let v: Vec<u64> = (0..1000).collect();
    assert_eq!(v.par_iter().sum::<u64>(), 499_500);
    println!("CHILD-DONE");
}

/// The environment's thread count is checked by the first parallel call, however short: an
/// unusable value is reported then, as when the pool starts.
#[test]
fn a_short_first_loop_reports_an_unusable_variable() {
    for (var, bad) in [("BLITZ_NUM_THREADS", "abc"), ("RAYON_NUM_THREADS", "many")] {
        let err = support::run_child("child_runs_one_short_loop", &[(var, bad)]);
        assert!(
            err.contains(&format!("ignoring {var}={bad:?}")),
            "{var}={bad:?}: {err}"
        );
    }
    for vars in [&[][..], &[("BLITZ_NUM_THREADS", "3")][..]] {
        let err = support::run_child("child_runs_one_short_loop", vars);
        assert!(!err.contains("blitz-par:"), "{vars:?}: {err}");
    }
}

/// The first parallel call of the process: a loop of two items, the first of which runs until
/// another thread has run the second (20 s at most). The watch of the loop's first chunk hands
/// the rest to the global pool, which a thread of its own (`blitz-par-start` on Linux, the
/// watchman elsewhere) starts while the first item runs.
#[test]
#[ignore = "run in a child process by a_first_loop_of_heavy_items_is_shared"]
fn child_shares_a_first_loop_of_heavy_items() {
    let second_ran = AtomicBool::new(false);
    let here = std::thread::current().id();
    (0..2u32).into_par_iter().for_each(|i| {
        if i == 0 {
            let deadline = Instant::now() + Duration::from_secs(20);
            while !second_ran.load(Ordering::Acquire) {
                assert!(
                    Instant::now() < deadline,
                    "the second item did not run within 20 s"
                );
                std::thread::sleep(Duration::from_micros(100));
            }
        } else {
            assert_ne!(std::thread::current().id(), here);
            second_ran.store(true, Ordering::Release);
        }
    });
    assert_eq!(blitz_par::current_num_threads(), 2);
    println!("CHILD-DONE");
}

#[test]
fn a_first_loop_of_heavy_items_is_shared() {
    support::run_child(
        "child_shares_a_first_loop_of_heavy_items",
        &[("BLITZ_NUM_THREADS", "2")],
    );
}
