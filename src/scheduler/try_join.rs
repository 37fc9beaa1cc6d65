//! `try_join` and `try_join!`: closures that return `Result` or `Option`, joined as `join!`
//! joins them, and stopped early once one of them fails.
//!
//! The closures run under a [`CancelNode`] of their own, hung from the token of the work
//! that calls (`future_slot.rs`, "Cancelling running work"): the thread that runs them
//! carries the node's token, and so does every join frame promoted meanwhile and every scope
//! made inside. A closure that fails (an error, `None`, or a panic) stores its failure, cancels
//! the node and raises every seat's split request (`Registry::interrupt`), as dropping a
//! `spawn_future` does: the other closures' joins and parallel loops unwind at their next
//! split check with the private `Cancelled` payload, which the closure's wrapper
//! ([`TryScope::run`]) catches. A closure not started yet is skipped. The caller then returns
//! the stored failure.
//!
//! Frames recorded before the call, not yet promoted, are promoted on entry: a frame takes
//! the token the thread carries when it is promoted, and an outer frame must not take ours.

use super::future_slot::{CancelNode, Cancelled};
use super::registry::Owner;
use std::any::Any;
use std::convert::Infallible;
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};

mod sealed {
    pub trait Sealed {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<T> Sealed for Option<T> {}
}

/// What the closures of [`try_join`](fn@try_join) and [`try_join!`](crate::try_join!) may return:
/// `Result<T, E>` (a failure is an `Err`) and `Option<T>` (a failure is `None`). Sealed.
///
/// ```
/// let r: Option<(u8, &str)> = blitz_par::try_join(|| Some(1), || Some("one"));
/// assert_eq!(r, Some((1, "one")));
/// ```
pub trait TryJoinResult: sealed::Sealed {
    /// The value of a success.
    type Output;
    /// What a failure carries (`Result<Infallible, E>`, `Option<Infallible>`), as in std's
    /// `Try`: closures of one call must agree on it.
    type Residual;
    /// The same kind of value, holding `O` on success: what the join returns.
    type Joined<O>;
    /// Splits into success (`Continue`) and failure (`Break`).
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
    /// A success of the join.
    fn joined<O>(output: O) -> Self::Joined<O>;
    /// A failure of the join.
    fn failed<O>(residual: Self::Residual) -> Self::Joined<O>;
}

impl<T, E> TryJoinResult for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;
    type Joined<O> = Result<O, E>;
    #[inline]
    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(t) => ControlFlow::Continue(t),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }
    #[inline]
    fn joined<O>(output: O) -> Result<O, E> {
        Ok(output)
    }
    #[inline]
    fn failed<O>(residual: Result<Infallible, E>) -> Result<O, E> {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }
}

impl<T> TryJoinResult for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    type Joined<O> = Option<O>;
    #[inline]
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(t) => ControlFlow::Continue(t),
            None => ControlFlow::Break(None),
        }
    }
    #[inline]
    fn joined<O>(output: O) -> Option<O> {
        Some(output)
    }
    #[inline]
    fn failed<O>(_: Option<Infallible>) -> Option<O> {
        None
    }
}

/// Runs `a` and `b`, potentially in parallel, as [`join`](fn@crate::join) does, and returns
/// both successes, or the first failure; once one fails, the other stops early.
///
/// The closures return `Result<T, E>` (with the same `E`) or `Option<T>`:
/// `Result<(TA, TB), E>` or `Option<(TA, TB)>` comes back.
///
/// - **The first failure** is the leftmost of the failures that happened: `a`'s error if both
///   failed. Which failures happen depends on timing (a closure that has not started when the
///   other fails is skipped), so with several failing closures either may be returned.
/// - **Stopping early.** When one closure fails, the other stops at its next split check: its
///   next `join` returns without running either closure, and its parallel loops stop between
///   chunks, unwinding to `try_join`, which drops what they made (each loop's items already
///   started run to their end). Sequential code between two checks is not interrupted: it
///   runs to the next check. A closure that has not started is skipped.
/// - **Panics**, as in `join`: each closure runs to its end, panics, or stops early, and then
///   a panic propagates (the leftmost closure's that panicked), ahead of any error. A panic
///   stops the other closure as an error does.
/// - Nested inside a `try_join`'s closure, or inside a [`spawn_future`](crate::spawn_future)
///   task, a `try_join` stops too when the outer one is cancelled (the outer failure wins).
///   The stop reaches the work of the same pool only: work a closure sends to another pool
///   with `install` runs to its end.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use blitz_par::prelude::*;
///
/// let checked = AtomicUsize::new(0);
/// let r: Result<(u64, ()), String> = blitz_par::try_join(
///     || Ok((1..=100u64).sum()),
///     || {
///         (0..1_000_000u32).into_par_iter().try_for_each(|i| {
///             checked.fetch_add(1, Ordering::Relaxed);
///             if i == 10 { Err(format!("bad item {i}")) } else { Ok(()) }
///         })
///     },
/// );
/// assert_eq!(r, Err("bad item 10".to_string()));
///
/// let ok: Result<(u8, u16), String> = blitz_par::try_join(|| Ok(1), || Ok(2));
/// assert_eq!(ok, Ok((1, 2)));
/// ```
pub fn try_join<A, B, RA, RB>(a: A, b: B) -> RA::Joined<(RA::Output, RB::Output)>
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: TryJoinResult,
    RB: TryJoinResult<Residual = RA::Residual>,
    RA::Output: Send,
    RB::Output: Send,
    RA::Residual: Send,
{
    __try_join_scope(PhantomData::<RA>, move |s| {
        let (ra, rb) = super::join(move || s.run(0, a), move || s.run(1, b));
        Some((ra?, rb?))
    })
}

/// Runs any number of closures that return `Result` or `Option`, potentially in parallel, as
/// [`join!`](crate::join!) does, and returns `Ok((..))` (or `Some((..))`) with every
/// success, in the order written, or the first failure; once one fails, the others stop
/// early.
///
/// The rules are [`try_join`](fn@try_join)'s: the first failure is the leftmost of those that happened;
/// the others stop at their next split check (what a closure already started, between its
/// checks, runs to its end; a closure not started is skipped); a panic propagates (the
/// leftmost), ahead of errors, once every closure has ended or stopped. Takes one to sixteen
/// closures, with or without a trailing comma; they must agree on the error type (or all
/// return `Option`).
///
/// ```
/// fn parse(s: &str) -> Result<u32, std::num::ParseIntError> {
///     s.parse()
/// }
/// let ok = blitz_par::try_join!(|| parse("1"), || parse("22"), || parse("333"));
/// assert_eq!(ok, Ok((1, 22, 333)));
/// let err = blitz_par::try_join!(|| parse("1"), || parse("x"), || parse("y"));
/// assert!(err.is_err());
///
/// let some = blitz_par::try_join!(|| Some('a'), || "b".chars().next(), || Some(3));
/// assert_eq!(some, Some(('a', 'b', 3)));
/// ```
#[macro_export]
macro_rules! try_join {
    () => {
        ::core::compile_error!("`try_join!` takes one to sixteen closures")
    };
    ($($f:expr),+ $(,)?) => {
        $crate::__try_join_bind!(
            [$($f,)+]
            []
            [(__blitz_r0 0) (__blitz_r1 1) (__blitz_r2 2) (__blitz_r3 3) (__blitz_r4 4)
             (__blitz_r5 5) (__blitz_r6 6) (__blitz_r7 7) (__blitz_r8 8) (__blitz_r9 9)
             (__blitz_r10 10) (__blitz_r11 11) (__blitz_r12 12) (__blitz_r13 13)
             (__blitz_r14 14) (__blitz_r15 15)]
        )
    };
}

/// `try_join!`'s first step: names each closure and its result, then builds `join!`'s tree
/// of wrapped closures. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __try_join_bind {
    ([] [($r0:ident $i0:tt $f0:expr) $(($r:ident $i:tt $f:expr))*] [$($unused:tt)*]) => {{
        let $r0 = $f0;
        $(let $r = $f;)*
        let __blitz_kind = $crate::__try_join_kind(&$r0);
        $crate::__try_join_scope(__blitz_kind, move |__blitz_scope| {
            let $crate::__join_tree!(
                [{ ($r0) (()) } $({ ($r) (()) })*] []
            ) = $crate::__join_tree!(
                @expr
                [{ ($r0) (__blitz_scope.run($i0, $r0)) } $({ ($r) (__blitz_scope.run($i, $r)) })*]
                []
            );
            ::core::option::Option::Some(($r0?, $($r?,)*))
        })
    }};
    ([$f:expr, $($rest:expr,)*] [$($done:tt)*] [($r:ident $i:tt) $($names:tt)*]) => {
        $crate::__try_join_bind!([$($rest,)*] [$($done)* ($r $i $f)] [$($names)*])
    };
    ([$($rest:expr,)+] [$($done:tt)*] []) => {
        ::core::compile_error!("`try_join!` takes one to sixteen closures")
    };
}

/// Names the kind of result (`Result<_, E>` or `Option<_>`) that the first closure of a
/// `try_join!` returns, for [`__try_join_scope`]. Not public API.
#[doc(hidden)]
#[inline(always)]
pub fn __try_join_kind<F, R>(_: &F) -> PhantomData<R>
where
    F: FnOnce() -> R,
    R: TryJoinResult,
{
    PhantomData
}

/// The failures of a `try_join`: the leftmost error and the leftmost panic that happened,
/// each with its closure's index.
struct Failures<Res> {
    error: Option<(usize, Res)>,
    panic: Option<(usize, Box<dyn Any + Send>)>,
}

/// The shared state of one `try_join`: its cancellation and its failures. Not public API:
/// only `try_join!`'s expansion names it.
#[doc(hidden)]
pub struct TryScope<Res> {
    node: CancelNode,
    failures: Mutex<Failures<Res>>,
}

impl<Res> TryScope<Res> {
    /// Runs the closure of index `index` unless the join has failed already: its success, or
    /// `None` after storing its failure (an error or a panic) and cancelling the others, or
    /// when it was skipped or stopped because another failed.
    #[inline]
    pub fn run<F, R>(&self, index: usize, f: F) -> Option<R::Output>
    where
        F: FnOnce() -> R,
        R: TryJoinResult<Residual = Res>,
    {
        if self.node.is_cancelled_here() {
            // Another closure failed first: this one never starts.
            drop(f);
            return None;
        }
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => match r.branch() {
                ControlFlow::Continue(output) => Some(output),
                ControlFlow::Break(residual) => {
                    self.fail(index, Ok(residual));
                    None
                }
            },
            Err(payload) => {
                if payload.is::<Cancelled>() {
                    if self.node.is_cancelled_here() {
                        // Stopped by our own cancel: the failure that caused it is stored.
                        return None;
                    }
                    // The work around the join was cancelled: unwind on to its root.
                    resume_unwind(payload)
                }
                self.fail(index, Err(payload));
                None
            }
        }
    }

    /// Stores a failure (the leftmost error and the leftmost panic win), then cancels the
    /// other closures. The failures that lose are dropped outside the lock.
    #[cold]
    #[inline(never)]
    fn fail(&self, index: usize, failure: Result<Res, Box<dyn Any + Send>>) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let (lost_error, lost_panic) = match failure {
            Ok(residual) => {
                let slot = &mut failures.error;
                let new = Some((index, residual));
                if slot.as_ref().is_none_or(|&(i, _)| index < i) {
                    (std::mem::replace(slot, new), None)
                } else {
                    (new, None)
                }
            }
            Err(payload) => {
                let slot = &mut failures.panic;
                let new = Some((index, payload));
                if slot.as_ref().is_none_or(|&(i, _)| index < i) {
                    (None, std::mem::replace(slot, new))
                } else {
                    (None, new)
                }
            }
        };
        drop(failures);
        // The node's bit first, the requests after: a thread that takes the slow path for
        // one of these requests reads the bit after it was set (on this thread, program
        // order; on another, a stale read costs one more chunk, as for `spawn_future`).
        self.node.cancel();
        Owner::with_current(|owner| {
            if let Some(owner) = owner {
                owner.registry().interrupt();
            }
        });
        // A failure that lost is dropped; if its drop panics, that panic is dropped too.
        let _ = catch_unwind(AssertUnwindSafe(move || drop((lost_error, lost_panic))));
    }

    /// The failure to return (or to resume, if a closure panicked), once every closure has
    /// ended: called only after [`fail`](Self::fail) ran.
    fn into_failure(self) -> Res {
        let failures = self
            .failures
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, payload)) = failures.panic {
            drop(failures.error);
            resume_unwind(payload);
        }
        match failures.error {
            Some((_, residual)) => residual,
            None => panic!("blitz-par internal error: a try_join was cancelled without a failure"),
        }
    }
}

/// Runs `body`, the tree of a `try_join`'s wrapped closures, under a new [`TryScope`], and
/// returns its successes (`body`'s `Some`) or the failure (a panic resumes). `R` is the kind
/// of result the closures return. Not public API: `try_join!`'s expansion calls it.
#[doc(hidden)]
#[inline]
pub fn __try_join_scope<R, O, F>(_kind: PhantomData<R>, body: F) -> R::Joined<O>
where
    R: TryJoinResult,
    R::Residual: Send,
    O: Send,
    F: FnOnce(&TryScope<R::Residual>) -> Option<O> + Send,
{
    match super::enter(move || Owner::with_current(move |owner| scope_in(owner, body))) {
        Ok(output) => R::joined(output),
        Err(residual) => R::failed(residual),
    }
}

/// [`__try_join_scope`] on the calling thread, which has a seat (`enter`).
fn scope_in<Res, O, F>(owner: Option<Owner<'_>>, body: F) -> Result<O, Res>
where
    F: FnOnce(&TryScope<Res>) -> Option<O>,
{
    let owner = owner.expect("`enter` gives the thread a seat");
    // An outer frame promoted while our token is the thread's would carry it:
    // `with_cancel_token` below promotes them first, under the token they belong to (usually
    // none are left unpromoted).
    let scope = TryScope {
        node: CancelNode::new(owner.cancel_token()),
        failures: Mutex::new(Failures {
            error: None,
            panic: None,
        }),
    };
    let token = scope.node.token();
    // SAFETY: the node lives in this frame until after `with_cancel_token` returns, and
    // everything that carries its token (frames promoted, scopes made inside `body`) is
    // done by then: `body`'s joins and scopes return only after all their jobs ended.
    let ran = unsafe {
        owner.with_cancel_token(token, || catch_unwind(AssertUnwindSafe(|| body(&scope))))
    };
    match ran {
        // Every closure succeeded (any failure makes its wrapper return `None`).
        Ok(Some(output)) => Ok(output),
        Ok(None) => Err(scope.into_failure()),
        Err(payload) if payload.is::<Cancelled>() && scope.node.is_cancelled_here() => {
            Err(scope.into_failure())
        }
        // The work around the join was cancelled: unwind on to its root.
        Err(payload) => resume_unwind(payload),
    }
}
