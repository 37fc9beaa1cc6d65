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

use std::mem::MaybeUninit;

use super::key::{cast_slice_mut, cast_value, is_fn_item, is_type, RadixKey};
use super::presorted::{try_par_reverse_descending, FEW_RUNS};
use super::thresholds::{poll_scheduler, Tuning};

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

/// For floats: an [`Interpolation`] over the range of a sample of `v`, with `buckets` buckets (a
/// power of two, at least 64), if it spreads the sample evenly (no sixty-fourth of the
/// buckets holds more than about four times its share of the sample). `None` for integers, for
/// ranges too wide for `f64` arithmetic, and for skewed values (exponentially distributed,
/// say), which the highest differing bits (the exponent first) spread better.
pub(super) fn fit_interpolation<K: RadixKey>(v: &[K], buckets: usize) -> Option<Interpolation> {
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
    debug_assert!(buckets.is_power_of_two() && buckets >= 64);
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

/// A digit: `width` bits of a key's `bits()`, starting at bit `shift`.
#[derive(Clone, Copy)]
pub(super) struct Digit {
    shift: u32,
    mask: u64,
}

impl Digit {
    /// The digit of `width` bits whose highest bit is the highest bit in `differing`.
    pub(super) fn highest(differing: u64, width: u32) -> Digit {
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
pub(super) trait Classifier<K>: Copy + Sync {
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
pub(super) struct Offset {
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
    pub(super) fn of_sample<K: RadixKey>(data: &[K], width: u32) -> Offset {
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

/// The length of the blocks of a parallel pass over `len` keys (finding runs, counting): a few
/// per thread, and not so short that a block costs less than scheduling it.
pub(super) fn radix_block_len(len: usize, tuning: &Tuning) -> usize {
    let threads = crate::current_num_threads().max(1);
    len.div_ceil(threads * tuning.radix_blocks_per_thread)
        .max(tuning.radix_parallel_below / 4)
        .max(1)
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
