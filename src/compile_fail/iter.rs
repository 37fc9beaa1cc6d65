//! Parallel iterators: the closures run on many threads at once (`Send + Sync`), items move
//! between threads (`Send`), and a borrowed collection's items are shared (`Sync`).
//!
//! A `map` closure that reads an `Rc`:
//!
//! ```compile_fail,E0277
//! use blitz_par::prelude::*;
//! use std::rc::Rc;
//! let offset = Rc::new(1);
//! let sum: i32 = vec![1, 2, 3].par_iter().map(|x| x + *offset).sum();
//! assert_eq!(sum, 9);
//! ```
//!
//! Its twin, with an `Arc`:
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::sync::Arc;
//! let offset = Arc::new(1);
//! let sum: i32 = vec![1, 2, 3].par_iter().map(|x| x + *offset).sum();
//! assert_eq!(sum, 9);
//! ```
//!
//! A `for_each` that mutates a `Cell` through a shared borrow, from many threads:
//!
//! ```compile_fail,E0277
//! use blitz_par::prelude::*;
//! use std::cell::Cell;
//! let total = Cell::new(0);
//! (0..100).into_par_iter().for_each(|x| total.set(total.get() + x));
//! assert_eq!(total.get(), 4950);
//! ```
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::sync::atomic::{AtomicI32, Ordering};
//! let total = AtomicI32::new(0);
//! (0..100).into_par_iter().for_each(|x| {
//!     total.fetch_add(x, Ordering::Relaxed);
//! });
//! assert_eq!(total.into_inner(), 4950);
//! ```
//!
//! A `for_each` that mutates a captured local directly (`Fn`, not `FnMut`: every thread would
//! write it):
//!
//! ```compile_fail,E0594
//! use blitz_par::prelude::*;
//! let mut total = 0;
//! (0..100).into_par_iter().for_each(|x| total += x);
//! assert_eq!(total, 4950);
//! ```
//!
//! ```
//! use blitz_par::prelude::*;
//! let total: i32 = (0..100).into_par_iter().sum();
//! assert_eq!(total, 4950);
//! ```
//!
//! Borrowing items that are not `Sync` (`par_iter` shares them between threads):
//!
//! ```compile_fail,E0599
//! use blitz_par::prelude::*;
//! use std::rc::Rc;
//! let v = vec![Rc::new(1), Rc::new(2)];
//! let sum: i32 = v.par_iter().map(|x| **x).sum();
//! assert_eq!(sum, 3);
//! ```
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::sync::Arc;
//! let v = vec![Arc::new(1), Arc::new(2)];
//! let sum: i32 = v.par_iter().map(|x| **x).sum();
//! assert_eq!(sum, 3);
//! ```
//!
//! Moving items that are not `Send` (`into_par_iter` hands them to other threads):
//!
//! ```compile_fail,E0599
//! use blitz_par::prelude::*;
//! use std::rc::Rc;
//! let v = vec![Rc::new(1), Rc::new(2)];
//! let sum: i32 = v.into_par_iter().map(|x| *x).sum();
//! assert_eq!(sum, 3);
//! ```
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::sync::Arc;
//! let v = vec![Arc::new(1), Arc::new(2)];
//! let sum: i32 = v.into_par_iter().map(|x| *x).sum();
//! assert_eq!(sum, 3);
//! ```
//!
//! Sorting elements that are not `Send`:
//!
//! ```compile_fail,E0599
//! use blitz_par::prelude::*;
//! use std::rc::Rc;
//! let mut v = vec![Rc::new(2), Rc::new(1)];
//! v.par_sort();
//! assert_eq!(*v[0], 1);
//! ```
//!
//! ```
//! use blitz_par::prelude::*;
//! use std::sync::Arc;
//! let mut v = vec![Arc::new(2), Arc::new(1)];
//! v.par_sort();
//! assert_eq!(*v[0], 1);
//! ```
//!
//! `parallel_for`'s body runs on many threads at once:
//!
//! ```compile_fail,E0277
//! use std::cell::Cell;
//! let last = Cell::new(0);
//! blitz_par::parallel_for(0..10, |i| last.set(i));
//! ```
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! let last = AtomicUsize::new(0);
//! blitz_par::parallel_for(0..10, |i| {
//!     last.fetch_max(i, Ordering::Relaxed);
//! });
//! assert_eq!(last.into_inner(), 9);
//! ```
