//! `join` and `join_context`: run two closures, potentially in parallel.
//!
//! The second closure's job lives in this function's stack frame ([`JoinFrame`]). It is only
//! *recorded* in the seat (depth counter plus a pointer in `frames`); the seat promotes it onto
//! the Chase-Lev deque only when an idle thread asks for work or the heartbeat wants to wake a
//! sleeper (`registry/owner.rs`, `README.md` "Splitting"). After the first closure returns:
//! - not promoted (the common case): run the second closure inline, like a plain call;
//! - promoted: pop it back from the deque if no thief took it and run it inline; else run other
//!   jobs until the thief sets the frame's latch, then take the result.
//!
//! A join opened while `RECORD_WINDOW` recorded frames already wait unpromoted is not recorded
//! at all (`join_unrecorded`): it only polls, and runs the closures one after the other. Nor is
//! any join on the only seat of a registry (a pool of one thread), which nobody can steal from
//! (`README.md`, "The only seat").

use super::future_slot::{unwind_cancelled, Cancelled};
use super::job::JobHeader;
use super::job::JobRef;
use super::latch::{CoreLatch, SpinLatch};
use super::registry::{site, FrameHead, Owner, Recorded, Site};
use std::cell::UnsafeCell;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

/// Context passed to the closures of [`join_context`].
///
/// ```
/// let (a, b) = blitz_par::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated());
/// // The first closure always runs on the calling thread; the second only moves if stolen.
/// assert!(!a);
/// # let _ = b;
/// ```
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on a different thread than the one that called
    /// `join_context` (it was stolen). The first closure always runs on the calling thread in
    /// blitz-par, so this is `false` for it; rayon may report `true` for both when `join` is
    /// called from outside the pool.
    ///
    /// ```
    /// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// // One thread: nobody can steal the second closure.
    /// let moved = pool.install(|| blitz_par::join_context(|a| a.migrated(), |b| b.migrated()));
    /// assert_eq!(moved, (false, false));
    /// ```
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `a` runs on the calling thread; `b` runs there too unless an idle worker asks for work
/// while `a` runs, in which case the worker may take `b`. A join that nobody steals costs a
/// few nanoseconds, so `join` can be used at every level of a fine-grained recursion.
///
/// Called from outside every pool, the calling thread takes part in the global pool for the
/// duration of the call (rayon instead sends the work to a pool thread and blocks); so
/// `current_thread_index()` is `None` inside `a`.
///
/// `a` must not wait for `b` (on a channel, a barrier, a lock `b` releases): `b` is handed to
/// another thread only when the calling thread looks at the scheduler, inside `a`'s own joins
/// and parallel loops, and a thread blocked in `a` looks at nothing, so such a join never
/// returns. rayon makes `b` stealable as soon as `join` starts, so there it returns once
/// another thread is free. This is the price of joins that cost a few nanoseconds; a
/// `scope` with `spawn`, whose jobs are stealable at once, serves closures that wait for each
/// other. Debug builds report such a join on stderr, with its location, once its `a` has gone
/// `BLITZ_PAR_STALL_MS` milliseconds (default 1000) without a parallel call while another
/// thread of the pool is idle; an `a` that runs that long without one is reported too.
///
/// # Panics
///
/// Both closures always run to completion (or panic). If one panics, the panic is propagated
/// after both have finished; if both panic, `a`'s panic is propagated and `b`'s is dropped.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (a, b) = blitz_par::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[inline]
#[cfg_attr(debug_assertions, track_caller)]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(move |_| a(), move |_| b())
}

/// Like [`join`], with a [`FnContext`] telling each closure whether it was stolen.
///
/// ```
/// let (a, b) = blitz_par::join_context(|ctx| ctx.migrated(), |_| 2);
/// assert!(!a); // the first closure always runs on the calling thread
/// assert_eq!(b, 2);
/// ```
#[inline]
#[cfg_attr(debug_assertions, track_caller)]
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // `site()` is `()` in release builds: a unit struct instead changed the inlining of the
    // iterator driver's joins (`examples/join_shapes`'s disassembly).
    #[allow(clippy::unit_arg)]
    join_at(a, b, site())
}

/// [`join_context`] called at `site` (debug builds: the location the stall watchdog reports,
/// `stall.rs`; nothing in release builds).
#[inline(always)]
fn join_at<A, B, RA, RB>(a: A, b: B, site: Site) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    Owner::with_current(move |owner| match owner {
        None => join_outside(a, b, site),
        Some(owner) if owner.records() => join_recorded::<_, _, _, _, false>(owner, a, b, site),
        Some(owner) => join_unrecorded::<_, _, _, _, false>(owner, a, b),
    })
}

/// [`join`] for the iterator driver's split offered to a worker that is awake and looking for
/// work (`scheduler::thief_awake`, the driver's `Pacer::note_thief`): its poll promotes the
/// oldest recorded frame (this one, unless older ones wait) as if that worker had asked
/// already (`Owner::on_offer`). The worker's own request would come only after this thread
/// entered the pool, and be seen only at the end of the next chunk: in a loop of
/// 100,000-item sums that put the thief's start ~2 us after the split, ~4 us into a call of
/// 12. Other threads' requests are left to later polls, as the flag meant for them is.
#[inline(never)]
#[cfg_attr(debug_assertions, track_caller)]
pub(crate) fn join_offered<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (a, b) = (move |_: FnContext| a(), move |_: FnContext| b());
    #[allow(clippy::let_unit_value)] // `()` in release builds (see `join_context`).
    let site = site();
    Owner::with_current(move |owner| match owner {
        None => join_outside(a, b, site),
        Some(owner) if owner.records() => join_recorded::<_, _, _, _, true>(owner, a, b, site),
        Some(owner) => join_unrecorded::<_, _, _, _, true>(owner, a, b),
    })
}

/// A join's poll, after it has recorded its frame (or decided not to): true if the work is
/// cancelled. `OFFERED`: the split is offered ([`join_offered`]), so the slow path is taken
/// whatever the poll says.
#[inline(always)]
fn poll_cancelled<const OFFERED: bool>(owner: Owner<'_>) -> bool {
    if OFFERED {
        // The countdown counts this join as any other's poll.
        let _ = owner.poll::<1>();
        owner.on_offer()
    } else {
        owner.poll::<1>() && owner.on_poll()
    }
}

#[cold]
#[inline(never)]
fn join_outside<A, B, RA, RB>(a: A, b: B, site: Site) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    super::global::global_registry().enter_as_guest(move || join_at(a, b, site))
}

/// The stack frame of one join: the erased head (job header and latch), then `b` and a slot
/// for its result when a thief runs it.
#[repr(C)]
struct JoinFrame<B, RB> {
    head: FrameHead,
    func: UnsafeCell<ManuallyDrop<B>>,
    result: UnsafeCell<MaybeUninit<std::thread::Result<RB>>>,
}

/// Executes a promoted frame that was stolen (or popped out of order by its owner).
///
/// # Safety
/// `header` is the head of a live, promoted `JoinFrame<B, RB>` whose `func` was not taken.
unsafe fn execute_frame<B, RB>(header: NonNull<JobHeader>)
where
    B: FnOnce(FnContext) -> RB + Send,
{
    let frame = header.as_ptr() as *const JoinFrame<B, RB>;
    // SAFETY: by contract the frame is alive and promoted, and this is the one execution
    // that takes `func` (the owner checks the deque before touching it). The frame's token is
    // that of the work its owner runs, whose task outlives the owner's wait for this frame.
    unsafe {
        let func = ManuallyDrop::take(&mut *(*frame).func.get());
        let latch: *const SpinLatch = (*frame).head.latch();
        let token = (*frame).head.cancel();
        let result = Owner::with_current(|owner| {
            let migrated =
                owner.is_none_or(|owner| !(*latch).is_owned_by(&owner.seat().sleep_word));
            let run = AssertUnwindSafe(move || {
                if token.is_cancelled() {
                    // The task was cancelled before `b` started: it never runs.
                    drop(func);
                    unwind_cancelled();
                }
                func(FnContext { migrated })
            });
            match owner {
                Some(owner) => owner.with_cancel_token(token, || catch_unwind(run)),
                None => catch_unwind(run),
            }
        });
        (*(*frame).result.get()).write(result);
        // After this the owner may return and free the frame: touch nothing of it again.
        SpinLatch::set(latch);
    }
}

/// A join that records its frame, so that `b` can be promoted and stolen.
///
/// Inlined into [`join_context`] in optimised builds only (as is [`join_unrecorded`]): a
/// debug build keeps every local of a function in its own stack slot, so the two paths
/// inlined together made a frame of 5.4 KB on the path of every nested join (a debug build
/// of `tests/octillion.rs` nests 60).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn join_recorded<A, B, RA, RB, const OFFERED: bool>(
    owner: Owner<'_>,
    a: A,
    b: B,
    site: Site,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    // `b` stays here as well as in the frame: an unpromoted frame's `b` runs from this copy,
    // which the optimiser may keep in registers, instead of being read back from the frame,
    // whose address has escaped to the seat. Exactly one of the two copies is ever used: this
    // one if the frame was never promoted, the frame's otherwise (or on a panic of `a`).
    let b = ManuallyDrop::new(b);
    let frame = JoinFrame::<B, RB> {
        head: FrameHead {
            header: JobHeader {
                execute: execute_frame::<B, RB>,
            },
            latch: UnsafeCell::new(MaybeUninit::uninit()),
            cancel: UnsafeCell::new(MaybeUninit::uninit()),
        },
        // SAFETY: a bitwise copy of `b`; see above for why only one copy is used.
        func: UnsafeCell::new(unsafe { std::ptr::read(&b) }),
        result: UnsafeCell::new(MaybeUninit::uninit()),
    };
    // Derived from the whole frame (not `&frame.head`): a thief reaches `func` and `result`
    // through this pointer.
    // SAFETY: `execute_frame::<B, RB>` runs this frame's type; the frame stays here until
    // `close` below, or `a_panicked`'s, and a promoted frame until `join_promoted` has popped
    // it back or seen its latch set. Frames recorded inside `a` are closed before it returns
    // or unwinds out of it. Our caller found `records` true just now.
    let recorded = unsafe {
        owner.record(
            (&frame as *const JoinFrame<B, RB>).cast::<FrameHead>(),
            site,
        )
    };
    if poll_cancelled::<OFFERED>(owner) {
        // The work is cancelled (`spawn_future`): neither closure runs.
        a_panicked(owner, recorded, &frame, Box::new(Cancelled));
    }
    let ra = match catch_unwind(AssertUnwindSafe(move || a(FnContext { migrated: false }))) {
        Ok(ra) => ra,
        Err(payload) => a_panicked(owner, recorded, &frame, payload),
    };
    if owner.close(recorded) {
        // SAFETY: our frame, just found promoted, not yet resolved.
        let rb = unsafe { join_promoted(owner, &frame) };
        return (ra, rb);
    }
    // Never promoted: nobody else has seen `b`, and the frame's copy is left untouched.
    let b = ManuallyDrop::into_inner(b);
    (ra, b(FnContext { migrated: false }))
}

/// A join too deep to record (`RECORD_WINDOW` recorded frames wait unpromoted above it): it
/// still polls, so that requests and the heartbeat promote the outer frames, but `b` is never
/// visible to another thread and simply runs after `a`.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn join_unrecorded<A, B, RA, RB, const OFFERED: bool>(owner: Owner<'_>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
{
    if poll_cancelled::<OFFERED>(owner) {
        // The work is cancelled (`spawn_future`): neither closure runs (both drop here).
        unwind_cancelled();
    }
    let ra = match catch_unwind(AssertUnwindSafe(move || a(FnContext { migrated: false }))) {
        Ok(ra) => ra,
        Err(payload) => b_then_resume(b, payload),
    };
    (ra, b(FnContext { migrated: false }))
}

/// `a` of an unrecorded join panicked: run `b` anyway, then propagate `a`'s panic.
#[cold]
#[inline(never)]
fn b_then_resume<B, RB>(b: B, payload: Box<dyn std::any::Any + Send>) -> !
where
    B: FnOnce(FnContext) -> RB,
{
    // `b`'s own panic, if any, loses to `a`'s.
    let _ = catch_unwind(AssertUnwindSafe(move || b(FnContext { migrated: false })));
    resume_unwind(payload)
}

/// The frame was promoted: take `b` back if no thief has it, else wait for the thief.
///
/// # Safety
/// `frame` is the caller's join frame, recorded in `owner`'s seat, found promoted by
/// `close` and not yet resolved.
#[cold]
#[inline(never)]
unsafe fn join_promoted<B, RB>(owner: Owner<'_>, frame: &JoinFrame<B, RB>) -> RB
where
    B: FnOnce(FnContext) -> RB + Send,
{
    // SAFETY: the frame is alive (it is ours).
    let me = unsafe { JobRef::new((frame as *const JoinFrame<B, RB>).cast::<JobHeader>()) };
    // SAFETY: promoted, so its latch was initialised.
    if pop_back_or_wait(owner, me, unsafe { &frame.head.latch().core }) {
        // SAFETY: we popped our own frame back, so no thief has `func`.
        let b = unsafe { ManuallyDrop::take(&mut *frame.func.get()) };
        return b(FnContext { migrated: false });
    }
    // SAFETY: the latch is set, so the thief wrote the result (Release/Acquire through it).
    match unsafe { (*frame.result.get()).assume_init_read() } {
        Ok(rb) => rb,
        Err(payload) => resume_unwind(payload),
    }
}

/// [`join_promoted`] for cancelled work: `b` is dropped unrun if it comes back, and a
/// thief's result (it stops at its first check) is dropped.
///
/// # Safety
/// As for [`join_promoted`].
#[cold]
#[inline(never)]
unsafe fn join_promoted_cancelled<B, RB>(owner: Owner<'_>, frame: &JoinFrame<B, RB>)
where
    B: FnOnce(FnContext) -> RB + Send,
{
    // SAFETY: the frame is alive (it is ours).
    let me = unsafe { JobRef::new((frame as *const JoinFrame<B, RB>).cast::<JobHeader>()) };
    // SAFETY: promoted, so its latch was initialised.
    if pop_back_or_wait(owner, me, unsafe { &frame.head.latch().core }) {
        // SAFETY: we popped our own frame back, so no thief has `func`; nothing takes it
        // after this.
        unsafe { ManuallyDrop::drop(&mut *frame.func.get()) };
    } else {
        // SAFETY: the latch is set, so the thief wrote the result; read once.
        drop(unsafe { (*frame.result.get()).assume_init_read() });
    }
}

/// The type-independent part of [`join_promoted`]: pops the seat's deque down to the
/// promoted frame `me`, running the jobs above it, and returns true if `me` came back; if a
/// thief took it, helps with other work until the thief sets `latch`, and returns false.
fn pop_back_or_wait(owner: Owner<'_>, me: JobRef, latch: &CoreLatch) -> bool {
    while let Some(job) = owner.pop() {
        if job == me {
            return true;
        }
        // A job pushed above ours (a spawn), or one below it (an older frame of ours, once
        // ours was stolen): run it; jobs never unwind (they catch their panics). The loop
        // uses the seat again afterwards, hence the hold.
        let _hold = owner.hold();
        // SAFETY: we popped it, so we own its execution.
        unsafe { owner.run_job(job) };
    }
    // Stolen: help with other work until the thief sets our latch.
    owner.wait_until(latch);
    false
}

/// `a` panicked: still finish `b` (it may borrow this frame), then propagate `a`'s panic.
/// Frames recorded inside `a` were closed as they unwound.
#[cold]
#[inline(never)]
fn a_panicked<B, RB>(
    owner: Owner<'_>,
    recorded: Recorded,
    frame: &JoinFrame<B, RB>,
    payload: Box<dyn std::any::Any + Send>,
) -> !
where
    B: FnOnce(FnContext) -> RB + Send,
{
    let promoted = owner.close(recorded);
    if payload.is::<Cancelled>() {
        // The work is cancelled: `b` must not start. A thief that has it stops at its first
        // check; otherwise it is dropped unrun.
        let drop_b = AssertUnwindSafe(|| {
            if promoted {
                // SAFETY: our frame, just found promoted, not yet resolved.
                unsafe { join_promoted_cancelled(owner, frame) }
            } else {
                // SAFETY: never promoted, so `func` is ours, and nothing takes it after this.
                unsafe { ManuallyDrop::drop(&mut *frame.func.get()) }
            }
        });
        // A panic in `b`'s drop or in a thief's `b` loses to the cancellation.
        let _ = catch_unwind(drop_b);
        resume_unwind(payload)
    }
    let run_b = AssertUnwindSafe(|| {
        if promoted {
            // SAFETY: our frame, just found promoted, not yet resolved.
            drop(unsafe { join_promoted(owner, frame) });
        } else {
            // SAFETY: never promoted, so `func` is ours to take.
            let b = unsafe { ManuallyDrop::take(&mut *frame.func.get()) };
            drop(b(FnContext { migrated: false }));
        }
    });
    // `b`'s own panic, if any, loses to `a`'s.
    let _ = catch_unwind(run_b);
    resume_unwind(payload)
}
