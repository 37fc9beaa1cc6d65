//! Counting sort for primitive keys with few distinct values.
//!
//! Equal primitive keys are bit-identical (a requirement of [`RadixKey`]), so a sorted slice
//! of them is fully described by its distinct values and how often each occurs: count them,
//! then overwrite the slice with runs. That is one parallel read pass (hash-table counting)
//! and one parallel write pass, with no scratch buffer, against a radix sort's histogram,
//! scatter, bucket and copy passes, or the ten-odd partitioning passes a quicksort makes over
//! a thousand distinct values.
//!
//! Whether it applies is guessed from a sample: `try_counting_sort` hashes a few thousand keys
//! at pseudo-random positions and goes ahead only if they hold few distinct values (at most a
//! quarter of the sample; random keys stop the sampling a quarter of the way in). The guess
//! can be wrong (rare values the sample missed); each block of the counting pass then stops
//! as soon as its own table holds more distinct keys than the sample suggested, and the caller
//! falls back to the radix sort, having lost at most part of one read pass.
//!
//! All of this is safe code: the blocks only read the slice, and the fill writes disjoint
//! subslices handed out by `split_at_mut`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::key::RadixKey;
use super::radix_parts::{radix_block_len, sample_positions};
use super::thresholds::{poll_scheduler, Tuning};

/// The sample is this many keys at most, and at most an eighth of the slice.
const SAMPLE_MAX: usize = 8192;

/// Counts distinct keys in a fixed-size open-addressing table (linear probing; a zero count
/// marks an empty slot).
struct Table<K> {
    keys: Vec<K>,
    counts: Vec<usize>,
    /// `slots - 1`; `slots` is a power of two.
    mask: usize,
    /// `64 - log2(slots)`: the hash is the top bits of a multiplicative hash.
    shift: u32,
    distinct: usize,
    /// More distinct keys than this and `add` refuses.
    limit: usize,
}

impl<K: RadixKey> Table<K> {
    /// A table for up to `limit` distinct keys, at most half full; `filler` is any key (it
    /// only initialises empty slots).
    fn new(limit: usize, filler: K) -> Table<K> {
        let slots = (2 * limit.max(1)).next_power_of_two();
        Table {
            keys: vec![filler; slots],
            counts: vec![0; slots],
            mask: slots - 1,
            shift: u64::BITS - slots.trailing_zeros(),
            distinct: 0,
            limit,
        }
    }

    /// Counts one more `key`; `false` (and nothing counted) if that would exceed the limit.
    #[inline(always)]
    fn add(&mut self, key: K) -> bool {
        let bits = key.bits();
        // Fibonacci hashing: the top bits of the product depend on every bit of the key. A
        // shift by 64 cannot happen: there are at least 2 slots.
        let mut slot = (bits.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            if self.counts[slot] == 0 {
                if self.distinct == self.limit {
                    return false;
                }
                self.distinct += 1;
                self.keys[slot] = key;
                self.counts[slot] = 1;
                return true;
            }
            if self.keys[slot].bits() == bits {
                self.counts[slot] += 1;
                return true;
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The occupied slots, as (key, count) pairs in no particular order.
    fn into_counts(self) -> Vec<(K, usize)> {
        self.keys
            .into_iter()
            .zip(self.counts)
            .filter(|&(_, count)| count > 0)
            .collect()
    }
}

/// Sorts `v` by counting if a sample says it holds few distinct values and the count confirms
/// it; returns whether it did (if not, `v` is unchanged).
pub(super) fn try_counting_sort<K: RadixKey>(v: &mut [K], tuning: &Tuning) -> bool {
    let len = v.len();
    if len < 2 {
        return false;
    }
    let Some(sampled) = sample_distinct(v) else {
        return false;
    };
    // The sample saw `sampled` values; allow for some it missed before giving up.
    let limit = 2 * sampled + 64;
    let block_len = radix_block_len(len, tuning);
    let abort = AtomicBool::new(false);
    let Some(mut counts) = par_count(v, block_len, limit, &abort) else {
        return false;
    };
    // Merge the blocks' tables: sort by key, add up equal keys, and turn counts into the end
    // index of each key's run.
    counts.sort_unstable_by_key(|&(key, _)| key.bits());
    let mut runs: Vec<(K, usize)> = Vec::with_capacity(counts.len());
    let mut end = 0;
    for (key, count) in counts {
        end += count;
        match runs.last_mut() {
            Some(last) if last.0.bits() == key.bits() => last.1 = end,
            _ => runs.push((key, end)),
        }
    }
    assert_eq!(end, len, "counting sort lost keys");
    // The same limit for the whole slice as for each block: otherwise the decision would
    // depend on the block length, which the thread count sets (with 32 threads, blocks of a
    // skewed input each held few distinct keys while the whole held thousands). `v` is still
    // untouched.
    if runs.len() > limit {
        return false;
    }
    par_fill(v, 0, &runs, tuning);
    true
}

/// The number of distinct keys among a sample of `v`, if it is at most a quarter of the
/// sample; `None` as soon as it exceeds that.
fn sample_distinct<K: RadixKey>(v: &[K]) -> Option<usize> {
    let len = v.len();
    let samples = (len / 8).clamp(1, SAMPLE_MAX);
    let limit = samples / 4;
    if limit == 0 {
        return None;
    }
    let mut table = Table::new(limit, v[0]);
    for index in sample_positions(len, samples) {
        if !table.add(v[index]) {
            return None;
        }
    }
    Some(table.distinct)
}

/// Counts the keys of `v` in blocks of `block_len`, in parallel; `None` if some block holds
/// more than `limit` distinct keys (then every block stops early, through `abort`).
fn par_count<K: RadixKey>(
    v: &[K],
    block_len: usize,
    limit: usize,
    abort: &AtomicBool,
) -> Option<Vec<(K, usize)>> {
    if v.len() <= block_len {
        poll_scheduler();
        let mut table = Table::new(limit, v[0]);
        for chunk in v.chunks(4096) {
            if abort.load(Relaxed) {
                return None;
            }
            for &key in chunk {
                if !table.add(key) {
                    abort.store(true, Relaxed);
                    return None;
                }
            }
        }
        return Some(table.into_counts());
    }
    let blocks = v.len().div_ceil(block_len);
    let (low, high) = v.split_at(blocks / 2 * block_len);
    let (low, high) = crate::join(
        || par_count(low, block_len, limit, abort),
        || par_count(high, block_len, limit, abort),
    );
    let mut low = low?;
    low.extend(high?);
    Some(low)
}

/// Writes the sorted keys into `v`, which is `offset..offset + v.len()` of the whole slice:
/// `runs` lists each distinct key with the end index of its run, in order.
fn par_fill<K: RadixKey>(v: &mut [K], offset: usize, runs: &[(K, usize)], tuning: &Tuning) {
    if v.len() <= tuning.radix_parallel_below.max(1) {
        poll_scheduler();
        // The first run that ends after `offset` covers `offset`.
        let first = runs.partition_point(|&(_, end)| end <= offset);
        let mut start = 0;
        for &(key, end) in &runs[first..] {
            let end = (end - offset).min(v.len());
            v[start..end].fill(key);
            start = end;
            if end == v.len() {
                break;
            }
        }
        return;
    }
    let mid = v.len() / 2;
    let (low, high) = v.split_at_mut(mid);
    crate::join(
        || par_fill(low, offset, runs, tuning),
        || par_fill(high, offset + mid, runs, tuning),
    );
}
