//! rayon's module paths name blitz-par's types, so that code written against rayon's paths
//! compiles.

use blitz_par::prelude::*;
use std::collections::{BinaryHeap, HashMap, VecDeque};

#[test]
fn rayon_module_paths_name_the_types() {
    let v = vec![1, 2, 3];
    let _: blitz_par::vec::IntoIter<i32> = v.clone().into_par_iter();
    let mut w = v.clone();
    let _: blitz_par::vec::Drain<'_, i32> = w.par_drain(..1);
    let _: blitz_par::range::Iter<i32> = (0..3).into_par_iter();
    let _: blitz_par::range_inclusive::Iter<i32> = (0..=3).into_par_iter();
    let _: blitz_par::array::IntoIter<i32, 2> = [1, 2].into_par_iter();
    let o = Some(1);
    let _: blitz_par::option::IntoIter<i32> = o.into_par_iter();
    let _: blitz_par::option::Iter<'_, i32> = o.par_iter();
    let r: Result<i32, ()> = Ok(1);
    let _: blitz_par::result::Iter<'_, i32> = r.par_iter();
    let m: HashMap<i32, i32> = HashMap::new();
    let _: blitz_par::collections::hash_map::Iter<'_, i32, i32> = m.par_iter();
    let _: blitz_par::collections::hash_map::IntoIter<i32, i32> = m.into_par_iter();
    let mut d: VecDeque<i32> = VecDeque::new();
    let _: blitz_par::collections::vec_deque::Drain<'_, i32> = d.par_drain(..);
    let mut h: BinaryHeap<i32> = BinaryHeap::new();
    let _: blitz_par::collections::binary_heap::Drain<'_, i32> = h.par_drain();
    let mut s = String::new();
    let _: blitz_par::string::Drain<'_> = s.par_drain(..);
    let _: blitz_par::iter::MultiZip<(blitz_par::range::Iter<i32>,)> = (0..1,).into_par_iter();
}

/// The shared iterators of the collections can be cloned, as rayon's can (rayon's own
/// `tests/clones.rs` clones `collections::vec_deque::Iter`).
#[test]
fn shared_collection_iterators_clone() {
    let mut d: VecDeque<u32> = (0..10).collect();
    d.rotate_left(3);
    let it: blitz_par::collections::vec_deque::Iter<'_, u32> = d.par_iter();
    let copy = it.clone();
    assert_eq!(it.sum::<u32>(), copy.sum::<u32>());
    let o = Some(4u32);
    let oi: blitz_par::option::Iter<'_, u32> = o.par_iter();
    assert_eq!(oi.clone().count(), oi.count());
    let r: Result<u32, ()> = Ok(4);
    let ri: blitz_par::result::Iter<'_, u32> = r.par_iter();
    assert_eq!(ri.clone().count(), ri.count());
}
