//! Ranges of integers as parallel iterators.
//!
//! As in rayon: `Range` of `u8`, `u16`, `u32`, `usize`, `i8`, `i16`, `i32`, `isize` is indexed;
//! of `u64`, `i64`, `u128`, `i128` it is unindexed (its length need not fit a `usize`), but a
//! range whose length does fit still runs through the indexed driver. `RangeInclusive` is
//! indexed for `u8`, `u16`, `i8`, `i16` and unindexed for the others. Ranges of `char` are
//! indexed (the surrogate gap is skipped).

use super::plumbing::*;
use super::plumbing::{eager_depth, join_halves};
use super::*;
use std::ops::{Range, RangeInclusive};

/// The parallel iterator over a `Range` (rayon's `range::Iter`).
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::range::Iter<u32> = (0..10u32).into_par_iter();
/// assert_eq!(it.sum::<u32>(), 45);
/// ```
#[derive(Clone, Debug)]
pub struct RangeIter<T> {
    range: Range<T>,
}

/// The parallel iterator over a `RangeInclusive` (rayon's `range_inclusive::Iter`).
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!((0..=u8::MAX).into_par_iter().count(), 256);
/// ```
#[derive(Clone, Debug)]
pub struct RangeInclusiveIter<T> {
    range: RangeInclusive<T>,
}

impl<T> IntoParallelIterator for Range<T>
where
    RangeIter<T>: ParallelIterator,
{
    type Iter = RangeIter<T>;
    type Item = <RangeIter<T> as ParallelIterator>::Item;
    fn into_par_iter(self) -> Self::Iter {
        RangeIter { range: self }
    }
}

impl<T> IntoParallelIterator for RangeInclusive<T>
where
    RangeInclusiveIter<T>: ParallelIterator,
{
    type Iter = RangeInclusiveIter<T>;
    type Item = <RangeInclusiveIter<T> as ParallelIterator>::Item;
    fn into_par_iter(self) -> Self::Iter {
        RangeInclusiveIter { range: self }
    }
}

/// The traits behind the blanket `ParallelIterator for RangeIter<T>` (rayon's design, its issue
/// 833): with one impl per integer type, the item type of `(0..n).into_par_iter()` stays an
/// unknown projection until the integer type is inferred, and a closure like `|x| -x` or
/// `|x| x.pow(2)` does not compile. With a blanket impl whose item is `T`, the item is the
/// range's own `{integer}` at once. `pub` only because the public impls name them; the module
/// is private, so no user can name or implement them.
mod private {
    use super::*;

    /// How `RangeIter<Self>` runs.
    pub trait RangeInteger: Sized + Send {
        fn drive_unindexed<C: UnindexedConsumer<Self>>(
            iter: RangeIter<Self>,
            consumer: C,
        ) -> C::Result;
        fn opt_len(iter: &RangeIter<Self>) -> Option<usize>;
    }

    /// How `RangeIter<Self>` runs as an indexed iterator.
    pub trait IndexedRangeInteger: RangeInteger {
        fn len(iter: &RangeIter<Self>) -> usize;
        fn with_producer<CB: ProducerCallback<Self>>(
            iter: RangeIter<Self>,
            callback: CB,
        ) -> CB::Output;
    }

    /// How `RangeInclusiveIter<Self>` runs.
    pub trait InclusiveRangeInteger: Sized + Send {
        fn drive_unindexed<C: UnindexedConsumer<Self>>(
            iter: RangeInclusiveIter<Self>,
            consumer: C,
        ) -> C::Result;
        fn opt_len(iter: &RangeInclusiveIter<Self>) -> Option<usize>;
    }

    /// How `RangeInclusiveIter<Self>` runs as an indexed iterator.
    pub trait IndexedInclusiveRangeInteger: InclusiveRangeInteger {
        fn len(iter: &RangeInclusiveIter<Self>) -> usize;
        fn with_producer<CB: ProducerCallback<Self>>(
            iter: RangeInclusiveIter<Self>,
            callback: CB,
        ) -> CB::Output;
    }
}

use private::{
    InclusiveRangeInteger, IndexedInclusiveRangeInteger, IndexedRangeInteger, RangeInteger,
};

/// Implements `$iter<T>`'s `ParallelIterator` by `T: $run` and its `IndexedParallelIterator`
/// by `T: $indexed`.
macro_rules! range_iter {
    ($iter:ident, $run:ident, $indexed:ident) => {
        impl<T: $run> ParallelIterator for $iter<T> {
            type Item = T;
            fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
                T::drive_unindexed(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                T::opt_len(self)
            }
        }

        impl<T: $indexed> IndexedParallelIterator for $iter<T> {
            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                T::len(self)
            }
            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                T::with_producer(self, callback)
            }
        }
    };
}

range_iter!(RangeIter, RangeInteger, IndexedRangeInteger);
range_iter!(
    RangeInclusiveIter,
    InclusiveRangeInteger,
    IndexedInclusiveRangeInteger
);

struct IndexedRangeProducer<T> {
    range: Range<T>,
}

macro_rules! indexed_range {
    ($($t:ty => $wide:ty),*) => {$(
        impl RangeIter<$t> {
            fn len_of(range: &Range<$t>) -> usize {
                if range.start < range.end {
                    // Exact in the wider type; the result fits a usize for these types.
                    (range.end as $wide - range.start as $wide) as usize
                } else {
                    0
                }
            }
        }

        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: RangeIter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }
            fn opt_len(iter: &RangeIter<$t>) -> Option<usize> {
                Some(RangeIter::<$t>::len_of(&iter.range))
            }
        }

        impl IndexedRangeInteger for $t {
            fn len(iter: &RangeIter<$t>) -> usize {
                RangeIter::<$t>::len_of(&iter.range)
            }
            fn with_producer<CB: ProducerCallback<$t>>(iter: RangeIter<$t>, callback: CB) -> CB::Output {
                callback.callback(IndexedRangeProducer { range: iter.range })
            }
        }

        impl Producer for IndexedRangeProducer<$t> {
            type Item = $t;
            type IntoIter = Range<$t>;
            fn into_iter(self) -> Range<$t> {
                self.range
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                debug_assert!(index <= RangeIter::<$t>::len_of(&self.range));
                // The midpoint lies in the range, so the wrapping sum is the exact one.
                let mid = self.range.start.wrapping_add(index as $t);
                (
                    IndexedRangeProducer { range: self.range.start..mid },
                    IndexedRangeProducer { range: mid..self.range.end },
                )
            }
        }
    )*};
}

indexed_range!(u8 => u64, u16 => u64, u32 => u64, usize => u128, i8 => i64, i16 => i64, i32 => i64, isize => i128);

/// The items of one piece of a range too long for a `usize` (`drive_pieces`).
const WIDE_PIECE: usize = (usize::MAX >> 1) + 1;

macro_rules! unindexed_range {
    ($($t:ty => $unsigned:ty),*) => {$(
        impl RangeIter<$t> {
            fn wide_len(range: &Range<$t>) -> $unsigned {
                if range.start < range.end {
                    range.end.wrapping_sub(range.start) as $unsigned
                } else {
                    0
                }
            }

            /// Runs a range whose length fits a `usize` through the indexed driver.
            fn drive_narrow<C: UnindexedConsumer<$t>>(start: $t, len: usize, consumer: C) -> C::Result {
                (0..len).into_par_iter().map(move |i| start.wrapping_add(i as $t)).drive_unindexed(consumer)
            }

            /// Drives a range too long for a `usize`: halves it [`eager_depth`] times, so that
            /// every thread can be handed a part, then runs each part as a sequence of pieces
            /// that fit a `usize`, each through the indexed driver, which splits it again
            /// whenever a thread wants work. Folding a part without such pieces could not be
            /// interrupted: a search over 10^27 items would never reach its second half. A
            /// consumer that folds from the back (`find_last`) runs the back half first and
            /// takes its pieces off the back. Halving only a few times, and then giving each
            /// piece half of the positions left, keeps the positions of `find_first` and
            /// `find_last` from running out (halving down to pieces would take 64 halvings
            /// for `0..u128::MAX`).
            fn drive_wide<C: UnindexedConsumer<$t>>(range: Range<$t>, consumer: C, depth: u32) -> C::Result {
                if consumer.full() {
                    return consumer.into_folder().complete();
                }
                let len = Self::wide_len(&range);
                if let Ok(len) = usize::try_from(len) {
                    return Self::drive_narrow(range.start, len, consumer);
                }
                if depth == 0 {
                    return Self::drive_pieces(range, consumer);
                }
                let mid = range.start.wrapping_add((len / 2) as $t);
                let (front, back) = (range.start..mid, mid..range.end);
                let reducer = consumer.to_reducer();
                let left = consumer.split_off_left();
                let from_back = C::MAY_FOLD_FROM_BACK && consumer.folds_from_back();
                let front_half = move || Self::drive_wide(front, left, depth - 1);
                let back_half = move || Self::drive_wide(back, consumer, depth - 1);
                let (left, right) = if C::MAY_FOLD_FROM_BACK {
                    join_halves(from_back, front_half, back_half)
                } else {
                    crate::join(front_half, back_half)
                };
                reducer.reduce(left, right)
            }

            /// `drive_wide` without further halving: pieces of [`WIDE_PIECE`] items in order
            /// (off the back for a consumer that folds from the back), each given half of the
            /// positions left, until the consumer is full or what is left fits a `usize`.
            fn drive_pieces<C: UnindexedConsumer<$t>>(mut range: Range<$t>, mut consumer: C) -> C::Result {
                let from_back = C::MAY_FOLD_FROM_BACK && consumer.folds_from_back();
                // The results of the pieces done so far, and how to join one more to them.
                let mut done: Option<C::Result> = None;
                let join_to = |done: Option<C::Result>, result: C::Result, reducer: C::Reducer| match done {
                    None => result,
                    Some(done) if from_back => reducer.reduce(result, done),
                    Some(done) => reducer.reduce(done, result),
                };
                loop {
                    let reducer = consumer.to_reducer();
                    let len = Self::wide_len(&range);
                    if consumer.full() {
                        return join_to(done, consumer.into_folder().complete(), reducer);
                    }
                    if let Ok(len) = usize::try_from(len) {
                        return join_to(done, Self::drive_narrow(range.start, len, consumer), reducer);
                    }
                    let result = if from_back {
                        // `split_off_left` hands the front (the rest) away; this consumer
                        // keeps the back half of the positions, for the piece.
                        let rest = consumer.split_off_left();
                        let start = range.end.wrapping_sub(WIDE_PIECE as $t);
                        let result = Self::drive_narrow(start, WIDE_PIECE, consumer);
                        consumer = rest;
                        range.end = start;
                        result
                    } else {
                        let piece = consumer.split_off_left();
                        let result = Self::drive_narrow(range.start, WIDE_PIECE, piece);
                        range.start = range.start.wrapping_add(WIDE_PIECE as $t);
                        result
                    };
                    done = Some(join_to(done, result, reducer));
                }
            }
        }

        impl RangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: RangeIter<$t>, consumer: C) -> C::Result {
                match iter.opt_len() {
                    Some(len) => RangeIter::<$t>::drive_narrow(iter.range.start, len, consumer),
                    None => crate::scheduler::enter(move || {
                        RangeIter::<$t>::drive_wide(iter.range, consumer, eager_depth())
                    }),
                }
            }
            fn opt_len(iter: &RangeIter<$t>) -> Option<usize> {
                usize::try_from(RangeIter::<$t>::wide_len(&iter.range)).ok()
            }
        }
    )*};
}

unindexed_range!(u64 => u64, i64 => u64, u128 => u128, i128 => u128);

macro_rules! inclusive_range {
    (indexed: $($t:ty),*) => {$(
        impl InclusiveRangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: RangeInclusiveIter<$t>, consumer: C) -> C::Result {
                bridge(iter, consumer)
            }
            fn opt_len(iter: &RangeInclusiveIter<$t>) -> Option<usize> {
                Some(iter.len())
            }
        }

        impl IndexedInclusiveRangeInteger for $t {
            fn len(iter: &RangeInclusiveIter<$t>) -> usize {
                if iter.range.is_empty() {
                    0
                } else {
                    (*iter.range.end() as i64 - *iter.range.start() as i64) as usize + 1
                }
            }
            fn with_producer<CB: ProducerCallback<$t>>(iter: RangeInclusiveIter<$t>, callback: CB) -> CB::Output {
                // Widen to i32 so the end can be exclusive, then narrow every item back.
                let (start, end) = if iter.range.is_empty() {
                    (0i32, 0i32)
                } else {
                    (*iter.range.start() as i32, *iter.range.end() as i32 + 1)
                };
                (start..end).into_par_iter().map(|x| x as $t).with_producer(callback)
            }
        }
    )*};
    (unindexed: $($t:ty),*) => {$(
        impl InclusiveRangeInteger for $t {
            fn drive_unindexed<C: UnindexedConsumer<$t>>(iter: RangeInclusiveIter<$t>, consumer: C) -> C::Result {
                if iter.range.is_empty() {
                    return super::sources::empty::<$t>().drive_unindexed(consumer);
                }
                let (start, end) = iter.range.into_inner();
                match end.checked_add(1) {
                    Some(end) => (start..end).into_par_iter().drive_unindexed(consumer),
                    None => (start..end).into_par_iter().chain(super::sources::once(end)).drive_unindexed(consumer),
                }
            }
            fn opt_len(iter: &RangeInclusiveIter<$t>) -> Option<usize> {
                if iter.range.is_empty() {
                    return Some(0);
                }
                let (start, end) = (*iter.range.start(), *iter.range.end());
                (start..end).into_par_iter().opt_len()?.checked_add(1)
            }
        }
    )*};
}

inclusive_range!(indexed: u8, u16, i8, i16);
inclusive_range!(unindexed: u32, u64, u128, usize, i32, i64, i128, isize);

/// Chars are iterated through their code points with the surrogate gap `0xD800..0xE000` cut
/// out, so that positions are dense and the range is indexed.
const SURROGATE_START: u32 = 0xD800;
const SURROGATE_LEN: u32 = 0x800;

fn char_to_dense(c: char) -> u32 {
    let c = u32::from(c);
    if c >= SURROGATE_START + SURROGATE_LEN {
        c - SURROGATE_LEN
    } else {
        c
    }
}

fn dense_to_char(x: u32) -> char {
    let c = if x >= SURROGATE_START {
        x + SURROGATE_LEN
    } else {
        x
    };
    char::from_u32(c).expect("char range: dense positions map to scalar values")
}

impl ParallelIterator for RangeIter<char> {
    type Item = char;
    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for RangeIter<char> {
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        let (start, end) = (
            char_to_dense(self.range.start),
            char_to_dense(self.range.end),
        );
        end.saturating_sub(start) as usize
    }
    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        let (start, end) = (
            char_to_dense(self.range.start),
            char_to_dense(self.range.end),
        );
        (start..end.max(start))
            .into_par_iter()
            .map(dense_to_char)
            .with_producer(callback)
    }
}

impl ParallelIterator for RangeInclusiveIter<char> {
    type Item = char;
    fn drive_unindexed<C: UnindexedConsumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for RangeInclusiveIter<char> {
    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        if self.range.is_empty() {
            0
        } else {
            (char_to_dense(*self.range.end()) - char_to_dense(*self.range.start())) as usize + 1
        }
    }
    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        let (start, end) = if self.range.is_empty() {
            (0, 0)
        } else {
            // The dense end + 1 fits a u32: dense positions are below 0x11_0000.
            (
                char_to_dense(*self.range.start()),
                char_to_dense(*self.range.end()) + 1,
            )
        };
        (start..end)
            .into_par_iter()
            .map(dense_to_char)
            .with_producer(callback)
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn limits() {
        assert_eq!((i8::MIN..i8::MAX).into_par_iter().count(), 255);
        assert_eq!((i8::MIN..=i8::MAX).into_par_iter().count(), 256);
        assert_eq!(
            (u8::MAX..=u8::MAX).into_par_iter().collect::<Vec<_>>(),
            [u8::MAX]
        );
        assert_eq!((isize::MIN..isize::MAX).into_par_iter().len(), usize::MAX);
        assert_eq!(
            (i64::MAX - 2..=i64::MAX)
                .into_par_iter()
                .collect::<Vec<_>>(),
            [i64::MAX - 2, i64::MAX - 1, i64::MAX]
        );
        assert_eq!((u128::MAX - 1..=u128::MAX).into_par_iter().count(), 2);
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 5..3;
        assert_eq!(backwards.into_par_iter().count(), 0);
        #[allow(clippy::reversed_empty_ranges)]
        let empty = 5u64..=3;
        assert_eq!(empty.into_par_iter().count(), 0);
        assert_eq!((0..u128::MAX).into_par_iter().opt_len(), None);
        let chars: Vec<char> = ('\u{D7FE}'..='\u{E001}').into_par_iter().collect();
        assert_eq!(chars, ('\u{D7FE}'..='\u{E001}').collect::<Vec<_>>());
        assert_eq!(('a'..'e').into_par_iter().rev().collect::<String>(), "dcba");
        assert_eq!(
            ('\0'..=char::MAX).into_par_iter().count(),
            ('\0'..=char::MAX).count()
        );
        assert_eq!(('b'..'a').into_par_iter().count(), 0);
        assert_eq!(
            (0..u128::MAX).into_par_iter().find_first(|&x| x == 1000),
            Some(1000)
        );
    }
}
