//! The traits a user brings into scope with `use blitz_par::prelude::*`.

#[cfg(feature = "hashbrown")]
pub use crate::hashbrown::{ParallelHashMapExt, ParallelHashSetExt};
#[cfg(feature = "indexmap")]
pub use crate::indexmap::{ParallelIndexMapExt, ParallelIndexSetExt, ParallelMapSliceExt};
#[cfg(feature = "indicatif")]
pub use crate::indicatif::ParallelProgressIterator;
pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator,
};
pub use crate::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::str::ParallelString;
