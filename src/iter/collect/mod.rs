//! `collect`, `collect_into_vec`, `unzip_into_vecs` and the [`FromParallelIterator`] /
//! [`ParallelExtend`] implementations for std's collections.
//!
//! Into a `Vec`, an iterator of known length writes straight into the vector's spare capacity
//! (see `consumer.rs`); one of unknown length collects a list of per-leaf vectors and appends
//! them in order. Other collections extend sequentially from such a list.

mod consumer;
mod list;
mod targets;

use self::consumer::CollectConsumer;
pub(crate) use self::targets::WhileSomeConsumer;
use super::*;
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
    let result = drive(CollectConsumer::new(&mut vec.spare_capacity_mut()[..len]));
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
pub(super) fn collect_list<I>(par_iter: I) -> LinkedList<Vec<I::Item>>
where
    I: ParallelIterator,
{
    par_iter.drive_unindexed(list::ListVecConsumer)
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
            None => {
                let mut list = collect_list(par_iter);
                if self.is_empty() && list.len() == 1 {
                    // One vector holds everything (one thread did it all): no copy needed.
                    *self = list.pop_front().unwrap_or_default();
                    return;
                }
                self.reserve(list.iter().map(Vec::len).sum());
                for mut v in list {
                    self.append(&mut v);
                }
            }
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
