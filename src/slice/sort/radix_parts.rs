//! What the radix passes share (sequential, in place, counting, runs): samples, the
//! classifiers that put keys into buckets ([`Digit`], [`Offset`], [`Interpolation`]), block
//! lengths and parallel copies.

use std::mem::MaybeUninit;

use super::key::RadixKey;
use super::thresholds::{poll_scheduler, Tuning};

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
