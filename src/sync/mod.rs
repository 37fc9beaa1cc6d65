//! Every synchronisation primitive the crate uses, in one place, so that `cfg(loom)` can swap
//! them for loom's models: atomics, fences, futex wait/wake, cache padding, a cheap clock
//! (`clock.rs`, with its rate measured once per process).
//! `SyncPtr` lives here too, since collect, sort and `parallel_for` all write through it.
//!
//! The scheduler takes every atomic, fence and futex call from here (`atomic_wait` is named
//! nowhere else), so that its loom models cover them; only its process-wide deterministic hint
//! (`scheduler/deterministic.rs`), which no model covers, names `std::sync::atomic` itself, as
//! do the iterators' own flags (searches, `par_bridge`, the splitter's drive state), which
//! loom does not model. `tests/docs_stay_true.rs` holds the scheduler to this. The calls into
//! the OS's memory management (`memory.rs`, `address_space.rs`) live here too.

mod address_space;
// Under loom only the watch's hand-off model uses it, and only Linux's patrolling sleepers
// ask whether the heavy side is unavailable.
#[cfg_attr(any(loom, not(all(target_os = "linux", not(miri)))), allow(dead_code))]
pub(crate) mod asymmetric;
mod cell;
mod clock;
mod cpus;
mod memory;
mod sync_ptr;

pub(crate) use address_space::{default_thread_stack, room_for_thread, StartGate};
pub(crate) use cell::UnsafeCell;
pub(crate) use clock::{calibrate, measured, ns_in, rate, ticks, ticks_in, Rate};
pub(crate) use cpus::{cpus_allowed, spinning_pays};
pub(crate) use memory::advise_fill;
pub use sync_ptr::SyncPtr;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize,
    Ordering,
};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize,
    Ordering,
};

#[cfg(not(loom))]
pub(crate) use std::sync::Mutex;

#[cfg(loom)]
pub(crate) use loom::sync::Mutex;

/// Futex-style blocking on a 32-bit atomic, through the `atomic-wait` crate (Linux futex,
/// Windows `WaitOnAddress`, macOS `os_sync_wait_on_address`/ulock).
///
/// Contract shared by both back ends: `wait` may return spuriously, so every caller re-checks
/// its condition in a loop; `wake_*` take a raw pointer because a waker may call them after the
/// waiter has already observed the new value and freed the atomic: the kernel only uses the
/// address as a key, so such a late wake is at worst a spurious wake-up of another waiter.
pub(crate) mod futex {
    use super::AtomicU32;

    /// Blocks while `*atomic == expected` (or until a wake, or spuriously).
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn wait(atomic: &AtomicU32, expected: u32) {
        atomic_wait::wait(atomic, expected)
    }

    /// Blocks while `*atomic == expected`, for at most `ns` nanoseconds (or until a wake, or
    /// spuriously): the wait of a sleeping worker that patrols the watches
    /// (`scheduler/watch.rs`). Linux only, with `wait`'s own futex flags.
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    pub(crate) fn wait_timeout(atomic: &AtomicU32, expected: u32, ns: u64) {
        let timeout = libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: `atomic` is a live, aligned 32-bit atomic and `timeout` outlives the call;
        // FUTEX_WAIT only reads both (a relative timeout).
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                atomic,
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                expected,
                &raw const timeout,
            );
        }
    }

    /// Wakes one thread blocked in `wait` on `atomic`.
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn wake_one(atomic: *const AtomicU32) {
        atomic_wait::wake_one(atomic)
    }

    /// Wakes every thread blocked in `wait` on `atomic`.
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn wake_all(atomic: *const AtomicU32) {
        atomic_wait::wake_all(atomic)
    }

    // Under loom a futex wait is modelled as "yield, then return spuriously": callers loop on
    // their condition, so a lost wake-up shows up as a thread that spins forever, which loom
    // reports (it exceeds the branch budget) instead of hanging.
    #[cfg(loom)]
    pub(crate) fn wait(atomic: &AtomicU32, expected: u32) {
        if atomic.load(super::Ordering::SeqCst) == expected {
            loom::thread::yield_now();
        }
    }

    #[cfg(loom)]
    pub(crate) fn wake_one(_atomic: *const AtomicU32) {}

    #[cfg(loom)]
    pub(crate) fn wake_all(_atomic: *const AtomicU32) {}
}

/// Gives the core to another runnable thread (under loom: lets the model run another thread,
/// so that a wait for another thread's next step is not an endless spin).
#[inline]
pub(crate) fn yield_now() {
    #[cfg(not(loom))]
    std::thread::yield_now();
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// Pads and aligns a value to 128 bytes, so that two values written by different threads never
/// share a cache line (128 rather than 64: adjacent-line prefetchers on x86 pull pairs of lines,
/// and Apple's cores have 128-byte lines).
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> std::ops::Deref for CachePadded<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}
