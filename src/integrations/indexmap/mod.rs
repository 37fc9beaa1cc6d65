//! Parallel iterators, methods and sorts for [indexmap]'s `IndexMap` and `IndexSet` (cargo
//! feature `indexmap`).
//!
//! Everything indexmap's own `rayon` feature gives rayon users, under the same names:
//! `par_iter`, `par_iter_mut` and `into_par_iter` (of the map, the set, their slices and
//! boxed slices); `collect` into them and `par_extend` them (also with `(&K, &V)` and `&T`
//! items of `Copy` types); `par_drain(range)`; the parallel methods `par_keys`,
//! `par_values`, `par_values_mut` and `par_eq`; the set operations; and the parallel sorts
//! (`par_sort_keys`, `par_sort_by`, `par_sorted_by`, `par_sort_by_key`,
//! `par_sort_unstable_keys`, `par_sort_unstable_by`, `par_sorted_unstable_by`,
//! `par_sort_unstable_by_key`, `par_sort_by_cached_key`; `par_sort` and the others for
//! `IndexSet`). Those are inherent methods in indexmap; here they come from the extension
//! traits [`ParallelIndexMapExt`], [`ParallelIndexSetExt`] and [`ParallelMapSliceExt`],
//! which `use blitz_par::prelude::*` brings into scope.
//!
//! The iterators are indexed and keep the map's order, as indexmap's do: they split the
//! map's entries by position ([`Slice::split_at`](::indexmap::map::Slice::split_at)),
//! without copying, so `zip`, `enumerate`, `collect` into a `Vec` and the other indexed
//! methods work on them, and `collect` gives the items in the map's order.
//!
//! ```
//! use blitz_par::prelude::*;
//! use indexmap::IndexMap;
//!
//! let mut m: IndexMap<String, usize> = (0..1000usize)
//!     .into_par_iter()
//!     .map(|i| (format!("key{i:04}"), i))
//!     .collect();
//! assert_eq!(m.get_index(10), Some((&"key0010".to_string(), &10)));
//! m.par_sort_by(|_, a, _, b| b.cmp(a));
//! assert_eq!(m.first(), Some((&"key0999".to_string(), &999)));
//! let evens: Vec<usize> = m.par_values().copied().filter(|v| v % 2 == 0).collect();
//! assert_eq!(evens[0], 998);
//! ```
//!
//! # Cost, and a difference
//!
//! `into_par_iter`, `par_drain` and `par_sorted_by` move the entries into a `Vec` first
//! (indexmap hands its own `Vec` over; that is not public). The in-place sorts take the
//! entries out, sort them in parallel with this crate's sorts, and insert them back in
//! their new order, which hashes every key again (indexmap's own sorts keep the stored
//! hashes): so they ask for `K: Hash + Eq` and `S: BuildHasher` too, which any map that
//! could have been filled has. If a comparison panics, the entries go back in the order the
//! sort left them: the map keeps every entry.
//!
//! If indexmap's own `rayon` feature is also on (another crate of the build may turn it on),
//! indexmap's inherent methods are found before this crate's trait methods, and return rayon
//! iterators; call the trait's method by its path (`ParallelIndexMapExt::par_keys(&map)`)
//! there.
//!
//! [indexmap]: https://docs.rs/indexmap

use std::hash::{BuildHasher, Hash};

pub mod map;
pub mod set;

pub use map::{ParallelIndexMapExt, ParallelMapSliceExt};
pub use set::ParallelIndexSetExt;

/// Declares an indexed parallel iterator `$name` over an indexmap slice `$slice` (`&'a
/// Slice` or `&'a mut Slice`), with its producer `$producer`: it splits with `$split`
/// (`split_at` or `split_at_mut`), and a piece runs the slice's sequential iterator `$seq`,
/// made by `|$s| $make`.
macro_rules! slice_iterator {
    ($(#[$doc:meta])* $name:ident<'a, $($g:ident),*>, $producer:ident, slice $slice:ty,
     split $split:ident, seq $seq:ty, |$s:ident| $make:expr, item $item:ty,
     where [$($bounds:tt)*]) => {
        $(#[$doc])*
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<'a, $($g),*> {
            slice: $slice,
        }

        impl<'a, $($g: std::fmt::Debug),*> std::fmt::Debug for $name<'a, $($g),*> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("slice", &self.slice).finish()
            }
        }

        impl<'a, $($g),*> $crate::iter::ParallelIterator for $name<'a, $($g),*>
        where
            $($bounds)*
        {
            type Item = $item;
            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::UnindexedConsumer<Self::Item>,
            {
                $crate::iter::plumbing::bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.slice.len())
            }
        }

        impl<'a, $($g),*> $crate::iter::IndexedParallelIterator for $name<'a, $($g),*>
        where
            $($bounds)*
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: $crate::iter::plumbing::Consumer<Self::Item>,
            {
                $crate::iter::plumbing::bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.slice.len()
            }
            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: $crate::iter::plumbing::ProducerCallback<Self::Item>,
            {
                callback.callback($producer { slice: self.slice })
            }
        }

        struct $producer<'a, $($g),*> {
            slice: $slice,
        }

        impl<'a, $($g),*> $crate::iter::plumbing::Producer for $producer<'a, $($g),*>
        where
            $($bounds)*
        {
            type Item = $item;
            type IntoIter = $seq;
            fn into_iter(self) -> $seq {
                let $s = self.slice;
                $make
            }
            fn split_at(self, index: usize) -> (Self, Self) {
                let (left, right) = self.slice.$split(index);
                ($producer { slice: left }, $producer { slice: right })
            }
        }
    };
}
use slice_iterator;

/// A map's or set's entries, taken out to be sorted, and inserted back in their new order
/// when this is dropped: after the sort, or while a panicking comparison unwinds (the
/// slice sorts leave a permutation of the items), so that the map loses nothing.
struct Taken<'m, C: Extend<T>, T> {
    collection: &'m mut C,
    items: Vec<T>,
}

impl<C: Extend<T>, T> Drop for Taken<'_, C, T> {
    fn drop(&mut self) {
        self.collection.extend(self.items.drain(..));
    }
}

/// Takes the entries of `map`, lets `sort` reorder them, and inserts them back.
fn sort_map_entries<K, V, S>(
    map: &mut ::indexmap::IndexMap<K, V, S>,
    sort: impl FnOnce(&mut [(K, V)]),
) where
    K: Hash + Eq,
    S: BuildHasher,
{
    let items: Vec<(K, V)> = map.drain(..).collect();
    let mut taken = Taken {
        collection: map,
        items,
    };
    sort(&mut taken.items);
}

/// Takes the items of `set`, lets `sort` reorder them, and inserts them back.
fn sort_set_items<T, S>(set: &mut ::indexmap::IndexSet<T, S>, sort: impl FnOnce(&mut [T]))
where
    T: Hash + Eq,
    S: BuildHasher,
{
    let items: Vec<T> = set.drain(..).collect();
    let mut taken = Taken {
        collection: set,
        items,
    };
    sort(&mut taken.items);
}
