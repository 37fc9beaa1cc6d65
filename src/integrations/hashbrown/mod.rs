//! Parallel iterators and methods for [hashbrown]'s `HashMap`, `HashSet` and `HashTable`
//! (cargo feature `hashbrown`).
//!
//! Everything hashbrown's own `rayon` feature gives rayon users, under the same names:
//! `par_iter`, `par_iter_mut` and `into_par_iter`; `collect` into the map and the set, and
//! `par_extend` them (also with `(&K, &V)` and `&T` items of `Copy` types); `par_drain`; and
//! hashbrown's parallel methods, `par_keys`, `par_values`, `par_values_mut`, `par_eq` and
//! the set operations `par_union`, `par_difference`, `par_symmetric_difference`,
//! `par_intersection`, `par_is_disjoint`, `par_is_subset` and `par_is_superset`. Those are
//! inherent methods in hashbrown; here they come from the extension traits
//! [`ParallelHashMapExt`] and [`ParallelHashSetExt`], which `use blitz_par::prelude::*`
//! brings into scope, so rayon users' calls compile unchanged. The iterator types are in
//! [`hash_map`], [`hash_set`] and [`hash_table`], where hashbrown has them in
//! `hash_map::rayon` and so on.
//!
//! ```
//! use blitz_par::prelude::*;
//! use hashbrown::HashMap;
//!
//! let words = ["apple", "bean", "apple", "corn", "bean", "apple"];
//! let counts: HashMap<&str, usize> = words
//!     .par_iter()
//!     .fold(HashMap::new, |mut m, &w| {
//!         *m.entry(w).or_insert(0) += 1;
//!         m
//!     })
//!     .reduce(HashMap::new, |mut a, b| {
//!         for (w, n) in b {
//!             *a.entry(w).or_insert(0) += n;
//!         }
//!         a
//!     });
//! assert_eq!(counts["apple"], 3);
//! let total: usize = counts.par_values().sum();
//! assert_eq!(total, words.len());
//! ```
//!
//! # Cost
//!
//! hashbrown does not make the iteration of its raw table public, and its public iterators
//! can only be walked from the start. So the parallel iterators of `HashMap` and `HashSet`
//! (and `par_iter_mut`, `into_par_iter` and `par_drain` of `HashTable`) first walk the table
//! on the calling thread, gathering the items, or references to them, into a `Vec` (8 to 16
//! bytes an entry for references), and then run in parallel over that `Vec`, split by index.
//! The walk costs about as much as a sequential loop that does almost nothing per item:
//! `par_iter` pays off when the work per item is well above a nanosecond or two, as it is for
//! most uses of a parallel iterator over a map. `HashTable::par_iter` needs no walk: it splits
//! the table's bucket indices ([`HashTable::num_buckets`], [`HashTable::get_bucket`], both
//! public) and scans them in parallel, as hashbrown's own does. `PERF.md` has figures.
//!
//! Only tables with hashbrown's default allocator are supported.
//!
//! If hashbrown's own `rayon` feature is also on (another crate of the build may turn it
//! on), hashbrown's inherent `par_keys` and the other methods are found before this crate's
//! trait methods, and they return rayon iterators; call the trait's method by its path
//! (`ParallelHashMapExt::par_keys(&map)`) there.
//!
//! [hashbrown]: https://docs.rs/hashbrown
//! [`HashTable::num_buckets`]: ::hashbrown::HashTable::num_buckets
//! [`HashTable::get_bucket`]: ::hashbrown::HashTable::get_bucket

pub mod hash_map;
pub mod hash_set;
pub mod hash_table;

pub use hash_map::ParallelHashMapExt;
pub use hash_set::ParallelHashSetExt;
