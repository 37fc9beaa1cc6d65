//! Sorting: blitz-par vs rayon vs std's sequential sorts, on the same data in the same run.
//!
//! `cargo bench --bench sort -- --warm-up-time 1 --measurement-time 3 <filter>`; group names
//! are `<data>/<stable|unstable>`, function names `blitz`, `rayon`, `std`.

use blitz_par::prelude::ParallelSliceMut as Blitz;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use rayon::slice::ParallelSliceMut as Rayon;

/// xorshift64*: the same data for every run and every library.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn random_u64(len: usize) -> Vec<u64> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..len).map(|_| rng.next()).collect()
}

fn pattern(name: &str, len: usize) -> Vec<u64> {
    let n = len as u64;
    let mut rng = Rng(12345);
    match name {
        "sorted" => (0..n).collect(),
        "reversed" => (0..n).rev().collect(),
        // n / 1000 distinct random values.
        "few_distinct" => {
            let values: Vec<u64> = (0..len / 1000).map(|_| rng.next()).collect();
            (0..len)
                .map(|_| values[(rng.next() % values.len() as u64) as usize])
                .collect()
        }
        // 20 ascending runs.
        "sawtooth" => (0..n).map(|i| i % (n / 20)).collect(),
        // Ascending, then descending.
        "organ_pipe" => (0..n).map(|i| if i < n / 2 { i } else { n - i }).collect(),
        _ => unreachable!(),
    }
}

/// Benchmarks the three sorts of one kind on clones of `data`.
fn three<T: Clone + Send>(
    c: &mut Criterion,
    group: &str,
    data: &[T],
    blitz: impl Fn(&mut Vec<T>),
    rayon: impl Fn(&mut Vec<T>),
    std: impl Fn(&mut Vec<T>),
) {
    let mut g = c.benchmark_group(group);
    if data.len() >= 1_000_000 {
        g.sample_size(10);
    }
    let batch = if data.len() >= 100_000 {
        BatchSize::LargeInput
    } else {
        BatchSize::SmallInput
    };
    g.bench_function(BenchmarkId::new("blitz", data.len()), |b| {
        b.iter_batched_ref(|| data.to_vec(), &blitz, batch)
    });
    g.bench_function(BenchmarkId::new("rayon", data.len()), |b| {
        b.iter_batched_ref(|| data.to_vec(), &rayon, batch)
    });
    g.bench_function(BenchmarkId::new("std", data.len()), |b| {
        b.iter_batched_ref(|| data.to_vec(), &std, batch)
    });
    g.finish();
}

fn natural<T: Clone + Send + Ord>(c: &mut Criterion, name: &str, data: &[T]) {
    three(
        c,
        &format!("{name}/unstable"),
        data,
        |v| Blitz::par_sort_unstable(&mut v[..]),
        |v| Rayon::par_sort_unstable(&mut v[..]),
        |v| v.sort_unstable(),
    );
    three(
        c,
        &format!("{name}/stable"),
        data,
        |v| Blitz::par_sort(&mut v[..]),
        |v| Rayon::par_sort(&mut v[..]),
        |v| v.sort(),
    );
}

fn u64_random(c: &mut Criterion) {
    natural(c, "u64_random_1k", &random_u64(1000));
    natural(c, "u64_random_1M", &random_u64(1_000_000));
    natural(c, "u64_random_10M", &random_u64(10_000_000));
}

fn u64_patterns(c: &mut Criterion) {
    for name in [
        "sorted",
        "reversed",
        "few_distinct",
        "sawtooth",
        "organ_pipe",
    ] {
        natural(c, &format!("u64_{name}_1M"), &pattern(name, 1_000_000));
    }
}

fn f64_total_cmp(c: &mut Criterion) {
    let mut rng = Rng(7);
    let data: Vec<f64> = (0..1_000_000)
        .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    three(
        c,
        "f64_random_1M/unstable",
        &data,
        |v| Blitz::par_sort_unstable_by(&mut v[..], f64::total_cmp),
        |v| Rayon::par_sort_unstable_by(&mut v[..], f64::total_cmp),
        |v| v.sort_unstable_by(f64::total_cmp),
    );
    three(
        c,
        "f64_random_1M/stable",
        &data,
        |v| Blitz::par_sort_by(&mut v[..], f64::total_cmp),
        |v| Rayon::par_sort_by(&mut v[..], f64::total_cmp),
        |v| v.sort_by(f64::total_cmp),
    );
}

#[derive(Clone)]
struct Record {
    name: String,
    _id: u64,
}

fn strings(c: &mut Criterion) {
    let mut rng = Rng(99);
    let words: Vec<String> = (0..1_000_000)
        .map(|_| format!("{:x}", rng.next() >> (rng.next() % 48)))
        .collect();
    three(
        c,
        "string_1M/unstable",
        &words,
        |v| Blitz::par_sort_unstable(&mut v[..]),
        |v| Rayon::par_sort_unstable(&mut v[..]),
        |v| v.sort_unstable(),
    );
    let records: Vec<Record> = words
        .iter()
        .enumerate()
        .map(|(i, w)| Record {
            name: w.clone(),
            _id: i as u64,
        })
        .collect();
    three(
        c,
        "string_field_1M/stable_by_key",
        &records,
        |v| Blitz::par_sort_by_key(&mut v[..], |r| r.name.clone()),
        |v| Rayon::par_sort_by_key(&mut v[..], |r| r.name.clone()),
        |v| v.sort_by_key(|r| r.name.clone()),
    );
    three(
        c,
        "string_field_1M/cached_key",
        &records,
        |v| Blitz::par_sort_by_cached_key(&mut v[..], |r| r.name.clone()),
        |v| Rayon::par_sort_by_cached_key(&mut v[..], |r| r.name.clone()),
        |v| v.sort_by_cached_key(|r| r.name.clone()),
    );
}

/// A record sorted by a primitive field: 16 bytes, a `u32` key.
#[derive(Clone)]
struct Keyed {
    key: u32,
    _payload: u64,
}

fn integer_field(c: &mut Criterion) {
    let mut rng = Rng(7);
    let records: Vec<Keyed> = (0..1_000_000)
        .map(|_| Keyed {
            key: rng.next() as u32,
            _payload: rng.next(),
        })
        .collect();
    three(
        c,
        "u32_field_1M/unstable_by_key",
        &records,
        |v| Blitz::par_sort_unstable_by_key(&mut v[..], |r| r.key),
        |v| Rayon::par_sort_unstable_by_key(&mut v[..], |r| r.key),
        |v| v.sort_unstable_by_key(|r| r.key),
    );
    three(
        c,
        "u32_field_1M/stable_by_key",
        &records,
        |v| Blitz::par_sort_by_key(&mut v[..], |r| r.key),
        |v| Rayon::par_sort_by_key(&mut v[..], |r| r.key),
        |v| v.sort_by_key(|r| r.key),
    );
}

criterion_group!(
    benches,
    u64_random,
    u64_patterns,
    f64_total_cmp,
    strings,
    integer_field
);
criterion_main!(benches);
