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
    in_place_scope, in_place_scope_fifo, join_context, max_num_threads, scope, scope_fifo, spawn,
    spawn_broadcast, spawn_fifo, yield_local, yield_now, BroadcastContext, FnContext, Scope,
    ScopeFifo, ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};

/// Runs `oper_a` and `oper_b`, potentially in parallel, and returns both results:
/// [`blitz_par::join()`].
///
/// A function of its own rather than a re-export: `blitz_par::join` also names blitz-par's
/// `join!` macro, which rayon-core does not have, and a `use` takes every namespace of a name.
///
/// ```
/// let (a, b) = rayon_core::join(|| 1 + 1, || "two");
/// assert_eq!((a, b), (2, "two"));
/// ```
///
/// rayon-core has no `join!` macro, and neither has this crate:
///
/// ```compile_fail
/// let (a, b) = rayon_core::join!(|| 1, || 2);
/// ```
#[inline]
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    blitz_par::join(oper_a, oper_b)
}
