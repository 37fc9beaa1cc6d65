//! Records three programs and writes each one's timeline: Chrome trace-event JSON (open it in
//! <https://ui.perfetto.dev> or `chrome://tracing`) and an SVG, then prints their summaries.
//!
//! ```text
//! cargo run --release --features trace --example trace [DIRECTORY]
//! ```
//!
//! The directory defaults to a new one under the system's temporary directory.

use blitz_par::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn spin(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn main() -> std::io::Result<()> {
    let dir = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => std::env::temp_dir().join(format!("blitz-par-trace-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir)?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    // Warm the pool up, so that the recordings show the work rather than the threads' start.
    pool.install(|| (0..1000).into_par_iter().for_each(|_| ()));

    type Program<'a> = (&'a str, &'a str, Box<dyn Fn() + Sync + 'a>);
    let programs: Vec<Program> = vec![
        (
            "balanced",
            "2,000 items of 20 us each",
            Box::new(|| {
                (0..2000)
                    .into_par_iter()
                    .for_each(|_| spin(Duration::from_micros(20)))
            }),
        ),
        (
            "heavy",
            "2,000 items of 1 us, and one of 30 ms",
            Box::new(|| {
                (0..2000)
                    .into_par_iter()
                    .for_each(|i| spin(Duration::from_micros(if i == 1000 { 30_000 } else { 1 })))
            }),
        ),
        (
            "too-fine",
            "a sum of 20,000 items split into leaves of one item (with_max_len(1))",
            Box::new(|| {
                let sum: u64 = (0..20_000u32)
                    .into_par_iter()
                    .with_max_len(1)
                    .map(u64::from)
                    .sum();
                assert_eq!(sum, 199_990_000);
            }),
        ),
    ];
    for (name, what, program) in &programs {
        let ((), trace) = blitz_par::trace::record(|| pool.install(program));
        let json = dir.join(format!("{name}.json"));
        let svg = dir.join(format!("{name}.svg"));
        trace.write_chrome_json(&json)?;
        trace.write_svg(&svg)?;
        println!("== {name}: {what} on {threads} threads");
        println!("{}", trace.summary());
        println!("   {}\n   {}\n", json.display(), svg.display());
    }
    Ok(())
}
