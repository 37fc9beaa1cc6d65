//! The global pool's workers have an OS thread name of their own, `blitz-par-{index}`, on
//! Linux, where an unnamed thread inherits its starter's: a global pool started by a watch
//! (the first short loop of a process, outside every pool) was started by the short-lived
//! `blitz-par-start` thread, whose name its workers showed in `ps`, `top` and debuggers. A
//! `thread_name` given to `build_global` is kept, and `std::thread::current().name()` on a
//! worker without one is `None`, as on rayon's. Each case configures or starts the global
//! pool, so each runs in a child process of its own.

#![cfg(target_os = "linux")]

#[path = "common/idle.rs"]
mod idle;
mod support;

use blitz_par::prelude::*;
use std::time::Duration;

/// Each worker of the global pool: its index, its OS name (`/proc/self/task/*/comm`) and its
/// std name.
fn global_workers() -> Vec<(usize, String, Option<String>)> {
    blitz_par::broadcast(|ctx| {
        let comm = std::fs::read_to_string(format!("/proc/self/task/{}/comm", idle::my_tid()))
            .expect("a live thread's comm");
        (
            ctx.index(),
            comm.trim_end().to_owned(),
            std::thread::current().name().map(str::to_owned),
        )
    })
}

#[test]
fn the_global_pool_started_by_a_watch_names_its_workers() {
    support::run_child(
        "child_the_global_pool_started_by_a_watch_names_its_workers",
        &[("BLITZ_NUM_THREADS", "2")],
    );
}

#[test]
#[ignore = "run in a child process by the_global_pool_started_by_a_watch_names_its_workers"]
fn child_the_global_pool_started_by_a_watch_names_its_workers() {
    // The process's first parallel call: a short loop from outside every pool, watched while
    // its first item runs, so that `blitz-par-start` starts the global pool meanwhile.
    let sum: u64 = (0..4u64)
        .into_par_iter()
        .map(|i| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            i
        })
        .sum();
    assert_eq!(sum, 6);
    let workers = global_workers();
    assert_eq!(workers.len(), 2);
    for (index, comm, name) in workers {
        assert_ne!(
            comm, "blitz-par-start",
            "worker {index} has its starter's name"
        );
        assert_eq!(
            comm,
            format!("blitz-par-{index}"),
            "worker {index}'s OS name"
        );
        assert_eq!(name, None, "worker {index}'s std name, unset as in rayon");
    }
    println!("CHILD-DONE");
}

#[test]
fn build_global_names_unnamed_workers_and_keeps_given_names() {
    support::run_child("child_build_global_without_names", &[]);
    support::run_child("child_build_global_with_names", &[]);
}

#[test]
#[ignore = "run in a child process by build_global_names_unnamed_workers_and_keeps_given_names"]
fn child_build_global_without_names() {
    blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .unwrap();
    for (index, comm, name) in global_workers() {
        assert_eq!(
            comm,
            format!("blitz-par-{index}"),
            "worker {index}'s OS name"
        );
        assert_eq!(name, None, "worker {index}'s std name");
    }
    println!("CHILD-DONE");
}

#[test]
#[ignore = "run in a child process by build_global_names_unnamed_workers_and_keeps_given_names"]
fn child_build_global_with_names() {
    blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("mine-{i}"))
        .build_global()
        .unwrap();
    for (index, comm, name) in global_workers() {
        assert_eq!(comm, format!("mine-{index}"), "worker {index}'s OS name");
        assert_eq!(
            name,
            Some(format!("mine-{index}")),
            "worker {index}'s std name"
        );
    }
    println!("CHILD-DONE");
}
