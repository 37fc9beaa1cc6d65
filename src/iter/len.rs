//! `with_min_len` and `with_max_len`: bounds on the leaves the driver folds.

use super::plumbing::*;
use super::*;

macro_rules! leaf_bound_adapter {
    ($(#[$doc:meta])* $name:ident, $producer:ident, $method:ident, $combine:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<I> {
            base: I,
            bound: usize,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I, bound: usize) -> Self {
                $name { base, bound }
            }
        }

        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<I::Item>,
            {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.base.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: Consumer<I::Item>,
            {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<I::Item>,
            {
                struct Callback<CB> {
                    callback: CB,
                    bound: usize,
                }
                impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
                    type Output = CB::Output;
                    fn callback<P>(self, base: P) -> CB::Output
                    where
                        P: Producer<Item = T>,
                    {
                        self.callback.callback($producer { base, bound: self.bound })
                    }
                }
                self.base.with_producer(Callback { callback, bound: self.bound })
            }
        }

        struct $producer<P> {
            base: P,
            bound: usize,
        }

        impl<P: Producer> Producer for $producer<P> {
            type Item = P::Item;
            type IntoIter = P::IntoIter;
            fn into_iter(self) -> P::IntoIter {
                self.base.into_iter()
            }
            fn min_len(&self) -> usize {
                leaf_bound_adapter!(@min $combine, self)
            }
            fn max_len(&self) -> usize {
                leaf_bound_adapter!(@max $combine, self)
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                let (left, right) = self.base.split_at(index);
                ($producer { base: left, bound: self.bound }, $producer { base: right, bound: self.bound })
            }
            fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
                self.base.fold_with(folder)
            }
        }
    };
    (@min max, $s:ident) => { $s.base.min_len().max($s.bound) };
    (@max max, $s:ident) => { $s.base.max_len() };
    (@min min, $s:ident) => { $s.base.min_len() };
    (@max min, $s:ident) => { $s.base.max_len().min($s.bound) };
}

leaf_bound_adapter!(
    /// The iterator of [`IndexedParallelIterator::with_min_len`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..10).into_par_iter().with_min_len(4).sum::<i32>(), 45);
    /// ```
    MinLen, MinLenProducer, min_len, max
);

leaf_bound_adapter!(
    /// The iterator of [`IndexedParallelIterator::with_max_len`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..10).into_par_iter().with_max_len(2).sum::<i32>(), 45);
    /// ```
    MaxLen, MaxLenProducer, max_len, min
);
