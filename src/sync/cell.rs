//! `UnsafeCell` behind the same shim as the atomics: under loom it is loom's, which records
//! every access and reports two that the model's happens-before order does not separate. A
//! protocol whose cells are shared between threads (who may touch a cell is decided by an
//! atomic state word) uses this one, so that its loom model checks the cells' ownership rule
//! as well as the atomics.
//!
//! Access goes through closures (`with`, `with_mut`), loom's interface, which costs nothing
//! in a normal build.

/// A cell whose contents are reached through raw pointers, by a protocol that guarantees
/// exclusive access for writes.
#[cfg(not(loom))]
#[derive(Debug, Default)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Runs `f` with a pointer for reading; the caller's protocol makes sure no write runs
    /// meanwhile.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Runs `f` with a pointer for writing; the caller's protocol makes sure no other access
    /// runs meanwhile.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;
