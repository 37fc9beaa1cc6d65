//! hashbrown's `HashMap`, `HashSet` and `HashTable` in parallel (feature `hashbrown`),
//! against the real hashbrown: every parallel iterator, method and collect gives what the
//! sequential one gives.
#![cfg(feature = "hashbrown")]

use blitz_par::prelude::*;
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};
use quickcheck::quickcheck;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};

fn map(n: u64) -> HashMap<u64, u64> {
    (0..n).map(|k| (k, k * k % 1000)).collect()
}

#[test]
fn map_iterators_match_the_sequential_ones_in_order() {
    let mut m = map(100_000);
    let par: Vec<(&u64, &u64)> = m.par_iter().collect();
    assert_eq!(par, m.iter().collect::<Vec<_>>());
    assert_eq!(
        m.par_keys().collect::<Vec<_>>(),
        m.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        m.par_values().collect::<Vec<_>>(),
        m.values().collect::<Vec<_>>()
    );
    m.par_iter_mut().for_each(|(k, v)| *v += k);
    assert!(m.iter().all(|(k, v)| *v == k * k % 1000 + k));
    m.par_values_mut().for_each(|v| *v = 1);
    assert_eq!(m.par_values().sum::<u64>(), 100_000);
    let order: Vec<(u64, u64)> = m.iter().map(|(&k, &v)| (k, v)).collect();
    assert_eq!(m.clone().into_par_iter().collect::<Vec<_>>(), order);
    let capacity = m.capacity();
    let drained: Vec<(u64, u64)> = m.par_drain().collect();
    assert_eq!(drained, order);
    assert!(m.is_empty());
    assert_eq!(m.capacity(), capacity);
}

#[test]
fn collect_and_extend_match_the_sequential_ones() {
    // Repeated keys: the last value wins, as in a sequential collect.
    let pairs: Vec<(u32, u32)> = (0..50_000).map(|i| (i % 7_000, i)).collect();
    let par: HashMap<u32, u32> = pairs.par_iter().copied().collect();
    let seq: HashMap<u32, u32> = pairs.iter().copied().collect();
    assert_eq!(par, seq);

    let mut m: HashMap<u32, u32> = HashMap::new();
    m.par_extend(pairs.par_iter().map(|(k, v)| (k, v)));
    assert_eq!(m, seq);

    let set: HashSet<u32> = pairs.par_iter().map(|&(k, _)| k).collect();
    assert_eq!(set.len(), 7_000);
    let mut more: HashSet<u32> = (0..10).collect();
    let extra: Vec<u32> = (5..20_000).collect();
    more.par_extend(extra.par_iter());
    assert_eq!(more, (0..20_000).collect::<HashSet<_>>());
}

#[test]
fn map_par_eq() {
    let a = map(10_000);
    let mut pairs: Vec<(u64, u64)> = a.iter().map(|(&k, &v)| (k, v)).collect();
    pairs.reverse();
    let mut b: HashMap<u64, u64> = pairs.into_iter().collect();
    assert!(a.par_eq(&b));
    b.insert(3, 0);
    assert!(!a.par_eq(&b));
    b.remove(&3);
    assert!(!a.par_eq(&b));
}

#[test]
fn set_iterators() {
    let s: HashSet<u64> = (0..100_000).collect();
    assert_eq!(
        s.par_iter().collect::<Vec<_>>(),
        s.iter().collect::<Vec<_>>()
    );
    assert_eq!(s.clone().into_par_iter().sum::<u64>(), 99_999 * 100_000 / 2);
    let mut t = s.clone();
    assert_eq!(t.par_drain().count(), 100_000);
    assert!(t.is_empty());
}

#[test]
fn table_scans_buckets_in_parallel_and_matches_iter() {
    let hasher = DefaultHashBuilder::default();
    let mut table = HashTable::new();
    for x in 0..200_000u64 {
        table.insert_unique(hasher.hash_one(x), x, |v| hasher.hash_one(v));
    }
    // Bucket order, which is the order of `iter`.
    let par: Vec<u64> = table.par_iter().copied().collect();
    let seq: Vec<u64> = table.iter().copied().collect();
    assert_eq!(par.len(), 200_000);
    assert_eq!(par, seq);
    assert_eq!(table.par_iter().filter(|&&x| x % 2 == 0).count(), 100_000);
    // Every bucket is seen once, whichever thread scans it.
    let seen = AtomicUsize::new(0);
    table.par_iter().for_each(|_| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(seen.into_inner(), 200_000);

    table.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(table.par_iter().min(), Some(&1));
    assert_eq!(table.par_drain().count(), 200_000);
    assert!(table.is_empty());
    assert_eq!(table.par_iter().count(), 0);

    let mut small = HashTable::new();
    small.insert_unique(hasher.hash_one(5u64), 5u64, |v| hasher.hash_one(v));
    assert_eq!(small.into_par_iter().collect::<Vec<_>>(), [5]);
}

#[test]
fn items_are_dropped_once_when_iteration_stops_early() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    #[derive(PartialEq, Eq, Hash)]
    struct Counted(u32);
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::Relaxed);
        }
    }
    let s: HashSet<Counted> = (0..10_000).map(Counted).collect();
    let found = s.into_par_iter().find_any(|c| c.0 == 5_000);
    assert!(found.is_some());
    drop(found);
    assert_eq!(DROPS.load(Ordering::Relaxed), 10_000);
}

quickcheck! {
    fn set_operations_match_hashbrown(a: Vec<u16>, b: Vec<u16>) -> bool {
        let a: HashSet<u16> = a.into_iter().collect();
        let b: HashSet<u16> = b.into_iter().collect();
        let sorted = |mut v: Vec<u16>| { v.sort_unstable(); v };
        sorted(a.par_union(&b).copied().collect()) == sorted(a.union(&b).copied().collect())
            && sorted(a.par_intersection(&b).copied().collect())
                == sorted(a.intersection(&b).copied().collect())
            && sorted(a.par_difference(&b).copied().collect())
                == sorted(a.difference(&b).copied().collect())
            && sorted(a.par_symmetric_difference(&b).copied().collect())
                == sorted(a.symmetric_difference(&b).copied().collect())
            && a.par_is_disjoint(&b) == a.is_disjoint(&b)
            && a.par_is_subset(&b) == a.is_subset(&b)
            && a.par_is_superset(&b) == a.is_superset(&b)
            && a.par_eq(&b) == (a == b)
    }

    fn map_collect_and_sums_match(pairs: Vec<(u8, u32)>) -> bool {
        let par: HashMap<u8, u32> = pairs.par_iter().copied().collect();
        let seq: HashMap<u8, u32> = pairs.iter().copied().collect();
        par == seq
            && par.par_values().map(|&v| u64::from(v)).sum::<u64>()
                == seq.values().map(|&v| u64::from(v)).sum::<u64>()
            && par.par_iter().collect::<Vec<_>>() == par.iter().collect::<Vec<_>>()
    }

    fn table_par_iter_matches(v: Vec<u32>) -> bool {
        let hasher = DefaultHashBuilder::default();
        let mut table = HashTable::new();
        for x in v.iter().copied().collect::<HashSet<_>>() {
            table.insert_unique(hasher.hash_one(x), x, |v| hasher.hash_one(v));
        }
        let mut par: Vec<u32> = table.par_iter().copied().collect();
        let mut seq: Vec<u32> = table.iter().copied().collect();
        par.sort_unstable();
        seq.sort_unstable();
        par == seq
    }
}
