//! A growable Chase-Lev work-stealing deque of [`JobRef`]s.
//!
//! Algorithm: D. Chase and Y. Lev, "Dynamic Circular Work-Stealing Deque", SPAA 2005, with the
//! C11 memory orderings of N. M. Lê, A. Pop, A. Cohen and F. Zappa Nardelli, "Correct and
//! Efficient Work-Stealing for Weak Memory Models", PPoPP 2013 (figure 1). Each ordering below
//! is the paper's, and the comment on it names its step. The argument for each is in
//! `src/scheduler/README.md` ("Deque").
//!
//! The owner thread pushes and pops at the bottom (LIFO); any thread steals at the top (FIFO)
//! with one CAS. Slots are atomics (relaxed), so a thief that reads a slot while the owner
//! writes it is not a data race; such a thief's CAS on `top` then fails and the value is
//! discarded. When the buffer is full the owner copies it into one twice as large; old buffers
//! are kept until the deque is dropped, because a thief may still be reading one (no epoch
//! reclamation needed; the retired buffers add at most the size of the current one).

use super::job::{JobHeader, JobRef};
use crate::sync::{fence, AtomicIsize, AtomicPtr, CachePadded, Ordering};
use std::cell::UnsafeCell;

// One of the thresholds kept beside their code: listed, with its origin, in the second table
// of `src/tuning.rs` (`tests/docs_stay_true.rs` holds the two to the same value).
/// Initial capacity. Promoted join frames are rare (one per steal request), so a deque seldom
/// holds more than a few jobs; spawn-heavy code grows it.
const MIN_CAPACITY: usize = 64;

struct Buffer {
    mask: usize,
    slots: Box<[AtomicPtr<JobHeader>]>,
}

impl Buffer {
    fn new(capacity: usize) -> Box<Buffer> {
        debug_assert!(capacity.is_power_of_two());
        let slots = (0..capacity)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect();
        Box::new(Buffer {
            mask: capacity - 1,
            slots,
        })
    }

    #[inline]
    fn slot(&self, index: isize) -> &AtomicPtr<JobHeader> {
        &self.slots[index as usize & self.mask]
    }
}

/// The result of a steal attempt.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Steal {
    /// The deque was empty.
    Empty,
    /// A job was taken.
    Success(JobRef),
    /// Lost a race with the owner or another thief; the deque may still hold jobs.
    Retry,
}

/// The deque. `push` and `pop` may only be called by its owner thread (the thread occupying
/// the seat the deque belongs to); `steal` and `is_empty` by anyone.
pub(crate) struct Deque {
    /// Index of the oldest job; advanced by thieves (and by the owner taking the last job).
    top: CachePadded<AtomicIsize>,
    /// One past the newest job; written only by the owner.
    bottom: CachePadded<AtomicIsize>,
    /// The current buffer; replaced only by the owner, in `grow`.
    buffer: CachePadded<AtomicPtr<Buffer>>,
    /// Buffers replaced by `grow`, freed on drop. Touched only by the owner (and by drop).
    retired: UnsafeCell<Vec<*mut Buffer>>,
}

// SAFETY: the atomics are shared-safe; `retired` is touched only by the single owner thread
// (push's grow) and by drop, which has exclusive access. JobRefs are Send.
unsafe impl Send for Deque {}
// SAFETY: as above: shared access goes through atomics except `retired`, owner-only.
unsafe impl Sync for Deque {}

impl Deque {
    pub(crate) fn new() -> Deque {
        Deque {
            top: CachePadded(AtomicIsize::new(0)),
            bottom: CachePadded(AtomicIsize::new(0)),
            buffer: CachePadded(AtomicPtr::new(Box::into_raw(Buffer::new(MIN_CAPACITY)))),
            retired: UnsafeCell::new(Vec::new()),
        }
    }

    /// Whether the deque looks empty (a racy snapshot; exact for the owner when no thief is
    /// active).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        let b = self.bottom.load(Ordering::Relaxed);
        let t = self.top.load(Ordering::Relaxed);
        b <= t
    }

    /// How many jobs the deque looks to hold (a racy snapshot, like `is_empty`).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        let b = self.bottom.load(Ordering::Relaxed);
        let t = self.top.load(Ordering::Relaxed);
        (b - t).max(0) as usize
    }

    /// Pushes a job at the bottom.
    ///
    /// # Safety
    /// Only the owner thread calls `push` and `pop`.
    #[inline]
    pub(crate) unsafe fn push(&self, job: JobRef) {
        // push: b = load(bottom, relaxed); t = load(top, acquire).
        let b = self.bottom.load(Ordering::Relaxed);
        let t = self.top.load(Ordering::Acquire);
        let mut buffer = self.buffer.load(Ordering::Relaxed);
        // SAFETY: the current buffer is never freed while the deque lives.
        if b - t > unsafe { (*buffer).mask } as isize {
            // SAFETY: owner-only, by this function's contract.
            buffer = unsafe { self.grow(b, t) };
        }
        // SAFETY: as above; the slot at `b` is not in [top, bottom), so no thief uses it.
        unsafe { (*buffer).slot(b).store(job.as_ptr(), Ordering::Relaxed) };
        // push: the paper has fence(release) then a relaxed store of bottom; a Release store
        // gives the same edge (a thief's Acquire load of the new bottom sees the slot and
        // everything written before the push) and, unlike a fence, ThreadSanitizer models it.
        self.bottom.store(b + 1, Ordering::Release);
    }

    /// Doubles the buffer, copying the live range [t, b).
    ///
    /// # Safety
    /// Owner only.
    #[cold]
    unsafe fn grow(&self, b: isize, t: isize) -> *mut Buffer {
        let old = self.buffer.load(Ordering::Relaxed);
        // SAFETY: the current buffer is alive; only the owner replaces it.
        let old_ref = unsafe { &*old };
        let new = Buffer::new((old_ref.mask + 1) * 2);
        for i in t..b {
            new.slot(i)
                .store(old_ref.slot(i).load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let new = Box::into_raw(new);
        // Release: a thief that loads the new buffer (after seeing a bottom published later)
        // sees the copied slots.
        self.buffer.store(new, Ordering::Release);
        // SAFETY: owner-only access to `retired`.
        unsafe { (*self.retired.get()).push(old) };
        new
    }

    /// Pops the newest job (LIFO).
    ///
    /// # Safety
    /// Only the owner thread calls `push` and `pop`.
    #[inline]
    pub(crate) unsafe fn pop(&self) -> Option<JobRef> {
        // take: b = load(bottom, relaxed) - 1; store(bottom, b, relaxed).
        let b = self.bottom.load(Ordering::Relaxed) - 1;
        let buffer = self.buffer.load(Ordering::Relaxed);
        // (Every store of bottom is Release, stronger than the paper's relaxed ones: then any
        // bottom value a thief reads carries the owner's earlier writes, which
        // ThreadSanitizer, blind to fences, can check. On x86 a Release store is a plain mov.)
        self.bottom.store(b, Ordering::Release);
        // take: fence(seq_cst): orders the bottom store before the top load, against the
        // thieves' fence between their top and bottom loads.
        fence(Ordering::SeqCst);
        let t = self.top.load(Ordering::Relaxed);
        if t <= b {
            // SAFETY: the buffer is alive; slot b is in the live range.
            let job = unsafe { (*buffer).slot(b).load(Ordering::Relaxed) };
            if t == b {
                // The last job: race the thieves for it with the same CAS they use.
                let won = self
                    .top
                    .compare_exchange(t, t + 1, Ordering::SeqCst, Ordering::Relaxed)
                    .is_ok();
                self.bottom.store(b + 1, Ordering::Release);
                if !won {
                    return None;
                }
            }
            // SAFETY: the slot held a JobRef pushed by the owner; this pop took it.
            Some(unsafe { JobRef::from_ptr(job) })
        } else {
            self.bottom.store(b + 1, Ordering::Release);
            None
        }
    }

    /// Steals the oldest job (FIFO). Any thread.
    pub(crate) fn steal(&self) -> Steal {
        // steal: t = load(top, acquire); fence(seq_cst); b = load(bottom, acquire).
        let t = self.top.load(Ordering::Acquire);
        fence(Ordering::SeqCst);
        let b = self.bottom.load(Ordering::Acquire);
        if t < b {
            // steal: a = load(array, consume) -- acquire here, Rust has no consume.
            let buffer = self.buffer.load(Ordering::Acquire);
            // SAFETY: buffers are freed only when the deque is dropped.
            let job = unsafe { (*buffer).slot(t).load(Ordering::Relaxed) };
            // steal: CAS(top, t, t + 1, seq_cst, relaxed); on failure the read is discarded.
            if self
                .top
                .compare_exchange(t, t + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                return Steal::Retry;
            }
            // SAFETY: winning the CAS for index t transfers the job pushed there to us.
            Steal::Success(unsafe { JobRef::from_ptr(job) })
        } else {
            Steal::Empty
        }
    }
}

impl Drop for Deque {
    fn drop(&mut self) {
        // Jobs still inside are not owned by the deque (their owners keep them alive or leak
        // them); only the buffers are freed.
        // SAFETY: exclusive access in drop; each pointer came from Box::into_raw once.
        unsafe {
            drop(Box::from_raw(self.buffer.load(Ordering::Relaxed)));
            for old in (*self.retired.get()).drain(..) {
                drop(Box::from_raw(old));
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn job(n: usize) -> JobRef {
        // Fake job references: never executed, only compared.
        // SAFETY: non-null, never dereferenced.
        unsafe { JobRef::new(std::ptr::without_provenance::<JobHeader>(n * 8)) }
    }

    fn id(j: JobRef) -> usize {
        j.as_ptr() as usize / 8
    }

    #[test]
    fn lifo_for_owner_fifo_for_thieves() {
        let d = Deque::new();
        // SAFETY: this thread is the owner.
        unsafe {
            for i in 1..=3 {
                d.push(job(i));
            }
            assert_eq!(d.steal(), Steal::Success(job(1)));
            assert_eq!(d.pop().map(id), Some(3));
            assert_eq!(d.pop().map(id), Some(2));
            assert_eq!(d.pop(), None);
            assert_eq!(d.steal(), Steal::Empty);
            assert!(d.is_empty());
        }
    }

    #[test]
    fn grows_and_keeps_order() {
        let d = Deque::new();
        let n = if cfg!(miri) { 200 } else { 10_000 };
        // SAFETY: this thread is the owner.
        unsafe {
            for i in 1..=n {
                d.push(job(i));
            }
            for i in 1..=n / 2 {
                assert_eq!(d.steal(), Steal::Success(job(i)));
            }
            for i in (n / 2 + 1..=n).rev() {
                assert_eq!(d.pop().map(id), Some(i));
            }
            assert_eq!(d.pop(), None);
        }
    }

    /// Owner pushes and pops while thieves steal: every job is taken exactly once.
    #[test]
    fn concurrent_steals_take_each_job_once() {
        let n: usize = if cfg!(miri) { 300 } else { 200_000 };
        let thieves = 3;
        let d = Arc::new(Deque::new());
        let seen: Arc<Vec<std::sync::atomic::AtomicU8>> = Arc::new(
            (0..=n)
                .map(|_| std::sync::atomic::AtomicU8::new(0))
                .collect(),
        );
        let done = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = (0..thieves)
            .map(|_| {
                let (d, seen, done) = (d.clone(), seen.clone(), done.clone());
                std::thread::spawn(move || loop {
                    match d.steal() {
                        Steal::Success(j) => {
                            seen[id(j)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        Steal::Retry => {}
                        Steal::Empty => {
                            if done.load(std::sync::atomic::Ordering::Acquire) && d.is_empty() {
                                break;
                            }
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        for i in 1..=n {
            // SAFETY: this thread is the owner.
            unsafe { d.push(job(i)) };
            if i % 3 == 0 {
                // SAFETY: as above.
                if let Some(j) = unsafe { d.pop() } {
                    seen[id(j)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        // SAFETY: as above.
        while let Some(j) = unsafe { d.pop() } {
            seen[id(j)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        done.store(true, std::sync::atomic::Ordering::Release);
        for h in handles {
            h.join().unwrap();
        }
        for (i, s) in seen.iter().enumerate().skip(1) {
            assert_eq!(s.load(std::sync::atomic::Ordering::Relaxed), 1, "job {i}");
        }
    }
}
