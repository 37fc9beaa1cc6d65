//! Several crates' rayon support in one process under the patch: hashbrown, indexmap and
//! ndarray run their parallel work, nested in each other and in blitz-par's own, on the one
//! global pool, with the same results as sequential code. One test, so that the harness runs
//! no other test's threads beside it.

#[path = "threads.rs"]
mod threads;

use hashbrown::HashMap;
use indexmap::IndexMap;
use ndarray::{Array2, Axis, Zip};
use rayon::prelude::*;

const THREADS: usize = 3;

#[test]
fn hashbrown_indexmap_and_ndarray_share_one_pool() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .thread_name(|i| format!("together-{i}"))
        .build_global()
        .unwrap();

    // hashbrown: a parallel extend and a parallel sum.
    let mut map: HashMap<u64, u64> = HashMap::new();
    map.par_extend((0..100_000u64).into_par_iter().map(|k| (k, k * 3)));
    assert_eq!(map.len(), 100_000);
    let sum: u64 = map.par_iter().map(|(_, v)| *v).sum();
    assert_eq!(sum, 3 * (0..100_000u64).sum::<u64>());

    // indexmap: collect from hashbrown's parallel iterator, then a parallel sort by key.
    let mut index: IndexMap<u64, u64> = map.par_iter().map(|(k, v)| (*k, *v)).collect();
    index.par_sort_keys();
    assert!(index.keys().copied().eq(0..100_000u64));

    // ndarray: Zip::par_for_each and par_map_collect, each row's work nested in blitz-par's
    // own parallel iterator and in an indexmap parallel iteration.
    let n = 256;
    let a = Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f64);
    let mut b = Array2::<f64>::zeros((n, n));
    Zip::from(&mut b).and(&a).par_for_each(|b, &a| *b = 2.0 * a);
    let c = Zip::from(&a).and(&b).par_map_collect(|&a, &b| {
        assert_eq!(
            rayon::current_thread_index(),
            blitz_par::current_thread_index()
        );
        a + b
    });
    assert_eq!(c, &a * 3.0);
    let row_sums: Vec<f64> = blitz_par::iter::IntoParallelIterator::into_par_iter(0..n)
        .map(|i| {
            let mut row = a.index_axis(Axis(0), i).to_owned();
            row.par_map_inplace(|x| *x += 1.0);
            row.iter().sum::<f64>()
        })
        .collect();
    for (i, s) in row_sums.iter().enumerate() {
        let expected: f64 = (0..n).map(|j| (i * n + j) as f64 + 1.0).sum();
        assert_eq!(*s, expected);
    }
    let weighted: u64 = index
        .par_iter()
        .map(|(k, v)| {
            let mut m = HashMap::new();
            m.par_extend((0..(*k % 8)).into_par_iter().map(|x| (x, *v)));
            m.values().sum::<u64>()
        })
        .sum();
    assert_eq!(
        weighted,
        (0..100_000u64).map(|k| (k % 8) * k * 3).sum::<u64>()
    );

    threads::assert_one_pool("together-", THREADS);
}
