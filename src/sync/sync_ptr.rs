//! `SyncPtr`: a copyable pointer into a slice for parallel writes to disjoint indices.

use std::marker::PhantomData;

/// A `Copy + Send + Sync` pointer into a slice, for writing disjoint indices from parallel
/// closures.
///
/// The pattern it serves: compute where every item goes first (offsets, a prefix sum), then
/// write all items in parallel, each index written by exactly one closure.
///
/// ```
/// use blitz_par::SyncPtr;
/// let mut out = vec![0u32; 8];
/// let ptr = SyncPtr::new(&mut out);
/// blitz_par::join(
///     // SAFETY: the two closures write disjoint indices of `out`, which outlives both.
///     || unsafe { ptr.write(0, 7) },
///     || unsafe { ptr.write(7, 9) },
/// );
/// assert_eq!((out[0], out[7]), (7, 9));
/// ```
///
/// The pointer keeps the borrow of the slice it was made from (`'a`): the slice cannot be
/// used, moved or dropped while a copy of the pointer may still be used.
#[derive(Debug)]
pub struct SyncPtr<'a, T> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<&'a mut [T]>,
}

impl<T> Clone for SyncPtr<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SyncPtr<'_, T> {}

// SAFETY: a SyncPtr only hands out access through unsafe methods whose contracts require that
// no two threads touch the same index; with that, sending values of `T` between threads is
// what makes it sound, hence the `T: Send` bound.
unsafe impl<T: Send> Send for SyncPtr<'_, T> {}
// SAFETY: as for Send: shared use only ever writes or reads disjoint indices, by contract.
unsafe impl<T: Send> Sync for SyncPtr<'_, T> {}

impl<'a, T> SyncPtr<'a, T> {
    /// Points at the whole of `slice`, which stays borrowed for as long as any copy of the
    /// pointer may be used.
    ///
    /// ```
    /// let mut squares = vec![0u64; 1000];
    /// let out = blitz_par::SyncPtr::new(&mut squares);
    /// // SAFETY: each index is written by one call only, and `squares` outlives the loop.
    /// blitz_par::parallel_for(0..1000, |i| unsafe { out.write(i, (i * i) as u64) });
    /// assert_eq!(squares[999], 998_001);
    /// ```
    pub fn new(slice: &'a mut [T]) -> Self {
        SyncPtr {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _marker: PhantomData,
        }
    }

    /// The number of elements the pointer covers.
    ///
    /// ```
    /// let mut v = [1, 2, 3];
    /// assert_eq!(blitz_par::SyncPtr::new(&mut v).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the pointer covers no elements.
    ///
    /// ```
    /// let mut none: [u8; 0] = [];
    /// assert!(blitz_par::SyncPtr::new(&mut none).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pointer to the first element (for address arithmetic such as prefetching; reads
    /// and writes go through `get`, `write` and `slice_mut`).
    pub(crate) fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// Writes `value` at `index` without reading or dropping the old value.
    ///
    /// # Safety
    /// `index < len`, the slice is still alive, and no other thread reads or writes `index`
    /// concurrently. The old value is overwritten without being dropped.
    #[inline]
    pub unsafe fn write(&self, index: usize, value: T) {
        debug_assert!(
            index < self.len,
            "SyncPtr::write: index {index} out of bounds {}",
            self.len
        );
        // SAFETY: in bounds and exclusive by the caller's contract.
        unsafe { self.ptr.add(index).write(value) }
    }

    /// A raw pointer to element `index` (bounds checked in debug builds).
    ///
    /// # Safety
    /// `index <= len` (one past the end is allowed, as for `pointer::add`) and the slice is
    /// still alive.
    #[inline]
    pub unsafe fn get(&self, index: usize) -> *mut T {
        debug_assert!(
            index <= self.len,
            "SyncPtr::get: index {index} out of bounds {}",
            self.len
        );
        // SAFETY: within or one past the allocation by the caller's contract.
        unsafe { self.ptr.add(index) }
    }

    /// A mutable sub-slice `range` of the pointed-to slice.
    ///
    /// # Safety
    /// `range` lies within `0..len`, the slice is still alive, and no other reference to any
    /// element of `range` exists while the returned slice is used.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, range: std::ops::Range<usize>) -> &mut [T] {
        debug_assert!(
            range.start <= range.end && range.end <= self.len,
            "SyncPtr::slice_mut: range {range:?} out of bounds {}",
            self.len
        );
        // SAFETY: in bounds and exclusive by the caller's contract.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start)
        }
    }
}
