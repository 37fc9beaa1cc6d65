//! rayon's API over blitz-par: every item is blitz-par's own, re-exported.
pub use blitz_par::*;
