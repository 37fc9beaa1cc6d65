//! The fallible family: `try_fold`, `try_fold_with`, `try_reduce`, `try_reduce_with`,
//! `try_for_each(_with/_init)`, over [`Try`] types (`Option`, `Result`, `ControlFlow`).
//! A break (`None`, `Err`, `ControlFlow::Break`) stops the other parts early; which break is
//! returned when several happen is unspecified, as in rayon.

use super::plumbing::*;
use super::*;
use std::convert::Infallible;
use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// The types the `try_` methods accept: std's unstable `Try`, reduced to what they need.
/// Implemented for `Option<T>`, `Result<T, E>` and `ControlFlow<B, C>`, and sealed (as rayon's
/// is): no other type can implement it.
///
/// ```
/// use blitz_par::prelude::*;
/// let r: Result<(), String> = (0..10u32).into_par_iter().try_for_each(|x| if x < 20 { Ok(()) } else { Err(x.to_string()) });
/// assert!(r.is_ok());
/// ```
pub trait Try: sealed::Sealed {
    /// The value of a success.
    type Output;
    /// What a failure carries.
    type Residual;
    /// A success.
    fn from_output(output: Self::Output) -> Self;
    /// A failure.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Splits into success (`Continue`) and failure (`Break`).
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

/// Keeps [`Try`] to `Option`, `Result` and `ControlFlow`.
mod sealed {
    use std::ops::ControlFlow;
    /// Implemented exactly where `Try` is.
    pub trait Sealed {}
    impl<T> Sealed for Option<T> {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<B, C> Sealed for ControlFlow<B, C> {}
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(t) => ControlFlow::Continue(t),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(t) => ControlFlow::Continue(t),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;
    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }
    fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
        match residual {
            ControlFlow::Break(b) => ControlFlow::Break(b),
            ControlFlow::Continue(never) => match never {},
        }
    }
    fn branch(self) -> ControlFlow<ControlFlow<B, Infallible>, C> {
        match self {
            ControlFlow::Continue(c) => ControlFlow::Continue(c),
            ControlFlow::Break(b) => ControlFlow::Break(ControlFlow::Break(b)),
        }
    }
}

fn finish<R: Try>(flow: ControlFlow<R::Residual, R::Output>) -> R {
    match flow {
        ControlFlow::Continue(t) => R::from_output(t),
        ControlFlow::Break(r) => R::from_residual(r),
    }
}

pub(super) fn try_reduce<I, T, R, ID, OP>(par_iter: I, identity: &ID, op: &OP) -> R
where
    I: ParallelIterator<Item = R>,
    R: Try<Output = T> + Send,
    R::Residual: Send,
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    let stop = AtomicBool::new(false);
    let flow = par_iter.drive_unindexed(TryReduceConsumer {
        identity,
        op,
        stop: &stop,
    });
    finish(flow)
}

struct TryReduceConsumer<'r, ID, OP> {
    identity: &'r ID,
    op: &'r OP,
    stop: &'r AtomicBool,
}

impl<'r, ID, OP> Clone for TryReduceConsumer<'r, ID, OP> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<'r, ID, OP> Copy for TryReduceConsumer<'r, ID, OP> {}

impl<'r, T, R, ID, OP> Consumer<R> for TryReduceConsumer<'r, ID, OP>
where
    R: Try<Output = T> + Send,
    R::Residual: Send,
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    type Folder = TryReduceFolder<'r, OP, R::Residual, T>;
    type Reducer = Self;
    type Result = ControlFlow<R::Residual, T>;
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }
    fn into_folder(self) -> Self::Folder {
        TryReduceFolder {
            op: self.op,
            stop: self.stop,
            flow: ControlFlow::Continue((self.identity)()),
        }
    }
    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl<'r, T, R, ID, OP> UnindexedConsumer<R> for TryReduceConsumer<'r, ID, OP>
where
    R: Try<Output = T> + Send,
    R::Residual: Send,
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<'r, T, R, ID, OP> Reducer<ControlFlow<R::Residual, T>> for TryReduceConsumer<'r, ID, OP>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R + Sync,
{
    fn reduce(
        self,
        left: ControlFlow<R::Residual, T>,
        right: ControlFlow<R::Residual, T>,
    ) -> ControlFlow<R::Residual, T> {
        match (left, right) {
            (ControlFlow::Continue(l), ControlFlow::Continue(r)) => {
                let flow = (self.op)(l, r).branch();
                if flow.is_break() {
                    self.stop.store(true, Ordering::Relaxed);
                }
                flow
            }
            (ControlFlow::Break(b), _) | (_, ControlFlow::Break(b)) => ControlFlow::Break(b),
        }
    }
}

struct TryReduceFolder<'r, OP, Res, T> {
    op: &'r OP,
    stop: &'r AtomicBool,
    flow: ControlFlow<Res, T>,
}

impl<'r, T, R, OP> Folder<R> for TryReduceFolder<'r, OP, R::Residual, T>
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    type Result = ControlFlow<R::Residual, T>;
    fn consume(mut self, item: R) -> Self {
        if let ControlFlow::Continue(acc) = self.flow {
            self.flow = match item.branch() {
                ControlFlow::Continue(x) => (self.op)(acc, x).branch(),
                ControlFlow::Break(r) => ControlFlow::Break(r),
            };
            if self.flow.is_break() {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        self
    }
    fn complete(self) -> Self::Result {
        self.flow
    }
    fn full(&self) -> bool {
        self.flow.is_break() || self.stop.load(Ordering::Relaxed)
    }
}

/// The iterator of [`ParallelIterator::try_fold`]: one result per leaf, which stops at its
/// first break.
///
/// ```
/// use blitz_par::prelude::*;
/// let r: Option<u32> = (1..5u32).into_par_iter().try_fold(|| 0u32, |a, x| a.checked_add(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
/// assert_eq!(r, Some(10));
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    _result: std::marker::PhantomData<fn() -> R>,
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            _result: std::marker::PhantomData,
        }
    }
}

/// The iterator of [`ParallelIterator::try_fold_with`]: as [`TryFold`], each leaf starting
/// from a clone of the initial value (which need not be `Sync`, as in rayon).
///
/// ```
/// use blitz_par::prelude::*;
/// let r: Option<u32> = (1..5u32).into_par_iter().try_fold_with(0u32, |a, x| a.checked_add(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
/// assert_eq!(r, Some(10));
/// ```
#[must_use = "iterator adapters are lazy"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    init: R::Output,
    fold_op: F,
}

impl<I: Clone, R: Try, F: Clone> Clone for TryFoldWith<I, R, F>
where
    R::Output: Clone,
{
    fn clone(&self) -> Self {
        TryFoldWith {
            base: self.base.clone(),
            init: self.init.clone(),
            fold_op: self.fold_op.clone(),
        }
    }
}

impl<I: fmt::Debug, R: Try, F> fmt::Debug for TryFoldWith<I, R, F>
where
    R::Output: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("init", &self.init)
            .finish()
    }
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(super) fn new(base: I, init: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            init,
            fold_op,
        }
    }
}

/// Where a leaf's accumulator comes from. Each part of the consumer owns a copy (a reference
/// to `try_fold`'s identity, or a clone of `try_fold_with`'s value), so the value of
/// `try_fold_with` need only be `Clone + Send`.
trait TryStart<T>: Clone + Send {
    fn make(&self) -> T;
}

/// `try_fold`'s identity function.
struct CallIdentity<'f, ID>(&'f ID);

impl<ID> Clone for CallIdentity<'_, ID> {
    fn clone(&self) -> Self {
        CallIdentity(self.0)
    }
}

impl<T, ID: Fn() -> T + Sync> TryStart<T> for CallIdentity<'_, ID> {
    fn make(&self) -> T {
        (self.0)()
    }
}

/// `try_fold_with`'s initial value.
#[derive(Clone)]
struct CloneInit<T>(T);

impl<T: Clone + Send> TryStart<T> for CloneInit<T> {
    fn make(&self) -> T {
        self.0.clone()
    }
}

impl<I, ID, F, R> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    ID: Fn() -> R::Output + Sync + Send,
    F: Fn(R::Output, I::Item) -> R + Sync + Send,
    R: Try + Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let consumer = TryFoldConsumer {
            base: consumer,
            start: CallIdentity(&self.identity),
            fold_op: &self.fold_op,
            _result: std::marker::PhantomData,
        };
        self.base.drive_unindexed(consumer)
    }
}

impl<I, F, R> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(R::Output, I::Item) -> R + Sync + Send,
    R: Try + Send,
    R::Output: Clone + Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let consumer = TryFoldConsumer {
            base: consumer,
            start: CloneInit(self.init),
            fold_op: &self.fold_op,
            _result: std::marker::PhantomData,
        };
        self.base.drive_unindexed(consumer)
    }
}

struct TryFoldConsumer<'f, C, S, F, R> {
    base: C,
    start: S,
    fold_op: &'f F,
    _result: std::marker::PhantomData<fn() -> R>,
}

impl<'f, U, R, C, S, F> Consumer<U> for TryFoldConsumer<'f, C, S, F, R>
where
    C: Consumer<R>,
    S: TryStart<R::Output>,
    F: Fn(R::Output, U) -> R + Sync,
    R: Try,
{
    type Folder = TryFoldFolder<'f, C::Folder, R::Residual, R::Output, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            TryFoldConsumer {
                base: left,
                start: self.start.clone(),
                fold_op: self.fold_op,
                _result: std::marker::PhantomData,
            },
            TryFoldConsumer {
                base: right,
                start: self.start,
                fold_op: self.fold_op,
                _result: std::marker::PhantomData,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        TryFoldFolder {
            base: self.base.into_folder(),
            flow: ControlFlow::Continue(self.start.make()),
            fold_op: self.fold_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    /// As for `fold`: one accumulator may take any run of consecutive items, one per chunk
    /// ahead of a consumer that an accumulator may end early. (`try_reduce` says it may not:
    /// only an error ends it, and a `try_fold` that meets one completes at once.)
    const FOLDER_MAY_CONTINUE: bool = !C::MAY_STOP_EARLY;
    fn folder_continues(&self) -> bool {
        !C::MAY_STOP_EARLY
    }
    const MAY_STOP_EARLY: bool = C::MAY_STOP_EARLY;
    // The accumulators themselves depend on the grouping.
    const GROUPING: Grouping = C::GROUPING.at_least(Grouping::Matters);
    // The accumulators come in the order of the chunks they fold, each from the consumer of
    // its chunk's items: a search behind this one sees them as it would the items.
    forward_hints!(@order base: C => R);
    forward_hints!(@len base);
}

impl<'f, U, R, C, S, F> UnindexedConsumer<U> for TryFoldConsumer<'f, C, S, F, R>
where
    C: UnindexedConsumer<R>,
    S: TryStart<R::Output>,
    F: Fn(R::Output, U) -> R + Sync,
    R: Try,
{
    fn split_off_left(&self) -> Self {
        TryFoldConsumer {
            base: self.base.split_off_left(),
            start: self.start.clone(),
            fold_op: self.fold_op,
            _result: std::marker::PhantomData,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct TryFoldFolder<'f, G, Res, T, F> {
    base: G,
    flow: ControlFlow<Res, T>,
    fold_op: &'f F,
}

impl<'f, U, T, R, G, F> Folder<U> for TryFoldFolder<'f, G, R::Residual, T, F>
where
    G: Folder<R>,
    F: Fn(T, U) -> R,
    R: Try<Output = T>,
{
    type Result = G::Result;
    fn consume(mut self, item: U) -> Self {
        if let ControlFlow::Continue(acc) = self.flow {
            self.flow = (self.fold_op)(acc, item).branch();
        }
        self
    }
    fn complete(self) -> G::Result {
        self.base.consume(finish(self.flow)).complete()
    }
    fn full(&self) -> bool {
        self.flow.is_break() || self.base.full()
    }
}
