//! The consumer that writes items straight into the uninitialised tail of a `Vec`.
//!
//! Every consumer owns a window `[start, start + len)` of the tail; its folder writes items in
//! order and its result ([`CollectResult`]) owns the items written so far: dropping a result
//! (during a panic, say) drops exactly those items. Reducing two adjacent results hands the
//! right one's items to the left one. Only when the final result covers the whole tail does
//! the caller take the items over by setting the `Vec`'s length, so every item is dropped
//! exactly once whatever panics.

use crate::iter::plumbing::*;
use crate::SyncPtr;
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};

/// Writes items into `target[start..start + len]`.
pub(super) struct CollectConsumer<'c, T: Send> {
    /// The whole tail being filled; shared by all consumers, each using its own window.
    target: SyncPtr<'c, MaybeUninit<T>>,
    start: usize,
    len: usize,
    _borrow: PhantomData<&'c mut [T]>,
}

impl<'c, T: Send> CollectConsumer<'c, T> {
    /// A consumer for all of `target`.
    pub(super) fn new(target: &'c mut [MaybeUninit<T>]) -> Self {
        let len = target.len();
        CollectConsumer {
            target: SyncPtr::new(target),
            start: 0,
            len,
            _borrow: PhantomData,
        }
    }
}

impl<'c, T: Send + 'c> Consumer<T> for CollectConsumer<'c, T> {
    /// Every item lands in its place, whatever the grouping.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;

    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        assert!(
            index <= self.len,
            "collect: split at {index} beyond the window of {}",
            self.len
        );
        let left = CollectConsumer {
            target: self.target,
            start: self.start,
            len: index,
            _borrow: PhantomData,
        };
        let right = CollectConsumer {
            target: self.target,
            start: self.start + index,
            len: self.len - index,
            _borrow: PhantomData,
        };
        (left, right, CollectReducer)
    }

    fn into_folder(self) -> CollectResult<'c, T> {
        CollectResult {
            target: self.target,
            start: self.start,
            total_len: self.len,
            initialized_len: 0,
            _owns: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<'c, T: Send + 'c> UnindexedConsumer<T> for CollectConsumer<'c, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("collect: the consumer is only used for iterators of known length, which split by index")
    }
    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

/// The items written into one window: `[start, start + initialized_len)` is initialised and
/// owned by this value.
pub(super) struct CollectResult<'c, T> {
    target: SyncPtr<'c, MaybeUninit<T>>,
    start: usize,
    total_len: usize,
    initialized_len: usize,
    _owns: PhantomData<&'c mut [T]>,
}

// SAFETY: a result owns its initialised items (values of `T: Send`) and has exclusive access to
// its window of the target; nothing else touches that window while the result exists.
unsafe impl<'c, T: Send> Send for CollectResult<'c, T> {}

impl<'c, T> CollectResult<'c, T> {
    /// The number of items written.
    pub(super) fn len(&self) -> usize {
        self.initialized_len
    }

    /// Gives up ownership of the written items (the caller has made the `Vec` own them).
    pub(super) fn release_ownership(self) {
        mem::forget(self);
    }
}

impl<'c, T> Drop for CollectResult<'c, T> {
    fn drop(&mut self) {
        if self.initialized_len == 0 {
            return;
        }
        // SAFETY: the window lies within the target (checked at every split), the target
        // outlives 'c, and `[start, start + initialized_len)` was written and is owned by this
        // result alone, so it is dropped here once.
        unsafe {
            let first = self.target.get(self.start).cast::<T>();
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                first,
                self.initialized_len,
            ));
        }
    }
}

impl<'c, T: Send + 'c> Folder<T> for CollectResult<'c, T> {
    type Result = Self;

    fn consume(mut self, item: T) -> Self {
        assert!(
            self.initialized_len < self.total_len,
            "collect: the iterator produced more items than its length said"
        );
        // SAFETY: `start + initialized_len` is inside this result's window (just checked), which
        // no other consumer or result writes.
        unsafe {
            self.target
                .write(self.start + self.initialized_len, MaybeUninit::new(item))
        };
        self.initialized_len += 1;
        self
    }

    const CHEAP_CONSUME: bool = true;

    fn complete(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

/// Merges adjacent results; a non-adjacent right result (after a short write) is dropped.
pub(super) struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    fn reduce(
        self,
        mut left: CollectResult<'c, T>,
        right: CollectResult<'c, T>,
    ) -> CollectResult<'c, T> {
        if left.start + left.initialized_len == right.start {
            left.total_len += right.total_len;
            left.initialized_len += right.initialized_len;
            right.release_ownership();
        }
        left
    }
}
