//! `par_shuffle` (feature `rand`): a uniform random permutation of a slice, in parallel, that
//! depends only on a seed drawn from the caller's RNG and on the length, never on the number
//! of threads.
//!
//! The algorithm (ParlayLib's `random_shuffle` in outline; Sanders, "Random permutations on
//! distributed, external and hierarchical memory", IPL 1998):
//!
//! 1. Every element draws a bucket, uniform in `0..B`, from a generator seeded by the seed
//!    and the number of its fixed-size block (blocks of [`BLOCK`] elements, so the draws do not
//!    depend on how the work is split). `B` is a power of two chosen from the length and the
//!    element size alone, about one bucket per [`BUCKET_BYTES`], so a bucket fits in the L2
//!    cache (256 buckets for 10M `u64`, as ParlayLib: few buckets keep the scatter's write
//!    streams few).
//! 2. A stable counting sort moves the elements into the buckets' ranges of a scratch buffer
//!    (per-block histograms, offsets by a prefix sum, a parallel scatter).
//! 3. Each bucket moves back from the scratch buffer into its range of the slice in a uniform
//!    random order (the "inside-out" form of Fisher-Yates), with a generator seeded by the
//!    seed and the bucket's number, all buckets at once: the move back and the shuffle are one
//!    pass, the bucket's range of the slice staying in the cache.
//!
//! Uniform: the buckets are independent uniform draws and each bucket's order a uniform
//! permutation, so a given output arises with probability
//! `sum over bucket sizes (n_1..n_B) of B^-n * multinomial(n; n_1..n_B) * prod 1/n_b! = 1/n!`.
//! The generators are `Xoshiro256PlusPlus` (rand's, a fixed algorithm) seeded through
//! `seed_from_u64`; bounded integers use Lemire's method with rejection, which is exact.
//!
//! Slices under [`SEQUENTIAL_LEN`] are shuffled by Fisher-Yates on the calling thread, with the
//! same generators (a function of the seed and the length too).
//!
//! Unsafe code: steps 2 and 3 move elements bitwise into the scratch buffer and back. No user code
//! runs in between (a move is a copy of bytes; the generators are ours), so nothing can
//! unwind while an element lives only in the scratch buffer.

use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::slice::select::SharedPtr;
use crate::slice::sort::scratch::Scratch;
use crate::slice::ParallelSliceMut;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use std::ptr;

/// Below this length Fisher-Yates on the calling thread is faster than waking threads.
const SEQUENTIAL_LEN: usize = if cfg!(miri) { 64 } else { 1 << 15 };

/// Elements per block of bucket draws and of the counting sort's histograms.
const BLOCK: usize = if cfg!(miri) { 16 } else { 1 << 16 };

/// Bytes per bucket, at least (up to twice that): a bucket's range then stays in a 512 KiB L2
/// cache while it is shuffled.
const BUCKET_BYTES: usize = if cfg!(miri) { 64 } else { 1 << 18 };

/// The most buckets: a bucket's number fits in a `u16`.
const MAX_BUCKETS: usize = 1 << 16;

/// The generator of one stream (`stream` 0: bucket draws of a block; 1: a bucket's
/// Fisher-Yates; 2: the sequential path), mixed so that nearby seeds and numbers give
/// unrelated streams.
fn generator(seed: u64, stream: u64, number: u64) -> Xoshiro256PlusPlus {
    let mut x = seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ number;
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    Xoshiro256PlusPlus::seed_from_u64(x ^ (x >> 31))
}

/// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift with rejection.
fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

/// Fisher-Yates (Durstenfeld's form) of `v`.
fn fisher_yates<T>(v: &mut [T], rng: &mut Xoshiro256PlusPlus) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// Shuffles `v` by the module's algorithm with `seed`.
pub(super) fn shuffle<T: Send>(v: &mut [T], seed: u64) {
    if v.len() < SEQUENTIAL_LEN || std::mem::size_of::<T>() == 0 {
        // Every order of zero-sized values looks the same; draw anyway for a uniform rule.
        fisher_yates(v, &mut generator(seed, 2, v.len() as u64));
        return;
    }
    let bytes = v.len().saturating_mul(std::mem::size_of::<T>());
    let buckets = 1 << (bytes / BUCKET_BYTES).max(1).ilog2();
    shuffle_in_buckets(v, seed, buckets.min(MAX_BUCKETS));
}

/// Steps 1 to 3 with `buckets` buckets (a power of two).
fn shuffle_in_buckets<T: Send>(v: &mut [T], seed: u64, buckets: usize) {
    assert!(buckets.is_power_of_two() && buckets <= MAX_BUCKETS);
    let n = v.len();
    let shift = 64 - buckets.trailing_zeros();
    // Step 1: each element's bucket, and each block's histogram.
    let mut bucket_of = vec![0u16; n];
    let histograms: Vec<Vec<usize>> = bucket_of
        .par_chunks_mut(BLOCK)
        .enumerate()
        .map(|(block, ids)| {
            let mut rng = generator(seed, 0, block as u64);
            let mut counts = vec![0usize; buckets];
            for id in ids.iter_mut() {
                // The top bits of a draw: uniform in `0..buckets` (a power of two); a shift by
                // 64 (one bucket) is avoided by `checked_shr`.
                let b = rng.next_u64().checked_shr(shift).unwrap_or(0) as usize;
                *id = b as u16;
                counts[b] += 1;
            }
            counts
        })
        .collect();
    // Where each block's elements of each bucket go: buckets in order, blocks in order
    // within a bucket (a stable counting sort).
    let mut offsets = histograms;
    let mut next = 0;
    for b in 0..buckets {
        for block in offsets.iter_mut() {
            let count = block[b];
            block[b] = next;
            next += count;
        }
    }
    // Block 0 comes first in every bucket: its offsets are where the buckets start.
    let mut starts: Vec<usize> = offsets.first().cloned().unwrap_or_default();
    starts.push(n);

    // Step 2: scatter into the scratch buffer.
    // The sorts' scratch buffer: huge pages, and the mapping of the call before reused, so
    // that calls back to back do not fault the slice's size of fresh memory in every time.
    let mut scratch = Scratch::<T>::uninit(n);
    let src = SharedPtr(v.as_mut_ptr());
    let dst = SharedPtr(scratch.as_uninit().as_mut_ptr().cast::<T>());
    offsets
        .into_par_iter()
        .enumerate()
        .for_each(|(block, mut offsets)| {
            let start = block * BLOCK;
            let end = (start + BLOCK).min(n);
            for (i, &b) in (start..end).zip(&bucket_of[start..end]) {
                let b = b as usize;
                // SAFETY: `i < n` is in `v`; `offsets[b]` is a slot of `scratch` (capacity `n`)
                // that no other block or element is given (the offsets partition `0..n`).
                // The element is read once; its slot in `v` is overwritten below before `v`
                // is used again, so it is never dropped twice.
                unsafe { ptr::copy_nonoverlapping(src.get().add(i), dst.get().add(offsets[b]), 1) };
                offsets[b] += 1;
            }
        });
    drop(bucket_of);

    // Step 3: each bucket back into its range of `v`, by the inside-out Fisher-Yates (slot `i`
    // takes the element at a uniform `j <= i`, which takes the bucket's `i`-th element).
    (0..buckets).into_par_iter().for_each(|b| {
        let (start, end) = (starts[b], starts[b + 1]);
        let mut rng = generator(seed, 1, b as u64);
        for i in 0..end - start {
            let j = below(&mut rng, i as u64 + 1) as usize;
            // SAFETY: `start + i` and `start + j` (`j <= i`) lie in bucket `b`'s range, which
            // only this task touches, of `v` and of `scratch` (both `n` long, written above).
            // Slot `j` of the range was given an element in an earlier step (or is slot `i`,
            // written last), so `v`'s range holds each of the bucket's elements once when the
            // loop ends; its old contents are stale copies of elements now in `scratch`,
            // overwritten without being dropped.
            unsafe {
                let out = src.get().add(start);
                if j != i {
                    ptr::copy_nonoverlapping(out.add(j), out.add(i), 1);
                }
                ptr::copy_nonoverlapping(dst.get().add(start + i).cast_const(), out.add(j), 1);
            }
        }
    });
    // `scratch` never owns a `T`: dropping it drops no element.
    drop(scratch);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::collections::HashMap;

    /// The index of a permutation of `0..n` in lexicographic order (Lehmer code).
    fn rank(p: &[u8]) -> usize {
        let mut r = 0;
        for i in 0..p.len() {
            let smaller_after = p[i + 1..].iter().filter(|&&x| x < p[i]).count();
            r = r * (p.len() - i) + smaller_after;
        }
        r
    }

    /// Pearson's chi-square of the counts of all `n!` permutations of `0..n` over `draws`
    /// shuffles with seeds `0..draws`, through `shuffle`.
    fn chi_square(n: u8, draws: u64, shuffle: impl Fn(&mut [u8], u64)) -> f64 {
        let perms: usize = (1..=usize::from(n)).product();
        let mut counts = vec![0u64; perms];
        for seed in 0..draws {
            let mut v: Vec<u8> = (0..n).collect();
            shuffle(&mut v, seed);
            counts[rank(&v)] += 1;
        }
        let expected = draws as f64 / perms as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    // Critical values of chi-square at p = 0.001: 23 degrees of freedom 49.73, 119 (5! - 1)
    // about 173.6. The seeds are fixed, so a pass is not luck of the run; a biased algorithm
    // (say, `j` drawn from `0..n` at every step) fails by far.

    // Statistical: too many shuffles for Miri, which runs the moves of both paths in the
    // tests below instead.
    #[test]
    #[cfg_attr(miri, ignore = "statistical; 24,000 shuffles")]
    fn sequential_path_is_uniform() {
        let chi = chi_square(4, 24_000, shuffle);
        assert!(chi < 49.73, "chi-square {chi} over 24 permutations");
    }

    #[test]
    #[cfg_attr(miri, ignore = "statistical; 180,000 shuffles")]
    fn bucket_path_is_uniform() {
        for buckets in [2, 4, 8] {
            let chi = chi_square(5, 60_000, |v, seed| shuffle_in_buckets(v, seed, buckets));
            assert!(chi < 173.6, "chi-square {chi} with {buckets} buckets");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "no unsafe code; 24,000 shuffles")]
    fn a_biased_shuffle_fails_the_test() {
        let chi = chi_square(4, 24_000, |v, seed| {
            let mut rng = generator(seed, 9, 0);
            for i in 0..v.len() {
                let j = below(&mut rng, v.len() as u64) as usize;
                v.swap(i, j);
            }
        });
        assert!(chi > 49.73, "the naive shuffle passed: {chi}");
    }

    #[test]
    fn same_seed_same_permutation_on_any_thread_count() {
        let n = if cfg!(miri) { 300 } else { 200_000 };
        let shuffled = |threads: usize| {
            let pool = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut v: Vec<u32> = (0..n).collect();
            pool.install(|| shuffle(&mut v, 42));
            v
        };
        let one = shuffled(1);
        let mut sorted = one.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().copied().eq(0..n), "not a permutation");
        assert_ne!(one, (0..n).collect::<Vec<_>>());
        for threads in [2, 3, 8] {
            assert_eq!(shuffled(threads), one);
        }
    }

    #[test]
    fn owned_elements_are_moved_not_duplicated() {
        let n = if cfg!(miri) { 200 } else { 100_000 };
        let mut v: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        shuffle_in_buckets(&mut v, 7, 4);
        let mut seen: HashMap<String, usize> = HashMap::new();
        for s in &v {
            *seen.entry(s.clone()).or_default() += 1;
        }
        assert_eq!(seen.len(), n);
        assert!((0..n).all(|i| seen[&i.to_string()] == 1));
    }
}
