//! Gathering elements into a computed order through a scratch buffer, in parallel: the last
//! step of the sorts by key bits and by keyed pairs.

use std::mem::{self, MaybeUninit};

use super::scratch::Scratch;
use super::thresholds::{poll_scheduler, Tuning};
use crate::SyncPtr;

/// How many elements ahead `par_gather` asks for the element it will read: its reads are
/// random, and each would otherwise wait for memory in turn.
const GATHER_PREFETCH_AHEAD: usize = 16;

/// Asks the processor to load the cache line at `p` (a hint: any address is allowed).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no visible effect, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Puts `v[index(order[i])]` at `i`, for every `i`, where `index` is the low
/// [`index_bits`]`(v.len())` bits of a key and `order` holds every index once.
pub(super) fn gather_in_order<T: Send>(v: &mut [T], order: &[u64], tuning: &Tuning) {
    let mask = index_mask(v.len());
    let mut buffer = Scratch::<T>::uninit(v.len());
    let scratch: &mut [MaybeUninit<T>] = buffer.as_uninit();
    let from = SyncPtr::new(v);
    par_gather(order, mask, from, scratch, tuning);
    par_copy_from_scratch(scratch, SyncPtr::new(v), 0, tuning);
}

/// Bits of the index in a key, for `len` elements: enough for `len - 1`, at least one.
pub(super) fn index_bits(len: usize) -> u32 {
    (u64::BITS - (len.saturating_sub(1) as u64).leading_zeros()).max(1)
}

/// The index part of a key, for `len` elements.
pub(super) fn index_mask(len: usize) -> u64 {
    (1u64 << index_bits(len)) - 1
}

/// `scratch[i] = read(from[order[i] & mask])` for every `i`. The masked `order` must be a
/// permutation of `0..from.len()` (it is: the keys' indices, permuted by a sort).
fn par_gather<T: Send>(
    order: &[u64],
    mask: u64,
    from: SyncPtr<'_, T>,
    scratch: &mut [MaybeUninit<T>],
    tuning: &Tuning,
) {
    if mem::size_of_val(scratch) <= tuning.copy_sequential_bytes || order.len() < 2 {
        poll_scheduler();
        for (i, (slot, &key)) in scratch.iter_mut().zip(order).enumerate() {
            if let Some(&ahead) = order.get(i + GATHER_PREFETCH_AHEAD) {
                prefetch(from.as_ptr().wrapping_add((ahead & mask) as usize));
            }
            let index = (key & mask) as usize;
            assert!(index < from.len());
            // SAFETY: `index` is in bounds (checked); `order` is a permutation, so each source
            // element is read by exactly one task, and the source slice is not otherwise used
            // until the copy back, which overwrites every slot with these bits.
            slot.write(unsafe { from.get(index).read() });
        }
        return;
    }
    let mid = order.len() / 2;
    let (scratch_low, scratch_high) = scratch.split_at_mut(mid);
    crate::join(
        || par_gather(&order[..mid], mask, from, scratch_low, tuning),
        || par_gather(&order[mid..], mask, from, scratch_high, tuning),
    );
}

/// Copies all of `scratch` (fully initialised by `par_gather`) to `to[offset..]`.
fn par_copy_from_scratch<T: Send>(
    scratch: &mut [MaybeUninit<T>],
    to: SyncPtr<'_, T>,
    offset: usize,
    tuning: &Tuning,
) {
    if mem::size_of_val(scratch) <= tuning.copy_sequential_bytes || scratch.len() < 2 {
        poll_scheduler();
        // SAFETY: `scratch` holds, initialised, exactly the elements `to` owned (a permutation
        // from `par_gather`), so overwriting without dropping moves them back; each task copies
        // a disjoint range `offset..offset + scratch.len()` of `to`, which lies in bounds.
        unsafe {
            std::ptr::copy_nonoverlapping(
                scratch.as_ptr().cast::<T>(),
                to.get(offset),
                scratch.len(),
            );
        }
        return;
    }
    let mid = scratch.len() / 2;
    let (low, high) = scratch.split_at_mut(mid);
    crate::join(
        || par_copy_from_scratch(low, to, offset, tuning),
        || par_copy_from_scratch(high, to, offset + mid, tuning),
    );
}
