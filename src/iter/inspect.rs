//! `inspect` and `update`: `map` that passes the item through after looking at (or changing) it.

use super::plumbing::*;
use super::*;
use std::fmt;

macro_rules! pass_through_adapter {
    ($(#[$doc:meta])* $name:ident, |$op:ident, $x:ident| $body:expr, $($sig:tt)*) => {
        $(#[$doc])*
        #[derive(Clone)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<I, F> {
            base: I,
            op: F,
        }

        impl<I: fmt::Debug, F> fmt::Debug for $name<I, F> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<I, F> $name<I, F> {
            pub(super) fn new(base: I, op: F) -> Self {
                $name { base, op }
            }
        }

        impl<I, F> ParallelIterator for $name<I, F>
        where
            I: ParallelIterator,
            F: $($sig)* + Sync + Send,
        {
            type Item = I::Item;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<I::Item>,
            {
                let $op = &self.op;
                #[allow(unused_mut)]
                self.base.map(move |mut $x| { $body; $x }).drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<I, F> IndexedParallelIterator for $name<I, F>
        where
            I: IndexedParallelIterator,
            F: $($sig)* + Sync + Send,
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: Consumer<I::Item>,
            {
                let $op = &self.op;
                #[allow(unused_mut)]
                self.base.map(move |mut $x| { $body; $x }).drive(consumer)
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<I::Item>,
            {
                let $op = &self.op;
                #[allow(unused_mut)]
                self.base.map(move |mut $x| { $body; $x }).with_producer(callback)
            }
        }
    };
}

pass_through_adapter!(
    /// The iterator of [`ParallelIterator::inspect`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!((0..3).into_par_iter().inspect(|x| assert!(*x < 3)).count(), 3);
    /// ```
    Inspect,
    |op, x| op(&x),
    Fn(&I::Item)
);

pass_through_adapter!(
    /// The iterator of [`ParallelIterator::update`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..3).into_par_iter().update(|x| *x *= 2).collect();
    /// assert_eq!(v, [0, 2, 4]);
    /// ```
    Update,
    |op, x| op(&mut x),
    Fn(&mut I::Item)
);
