//! The integrations (features `indicatif`, `hashbrown`, `indexmap`) against the plain loops
//! they wrap, against rayon with indicatif's own `rayon` feature, and against the
//! sequential loops, on the same data in the same run. Quote ratios, not absolute times.
//!
//! `cargo bench --all-features --bench integrations -- --warm-up-time 1 --measurement-time 3 [filter]`
//!
//! (hashbrown's and indexmap's own `rayon` features cannot be compared here: turned on in
//! this crate's dev-dependencies, their inherent `par_*` methods would shadow this crate's.)

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use indicatif::ProgressBar;

const N: u64 = 10_000_000;

fn progress(c: &mut Criterion) {
    let v: Vec<u64> = (0..N).collect();
    let mut group = c.benchmark_group("progress_sum_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| b.iter(|| black_box(&v).iter().sum::<u64>()));
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| black_box(&v).par_iter().sum::<u64>())
    });
    group.bench_function("blitz+bar", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            let bar = ProgressBar::hidden();
            let s = black_box(&v)
                .par_iter()
                .progress_with(bar.clone())
                .sum::<u64>();
            assert_eq!(bar.position(), N);
            s
        })
    });
    // Behind `enumerate`, the bar counts through the producer's sequential iterators.
    group.bench_function("blitz+enumerate", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            black_box(&v)
                .par_iter()
                .enumerate()
                .map(|(i, x)| x ^ i as u64)
                .sum::<u64>()
        })
    });
    group.bench_function("blitz+bar+enumerate", |b| {
        use blitz_par::prelude::*;
        b.iter(|| {
            let bar = ProgressBar::hidden();
            let s = black_box(&v)
                .par_iter()
                .progress_with(bar.clone())
                .enumerate()
                .map(|(i, x)| x ^ i as u64)
                .sum::<u64>();
            assert_eq!(bar.position(), N);
            s
        })
    });
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| black_box(&v).par_iter().sum::<u64>())
    });
    group.sample_size(10);
    group.bench_function("rayon+indicatif", |b| {
        use indicatif::ParallelProgressIterator;
        use rayon::prelude::*;
        b.iter(|| {
            let bar = ProgressBar::hidden();
            let s = black_box(&v)
                .par_iter()
                .progress_with(bar.clone())
                .sum::<u64>();
            assert_eq!(bar.position(), N);
            s
        })
    });
    group.finish();
}

/// About 100 ns of dependent arithmetic on `x`.
fn heavy(x: u64) -> u64 {
    let mut y = x;
    for _ in 0..64 {
        y ^= y << 13;
        y ^= y >> 7;
        y ^= y << 17;
    }
    y
}

fn hashbrown_maps(c: &mut Criterion) {
    use blitz_par::prelude::*;
    use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
    use std::hash::BuildHasher;
    let n = 1_000_000u64;
    let map: HashMap<u64, u64> = (0..n).map(|k| (k, k * 3)).collect();
    let hasher = DefaultHashBuilder::default();
    let mut table = HashTable::new();
    for k in 0..n {
        table.insert_unique(hasher.hash_one(k), k, |x| hasher.hash_one(x));
    }
    let mut group = c.benchmark_group("hashbrown_1M");
    group.sample_size(20);
    group.bench_function("map_sum/seq", |b| {
        b.iter(|| black_box(&map).values().sum::<u64>())
    });
    group.bench_function("map_sum/blitz", |b| {
        b.iter(|| black_box(&map).par_values().sum::<u64>())
    });
    group.bench_function("map_heavy/seq", |b| {
        b.iter(|| black_box(&map).values().map(|&x| heavy(x)).sum::<u64>())
    });
    group.bench_function("map_heavy/blitz", |b| {
        b.iter(|| black_box(&map).par_values().map(|&x| heavy(x)).sum::<u64>())
    });
    group.bench_function("table_sum/seq", |b| {
        b.iter(|| black_box(&table).iter().sum::<u64>())
    });
    group.bench_function("table_sum/blitz", |b| {
        b.iter(|| black_box(&table).par_iter().sum::<u64>())
    });
    group.bench_function("table_heavy/seq", |b| {
        b.iter(|| black_box(&table).iter().map(|&x| heavy(x)).sum::<u64>())
    });
    group.bench_function("table_heavy/blitz", |b| {
        b.iter(|| black_box(&table).par_iter().map(|&x| heavy(x)).sum::<u64>())
    });
    group.finish();
}

fn indexmap_maps(c: &mut Criterion) {
    use blitz_par::prelude::*;
    use indexmap::IndexMap;
    let n = 1_000_000u64;
    let map: IndexMap<u64, u64> = (0..n)
        .map(|k| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15), k))
        .collect();
    let mut group = c.benchmark_group("indexmap_1M");
    group.sample_size(20);
    group.bench_function("sum/seq", |b| {
        b.iter(|| black_box(&map).values().sum::<u64>())
    });
    group.bench_function("sum/blitz", |b| {
        b.iter(|| black_box(&map).par_values().sum::<u64>())
    });
    group.sample_size(10);
    group.bench_function("sort_keys/seq", |b| {
        b.iter_batched(
            || map.clone(),
            |mut m| {
                m.sort_keys();
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("sort_keys/blitz", |b| {
        b.iter_batched(
            || map.clone(),
            |mut m| {
                m.par_sort_keys();
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    // String keys: comparisons cost more than hashing, so the parallel sort gains.
    let strings: IndexMap<String, u64> = (0..n / 4)
        .map(|k| {
            (
                format!("key-{:016x}", k.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                k,
            )
        })
        .collect();
    group.bench_function("sort_string_keys_250k/seq", |b| {
        b.iter_batched(
            || strings.clone(),
            |mut m| {
                m.sort_keys();
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("sort_string_keys_250k/blitz", |b| {
        b.iter_batched(
            || strings.clone(),
            |mut m| {
                m.par_sort_keys();
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, progress, hashbrown_maps, indexmap_maps);
criterion_main!(benches);
