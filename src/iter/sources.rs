//! Small sources: `empty`, `once`, `repeat`, `repeat_n`, and `Option`/`Result` as iterators of
//! at most one item.

use super::plumbing::*;
use super::*;

/// A parallel iterator with no items.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!(blitz_par::iter::empty::<i32>().count(), 0);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        _marker: std::marker::PhantomData,
    }
}

/// The iterator of [`empty`].
///
/// ```
/// use blitz_par::prelude::*;
/// let e: blitz_par::iter::Empty<u8> = blitz_par::iter::empty();
/// assert_eq!(e.len(), 0);
/// ```
#[derive(Debug)]
pub struct Empty<T> {
    _marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty {
            _marker: std::marker::PhantomData,
        }
    }
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        0
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer { opt: None })
    }
}

/// A parallel iterator with one item.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..2).into_par_iter().chain(blitz_par::iter::once(9)).collect();
/// assert_eq!(v, [0, 1, 9]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once {
        inner: OptionIntoIter { opt: Some(item) },
    }
}

/// The iterator of [`once`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!(blitz_par::iter::once(3).len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Once<T> {
    inner: OptionIntoIter<T>,
}

/// A parallel iterator over the item of an `Option` (or the `Ok` of a `Result`).
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!(Some(4).into_par_iter().sum::<i32>(), 4);
/// assert_eq!(Err::<i32, ()>(()).into_par_iter().count(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct OptionIntoIter<T> {
    opt: Option<T>,
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = OptionIntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        OptionIntoIter { opt: self }
    }
}

macro_rules! option_like {
    ([$($gen:tt)*] $ty:ty, item $item:ty, |$s:ident| $opt:expr) => {
        impl<$($gen)*> ParallelIterator for $ty {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($gen)*> IndexedParallelIterator for $ty {
            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                let $s = self;
                usize::from(($opt).is_some())
            }
            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                let $s = self;
                callback.callback(OptionProducer { opt: $opt })
            }
        }
    };
}

option_like!([T: Send] OptionIntoIter<T>, item T, |s| s.opt);
option_like!([T: Send] Once<T>, item T, |s| s.inner.opt);

/// The iterators of the other `Option` and `Result` conversions: each its own type (as in
/// rayon), each over at most one item. They are named at `blitz_par::option` and
/// `blitz_par::result`.
macro_rules! option_iter_types {
    ($(
        $(#[$doc:meta])*
        $name:ident<$($lt:lifetime,)? T>, item $item:ty,
        impl [$($igen:tt)*] for $src:ty, where [$($bound:tt)*], |$x:ident| $opt:expr;
    )*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "iterators are lazy"]
        pub struct $name<$($lt,)? T: $($bound)*> {
            opt: Option<$item>,
        }

        impl<$($lt,)? T: $($bound)*> Clone for $name<$($lt,)? T>
        where
            $item: Clone,
        {
            fn clone(&self) -> Self {
                $name { opt: self.opt.clone() }
            }
        }

        impl<$($igen)*> IntoParallelIterator for $src {
            type Iter = $name<$($lt,)? T>;
            type Item = $item;
            fn into_par_iter(self) -> Self::Iter {
                let $x = self;
                $name { opt: $opt }
            }
        }

        option_like!([$($lt,)? T: $($bound)*] $name<$($lt,)? T>, item $item, |s| s.opt);
    )*};
}

option_iter_types! {
    /// The parallel iterator of `Option::par_iter` (at `blitz_par::option::Iter`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let x = Some(3);
    /// let it: blitz_par::option::Iter<'_, i32> = x.par_iter();
    /// assert_eq!(it.copied().sum::<i32>(), 3);
    /// ```
    OptionIter<'a, T>, item &'a T, impl ['a, T: Sync] for &'a Option<T>, where [Sync], |o| o.as_ref();
    /// The parallel iterator of `Option::par_iter_mut` (at `blitz_par::option::IterMut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut x = Some(3);
    /// let it: blitz_par::option::IterMut<'_, i32> = x.par_iter_mut();
    /// it.for_each(|v| *v += 1);
    /// assert_eq!(x, Some(4));
    /// ```
    OptionIterMut<'a, T>, item &'a mut T, impl ['a, T: Send] for &'a mut Option<T>, where [Send], |o| o.as_mut();
    /// The parallel iterator of `Result::into_par_iter`: the `Ok` value, if any (at
    /// `blitz_par::result::IntoIter`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Result<i32, ()> = Ok(3);
    /// let it: blitz_par::result::IntoIter<i32> = r.into_par_iter();
    /// assert_eq!(it.sum::<i32>(), 3);
    /// ```
    ResultIntoIter<T>, item T, impl [T: Send, E] for Result<T, E>, where [Send], |r| r.ok();
    /// The parallel iterator of `Result::par_iter` (at `blitz_par::result::Iter`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let r: Result<i32, ()> = Ok(3);
    /// let it: blitz_par::result::Iter<'_, i32> = r.par_iter();
    /// assert_eq!(it.count(), 1);
    /// ```
    ResultIter<'a, T>, item &'a T, impl ['a, T: Sync, E] for &'a Result<T, E>, where [Sync], |r| r.as_ref().ok();
    /// The parallel iterator of `Result::par_iter_mut` (at `blitz_par::result::IterMut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut r: Result<i32, ()> = Ok(3);
    /// let it: blitz_par::result::IterMut<'_, i32> = r.par_iter_mut();
    /// it.for_each(|v| *v += 1);
    /// assert_eq!(r, Ok(4));
    /// ```
    ResultIterMut<'a, T>, item &'a mut T, impl ['a, T: Send, E] for &'a mut Result<T, E>, where [Send], |r| r.as_mut().ok();
}

struct OptionProducer<T> {
    opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        if index == 0 {
            (OptionProducer { opt: None }, self)
        } else {
            (self, OptionProducer { opt: None })
        }
    }
}

/// An endless parallel iterator of clones of `element`; bound it with
/// [`Repeat::take`], `zip`, or a search.
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<&str> = blitz_par::iter::repeat("x").take(3).collect();
/// assert_eq!(v, ["x", "x", "x"]);
/// ```
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// The iterator of [`repeat`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert!(blitz_par::iter::repeat(1).any(|x| x == 1));
/// ```
#[derive(Clone, Debug)]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` clones, as an indexed iterator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!(blitz_par::iter::repeat(2).take(3).sum::<i32>(), 6);
    /// ```
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs every item of `zip_op` with a clone of the element.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(char, i32)> = blitz_par::iter::repeat('a').zip(0..2).collect();
    /// assert_eq!(v, [('a', 0), ('a', 1)]);
    /// ```
    pub fn zip<Z>(self, zip_op: Z) -> Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = zip_op.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(
            RepeatProducer {
                element: self.element,
            },
            consumer,
        )
    }
}

struct RepeatProducer<T> {
    element: T,
}

impl<T: Clone + Send> UnindexedProducer for RepeatProducer<T> {
    type Item = T;
    fn split(self) -> (Self, Option<Self>) {
        let other = RepeatProducer {
            element: self.element.clone(),
        };
        (self, Some(other))
    }
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(std::iter::repeat(self.element))
    }
}

/// A parallel iterator of `n` clones of `element`.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!(blitz_par::iter::repeat_n(7, 3).collect::<Vec<_>>(), [7, 7, 7]);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN {
        element: (n > 0).then_some(element),
        count: n,
    }
}

/// The name [`repeat_n`] had until rayon 1.11 (deprecated there too).
///
/// ```
/// use blitz_par::prelude::*;
/// #[allow(deprecated)]
/// let v: Vec<u8> = blitz_par::iter::repeatn(1u8, 2).collect();
/// assert_eq!(v, [1, 1]);
/// ```
#[deprecated(note = "use `repeat_n`")]
pub fn repeatn<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    repeat_n(element, n)
}

/// The iterator of [`repeat_n`].
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!(blitz_par::iter::repeat_n(0u8, 5).len(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct RepeatN<T> {
    element: Option<T>,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }
    fn len(&self) -> usize {
        self.count
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<T: Clone + Send> Producer for RepeatN<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;
    fn into_iter(self) -> RepeatNIter<T> {
        RepeatNIter {
            element: self.element,
            count: self.count,
        }
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let left = RepeatN {
            element: (index > 0).then(|| self.element.clone()).flatten(),
            count: index,
        };
        let right_count = self.count - index;
        let right = RepeatN {
            element: if right_count > 0 { self.element } else { None },
            count: right_count,
        };
        (left, right)
    }
}

/// The sequential iterator of a [`RepeatN`] leaf: clones, moving the element out last.
///
/// ```
/// use blitz_par::iter::plumbing::{Producer, ProducerCallback};
/// use blitz_par::prelude::*;
/// struct Seq;
/// impl<T> ProducerCallback<T> for Seq {
///     type Output = usize;
///     fn callback<P: Producer<Item = T>>(self, p: P) -> usize { p.into_iter().count() }
/// }
/// assert_eq!(blitz_par::iter::repeat_n('x', 3).with_producer(Seq), 3);
/// ```
#[derive(Debug)]
pub struct RepeatNIter<T> {
    element: Option<T>,
    count: usize,
}

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        match self.count {
            0 => None,
            1 => {
                self.count = 0;
                self.element.take()
            }
            _ => {
                self.count -= 1;
                self.element.clone()
            }
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }
    /// Skips without cloning (`step_by` calls this), dropping the element if nothing is left.
    fn nth(&mut self, n: usize) -> Option<T> {
        if n >= self.count {
            self.count = 0;
            self.element = None;
            return None;
        }
        self.count -= n;
        self.next()
    }
    fn count(self) -> usize {
        self.count
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    fn next_back(&mut self) -> Option<T> {
        self.next()
    }
    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.nth(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}
