//! Compile-fail tests: code that must not build, because it would be unsound if it did. Each
//! case is a doctest marked `compile_fail` with the error code it must fail with, followed by
//! its *twin*, the same code with the one unsound thing removed, which must build (and run):
//! together they show that the case fails for its intended reason, not for a typo. (rayon-core
//! keeps its `Send` and borrow checks the same way, in `src/compile_fail/`.)
//!
//! Run with the other doctests (`cargo test --doc`); this module exists only for them.

mod iter;
mod join;
mod pool;
mod scope;
mod sealed;
mod spawn;
mod sync_ptr;
