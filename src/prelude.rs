//! The traits a user brings into scope with `use blitz_par::prelude::*`.

pub use crate::slice::ParallelSliceMut;
