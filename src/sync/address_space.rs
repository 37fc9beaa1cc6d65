//! Whether the address space has room for another thread: asked before each worker thread is
//! started, so that starting it cannot abort the process.
//!
//! Under a limit on the address space (`RLIMIT_AS`), a thread whose stack still fits may fail
//! its next step: std maps a small signal stack (about 12 KiB) as the new thread starts, and
//! panics and aborts the process if that fails. Past the stack, nothing is left to handle the
//! error, so the room is checked before: a mapping of the stack's size plus [`SPARE`] that
//! reserves address space without memory (`PROT_NONE`, `MAP_NORESERVE`), made and removed at
//! once. Starting a thread takes tens of microseconds; the check, a few.
//!
//! The check counts only what is mapped when it runs. A new thread maps more once it runs: its
//! first allocation may make glibc create a malloc arena for it, which reserves 64 MiB of
//! address space (up to eight arenas per core). Threads started back to back, before they
//! ran, passed their checks together and then took arenas together: the last of them found
//! no page left for its first allocation, and the process aborted ("memory allocation of 41
//! bytes failed", about once in 12 starts of the global pool under a 1 GiB limit on 2 cores).
//! So under a limit the pools start their threads one at a time ([`StartGate`]): each new
//! thread makes its first allocation and says so before the next check, which then sees what
//! it took.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Room left beyond a new thread's stack: its signal stack, and what the threads that are
/// starting at the same time may map for theirs. (Only Linux checks the room.)
#[cfg(all(target_os = "linux", not(miri), not(loom)))]
const SPARE: usize = 1 << 20;

/// The stack size of a `std::thread` started without one: `RUST_MIN_STACK` if set to a
/// number, else 2 MiB, as std reads it.
pub(crate) fn default_thread_stack() -> usize {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SIZE.get_or_init(|| {
        std::env::var("RUST_MIN_STACK")
            .ok()
            .and_then(|size| size.parse().ok())
            .unwrap_or(2 << 20)
    })
}

/// `Ok` if a thread with a stack of `stack` bytes can be started without exhausting the
/// address space; else the error of the mapping that did not fit.
#[cfg(all(target_os = "linux", not(miri), not(loom)))]
pub(crate) fn room_for_thread(stack: usize) -> std::io::Result<()> {
    let bytes = stack.saturating_add(SPARE);
    // SAFETY: a fresh anonymous mapping chosen by the kernel (no address given), touching no
    // existing memory; it is removed below with the same length.
    let probe = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if probe == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the mapping just made, whole; nothing refers to it.
    unsafe { libc::munmap(probe, bytes) };
    Ok(())
}

/// Elsewhere (no such limit is checked): always `Ok`.
#[cfg(not(all(target_os = "linux", not(miri), not(loom))))]
pub(crate) fn room_for_thread(_stack: usize) -> std::io::Result<()> {
    Ok(())
}

/// Whether the process's address space is limited (`RLIMIT_AS` below infinity): only then can
/// starting a thread exhaust it. Asked at each start (a system call): the limit may change.
#[cfg(all(target_os = "linux", not(miri), not(loom)))]
pub(crate) fn address_space_limited() -> bool {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid rlimit to write to.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    read && limit.rlim_cur != libc::RLIM_INFINITY
}

/// Elsewhere (no such limit is checked): never.
#[cfg(not(all(target_os = "linux", not(miri), not(loom))))]
pub(crate) fn address_space_limited() -> bool {
    false
}

/// Makes the starting of threads one at a time under an address-space limit: the starter
/// waits ([`StartGate::wait`]) until the thread it started has run its first allocation and
/// said so ([`Opener::open`]); with no limit, both do nothing. One gate per thread started.
pub(crate) struct StartGate(Option<Receiver<()>>);

/// The new thread's side of a [`StartGate`].
pub(crate) struct Opener(Option<SyncSender<()>>);

impl StartGate {
    /// A gate for the next thread started, and its opener, which that thread runs first. The
    /// gate waits if the address space is limited now.
    pub(crate) fn new() -> (StartGate, Opener) {
        if address_space_limited() {
            let (send, receive) = sync_channel(1);
            (StartGate(Some(receive)), Opener(Some(send)))
        } else {
            (StartGate(None), Opener(None))
        }
    }

    /// Waits until the thread given the opener has opened the gate, or dropped the opener
    /// unopened.
    pub(crate) fn wait(self) {
        if let Some(receive) = self.0 {
            let _ = receive.recv();
        }
    }
}

impl Opener {
    /// Run first by a new thread: makes its first allocation, which takes whatever the
    /// allocator reserves for a new thread (a glibc arena), then lets the starter go on.
    pub(crate) fn open(self) {
        if let Some(send) = self.0 {
            std::hint::black_box(Box::new(0u64));
            let _ = send.send(());
        }
    }
}
