//! What the `trace` feature costs (the performance table): a 1,000-item sum and a
//! 16,777,215-node tree sum (a join at every node, `common/tree.rs`).
//!
//! Built without the feature, each workload runs as `off`; built with it, as `on` (not
//! recording), `recording` (each call inside a `trace::record` of its own, starting the
//! recording and collecting the trace included) and, for the sum, `in_recording` (calls made
//! while a recording is on: 1,000 calls per `trace::record`, its start and collection spread
//! over them; what each parallel call of a recorded program pays). `scripts/trace_bench.sh`
//! runs both builds and prints the table.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;

use blitz_par::prelude::*;

#[path = "common/tree.rs"]
mod tree;

const MODE: &str = if cfg!(feature = "trace") { "on" } else { "off" };

fn sum_1000(c: &mut Criterion) {
    let v: Vec<u64> = (0..1000).collect();
    let mut group = c.benchmark_group("trace_sum_1000");
    group.bench_function(BenchmarkId::new(MODE, 1000), |b| {
        b.iter(|| assert_eq!(black_box(&v).par_iter().sum::<u64>(), 499_500))
    });
    #[cfg(feature = "trace")]
    group.bench_function(BenchmarkId::new("recording", 1000), |b| {
        b.iter(|| {
            let (sum, trace) = blitz_par::trace::record(|| black_box(&v).par_iter().sum::<u64>());
            assert_eq!(sum, 499_500);
            trace
        })
    });
    #[cfg(feature = "trace")]
    group.bench_function(BenchmarkId::new("in_recording", 1000), |b| {
        // 1,000 calls record about 10,000 events: the ring (65,536) drops none.
        const CALLS: u64 = 1000;
        b.iter_custom(|iters| {
            let start = std::time::Instant::now();
            let mut left = iters;
            while left > 0 {
                let calls = left.min(CALLS);
                let ((), trace) = blitz_par::trace::record(|| {
                    for _ in 0..calls {
                        assert_eq!(black_box(&v).par_iter().sum::<u64>(), 499_500);
                    }
                });
                assert_eq!(trace.dropped(), 0);
                drop(black_box(trace));
                left -= calls;
            }
            start.elapsed()
        })
    });
    group.finish();
}

fn tree_sum(c: &mut Criterion) {
    let layers = 24;
    let mut slots = tree::storage(layers);
    let tree = tree::build(&mut slots);
    let nodes = (1u64 << layers) - 1;
    let mut group = c.benchmark_group("trace_tree_sum");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group.bench_function(BenchmarkId::new(MODE, nodes), |b| {
        b.iter(|| assert_eq!(tree::sum_blitz(black_box(tree)), nodes))
    });
    #[cfg(feature = "trace")]
    group.bench_function(BenchmarkId::new("recording", nodes), |b| {
        b.iter(|| {
            let (sum, trace) = blitz_par::trace::record(|| tree::sum_blitz(black_box(tree)));
            assert_eq!(sum, nodes);
            trace
        })
    });
    group.finish();
}

criterion_group!(benches, sum_1000, tree_sum);
criterion_main!(benches);
