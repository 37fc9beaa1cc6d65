//! rayon-core's API over blitz-par's scheduler: every item is blitz-par's own, re-exported.
pub use blitz_par::*;
