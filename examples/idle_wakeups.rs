//! How often an idle pool's threads wake: one parallel call (a short loop whose first item
//! runs long, so that the sleeping workers patrol the watches and one rescues its rest), then
//! 3 s of idleness, during which this prints each pool thread's voluntary context switches
//! (one per wake-up of a thread asleep on a futex), from Linux's `/proc`.
//!
//! Run: `cargo run --release --example idle_wakeups` (Linux; elsewhere it says so and exits).

use blitz_par::prelude::*;
use std::time::Duration;

/// Each thread of this process but the calling one: its name and voluntary context switches.
fn threads() -> Vec<(String, u64)> {
    let me = std::fs::read_link("/proc/thread-self").ok();
    let me = me.as_ref().and_then(|link| link.file_name());
    let mut threads = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return threads;
    };
    for entry in dir.flatten() {
        if Some(entry.file_name().as_os_str()) == me {
            continue;
        }
        let path = entry.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let status = std::fs::read_to_string(path.join("status")).unwrap_or_default();
        let switches = status
            .lines()
            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let tid = entry.file_name().to_string_lossy().into_owned();
        threads.push((format!("{} ({tid})", name.trim()), switches));
    }
    threads.sort();
    threads
}

fn main() {
    if !std::path::Path::new("/proc/self/task").exists() {
        println!("idle_wakeups: needs Linux's /proc");
        return;
    }
    // Four items, the first 5 ms long: watched, its rest handed out by a patrol.
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
    let before = threads();
    std::thread::sleep(Duration::from_secs(3));
    let after = threads();
    let mut total = 0;
    println!("| thread | wake-ups in 3 s idle |");
    println!("|---|---|");
    for (name, end) in &after {
        let start = before
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, s)| *s);
        total += end - start;
        println!("| {name} | {} |", end - start);
    }
    println!("| all | {total} |");
}
