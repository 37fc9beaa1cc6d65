//! The scheduler functions that rayon has (pool queries, yields, broadcasts, build errors,
//! deprecated builder options), against rayon where it defines the result.

use blitz_par::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[path = "common/watchdog.rs"]
mod watchdog;

#[test]
#[allow(deprecated)]
fn builder_breadth_first_is_accepted() {
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .breadth_first()
        .build()
        .unwrap();
    assert_eq!(pool.install(|| (0..100).into_par_iter().sum::<i32>()), 4950);
}

#[test]
fn scheduler_additions() {
    assert!(blitz_par::max_num_threads() >= 1024);
    assert_eq!(blitz_par::current_thread_has_pending_tasks(), None);
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    assert_eq!(pool.yield_now(), None);
    assert_eq!(pool.yield_local(), None);
    assert_eq!(
        pool.install(|| pool.yield_local()),
        Some(blitz_par::Yield::Idle)
    );
    assert!(pool
        .install(|| pool.current_thread_has_pending_tasks())
        .is_some());
    // A pool's own functions are `None` on another pool's threads.
    let other = blitz_par::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(other.install(|| pool.yield_now()), None);
    assert_eq!(
        other.install(|| pool.current_thread_has_pending_tasks()),
        None
    );

    // spawn_broadcast: once per thread, each with its own index, without waiting.
    for _ in 0..20 {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        pool.spawn_broadcast(move |ctx| {
            assert_eq!(ctx.num_threads(), 3);
            assert_eq!(blitz_par::current_thread_index(), Some(ctx.index()));
            tx.lock().unwrap().send(ctx.index()).unwrap();
        });
        let mut seen: Vec<usize> = rx.iter().collect();
        seen.sort();
        assert_eq!(seen, [0, 1, 2]);
    }
    // From inside the pool too, and through the free function.
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    pool.install(move || {
        blitz_par::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap())
    });
    let mut seen: Vec<usize> = rx.iter().collect();
    seen.sort();
    assert_eq!(seen, [0, 1, 2]);

    // Scope::spawn_broadcast and ScopeFifo::spawn_broadcast borrow from the stack.
    for _ in 0..20 {
        let hits = [
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        ];
        pool.scope(|s| {
            s.spawn_broadcast(|s2, ctx| {
                hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
                s2.spawn(|_| {
                    hits[0].fetch_add(0, Ordering::Relaxed);
                });
            });
        });
        pool.scope_fifo(|s| {
            s.spawn_broadcast(|_, ctx| {
                hits[ctx.index()].fetch_add(1, Ordering::Relaxed);
            })
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 2));
    }
    // From a thread outside every pool: the global pool's threads.
    let n = blitz_par::current_num_threads();
    let calls = AtomicUsize::new(0);
    blitz_par::scope(|s| {
        s.spawn_broadcast(|_, _| {
            calls.fetch_add(1, Ordering::Relaxed);
        })
    });
    assert_eq!(calls.into_inner(), n);

    let mut v = vec![0; 4];
    pool.in_place_scope(|s| {
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn(move |_| *x = i);
        }
    });
    assert_eq!(v, [0, 1, 2, 3]);
    pool.in_place_scope_fifo(|s| {
        for x in v.iter_mut() {
            s.spawn_fifo(move |_| *x += 1);
        }
    });
    assert_eq!(v, [1, 2, 3, 4]);
}

#[test]
fn spawn_broadcast_panics_go_to_the_handler() {
    let (panicked, panics) = std::sync::mpsc::channel();
    let panicked = Mutex::new(panicked);
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |_| panicked.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    pool.spawn_broadcast(|ctx| {
        if ctx.index() == 1 {
            panic!("boom");
        }
    });
    // The drop does not wait for the broadcast; its jobs still run before the threads exit,
    // and the handler's sender goes with the pool's state, which ends the count.
    drop(pool);
    let count = watchdog::within(watchdog::LIVENESS, "the pool's state freed", move || {
        panics.iter().count()
    });
    assert_eq!(count, 1);
}

#[test]
fn build_errors_read_as_rayons() {
    let ours = {
        let _ = blitz_par::ThreadPoolBuilder::new().build_global();
        blitz_par::ThreadPoolBuilder::new()
            .build_global()
            .unwrap_err()
    };
    let theirs = {
        let _ = rayon::ThreadPoolBuilder::new().build_global();
        rayon::ThreadPoolBuilder::new().build_global().unwrap_err()
    };
    assert_eq!(ours.to_string(), theirs.to_string());
    assert!(std::error::Error::source(&ours).is_none());
}
