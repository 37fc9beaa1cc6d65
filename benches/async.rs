//! Awaiting parallel work from async code: `blitz_par::spawn_future` against tokio's
//! `spawn_blocking` and against `rayon::spawn` plus a tokio oneshot channel (what tokio-rayon
//! does), all awaited from a tokio current-thread runtime, in one run, interleaved.
//!
//! - round trip: spawn a trivial closure, run it, wake the task, await; the median of 1,000,
//!   back to back (a loop of calls: the pool's threads are still awake from the last one),
//!   interleaved with the other peers and each peer alone, and after 2 ms of idle time each
//!   (the threads asleep: what an occasional call pays);
//! - where a back-to-back round trip goes, each peer alone: from the spawn to the closure's
//!   start on a pool thread, and from there back to the awaiter;
//! - a 1,000-item `i64` sum from the main thread against the sequential loop, back to back
//!   and right after a round trip (the pool's threads just woke the executor);
//! - a 10M-item `i64` sum: `spawn_future(move || v.par_iter().sum())` against calling the sum
//!   directly from the main thread (the median of 31 each);
//! - 1,000 at once: 1,000 trivial closures spawned, then all awaited; futures per second;
//! - CPU while the executor waits: the CPU time of all the process's threads while a task
//!   awaits a closure that sleeps 200 ms, against the same 200 ms with nothing running.
//!
//! Run: `cargo bench --bench async` (Linux: CPU time comes from `/proc/self/task`);
//! `ASYNC_BENCH_PARTS=round_trip,big_sum cargo bench --bench async` runs only those parts.

use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// CPU time of every thread of the process so far, in nanoseconds.
fn cpu_ns() -> u64 {
    let mut total = 0;
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for entry in dir.flatten() {
            if let Ok(s) = std::fs::read_to_string(entry.path().join("schedstat")) {
                total += s
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
    }
    total
}

#[derive(Clone, Copy, PartialEq)]
enum Peer {
    Blitz,
    SpawnBlocking,
    RayonOneshot,
}

const PEERS: [Peer; 3] = [Peer::Blitz, Peer::SpawnBlocking, Peer::RayonOneshot];

impl Peer {
    fn name(self) -> &'static str {
        match self {
            Peer::Blitz => "blitz-par spawn_future",
            Peer::SpawnBlocking => "tokio spawn_blocking",
            Peer::RayonOneshot => "rayon::spawn + oneshot",
        }
    }

    /// Runs `f` the peer's way and awaits its result.
    async fn run<R: Send + 'static>(self, f: impl FnOnce() -> R + Send + 'static) -> R {
        match self {
            Peer::Blitz => blitz_par::spawn_future(f).await,
            Peer::SpawnBlocking => tokio::task::spawn_blocking(f).await.unwrap(),
            Peer::RayonOneshot => {
                let (tx, rx) = tokio::sync::oneshot::channel();
                rayon::spawn(move || {
                    let _ = tx.send(f());
                });
                rx.await.unwrap()
            }
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p) as usize]
}

/// 1,000 round trips per peer, interleaved (one of each in turn), with `idle` between them.
/// Returns microseconds per peer.
fn round_trips(runtime: &Runtime, rounds: usize, idle: Duration) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(rounds); PEERS.len()];
    runtime.block_on(async {
        for round in 0..rounds {
            for k in 0..PEERS.len() {
                // Rotate who goes first, so that none always follows another's wake-ups.
                let i = (k + round) % PEERS.len();
                if !idle.is_zero() {
                    std::thread::sleep(idle);
                }
                let start = Instant::now();
                let x = PEERS[i].run(move || std::hint::black_box(round)).await;
                times[i].push(start.elapsed().as_secs_f64() * 1e6);
                assert_eq!(x, round);
            }
        }
    });
    times
}

fn report_round_trips(what: &str, times: &[Vec<f64>]) {
    println!("round trip, {what}: median (p10 / p90) in us, and against spawn_future");
    let blitz = median(times[0].clone());
    for (peer, t) in PEERS.iter().zip(times) {
        let m = median(t.clone());
        println!(
            "  {:<24} {m:>7.1}  ({:>6.1} / {:>7.1})  spawn_future is {:.2}x this",
            peer.name(),
            percentile(t.clone(), 0.1),
            percentile(t.clone(), 0.9),
            blitz / m
        );
    }
}

/// 1,000 back-to-back round trips of one peer alone (no other library's threads spinning
/// down meanwhile). Returns microseconds.
fn round_trips_alone(runtime: &Runtime, peer: Peer) -> Vec<f64> {
    runtime.block_on(async {
        let mut times = Vec::with_capacity(1_000);
        for round in 0..1_050 {
            let start = Instant::now();
            let x = peer.run(move || std::hint::black_box(round)).await;
            if round >= 50 {
                times.push(start.elapsed().as_secs_f64() * 1e6);
            }
            assert_eq!(x, round);
        }
        times
    })
}

/// Where a back-to-back round trip goes, each peer alone: 1,000 calls whose closure reads the
/// clock when it starts; "to the pool thread" is from before the spawn to that reading (the
/// job posted, a pool thread finding it, waking it if it slept), "back to the awaiter" from
/// that reading to the await's return (the completion, the waker, the executor's thread
/// woken and running again). Both in microseconds, median (p10 / p90).
fn round_trip_breakdown(runtime: &Runtime) {
    println!(
        "round trip split, back to back, each peer alone (1,000 each): median (p10 / p90) in us"
    );
    for peer in PEERS {
        std::thread::sleep(Duration::from_millis(50));
        let (to_pool, back) = runtime.block_on(async {
            let (mut to_pool, mut back) = (Vec::new(), Vec::new());
            for round in 0..1_050 {
                let start = Instant::now();
                let (x, ran) = peer
                    .run(move || (std::hint::black_box(round), Instant::now()))
                    .await;
                let end = Instant::now();
                assert_eq!(x, round);
                if round >= 50 {
                    to_pool.push((ran - start).as_secs_f64() * 1e6);
                    back.push((end - ran).as_secs_f64() * 1e6);
                }
            }
            (to_pool, back)
        });
        println!(
            "  {:<24} to the pool thread {:>5.1} ({:>5.1} / {:>5.1}), back to the awaiter \
             {:>5.1} ({:>5.1} / {:>5.1})",
            peer.name(),
            median(to_pool.clone()),
            percentile(to_pool.clone(), 0.1),
            percentile(to_pool, 0.9),
            median(back.clone()),
            percentile(back.clone(), 0.1),
            percentile(back, 0.9),
        );
    }
}

fn big_sum(runtime: &Runtime) {
    use blitz_par::prelude::*;
    let v: Arc<Vec<i64>> = Arc::new((0..10_000_000i64).map(|x| x ^ 0x55).collect());
    let expected: i64 = v.iter().sum();
    let (mut direct, mut awaited) = (Vec::new(), Vec::new());
    for round in 0..31 {
        // Alternate which goes first; let the pool fall asleep before each, as between
        // requests of a server.
        for first in [round % 2 == 0, round % 2 == 1] {
            std::thread::sleep(Duration::from_millis(5));
            let start = Instant::now();
            if first {
                let sum: i64 = v.par_iter().sum();
                direct.push(start.elapsed().as_secs_f64() * 1e3);
                assert_eq!(sum, expected);
            } else {
                let v = v.clone();
                let sum =
                    runtime.block_on(blitz_par::spawn_future(move || v.par_iter().sum::<i64>()));
                awaited.push(start.elapsed().as_secs_f64() * 1e3);
                assert_eq!(sum, expected);
            }
        }
    }
    let (d, a) = (median(direct), median(awaited));
    println!(
        "10M i64 par_iter().sum(), median of 31 after 5 ms idle each: direct {d:.2} ms, \
         spawn_future {a:.2} ms ({:.3}x direct)",
        a / d
    );
}

/// A 1,000-item `par_iter().sum()` called from the main thread (outside the pool), against
/// the sequential loop, in nanoseconds (medians of 2,000 each): back to back, and right after
/// each `spawn_future` round trip (the pool's threads just ran a task and woke the executor).
fn small_sum(runtime: &Runtime) {
    use blitz_par::prelude::*;
    let v: Vec<i64> = (0..1_000i64).map(|x| x ^ 0x55).collect();
    let expected: i64 = v.iter().sum();
    let (mut seq, mut par, mut after) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..2_000 {
        let start = Instant::now();
        let sum: i64 = std::hint::black_box(&v).iter().sum();
        seq.push(start.elapsed().as_secs_f64() * 1e9);
        assert_eq!(sum, expected);
        let start = Instant::now();
        let sum: i64 = std::hint::black_box(&v).par_iter().sum();
        par.push(start.elapsed().as_secs_f64() * 1e9);
        assert_eq!(sum, expected);
        let x = runtime.block_on(blitz_par::spawn_future(move || std::hint::black_box(round)));
        assert_eq!(x, round);
        let start = Instant::now();
        let sum: i64 = std::hint::black_box(&v).par_iter().sum();
        after.push(start.elapsed().as_secs_f64() * 1e9);
        assert_eq!(sum, expected);
    }
    let s = median(seq);
    let (p, a) = (median(par), median(after));
    println!(
        "1,000-item i64 sum from the main thread, median of 2,000, ns: sequential {s:.0}, \
         par_iter {p:.0} ({:.2}x), par_iter right after a spawn_future round trip {a:.0} ({:.2}x)",
        p / s,
        a / s
    );
}

fn in_flight(runtime: &Runtime) {
    const AT_ONCE: usize = 1_000;
    let mut rates = vec![Vec::new(); PEERS.len()];
    runtime.block_on(async {
        for round in 0..30 {
            for k in 0..PEERS.len() {
                let i = (k + round) % PEERS.len();
                let peer = PEERS[i];
                let start = Instant::now();
                let futures: Vec<_> = (0..AT_ONCE)
                    .map(|j| peer.run(move || std::hint::black_box(j) * 2))
                    .collect();
                // `join_all` polls each once (spawning its work: the async blocks start on
                // their first poll), then as woken.
                let results = futures::future::join_all(futures).await;
                let secs = start.elapsed().as_secs_f64();
                assert!(results.iter().enumerate().all(|(j, &r)| r == j * 2));
                rates[i].push(AT_ONCE as f64 / secs);
            }
        }
    });
    println!("{AT_ONCE} at once, then all awaited: median futures per second (30 rounds)");
    for (peer, r) in PEERS.iter().zip(rates) {
        println!("  {:<24} {:>10.0}", peer.name(), median(r));
    }
}

fn cpu_while_waiting(runtime: &Runtime) {
    const WAIT: Duration = Duration::from_millis(200);
    let mut idle = Vec::new();
    let mut waiting = vec![Vec::new(); PEERS.len()];
    for round in 0..5 {
        for k in 0..PEERS.len() {
            let peer = PEERS[(k + round) % PEERS.len()];
            runtime.block_on(async {
                // Same start for both windows: a round trip just ended.
                peer.run(|| ()).await;
                let start = cpu_ns();
                tokio::time::sleep(WAIT).await;
                idle.push((cpu_ns() - start) as f64 / 1e6);
                peer.run(|| ()).await;
                let start = cpu_ns();
                peer.run(|| std::thread::sleep(WAIT)).await;
                waiting[PEERS.iter().position(|&p| p == peer).unwrap()]
                    .push((cpu_ns() - start) as f64 / 1e6);
            });
        }
    }
    println!(
        "CPU of all threads in ms over 200 ms, median of 5: nothing running {:.2}",
        median(idle)
    );
    for (peer, w) in PEERS.iter().zip(waiting) {
        println!(
            "  awaiting a 200 ms sleep, {:<24} {:.2}",
            peer.name(),
            median(w)
        );
    }
}

/// Whether the part `name` runs: all of them, or those named in `ASYNC_BENCH_PARTS`
/// (comma-separated: `round_trip`, `breakdown`, `small_sum`, `big_sum`, `in_flight`, `cpu`).
fn part(name: &str) -> bool {
    std::env::var("ASYNC_BENCH_PARTS").map_or(true, |parts| parts.split(',').any(|p| p == name))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` compatibility
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    // Start every pool before measuring.
    let _ = round_trips(&runtime, 50, Duration::ZERO);
    if part("round_trip") {
        let times = round_trips(&runtime, 1_000, Duration::ZERO);
        report_round_trips("back to back (1,000 each, interleaved)", &times);
        let alone: Vec<Vec<f64>> = PEERS
            .iter()
            .map(|&peer| {
                std::thread::sleep(Duration::from_millis(50));
                round_trips_alone(&runtime, peer)
            })
            .collect();
        report_round_trips("back to back, each peer alone (1,000 each)", &alone);
        let times = round_trips(&runtime, 300, Duration::from_millis(2));
        report_round_trips("after 2 ms idle each (300 each, interleaved)", &times);
    }
    if part("breakdown") {
        round_trip_breakdown(&runtime);
    }
    if part("small_sum") {
        small_sum(&runtime);
    }
    if part("big_sum") {
        big_sum(&runtime);
    }
    if part("in_flight") {
        in_flight(&runtime);
    }
    if part("cpu") {
        cpu_while_waiting(&runtime);
    }
}
