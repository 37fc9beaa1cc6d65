//! Sorting primitive keys that arrive as a few ascending and descending runs (organ pipe,
//! sorted data with sorted data appended), by merging the runs.
//!
//! Runs are found in parallel: each block of the slice is split greedily into maximal
//! non-decreasing and non-increasing runs, and runs that continue across a block boundary in
//! the same direction are joined. Each block gives up as soon as it holds more runs than the
//! caller allows, so random input costs a few hundred keys per block. Runs that meet in order
//! (counting descending runs as reversed: equal primitive keys are identical, so reversing a
//! non-increasing run is its sort, stable or not) are joined.
//!
//! Two passes over memory, however many runs there are: the runs are copied into a scratch
//! buffer (descending ones reversed on the way), then merged back into the slice by a parallel
//! multiway merge. That merge cuts the output into pieces of about 128 KiB (by the middle key
//! of the longest part and binary searches in the others), and each piece merges its parts
//! pairwise as a balanced tree through a piece-sized buffer, all in cache. So `r` runs cost
//! two trips through memory plus `log2 r` in-cache merge levels; merging pairwise through
//! memory would cost `log2 r` trips. An organ pipe is one copy and one merge, against a radix
//! sort's two or three passes plus its bucket sorts.
//!
//! The scratch buffer starts uninitialised and the copy writes every slot of it, so it needs
//! no zeroing, and a buffer the allocator recycles from an earlier sort costs no page faults.
//! Keys are `Copy` and no user code runs, so nothing can panic midway.

use std::mem::MaybeUninit;

use super::key::RadixKey;
use super::presorted::{pairs_in_order, par_swap_mirrored};
use super::radix_parts::{as_uninit_mut, par_copy_into, radix_block_len};
use super::scratch::Scratch;
use super::thresholds::{poll_scheduler, Tuning};

/// A run: `start..end` of the slice, in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    end: usize,
    descending: bool,
}

/// Sorts `v` by finding and merging its runs if it has at most `max_runs` of them (counted
/// before runs that meet in order are joined); returns whether it did. Leaves `v` untouched
/// if it did not.
pub(super) fn try_par_merge_runs<K: RadixKey>(
    v: &mut [K],
    max_runs: usize,
    tuning: &Tuning,
) -> bool {
    if v.len() < 2 {
        return true;
    }
    let block_len = radix_block_len(v.len(), tuning).max(2);
    match par_find_runs(v, 0, block_len, max_runs.max(1)) {
        Some(runs) => {
            merge_found_runs(v, &runs, tuning);
            true
        }
        None => false,
    }
}

/// Sorts `v` by merging its runs, however many it has.
#[cfg(test)]
pub(super) fn par_merge_runs<K: RadixKey>(v: &mut [K], tuning: &Tuning) {
    assert!(try_par_merge_runs(v, usize::MAX, tuning));
}

/// Sorts `v`, whose runs (in order, covering it) are `runs`.
fn merge_found_runs<K: RadixKey>(v: &mut [K], runs: &[Run], tuning: &Tuning) {
    let len = v.len();
    // The least and the greatest key of a run.
    let first = |run: &Run| {
        v[if run.descending {
            run.end - 1
        } else {
            run.start
        }]
        .bits()
    };
    let last = |run: &Run| {
        v[if run.descending {
            run.start
        } else {
            run.end - 1
        }]
        .bits()
    };
    // Where the ascending runs begin that remain once the descending ones are reversed and
    // runs that meet in order are joined; and, last, `len`.
    let mut bounds = vec![0];
    for pair in runs.windows(2) {
        if last(&pair[0]) > first(&pair[1]) {
            bounds.push(pair[1].start);
        }
    }
    bounds.push(len);
    if bounds.len() == 2 {
        // One run once reversed pieces are counted: reversing them in place sorts `v`.
        for run in runs.iter().filter(|run| run.descending) {
            let run = &mut v[run.start..run.end];
            let half = run.len() / 2;
            let (front, back) = run.split_at_mut(half);
            let back_start = back.len() - half;
            par_swap_mirrored(front, &mut back[back_start..], tuning);
        }
        return;
    }
    let mut buffer = Scratch::<K>::uninit(len);
    let uninit = buffer.as_uninit();
    par_copy_runs(v, uninit, runs, 0, tuning);
    // SAFETY: `par_copy_runs` wrote a key into every slot (the runs cover `0..len`), and
    // `MaybeUninit<K>` and `K` have the same layout.
    let scratch = unsafe { &*(uninit as *const [MaybeUninit<K>] as *const [K]) };
    let parts: Vec<&[K]> = bounds.windows(2).map(|w| &scratch[w[0]..w[1]]).collect();
    let piece_len = (tuning.merge_piece_bytes / std::mem::size_of::<K>().max(1)).max(2);
    // SAFETY: merging only stores keys, so `v` stays initialised.
    par_merge_parts(&parts, unsafe { as_uninit_mut(v) }, piece_len, tuning);
}

/// Copies the keys of `runs` (which cover `from`, whose first index in the whole slice is
/// `base`) into the same places of `to`, reversing the descending runs. Parallel over the
/// runs and inside each.
fn par_copy_runs<K: RadixKey>(
    from: &[K],
    to: &mut [MaybeUninit<K>],
    runs: &[Run],
    base: usize,
    tuning: &Tuning,
) {
    if let [run] = runs {
        debug_assert_eq!((run.start - base, run.end - base), (0, from.len()));
        par_copy_into(from, to, run.descending, tuning);
        return;
    }
    let mid = runs.len() / 2;
    let at = runs[mid].start - base;
    let (from_low, from_high) = from.split_at(at);
    let (to_low, to_high) = to.split_at_mut(at);
    crate::join(
        || par_copy_runs(from_low, to_low, &runs[..mid], base, tuning),
        || par_copy_runs(from_high, to_high, &runs[mid..], base + at, tuning),
    );
}

/// Keys per chunk that `run_end` and `equal_run_end` check at once.
const CHUNK: usize = 256;

/// The first index from `end` on (`0 < end`) whose key differs from `v[end - 1]`, or
/// `v.len()`; a chunk at a time while whole chunks are equal (branch-free), then key by key.
fn equal_run_end<K: RadixKey>(v: &[K], mut end: usize) -> usize {
    let key = v[end - 1].bits();
    while v.len() - end >= CHUNK
        && v[end..end + CHUNK]
            .iter()
            .fold(true, |equal, k| equal & (k.bits() == key))
    {
        end += CHUNK;
    }
    while end < v.len() && v[end].bits() == key {
        end += 1;
    }
    end
}

/// Where the run that goes on in direction `descending` up to `end` (`0 < end`) ends: the
/// first index from `end` on whose key breaks the direction against the one before, or
/// `v.len()`. Skips ahead a chunk at a time while a branch-free check (vectorised) finds the
/// chunk's pairs in order, then steps key by key.
fn run_end<K: RadixKey>(v: &[K], mut end: usize, descending: bool) -> usize {
    while v.len() - end >= CHUNK {
        // The chunk's keys and the one before them: `CHUNK` pairs.
        let chunk = &v[end - 1..end + CHUNK];
        let in_order = if descending {
            pairs_in_order::<K, true>(chunk)
        } else {
            pairs_in_order::<K, false>(chunk)
        };
        if !in_order {
            break;
        }
        end += CHUNK;
    }
    if descending {
        while end < v.len() && v[end].bits() <= v[end - 1].bits() {
            end += 1;
        }
    } else {
        while end < v.len() && v[end].bits() >= v[end - 1].bits() {
            end += 1;
        }
    }
    end
}

/// The runs of `v` (which starts at index `offset` of the whole slice), found in blocks of
/// `block_len` keys in parallel and joined across the blocks' boundaries; `None` if there are
/// more than `max_runs` (each block stops looking once it has found more).
fn par_find_runs<K: RadixKey>(
    v: &[K],
    offset: usize,
    block_len: usize,
    max_runs: usize,
) -> Option<Vec<Run>> {
    if v.len() <= block_len {
        poll_scheduler();
        return find_runs(v, offset, max_runs);
    }
    let mid = v.len() / 2;
    let (low, high) = v.split_at(mid);
    let (runs, high_runs) = crate::join(
        || par_find_runs(low, offset, block_len, max_runs),
        || par_find_runs(high, offset + mid, block_len, max_runs),
    );
    let (mut runs, high_runs) = (runs?, high_runs?);
    // Join the runs that meet at `mid` if they go on in the same direction. A run whose keys
    // are all equal (one key, at the end of a block, say) has no direction of its own and
    // takes its neighbour's: it was called ascending only because its block ended, and the
    // whole slice's greedy split would have carried the neighbour's run through it (on 16
    // threads, blocks of 11 keys cut a descending run after its first key, and the lone key
    // counted as one more run).
    let (last, first) = (runs[runs.len() - 1], high_runs[0]);
    let (before, after) = (low[low.len() - 1].bits(), high[0].bits());
    let flat = |run: &Run| v[run.start - offset].bits() == v[run.end - 1 - offset].bits();
    let descending = if flat(&last) {
        first.descending
    } else {
        last.descending
    };
    let continues = (last.descending == first.descending || flat(&last) || flat(&first))
        && if descending {
            before >= after
        } else {
            before <= after
        };
    if continues {
        let joined = runs.last_mut().expect("a block has a run");
        joined.end = first.end;
        joined.descending = descending;
        runs.extend_from_slice(&high_runs[1..]);
    } else {
        runs.extend(high_runs);
    }
    (runs.len() <= max_runs).then_some(runs)
}

/// Splits non-empty `v` greedily into maximal runs: from each start, the first unequal pair
/// sets the direction (a run of equal keys ascends), and the run goes on while the keys keep
/// to it (equal neighbours keep to either). `None` once there are more than `max_runs`.
fn find_runs<K: RadixKey>(v: &[K], offset: usize, max_runs: usize) -> Option<Vec<Run>> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < v.len() {
        if runs.len() == max_runs {
            return None;
        }
        let mut end = equal_run_end(v, start + 1);
        let descending = end < v.len() && v[end].bits() < v[end - 1].bits();
        end = run_end(v, end, descending);
        runs.push(Run {
            start: offset + start,
            end: offset + end,
            descending,
        });
        start = end;
    }
    Some(runs)
}

/// Merges the ascending, non-empty `parts` into `out` (as long as all of them together).
///
/// Split in parallel until each piece has at most `piece_len` keys. The cut is at the
/// weighted median `m` of the parts' middle keys (each weighted by its part's length): the
/// parts whose middle key is at most `m` hold at least half of the keys, and at least half of
/// each of them is at most `m`, so at least a quarter of all keys are at most `m`; likewise at
/// least a quarter are at least `m`. Each part is cut where its keys reach `m`, and keys equal
/// to `m` (identical, so any of them will do) are shared out to bring the low side as near
/// half as they allow. Both sides keep at least a quarter, so the recursion is
/// `log_{4/3}(len / piece_len)` deep. Each piece is then merged in cache by [`merge_parts`].
fn par_merge_parts<K: RadixKey>(
    parts: &[&[K]],
    out: &mut [MaybeUninit<K>],
    piece_len: usize,
    tuning: &Tuning,
) {
    let total = out.len();
    debug_assert_eq!(parts.iter().map(|p| p.len()).sum::<usize>(), total);
    if let [only] = parts {
        par_copy_into(only, out, false, tuning);
        return;
    }
    if total <= piece_len.max(2) {
        poll_scheduler();
        merge_parts(parts, out);
        return;
    }
    let half = total / 2;
    let mut middles: Vec<(u64, usize)> = parts
        .iter()
        .map(|part| (part[part.len() / 2].bits(), part.len()))
        .collect();
    middles.sort_unstable_by_key(|&(key, _)| key);
    let mut weight = 0;
    let pivot = middles
        .iter()
        .find(|&&(_, len)| {
            weight += len;
            weight > half
        })
        .map_or(middles[middles.len() - 1].0, |&(key, _)| key);
    // Per part: keys below the pivot, and keys up to it.
    let cuts: Vec<(usize, usize)> = parts
        .iter()
        .map(|part| {
            let below = part.partition_point(|k| k.bits() < pivot);
            let upto = below + part[below..].partition_point(|k| k.bits() <= pivot);
            (below, upto)
        })
        .collect();
    let below: usize = cuts.iter().map(|&(below, _)| below).sum();
    let mut equal_wanted = half.saturating_sub(below);
    let (mut low, mut high) = (Vec::with_capacity(parts.len()), Vec::new());
    for (part, &(below, upto)) in parts.iter().zip(&cuts) {
        let equal = (upto - below).min(equal_wanted);
        equal_wanted -= equal;
        let (part_low, part_high) = part.split_at(below + equal);
        if !part_low.is_empty() {
            low.push(part_low);
        }
        if !part_high.is_empty() {
            high.push(part_high);
        }
    }
    let low_len = low.iter().map(|p| p.len()).sum();
    debug_assert!(low_len > 0 && low_len < total);
    let (out_low, out_high) = out.split_at_mut(low_len);
    crate::join(
        || par_merge_parts(&low, out_low, piece_len, tuning),
        || par_merge_parts(&high, out_high, piece_len, tuning),
    );
}

/// Merges the ascending `parts` into `out` on this thread: pairwise, as a balanced tree whose
/// inner levels go through a temporary buffer as long as `out` (both meant to fit in cache).
fn merge_parts<K: RadixKey>(parts: &[&[K]], out: &mut [MaybeUninit<K>]) {
    if parts.len() <= 2 {
        merge_tree(parts, out, &mut []);
    } else {
        let mut tmp = Vec::<K>::with_capacity(out.len());
        merge_tree(parts, out, &mut tmp.spare_capacity_mut()[..out.len()]);
    }
}

/// Merges `parts` into `out`, with `tmp` (as long as `out`, unless there are at most two
/// parts) for the inner levels.
fn merge_tree<K: RadixKey>(parts: &[&[K]], out: &mut [MaybeUninit<K>], tmp: &mut [MaybeUninit<K>]) {
    match parts {
        [] => {}
        [only] => {
            for (slot, &key) in out.iter_mut().zip(*only) {
                slot.write(key);
            }
        }
        [left, right] => merge(left, right, out),
        _ => {
            let mid = parts.len() / 2;
            let low_len = parts[..mid].iter().map(|p| p.len()).sum();
            let (tmp_low, tmp_high) = tmp.split_at_mut(low_len);
            let (out_low, out_high) = out.split_at_mut(low_len);
            // Each half lands in its part of `tmp`, with the matching part of `out` as its
            // own scratch space.
            let left = merged_half(&parts[..mid], tmp_low, out_low);
            let right = merged_half(&parts[mid..], tmp_high, out_high);
            merge(left, right, out);
        }
    }
}

/// `parts` merged into `to` (with `scratch` as working space), or the only part itself.
fn merged_half<'a, K: RadixKey>(
    parts: &[&'a [K]],
    to: &'a mut [MaybeUninit<K>],
    scratch: &mut [MaybeUninit<K>],
) -> &'a [K] {
    if let [only] = parts {
        return only;
    }
    merge_tree(parts, to, scratch);
    // SAFETY: `merge_tree` wrote every slot of `to`; `MaybeUninit<K>` and `K` have the same
    // layout.
    unsafe { &*(to as *const [MaybeUninit<K>] as *const [K]) }
}

/// Sequential merge of ascending `left` and `right` into `out`.
///
/// From both ends at once: the front takes the smallest keys, the back the largest, each step
/// branch-free (a compare, a select, two counter updates). A branch-free merge waits on each
/// step's load to know the next; two independent chains overlap those waits. (Equal keys are
/// identical, so which run an equal key comes from does not matter; the front prefers `left`
/// and the back `right`, as a stable merge would.)
///
/// Neither chain can run out of a run within `min(left.len(), right.len())` steps (each step
/// takes one key), so that many steps need no bounds checks and no clamping; then the unread
/// middle is merged the same way, until a run is used up and the rest is copied.
fn merge<K: RadixKey>(left: &[K], right: &[K], out: &mut [MaybeUninit<K>]) {
    debug_assert_eq!(left.len() + right.len(), out.len());
    let (mut left, mut right, mut out) = (left, right, out);
    loop {
        let (ln, rn, n) = (left.len(), right.len(), out.len());
        // At most `n / 2`, so the chains' writes never meet.
        let steps = ln.min(rn);
        if steps == 0 {
            for (slot, &key) in out.iter_mut().zip(left.iter().chain(right)) {
                slot.write(key);
            }
            return;
        }
        // Front: next unread indices; back: ends (exclusive) of the unread parts.
        let (mut lf, mut rf, mut lb, mut rb) = (0, 0, ln, rn);
        let (l, r, o) = (left.as_ptr(), right.as_ptr(), out.as_mut_ptr());
        for t in 0..steps {
            // SAFETY: after `t < steps <= min(ln, rn)` steps each chain has taken `t` keys,
            // so `lf, rf <= t` are below `ln, rn`, and `lb, rb >= ln - t, rn - t` are at
            // least 1: every read is inside its run. The writes go to `t` and `n - 1 - t`,
            // distinct (`t < n / 2`) and below `n`.
            unsafe {
                let (a, b) = (*l.add(lf), *r.add(rf));
                let take_right = b.bits() < a.bits();
                (*o.add(t)).write(if take_right { b } else { a });
                lf += usize::from(!take_right);
                rf += usize::from(take_right);

                let (a, b) = (*l.add(lb - 1), *r.add(rb - 1));
                let take_left = a.bits() > b.bits();
                (*o.add(n - 1 - t)).write(if take_left { a } else { b });
                lb -= usize::from(take_left);
                rb -= usize::from(!take_left);
            }
        }
        // The front took the `steps` least keys and the back the `steps` greatest, and
        // `2 * steps <= n`: the unread keys lie between (checked slicing).
        left = &left[lf..lb];
        right = &right[rf..rb];
        out = &mut out[steps..n - steps];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cut_by_block_ends_are_joined_whatever_the_block_length() {
        // Ascending runs of 37 keys alternating with descending ones: whatever the blocks
        // (the thread count sets their length), the joined runs are those of one greedy pass
        // over the whole slice. A block that ends one key into a descending run used to leave
        // that key as a run of its own.
        // (Under Miri, a few cases: this code has no unsafe block.)
        let most_runs = if cfg!(miri) { 2 } else { 9 };
        for runs_wanted in 1..=most_runs {
            let input: Vec<u64> = (0..runs_wanted * 37)
                .map(|i| {
                    if (i / 37) % 2 == 1 {
                        1000 - i % 37
                    } else {
                        i % 37 * 3
                    }
                })
                .collect();
            let whole = find_runs(&input, 0, usize::MAX).expect("no limit");
            let block_lens: Vec<usize> = if cfg!(miri) {
                vec![2, 11, 38]
            } else {
                (2..=input.len()).collect()
            };
            for block_len in block_lens {
                let runs = par_find_runs(&input, 0, block_len, usize::MAX).expect("no limit");
                assert_eq!(
                    runs.len(),
                    whole.len(),
                    "{runs_wanted} runs, blocks of {block_len}"
                );
                assert_eq!(runs.first().map(|r| r.start), Some(0));
                assert_eq!(runs.last().map(|r| r.end), Some(input.len()));
                for pair in runs.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                }
                for run in &runs {
                    let keys = &input[run.start..run.end];
                    assert!(keys.windows(2).all(|w| if run.descending {
                        w[0] >= w[1]
                    } else {
                        w[0] <= w[1]
                    }));
                }
            }
        }
    }
}
