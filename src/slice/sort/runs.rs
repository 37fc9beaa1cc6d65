//! Sorting primitive keys that arrive as a few ascending and descending runs (organ pipe,
//! sawtooth, sorted data with sorted data appended), by merging the runs.
//!
//! Runs are found in parallel: each block of the slice is split greedily into maximal
//! non-decreasing and non-increasing runs, and runs that continue across a block boundary in
//! the same direction are joined. Descending runs are reversed in place (equal primitive keys
//! are identical, so this is their sort, stable or not), runs that already meet in order are
//! joined, and the rest are merged pairwise, level by level, between the slice and a scratch
//! buffer; each merge is parallel (split the longer run at its middle, binary-search the split
//! of the other). An organ pipe is then one reversal and one merge, against a radix sort's two
//! or three passes plus its bucket sorts.
//!
//! Keys are `Copy` and no user code runs, so nothing can panic midway; all of this is safe
//! code apart from the scratch buffer's allocation.

use super::radix::{par_copy, par_swap_mirrored, radix_block_len, RadixKey};
use super::scratch::Scratch;
use super::{poll_scheduler, Tuning};

/// A run: `start..end` of the slice, in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    end: usize,
    descending: bool,
}

/// Sorts `v` by finding and merging its runs; meant for input with few of them (the caller
/// counts direction changes first), correct for any.
pub(super) fn par_merge_runs<K: RadixKey>(v: &mut [K], tuning: &Tuning) {
    let len = v.len();
    if len < 2 {
        return;
    }
    let block_len = radix_block_len(len, tuning).max(2);
    let runs = par_find_runs(v, 0, block_len);
    for run in runs.iter().filter(|run| run.descending) {
        let run = &mut v[run.start..run.end];
        let half = run.len() / 2;
        let (front, back) = run.split_at_mut(half);
        let back_start = back.len() - half;
        par_swap_mirrored(front, &mut back[back_start..], tuning);
    }
    // Now every run ascends; join those that meet in order.
    let mut bounds = vec![0];
    for run in &runs[1..] {
        if v[run.start - 1].bits() > v[run.start].bits() {
            bounds.push(run.start);
        }
    }
    bounds.push(len);
    if bounds.len() == 2 {
        return;
    }
    let mut buffer = Scratch::<K>::zeroed(len);
    // SAFETY: the buffer comes from `zeroed`, all-zero bytes are a valid `RadixKey` (a
    // requirement of the trait), and keys are `Copy`.
    let scratch = unsafe { buffer.as_init() };
    let mut in_scratch = false;
    while bounds.len() > 2 {
        if in_scratch {
            par_merge_level(scratch, v, &bounds, tuning);
        } else {
            par_merge_level(v, scratch, &bounds, tuning);
        }
        in_scratch = !in_scratch;
        // Every other boundary remains: pairs of runs became one.
        let last = bounds.len() - 1;
        bounds = bounds.iter().copied().step_by(2).collect();
        if bounds[bounds.len() - 1] != len {
            debug_assert_eq!(last % 2, 1);
            bounds.push(len);
        }
    }
    if in_scratch {
        par_copy(scratch, v, tuning);
    }
}

/// The runs of `v` (which starts at index `offset` of the whole slice), found in blocks of
/// `block_len` keys in parallel and joined across the blocks' boundaries.
fn par_find_runs<K: RadixKey>(v: &[K], offset: usize, block_len: usize) -> Vec<Run> {
    if v.len() <= block_len {
        poll_scheduler();
        return find_runs(v, offset);
    }
    let mid = v.len() / 2;
    let (low, high) = v.split_at(mid);
    let (mut runs, high_runs) = crate::join(
        || par_find_runs(low, offset, block_len),
        || par_find_runs(high, offset + mid, block_len),
    );
    // Join the runs that meet at `mid` if they go on in the same direction.
    let (last, first) = (runs[runs.len() - 1], high_runs[0]);
    let (before, after) = (low[low.len() - 1].bits(), high[0].bits());
    let continues = if last.descending == first.descending {
        if last.descending {
            before >= after
        } else {
            before <= after
        }
    } else {
        false
    };
    if continues {
        runs.last_mut().expect("a block has a run").end = first.end;
        runs.extend_from_slice(&high_runs[1..]);
    } else {
        runs.extend(high_runs);
    }
    runs
}

/// Splits non-empty `v` greedily into maximal runs: from each start, the first unequal pair
/// sets the direction (a run of equal keys ascends), and the run goes on while the keys keep
/// to it (equal neighbours keep to either).
fn find_runs<K: RadixKey>(v: &[K], offset: usize) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < v.len() {
        let mut end = start + 1;
        while end < v.len() && v[end].bits() == v[end - 1].bits() {
            end += 1;
        }
        let descending = end < v.len() && v[end].bits() < v[end - 1].bits();
        if descending {
            while end < v.len() && v[end].bits() <= v[end - 1].bits() {
                end += 1;
            }
        } else {
            while end < v.len() && v[end].bits() >= v[end - 1].bits() {
                end += 1;
            }
        }
        runs.push(Run {
            start: offset + start,
            end: offset + end,
            descending,
        });
        start = end;
    }
    runs
}

/// One level of merging: the ascending runs of `from` that `bounds` delimits are merged in
/// pairs into the same places of `to` (a last unpaired run is copied). Parallel over the pairs
/// and inside each merge.
fn par_merge_level<K: RadixKey>(from: &[K], to: &mut [K], bounds: &[usize], tuning: &Tuning) {
    // `bounds` covers `from` and `to` from `bounds[0]`.
    let base = bounds[0];
    let runs = bounds.len() - 1;
    if runs <= 2 {
        let (start, end) = (bounds[0] - base, bounds[runs] - base);
        if runs == 1 {
            par_copy(&from[start..end], &mut to[start..end], tuning);
        } else {
            let mid = bounds[1] - base;
            par_merge(
                &from[start..mid],
                &from[mid..end],
                &mut to[start..end],
                tuning,
            );
        }
        return;
    }
    // Split between pairs: after an even number of runs.
    let pairs_low = runs.div_ceil(2) / 2;
    let split = 2 * pairs_low.max(1);
    let at = bounds[split] - base;
    let (from_low, from_high) = from.split_at(at);
    let (to_low, to_high) = to.split_at_mut(at);
    crate::join(
        || par_merge_level(from_low, to_low, &bounds[..=split], tuning),
        || par_merge_level(from_high, to_high, &bounds[split..], tuning),
    );
}

/// Merges ascending `left` and `right` into `out`, in parallel.
fn par_merge<K: RadixKey>(left: &[K], right: &[K], out: &mut [K], tuning: &Tuning) {
    debug_assert_eq!(left.len() + right.len(), out.len());
    if out.len() <= tuning.merge_sequential_below.max(2) || left.is_empty() || right.is_empty() {
        poll_scheduler();
        merge(left, right, out);
        return;
    }
    let (left_mid, right_mid) = if left.len() >= right.len() {
        let left_mid = left.len() / 2;
        let pivot = left[left_mid].bits();
        (left_mid, right.partition_point(|k| k.bits() < pivot))
    } else {
        let right_mid = right.len() / 2;
        let pivot = right[right_mid].bits();
        (left.partition_point(|k| k.bits() <= pivot), right_mid)
    };
    let (out_low, out_high) = out.split_at_mut(left_mid + right_mid);
    crate::join(
        || par_merge(&left[..left_mid], &right[..right_mid], out_low, tuning),
        || par_merge(&left[left_mid..], &right[right_mid..], out_high, tuning),
    );
}

/// Sequential merge of ascending `left` and `right` into `out`.
///
/// From both ends at once: the front takes the smallest keys, the back the largest, each step
/// branch-free (clamped indices, a select, two counter updates). A branch-free merge waits on
/// each step's load to know the next; two independent chains overlap those waits. (Equal keys
/// are identical, so which run an equal key comes from does not matter; the front prefers
/// `left` and the back `right`, as a stable merge would.)
fn merge<K: RadixKey>(left: &[K], right: &[K], out: &mut [K]) {
    debug_assert_eq!(left.len() + right.len(), out.len());
    let (ln, rn, n) = (left.len(), right.len(), out.len());
    if ln == 0 || rn == 0 {
        out[..ln].copy_from_slice(left);
        out[ln..].copy_from_slice(right);
        return;
    }
    // Front: next unread indices; back: ends (exclusive) of the unread parts.
    let (mut lf, mut rf, mut lb, mut rb) = (0, 0, ln, rn);
    for t in 0..n / 2 {
        let (a, b) = (left[lf.min(ln - 1)], right[rf.min(rn - 1)]);
        let take_right = (lf >= ln) | ((rf < rn) & (b.bits() < a.bits()));
        out[t] = if take_right { b } else { a };
        lf += usize::from(!take_right);
        rf += usize::from(take_right);

        let (a, b) = (left[lb.max(1) - 1], right[rb.max(1) - 1]);
        let take_left = (rb == 0) | ((lb > 0) & (a.bits() > b.bits()));
        out[n - 1 - t] = if take_left { a } else { b };
        lb -= usize::from(take_left);
        rb -= usize::from(!take_left);
    }
    if n % 2 == 1 {
        // One key is left between the two chains' reads.
        out[n / 2] = if lf < lb { left[lf] } else { right[rf] };
    }
}
