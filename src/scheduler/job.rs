//! Jobs: type-erased units of work that a deque or the injector can hold as one pointer.
//!
//! A job is any `#[repr(C)]` struct whose first field is a [`JobHeader`]; a [`JobRef`] is a
//! pointer to that header. Executing a job calls the header's function with the header's own
//! address, and that function knows the concrete type. A join's job lives in the joining
//! thread's stack frame (no allocation per fork, see `join.rs`); spawned jobs live on the heap
//! ([`HeapJob`]).

use super::latch::{BlockingLatch, SpinLatch};
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

/// The first field of every job: how to run it.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job whose header is at the given address.
    pub(crate) execute: unsafe fn(NonNull<JobHeader>),
}

/// A pointer to a job's header. Whoever takes a `JobRef` out of a deque or queue owns the right
/// to execute it once.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(NonNull<JobHeader>);

// SAFETY: a JobRef is only created for jobs whose data may be executed on another thread
// (join's B closure and spawned closures are `Send`), and it is executed exactly once.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    /// `header` points to the header of a live job that stays alive until executed.
    #[inline]
    pub(crate) unsafe fn new(header: *const JobHeader) -> JobRef {
        // SAFETY: the caller passes a pointer to a live header, which is non-null.
        JobRef(unsafe { NonNull::new_unchecked(header as *mut JobHeader) })
    }

    #[inline]
    pub(crate) fn as_ptr(self) -> *mut JobHeader {
        self.0.as_ptr()
    }

    /// # Safety
    /// `ptr` was produced by `as_ptr` of a JobRef whose right to execute is being passed on.
    #[inline]
    pub(crate) unsafe fn from_ptr(ptr: *mut JobHeader) -> JobRef {
        // SAFETY: produced by as_ptr, hence non-null.
        JobRef(unsafe { NonNull::new_unchecked(ptr) })
    }

    /// Runs the job.
    ///
    /// # Safety
    /// The caller owns this reference (took it out of a queue) and the job is still alive; a
    /// job is executed at most once.
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: the header is alive by the caller's contract; its function expects exactly
        // this header's address.
        unsafe { ((*self.0.as_ptr()).execute)(self.0) }
    }
}

/// A job on the heap running a closure once: what `spawn` and `Scope::spawn` push.
#[repr(C)]
pub(crate) struct HeapJob<F: FnOnce() + Send> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Boxes `func` and returns the reference that owns it. The closure runs when the reference
    /// is executed; a reference that is never executed leaks the box.
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        let job = Box::new(HeapJob {
            header: JobHeader {
                execute: Self::execute,
            },
            func,
        });
        // SAFETY: the box is leaked here and freed by `execute`, which runs at most once.
        unsafe { JobRef::new(Box::into_raw(job) as *const JobHeader) }
    }

    /// # Safety
    /// `this` came from `into_job_ref` and is executed once.
    unsafe fn execute(this: NonNull<JobHeader>) {
        // SAFETY: HeapJob is repr(C) with the header first, so the header's address is the
        // box's address; into_job_ref leaked exactly this box.
        let job = unsafe { Box::from_raw(this.as_ptr() as *mut HeapJob<F>) };
        (job.func)();
    }
}

/// Something a [`StackJob`] can set when done.
pub(crate) trait SetLatch {
    /// # Safety
    /// `this` is alive on entry and may be freed once set.
    unsafe fn set_latch(this: *const Self);
}

impl SetLatch for SpinLatch {
    /// # Safety
    /// As for [`SetLatch::set_latch`].
    unsafe fn set_latch(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { SpinLatch::set(this) }
    }
}

impl SetLatch for BlockingLatch {
    /// # Safety
    /// As for [`SetLatch::set_latch`].
    unsafe fn set_latch(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { BlockingLatch::set(this) }
    }
}

/// A job on the waiting thread's stack that runs a closure once on another thread.
#[repr(C)]
pub(crate) struct StackJob<L, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
}

impl<L: SetLatch, F: FnOnce() -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(latch: L, func: F) -> Self {
        StackJob {
            header: JobHeader {
                execute: Self::execute,
            },
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
        }
    }

    /// # Safety
    /// The job must stay alive (and unmoved) until its latch is set.
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: alive until executed, by contract.
        // (The pointer is derived from the whole job, not just its header: `execute` reaches
        // the other fields through it.)
        unsafe { JobRef::new(self as *const Self as *const JobHeader) }
    }

    /// Runs the closure and sets the latch (the job's `JobHeader::execute`).
    ///
    /// # Safety
    /// `header` is the header of a live `StackJob<L, F, R>` made into a `JobRef` by
    /// [`as_job_ref`](Self::as_job_ref), executed at most once.
    unsafe fn execute(header: NonNull<JobHeader>) {
        let this = header.as_ptr() as *const Self;
        // SAFETY: the job is alive until its latch is set (as_job_ref's contract) and is
        // executed once, so `func` and `result` are ours until then.
        unsafe {
            let func = (*(*this).func.get())
                .take()
                .expect("StackJob executed twice");
            *(*this).result.get() = Some(catch_unwind(AssertUnwindSafe(func)));
            L::set_latch(&(*this).latch);
        }
    }

    /// The result, once the latch is set; re-raises a panic of the closure.
    pub(crate) fn into_result(self) -> R {
        match self.result.into_inner().expect("StackJob not executed") {
            Ok(r) => r,
            Err(payload) => resume_unwind(payload),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn heap_job_runs_once_and_frees() {
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        let job = HeapJob::into_job_ref(move || {
            h.fetch_add(1, Ordering::Relaxed);
        });
        // SAFETY: freshly created and executed exactly once.
        unsafe { job.execute() };
        assert_eq!(hits.load(Ordering::Relaxed), 1);
        assert_eq!(
            Arc::strong_count(&hits),
            1,
            "the closure and its captures were dropped"
        );
    }
}
