//! The threads of this process, for the one-pool checks: every thread but the main one and the
//! caller must be a named thread of the one global pool, or one of blitz-par's own helper
//! threads (the watch thread; in debug builds the stall watchdog). A second
//! pool (real rayon's, say, whose threads are unnamed) would show up as a thread named like the
//! program.

use std::fs;

/// The names (`comm`) of the process's threads other than the main thread and the caller.
pub fn other_threads() -> Vec<String> {
    let me = fs::read_link("/proc/thread-self").expect("Linux: /proc/thread-self");
    let me = me.file_name().unwrap().to_string_lossy().into_owned();
    let main = std::process::id().to_string();
    let mut names = Vec::new();
    for task in fs::read_dir("/proc/self/task").expect("Linux: /proc/self/task") {
        let task = task.unwrap().file_name().to_string_lossy().into_owned();
        if task == me || task == main {
            continue;
        }
        // A thread may exit between the listing and the read.
        if let Ok(comm) = fs::read_to_string(format!("/proc/self/task/{task}/comm")) {
            names.push(comm.trim_end().to_owned());
        }
    }
    names.sort();
    names
}

/// Panics unless every other thread is one of the global pool's (named `{prefix}{index}` with
/// index below `num_threads`) or one of blitz-par's helper threads, and the pool's are all
/// there.
pub fn assert_one_pool(prefix: &str, num_threads: usize) {
    let names = other_threads();
    let pool: Vec<&String> = names.iter().filter(|n| n.starts_with(prefix)).collect();
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| {
            !n.starts_with(prefix)
                && !["blitz-par-watch", "blitz-par-start", "blitz-par-stall"].contains(&n.as_str())
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "threads of no blitz-par pool: {foreign:?} (all: {names:?})"
    );
    assert_eq!(
        pool.len(),
        num_threads,
        "the global pool's threads: {names:?}"
    );
}
