//! Scratch buffers for the sorts: `len` slots, backed by transparent huge pages where Linux
//! offers them, and kept for the next sort.
//!
//! Why: a sort's scratch buffer is fresh memory, and the first write to each 4 KiB page costs a
//! page fault. On the 2-core development VM the faults on the 80 MB scratch of a 10M-key radix
//! sort took about as long as the sort itself. Asking for huge pages (`madvise(MADV_HUGEPAGE)`,
//! honoured when THP is in `madvise` or `always` mode) makes that one fault per 2 MiB, but the
//! kernel still clears every page: 5 to 13% of a 10M-key radix sort's CPU time on the same VM.
//!
//! So a large mapping is not unmapped when its sort ends: it stays in a process-wide reserve
//! for the next sort (the largest of each kind, initialised bytes for radix sorts and any
//! bytes for merges, each up to [`huge_pages::RESERVE_MAX`]), its pages
//! handed to the kernel with `MADV_FREE` (reclaimed without swapping if memory runs short, and
//! kept mapped, with no fault on the next write, if not). This is what allocators such as
//! jemalloc do with freed memory; glibc's `malloc` also keeps freed blocks up to its trim
//! threshold, but never blocks above its 32 MiB mmap threshold.
//!
//! Invariant: the buffer never owns a `T`; dropping it only frees the memory. An
//! `initialized` buffer's bytes are initialised: zero (fresh anonymous memory from `mmap`, or
//! `alloc_zeroed`), or left by an earlier `initialized` buffer, which stored only keys whose
//! every byte is initialised (the reserve remembers which kind of use a mapping last served).

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
    /// A mapping from `huge_pages::map` or the reserve; `initialized` if this buffer was
    /// handed out as `initialized` (so it holds initialised bytes when it goes back).
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri)
    ))]
    Mapped {
        mapping: huge_pages::Mapping,
        initialized: bool,
    },
}

impl<T> Scratch<T> {
    /// A buffer of `len` slots whose bytes are all initialised (for `as_init`): zero, or
    /// bytes of keys an earlier sort left there.
    pub(super) fn initialized(len: usize) -> Scratch<T> {
        Scratch::new(len, true)
    }

    /// A buffer of `len` uninitialised slots (for `as_uninit` only).
    pub(super) fn uninit(len: usize) -> Scratch<T> {
        Scratch::new(len, false)
    }

    fn new(len: usize, initialized: bool) -> Scratch<T> {
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
        if layout.size() >= huge_pages::MAP_AT_LEAST_BYTES
            && layout.align() <= huge_pages::HUGE_PAGE
        {
            let mapping = huge_pages::RESERVE
                .take(layout.size(), initialized)
                .or_else(|| huge_pages::map(layout.size()));
            if let Some(mapping) = mapping {
                return Scratch {
                    ptr: mapping.start().cast(),
                    len,
                    backing: Backing::Mapped {
                        mapping,
                        initialized,
                    },
                    _owns_no_t: PhantomData,
                };
            }
        }
        // SAFETY: the layout's size is not zero (checked above).
        let raw = unsafe {
            if initialized {
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
    /// The buffer must come from `initialized`, every initialised bit pattern of `T`'s size
    /// must be a valid `T` (integers, floats), and the caller must only have written valid `T`s
    /// through `as_uninit`. `T` must not need dropping, or the caller must treat the slots as
    /// bit copies it never drops.
    pub(super) unsafe fn as_init(&mut self) -> &mut [T] {
        debug_assert!(!mem::needs_drop::<T>());
        // SAFETY: as in `as_uninit`; every slot holds a valid `T` by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Scratch<T> {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.backing, Backing::None) {
            Backing::None => {}
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` and is freed once, here.
            Backing::Heap(layout) => unsafe { alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
            #[cfg(all(
                target_os = "linux",
                any(target_arch = "x86_64", target_arch = "aarch64"),
                not(miri)
            ))]
            // No borrow of the buffer outlives `self`: the mapping is free for the next sort.
            Backing::Mapped {
                mapping,
                initialized,
            } => huge_pages::RESERVE.put(mapping, initialized),
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
    use std::sync::{Mutex, MutexGuard};

    /// Below this many bytes a buffer comes from the global allocator: a huge page would be
    /// mostly unused, and a few hundred small faults cost little next to the sort. Above,
    /// fresh pages (zeroed by the kernel at each thread's first write, in parallel) or the
    /// reserve's beat `alloc_zeroed`, which may hand back recycled memory and clear it on the
    /// calling thread alone. For uninitialised buffers the global allocator would keep freed
    /// blocks for reuse too, but glibc trims the top of its heap: a benchmark that allocates
    /// a fresh input between sorts had every sort fault its scratch again, 4 KiB at a time
    /// (before the reserve, such buffers came from the allocator below 32 MiB).
    pub(super) const MAP_AT_LEAST_BYTES: usize = 4 << 20;

    /// The huge page size of x86-64 and of aarch64 with 4 KiB base pages.
    pub(super) const HUGE_PAGE: usize = 2 << 20;

    /// An anonymous mapping whose start is rounded up to a 2 MiB boundary (so that every
    /// 2 MiB of it can be one huge page); unmapped when dropped.
    pub(super) struct Mapping {
        /// What `mmap` returned, and the length it mapped.
        base: NonNull<u8>,
        len: usize,
        /// Usable bytes from `start()`.
        usable: usize,
    }

    // SAFETY: a `Mapping` owns its memory exclusively (nothing else refers to it while the
    // reserve or one buffer holds it); moving that ownership across threads is fine.
    unsafe impl Send for Mapping {}

    impl Mapping {
        /// The 2 MiB-aligned start of the usable bytes.
        pub(super) fn start(&self) -> NonNull<u8> {
            let base = self.base.as_ptr();
            let aligned = base.wrapping_add(base.align_offset(HUGE_PAGE));
            // SAFETY: inside the mapping (at most `HUGE_PAGE - 1` bytes past `base`; `map`
            // mapped `usable + HUGE_PAGE` bytes), so not null.
            unsafe { NonNull::new_unchecked(aligned) }
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: `base`/`len` are exactly what `mmap` returned and mapped; this is the
            // only owner, and no buffer uses the memory any more.
            unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
        }
    }

    /// Maps at least `bytes` zeroed bytes and asks for huge pages. `None` if `mmap` failed.
    pub(super) fn map(bytes: usize) -> Option<Mapping> {
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
        let mapping = Mapping {
            base: NonNull::new(base.cast())?,
            len,
            usable: bytes,
        };
        // SAFETY: `start()..start() + bytes` lies inside the mapping. The advice only changes
        // how pages are backed; if THP is off it fails harmlessly, and the memory stays
        // ordinary zeroed memory.
        unsafe { libc::madvise(mapping.start().as_ptr().cast(), bytes, libc::MADV_HUGEPAGE) };
        Some(mapping)
    }

    /// The reserve keeps no mapping above this many bytes.
    pub(super) const RESERVE_MAX: usize = 1 << 30;

    /// Mappings kept between sorts (see the module documentation): one that holds only
    /// initialised bytes (it served `initialized` buffers only) and one that may hold any.
    pub(super) struct Reserve(Mutex<Kept>);

    struct Kept {
        initialized: Option<Mapping>,
        any: Option<Mapping>,
    }

    /// The process's reserve.
    pub(super) static RESERVE: Reserve = Reserve::new();

    impl Reserve {
        pub(super) const fn new() -> Reserve {
            Reserve(Mutex::new(Kept {
                initialized: None,
                any: None,
            }))
        }

        fn kept(&self) -> MutexGuard<'_, Kept> {
            // The lock guards no invariant a panic could break (a panic between `take` and
            // the store leaves `None`, which is valid).
            self.0
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        }

        /// A kept mapping with at least `bytes` usable bytes; if `initialized`, one that holds
        /// only initialised bytes. An uninitialised request takes the other kind first.
        pub(super) fn take(&self, bytes: usize, initialized: bool) -> Option<Mapping> {
            let mut kept = self.kept();
            let Kept {
                initialized: with_initialized,
                any,
            } = &mut *kept;
            let take_if_fits = |slot: &mut Option<Mapping>| {
                if slot.as_ref().is_some_and(|mapping| mapping.usable >= bytes) {
                    slot.take()
                } else {
                    None
                }
            };
            if initialized {
                take_if_fits(with_initialized)
            } else {
                take_if_fits(any).or_else(|| take_if_fits(with_initialized))
            }
        }

        /// Keeps `mapping` (`initialized`: it holds only initialised bytes) in its kind's
        /// place if it is larger than the mapping kept there (which is then unmapped) and not
        /// above `RESERVE_MAX`; unmaps it otherwise.
        pub(super) fn put(&self, mapping: Mapping, initialized: bool) {
            if mapping.usable > RESERVE_MAX {
                return;
            }
            let mut kept = self.kept();
            let slot = if initialized {
                &mut kept.initialized
            } else {
                &mut kept.any
            };
            if slot
                .as_ref()
                .is_some_and(|kept| kept.usable >= mapping.usable)
            {
                return;
            }
            // SAFETY: the usable range lies inside the mapping, which nothing uses now. After
            // `MADV_FREE` each page reads as before or as zeros (if the kernel took it), both
            // initialised bytes; a later write keeps the page. Old kernels without
            // `MADV_FREE` answer `EINVAL` and the pages simply stay.
            unsafe {
                libc::madvise(
                    mapping.start().as_ptr().cast(),
                    mapping.usable,
                    libc::MADV_FREE,
                )
            };
            // The replaced mapping, if any, is unmapped by its drop.
            let _replaced = slot.replace(mapping);
        }
    }
}

#[cfg(all(
    test,
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
mod tests {
    use super::huge_pages::{map, Reserve, RESERVE_MAX};

    const MIB: usize = 1 << 20;

    /// Writes `byte` over the usable part of a mapping.
    fn fill(mapping: &super::huge_pages::Mapping, bytes: usize, byte: u8) {
        // SAFETY: the mapping has at least `bytes` usable bytes and no one else uses it.
        unsafe { std::ptr::write_bytes(mapping.start().as_ptr(), byte, bytes) };
    }

    #[test]
    fn reserve_hands_back_what_fits() {
        let reserve = Reserve::new();
        let mapping = map(8 * MIB).expect("mmap");
        let start = mapping.start();
        fill(&mapping, 8 * MIB, 7);
        reserve.put(mapping, true);
        // Too large a request: a fresh mapping is needed.
        assert!(reserve.take(9 * MIB, true).is_none());
        // Smaller or equal requests reuse it, once.
        let again = reserve.take(6 * MIB, true).expect("kept mapping");
        assert_eq!(again.start(), start);
        assert!(reserve.take(MIB, false).is_none());
        // Its bytes are what was written or zero (if the kernel took the pages meanwhile).
        // SAFETY: 8 MiB usable, initialised (written above, or zero).
        let bytes = unsafe { std::slice::from_raw_parts(again.start().as_ptr(), 8 * MIB) };
        assert!(bytes.iter().all(|&b| b == 7 || b == 0));
    }

    #[test]
    fn reserve_keeps_initialized_buffers_apart_from_uninitialized_ones() {
        let reserve = Reserve::new();
        let any = map(4 * MIB).expect("mmap");
        let any_start = any.start();
        reserve.put(any, false);
        // A buffer that served arbitrary elements is not handed out as initialised bytes...
        assert!(reserve.take(4 * MIB, true).is_none());
        // ...but is for uninitialised slots.
        let any = reserve.take(4 * MIB, false).expect("kept mapping");
        assert_eq!(any.start(), any_start);
        // Both kinds are kept at once; an uninitialised request prefers its own kind, then
        // takes the other.
        let initialized = map(4 * MIB).expect("mmap");
        let initialized_start = initialized.start();
        reserve.put(initialized, true);
        reserve.put(any, false);
        assert_eq!(reserve.take(MIB, false).expect("kept").start(), any_start);
        assert_eq!(
            reserve.take(MIB, false).expect("kept").start(),
            initialized_start
        );
        assert!(reserve.take(MIB, false).is_none());
    }

    #[test]
    fn reserve_keeps_the_largest_and_nothing_huge() {
        let reserve = Reserve::new();
        let small = map(4 * MIB).expect("mmap");
        let large = map(16 * MIB).expect("mmap");
        let large_start = large.start();
        reserve.put(large, true);
        reserve.put(small, true);
        let kept = reserve.take(MIB, true).expect("kept mapping");
        assert_eq!(kept.start(), large_start);
        assert!(reserve.take(MIB, true).is_none());
        // Above the cap a mapping is unmapped, not kept (mapping it reserves address space
        // only: no page is touched).
        reserve.put(map(RESERVE_MAX + MIB).expect("mmap"), true);
        assert!(reserve.take(MIB, true).is_none());
    }
}
