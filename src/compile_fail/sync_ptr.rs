//! `SyncPtr<'a, T>` is `Send` and `Sync` only for `T: Send`: writing values through it from
//! other threads moves them there (an `Rc` written or read on another thread would leave its
//! count shared between threads). It keeps the slice borrowed (`'a`), so the slice stays alive
//! and untouched while the pointer may be used. The type cannot check the rest of its contract
//! (indices written by one thread each, in bounds): that is what its methods' `unsafe` is for.
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
//!
//! The slice stays borrowed while the pointer may be used: neither touched
//!
//! ```compile_fail,E0499
//! let mut out = vec![0u32; 8];
//! let ptr = blitz_par::SyncPtr::new(&mut out);
//! out[0] = 1;
//! // SAFETY: one write to an index in bounds, on this thread.
//! unsafe { ptr.write(1, 2) };
//! ```
//!
//! nor dropped:
//!
//! ```compile_fail,E0505
//! let mut out = vec![0u32; 8];
//! let ptr = blitz_par::SyncPtr::new(&mut out);
//! drop(out);
//! // SAFETY: as above.
//! unsafe { ptr.write(1, 2) };
//! ```
//!
//! Once its last use is behind, the slice is free again:
//!
//! ```
//! let mut out = vec![0u32; 8];
//! let ptr = blitz_par::SyncPtr::new(&mut out);
//! // SAFETY: as above.
//! unsafe { ptr.write(1, 2) };
//! out[0] = 1;
//! assert_eq!(out[..2], [1, 2]);
//! ```
