//! Scratch buffers for the sorts: `len` slots of zero bytes, backed by transparent huge pages
//! where Linux offers them.
//!
//! Why: a sort's scratch buffer is fresh memory, and the first write to each 4 KiB page costs a
//! page fault. On the 2-core development VM the faults on the 80 MB scratch of a 10M-key radix
//! sort took about as long as the sort itself. Asking for huge pages (`madvise(MADV_HUGEPAGE)`,
//! honoured when THP is in `madvise` or `always` mode) makes that one fault per 2 MiB.
//!
//! Invariant: the buffer never owns a `T`; dropping it only frees the memory. A `zeroed`
//! buffer's bytes start out zero (fresh anonymous memory from `mmap`, or `alloc_zeroed`).

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr::NonNull;

pub(super) struct Scratch<T> {
    ptr: NonNull<T>,
    len: usize,
    /// Where the memory came from, so that `drop` returns it there.
    backing: Backing,
    _owns_no_t: PhantomData<*mut MaybeUninit<T>>,
}

// SAFETY: `Scratch` is a uniquely owned buffer of `MaybeUninit<T>` (it never drops a `T`);
// moving it to another thread moves at most bit copies of elements, whose owner is the slice
// being sorted, which is itself `Send` (`T: Send`).
unsafe impl<T: Send> Send for Scratch<T> {}

enum Backing {
    /// Nothing allocated (zero-sized `T` or `len == 0`).
    None,
    /// `alloc::alloc_zeroed` or `alloc::alloc` with this layout.
    Heap(Layout),
    /// `mmap` of `len` bytes at `base`.
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri)
    ))]
    Mapped { base: *mut u8, len: usize },
}

impl<T> Scratch<T> {
    /// A buffer of `len` slots whose bytes are all zero (for `as_init`).
    pub(super) fn zeroed(len: usize) -> Scratch<T> {
        Scratch::new(len, true)
    }

    /// A buffer of `len` uninitialised slots (for `as_uninit` only).
    pub(super) fn uninit(len: usize) -> Scratch<T> {
        Scratch::new(len, false)
    }

    fn new(len: usize, zeroed: bool) -> Scratch<T> {
        let layout = Layout::array::<T>(len).expect("sort scratch buffer too large");
        if layout.size() == 0 {
            return Scratch {
                ptr: NonNull::dangling(),
                len,
                backing: Backing::None,
                _owns_no_t: PhantomData,
            };
        }
        #[cfg(all(
            target_os = "linux",
            any(target_arch = "x86_64", target_arch = "aarch64"),
            not(miri)
        ))]
        if layout.size() >= huge_pages::map_at_least_bytes(zeroed)
            && layout.align() <= huge_pages::HUGE_PAGE
        {
            if let Some((base, mapped_len, aligned)) = huge_pages::map(layout.size()) {
                return Scratch {
                    ptr: aligned.cast(),
                    len,
                    backing: Backing::Mapped {
                        base,
                        len: mapped_len,
                    },
                    _owns_no_t: PhantomData,
                };
            }
        }
        // SAFETY: the layout's size is not zero (checked above).
        let raw = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            alloc::handle_alloc_error(layout)
        };
        Scratch {
            ptr,
            len,
            backing: Backing::Heap(layout),
            _owns_no_t: PhantomData,
        }
    }

    /// The slots, as possibly uninitialised elements.
    pub(super) fn as_uninit(&mut self) -> &mut [MaybeUninit<T>] {
        // SAFETY: `ptr` points to `len` slots of `T`'s layout that this buffer owns (or is
        // dangling and well aligned with a zero-sized total), and `&mut self` makes the borrow
        // unique. `MaybeUninit<T>` accepts any bytes.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast(), self.len) }
    }

    /// The slots, as elements.
    ///
    /// # Safety
    ///
    /// The buffer must come from `zeroed`, all-zero bytes must be a valid `T`, and the caller
    /// must only have written valid `T`s through `as_uninit`. `T` must not need dropping, or the
    /// caller must treat the slots as bit copies it never drops.
    pub(super) unsafe fn as_init(&mut self) -> &mut [T] {
        debug_assert!(!mem::needs_drop::<T>());
        // SAFETY: as in `as_uninit`; every slot holds a valid `T` by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Scratch<T> {
    fn drop(&mut self) {
        match self.backing {
            Backing::None => {}
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` and is freed once, here.
            Backing::Heap(layout) => unsafe { alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
            #[cfg(all(
                target_os = "linux",
                any(target_arch = "x86_64", target_arch = "aarch64"),
                not(miri)
            ))]
            // SAFETY: `base`/`len` are exactly what `huge_pages::map` got from `mmap`, unmapped
            // once, here; no borrow of the buffer outlives `self`.
            Backing::Mapped { base, len } => unsafe { huge_pages::unmap(base, len) },
        }
    }
}

/// Anonymous mappings with `MADV_HUGEPAGE`, through the `libc` crate (see also
/// `crate::sync::advise_fill`, the same advice for collect destinations).
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
mod huge_pages {
    use std::ptr::NonNull;

    /// Below this many bytes a buffer comes from the global allocator.
    ///
    /// A zeroed buffer is mapped from 4 MiB: below, a huge page would be mostly unused and a
    /// few hundred small faults cost little next to the sort; above, fresh pages (zeroed by
    /// the kernel at each thread's first write, in parallel) beat `alloc_zeroed`, which may
    /// hand back recycled memory and clear it on the calling thread alone.
    ///
    /// An uninitialised buffer is mapped from 32 MiB: below, allocators keep freed blocks for
    /// reuse (glibc's adaptive mmap threshold rises to 32 MiB), so a sort that follows another
    /// gets memory whose pages are already there, with no faults and no zeroing at all.
    /// Blocks above it usually go straight to `mmap` whatever we do, and huge pages make
    /// their faults 512 times fewer.
    pub(super) fn map_at_least_bytes(zeroed: bool) -> usize {
        if zeroed {
            4 << 20
        } else {
            32 << 20
        }
    }

    /// The huge page size of x86-64 and of aarch64 with 4 KiB base pages.
    pub(super) const HUGE_PAGE: usize = 2 << 20;

    /// Maps at least `bytes` zeroed bytes, with a 2 MiB-aligned start (so that every 2 MiB of
    /// it can be one huge page), and asks for huge pages. Returns the mapping's base and
    /// length and the aligned start, or `None` if `mmap` failed.
    pub(super) fn map(bytes: usize) -> Option<(*mut u8, usize, NonNull<u8>)> {
        let len = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh private anonymous mapping aliases nothing; the arguments are valid
        // for `mmap(2)`.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let base = base.cast::<u8>();
        let aligned = base.wrapping_add(base.align_offset(HUGE_PAGE));
        // SAFETY: `aligned..aligned + bytes` lies inside the mapping (at most `HUGE_PAGE - 1`
        // bytes of padding come first). The advice only changes how pages are backed; if THP
        // is off it fails harmlessly, and the memory stays ordinary zeroed memory.
        unsafe { libc::madvise(aligned.cast(), bytes, libc::MADV_HUGEPAGE) };
        Some((base, len, NonNull::new(aligned)?))
    }

    /// # Safety
    ///
    /// `base` and `len` must come from one call of `map`, and nothing may use the memory after.
    pub(super) unsafe fn unmap(base: *mut u8, len: usize) {
        // SAFETY: by the caller's promise the range is our mapping and unused from now on.
        unsafe { libc::munmap(base.cast(), len) };
    }
}
