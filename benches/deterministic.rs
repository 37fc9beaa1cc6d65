//! Reproducible reductions (issue 31): the deterministic sum of `f64` against the adaptive
//! `sum`, rayon's, `exact_sum` and the sequential loop, on the same data in the same run, and
//! the same through a pool built with `deterministic(true)`. Quote ratios, not absolute times.
//!
//! `cargo bench --bench deterministic -- --warm-up-time 1 --measurement-time 3 [filter]`
//!
//! Set `RUSTFLAGS="-C llvm-args=-align-loops=64"` to compare builds (see benches/iter.rs).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};

/// Floats whose sum depends on the order of the additions.
fn data(n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let r = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
            (r >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi((r % 21) as i32 - 10)
        })
        .collect()
}

fn sum_f64(c: &mut Criterion) {
    let fixed_pool = blitz_par::ThreadPoolBuilder::new()
        .deterministic(true)
        .build()
        .unwrap();
    for n in [1_000usize, 100_000, 10_000_000] {
        let v = data(n);
        let mut group = c.benchmark_group("sum_f64");
        if n >= 10_000_000 {
            group.sample_size(30);
        }
        group.bench_with_input(BenchmarkId::new("seq", n), &v, |b, v| {
            b.iter(|| black_box(v).iter().sum::<f64>())
        });
        group.bench_with_input(BenchmarkId::new("rayon", n), &v, |b, v| {
            use rayon::prelude::*;
            b.iter(|| black_box(v).par_iter().sum::<f64>())
        });
        blitz(&mut group, n, &v, &fixed_pool);
        group.finish();
    }
}

/// blitz-par's entries of the `sum_f64` group (its prelude kept apart from rayon's).
fn blitz(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    n: usize,
    v: &[f64],
    fixed_pool: &blitz_par::ThreadPool,
) {
    use blitz_par::prelude::*;
    group.bench_with_input(BenchmarkId::new("blitz", n), v, |b, v| {
        b.iter(|| black_box(v).par_iter().sum::<f64>())
    });
    group.bench_with_input(BenchmarkId::new("blitz_deterministic", n), v, |b, v| {
        b.iter(|| black_box(v).par_iter().deterministic().sum::<f64>())
    });
    group.bench_with_input(BenchmarkId::new("blitz_pool_switch", n), v, |b, v| {
        b.iter(|| fixed_pool.install(|| black_box(v).par_iter().sum::<f64>()))
    });
    group.bench_with_input(BenchmarkId::new("blitz_exact_sum", n), v, |b, v| {
        b.iter(|| black_box(v).par_iter().exact_sum())
    });
}

/// `fold` then `reduce` of a heavier body: the fixed leaves against the adaptive driver's.
fn fold_reduce(c: &mut Criterion) {
    use blitz_par::prelude::*;
    let v = data(1_000_000);
    let mut group = c.benchmark_group("fold_reduce_1M");
    let body = |a: f64, x: &f64| a + (x * 1.5).sqrt();
    group.bench_function("seq", |b| b.iter(|| black_box(&v).iter().fold(0.0, body)));
    group.bench_function("blitz", |b| {
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .fold(|| 0.0, body)
                .reduce(|| 0.0, |a, b| a + b)
        })
    });
    group.bench_function("blitz_deterministic", |b| {
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .deterministic()
                .fold(|| 0.0, body)
                .reduce(|| 0.0, |a, b| a + b)
        })
    });
    group.finish();
}

criterion_group!(benches, sum_f64, fold_reduce);
criterion_main!(benches);
