//! The consumer behind collecting an iterator of unknown length: every leaf pushes into a
//! `Vec`, results are lists of vectors in order. Reducing a small right part into a left part
//! whose last vector is large appends it there, so the chunks one thread folds in a row end up
//! in one vector (as in a sequential collect) instead of one small vector per chunk.

use crate::iter::plumbing::*;
use std::collections::LinkedList;

pub(super) struct ListVecConsumer;

impl<T: Send> Consumer<T> for ListVecConsumer {
    type Folder = ListVecFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<T>>;
    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (ListVecConsumer, ListVecConsumer, ListReducer)
    }
    fn into_folder(self) -> ListVecFolder<T> {
        ListVecFolder { vec: Vec::new() }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVecConsumer {
    fn split_off_left(&self) -> Self {
        ListVecConsumer
    }
    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

pub(super) struct ListVecFolder<T> {
    vec: Vec<T>,
}

impl<T> Folder<T> for ListVecFolder<T> {
    type Result = LinkedList<Vec<T>>;
    fn consume(mut self, item: T) -> Self {
        self.vec.push(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.vec.extend(iter);
        self
    }
    fn complete(self) -> LinkedList<Vec<T>> {
        let mut list = LinkedList::new();
        if !self.vec.is_empty() {
            list.push_back(self.vec);
        }
        list
    }
    fn full(&self) -> bool {
        false
    }
}

pub(super) struct ListReducer;

impl<T> Reducer<LinkedList<Vec<T>>> for ListReducer {
    fn reduce(
        self,
        mut left: LinkedList<Vec<T>>,
        mut right: LinkedList<Vec<T>>,
    ) -> LinkedList<Vec<T>> {
        if let (Some(last), Some(first)) = (left.back_mut(), right.front_mut()) {
            // Copy a part at most a quarter of `last`'s size (or one that fits its spare
            // capacity): amortised, every item is copied O(1) times, and the vectors from
            // two halves of a real split (similar sizes) stay separate.
            if first.len() <= last.capacity() - last.len() || first.len() * 4 <= last.len() {
                last.append(first);
                right.pop_front();
            }
        }
        left.append(&mut right);
        left
    }
}
