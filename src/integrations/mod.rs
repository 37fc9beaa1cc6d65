//! Support for other crates' types, one module per crate, each behind the cargo feature of
//! the crate's name: `indicatif`, `hashbrown`, `indexmap`. Like those crates' own `rayon`
//! support, which they mirror name for name, each module is written against blitz-par's
//! public plumbing only (`iter::plumbing`); their traits are in the prelude.

/// Declares a parallel iterator type `$name` that holds the parallel iterator `$inner` in its
/// field `inner` and passes every drive on to it: unindexed (as hashbrown's are), or also
/// indexed (`indexed`, as indexmap's are).
#[cfg(any(feature = "hashbrown", feature = "indexmap"))]
macro_rules! delegating_iterator {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($g:ident),*>, inner $inner:ty,
     $(marker $marker:ty,)? item $item:ty, where [$($bounds:tt)*], indexed) => {
        delegating_iterator!($(#[$doc])* $name<$($lt,)? $($g),*>, inner $inner,
            $(marker $marker,)? item $item, where [$($bounds)*]);
        delegating_iterator!(@indexed $name<$($lt,)? $($g),*>, where [$($bounds)*]);
    };
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)? $($g:ident),*>, inner $inner:ty,
     $(marker $marker:ty,)? item $item:ty, where [$($bounds:tt)*]) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<$($lt,)? $($g),*> {
            inner: $inner,
            $(marker: std::marker::PhantomData<$marker>,)?
        }

        impl<$($lt,)? $($g),*> $crate::iter::ParallelIterator for $name<$($lt,)? $($g),*>
        where
            $($bounds)*
        {
            type Item = $item;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<Self::Item>,
            {
                self.inner.drive_unindexed(consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }
    };
    (@indexed $name:ident<$($lt:lifetime,)? $($g:ident),*>, where [$($bounds:tt)*]) => {
        impl<$($lt,)? $($g),*> $crate::iter::IndexedParallelIterator for $name<$($lt,)? $($g),*>
        where
            $($bounds)*
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::Consumer<Self::Item>,
            {
                self.inner.drive(consumer)
            }
            fn len(&self) -> usize {
                self.inner.len()
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: $crate::iter::plumbing::ProducerCallback<Self::Item>,
            {
                self.inner.with_producer(callback)
            }
        }
    };
}

/// Extends `target` with the items of `par_iter`, collected in parallel into one vector per
/// loop of the driver and inserted in order, after making room for all of them with
/// `reserve` (a hash table then grows once). What rayon, hashbrown and indexmap do.
#[cfg(any(feature = "hashbrown", feature = "indexmap"))]
fn extend_in_order<T, I, E>(target: &mut E, par_iter: I, reserve: impl FnOnce(&mut E, usize))
where
    T: Send,
    I: crate::iter::IntoParallelIterator<Item = T>,
    E: Extend<T>,
{
    use crate::iter::ParallelIterator;
    let list = par_iter.into_par_iter().collect_vec_list();
    reserve(target, list.iter().map(Vec::len).sum());
    for items in list {
        target.extend(items);
    }
}

#[cfg(feature = "hashbrown")]
pub mod hashbrown;
#[cfg(feature = "indexmap")]
pub mod indexmap;
#[cfg(feature = "indicatif")]
pub mod indicatif;
