//! Dropping a `ThreadPool` that still has spawned work: as in rayon, the drop returns at once,
//! and the pool's threads run the pending jobs before they exit. Code built on rayon relies on
//! it: a directory walker spawns its walk on a short-lived pool, drops the pool, and then reads
//! the walk's results from a bounded channel; a drop that waited for the walk would wait for
//! the reader forever.

#[path = "common/watchdog.rs"]
mod watchdog;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Barrier, Mutex};

/// Walks a tree of 3-way nodes `depth` levels deep from `node`, one job per node, each
/// sending its node into a channel with room for one and spawning its children into the pool
/// it runs on (`blitz_par::spawn` from a job of a pool spawns into that pool).
fn walk(found: SyncSender<u64>, node: u64, depth: u32) {
    found.send(node).unwrap();
    if depth > 0 {
        for child in 0..3 {
            let found = found.clone();
            blitz_par::spawn(move || walk(found, node * 3 + child + 1, depth - 1));
        }
    }
}

#[test]
fn a_walker_reads_its_results_after_dropping_its_pool() {
    watchdog::within(watchdog::LIVENESS, "the walk's results read", || {
        let pool = blitz_par::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (found, results) = mpsc::sync_channel(1);
        pool.spawn(move || walk(found, 0, 5));
        // The walk cannot be done: its jobs wait for this thread to read the channel.
        drop(pool);
        let mut nodes: Vec<u64> = results.iter().collect();
        nodes.sort_unstable();
        // 1 + 3 + ... + 3^5 nodes, numbered 0.. in breadth-first order.
        assert_eq!(nodes, (0..364).collect::<Vec<u64>>());
    });
}

#[test]
fn a_drop_with_a_pending_spawn_returns_and_the_spawn_still_runs() {
    watchdog::within(
        watchdog::LIVENESS,
        "the spawned job ran after the drop",
        || {
            let (exited, exits) = mpsc::channel();
            let exited = Mutex::new(exited);
            let pool = blitz_par::ThreadPoolBuilder::new()
                .num_threads(2)
                .exit_handler(move |index| exited.lock().unwrap().send(index).unwrap())
                .build()
                .unwrap();
            // The job waits for the dropping thread, which meets it only after the drop.
            let after_drop = Arc::new(Barrier::new(2));
            let barrier = after_drop.clone();
            let (ran, done) = mpsc::channel();
            pool.spawn(move || {
                barrier.wait();
                ran.send(()).unwrap();
            });
            drop(pool);
            after_drop.wait();
            done.recv().unwrap();
            // The threads exit once the job is done, each after its exit handler; the handler's
            // sender goes with the pool's state, which ends the iteration.
            let mut indices: Vec<usize> = exits.iter().collect();
            indices.sort_unstable();
            assert_eq!(indices, [0, 1]);
        },
    );
}

#[test]
fn a_drop_with_pending_fifo_spawns_and_broadcasts_returns() {
    watchdog::within(
        watchdog::LIVENESS,
        "the pending jobs ran after the drop",
        || {
            let pool = blitz_par::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap();
            let (sent, received) = mpsc::sync_channel(0);
            let fifo = sent.clone();
            pool.spawn_fifo(move || fifo.send(usize::MAX).unwrap());
            let broadcast = Mutex::new(sent);
            pool.spawn_broadcast(move |ctx| broadcast.lock().unwrap().send(ctx.index()).unwrap());
            drop(pool);
            // A rendezvous channel: every job blocks until this thread reads its message.
            let mut messages: Vec<usize> = received.iter().collect();
            messages.sort_unstable();
            assert_eq!(messages, [0, 1, usize::MAX]);
        },
    );
}

#[test]
fn a_drop_without_pending_work_waits_for_the_exit_handlers() {
    // What rayon leaves to the background: with nothing left to run, the drop returns once
    // every worker has run its exit handler.
    let exits = Arc::new(AtomicUsize::new(0));
    let exited = exits.clone();
    let pool = blitz_par::ThreadPoolBuilder::new()
        .num_threads(3)
        .exit_handler(move |_| {
            exited.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let sum: u64 = pool.install(|| {
        use blitz_par::prelude::*;
        (0..10_000u64).into_par_iter().sum()
    });
    assert_eq!(sum, 49_995_000);
    drop(pool);
    assert_eq!(exits.load(Ordering::SeqCst), 3);
}
