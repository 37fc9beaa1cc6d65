//! Fork-join overhead: blitz-par vs rayon vs chili vs a sequential recursion, same run.
//!
//! - sum over a 1023-node binary tree with a join at every node, left subtree first in every
//!   library, the nodes in one allocation in visiting order (`common/tree.rs`: the same layout
//!   in every process);
//! - the same over a 16,777,215-node tree, plus two plain threads splitting it at the root
//!   (the best any library can do on 2 cores);
//! - the 16.7M-node tree read as a 4-ary one: `join!` of four against nested pairwise joins;
//! - a 16.7M-node tree boxed node by node (a user's tree), from outside every pool;
//! - fib(27) and fib(30) with a join at every call;
//! - the entry points called from a thread outside the pools, back to back: `install`,
//!   `join`, a `scope` of 10 spawns, `broadcast` (each wakes or reaches the pool's threads).
//!
//! Idle CPU and bursty-load CPU are measured by `benches/idle.rs` (they need CPU time, not
//! wall time).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;

#[path = "common/fib.rs"]
mod fib;
use fib::{fib_blitz, fib_chili, fib_rayon, fib_seq};
#[path = "common/tree.rs"]
mod tree;
use tree::{sum_blitz, sum_chili, sum_rayon, sum_seq, sum_two_threads};

fn trees(c: &mut Criterion) {
    let chili_pool = chili::ThreadPool::new();
    for layers in [10u32, 24] {
        let mut slots = tree::storage(layers);
        let tree = tree::build(&mut slots);
        let nodes = (1u64 << layers) - 1;
        let mut group = c.benchmark_group(format!("tree_sum_{nodes}"));
        if layers > 20 {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(8));
        }
        group.bench_function(BenchmarkId::new("sequential", nodes), |b| {
            b.iter(|| assert_eq!(sum_seq(black_box(tree)), nodes))
        });
        group.bench_function(BenchmarkId::new("blitz-par", nodes), |b| {
            b.iter(|| assert_eq!(sum_blitz(black_box(tree)), nodes))
        });
        group.bench_function(BenchmarkId::new("rayon", nodes), |b| {
            b.iter(|| assert_eq!(sum_rayon(black_box(tree)), nodes))
        });
        {
            let mut scope = chili_pool.scope();
            group.bench_function(BenchmarkId::new("chili", nodes), |b| {
                b.iter(|| assert_eq!(sum_chili(black_box(tree), &mut scope), nodes))
            });
        }
        if layers > 20 {
            // `join!` of four over the tree read as a 4-ary one, against nested pairwise joins.
            group.bench_function(BenchmarkId::new("join4-nested", nodes), |b| {
                b.iter(|| assert_eq!(tree::sum4_nested(black_box(tree)), nodes))
            });
            group.bench_function(BenchmarkId::new("join4-join!", nodes), |b| {
                b.iter(|| assert_eq!(tree::sum4_join_many(black_box(tree)), nodes))
            });
        }
        if layers > 20 {
            // The machine's own limit for two cores: two plain threads, one per subtree of the
            // root, no scheduler at all. On 2 cores no fork-join library can beat this.
            group.bench_function(BenchmarkId::new("two-threads", nodes), |b| {
                b.iter(|| assert_eq!(sum_two_threads(black_box(tree)), nodes))
            });
        }
        group.finish();
    }
}

/// A 16.7M-node tree boxed node by node, as a user's tree is, summed from the bench's thread
/// (outside every pool, as a new user calls it).
fn boxed_tree(c: &mut Criterion) {
    let chili_pool = chili::ThreadPool::new();
    let t = tree::build_boxed(24);
    let nodes = (1u64 << 24) - 1;
    let mut group = c.benchmark_group("boxed_tree_sum_16777215");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("sequential", |b| {
        b.iter(|| assert_eq!(tree::sum_boxed_seq(black_box(&t)), nodes))
    });
    group.bench_function("blitz-par", |b| {
        b.iter(|| assert_eq!(tree::sum_boxed_blitz(black_box(&t)), nodes))
    });
    group.bench_function("rayon", |b| {
        b.iter(|| assert_eq!(tree::sum_boxed_rayon(black_box(&t)), nodes))
    });
    let mut scope = chili_pool.scope();
    group.bench_function("chili", |b| {
        b.iter(|| assert_eq!(tree::sum_boxed_chili(black_box(&t), &mut scope), nodes))
    });
    group.finish();
}

fn fib(c: &mut Criterion) {
    let chili_pool = chili::ThreadPool::new();
    for n in [27, 30] {
        let expected = fib_seq(n);
        let mut group = c.benchmark_group(format!("fib_{n}"));
        if n > 27 {
            group.sample_size(10);
        }
        group.bench_function("sequential", |b| {
            b.iter(|| assert_eq!(fib_seq(black_box(n)), expected))
        });
        group.bench_function("blitz-par", |b| {
            b.iter(|| assert_eq!(fib_blitz(black_box(n)), expected))
        });
        group.bench_function("rayon", |b| {
            b.iter(|| assert_eq!(fib_rayon(black_box(n)), expected))
        });
        let mut scope = chili_pool.scope();
        group.bench_function("chili", |b| {
            b.iter(|| assert_eq!(fib_chili(black_box(n), &mut scope), expected))
        });
        group.finish();
    }
}

fn entry_points(c: &mut Criterion) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let blitz = blitz_par::ThreadPoolBuilder::new().build().unwrap();
    let rayon = rayon::ThreadPoolBuilder::new().build().unwrap();
    let mut group = c.benchmark_group("entry_from_outside");
    group.bench_function("install/blitz-par", |b| {
        b.iter(|| blitz.install(|| black_box(1)))
    });
    group.bench_function("install/rayon", |b| {
        b.iter(|| rayon.install(|| black_box(1)))
    });
    group.bench_function("join/blitz-par", |b| {
        b.iter(|| blitz.join(|| black_box(1), || black_box(2)))
    });
    group.bench_function("join/rayon", |b| {
        b.iter(|| rayon.join(|| black_box(1), || black_box(2)))
    });
    let spawns = |s: &dyn Fn(&AtomicU64)| {
        let c = AtomicU64::new(0);
        s(&c);
        assert_eq!(c.load(Ordering::Relaxed), 10);
    };
    group.bench_function("scope_10_spawns/blitz-par", |b| {
        b.iter(|| {
            spawns(&|c| {
                blitz.scope(|s| {
                    for _ in 0..10 {
                        s.spawn(move |_| {
                            c.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                })
            })
        })
    });
    group.bench_function("scope_10_spawns/rayon", |b| {
        b.iter(|| {
            spawns(&|c| {
                rayon.scope(|s| {
                    for _ in 0..10 {
                        s.spawn(move |_| {
                            c.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                })
            })
        })
    });
    group.bench_function("broadcast/blitz-par", |b| {
        b.iter(|| blitz.broadcast(|ctx| black_box(ctx.index())))
    });
    group.bench_function("broadcast/rayon", |b| {
        b.iter(|| rayon.broadcast(|ctx| black_box(ctx.index())))
    });
    group.finish();
}

criterion_group!(benches, trees, boxed_tree, fib, entry_points);
criterion_main!(benches);
