//! Memory after a sort: the process's resident size returns to within 16 MiB of what it was
//! before the sort, soon after the sort returns (scratch buffers kept for the next sort are let
//! go of). Checked in a child process, whose resident size no other test disturbs.
//!
//! Linux only: it reads `/proc/self/smaps_rollup`.
#![cfg(target_os = "linux")]

use blitz_par::prelude::*;
use std::time::{Duration, Instant};

// The sort benches' reader of the resident size (`Rss` of `/proc/self/smaps_rollup`).
#[path = "../benches/common/memory.rs"]
mod memory;
use memory::resident_bytes;

/// What "returns to" allows for: the pool's threads and stacks, allocator metadata.
const SLACK: u64 = 16 << 20;

/// How long the child waits for the memory to go (the library lets go of it within half a
/// second; the bound is generous so that a loaded machine does not fail the test).
const PATIENCE: Duration = Duration::from_secs(20);

fn random_u64(len: usize, seed: u64) -> Vec<u64> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
        .collect()
}

/// Runs `sort` on fresh data from `make`, then waits until the resident size is back within
/// `SLACK` of what it was before the sort; panics, naming `what`, if it is not within
/// `PATIENCE`. Prints how long that took.
fn check<T>(what: &str, make: impl Fn() -> Vec<T>, sort: impl Fn(&mut [T])) {
    // Twice: a second sort may find memory an allocator kept from the first.
    for round in 1..=2 {
        let mut data = make();
        let before = resident_bytes();
        sort(&mut data);
        let returned = Instant::now();
        let mut held = resident_bytes().saturating_sub(before);
        while held > SLACK {
            assert!(
                returned.elapsed() < PATIENCE,
                "{what} (round {round}): the process still holds {} MiB more than before the \
                 sort, {PATIENCE:?} after it returned",
                held >> 20
            );
            std::thread::sleep(Duration::from_millis(20));
            held = resident_bytes().saturating_sub(before);
        }
        println!(
            "{what} (round {round}): back within {} MiB after {:?}",
            SLACK >> 20,
            returned.elapsed()
        );
        drop(data);
    }
}

/// The sorts, each on data whose scratch would exceed `SLACK` if it were kept. Run only in a
/// child process by `memory_returns_after_each_kind_of_sort`.
#[test]
#[ignore = "run in a child process by memory_returns_after_each_kind_of_sort"]
fn child_sorts_and_checks_its_memory() {
    // Radix sort (integers): in place.
    check(
        "par_sort_unstable, 4M u64",
        || random_u64(4 << 20, 1),
        |v| v.par_sort_unstable(),
    );
    // Merge sort (a comparator): a 24 MiB scratch buffer.
    check(
        "par_sort_by, 3M u64",
        || random_u64(3 << 20, 2),
        |v| v.par_sort_by(|a, b| b.cmp(a)),
    );
    // Primitive keys of records: packed keys, then a gather through a 32 MiB buffer.
    check(
        "par_sort_by_key, 2M 16-byte records",
        || {
            random_u64(2 << 20, 3)
                .into_iter()
                .map(|x| (x as u32, x))
                .collect::<Vec<(u32, u64)>>()
        },
        |v| v.par_sort_by_key(|r| r.0),
    );
    // Keys computed once: (key, index) pairs sorted, then the gather. (A key that owns heap
    // memory, a `String`, would measure the allocator: millions of small blocks freed in
    // the middle of its heap stay with it, whichever library sorts.)
    check(
        "par_sort_by_cached_key, 2M 16-byte records",
        || {
            random_u64(2 << 20, 4)
                .into_iter()
                .map(|x| (x, x as u32))
                .collect::<Vec<(u64, u32)>>()
        },
        |v| v.par_sort_by_cached_key(|r| (r.0 >> 32, r.1)),
    );
    // Byte strings: character-code keys and a gather.
    check(
        "par_sort_unstable, 1M strings",
        || {
            random_u64(1 << 20, 5)
                .into_iter()
                .map(|x| format!("{x:x}"))
                .collect::<Vec<String>>()
        },
        |v| v.par_sort_unstable(),
    );
}

#[test]
fn memory_returns_after_each_kind_of_sort() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_sorts_and_checks_its_memory",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("strings (round 2): back within"),
        "the child did not run every check:\n{stdout}\n{stderr}"
    );
}
