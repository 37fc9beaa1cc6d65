//! indexmap's `IndexMap` and `IndexSet` in parallel (feature `indexmap`), against the real
//! indexmap: the iterators are indexed and keep the order, and every parallel method, set
//! operation, sort and collect gives what the sequential one gives.
#![cfg(feature = "indexmap")]

use blitz_par::prelude::*;
use indexmap::{IndexMap, IndexSet};
use quickcheck::quickcheck;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn map(n: u32) -> IndexMap<u32, String> {
    (0..n)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 1_000_003, format!("v{i}")))
        .collect()
}

/// Every key is found at the index where it sits: the hash table agrees with the entries.
fn consistent<K: std::hash::Hash + Eq, V>(m: &IndexMap<K, V>) -> bool {
    m.keys()
        .enumerate()
        .all(|(i, k)| m.get_index_of(k) == Some(i))
}

#[test]
fn iterators_are_indexed_and_keep_the_order() {
    let mut m = map(100_000);
    let seq: Vec<(&u32, &String)> = m.iter().collect();
    assert_eq!(m.par_iter().collect::<Vec<_>>(), seq);
    assert_eq!(m.par_iter().len(), m.len());
    let mut into = Vec::new();
    m.par_keys().copied().collect_into_vec(&mut into);
    assert_eq!(into, m.keys().copied().collect::<Vec<_>>());
    assert!(m
        .par_values()
        .enumerate()
        .all(|(i, v)| m.get_index(i).unwrap().1 == v));
    assert_eq!(
        m.par_iter().rev().map(|(k, _)| *k).collect::<Vec<_>>(),
        m.keys().rev().copied().collect::<Vec<_>>()
    );
    let before = m.clone();
    m.par_iter_mut()
        .enumerate()
        .for_each(|(i, (_, v))| v.push_str(&i.to_string()));
    assert!(m
        .values()
        .zip(before.values())
        .enumerate()
        .all(|(i, (v, b))| *v == format!("{b}{i}")));
    m.par_values_mut().for_each(|v| v.truncate(1));
    assert!(m.values().all(|v| v == "v"));

    let slice = m.get_range(10..20).unwrap();
    assert_eq!(
        slice.par_iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        slice.keys().copied().collect::<Vec<_>>()
    );
    assert_eq!(slice.par_keys().count(), 10);
    let order: Vec<u32> = m.keys().copied().collect();
    assert_eq!(
        m.clone()
            .into_par_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        order
    );
    assert_eq!(
        m.clone()
            .into_boxed_slice()
            .into_par_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        order
    );
}

#[test]
fn par_drain_takes_the_range_and_keeps_the_rest() {
    let mut m = map(10_000);
    let mut seq = m.clone();
    let par: Vec<(u32, String)> = m.par_drain(1000..4000).collect();
    let expected: Vec<(u32, String)> = seq.drain(1000..4000).collect();
    assert_eq!(par, expected);
    assert_eq!(m, seq);
    assert!(consistent(&m));

    let mut s: IndexSet<u32> = (0..100).collect();
    assert_eq!(
        s.par_drain(90..).collect::<Vec<_>>(),
        (90..100).collect::<Vec<_>>()
    );
    assert_eq!(s.len(), 90);
}

#[test]
fn sorts_match_indexmaps_sequential_sorts() {
    let m = map(50_000);
    let check = |par: IndexMap<u32, String>, seq: IndexMap<u32, String>| {
        assert!(par.iter().eq(seq.iter()));
        assert!(consistent(&par));
    };
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_keys();
    b.sort_keys();
    check(a, b);
    // Values repeat (their first letter), so stability shows.
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_by(|_, v1, _, v2| v1.len().cmp(&v2.len()));
    b.sort_by(|_, v1, _, v2| v1.len().cmp(&v2.len()));
    check(a, b);
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_by_key(|k, _| k % 10);
    b.sort_by_key(|k, _| k % 10);
    check(a, b);
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_by_cached_key(|_, v| v.len());
    b.sort_by_cached_key(|_, v| v.len());
    check(a, b);
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_unstable_keys();
    b.sort_unstable_keys();
    check(a, b);
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_unstable_by(|k1, _, k2, _| k2.cmp(k1));
    b.sort_unstable_by(|k1, _, k2, _| k2.cmp(k1));
    check(a, b);
    let (mut a, mut b) = (m.clone(), m.clone());
    a.par_sort_unstable_by_key(|k, _| *k);
    b.sort_unstable_by_key(|k, _| *k);
    check(a, b);
    let par: Vec<(u32, String)> = m
        .clone()
        .par_sorted_by(|_, v1, _, v2| v1.len().cmp(&v2.len()))
        .collect();
    let seq: Vec<(u32, String)> = m
        .clone()
        .sorted_by(|_, v1, _, v2| v1.len().cmp(&v2.len()))
        .collect();
    assert_eq!(par, seq);
    let par: Vec<u32> = m
        .clone()
        .par_sorted_unstable_by(|k1, _, k2, _| k1.cmp(k2))
        .map(|(k, _)| k)
        .collect();
    let seq: Vec<u32> = m
        .sorted_unstable_by(|k1, _, k2, _| k1.cmp(k2))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(par, seq);
}

#[test]
fn set_sorts_match() {
    let s: IndexSet<i64> = (0..50_000i64)
        .map(|i| (i * 7919) % 50_021 - 25_000)
        .collect();
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort();
    b.sort();
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_by_key(|x| x.abs());
    b.sort_by_key(|x| x.abs());
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_unstable_by(|x, y| y.cmp(x));
    b.sort_unstable_by(|x, y| y.cmp(x));
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_by_cached_key(|x| x.to_string());
    b.sort_by_cached_key(|x| x.to_string());
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_by(|x, y| (x % 100).cmp(&(y % 100)));
    b.sort_by(|x, y| (x % 100).cmp(&(y % 100)));
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_unstable();
    b.sort_unstable();
    assert!(a.iter().eq(b.iter()));
    let (mut a, mut b) = (s.clone(), s.clone());
    a.par_sort_unstable_by_key(|x| -x);
    b.sort_unstable_by_key(|x| -x);
    assert!(a.iter().eq(b.iter()));
    assert!(s
        .clone()
        .par_sorted_by(|x, y| x.cmp(y))
        .collect::<Vec<_>>()
        .windows(2)
        .all(|w| w[0] < w[1]));
    assert_eq!(
        s.clone()
            .par_sorted_unstable_by(|x, y| y.cmp(x))
            .collect::<Vec<_>>(),
        s.sorted_unstable_by(|x, y| y.cmp(x)).collect::<Vec<_>>()
    );
}

#[test]
fn a_panicking_comparison_loses_no_entry() {
    let mut m = map(20_000);
    let before: IndexMap<u32, String> = m.clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        m.par_sort_by(|k1, _, k2, _| {
            assert!(*k1 != 77 && *k2 != 77, "boom");
            k1.cmp(k2)
        })
    }));
    assert!(result.is_err());
    assert_eq!(m.len(), before.len());
    assert!(consistent(&m));
    assert!(before.iter().all(|(k, v)| m.get(k) == Some(v)));
}

#[test]
fn collect_extend_and_par_eq() {
    // Repeated keys: the first position and the last value, as in a sequential collect.
    let pairs: Vec<(u32, u32)> = (0..30_000).map(|i| (i % 5_000, i)).collect();
    let par: IndexMap<u32, u32> = pairs.par_iter().copied().collect();
    let seq: IndexMap<u32, u32> = pairs.iter().copied().collect();
    assert!(par.iter().eq(seq.iter()));
    let mut m: IndexMap<u32, u32> = IndexMap::new();
    m.par_extend(pairs.par_iter().map(|(k, v)| (k, v)));
    assert!(m.iter().eq(seq.iter()));
    let reversed: IndexMap<u32, u32> = seq.iter().rev().map(|(&k, &v)| (k, v)).collect();
    assert!(seq.par_eq(&reversed));
    let mut other = reversed.clone();
    other.insert(0, 1);
    assert!(!seq.par_eq(&other));

    let s: IndexSet<u32> = pairs.par_iter().map(|&(k, _)| k).collect();
    assert!(s.iter().copied().eq(0..5_000));
    let mut t: IndexSet<u32> = IndexSet::new();
    t.par_extend(pairs.par_iter().map(|(k, _)| k));
    assert_eq!(s, t);
}

quickcheck! {
    fn set_operations_keep_indexmaps_order(a: Vec<u16>, b: Vec<u16>) -> bool {
        let a: IndexSet<u16> = a.into_iter().collect();
        let b: IndexSet<u16> = b.into_iter().collect();
        a.par_union(&b).copied().collect::<Vec<_>>() == a.union(&b).copied().collect::<Vec<_>>()
            && a.par_intersection(&b).copied().collect::<Vec<_>>()
                == a.intersection(&b).copied().collect::<Vec<_>>()
            && a.par_difference(&b).copied().collect::<Vec<_>>()
                == a.difference(&b).copied().collect::<Vec<_>>()
            && a.par_symmetric_difference(&b).copied().collect::<Vec<_>>()
                == a.symmetric_difference(&b).copied().collect::<Vec<_>>()
            && a.par_is_disjoint(&b) == a.is_disjoint(&b)
            && a.par_is_subset(&b) == a.is_subset(&b)
            && a.par_is_superset(&b) == a.is_superset(&b)
            && a.par_eq(&b) == (a.len() == b.len() && a.is_subset(&b))
    }

    fn map_iterators_and_sorts_match(pairs: Vec<(i16, u8)>) -> bool {
        let m: IndexMap<i16, u8> = pairs.par_iter().copied().collect();
        let seq: IndexMap<i16, u8> = pairs.iter().copied().collect();
        let (mut a, mut b) = (m.clone(), m.clone());
        a.par_sort_by(|_, v1, _, v2| v1.cmp(v2));
        b.sort_by(|_, v1, _, v2| v1.cmp(v2));
        m.iter().eq(seq.iter())
            && m.par_iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>()
                == m.iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>()
            && a.iter().eq(b.iter())
            && consistent(&a)
    }
}
