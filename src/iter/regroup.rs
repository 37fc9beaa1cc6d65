//! Indexed adapters that regroup positions: `step_by`, `chunks`, `interleave`.

use super::plumbing::*;
use super::*;

/// The leaf bounds of a producer whose positions each gather `per` positions of its base
/// (`step_by`, `chunks`, `fold_chunks`): the base's `with_min_len`/`with_max_len` carried over,
/// rounded so that a leaf still holds at least the base's minimum and, where one position
/// allows it, at most its maximum.
pub(super) fn regrouped_min_len(base_min: usize, per: usize) -> usize {
    base_min.div_ceil(per)
}

/// See [`regrouped_min_len`]: at least one position, even when it exceeds the base's maximum.
pub(super) fn regrouped_max_len(base_max: usize, per: usize) -> usize {
    (base_max / per).max(1)
}

macro_rules! bridged {
    ($name:ident<$($g:ident),*> where [$($bounds:tt)*], item $item:ty, |$s:ident| $len:expr, |$s2:ident, $cb:ident| $with:expr) => {
        impl<$($g),*> ParallelIterator for $name<$($g),*>
        where
            $($bounds)*
        {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($g),*> IndexedParallelIterator for $name<$($g),*>
        where
            $($bounds)*
        {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                let $s = self;
                $len
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, $cb: CB) -> CB::Output {
                let $s2 = self;
                $with
            }
        }
    };
}

/// The iterator of [`IndexedParallelIterator::step_by`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..10).into_par_iter().step_by(4).collect::<Vec<_>>(), [0, 4, 8]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(super) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: step must not be zero");
        StepBy { base, step }
    }
}

bridged!(StepBy<I> where [I: IndexedParallelIterator], item I::Item,
    |s| s.base.len().div_ceil(s.step),
    |s, callback| {
        struct Callback<CB> {
            callback: CB,
            step: usize,
            base_len: usize,
        }
        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(StepByProducer { base, step: self.step, base_len: self.base_len })
            }
        }
        let base_len = s.base.len();
        s.base.with_producer(Callback { callback, step: s.step, base_len })
    }
);

struct StepByProducer<P> {
    base: P,
    step: usize,
    base_len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }
    fn min_len(&self) -> usize {
        regrouped_min_len(self.base.min_len(), self.step)
    }
    fn max_len(&self) -> usize {
        regrouped_max_len(self.base.max_len(), self.step)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.base_len);
        let (left, right) = self.base.split_at(at);
        (
            StepByProducer {
                base: left,
                step: self.step,
                base_len: at,
            },
            StepByProducer {
                base: right,
                step: self.step,
                base_len: self.base_len - at,
            },
        )
    }
}

/// The iterator of [`IndexedParallelIterator::chunks`]: `Vec`s of `size` items (the last may
/// be shorter).
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<Vec<i32>> = (0..5).into_par_iter().chunks(2).collect();
/// assert_eq!(v, [vec![0, 1], vec![2, 3], vec![4]]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "chunks: chunk_size must not be zero");
        Chunks { base, size }
    }
}

bridged!(Chunks<I> where [I: IndexedParallelIterator], item Vec<I::Item>,
    |s| s.base.len().div_ceil(s.size),
    |s, callback| {
        struct Callback<CB> {
            callback: CB,
            size: usize,
            base_len: usize,
        }
        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(ChunkProducer { base, size: self.size, base_len: self.base_len })
            }
        }
        let base_len = s.base.len();
        s.base.with_producer(Callback { callback, size: s.size, base_len })
    }
);

struct ChunkProducer<P> {
    base: P,
    size: usize,
    base_len: usize,
}

impl<P: Producer> Producer for ChunkProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkSeq<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        ChunkSeq {
            inner: self.base.into_iter(),
            size: self.size,
        }
    }
    fn min_len(&self) -> usize {
        regrouped_min_len(self.base.min_len(), self.size)
    }
    fn max_len(&self) -> usize {
        regrouped_max_len(self.base.max_len(), self.size)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.base_len);
        let (left, right) = self.base.split_at(at);
        (
            ChunkProducer {
                base: left,
                size: self.size,
                base_len: at,
            },
            ChunkProducer {
                base: right,
                size: self.size,
                base_len: self.base_len - at,
            },
        )
    }
}

/// A leaf of [`Chunks`]: gathers `size` items at a time.
#[derive(Debug)]
struct ChunkSeq<I> {
    inner: I,
    size: usize,
}

impl<I: ExactSizeIterator> Iterator for ChunkSeq<I> {
    type Item = Vec<I::Item>;
    fn next(&mut self) -> Option<Self::Item> {
        let chunk: Vec<I::Item> = self.inner.by_ref().take(self.size).collect();
        (!chunk.is_empty()).then_some(chunk)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.inner.len().div_ceil(self.size);
        (n, Some(n))
    }
}

impl<I: ExactSizeIterator + DoubleEndedIterator> DoubleEndedIterator for ChunkSeq<I> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let len = self.inner.len();
        if len == 0 {
            return None;
        }
        let last = match len % self.size {
            0 => self.size,
            rem => rem,
        };
        let mut chunk: Vec<I::Item> = self.inner.by_ref().rev().take(last).collect();
        chunk.reverse();
        Some(chunk)
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for ChunkSeq<I> {}

/// The iterator of [`IndexedParallelIterator::interleave`]: items of the two iterators in
/// turn, then the rest of the longer one.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().interleave(vec![10, 20]).collect();
/// assert_eq!(v, [1, 10, 2, 20, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Interleave<A, B> {
    a: A,
    b: B,
}

impl<A, B> Interleave<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Interleave { a, b }
    }
}

bridged!(Interleave<A, B> where [A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>], item A::Item,
    |s| s.a.len().checked_add(s.b.len()).expect("interleave: length overflows usize"),
    |s, callback| {
        struct CallbackA<CB, B> {
            callback: CB,
            b: B,
            a_len: usize,
        }
        impl<CB, B> ProducerCallback<B::Item> for CallbackA<CB, B>
        where
            B: IndexedParallelIterator,
            CB: ProducerCallback<B::Item>,
        {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = B::Item>>(self, a: PA) -> CB::Output {
                let b_len = self.b.len();
                self.b.with_producer(CallbackB { callback: self.callback, a, a_len: self.a_len, b_len })
            }
        }
        struct CallbackB<CB, PA> {
            callback: CB,
            a: PA,
            a_len: usize,
            b_len: usize,
        }
        impl<CB, PA> ProducerCallback<PA::Item> for CallbackB<CB, PA>
        where
            PA: Producer,
            CB: ProducerCallback<PA::Item>,
        {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = PA::Item>>(self, b: PB) -> CB::Output {
                self.callback.callback(InterleaveProducer { a: self.a, b, a_len: self.a_len, b_len: self.b_len, b_first: false })
            }
        }
        let a_len = s.a.len();
        s.a.with_producer(CallbackA { callback, b: s.b, a_len })
    }
);

struct InterleaveProducer<A, B> {
    a: A,
    b: B,
    a_len: usize,
    b_len: usize,
    /// Whether the first item comes from `b`.
    b_first: bool,
}

impl<A, B> Producer for InterleaveProducer<A, B>
where
    A: Producer,
    B: Producer<Item = A::Item>,
{
    type Item = A::Item;
    type IntoIter = InterleaveSeq<A::IntoIter, B::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        InterleaveSeq {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
            b_next: self.b_first,
        }
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let both = 2 * self.a_len.min(self.b_len);
        // Items the first `index` positions take from the side that goes first, and the other.
        let (first_count, second_count) = if index <= both {
            (index.div_ceil(2), index / 2)
        } else if (self.a_len > self.b_len) != self.b_first {
            // The side that goes first is the longer one: it also takes the tail.
            (index - both / 2, both / 2)
        } else {
            (both / 2, index - both / 2)
        };
        let (a_count, b_count) = if self.b_first {
            (second_count, first_count)
        } else {
            (first_count, second_count)
        };
        let (a_left, a_right) = self.a.split_at(a_count);
        let (b_left, b_right) = self.b.split_at(b_count);
        let right_b_first = if index < both {
            self.b_first ^ (index % 2 == 1)
        } else {
            self.b_len - b_count > 0 && self.a_len == a_count
        };
        (
            InterleaveProducer {
                a: a_left,
                b: b_left,
                a_len: a_count,
                b_len: b_count,
                b_first: self.b_first,
            },
            InterleaveProducer {
                a: a_right,
                b: b_right,
                a_len: self.a_len - a_count,
                b_len: self.b_len - b_count,
                b_first: right_b_first,
            },
        )
    }
}

/// A leaf of [`Interleave`].
#[derive(Debug)]
struct InterleaveSeq<A, B> {
    a: A,
    b: B,
    b_next: bool,
}

impl<A, B> Iterator for InterleaveSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
    type Item = A::Item;
    fn next(&mut self) -> Option<A::Item> {
        let item = if self.b_next {
            self.b.next().or_else(|| self.a.next())
        } else {
            self.a.next().or_else(|| self.b.next())
        };
        self.b_next = !self.b_next;
        item
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<A, B> DoubleEndedIterator for InterleaveSeq<A, B>
where
    A: ExactSizeIterator + DoubleEndedIterator,
    B: ExactSizeIterator<Item = A::Item> + DoubleEndedIterator,
{
    fn next_back(&mut self) -> Option<A::Item> {
        let (a_len, b_len) = (self.a.len(), self.b.len());
        // The last item comes from the longer side; with equal lengths, from the side that
        // does not go next.
        let from_b = match a_len.cmp(&b_len) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => !self.b_next,
        };
        if from_b {
            self.b.next_back()
        } else {
            self.a.next_back()
        }
    }
}

impl<A, B> ExactSizeIterator for InterleaveSeq<A, B>
where
    A: ExactSizeIterator,
    B: ExactSizeIterator<Item = A::Item>,
{
}

/// The iterator of [`IndexedParallelIterator::interleave_shortest`]: items of the two
/// iterators in turn, until one of them runs out.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().interleave_shortest(vec![10, 20]).collect();
/// assert_eq!(v, [1, 10, 2, 20, 3]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct InterleaveShortest<A, B> {
    interleave: Interleave<Take<A>, Take<B>>,
}

impl<A, B> InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    pub(super) fn new(a: A, b: B) -> Self {
        // Rayon's rule: as many of each when `a` is no longer; else one more of `a`, whose
        // turn comes first.
        let (a_len, b_len) = (a.len(), b.len());
        let a_take = if a_len <= b_len { a_len } else { b_len + 1 };
        let b_take = a_len.min(b_len);
        InterleaveShortest {
            interleave: Interleave::new(a.take(a_take), b.take(b_take)),
        }
    }
}

bridged!(InterleaveShortest<A, B> where [A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>], item A::Item,
    |s| s.interleave.len(),
    |s, callback| s.interleave.with_producer(callback)
);
