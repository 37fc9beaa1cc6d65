//! The traits sealed as rayon seals them: `str::Pattern` and `iter::Try` take only the types
//! the crate implements them for, so that their methods can change without breaking anyone.
//!
//! A pattern of one's own:
//!
//! ```compile_fail,E0277
//! struct Comma;
//! impl blitz_par::str::Pattern for Comma {
//!     fn matches_char(&self, c: char) -> bool {
//!         c == ','
//!     }
//! }
//! ```
//!
//! Its twin, with a predicate (a pattern the crate provides):
//!
//! ```
//! use blitz_par::prelude::*;
//! let comma = |c: char| c == ',';
//! assert_eq!("a,b,c".par_split(comma).count(), 3);
//! ```
//!
//! A `Try` type of one's own:
//!
//! ```compile_fail,E0277
//! use std::ops::ControlFlow;
//! struct Flag(bool);
//! impl blitz_par::iter::Try for Flag {
//!     type Output = ();
//!     type Residual = ();
//!     fn from_output(_: ()) -> Self {
//!         Flag(true)
//!     }
//!     fn from_residual(_: ()) -> Self {
//!         Flag(false)
//!     }
//!     fn branch(self) -> ControlFlow<(), ()> {
//!         if self.0 {
//!             ControlFlow::Continue(())
//!         } else {
//!             ControlFlow::Break(())
//!         }
//!     }
//! }
//! ```
//!
//! Its twin, with `ControlFlow` (a `Try` type the crate provides):
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::ops::ControlFlow;
//! let r = (0..10).into_par_iter().try_for_each(|x| {
//!     if x < 20 {
//!         ControlFlow::Continue(())
//!     } else {
//!         ControlFlow::Break(x)
//!     }
//! });
//! assert_eq!(r, ControlFlow::Continue(()));
//! ```
