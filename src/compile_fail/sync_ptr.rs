//! `SyncPtr<T>` is `Send` and `Sync` only for `T: Send`: writing values through it from
//! other threads moves them there (an `Rc` written or read on another thread would leave its
//! count shared between threads). The type cannot check the rest of its contract (indices
//! written by one thread each, the slice alive): that is what its methods' `unsafe` is for.
//!
//! ```compile_fail,E0277
//! use blitz_par::SyncPtr;
//! use std::rc::Rc;
//! let mut out = vec![Rc::new(0), Rc::new(0)];
//! let ptr = SyncPtr::new(&mut out);
//! // Both closures share the pointer: it would have to be `Sync`.
//! let (a, b) = blitz_par::join(|| ptr.len(), || ptr.len());
//! assert_eq!(a + b, 4);
//! ```
//!
//! Its twin, with `Arc`s:
//!
//! ```
//! use blitz_par::SyncPtr;
//! use std::sync::Arc;
//! let mut out = vec![Arc::new(0), Arc::new(0)];
//! let ptr = SyncPtr::new(&mut out);
//! let (a, b) = blitz_par::join(|| ptr.len(), || ptr.len());
//! assert_eq!(a + b, 4);
//! ```
//!
//! The pointer alone, sent to another thread:
//!
//! ```compile_fail,E0277
//! use blitz_par::SyncPtr;
//! use std::rc::Rc;
//! let mut out = vec![Rc::new(0)];
//! let ptr = SyncPtr::new(&mut out);
//! std::thread::scope(|s| {
//!     s.spawn(move || ptr.len());
//! });
//! ```
//!
//! ```
//! use blitz_par::SyncPtr;
//! use std::sync::Arc;
//! let mut out = vec![Arc::new(0)];
//! let ptr = SyncPtr::new(&mut out);
//! std::thread::scope(|s| {
//!     s.spawn(move || ptr.len());
//! });
//! ```
