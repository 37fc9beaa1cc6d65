//! Data-parallel iterators, parallel sorts and fork-join for Rust, on a work-stealing
//! scheduler built for low overhead.
//!
//! blitz-par has rayon's API: `use blitz_par::prelude::*` in place of `use rayon::prelude::*`,
//! and `blitz_par::join`, `blitz_par::scope`, `blitz_par::ThreadPoolBuilder`, ... in place of
//! rayon's. Under that API, tiny inputs cost about what a sequential loop costs, idle threads
//! sleep instead of spinning, and the sorts pick a radix, merge or run-merging algorithm by
//! type and input.
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let v: Vec<u64> = (0..1_000_000).collect();
//! let sum: u64 = v.par_iter().sum();
//! let odd_squares: Vec<u64> = v.par_iter().filter(|&&x| x % 2 == 1).map(|&x| x * x).collect();
//!
//! let mut w: Vec<u64> = (0..1_000_000).rev().collect();
//! w.par_sort_unstable();
//!
//! let (a, b) = blitz_par::join(|| w[0], || odd_squares.len());
//! assert_eq!((sum, a, b), (499_999_500_000, 0, 500_000));
//! ```
//!
//! # A tour
//!
//! ## Parallel iterators
//!
//! The [`prelude`] brings the traits that give collections their parallel iterators:
//! [`par_iter`](iter::IntoParallelRefIterator::par_iter) and
//! [`par_iter_mut`](iter::IntoParallelRefMutIterator::par_iter_mut) on slices, `Vec` and
//! std's collections, [`into_par_iter`](iter::IntoParallelIterator::into_par_iter) on those
//! and on integer ranges, [`par_chars`](str::ParallelString::par_chars),
//! [`par_lines`](str::ParallelString::par_lines) and the other string splits,
//! [`par_chunks`](slice::ParallelSlice::par_chunks) and the other slice views, and
//! [`par_bridge`](iter::ParallelBridge::par_bridge) for any `Iterator + Send`. Adapters and
//! consumers are those of [`ParallelIterator`](iter::ParallelIterator) and
//! [`IndexedParallelIterator`](iter::IndexedParallelIterator): `map`, `filter`, `flat_map`,
//! `zip`, `enumerate`, `fold`, `reduce`, `sum`, `min_by_key`, `find_first`, `collect` into
//! `Vec`, `String`, the std maps and sets, `Result` and `Option`, and the rest.
//!
//! No grain size to tune: one driver splits every iterator, peeling chunks off the front while
//! they are cheap and splitting the rest only when another thread asks for work.
//! `with_min_len` and `with_max_len` remain for code that sets them.
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::collections::HashMap;
//!
//! let text = "the quick brown fox jumps over the lazy dog the end";
//! let counts: HashMap<&str, usize> = text
//!     .par_split_whitespace()
//!     .fold(HashMap::new, |mut m, w| { *m.entry(w).or_insert(0) += 1; m })
//!     .reduce(HashMap::new, |mut a, b| { for (w, n) in b { *a.entry(w).or_insert(0) += n; } a });
//! assert_eq!(counts["the"], 3);
//! ```
//!
//! ## Sorts
//!
//! [`ParallelSliceMut`](slice::ParallelSliceMut) sorts slices in parallel:
//! [`par_sort`](slice::ParallelSliceMut::par_sort) (stable),
//! [`par_sort_unstable`](slice::ParallelSliceMut::par_sort_unstable), and their `_by`,
//! `_by_key` and `_by_cached_key` forms. Primitive keys and byte strings (`String`, `&str`,
//! `Vec<u8>`, also as the key of `par_sort_by_key`, and `f64::total_cmp`) are radix sorted;
//! inputs made of a few ordered runs are merged; everything else gets a parallel merge sort or
//! quicksort. Radix sorts of primitive keys run in place; merge sorts and keyed sorts use a
//! scratch buffer as large as the slice, released soon after (see
//! [`ParallelSliceMut`](slice::ParallelSliceMut) for memory and panics).
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let mut names = vec!["delta".to_string(), "alpha".into(), "charlie".into(), "bravo".into()];
//! names.par_sort_unstable();
//! let mut readings = vec![2.5f64, -1.0, 0.0, 7.25];
//! readings.par_sort_by(f64::total_cmp);
//! assert_eq!((names[0].as_str(), readings[0]), ("alpha", -1.0));
//! ```
//!
//! ## Fork-join: `join` and `scope`
//!
//! [`join`](fn@join) runs two closures, potentially in parallel; one that no idle thread takes costs a
//! few nanoseconds, so it fits every level of a fine-grained recursion. [`scope`] spawns any
//! number of jobs that may borrow from the caller's stack and waits for all of them;
//! [`spawn`] starts a `'static` job and returns at once; [`broadcast`] runs a closure on every
//! thread of the pool. Panics propagate to the caller once every job that borrows its stack has
//! finished, and the pool keeps working.
//!
//! ```
//! fn sum(v: &[u64]) -> u64 {
//!     if v.len() <= 1024 {
//!         return v.iter().sum();
//!     }
//!     let (left, right) = v.split_at(v.len() / 2);
//!     let (a, b) = blitz_par::join(|| sum(left), || sum(right));
//!     a + b
//! }
//! let v: Vec<u64> = (1..=100_000).collect();
//! assert_eq!(sum(&v), 5_000_050_000);
//! ```
//!
//! [`join!`] joins any number of closures the same way (a tree of `join`s, every closure
//! after the first stealable), and [`try_join!`] (or [`try_join`](fn@try_join) for two) joins closures that
//! return `Result` or `Option`: it returns every success, or the leftmost failure, and once one
//! closure fails, the joins and parallel loops of the others stop at their next split check.
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let v: Vec<u32> = (0..100_000).collect();
//! let (sum, max, len) = blitz_par::join!(
//!     || v.par_iter().map(|&x| x as u64).sum::<u64>(),
//!     || v.par_iter().max(),
//!     || v.len(),
//! );
//! assert_eq!((sum, max, len), (4_999_950_000, Some(&99_999), 100_000));
//!
//! // The first closure fails at once; the loop of the second stops early.
//! let r: Result<(u32, ()), String> = blitz_par::try_join!(
//!     || Err("no config".to_string()),
//!     || v.par_iter().try_for_each(|_| Ok(())),
//! );
//! assert_eq!(r, Err("no config".to_string()));
//! ```
//!
//! [`join_all`] runs a list of closures of one type (a `Vec` of them, or of boxed closures) and
//! returns their results in order, for about two thirds of what the same list as a parallel iterator
//! (`fs.into_par_iter().map(|f| f()).collect::<Vec<_>>()`) costs on four closures.
//!
//! ## Thread pools
//!
//! Parallel work runs on the global pool, one thread per core unless `BLITZ_NUM_THREADS` (or,
//! when that is unset, `RAYON_NUM_THREADS`) says otherwise; a value that is not a positive
//! integer is reported once on stderr and ignored. [`ThreadPoolBuilder`] builds other pools:
//! thread count, names, stack size, start, exit and panic handlers, a custom spawn handler,
//! scoped threads, and the building thread as a worker. [`ThreadPool::install`] runs a closure
//! and all the parallel work inside it on that pool.
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let total: u64 = pool.install(|| (1..=1000u64).into_par_iter().sum());
//! assert_eq!(total, 500_500);
//! ```
//!
//! ## Beyond rayon
//!
//! - [`spawn_future`] (and [`ThreadPool::spawn_future`]) runs a closure on the pool and returns
//!   a [`SpawnFuture`] for async code to await: the executor's thread is not blocked, dropping
//!   the future cancels the work, and a panic re-raises at the `.await`.
//! - Prefix scans: [`inclusive_scan`](iter::IndexedParallelIterator::inclusive_scan) and
//!   [`exclusive_scan`](iter::IndexedParallelIterator::exclusive_scan) on indexed iterators,
//!   [`par_inclusive_scan`](slice::ParallelSliceMut::par_inclusive_scan) and
//!   [`par_exclusive_scan`](slice::ParallelSliceMut::par_exclusive_scan) in place (sizes in,
//!   offsets and the total out), for any associative operation, the same bits on any number
//!   of threads.
//! - Reproducible reductions: after [`deterministic`](iter::ParallelIterator::deterministic),
//!   sums, products, reduces, folds and min/max follow a tree fixed by the input's length, so
//!   floats give the same bits on any number of threads; a pool built with
//!   [`ThreadPoolBuilder::deterministic`], or `BLITZ_DETERMINISTIC=1` for the global pool,
//!   does it for all its work.
//! - [`exact_sum`](iter::ParallelIterator::exact_sum) adds `f64` or `f32` items correctly
//!   rounded, as Python's `math.fsum`: the same bits for any order, grouping or thread count.
//!   Its accumulator, [`ExactSum`](iter::ExactSum), can be kept, merged and shipped.
//! - [`parallel_for`] and [`parallel_for_chunks`] loop over an index range (`0..n`) in
//!   parallel, without building an iterator pipeline.
//! - [`SyncPtr`] is a pointer into a slice that parallel closures share to write disjoint
//!   indices: compute where every item goes, then write them all in parallel.
//! - The `blitz-par-mpi` crate of the same repository runs blitz-par in every MPI rank and adds
//!   distributed reductions, scans and a sample sort.
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let mut offsets = vec![3usize, 0, 5, 2];
//! let total = offsets.par_exclusive_scan(0, |a, b| a + b);
//! assert_eq!((offsets, total), (vec![0, 3, 3, 8], 10));
//!
//! let v: Vec<f64> = (1..=100_000).map(|i| 1.0 / i as f64).collect();
//! let a: f64 = v.par_iter().deterministic().sum();
//! let one = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
//! assert_eq!(a.to_bits(), one.install(|| v.par_iter().deterministic().sum::<f64>()).to_bits());
//! ```
//!
//! ```
//! let mut squares = vec![0u64; 1000];
//! let out = blitz_par::SyncPtr::new(&mut squares);
//! // SAFETY: each index is written by one call only, and `squares` outlives the loop.
//! blitz_par::parallel_for(0..1000, |i| unsafe { out.write(i, (i * i) as u64) });
//! assert_eq!(squares[999], 998_001);
//! ```
//!
//! ## Algorithms beyond rayon
//!
//! Everyday data work under the names std and itertools users already know:
//!
//! - Slices: [`par_is_sorted`](slice::ParallelSlice::par_is_sorted) (`_by`, `_by_key`) with
//!   an early exit, and [`par_select_nth_unstable`](slice::ParallelSliceMut::par_select_nth_unstable)
//!   (`_by`, `_by_key`), std's selection (the median, the k-th smallest) with a parallel
//!   partition.
//! - `Vec`: [`par_dedup`](slice::ParallelVec::par_dedup) (`_by`, `_by_key`), std's `dedup`
//!   in parallel blocks.
//! - Parallel iterators: [`counts`](iter::ParallelIterator::counts) and
//!   [`counts_by`](iter::ParallelIterator::counts_by) into a `HashMap`,
//!   [`histogram`](iter::ParallelIterator::histogram) (counts by a bucket index), and
//!   [`minmax`](iter::ParallelIterator::minmax) (`_by`, `_by_key`) returning itertools'
//!   [`MinMaxResult`](iter::MinMaxResult) shape with its ties (the first smallest, the last
//!   largest).
//! - Grouping, as itertools: [`into_group_map`](iter::ParallelIterator::into_group_map)
//!   (`_by`) into a `HashMap` of `Vec`s in input order, and
//!   [`into_grouping_map`](iter::ParallelIterator::into_grouping_map) (`_by`), a
//!   [`GroupingMap`](iter::GroupingMap) that folds every group (`fold`, `aggregate`, `reduce`,
//!   `collect`, `sum`, `product`, `min*`, `max*`, `minmax*`); [`unique`](iter::ParallelIterator::unique)
//!   (`_by`) keeps the first of each item in input order. They deal the items into hash
//!   shards, build every shard's table on its own thread, and move the shards into one
//!   `HashMap`.
//! - With the `rand` feature, [`par_shuffle`](slice::ParallelSliceMut::par_shuffle): a
//!   uniform permutation from a seed drawn from a `rand` RNG, the same on any number of
//!   threads.
//!
//! ```
//! use blitz_par::prelude::*;
//! let words = ["apple", "bob", "avocado", "cat", "banana", "apple"];
//! let by_letter = words.par_iter().copied().into_group_map_by(|w| w.as_bytes()[0]);
//! assert_eq!(by_letter[&b'a'], ["apple", "avocado", "apple"]);
//! let total_len = words.par_iter().into_grouping_map_by(|w| w.len() > 3).fold(0, |n, _, w| n + w.len());
//! assert_eq!(total_len[&false], 6);
//! let distinct: Vec<_> = words.par_iter().unique().collect();
//! assert_eq!(distinct, [&"apple", &"bob", &"avocado", &"cat", &"banana"]);
//! ```
//!
//! ```
//! use blitz_par::iter::MinMaxResult;
//! use blitz_par::prelude::*;
//!
//! let mut v: Vec<u32> = (0..200_000).map(|i| i * 7919 % 100_003).collect();
//! assert!(!v.par_is_sorted());
//! let median = *v.par_select_nth_unstable(100_000).1;
//! assert_eq!(v.par_iter().minmax(), MinMaxResult::MinMax(&0, &100_002));
//! let counts = v.par_iter().counts_by(|&x| x < median);
//! assert_eq!(counts[&true], 100_000);
//! v.par_sort_unstable();
//! v.par_dedup();
//! assert_eq!(v.len(), 100_003);
//! ```
//!
//! ## Seeing where the time goes
//!
//! With the `trace` feature, `blitz_par::trace::record(|| work)` returns `work`'s result and
//! a `Trace` of every thread's leaves, jobs, steals, sleeps and wakes: `summary()` prints each
//! thread's busy, idle and asleep time with a one-line verdict ("one item took 80% of the
//! time: split it", "leaves of 40 ns: the work is too fine"), `write_chrome_json` writes a
//! timeline for Perfetto's UI or `chrome://tracing`, and `write_svg` a picture of it.
//! `BLITZ_TRACE=path.json` records a whole program without code. `examples/trace.rs`
//! records three programs.
//!
//! ```
//! # #[cfg(feature = "trace")] {
//! use blitz_par::prelude::*;
//!
//! let v: Vec<u64> = (0..100_000).collect();
//! let (sum, trace) = blitz_par::trace::record(|| v.par_iter().sum::<u64>());
//! assert_eq!(sum, 4_999_950_000);
//! println!("{}", trace.summary());
//! trace.write_chrome_json(std::env::temp_dir().join("blitz-par-sum.json")).unwrap();
//! # }
//! ```
//!
//! # Cargo features
//!
//! All off by default. Each gives the crate of its name the parallel support that crate's own
//! `rayon` feature gives rayon users, under the same names, with the traits in the [`prelude`].
//!
//! | feature | adds |
//! |---|---|
//! | `indicatif` | `progress()`, `progress_count(n)`, `progress_with(bar)` and `progress_with_style(style)` on every parallel iterator: indicatif's progress bars (module `indicatif`) |
//! | `hashbrown` | parallel iterators, `collect`, `par_extend`, `par_drain` and the parallel methods of hashbrown's `HashMap`, `HashSet` and `HashTable` (module `hashbrown`) |
//! | `indexmap` | indexed, order-keeping parallel iterators, `collect`, `par_extend`, `par_drain`, the parallel methods and the parallel sorts of indexmap's `IndexMap` and `IndexSet` (module `indexmap`) |
//! | `trace` | recording where parallel time goes: [`trace::record`](trace/fn.record.html) and `BLITZ_TRACE=path.json`, written as Chrome trace-event JSON (Perfetto), an SVG timeline and a summary with a verdict (module `trace`; without the feature no tracing code is compiled in) |
//!
//! # Differences from rayon
//!
//! Code written for rayon compiles and behaves the same, but for these, each explained in the
//! item's documentation:
//!
//! - Called from a thread outside every pool, [`join`](fn@join), [`scope`] and parallel iterators run on
//!   that thread, which takes part in the global pool for the duration of the call, instead of
//!   being sent to a pool thread while the caller blocks. So tiny parallel calls cost about what
//!   sequential code costs, and [`current_thread_index`] is `None` there. This holds only for a
//!   global pool that nobody configured: given a stack size, thread names, start, exit or spawn
//!   handlers, or one thread (by the builder or the environment), it keeps all such work on its
//!   threads as rayon does, and [`ThreadPoolBuilder::pool_threads_only`] chooses either way for
//!   any pool.
//! - The global pool, started by the first parallel call that needs it, comes up with the
//!   threads the system lets it start, down to none (the callers then run the work), and says
//!   so once on stderr; rayon panics. [`ThreadPoolBuilder::build`] returns the error, as
//!   rayon's does.
//! - In [`join`](fn@join), the first closure must not wait for the second (on a channel, a lock or a
//!   barrier): the second closure becomes stealable only when the first one calls back into the
//!   scheduler. Closures that wait for each other belong in a [`scope`].
//! - Dropping a [`ThreadPool`] returns at once while spawned jobs are still to run, as in
//!   rayon (they run before its threads exit); with none left, it waits for its threads to
//!   leave, their exit handlers included (rayon lets them wind down in the background).
//! - The merge and keyed sorts allocate a scratch buffer as large as the slice (rayon's
//!   unstable sort allocates none); a comparator that is not a total
//!   order may make them panic, as std's sorts do.
//! - `spawn_fifo` from inside a pool goes to the pool's queue, not the worker's own.
//!
//! Not provided: rayon-core's deprecated `Configuration`, `ThreadPool::new` and `initialize`
//! (use [`ThreadPoolBuilder`]).
//!
//! Besides the pools' threads, the crate starts these, each only when first needed
//! (`tests/docs_stay_true.rs` holds this list to the code):
//!
//! - `blitz-par-start`, on Linux, at most one per process: when a short loop is watched (its
//!   rest handed to the pool if its first items run long) before the global pool has
//!   started, it starts that pool while the first items run, and exits. The watches
//!   themselves are patrolled by workers while they sleep: no thread of its own.
//! - `blitz-par-watch`, on other systems (where a worker's sleep has no timeout), one per
//!   process, the first time a short loop runs: it hands the rest of such a loop to the pool
//!   when its first items run long, and sleeps while no loop needs it.
//! - `blitz-par-scratch`, one per process, the first time a sort gives back a large scratch
//!   buffer: it unmaps the buffer kept for the next sort once no sort has used it for a
//!   quarter of a second.
//! - `blitz-par-future`, one per call of [`spawn_future`] while the global pool has no thread
//!   of its own to run it (one thread, taken by `use_current_thread`): it runs that closure
//!   and exits.
//! - `blitz-par-stall`, in debug builds only, one per process, with the first pool: it reports
//!   on stderr a join whose first closure seems to wait for its second ([`join`](fn@join)).
//!
//! # Design
//!
//! The modules under `src/` are the layers of the design. Each imports only what its row
//! names (besides itself and `prelude`, which only re-exports); `tests/docs_stay_true.rs`
//! checks the code's `crate::` paths against this table:
//!
//! | layer | holds | imports | and only in the files named |
//! |---|---|---|---|
//! | `tuning` | every threshold of the scheduler and the splitting driver | nothing | |
//! | `sync` | atomics, futex, padding, the clock; the one module loom replaces | `tuning` | |
//! | `trace` | the `trace` feature: per-thread event rings, recording, the JSON and SVG timelines and the summary; its hook compiles to nothing without the feature | `sync` | |
//! | `scheduler` | deques, jobs, latches, sleep/wake, pools, `join`, `scope`; its protocols and their proofs are in `src/scheduler/README.md` | `sync`, `trace`, `tuning` | |
//! | `iter` | parallel iterators and their one splitting driver | `scheduler`, `sync`, `trace`, `tuning` | `slice` and `str` in `vec.rs`, `collections.rs` and `drain.rs`: the sources over `Vec`, `VecDeque` and `String` are slice and string iterators |
//! | `slice` | slice iterators and sorts | `iter`, `scheduler`, `sync`, `trace` | |
//! | `str` | string iterators | `iter` | |
//! | `algo` | `parallel_for` | `iter` | |
//! | `integrations` | the optional features' adapters (hashbrown, indexmap, indicatif) | `iter`, `slice` | |
//! | `compat` | rayon's names for blitz-par's types | `iter` | |
//! | `compile_fail` | doctests of code that must not build | nothing | |
//!
//! So `iter` and `slice` import each other: slices implement the iterator traits, and three
//! of `iter`'s sources hand out slice iterators. Measurements, and the commands that reproduce
//! them, are in `PERF.md`.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

// The tracing hook, `trace_event!`, for every module below (nothing without the feature).
#[macro_use]
#[path = "trace/hook.rs"]
mod trace_hook;

pub(crate) mod sync;

pub(crate) mod tuning;

mod scheduler;

pub mod slice;

pub mod iter;

pub mod str;

mod algo;

mod compat;

mod integrations;

#[cfg(feature = "trace")]
#[cfg_attr(docsrs, doc(cfg(feature = "trace")))]
pub mod trace;
#[cfg(feature = "hashbrown")]
#[cfg_attr(docsrs, doc(cfg(feature = "hashbrown")))]
pub use integrations::hashbrown;
#[cfg(feature = "indexmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "indexmap")))]
pub use integrations::indexmap;
#[cfg(feature = "indicatif")]
#[cfg_attr(docsrs, doc(cfg(feature = "indicatif")))]
pub use integrations::indicatif;

/// Code that must not build (doctests marked `compile_fail`, each beside a twin that builds).
#[cfg(doctest)]
mod compile_fail;

/// The liveness tests' watchdog, shared with the tests in `tests/`: compiled into the unit
/// tests' binary only (`cfg(test)`), never into the library a dependent builds.
#[cfg(test)]
#[path = "../tests/common/watchdog.rs"]
mod watchdog;

pub use compat::{array, collections, option, range, range_inclusive, result, string, vec};

pub mod prelude;

pub use algo::{parallel_for, parallel_for_chunks};
#[doc(hidden)]
pub use scheduler::{__join_call, __try_join_kind, __try_join_scope, TryScope};
pub use scheduler::{
    broadcast, current_thread_has_pending_tasks, current_thread_index, in_place_scope,
    in_place_scope_fifo, join_context, max_num_threads, scope, scope_fifo, spawn, spawn_broadcast,
    spawn_fifo, spawn_future, yield_local, yield_now, BroadcastContext, FnContext, Scope,
    ScopeFifo, SpawnFuture, ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder,
    Yield,
};
pub use scheduler::{current_num_threads, join};
pub use scheduler::{join_all, try_join, TryJoinResult};
pub use sync::SyncPtr;
