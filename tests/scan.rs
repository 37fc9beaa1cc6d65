//! Scans: `inclusive_scan`, `exclusive_scan`, `par_inclusive_scan`, `par_exclusive_scan`
//! against sequential references, bit-identical float results on any number of threads,
//! panics with drop counting, and the indexed API on a scan's output.

use blitz_par::iter::scan_block_len;
use blitz_par::prelude::*;
use blitz_par::ThreadPoolBuilder;
use quickcheck::quickcheck;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

fn seq_inclusive<T: Clone>(v: &[T], op: impl Fn(&T, &T) -> T) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        let next = match out.last() {
            Some(last) => op(last, x),
            None => x.clone(),
        };
        out.push(next);
    }
    out
}

fn seq_exclusive<T: Clone>(v: &[T], identity: T, op: impl Fn(&T, &T) -> T) -> (Vec<T>, T) {
    let mut out = Vec::with_capacity(v.len());
    let mut acc = identity;
    for x in v {
        let next = op(&acc, x);
        out.push(std::mem::replace(&mut acc, next));
    }
    (out, acc)
}

/// `v` repeated up to `len` items (with the index mixed in), so that random inputs span
/// several blocks.
fn stretch(v: &[u64], len: usize) -> Vec<u64> {
    if v.is_empty() {
        return Vec::new();
    }
    (0..len)
        .map(|i| v[i % v.len()].wrapping_mul(i as u64 + 1))
        .collect()
}

/// An affine map `x -> a * x + b` (wrapping): composition is associative and not commutative.
type Affine = (u64, u64);
fn compose(f: &Affine, g: &Affine) -> Affine {
    // First f, then g.
    (
        f.0.wrapping_mul(g.0),
        f.1.wrapping_mul(g.0).wrapping_add(g.1),
    )
}

fn pool(threads: usize) -> blitz_par::ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

quickcheck! {
    fn inclusive_matches_sequential(v: Vec<u64>, extra: u16) -> bool {
        let v = stretch(&v, v.len() + usize::from(extra) * 8);
        let add = |a: &u64, b: &u64| a.wrapping_add(*b);
        let expect = seq_inclusive(&v, add);
        let got: Vec<u64> = v.par_iter().copied().inclusive_scan(add).collect();
        let mut in_place = v.clone();
        in_place.par_inclusive_scan(add);
        got == expect && in_place == expect
    }

    fn exclusive_matches_sequential(v: Vec<u64>, extra: u16, identity: u64) -> bool {
        let v = stretch(&v, v.len() + usize::from(extra) * 8);
        let add = |a: &u64, b: &u64| a.wrapping_add(*b);
        let (expect, total) = seq_exclusive(&v, identity, add);
        let got: Vec<u64> = v.par_iter().copied().exclusive_scan(identity, add).collect();
        let mut in_place = v.clone();
        let in_place_total = in_place.par_exclusive_scan(identity, add);
        got == expect && in_place == expect && in_place_total == total
    }

    fn non_commutative_affine(v: Vec<(u64, u64)>, extra: u16) -> bool {
        let len = v.len() + usize::from(extra) * 4;
        let v: Vec<Affine> = if v.is_empty() { v } else {
            (0..len).map(|i| { let (a, b) = v[i % v.len()]; (a | 1, b ^ i as u64) }).collect()
        };
        let expect = seq_inclusive(&v, compose);
        let got: Vec<Affine> = v.par_iter().copied().inclusive_scan(compose).collect();
        let mut in_place = v.clone();
        in_place.par_inclusive_scan(compose);
        let (ex, total) = seq_exclusive(&v, (1, 0), compose);
        let mut ex_in_place = v.clone();
        let ex_total = ex_in_place.par_exclusive_scan((1, 0), compose);
        got == expect && in_place == expect && ex_in_place == ex && ex_total == total
    }

    fn strings_concatenate_in_order(v: Vec<String>) -> bool {
        let cat = |a: &String, b: &String| format!("{a}{b}");
        let expect = seq_inclusive(&v, cat);
        let got: Vec<String> = v.par_iter().cloned().inclusive_scan(cat).collect();
        let (ex, total) = seq_exclusive(&v, String::new(), cat);
        let mut ex_in_place = v.clone();
        let ex_total = ex_in_place.par_exclusive_scan(String::new(), cat);
        got == expect && ex_in_place == ex && ex_total == total
    }
}

#[test]
fn strings_over_several_blocks() {
    let n = 3 * scan_block_len::<String>() + 17;
    let v: Vec<String> = (0..n)
        .map(|i| char::from(b'a' + (i % 26) as u8).to_string())
        .collect();
    let cat = |a: &String, b: &String| format!("{a}{b}");
    let expect = seq_inclusive(&v, cat);
    for threads in [1, 2, 3] {
        let got: Vec<String> =
            pool(threads).install(|| v.par_iter().cloned().inclusive_scan(cat).collect());
        assert!(got == expect, "{threads} threads");
        let mut in_place = v.clone();
        pool(threads).install(|| in_place.par_inclusive_scan(cat));
        assert!(in_place == expect, "{threads} threads, in place");
    }
}

#[test]
fn empty_and_single() {
    let add = |a: &i32, b: &i32| a + b;
    let empty: Vec<i32> = Vec::new();
    let out: Vec<i32> = empty.par_iter().copied().inclusive_scan(add).collect();
    assert!(out.is_empty());
    let out: Vec<i32> = empty.par_iter().copied().exclusive_scan(7, add).collect();
    assert!(out.is_empty());
    let mut e = empty.clone();
    e.par_inclusive_scan(add);
    assert_eq!(e.par_exclusive_scan(7, add), 7);
    assert!(e.is_empty());

    let out: Vec<i32> = [5].par_iter().copied().inclusive_scan(add).collect();
    assert_eq!(out, [5]);
    let out: Vec<i32> = [5].par_iter().copied().exclusive_scan(7, add).collect();
    assert_eq!(out, [7]);
    let mut one = [5];
    one.par_inclusive_scan(add);
    assert_eq!(one, [5]);
    assert_eq!(one.par_exclusive_scan(7, add), 12);
    assert_eq!(one, [7]);
}

#[test]
fn indexed_api_on_a_scan() {
    let n = 5 * scan_block_len::<u64>() + 3;
    let add = |a: &u64, b: &u64| a + b;
    let expect = seq_inclusive(&(0..n as u64).collect::<Vec<_>>(), add);
    let scan = || (0..n).into_par_iter().map(|x| x as u64).inclusive_scan(add);
    assert_eq!(scan().len(), n);
    let mut v = Vec::new();
    scan().collect_into_vec(&mut v);
    assert_eq!(v, expect);
    let zipped: Vec<(u64, usize)> = scan().zip(0..n).collect();
    assert!(zipped.iter().zip(&expect).all(|(z, e)| z.0 == *e));
    let enumerated: Vec<(usize, u64)> = scan().enumerate().collect();
    assert!(enumerated
        .iter()
        .enumerate()
        .all(|(i, &(j, x))| i == j && x == expect[i]));
    let rev: Vec<u64> = scan().rev().collect();
    assert!(rev.iter().rev().eq(expect.iter()));
    assert_eq!(scan().sum::<u64>(), expect.iter().sum::<u64>());
    assert_eq!(scan().skip(10).take(5).collect::<Vec<_>>(), expect[10..15]);
    // A scan of a scan, and a map after one.
    let twice: Vec<u64> = scan().inclusive_scan(add).map(|x| x % 1000).collect();
    let expect_twice: Vec<u64> = seq_inclusive(&expect, add)
        .iter()
        .map(|x| x % 1000)
        .collect();
    assert_eq!(twice, expect_twice);
}

/// The documented association, written out: blocks of `scan_block_len` items, each output
/// `prefix + local`, `prefix` the left fold of the earlier blocks' totals.
fn float_reference(v: &[f64], identity: Option<f64>) -> Vec<f64> {
    let block = scan_block_len::<f64>();
    let mut out = Vec::with_capacity(v.len());
    let mut prefix = identity;
    for chunk in v.chunks(block) {
        let local = seq_inclusive(chunk, |a, b| a + b);
        match identity {
            None => out.extend(local.iter().map(|l| prefix.map_or(*l, |p| p + l))),
            Some(_) => {
                let p = prefix.unwrap();
                out.push(p);
                out.extend(local[..local.len() - 1].iter().map(|l| p + l));
            }
        }
        let total = *local.last().unwrap();
        prefix = Some(prefix.map_or(total, |p| p + total));
    }
    out
}

#[test]
fn floats_bit_identical_on_any_thread_count() {
    let n = 40 * scan_block_len::<f64>() + 123;
    // Magnitudes over many orders, so that any change of association changes the bits.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mantissa = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            mantissa * 10f64.powi((state % 24) as i32 - 12)
        })
        .collect();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    let add = |a: &f64, b: &f64| a + b;
    let inclusive = bits(&float_reference(&v, None));
    let exclusive = bits(&float_reference(&v, Some(0.25)));
    assert_ne!(
        inclusive,
        bits(&seq_inclusive(&v, add)),
        "the input should be sensitive to association"
    );
    for threads in [1, 2, 3, 16] {
        let pool = pool(threads);
        for _ in 0..3 {
            let got: Vec<f64> =
                pool.install(|| v.par_iter().copied().inclusive_scan(add).collect());
            assert_eq!(bits(&got), inclusive, "inclusive, {threads} threads");
            let got: Vec<f64> =
                pool.install(|| v.par_iter().copied().exclusive_scan(0.25, add).collect());
            assert_eq!(bits(&got), exclusive, "exclusive, {threads} threads");
            let mut in_place = v.clone();
            pool.install(|| in_place.par_inclusive_scan(add));
            assert_eq!(bits(&in_place), inclusive, "in place, {threads} threads");
            let mut in_place = v.clone();
            pool.install(|| in_place.par_exclusive_scan(0.25, add));
            assert_eq!(
                bits(&in_place),
                exclusive,
                "in place exclusive, {threads} threads"
            );
        }
    }
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Counts live values; `op` panics on the one marked `poison`.
struct Counted {
    value: u64,
    poison: bool,
}

impl Counted {
    fn new(value: u64, poison: bool) -> Self {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Counted { value, poison }
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted::new(self.value, self.poison)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

fn counted_add(a: &Counted, b: &Counted) -> Counted {
    assert!(!b.poison, "poisoned item");
    Counted::new(a.value + b.value, false)
}

#[test]
fn panic_propagates_and_drops_every_item_once() {
    let n = 6 * scan_block_len::<Counted>() + 5;
    for threads in [1, 2, 3] {
        let pool = pool(threads);
        for poison_at in [1, n / 2, n - 1] {
            let make = || -> Vec<Counted> {
                (0..n)
                    .map(|i| Counted::new(i as u64, i == poison_at))
                    .collect()
            };
            let base = LIVE.load(Ordering::SeqCst);
            let input = make();
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    input
                        .into_par_iter()
                        .inclusive_scan(counted_add)
                        .collect::<Vec<Counted>>()
                })
            }));
            assert!(result.is_err(), "the panic propagates");
            assert_eq!(
                LIVE.load(Ordering::SeqCst),
                base,
                "iterator, {threads} threads"
            );

            let mut v = make();
            let result = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| v.par_exclusive_scan(Counted::new(0, false), counted_add))
            }));
            assert!(result.is_err(), "the panic propagates");
            assert_eq!(v.len(), n);
            drop(v);
            assert_eq!(
                LIVE.load(Ordering::SeqCst),
                base,
                "in place, {threads} threads"
            );

            // The pool still works.
            let sums: Vec<u64> = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .map(|x| x as u64)
                    .inclusive_scan(|a, b| a + b)
                    .collect()
            });
            assert_eq!(sums[n - 1], (n as u64 - 1) * n as u64 / 2);
        }
    }
    // Without a panic every item is dropped once too.
    let base = LIVE.load(Ordering::SeqCst);
    let out: Vec<Counted> = (0..n)
        .into_par_iter()
        .map(|i| Counted::new(i as u64, false))
        .exclusive_scan(Counted::new(0, false), counted_add)
        .collect();
    assert_eq!(out[n - 1].value, (n as u64 - 2) * (n as u64 - 1) / 2);
    drop(out);
    assert_eq!(LIVE.load(Ordering::SeqCst), base);
}
