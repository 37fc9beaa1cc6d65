//! The radix sort on one thread, which finishes buckets small enough to sort in cache.

use std::mem::MaybeUninit;

use super::key::RadixKey;
use super::thresholds::Tuning;

/// The radix sort on one thread, with `other` (as long as `data`) as scratch; the sorted keys
/// end up in `other` if `result_in_other`, else in `data`. At most `u32::MAX` keys.
///
/// The digit is up to 12 bits wide, about `log2(len)` bits: a 4,000-key bucket spreads into
/// 4,096 sub-buckets of about one key each, which costs one pass instead of a further 8-bit
/// pass plus insertion sorts.
pub(super) fn sequential_radix<K: RadixKey>(
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
    // keys at most); above, enough buckets (up to 256) to leave about 2,048 keys in each, which
    // the next level finishes in one pass on the stack (`scatter_on_stack`). Buckets of ~15
    // keys left to insertion sort cost twice what std's sort costs (branch mispredictions),
    // measured. Against 8 bits above 8,192 keys (buckets of a few dozen keys, each a pass with
    // a 256-entry table of its own), 2-core VM, medians of 15 (50M: 5) warm sorts of random
    // `u64`: 10M keys, in-place passes (39K-key leaves), 48 to 44 ms; 50M keys, the
    // out-of-place passes since replaced (12K-key leaves), 334-367 to 258-281 ms.
    let width = if len > 8192 {
        (usize::BITS - (len / 2048).leading_zeros()).clamp(1, 8)
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
