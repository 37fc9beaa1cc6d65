//! The algorithms beyond rayon (issue 40's table), each beside its baseline in the same run:
//! std's sequential code, rayon by hand where the issue names it, rand's shuffle.
//!
//! - `cargo bench --features rand --bench algos`: criterion, rows `<workload>/<input>` with
//!   functions `blitz`, `std`, `rayon` (and `copied`: `counts` over owned keys).
//! - `cargo bench --features rand --bench algos -- --table`: one median of 5 runs per row, in
//!   ms (set up as the C++ driver sets up ParlayLib's: see `table`), in the row names of `scripts/parlay_bench.cpp` (`scripts/parlay_bench.sh` prints both
//!   tables and their ratios). Words after `--table` keep only the rows whose names contain
//!   one of them (`--table counts grouping_sum group_map unique`: the hash-based rows;
//!   `--table select_nth shuffle`: those rows and their baselines).
//!
//! Inputs: 10M `u64` from xorshift64* with fixed seeds (the C++ driver makes the same ones): a
//! random permutation of `0..n`, 1,000 distinct keys, random mod 10^7 (about 6.3M distinct),
//! and Zipf over 10^6 ranks.

use blitz_par::prelude::*;
use criterion::{BatchSize, Criterion};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::time::Instant;

/// The input length: `ALGOS_BENCH_N`, 10M by default (a small one checks that all rows run).
fn len() -> usize {
    std::env::var("ALGOS_BENCH_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000_000)
}

/// xorshift64*, as scripts/parlay_bench.cpp.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn permutation() -> Vec<u64> {
    let n = len();
    let mut v: Vec<u64> = (0..n as u64).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in (1..n).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn modulo(m: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed);
    (0..len()).map(|_| rng.next() % m).collect()
}

/// Zipf over 10^6 ranks, exponent 1, by inverse CDF (the same doubles as the C++ driver).
fn zipf() -> Vec<u64> {
    let mut h = 0.0;
    let cdf: Vec<f64> = (0..1_000_000)
        .map(|r| {
            h += 1.0 / (r + 1) as f64;
            h
        })
        .collect();
    let mut rng = Rng(777);
    (0..len())
        .map(|_| {
            let u = (rng.next() >> 11) as f64 / 9_007_199_254_740_992.0 * h;
            cdf.partition_point(|&c| c < u) as u64
        })
        .collect()
}

fn std_counts(v: &[u64]) -> HashMap<u64, usize> {
    let mut map = HashMap::new();
    for &x in v {
        *map.entry(x).or_insert(0) += 1;
    }
    map
}

/// rayon's idiom: a `HashMap` per fold, merged pairwise by hand.
fn rayon_counts(v: &[u64]) -> HashMap<u64, usize> {
    use rayon::prelude::*;
    rayon::iter::IntoParallelRefIterator::par_iter(v)
        .fold(HashMap::new, |mut map: HashMap<u64, usize>, &x| {
            *map.entry(x).or_insert(0) += 1;
            map
        })
        .reduce(HashMap::new, |a, b| {
            let (mut large, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            for (k, c) in small {
                *large.entry(k).or_insert(0) += c;
            }
            large
        })
}

type Work = Box<dyn Fn(&mut Vec<u64>) -> usize>;

/// Every row: its name, its input, and the work (on a fresh copy of the input).
fn rows() -> Vec<(String, &'static [u64], Work)> {
    let perm: &'static [u64] = Box::leak(permutation().into_boxed_slice());
    let k1000: &'static [u64] = Box::leak(modulo(1000, 1).into_boxed_slice());
    let k1e7: &'static [u64] = Box::leak(modulo(10_000_000, 2).into_boxed_slice());
    let zipfs: &'static [u64] = Box::leak(zipf().into_boxed_slice());
    let mut sorted_dups = k1e7.to_vec();
    sorted_dups.sort_unstable();
    let sorted_dups: &'static [u64] = Box::leak(sorted_dups.into_boxed_slice());
    let sorted: &'static [u64] =
        Box::leak((0..len() as u64).collect::<Vec<_>>().into_boxed_slice());
    let mut rows: Vec<(String, &'static [u64], Work)> = Vec::new();
    let mut add =
        |name: &str, input: &'static [u64], work: Work| rows.push((name.to_string(), input, work));
    for (tag, input) in [("1000", k1000), ("6.3M", k1e7), ("zipf", zipfs)] {
        add(
            &format!("counts/{tag}"),
            input,
            Box::new(|v| v.par_iter().counts().len()),
        );
        // The same counts over owned keys, as the std and rayon baselines count: the row
        // above returns `HashMap<&u64, usize>`, whose serial last step reads every key
        // through its reference, at random into the input.
        add(
            &format!("counts/{tag}:copied"),
            input,
            Box::new(|v| v.par_iter().copied().counts().len()),
        );
        add(
            &format!("counts/{tag}:std"),
            input,
            Box::new(|v| std_counts(v).len()),
        );
        add(
            &format!("counts/{tag}:rayon"),
            input,
            Box::new(|v| rayon_counts(v).len()),
        );
        add(
            &format!("grouping_sum/{tag}"),
            input,
            Box::new(|v| {
                v.par_iter()
                    .map(|&x| (x, 1u64))
                    .into_grouping_map()
                    .sum()
                    .len()
            }),
        );
        add(
            &format!("grouping_sum/{tag}:std"),
            input,
            Box::new(|v| std_counts(v).len()),
        );
    }
    add(
        "group_map/1000",
        k1000,
        Box::new(|v| v.par_iter().copied().into_group_map_by(|&x| x).len()),
    );
    add(
        "group_map/1000:std",
        k1000,
        Box::new(|v| {
            let mut map: HashMap<u64, Vec<u64>> = HashMap::new();
            for &x in v.iter() {
                map.entry(x).or_default().push(x);
            }
            map.len()
        }),
    );
    add(
        "unique/6.3M",
        k1e7,
        Box::new(|v| v.par_iter().copied().unique().len()),
    );
    add(
        "unique/6.3M:std",
        k1e7,
        Box::new(|v| {
            let mut seen = HashSet::new();
            v.iter().filter(|&&x| seen.insert(x)).count()
        }),
    );
    add(
        "histogram/256",
        perm,
        Box::new(|v| v.par_iter().histogram(256, |&x| (x & 255) as usize)[7]),
    );
    add(
        "histogram/256:std",
        perm,
        Box::new(|v| {
            let mut h = vec![0usize; 256];
            for &x in v.iter() {
                h[(x & 255) as usize] += 1;
            }
            h[7]
        }),
    );
    add(
        "select_nth/median",
        perm,
        Box::new(|v| {
            let mid = v.len() / 2;
            *v.par_select_nth_unstable(mid).1 as usize
        }),
    );
    add(
        "select_nth/median:std",
        perm,
        Box::new(|v| {
            let mid = v.len() / 2;
            *v.select_nth_unstable(mid).1 as usize
        }),
    );
    add(
        "shuffle",
        perm,
        Box::new(|v| {
            v.par_shuffle(&mut rand::rngs::Xoshiro256PlusPlus::seed_from_u64(3));
            v[0] as usize
        }),
    );
    add(
        "shuffle:rand",
        perm,
        Box::new(|v| {
            v.shuffle(&mut rand::rngs::Xoshiro256PlusPlus::seed_from_u64(3));
            v[0] as usize
        }),
    );
    add(
        "dedup/sorted",
        sorted_dups,
        Box::new(|v| {
            v.par_dedup();
            v.len()
        }),
    );
    add(
        "dedup/sorted:std",
        sorted_dups,
        Box::new(|v| {
            v.dedup();
            v.len()
        }),
    );
    add(
        "is_sorted",
        sorted,
        Box::new(|v| usize::from(v.par_is_sorted())),
    );
    add(
        "is_sorted:std",
        sorted,
        Box::new(|v| usize::from(v.is_sorted())),
    );
    add(
        "filter_even",
        k1e7,
        Box::new(|v| {
            v.par_iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .collect::<Vec<_>>()
                .len()
        }),
    );
    add(
        "filter_even:std",
        k1e7,
        Box::new(|v| {
            v.iter()
                .copied()
                .filter(|x| x % 2 == 0)
                .collect::<Vec<_>>()
                .len()
        }),
    );
    add(
        "integer_sort",
        k1e7,
        Box::new(|v| {
            v.par_sort_unstable();
            v[0] as usize
        }),
    );
    add(
        "sort",
        k1e7,
        Box::new(|v| {
            v.par_sort_unstable_by(|a, b| a.cmp(b));
            v[0] as usize
        }),
    );
    add(
        "scan",
        k1e7,
        Box::new(|v| {
            v.par_inclusive_scan(|a, b| a.wrapping_add(*b));
            v[v.len() - 1] as usize
        }),
    );
    add(
        "reduce",
        k1e7,
        Box::new(|v| v.par_iter().sum::<u64>() as usize),
    );
    rows
}

/// `--table`: the median of 5 timed runs (after one untimed) of each row, in ms; with
/// `filters`, only the rows whose names contain one of them.
///
/// The runs are set up as the C++ driver's: a row that leaves its input as it was (it only
/// reads it) runs back to back on one copy, as ParlayLib's read-only calls do there; a row
/// that changes its input gets a fresh copy before each run, made in parallel (untimed), as
/// ParlayLib's `sequence` copy is. A sequential 80 MB copy before every run (as before) left
/// the pool's threads asleep at the start of each timed run, waking them inside it, where
/// ParlayLib's were still awake from the run or the copy before.
fn table(filters: &[String]) {
    println!("{:<32} {:>10}", "blitz-par (ms)", "median");
    for (name, input, work) in rows() {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let copy = || input.par_iter().copied().collect::<Vec<u64>>();
        let mut v = copy();
        black_box(work(&mut v));
        let read_only = v[..] == *input;
        if read_only {
            // Once more, untimed: the comparison above let the threads fall asleep.
            black_box(work(&mut v));
        }
        let mut ms: Vec<f64> = (0..5)
            .map(|_| {
                if !read_only {
                    v = copy();
                }
                let start = Instant::now();
                black_box(work(&mut v));
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        println!("{:<32} {:>10.2}", name, ms[ms.len() / 2]);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--table") {
        let filters: Vec<String> = args[at + 1..]
            .iter()
            .filter(|a| !a.starts_with('-'))
            .cloned()
            .collect();
        table(&filters);
        return;
    }
    let mut c = Criterion::default().sample_size(10).configure_from_args();
    for (name, input, work) in rows() {
        let (group, function) = match name.split_once(':') {
            Some((row, baseline)) => (row.to_string(), baseline.to_string()),
            None => (name.clone(), "blitz".to_string()),
        };
        c.benchmark_group(group).bench_function(function, |b| {
            b.iter_batched_ref(
                || input.to_vec(),
                |v| black_box(work(v)),
                BatchSize::LargeInput,
            )
        });
    }
    c.final_summary();
}
