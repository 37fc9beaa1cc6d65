//! Advice to the OS about memory the crate is about to fill: the one platform-specific call
//! outside the futex.
//!
//! A collect into a fresh `Vec` of tens of megabytes spends most of its time in page faults,
//! one per 4 KiB page: measured on a 2-core Linux VM, writing 80 MB of fresh memory took
//! 50-60 ms with 4 KiB pages and 10-14 ms once the range was marked for transparent huge
//! pages (one fault per 2 MiB). Linux's default THP mode on many distributions is `madvise`:
//! huge pages only where a program asks. Whole 2 MiB pages of the destination are asked for,
//! only for ranges the caller is about to write in full, so no memory is wasted on pages
//! that stay unused.

use crate::tuning::MIN_ADVISED_BYTES;

/// Tells the OS that the `bytes` bytes at `ptr`, inside one allocation and about to be
/// written in full, may be backed by huge pages. Only a hint: it changes how the memory is
/// backed, never what it holds, and failures are ignored. A no-op off Linux, under Miri and
/// for small ranges.
#[inline]
pub(crate) fn advise_fill(ptr: *mut u8, bytes: usize) {
    if bytes >= MIN_ADVISED_BYTES {
        advise_huge_pages(ptr, bytes);
    }
}

#[cfg(all(target_os = "linux", not(miri), not(loom)))]
#[cold]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + bytes) & !(HUGE_PAGE - 1);
    if start < end {
        // SAFETY: `start..end` lies inside the caller's allocation (rounded inwards to whole
        // huge pages); MADV_HUGEPAGE only changes how the kernel backs those pages, never
        // their contents, so no Rust object is affected. The result is deliberately ignored:
        // a kernel without THP answers EINVAL and nothing changes.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(all(target_os = "linux", not(miri), not(loom))))]
#[inline]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}
