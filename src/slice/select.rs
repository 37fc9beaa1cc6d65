//! `par_select_nth_unstable` and its `_by` / `_by_key` forms: std's `select_nth_unstable`,
//! with each round's three-way partition in parallel and in place.
//!
//! A round (Floyd and Rivest's "SELECT", CACM 1975, with a parallel partition):
//! 1. Sample: move `s ≈ 2·sqrt(n)` elements chosen at random to the front (a partial
//!    Fisher-Yates shuffle, by swaps) and sort them with std's `sort_unstable_by`.
//! 2. Pivots: `lo` and `hi` are the sample elements about `1.5·sqrt(s)` ranks (three standard
//!    deviations of the sample rank) below and above the rank `k·s/n` that `k` maps to, so the
//!    `k`-th element lies between them with high probability, among a few percent of the
//!    elements.
//! 3. Classification, read-only and in parallel: one byte per element says its class (below
//!    `lo`, between, above `hi`), and each chunk of `CHUNK` elements counts its classes. This
//!    is the round's only pass that calls the comparator, and its only full read of the
//!    elements.
//! 4. Arrangement, in parallel, by swaps and without user code: the class totals cut the part
//!    into three regions; the elements of region `r` whose class is `c != r` are misplaced.
//!    The `i`-th misplaced element of class `c` in region `r` is swapped with the `i`-th of
//!    class `r` in region `c` (for each pair of regions), and what is left forms 3-cycles
//!    (`r0 → r1 → r2 → r0` or the reverse, never both), rotated. Positions are found by
//!    scanning the class bytes a word at a time; the chunks' prefix counts say where each
//!    thread's stretch of ordinals starts. On a random input about a quarter of the elements
//!    move, each once; nothing is copied out.
//! 5. The round continues in the region that holds `k`. If that is the middle one and
//!    `lo == hi`, all of it equals the `k`-th element: done. A round that made no progress
//!    (every element between two distinct pivots) uses one pivot next (`lo == hi`), which
//!    always does for a total order.
//!
//! Parts below `SEQUENTIAL_LEN`, and any part after `MAX_ROUNDS` rounds, go to std's
//! `select_nth_unstable_by` (worst case `O(n)`). Scratch: one byte per element, for the
//! whole call.
//!
//! The pivots are shared by the threads classifying the chunks, so `T: Sync` (the sorts'
//! quicksort avoids that bound by partitioning on one thread; here that would leave nothing
//! parallel).
//!
//! Panic safety: user code (the comparator) runs only in steps 1 to 3; step 1 moves elements
//! by swaps inside the slice and step 3 moves nothing, so a panic leaves the slice a
//! permutation of its input. Soundness does not rest on the comparator: the moves of step 4
//! are computed from the class bytes alone, which nothing writes after step 3, so every
//! position is moved by exactly one swap or rotation whatever the comparator answered (a
//! comparator that is not a total order gives a wrong answer, never overlapping moves).

use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::slice::{ParallelSlice, ParallelSliceMut};
use std::cmp::Ordering;
use std::ptr;

/// Slices (and parts) shorter than this go to std: about a quarter of a millisecond of work.
const SEQUENTIAL_LEN: usize = 1 << 16;

/// Rounds before the rest goes to std whatever its length; a round shrinks the part to a few
/// percent unless the sample misled it, so this is reached only on adversarial luck.
const MAX_ROUNDS: u32 = 12;

/// The largest sample: its sort runs on one thread.
const MAX_SAMPLE: usize = 1 << 14;

/// Elements per counted chunk: a thread locating its first position scans at most this many
/// class bytes (a few microseconds), and the counts take 1/1,000 of the bytes' space.
const CHUNK: usize = 1 << 12;

/// The class bytes. Bit 0: not below the low pivot; bit 1: above the high pivot. An element
/// above the high pivot has both bits, whatever the comparator said about the low one, so
/// the three classes are disjoint by construction.
const BELOW: u8 = 0;
const BETWEEN: u8 = 1;
const ABOVE: u8 = 3;
const CLASSES: [u8; 3] = [BELOW, BETWEEN, ABOVE];

/// Fills the bytes past a slice's end when a word is read there: no class matches it.
const PAD: u8 = 2;

/// The lowest bit of each byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

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
        crate::scheduler::in_pool(|| select_in_place(v, k, compare, SEQUENTIAL_LEN, CHUNK));
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
/// larger ones after it. `k < v.len()`; parts shorter than `sequential_len` go to std;
/// `chunk` is the counted chunks' length (`CHUNK`, smaller in tests).
fn select_in_place<T, F>(v: &mut [T], k: usize, compare: &F, sequential_len: usize, chunk: usize)
where
    T: Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let sequential_len = sequential_len.max(16);
    let mut v = v;
    let mut k = k;
    if v.len() < sequential_len {
        v.select_nth_unstable_by(k, compare);
        return;
    }
    let mut single_pivot = false;
    let mut random = (v.len() as u64) ^ (k as u64).rotate_left(32);
    let mut class_buffer = vec![BELOW; v.len()];
    for _ in 0..MAX_ROUNDS {
        let n = v.len();
        if n < sequential_len {
            break;
        }
        // 1. The sample.
        let s = (2 * n.isqrt()).clamp(4, MAX_SAMPLE).min(n / 2);
        for t in 0..s {
            let j = t + (next_random(&mut random) % (n - t) as u64) as usize;
            v.swap(t, j);
        }
        v[..s].sort_unstable_by(compare);
        // 2. The pivots.
        let target = (k as u128 * s as u128 / n as u128) as usize;
        let gap = if single_pivot {
            0
        } else {
            (3 * s.isqrt()).div_ceil(2)
        };
        let (lo, hi) = (target.saturating_sub(gap), (target + gap).min(s - 1));
        let pivots_equal = compare(&v[lo], &v[hi]) == Ordering::Equal;
        // 3. The classes.
        let classes = &mut class_buffer[..n];
        let counts = classify(v, (lo, hi), compare, classes, chunk);
        let classes: &[u8] = classes;
        let index = ClassIndex::new(classes, &counts, chunk);
        // 4. The arrangement: no user code from here to the end of the round.
        let totals = index.totals();
        let region_start = [0, totals[0], totals[0] + totals[1], n];
        arrange(v, &index, region_start);
        // 5. The part that holds `k`.
        let before = v;
        if k < region_start[1] {
            v = &mut before[..region_start[1]];
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

/// Writes the class of each element of `v` against the pivots `v[lo]` and `v[hi]` into
/// `classes`, in parallel, and returns the class counts of each chunk of `chunk` elements.
/// Reads `v` only.
fn classify<T, F>(
    v: &[T],
    (lo, hi): (usize, usize),
    compare: &F,
    classes: &mut [u8],
    chunk: usize,
) -> Vec<[u32; 3]>
where
    T: Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let (lo, hi) = (&v[lo], &v[hi]);
    v.par_chunks(chunk)
        .zip(classes.par_chunks_mut(chunk))
        .map(|(xs, cs)| {
            for (x, c) in xs.iter().zip(cs.iter_mut()) {
                let is_above = u8::from(compare(hi, x) == Ordering::Less);
                let is_not_below = u8::from(compare(x, lo) != Ordering::Less) | is_above;
                *c = is_not_below | (is_above << 1);
            }
            // Counted afterwards, eight bytes at a time: bit 0 of a byte is "not below", bit 1
            // "above".
            let (mut not_below, mut above) = (0u32, 0u32);
            let mut words = cs.chunks_exact(8);
            for word in &mut words {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                not_below += (word & LOW_BITS).count_ones();
                above += ((word >> 1) & LOW_BITS).count_ones();
            }
            for &b in words.remainder() {
                not_below += u32::from(b & 1);
                above += u32::from(b >> 1);
            }
            [xs.len() as u32 - not_below, not_below - above, above]
        })
        .collect()
}

/// The class bytes of a part with their chunks' prefix counts: how many elements of a class
/// lie before a position, and where the `i`-th of a class is.
struct ClassIndex<'a> {
    classes: &'a [u8],
    chunk: usize,
    /// `prefix[i][c]`: the elements of class `CLASSES[c]` in `classes[..i * chunk]`; one more
    /// entry than chunks, the last being the totals.
    prefix: Vec<[usize; 3]>,
}

impl<'a> ClassIndex<'a> {
    fn new(classes: &'a [u8], counts: &[[u32; 3]], chunk: usize) -> Self {
        let mut prefix = Vec::with_capacity(counts.len() + 1);
        let mut sum = [0usize; 3];
        prefix.push(sum);
        for count in counts {
            for c in 0..3 {
                sum[c] += count[c] as usize;
            }
            prefix.push(sum);
        }
        assert_eq!(sum.iter().sum::<usize>(), classes.len());
        ClassIndex {
            classes,
            chunk,
            prefix,
        }
    }

    fn totals(&self) -> [usize; 3] {
        *self.prefix.last().expect("one entry at least")
    }

    /// The elements of class `CLASSES[c]` in `classes[..at]`.
    fn count_before(&self, c: usize, at: usize) -> usize {
        let i = at / self.chunk;
        let start = i * self.chunk;
        let class = CLASSES[c];
        self.prefix[i][c]
            + self.classes[start..at]
                .iter()
                .filter(|&&b| b == class)
                .count()
    }

    /// The position of the `ordinal`-th (from 0) element of class `CLASSES[c]`.
    fn position(&self, c: usize, ordinal: usize) -> usize {
        assert!(ordinal < self.totals()[c], "fewer elements of the class");
        // The chunk whose prefix count is the last at most `ordinal`.
        let i = self.prefix.partition_point(|p| p[c] <= ordinal) - 1;
        let start = i * self.chunk;
        let mut left = ordinal - self.prefix[i][c];
        let class = CLASSES[c];
        for (at, &b) in self.classes[start..].iter().enumerate() {
            if b == class {
                if left == 0 {
                    return start + at;
                }
                left -= 1;
            }
        }
        unreachable!("the prefix counts are the bytes' counts")
    }
}

/// The positions of one class's elements from a starting position on, in increasing order,
/// read a word of class bytes at a time.
struct Positions<'a> {
    classes: &'a [u8],
    /// Which bits of a word to flip so that a byte of the class has its two low bits set.
    flip: u64,
    /// The index of the current word's first byte (a multiple of 8).
    word_at: usize,
    /// The low bit of each byte of the current word that is of the class and not yet given.
    hits: u64,
}

impl<'a> Positions<'a> {
    fn new(classes: &'a [u8], class: u8, from: usize) -> Self {
        // A byte matches when, after the flip, bits 0 and 1 are both set: BELOW flips both,
        // BETWEEN bit 1, ABOVE none; PAD (bit 1 alone) matches none of them.
        let flip = match class {
            BELOW => LOW_BITS * 3,
            BETWEEN => LOW_BITS * 2,
            _ => 0,
        };
        let word_at = from - from % 8;
        let mut positions = Positions {
            classes,
            flip,
            word_at,
            hits: 0,
        };
        positions.hits = positions.load() & (!0u64 << (8 * (from % 8)));
        positions
    }

    /// The current word's hits.
    #[inline(always)]
    fn load(&self) -> u64 {
        let at = self.word_at;
        let word = match self.classes.get(at..at + 8) {
            Some(bytes) => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
            None => self.load_tail(),
        } ^ self.flip;
        word & (word >> 1) & LOW_BITS
    }

    /// The last, partial word, padded.
    #[cold]
    #[inline(never)]
    fn load_tail(&self) -> u64 {
        let mut bytes = [PAD; 8];
        let tail = &self.classes[self.word_at..];
        bytes[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(bytes)
    }

    /// The next position; panics if there is none.
    #[inline]
    fn next_position(&mut self) -> usize {
        while self.hits == 0 {
            self.word_at += 8;
            assert!(self.word_at < self.classes.len(), "fewer elements of the class");
            self.hits = self.load();
        }
        let at = self.word_at + (self.hits.trailing_zeros() / 8) as usize;
        self.hits &= self.hits - 1;
        at
    }
}

/// A stretch of step 4's moves: `len` swaps of the `first[0]`-th, `first[1]`-th (and, for a
/// rotation, `first[2]`-th) elements of its groups onwards.
#[derive(Clone, Copy, Debug)]
struct Moves {
    /// The regions whose misplaced elements move (two for a swap, three for a rotation).
    regions: [usize; 3],
    /// The class index of the elements taken from each region.
    classes: [usize; 3],
    /// The ordinal, among all the elements of its class, of each group's first element.
    first: [usize; 3],
    len: usize,
    rotation: bool,
}

/// Moves every element of `v` into the region of its class (`index`'s classes;
/// `region_start[r]..region_start[r + 1]` is region `r`, as long as its class's total), in
/// parallel, by swaps and 3-cycles. Calls no user code.
fn arrange<T: Send>(v: &mut [T], index: &ClassIndex<'_>, region_start: [usize; 4]) {
    let n = v.len();
    assert_eq!(index.classes.len(), n);
    let totals = index.totals();
    for r in 0..3 {
        assert_eq!(region_start[r + 1] - region_start[r], totals[r]);
    }
    // before[r][c]: the elements of class c before region r; in[r][c]: those in it.
    let mut before = [[0usize; 3]; 4];
    for (r, &start) in region_start.iter().enumerate() {
        for c in 0..3 {
            before[r][c] = if r == 3 {
                totals[c]
            } else {
                index.count_before(c, start)
            };
        }
    }
    let mut left = [[0usize; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            left[r][c] = before[r + 1][c] - before[r][c];
        }
    }
    // Groups (region r, class c != r), consumed from their first element on.
    let mut next = [[0usize; 3]; 3];
    for r in 0..3 {
        next[r] = before[r];
    }
    let mut groups_moves = Vec::new();
    for (r, c) in [(0, 1), (0, 2), (1, 2)] {
        let len = left[r][c].min(left[c][r]);
        groups_moves.push(Moves {
            regions: [r, c, 0],
            classes: [c, r, 0],
            first: [next[r][c], next[c][r], 0],
            len,
            rotation: false,
        });
        for (rr, cc) in [(r, c), (c, r)] {
            next[rr][cc] += len;
            left[rr][cc] -= len;
        }
    }
    // What is left is a circulation with no two opposite flows: one 3-cycle, `r0`'s elements
    // going to `r1`, `r1`'s to `r2`, `r2`'s to `r0`, or the reverse.
    let cycle = if left[0][1] > 0 { [1, 2, 0] } else { [2, 0, 1] };
    let len = left[0][cycle[0]];
    for r in 0..3 {
        for c in (0..3).filter(|&c| c != r) {
            let expected = if c == cycle[r] { len } else { 0 };
            assert_eq!(left[r][c], expected, "the classes' counts are consistent");
        }
    }
    groups_moves.push(Moves {
        regions: [0, 1, 2],
        classes: cycle,
        first: [next[0][cycle[0]], next[1][cycle[1]], next[2][cycle[2]]],
        len,
        rotation: true,
    });
    // Stretches of at most `piece` moves for the threads to share.
    let all: usize = groups_moves.iter().map(|m| m.len).sum();
    let piece = all
        .div_ceil(crate::current_num_threads() * 4)
        .max(1 << 12);
    let mut pieces = Vec::new();
    for moves in groups_moves {
        let mut done = 0;
        while done < moves.len {
            let len = (moves.len - done).min(piece);
            let mut first = moves.first;
            for f in &mut first {
                *f += done;
            }
            pieces.push(Moves { first, len, ..moves });
            done += len;
        }
    }
    let base = SharedPtr(v.as_mut_ptr());
    pieces.into_par_iter().for_each(|moves| {
        let groups = if moves.rotation { 3 } else { 2 };
        let mut positions: [Option<Positions<'_>>; 3] = [None, None, None];
        let mut ends = [0usize; 3];
        for g in 0..groups {
            let c = moves.classes[g];
            let at = index.position(c, moves.first[g]);
            assert!(region_start[moves.regions[g]] <= at);
            positions[g] = Some(Positions::new(index.classes, CLASSES[c], at));
            ends[g] = region_start[moves.regions[g] + 1];
        }
        let [a, b, c] = &mut positions;
        let a = a.as_mut().expect("two groups at least");
        let b = b.as_mut().expect("two groups at least");
        if let Some(c) = c {
            for _ in 0..moves.len {
                let (p, q, r) = (a.next_position(), b.next_position(), c.next_position());
                assert!(p < ends[0] && q < ends[1] && r < ends[2]);
                // SAFETY: `p`, `q` and `r` lie in regions 0, 1 and 2 (each at least its start,
                // found by `position`, and below its end, asserted), so in `v` and distinct.
                // They are the next elements of their groups, and every group's ordinals are
                // given to one stretch each (`first`, `len`): no other swap touches them, and
                // the class bytes they were found by are not written while these run. Two
                // swaps are a rotation: nothing is duplicated or dropped.
                unsafe {
                    let (p, q, r) = (base.get().add(p), base.get().add(q), base.get().add(r));
                    ptr::swap_nonoverlapping(p, q, 1);
                    if moves.classes[0] == 1 {
                        // Region 0 holds class 1 (to q), q class 2 (to r), r class 0 (to p).
                        ptr::swap_nonoverlapping(p, r, 1);
                    } else {
                        // Region 0 holds class 2 (to r), q class 0 (to p), r class 1 (to q).
                        ptr::swap_nonoverlapping(q, r, 1);
                    }
                }
            }
        } else {
            for _ in 0..moves.len {
                let (p, q) = (a.next_position(), b.next_position());
                assert!(p < ends[0] && q < ends[1]);
                // SAFETY: `p` and `q` lie in two different regions (as for the rotation),
                // so in `v` and distinct, and no other swap touches them.
                unsafe { ptr::swap_nonoverlapping(base.get().add(p), base.get().add(q), 1) };
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

    fn check(input: &[u32], k: usize, sequential_len: usize, chunk: usize) {
        let mut got = input.to_vec();
        select_in_place(&mut got, k, &u32::cmp, sequential_len, chunk);
        let mut sorted = input.to_vec();
        sorted.sort_unstable();
        assert_eq!(got[k], sorted[k], "k {k}");
        assert!(got[..k].iter().all(|x| *x <= got[k]));
        assert!(got[k + 1..].iter().all(|x| *x >= got[k]));
        got.sort_unstable();
        assert_eq!(got, sorted, "not a permutation");
    }

    /// `arrange` on random class bytes: every element ends in its class's region, and the
    /// elements are a permutation (owned, so that Miri sees a duplicate or a leak).
    #[test]
    fn arrange_moves_every_element_into_its_region() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            let mut random = 5u64;
            let rounds = if cfg!(miri) { 10 } else { 300 };
            for round in 0..rounds {
                let len = 1 + (next_random(&mut random) % if cfg!(miri) { 80 } else { 20_000 })
                    as usize;
                // Skewed class frequencies, so that every kind of move (each pair's swaps,
                // either 3-cycle) occurs across the rounds.
                let weights = [
                    1 + next_random(&mut random) % 4,
                    1 + next_random(&mut random) % 4,
                    1 + next_random(&mut random) % 4,
                ];
                let classes: Vec<u8> = (0..len)
                    .map(|_| {
                        let x = next_random(&mut random) % weights.iter().sum::<u64>();
                        if x < weights[0] {
                            BELOW
                        } else if x < weights[0] + weights[1] {
                            BETWEEN
                        } else {
                            ABOVE
                        }
                    })
                    .collect();
                let mut v: Vec<(u8, Box<usize>)> =
                    classes.iter().enumerate().map(|(i, &c)| (c, Box::new(i))).collect();
                let chunk = [8, 16, 24, 4096][round % 4];
                let counts: Vec<[u32; 3]> = classes
                    .chunks(chunk)
                    .map(|cs| {
                        let count = |class| cs.iter().filter(|&&b| b == class).count() as u32;
                        [count(BELOW), count(BETWEEN), count(ABOVE)]
                    })
                    .collect();
                let index = ClassIndex::new(&classes, &counts, chunk);
                let t = index.totals();
                let region_start = [0, t[0], t[0] + t[1], len];
                arrange(&mut v, &index, region_start);
                for (r, &class) in CLASSES.iter().enumerate() {
                    let region = &v[region_start[r]..region_start[r + 1]];
                    assert!(region.iter().all(|(c, _)| *c == class), "round {round}");
                }
                let mut ids: Vec<usize> = v.iter().map(|(_, id)| **id).collect();
                ids.sort_unstable();
                assert!(ids.iter().copied().eq(0..len), "not a permutation");
            }
        });
    }

    /// The positions of a class from any start, and `ClassIndex`'s counts and positions,
    /// against a byte-by-byte scan.
    #[test]
    fn positions_and_index_agree_with_a_scan() {
        let mut random = 9u64;
        let len = if cfg!(miri) { 70 } else { 1000 };
        let classes: Vec<u8> = (0..len)
            .map(|_| CLASSES[(next_random(&mut random) % 3) as usize])
            .collect();
        let chunk = 16;
        let counts: Vec<[u32; 3]> = classes
            .chunks(chunk)
            .map(|cs| CLASSES.map(|class| cs.iter().filter(|&&b| b == class).count() as u32))
            .collect();
        let index = ClassIndex::new(&classes, &counts, chunk);
        for (c, &class) in CLASSES.iter().enumerate() {
            let all: Vec<usize> = (0..len).filter(|&i| classes[i] == class).collect();
            for (ordinal, &at) in all.iter().enumerate() {
                assert_eq!(index.position(c, ordinal), at);
                assert_eq!(index.count_before(c, at), ordinal);
            }
            for from in 0..len {
                let expected: Vec<usize> = all.iter().copied().filter(|&i| i >= from).collect();
                let mut positions = Positions::new(&classes, class, from);
                let got: Vec<usize> = expected.iter().map(|_| positions.next_position()).collect();
                assert_eq!(got, expected);
            }
        }
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
                        check(&input, k, 16, 8);
                    }
                }
                let sorted: Vec<u32> = (0..len as u32).collect();
                check(&sorted, len / 2, 16, 8);
                let reversed: Vec<u32> = (0..len as u32).rev().collect();
                check(&reversed, len / 4, 16, 24);
            }
        });
    }

    /// A comparator that answers at random (no order at all) once the first round's sample
    /// is sorted (std's sort would notice earlier and panic) leaves a permutation: the moves
    /// never overlap, whatever it says.
    #[test]
    fn a_random_comparator_leaves_a_permutation() {
        let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        pool.install(|| {
            let len = if cfg!(miri) { 300 } else { 5000 };
            for k in [0, len / 2, len - 1] {
                let calls = AtomicU64::new(0);
                let compare = |a: &Box<usize>, b: &Box<usize>| {
                    let mut state = calls.fetch_add(1, AtomicOrdering::Relaxed);
                    if state < (len + len / 2) as u64 {
                        return a.cmp(b);
                    }
                    [Ordering::Less, Ordering::Equal, Ordering::Greater]
                        [(next_random(&mut state) % 3) as usize]
                };
                let mut v: Vec<Box<usize>> = (0..len).map(Box::new).collect();
                // A later sample's sort may notice and panic; the slice is then a
                // permutation too.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    select_in_place(&mut v, k, &compare, 16, 8);
                }));
                let mut ids: Vec<usize> = v.iter().map(|b| **b).collect();
                ids.sort_unstable();
                assert!(ids.iter().copied().eq(0..len), "not a permutation");
                assert!(calls.load(AtomicOrdering::Relaxed) > 2 * len as u64, "one round done");
            }
        });
    }
}
