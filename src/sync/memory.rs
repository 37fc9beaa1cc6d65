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

/// Copies `n` values of `T` from `src` to `dst` as `ptr::copy_nonoverlapping` does, with
/// stores that bypass the caches on x86-64 (`movntdq`): for a copy into a destination much
/// larger than the caches, which the copying thread will not read again. A cached store
/// first reads the destination's line from memory; a streaming one does not, so such a copy
/// moves two thirds of the bytes a cached one moves. The stores are fenced (`sfence`) before
/// this returns, so they are ordered before whatever publishes the copy (a latch, a join).
/// Elsewhere, and under Miri, a plain copy.
///
/// # Safety
///
/// As for `ptr::copy_nonoverlapping`: `src` is valid for reads and `dst` for writes of `n`
/// values, both aligned for `T`, and the two ranges do not overlap.
#[inline]
pub(crate) unsafe fn copy_streaming<T>(src: *const T, dst: *mut T, n: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let bytes = n * std::mem::size_of::<T>();
        let (src, dst) = (src.cast::<u8>(), dst.cast::<u8>());
        // The streaming store needs a 16-byte aligned destination: the bytes before the first
        // such address, and those after the last whole 64-byte run, are copied plainly.
        let head = dst.align_offset(16).min(bytes);
        let body = (bytes - head) & !63;
        // SAFETY: `[0, head)` and `[head + body, bytes)` lie within the caller's ranges (which
        // do not overlap); a bytewise copy of part of a value's bytes is what
        // `copy_nonoverlapping` of the whole does, in pieces.
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            std::ptr::copy_nonoverlapping(
                src.add(head + body),
                dst.add(head + body),
                bytes - head - body,
            );
        }
        if body > 0 {
            // SAFETY: the loop reads `[head, head + body)` of `src` and writes the same range
            // of `dst`, `body` a positive multiple of 64, all within the caller's ranges;
            // `dst + head` is 16-byte aligned, as `movntdq` requires, and `movdqu` reads
            // unaligned. It copies bytes as `copy_nonoverlapping` does (the block is opaque to
            // the compiler, which treats it as such a copy); it touches no stack and, but for
            // the named registers, nothing else. `sfence` orders the weakly ordered streaming
            // stores before every later store of this thread, so whoever sees this thread's
            // later release sees the copy.
            unsafe {
                std::arch::asm!(
                    "2:",
                    "movdqu {x0}, [{s}]",
                    "movdqu {x1}, [{s} + 16]",
                    "movdqu {x2}, [{s} + 32]",
                    "movdqu {x3}, [{s} + 48]",
                    "movntdq [{d}], {x0}",
                    "movntdq [{d} + 16], {x1}",
                    "movntdq [{d} + 32], {x2}",
                    "movntdq [{d} + 48], {x3}",
                    "add {s}, 64",
                    "add {d}, 64",
                    "sub {n}, 64",
                    "jnz 2b",
                    "sfence",
                    s = inout(reg) src.add(head) => _,
                    d = inout(reg) dst.add(head) => _,
                    n = inout(reg) body => _,
                    x0 = out(xmm_reg) _,
                    x1 = out(xmm_reg) _,
                    x2 = out(xmm_reg) _,
                    x3 = out(xmm_reg) _,
                    options(nostack),
                );
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    // SAFETY: the caller's contract is `copy_nonoverlapping`'s.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, n)
    }
}

#[cfg(test)]
mod tests {
    use super::copy_streaming;

    /// Every length and every alignment of the destination (the plain head and tail around
    /// the streaming runs), for items of 1, 8 and 24 bytes, and items that own memory.
    #[test]
    fn copy_streaming_copies_every_byte_once() {
        let max = if cfg!(miri) { 40 } else { 300 };
        for len in 0..max {
            for skip in 0..4 {
                let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                let mut dst = vec![0u8; len + skip + 1];
                // SAFETY: `src` holds `len` bytes, `dst[skip..]` has room for them, distinct.
                unsafe { copy_streaming(src.as_ptr(), dst.as_mut_ptr().add(skip), len) };
                assert_eq!(&dst[skip..skip + len], &src[..], "len {len} skip {skip}");
                assert!(dst[..skip].iter().all(|&b| b == 0) && dst[skip + len] == 0);

                let src: Vec<[u64; 3]> = (0..len as u64).map(|i| [i, !i, i * 3]).collect();
                let mut dst = vec![[0u64; 3]; len + skip];
                // SAFETY: as above, in items of 24 bytes.
                unsafe { copy_streaming(src.as_ptr(), dst.as_mut_ptr().add(skip), len) };
                assert_eq!(&dst[skip..], &src[..]);
            }
        }
        let strings: Vec<String> = (0..max).map(|i| i.to_string()).collect();
        let mut moved: Vec<String> = Vec::with_capacity(max);
        let mut strings = std::mem::ManuallyDrop::new(strings);
        // SAFETY: `moved` has room for the `max` strings, which move there: `strings` only
        // frees its buffer (its length is set to 0 before it is dropped).
        unsafe {
            copy_streaming(strings.as_ptr(), moved.as_mut_ptr(), max);
            moved.set_len(max);
            strings.set_len(0);
            std::mem::ManuallyDrop::drop(&mut strings);
        }
        assert!(moved.iter().enumerate().all(|(i, s)| *s == i.to_string()));
    }
}
