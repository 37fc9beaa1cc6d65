//! `parallel_for` and `parallel_for_chunks`: Blitz's loops over index ranges, on the same
//! splitting driver as the iterators.

use crate::iter::plumbing::{
    bridge_producer_consumer, Consumer, Folder, Grouping, Producer, Reducer,
};
use std::ops::Range;

/// Calls `body(i)` for every `i` in `range`, in parallel.
///
/// Equivalent to `range.into_par_iter().for_each(body)`. A typical use writes disjoint
/// indices of a buffer through a [`SyncPtr`](crate::SyncPtr): compute where every item goes
/// first, then write all items in parallel. A parallel filter into a preallocated buffer:
///
/// ```
/// use blitz_par::prelude::*;
/// use blitz_par::SyncPtr;
///
/// let input: Vec<u32> = (0..10_000).collect();
/// let keep = |x: u32| x % 3 == 0;
/// // 1. Count the kept items per block, then turn the counts into offsets (a prefix sum).
/// let block = 1024;
/// let counts: Vec<usize> = input.par_chunks(block).map(|c| c.iter().filter(|&&x| keep(x)).count()).collect();
/// let offsets: Vec<usize> = counts.iter().scan(0, |acc, &n| { let at = *acc; *acc += n; Some(at) }).collect();
/// let total: usize = counts.iter().sum();
/// // 2. Every block writes its kept items from its own offset: disjoint indices.
/// let mut out = vec![0u32; total];
/// let ptr = SyncPtr::new(&mut out);
/// blitz_par::parallel_for(0..counts.len(), |b| {
///     let mut at = offsets[b];
///     for &x in input[b * block..].iter().take(block).filter(|&&x| keep(x)) {
///         // SAFETY: block `b` writes only `offsets[b]..offsets[b] + counts[b]`, inside `out`,
///         // which outlives the loop; no other block writes there.
///         unsafe { ptr.write(at, x) };
///         at += 1;
///     }
/// });
/// assert_eq!(out, input.iter().copied().filter(|&x| keep(x)).collect::<Vec<_>>());
/// ```
pub fn parallel_for<F>(range: Range<usize>, body: F)
where
    F: Fn(usize) + Sync + Send,
{
    use crate::iter::{IntoParallelIterator, ParallelIterator};
    range.into_par_iter().for_each(body)
}

/// Calls `body(sub_range)` for disjoint sub-ranges that together cover `range`, in parallel.
///
/// The sub-ranges are the leaves the splitting driver chooses (grain size is automatic), in no
/// particular order; use it when per-leaf setup is worth amortising over many indices.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let covered = AtomicUsize::new(0);
/// blitz_par::parallel_for_chunks(0..1000, |r| { covered.fetch_add(r.len(), Ordering::Relaxed); });
/// assert_eq!(covered.into_inner(), 1000);
/// ```
pub fn parallel_for_chunks<F>(range: Range<usize>, body: F)
where
    F: Fn(Range<usize>) + Sync + Send,
{
    let len = range.len();
    bridge_producer_consumer(
        len,
        SubRangeProducer { range },
        ChunkConsumer { body: &body },
    )
}

/// Yields its whole range as one item. Its length for the driver counts indices, not items:
/// that is what lets the driver size the sub-ranges. Only [`ChunkConsumer`] consumes it.
struct SubRangeProducer {
    range: Range<usize>,
}

impl Producer for SubRangeProducer {
    type Item = Range<usize>;
    type IntoIter = std::option::IntoIter<Range<usize>>;
    fn into_iter(self) -> Self::IntoIter {
        (!self.range.is_empty()).then_some(self.range).into_iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.range.start + index;
        (
            SubRangeProducer {
                range: self.range.start..mid,
            },
            SubRangeProducer {
                range: mid..self.range.end,
            },
        )
    }
    fn fold_with<G: Folder<Range<usize>>>(self, folder: G) -> G {
        if self.range.is_empty() {
            folder
        } else {
            folder.consume(self.range)
        }
    }
}

struct ChunkConsumer<'f, F> {
    body: &'f F,
}

impl<'f, F: Fn(Range<usize>) + Sync> Consumer<Range<usize>> for ChunkConsumer<'f, F> {
    /// No result to group.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = Self;
    type Reducer = UnitReducer;
    type Result = ();
    fn split_at(self, _index: usize) -> (Self, Self, UnitReducer) {
        (ChunkConsumer { body: self.body }, self, UnitReducer)
    }
    fn into_folder(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

impl<'f, F: Fn(Range<usize>)> Folder<Range<usize>> for ChunkConsumer<'f, F> {
    type Result = ();
    fn consume(self, item: Range<usize>) -> Self {
        (self.body)(item);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

struct UnitReducer;

impl Reducer<()> for UnitReducer {
    fn reduce(self, _left: (), _right: ()) {}
}

#[cfg(test)]
mod tests {
    use crate::SyncPtr;

    #[test]
    fn chunks_cover_the_range_once() {
        for n in [0usize, 1, 2, 7, 100, 1000] {
            let mut hits = vec![0u8; n];
            let ptr = SyncPtr::new(&mut hits);
            super::parallel_for_chunks(0..n, |r| {
                for i in r {
                    // SAFETY: the sub-ranges are disjoint, so index `i` is written once.
                    unsafe { *ptr.get(i) += 1 };
                }
            });
            assert!(hits.iter().all(|&h| h == 1));
        }
    }

    #[test]
    fn parallel_for_writes_every_index() {
        let n = if cfg!(miri) { 50 } else { 10_000 };
        let mut out = vec![0usize; n];
        let ptr = SyncPtr::new(&mut out);
        // SAFETY: every index is written by exactly one call.
        super::parallel_for(0..n, |i| unsafe { ptr.write(i, i * 2) });
        assert!(out.iter().enumerate().all(|(i, &x)| x == i * 2));
    }
}
