//! rayon-core 1.13.0's API over blitz-par's scheduler, for a program's `[patch.crates-io]`.
//!
//! Every item is blitz-par's own, re-exported at rayon-core's path: a `ThreadPool` made here is
//! the same type as `blitz_par::ThreadPool`, and the global pool is blitz-par's one pool. Only
//! rayon-core's names are here; blitz-par's additions (`spawn_future`, `parallel_for`, ...) are
//! reached through `blitz_par` itself. Methods that blitz-par adds to these types stay visible
//! on them, since the types are shared. rayon-core's deprecated items (`Configuration`,
//! `initialize`, `ThreadPool::new`) are left out: see compat/README.md and `check_api.py`.
//!
//! ```
//! let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let (a, b) = pool.install(|| rayon_core::join(|| 1, || 2));
//! assert_eq!(a + b, 3);
//! let same: &blitz_par::ThreadPool = &pool;
//! assert_eq!(same.current_num_threads(), 2);
//! ```
#![deny(missing_docs)]

pub use blitz_par::{
    broadcast, current_num_threads, current_thread_has_pending_tasks, current_thread_index,
    in_place_scope, in_place_scope_fifo, join, join_context, max_num_threads, scope, scope_fifo,
    spawn, spawn_broadcast, spawn_fifo, yield_local, yield_now, BroadcastContext, FnContext,
    Scope, ScopeFifo, ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};
