//! Parallel MSD radix sort for slices of primitive integers (and `char`), sorted by their
//! natural order, and of floats sorted by `total_cmp`.
//!
//! For these types equal elements are bit-identical, so a stable and an unstable sort give the
//! same result and one algorithm serves `par_sort` and `par_sort_unstable`. There is no user
//! code involved (no comparator, no drop), hence nothing can panic midway, and keys may be
//! copied freely (a pass holds some of them in buffers for a while).
//!
//! Large slices are sorted in place by [`super::in_place`]: parallel passes of 256 buckets
//! each, no buffer the size of the input (a first sort in a process would pay the page faults
//! of one), until buckets are small enough for [`sequential_radix`] with a buffer of their
//! size. The first pass over keys of which nothing is known spreads the range of a sample of
//! 1,024 keys over its buckets ([`Offset`]): guessing the top bits as the digit would cost
//! signed keys on both sides of zero (whose `bits` differ in every bit) a pass that made two
//! buckets, and keys whose high bits never differ a pass that made one; a pass that still
//! leaves every key in one bucket (the sample missed the keys that differ) is followed by one
//! on the highest differing bits ([`Digit`]), which always split.
//!
//! A sequential pass spreads the keys' range (minimum to maximum) over its buckets rather
//! than the highest differing bits, which wastes buckets when the range does not line up with
//! powers of two. When a sequential pass leaves no bucket above 16 keys, one insertion sort
//! over the whole range finishes it instead of visiting every bucket. Spreading the range
//! makes small ranges (indices, few distinct values, sawtooth) cost few passes, and a bucket
//! whose keys are all equal stops at once; buckets of at most `radix_small` elements go to
//! std's `sort_unstable`.
//!
//! Floats get a different pass when a sample says it fits: buckets of equal width in *value*
//! ([`Interpolation`]), which spread uniform or normal data evenly, where the highest
//! differing bits (sign and exponent) put most keys of, say, uniform `[-0.5, 0.5)` into a few
//! buckets that each need another pass over memory.
//!
//! Before any of that, cheap parallel scans that stop early on random input: sorted input is
//! left as it is, reversed input is checked and reversed in one fused pass (pieces checked in
//! cache and swapped at once, the swaps undone if some piece does not descend), and input made
//! of a few runs goes to [`super::runs`], which reverses and merges them in fewer passes than
//! a radix sort makes. Then a sample: if it holds few distinct values,
//! [`super::counting`] counts them and writes the runs, two passes and no scratch buffer.

use super::key::{cast_slice_mut, cast_value, is_fn_item, is_type, RadixKey};
use super::presorted::{try_par_reverse_descending, FEW_RUNS};
use super::thresholds::Tuning;

#[cfg(test)]
thread_local! {
    /// Sorts by `total_cmp` that this thread's `try_radix_sort_by` took the radix path for.
    pub(super) static TOTAL_CMP_RADIX: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Sorts `v` by radix if `T` is a primitive integer or `char` (in its natural order, which
/// `T: Ord` is for these types); returns whether it did.
pub(super) fn try_radix_sort<T>(v: &mut [T], tuning: &Tuning) -> bool {
    macro_rules! dispatch {
        ($($t:ty),*) => {$(
            if let Some(v) = cast_slice_mut::<T, $t>(v) {
                radix_sort(v, tuning);
                return true;
            }
        )*};
    }
    dispatch!(u64, u32, i64, i32, usize, isize, u16, i16, u8, i8);
    if let Some(v) = cast_slice_mut::<T, char>(v) {
        // SAFETY: `char` has the size, alignment and order of its code point, a `u32`.
        // Sorting only permutes the slice's values, so every element is still a valid `char`
        // when the borrow ends (and a `u32` view, unlike `char`, may take the scratch buffer's
        // arbitrary bits).
        let v = unsafe { &mut *(v as *mut [char] as *mut [u32]) };
        radix_sort(v, tuning);
        return true;
    }
    false
}

/// Sorts `v` by `f` if `K` is a primitive integer or `char`; returns whether it did. See
/// [`primitive_key_bits`] and [`sort_by_key_bits`]: where the keys do not fit beside the index,
/// it returns false with `v` untouched (and `f` called once per element), as it does at once
/// for other key types. (The sorts use the two parts through `try_sort_by_primitive_key`,
/// which sorts the keys it computed either way; this is the radix path alone, for tests.)
#[cfg(test)]
pub(super) fn try_radix_sort_by_key<T, K, F>(v: &mut [T], f: &F, tuning: &Tuning) -> bool
where
    T: Send,
    F: Fn(&T) -> K + Sync,
{
    match primitive_key_bits(v, f) {
        Some(bits) => sort_by_key_bits(v, bits, tuning).is_ok(),
        None => false,
    }
}

/// The order-preserving bits of every element's key (`RadixKey::bits`), each computed once,
/// in parallel, if `K` is a primitive integer or `char`; `None`, without calling `f`, for
/// other key types. A panic in `f` reaches the caller with `v` untouched.
pub(super) fn primitive_key_bits<T, K, F>(v: &mut [T], f: &F) -> Option<Vec<u64>>
where
    T: Send,
    F: Fn(&T) -> K + Sync,
{
    fn all_bits<T: Send>(v: &mut [T], bits: impl Fn(&T) -> u64 + Sync) -> Vec<u64> {
        use crate::prelude::*;
        // (`par_iter_mut`, as `T` need not be `Sync`.)
        v.par_iter_mut().map(|x| bits(&*x)).collect()
    }
    macro_rules! dispatch {
        ($($t:ty),*) => {$(
            if is_type::<K, $t>() {
                return Some(all_bits(v, |x: &T| match cast_value::<K, $t>(f(x)) {
                    Ok(key) => key.bits(),
                    Err(_) => unreachable!("`K` is `{}`", stringify!($t)),
                }));
            }
        )*};
    }
    dispatch!(u64, u32, i64, i32, usize, isize, u16, i16, u8, i8);
    if is_type::<K, char>() {
        return Some(all_bits(v, |x: &T| match cast_value::<K, char>(f(x)) {
            Ok(key) => u64::from(key),
            Err(_) => unreachable!("`K` is `char`"),
        }));
    }
    None
}

/// Sorts `v` stably by `bits` (`bits[i]` the key bits of `v[i]`): each, less the least, is
/// packed above its element's index into a `u64`; these values are distinct, so a radix sort
/// of them orders equal keys by index, and the elements are then gathered in that order.
/// Where the keys' range and the index do not fit in 64 bits together (64-bit keys spread
/// over more than `64 - log2(len)` bits), gives `bits` back unchanged and `v` untouched.
pub(super) fn sort_by_key_bits<T: Send>(
    v: &mut [T],
    mut bits: Vec<u64>,
    tuning: &Tuning,
) -> Result<(), Vec<u64>> {
    use crate::prelude::*;
    let len = v.len();
    debug_assert_eq!(bits.len(), len);
    let (least, greatest) = bits
        .par_iter()
        .fold(|| (u64::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)))
        .reduce(|| (u64::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    if greatest <= least {
        // Every key is equal (or `v` is empty): sorted, and stably, as it stands.
        return Ok(());
    }
    let range_bits = u64::BITS - (greatest - least).leading_zeros();
    let shift = super::gather::index_bits(len);
    if range_bits + shift > u64::BITS {
        return Err(bits);
    }
    bits.par_iter_mut()
        .enumerate()
        .for_each(|(i, k)| *k = ((*k - least) << shift) | i as u64);
    radix_sort(&mut bits, tuning);
    super::gather::gather_in_order(v, &bits, tuning);
    Ok(())
}

/// Sorts `v` by radix if `T` is `f64` or `f32` and `compare` is `f64::total_cmp` or
/// `f32::total_cmp` itself (the function item, as in `v.par_sort_unstable_by(f64::total_cmp)`),
/// or a reference to it; returns whether it did. A closure calling `total_cmp` has a type of
/// its own and is not recognised. Equal under `total_cmp` means identical bits, so this serves
/// stable sorts too.
///
/// References are recognised because the public sorts hand their comparator on by reference
/// (`&F` is `Send` for an `F` that is only `Sync`, as the closure that may carry the sort to a
/// worker must be): looking for the item type alone missed every call through the public API.
pub(super) fn try_radix_sort_by<T, F>(v: &mut [T], _compare: &F, tuning: &Tuning) -> bool {
    if is_fn_item::<F, _>(f64::total_cmp) {
        if let Some(v) = cast_slice_mut::<T, f64>(v) {
            #[cfg(test)]
            TOTAL_CMP_RADIX.with(|n| n.set(n.get() + 1));
            radix_sort(v, tuning);
            return true;
        }
    }
    if !is_fn_item::<F, _>(f32::total_cmp) {
        return false;
    }
    if let Some(v) = cast_slice_mut::<T, f32>(v) {
        #[cfg(test)]
        TOTAL_CMP_RADIX.with(|n| n.set(n.get() + 1));
        radix_sort(v, tuning);
        return true;
    }
    false
}

/// Sorts primitive keys (see the module documentation).
pub(super) fn radix_sort<K: RadixKey>(v: &mut [K], tuning: &Tuning) {
    if v.len() <= tuning.radix_small {
        v.sort_unstable_by_key(|k| k.bits());
        return;
    }
    // A reversed slice starts with its greatest key: if the ends allow it, try reversing
    // (one pass that checks and swaps at once, undone if the slice does not descend).
    if v[0].bits() > v[v.len() - 1].bits() && try_par_reverse_descending(v, tuning) {
        // Non-increasing; equal keys are identical, so reversing sorted it.
        return;
    }
    // Sorted input is one run (found in one vectorised pass, with nothing to merge); organ
    // pipes and appended sorted data are a few. Random input gives up within a few hundred
    // keys per block.
    if super::runs::try_par_merge_runs(v, FEW_RUNS, tuning) {
        // A few ascending and descending runs: reversing and merging them takes fewer passes
        // than a radix sort makes.
        return;
    }
    if super::counting::try_counting_sort(v, tuning) {
        return;
    }
    super::in_place::in_place_radix_sort(v, tuning);
}
