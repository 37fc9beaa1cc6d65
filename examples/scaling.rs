//! Scaling of fork-join work with the number of threads: blitz-par vs rayon vs chili, on pools
//! of 1, 2, 4, ... up to the machine's CPUs. Prints the best of several runs per point.
//!
//! `cargo run --release --example scaling`

use std::num::NonZero;
use std::time::Instant;

#[path = "../benches/common/fib.rs"]
mod fib;
use fib::{fib_blitz, fib_chili, fib_rayon, fib_seq};

fn best<R>(reps: usize, mut f: impl FnMut() -> R) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let n = 32;
    let expected = fib_seq(n);
    let seq = best(5, || fib_seq(n));
    println!("fib({n}) with a join per call; sequential {seq:.2} ms");
    println!(
        "{:>8} {:>12} {:>12} {:>12}",
        "threads", "blitz-par", "rayon", "chili"
    );
    let mut threads = 1;
    while threads <= cpus {
        let blitz = blitz_par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let b = best(5, || assert_eq!(blitz.install(|| fib_blitz(n)), expected));
        drop(blitz);
        let rayon = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let r = best(5, || assert_eq!(rayon.install(|| fib_rayon(n)), expected));
        drop(rayon);
        let chili = chili::ThreadPool::with_config(chili::Config {
            thread_count: NonZero::new(threads),
            ..Default::default()
        });
        let c = best(5, || {
            let mut scope = chili.scope();
            assert_eq!(fib_chili(n, &mut scope), expected)
        });
        drop(chili);
        println!(
            "{threads:>8} {b:>9.2} ms {r:>9.2} ms {c:>9.2} ms   speedup vs sequential: {:.2} / {:.2} / {:.2}",
            seq / b,
            seq / r,
            seq / c
        );
        threads *= 2;
    }
}
