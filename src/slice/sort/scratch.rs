//! Scratch buffers for the sorts: `len` slots, backed by transparent huge pages where Linux
//! offers them, and kept for a moment for the next sort.
//!
//! Why huge pages: a sort's scratch buffer is fresh memory, and the first write to each 4 KiB
//! page costs a page fault. On the 2-core development VM the faults on the 80 MB scratch of a
//! 10M-key sort took about as long as the sort itself. Asking for huge pages
//! (`madvise(MADV_HUGEPAGE)`, honoured when THP is in `madvise` or `always` mode) makes that
//! one fault per 2 MiB, but the kernel still clears every page.
//!
//! So a large mapping is not unmapped when its sort ends: it stays in a process-wide reserve
//! (the largest one, up to [`huge_pages::RESERVE_MAX`]) for [`huge_pages::KEEP`], and sorts
//! called back to back reuse it without a fault. Then a background thread unmaps it: a
//! program that sorted once does not hold the scratch of its largest sort for good (it used
//! to, as `MADV_FREE` pages that count in its resident size and its container's memory
//! charge until the kernel runs short). Where that thread cannot start, nothing is kept.
//! Buffers below [`huge_pages::MAP_AT_LEAST_BYTES`], and every buffer off Linux, come from
//! the global allocator.
//!
//! The radix sorts need no buffer the size of their input (see `in_place`); the merges, the
//! gathers of keyed sorts and the merging of runs use these.
//!
//! Invariant: the buffer never owns a `T`; dropping it only frees the memory. An
//! `initialized` buffer's bytes are initialised (zero, from `alloc_zeroed`); such buffers
//! always come from the global allocator, so a mapping only ever serves uninitialised slots.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr::NonNull;

pub(in crate::slice) struct Scratch<T> {
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
    /// A mapping from `huge_pages::map` or the reserve.
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped(huge_pages::Mapping),
}

impl<T> Scratch<T> {
    /// A buffer of `len` zeroed slots (for `as_init`), from the global allocator.
    pub(super) fn initialized(len: usize) -> Scratch<T> {
        Scratch::new(len, true)
    }

    /// A buffer of `len` uninitialised slots (for `as_uninit` only).
    pub(in crate::slice) fn uninit(len: usize) -> Scratch<T> {
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
        #[cfg(all(target_os = "linux", not(miri)))]
        if !initialized
            && layout.size() >= huge_pages::MAP_AT_LEAST_BYTES
            && layout.align() <= huge_pages::HUGE_PAGE
        {
            let mapping = huge_pages::RESERVE
                .take(layout.size())
                .or_else(|| huge_pages::map(layout.size()));
            if let Some(mapping) = mapping {
                return Scratch {
                    ptr: mapping.start().cast(),
                    len,
                    backing: Backing::Mapped(mapping),
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
    pub(in crate::slice) fn as_uninit(&mut self) -> &mut [MaybeUninit<T>] {
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
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` or `alloc(layout)` and is freed
            // once, here.
            Backing::Heap(layout) => unsafe { alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
            // No borrow of the buffer outlives `self`: the mapping is free for the next sort.
            #[cfg(all(target_os = "linux", not(miri)))]
            Backing::Mapped(mapping) => huge_pages::RESERVE.put(mapping),
        }
    }
}

/// Anonymous mappings with `MADV_HUGEPAGE`, through the `libc` crate (see also
/// `crate::sync::advise_fill`, the same advice for collect destinations).
#[cfg(all(target_os = "linux", not(miri)))]
mod huge_pages {
    use std::ptr::NonNull;
    use std::sync::{Condvar, Mutex, MutexGuard};
    use std::time::{Duration, Instant};

    /// Below this many bytes a buffer comes from the global allocator: a huge page would be
    /// mostly unused, and a few hundred small faults cost little next to the sort. Above,
    /// fresh pages (zeroed by the kernel at each thread's first write, in parallel) or the
    /// reserve's beat `alloc_zeroed`, which may hand back recycled memory and clear it on the
    /// calling thread alone. For uninitialised buffers the global allocator would keep freed
    /// blocks for reuse too, but glibc trims the top of its heap: a benchmark that allocates
    /// a fresh input between sorts had every sort fault its scratch again, 4 KiB at a time
    /// (before the reserve, such buffers came from the allocator below 32 MiB).
    pub(super) const MAP_AT_LEAST_BYTES: usize = 4 << 20;

    /// The huge page size of x86-64 and of aarch64 with 4 KiB base pages (elsewhere the
    /// mapping is only aligned more than it needs; the advice works with the system's size).
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

    /// How long the reserve keeps a mapping after a sort last returned one. Long enough for
    /// sorts called back to back with other work between them (a benchmark that copies 10M
    /// fresh keys before each sort: 30 to 60 ms on the 2-core VM); short enough that the
    /// memory is gone within half a second of the last sort (unmapping 400 MB takes about
    /// 20 ms there).
    pub(super) const KEEP: Duration = Duration::from_millis(250);

    /// Mappings kept between sorts (see the module documentation): the largest one returned
    /// lately, until [`KEEP`] after the last return, when the reclaimer thread unmaps it.
    pub(super) struct Reserve {
        kept: Mutex<Kept>,
        /// Signalled when a mapping is returned, for the reclaimer.
        returned: Condvar,
    }

    struct Kept {
        mapping: Option<Mapping>,
        /// When a mapping was last returned (kept or not); `None` before the first return.
        returned_at: Option<Instant>,
        /// The process (its id) that started the reclaimer thread, and whether it could. A
        /// child made by `fork` has no such thread: it tries to start its own.
        reclaimer: Option<(u32, bool)>,
    }

    /// The process's reserve.
    pub(super) static RESERVE: Reserve = Reserve::new();

    impl Reserve {
        pub(super) const fn new() -> Reserve {
            Reserve {
                kept: Mutex::new(Kept {
                    mapping: None,
                    returned_at: None,
                    reclaimer: None,
                }),
                returned: Condvar::new(),
            }
        }

        fn kept(&self) -> MutexGuard<'_, Kept> {
            // The lock guards no invariant a panic could break (a panic between `take` and
            // the store leaves `None`, which is valid).
            self.kept
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        }

        /// The kept mapping, if it has at least `bytes` usable bytes.
        pub(super) fn take(&self, bytes: usize) -> Option<Mapping> {
            let mut kept = self.kept();
            if kept.mapping.as_ref()?.usable >= bytes {
                kept.mapping.take()
            } else {
                None
            }
        }

        /// Keeps `mapping` if it is larger than the one kept and not above `RESERVE_MAX`, and
        /// the reclaimer runs (or starts now); unmaps it otherwise. Either way the kept
        /// mapping stays for another [`KEEP`].
        pub(super) fn put(&'static self, mapping: Mapping) {
            if mapping.usable > RESERVE_MAX {
                return;
            }
            let mut kept = self.kept();
            kept.returned_at = Some(Instant::now());
            let pid = std::process::id();
            if kept
                .reclaimer
                .is_none_or(|(started_in, _)| started_in != pid)
            {
                let started = std::thread::Builder::new()
                    .name("blitz-par-scratch".into())
                    .stack_size(64 << 10)
                    .spawn(move || self.reclaim());
                kept.reclaimer = Some((pid, started.is_ok()));
            }
            if kept.reclaimer != Some((pid, true))
                || kept
                    .mapping
                    .as_ref()
                    .is_some_and(|kept| kept.usable >= mapping.usable)
            {
                // Unmapped (by its drop) after the lock is released.
                drop(kept);
                return;
            }
            let replaced = kept.mapping.replace(mapping);
            drop(kept);
            self.returned.notify_one();
            drop(replaced);
        }

        /// The reclaimer thread: unmaps the kept mapping [`KEEP`] after the last return.
        fn reclaim(&self) {
            let mut kept = self.kept();
            loop {
                if kept.mapping.is_none() {
                    kept = self
                        .returned
                        .wait(kept)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    continue;
                }
                let now = Instant::now();
                // (A mapping is kept only after a return.)
                let due = kept.returned_at.map_or(now, |at| at + KEEP);
                if now < due {
                    kept = self
                        .returned
                        .wait_timeout(kept, due - now)
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .0;
                    continue;
                }
                let expired = kept.mapping.take();
                drop(kept);
                // Unmapped outside the lock: a sort may want the reserve meanwhile.
                drop(expired);
                trim_the_allocator();
                kept = self.kept();
            }
        }

        /// Whether a mapping is kept now.
        #[cfg(test)]
        pub(super) fn holds_a_mapping(&self) -> bool {
            self.kept().mapping.is_some()
        }
    }

    /// Gives the allocator's free memory back to the system, once the sorts have been idle for
    /// [`KEEP`]. The merge sort's leaves are sorted by std's stable sort, which allocates a
    /// buffer of up to 8 MB per leaf; after the first such buffer glibc raises its mmap
    /// threshold and serves the next ones from the pool threads' heaps, where they stay once
    /// freed (17 MiB held after a 10M `par_sort_by` on two threads). Other allocators give
    /// large blocks back themselves.
    fn trim_the_allocator() {
        #[cfg(target_env = "gnu")]
        // SAFETY: `malloc_trim` only returns free memory of the allocator's arenas to the
        // system; it takes the arenas' locks itself and touches no memory in use.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

#[cfg(all(test, target_os = "linux", not(miri)))]
mod tests {
    use super::huge_pages::{map, Reserve, KEEP, RESERVE_MAX};

    const MIB: usize = 1 << 20;

    /// A reserve of the test's own, with a reclaimer of its own.
    fn reserve() -> &'static Reserve {
        Box::leak(Box::new(Reserve::new()))
    }

    #[test]
    fn reserve_hands_back_what_fits() {
        let reserve = reserve();
        let mapping = map(8 * MIB).expect("mmap");
        let start = mapping.start();
        // SAFETY: the mapping has 8 MiB usable and no one else uses it.
        unsafe { std::ptr::write_bytes(start.as_ptr(), 7, 8 * MIB) };
        reserve.put(mapping);
        // Too large a request: a fresh mapping is needed.
        assert!(reserve.take(9 * MIB).is_none());
        // Smaller or equal requests reuse it, once.
        let again = reserve.take(6 * MIB).expect("kept mapping");
        assert_eq!(again.start(), start);
        assert!(reserve.take(MIB).is_none());
    }

    #[test]
    fn reserve_keeps_the_largest_and_nothing_huge() {
        let reserve = reserve();
        let small = map(4 * MIB).expect("mmap");
        let large = map(16 * MIB).expect("mmap");
        let large_start = large.start();
        reserve.put(large);
        reserve.put(small);
        let kept = reserve.take(MIB).expect("kept mapping");
        assert_eq!(kept.start(), large_start);
        assert!(reserve.take(MIB).is_none());
        // Above the cap a mapping is unmapped, not kept (mapping it reserves address space
        // only: no page is touched).
        reserve.put(map(RESERVE_MAX + MIB).expect("mmap"));
        assert!(reserve.take(MIB).is_none());
    }

    #[test]
    fn reserve_lets_go_of_its_mapping_after_a_while() {
        let reserve = reserve();
        reserve.put(map(4 * MIB).expect("mmap"));
        assert!(reserve.holds_a_mapping());
        // Released `KEEP` after the return; the bound only keeps a broken reclaimer from
        // hanging the test.
        let deadline = std::time::Instant::now() + KEEP * 40;
        while reserve.holds_a_mapping() {
            assert!(
                std::time::Instant::now() < deadline,
                "the reserve still holds its mapping {:?} after it was returned",
                KEEP * 40
            );
            std::thread::sleep(KEEP / 10);
        }
        // And it keeps the next one again.
        reserve.put(map(4 * MIB).expect("mmap"));
        assert!(reserve.take(4 * MIB).is_some());
    }
}
