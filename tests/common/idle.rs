//! Wake-ups of a pool's worker threads, read from Linux's `/proc`: a test that idle workers
//! stay asleep counts their context switches over a stretch of idleness. A thread asleep on a
//! futex switches out once each time it wakes and sleeps again (`voluntary_ctxt_switches`),
//! so the count is the number of its wake-ups, whatever the machine's speed or load.
//!
//! Used by `tests/idle_workers.rs` (`#[path = "common/idle.rs"] mod idle;`).

#![allow(dead_code)]

use std::time::Duration;

/// The calling thread's kernel thread id (`/proc/thread-self` links to `<pid>/task/<tid>`).
pub fn my_tid() -> u32 {
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    link.file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.parse().ok())
        .expect("a thread id")
}

/// The voluntary context switches of this process's threads `tids`, added up.
pub fn switches(tids: &[u32]) -> u64 {
    tids.iter()
        .map(|tid| {
            let status = std::fs::read_to_string(format!("/proc/self/task/{tid}/status"))
                .expect("a live thread's status");
            status
                .lines()
                .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .expect("voluntary_ctxt_switches")
        })
        .sum()
}

/// Waits for windows of `window` in a row, at most `windows` of them, until one in which the
/// threads `tids` together switched out at most `most` times. Returns the count of each window
/// measured (the last one the quiet one, if any was), and whether one was quiet.
pub fn until_quiet(tids: &[u32], window: Duration, most: u64, windows: usize) -> (Vec<u64>, bool) {
    let mut counts = Vec::new();
    for _ in 0..windows {
        let before = switches(tids);
        std::thread::sleep(window);
        let woke = switches(tids) - before;
        counts.push(woke);
        if woke <= most {
            return (counts, true);
        }
    }
    (counts, false)
}
