//! Parallel MSD radix sort for slices of primitive integers (and `char`), sorted by their
//! natural order, and of floats sorted by `total_cmp`.
//!
//! For these types equal elements are bit-identical, so a stable and an unstable sort give the
//! same result and one algorithm serves `par_sort` and `par_sort_unstable`. There is no user
//! code involved (no comparator, no drop), hence nothing can panic midway and the scratch
//! buffer can be used ping-pong style.
//!
//! One radix step: compute which bits differ anywhere in the (sub)slice (OR and AND of all
//! keys); take the highest differing bits as the digit (8 to 12 of them, so that a parallel
//! pass leaves buckets of about 4,096 keys, which one sequential pass finishes); histogram;
//! scatter into the other buffer; recurse into each bucket with the buffers' roles swapped.
//! The first parallel pass over keys of which nothing is known spreads the range of a sample
//! of 1,024 keys over its buckets instead ([`Offset`]): guessing the top bits as the digit
//! cost signed keys on both sides of zero (whose `bits` differ in every bit) a pass that made
//! two buckets, and keys whose high bits never differ a second histogram. On 10M keys, 2-core
//! VM: random 44-bit `i64` around zero 106-114 -> 67-80 ms, `u64` below 2^44 81-93 -> 55-71
//! ms, full-width random `u64` unchanged (70 ms); std's `sort_unstable` 185-192 ms.
//! A sequential pass spreads the keys' range (minimum to maximum) over its buckets rather
//! than the highest differing bits, which wastes buckets when the range does not line up with
//! powers of two. When a sequential pass leaves no bucket above 16 keys, one insertion sort
//! over the whole range finishes it instead of visiting every bucket. Skipping the
//! bits that do not differ makes small ranges (indices, few distinct values, sawtooth) cost
//! few passes, and a bucket whose keys are all equal stops at once. Large slices do the
//! histogram and the scatter in parallel over blocks (each block owns one row of counts, so
//! its writes land in ranges no other block writes) and then sort the buckets in parallel;
//! buckets of at most `radix_small` elements go to std's `sort_unstable`.
//!
//! Floats get a different first pass when a sample says it fits: buckets of equal width in
//! *value* ([`Interpolation`]), which spread uniform or normal data evenly, where the highest
//! differing bits (sign and exponent) put most keys of, say, uniform `[-0.5, 0.5)` into a few
//! buckets that each need another pass over memory.
//!
//! Before any of that, cheap parallel scans that stop early on random input: sorted input is
//! left as it is, reversed input is checked and reversed in one fused pass (pieces checked in
//! cache and swapped at once, the swaps undone if some piece does not descend), and input made
//! of a few runs goes to [`super::runs`], which reverses and merges them in fewer passes than
//! a radix sort makes. Then a sample: if it holds few distinct values,
//! [`super::counting`] counts them and writes the runs, two passes and no scratch buffer.

use std::any::TypeId;
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::scratch::Scratch;
use super::{poll_scheduler, Tuning};
use crate::SyncPtr;

/// A primitive whose order (natural, or `total_cmp` for floats) is the order of an unsigned
/// integer of its bits.
///
/// # Safety
///
/// Every initialised bit pattern of the type's size must be a valid value (the scratch buffer
/// holds zeros or keys of other types that earlier sorts left), and `bits` must be
/// injective (equal `bits` means identical keys, which is what lets one algorithm serve stable
/// and unstable sorts).
pub(super) unsafe trait RadixKey: Copy + Send + Sync + 'static {
    /// Order-preserving map to `u64`: `a < b` if and only if `a.bits() < b.bits()`.
    fn bits(self) -> u64;

    /// For floats, the value (exactly, as an `f64`), for the value-interpolating first pass;
    /// `None` for integers, whose bits are what a radix digit should look at.
    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        None
    }
}

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        // SAFETY: any bits are a valid integer; widening is injective.
        unsafe impl RadixKey for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
unsigned_key!(u8, u16, u32, u64, usize);

macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => {$(
        // SAFETY: any bits are a valid integer; flipping a bit and widening are injective.
        unsafe impl RadixKey for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                // Flipping the sign bit maps two's complement order onto unsigned order.
                ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64
            }
        }
    )*};
}
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

// SAFETY: any bits are a valid `f64`; the map below is a bijection on bit patterns.
unsafe impl RadixKey for f64 {
    /// The order of `f64::total_cmp`: negative numbers (sign bit set) have all bits flipped, so
    /// that a larger magnitude sorts lower; the rest get the sign bit set, above them all.
    #[inline(always)]
    fn bits(self) -> u64 {
        let bits = self.to_bits();
        bits ^ (((bits as i64 >> 63) as u64) | (1 << 63))
    }

    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        Some(self)
    }
}

// SAFETY: as for `f64`.
unsafe impl RadixKey for f32 {
    /// The order of `f32::total_cmp`, as for `f64`.
    #[inline(always)]
    fn bits(self) -> u64 {
        let bits = self.to_bits();
        (bits ^ (((bits as i32 >> 31) as u32) | (1 << 31))) as u64
    }

    #[inline(always)]
    fn float_value(self) -> Option<f64> {
        Some(self as f64)
    }
}

/// `TypeId` of a type that need not be `'static`.
///
/// A type-erased `PhantomData<T>` answers `TypeId::of::<T>()` through a method that demands
/// `Self: 'static`; the trait object's lifetime bound is widened to `'static` to call it. This
/// is the technique of dtolnay's `typeid` crate.
///
/// Soundness: lifetimes are erased before code generation, so the method body is the same code
/// for every lifetime, and it touches no data (the receiver is a zero-sized `PhantomData`).
/// The answer is the `TypeId` of `T` with its lifetimes erased. Here it is compared with the
/// `TypeId` of a primitive that has no lifetime parameters; a type equal to such a primitive
/// after erasure *is* that primitive, so the cast in `try_radix_sort` is an identity.
/// `strings::byte_view` also compares it with `&'static str` and `&'static [u8]`, which
/// `&'a str` and `&'a [u8]` match for every `'a`: it reads such an element as a raw pointer
/// and claims no lifetime for it.
fn type_id_of<T: ?Sized>() -> TypeId {
    trait NonStaticAny {
        fn type_id(&self) -> TypeId
        where
            Self: 'static;
    }
    impl<T: ?Sized> NonStaticAny for PhantomData<T> {
        fn type_id(&self) -> TypeId
        where
            Self: 'static,
        {
            TypeId::of::<T>()
        }
    }
    let phantom = PhantomData::<T>;
    let object: &dyn NonStaticAny = &phantom;
    // SAFETY: only the trait object's lifetime bound changes (same layout, same vtable); the
    // reference is used at once, while `phantom` lives, and the method reads nothing through
    // it. Why the result is meaningful is argued on this function.
    let object: &(dyn NonStaticAny + 'static) =
        unsafe { std::mem::transmute::<&dyn NonStaticAny, &(dyn NonStaticAny + 'static)>(object) };
    object.type_id()
}

/// Whether `T` is exactly `U`, where `U` has no lifetime parameters.
#[inline]
pub(super) fn is_type<T, U: 'static>() -> bool {
    type_id_of::<T>() == TypeId::of::<U>()
}

/// Sorts `v` by radix if `T` is a primitive integer or `char` (in its natural order, which
/// `T: Ord` is for these types); returns whether it did.
pub(super) fn try_radix_sort<T>(v: &mut [T], tuning: &Tuning) -> bool {
    macro_rules! dispatch {
        ($($t:ty),*) => {$(
            if is_type::<T, $t>() {
                // SAFETY: `T` is `$t` (see `type_id_of`), so this cast changes nothing.
                let v = unsafe { &mut *(v as *mut [T] as *mut [$t]) };
                radix_sort(v, tuning);
                return true;
            }
        )*};
    }
    dispatch!(u64, u32, i64, i32, usize, isize, u16, i16, u8, i8);
    if is_type::<T, char>() {
        // SAFETY: `T` is `char`, which has the size, alignment and order of its code point, a
        // `u32`. Sorting only permutes the slice's values, so every element is still a valid
        // `char` when the borrow ends (and a `u32` view, unlike `char`, may take the scratch
        // buffer's arbitrary bits).
        let v = unsafe { &mut *(v as *mut [T] as *mut [u32]) };
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
                return Some(all_bits(v, |x: &T| {
                    let key = f(x);
                    // SAFETY: `K` is `$t` (see `type_id_of`), so this copies the value
                    // unchanged; `$t` has no drop glue, so `key` needs no special care.
                    unsafe { std::mem::transmute_copy::<K, $t>(&key) }.bits()
                }));
            }
        )*};
    }
    dispatch!(u64, u32, i64, i32, usize, isize, u16, i16, u8, i8);
    if is_type::<K, char>() {
        return Some(all_bits(v, |x: &T| {
            let key = f(x);
            // SAFETY: `K` is `char`, as above.
            u64::from(unsafe { std::mem::transmute_copy::<K, char>(&key) })
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
    let shift = super::index_bits(len);
    if range_bits + shift > u64::BITS {
        return Err(bits);
    }
    bits.par_iter_mut()
        .enumerate()
        .for_each(|(i, k)| *k = ((*k - least) << shift) | i as u64);
    radix_sort(&mut bits, tuning);
    super::gather_in_order(v, &bits, tuning);
    Ok(())
}

/// Sorts `v` by radix if `T` is `f64` or `f32` and `compare` is `f64::total_cmp` or
/// `f32::total_cmp` itself (the function item, as in `v.par_sort_unstable_by(f64::total_cmp)`);
/// returns whether it did. A closure calling `total_cmp` has a type of its own and is not
/// recognised. Equal under `total_cmp` means identical bits, so this serves stable sorts too.
pub(super) fn try_radix_sort_by<T, F>(v: &mut [T], _compare: &F, tuning: &Tuning) -> bool {
    /// The `TypeId` of a function item passed by value (a function item type names exactly
    /// one function; `total_cmp` has no generic parameters, so its item type is `'static`).
    fn item_type_id<G: 'static>(_: G) -> TypeId {
        TypeId::of::<G>()
    }
    if is_type::<T, f64>() && type_id_of::<F>() == item_type_id(f64::total_cmp) {
        // SAFETY: `T` is `f64` (see `type_id_of`), so this cast changes nothing.
        let v = unsafe { &mut *(v as *mut [T] as *mut [f64]) };
        radix_sort(v, tuning);
        return true;
    }
    if is_type::<T, f32>() && type_id_of::<F>() == item_type_id(f32::total_cmp) {
        // SAFETY: `T` is `f32`, as above.
        let v = unsafe { &mut *(v as *mut [T] as *mut [f32]) };
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
    let mut buffer = Scratch::<K>::initialized(v.len());
    // SAFETY: the buffer comes from `initialized`, any initialised bits are a valid
    // `RadixKey` (a requirement of the trait), and keys are `Copy`.
    let scratch = unsafe { buffer.as_init() };
    if v.len() > tuning.radix_parallel_below {
        if let Some(interpolation) = fit_interpolation(v) {
            // First pass by value, then each bucket by its bits.
            let block_len = radix_block_len(v.len(), tuning);
            let buckets = Classifier::<K>::buckets(interpolation);
            let mut offsets = vec![0usize; v.len().div_ceil(block_len) * buckets];
            par_histogram(v, block_len, &mut offsets, interpolation);
            let starts = par_distribute(v, scratch, block_len, &mut offsets, interpolation, tuning);
            par_buckets(scratch, v, &starts, true, u64::BITS, tuning);
            return;
        }
    }
    par_radix(v, scratch, false, u64::BITS, tuning);
}

/// `count` pseudo-random positions in `0..len` (`len > 0`), spread over the whole range and
/// the same for every call with these arguments (xorshift64; multiply-shift maps each word
/// onto `0..len` without a division).
pub(super) fn sample_positions(len: usize, count: usize) -> impl Iterator<Item = usize> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ len as u64;
    (0..count).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state as u128 * len as u128) >> 64) as usize
    })
}

/// Keys sampled to fit an [`Interpolation`].
const INTERPOLATION_SAMPLE: usize = 1024;

/// For floats: an [`Interpolation`] over the range of a sample of `v`, with as many buckets as
/// a parallel radix pass would have, if it spreads the sample evenly (no sixty-fourth of the
/// buckets holds more than about four times its share of the sample). `None` for integers, for
/// ranges too wide for `f64` arithmetic, and for skewed values (exponentially distributed,
/// say), which the highest differing bits (the exponent first) spread better.
pub(super) fn fit_interpolation<K: RadixKey>(v: &[K]) -> Option<Interpolation> {
    v.first()?.float_value()?;
    let len = v.len();
    let samples = len.min(INTERPOLATION_SAMPLE);
    let sample: Vec<K> = sample_positions(len, samples).map(|i| v[i]).collect();
    // The range leaves out the sample's extreme 1/128 at each end, so that a few outliers do
    // not stretch it (keys outside the range go to the end buckets).
    let mut finite: Vec<f64> = sample
        .iter()
        .filter_map(|key| key.float_value())
        .filter(|x| x.is_finite())
        .collect();
    if finite.len() < 2 {
        return None;
    }
    let trim = finite.len() / 128;
    let last = finite.len() - 1 - trim;
    let high = *finite.select_nth_unstable_by(last, f64::total_cmp).1;
    let low = *finite[..last]
        .select_nth_unstable_by(trim, f64::total_cmp)
        .1;
    let buckets = 1usize << parallel_digit_width(len);
    let scale = buckets as f64 / (high - low);
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let interpolation = Interpolation {
        low,
        scale,
        last: buckets - 1,
    };
    const GROUPS: usize = 64;
    let mut groups = [0usize; GROUPS];
    for &key in &sample {
        groups[Classifier::<K>::of(interpolation, key) * GROUPS / buckets] += 1;
    }
    let most = groups.iter().copied().max().unwrap_or(0);
    // (Plus a few, for small samples' noise.)
    (most <= 4 * samples.div_ceil(GROUPS) + 8).then_some(interpolation)
}

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
const FEW_RUNS: usize = 48;

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

/// A digit: `width` bits of a key's `bits()`, starting at bit `shift`.
#[derive(Clone, Copy)]
struct Digit {
    shift: u32,
    mask: u64,
}

impl Digit {
    /// The digit of (at most) `width` bits just below bit `top`; `top > 0`.
    fn below(top: u32, width: u32) -> Digit {
        debug_assert!(top > 0);
        let width = width.min(top);
        Digit {
            shift: top - width,
            mask: u64::MAX >> (u64::BITS - width),
        }
    }

    /// The digit of `width` bits whose highest bit is the highest bit in `differing`.
    fn highest(differing: u64, width: u32) -> Digit {
        debug_assert_ne!(differing, 0);
        let high_bit = 63 - differing.leading_zeros();
        Digit {
            shift: (high_bit + 1).saturating_sub(width),
            mask: (1u64 << width) - 1,
        }
    }
}

/// Sorts keys into numbered buckets, monotonically: if `a < b` in the keys' order then
/// `of(a) <= of(b)`, so concatenating the sorted buckets sorts the keys.
trait Classifier<K>: Copy + Sync {
    /// The number of buckets; `of` answers below it.
    fn buckets(self) -> usize;
    /// The bucket of `key`.
    fn of(self, key: K) -> usize;
}

impl<K: RadixKey> Classifier<K> for Digit {
    fn buckets(self) -> usize {
        self.mask as usize + 1
    }

    #[inline(always)]
    fn of(self, key: K) -> usize {
        ((key.bits() >> self.shift) & self.mask) as usize
    }
}

/// Buckets of equal width over a range of bits, `(bits - min) >> shift`, from a sample: keys
/// below the range go to bucket 0 and above it to the last, so any key has a bucket and the
/// order is kept. Spreads keys whose range straddles a high power of two, which the highest
/// differing bits split into a couple of buckets (signed integers on both sides of zero:
/// their `bits` flip the sign bit, so `-1` and `0` differ in all 64 bits), and keys whose
/// high bits are all equal, which a first digit guessed from the top bits misses (another
/// pass over memory to count the right one).
#[derive(Clone, Copy)]
struct Offset {
    min: u64,
    shift: u32,
    last: u64,
}

impl Offset {
    /// At most `2^width` buckets over `min..=max`.
    fn over(min: u64, max: u64, width: u32) -> Offset {
        debug_assert!(min <= max);
        let span = max - min;
        let shift = (u64::BITS - span.leading_zeros()).saturating_sub(width);
        Offset {
            min,
            shift,
            last: span >> shift,
        }
    }

    /// Over the range of `SAMPLE` keys of `data` (not empty).
    fn of_sample<K: RadixKey>(data: &[K], width: u32) -> Offset {
        const SAMPLE: usize = 1024;
        let (min, max) = sample_positions(data.len(), SAMPLE)
            .map(|i| data[i].bits())
            .fold((u64::MAX, 0), |(min, max), b| (min.min(b), max.max(b)));
        Offset::over(min, max, width)
    }
}

impl<K: RadixKey> Classifier<K> for Offset {
    fn buckets(self) -> usize {
        self.last as usize + 1
    }

    #[inline(always)]
    fn of(self, key: K) -> usize {
        // Monotone: a saturating subtraction, a shift and a minimum each keep the order.
        ((key.bits().saturating_sub(self.min) >> self.shift).min(self.last)) as usize
    }
}

/// Buckets of equal width in value between `low` and `low + buckets / scale`, for floats: a
/// first pass that spreads uniformly or normally distributed values evenly over the buckets,
/// which the highest differing bits do not (most of the keys of uniform `[0, 1)` share one of
/// a few exponents). Values below the range go to bucket 0, above it (and `+inf`) to the
/// last; NaNs go to the end of `total_cmp`'s order their sign gives them.
#[derive(Clone, Copy)]
pub(super) struct Interpolation {
    low: f64,
    scale: f64,
    last: usize,
}

impl<K: RadixKey> Classifier<K> for Interpolation {
    fn buckets(self) -> usize {
        self.last + 1
    }

    #[inline(always)]
    fn of(self, key: K) -> usize {
        let Some(x) = key.float_value() else {
            unreachable!("interpolation is only used for floats")
        };
        if x.is_nan() {
            // `total_cmp` puts negative NaNs first, positive ones last.
            return if x.is_sign_negative() { 0 } else { self.last };
        }
        // Subtraction and multiplication by a positive number are monotone in IEEE arithmetic,
        // and so are clamping and truncation, so the bucket is monotone in the value; -0.0 and
        // 0.0, which `total_cmp` tells apart, share a bucket, where their bits order them.
        // `x` is not NaN and `scale` is finite and positive, so the product is not NaN either
        // (infinities stay infinite) and the clamp leaves a number in `0..=last`.
        let position = ((x - self.low) * self.scale).clamp(0.0, self.last as f64);
        // SAFETY: `position` is finite, non-negative and at most `last`, a `usize` (see above):
        // representable, which is `to_int_unchecked`'s contract.
        unsafe { position.to_int_unchecked::<usize>() }
    }
}

/// The width of a parallel pass's digit: enough buckets that they come out at most about
/// `SEQUENTIAL_FINAL_LEN` keys (which `sequential_radix` finishes in one pass), between 8 and
/// 12 bits. A 12-bit pass writes 4,096 streams; with huge pages backing the scratch buffer
/// their TLB entries fit, and one wide pass costs less than a second pass over memory
/// (measured on 10M keys: two passes over memory instead of three).
fn parallel_digit_width(len: usize) -> u32 {
    let buckets_wanted = len.div_ceil(SEQUENTIAL_FINAL_LEN);
    (usize::BITS - buckets_wanted.leading_zeros()).clamp(8, 12)
}

/// `sequential_radix` sorts this many keys with one pass of its widest digit.
const SEQUENTIAL_FINAL_LEN: usize = 4096;

/// Sorts `data`, using `other` (same length) as scratch; the sorted keys end up in `other` if
/// `result_in_other`, else in `data`. Parallel for large slices.
///
/// All keys of `data` agree on every bit at or above bit `varying_below` (64: no such bit).
/// The first histogram counts the digit just below that bit and, in the same pass, finds the
/// bits that differ; only if the highest of those lies lower does a second histogram count
/// the digit that starts there. Buckets from a parallel pass (floats' mantissas, most keys)
/// thus cost one pass over memory fewer than "find the differing bits, then count".
fn par_radix<K: RadixKey>(
    data: &mut [K],
    other: &mut [K],
    result_in_other: bool,
    varying_below: u32,
    tuning: &Tuning,
) {
    let len = data.len();
    debug_assert_eq!(len, other.len());
    if len <= tuning.radix_parallel_below {
        sequential_radix(data, other, result_in_other, tuning);
        return;
    }
    if varying_below == 0 {
        // All keys are equal.
        if result_in_other {
            par_copy(data, other, tuning);
        }
        return;
    }
    let width = parallel_digit_width(len);
    let block_len = radix_block_len(len, tuning);
    let blocks = len.div_ceil(block_len);
    if varying_below == u64::BITS {
        // Nothing is known of the keys (the whole slice, or a bucket of such a pass): a
        // sample's range guesses the first pass better than the top bits do.
        let range = Offset::of_sample(data, width);
        let buckets = Classifier::<K>::buckets(range);
        let mut offsets = vec![0usize; blocks * buckets];
        let (or, and) = par_histogram(data, block_len, &mut offsets, range);
        if or & !and == 0 {
            if result_in_other {
                par_copy(data, other, tuning);
            }
            return;
        }
        // If the sample missed the keys that differ (all but a few keys equal), every key may
        // share one bucket: no progress, so take the differing bits below instead, which
        // always split.
        let first = range.of(data[0]);
        let in_first: usize = offsets.chunks(buckets).map(|row| row[first]).sum();
        if in_first < len {
            let bucket_starts = par_distribute(data, other, block_len, &mut offsets, range, tuning);
            // A bucket's keys need not agree on any high bit.
            par_buckets(
                other,
                data,
                &bucket_starts,
                !result_in_other,
                u64::BITS,
                tuning,
            );
            return;
        }
    }
    let guess = Digit::below(varying_below, width);
    let mut offsets = vec![0usize; blocks * Classifier::<K>::buckets(guess)];
    let (or, and) = par_histogram(data, block_len, &mut offsets, guess);
    let differing = or & !and;
    if differing == 0 {
        if result_in_other {
            par_copy(data, other, tuning);
        }
        return;
    }
    let mut digit = Digit::highest(differing, width);
    if digit.shift == guess.shift && digit.mask == guess.mask {
        digit = guess;
    } else {
        offsets.clear();
        offsets.resize(blocks * Classifier::<K>::buckets(digit), 0);
        par_histogram(data, block_len, &mut offsets, digit);
    }
    let bucket_starts = par_distribute(data, other, block_len, &mut offsets, digit, tuning);
    par_buckets(
        other,
        data,
        &bucket_starts,
        !result_in_other,
        digit.shift,
        tuning,
    );
}

/// The length of the blocks of a parallel histogram and scatter over `len` keys: a few per
/// thread, and not so short that a block costs less than scheduling it.
pub(super) fn radix_block_len(len: usize, tuning: &Tuning) -> usize {
    let threads = crate::current_num_threads().max(1);
    len.div_ceil(threads * tuning.radix_blocks_per_thread)
        .max(tuning.radix_parallel_below / 4)
        .max(1)
}

/// Scatters `data` into `other` by bucket, in parallel, and returns where each bucket starts
/// in `other` (and, last, `len`). `offsets` holds the histogram `par_histogram` made of `data`
/// with `classifier`, one row of counts per block of `block_len` keys; it is used up.
fn par_distribute<K: RadixKey, C: Classifier<K>>(
    data: &[K],
    other: &mut [K],
    block_len: usize,
    offsets: &mut [usize],
    classifier: C,
    tuning: &Tuning,
) -> Vec<usize> {
    let len = data.len();
    let blocks = len.div_ceil(block_len);
    let buckets = classifier.buckets();
    debug_assert_eq!(offsets.len(), blocks * buckets);
    // Turn counts into the first destination index of each (block, bucket): bucket-major, so
    // a bucket is contiguous and, inside it, the blocks' keys keep their input order.
    let mut bucket_starts = vec![0usize; buckets + 1];
    let mut next = 0;
    for (d, start) in bucket_starts.iter_mut().take(buckets).enumerate() {
        *start = next;
        for block in 0..blocks {
            let slot = &mut offsets[block * buckets + d];
            let count = *slot;
            *slot = next;
            next += count;
        }
    }
    bucket_starts[buckets] = next;
    assert_eq!(next, len, "radix histogram lost keys");
    assert_eq!(other.len(), len, "radix scratch of the wrong length");
    let through_lines = block_len
        >= tuning
            .radix_lines_from_keys_per_bucket
            .saturating_mul(buckets);
    par_scatter(
        data,
        block_len,
        offsets,
        SyncPtr::new(other),
        classifier,
        through_lines,
    );
    bucket_starts
}

/// Counts, for each block of `block_len` keys of `data`, how many keys fall in each bucket;
/// `rows` holds one row of `classifier.buckets()` counts per block. Returns the OR and the AND
/// of all keys' bits.
fn par_histogram<K: RadixKey, C: Classifier<K>>(
    data: &[K],
    block_len: usize,
    rows: &mut [usize],
    classifier: C,
) -> (u64, u64) {
    let buckets = classifier.buckets();
    if rows.len() == buckets {
        poll_scheduler();
        let (mut or, mut and) = (0, u64::MAX);
        for &key in data {
            rows[classifier.of(key)] += 1;
            or |= key.bits();
            and &= key.bits();
        }
        return (or, and);
    }
    let mid_rows = rows.len() / buckets / 2;
    let (data_low, data_high) = data.split_at(mid_rows * block_len);
    let (rows_low, rows_high) = rows.split_at_mut(mid_rows * buckets);
    let ((or_low, and_low), (or_high, and_high)) = crate::join(
        || par_histogram(data_low, block_len, rows_low, classifier),
        || par_histogram(data_high, block_len, rows_high, classifier),
    );
    (or_low | or_high, and_low & and_high)
}

/// Scatters each block of `block_len` keys of `data` to `out`, where `par_distribute` gave
/// its row of `rows` the block's first destination index per bucket; through write-combining
/// lines if `through_lines` (and the target has them: x86-64, or Miri, which checks their
/// index arithmetic with plain copies).
fn par_scatter<K: RadixKey, C: Classifier<K>>(
    data: &[K],
    block_len: usize,
    rows: &[usize],
    out: SyncPtr<K>,
    classifier: C,
    through_lines: bool,
) {
    let buckets = classifier.buckets();
    if rows.len() == buckets {
        poll_scheduler();
        if through_lines && cfg!(any(target_arch = "x86_64", miri)) {
            // SAFETY: as for the loop below (the same ranges, each written once).
            unsafe { scatter_through_lines(data, rows, out, classifier) };
            return;
        }
        let mut next = rows.to_vec();
        for &key in data {
            let d = classifier.of(key);
            // SAFETY: `par_histogram` counted, for this very block of `data` (unchanged since:
            // we hold it borrowed) and with the same classifier (a pure function of the key:
            // `Classifier::of` takes the classifier by value and reads no shared state), `c`
            // keys of bucket `d`, and `par_distribute` gave this (block, bucket) the range
            // `next[d]..next[d] + c`, disjoint from every other (block, bucket) range and
            // inside `0..out.len()` (the counts sum to the length of `out`, asserted). So each
            // index is written once, by this thread only, in bounds.
            unsafe { out.write(next[d], key) };
            next[d] += 1;
        }
        return;
    }
    let mid_rows = rows.len() / buckets / 2;
    let (data_low, data_high) = data.split_at(mid_rows * block_len);
    let (rows_low, rows_high) = rows.split_at(mid_rows * buckets);
    crate::join(
        || {
            par_scatter(
                data_low,
                block_len,
                rows_low,
                out,
                classifier,
                through_lines,
            )
        },
        || {
            par_scatter(
                data_high,
                block_len,
                rows_high,
                out,
                classifier,
                through_lines,
            )
        },
    );
}

/// A cache line's worth of keys, staged before it is written out.
#[repr(C, align(64))]
struct Line([MaybeUninit<u8>; 64]);

/// `par_scatter`'s leaf through write-combining lines: the keys of each bucket gather in a
/// 64-byte line of their own (4,096 lines are 256 KiB, in L2), and a line whose bytes all
/// belong to this block's range goes out whole, with non-temporal stores; the partial lines
/// at the ends of a range get plain stores of their keys only (a neighbouring range owns the
/// rest of the line).
///
/// Why: with thousands of buckets, each key stored straight to its destination misses the
/// cache, and the store waits for the line to be read from memory first. Streamed whole lines
/// need no read and leave the cache to the keys. Device (16-core Xeon), 10M random `u64`,
/// best of 7: 124 to 78 ms on 2 cores (rayon 201), 33.5 to 24.5 ms on 16; about 10% on the
/// 2-core AMD development VM.
///
/// # Safety
///
/// As for `par_scatter`'s plain loop: `rows[d]..rows[d] + c_d` (`c_d` the number of keys of
/// `data` in bucket `d`) are disjoint ranges inside `out`, which no one else accesses
/// meanwhile, and `out` is alive.
unsafe fn scatter_through_lines<K: RadixKey, C: Classifier<K>>(
    data: &[K],
    rows: &[usize],
    out: SyncPtr<K>,
    classifier: C,
) {
    let size = mem::size_of::<K>();
    // Key sizes are 1, 2, 4 or 8 bytes: whole keys tile a line.
    debug_assert!(size > 0 && 64 % size == 0);
    let per_line = 64 / size;
    let buckets = classifier.buckets();
    let mut lines: Vec<Line> = Vec::with_capacity(buckets);
    // SAFETY: a `Line` is bytes that may be uninitialised, so any contents are valid; the
    // capacity is `buckets`.
    unsafe { lines.set_len(buckets) };
    let mut next = rows.to_vec();
    // SAFETY: index 0 is at most `out.len()` and `out` is alive (the caller's promise).
    let base = unsafe { out.get(0) }.addr();
    // Where index `i` of `out` falls in its line (`base` is aligned for `K`, so keys never
    // straddle lines).
    let slot_of = |i: usize| (base.wrapping_add(i.wrapping_mul(size)) % 64) / size;
    for &key in data {
        let d = classifier.of(key);
        let i = next[d];
        let slot = slot_of(i);
        let line = &mut lines[d];
        // SAFETY: `slot < per_line`, so the key lies inside the 64-byte line.
        unsafe { line.0.as_mut_ptr().cast::<K>().add(slot).write(key) };
        next[d] = i + 1;
        if slot == per_line - 1 {
            // The line of `out` holding `i` is complete as far as this range goes.
            if i + 1 >= rows[d] + per_line {
                // All of it is in the range: its first index is `i + 1 - per_line`.
                let first = i + 1 - per_line;
                // SAFETY: `first..=i` lies in this (block, bucket) range (which starts at
                // `rows[d]` and now reaches `i`): ours alone and in bounds; its start is
                // 64-byte aligned (slot 0); the line holds this range's keys in every slot.
                unsafe { write_line(line, out.get(first).cast::<u8>()) };
            } else {
                // The range starts inside this line: only slots from `rows[d]` are ours.
                // SAFETY: `rows[d]..=i` lies in the range and in this line, and its keys were
                // staged at their slots; the line and `out` do not overlap.
                unsafe { copy_slots(line, rows[d], i + 1, out, slot_of) };
            }
        }
    }
    // The ranges' last lines, where partial.
    for (d, line) in lines.iter().enumerate() {
        let end = next[d];
        let open = slot_of(end);
        if end == rows[d] || open == 0 {
            // Empty, or its last line went out when its last slot was written.
            continue;
        }
        // The line holding `end - 1` starts `open` indices before `end`, or before the range.
        let from = if end - rows[d] > open {
            end - open
        } else {
            rows[d]
        };
        // SAFETY: `from..end` lies in the range (`end` is one past its last key) and in one
        // line, and its keys were staged at their slots; no overlap.
        unsafe { copy_slots(line, from, end, out, slot_of) };
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: SFENCE has no preconditions (SSE, part of x86-64). Non-temporal stores are not
    // ordered with later stores; the fence puts them before the join that hands `out` to the
    // threads that read it next.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Copies the keys staged in `line` for indices `from..end` of `out` (one line's worth at
/// most) to their places, with plain stores.
///
/// # Safety
///
/// `from..end` lies within one 64-byte line of `out`, in bounds, accessed by no one else; the
/// line's slots for those indices (`slot_of`) hold keys.
#[inline(always)]
unsafe fn copy_slots<K: RadixKey>(
    line: &Line,
    from: usize,
    end: usize,
    out: SyncPtr<K>,
    slot_of: impl Fn(usize) -> usize,
) {
    // SAFETY: by the caller's promise; `slot_of(from) + (end - from) <= 64 / size_of::<K>()`
    // as the indices share a line.
    unsafe {
        ptr::copy_nonoverlapping(
            line.0.as_ptr().cast::<K>().add(slot_of(from)),
            out.get(from),
            end - from,
        )
    };
}

/// Writes `line` to `to` with non-temporal stores (x86-64), or plainly.
///
/// # Safety
///
/// `to` is valid for 64 bytes of writes, 64-byte aligned, and no one else accesses them.
#[inline(always)]
unsafe fn write_line(line: &Line, to: *mut u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        let from = line.0.as_ptr().cast::<__m128i>();
        let to = to.cast::<__m128i>();
        for k in 0..4 {
            // SAFETY: both are 16-byte aligned (the line is 64-byte aligned, `to` too) and
            // valid for these 16 bytes; SSE2 is part of x86-64. The line's bytes may be read
            // uninitialised only where the caller said all 64 were written.
            unsafe { _mm_stream_si128(to.add(k), _mm_load_si128(from.add(k))) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    // SAFETY: valid for 64 bytes each (the caller's promise, and the line's size); distinct.
    unsafe {
        ptr::copy_nonoverlapping(line.0.as_ptr().cast::<u8>(), to, 64)
    };
}

/// Sorts the buckets that `starts` delimits (bucket `b` is `starts[b]..starts[b + 1]`, less
/// `starts[0]`; `data` and `other` cover exactly those buckets), in parallel. The keys of each
/// bucket agree on every bit at or above `varying_below`.
fn par_buckets<K: RadixKey>(
    data: &mut [K],
    other: &mut [K],
    starts: &[usize],
    result_in_other: bool,
    varying_below: u32,
    tuning: &Tuning,
) {
    let base = starts[0];
    let buckets = starts.len() - 1;
    if buckets == 1 || data.len() <= tuning.radix_parallel_below {
        for bounds in starts.windows(2) {
            let range = bounds[0] - base..bounds[1] - base;
            if range.len() > 1 {
                poll_scheduler();
            }
            par_radix(
                &mut data[range.clone()],
                &mut other[range],
                result_in_other,
                varying_below,
                tuning,
            );
        }
        return;
    }
    // Split where the keys, not the buckets, halve: bucket `mid` starts the high half.
    let half = base + data.len() / 2;
    let mid = (1 + starts[1..buckets].partition_point(|&start| start < half)).min(buckets - 1);
    let (data_low, data_high) = data.split_at_mut(starts[mid] - base);
    let (other_low, other_high) = other.split_at_mut(starts[mid] - base);
    let (starts_low, starts_high) = (&starts[..=mid], &starts[mid..]);
    crate::join(
        || {
            par_buckets(
                data_low,
                other_low,
                starts_low,
                result_in_other,
                varying_below,
                tuning,
            )
        },
        || {
            par_buckets(
                data_high,
                other_high,
                starts_high,
                result_in_other,
                varying_below,
                tuning,
            )
        },
    );
}

/// Copies `from` into `to` (same length), in parallel.
pub(super) fn par_copy<K: RadixKey>(from: &[K], to: &mut [K], tuning: &Tuning) {
    // SAFETY: the copy stores only keys (copies of `from`'s).
    par_copy_into(from, unsafe { as_uninit_mut(to) }, false, tuning);
}

/// Copies `from` into `to`, or its reversal if `reverse`, in parallel.
pub(super) fn par_copy_into<K: RadixKey>(
    from: &[K],
    to: &mut [MaybeUninit<K>],
    reverse: bool,
    tuning: &Tuning,
) {
    debug_assert_eq!(from.len(), to.len());
    let len = from.len();
    if len <= tuning.radix_parallel_below {
        poll_scheduler();
        if reverse {
            for (slot, &key) in to.iter_mut().zip(from.iter().rev()) {
                slot.write(key);
            }
        } else {
            for (slot, &key) in to.iter_mut().zip(from) {
                slot.write(key);
            }
        }
        return;
    }
    let mid = len / 2;
    let (to_low, to_high) = to.split_at_mut(mid);
    // Reversed, the front of `to` takes the back of `from`.
    let (from_low, from_high) = if reverse {
        let (high, low) = from.split_at(len - mid);
        (low, high)
    } else {
        from.split_at(mid)
    };
    crate::join(
        || par_copy_into(from_low, to_low, reverse, tuning),
        || par_copy_into(from_high, to_high, reverse, tuning),
    );
}

/// `v` as slots that may hold uninitialised keys.
///
/// # Safety
///
/// The caller must store only initialised keys through the result, so that `v` is still
/// initialised when the borrow ends.
pub(super) unsafe fn as_uninit_mut<K: Copy>(v: &mut [K]) -> &mut [MaybeUninit<K>] {
    // SAFETY: same layout; `K` is `Copy`, so no drop is skipped, and the caller keeps every
    // slot initialised.
    unsafe { &mut *(v as *mut [K] as *mut [MaybeUninit<K>]) }
}

/// `par_radix` for one thread, on at most `u32::MAX` keys.
///
/// The digit is up to 12 bits wide, about `log2(len)` bits: a 4,000-key bucket spreads into
/// 4,096 sub-buckets of about one key each, which costs one pass instead of a further 8-bit
/// pass plus insertion sorts.
fn sequential_radix<K: RadixKey>(
    data: &mut [K],
    other: &mut [K],
    result_in_other: bool,
    tuning: &Tuning,
) {
    let len = data.len();
    debug_assert!(len <= u32::MAX as usize);
    if len <= tuning.radix_small {
        data.sort_unstable_by_key(|k| k.bits());
        if result_in_other {
            other.copy_from_slice(data);
        }
        return;
    }
    let (min, max) = data.iter().fold((u64::MAX, 0), |(min, max), k| {
        (min.min(k.bits()), max.max(k.bits()))
    });
    if min == max {
        if result_in_other {
            other.copy_from_slice(data);
        }
        return;
    }
    // The digit is `(bits - min) >> shift`: it spreads the keys' actual range over the
    // buckets, wherever that range lies (after a value-interpolating pass, a bucket's range
    // need not line up with powers of two; the highest differing bit would then waste up to
    // half the buckets).
    //
    // At least as many buckets as keys up to 8,192 keys (then nearly every bucket holds a few
    // keys at most); above, 8 bits, and the next level finishes. Buckets of ~15 keys left to
    // insertion sort cost twice what std's sort costs (branch mispredictions), measured.
    let width = if len > 8192 {
        8
    } else {
        (usize::BITS - len.leading_zeros()).clamp(4, 12)
    };
    let range_bits = u64::BITS - (max - min).leading_zeros();
    let shift = range_bits.saturating_sub(width);
    let buckets = 1usize << width;
    // Zeroing 16 KiB for a 20-key bucket would cost more than sorting it: size the table.
    let mut small_bounds = [0u32; 256];
    let mut large_bounds;
    let bounds: &mut [u32] = if buckets <= 256 {
        &mut small_bounds[..buckets]
    } else {
        large_bounds = [0u32; 4096];
        &mut large_bounds[..buckets]
    };
    // `(bits - min) >> shift <= (max - min) >> shift < 2^width`: in bounds (checked anyway).
    let digit = |key: K| ((key.bits() - min) >> shift) as usize;
    for &key in data.iter() {
        bounds[digit(key)] += 1;
    }
    let mut next = 0;
    let mut largest = 0;
    for bound in bounds.iter_mut() {
        let count = *bound;
        *bound = next;
        next += count;
        largest = largest.max(count);
    }
    if largest <= FIXUP_BUCKET_MAX && (STACK_SCATTER_MIN..=STACK_SCATTER_MAX).contains(&len) {
        scatter_on_stack(data, other, result_in_other, bounds, digit);
        return;
    }
    for &key in data.iter() {
        let d = digit(key);
        // Indexing is checked: the compiler cannot see `bounds[d] < len`.
        other[bounds[d] as usize] = key;
        bounds[d] += 1;
    }
    if largest <= FIXUP_BUCKET_MAX {
        // Nearly every bucket holds 0 or 1 key: `other` is sorted but for a few tiny buckets.
        // One insertion sort over all of it fixes those (its inner loop runs only inside a
        // bucket), which is cheaper than visiting every bucket with unpredictable branches.
        insertion_sort_nearly_sorted(other);
        if !result_in_other {
            data.copy_from_slice(other);
        }
        return;
    }
    // Now `bounds[d]` is the end of bucket `d`. Within a bucket the keys' range is below
    // `2^shift`, so the recursion is at most 64 / 4 deep, and in practice 2 or 3.
    let mut start = 0;
    for &end in bounds.iter() {
        let range = start..end as usize;
        start = end as usize;
        match range.len() {
            0 => {}
            1 => {
                if !result_in_other {
                    data[range.start] = other[range.start];
                }
            }
            _ => sequential_radix(
                &mut other[range.clone()],
                &mut data[range],
                !result_in_other,
                tuning,
            ),
        }
    }
}

/// `sequential_radix`'s last level on this many keys scatters on the stack. Below the
/// minimum, the destination was usually written just before (by the level above, on the same
/// thread) and is still in cache; touching a 64 KiB stack frame would cost more.
const STACK_SCATTER_MIN: usize = 512;
const STACK_SCATTER_MAX: usize = 8192;

/// The last level of `sequential_radix` (buckets of at most `FIXUP_BUCKET_MAX` keys, which
/// one insertion sort finishes; `bounds` holds their starts): scatters `data` into a buffer on
/// the stack, sorts it there and copies it to `other` if `result_in_other`, else to `data`.
///
/// Why the stack: the destination slice was last touched a whole pass over memory ago (the
/// parallel scatter's), so every key stored into it at random would miss the cache and wait
/// for its line. The stack buffer is in cache, and the final copy writes memory in order,
/// which the hardware prefetches. Measured on 10M random `u64`, 2 cores: about 12% less time
/// in this function, a few percent of the whole sort.
#[inline(never)]
fn scatter_on_stack<K: RadixKey>(
    data: &mut [K],
    other: &mut [K],
    result_in_other: bool,
    bounds: &mut [u32],
    digit: impl Fn(K) -> usize,
) {
    let len = data.len();
    let mut buffer = [MaybeUninit::<K>::uninit(); STACK_SCATTER_MAX];
    let buffer = &mut buffer[..len];
    for &key in data.iter() {
        let d = digit(key);
        // Indexing is checked, as in `sequential_radix`.
        buffer[bounds[d] as usize].write(key);
        bounds[d] += 1;
    }
    // SAFETY: every slot of `buffer` is written: the counts in `bounds` came from the same
    // keys with the same digit, so bucket `d`'s range `start..start + count` receives exactly
    // `count` keys, and the ranges tile `0..len`. Keys are `Copy`, so nothing needs dropping.
    let sorted = unsafe { &mut *(buffer as *mut [MaybeUninit<K>] as *mut [K]) };
    insertion_sort_nearly_sorted(sorted);
    if result_in_other {
        other.copy_from_slice(sorted);
    } else {
        data.copy_from_slice(sorted);
    }
}

/// Buckets of at most this many keys are left to `insertion_sort_nearly_sorted`: each key then
/// moves past at most this many others.
const FIXUP_BUCKET_MAX: u32 = 16;

/// Insertion sort, fast when every key is at most a few places from its sorted position.
fn insertion_sort_nearly_sorted<K: RadixKey>(v: &mut [K]) {
    for i in 1..v.len() {
        let key = v[i];
        let mut j = i;
        while j > 0 && key.bits() < v[j - 1].bits() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `par_radix` on its own (no run, counting or interpolation path before it), with tiny
    /// thresholds so that small inputs take the parallel passes.
    fn par_radix_sorted<K: RadixKey>(mut keys: Vec<K>) -> Vec<K> {
        let tuning = Tuning {
            radix_parallel_below: 8,
            radix_small: 3,
            ..Tuning::DEFAULT
        };
        let mut other = keys.clone();
        par_radix(&mut keys, &mut other, false, u64::BITS, &tuning);
        keys
    }

    #[test]
    fn first_pass_by_a_sample_sorts_and_progresses_when_the_sample_misses() {
        let len = if cfg!(miri) { 2_000 } else { 100_000 };
        // All keys equal but three, none where the sample looks: the sample's range is one
        // value, so every key but those shares one bucket; each pass must still split.
        let sampled: std::collections::HashSet<usize> = sample_positions(len, 1024).collect();
        let unseen: Vec<usize> = (0..len)
            .filter(|i| !sampled.contains(i))
            .step_by(97)
            .collect();
        let mut keys = vec![7u64; len];
        keys[unseen[0]] = u64::MAX;
        keys[unseen[1]] = 0;
        keys[unseen[2]] = 8;
        let mut expected = keys.clone();
        expected.sort_unstable();
        assert_eq!(par_radix_sorted(keys), expected);
        // Signed keys on both sides of zero, and keys whose high bits never differ (shorter
        // under Miri: the sample sees every key of those, which changes nothing here).
        let len = if cfg!(miri) { 400 } else { len };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let signed: Vec<i64> = (0..len).map(|_| (next() as i64) >> 40).collect();
        let mut expected = signed.clone();
        expected.sort_unstable();
        assert_eq!(par_radix_sorted(signed), expected);
        let narrow: Vec<u64> = (0..len).map(|_| (1 << 40) + (next() >> 44)).collect();
        let mut expected = narrow.clone();
        expected.sort_unstable();
        assert_eq!(par_radix_sorted(narrow), expected);
    }

    /// Scatters `keys` by their low byte, in blocks of `block_len`, into `out[offset..]`, with
    /// or without write-combining lines.
    fn scatter<K: RadixKey>(
        keys: &[K],
        block_len: usize,
        offset: usize,
        through_lines: bool,
    ) -> Vec<K> {
        let digit = Digit::below(8, 8);
        let buckets = Classifier::<K>::buckets(digit);
        let mut offsets = vec![0usize; keys.len().div_ceil(block_len) * buckets];
        par_histogram(keys, block_len, &mut offsets, digit);
        let mut out = vec![keys[0]; offset + keys.len()];
        let tuning = Tuning {
            radix_lines_from_keys_per_bucket: if through_lines { 0 } else { usize::MAX },
            ..Tuning::DEFAULT
        };
        par_distribute(
            keys,
            &mut out[offset..],
            block_len,
            &mut offsets,
            digit,
            &tuning,
        );
        out.split_off(offset)
    }

    fn check<K: RadixKey + PartialEq + std::fmt::Debug>(from_u64: impl Fn(u64) -> K) {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        // Miri runs a few hundred of these scatters per minute: there, one length, two block
        // lengths and three misalignments (the 256-bucket histogram dominates the cost).
        let (lens, offsets): (&[usize], &[usize]) = if cfg!(miri) {
            (&[70], &[0, 1, 5])
        } else {
            (&[1, 9, 70, 1000, 5000], &[0, 1, 2, 3, 4, 5, 6, 7, 8])
        };
        for &len in lens {
            let keys: Vec<K> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Few buckets, so that lines fill and ranges share lines.
                    from_u64(state % 5 * 37 + (state >> 40) % 3)
                })
                .collect();
            let block_lens: &[usize] = if cfg!(miri) {
                &[7, len]
            } else {
                &[1, 7, len.div_ceil(2), len]
            };
            for &block_len in block_lens {
                // Offsets move `out[offset]` across a line's slots.
                for &offset in offsets {
                    assert_eq!(
                        scatter(&keys, block_len, offset, true),
                        scatter(&keys, block_len, offset, false),
                        "{} keys, blocks of {block_len}, offset {offset}",
                        len
                    );
                }
            }
        }
    }

    #[test]
    fn line_scatter_matches_plain_scatter() {
        check(|x| x);
        check(|x| x as u16);
        if !cfg!(miri) {
            check(|x| x as u32);
            check(|x| x as u8);
        }
    }
}
