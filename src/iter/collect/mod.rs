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
    par_iter.drive_unindexed(list::ListVecConsumer)
}

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
pub(super) fn append_list<T: Send>(vec: &mut Vec<T>, mut list: LinkedList<Vec<T>>) {
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
    if bytes < PARALLEL_APPEND_BYTES {
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
