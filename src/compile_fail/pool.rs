//! `ThreadPool::install` runs its closure on a thread of the pool (from outside it) and hands
//! the result back: both are `Send`.
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let shared = Rc::new(1);
//! assert_eq!(pool.install(|| *shared), 1);
//! ```
//!
//! Its twin:
//!
//! ```
//! use std::sync::Arc;
//! let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let shared = Arc::new(1);
//! assert_eq!(pool.install(|| *shared), 1);
//! ```
//!
//! ```compile_fail,E0277
//! use std::rc::Rc;
//! let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let made = pool.install(|| Rc::new(1));
//! assert_eq!(*made, 1);
//! ```
//!
//! ```
//! use std::sync::Arc;
//! let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let made = pool.install(|| Arc::new(1));
//! assert_eq!(*made, 1);
//! ```
