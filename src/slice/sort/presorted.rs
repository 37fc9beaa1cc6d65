//! The radix sorts' checks for presorted input: sorted, reversed (reversed in the same
//! fused pass), or made of a few runs.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::key::RadixKey;
use super::thresholds::{poll_scheduler, Tuning};

/// Whether every pair of neighbours in `v` is in order: non-decreasing bits, or
/// non-increasing if `DESCENDING`. Dispatches to a copy of [`pairs_in_order_portable`] compiled
/// for AVX2 when the CPU has it: baseline x86-64 has no 64-bit vector compare, so the portable
/// copy compares one or two keys per instruction and the AVX2 one four.
pub(super) fn pairs_in_order<K: RadixKey, const DESCENDING: bool>(v: &[K]) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (just detected), the only requirement of calling a
            // function compiled with `target_feature(enable = "avx2")`.
            return unsafe { pairs_in_order_avx2::<K, DESCENDING>(v) };
        }
    }
    pairs_in_order_portable::<K, DESCENDING>(v)
}

/// [`pairs_in_order_portable`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2")]
unsafe fn pairs_in_order_avx2<K: RadixKey, const DESCENDING: bool>(v: &[K]) -> bool {
    pairs_in_order_portable::<K, DESCENDING>(v)
}

/// [`pairs_in_order`] without dispatch: blocks of 32 pairs are compared without branches (a
/// vectorizable fold), and the scan stops after the first block with a pair out of order.
#[inline(always)]
fn pairs_in_order_portable<K: RadixKey, const DESCENDING: bool>(v: &[K]) -> bool {
    if v.len() < 2 {
        return true;
    }
    let (earlier, later) = (&v[..v.len() - 1], &v[1..]);
    earlier.chunks(32).zip(later.chunks(32)).all(|(a, b)| {
        a.iter().zip(b).fold(true, |ok, (&x, &y)| {
            ok & if DESCENDING {
                x.bits() >= y.bits()
            } else {
                x.bits() <= y.bits()
            }
        })
    })
}

/// Whether `v` is non-increasing, in which case it is reversed (the sort of such keys: equal
/// ones are identical); otherwise `v` is left as it was. One pass, in parallel: pieces of the
/// front half and their mirror images in the back half are checked while in cache and, if both
/// descend, swapped mirror-wise at once; a piece that does not descend makes its task give
/// up, and every finished swap is undone (the mirrored swap is its own inverse).
pub(super) fn try_par_reverse_descending<K: RadixKey>(v: &mut [K], tuning: &Tuning) -> bool {
    let len = v.len();
    let half = len / 2;
    if half == 0 {
        return true;
    }
    // The pairs of neighbours that lie across two pieces (or across the middle) are checked
    // here, before any piece moves; the piece tasks check the pairs inside their pieces.
    let descends = |i: usize| v[i - 1].bits() >= v[i].bits();
    let piece = REVERSE_PIECE.min(tuning.radix_parallel_below.max(2));
    let boundaries_descend = (1..half.div_ceil(piece))
        .map(|p| p * piece)
        .all(|start| descends(start) && descends(len - start))
        && (half..=len - half).all(descends);
    if !boundaries_descend {
        return false;
    }
    let (front, rest) = v.split_at_mut(half);
    let back_start = rest.len() - half;
    let back = &mut rest[back_start..];
    let give_up = AtomicBool::new(false);
    par_reverse_pieces(front, back, piece, &give_up, tuning)
}

/// Keys per piece of `try_par_reverse_descending`: a piece and its mirror fit in L1 cache.
const REVERSE_PIECE: usize = 2048;

/// `try_par_reverse_descending` over `front` and its mirror image `back` (`back` is in
/// original order: `front[i]` pairs with `back[back.len() - 1 - i]`). Returns whether every
/// piece descended and was swapped; if not, nothing here was swapped (or it was undone).
fn par_reverse_pieces<K: RadixKey>(
    front: &mut [K],
    back: &mut [K],
    piece: usize,
    give_up: &AtomicBool,
    tuning: &Tuning,
) -> bool {
    debug_assert_eq!(front.len(), back.len());
    let len = front.len();
    if len <= tuning.radix_parallel_below.max(piece) {
        poll_scheduler();
        let mut done = 0;
        let mut ok = true;
        for start in (0..len).step_by(piece) {
            let end = (start + piece).min(len);
            let front_piece = &front[start..end];
            let back_piece = &back[len - end..len - start];
            if give_up.load(Relaxed) || !descending(front_piece) || !descending(back_piece) {
                give_up.store(true, Relaxed);
                ok = false;
                break;
            }
            swap_mirrored(&mut front[start..end], &mut back[len - end..len - start]);
            done = end;
        }
        if !ok {
            // Undo this task's swaps.
            swap_mirrored(&mut front[..done], &mut back[len - done..]);
        }
        return ok;
    }
    // Halves on piece boundaries, so that the pieces (and the pairs checked across them) are
    // those of `try_par_reverse_descending`.
    let mid = (len / 2).div_ceil(piece) * piece;
    let (front_low, front_high) = front.split_at_mut(mid);
    let (back_high, back_low) = back.split_at_mut(len - mid);
    let (low, high) = crate::join(
        || par_reverse_pieces(front_low, back_low, piece, give_up, tuning),
        || par_reverse_pieces(front_high, back_high, piece, give_up, tuning),
    );
    match (low, high) {
        (true, true) => true,
        (true, false) => {
            par_swap_mirrored(front_low, back_low, tuning);
            false
        }
        (false, true) => {
            par_swap_mirrored(front_high, back_high, tuning);
            false
        }
        (false, false) => false,
    }
}

/// Whether `v` is non-increasing (sequential).
fn descending<K: RadixKey>(v: &[K]) -> bool {
    pairs_in_order::<K, true>(v)
}

/// Swaps `front[i]` with `back[len - 1 - i]` for every `i`.
fn swap_mirrored<K: RadixKey>(front: &mut [K], back: &mut [K]) {
    for (a, b) in front.iter_mut().zip(back.iter_mut().rev()) {
        std::mem::swap(a, b);
    }
}

/// Above this many runs (maximal ascending or descending stretches) the input is not "a few
/// runs" and goes to the radix sort. Random input exceeds it within its first few hundred
/// keys. Measured on 1M u64 sawtooth inputs (2-core VM, best of 40): merging took 0.67x the
/// radix sort's time at 20 runs, 0.81x at 40, about the same at 80, 1.2x at 160.
pub(super) const FEW_RUNS: usize = 48;

/// Swaps `front[i]` with `back[len - 1 - i]` for every `i`, in parallel.
pub(super) fn par_swap_mirrored<K: RadixKey>(front: &mut [K], back: &mut [K], tuning: &Tuning) {
    debug_assert_eq!(front.len(), back.len());
    let len = front.len();
    if len <= tuning.radix_parallel_below {
        poll_scheduler();
        // Piece by piece, in cache.
        let mut back = back;
        for front in front.chunks_mut(REVERSE_PIECE) {
            let (rest, mirror) = back.split_at_mut(back.len() - front.len());
            swap_mirrored(front, mirror);
            back = rest;
        }
        return;
    }
    let mid = len / 2;
    let (front_low, front_high) = front.split_at_mut(mid);
    let (back_low, back_high) = back.split_at_mut(len - mid);
    crate::join(
        || par_swap_mirrored(front_low, back_high, tuning),
        || par_swap_mirrored(front_high, back_low, tuning),
    );
}
