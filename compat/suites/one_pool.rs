//! One pool per process: a program that calls blitz-par directly and rayon (patched to the
//! compat crates) runs all its parallel work on blitz-par's pools. One test, so that the
//! harness runs no other test's threads beside it.

#[path = "threads.rs"]
mod threads;

use rayon::prelude::*;

const THREADS: usize = 3;

#[test]
fn rayon_and_blitz_par_share_one_pool() {
    // The global pool, configured through rayon's builder: blitz-par's global pool it is.
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .thread_name(|i| format!("one-pool-{i}"))
        .build_global()
        .unwrap();
    assert!(blitz_par::ThreadPoolBuilder::new().build_global().is_err());
    assert_eq!(rayon::current_num_threads(), THREADS);
    assert_eq!(rayon_core::current_num_threads(), THREADS);
    assert_eq!(blitz_par::current_num_threads(), THREADS);
    assert_eq!(rayon::max_num_threads(), blitz_par::max_num_threads());

    // Parallel work through both names, nested in each other.
    let n = 200_000u64;
    let through_rayon: u64 = (0..n).into_par_iter().map(|i| i % 7).sum();
    let through_blitz: u64 = blitz_par::iter::IntoParallelIterator::into_par_iter(0..n)
        .map(|i| i % 7)
        .sum::<u64>();
    assert_eq!(through_rayon, through_blitz);
    let nested: u64 = blitz_par::iter::IntoParallelIterator::into_par_iter(0..100u64)
        .map(|i| {
            // A configured global pool (this one names its threads) runs work started
            // outside it on its own threads, as rayon's does.
            let index = rayon::current_thread_index();
            assert!(index.is_some());
            assert_eq!(index, blitz_par::current_thread_index());
            (0..1_000u64).into_par_iter().map(|j| i * j).sum::<u64>()
        })
        .sum::<u64>();
    assert_eq!(nested, (0..100u64).map(|i| i * 499_500).sum::<u64>());

    // Thread indices agree, on the global pool's threads and in a pool built through rayon.
    let seen = rayon::broadcast(|ctx| {
        (
            ctx.index(),
            rayon::current_thread_index(),
            blitz_par::current_thread_index(),
            rayon::current_num_threads(),
        )
    });
    for (i, (index, through_rayon, through_blitz, threads)) in seen.into_iter().enumerate() {
        assert_eq!((index, through_rayon, through_blitz), (i, Some(i), Some(i)));
        assert_eq!(threads, THREADS);
    }
    let pool: blitz_par::ThreadPool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("one-pool-x{i}"))
        .build()
        .unwrap();
    pool.install(|| {
        let index = blitz_par::current_thread_index();
        assert!(index.is_some());
        assert_eq!(rayon::current_thread_index(), index);
        assert_eq!(pool.current_thread_index(), index);
        assert_eq!(rayon::current_num_threads(), 2);
        assert_eq!(blitz_par::current_num_threads(), 2);
        let (a, b) = rayon::join(both_indices, both_indices);
        assert_eq!(a.0, a.1);
        assert_eq!(b.0, b.1);
        let (a, b) = blitz_par::join(both_indices, both_indices);
        assert_eq!(a.0, a.1);
        assert_eq!(b.0, b.1);
    });
    // A scope opened through one name spawns into the pool the other name sees.
    let (tx, rx) = std::sync::mpsc::channel();
    rayon::scope(|s| {
        for _ in 0..8 {
            let tx = tx.clone();
            s.spawn(move |_| tx.send(both_indices()).unwrap());
        }
    });
    drop(tx);
    for (through_rayon, through_blitz) in rx {
        assert_eq!(through_rayon, through_blitz);
    }
    // With no work left, the drop joins the second pool's threads.
    drop(pool);

    // Both names ran parallel work: the process has the global pool's threads and no other.
    threads::assert_one_pool("one-pool-", THREADS);
}

/// The calling thread's index in its pool, through rayon and through blitz-par.
fn both_indices() -> (Option<usize>, Option<usize>) {
    (
        rayon::current_thread_index(),
        blitz_par::current_thread_index(),
    )
}
