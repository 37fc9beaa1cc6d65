//! `par_dedup`, `par_dedup_by` and `par_dedup_by_key` on `Vec`: std's `Vec::dedup*` in
//! parallel, in three steps.
//!
//! 1. The vector is cut by length into blocks, and every block removes its own consecutive
//!    duplicates in parallel, keeping the first of each run and compacting what it keeps to
//!    the block's front (std's algorithm, one block each).
//! 2. On the calling thread, each block's first kept element is compared with the last kept
//!    element before the block, and removed if they are in the same bucket: one call of
//!    `same_bucket` per block. When `same_bucket` is an equivalence relation (the intended use,
//!    as with std), nothing else can change: a block's later kept elements differ from its
//!    first, hence from the element before the block.
//! 3. The kept runs move down in place, one after the other on the calling thread, to offsets
//!    from a prefix sum of their lengths. A run's new place can overlap the kept run of the
//!    block before it, which must have moved first, so the moves form a chain and cannot run
//!    in parallel. A new buffer would let them all move at once, but the first writes to fresh
//!    memory (a page fault and the kernel's zeroing per page) took longer than the whole
//!    serial move, and it doubles the memory held (PERF.md). Nothing moves when nothing was
//!    removed.
//!
//! `par_dedup` on a type without drop glue takes a faster leaf in step 1 (and on one thread,
//! where std's `dedup` ran before): each element is compared with the element just before it
//! *in the input*, not with the last element kept, and moved to the write position whether
//! it is kept or not, the position advancing by one when it is kept. The loop then has no
//! branch on the data (std's mispredicts on about every other duplicate of a random input)
//! and no chain of dependent loads through the write position. For `==` the two comparisons
//! agree: `PartialEq` is transitive, so an element equals the last kept one exactly when it
//! equals its predecessor (which is that kept one or equal to it).
//!
//! Panic safety: while the steps run, the vector's length is 0 and every block records, in
//! its guard, which of its slots hold live elements (a block that never ran: all of them).
//! If `same_bucket` (or a removed element's `Drop`) panics, every block's guard still closes
//! the gap it was making, step 3 collects the live elements, and the panic goes on to the
//! caller: the vector then holds a subsequence of its input (each kept element in its latest
//! state), and every other element was dropped exactly once.

use crate::iter::{IntoParallelIterator, ParallelIterator};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Vectors shorter than this are deduplicated by std on the calling thread: below it the
/// work (a few microseconds) does not pay for waking a thread.
const SEQUENTIAL_LEN: usize = 1 << 15;

/// Blocks per thread: a few, so a thread whose blocks remove little is not left idle.
const BLOCKS_PER_THREAD: usize = 4;

/// The smallest block: every block costs one serial `same_bucket` call in step 2.
const MIN_BLOCK: usize = 1 << 12;

/// Parallel methods of `Vec` that need to own its buffer: std's `dedup` family.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v: Vec<u32> = (0..100_000).map(|x| x / 10).collect();
/// v.par_dedup();
/// assert_eq!(v, (0..10_000).collect::<Vec<_>>());
/// ```
pub trait ParallelVec<T: Send> {
    /// Removes consecutive repeated elements (by `==`), keeping the first of each run, as
    /// std's `Vec::dedup`. The capacity is kept.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![1, 2, 2, 3, 2, 2, 2];
    /// v.par_dedup();
    /// assert_eq!(v, [1, 2, 3, 2]);
    /// ```
    fn par_dedup(&mut self)
    where
        T: PartialEq;

    /// Removes every element `a` for which `same_bucket(a, b)` holds, `b` being the element
    /// kept before it, as std's `Vec::dedup_by` (same argument order: the later element
    /// first). `same_bucket` may move data between the two (say, add `a`'s count into `b`).
    ///
    /// `same_bucket` is `Fn + Sync` (it runs on several threads) and must be an equivalence
    /// relation (symmetric and transitive on the elements it sees), as in std's intended
    /// use: then the result is std's. For a relation that is not (`|a, b| a - b < 3`), each
    /// block of the vector is deduplicated as by std and the blocks' first elements are
    /// checked against the element before them, which may keep elements std would remove.
    /// A fold inside `same_bucket` (`b.count += a.count`) must be associative, as the
    /// elements of a run may be folded block by block.
    ///
    /// If `same_bucket` panics, the panic reaches the caller and the vector holds a
    /// subsequence of its elements; all others are dropped, each exactly once.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec!["foo", "bar", "Bar", "baz", "bar"];
    /// v.par_dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    /// assert_eq!(v, ["foo", "bar", "baz", "bar"]);
    ///
    /// // Merging each run into its first element: counts of runs.
    /// let mut runs: Vec<(char, u32)> = "aaabccdd".chars().map(|c| (c, 1)).collect();
    /// runs.par_dedup_by(|a, b| a.0 == b.0 && { b.1 += a.1; true });
    /// assert_eq!(runs, [('a', 3), ('b', 1), ('c', 2), ('d', 2)]);
    /// ```
    fn par_dedup_by<F>(&mut self, same_bucket: F)
    where
        F: Fn(&mut T, &mut T) -> bool + Sync;

    /// Removes consecutive elements whose keys are equal, keeping the first of each run, as
    /// std's `Vec::dedup_by_key`. `key` is `Fn + Sync`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![10, 20, 21, 30, 20];
    /// v.par_dedup_by_key(|x| *x / 10);
    /// assert_eq!(v, [10, 20, 30, 20]);
    /// ```
    fn par_dedup_by_key<K, F>(&mut self, key: F)
    where
        K: PartialEq,
        F: Fn(&mut T) -> K + Sync,
    {
        self.par_dedup_by(|a, b| key(a) == key(b))
    }
}

impl<T: Send> ParallelVec<T> for Vec<T> {
    fn par_dedup(&mut self)
    where
        T: PartialEq,
    {
        let eq = |a: &mut T, b: &mut T| a == b;
        if std::mem::needs_drop::<T>() {
            // SAFETY: without `ADJACENT` there is nothing to promise.
            unsafe { dedup_by::<T, _, false>(self, &eq) }
        } else {
            // SAFETY: `T` has no drop glue and `eq` only compares with `==`.
            unsafe { dedup_by::<T, _, true>(self, &eq) }
        }
    }

    fn par_dedup_by<F>(&mut self, same_bucket: F)
    where
        F: Fn(&mut T, &mut T) -> bool + Sync,
    {
        // SAFETY: without `ADJACENT` there is nothing to promise.
        unsafe { dedup_by::<T, _, false>(self, &same_bucket) }
    }
}

/// Std's `dedup_by`, in parallel; `ADJACENT`: with the faster leaf of the module docs.
///
/// # Safety
///
/// With `ADJACENT`, `T` has no drop glue and `same_bucket` only compares its arguments with
/// `==` (it reads them and writes nothing).
unsafe fn dedup_by<T, F, const ADJACENT: bool>(v: &mut Vec<T>, same_bucket: &F)
where
    T: Send,
    F: Fn(&mut T, &mut T) -> bool + Sync,
{
    let threads = crate::current_num_threads();
    if v.len() < SEQUENTIAL_LEN || threads == 1 {
        if ADJACENT && v.len() > 1 {
            // SAFETY: `v.len() >= 1`; `ADJACENT`'s promise is the caller's.
            unsafe { dedup_whole::<T, F, true>(v, same_bucket) };
        } else {
            v.dedup_by(|a, b| same_bucket(a, b));
        }
        return;
    }
    let block = v.len().div_ceil(threads * BLOCKS_PER_THREAD).max(MIN_BLOCK);
    // SAFETY: `ADJACENT`'s promise is the caller's.
    crate::scheduler::in_pool(|| unsafe {
        dedup_in_blocks::<T, F, ADJACENT>(v, same_bucket, block)
    });
}

/// A raw pointer to the vector's buffer that the blocks share; each block touches only its
/// own slots, and step 3 only reads.
struct BufferPtr<T>(*mut T);

impl<T> Clone for BufferPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for BufferPtr<T> {}

impl<T> BufferPtr<T> {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not its field).
    fn get(self) -> *mut T {
        self.0
    }
}

// SAFETY: the pointer is used to move `T`s between threads (each slot by one thread at a
// time), which `T: Send` allows.
unsafe impl<T: Send> Send for BufferPtr<T> {}
// SAFETY: as for `Send`: threads sharing it touch disjoint slots.
unsafe impl<T: Send> Sync for BufferPtr<T> {}

/// The vector as one block, on the calling thread; its length is set to the kept elements
/// on return or unwind.
///
/// # Safety
///
/// `v.len() >= 1`; as for [`dedup_block`] with `ADJACENT`.
unsafe fn dedup_whole<T, F, const ADJACENT: bool>(v: &mut Vec<T>, same_bucket: &F)
where
    F: Fn(&mut T, &mut T) -> bool,
{
    /// Sets the vector's length to the live elements counted at its front.
    struct SetLen<'a, T>(&'a mut Vec<T>, &'a AtomicUsize);
    impl<T> Drop for SetLen<'_, T> {
        fn drop(&mut self) {
            // SAFETY: `dedup_block` has returned or unwound: `self.1` counts the live
            // elements at the buffer's front.
            unsafe { self.0.set_len(self.1.load(Ordering::Relaxed)) };
        }
    }
    let len = v.len();
    let alive = AtomicUsize::new(len);
    // SAFETY: the elements stay in the buffer while the leaf runs; the guard sets the length
    // back to the live elements, on return or unwind.
    unsafe { v.set_len(0) };
    let v = SetLen(v, &alive);
    // SAFETY: `v[..len]` are live (length 0 now: no one else touches them) and `len >= 1`;
    // `ADJACENT` as the caller promises.
    unsafe { dedup_block::<T, F, ADJACENT>(v.0.as_mut_ptr(), len, &alive, same_bucket) };
}

/// Steps 1 to 3 with blocks of `block` elements (`block >= 1`).
///
/// # Safety
///
/// As for [`dedup_by`].
unsafe fn dedup_in_blocks<T, F, const ADJACENT: bool>(v: &mut Vec<T>, same_bucket: &F, block: usize)
where
    T: Send,
    F: Fn(&mut T, &mut T) -> bool + Sync,
{
    let len = v.len();
    if len <= 1 {
        return;
    }
    let blocks = len.div_ceil(block);
    let block_len = |b: usize| block.min(len - b * block);
    // Block `b`'s live elements are its slots `first[b]..alive_end[b]`.
    let alive_end: Vec<AtomicUsize> = (0..blocks)
        .map(|b| AtomicUsize::new(block_len(b)))
        .collect();
    let mut first = vec![0usize; blocks];
    // SAFETY: the elements stay in the buffer; from here on the blocks' records say which
    // slots hold live elements, and `collect_alive` sets the length back.
    unsafe { v.set_len(0) };
    let base = BufferPtr(v.as_mut_ptr());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        (0..blocks).into_par_iter().for_each(|b| {
            // SAFETY: block `b`'s slots `b * block..` (`block_len(b)` of them) are live and
            // touched by this call only; `ADJACENT`'s promise is our caller's.
            unsafe {
                dedup_block::<T, F, ADJACENT>(
                    base.get().add(b * block),
                    block_len(b),
                    &alive_end[b],
                    same_bucket,
                )
            };
        });
        let mut last_kept: Option<usize> = None;
        for (b, first) in first.iter_mut().enumerate() {
            let start = b * block;
            if let Some(last) = last_kept {
                // SAFETY: `start` is the live first slot of block `b` (a block keeps its first
                // element), `last` a live slot of an earlier block: two distinct live slots.
                unsafe {
                    let current = base.0.add(start);
                    if same_bucket(&mut *current, &mut *base.0.add(last)) {
                        // Recorded before the drop, so a panicking `Drop` is not run twice.
                        *first = 1;
                        ptr::drop_in_place(current);
                    }
                }
            }
            let end = alive_end[b].load(Ordering::Relaxed);
            if end > *first {
                last_kept = Some(start + end - 1);
            }
        }
    }));
    // SAFETY: every block's guard has run (the parallel loop returns or unwinds only after
    // all its leaves are done), so `first` and `alive_end` describe the live slots exactly.
    unsafe { collect_alive(v, base, block, &first, &alive_end) };
    if let Err(panic) = outcome {
        resume_unwind(panic);
    }
}

/// Std's dedup on one block, compacting the kept elements to its front; on return or unwind
/// `alive_end` holds the count of live elements at the block's front. `ADJACENT`: the faster
/// leaf of the module docs.
///
/// # Safety
///
/// `block[..len]` are live elements, `len >= 1`, touched by no one else during the call.
/// With `ADJACENT`, `T` has no drop glue and `same_bucket` only compares its arguments with
/// `==`.
unsafe fn dedup_block<T, F, const ADJACENT: bool>(
    block: *mut T,
    len: usize,
    alive_end: &AtomicUsize,
    same_bucket: &F,
) where
    F: Fn(&mut T, &mut T) -> bool,
{
    /// Slots `..write` are kept, `write..read` are gaps (moved or dropped), `read..len` are
    /// not yet looked at. On drop it closes the gap.
    struct Gap<'a, T> {
        block: *mut T,
        read: usize,
        write: usize,
        len: usize,
        alive_end: &'a AtomicUsize,
    }
    impl<T> Drop for Gap<'_, T> {
        fn drop(&mut self) {
            let rest = self.len - self.read;
            // SAFETY: `read..len` are live and `write <= read`: moving them down to `write`
            // (overlapping, hence `copy`) leaves `..write + rest` live.
            unsafe { ptr::copy(self.block.add(self.read), self.block.add(self.write), rest) };
            self.alive_end.store(self.write + rest, Ordering::Relaxed);
        }
    }
    let mut gap = Gap {
        block,
        read: 1,
        write: 1,
        len,
        alive_end,
    };
    if ADJACENT {
        while gap.read < gap.len {
            // SAFETY: `read` is live and not yet looked at. Slot `read - 1` still holds the
            // bits of the element before it in the input: later writes go to slots
            // `write <= read`, and the one write to it so far (if any) was that element
            // itself. It was kept (and copied to a slot below, or left in place) or dropped,
            // which did nothing (no drop glue), so those bits are a value of `T` that `==`
            // may read; the caller's `same_bucket` only reads it. Moving `read` to `write`
            // (the same slot, or a gap) whether or not it is kept leaves the kept run at
            // `..write` once `write` advances for a kept element; a duplicate left in a gap
            // needs no drop.
            unsafe {
                let current = block.add(gap.read);
                let duplicate = same_bucket(&mut *current, &mut *block.add(gap.read - 1));
                ptr::copy(current, block.add(gap.write), 1);
                gap.write += usize::from(!duplicate);
                gap.read += 1;
            }
        }
        return;
    }
    while gap.read < gap.len {
        // SAFETY: `read` is live and not yet looked at; `write - 1` is the last kept slot,
        // live and distinct from `read` (`write <= read`).
        unsafe {
            let current = block.add(gap.read);
            let kept = block.add(gap.write - 1);
            if same_bucket(&mut *current, &mut *kept) {
                gap.read += 1;
                ptr::drop_in_place(current);
            } else {
                if gap.read != gap.write {
                    ptr::copy_nonoverlapping(current, block.add(gap.write), 1);
                }
                gap.write += 1;
                gap.read += 1;
            }
        }
    }
}

/// Step 3: moves the live runs together, in place, and sets the vector's length.
///
/// # Safety
///
/// `v` has length 0 and its buffer `base`; block `b`'s slots `first[b]..alive_end[b]`
/// (counted from `b * block`) are exactly the live elements, and nothing else touches them.
unsafe fn collect_alive<T>(
    v: &mut Vec<T>,
    base: BufferPtr<T>,
    block: usize,
    first: &[usize],
    alive_end: &[AtomicUsize],
) {
    // In block order: block `b`'s run, at `b * block + first[b]..`, goes to `total..`, the
    // kept elements of the blocks before it. Those are whole blocks, so `total <= b * block`:
    // the run moves down (or stays, as every run does when nothing was removed before it),
    // its new place ends at or before its old end, and both lie before every later block's
    // run, which is still where step 1 left it. The earlier runs have moved already, so the
    // new place holds only gaps, slots of runs already moved, and the run itself.
    let mut total = 0;
    for (b, &first) in first.iter().enumerate() {
        let from = b * block + first;
        let n = alive_end[b].load(Ordering::Relaxed) - first;
        if from != total && n > 0 {
            // SAFETY: as above, `from..from + n` are this run's live elements and
            // `total..total + n` (`total < from`) holds nothing live but them, inside the
            // buffer; `copy` allows the overlap.
            unsafe { ptr::copy(base.0.add(from), base.0.add(total), n) };
        }
        total += n;
    }
    // SAFETY: the buffer's `..total` now hold the live elements, each moved once.
    unsafe { v.set_len(total) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    #[test]
    fn every_block_size_agrees_with_std() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            // Under Miri (an interpreter), every length to 13 (a last block of every size,
            // after at least one full one, for each block size below) and two longer ones, in
            // two thirds of the time of every sixth length (whose remainders by 2 and 6 were
            // all 0).
            let lengths: Vec<u32> = if cfg!(miri) {
                (0..14).chain([29, 59]).collect()
            } else {
                (0..60).collect()
            };
            for len in lengths {
                let input: Vec<u32> = (0..len).map(|i| (i * 7 % 11) / 4).collect();
                let mut expected = input.clone();
                expected.dedup();
                for block in 1..8 {
                    let mut got = input.clone();
                    // SAFETY: no promise without `ADJACENT`.
                    unsafe {
                        dedup_in_blocks::<_, _, false>(
                            &mut got,
                            &|a: &mut u32, b: &mut u32| a == b,
                            block,
                        )
                    };
                    assert_eq!(got, expected, "len {len}, block {block}");
                    let mut got = input.clone();
                    // SAFETY: `u32` has no drop glue; the closure is `==`.
                    unsafe {
                        dedup_in_blocks::<_, _, true>(
                            &mut got,
                            &|a: &mut u32, b: &mut u32| a == b,
                            block,
                        )
                    };
                    assert_eq!(got, expected, "adjacent, len {len}, block {block}");
                }
            }
        });
    }

    #[test]
    fn merging_runs_across_blocks() {
        // Under Miri, 200 items: five runs and a part, still cut by every block size below
        // (one block of all but the last item included); a fifth of the time.
        let len = if cfg!(miri) { 200 } else { 1000 };
        let input: Vec<(u8, u32)> = (0..len).map(|i| ((i / 37) as u8, 1)).collect();
        let mut expected = input.clone();
        expected.dedup_by(|a, b| {
            a.0 == b.0 && {
                b.1 += a.1;
                true
            }
        });
        for block in [1, 5, 36, 37, 38, len as usize - 1] {
            let mut got = input.clone();
            let merge = |a: &mut (u8, u32), b: &mut (u8, u32)| {
                a.0 == b.0 && {
                    b.1 += a.1;
                    true
                }
            };
            // SAFETY: no promise without `ADJACENT`.
            unsafe { dedup_in_blocks::<_, _, false>(&mut got, &merge, block) };
            assert_eq!(got, expected, "block {block}");
        }
    }

    /// `f64` (`==` is not reflexive: no NaN equals anything) through the faster leaf, on one
    /// thread and in blocks: std's result.
    #[test]
    fn nan_runs_agree_with_std() {
        let input: Vec<f64> = (0..300u32)
            .map(|i| match i % 7 {
                0 | 1 => f64::NAN,
                2 => -0.0,
                3 => 0.0,
                _ => f64::from(i / 20),
            })
            .collect();
        let mut expected = input.clone();
        expected.dedup();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let eq = |a: &mut f64, b: &mut f64| a == b;
        let mut whole = input.clone();
        // SAFETY: `f64` has no drop glue; the closure is `==`.
        unsafe { dedup_whole::<_, _, true>(&mut whole, &eq) };
        assert_eq!(bits(&whole), bits(&expected));
        for block in [1, 2, 7, 64] {
            let mut got = input.clone();
            // SAFETY: as above.
            unsafe { dedup_in_blocks::<_, _, true>(&mut got, &eq, block) };
            assert_eq!(bits(&got), bits(&expected), "block {block}");
        }
    }

    /// A `PartialEq` that panics in the faster leaf (a type without drop glue): the panic
    /// reaches the caller and the vector holds a subsequence of its input, on one thread
    /// and in blocks.
    #[test]
    fn adjacent_leaf_panics_cleanly() {
        #[derive(Clone, Copy, Debug)]
        struct Touchy(u32);
        impl PartialEq for Touchy {
            fn eq(&self, other: &Self) -> bool {
                assert!(self.0 != 50, "touched");
                self.0 == other.0
            }
        }
        let input: Vec<Touchy> = (0..200).map(|i| Touchy(i / 3)).collect();
        let eq = |a: &mut Touchy, b: &mut Touchy| a == b;
        for threads in [1, 3] {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut v = input.clone();
            let result = pool.install(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    // SAFETY: `Touchy` has no drop glue; the closure is `==`.
                    unsafe {
                        if threads == 1 {
                            dedup_by::<_, _, true>(&mut v, &eq)
                        } else {
                            dedup_in_blocks::<_, _, true>(&mut v, &eq, 16)
                        }
                    }
                }))
            });
            assert!(result.is_err(), "{threads} threads");
            let mut rest = input.iter().map(|t| t.0);
            assert!(
                v.iter().all(|t| rest.any(|x| x == t.0)),
                "{threads} threads: {v:?} is not a subsequence"
            );
            assert!(
                v.iter().any(|t| t.0 == 50) && v.len() > 67,
                "{threads} threads"
            );
        }
    }

    #[test]
    fn capacity_is_kept() {
        let mut v: Vec<u32> = Vec::with_capacity(500);
        v.extend((0..300).map(|i| i / 3));
        // SAFETY: `u32` has no drop glue; the closure is `==`.
        unsafe { dedup_in_blocks::<_, _, true>(&mut v, &|a: &mut u32, b: &mut u32| a == b, 16) };
        assert_eq!(v, (0..100).collect::<Vec<_>>());
        assert!(v.capacity() >= 500);
    }
}
