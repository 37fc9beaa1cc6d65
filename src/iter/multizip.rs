//! Tuples of indexed parallel iterators (up to 12) zip into one: `(a, b, c).into_par_iter()`
//! yields `(a_item, b_item, c_item)`, as long as the shortest. References to such tuples work
//! too (`(&v, &w).into_par_iter()`, `(&mut v, &w).into_par_iter()` through `par_iter_mut`).
//! As in rayon, the tuple is a chain of `zip`s whose nested pairs are flattened by a `map`.

use super::plumbing::*;
use super::*;

/// The iterator of a tuple's `into_par_iter()`: its members zipped.
///
/// ```
/// use blitz_par::prelude::*;
/// let (a, b, c) = (vec![1, 2, 3], [10, 20, 30], 100..103);
/// let sums: Vec<i32> = (&a, &b, c).into_par_iter().map(|(x, y, z)| x + y + z).collect();
/// assert_eq!(sums, [111, 123, 135]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct MultiZip<T> {
    tuple: T,
}

/// `((a, b), c)` from `a, b, c`: the item pattern of a left-nested chain of `zip`s.
macro_rules! nested {
    ($a:ident) => { $a };
    ($a:ident, $b:ident $(, $rest:ident)*) => { nested!(@acc ($a, $b) $(, $rest)*) };
    (@acc $acc:tt) => { $acc };
    (@acc $acc:tt, $next:ident $(, $rest:ident)*) => { nested!(@acc ($acc, $next) $(, $rest)*) };
}

macro_rules! multizip {
    ($(($first_idx:tt $First:ident $first:ident $(, $idx:tt $T:ident $t:ident)*))+) => {$(
        impl<$First, $($T),*> IntoParallelIterator for ($First, $($T,)*)
        where
            $First: IntoParallelIterator<Iter: IndexedParallelIterator>,
            $($T: IntoParallelIterator<Iter: IndexedParallelIterator>,)*
        {
            type Item = ($First::Item, $($T::Item,)*);
            type Iter = MultiZip<($First::Iter, $($T::Iter,)*)>;
            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: (self.$first_idx.into_par_iter(), $(self.$idx.into_par_iter(),)*) }
            }
        }

        impl<'a, $First, $($T),*> IntoParallelIterator for &'a ($First, $($T,)*)
        where
            $First: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,
            $($T: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,)*
        {
            type Item = ($First::Item, $($T::Item,)*);
            type Iter = MultiZip<($First::Iter, $($T::Iter,)*)>;
            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: (self.$first_idx.par_iter(), $(self.$idx.par_iter(),)*) }
            }
        }

        impl<'a, $First, $($T),*> IntoParallelIterator for &'a mut ($First, $($T,)*)
        where
            $First: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,
            $($T: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,)*
        {
            type Item = ($First::Item, $($T::Item,)*);
            type Iter = MultiZip<($First::Iter, $($T::Iter,)*)>;
            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: (self.$first_idx.par_iter_mut(), $(self.$idx.par_iter_mut(),)*) }
            }
        }

        impl<$First, $($T),*> ParallelIterator for MultiZip<($First, $($T,)*)>
        where
            $First: IndexedParallelIterator,
            $($T: IndexedParallelIterator,)*
        {
            type Item = ($First::Item, $($T::Item,)*);
            fn drive_unindexed<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: UnindexedConsumer<Self::Item>,
            {
                self.drive(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$First, $($T),*> IndexedParallelIterator for MultiZip<($First, $($T,)*)>
        where
            $First: IndexedParallelIterator,
            $($T: IndexedParallelIterator,)*
        {
            fn drive<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: Consumer<Self::Item>,
            {
                let ($first, $($t,)*) = self.tuple;
                $first$(.zip($t))*
                    .map(|nested!($first $(, $t)*)| ($first, $($t,)*))
                    .drive(consumer)
            }
            fn len(&self) -> usize {
                let len = self.tuple.$first_idx.len();
                $(let len = len.min(self.tuple.$idx.len());)*
                len
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<Self::Item>,
            {
                let ($first, $($t,)*) = self.tuple;
                $first$(.zip($t))*
                    .map(|nested!($first $(, $t)*)| ($first, $($t,)*))
                    .with_producer(callback)
            }
        }
    )+};
}

multizip! {
    (0 A a)
    (0 A a, 1 B b)
    (0 A a, 1 B b, 2 C c)
    (0 A a, 1 B b, 2 C c, 3 D d)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g, 7 H h)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g, 7 H h, 8 I i)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g, 7 H h, 8 I i, 9 J j)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g, 7 H h, 8 I i, 9 J j, 10 K k)
    (0 A a, 1 B b, 2 C c, 3 D d, 4 E e, 5 F f, 6 G g, 7 H h, 8 I i, 9 J j, 10 K k, 11 L l)
}
