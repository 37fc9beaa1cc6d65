//! `spawn`: the job runs on some thread of the pool, at some time: it is `Send + 'static`.
//!
//! Borrowing a local of the caller, who may have returned by the time the job runs:
//!
//! ```compile_fail,E0373
//! let v = vec![1, 2, 3];
//! blitz_par::spawn(|| assert_eq!(v.len(), 3));
//! ```
//!
//! Its twin, moving the vector in:
//!
//! ```
//! let v = vec![1, 2, 3];
//! blitz_par::spawn(move || assert_eq!(v.len(), 3));
//! ```
//!
//! A `move` closure holding a reference, which is no better:
//!
//! ```compile_fail,E0597
//! let v = vec![1, 2, 3];
//! let v_ref = &v;
//! blitz_par::spawn(move || assert_eq!(v_ref.len(), 3));
//! ```
//!
//! ```
//! static V: [i32; 3] = [1, 2, 3];
//! let v_ref = &V;
//! blitz_par::spawn(move || assert_eq!(v_ref.len(), 3));
//! ```
//!
//! An `Rc` moved to a pool thread:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(1);
//! blitz_par::spawn(move || assert_eq!(*shared, 1));
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(1);
//! blitz_par::spawn(move || assert_eq!(*shared, 1));
//! ```
//!
//! `spawn_fifo` has the same bounds:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(1);
//! blitz_par::spawn_fifo(move || assert_eq!(*shared, 1));
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(1);
//! blitz_par::spawn_fifo(move || assert_eq!(*shared, 1));
//! ```
//!
//! A broadcast runs its one closure on every thread at once: it is `Sync`, so it may not
//! mutate a `Cell` through a shared borrow:
//!
//! ```compile_fail,E0277
//! use std::cell::Cell;
//! let calls = Cell::new(0);
//! blitz_par::broadcast(|_| calls.set(calls.get() + 1));
//! assert_eq!(calls.get(), blitz_par::current_num_threads());
//! ```
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! let calls = AtomicUsize::new(0);
//! blitz_par::broadcast(|_| calls.fetch_add(1, Ordering::Relaxed));
//! assert_eq!(calls.into_inner(), blitz_par::current_num_threads());
//! ```
