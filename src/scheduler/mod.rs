//! The work-stealing scheduler: `join`, scopes, spawns and thread pools.
//!
//! PLACEHOLDER while the real scheduler is being written: `join` runs both closures on the
//! calling thread. The signatures below are the final ones.

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// ```
/// let (x, y) = blitz_par::join(|| 2 * 3, || "b");
/// assert_eq!((x, y), (6, "b"));
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    (a(), b())
}

/// The number of threads of the pool the caller runs in (the global pool outside any pool).
///
/// ```
/// assert!(blitz_par::current_num_threads() >= 1);
/// ```
pub fn current_num_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Makes sure the calling thread runs inside a scheduler context (a pool worker, or the calling
/// thread registered as a temporary participant of the global pool), then runs `f`. Cheap when
/// already inside one. Every parallel entry point of the iterator driver calls this first, so
/// that `split_wanted` has a context to answer for.
///
/// PLACEHOLDER: runs `f` directly.
#[inline]
pub(crate) fn enter<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Whether the splitting driver should split the work it holds now: true when an idle thread
/// asked for work or the heartbeat says sleeping workers should be woken. Cheap (one relaxed
/// load on the fast path); the iterator driver calls it between chunks of sequential work.
///
/// PLACEHOLDER: answers true every 8th call on a thread, so that split paths are exercised.
pub(crate) fn split_wanted() -> bool {
    use std::cell::Cell;
    thread_local!(static COUNT: Cell<u32> = const { Cell::new(0) });
    COUNT.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n % 8 == 0
    })
}
