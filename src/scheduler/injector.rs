//! The injector: a multi-producer, multi-consumer FIFO of jobs for work that does not come from
//! a worker's own deque: `install` and `spawn` from threads outside the pool, broadcasts.
//! Safe with any number of outside threads pushing at once (unlike a Chase-Lev deque, whose
//! bottom end has a single owner).
//!
//! A bounded lock-free ring (D. Vyukov's bounded MPMC queue: each cell carries a sequence
//! number that says whether it is ready to be written or read at a given position, so there is
//! no ABA and no memory to reclaim), plus a mutex-protected overflow list that takes the jobs
//! pushed while the ring is full, and every later one until it drains. So FIFO order holds
//! throughout (for the pushes of one thread, and for pushes ordered by happens-before):
//! `scope_fifo` relies on it.

use super::job::{JobHeader, JobRef};
use crate::sync::{AtomicPtr, AtomicUsize, CachePadded, Mutex, Ordering};
use std::collections::VecDeque;

struct Cell {
    sequence: AtomicUsize,
    job: AtomicPtr<JobHeader>,
}

pub(crate) struct Injector {
    cells: Box<[Cell]>,
    mask: usize,
    enqueue_pos: CachePadded<AtomicUsize>,
    dequeue_pos: CachePadded<AtomicUsize>,
    overflow_len: AtomicUsize,
    overflow: Mutex<VecDeque<JobRef>>,
}

impl Injector {
    /// A queue whose lock-free part holds `capacity` jobs (a power of two).
    pub(crate) fn new(capacity: usize) -> Injector {
        assert!(capacity.is_power_of_two() && capacity >= 2);
        let cells = (0..capacity)
            .map(|i| Cell {
                sequence: AtomicUsize::new(i),
                job: AtomicPtr::new(std::ptr::null_mut()),
            })
            .collect();
        Injector {
            cells,
            mask: capacity - 1,
            enqueue_pos: CachePadded(AtomicUsize::new(0)),
            dequeue_pos: CachePadded(AtomicUsize::new(0)),
            overflow_len: AtomicUsize::new(0),
            overflow: Mutex::new(VecDeque::new()),
        }
    }

    /// Whether the queue looks empty (a racy snapshot).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.enqueue_pos.load(Ordering::SeqCst) == self.dequeue_pos.load(Ordering::SeqCst)
            && self.overflow_len.load(Ordering::SeqCst) == 0
    }

    pub(crate) fn push(&self, job: JobRef) {
        trace_event!(InjectPush, job.as_ptr());
        // Once jobs have overflowed, later ones follow them there until the overflow drains:
        // every job in the ring is then older than every job in the overflow, and `pop`
        // takes the ring first, so FIFO order holds across the two parts. Relaxed: a push
        // ordered after an overflowing one (same thread, or happens-before) sees its increment
        // by coherence; a stale non-zero only costs the lock, which decides.
        if self.overflow_len.load(Ordering::Relaxed) != 0 {
            let mut overflow = self.overflow.lock().unwrap_or_else(|e| e.into_inner());
            if !overflow.is_empty() {
                overflow.push_back(job);
                self.overflow_len.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
        let mut pos = self.enqueue_pos.load(Ordering::Relaxed);
        loop {
            let cell = &self.cells[pos & self.mask];
            // Acquire: pairs with the Release of the pop that freed this cell.
            let seq = cell.sequence.load(Ordering::Acquire);
            let diff = seq.wrapping_sub(pos) as isize;
            if diff == 0 {
                match self.enqueue_pos.compare_exchange_weak(
                    pos,
                    pos.wrapping_add(1),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        cell.job.store(job.as_ptr(), Ordering::Relaxed);
                        // Release: publishes the job to the pop that sees this sequence.
                        cell.sequence.store(pos.wrapping_add(1), Ordering::Release);
                        return;
                    }
                    Err(now) => pos = now,
                }
            } else if diff < 0 {
                // Full: a whole lap ahead of the consumers.
                let mut overflow = self.overflow.lock().unwrap_or_else(|e| e.into_inner());
                overflow.push_back(job);
                self.overflow_len.fetch_add(1, Ordering::SeqCst);
                return;
            } else {
                pos = self.enqueue_pos.load(Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn pop(&self) -> Option<JobRef> {
        let mut pos = self.dequeue_pos.load(Ordering::Relaxed);
        loop {
            let cell = &self.cells[pos & self.mask];
            // Acquire: pairs with the Release of the push that filled this cell.
            let seq = cell.sequence.load(Ordering::Acquire);
            let diff = seq.wrapping_sub(pos.wrapping_add(1)) as isize;
            if diff == 0 {
                match self.dequeue_pos.compare_exchange_weak(
                    pos,
                    pos.wrapping_add(1),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        let job = cell.job.load(Ordering::Relaxed);
                        // Release: hands the cell back to the push one lap later.
                        cell.sequence
                            .store(pos.wrapping_add(self.mask + 1), Ordering::Release);
                        trace_event!(InjectPop, job);
                        // SAFETY: the cell held a JobRef pushed by `push`; winning the CAS
                        // for its position transfers it to us.
                        return Some(unsafe { JobRef::from_ptr(job) });
                    }
                    Err(now) => pos = now,
                }
            } else if diff < 0 {
                return self.pop_overflow();
            } else {
                pos = self.dequeue_pos.load(Ordering::Relaxed);
            }
        }
    }

    #[cold]
    fn pop_overflow(&self) -> Option<JobRef> {
        if self.overflow_len.load(Ordering::SeqCst) == 0 {
            return None;
        }
        let mut overflow = self.overflow.lock().unwrap_or_else(|e| e.into_inner());
        let job = overflow.pop_front();
        if job.is_some() {
            self.overflow_len.fetch_sub(1, Ordering::SeqCst);
        }
        job
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn job(n: usize) -> JobRef {
        // SAFETY: fake, never executed.
        unsafe { JobRef::new(std::ptr::without_provenance::<JobHeader>(n * 8)) }
    }

    #[test]
    fn fifo_and_overflow() {
        let q = Injector::new(4);
        assert!(q.is_empty());
        for i in 1..=10 {
            q.push(job(i));
        }
        let mut got: Vec<usize> = std::iter::from_fn(|| q.pop())
            .map(|j| j.as_ptr() as usize / 8)
            .collect();
        assert_eq!(
            got,
            (1..=10).collect::<Vec<_>>(),
            "FIFO through the overflow"
        );
        assert!(q.is_empty());
        // Room in the ring again while the overflow still holds jobs: later jobs queue behind
        // the overflow, not in the ring ahead of it.
        for i in 1..=6 {
            q.push(job(i));
        }
        got = vec![q.pop().unwrap().as_ptr() as usize / 8];
        for i in 7..=9 {
            q.push(job(i));
        }
        got.extend(std::iter::from_fn(|| q.pop()).map(|j| j.as_ptr() as usize / 8));
        assert_eq!(got, (1..=9).collect::<Vec<_>>());
        assert!(q.is_empty());
    }

    #[test]
    fn many_producers_many_consumers() {
        let per = if cfg!(miri) { 50 } else { 50_000 };
        let q = Arc::new(Injector::new(64));
        let producers: Vec<_> = (0..3)
            .map(|p| {
                let q = q.clone();
                std::thread::spawn(move || {
                    for i in 0..per {
                        q.push(job(1 + p * per + i));
                    }
                })
            })
            .collect();
        let total = 3 * per;
        let taken = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new((0..=total).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>());
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let (q, taken, seen) = (q.clone(), taken.clone(), seen.clone());
                std::thread::spawn(move || {
                    while taken.load(Ordering::SeqCst) < total {
                        if let Some(j) = q.pop() {
                            seen[j.as_ptr() as usize / 8].fetch_add(1, Ordering::Relaxed);
                            taken.fetch_add(1, Ordering::SeqCst);
                        } else {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        for h in producers.into_iter().chain(consumers) {
            h.join().unwrap();
        }
        assert!(seen.iter().skip(1).all(|s| s.load(Ordering::Relaxed) == 1));
    }
}
