//! blitz-par: data-parallel iterators, parallel sorts and fork-join on a low-overhead
//! work-stealing scheduler.
//!
//! The crate follows rayon's API, so that replacing `use rayon::prelude::*` with
//! `use blitz_par::prelude::*` (and `rayon::join` with `blitz_par::join`) is all a rayon user
//! has to change. Where blitz-par deliberately differs, the item's documentation says so.
//!
//! ```
//! let (a, b) = blitz_par::join(|| 1 + 1, || 2 + 2);
//! assert_eq!((a, b), (2, 4));
//! ```
//!
//! # Layers
//!
//! The folders under `src/` are the layers of the design, each depending only on those below
//! it: `sync` (atomics, futex, padding, the clock; the one module loom replaces), `scheduler`
//! (deques, jobs, latches, sleep/wake, pools, `join`, `scope`; its protocols and their proofs
//! are in `src/scheduler/README.md`), `iter` (parallel iterators and their one splitting
//! driver), `slice` (slice iterators and sorts) and `algo` (`parallel_for`). Measurements are
//! in `PERF.md`.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub(crate) mod sync;

pub mod scheduler;

pub mod slice;

pub mod iter;

pub mod str;

mod algo;

mod compat;

mod integrations;
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

/// The liveness tests' watchdog, shared with the tests in `tests/`.
#[cfg(test)]
#[path = "../tests/common/watchdog.rs"]
mod watchdog;

pub use compat::{array, collections, option, range, range_inclusive, result, string, vec};

pub mod prelude;

pub use algo::{parallel_for, parallel_for_chunks};
pub use scheduler::{
    broadcast, current_thread_has_pending_tasks, current_thread_index, in_place_scope,
    in_place_scope_fifo, join_context, max_num_threads, scope, scope_fifo, spawn, spawn_broadcast,
    spawn_fifo, spawn_future, yield_local, yield_now, BroadcastContext, FnContext, Scope,
    ScopeFifo, SpawnFuture, ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder,
    Yield,
};
pub use scheduler::{current_num_threads, join};
pub use sync::SyncPtr;
