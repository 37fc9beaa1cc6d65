//! The parallel drains (`par_drain` of every collection that has one) against std's `drain`:
//! whole collections, ranges, out-of-bounds ranges and ranges inside a `char`.

use blitz_par::prelude::*;
use quickcheck::quickcheck;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

#[test]
fn drain_full_collections() {
    let mut m: HashMap<u32, String> = (0..1000).map(|x| (x, x.to_string())).collect();
    let expect = m.clone();
    let got: HashMap<u32, String> = m.par_drain().collect();
    assert_eq!(got, expect);
    assert!(m.is_empty());
    let mut s: HashSet<u32> = (0..1000).collect();
    assert_eq!(s.par_drain().sum::<u32>(), (0..1000).sum());
    assert!(s.is_empty());
    let mut h: BinaryHeap<u32> = (0..1000).collect();
    let mut got: Vec<u32> = h.par_drain().collect();
    got.sort();
    assert_eq!(got, (0..1000).collect::<Vec<_>>());
    assert!(h.is_empty());
    assert!(
        h.capacity() >= 1000,
        "the heap keeps its capacity, as rayon's does"
    );
    let mut e: HashSet<u32> = HashSet::new();
    assert_eq!(e.par_drain().count(), 0);
    // Dropped without running: still emptied, items dropped once.
    let counter = Arc::new(());
    let mut s: HashSet<u32> = (0..10).collect();
    let mut hs: HashMap<u32, Arc<()>> = (0..10).map(|x| (x, counter.clone())).collect();
    drop(s.par_drain());
    drop(hs.par_drain());
    assert!(s.is_empty() && hs.is_empty());
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn drain_vec_deque_ranges() {
    for (lo, hi) in [(0, 0), (0, 1), (3, 7), (0, 1000), (999, 1000), (500, 500)] {
        let mut d: VecDeque<u32> = (0..1000).collect();
        d.rotate_left(300); // make it wrap around
        let mut sd = d.clone();
        let got: Vec<u32> = d.par_drain(lo..hi).collect();
        let want: Vec<u32> = sd.drain(lo..hi).collect();
        assert_eq!(got, want);
        assert_eq!(d, sd);
    }
    let mut d: VecDeque<u32> = (0..10).collect();
    let got: Vec<u32> = d.par_drain(..=2).collect();
    assert_eq!(got, [0, 1, 2]);
    let got: Vec<u32> = d.par_drain(5..).collect();
    assert_eq!(got, [8, 9]);
    assert_eq!(d, [3, 4, 5, 6, 7]);
}

#[test]
#[should_panic(expected = "range end")]
fn drain_vec_deque_out_of_bounds() {
    let mut d: VecDeque<u32> = (0..10).collect();
    let _ = d.par_drain(5..11);
}

#[test]
fn drain_string_ranges() {
    let text = "héllo, wörld — ünïcode ✓ ".repeat(200);
    let n = text.len();
    let bounds: Vec<usize> = (0..=n).filter(|&i| text.is_char_boundary(i)).collect();
    for (lo, hi) in [(0, 0), (0, n), (bounds[3], bounds[40]), (bounds[100], n)] {
        let mut s = text.clone();
        let mut ss = text.clone();
        let got: String = s.par_drain(lo..hi).collect();
        let want: String = ss.drain(lo..hi).collect();
        assert_eq!(got, want);
        assert_eq!(s, ss);
    }
    // Not run: the range still leaves the string.
    let mut s = String::from("abcdef");
    drop(s.par_drain(1..3));
    assert_eq!(s, "adef");
}

#[test]
#[should_panic(expected = "char boundaries")]
fn drain_string_inside_a_char_panics() {
    let mut s = String::from("é");
    let _ = s.par_drain(1..);
}

quickcheck! {
    fn prop_drain_deque(v: Vec<i32>, a: usize, b: usize, rot: usize) -> bool {
        let mut d: VecDeque<i32> = v.iter().copied().collect();
        if !d.is_empty() {
            d.rotate_left(rot % d.len());
        }
        let len = d.len();
        let (lo, hi) = {
            let (x, y) = (a % (len + 1), b % (len + 1));
            (x.min(y), x.max(y))
        };
        let mut sd = d.clone();
        let got: Vec<i32> = d.par_drain(lo..hi).collect();
        got == sd.drain(lo..hi).collect::<Vec<_>>() && d == sd
    }
}
