//! Parallel iterator workloads of issue 3: blitz-par against rayon and the sequential std loop,
//! on the same data in the same run. Quote ratios, not absolute times.
//!
//! `cargo bench --bench iter -- --warm-up-time 1 --measurement-time 3 [filter]`
//!
//! On the 2-core AMD VM a memory-bound loop whose body crosses a 64-byte boundary runs 2 to 2.7
//! times slower, and which of the three loops of a group that hits changes with every build
//! (README, "2 cores"). To compare builds, set
//! `RUSTFLAGS="-C llvm-args=-align-loops=64"`: every loop then starts a block.

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

/// The sequential loop of a collect into a fresh `Vec` of `capacity` items, on the terms
/// blitz-par's collect gets from the OS: a destination of 4 MiB or more marked for transparent
/// huge pages (`MADV_HUGEPAGE` on its whole 2 MiB pages, as `sync::advise_fill` does), so one
/// page fault per 2 MiB instead of one per 4 KiB. Where Linux's THP mode is `madvise` (the
/// default of many distributions), std's `collect` into 80 MB of fresh memory spends most of
/// its time in page faults: on the 2-core VM the plain sequential map + collect took 40.8 ms
/// against blitz-par's 5.34 on two threads, a speedup of 7.64 that was mostly the page size.
/// The charts' sequential baseline is this one; `std-collect-4k-pages` (not charted) keeps
/// std's plain `collect` for comparison.
fn collect_advised<T>(capacity: usize, items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::with_capacity(capacity);
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let bytes = capacity * std::mem::size_of::<T>();
        let start = (out.as_mut_ptr() as usize).next_multiple_of(HUGE_PAGE);
        let end = (out.as_mut_ptr() as usize + bytes) & !(HUGE_PAGE - 1);
        if bytes >= 4 << 20 && start < end {
            // SAFETY: `start..end` lies inside `out`'s allocation; the advice changes only how
            // the kernel backs the pages, never what they hold. Failure changes nothing.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    out.extend(items);
    out
}

fn map_collect(c: &mut Criterion) {
    let n = 10_000_000i64;
    let v: Vec<i64> = (0..n).collect();
    let mut group = c.benchmark_group("map_collect_10M");
    group.sample_size(20);
    group.bench_function("seq", |b| {
        b.iter(|| collect_advised(v.len(), black_box(&v).iter().map(|x| x * 3 + 1)))
    });
    group.bench_function("std-collect-4k-pages", |b| {
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
    // Room for every item, of which a third is written: the pages never written cost nothing.
    group.bench_function("seq", |b| {
        b.iter(|| {
            collect_advised(
                v.len(),
                black_box(&v).iter().copied().filter(|x| x % 3 == 0),
            )
        })
    });
    group.bench_function("std-collect-4k-pages", |b| {
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

/// Few heavy items: 4 per thread, each ~1 ms of dependent square roots (`heavy` over 150,000
/// rounds). The first item's cost is unknown until it ends; rayon splits up front.
fn few_heavy_items(c: &mut Criterion) {
    let items = 4 * blitz_par::current_num_threads();
    let item = |i: usize| {
        let mut y = i as f64;
        for _ in 0..750 {
            y = heavy(y);
        }
        y
    };
    let mut group = c.benchmark_group("few_heavy_items");
    group.sample_size(10);
    group.bench_function("seq", |b| b.iter(|| (0..items).map(item).sum::<f64>()));
    group.bench_function("rayon", |b| {
        use rayon::prelude::*;
        b.iter(|| (0..items).into_par_iter().map(item).sum::<f64>())
    });
    group.bench_function("blitz", |b| {
        use blitz_par::prelude::*;
        b.iter(|| (0..items).into_par_iter().map(item).sum::<f64>())
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

/// Benchmarks `$body` with blitz-par's prelude, then rayon's (the same source), then `$seq`.
macro_rules! three_ways {
    ($group:expr, |$v:ident| $body:expr, $seq:expr) => {{
        $group.bench_function("seq", |b| b.iter(|| black_box($seq)));
        $group.bench_function("rayon", |b| {
            use rayon::prelude::*;
            b.iter(|| black_box($body))
        });
        $group.bench_function("blitz", |b| {
            use blitz_par::prelude::*;
            b.iter(|| black_box($body))
        });
    }};
}

/// Consumers beyond `collect` into a `Vec`, 1M items: pairs, partitions, other collections,
/// fallible collects, ordered searches.
fn consumers(c: &mut Criterion) {
    use std::collections::{HashMap, LinkedList, VecDeque};
    let v: Vec<u64> = (0..1_000_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20)
        .collect();
    let v = &v;
    let mut g = c.benchmark_group("unzip_1M");
    g.sample_size(20);
    three_ways!(
        g,
        |v| v
            .par_iter()
            .map(|&x| (x, x + 1))
            .unzip::<_, _, Vec<u64>, Vec<u64>>(),
        v.iter()
            .map(|&x| (x, x + 1))
            .unzip::<_, _, Vec<u64>, Vec<u64>>()
    );
    g.finish();
    let mut g = c.benchmark_group("partition_1M");
    g.sample_size(20);
    three_ways!(
        g,
        |v| v
            .par_iter()
            .partition::<Vec<&u64>, Vec<&u64>, _>(|&&x| x & 1 == 0),
        v.iter().partition::<Vec<&u64>, _>(|&&x| x & 1 == 0)
    );
    g.finish();
    let mut g = c.benchmark_group("collect_hashmap_1M");
    g.sample_size(10);
    three_ways!(
        g,
        |v| v.par_iter().map(|&x| (x, x)).collect::<HashMap<u64, u64>>(),
        v.iter().map(|&x| (x, x)).collect::<HashMap<u64, u64>>()
    );
    g.finish();
    let mut g = c.benchmark_group("collect_vecdeque_1M");
    g.sample_size(20);
    three_ways!(
        g,
        |v| v.par_iter().map(|&x| x ^ 1).collect::<VecDeque<u64>>(),
        v.iter().map(|&x| x ^ 1).collect::<VecDeque<u64>>()
    );
    g.finish();
    let mut g = c.benchmark_group("collect_linkedlist_1M");
    g.sample_size(10);
    three_ways!(
        g,
        |v| v.par_iter().copied().collect::<LinkedList<u64>>(),
        v.iter().copied().collect::<LinkedList<u64>>()
    );
    g.finish();
    let mut g = c.benchmark_group("collect_result_vec_1M");
    g.sample_size(20);
    three_ways!(
        g,
        |v| v
            .par_iter()
            .map(|&x| Ok::<u64, ()>(x))
            .collect::<Result<Vec<u64>, ()>>(),
        v.iter()
            .map(|&x| Ok::<u64, ()>(x))
            .collect::<Result<Vec<u64>, ()>>()
    );
    g.finish();
    let big: Vec<u64> = (0..10_000_000u64).collect();
    let big = &big;
    let mut g = c.benchmark_group("position_first_middle_10M");
    g.sample_size(20);
    three_ways!(
        g,
        |big| big.par_iter().position_first(|&x| x == 5_000_000),
        big.iter().position(|&x| x == 5_000_000)
    );
    g.finish();
}

/// Strings: splitting 14 MB of text (400,000 lines of 35 bytes), and collecting its chars.
fn strings(c: &mut Criterion) {
    let text: String = (0..400_000)
        .map(|i| format!("line {} with some words {}\n", i, i * 7))
        .collect();
    let text = text.as_str();
    let mut g = c.benchmark_group("lines_14MB");
    g.sample_size(20);
    three_ways!(
        g,
        |text| text.par_lines().filter(|l| l.ends_with('7')).count(),
        text.lines().filter(|l| l.ends_with('7')).count()
    );
    g.finish();
    let mut g = c.benchmark_group("split_whitespace_14MB");
    g.sample_size(20);
    three_ways!(
        g,
        |text| text.par_split_whitespace().count(),
        text.split_whitespace().count()
    );
    g.finish();
    let mut g = c.benchmark_group("collect_string_14MB");
    g.sample_size(20);
    three_ways!(
        g,
        |text| text.par_chars().filter(|&c| c != ' ').collect::<String>(),
        text.chars().filter(|&c| c != ' ').collect::<String>()
    );
    g.finish();
}

criterion_group!(
    benches,
    sums,
    map_collect,
    filter_collect,
    compute_bound,
    few_heavy_items,
    enumerate_fill,
    consumers,
    strings
);
criterion_main!(benches);
