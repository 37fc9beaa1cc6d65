//! Reproducible reductions: `deterministic()`, `ThreadPoolBuilder::deterministic` and
//! `BLITZ_DETERMINISTIC`. Every float result is checked bit for bit against a sequential
//! reference of the documented tree written here (leaves of `LEAF_LEN` items by position,
//! each folded front to back; leaves `lo..hi` split at `lo + (hi - lo).next_power_of_two() /
//! 2`), on pools of 1, 2, 3, 8, 16 and 64 threads and on repeated runs, with inputs on which
//! the plain sequential sum differs from the tree's (so a wrong grouping cannot pass).

use blitz_par::iter::deterministic::LEAF_LEN;
use blitz_par::prelude::*;
use blitz_par::{ThreadPool, ThreadPoolBuilder};
use quickcheck::quickcheck;
use std::cmp::Ordering;
use std::sync::OnceLock;

const THREADS: [usize; 6] = [1, 2, 3, 8, 16, 64];

/// Lengths around the leaf size and the tree's shapes (one leaf, a missing right child, a
/// power of two of leaves, many leaves with a short last one).
const LENS: [usize; 8] = [
    0,
    1,
    LEAF_LEN - 1,
    LEAF_LEN,
    LEAF_LEN + 1,
    3 * LEAF_LEN,
    8 * LEAF_LEN,
    37 * LEAF_LEN + 5,
];

/// One pool per thread count, built once (`deterministic`: the pool switch).
fn pools(deterministic: bool) -> &'static [ThreadPool] {
    static PLAIN: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    static FIXED: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    let cell = if deterministic { &FIXED } else { &PLAIN };
    cell.get_or_init(|| {
        THREADS
            .iter()
            .map(|&n| {
                ThreadPoolBuilder::new()
                    .num_threads(n)
                    .deterministic(deterministic)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

/// A float that changes a sum's rounding wherever it is grouped: random sign, mantissa and an
/// exponent spread over 2^-20..2^20.
fn wild(seed: u64) -> f64 {
    let r = mix(seed);
    let mantissa = 1.0 + (r >> 12) as f64 / (1u64 << 52) as f64;
    let exponent = (r % 41) as i32 - 20;
    let sign = if r & (1 << 11) == 0 { 1.0 } else { -1.0 };
    sign * mantissa * 2f64.powi(exponent)
}

/// A factor near 1, so that long products stay finite but round differently when regrouped.
fn near_one(seed: u64) -> f64 {
    1.0 + ((mix(seed) >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e-2
}

fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn wild_vec(len: usize, salt: u64) -> Vec<f64> {
    (0..len as u64).map(|i| wild(i ^ (salt << 40))).collect()
}

/// The documented tree, sequentially: `leaf(items of leaf k)` for every leaf, joined by `op`.
/// `None` for no items.
fn tree<T, R>(items: &[T], leaf: &impl Fn(&[T]) -> R, op: &impl Fn(R, R) -> R) -> Option<R> {
    fn node<T, R>(
        items: &[T],
        lo: usize,
        hi: usize,
        leaf: &impl Fn(&[T]) -> R,
        op: &impl Fn(R, R) -> R,
    ) -> R {
        if hi - lo == 1 {
            return leaf(&items[lo * LEAF_LEN..((lo + 1) * LEAF_LEN).min(items.len())]);
        }
        let mid = lo + (hi - lo).next_power_of_two() / 2;
        op(
            node(items, lo, mid, leaf, op),
            node(items, mid, hi, leaf, op),
        )
    }
    let leaves = items.len().div_ceil(LEAF_LEN);
    (leaves > 0).then(|| node(items, 0, leaves, leaf, op))
}

fn tree_sum(v: &[f64]) -> f64 {
    tree(v, &|l: &[f64]| l.iter().sum::<f64>(), &|a, b| a + b)
        .unwrap_or_else(|| std::iter::empty::<f64>().sum())
}

/// Runs `f` on every pool (the deterministic ones when `switch`) twice, and checks that every
/// run gives `expected`'s bits.
fn on_every_pool<R: PartialEq + std::fmt::Debug + Send>(
    what: &str,
    switch: bool,
    expected: &R,
    f: impl Fn() -> R + Sync + Send,
) {
    for (pool, threads) in pools(switch).iter().zip(THREADS) {
        for run in 0..2 {
            let got = pool.install(&f);
            assert_eq!(
                &got, expected,
                "{what}: {threads} threads, run {run} (pool switch: {switch})"
            );
        }
    }
}

/// The inputs are order-sensitive: the sequential sum differs from the tree's somewhere.
#[test]
fn inputs_are_order_sensitive() {
    let v = wild_vec(37 * LEAF_LEN + 5, 1);
    let seq: f64 = v.iter().sum();
    assert_ne!(seq.to_bits(), tree_sum(&v).to_bits());
    let p: Vec<f64> = (0..37 * LEAF_LEN as u64).map(near_one).collect();
    let seq: f64 = p.iter().product();
    let tree = tree(&p, &|l: &[f64]| l.iter().product::<f64>(), &|a, b| a * b).unwrap();
    assert_ne!(seq.to_bits(), tree.to_bits());
}

#[test]
fn sum_is_the_tree_on_every_pool() {
    for len in LENS {
        let v = wild_vec(len, 2);
        let want = tree_sum(&v).to_bits();
        on_every_pool(&format!("sum of {len}"), false, &want, || {
            v.par_iter().deterministic().sum::<f64>().to_bits()
        });
        on_every_pool(&format!("sum of {len}"), true, &want, || {
            v.par_iter().sum::<f64>().to_bits()
        });
    }
}

#[test]
fn product_is_the_tree_on_every_pool() {
    for len in LENS {
        let v: Vec<f64> = (0..len as u64).map(near_one).collect();
        let want = tree(&v, &|l: &[f64]| l.iter().product::<f64>(), &|a, b| a * b)
            .unwrap_or(1.0)
            .to_bits();
        on_every_pool(&format!("product of {len}"), false, &want, || {
            v.par_iter()
                .copied()
                .deterministic()
                .product::<f64>()
                .to_bits()
        });
        on_every_pool(&format!("product of {len}"), true, &want, || {
            v.par_iter().product::<f64>().to_bits()
        });
    }
}

#[test]
fn reduce_and_reduce_with_are_the_tree_on_every_pool() {
    for len in LENS {
        let v = wild_vec(len, 3);
        // `reduce` starts every leaf from `identity()`.
        let want = tree(
            &v,
            &|l: &[f64]| l.iter().fold(0.0, |a, x| a + x),
            &|a, b| a + b,
        )
        .unwrap_or(0.0)
        .to_bits();
        on_every_pool(&format!("reduce of {len}"), false, &want, || {
            let r = v.par_iter().copied().deterministic();
            r.reduce(|| 0.0, |a, b| a + b).to_bits()
        });
        on_every_pool(&format!("reduce of {len}"), true, &want, || {
            v.par_iter().copied().reduce(|| 0.0, |a, b| a + b).to_bits()
        });
        // `reduce_with` starts every leaf from its first item.
        let want = tree(
            &v,
            &|l: &[f64]| l.iter().copied().reduce(|a, b| a + b).unwrap(),
            &|a, b| a + b,
        )
        .map(f64::to_bits);
        on_every_pool(&format!("reduce_with of {len}"), false, &want, || {
            let r = v.par_iter().copied().deterministic();
            r.reduce_with(|a, b| a + b).map(f64::to_bits)
        });
        on_every_pool(&format!("reduce_with of {len}"), true, &want, || {
            v.par_iter()
                .copied()
                .reduce_with(|a, b| a + b)
                .map(f64::to_bits)
        });
    }
}

#[test]
fn fold_then_reduce_is_the_tree_on_every_pool() {
    for len in LENS {
        let v = wild_vec(len, 4);
        // One accumulator per leaf, reduced (from `identity()`) along the tree.
        let leaf = |l: &[f64]| 0.0 + l.iter().fold(0.0, |a, x| a + x * 3.0);
        let want = tree(&v, &leaf, &|a, b| a + b).unwrap_or(0.0).to_bits();
        let fold_reduce = || {
            v.par_iter()
                .fold(|| 0.0, |a, x| a + x * 3.0)
                .reduce(|| 0.0, |a, b| a + b)
                .to_bits()
        };
        on_every_pool(&format!("fold+reduce of {len}"), false, &want, || {
            v.par_iter()
                .deterministic()
                .fold(|| 0.0, |a, x| a + x * 3.0)
                .reduce(|| 0.0, |a, b| a + b)
                .to_bits()
        });
        on_every_pool(&format!("fold+reduce of {len}"), true, &want, fold_reduce);
        // `deterministic()` behind the fold fixes the same tree.
        on_every_pool(
            &format!("fold.deterministic of {len}"),
            false,
            &want,
            || {
                v.par_iter()
                    .fold(|| 0.0, |a, x| a + x * 3.0)
                    .deterministic()
                    .reduce(|| 0.0, |a, b| a + b)
                    .to_bits()
            },
        );
    }
}

/// Ties: `min_by` gives the first of equal items and `max_by` the last, as std's do, on every
/// pool; keys likewise.
#[test]
fn min_max_ties_are_std_on_every_pool() {
    for len in LENS {
        // Keys with many ties (a few distinct values), the index telling equal items apart.
        let v: Vec<(f64, usize)> = (0..len).map(|i| ((mix(i as u64) % 5) as f64, i)).collect();
        let by = |a: &(f64, usize), b: &(f64, usize)| a.0.partial_cmp(&b.0).unwrap();
        let key = |x: &(f64, usize)| x.0 as i64;
        let want = (
            v.iter().min_by(|a, b| by(a, b)).map(|x| x.1),
            v.iter().max_by(|a, b| by(a, b)).map(|x| x.1),
            v.iter().min_by_key(|x| key(x)).map(|x| x.1),
            v.iter().max_by_key(|x| key(x)).map(|x| x.1),
        );
        if len > 1 {
            assert_ne!(want.0, want.1, "ties at both ends");
        }
        let run = |det: bool| {
            let it = || v.par_iter();
            if det {
                (
                    it().deterministic().min_by(|a, b| by(a, b)).map(|x| x.1),
                    it().deterministic().max_by(|a, b| by(a, b)).map(|x| x.1),
                    it().deterministic().min_by_key(|x| key(x)).map(|x| x.1),
                    it().deterministic().max_by_key(|x| key(x)).map(|x| x.1),
                )
            } else {
                (
                    it().min_by(|a, b| by(a, b)).map(|x| x.1),
                    it().max_by(|a, b| by(a, b)).map(|x| x.1),
                    it().min_by_key(|x| key(x)).map(|x| x.1),
                    it().max_by_key(|x| key(x)).map(|x| x.1),
                )
            }
        };
        on_every_pool(&format!("min/max of {len}"), false, &want, || run(true));
        on_every_pool(&format!("min/max of {len}"), true, &want, || run(false));
    }
}

/// A comparator that is not an order (NaN compares equal to everything) makes the result of
/// `min_by` depend on the grouping; the fixed tree makes it reproducible.
#[test]
fn min_by_with_an_inconsistent_comparator_is_reproducible() {
    let v: Vec<f64> = (0..20 * LEAF_LEN as u64)
        .map(|i| if i % 97 == 50 { f64::NAN } else { wild(i) })
        .collect();
    let by = |a: &&f64, b: &&f64| a.partial_cmp(b).unwrap_or(Ordering::Equal);
    let want = tree(&v, &|l: &[f64]| *l.iter().min_by(by).unwrap(), &|a, b| {
        if by(&&b, &&a) == Ordering::Less {
            b
        } else {
            a
        }
    })
    .unwrap()
    .to_bits();
    on_every_pool("min_by with NaN", false, &want, || {
        v.par_iter().deterministic().min_by(by).unwrap().to_bits()
    });
    on_every_pool("min_by with NaN", true, &want, || {
        v.par_iter().min_by(by).unwrap().to_bits()
    });
}

/// The tree is over the positions of the indexed source: behind `filter`, leaves hold what
/// passes of each `LEAF_LEN` source items; `zip` and `enumerate` take the request along.
#[test]
fn adapters_keep_the_tree_of_the_source() {
    let v = wild_vec(23 * LEAF_LEN + 9, 5);
    let w = wild_vec(23 * LEAF_LEN + 9, 6);
    let keep = |x: &f64| x.to_bits() % 3 != 0;
    let want = tree(
        &v,
        &|l: &[f64]| l.iter().filter(|x| keep(x)).sum::<f64>(),
        &|a, b| a + b,
    )
    .unwrap()
    .to_bits();
    on_every_pool("filter", false, &want, || {
        v.par_iter()
            .filter(|x| keep(x))
            .deterministic()
            .sum::<f64>()
            .to_bits()
    });
    on_every_pool("filter", true, &want, || {
        v.par_iter().filter(|x| keep(x)).sum::<f64>().to_bits()
    });
    let products: Vec<f64> = v.iter().zip(&w).map(|(a, b)| a * b).collect();
    let want = tree_sum(&products).to_bits();
    on_every_pool("zip, deterministic before", false, &want, || {
        v.par_iter()
            .deterministic()
            .zip(&w)
            .map(|(a, b)| a * b)
            .sum::<f64>()
            .to_bits()
    });
    on_every_pool("zip, deterministic after", false, &want, || {
        v.par_iter()
            .zip(&w)
            .map(|(a, b)| a * b)
            .deterministic()
            .sum::<f64>()
            .to_bits()
    });
    on_every_pool("zip", true, &want, || {
        v.par_iter()
            .zip(&w)
            .map(|(a, b)| a * b)
            .sum::<f64>()
            .to_bits()
    });
    let weighted: Vec<f64> = v.iter().enumerate().map(|(i, x)| x * i as f64).collect();
    let want = tree_sum(&weighted).to_bits();
    on_every_pool("enumerate", false, &want, || {
        v.par_iter()
            .deterministic()
            .enumerate()
            .map(|(i, x)| x * i as f64)
            .sum::<f64>()
            .to_bits()
    });
}

/// Unindexed sources gather their items in order, then follow the tree over their positions.
#[test]
fn unindexed_sources_follow_the_tree_of_their_items() {
    let v = wild_vec(11 * LEAF_LEN + 3, 7);
    let want = tree_sum(&v).to_bits();
    on_every_pool("par_bridge", false, &want, || {
        v.iter().par_bridge().deterministic().sum::<f64>().to_bits()
    });
    on_every_pool("par_bridge", true, &want, || {
        v.iter().par_bridge().sum::<f64>().to_bits()
    });
    let text: String = (0..5 * LEAF_LEN as u64)
        .map(|i| char::from(b'a' + (mix(i) % 26) as u8))
        .collect();
    let weights: Vec<f64> = text
        .chars()
        .map(|c| 1.0 / f64::from(u32::from(c)))
        .collect();
    let want = tree_sum(&weights).to_bits();
    on_every_pool("par_chars", false, &want, || {
        text.par_chars()
            .map(|c| 1.0 / f64::from(u32::from(c)))
            .deterministic()
            .sum::<f64>()
            .to_bits()
    });
}

/// Reductions inside the closures of a deterministic drive, and in a deterministic pool, are
/// deterministic too.
#[test]
fn nested_reductions_are_deterministic() {
    let rows: Vec<Vec<f64>> = (0..40)
        .map(|r| wild_vec(3 * LEAF_LEN + r, r as u64))
        .collect();
    let want: Vec<u64> = rows.iter().map(|row| tree_sum(row).to_bits()).collect();
    on_every_pool("nested, adapter", false, &want, || {
        let sums: Vec<u64> = rows
            .par_iter()
            .deterministic()
            .map(|row| row.par_iter().sum::<f64>().to_bits())
            .collect();
        sums
    });
    on_every_pool("nested, pool switch", true, &want, || {
        let sums: Vec<u64> = rows
            .par_iter()
            .map(|row| row.par_iter().sum::<f64>().to_bits())
            .collect();
        sums
    });
}

/// A deterministic pool keeps its switch for work that is not a reduction: collecting and
/// `for_each` still see every item once, in order where order is kept.
#[test]
fn deterministic_pool_runs_other_consumers() {
    let pool = &pools(true)[2];
    let v: Vec<u64> = (0..50_000).collect();
    let doubled: Vec<u64> = pool.install(|| v.par_iter().map(|x| x * 2).collect());
    assert_eq!(doubled, v.iter().map(|x| x * 2).collect::<Vec<_>>());
    let seen = std::sync::atomic::AtomicU64::new(0);
    pool.install(|| {
        v.par_iter()
            .for_each(|x| _ = seen.fetch_add(*x, std::sync::atomic::Ordering::Relaxed))
    });
    assert_eq!(seen.into_inner(), v.iter().sum::<u64>());
    assert_eq!(
        pool.install(|| v.par_iter().position_any(|&x| x == 777)),
        Some(777)
    );
}

/// A panic in a deterministic drive propagates, and the pool keeps working.
#[test]
fn a_panic_propagates_and_the_pool_keeps_working() {
    let v = wild_vec(9 * LEAF_LEN, 8);
    for pool in pools(false).iter().take(3) {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                v.par_iter()
                    .enumerate()
                    .deterministic()
                    .map(|(i, x)| {
                        if i == 5 * LEAF_LEN + 1 {
                            panic!("item")
                        } else {
                            *x
                        }
                    })
                    .sum::<f64>()
            })
        }));
        assert!(result.is_err());
        let again = pool.install(|| v.par_iter().deterministic().sum::<f64>());
        assert_eq!(again.to_bits(), tree_sum(&v).to_bits());
    }
}

/// Composition of the affine maps `x -> m x + c` (wrapping): associative, not commutative.
fn compose((m1, c1): (u64, u64), (m2, c2): (u64, u64)) -> (u64, u64) {
    (m1.wrapping_mul(m2), m2.wrapping_mul(c1).wrapping_add(c2))
}

// Integer reductions against std, on random lengths up to a few dozen leaves, on a 3-thread
// deterministic pool and with the adapter on the global pool.
quickcheck! {
    fn integer_reductions_match_std(seed: u64, len: u16) -> bool {
        let len = usize::from(len) % (40 * LEAF_LEN);
        let v: Vec<u64> = (0..len as u64).map(|i| mix(i ^ seed) % 1000).collect();
        let seq = (
            v.iter().sum::<u64>(),
            v.iter().fold(1u64, |a, &x| a.wrapping_mul(x | 1)),
            v.iter().map(|&x| (x | 1, x)).reduce(compose),
            v.iter().enumerate().min_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
            v.iter().enumerate().max_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
            v.iter().fold(0u64, |a, &x| a ^ x.rotate_left(7)),
        );
        let par = || (
            v.par_iter().deterministic().sum::<u64>(),
            v.par_iter().map(|&x| x | 1).deterministic().reduce(|| 1, u64::wrapping_mul),
            // Not commutative: the tree keeps the order.
            v.par_iter().map(|&x| (x | 1, x)).deterministic().reduce_with(compose),
            v.par_iter().enumerate().deterministic().min_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
            v.par_iter().enumerate().deterministic().max_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
            v.par_iter().deterministic().fold(|| 0u64, |a, &x| a ^ x.rotate_left(7)).reduce(|| 0, |a, b| a ^ b),
        );
        let pooled = pools(true)[2].install(|| (
            v.par_iter().sum::<u64>(),
            v.par_iter().enumerate().min_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
            v.par_iter().enumerate().max_by_key(|(_, &x)| x % 17).map(|(i, _)| i),
        ));
        par() == seq && pooled == (seq.0, seq.3, seq.4)
    }
}

/// Prints a deterministic-sensitive sum on the global pool. Run only in a child process by
/// `environment_variable_switches_the_global_pool`, with the variables under test set.
#[test]
#[ignore = "run in a child process by environment_variable_switches_the_global_pool"]
fn child_prints_the_global_sum() {
    let v = wild_vec(37 * LEAF_LEN + 5, 9);
    let bits = v.par_iter().sum::<f64>().to_bits();
    let nested = (0..4usize)
        .into_par_iter()
        .map(|_| v.par_iter().map(|x| x * 0.5).sum::<f64>().to_bits())
        .collect::<Vec<_>>();
    println!("bits={bits} nested={}", nested[3]);
}

/// Runs `child_prints_the_global_sum` in a new process with `BLITZ_DETERMINISTIC` set to
/// `value` and `BLITZ_NUM_THREADS` to `threads`; returns the two sums' bits and stderr.
fn global_sum_with(value: &str, threads: usize) -> ((u64, u64), String) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_prints_the_global_sum",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .args(["--test-threads=1"])
        .env("BLITZ_DETERMINISTIC", value)
        .env("BLITZ_NUM_THREADS", threads.to_string())
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "child failed: {stdout}\n{stderr}");
    let field = |name: &str| -> u64 {
        stdout
            .split(name)
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no {name} printed: {stdout}\n{stderr}"))
            .parse()
            .unwrap()
    };
    ((field("bits="), field("nested=")), stderr)
}

/// `BLITZ_DETERMINISTIC=1` makes the global pool's reductions follow the tree, nested ones
/// included, at any thread count; an unusable value is reported, naming the variable, and
/// leaves the program running.
#[test]
fn environment_variable_switches_the_global_pool() {
    let v = wild_vec(37 * LEAF_LEN + 5, 9);
    let halves: Vec<f64> = v.iter().map(|x| x * 0.5).collect();
    let want = (tree_sum(&v).to_bits(), tree_sum(&halves).to_bits());
    for value in ["1", "true", " on "] {
        for threads in [1, 3, 16] {
            let (got, stderr) = global_sum_with(value, threads);
            assert_eq!(
                got, want,
                "BLITZ_DETERMINISTIC={value:?}, {threads} threads"
            );
            assert!(!stderr.contains("BLITZ_DETERMINISTIC"), "{stderr}");
        }
    }
    for value in ["0", ""] {
        let (_, stderr) = global_sum_with(value, 2);
        assert!(
            !stderr.contains("BLITZ_DETERMINISTIC"),
            "{value:?}: {stderr}"
        );
    }
    let (_, stderr) = global_sum_with("sometimes", 2);
    assert!(
        stderr.contains("ignoring BLITZ_DETERMINISTIC=\"sometimes\""),
        "bad value not reported: {stderr}"
    );
}
