//! Scopes: a spawned job may borrow only what outlives the scope, and the scope itself may
//! not escape its body. Jobs and the scope body (for `scope`, not `in_place_scope`) are `Send`.
//!
//! A job borrowing a local of the scope's body, which is gone when the body returns while the
//! job may still run:
//!
//! ```compile_fail,E0373
//! let mut total = 0;
//! blitz_par::scope(|s| {
//!     let x = 22;
//!     s.spawn(|_| total += x);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! Its twin, with `x` outside the scope:
//!
//! ```
//! let mut total = 0;
//! let x = 22;
//! blitz_par::scope(|s| {
//!     s.spawn(|_| total += x);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! The same with a `move` closure holding a reference to the body's local:
//!
//! ```compile_fail,E0597
//! let mut total = 0;
//! blitz_par::scope(|s| {
//!     let x = 22;
//!     let (x_ref, total) = (&x, &mut total);
//!     s.spawn(move |_| *total += *x_ref);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! ```
//! let mut total = 0;
//! let x = 22;
//! blitz_par::scope(|s| {
//!     let (x_ref, total) = (&x, &mut total);
//!     s.spawn(move |_| *total += *x_ref);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! The same for an `in_place_scope`, whose body stays on the calling thread:
//!
//! ```compile_fail,E0373
//! let mut total = 0;
//! blitz_par::in_place_scope(|s| {
//!     let x = 22;
//!     s.spawn(|_| total += x);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! ```
//! let mut total = 0;
//! let x = 22;
//! blitz_par::in_place_scope(|s| {
//!     s.spawn(|_| total += x);
//! });
//! assert_eq!(total, 22);
//! ```
//!
//! The scope escaping its body, to spawn after it has waited for its jobs:
//!
//! ```compile_fail,E0521
//! let mut kept = None;
//! blitz_par::scope(|s| kept = Some(s));
//! ```
//!
//! ```
//! let mut spawned = false;
//! blitz_par::scope(|s| s.spawn(|_| spawned = true));
//! assert!(spawned);
//! ```
//!
//! A job that moves an `Rc` to whichever thread runs it:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(1);
//! blitz_par::scope(|s| {
//!     let mine = shared.clone();
//!     s.spawn(move |_| assert_eq!(*mine, 1));
//! });
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(1);
//! blitz_par::scope(|s| {
//!     let mine = shared.clone();
//!     s.spawn(move |_| assert_eq!(*mine, 1));
//! });
//! ```
//!
//! `scope`'s body may run elsewhere too (rayon runs it on a pool thread), so it is `Send`;
//! `in_place_scope`'s is not required to be, and its twin builds with the `Rc`:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(1);
//! let n = blitz_par::scope(|_| *shared);
//! assert_eq!(n, 1);
//! ```
//!
//! ```
//! use std::rc::Rc;
//! let shared = Rc::new(1);
//! let n = blitz_par::in_place_scope(|_| *shared);
//! assert_eq!(n, 1);
//! ```
