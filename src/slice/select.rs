//! `par_select_nth_unstable` and its `_by` / `_by_key` forms: std's `select_nth_unstable`,
//! with each round's partition in parallel.
//!
//! A round (Floyd and Rivest's "SELECT", CACM 1975, with a parallel partition):
//! 1. Sample: move `s ≈ 2·sqrt(n)` elements chosen at random to the front (a partial
//!    Fisher-Yates shuffle, by swaps) and sort them with std's `sort_unstable_by`.
//! 2. Pivots: `lo` and `hi` are the sample elements about `1.5·sqrt(s)` ranks (three standard
//!    deviations of the sample rank) below and above the rank `k·s/n` that `k` maps to, so the
//!    `k`-th element lies between them with high probability, among a few percent of the
//!    elements.
//! 3. Partition: the rest is cut into blocks, and each block is partitioned in parallel, by
//!    the sorts' block partition (`sort::quick::partition`, twice), into `< lo`, between, and
//!    `> hi`. The sample's classes are recorded first.
//! 4. Scatter: every block's three parts are copied to their places in a scratch buffer (at
//!    offsets from prefix sums of the counts), in parallel, and copied back in parallel: the
//!    slice is then `[< lo | between | > hi]`.
//! 5. The round continues in the part that holds `k`. If that is the middle and `lo == hi`,
//!    all of it equals the `k`-th element: done. A round that made no progress (every element
//!    between two distinct pivots) uses one pivot next (`lo == hi`), which always does.
//!
//! Parts below `SEQUENTIAL_LEN`, and any part after `MAX_ROUNDS` rounds, go to std's
//! `select_nth_unstable_by` (worst case `O(n)`).
//!
//! The pivots are shared by the threads partitioning the blocks, so `T: Sync` (the sorts'
//! quicksort avoids that bound by partitioning on one thread; here that would leave nothing
//! parallel).
//!
//! Panic safety: user code (the comparator) runs only in steps 1 to 3, where elements move by
//! swaps inside the slice, so a panic leaves the slice a permutation of its input; the copies
//! of step 4 call nothing. The scratch buffer never owns an element (its length stays 0).

use super::sort::quick::partition;
use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::slice::ParallelSliceMut;
use std::cmp::Ordering;
use std::ptr;

/// Slices (and parts) shorter than this go to std: about a quarter of a millisecond of work.
const SEQUENTIAL_LEN: usize = 1 << 16;

/// Rounds before the rest goes to std whatever its length; a round shrinks the part to a few
/// percent unless the sample misled it, so this is reached only on adversarial luck.
const MAX_ROUNDS: u32 = 12;

/// The largest sample: its sort runs on one thread.
const MAX_SAMPLE: usize = 1 << 14;

/// Std's `select_nth_unstable_by`'s contract, in parallel.
pub(super) fn select_nth_unstable_by<'a, T, F>(
    v: &'a mut [T],
    k: usize,
    compare: &F,
) -> (&'a mut [T], &'a mut T, &'a mut [T])
where
    T: Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if k >= v.len() || v.len() < SEQUENTIAL_LEN || crate::current_num_threads() == 1 {
        // Std's panic for `k >= len`, and std's work for short slices.
        return v.select_nth_unstable_by(k, compare);
    }
    {
        let v = &mut *v;
        crate::scheduler::in_pool(|| select_in_place(v, k, compare, SEQUENTIAL_LEN));
    }
    let (left, rest) = v.split_at_mut(k);
    let (nth, right) = rest.split_first_mut().expect("k < len");
    (left, nth, right)
}

/// A step of splitmix64: the sample positions need only be spread and independent of the
/// input's order.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A pointer into a slice or a scratch buffer that parallel blocks share; each touches its
/// own slots or ranges (step 4 here; `par_shuffle`'s moves).
pub(super) struct SharedPtr<T>(pub(super) *mut T);

impl<T> Clone for SharedPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SharedPtr<T> {}

impl<T> SharedPtr<T> {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not its field).
    pub(super) fn get(self) -> *mut T {
        self.0
    }
}

// SAFETY: used to move `T`s between threads, each range by one thread (`T: Send`).
unsafe impl<T: Send> Send for SharedPtr<T> {}
// SAFETY: as for `Send`: the threads sharing it touch disjoint ranges.
unsafe impl<T: Send> Sync for SharedPtr<T> {}

/// Puts the `k`-th smallest element of `v` at `v[k]`, the smaller ones before it and the
/// larger ones after it. `k < v.len()`; parts shorter than `sequential_len` go to std.
fn select_in_place<T, F>(v: &mut [T], k: usize, compare: &F, sequential_len: usize)
where
    T: Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let mut scratch: Vec<T> = Vec::with_capacity(v.len());
    let mut v = v;
    let mut k = k;
    let mut single_pivot = false;
    let mut random = (v.len() as u64) ^ (k as u64).rotate_left(32);
    let threads = crate::current_num_threads();
    for _ in 0..MAX_ROUNDS {
        let n = v.len();
        if n < sequential_len.max(16) {
            break;
        }
        // 1. The sample.
        let s = (2 * n.isqrt()).clamp(4, MAX_SAMPLE).min(n / 2);
        for t in 0..s {
            let j = t + (next_random(&mut random) % (n - t) as u64) as usize;
            v.swap(t, j);
        }
        let (sample, rest) = v.split_at_mut(s);
        sample.sort_unstable_by(compare);
        let sample: &[T] = sample;
        // 2. The pivots.
        let target = (k as u128 * s as u128 / n as u128) as usize;
        let gap = if single_pivot {
            0
        } else {
            (3 * s.isqrt()).div_ceil(2)
        };
        let lo = &sample[target.saturating_sub(gap)];
        let hi = &sample[(target + gap).min(s - 1)];
        let pivots_equal = compare(lo, hi) == Ordering::Equal;
        let class = |x: &T| -> u8 {
            if compare(x, lo) == Ordering::Less {
                0
            } else if compare(hi, x) == Ordering::Less {
                2
            } else {
                1
            }
        };
        // 3. The classes of the sample, then the parallel partition of the rest.
        let sample_classes: Vec<u8> = sample.iter().map(class).collect();
        let block = rest.len().div_ceil(threads * 4).max(1 << 14);
        let counts: Vec<[usize; 3]> = rest
            .par_chunks_mut(block)
            .map(|chunk| {
                let less = partition(chunk, |x| compare(x, lo) == Ordering::Less);
                let between = partition(&mut chunk[less..], |x| compare(hi, x) != Ordering::Less);
                [less, between, chunk.len() - less - between]
            })
            .collect();
        // 4. The scatter: no user code from here to the end of the round.
        let mut totals = [0usize; 3];
        for &c in &sample_classes {
            totals[usize::from(c)] += 1;
        }
        for c in &counts {
            for part in 0..3 {
                totals[part] += c[part];
            }
        }
        let region_start = [0, totals[0], totals[0] + totals[1]];
        scatter(
            v,
            &mut scratch,
            s,
            &sample_classes,
            &counts,
            block,
            region_start,
        );
        // 5. The part that holds `k`.
        let before = v;
        if k < totals[0] {
            v = &mut before[..totals[0]];
        } else if k >= region_start[2] {
            v = &mut before[region_start[2]..];
            k -= region_start[2];
        } else if pivots_equal {
            return;
        } else {
            v = &mut before[region_start[1]..region_start[2]];
            k -= region_start[1];
        }
        single_pivot = v.len() == n;
    }
    v.select_nth_unstable_by(k, compare);
}

/// Step 4: moves the sample (`v[..s]`, classes in `sample_classes`) and the partitioned
/// blocks of `v[s..]` (`block` long, parts `counts`) so that class `c` fills
/// `v[region_start[c]..]`, in parallel through `scratch`.
fn scatter<T: Send>(
    v: &mut [T],
    scratch: &mut Vec<T>,
    s: usize,
    sample_classes: &[u8],
    counts: &[[usize; 3]],
    block: usize,
    region_start: [usize; 3],
) {
    let n = v.len();
    debug_assert!(scratch.is_empty() && scratch.capacity() >= n);
    // Where every block's parts go: block 0 of `counts` comes after the sample in each region.
    let mut next = region_start;
    for &c in sample_classes {
        next[usize::from(c)] += 1;
    }
    let mut offsets = Vec::with_capacity(counts.len());
    for c in counts {
        offsets.push(next);
        for part in 0..3 {
            next[part] += c[part];
        }
    }
    let from = SharedPtr(v.as_mut_ptr());
    let to = SharedPtr(scratch.as_mut_ptr());
    // The sample, element by element (it is short).
    let mut sample_next = region_start;
    for (t, &c) in sample_classes.iter().enumerate() {
        let at = &mut sample_next[usize::from(c)];
        // SAFETY: `t < s <= n`; `*at` runs over the sample's own slots of its class's
        // region, inside `..n <= capacity`, which no block writes.
        unsafe { ptr::copy_nonoverlapping(from.0.add(t), to.0.add(*at), 1) };
        *at += 1;
    }
    (0..counts.len()).into_par_iter().for_each(|b| {
        let (from, to) = (from, to);
        let start = s + b * block;
        let mut read = start;
        for part in 0..3 {
            let len = counts[b][part];
            // SAFETY: block `b`'s part `part` is `v[read..read + len]`; its place in the
            // scratch buffer, `offsets[b][part]..+len`, is its own (the offsets are prefix
            // sums of the parts' lengths), inside the capacity `>= n`.
            unsafe { ptr::copy_nonoverlapping(from.0.add(read), to.0.add(offsets[b][part]), len) };
            read += len;
        }
    });
    // Back into the slice, in parallel chunks. Every slot of `..n` in the scratch buffer was
    // written once, so `v` again holds each element once; the scratch buffer's length stays
    // 0, so it never drops them.
    let chunk = n.div_ceil(crate::current_num_threads() * 4).max(1 << 16);
    v.par_chunks_mut(chunk).enumerate().for_each(|(i, out)| {
        // SAFETY: scratch slots `i * chunk..+out.len()` are initialised (above) and read by
        // this chunk only; `out` is a distinct allocation.
        unsafe { ptr::copy_nonoverlapping(to.get().add(i * chunk), out.as_mut_ptr(), out.len()) };
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    fn check(input: &[u32], k: usize, sequential_len: usize) {
        let mut got = input.to_vec();
        select_in_place(&mut got, k, &u32::cmp, sequential_len);
        let mut sorted = input.to_vec();
        sorted.sort_unstable();
        assert_eq!(got[k], sorted[k], "k {k}");
        assert!(got[..k].iter().all(|x| *x <= got[k]));
        assert!(got[k + 1..].iter().all(|x| *x >= got[k]));
        got.sort_unstable();
        assert_eq!(got, sorted, "not a permutation");
    }

    #[test]
    fn small_parts_agree_with_std() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            let mut random = 1u64;
            // Under Miri (an interpreter), lengths that still take several rounds of the
            // parallel partition (the threshold is 16) but finish in seconds.
            let lens: &[usize] = if cfg!(miri) {
                &[17, 40, 120]
            } else {
                &[17, 40, 100, 1000, 5000]
            };
            for &len in lens {
                for modulus in [1u64, 2, 3, 10, 1 << 40] {
                    let input: Vec<u32> = (0..len)
                        .map(|_| (next_random(&mut random) % modulus) as u32)
                        .collect();
                    for k in [0, 1, len / 3, len / 2, len - 2, len - 1] {
                        check(&input, k, 16);
                    }
                }
                let sorted: Vec<u32> = (0..len as u32).collect();
                check(&sorted, len / 2, 16);
                let reversed: Vec<u32> = (0..len as u32).rev().collect();
                check(&reversed, len / 4, 16);
            }
        });
    }
}
