//! Panics part-way through `collect`, `par_drain` and by-value iteration: the caller gets the
//! panic, every item is dropped exactly once, nothing leaks, and the next job runs normally.
//! Small sizes under Miri (`cargo +nightly miri test --test iter_drop`).

use blitz_par::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const N: usize = if cfg!(miri) { 40 } else { 2_000 };

/// Serialises the tests: the drop counters are global.
static LOCK: Mutex<()> = Mutex::new(());
static CREATED: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicUsize = AtomicUsize::new(0);

/// An item that counts its creations and drops, and checks it is dropped once.
#[derive(Debug)]
struct Counted {
    value: usize,
    alive: bool,
}

impl Counted {
    fn new(value: usize) -> Self {
        CREATED.fetch_add(1, Ordering::SeqCst);
        Counted { value, alive: true }
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted::new(self.value)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        assert!(self.alive, "item {} dropped twice", self.value);
        self.alive = false;
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Runs `f` with fresh counters and checks that everything created was dropped once.
fn balanced(f: impl FnOnce()) {
    let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    CREATED.store(0, Ordering::SeqCst);
    DROPPED.store(0, Ordering::SeqCst);
    f();
    assert_eq!(
        CREATED.load(Ordering::SeqCst),
        DROPPED.load(Ordering::SeqCst),
        "leaked or over-dropped items"
    );
    // The pool still serves work.
    assert_eq!((0..100u32).into_par_iter().sum::<u32>(), 4950);
}

fn panics_at<T>(f: impl FnOnce() -> T) -> bool {
    catch_unwind(AssertUnwindSafe(f)).is_err()
}

#[test]
fn collect_drops_produced_items_on_panic() {
    for at in [0, 1, N / 3, N - 1] {
        balanced(|| {
            let panicked = panics_at(|| {
                (0..N)
                    .into_par_iter()
                    .map(|i| {
                        assert!(i != at, "injected panic");
                        Counted::new(i)
                    })
                    .collect::<Vec<_>>()
            });
            assert!(panicked);
        });
    }
}

#[test]
fn collect_into_vec_keeps_target_valid_on_panic() {
    balanced(|| {
        let mut target: Vec<Counted> = (0..5).map(Counted::new).collect();
        let panicked = panics_at(|| {
            (0..N)
                .into_par_iter()
                .map(|i| {
                    assert!(i != N / 2, "injected panic");
                    Counted::new(i)
                })
                .collect_into_vec(&mut target)
        });
        assert!(panicked);
        drop(target);
    });
}

#[test]
fn unindexed_collect_drops_on_panic() {
    balanced(|| {
        let panicked = panics_at(|| {
            (0..N)
                .into_par_iter()
                .filter(|i| i % 2 == 0)
                .map(|i| {
                    assert!(i != N / 2, "injected panic");
                    Counted::new(i)
                })
                .collect::<Vec<_>>()
        });
        assert!(panicked);
    });
}

/// A filtered collect long enough that its loops split on pools of 2, 3 and 8 threads: the
/// items equal the sequential ones, in order, and a panic late in the items, or in the
/// middle, drops each item once.
#[test]
fn filtered_collect_across_pools_keeps_order_and_drops_once() {
    // Under Miri one pool of 2 and one panic (87 s of Miri's clock for all of them).
    let (n, pools): (usize, &[usize]) = if cfg!(miri) {
        (300, &[2])
    } else {
        (200_000, &[1, 2, 3, 8])
    };
    let kept = |i: usize| i % 7 < 3;
    for &threads in pools {
        let pool = blitz_par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        balanced(|| {
            let v: Vec<Counted> = pool.install(|| {
                (0..n)
                    .into_par_iter()
                    .filter(|&i| kept(i))
                    .map(Counted::new)
                    .collect()
            });
            assert!(v.iter().map(|c| c.value).eq((0..n).filter(|&i| kept(i))));
        });
        // Items that the filter keeps (multiples of 7).
        let late = n - 7 - (n - 7) % 7;
        let ats = if cfg!(miri) {
            vec![late]
        } else {
            vec![n / 2 - n / 2 % 7, late]
        };
        for at in ats {
            balanced(|| {
                let panicked = panics_at(|| {
                    pool.install(|| {
                        (0..n)
                            .into_par_iter()
                            .filter(|&i| kept(i))
                            .map(|i| {
                                assert!(i != at, "injected panic");
                                Counted::new(i)
                            })
                            .collect::<Vec<_>>()
                    })
                });
                assert!(panicked, "{threads} threads, panic at {at}");
            });
        }
    }
}

#[test]
fn unzip_and_partition_drop_produced_items_on_panic() {
    for at in [0, N / 3, N - 1] {
        balanced(|| {
            // Indexed: both sides write straight into their vectors.
            let panicked = panics_at(|| {
                (0..N)
                    .into_par_iter()
                    .map(|i| {
                        assert!(i != at, "injected panic");
                        (Counted::new(i), Counted::new(i))
                    })
                    .unzip::<_, _, Vec<_>, Vec<_>>()
            });
            assert!(panicked);
            // Unindexed sides: lists of vectors on each side.
            let panicked = panics_at(|| {
                (0..N)
                    .into_par_iter()
                    .map(|i| {
                        assert!(i != at, "injected panic");
                        Counted::new(i)
                    })
                    .partition::<Vec<_>, Vec<_>, _>(|c| c.value % 3 == 0)
            });
            assert!(panicked);
            // A panic in the predicate, with items already placed on both sides.
            let panicked = panics_at(|| {
                (0..N)
                    .into_par_iter()
                    .map(Counted::new)
                    .partition::<Vec<_>, Vec<_>, _>(|c| {
                        assert!(c.value != at, "injected panic");
                        c.value % 2 == 0
                    })
            });
            assert!(panicked);
        });
    }
}

#[test]
fn unzip_and_partition_keep_every_item() {
    balanced(|| {
        let (a, b): (Vec<Counted>, Vec<Counted>) = (0..N)
            .into_par_iter()
            .map(|i| (Counted::new(i), Counted::new(N + i)))
            .unzip();
        assert!(a.iter().enumerate().all(|(i, c)| c.value == i));
        assert!(b.iter().enumerate().all(|(i, c)| c.value == N + i));
        let (even, odd): (Vec<Counted>, Vec<Counted>) =
            a.into_par_iter().partition(|c| c.value % 2 == 0);
        assert_eq!(even.len() + odd.len(), N);
        assert!(even.iter().all(|c| c.value % 2 == 0) && odd.iter().all(|c| c.value % 2 == 1));
    });
}

#[test]
fn collect_without_panic_keeps_every_item() {
    balanced(|| {
        let v: Vec<Counted> = (0..N).into_par_iter().map(Counted::new).collect();
        assert!(v.iter().enumerate().all(|(i, c)| c.value == i));
        let mut w = Vec::new();
        v.par_iter().cloned().collect_into_vec(&mut w);
        assert_eq!(w.len(), N);
    });
}

#[test]
fn vec_into_par_iter_drops_unconsumed_items_on_panic() {
    balanced(|| {
        let v: Vec<Counted> = (0..N).map(Counted::new).collect();
        let panicked = panics_at(|| {
            v.into_par_iter()
                .for_each(|c| assert!(c.value != N / 2, "injected panic"));
        });
        assert!(panicked);
    });
}

#[test]
fn vec_into_par_iter_partial_consumption() {
    balanced(|| {
        let v: Vec<Counted> = (0..N).map(Counted::new).collect();
        let first = v.into_par_iter().find_first(|c| c.value == 3);
        assert_eq!(first.map(|c| c.value), Some(3));
        let v: Vec<Counted> = (0..N).map(Counted::new).collect();
        let taken: Vec<Counted> = v.into_par_iter().skip(2).take(3).rev().collect();
        assert_eq!(taken.iter().map(|c| c.value).collect::<Vec<_>>(), [4, 3, 2]);
        let arr = [Counted::new(1), Counted::new(2), Counted::new(3)];
        assert_eq!(arr.into_par_iter().map(|c| c.value).sum::<usize>(), 6);
    });
}

#[test]
fn drain_panic_keeps_vec_consistent() {
    for (lo, hi) in [(0, N), (1, N / 2), (N / 2, N), (3, 3)] {
        balanced(|| {
            let mut v: Vec<Counted> = (0..N).map(Counted::new).collect();
            let panicked = panics_at(|| {
                v.par_drain(lo..hi)
                    .for_each(|c| assert!(c.value != (lo + hi) / 2, "injected panic"));
            });
            assert_eq!(panicked, lo < hi);
            let expected: Vec<usize> = (0..lo).chain(hi..N).collect();
            assert_eq!(v.iter().map(|c| c.value).collect::<Vec<_>>(), expected);
        });
    }
}

#[test]
fn drain_unused_and_partial() {
    balanced(|| {
        let mut v: Vec<Counted> = (0..N).map(Counted::new).collect();
        drop(v.par_drain(2..N - 2));
        assert_eq!(v.len(), 4);
        let mut v: Vec<Counted> = (0..N).map(Counted::new).collect();
        let found = v.par_drain(1..).find_any(|c| c.value == 5).map(|c| c.value);
        assert_eq!(found, Some(5));
        assert_eq!(v.len(), 1);
        let mut v: Vec<Counted> = (0..N).map(Counted::new).collect();
        let got: Vec<Counted> = v.par_drain(..).collect();
        assert_eq!((got.len(), v.len()), (N, 0));
    });
}

#[test]
fn sync_ptr_parallel_writes() {
    let n = if cfg!(miri) { 64 } else { 10_000 };
    let mut out = vec![0u64; n];
    let ptr = blitz_par::SyncPtr::new(&mut out);
    blitz_par::parallel_for_chunks(0..n, |r| {
        // SAFETY: the chunks are disjoint sub-ranges of `0..n`, and `out` outlives the loop.
        let part = unsafe { ptr.slice_mut(r.clone()) };
        for (slot, i) in part.iter_mut().zip(r) {
            *slot = i as u64 * 3;
        }
    });
    assert!(out.iter().enumerate().all(|(i, &x)| x == i as u64 * 3));
}

#[test]
fn zero_sized_items() {
    let v = vec![(); N];
    assert_eq!(v.par_iter().count(), N);
    let w: Vec<()> = v.into_par_iter().collect();
    assert_eq!(w.len(), N);
    let mut z = vec![(); N];
    assert_eq!(z.par_drain(1..N - 1).count(), N - 2);
    assert_eq!(z.len(), 2);
}

#[test]
fn string_extend_keeps_the_target_on_panic() {
    let text = "ab\u{e9}c".repeat(N / 4);
    let chars: Vec<char> = text.chars().collect();
    for at in [0, 1, chars.len() / 2, chars.len() - 1] {
        // The closure panics at the one 'X', put at char `at`.
        let mut marked = chars.clone();
        marked[at] = 'X';
        let marked: String = marked.into_iter().collect();
        let mut target = String::from("kept");
        let panicked = panics_at(|| {
            target.par_extend(marked.par_chars().map(|c| {
                assert!(c != 'X', "injected panic");
                c
            }))
        });
        assert!(panicked);
        assert_eq!(target, "kept");
    }
    let mut target = String::from("kept");
    target.par_extend(text.par_chars());
    assert_eq!(target, format!("kept{text}"));
}

/// Waits until `done` holds, yielding, for at most a minute (Miri is slow); returns whether
/// it held.
fn wait_for(done: impl Fn() -> bool) -> bool {
    let guard = std::time::Instant::now();
    while !done() {
        if guard.elapsed() > std::time::Duration::from_secs(60) {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

/// A short loop's first item that runs long has the rest of the loop handed to the pool
/// (the watch, `scheduler/watch.rs`): item 0 here waits until the other seven have run (or
/// as many as a panic lets run), in an indexed loop and through `par_bridge` (an unindexed
/// drive, watched at its first split). Without a panic every item comes back (in order, for the indexed loop); with a
/// panic in item 0 (after the rest ran elsewhere) or in an item of the rest, the caller
/// gets it and every item is dropped once. Called from outside every pool, so the caller
/// waits for the rest on a blocking latch.
#[test]
fn watched_loops_hand_out_the_rest_and_drop_every_item_once() {
    if blitz_par::current_num_threads() < 2 {
        // The rest goes only to a worker whose core the caller does not hold.
        return;
    }
    for bridge in [false, true] {
        for panic_at in [None, Some(0), Some(5)] {
            balanced(|| {
                let rest_started = AtomicUsize::new(0);
                let rescued = std::sync::atomic::AtomicBool::new(true);
                // A leaf of `par_bridge` takes items from the shared iterator one after
                // another, and a panic ends it: there item 0 waits for items 1 to 5.
                let others = match (bridge, panic_at) {
                    (true, Some(5)) => 5,
                    _ => 7,
                };
                let item = |i: usize| {
                    if i == 0 {
                        let all = wait_for(|| rest_started.load(Ordering::SeqCst) >= others);
                        rescued.store(all, Ordering::SeqCst);
                    } else {
                        rest_started.fetch_add(1, Ordering::SeqCst);
                    }
                    assert!(panic_at != Some(i), "injected panic");
                    Counted::new(i)
                };
                let run = || match bridge {
                    false => (0..8usize).into_par_iter().map(item).collect::<Vec<_>>(),
                    true => {
                        let mut v = (0..8usize).par_bridge().map(item).collect::<Vec<_>>();
                        v.sort_by_key(|c| c.value);
                        v
                    }
                };
                match panic_at {
                    None => {
                        let v = run();
                        assert_eq!(v.len(), 8);
                        assert!(v.iter().enumerate().all(|(i, c)| c.value == i));
                    }
                    Some(_) => assert!(panics_at(run)),
                }
                assert!(
                    rescued.load(Ordering::SeqCst),
                    "the rest did not run while item 0 did (par_bridge: {bridge})"
                );
            });
        }
    }
}
