//! The hook the scheduler, the drivers and the sorts call: [`trace_event!`].
//!
//! Without the `trace` feature the macro expands to nothing (its arguments are not even
//! evaluated), so the code around a hook compiles to the same machine code as without it.
//! With the feature, it is one relaxed-cost load (an acquire load, a plain `mov` on x86-64)
//! of the session word and a branch when nothing is recording.

/// Records one event: `trace_event!(Kind)` or `trace_event!(Kind, a)` or
/// `trace_event!(Kind, a, b)`, with `Kind` a variant of `crate::trace::Kind` and `a`, `b`
/// converted with `as u64`.
#[cfg(feature = "trace")]
macro_rules! trace_event {
    // A pool is built: the process-wide recording (`BLITZ_TRACE`) starts if asked for.
    (@pool_built) => {
        $crate::trace::env::init()
    };
    // A pool's worker starts (in its seat): its track shows in every trace.
    (@worker_started) => {
        $crate::trace::ring::worker_started()
    };
    // A pool is dropped: the process-wide recording is written.
    (@pool_dropped) => {
        $crate::trace::env::write_now()
    };
    // An event at a clock reading the caller took anyway (the unindexed driver's leaves).
    (@at $ticks:expr, $kind:ident) => {
        $crate::trace::emit_at($crate::trace::Kind::$kind, $ticks, 0)
    };
    (@at $ticks:expr, $kind:ident, $a:expr) => {
        $crate::trace::emit_at($crate::trace::Kind::$kind, $ticks, ($a) as u64)
    };
    // An event that follows the thread's last one with nothing in between but the caller's
    // own bookkeeping (`$follows`): at that event's reading, without one of its own (the
    // indexed driver's leaves after the first of a loop: at the previous leaf's end).
    (@after $follows:expr, $kind:ident) => {
        $crate::trace::emit_after($crate::trace::Kind::$kind, $follows)
    };
    ($kind:ident) => {
        $crate::trace::emit($crate::trace::Kind::$kind, 0, 0)
    };
    ($kind:ident, $a:expr) => {
        $crate::trace::emit($crate::trace::Kind::$kind, ($a) as u64, 0)
    };
    ($kind:ident, $a:expr, $b:expr) => {
        $crate::trace::emit($crate::trace::Kind::$kind, ($a) as u64, ($b) as u64)
    };
}

/// Records one event (see the `trace` feature's build); nothing without the feature.
#[cfg(not(feature = "trace"))]
macro_rules! trace_event {
    ($($anything:tt)*) => {};
}
