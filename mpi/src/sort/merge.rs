//! The parallel stable multiway merge that ends the sample sort: the runs a rank received, one
//! per sender in rank order, merged into one sorted vector.
//!
//! The output is cut into pieces that fit in a core's L2 cache: the longest run's middle
//! element is the pivot, binary searches find where it falls in the other runs, and the two
//! sides are merged by `blitz_par::join`. A piece merges its runs pairwise, as a balanced tree,
//! through a buffer of its own size, so `k` runs cost one trip through memory plus `log2 k`
//! in-cache levels.
//!
//! Stability: equal elements keep their run order (and their order within a run). A pivot at
//! position `m` of run `L` sends to the left the elements that precede it in the merged order:
//! those `<= pivot` of runs before `L`, the first `m` of run `L`, and those `< pivot` of runs
//! after `L`.
//!
//! Elements are `Copy` (they came through MPI), so a panicking comparator leaves nothing to
//! drop twice; the half-written output is then dropped as `MaybeUninit`.

use std::cmp::Ordering;
use std::mem::MaybeUninit;

/// Bytes of output per sequential piece (a piece and its buffer should stay in L2).
const PIECE_BYTES: usize = 128 * 1024;

/// Merges the sorted `runs` into one sorted vector, stably, in parallel on blitz-par's pool.
pub(crate) fn par_merge<T, F>(runs: &[&[T]], compare: &F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let total: usize = runs.iter().map(|r| r.len()).sum();
    let mut out: Vec<MaybeUninit<T>> = Vec::with_capacity(total);
    // SAFETY: `MaybeUninit<T>` needs no initialisation; the capacity is `total`.
    unsafe { out.set_len(total) };
    let piece = (PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1024);
    let runs: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    merge_into(&runs, &mut out, compare, piece);
    let mut out = std::mem::ManuallyDrop::new(out);
    // SAFETY: `merge_into` writes every element of `out` (its pieces partition it, and each
    // piece's merge writes all of its slots); `MaybeUninit<T>` has `T`'s layout.
    unsafe { Vec::from_raw_parts(out.as_mut_ptr().cast::<T>(), out.len(), out.capacity()) }
}

/// Merges `runs` (none empty) into `out`, whose length is their total; writes every slot.
fn merge_into<T, F>(runs: &[&[T]], out: &mut [MaybeUninit<T>], compare: &F, piece: usize)
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let longest = (0..runs.len()).max_by_key(|&i| runs[i].len());
    let Some(longest) = longest else { return };
    if out.len() <= piece || runs[longest].len() < 2 || runs.len() == 1 {
        return merge_sequential(runs, out, compare);
    }
    let mid = runs[longest].len() / 2;
    let pivot = &runs[longest][mid];
    let mut left = Vec::with_capacity(runs.len());
    let mut right = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter().enumerate() {
        let cut = match i.cmp(&longest) {
            Ordering::Less => run.partition_point(|x| compare(x, pivot) != Ordering::Greater),
            Ordering::Equal => mid,
            Ordering::Greater => run.partition_point(|x| compare(x, pivot) == Ordering::Less),
        };
        let (l, r) = run.split_at(cut);
        if !l.is_empty() {
            left.push(l);
        }
        if !r.is_empty() {
            right.push(r);
        }
    }
    let left_len: usize = left.iter().map(|r| r.len()).sum();
    let (out_left, out_right) = out.split_at_mut(left_len);
    blitz_par::join(
        || merge_into(&left, out_left, compare, piece),
        || merge_into(&right, out_right, compare, piece),
    );
}

/// Merges `runs` into `out` on this thread: two runs directly, more as a balanced tree of
/// pairwise merges through a buffer of `out`'s length.
fn merge_sequential<T, F>(runs: &[&[T]], out: &mut [MaybeUninit<T>], compare: &F)
where
    T: Copy,
    F: Fn(&T, &T) -> Ordering,
{
    match runs {
        [] => {}
        [only] => copy_into(only, out),
        [a, b] => merge_two(a, b, out, compare),
        _ => {
            let mut buffer: Vec<MaybeUninit<T>> = Vec::with_capacity(out.len());
            // SAFETY: `MaybeUninit<T>` needs no initialisation; the capacity is `out.len()`.
            unsafe { buffer.set_len(out.len()) };
            merge_tree(runs, out, &mut buffer, compare);
        }
    }
}

/// Merges `runs` into `out`, using `spare` (of the same length) for the levels below.
fn merge_tree<T, F>(
    runs: &[&[T]],
    out: &mut [MaybeUninit<T>],
    spare: &mut [MaybeUninit<T>],
    compare: &F,
) where
    T: Copy,
    F: Fn(&T, &T) -> Ordering,
{
    match runs {
        [only] => copy_into(only, out),
        [a, b] => merge_two(a, b, out, compare),
        _ => {
            let (first, second) = runs.split_at(runs.len() / 2);
            let first_len: usize = first.iter().map(|r| r.len()).sum();
            let (spare_first, spare_second) = spare.split_at_mut(first_len);
            let (out_first, out_second) = out.split_at_mut(first_len);
            merge_tree(first, spare_first, out_first, compare);
            merge_tree(second, spare_second, out_second, compare);
            // SAFETY: the two calls above wrote every slot of `spare_first` and
            // `spare_second` (a merge writes its whole output).
            let (a, b) = unsafe { (assume_init(spare_first), assume_init(spare_second)) };
            merge_two(a, b, out, compare);
        }
    }
}

/// # Safety
///
/// Every element of `s` must be initialised.
unsafe fn assume_init<T>(s: &[MaybeUninit<T>]) -> &[T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller promises initialised elements.
    unsafe { &*(s as *const [MaybeUninit<T>] as *const [T]) }
}

fn copy_into<T: Copy>(src: &[T], out: &mut [MaybeUninit<T>]) {
    for (o, &x) in out.iter_mut().zip(src) {
        o.write(x);
    }
}

/// Merges `a` and `b` into `out` (of their total length), taking from `a` on ties.
///
/// The loop selects without a branch on the comparison (the compiler turns the choice into
/// conditional moves), which matters for random keys, where a branch is mispredicted about
/// every other element.
fn merge_two<T, F>(a: &[T], b: &[T], out: &mut [MaybeUninit<T>], compare: &F)
where
    T: Copy,
    F: Fn(&T, &T) -> Ordering,
{
    debug_assert_eq!(a.len() + b.len(), out.len());
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let take_b = compare(&b[j], &a[i]) == Ordering::Less;
        out[k].write(if take_b { b[j] } else { a[i] });
        k += 1;
        i += usize::from(!take_b);
        j += usize::from(take_b);
    }
    copy_into(&a[i..], &mut out[k..]);
    copy_into(&b[j..], &mut out[k + a.len() - i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(seed: u64, count: usize, len: usize, distinct: u64) -> Vec<Vec<(u64, usize)>> {
        let mut state = seed;
        (0..count)
            .map(|r| {
                let n = (crate::tests::splitmix(&mut state) as usize) % (len + 1);
                let mut run: Vec<(u64, usize)> = (0..n)
                    .map(|i| (crate::tests::splitmix(&mut state) % distinct, r * len + i))
                    .collect();
                run.sort_by_key(|e| e.0);
                run
            })
            .collect()
    }

    #[test]
    fn merges_match_a_stable_sort_of_the_concatenation() {
        for (seed, count, len, distinct) in [
            (1, 1, 5000, 100),
            (2, 2, 5000, 1_000_000),
            (3, 3, 3000, 7),
            (4, 7, 4000, 1),
            (5, 16, 700, 50),
            (6, 5, 0, 10),
        ] {
            let runs = runs_of(seed, count, len, distinct);
            let refs: Vec<&[(u64, usize)]> = runs.iter().map(|r| &r[..]).collect();
            let mut expected: Vec<(u64, usize)> = runs.concat();
            expected.sort_by_key(|e| e.0);
            let compare = |x: &(u64, usize), y: &(u64, usize)| x.0.cmp(&y.0);
            let small = merge_into_with_piece(&refs, &compare, 64);
            assert_eq!(small, expected, "pieces of 64, seed {seed}");
            assert_eq!(par_merge(&refs, &compare), expected, "seed {seed}");
        }
    }

    fn merge_into_with_piece<T: Copy + Send + Sync>(
        runs: &[&[T]],
        compare: &(impl Fn(&T, &T) -> Ordering + Sync),
        piece: usize,
    ) -> Vec<T> {
        let total: usize = runs.iter().map(|r| r.len()).sum();
        let mut out: Vec<MaybeUninit<T>> = (0..total).map(|_| MaybeUninit::uninit()).collect();
        let runs: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
        merge_into(&runs, &mut out, compare, piece);
        // SAFETY: `merge_into` wrote every element.
        out.into_iter()
            .map(|x| unsafe { x.assume_init() })
            .collect()
    }
}
