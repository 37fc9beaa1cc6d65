//! `collect`, `collect_into_vec`, `unzip_into_vecs` and the [`FromParallelIterator`] /
//! [`ParallelExtend`] implementations for std's collections.
//!
//! Into a `Vec`, an iterator of known length writes straight into the vector's spare capacity
//! (see `consumer.rs`); one of unknown length collects a list of blocks (`list.rs`), which
//! [`append_list`] copies into place in parallel. Other collections extend sequentially from
//! such a list. Large destinations are advised for huge pages first (`sync::advise_fill`).

mod consumer;
mod list;
mod targets;

use self::consumer::CollectConsumer;
pub(crate) use self::list::ListVecConsumer;
pub(crate) use self::targets::WhileSomeConsumer;
use super::*;
use crate::SyncPtr;
use std::collections::LinkedList;

/// Appends `len` items to `vec` through a [`CollectConsumer`] given to `drive`.
///
/// Panics if `drive` writes a different number of items; items already written are dropped.
fn collect_with_consumer<T, F>(vec: &mut Vec<T>, len: usize, drive: F)
where
    T: Send,
    F: FnOnce(CollectConsumer<'_, T>) -> consumer::CollectResult<'_, T>,
{
    vec.reserve(len);
    let start = vec.len();
    let spare = &mut vec.spare_capacity_mut()[..len];
    crate::sync::advise_fill(
        spare.as_mut_ptr().cast(),
        len.saturating_mul(std::mem::size_of::<T>()),
    );
    let result = drive(CollectConsumer::new(spare));
    let written = result.len();
    assert_eq!(
        written, len,
        "collect: expected {len} items, but the iterator produced {written}"
    );
    result.release_ownership();
    // SAFETY: the `len` slots after `start` were all written (counted above) and their
    // ownership has just been released to the vector.
    unsafe { vec.set_len(start + len) };
}

pub(super) fn collect_into_vec<I>(par_iter: I, target: &mut Vec<I::Item>)
where
    I: IndexedParallelIterator,
{
    target.clear();
    let len = par_iter.len();
    collect_with_consumer(target, len, |consumer| par_iter.drive(consumer));
}

pub(super) fn unzip_into_vecs<I, A, B>(par_iter: I, left: &mut Vec<A>, right: &mut Vec<B>)
where
    I: IndexedParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
{
    left.clear();
    right.clear();
    let len = par_iter.len();
    collect_with_consumer(left, len, |left_consumer| {
        let mut right_result = None;
        collect_with_consumer(right, len, |right_consumer| {
            let (l, r) = par_iter.drive(super::unzip::UnzipConsumer::new(
                &super::unzip::Unzip,
                left_consumer,
                right_consumer,
            ));
            right_result = Some(l);
            r
        });
        right_result.expect("unzip_into_vecs: the drive ran")
    });
}

/// The items of `par_iter`, as a list of vectors in order.
pub(crate) fn collect_list<I>(par_iter: I) -> LinkedList<Vec<I::Item>>
where
    I: ParallelIterator,
{
    par_iter.drive_unindexed(list::ListVecConsumer::new())
}

// One of the thresholds kept beside their code: listed, with its origin, in the second table
// of `src/tuning.rs` (`tests/docs_stay_true.rs` holds the two to the same value).
/// Below this many bytes, the vectors of a list are appended by one thread: a parallel copy
/// pays off only once it takes longer than the driver's minimum split (tens of microseconds,
/// a few hundred kilobytes of `memcpy`).
const PARALLEL_APPEND_BYTES: usize = 256 << 10;

/// Moves the items of `list`, in order, to the end of `vec`.
///
/// The first vector becomes `vec` itself when `vec` is empty and too small (no copy of its
/// items: growing it in place is at worst the allocation and copy a fresh vector would cost);
/// the others are copied into place in parallel, each thread taking a range of the
/// destination. No user code runs here, so nothing can panic part-way.
pub(super) fn append_list<T: Send>(vec: &mut Vec<T>, list: LinkedList<Vec<T>>) {
    append_list_from(vec, list, PARALLEL_APPEND_BYTES);
}

/// [`append_list`], copying in parallel once the items to copy take `parallel_bytes` or more
/// (a parameter so that the tests reach the parallel copy with a few items, under Miri too).
fn append_list_from<T: Send>(
    vec: &mut Vec<T>,
    mut list: LinkedList<Vec<T>>,
    parallel_bytes: usize,
) {
    let total: usize = list.iter().map(Vec::len).sum();
    if vec.is_empty() && vec.capacity() < total {
        if let Some(first) = list.pop_front() {
            *vec = first;
        }
    }
    let pieces: Vec<Vec<T>> = list.into_iter().filter(|v| !v.is_empty()).collect();
    if pieces.is_empty() {
        return;
    }
    let extra: usize = pieces.iter().map(Vec::len).sum();
    vec.reserve(extra);
    let start = vec.len();
    let bytes = extra.saturating_mul(std::mem::size_of::<T>());
    if bytes < parallel_bytes {
        for mut piece in pieces {
            vec.append(&mut piece);
        }
        return;
    }
    let spare = &mut vec.spare_capacity_mut()[..extra];
    crate::sync::advise_fill(spare.as_mut_ptr().cast(), bytes);
    let target = SyncPtr::new(spare);
    // offsets[i]: where piece i starts in `target`.
    let mut offsets = Vec::with_capacity(pieces.len());
    let mut next = 0;
    for piece in &pieces {
        offsets.push(next);
        next += piece.len();
    }
    let sources: Vec<(*const T, usize)> = pieces.iter().map(|v| (v.as_ptr(), v.len())).collect();
    let sources = SendPtrs(&sources);
    crate::parallel_for_chunks(0..extra, |range| {
        // The first piece that overlaps `range`, then each piece up to its end.
        let mut i = offsets.partition_point(|&o| o <= range.start) - 1;
        let mut at = range.start;
        while at < range.end {
            let (ptr, len) = sources.get(i);
            let from = at - offsets[i];
            let n = (len - from).min(range.end - at);
            // SAFETY: piece `i` holds `len` initialised items and `from + n <= len`; the
            // destination `at..at + n` lies inside `target` (`at + n <= range.end <= extra`),
            // and the ranges the driver hands out are disjoint, so no other thread writes
            // there. Source and destination are different allocations.
            unsafe { std::ptr::copy_nonoverlapping(ptr.add(from), target.get(at).cast::<T>(), n) };
            at += n;
            i += 1;
        }
    });
    // The items now live in `vec`: forget them in the pieces, which only free their buffers.
    for mut piece in pieces {
        // SAFETY: every item of the piece was moved out above (the copy covered all of
        // `0..extra`), so none may be dropped here.
        unsafe { piece.set_len(0) };
    }
    // SAFETY: the `extra` slots after `start` were all written above.
    unsafe { vec.set_len(start + extra) };
}

/// The source pointers of [`append_list`], shared by the threads that copy.
struct SendPtrs<'a, T>(&'a [(*const T, usize)]);

// SAFETY: the pointers are only read through (items of `T: Send` moved to other threads),
// each item by exactly one thread, while the owning vectors stay alive and untouched.
unsafe impl<T: Send> Sync for SendPtrs<'_, T> {}

impl<T> SendPtrs<'_, T> {
    /// Piece `i`'s items and length (a method, so that closures capture the whole wrapper).
    fn get(&self, i: usize) -> (*const T, usize) {
        self.0[i]
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        let par_iter = par_iter.into_par_iter();
        match par_iter.opt_len() {
            Some(len) => {
                collect_with_consumer(self, len, |consumer| par_iter.drive_unindexed(consumer))
            }
            None => append_list(self, collect_list(par_iter)),
        }
    }
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        let mut v = Vec::new();
        v.par_extend(par_iter);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Pieces of `lens` items, numbered on from `first` across the pieces.
    fn pieces<T>(first: usize, lens: &[usize], item: impl Fn(usize) -> T) -> LinkedList<Vec<T>> {
        let mut next = first;
        let mut list = LinkedList::new();
        for &len in lens {
            list.push_back((next..next + len).map(&item).collect());
            next += len;
        }
        list
    }

    /// The parallel copy puts every item in its place, once, behind what `vec` held, for
    /// pieces of uneven lengths (empty ones too), and for items that own memory; the empty
    /// destination adopts the first piece. A pool of 3 threads, so that the copy may split.
    #[test]
    fn append_list_copies_in_parallel_in_order() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let lens: &[usize] = if cfg!(miri) {
            &[3, 0, 1, 7, 2, 0, 5]
        } else {
            &[1000, 0, 1, 37_000, 5, 0, 12_000, 3]
        };
        let total: usize = lens.iter().sum();
        pool.install(|| {
            for (threshold, held) in [(0, 0), (0, 4), (PARALLEL_APPEND_BYTES, 0)] {
                let mut numbers: Vec<u64> = (0..held as u64).collect();
                append_list_from(&mut numbers, pieces(held, lens, |i| i as u64), threshold);
                assert!(numbers.iter().copied().eq(0..(held + total) as u64));

                let mut strings: Vec<String> = (0..held).map(|i| i.to_string()).collect();
                append_list_from(
                    &mut strings,
                    pieces(held, lens, |i| i.to_string()),
                    threshold,
                );
                assert_eq!(strings.len(), held + total);
                assert!(strings.iter().enumerate().all(|(i, s)| *s == i.to_string()));
            }
        });
    }

    /// Items moved by the parallel copy are dropped once, by their new owner.
    #[test]
    fn append_list_drops_each_item_once() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted(usize);
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::Relaxed);
            }
        }
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let lens = [2, 9, 0, 4, 6];
        pool.install(|| {
            let mut v = vec![Counted(0)];
            append_list_from(&mut v, pieces(1, &lens, Counted), 0);
            assert!(v.iter().enumerate().all(|(i, c)| c.0 == i));
            assert_eq!(DROPS.load(Ordering::Relaxed), 0);
            drop(v);
        });
        assert_eq!(
            DROPS.load(Ordering::Relaxed),
            1 + lens.iter().sum::<usize>()
        );
    }
}
