//! `intersperse`: a clone of the separator between every two items.

use super::plumbing::*;
use super::*;

/// The iterator of [`ParallelIterator::intersperse`]: a clone of the separator between every
/// two items.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().intersperse(0).collect();
/// assert_eq!(v, [1, 0, 2, 0, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    base: I,
    separator: I::Item,
}

impl<I> Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    pub(super) fn new(base: I, separator: I::Item) -> Self {
        Intersperse { base, separator }
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        if self.base.opt_len().is_none() {
            // Without a length the base splits anywhere, and a part cannot tell whether the
            // parts before it produced anything (whether its first item needs a separator).
            // Collect first; the indexed path below is exact.
            let items: Vec<I::Item> = self.base.collect();
            return Intersperse::new(items.into_par_iter(), self.separator)
                .drive_unindexed(consumer);
        }
        // The separator is cloned into each part (not shared), so it need not be `Sync`, as
        // in rayon.
        let consumer = IntersperseConsumer {
            base: consumer,
            separator: self.separator,
            sep_first: false,
        };
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.opt_len()?.saturating_mul(2).saturating_sub(1))
    }
}

struct IntersperseConsumer<C, T> {
    base: C,
    separator: T,
    /// Whether this consumer's first item is preceded by a separator (it is not the first).
    sep_first: bool,
}

impl<C, T> Consumer<T> for IntersperseConsumer<C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    type Folder = IntersperseFolder<C::Folder, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        // Base item k lands at 2k + 1 after a leading separator, else at 2k.
        let out_index = match (index, self.sep_first) {
            (0, _) => 0,
            (i, true) => 2 * i,
            (i, false) => 2 * i - 1,
        };
        let (l, r, reducer) = self.base.split_at(out_index);
        let right_sep = index > 0 || self.sep_first;
        (
            IntersperseConsumer {
                base: l,
                separator: self.separator.clone(),
                sep_first: self.sep_first,
            },
            IntersperseConsumer {
                base: r,
                separator: self.separator,
                sep_first: right_sep,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        IntersperseFolder {
            base: self.base.into_folder(),
            separator: self.separator,
            sep_next: self.sep_first,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    forward_hints!(base: C => T);
}

impl<C, T> UnindexedConsumer<T> for IntersperseConsumer<C, T>
where
    C: UnindexedConsumer<T>,
    T: Clone + Send,
{
    fn split_off_left(&self) -> Self {
        unreachable!("intersperse: the base has a length, so it splits by index")
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct IntersperseFolder<F, T> {
    base: F,
    separator: T,
    sep_next: bool,
}

impl<F: Folder<T>, T: Clone> Folder<T> for IntersperseFolder<F, T> {
    type Result = F::Result;
    fn consume(mut self, item: T) -> Self {
        if self.sep_next {
            self.base = self.base.consume(self.separator.clone());
        }
        self.sep_next = true;
        self.base = self.base.consume(item);
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

/// An indexed base gives an indexed `Intersperse` (as in rayon): `n` items become `2n - 1`.
impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator,
    I::Item: Clone,
{
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.base.len().saturating_mul(2).saturating_sub(1)
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct Callback<CB, T> {
            callback: CB,
            separator: T,
            len: usize,
        }
        impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(IntersperseProducer {
                    base,
                    separator: self.separator,
                    len: self.len,
                    sep_first: false,
                })
            }
        }
        let len = self.len();
        self.base.with_producer(Callback {
            callback,
            separator: self.separator,
            len,
        })
    }
}

/// `len` output positions: base items with separators between them, and one more separator
/// in front when `sep_first` (a right part cut just after an item).
struct IntersperseProducer<P: Producer> {
    base: P,
    separator: P::Item,
    len: usize,
    sep_first: bool,
}

impl<P> Producer for IntersperseProducer<P>
where
    P: Producer,
    P::Item: Clone + Send,
{
    type Item = P::Item;
    type IntoIter = IntersperseSeq<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        IntersperseSeq {
            base: self.base.into_iter(),
            separator: self.separator,
            sep_first: self.len > 0 && self.sep_first,
            // A part of even length ends opposite to how it starts; a part of one position
            // has no room for a second separator.
            sep_last: self.len > 1 && ((self.len % 2 == 0) != self.sep_first),
        }
    }
    // Each base item comes with a separator: twice the base's bounds, in output positions.
    fn min_len(&self) -> usize {
        self.base.min_len().saturating_mul(2)
    }
    fn max_len(&self) -> usize {
        self.base.max_len().saturating_mul(2)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.len);
        // Output positions alternate item, separator (or separator, item): the left part
        // holds half of `index` base items, rounded up when it starts with an item.
        let base_index = (index + usize::from(!self.sep_first)) / 2;
        let (left, right) = self.base.split_at(base_index);
        (
            IntersperseProducer {
                base: left,
                separator: self.separator.clone(),
                len: index,
                sep_first: self.sep_first,
            },
            IntersperseProducer {
                base: right,
                separator: self.separator,
                len: self.len - index,
                sep_first: (index % 2 == 1) != self.sep_first,
            },
        )
    }
}

/// A leaf of an indexed [`Intersperse`].
struct IntersperseSeq<I: Iterator> {
    base: I,
    separator: I::Item,
    sep_first: bool,
    sep_last: bool,
}

impl<I> Iterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        if self.sep_first {
            self.sep_first = false;
            Some(self.separator.clone())
        } else if let Some(item) = self.base.next() {
            // Another base item after this one needs a separator before it.
            self.sep_first = self.base.len() != 0;
            Some(item)
        } else if self.sep_last {
            self.sep_last = false;
            Some(self.separator.clone())
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let items = self.base.len();
        let n = (items + items.saturating_sub(1))
            .saturating_add(usize::from(self.sep_first) + usize::from(self.sep_last));
        (n, Some(n))
    }
}

impl<I> DoubleEndedIterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
    fn next_back(&mut self) -> Option<I::Item> {
        if self.sep_last {
            self.sep_last = false;
            Some(self.separator.clone())
        } else if let Some(item) = self.base.next_back() {
            self.sep_last = self.base.len() != 0;
            Some(item)
        } else if self.sep_first {
            self.sep_first = false;
            Some(self.separator.clone())
        } else {
            None
        }
    }
}

impl<I> ExactSizeIterator for IntersperseSeq<I>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    I::Item: Clone,
{
}
