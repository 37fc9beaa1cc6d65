//! The consumer behind collecting an iterator of unknown length: every leaf pushes into
//! blocks of growing size, results are lists of blocks in order. The folder continues over the
//! chunks the driver peels off one loop (`folder_continues`), so the items one thread folds
//! between two splits fill one run of blocks, with no allocation per chunk; the caller copies
//! the blocks into place once, in parallel (`collect::append_list`).
//!
//! The run that holds the first items is the exception: it grows one vector, as a sequential
//! `collect` does, and the caller adopts that vector as the result, so those items are written
//! once, in place. On one thread that is every item: no block is allocated or copied, and the
//! memory a previous call freed is reused as a sequential `collect` reuses it.

use std::cell::Cell;

use crate::iter::plumbing::*;
use std::collections::LinkedList;

pub(crate) struct ListVecConsumer {
    /// Whether the items of this consumer come first in the result (nothing is split off to
    /// its left): its folder then grows one vector instead of a run of blocks. A `Cell`, so
    /// that `split_off_left` (by reference) can hand the place to the consumer it makes. Only
    /// a choice of strategy: either kind of folder gives a correct list.
    first: Cell<bool>,
}

impl ListVecConsumer {
    /// The consumer of a whole collect (its folder holds the first items).
    pub(crate) fn new() -> Self {
        ListVecConsumer {
            first: Cell::new(true),
        }
    }

    /// A consumer of items after others.
    fn later() -> Self {
        ListVecConsumer {
            first: Cell::new(false),
        }
    }
}

impl<T: Send> Consumer<T> for ListVecConsumer {
    /// The items in order, whatever the grouping (only the vectors they come in differ).
    const GROUPING: Grouping = Grouping::Free;
    type Folder = ListVecFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<T>>;
    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (self, ListVecConsumer::later(), ListReducer)
    }
    fn into_folder(self) -> ListVecFolder<T> {
        ListVecFolder::new(self.first.get())
    }
    fn full(&self) -> bool {
        false
    }
    const FOLDER_MAY_CONTINUE: bool = true;
    fn folder_continues(&self) -> bool {
        true
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVecConsumer {
    fn split_off_left(&self) -> Self {
        ListVecConsumer {
            first: Cell::new(self.first.replace(false)),
        }
    }
    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

/// Pushes into a block of fixed capacity; a full block goes to the list and the next one has
/// twice the capacity. Blocks never move once written (no reallocation copies, which were a
/// fifth of a 10M-item filter-collect), and the caller copies each item once more, into place.
///
/// The folder of the first items (`grow`) instead grows its one vector, which the caller keeps
/// as the result: a reallocation moves its items at most once more on average (and not at
/// all where the allocator grows the block in place or remaps it), against the certain copy
/// of every block.
pub(crate) struct ListVecFolder<T> {
    /// Full blocks, in order (always empty when `grow`).
    full: LinkedList<Vec<T>>,
    /// The block being filled (capacity 0 before the first item).
    vec: Vec<T>,
    /// Whether `vec` grows in place of starting a new block.
    grow: bool,
}

/// The first block's capacity: small, so that short leaves stay cheap.
const FIRST_BLOCK: usize = 16;

/// No block grows past this many bytes: beyond it, larger blocks save nothing (a block costs
/// one allocation and one list node against megabytes of copying).
const MAX_BLOCK_BYTES: usize = 8 << 20;

impl<T> ListVecFolder<T> {
    fn new(grow: bool) -> Self {
        ListVecFolder {
            full: LinkedList::new(),
            vec: Vec::new(),
            grow,
        }
    }

    /// Starts a new block (the current one is full) with room for at least `hint` items,
    /// where the chunk being folded says that many may come.
    #[cold]
    #[inline(never)]
    fn next_block(&mut self, hint: usize) {
        let previous = self.vec.capacity();
        let max = (MAX_BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        if self.grow {
            // `reserve` at least doubles the capacity, as a sequential `collect` grows.
            self.vec.reserve(hint.max(FIRST_BLOCK).min(max));
            let spare = self.vec.spare_capacity_mut();
            crate::sync::advise_fill(spare.as_mut_ptr().cast(), std::mem::size_of_val(spare));
            return;
        }
        let capacity = (previous * 2).max(FIRST_BLOCK).max(hint.min(max)).min(max);
        let block = Vec::with_capacity(capacity);
        let done = std::mem::replace(&mut self.vec, block);
        if !done.is_empty() {
            self.full.push_back(done);
        }
        let spare = self.vec.spare_capacity_mut();
        crate::sync::advise_fill(spare.as_mut_ptr().cast(), std::mem::size_of_val(spare));
    }
}

/// Moves items of `iter` into the spare capacity of `block` until it is full (returns false)
/// or `iter` ends (returns true). Internal iteration (`try_fold`) keeps the loop of an adapter
/// such as `filter` tight, and no capacity check or reallocation sits in it.
#[inline]
fn fill_block<T, I: Iterator<Item = T>>(block: &mut Vec<T>, iter: &mut I) -> bool {
    /// Publishes the items written so far, also when `iter` panics, so each is dropped once.
    struct SetLen<'a, T> {
        block: &'a mut Vec<T>,
        len: usize,
    }
    impl<T> Drop for SetLen<'_, T> {
        fn drop(&mut self) {
            // SAFETY: `[old len, len)` was written by `fill_block` below, within capacity.
            unsafe { self.block.set_len(self.len) };
        }
    }
    let capacity = block.capacity();
    let ptr = block.as_mut_ptr();
    let mut guard = SetLen {
        len: block.len(),
        block,
    };
    let full = iter
        .try_for_each(|item| {
            // SAFETY: `guard.len < capacity` (checked before every write: the loop stops at
            // capacity), and the slot is spare capacity that nothing else references.
            unsafe { ptr.add(guard.len).write(item) };
            guard.len += 1;
            if guard.len == capacity {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        })
        .is_break();
    !full
}

impl<T> Folder<T> for ListVecFolder<T> {
    type Result = LinkedList<Vec<T>>;
    fn consume(mut self, item: T) -> Self {
        if self.vec.len() == self.vec.capacity() {
            self.next_block(1);
        }
        self.vec.push(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        loop {
            if self.vec.len() < self.vec.capacity() && fill_block(&mut self.vec, &mut iter) {
                return self; // `iter` ended
            }
            match iter.next() {
                None => return self,
                Some(item) => {
                    let hint = iter.size_hint().1.unwrap_or(0).saturating_add(1);
                    self.next_block(hint);
                    self.vec.push(item);
                }
            }
        }
    }
    fn complete(mut self) -> LinkedList<Vec<T>> {
        if !self.vec.is_empty() {
            self.full.push_back(self.vec);
        }
        self.full
    }
    fn full(&self) -> bool {
        false
    }
}

pub(crate) struct ListReducer;

impl<T> Reducer<LinkedList<Vec<T>>> for ListReducer {
    fn reduce(
        self,
        mut left: LinkedList<Vec<T>>,
        mut right: LinkedList<Vec<T>>,
    ) -> LinkedList<Vec<T>> {
        if let (Some(last), Some(first)) = (left.back_mut(), right.front_mut()) {
            // Copy a part at most a quarter of `last`'s size (or one that fits its spare
            // capacity): amortised, every item is copied O(1) times, and the many tiny lists
            // of a `flat_map` do not become one vector each, while the vectors from the two
            // halves of a real split (similar sizes) stay separate.
            if first.len() <= last.capacity() - last.len() || first.len() * 4 <= last.len() {
                last.append(first);
                right.pop_front();
            }
        }
        left.append(&mut right);
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `folder` after the items of `items`, consumed in chunks of 7 (as a driver's loop
    /// hands a folder its chunks: the hint of each is short).
    fn in_chunks<T: Copy>(mut folder: ListVecFolder<T>, items: &[T]) -> ListVecFolder<T> {
        for chunk in items.chunks(7) {
            folder = folder.consume_iter(chunk.iter().copied());
        }
        folder
    }

    /// The lengths of the vectors of `list`.
    fn lens<T>(list: &LinkedList<Vec<T>>) -> Vec<usize> {
        list.iter().map(Vec::len).collect()
    }

    /// The consumer of the first items grows one vector, whatever the chunks it folds; the
    /// consumers split off to its right fill blocks; `split_off_left` hands the first place to
    /// the consumer it makes. Every item comes out once, in order.
    #[test]
    fn first_items_grow_one_vector() {
        let n = if cfg!(miri) { 100 } else { 10_000 };
        let (left, right, reducer) = Consumer::<usize>::split_at(ListVecConsumer::new(), n);
        let mut folder = Consumer::<usize>::into_folder(left);
        for chunk in (0..n).collect::<Vec<_>>().chunks(7) {
            folder = folder.consume_iter(chunk.iter().copied().filter(|x| x % 3 != 0));
        }
        let folder = folder.consume(n);
        let first = folder.complete();
        assert_eq!(lens(&first).len(), 1, "one vector: {:?}", lens(&first));

        let later: Vec<usize> = (n + 1..3 * n).collect();
        let later = in_chunks(Consumer::<usize>::into_folder(right), &later).complete();
        assert!(lens(&later).len() > 1, "blocks: {:?}", lens(&later));
        assert!(lens(&later).iter().all(|&len| len > 0));

        let all: Vec<usize> = reducer.reduce(first, later).into_iter().flatten().collect();
        let expected: Vec<usize> = (0..n).filter(|x| x % 3 != 0).chain(n..3 * n).collect();
        assert_eq!(all, expected);

        let right = ListVecConsumer::new();
        let left = UnindexedConsumer::<usize>::split_off_left(&right);
        let all: Vec<usize> = (0..n).collect();
        let items = |c: ListVecConsumer| {
            lens(&in_chunks(Consumer::<usize>::into_folder(c), &all).complete())
        };
        assert_eq!(items(left), [n]);
        assert!(items(right).len() > 1);
    }

    /// A panic in the iterator a growing folder consumes drops every item pushed so far once.
    #[test]
    fn growing_folder_drops_items_once_on_panic() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted;
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::Relaxed);
            }
        }
        let n = if cfg!(miri) { 50 } else { 5_000 };
        let result = std::panic::catch_unwind(|| {
            let folder = Consumer::<Counted>::into_folder(ListVecConsumer::new());
            folder.consume_iter((0..n + 1).map(|i| {
                assert!(i < n, "boom");
                Counted
            }))
        });
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::Relaxed), n);
    }
}
