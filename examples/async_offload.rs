//! A tokio program whose tasks offload CPU-heavy work to blitz-par with `spawn_future`.
//!
//! Forty "requests" arrive over about a second on a single-threaded tokio runtime; each makes
//! a data set of its own (up to 4M items), sorts or maps it in parallel, and awaits the
//! result: all of it inside the closure given to `spawn_future`, off the executor's thread. Some have a deadline shorter than their
//! work: `tokio::time::timeout` drops their future, which cancels the work if it has not
//! started. A ticker task meanwhile wakes every millisecond and records how late it was: the
//! executor's threads stay free, so it stays on time. At the end, one request does the same
//! sort directly inside its task, which holds an executor thread for the whole sort: the
//! ticker's delay shows what that costs.
//!
//! Every result is checked; the program exits with an error if one is wrong.
//!
//! Run: `cargo run --release --example async_offload`

use blitz_par::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A small xorshift generator: each request makes its own data.
fn data(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Work {
    Sort,
    MapCollect,
}

/// One request: make its data, offload the work, await it (with its deadline, if any).
async fn request(id: u64, work: Work, n: usize, deadline: Option<Duration>) -> Result<(), String> {
    let start = Instant::now();
    let future = blitz_par::spawn_future(move || match work {
        Work::Sort => {
            let mut v = data(id, n);
            v.par_sort_unstable();
            v.par_windows(2).all(|w| w[0] <= w[1])
        }
        Work::MapCollect => {
            let input = data(id, n);
            let out: Vec<u64> = input.par_iter().map(|&x| x.rotate_left(7) ^ x).collect();
            out.len() == input.len()
                && out
                    .par_iter()
                    .zip(input.par_iter())
                    .all(|(&o, &x)| o == x.rotate_left(7) ^ x)
        }
    });
    let outcome = match deadline {
        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
        None => Some(future.await),
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match outcome {
        Some(true) => println!("request {id:>2}: {work:?} of {n:>9} items: {ms:>7.2} ms"),
        Some(false) => return Err(format!("request {id}: wrong result")),
        None => println!(
            "request {id:>2}: {work:?} of {n:>9} items: cancelled by its {:?} deadline after {ms:.2} ms",
            deadline.unwrap()
        ),
    }
    Ok(())
}

/// Wakes every millisecond until `stop`, and keeps the largest lateness, in microseconds.
async fn ticker(stop: Arc<AtomicBool>, worst: Arc<AtomicU64>) {
    let mut interval = tokio::time::interval(Duration::from_millis(1));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    interval.tick().await;
    while !stop.load(Ordering::Relaxed) {
        let due = interval.tick().await;
        let late = due.elapsed().as_micros() as u64;
        worst.fetch_max(late, Ordering::Relaxed);
    }
}

fn main() -> Result<(), String> {
    // One executor thread for every task: whatever blocks it delays all of them.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let (stop, worst) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let tick = tokio::spawn(ticker(stop.clone(), worst.clone()));
        let started = Instant::now();
        let requests: Vec<_> = (0..40u64)
            .map(|id| {
                let work = if id % 2 == 0 {
                    Work::Sort
                } else {
                    Work::MapCollect
                };
                let n = 250_000 << (id % 5); // 250k to 4M items
                // Every fourth request has a deadline shorter than its work.
                let deadline = (id % 4 == 3).then(|| Duration::from_millis(1 + id % 3));
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(25 * id)).await;
                    request(id, work, n, deadline).await
                })
            })
            .collect();
        for r in requests {
            r.await.map_err(|e| e.to_string())??;
        }
        println!(
            "40 requests in {:.0} ms; the ticker's worst delay meanwhile: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3,
            worst.load(Ordering::Relaxed) as f64 / 1e3
        );

        // For contrast: the same kind of sort called directly inside a task.
        worst.store(0, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(20)).await;
        let blocking = tokio::spawn(async {
            let start = Instant::now();
            let mut v = data(99, 4_000_000);
            v.par_sort_unstable(); // holds the executor's thread until the sort ends
            (start.elapsed(), v.windows(2).all(|w| w[0] <= w[1]))
        });
        let (took, sorted) = blocking.await.map_err(|e| e.to_string())?;
        if !sorted {
            return Err("the direct sort's result is wrong".into());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        println!(
            "making and sorting 4M items directly in a task took {:.2} ms; the ticker's worst delay: {:.2} ms",
            took.as_secs_f64() * 1e3,
            worst.load(Ordering::Relaxed) as f64 / 1e3
        );
        stop.store(true, Ordering::Relaxed);
        tick.await.map_err(|e| e.to_string())?;
        Ok(())
    })
}
