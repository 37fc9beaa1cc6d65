//! The first sort in a fresh process: blitz-par vs rayon, one sort per process.
//!
//! Each run starts this program again as a child, which makes random `u64` (the same data as
//! `benches/sort.rs`), sorts it once and reports the sort's wall time, its page faults and
//! CPU time (`/proc/self/stat`), and the resident memory before the sort, right after it,
//! and 0.5 s later. Runs alternate between the libraries (blitz first on even runs, rayon on
//! odd ones), so that both see the same moments of a shared, noisy machine.
//!
//! `cargo bench --bench sort_cold -- [--runs N] [--sizes 1M,10M,50M] [--kinds unstable,stable]
//! [--verbose]`; prints, per size and kind, each library's median and worst wall time and
//! blitz-par's ratios to rayon's median. The child alone: `... -- --child blitz unstable 10M`.
//! Linux only (it reads `/proc`).

use std::process::Command;
use std::time::{Duration, Instant};

#[path = "common/memory.rs"]
mod memory;
use memory::{faults_and_cpu, median, mib, random_u64, resident_bytes, TICK_MS};

fn parse_len(text: &str) -> usize {
    let (digits, scale) = match text.strip_suffix(['M', 'm']) {
        Some(digits) => (digits, 1_000_000),
        None => match text.strip_suffix(['K', 'k']) {
            Some(digits) => (digits, 1_000),
            None => (text, 1),
        },
    };
    digits.parse::<usize>().expect("a length such as 10M") * scale
}

/// Sorts `v` with `library`'s sort of `kind`.
fn sort(library: &str, kind: &str, v: &mut [u64]) {
    match (library, kind) {
        ("blitz", "unstable") => blitz_par::prelude::ParallelSliceMut::par_sort_unstable(v),
        ("blitz", "stable") => blitz_par::prelude::ParallelSliceMut::par_sort(v),
        ("rayon", "unstable") => rayon::slice::ParallelSliceMut::par_sort_unstable(v),
        ("rayon", "stable") => rayon::slice::ParallelSliceMut::par_sort(v),
        _ => panic!("unknown library or kind: {library} {kind}"),
    }
}

/// One sort, in this (fresh) process; prints one line of `key=value` figures. `before`, for
/// finding where a first sort loses its time: `pool` starts the library's threads first (a
/// parallel sum), `sort` sorts a copy of the data first (so the sort timed is a second one).
fn child(library: &str, kind: &str, len: usize, before: Option<&str>) {
    let mut v = random_u64(len);
    match before {
        None => {}
        Some("pool") => {
            let total: u64 = if library == "blitz" {
                blitz_par::prelude::ParallelIterator::sum(
                    blitz_par::prelude::IntoParallelIterator::into_par_iter(0..1_000_000u64),
                )
            } else {
                rayon::iter::ParallelIterator::sum(
                    rayon::iter::IntoParallelIterator::into_par_iter(0..1_000_000u64),
                )
            };
            assert_eq!(total, 999_999 * 500_000);
        }
        Some("sort") => sort(library, kind, &mut v.clone()),
        Some(other) => panic!("unknown --before {other}"),
    }
    let (rss_before, before) = (resident_bytes(), faults_and_cpu());
    let start = Instant::now();
    sort(library, kind, &mut v);
    let elapsed = start.elapsed();
    let (rss_after, after) = (resident_bytes(), faults_and_cpu());
    std::thread::sleep(Duration::from_millis(500));
    let rss_later = resident_bytes();
    assert!(v.windows(2).all(|w| w[0] <= w[1]), "not sorted");
    println!(
        "ms={:.2} minflt={} majflt={} user_ms={:.0} sys_ms={:.0} rss_before_mib={:.1} \
         held_mib={:.1} held_later_mib={:.1}",
        elapsed.as_secs_f64() * 1e3,
        after[0] - before[0],
        after[1] - before[1],
        (after[2] - before[2]) as f64 * TICK_MS,
        (after[3] - before[3]) as f64 * TICK_MS,
        mib(rss_before),
        mib(rss_after) - mib(rss_before),
        mib(rss_later) - mib(rss_before),
    );
}

/// `repeat` sorts of copies of the same data in this process, after one not timed; prints the
/// median and the fastest, in milliseconds.
fn warm(library: &str, kind: &str, len: usize, repeat: usize) {
    let data = random_u64(len);
    let mut copy = data.clone();
    sort(library, kind, &mut copy);
    let mut times: Vec<f64> = (0..repeat)
        .map(|_| {
            copy.copy_from_slice(&data);
            let start = Instant::now();
            sort(library, kind, &mut copy);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let fastest = times.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "median_ms={:.2} fastest_ms={fastest:.2}",
        median(&mut times)
    );
}

/// The value of `key=` in a child's line.
fn field(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {line:?}"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        let rest = &args[at + 1..];
        if let Some(repeat) = rest.get(3).and_then(|r| r.strip_prefix("--repeat=")) {
            warm(
                &rest[0],
                &rest[1],
                parse_len(&rest[2]),
                repeat.parse().expect("--repeat=N"),
            );
            return;
        }
        let before = rest.get(3).map(|b| b.trim_start_matches("--before="));
        child(&rest[0], &rest[1], parse_len(&rest[2]), before);
        return;
    }
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|at| args[at + 1].clone())
    };
    let runs: usize = option("--runs").map_or(10, |r| r.parse().expect("--runs N"));
    let sizes = option("--sizes").unwrap_or_else(|| "1M,10M,50M".into());
    let kinds = option("--kinds").unwrap_or_else(|| "unstable,stable".into());
    let verbose = args.iter().any(|a| a == "--verbose");
    let exe = std::env::current_exe().expect("current_exe");
    println!(
        "first sort per process, random u64, {runs} runs each; ms (median / worst), \
         blitz's ratio to rayon's median"
    );
    for size in sizes.split(',') {
        for kind in kinds.split(',') {
            let mut times = [Vec::new(), Vec::new()];
            let mut lines = [Vec::new(), Vec::new()];
            for run in 0..runs {
                let order = if run % 2 == 0 { [0, 1] } else { [1, 0] };
                for which in order {
                    let library = ["blitz", "rayon"][which];
                    let output = Command::new(&exe)
                        .args(["--child", library, kind, size])
                        .output()
                        .expect("start the child");
                    assert!(
                        output.status.success(),
                        "child failed: {}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                    let line = String::from_utf8_lossy(&output.stdout).trim().to_string();
                    times[which].push(field(&line, "ms"));
                    lines[which].push(line);
                }
            }
            let worst = |t: &[f64]| t.iter().copied().fold(0.0, f64::max);
            let (blitz_worst, rayon_worst) = (worst(&times[0]), worst(&times[1]));
            let blitz_median = median(&mut times[0].clone());
            let rayon_median = median(&mut times[1].clone());
            let held = |which: usize, key: &str| {
                lines[which]
                    .iter()
                    .map(|l| field(l, key))
                    .fold(0.0, f64::max)
            };
            println!(
                "{size:>4} {kind:<8}  blitz {blitz_median:7.1} / {blitz_worst:7.1}  \
                 rayon {rayon_median:7.1} / {rayon_worst:7.1}  median {:.2}x  worst {:.2}x  \
                 held 0.5 s later (max MiB): blitz {:.1} rayon {:.1}",
                blitz_median / rayon_median,
                blitz_worst / rayon_median,
                held(0, "held_later_mib"),
                held(1, "held_later_mib"),
            );
            if verbose {
                for (which, library) in ["blitz", "rayon"].iter().enumerate() {
                    for line in &lines[which] {
                        println!("    {library}: {line}");
                    }
                }
            }
        }
    }
}
