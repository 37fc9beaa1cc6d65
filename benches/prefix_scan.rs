//! Parallel scans (issue 31) against the sequential loop, on the same data in the same run.
//! `blitz` runs on the global pool (every core), `blitz_1t` inside a pool of one thread.
//! Quote ratios, not absolute times.
//!
//! `cargo bench --bench prefix_scan -- --warm-up-time 1 --measurement-time 3 [filter]`

use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};

fn one_thread() -> blitz_par::ThreadPool {
    blitz_par::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

/// In-place inclusive prefix sums of `u64` (wrapping, so that rescanning the same buffer in
/// every iteration stays defined).
fn prefix_sum_u64(c: &mut Criterion) {
    use blitz_par::prelude::*;
    let pool = one_thread();
    let mut group = c.benchmark_group("prefix_sum_u64_in_place");
    for n in [100_000usize, 10_000_000] {
        if n >= 10_000_000 {
            group.sample_size(20);
        }
        let mut v: Vec<u64> = (0..n as u64).collect();
        group.bench_function(BenchmarkId::new("seq", n), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for x in black_box(&mut v).iter_mut() {
                    acc = acc.wrapping_add(*x);
                    *x = acc;
                }
            })
        });
        group.bench_function(BenchmarkId::new("blitz", n), |b| {
            b.iter(|| black_box(&mut v).par_inclusive_scan(|a, b| a.wrapping_add(*b)))
        });
        group.bench_function(BenchmarkId::new("blitz_1t", n), |b| {
            b.iter(|| {
                pool.install(|| black_box(&mut v).par_inclusive_scan(|a, b| a.wrapping_add(*b)))
            })
        });
    }
    group.finish();
}

type M2 = [f64; 4];

#[inline]
fn mat_mul(a: &M2, b: &M2) -> M2 {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
    ]
}

/// In-place inclusive scan of 1M 2x2 `f64` matrix products (rotations, so that the products
/// stay bounded), each iteration on a fresh copy.
fn matrix_scan(c: &mut Criterion) {
    use blitz_par::prelude::*;
    let pool = one_thread();
    let n = 1_000_000;
    let input: Vec<M2> = (0..n)
        .map(|i| {
            let t = (i % 97) as f64 * 1e-3;
            [t.cos(), -t.sin(), t.sin(), t.cos()]
        })
        .collect();
    let mut group = c.benchmark_group("matrix2x2_f64_scan_1M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| {
                let mut acc = v[0];
                for x in black_box(v).iter_mut().skip(1) {
                    acc = mat_mul(&acc, x);
                    *x = acc;
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("blitz", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| black_box(v).par_inclusive_scan(mat_mul),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("blitz_1t", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| pool.install(|| black_box(v).par_inclusive_scan(mat_mul)),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// `map(..).exclusive_scan(..).collect()` over 10M items against std's `scan` plus `collect`.
fn map_exclusive_scan_collect(c: &mut Criterion) {
    use blitz_par::prelude::*;
    let pool = one_thread();
    let n = 10_000_000u64;
    let v: Vec<u64> = (0..n).collect();
    let mut group = c.benchmark_group("map_exclusive_scan_collect_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter(|| {
            black_box(&v)
                .iter()
                .map(|x| x * 3 + 1)
                .scan(0u64, |acc, x| {
                    let out = *acc;
                    *acc = acc.wrapping_add(x);
                    Some(out)
                })
                .collect::<Vec<u64>>()
        })
    });
    group.bench_function("blitz", |b| {
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .map(|x| x * 3 + 1)
                .exclusive_scan(0, |a, b| a.wrapping_add(*b))
                .collect::<Vec<u64>>()
        })
    });
    group.bench_function("blitz_1t", |b| {
        b.iter(|| {
            pool.install(|| {
                black_box(&v)
                    .par_iter()
                    .map(|x| x * 3 + 1)
                    .exclusive_scan(0, |a, b| a.wrapping_add(*b))
                    .collect::<Vec<u64>>()
            })
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    prefix_sum_u64,
    matrix_scan,
    map_exclusive_scan_collect
);
criterion_main!(benches);
