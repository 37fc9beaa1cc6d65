//! Sorts called back to back and now and then: speed, and the memory a process holds after
//! them. blitz-par vs rayon, in the same process, on the same data.
//!
//! For each sort:
//! - *loop*: `LOOP` sorts back to back (each of a fresh copy of the data, copied in place), the
//!   median time;
//! - *after idle*: `IDLE_ROUNDS` times, a sort after a second of sleep, the median time;
//! - *held*: the resident size 0.5 s after the last sort of each, less the size before it
//!   (the data counted in both), the largest over the rounds.
//!
//! `cargo bench --bench sort_memory -- [filter]` (Linux only: it reads `/proc`).

use blitz_par::prelude::ParallelSliceMut as Blitz;
use rayon::slice::ParallelSliceMut as Rayon;
use std::time::{Duration, Instant};

#[path = "common/memory.rs"]
mod memory;
use memory::{median, mib, random_u64, resident_bytes};

const LOOP: usize = 10;
const IDLE_ROUNDS: usize = 5;
const IDLE: Duration = Duration::from_secs(1);
const LATER: Duration = Duration::from_millis(500);

struct Figures {
    loop_ms: f64,
    idle_ms: f64,
    held_mib: f64,
}

/// Times `sort` on copies of `data` (see the module documentation).
fn measure<T: Copy>(data: &[T], sort: &dyn Fn(&mut [T])) -> Figures {
    let mut v = data.to_vec();
    let mut held: f64 = 0.0;
    let time = |v: &mut Vec<T>| {
        v.copy_from_slice(data);
        let start = Instant::now();
        sort(v);
        start.elapsed().as_secs_f64() * 1e3
    };
    let before = resident_bytes();
    let mut loop_times: Vec<f64> = (0..LOOP).map(|_| time(&mut v)).collect();
    std::thread::sleep(LATER);
    held = held.max(mib(resident_bytes()) - mib(before));
    let mut idle_times = Vec::new();
    for _ in 0..IDLE_ROUNDS {
        std::thread::sleep(IDLE - LATER);
        let before = resident_bytes();
        idle_times.push(time(&mut v));
        std::thread::sleep(LATER);
        held = held.max(mib(resident_bytes()) - mib(before));
    }
    Figures {
        loop_ms: median(&mut loop_times),
        idle_ms: median(&mut idle_times),
        held_mib: held,
    }
}

fn compare<T: Copy + Send>(
    name: &str,
    data: &[T],
    blitz: &dyn Fn(&mut [T]),
    rayon: &dyn Fn(&mut [T]),
) {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
        return;
    }
    let b = measure(data, blitz);
    let r = measure(data, rayon);
    println!(
        "{name:<34} loop: blitz {:7.1} ms, rayon {:7.1} ({:.2}x) | after idle: blitz {:7.1}, \
         rayon {:7.1} ({:.2}x) | held 0.5 s after: blitz {:5.1} MiB, rayon {:5.1}",
        b.loop_ms,
        r.loop_ms,
        b.loop_ms / r.loop_ms,
        b.idle_ms,
        r.idle_ms,
        b.idle_ms / r.idle_ms,
        b.held_mib,
        r.held_mib,
    );
}

fn main() {
    println!(
        "median of {LOOP} sorts back to back, of {IDLE_ROUNDS} after {IDLE:?} idle; the most \
         resident memory above what was there before, {LATER:?} after the last sort"
    );
    for len in [1_000_000, 10_000_000, 50_000_000] {
        let data = random_u64(len);
        let m = len / 1_000_000;
        compare(
            &format!("u64 {m}M par_sort_unstable"),
            &data,
            &|v| Blitz::par_sort_unstable(v),
            &|v| Rayon::par_sort_unstable(v),
        );
        compare(
            &format!("u64 {m}M par_sort"),
            &data,
            &|v| Blitz::par_sort(v),
            &|v| Rayon::par_sort(v),
        );
        if len <= 10_000_000 {
            // A comparator: merge sort, with a scratch buffer the size of the input.
            compare(
                &format!("u64 {m}M par_sort_by (descending)"),
                &data,
                &|v| Blitz::par_sort_by(v, |a, b| b.cmp(a)),
                &|v| Rayon::par_sort_by(v, |a, b| b.cmp(a)),
            );
            let records: Vec<(u32, u64)> = data.iter().map(|&x| (x as u32, x)).collect();
            compare(
                &format!("(u32, u64) {m}M par_sort_by_key"),
                &records,
                &|v| Blitz::par_sort_by_key(v, |r| r.0),
                &|v| Rayon::par_sort_by_key(v, |r| r.0),
            );
        }
    }
}
