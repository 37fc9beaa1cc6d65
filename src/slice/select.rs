//! `par_select_nth_unstable` and its `_by` / `_by_key` forms: std's `select_nth_unstable`,
//! with each round's partition in parallel and in place.
//!
//! A round (Floyd and Rivest's "SELECT", CACM 1975, with a parallel partition):
//! 1. Sample: move `s ≈ 2·sqrt(n)` elements chosen at random to the front (a partial
//!    Fisher-Yates shuffle, by swaps) and sort them with std's `sort_unstable_by`.
//! 2. Pivots: `lo` and `hi` are the sample elements about `1.5·sqrt(s)` ranks (three standard
//!    deviations of the sample rank) below and above the rank `k·s/n` that `k` maps to, so the
//!    `k`-th element lies between them with high probability, among a few percent of the
//!    elements.
//! 3. Partition: the rest is cut into blocks, and each block is partitioned in parallel, by
//!    a branchless Lomuto partition by swaps (`swap_partition`, twice), into `< lo`, between,
//!    and `> hi`. The sorted sample is three such runs already (found by binary search).
//! 4. Arrangement: the slice is now a list of runs of one class each (three per block). With
//!    the classes' totals, the misplaced elements are known as runs too: the `i`-th misplaced
//!    element left of a boundary is swapped with the `i`-th right of it, a stretch of runs at
//!    a time, in parallel (`arrange`). One boundary is enough when `k` falls in the first or
//!    last class, two when it falls between the pivots; the slice is then
//!    `[< lo | between | > hi]` around the part that holds `k`. On a random input about a
//!    quarter of the elements move, by `ptr::swap_nonoverlapping`; nothing is copied out.
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
//! swaps inside the slice, so a panic leaves the slice a permutation of its input; step 4
//! calls nothing and only swaps. The runs come from the partitions' counts, not from
//! comparisons, so a comparator that is not a total order cannot make two swaps overlap.

use crate::iter::{IntoParallelIterator, ParallelIterator};
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
/// own slots or ranges (step 4's swaps here; `par_shuffle`'s moves).
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
        // 3. The sample's classes (it is sorted: three runs), then the parallel partition of
        //    the rest, block by block.
        let sample_less = sample.partition_point(|x| compare(x, lo) == Ordering::Less);
        let sample_between =
            sample[sample_less..].partition_point(|x| compare(hi, x) != Ordering::Less);
        let block = rest.len().div_ceil(threads * 4).max(1 << 14);
        let counts: Vec<[usize; 3]> = rest
            .par_chunks_mut(block)
            .map(|chunk| {
                let less = swap_partition(chunk, |x| compare(x, lo) == Ordering::Less);
                let between =
                    swap_partition(&mut chunk[less..], |x| compare(hi, x) != Ordering::Less);
                [less, between, chunk.len() - less - between]
            })
            .collect();
        // 4. The arrangement, by swaps of runs: no user code from here to the end of the round.
        let mut runs = Vec::with_capacity(3 * (counts.len() + 1));
        let mut at = 0;
        let sample_counts = [
            sample_less,
            sample_between,
            s - sample_less - sample_between,
        ];
        for c in std::iter::once(&sample_counts).chain(&counts) {
            for (class, &len) in c.iter().enumerate() {
                if len > 0 {
                    runs.push(Run {
                        start: at,
                        len,
                        class: class as u8,
                    });
                }
                at += len;
            }
        }
        debug_assert_eq!(at, n);
        let mut totals = [0usize; 3];
        for run in &runs {
            totals[usize::from(run.class)] += run.len;
        }
        let region_start = [0, totals[0], totals[0] + totals[1]];
        // Only the boundaries around the part that continues matter: a part left behind
        // need not be sorted from its neighbour on the far side.
        if k < region_start[2] {
            runs = arrange(v, &runs, region_start[1], 0, threads);
        }
        if k >= region_start[1] {
            arrange(v, &runs, region_start[2], 1, threads);
        }
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

/// Moves the elements of `v` for which `goes_left` holds to its front, keeping their order
/// (the others' order is not kept), and returns how many there are: Lomuto's partition
/// without a branch on the answer. Element `i` is swapped with the first of the others
/// (itself while there are none) whatever the answer, and the answer only advances that
/// front: `v[..left]` holds the ones seen that go left, `v[left..i]` the others.
///
/// About 8 instructions an element for `u64` against the sorts' block partition's 15, with
/// every element written once; only swaps, so a panic in `goes_left` leaves a permutation.
fn swap_partition<T>(v: &mut [T], goes_left: impl Fn(&T) -> bool) -> usize {
    let mut left = 0;
    for i in 0..v.len() {
        let go = goes_left(&v[i]);
        v.swap(left, i);
        left += usize::from(go);
    }
    left
}

/// A run of elements of one class (0: below the low pivot, 1: between, 2: above the high
/// pivot) at `start..start + len` of the round's part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    len: usize,
    class: u8,
}

/// Swaps runs of `v` (described by `runs`, in order, covering `v`) so that the classes up to
/// `last_left` fill `v[..boundary]`, the others `v[boundary..]`, where `boundary` is the
/// length of the runs of classes up to `last_left`. Returns the runs afterwards, in order.
///
/// The misplaced elements on the left (classes above `last_left` before `boundary`) and on
/// the right (the others after it) are equally many; the `i`-th of each side are swapped, a
/// stretch of runs at a time, in parallel, without calling user code.
fn arrange<T: Send>(
    v: &mut [T],
    runs: &[Run],
    boundary: usize,
    last_left: u8,
    threads: usize,
) -> Vec<Run> {
    let goes_left = |run: &Run| run.class <= last_left;
    // The runs cut at `boundary`, misplaced ones apart.
    let mut kept = Vec::with_capacity(runs.len() + 1);
    let mut left_misplaced = Vec::new();
    let mut right_misplaced = Vec::new();
    for &run in runs {
        let end = run.start + run.len;
        let pieces = if run.start < boundary && boundary < end {
            let cut = boundary - run.start;
            [
                Some(Run { len: cut, ..run }),
                Some(Run {
                    start: boundary,
                    len: run.len - cut,
                    ..run
                }),
            ]
        } else {
            [Some(run), None]
        };
        for piece in pieces.into_iter().flatten() {
            let on_left = piece.start < boundary;
            if on_left == goes_left(&piece) {
                kept.push(piece);
            } else if on_left {
                left_misplaced.push(piece);
            } else {
                right_misplaced.push(piece);
            }
        }
    }
    // The swaps: the `i`-th misplaced element of each side, in stretches that lie in one run
    // on each side, cut to at most `piece` elements for the threads to share.
    let misplaced: usize = left_misplaced.iter().map(|r| r.len).sum();
    assert_eq!(
        misplaced,
        right_misplaced.iter().map(|r| r.len).sum::<usize>(),
        "the boundary is the left classes' length"
    );
    let piece = misplaced.div_ceil(threads * 4).max(1 << 12);
    let mut swaps: Vec<(usize, usize, usize)> = Vec::new();
    let (mut l, mut r) = (0, 0);
    let (mut l_done, mut r_done) = (0, 0);
    while l < left_misplaced.len() {
        let (left, right) = (left_misplaced[l], right_misplaced[r]);
        let len = (left.len - l_done).min(right.len - r_done);
        let (a, b) = (left.start + l_done, right.start + r_done);
        let mut done = 0;
        while done < len {
            let part = (len - done).min(piece);
            swaps.push((a + done, b + done, part));
            done += part;
        }
        // Each side's slots now hold the other side's class.
        kept.push(Run {
            start: a,
            len,
            class: right.class,
        });
        kept.push(Run {
            start: b,
            len,
            class: left.class,
        });
        l_done += len;
        r_done += len;
        if l_done == left.len {
            l += 1;
            l_done = 0;
        }
        if r_done == right.len {
            r += 1;
            r_done = 0;
        }
    }
    let base = SharedPtr(v.as_mut_ptr());
    let n = v.len();
    swaps.into_par_iter().for_each(|(a, b, len)| {
        debug_assert!(a + len <= boundary && boundary <= b && b + len <= n);
        // SAFETY: `a..a + len` lies before `boundary` and `b..b + len` after it, both in `v`
        // (the runs cover `v`); every misplaced slot is in exactly one swap, so no two swaps
        // touch the same slot. A swap of two ranges is a permutation: nothing is duplicated
        // or dropped.
        unsafe { ptr::swap_nonoverlapping(base.get().add(a), base.get().add(b), len) };
    });
    kept.sort_unstable_by_key(|run| run.start);
    kept
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

    /// `arrange` on random run lists: the classes end on their sides, the elements are a
    /// permutation, and the runs it returns describe the slice.
    #[test]
    fn arrange_moves_runs_across_a_boundary() {
        let mut random = 5u64;
        let rounds = if cfg!(miri) { 12 } else { 300 };
        for round in 0..rounds {
            let len = 1 + (next_random(&mut random) % if cfg!(miri) { 60 } else { 3000 }) as usize;
            let mut runs = Vec::new();
            let mut at = 0;
            while at < len {
                let run_len = (1 + next_random(&mut random) % 40).min((len - at) as u64) as usize;
                let class = (next_random(&mut random) % 3) as u8;
                runs.push(Run {
                    start: at,
                    len: run_len,
                    class,
                });
                at += run_len;
            }
            // Owned elements, so that Miri sees a duplicate or a leak; each knows its class.
            let mut v: Vec<(u8, Box<usize>)> = Vec::new();
            for run in &runs {
                for i in 0..run.len {
                    v.push((run.class, Box::new(run.start + i)));
                }
            }
            let last_left = (round % 2) as u8;
            let boundary = v.iter().filter(|(c, _)| *c <= last_left).count();
            let threads = 1 + round % 4;
            let after = arrange(&mut v, &runs, boundary, last_left, threads);
            assert!(v[..boundary].iter().all(|(c, _)| *c <= last_left));
            assert!(v[boundary..].iter().all(|(c, _)| *c > last_left));
            let mut ids: Vec<usize> = v.iter().map(|(_, id)| **id).collect();
            ids.sort_unstable();
            assert!(ids.iter().copied().eq(0..len), "not a permutation");
            let mut at = 0;
            for run in &after {
                assert_eq!(run.start, at);
                assert!(v[at..at + run.len].iter().all(|(c, _)| *c == run.class));
                at += run.len;
            }
            assert_eq!(at, len);
        }
    }

    /// `swap_partition`: the ones that go left first, in their order, then the others; a
    /// permutation.
    // Not under Miri: `swap_partition` is safe code (`slice::swap`), and the unsafe moves
    // around it run in `small_parts_agree_with_std`.
    #[test]
    #[cfg_attr(miri, ignore = "no unsafe code")]
    fn swap_partition_splits_by_the_predicate() {
        let mut random = 3u64;
        for len in [0usize, 1, 2, 7, 100, 1000] {
            for modulus in [1u64, 2, 3, 7] {
                let input: Vec<u64> = (0..len).map(|_| next_random(&mut random) % 100).collect();
                let goes_left = |x: &u64| x % modulus == 0;
                let mut v = input.clone();
                let left = swap_partition(&mut v, goes_left);
                let expected: Vec<u64> = input.iter().copied().filter(goes_left).collect();
                assert_eq!(v[..left], expected[..]);
                assert!(!v[left..].iter().any(goes_left));
                let (mut a, mut b) = (v.clone(), input.clone());
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn small_parts_agree_with_std() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            let mut random = 1u64;
            // Under Miri (an interpreter), lengths that still take several rounds of the
            // parallel partition (the threshold is 16) but finish in seconds (80, five times
            // the threshold, in two thirds of the time 120 took).
            let lens: &[usize] = if cfg!(miri) {
                &[17, 40, 80]
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
