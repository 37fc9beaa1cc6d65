//! `join`'s bounds: both closures and both results are `Send` (either may run on another
//! thread), and two closures may not both borrow the same data mutably.
//!
//! A closure that captures an `Rc` (here by reference, `&Rc` being `Send` only if `Rc` were
//! `Sync`) cannot go to another thread:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(5);
//! let (a, b) = blitz_par::join(|| *shared + 1, || 2);
//! assert_eq!((a, b), (6, 2));
//! ```
//!
//! Its twin, with an `Arc`:
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(5);
//! let (a, b) = blitz_par::join(|| *shared + 1, || 2);
//! assert_eq!((a, b), (6, 2));
//! ```
//!
//! The second closure's `Rc`, moved in, would be dropped on the thread that steals it, while
//! the first still counts references on this one:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(5);
//! let other = shared.clone();
//! let (a, b) = blitz_par::join(|| *shared, move || *other);
//! assert_eq!(a + b, 10);
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(5);
//! let other = shared.clone();
//! let (a, b) = blitz_par::join(|| *shared, move || *other);
//! assert_eq!(a + b, 10);
//! ```
//!
//! A result that is not `Send` cannot be handed back from the thread that ran the closure:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let (a, _) = blitz_par::join(|| Rc::new(1), || ());
//! assert_eq!(*a, 1);
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let (a, _) = blitz_par::join(|| Arc::new(1), || ());
//! assert_eq!(*a, 1);
//! ```
//!
//! Both closures reading a `Cell` through shared borrows: `Cell` is not `Sync`, so the two
//! threads would race on it:
//!
//! ```compile_fail,E0277
//! use std::cell::Cell;
//! let counter = Cell::new(0);
//! blitz_par::join(|| counter.set(counter.get() + 1), || counter.set(counter.get() + 1));
//! assert_eq!(counter.get(), 2);
//! ```
//!
//! ```
//! use std::sync::atomic::{AtomicU32, Ordering};
//! let counter = AtomicU32::new(0);
//! blitz_par::join(
//!     || counter.fetch_add(1, Ordering::Relaxed),
//!     || counter.fetch_add(1, Ordering::Relaxed),
//! );
//! assert_eq!(counter.into_inner(), 2);
//! ```
//!
//! Two closures that both borrow one vector mutably (rayon's "quicksort race"):
//!
//! ```compile_fail,E0499
//! let mut v = vec![3, 1, 2];
//! blitz_par::join(|| v[0] = 0, || v[1] = 0);
//! assert_eq!(v, [0, 0, 2]);
//! ```
//!
//! ```
//! let mut v = vec![3, 1, 2];
//! let (left, right) = v.split_at_mut(1);
//! blitz_par::join(|| left[0] = 0, || right[0] = 0);
//! assert_eq!(v, [0, 0, 2]);
//! ```
//!
//! `join_context` has the same bounds:
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let shared = Rc::new(5);
//! let (a, _) = blitz_par::join_context(|_| *shared, |_| ());
//! assert_eq!(a, 5);
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let shared = Arc::new(5);
//! let (a, _) = blitz_par::join_context(|_| *shared, |_| ());
//! assert_eq!(a, 5);
//! ```
