//! `cloned` and `copied`: `map` with `Clone::clone` / a copy, as named types.

use super::plumbing::*;
use super::*;

macro_rules! ref_to_value_adapter {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $op:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<I> {
            base: I,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I) -> Self {
                $name { base }
            }
        }

        impl<'a, T, I> ParallelIterator for $name<I>
        where
            I: ParallelIterator<Item = &'a T>,
            T: 'a + $bound + Send + Sync,
        {
            type Item = T;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<T>,
            {
                self.base.map($op).drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<'a, T, I> IndexedParallelIterator for $name<I>
        where
            I: IndexedParallelIterator<Item = &'a T>,
            T: 'a + $bound + Send + Sync,
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: Consumer<T>,
            {
                self.base.map($op).drive(consumer)
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<T>,
            {
                self.base.map($op).with_producer(callback)
            }
        }
    };
}

ref_to_value_adapter!(
    /// The iterator of [`ParallelIterator::cloned`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!(["a".to_string()].par_iter().cloned().collect::<Vec<_>>(), ["a"]);
    /// ```
    Cloned,
    Clone,
    |x: &T| x.clone()
);

ref_to_value_adapter!(
    /// The iterator of [`ParallelIterator::copied`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2].par_iter().copied().sum::<i32>(), 3);
    /// ```
    Copied,
    Copy,
    |x: &T| *x
);
