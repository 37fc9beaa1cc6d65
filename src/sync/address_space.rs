//! Whether the address space has room for another thread: asked before each worker thread is
//! started, so that starting it cannot abort the process.
//!
//! Under a limit on the address space (`RLIMIT_AS`), a thread whose stack still fits may fail
//! its next step: std maps a small signal stack (about 12 KiB) as the new thread starts, and
//! panics and aborts the process if that fails. Past the stack, nothing is left to handle the
//! error, so the room is checked before: a mapping of the stack's size plus [`SPARE`] that
//! reserves address space without memory (`PROT_NONE`, `MAP_NORESERVE`), made and removed at
//! once. Starting a thread takes tens of microseconds; the check, a few.

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
