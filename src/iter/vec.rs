//! `Vec` and arrays as parallel iterators by value, and `Vec::par_drain`.
//!
//! All three hand out a [`DrainProducer`]: a producer that owns the items of a slice whose
//! owner has already forgotten them (a `Vec` whose length was cut, an array wrapped in
//! `ManuallyDrop`). Each item is either moved out by the leaf that iterates it or dropped by the
//! producer or iterator that holds it when dropped, never both, so a panic anywhere drops every
//! item exactly once.

use super::plumbing::*;
use super::*;
use std::mem::{self, ManuallyDrop};
use std::ops::{Bound, Range, RangeBounds};
use std::ptr;

/// The parallel iterator of `Vec::into_par_iter`.
///
/// ```
/// use blitz_par::prelude::*;
/// let v = vec![String::from("a"), String::from("b")];
/// let joined: String = v.into_par_iter().collect();
/// assert_eq!(joined, "ab");
/// ```
#[derive(Clone, Debug)]
pub struct VecIntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> VecIntoIter<T> {
        VecIntoIter { vec: self }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Iter = crate::slice::Iter<'data, T>;
    type Item = &'data T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter()
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Iter = crate::slice::IterMut<'data, T>;
    type Item = &'data mut T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_mut_slice().into_par_iter()
    }
}

/// A boxed slice iterates as the `Vec` it converts to without copying (rayon 1.11).
///
/// ```
/// use blitz_par::prelude::*;
/// let b: Box<[i32]> = vec![1, 2, 3].into_boxed_slice();
/// assert_eq!((&b).into_par_iter().sum::<i32>(), 6);
/// assert_eq!(b.into_par_iter().map(|x| x * 2).sum::<i32>(), 12);
/// ```
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = VecIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> VecIntoIter<T> {
        self.into_vec().into_par_iter()
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Box<[T]> {
    type Iter = crate::slice::Iter<'data, T>;
    type Item = &'data T;
    fn into_par_iter(self) -> Self::Iter {
        (**self).into_par_iter()
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Box<[T]> {
    type Iter = crate::slice::IterMut<'data, T>;
    type Item = &'data mut T;
    fn into_par_iter(self) -> Self::Iter {
        (**self).into_par_iter()
    }
}

impl<T: Send> ParallelIterator for VecIntoIter<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for VecIntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.vec.len()
    }
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let len = self.vec.len();
        // SAFETY: length 0 is always valid; the items are now owned by the producer below, and
        // the vector only frees its buffer when dropped after the callback.
        unsafe { self.vec.set_len(0) };
        // SAFETY: the first `len` slots were initialised and are owned by nobody else now.
        let producer = unsafe {
            DrainProducer::new(std::slice::from_raw_parts_mut(self.vec.as_mut_ptr(), len))
        };
        callback.callback(producer)
    }
}

/// The parallel iterator of `[T; N]::into_par_iter`.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!([1, 2, 3].into_par_iter().sum::<i32>(), 6);
/// ```
#[derive(Clone, Debug)]
pub struct ArrayIntoIter<T, const N: usize> {
    array: [T; N],
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = ArrayIntoIter<T, N>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        ArrayIntoIter { array: self }
    }
}

impl<'data, T: Sync + 'data, const N: usize> IntoParallelIterator for &'data [T; N] {
    type Iter = crate::slice::Iter<'data, T>;
    type Item = &'data T;
    fn into_par_iter(self) -> Self::Iter {
        self[..].into_par_iter()
    }
}

impl<'data, T: Send + 'data, const N: usize> IntoParallelIterator for &'data mut [T; N] {
    type Iter = crate::slice::IterMut<'data, T>;
    type Item = &'data mut T;
    fn into_par_iter(self) -> Self::Iter {
        self[..].into_par_iter()
    }
}

impl<T: Send, const N: usize> ParallelIterator for ArrayIntoIter<T, N> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Send, const N: usize> IndexedParallelIterator for ArrayIntoIter<T, N> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        N
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut array = ManuallyDrop::new(self.array);
        // SAFETY: the array will not drop its items (ManuallyDrop), so the producer owns them;
        // the array's storage lives on this frame until the callback returns.
        let producer = unsafe { DrainProducer::new(&mut array[..]) };
        callback.callback(producer)
    }
}

/// A producer that owns the items of its slice (see the module docs).
pub(crate) struct DrainProducer<'data, T: Send> {
    slice: &'data mut [T],
}

impl<'data, T: Send> DrainProducer<'data, T> {
    /// # Safety
    /// The items of `slice` are owned by the producer: nobody else reads or drops them, and the
    /// memory stays valid for `'data`.
    pub(crate) unsafe fn new(slice: &'data mut [T]) -> Self {
        DrainProducer { slice }
    }
}

impl<'data, T: Send> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = SliceDrain<'data, T>;

    fn into_iter(mut self) -> SliceDrain<'data, T> {
        // Take the slice so that our Drop sees an empty one: the iterator owns the items now.
        let slice = mem::take(&mut self.slice);
        SliceDrain {
            iter: slice.iter_mut(),
        }
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        let slice = mem::take(&mut self.slice);
        let (left, right) = slice.split_at_mut(index);
        (
            DrainProducer { slice: left },
            DrainProducer { slice: right },
        )
    }
}

impl<'data, T: Send> Drop for DrainProducer<'data, T> {
    fn drop(&mut self) {
        let slice = mem::take(&mut self.slice);
        // SAFETY: the producer owns these items and they were not moved out (see `new`).
        unsafe { ptr::drop_in_place::<[T]>(slice) };
    }
}

/// The sequential iterator of a [`DrainProducer`]: moves items out, drops the rest on drop.
pub(crate) struct SliceDrain<'data, T> {
    iter: std::slice::IterMut<'data, T>,
}

impl<'data, T: 'data> Iterator for SliceDrain<'data, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        let item = self.iter.next()?;
        // SAFETY: the iterator owns the item and advances past it, so it is read only once.
        Some(unsafe { ptr::read(item) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<'data, T: 'data> DoubleEndedIterator for SliceDrain<'data, T> {
    fn next_back(&mut self) -> Option<T> {
        let item = self.iter.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { ptr::read(item) })
    }
}

impl<'data, T: 'data> ExactSizeIterator for SliceDrain<'data, T> {}

impl<'data, T: 'data> Drop for SliceDrain<'data, T> {
    fn drop(&mut self) {
        let rest = mem::take(&mut self.iter).into_slice();
        // SAFETY: the items not yet yielded are owned by the iterator and read by nobody.
        unsafe { ptr::drop_in_place::<[T]>(rest) };
    }
}

/// The parallel iterator of [`Vec::par_drain`](crate::iter::ParallelDrainRange::par_drain).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v: Vec<i32> = (0..10).collect();
/// let middle: Vec<i32> = v.par_drain(2..8).collect();
/// assert_eq!(middle, [2, 3, 4, 5, 6, 7]);
/// assert_eq!(v, [0, 1, 8, 9]);
/// ```
#[derive(Debug)]
pub struct Drain<'data, T: Send> {
    vec: &'data mut Vec<T>,
    range: Range<usize>,
    orig_len: usize,
}

/// `par_drain`: removes a range of items from a collection, yielding them in parallel.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = vec![1, 2, 3];
/// assert_eq!(v.par_drain(..).sum::<i32>(), 6);
/// assert!(v.is_empty());
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Removes the items of `range`, yielding them; the collection keeps the others, in order,
    /// even if the iterator is not run or a closure panics. Panics if `range` is out of bounds.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<'data, T: Send> ParallelDrainRange<usize> for &'data mut Vec<T> {
    type Iter = Drain<'data, T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'data, T> {
        let orig_len = self.len();
        Drain {
            vec: self,
            range: checked_range(range, orig_len),
            orig_len,
        }
    }
}

/// `start..end` of `range` within `0..len`; panics as `Vec::drain` does when out of bounds.
pub(super) fn checked_range<R: RangeBounds<usize>>(range: R, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1).expect("par_drain: range start overflows"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1).expect("par_drain: range end overflows"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(start <= end, "par_drain: range start {start} > end {end}");
    assert!(end <= len, "par_drain: range end {end} > length {len}");
    start..end
}

impl<'data, T: Send> ParallelIterator for Drain<'data, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.range.len())
    }
}

impl<'data, T: Send> IndexedParallelIterator for Drain<'data, T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.range.len()
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range.clone();
        // SAFETY: `start <= orig_len`; the items from `start` on are now owned by the producer
        // (the drained range) or by our Drop (the tail it moves back).
        unsafe { self.vec.set_len(start) };
        // SAFETY: `start..end` is in bounds and initialised, and owned by the producer alone.
        let producer = unsafe {
            DrainProducer::new(std::slice::from_raw_parts_mut(
                self.vec.as_mut_ptr().add(start),
                end - start,
            ))
        };
        callback.callback(producer)
        // `self` drops here and moves the tail back, after every item of the range is gone.
    }
}

impl<'data, T: Send> Drop for Drain<'data, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range.clone();
        if self.vec.len() == self.orig_len {
            // The iterator never ran: let std's drain drop the range and close the gap.
            self.vec.drain(start..end);
        } else if end < self.orig_len {
            let tail = self.orig_len - end;
            // SAFETY: the drained range's items are gone (moved out or dropped by the
            // producer); the tail `end..orig_len` is initialised and owned by nobody else, and
            // moving it to `start` keeps it inside the allocation.
            unsafe {
                let base = self.vec.as_mut_ptr();
                ptr::copy(base.add(end), base.add(start), tail);
                self.vec.set_len(start + tail);
            }
        } else {
            // SAFETY: `start..orig_len` was the drained range, all gone; `0..start` is intact.
            unsafe { self.vec.set_len(start) };
        }
    }
}
