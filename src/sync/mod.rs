//! Every synchronisation primitive the crate uses, in one place, so that `cfg(loom)` can swap
//! them for loom's models: atomics, fences, futex wait/wake, cache padding, a cheap clock.
//! `SyncPtr` lives here too, since collect, sort and `parallel_for` all write through it.
//!
//! Nothing outside this module names `std::sync::atomic` or `atomic_wait` directly; the calls
//! into the OS's memory management (`memory.rs`, `address_space.rs`) live here too.

mod address_space;
mod cell;
mod memory;
mod sync_ptr;

pub(crate) use address_space::{default_thread_stack, room_for_thread};
pub(crate) use cell::UnsafeCell;
pub(crate) use memory::advise_fill;
pub use sync_ptr::SyncPtr;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
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

/// A cheap, monotonic-enough clock for heuristics (heartbeats, chunk sizing), in "ticks".
///
/// On x86_64 this is the time-stamp counter (about 7 ns to read, no syscall); ticks are then
/// cycles of the invariant TSC, typically 1 to 4 GHz, and callers treat their thresholds as
/// rough. Elsewhere it is nanoseconds since the first call.
#[inline]
pub(crate) fn ticks() -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        // SAFETY: RDTSC has no preconditions; it is available on every x86_64 CPU.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(loom))))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// Ticks in about 20 microseconds: the first heartbeat of a busy period (see
/// `scheduler/README.md`). 50,000 TSC ticks is 20 us at 2.5 GHz, 12.5 us at 4 GHz, 50 us at
/// 1 GHz. Work shorter than this never wakes a worker: a sum of 100,000 integers (about 10 us)
/// stays on the calling thread. It was 100 us until 2026-11-27; work of 100 us to a few
/// milliseconds that starts with the workers asleep (a parallel call now and then, not in a
/// tight loop) then ran alone for its first 100 us, while rayon wakes a worker at once. On the
/// 2-core VM, alternating with rayon and the sequential loop, medians: max of 1M u64 308 to
/// 253 us (rayon 237), `windows(2)` count 304 to 248 us (rayon 225), 1,000 x 1,000
/// `flat_map_iter` 167 to 138 us (rayon 101); sums of 100,000 and 300,000 unchanged.
pub(crate) const HEARTBEAT_TICKS: u64 = ticks_for(50_000, 20_000);

/// The heartbeat period once a busy period has lasted [`HEARTBEAT_TICKS`] (or began with a
/// wake-up): about 12 us. Work that long is worth every core, and a pool wakes one worker per
/// beat per busy thread, so this period brings all 16 workers of a 16-core machine in within
/// about 100 us of the first beat (an estimate; a 100 us period needed four beats to reach
/// them, 400 to 500 us). Measurements: `scheduler/README.md`.
pub(crate) const PROVEN_BEAT_TICKS: u64 = ticks_for(31_250, 12_500);

/// A threshold in [`ticks`], given both ways: `tsc` where they are TSC cycles, `ns` where they
/// are nanoseconds.
pub(crate) const fn ticks_for(tsc: u64, ns: u64) -> u64 {
    if cfg!(all(target_arch = "x86_64", not(miri), not(loom))) {
        tsc
    } else {
        ns
    }
}
