//! Parallel iterator workloads of issue 3: blitz-par against rayon and the sequential std loop,
//! on the same data in the same run. Quote ratios, not absolute times.
//!
//! `cargo bench --bench iter -- --warm-up-time 1 --measurement-time 3 [filter]`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};

fn sums(c: &mut Criterion) {
    let mut group = c.benchmark_group("sum_i64");
    for n in [1_000usize, 100_000, 10_000_000] {
        let v: Vec<i64> = (0..n as i64).collect();
        group.bench_with_input(BenchmarkId::new("seq", n), &v, |b, v| {
            b.iter(|| black_box(v).iter().sum::<i64>())
        });
        group.bench_with_input(BenchmarkId::new("rayon", n), &v, |b, v| {
            use rayon::prelude::*;
            b.iter(|| black_box(v).par_iter().sum::<i64>())
        });
        group.bench_with_input(BenchmarkId::new("blitz", n), &v, |b, v| {
            use blitz_par::prelude::*;
            b.iter(|| black_box(v).par_iter().sum::<i64>())
        });
    }
    group.finish();
}

fn map_collect(c: &mut Criterion) {
    let n = 10_000_000i64;
    let v: Vec<i64> = (0..n).collect();
    let mut group = c.benchmark_group("map_collect_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter(|| {
            black_box(&v)
                .iter()
                .map(|x| x * 3 + 1)
                .collect::<Vec<i64>>()
        })
    });
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .map(|x| x * 3 + 1)
                .collect::<Vec<i64>>()
        })
    });
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .map(|x| x * 3 + 1)
                .collect::<Vec<i64>>()
        })
    });
    group.finish();
}

fn filter_collect(c: &mut Criterion) {
    let n = 10_000_000i64;
    let v: Vec<i64> = (0..n)
        .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64))
        .collect();
    let mut group = c.benchmark_group("filter_collect_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter(|| {
            black_box(&v)
                .iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .collect::<Vec<i64>>()
        })
    });
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .collect::<Vec<i64>>()
        })
    });
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .collect::<Vec<i64>>()
        })
    });
    group.finish();
}

/// 200 dependent square roots: about 1 us of latency-bound work per element.
fn heavy(x: f64) -> f64 {
    let mut y = x + 1.0;
    for _ in 0..200 {
        y = (y + 1.0).sqrt();
    }
    y
}

fn compute_bound(c: &mut Criterion) {
    let v: Vec<f64> = (0..100_000).map(f64::from).collect();
    let mut group = c.benchmark_group("sqrt200_sum_100k");
    group.sample_size(10);
    group.bench_function("seq", |b| {
        b.iter(|| black_box(&v).iter().map(|&x| heavy(x)).sum::<f64>())
    });
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| black_box(&v).par_iter().map(|&x| heavy(x)).sum::<f64>())
    });
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| black_box(&v).par_iter().map(|&x| heavy(x)).sum::<f64>())
    });
    group.finish();
}

fn enumerate_fill(c: &mut Criterion) {
    let mut v = vec![0u64; 10_000_000];
    let mut group = c.benchmark_group("enumerate_fill_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter(|| {
            black_box(&mut v)
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = i as u64 * 7)
        })
    });
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            black_box(&mut v)
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = i as u64 * 7)
        })
    });
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            black_box(&mut v)
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = i as u64 * 7)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    sums,
    map_collect,
    filter_collect,
    compute_bound,
    enumerate_fill
);
criterion_main!(benches);
