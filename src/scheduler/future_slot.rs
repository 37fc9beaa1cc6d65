//! The future slot: where the job that `spawn_future` posts leaves its result, and where the
//! task awaiting that result leaves its waker. One state word decides who may touch which cell
//! and when; no lock is taken on either side.
//!
//! Seed 002 compares waiter queues; this is its single-waiter case, which needs no queue: the
//! awaiter *registers, then checks* (it writes its waker, then sets `REGISTERED` with one
//! read-modify-write that also reads `COMPLETE`), and the job *completes, then checks* (it
//! writes the result, then sets `COMPLETE` with one read-modify-write that also reads
//! `REGISTERED`). Both are read-modify-writes of one atomic, so one of them comes first in its
//! modification order and the second one sees the first one's bit: either the job sees the
//! waker and wakes it, or the awaiter sees the result and returns it. No wake-up is lost, and
//! none is spurious. (tokio's `oneshot` channel follows the same pattern; `AtomicWaker`
//! adds a `REGISTERING` bit for concurrent registrations, which cannot happen here: the one
//! awaiter polls through `&mut`.)
//!
//! # States (bits of one word)
//!
//! | bit | set by | meaning |
//! | --- | --- | --- |
//! | `REGISTERED` | awaiter | the waker cell holds the awaiter's waker and is frozen: the job reads it to wake; the awaiter reads it to compare, writes it only after clearing the bit |
//! | `COMPLETE` | job | the result cell holds the result, which is the awaiter's from now on |
//! | `STARTED` | job | the job took the closure (it runs, or has run) |
//! | `CANCELLED` | awaiter | the future was dropped before completion: the closure must not start; running work stops at its next check; nobody is woken |
//! | `DETACHED` | awaiter | the future let go without cancelling: the job disposes of the result |
//!
//! # Races
//!
//! | race | outcome |
//! | --- | --- |
//! | registering (first poll) vs completing | ordered by the two RMWs: the job wakes the waker it saw, or the awaiter sees `COMPLETE` and returns `Ready` (nobody wakes) |
//! | re-registering from another task vs completing | the awaiter clears `REGISTERED` (RMW), writes the new waker, sets `REGISTERED` (RMW). A completion before the clear: the clear's RMW sees `COMPLETE`; the awaiter returns `Ready` and leaves the cell to the job, which may be reading the old waker. Between the two RMWs: the job sees no waker and wakes nobody; the set's RMW sees `COMPLETE` and the awaiter returns `Ready`. After the set: the job wakes the new waker |
//! | a wake while the awaiter registers | the same: the cell is the awaiter's while `REGISTERED` is clear, the job's to read once it set `COMPLETE` with `REGISTERED` set |
//! | cancelling vs starting | both RMWs (`CANCELLED` by the awaiter, `STARTED` by the job): whichever comes second sees the other's bit; the closure belongs to the first (the awaiter drops it unrun, or the job runs it) |
//! | cancelling or detaching vs completing | the awaiter's CAS fails if `COMPLETE` went in first (the result is there: dropped with the slot, or handed back by `detach`); else it clears `REGISTERED` and takes its waker back, and the job's completion sees no waker and, if `DETACHED`, takes the result back |
//!
//! # Memory ordering
//!
//! - Result: the job's plain write, then its `COMPLETE` RMW (Release); the awaiter's loads and
//!   RMWs that find `COMPLETE` are Acquire, so they see the result.
//! - Waker: the awaiter's plain write, then its `REGISTERED` RMW (Release); the job's
//!   `COMPLETE` RMW is Acquire (AcqRel with the above), so when it finds `REGISTERED` it sees
//!   the waker.
//! - Closure: `STARTED` and `CANCELLED` only decide who owns it; the loser never touches it,
//!   so they need no ordering of their own (the closure was written before the slot was shared).
//!
//! The loom models below (`loom_models`) run each race of the table, with loom's checked
//! cells, so that a cell touched out of turn fails the model as well as a lost wake-up.
//!
//! # Cancelling running work
//!
//! While the closure runs, its thread carries a [`CancelToken`] (a pointer to this state
//! word) in its seat, and so does every piece of the work that another thread takes over: a
//! promoted join frame records the token at promotion, a scope at its creation. The split
//! checks' slow paths (a join's `on_poll`, the iterator driver's `poll_for_split_cold`) read it,
//! Relaxed: a check that comes late lets one more chunk run. A cancel raises every seat's
//! split-request flag (`Registry::interrupt`), so that the next check of each thread takes
//! the slow path; the fast paths are unchanged. The `CANCELLED` bit is never cleared, so a
//! token read once as cancelled stays so.

use crate::sync::{AtomicUsize, Ordering, UnsafeCell};
use std::panic::resume_unwind;
use std::task::{Poll, Waker};
use std::thread::Result;

const REGISTERED: usize = 1;
const COMPLETE: usize = 1 << 1;
const STARTED: usize = 1 << 2;
const CANCELLED: usize = 1 << 3;
const DETACHED: usize = 1 << 4;

/// Which `spawn_future` task the work that a thread runs belongs to, if any: a pointer to the
/// task's state word, read only to see `CANCELLED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CancelToken(*const AtomicUsize);

// SAFETY: the pointer is only read through, atomically, while its task is alive (the rule of
// every place that holds a token: it is set around the task's work, which the task outlives).
unsafe impl Send for CancelToken {}
// SAFETY: as above.
unsafe impl Sync for CancelToken {}

impl CancelToken {
    /// Work of no task: never cancelled.
    pub(crate) const NONE: CancelToken = CancelToken(std::ptr::null());

    /// Whether the token's task was cancelled, or, for a [`CancelNode`]'s token, that node or
    /// any of the tokens it hangs from.
    ///
    /// # Safety
    /// The token is `NONE`, or its task's slot (its node, and every node and slot it hangs
    /// from) is alive.
    #[inline]
    pub(crate) unsafe fn is_cancelled(self) -> bool {
        let mut token = self;
        loop {
            if token.0.is_null() {
                return false;
            }
            let node = token.0.addr() & NODE_TAG != 0;
            let word = token.0.map_addr(|a| a & !NODE_TAG);
            // SAFETY: alive, by contract. Relaxed: see the module docs.
            if unsafe { (*word).load(Ordering::Relaxed) } & CANCELLED != 0 {
                return true;
            }
            if !node {
                return false;
            }
            // SAFETY: a tagged token points to the `state` of a live `CancelNode`, its first
            // field (`repr(C)`); its parent is alive as long as it is (`CancelNode::new`).
            token = unsafe { (*word.cast::<CancelNode>()).parent };
        }
    }
}

/// The low bit of a [`CancelToken`] that says it points to a [`CancelNode`] rather than to a
/// task's slot (state words are aligned to at least 2 bytes).
const NODE_TAG: usize = 1;
const _: () = assert!(std::mem::align_of::<AtomicUsize>() > NODE_TAG);

/// A cancellation of part of a task's work (`try_join`: the closures of one call): cancelled
/// by itself, or by the token it hangs from (the work it is part of). Its token is what the
/// threads running that part carry; a cancel sets the bit only, the canceller raises the split
/// requests (`Registry::interrupt`) as `spawn_future`'s does.
#[repr(C)]
pub(crate) struct CancelNode {
    /// `CANCELLED` or 0; first, so that a pointer to it is one to the node.
    state: AtomicUsize,
    /// The token of the work this part belongs to.
    parent: CancelToken,
}

impl CancelNode {
    /// A node under `parent`, the token of the work that makes it. The node must not outlive
    /// the work `parent` belongs to (it lives in a frame of that work).
    pub(crate) fn new(parent: CancelToken) -> Self {
        CancelNode {
            state: AtomicUsize::new(0),
            parent,
        }
    }

    /// The token of the work under this node (valid while the node is alive).
    pub(crate) fn token(&self) -> CancelToken {
        CancelToken((&self.state as *const AtomicUsize).map_addr(|a| a | NODE_TAG))
    }

    /// Cancels the work under this node. Relaxed: the bit only says that the work is unwanted;
    /// what the canceller wrote for its caller reaches it through the join it waits on.
    pub(crate) fn cancel(&self) {
        self.state.fetch_or(CANCELLED, Ordering::Relaxed);
    }

    /// Whether this node itself was cancelled (not the work it hangs from).
    pub(crate) fn is_cancelled_here(&self) -> bool {
        self.state.load(Ordering::Relaxed) & CANCELLED != 0
    }
}

/// The payload with which cancelled work unwinds, from a split check to the root of its
/// task, which drops it. Private to the crate: no user code can make one.
pub(crate) struct Cancelled;

/// Unwinds out of the work of a cancelled task (without the panic hook: nothing went wrong).
#[cold]
#[inline(never)]
pub(crate) fn unwind_cancelled() -> ! {
    resume_unwind(Box::new(Cancelled))
}

/// A job's result and the waker of the one task awaiting it; see the module docs.
pub(crate) struct FutureSlot<R> {
    /// The bits above.
    state: AtomicUsize,
    /// The awaiter's while `REGISTERED` is clear; frozen (read by both sides) while it is set.
    waker: UnsafeCell<Option<Waker>>,
    /// The job's until it sets `COMPLETE`, then the awaiter's (or the job's again, once the
    /// awaiter detached).
    result: UnsafeCell<Option<Result<R>>>,
}

/// What [`FutureSlot::cancel`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cancel {
    /// The job had completed: nothing to stop (the result is dropped with the slot).
    Complete,
    /// The job had not taken the closure and never will: it is the awaiter's to drop.
    NotStarted,
    /// The closure is running: it stops at its next cancellation check.
    Running,
}

/// What [`FutureSlot::complete`] did.
#[must_use = "a detached task's result must be disposed of"]
pub(crate) struct Completed<R> {
    /// The result, handed back because the awaiter detached.
    pub(crate) unawaited: Option<Result<R>>,
    /// Whether a registered waker was woken.
    pub(crate) woke: bool,
}

impl<R> FutureSlot<R> {
    pub(crate) fn new() -> FutureSlot<R> {
        FutureSlot {
            state: AtomicUsize::new(0),
            waker: UnsafeCell::new(None),
            result: UnsafeCell::new(None),
        }
    }

    /// Job: claims the closure. False if the awaiter cancelled first; then the closure is the
    /// awaiter's, and the job must not touch it.
    #[inline]
    pub(crate) fn start(&self) -> bool {
        // Relaxed: the bits only decide who owns the closure (module docs).
        self.state.fetch_or(STARTED, Ordering::Relaxed) & CANCELLED == 0
    }

    /// Whether the awaiter cancelled. Relaxed: the bit only says that the work is unwanted.
    #[cfg(test)]
    pub(crate) fn is_cancelled(&self) -> bool {
        self.state.load(Ordering::Relaxed) & CANCELLED != 0
    }

    /// The token that the task's work carries (valid while the slot is alive).
    #[inline]
    pub(crate) fn cancel_token(&self) -> CancelToken {
        CancelToken(&self.state)
    }

    /// Whether the job completed (its result is there). Acquire, like every load that may find
    /// `COMPLETE`.
    #[inline]
    pub(crate) fn is_complete(&self) -> bool {
        self.state.load(Ordering::Acquire) & COMPLETE != 0
    }

    /// Job: stores the result, then wakes the awaiter if it registered a waker. Hands the
    /// result back if the awaiter detached (nobody else will look at it), and says whether it
    /// woke a waker. Called once.
    pub(crate) fn complete(&self, result: Result<R>) -> Completed<R> {
        // SAFETY: until COMPLETE is set the result cell is the job's (field docs), and the
        // job completes once.
        self.result.with_mut(|cell| unsafe { *cell = Some(result) });
        // Release: publishes the result. Acquire: the waker, if REGISTERED is set.
        let prev = self.state.fetch_or(COMPLETE, Ordering::AcqRel);
        if prev & REGISTERED != 0 {
            self.waker.with(|waker| {
                // SAFETY: REGISTERED was set when COMPLETE went in, so the cell is frozen: the
                // awaiter only reads it from now on (its clearing RMW will see COMPLETE).
                if let Some(waker) = unsafe { &*waker } {
                    waker.wake_by_ref();
                }
            });
        }
        let unawaited = if prev & DETACHED != 0 {
            // SAFETY: the awaiter detached before COMPLETE went in: it never reads the result,
            // which is the job's again.
            self.result.with_mut(|cell| unsafe { (*cell).take() })
        } else {
            None
        };
        Completed {
            unawaited,
            woke: prev & REGISTERED != 0,
        }
    }

    /// Awaiter: the result if the job completed; else registers `waker`, to be woken once by
    /// the job's completion. Polling again with a waker that `will_wake` the registered one
    /// touches no atomic but a load.
    ///
    /// # Safety
    /// Only the slot's one awaiter calls `poll`, `cancel` and `detach`, never two at once, and
    /// none of them after `poll` returned `Ready` or after `cancel` or `detach`.
    pub(crate) unsafe fn poll(&self, waker: &Waker) -> Poll<Result<R>> {
        let state = self.state.load(Ordering::Acquire);
        if state & COMPLETE != 0 {
            // SAFETY: COMPLETE, seen with Acquire; the awaiter's contract.
            return Poll::Ready(unsafe { self.take_result() });
        }
        if state & REGISTERED != 0 {
            let same = self.waker.with(|registered| {
                // SAFETY: the cell is frozen while REGISTERED is set; both sides only read it.
                unsafe { &*registered }
                    .as_ref()
                    .is_some_and(|registered| registered.will_wake(waker))
            });
            if same {
                return Poll::Pending;
            }
            // Another task awaits now: take the cell back. Acquire: if the job completed
            // first, its result.
            if self.state.fetch_and(!REGISTERED, Ordering::Acquire) & COMPLETE != 0 {
                // The job saw the old waker and may be waking it: the cell stays frozen.
                // SAFETY: COMPLETE, seen with Acquire; the awaiter's contract.
                return Poll::Ready(unsafe { self.take_result() });
            }
        }
        // SAFETY: REGISTERED is clear, and a completion that found it set would have made the
        // RMW above see COMPLETE: the cell is the awaiter's.
        self.waker
            .with_mut(|cell| unsafe { *cell = Some(waker.clone()) });
        // Release: publishes the waker. Acquire: the result, if the job completed first.
        if self.state.fetch_or(REGISTERED, Ordering::AcqRel) & COMPLETE != 0 {
            // The job completed before it could see the waker: nobody will wake it.
            // SAFETY: COMPLETE, seen with Acquire; the awaiter's contract.
            return Poll::Ready(unsafe { self.take_result() });
        }
        Poll::Pending
    }

    /// Awaiter: the future is dropped. Unless the job completed, sets `CANCELLED` and takes
    /// the waker back (dropping it). Returns what the job was doing.
    ///
    /// # Safety
    /// As for [`poll`](Self::poll).
    pub(crate) unsafe fn cancel(&self) -> Cancel {
        let Some(prev) = self.leave(CANCELLED) else {
            return Cancel::Complete;
        };
        if prev & STARTED == 0 {
            Cancel::NotStarted
        } else {
            Cancel::Running
        }
    }

    /// Awaiter: lets the job finish unawaited. Returns the result if the job had completed
    /// already (the caller disposes of it); else the job will.
    ///
    /// # Safety
    /// As for [`poll`](Self::poll).
    pub(crate) unsafe fn detach(&self) -> Option<Result<R>> {
        match self.leave(DETACHED) {
            // SAFETY: COMPLETE, seen with Acquire by `leave`; the awaiter's contract.
            None => Some(unsafe { self.take_result() }),
            Some(_) => None,
        }
    }

    /// Awaiter: sets `bit` (CANCELLED or DETACHED) and clears REGISTERED in one CAS, unless the
    /// job completed (then `None`; the loads that see it are Acquire). Returns the state it
    /// replaced, and drops the waker if one was registered: the cell is the awaiter's again.
    fn leave(&self, bit: usize) -> Option<usize> {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            if state & COMPLETE != 0 {
                return None;
            }
            // AcqRel: nothing of the awaiter's needs publishing, and the job's COMPLETE is
            // not there; kept symmetric with the other RMWs, at no cost.
            match self.state.compare_exchange_weak(
                state,
                (state & !REGISTERED) | bit,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(now) => state = now,
            }
        }
        if state & REGISTERED != 0 {
            // SAFETY: REGISTERED was cleared before COMPLETE went in, so the job will not read
            // the cell: it is the awaiter's.
            drop(self.waker.with_mut(|cell| unsafe { (*cell).take() }));
        }
        Some(state)
    }

    /// # Safety
    /// The caller saw COMPLETE with Acquire and is the awaiter, which has not taken the result
    /// yet.
    unsafe fn take_result(&self) -> Result<R> {
        // SAFETY: after COMPLETE the cell is the awaiter's, by contract.
        self.result
            .with_mut(|cell| unsafe { (*cell).take() })
            .expect("a completed slot holds its result until the awaiter takes it")
    }
}

// SAFETY: the cells are shared between the job's thread and the awaiter's under the state
// word's rules (module docs); what crosses is the result (`R: Send`) and a `Waker` (`Send +
// Sync`).
unsafe impl<R: Send> Sync for FutureSlot<R> {}
// SAFETY: as above.
unsafe impl<R: Send> Send for FutureSlot<R> {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize as Count;
    use std::sync::Arc;
    use std::task::Wake;

    /// A waker that counts its wakes.
    struct Counter(Count);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting_waker() -> (Arc<Counter>, Waker) {
        let counter = Arc::new(Counter(Count::new(0)));
        (counter.clone(), Waker::from(counter))
    }

    fn wakes(counter: &Counter) -> usize {
        counter.0.load(Ordering::SeqCst)
    }

    #[test]
    fn register_then_complete_wakes_once() {
        let slot = FutureSlot::<u32>::new();
        let (counter, waker) = counting_waker();
        // SAFETY: this test is the one awaiter.
        assert!(unsafe { slot.poll(&waker) }.is_pending());
        // The same waker again: no re-registration, still pending.
        // SAFETY: as above.
        assert!(unsafe { slot.poll(&waker) }.is_pending());
        assert!(slot.start());
        let completed = slot.complete(Ok(7));
        assert!(completed.unawaited.is_none());
        assert!(completed.woke);
        assert_eq!(wakes(&counter), 1);
        assert!(slot.is_complete());
        // SAFETY: as above.
        match unsafe { slot.poll(&waker) } {
            Poll::Ready(Ok(7)) => {}
            _ => panic!("the result is ready"),
        }
        drop(waker);
        drop(slot);
        assert_eq!(Arc::strong_count(&counter), 1, "the slot dropped its waker");
    }

    #[test]
    fn complete_before_register_needs_no_wake() {
        let slot = FutureSlot::<u32>::new();
        assert!(slot.start());
        let completed = slot.complete(Ok(3));
        assert!(completed.unawaited.is_none());
        assert!(!completed.woke);
        let (counter, waker) = counting_waker();
        // SAFETY: this test is the one awaiter.
        assert!(matches!(unsafe { slot.poll(&waker) }, Poll::Ready(Ok(3))));
        assert_eq!(wakes(&counter), 0);
    }

    #[test]
    fn reregistering_wakes_only_the_new_waker_and_drops_the_old() {
        let slot = FutureSlot::<u32>::new();
        let (first, first_waker) = counting_waker();
        let (second, second_waker) = counting_waker();
        // SAFETY: this test is the one awaiter.
        assert!(unsafe { slot.poll(&first_waker) }.is_pending());
        // SAFETY: as above.
        assert!(unsafe { slot.poll(&second_waker) }.is_pending());
        drop(first_waker);
        assert_eq!(Arc::strong_count(&first), 1, "the old waker was dropped");
        assert!(slot.start());
        let _ = slot.complete(Ok(1));
        assert_eq!((wakes(&first), wakes(&second)), (0, 1));
    }

    #[test]
    fn cancel_before_start_keeps_the_closure_from_the_job() {
        let slot = FutureSlot::<u32>::new();
        let (counter, waker) = counting_waker();
        // SAFETY: this test is the one awaiter.
        assert!(unsafe { slot.poll(&waker) }.is_pending());
        // SAFETY: as above.
        assert_eq!(unsafe { slot.cancel() }, Cancel::NotStarted);
        drop(waker);
        assert_eq!(Arc::strong_count(&counter), 1, "cancel dropped the waker");
        assert!(slot.is_cancelled());
        assert!(!slot.start(), "the job must not take the closure");
    }

    #[test]
    fn cancel_while_running_then_complete_wakes_nobody() {
        let slot = FutureSlot::<u32>::new();
        let (counter, waker) = counting_waker();
        assert!(slot.start());
        // SAFETY: this test is the one awaiter.
        assert!(unsafe { slot.poll(&waker) }.is_pending());
        // SAFETY: as above.
        assert_eq!(unsafe { slot.cancel() }, Cancel::Running);
        assert!(slot.is_cancelled());
        assert!(slot.complete(Ok(5)).unawaited.is_none());
        assert_eq!(wakes(&counter), 0);
    }

    #[test]
    fn cancel_after_complete_finds_it_complete() {
        let slot = FutureSlot::<u32>::new();
        assert!(slot.start());
        let _ = slot.complete(Ok(5));
        // SAFETY: this test is the one awaiter.
        assert_eq!(unsafe { slot.cancel() }, Cancel::Complete);
        assert!(!slot.is_cancelled());
    }

    #[test]
    fn detach_hands_the_result_to_whoever_comes_second() {
        // Detached first: the job gets its result back.
        let slot = FutureSlot::<u32>::new();
        assert!(slot.start());
        // SAFETY: this test is the one awaiter.
        assert!(unsafe { slot.detach() }.is_none());
        assert!(matches!(slot.complete(Ok(9)).unawaited, Some(Ok(9))));
        // Completed first: the awaiter gets it.
        let slot = FutureSlot::<u32>::new();
        assert!(slot.start());
        assert!(slot.complete(Ok(8)).unawaited.is_none());
        // SAFETY: as above.
        assert!(matches!(unsafe { slot.detach() }, Some(Ok(8))));
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    //! Each race of the module docs' table, with loom's checked cells. Run with
    //! `RUSTFLAGS="--cfg loom" cargo test --lib loom_models` (the CI's loom step).

    use super::*;
    use loom::sync::atomic::AtomicUsize as Count;
    use loom::thread;
    use std::sync::Arc;
    use std::task::Wake;

    struct Counter(Count);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting_waker() -> (Arc<Counter>, Waker) {
        let counter = Arc::new(Counter(Count::new(0)));
        (counter.clone(), Waker::from(counter))
    }

    fn wakes(counter: &Counter) -> usize {
        counter.0.load(Ordering::SeqCst)
    }

    /// The job's side: claim the closure, run it (here: 42), complete.
    fn spawn_job(slot: &loom::sync::Arc<FutureSlot<u32>>) -> thread::JoinHandle<()> {
        let slot = slot.clone();
        thread::spawn(move || {
            if slot.start() {
                assert!(slot.complete(Ok(42)).unawaited.is_none());
            }
        })
    }

    fn ready(poll: Poll<Result<u32>>) -> bool {
        match poll {
            Poll::Ready(Ok(42)) => true,
            Poll::Ready(_) => panic!("wrong result"),
            Poll::Pending => false,
        }
    }

    #[test]
    fn future_slot_register_while_completing() {
        loom::model(|| {
            let slot = loom::sync::Arc::new(FutureSlot::new());
            let job = spawn_job(&slot);
            let (counter, waker) = counting_waker();
            // SAFETY: this thread is the one awaiter.
            let done = ready(unsafe { slot.poll(&waker) });
            job.join().unwrap();
            if !done {
                // Pending: the completion must have woken this waker, exactly once.
                assert_eq!(wakes(&counter), 1, "lost wake-up");
                // SAFETY: as above.
                assert!(ready(unsafe { slot.poll(&waker) }));
            } else {
                assert_eq!(wakes(&counter), 0, "spurious wake-up");
            }
        });
    }

    #[test]
    fn future_slot_reregister_from_another_task_while_completing() {
        loom::model(|| {
            let slot = loom::sync::Arc::new(FutureSlot::new());
            let (first, first_waker) = counting_waker();
            let (second, second_waker) = counting_waker();
            // Registered before the job exists: the re-registration is what races.
            // SAFETY: this thread is the one awaiter.
            assert!(unsafe { slot.poll(&first_waker) }.is_pending());
            let job = spawn_job(&slot);
            // SAFETY: as above.
            let done = ready(unsafe { slot.poll(&second_waker) });
            job.join().unwrap();
            if !done {
                assert_eq!(wakes(&second), 1, "lost wake-up of the new task");
                assert_eq!(wakes(&first), 0, "the old task was woken after it left");
                // SAFETY: as above.
                assert!(ready(unsafe { slot.poll(&second_waker) }));
            } else {
                // The job may have woken the first task before the second registered.
                assert!(wakes(&first) <= 1);
                assert_eq!(wakes(&second), 0);
            }
        });
    }

    #[test]
    fn future_slot_cancel_while_starting_gives_the_closure_to_one_side() {
        loom::model(|| {
            let slot = loom::sync::Arc::new(FutureSlot::<u32>::new());
            // The closure, owned by whichever side wins; loom's cell reports a second owner.
            let func = loom::sync::Arc::new(UnsafeCell::new(Some(7u32)));
            let job = {
                let (slot, func) = (slot.clone(), func.clone());
                thread::spawn(move || {
                    if slot.start() {
                        // SAFETY: `start` gave the closure to the job.
                        let f = func.with_mut(|f| unsafe { (*f).take() });
                        assert_eq!(f, Some(7));
                        let _ = slot.complete(Ok(1));
                        true
                    } else {
                        false
                    }
                })
            };
            let (counter, waker) = counting_waker();
            // SAFETY: this thread is the one awaiter.
            let polled = unsafe { slot.poll(&waker) };
            let cancelled = match polled {
                Poll::Ready(_) => None,
                // SAFETY: as above.
                Poll::Pending => Some(unsafe { slot.cancel() }),
            };
            if cancelled == Some(Cancel::NotStarted) {
                // SAFETY: the cancel came first: the closure is the awaiter's.
                let f = func.with_mut(|f| unsafe { (*f).take() });
                assert_eq!(f, Some(7));
            }
            let ran = job.join().unwrap();
            assert_eq!(ran, cancelled != Some(Cancel::NotStarted));
            if matches!(cancelled, Some(Cancel::NotStarted | Cancel::Running)) {
                assert_eq!(wakes(&counter), 0, "nobody is woken after a cancel");
            } else {
                // Completed between the poll and the cancel: woken once, harmlessly.
                assert!(wakes(&counter) <= 1);
            }
        });
    }

    #[test]
    fn future_slot_detach_while_completing_disposes_the_result_once() {
        loom::model(|| {
            let slot = loom::sync::Arc::new(FutureSlot::<u32>::new());
            let job = {
                let slot = slot.clone();
                thread::spawn(move || {
                    assert!(slot.start());
                    slot.complete(Ok(5)).unawaited.is_some()
                })
            };
            let (counter, waker) = counting_waker();
            // SAFETY: this thread is the one awaiter.
            let first = unsafe { slot.poll(&waker) };
            let by_awaiter = match first {
                Poll::Ready(_) => true,
                // SAFETY: as above.
                Poll::Pending => unsafe { slot.detach() }.is_some(),
            };
            let by_job = job.join().unwrap();
            assert!(
                by_awaiter != by_job,
                "the result is disposed of exactly once"
            );
            assert!(wakes(&counter) <= 1);
        });
    }
}
