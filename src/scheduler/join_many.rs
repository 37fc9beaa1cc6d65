//! `join!`: any number of closures, potentially in parallel, on the frames of [`join`](fn@join).
//!
//! The macro is a tree of [`join`](fn@join)s, not a job type of its own: each join records its second
//! closure in a frame that a request or a beat promotes (`README.md`, "Splitting"), so a
//! `join!` of `n` closures costs `n - 1` joins and every closure after the first can be
//! stolen. The tree pairs neighbours, then pairs the pairs, so `join!(a, b, c, d)` is
//! `join(|| join(a, b), || join(c, d))`: the caller records `(c, d)` first, then `b`, and a
//! promotion takes the oldest frame, so the first thief takes half of the work (`c` and `d`,
//! which it splits again) and the second takes `b`. A chain (`join(a, || join(b, || join(c,
//! d)))`) would hand the first thief all of `b`, `c` and `d`, leaving the other closures to
//! be split one by one from that thief's frames. Nobody stealing, the closures run in the
//! order written, on the calling thread.
//!
//! [`join_all`] runs a list of closures of one type the same way, halving the list.
//!
//! [`join`](fn@join): crate::join

use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Runs any number of closures, potentially in parallel, and returns their results as a
/// tuple, in the order written.
///
/// `join!(a, b, c)` is a tree of [`join`](fn@crate::join)s (`join(|| join(a, b), || c)`), and
/// has its rules: the first closure runs on the calling thread, and every other closure runs
/// there too unless an idle thread asks for work meanwhile and takes it; one that nobody
/// takes costs what a call costs, plus a few nanoseconds. The closures are evaluated
/// (not run) first, left to right; nobody stealing, they then run in that order. Each must be
/// `FnOnce() -> R + Send` with `R: Send`; they may borrow from the caller's stack. Takes one
/// to sixteen closures, with or without a trailing comma. A closure must not wait for
/// one written after it (the rule of `join`'s first closure; see [`join`](fn@crate::join)).
///
/// # Panics
///
/// As [`join`](fn@crate::join): every closure runs to its end or panics, and then the panic of
/// the leftmost closure that panicked propagates; the others are dropped.
///
/// ```
/// let v: Vec<u64> = (1..=1000).collect();
/// let (sum, max, evens, first) = blitz_par::join!(
///     || v.iter().sum::<u64>(),
///     || v.iter().max().copied(),
///     || v.iter().filter(|&&x| x % 2 == 0).count(),
///     || v[0],
/// );
/// assert_eq!((sum, max, evens, first), (500_500, Some(1000), 500, 1));
/// ```
///
/// The macro and the function [`join`](fn@crate::join) share the name in different namespaces:
/// `use blitz_par::join;` brings both.
///
/// ```
/// use blitz_par::join;
/// let (a, b) = join(|| 1, || 2);
/// let (c, d, e) = join!(|| a + b, || "two", || vec![b]);
/// assert_eq!((c, d, e), (3, "two", vec![2]));
/// ```
#[macro_export]
macro_rules! join {
    () => {
        ::core::compile_error!("`join!` takes one to sixteen closures")
    };
    ($($f:expr),+ $(,)?) => {
        $crate::__join_bind!(
            [$($f,)+]
            []
            [__blitz_r0 __blitz_r1 __blitz_r2 __blitz_r3 __blitz_r4 __blitz_r5 __blitz_r6
             __blitz_r7 __blitz_r8 __blitz_r9 __blitz_r10 __blitz_r11 __blitz_r12 __blitz_r13
             __blitz_r14 __blitz_r15]
        )
    };
}

/// `join!`'s first step: gives each closure a name for its result (from the list of names),
/// then builds the tree. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_bind {
    // Every closure named: bind them in order (each evaluated once), then run the tree.
    ([] [$(($r:ident $f:expr))+] [$($unused:ident)*]) => {{
        $(let $r = $f;)+
        let $crate::__join_tree!([$({ ($r) ($crate::__join_call($r)) })+] []) =
            $crate::__join_tree!(@expr [$({ ($r) ($crate::__join_call($r)) })+] []);
        ($($r,)+)
    }};
    ([$f:expr, $($rest:expr,)*] [$($done:tt)*] [$r:ident $($names:ident)*]) => {
        $crate::__join_bind!([$($rest,)*] [$($done)* ($r $f)] [$($names)*])
    };
    ([$($rest:expr,)+] [$($done:tt)*] []) => {
        ::core::compile_error!("`join!` takes one to sixteen closures")
    };
}

/// `join!`'s tree: pairs neighbouring nodes `{ (pattern) (expression) }`, then the pairs,
/// until one node is left; the pattern side and the expression side are built by the same
/// steps, so they nest alike. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_tree {
    // The pattern of the tree.
    ([{ ($($p:tt)*) ($($e:tt)*) }] []) => { $($p)* };
    ([] [$($out:tt)+]) => { $crate::__join_tree!([$($out)+] []) };
    ([{ ($($p:tt)*) ($($e:tt)*) }] [$($out:tt)+]) => {
        $crate::__join_tree!([$($out)+ { ($($p)*) ($($e)*) }] [])
    };
    ([{ ($($pa:tt)*) ($($ea:tt)*) } { ($($pb:tt)*) ($($eb:tt)*) } $($rest:tt)*] [$($out:tt)*]) => {
        $crate::__join_tree!(
            [$($rest)*]
            [$($out)* { (($($pa)*, $($pb)*)) ($crate::join(move || $($ea)*, move || $($eb)*)) }]
        )
    };
    // The expression of the tree.
    (@expr [{ ($($p:tt)*) ($($e:tt)*) }] []) => { $($e)* };
    (@expr [] [$($out:tt)+]) => { $crate::__join_tree!(@expr [$($out)+] []) };
    (@expr [{ ($($p:tt)*) ($($e:tt)*) }] [$($out:tt)+]) => {
        $crate::__join_tree!(@expr [$($out)+ { ($($p)*) ($($e)*) }] [])
    };
    (@expr [{ ($($pa:tt)*) ($($ea:tt)*) } { ($($pb:tt)*) ($($eb:tt)*) } $($rest:tt)*] [$($out:tt)*]) => {
        $crate::__join_tree!(
            @expr
            [$($rest)*]
            [$($out)* { (($($pa)*, $($pb)*)) ($crate::join(move || $($ea)*, move || $($eb)*)) }]
        )
    };
}

/// Calls one closure of `join!`; the bound says which closures it takes, so that a wrong one
/// is reported at its argument. Not public API.
#[doc(hidden)]
#[inline(always)]
pub fn __join_call<F, R>(f: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    f()
}

/// Runs every closure of a list, potentially in parallel, and returns their results in the
/// list's order.
///
/// The list is split in halves joined with [`join`](fn@crate::join), down to single closures, so
/// every closure but the first can be stolen, and a list that nobody steals from costs its
/// calls, `n - 1` joins and two allocations (the closures and the results). For four closures
/// that is about two thirds of the instructions of
/// `closures.into_par_iter().map(|f| f()).collect::<Vec<_>>()`, which serves long lists of
/// uneven closures as well; use [`join!`](crate::join!) for closures of different types.
///
/// # Panics
///
/// As [`join`](fn@crate::join): every closure runs to its end or panics, then the panic of the
/// leftmost closure that panicked propagates, and the results already made are dropped.
///
/// ```
/// let words = ["one", "two", "three"];
/// let jobs: Vec<_> = words.iter().map(|w| move || w.len()).collect();
/// assert_eq!(blitz_par::join_all(jobs), [3, 3, 5]);
///
/// let boxed: Vec<Box<dyn FnOnce() -> u32 + Send>> = vec![Box::new(|| 1), Box::new(|| 2)];
/// assert_eq!(blitz_par::join_all(boxed), [1, 2]);
/// ```
pub fn join_all<I, F, R>(closures: I) -> Vec<R>
where
    I: IntoIterator<Item = F>,
    F: FnOnce() -> R + Send,
    R: Send,
{
    let mut fs: Vec<F> = closures.into_iter().collect();
    let n = fs.len();
    let mut out: Vec<R> = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    // SAFETY: the closures stay in the buffer; from here each is moved out exactly once, by
    // the leaf that runs it or by the `Part` that drops it unrun.
    unsafe { fs.set_len(0) };
    run_part(Part {
        fs: &mut fs.spare_capacity_mut()[..n],
        out: &mut out.spare_capacity_mut()[..n],
    });
    // SAFETY: `run_part` returned, so every result was written.
    unsafe { out.set_len(n) };
    out
}

/// A part of [`join_all`]'s list: closures not yet run (owned here: dropped with the part if
/// it never runs, as a cancelled join drops its closures) and the slots for their results.
struct Part<'a, F, R> {
    fs: &'a mut [MaybeUninit<F>],
    out: &'a mut [MaybeUninit<R>],
}

impl<F, R> Drop for Part<'_, F, R> {
    fn drop(&mut self) {
        for f in self.fs.iter_mut() {
            // SAFETY: a part's closures are initialised and its own until `run_part` takes
            // them (leaving the part empty).
            unsafe { f.assume_init_drop() };
        }
    }
}

/// Runs a part: returns with every result of the part written, or unwinds with none written.
fn run_part<F, R>(mut part: Part<'_, F, R>)
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    let fs = std::mem::take(&mut part.fs);
    let out = std::mem::take(&mut part.out);
    drop(part);
    if let ([f], [slot]) = (&mut *fs, &mut *out) {
        // SAFETY: initialised, and taken once: the part was ours.
        let f = unsafe { f.assume_init_read() };
        slot.write(f());
        return;
    }
    let mid = fs.len() / 2;
    let (fl, fr) = fs.split_at_mut(mid);
    let (ol, or) = out.split_at_mut(mid);
    let (left, right) = (Part { fs: fl, out: ol }, Part { fs: fr, out: or });
    let (a, b) = crate::join(
        move || catch_unwind(AssertUnwindSafe(move || run_part(left))),
        move || catch_unwind(AssertUnwindSafe(move || run_part(right))),
    );
    let payload = match (a, b) {
        (Ok(()), Ok(())) => return,
        (Err(p), Err(q)) => {
            drop(q);
            p
        }
        (Err(p), Ok(())) => {
            drop_written(&mut out[mid..]);
            p
        }
        (Ok(()), Err(q)) => {
            drop_written(&mut out[..mid]);
            q
        }
    };
    resume_unwind(payload)
}

/// Drops results written by a half whose sibling panicked (a panic of a drop is dropped: the
/// sibling's panic propagates).
#[cold]
fn drop_written<R>(out: &mut [MaybeUninit<R>]) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        for r in out.iter_mut() {
            // SAFETY: the half returned, so it wrote every slot; dropped once, here.
            unsafe { r.assume_init_drop() };
        }
    }));
}
