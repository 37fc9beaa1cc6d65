//! The traits a user brings into scope with `use blitz_par::prelude::*`.
//!
//! They give collections, ranges, slices and strings their parallel iterators and methods
//! (`par_iter`, `into_par_iter`, `par_sort`, `par_chars`, ...), as rayon's prelude does; with
//! the `indicatif`, `hashbrown` or `indexmap` feature, also those of the integration's module.
//!
//! ```
//! use blitz_par::prelude::*;
//! let mut v: Vec<u32> = (0..100).rev().collect();
//! v.par_sort_unstable();
//! assert_eq!(v.par_iter().map(|&x| x as u64).sum::<u64>(), 4950);
//! ```

#[cfg(feature = "hashbrown")]
#[doc(no_inline)]
pub use crate::hashbrown::{ParallelHashMapExt, ParallelHashSetExt};
#[cfg(feature = "indexmap")]
#[doc(no_inline)]
pub use crate::indexmap::{ParallelIndexMapExt, ParallelIndexSetExt, ParallelMapSliceExt};
#[cfg(feature = "indicatif")]
#[doc(no_inline)]
pub use crate::indicatif::ParallelProgressIterator;
pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::{ParallelSlice, ParallelSliceMut, ParallelVec};
pub use crate::str::ParallelString;
