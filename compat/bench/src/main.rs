//! The compatibility crates' benchmark (scripts/compat_bench.sh builds it three ways):
//!
//! - **one pool against two**: the program's own parallel code (through the `par` facade) and
//!   two dependencies' rayon support (ndarray's `Zip::par_for_each`, hashbrown's `par_extend`)
//!   take turns, ROUNDS rounds; reports wall time, CPU time and the peak thread count;
//! - **turns** (one pool against two, phases that hold still): the program's own map and sum,
//!   ndarray's `Zip::par_for_each` and hashbrown's `par_iter().map().sum()` over a map built
//!   once, ROUNDS rounds; nothing is allocated inside the loop, so no phase depends on where
//!   the heap puts a table (the one-pool loop's `par_extend` moved 40% between two processes
//!   of one build); reports the same figures, and each phase's time;
//! - **real crates**: ndarray, hashbrown and indexmap parallel calls, each timed REPEATS times
//!   (best and median);
//! - **zip**: ndarray's `Zip::par_for_each` alone, timed REPEATS times (not part of `all`).
//!
//! Built with the `blitz` feature, the program's own code runs on blitz-par; without it, on
//! rayon. The `pool-only` feature builds blitz-par's global pool with `pool_threads_only(true)`. The dependencies always call `rayon`, which is blitz-par when the build patches it.
//! Output: one `RESULT <key> <value>` line per figure, for the script's table.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// The program's own parallel code: blitz-par, or rayon in the all-rayon build.
mod par {
    #[cfg(feature = "blitz")]
    pub use blitz_par::prelude::*;
    #[cfg(not(feature = "blitz"))]
    pub use rayon::prelude::*;

    /// The program's own parallel work: a map and a sum.
    pub fn own_work(v: &[f64]) -> f64 {
        v.par_iter().map(|x| x.sqrt() * 1.5).sum()
    }
}

/// The dependencies' parallel work: always through `rayon` (patched or real).
mod deps {
    use hashbrown::HashMap;
    use indexmap::IndexMap;
    use ndarray::{Array2, Zip};
    use rayon::prelude::*;

    pub fn zip_for_each(a: &mut Array2<f64>, b: &Array2<f64>) {
        Zip::from(a).and(b).par_for_each(|x, &y| *x = *x * 0.5 + y);
    }

    pub fn map_collect(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
        Zip::from(a).and(b).par_map_collect(|&x, &y| x * y + 1.0)
    }

    pub fn extend(map: &mut HashMap<u64, u64>, n: u64) {
        map.par_extend((0..n).into_par_iter().map(|k| (k, k ^ 0x5555)));
    }

    pub fn filled(n: u64) -> HashMap<u64, u64> {
        let mut map = HashMap::with_capacity(n as usize);
        map.par_extend((0..n).into_par_iter().map(|k| (k, k ^ 0x5555)));
        map
    }

    pub fn map_sum(map: &HashMap<u64, u64>) -> u64 {
        map.par_iter().map(|(k, v)| k.wrapping_mul(*v) >> 7).sum()
    }

    /// An IndexMap of n entries in a scrambled key order.
    pub fn scrambled(n: u64) -> IndexMap<u64, u64> {
        (0..n)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11, i))
            .collect()
    }

    pub fn sort_keys(map: &mut IndexMap<u64, u64>) {
        map.par_sort_keys();
    }
}

struct Args {
    workload: String,
    rounds: usize,
    side: usize,
    own_items: usize,
    extend_entries: u64,
    sum_entries: u64,
    sort_entries: u64,
    turn_entries: u64,
    repeats: usize,
}

impl Args {
    /// Whether `--workload` (a comma-separated list, or `all`) names `w`.
    fn runs(&self, w: &str) -> bool {
        self.workload
            .split(',')
            .any(|x| x == w || (x == "all" && w != "turns" && w != "zip"))
    }
}

fn parse_args() -> Args {
    let mut a = Args {
        workload: "all".into(),
        rounds: 1000,
        side: 2048,
        own_items: 1_000_000,
        extend_entries: 1_000_000,
        sum_entries: 10_000_000,
        sort_entries: 1_000_000,
        turn_entries: 1_000_000,
        repeats: 10,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let value = argv.get(i + 1).unwrap_or_else(|| usage(&argv[i]));
        let num = || value.parse::<u64>().unwrap_or_else(|_| usage(&argv[i]));
        match argv[i].as_str() {
            "--workload" => a.workload = value.clone(),
            "--rounds" => a.rounds = num() as usize,
            "--side" => a.side = num() as usize,
            "--own-items" => a.own_items = num() as usize,
            "--extend-entries" => a.extend_entries = num(),
            "--sum-entries" => a.sum_entries = num(),
            "--sort-entries" => a.sort_entries = num(),
            "--turn-entries" => a.turn_entries = num(),
            "--repeats" => a.repeats = (num() as usize).max(1),
            _ => usage(&argv[i]),
        }
        i += 2;
    }
    if !a
        .workload
        .split(',')
        .all(|w| matches!(w, "all" | "one-pool" | "turns" | "crates" | "zip"))
    {
        usage("--workload");
    }
    a
}

fn usage(bad: &str) -> ! {
    eprintln!(
        "bad argument {bad}\nusage: compat-bench [--workload all|one-pool|turns|crates|zip[,...]] \
         [--rounds N] [--side N] [--own-items N] [--extend-entries N] [--sum-entries N] \
         [--sort-entries N] [--turn-entries N] [--repeats N]"
    );
    std::process::exit(2)
}

/// User plus system CPU time of the whole process so far.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The process's thread count, from /proc/self/status.
fn threads_now() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Samples the thread count every millisecond until stopped; the peak excludes the sampler.
struct ThreadSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    handle: thread::JoinHandle<()>,
}

impl ThreadSampler {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let handle = thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(threads_now(), Ordering::Relaxed);
                thread::sleep(Duration::from_millis(1));
            }
        });
        ThreadSampler { stop, peak, handle }
    }

    fn finish(self) -> usize {
        self.peak.fetch_max(threads_now(), Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap();
        self.peak.load(Ordering::Relaxed).saturating_sub(1)
    }
}

fn report(key: &str, value: impl std::fmt::Display) {
    println!("RESULT {key} {value}");
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn one_pool(a: &Args) {
    let side = a.side;
    let own: Vec<f64> = (0..a.own_items).map(|i| i as f64).collect();
    let mut m = ndarray::Array2::<f64>::from_shape_fn((side, side), |(i, j)| (i ^ j) as f64);
    let b = ndarray::Array2::<f64>::from_elem((side, side), 0.25);
    let mut map = hashbrown::HashMap::<u64, u64>::with_capacity(a.extend_entries as usize);

    let sampler = ThreadSampler::start();
    let (cpu0, t0) = (cpu_time(), Instant::now());
    let mut check = 0.0;
    // Where each round's time goes: the program's own work, ndarray's, hashbrown's.
    let mut phases = [Duration::ZERO; 3];
    for _ in 0..a.rounds {
        let t = Instant::now();
        check += par::own_work(&own);
        let t1 = Instant::now();
        deps::zip_for_each(&mut m, &b);
        let t2 = Instant::now();
        map.clear();
        deps::extend(&mut map, a.extend_entries);
        check += map.len() as f64;
        let t3 = Instant::now();
        phases[0] += t1 - t;
        phases[1] += t2 - t1;
        phases[2] += t3 - t2;
    }
    let (wall, cpu) = (t0.elapsed(), cpu_time() - cpu0);
    let peak = sampler.finish();
    black_box((check, &m));
    assert_eq!(map.len() as u64, a.extend_entries);

    report("one_pool.rounds", a.rounds);
    report("one_pool.wall_ms", ms(wall));
    report("one_pool.own_work_ms", ms(phases[0]));
    report("one_pool.ndarray_zip_ms", ms(phases[1]));
    report("one_pool.hashbrown_extend_ms", ms(phases[2]));
    report("one_pool.cpu_ms", ms(cpu));
    report(
        "one_pool.cpus_busy",
        format!("{:.2}", cpu.as_secs_f64() / wall.as_secs_f64()),
    );
    report("one_pool.peak_threads", peak);
    report("one_pool.threads_at_end", threads_now());
    report("one_pool.threads_by_name", threads_by_name());
}

/// One pool against two with phases that hold still: the program's own map and sum, ndarray's
/// `Zip::par_for_each`, and hashbrown's parallel sum over a map built before the loop. Nothing
/// is allocated in the loop, so each phase is the pools' own work and the pools' hand-overs.
fn turns(a: &Args) {
    let side = a.side;
    let own: Vec<f64> = (0..a.own_items).map(|i| i as f64).collect();
    let mut m = ndarray::Array2::<f64>::from_shape_fn((side, side), |(i, j)| (i ^ j) as f64);
    let b = ndarray::Array2::<f64>::from_elem((side, side), 0.25);
    let map = deps::filled(a.turn_entries);
    let expected: u64 = map.iter().map(|(k, v)| k.wrapping_mul(*v) >> 7).sum();

    let sampler = ThreadSampler::start();
    let (cpu0, t0) = (cpu_time(), Instant::now());
    let mut check = 0.0;
    let mut phases = [Duration::ZERO; 3];
    for _ in 0..a.rounds {
        let t = Instant::now();
        check += par::own_work(&own);
        let t1 = Instant::now();
        deps::zip_for_each(&mut m, &b);
        let t2 = Instant::now();
        let sum = deps::map_sum(&map);
        let t3 = Instant::now();
        assert_eq!(sum, expected);
        phases[0] += t1 - t;
        phases[1] += t2 - t1;
        phases[2] += t3 - t2;
    }
    let (wall, cpu) = (t0.elapsed(), cpu_time() - cpu0);
    let peak = sampler.finish();
    black_box((check, &m));

    report("turns.rounds", a.rounds);
    report("turns.wall_ms", ms(wall));
    report("turns.own_work_ms", ms(phases[0]));
    report("turns.ndarray_zip_ms", ms(phases[1]));
    report("turns.hashbrown_sum_ms", ms(phases[2]));
    report("turns.cpu_ms", ms(cpu));
    report(
        "turns.cpus_busy",
        format!("{:.2}", cpu.as_secs_f64() / wall.as_secs_f64()),
    );
    report("turns.peak_threads", peak);
    report("turns.threads_by_name", threads_by_name());
}

/// The process's threads counted by name (`/proc/self/task/*/comm`), e.g. `main:1,w:2`; which
/// pools the threads belong to, as far as their names tell.
fn threads_by_name() -> String {
    let mut names: Vec<String> = std::fs::read_dir("/proc/self/task")
        .map(|dir| {
            dir.filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .map(|n| n.trim().replace(char::is_whitespace, "_"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let same = names[i..].iter().take_while(|n| **n == names[i]).count();
        out.push(format!("{}:{same}", names[i]));
        i += same;
    }
    out.join(",")
}

/// Each thread of the process: its id, name and user CPU time in clock ticks (field 14 of
/// `/proc/self/task/<tid>/stat`, counted after the name's closing parenthesis).
fn thread_ticks() -> std::collections::HashMap<u64, (String, u64)> {
    let mut out = std::collections::HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in dir.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        // Pool threads often keep the process's name: the calling thread is told apart.
        let name = if tid == u64::from(std::process::id()) {
            "main".to_string()
        } else {
            stat[open + 1..close].replace(char::is_whitespace, "_")
        };
        // After ")": state (field 3), ..., utime (field 14).
        if let Some(utime) = stat[close + 1..]
            .split_whitespace()
            .nth(11)
            .and_then(|u| u.parse().ok())
        {
            out.insert(tid, (name, utime));
        }
    }
    out
}

/// Runs `f` `repeats` times (after one warm-up call) and reports the best and the median, and
/// the median CPU time (user + system, all threads) of a call: a wall time above rayon's at an
/// equal CPU time is time the pool's threads sat idle, not work done slower.
///
/// Also the user CPU time of each thread over the repeats, in clock ticks
/// (`/proc/self/task/*/stat`, utime), busiest first, e.g. `w:46,w:45,main:16`:
/// which threads computed (a guest computing beside every worker shows as three busy
/// threads on a 2-thread pool; a caller that blocks, as rayon's does, as one nearly idle).
fn timed(key: &str, repeats: usize, mut f: impl FnMut() -> Timing) {
    f();
    let before = thread_ticks();
    let (mut times, mut cpus): (Vec<Duration>, Vec<Duration>) =
        (0..repeats).map(|_| f()).map(|t| (t.wall, t.cpu)).unzip();
    let after = thread_ticks();
    let mut spent: Vec<(u64, String)> = after
        .into_iter()
        .map(|(tid, (name, ticks))| {
            let earlier = before.get(&tid).map_or(0, |(_, t)| *t);
            (ticks - earlier.min(ticks), name)
        })
        .filter(|(ticks, _)| *ticks > 0)
        .collect();
    spent.sort_by(|a, b| b.0.cmp(&a.0));
    let spent: Vec<String> = spent.iter().map(|(t, n)| format!("{n}:{t}")).collect();
    report(&format!("{key}.thread_ticks_by_name"), spent.join(","));
    times.sort();
    cpus.sort();
    report(&format!("{key}.best_ms"), ms(times[0]));
    report(&format!("{key}.median_ms"), ms(times[times.len() / 2]));
    report(&format!("{key}.median_cpu_ms"), ms(cpus[cpus.len() / 2]));
}

/// One call's wall time and CPU time (user + system, all threads).
struct Timing {
    wall: Duration,
    cpu: Duration,
}

fn time_once(f: impl FnOnce()) -> Timing {
    let (cpu0, t0) = (cpu_time(), Instant::now());
    f();
    let wall = t0.elapsed();
    Timing {
        wall,
        cpu: cpu_time() - cpu0,
    }
}

fn crates(a: &Args) {
    let side = a.side;
    let mut m = ndarray::Array2::<f64>::from_shape_fn((side, side), |(i, j)| (i ^ j) as f64);
    let b = ndarray::Array2::<f64>::from_elem((side, side), 0.25);
    timed("ndarray_zip_par_for_each", a.repeats, || {
        time_once(|| deps::zip_for_each(&mut m, &b))
    });
    timed("ndarray_par_map_collect", a.repeats, || {
        time_once(|| {
            black_box(deps::map_collect(&m, &b));
        })
    });
    drop((m, b));

    let map = deps::filled(a.sum_entries);
    let expected: u64 = map.iter().map(|(k, v)| k.wrapping_mul(*v) >> 7).sum();
    timed("hashbrown_par_iter_map_sum", a.repeats, || {
        let mut sum = 0;
        let t = time_once(|| sum = deps::map_sum(&map));
        assert_eq!(sum, expected);
        t
    });
    drop(map);

    let unsorted = deps::scrambled(a.sort_entries);
    timed("indexmap_par_sort_keys", a.repeats, || {
        let mut m = unsorted.clone();
        let t = time_once(|| deps::sort_keys(&mut m));
        assert!(m.keys().zip(m.keys().skip(1)).all(|(x, y)| x <= y));
        t
    });
}

/// ndarray's `Zip::par_for_each` alone (the real-crates row that misses rayon most), REPEATS
/// calls: the same figures as its row in `crates`, without the other crates' calls between.
fn zip(a: &Args) {
    let side = a.side;
    let mut m = ndarray::Array2::<f64>::from_shape_fn((side, side), |(i, j)| (i ^ j) as f64);
    let b = ndarray::Array2::<f64>::from_elem((side, side), 0.25);
    timed("zip.ndarray_zip_par_for_each", a.repeats, || {
        time_once(|| deps::zip_for_each(&mut m, &b))
    });
    black_box(&m);
}

fn main() {
    let a = parse_args();
    // The pool-only build: outside callers block while the workers run their parallel work,
    // as in rayon, instead of taking part as guests.
    #[cfg(feature = "pool-only")]
    blitz_par::ThreadPoolBuilder::new()
        .pool_threads_only(true)
        .build_global()
        .expect("the global pool is built once, first");
    report(
        "own_code",
        if cfg!(feature = "blitz") {
            "blitz-par"
        } else {
            "rayon"
        },
    );
    report("threads_at_start", threads_now());
    if a.runs("one-pool") {
        one_pool(&a);
    }
    if a.runs("turns") {
        turns(&a);
    }
    if a.runs("crates") {
        crates(&a);
    }
    if a.runs("zip") {
        zip(&a);
    }
}
