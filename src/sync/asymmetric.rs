//! An asymmetric fence pair: a [`light`] side that costs nothing at run time (a compiler
//! fence), on a path every short loop takes, and a [`heavy`] side, run rarely, that makes
//! every thread of the process pass a full memory barrier (`membarrier(2)`'s
//! `MEMBARRIER_CMD_PRIVATE_EXPEDITED` on Linux).
//!
//! What the pair gives is what two `fence(SeqCst)` give: of a light side's store-then-load
//! and a heavy side's store-then-load (a Dekker pair), at least one load sees the other
//! thread's store. The kernel makes each CPU that runs a thread of the process execute a full
//! barrier (an IPI) between the syscall's entry and its return, and a thread not running
//! passes one when it is switched in; the caller's own entry and return are full barriers.
//! So wherever that barrier falls in the light side's program, it acts as a SeqCst fence
//! there: between its store and its load it is one; before both, the heavy side's store
//! (made before the syscall's entry barrier) is seen by the load; after both, the light
//! side's store is visible before the syscall returns, so the heavy side's load sees it. The
//! compiler fence keeps the light side's store and load in program order, which is all it
//! must do: the hardware order is the barrier's. This is the model of asymmetric fences
//! in the literature (Dice, Huang, Yang, "Asymmetric Dekker Synchronization"; the C++
//! proposal P1202, `asymmetric_thread_fence_light`/`_heavy`, specified as a pair of
//! `seq_cst` fences; folly's `asymmetricLightBarrier`/`asymmetricHeavyBarrier`), and the
//! loom models model it so: both sides are `fence(SeqCst)` under loom.
//!
//! Where the heavy side is not available (not Linux, Miri, a kernel before 4.14, a seccomp
//! filter that refuses the syscall), [`heavy`] returns false after a plain SeqCst fence,
//! which orders nothing against the light side: the caller must then not rely on the pair.

/// The light side: keeps the calling thread's store before it and load after it in program
/// order, at no run-time cost. Pairs with [`heavy`] as a SeqCst fence does (module docs).
#[inline(always)]
pub(crate) fn light() {
    #[cfg(loom)]
    super::fence(super::Ordering::SeqCst);
    #[cfg(not(loom))]
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// Whether [`heavy`] can fence every thread: registers the process for it the first time
/// (once per process; later calls read the answer). False for good once a registration or
/// a heavy fence has failed.
pub(crate) fn ready() -> bool {
    imp::ready()
}

/// Whether the heavy side was tried and is not available (a registration or a fence
/// failed): false before the first try. A reader that learned of a heavy side's store through
/// an Acquire (or SeqCst) load sees the answer that side had when it made the store.
pub(crate) fn unavailable() -> bool {
    imp::unavailable()
}

/// The heavy side: a full barrier on every thread of the process, paired with each
/// [`light`] side as a SeqCst fence (module docs). Returns false where that is not available
/// ([`ready`] says so beforehand): then it was only this thread's SeqCst fence.
pub(crate) fn heavy() -> bool {
    imp::heavy()
}

#[cfg(loom)]
mod imp {
    pub(super) fn ready() -> bool {
        true
    }

    pub(super) fn unavailable() -> bool {
        false
    }

    pub(super) fn heavy() -> bool {
        super::super::fence(super::super::Ordering::SeqCst);
        true
    }
}

#[cfg(all(target_os = "linux", not(loom), not(miri)))]
mod imp {
    use std::sync::atomic::{fence, AtomicU8, Ordering};

    /// `membarrier(2)` commands (uapi/linux/membarrier.h), kernel ABI since 4.14.
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    const UNKNOWN: u8 = 0;
    const READY: u8 = 1;
    const UNAVAILABLE: u8 = 2;

    /// Whether the process is registered for private expedited barriers.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    fn membarrier(cmd: libc::c_int) -> bool {
        // SAFETY: membarrier takes two integers (the command and flags 0) and touches no
        // memory of ours; an unknown or refused command returns -1 with errno set.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint) == 0 }
    }

    pub(super) fn ready() -> bool {
        match STATE.load(Ordering::Acquire) {
            READY => true,
            UNAVAILABLE => false,
            _ => {
                // Two first callers both register: the kernel takes a second registration
                // as a no-op.
                let ok = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
                let _ = STATE.compare_exchange(
                    UNKNOWN,
                    if ok { READY } else { UNAVAILABLE },
                    Ordering::Release,
                    Ordering::Acquire,
                );
                STATE.load(Ordering::Acquire) == READY
            }
        }
    }

    pub(super) fn unavailable() -> bool {
        STATE.load(Ordering::Acquire) == UNAVAILABLE
    }

    pub(super) fn heavy() -> bool {
        // The caller's own SeqCst fence first, so that the heavy side orders its own
        // accesses as `fence(SeqCst)` would even where the barrier fails.
        fence(Ordering::SeqCst);
        if !ready() {
            return false;
        }
        if membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) {
            return true;
        }
        STATE.store(UNAVAILABLE, Ordering::Release);
        false
    }
}

#[cfg(not(any(loom, all(target_os = "linux", not(miri)))))]
mod imp {
    pub(super) fn ready() -> bool {
        false
    }

    pub(super) fn unavailable() -> bool {
        true
    }

    pub(super) fn heavy() -> bool {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        false
    }
}
