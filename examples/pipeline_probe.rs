//! The demo's map/filter/collect pipeline in the demo's pattern (a sequential call between
//! parallel ones, called from outside the pool), with per call: wall time, the process's CPU
//! time (all threads), minor page faults, and, built with the `trace` feature, each thread's
//! timeline of one parallel call (runs of leaves, splits, steals, sleeps and wakes).
//!
//! ```text
//! cargo run --release --example pipeline_probe [ROUNDS]
//! cargo run --release --features trace --example pipeline_probe [ROUNDS]
//! cargo run --release --example pipeline_probe ROUNDS filter3   # benches/iter.rs filter_collect_10M
//! ```

use blitz_par::prelude::*;
use std::time::Instant;

#[path = "../benches/common/memory.rs"]
mod memory;

/// The process's CPU time in nanoseconds, every thread together
/// (`CLOCK_PROCESS_CPUTIME_ID`, Linux).
fn cpu_ns() -> u64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `clock_gettime` writes one `struct timespec` (two 64-bit fields on 64-bit
    // Linux) through the pointer, which points to one.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.sec as u64 * 1_000_000_000 + ts.nsec as u64
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

/// `struct timespec` of 64-bit Linux.
#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// Minor page faults of the process so far (`/proc/self/stat`, field 10).
fn minflt() -> u64 {
    memory::faults_and_cpu()[0]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let n = 10_000_000usize;
    if std::env::args().nth(2).as_deref() == Some("filter3") {
        // `benches/iter.rs`'s `filter_collect_10M`: a third of 10M random `i64` kept.
        let data: Vec<i64> = (0..n as i64)
            .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64))
            .collect();
        let seq = || {
            data.iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .collect::<Vec<i64>>()
        };
        let par = || {
            data.par_iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .collect::<Vec<i64>>()
        };
        return race(rounds, seq, par);
    }
    let data: Vec<i64> = (0..n as i64)
        .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64) >> 20)
        .collect();
    let seq = || {
        data.iter()
            .map(|x| x * 3)
            .filter(|x| x % 7 == 0)
            .collect::<Vec<i64>>()
    };
    let par = || {
        data.par_iter()
            .map(|x| x * 3)
            .filter(|x| x % 7 == 0)
            .collect::<Vec<i64>>()
    };
    race(rounds, seq, par);
}

/// `rounds` rounds of the two sides, alternating as the demo's do, one line per call.
fn race(rounds: usize, seq: impl Fn() -> Vec<i64>, par: impl Fn() -> Vec<i64> + Sync) {
    println!("threads {}", blitz_par::current_num_threads());
    let (mut best_seq, mut best_par) = (f64::MAX, f64::MAX);
    // PROBE_KEEP: each side's last result stays alive until its next call returns, as the
    // demo's `Race` keeps it for the final comparison.
    let keep = std::env::var_os("PROBE_KEEP").is_some();
    let mut kept: [Option<Vec<i64>>; 2] = [None, None];
    for round in 0..rounds {
        for side in [round % 2, 1 - round % 2] {
            let (f0, c0, t0) = (minflt(), cpu_ns(), Instant::now());
            #[cfg(feature = "trace")]
            let (result, trace) = if side == 1 {
                let (v, t) = blitz_par::trace::record(|| std::hint::black_box(par()));
                (v, Some(t))
            } else {
                (std::hint::black_box(seq()), None)
            };
            #[cfg(not(feature = "trace"))]
            let result = if side == 1 {
                std::hint::black_box(par())
            } else {
                std::hint::black_box(seq())
            };
            let len = result.len();
            if keep {
                kept[side] = Some(result);
            }
            let wall = t0.elapsed().as_secs_f64() * 1e3;
            let cpu = (cpu_ns() - c0) as f64 / 1e6;
            let faults = minflt() - f0;
            let name = if side == 0 { "seq" } else { "par" };
            if side == 0 {
                best_seq = best_seq.min(wall);
            } else {
                best_par = best_par.min(wall);
            }
            println!(
                "round {round} {name}: wall {wall:7.2} ms  cpu {cpu:7.2} ms  cpu/wall {:.2}  minflt {faults:6}  len {len}",
                cpu / wall
            );
            #[cfg(feature = "trace")]
            if let Some(trace) = trace {
                if std::env::var_os("PROBE_TIMELINE").is_some() {
                    print_timeline(&trace);
                }
                print_phases(&trace);
            }
        }
    }
    println!(
        "best seq {best_seq:.2} ms, best par {best_par:.2} ms, speedup {:.2}x",
        best_seq / best_par
    );
}

/// Each thread's events, runs of leaves collapsed into one line.
#[cfg(feature = "trace")]
fn print_timeline(trace: &blitz_par::trace::Trace) {
    use blitz_par::trace::EventKind as K;
    let us = |ns: u64| ns as f64 / 1e3;
    for t in trace.threads() {
        if t.events.is_empty() {
            continue;
        }
        println!("  [{}] {} events", t.name, t.events.len());
        let mut run: Option<(u64, u64, u64, u64, u64)> = None; // start, end, leaves, items, busy
        let mut open = 0u64;
        let flush = |run: &mut Option<(u64, u64, u64, u64, u64)>| {
            if let Some((s, e, k, items, busy)) = run.take() {
                println!(
                    "    {:9.1}-{:9.1} us: {k} leaves, {items} items, busy {:.1} us",
                    us(s),
                    us(e),
                    us(busy)
                );
            }
        };
        for e in &t.events {
            match e.kind {
                K::LeafBegin => open = e.time_ns,
                K::LeafEnd => {
                    let r = run.get_or_insert((open, e.time_ns, 0, 0, 0));
                    r.1 = e.time_ns;
                    r.2 += 1;
                    r.3 += e.a;
                    r.4 += e.time_ns - open;
                }
                _ => {
                    flush(&mut run);
                    println!(
                        "    {:9.1} us: {:?} a={} b={}",
                        us(e.time_ns),
                        e.kind,
                        e.a,
                        e.b
                    );
                }
            }
        }
        flush(&mut run);
    }
}

/// One line per traced call: when a worker first woke and first took a job, when the drive
/// ended (the copy's first leaf: the drive's own chunks are not recorded as leaves), and the
/// copy's items and busy time per thread.
#[cfg(feature = "trace")]
fn print_phases(trace: &blitz_par::trace::Trace) {
    use blitz_par::trace::EventKind as K;
    let ms = |ns: u64| ns as f64 / 1e6;
    let end = trace.duration_ns();
    let mut first_wake = None;
    // The copy's first leaf (the drive's own chunks are not recorded as leaves).
    let copy_start = trace
        .threads()
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| e.kind == K::LeafBegin)
        .map(|e| e.time_ns)
        .min()
        .unwrap_or(u64::MAX);
    let mut parts = Vec::new();
    for t in trace.threads() {
        let ev = &t.events;
        if let Some(w) = ev.iter().find(|e| e.kind == K::Wake) {
            first_wake = Some(first_wake.map_or(w.time_ns, |f: u64| f.min(w.time_ns)));
        }
        let woke = ev.iter().find(|e| e.kind == K::SleepEnd).map(|e| e.time_ns);
        let took = ev
            .iter()
            .find(|e| e.kind == K::Steal || e.kind == K::JobBegin)
            .map(|e| e.time_ns);
        let mut open = 0;
        let (mut items, mut busy) = (0u64, 0u64);
        for e in ev {
            match e.kind {
                K::LeafBegin => open = e.time_ns,
                K::LeafEnd => {
                    items += e.a;
                    busy += e.time_ns - open;
                }
                _ => {}
            }
        }
        // The end of this thread's part of the drive: its last job's end before the copy.
        let last_job_end = ev
            .iter()
            .rev()
            .find(|e| e.kind == K::JobEnd && e.time_ns < copy_start)
            .map(|e| e.time_ns);
        parts.push(format!(
            "{}: woke {} took {} drive_end {} copy {} items {:.2} ms",
            t.name,
            woke.map_or("-".into(), |w| format!("{:.3}", ms(w))),
            took.map_or("-".into(), |w| format!("{:.3}", ms(w))),
            last_job_end.map_or("-".into(), |w| format!("{:.3}", ms(w))),
            items,
            ms(busy)
        ));
    }
    println!(
        "  phases: wake {} copy {:.3}-{:.3} ms ({:.3}) | {}",
        first_wake.map_or("-".into(), |w| format!("{:.3}", ms(w))),
        ms(copy_start),
        ms(end),
        ms(end.saturating_sub(copy_start)),
        parts.join(" | ")
    );
}
