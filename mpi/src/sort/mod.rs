//! The distributed sample sort.
//!
//! 1. **Local sort.** Each rank sorts its part with blitz-par (`par_sort_unstable`'s radix sort
//!    for primitive keys, the stable sorts for the `_by` forms).
//! 2. **Sampling.** Each rank takes `s = OVERSAMPLING * P` evenly spaced elements of its sorted
//!    part (all of them if it has fewer), each standing for the elements up to the next one
//!    (its weight). Rank 0 gathers them, sorts them, and picks `P - 1` splitters at the
//!    weighted quantiles `k N / P`; it broadcasts them.
//! 3. **Exchange.** Each rank cuts its sorted part at the splitters (binary searches), the
//!    ranks swap their counts (`MPI_Alltoall`) and then the elements, in one
//!    `MPI_Alltoallv`.
//! 4. **Merge.** Each rank merges the `P` sorted runs it received, in parallel.
//!
//! Ties are broken by global position (an element's rank offset plus its index in the sorted
//! local part), so every key is distinct to the splitters: equal keys spread over the ranks
//! like any others, and one rank holding all the data, or all keys being equal, balances as
//! well as distinct keys. The stable forms stay stable: the global position orders equal keys
//! as the input did, and the merge takes equal elements in sender order.
//!
//! **Balance.** A sample stands for at most `ceil(n_i / s)` elements of its rank, so a
//! splitter's weighted quantile misses its true rank by less than `N / s + P`, and a rank's
//! part differs from `N / P` by less than `2 (N / s + P)`: with `s = 32 P`, that is
//! `N / (16 P) + 2P`, within 10% of `N / P` once `N >= 54 P^2`, whatever the keys. The
//! crate's README compares this with random sampling at 64 and 1,024 ranks.

mod merge;

use std::cmp::Ordering;
use std::time::{Duration, Instant};

use blitz_par::prelude::*;
use mpi::collective::CommunicatorCollectives;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

use crate::agree::{agree, catch, Step};
use crate::raw;
use crate::Error;

/// Samples per rank and per destination rank: each rank contributes `OVERSAMPLING * P`
/// samples (see the module's documentation for the bound this gives).
pub const OVERSAMPLING: usize = 32;

/// Where a distributed sort spent its time on this rank, from
/// [`par_sort_unstable_profiled`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SortProfile {
    /// Sorting the local part.
    pub local_sort: Duration,
    /// Drawing the sample, choosing and broadcasting the splitters, cutting the local part.
    pub sampling: Duration,
    /// Swapping counts and elements.
    pub exchange: Duration,
    /// Merging the received runs, and the final agreement.
    pub merge: Duration,
    /// Elements this rank sent to other ranks.
    pub sent: usize,
    /// Elements this rank received from other ranks.
    pub received: usize,
}

/// Sorts the global sequence (the ranks' parts in rank order) in ascending order, without
/// keeping the order of equal elements; returns this rank's part of the sorted whole, about
/// `N / P` elements.
///
/// Collective over `comm`. Errors (on every rank alike) when the ranks call different
/// operations or element types, or when a comparison panics somewhere.
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let local: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9e37_79b9) % 10_007).collect();
/// let sorted = blitz_par_mpi::par_sort_unstable(&world, local).unwrap();
/// assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
/// ```
pub fn par_sort_unstable<T, C>(comm: &C, local: Vec<T>) -> Result<Vec<T>, Error>
where
    T: Equivalence + Ord + Copy + Send + Sync,
    C: Communicator + ?Sized,
{
    par_sort_unstable_profiled(comm, local).map(|(v, _)| v)
}

/// [`par_sort_unstable`], and where its time went on this rank.
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let local: Vec<u32> = (0..100_000u32).rev().collect();
/// let (sorted, profile) = blitz_par_mpi::par_sort_unstable_profiled(&world, local).unwrap();
/// println!("local sort {:?}, exchange {:?}", profile.local_sort, profile.exchange);
/// # drop(sorted);
/// ```
pub fn par_sort_unstable_profiled<T, C>(
    comm: &C,
    local: Vec<T>,
) -> Result<(Vec<T>, SortProfile), Error>
where
    T: Equivalence + Ord + Copy + Send + Sync,
    C: Communicator + ?Sized,
{
    sample_sort(
        comm,
        Step::new("par_sort_unstable"),
        local,
        |v| v.par_sort_unstable(),
        &T::cmp,
    )
}

/// Sorts the global sequence in ascending order, stably (equal elements keep their global
/// order); returns this rank's part of the sorted whole.
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let sorted = blitz_par_mpi::par_sort(&world, vec![3i32, 1, 2]).unwrap();
/// # drop(sorted);
/// ```
pub fn par_sort<T, C>(comm: &C, local: Vec<T>) -> Result<Vec<T>, Error>
where
    T: Equivalence + Ord + Copy + Send + Sync,
    C: Communicator + ?Sized,
{
    sample_sort(
        comm,
        Step::new("par_sort"),
        local,
        |v| v.par_sort(),
        &T::cmp,
    )
    .map(|(v, _)| v)
}

/// Sorts the global sequence stably by `compare`, which must be a total order; returns this
/// rank's part of the sorted whole.
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let local = vec![2.5f64, -1.0, 0.0];
/// let sorted = blitz_par_mpi::par_sort_by(&world, local, f64::total_cmp).unwrap();
/// # drop(sorted);
/// ```
pub fn par_sort_by<T, C, F>(comm: &C, local: Vec<T>, compare: F) -> Result<Vec<T>, Error>
where
    T: Equivalence + Copy + Send + Sync,
    C: Communicator + ?Sized,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    sample_sort(
        comm,
        Step::new("par_sort_by"),
        local,
        |v| v.par_sort_by(&compare),
        &compare,
    )
    .map(|(v, _)| v)
}

/// Sorts the global sequence stably by the key `f` gives each element; returns this rank's
/// part of the sorted whole. The elements travel whole, so records sort by one of their
/// fields.
///
/// ```no_run
/// use blitz_par_mpi::mpi::traits::Equivalence;
/// use blitz_par_mpi::prelude::*;
///
/// #[derive(Clone, Copy, Equivalence)]
/// struct Particle {
///     cell: u64,
///     mass: f64,
/// }
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let local = vec![Particle { cell: 7, mass: 1.0 }, Particle { cell: 2, mass: 0.5 }];
/// let by_cell = blitz_par_mpi::par_sort_by_key(&world, local, |p| p.cell).unwrap();
/// # drop(by_cell);
/// ```
pub fn par_sort_by_key<T, C, K, F>(comm: &C, local: Vec<T>, f: F) -> Result<Vec<T>, Error>
where
    T: Equivalence + Copy + Send + Sync,
    C: Communicator + ?Sized,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    sample_sort(
        comm,
        Step::new("par_sort_by_key"),
        local,
        |v| v.par_sort_by_key(&f),
        &|a: &T, b: &T| f(a).cmp(&f(b)),
    )
    .map(|(v, _)| v)
}

/// The sort behind every public form: `local_sort` sorts a rank's part consistently with
/// `compare`.
fn sample_sort<T, C, S, F>(
    comm: &C,
    step: Step,
    mut local: Vec<T>,
    local_sort: S,
    compare: &F,
) -> Result<(Vec<T>, SortProfile), Error>
where
    T: Equivalence + Copy + Send + Sync,
    C: Communicator + ?Sized,
    S: FnOnce(&mut [T]),
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    let mut profile = SortProfile::default();
    let clock = Instant::now();

    // 1. Local sort.
    let sorted = catch(|| local_sort(&mut local));
    let (_, lengths) = agree::<T, _, _>(comm, step, OVERSAMPLING as u64, sorted, |_| {
        local.len() as u64
    })?;
    profile.local_sort = clock.elapsed();
    if size == 1 {
        return Ok((local, profile));
    }
    let lengths: Vec<usize> = lengths.iter().map(|&n| n as usize).collect();
    let offset: usize = lengths[..me].iter().sum();

    // 2. Sampling: evenly spaced elements of each sorted part, and their global positions.
    let clock = Instant::now();
    let per_rank = OVERSAMPLING * size;
    let positions = sample_positions(local.len(), per_rank);
    let keys: Vec<T> = positions.iter().map(|&p| local[p]).collect();
    let global: Vec<u64> = positions.iter().map(|&p| (offset + p) as u64).collect();
    let counts: Vec<usize> = lengths.iter().map(|&n| n.min(per_rank)).collect();
    let gathered_keys = raw::gather_varcount(comm, 0, &keys, &counts)?;
    let gathered_positions = raw::gather_varcount(comm, 0, &global, &counts)?;
    let splitters = catch(|| match (gathered_keys, gathered_positions) {
        (Some(keys), Some(positions)) => {
            choose_splitters(&keys, &positions, &lengths, per_rank, compare)
        }
        _ => Vec::new(),
    });
    let (splitters, splitter_counts) =
        agree::<T, _, _>(comm, step.next(), 0, splitters, |s| s.len() as u64)?;
    let chosen = splitter_counts[0] as usize;
    let splitter_keys: Vec<T> = splitters.iter().map(|s| s.0).collect();
    let splitter_positions: Vec<u64> = splitters.iter().map(|s| s.1).collect();
    let splitter_keys = raw::broadcast(comm, 0, &splitter_keys, chosen)?;
    let splitter_positions = raw::broadcast(comm, 0, &splitter_positions, chosen)?;

    // 3. Cut the sorted part at the splitters; swap counts, then elements.
    let cuts = catch(|| {
        let mut cuts: Vec<usize> = splitter_keys
            .iter()
            .zip(&splitter_positions)
            .map(|(key, &position)| cut(&local, offset, key, position as usize, compare))
            .collect();
        // Splitters past the last sample send nothing further.
        cuts.resize(size - 1, local.len());
        cuts
    });
    let (cuts, _) = agree::<T, _, _>(comm, step.next().next(), 0, cuts, |_| 0)?;
    profile.sampling = clock.elapsed();
    let clock = Instant::now();
    let send_counts: Vec<usize> = std::iter::once(0)
        .chain(cuts.iter().copied())
        .zip(cuts.iter().copied().chain(std::iter::once(local.len())))
        .map(|(a, b)| b - a)
        .collect();
    let send_words: Vec<u64> = send_counts.iter().map(|&c| c as u64).collect();
    let mut recv_words = vec![0u64; size];
    comm.all_to_all_into(&send_words[..], &mut recv_words[..]);
    let recv_counts: Vec<usize> = recv_words.iter().map(|&c| c as usize).collect();
    let received: usize = recv_counts.iter().sum();
    let (_, largest) = agree::<T, _, _>(comm, step.next().next().next(), 0, Ok(()), |_| {
        received.max(local.len()) as u64
    })?;
    let largest = largest.into_iter().max().unwrap_or(0) as usize;
    let exchanged = raw::all_to_all_varcount(comm, &local, &send_counts, &recv_counts, largest);
    drop(local);
    profile.exchange = clock.elapsed();
    profile.sent = send_counts.iter().sum::<usize>() - send_counts[me];
    profile.received = received - recv_counts[me];

    // 4. Merge the runs, one per sender.
    let clock = Instant::now();
    let merged = catch(|| {
        let mut runs = Vec::with_capacity(size);
        let mut at = 0;
        for &c in &recv_counts {
            runs.push(&exchanged[at..at + c]);
            at += c;
        }
        merge::par_merge(&runs, compare)
    });
    let (merged, _) = agree::<T, _, _>(comm, step.next().next().next().next(), 0, merged, |_| 0)?;
    profile.merge = clock.elapsed();
    debug_assert_eq!(merged.len(), received);
    Ok((merged, profile))
}

/// Positions of `per_rank` evenly spaced elements of a part of `len` (all of them if fewer):
/// `floor(j len / per_rank)`, starting at 0.
fn sample_positions(len: usize, per_rank: usize) -> Vec<usize> {
    let count = len.min(per_rank);
    (0..count)
        .map(|j| (j as u128 * len as u128 / count as u128) as usize)
        .collect()
}

/// On rank 0: the splitters, as (key, global position), from every rank's samples (`keys`
/// and `positions` in rank order, `lengths` the ranks' part lengths). Splitter `k` is the first
/// sample, in (key, position) order, with at least `k N / P` elements of weight before it;
/// fewer than `P - 1` come back when the last targets lie past every sample.
fn choose_splitters<T, F>(
    keys: &[T],
    positions: &[u64],
    lengths: &[usize],
    per_rank: usize,
    compare: &F,
) -> Vec<(T, u64)>
where
    T: Copy + Send + Sync,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let size = lengths.len();
    let total: usize = lengths.iter().sum();
    // Each sample's weight: the elements from it to the next sample of its rank.
    let mut weights = Vec::with_capacity(keys.len());
    let mut at = 0;
    let mut start = 0u64;
    for &n in lengths {
        let count = n.min(per_rank);
        for j in 0..count {
            let here = positions[at + j] - start;
            let next = if j + 1 < count {
                positions[at + j + 1] - start
            } else {
                n as u64
            };
            weights.push(next - here);
        }
        at += count;
        start += n as u64;
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.par_sort_unstable_by(|&a, &b| {
        compare(&keys[a], &keys[b]).then(positions[a].cmp(&positions[b]))
    });
    let mut splitters = Vec::with_capacity(size - 1);
    let mut before = 0u128;
    for &i in &order {
        while splitters.len() < size - 1 {
            let k = splitters.len() as u128 + 1;
            if before * size as u128 >= k * total as u128 {
                splitters.push((keys[i], positions[i]));
            } else {
                break;
            }
        }
        before += u128::from(weights[i]);
    }
    splitters
}

/// How many elements of the sorted `local` (at global positions `offset..`) come before the
/// splitter (`key`, `position`) in (key, position) order.
fn cut<T, F>(local: &[T], offset: usize, key: &T, position: usize, compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let below = local.partition_point(|x| compare(x, key) == Ordering::Less);
    let equal_end =
        below + local[below..].partition_point(|x| compare(x, key) != Ordering::Greater);
    below
        + position
            .saturating_sub(offset + below)
            .min(equal_end - below)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_positions_are_evenly_spaced_and_start_at_zero() {
        assert_eq!(sample_positions(10, 4), [0, 2, 5, 7]);
        assert_eq!(sample_positions(3, 8), [0, 1, 2]);
        assert!(sample_positions(0, 8).is_empty());
    }

    #[test]
    fn cuts_break_ties_by_global_position() {
        let local = [1, 2, 2, 2, 2, 3];
        let cmp = |a: &i32, b: &i32| a.cmp(b);
        // This part starts at global position 100: its 2s are at 101..105.
        assert_eq!(cut(&local, 100, &2, 0, &cmp), 1);
        assert_eq!(cut(&local, 100, &2, 103, &cmp), 3);
        assert_eq!(cut(&local, 100, &2, 1000, &cmp), 5);
        assert_eq!(cut(&local, 100, &0, 1000, &cmp), 0);
        assert_eq!(cut(&local, 100, &9, 0, &cmp), 6);
    }

    /// Simulates the sampling and cutting of `parts` over `parts.len()` ranks; returns the
    /// parts' sizes after the exchange.
    fn simulate(parts: &[Vec<u64>]) -> Vec<usize> {
        let size = parts.len();
        let per_rank = OVERSAMPLING * size;
        let lengths: Vec<usize> = parts.iter().map(|p| p.len()).collect();
        let (mut keys, mut positions) = (Vec::new(), Vec::new());
        let mut offset = 0;
        for p in parts {
            for j in sample_positions(p.len(), per_rank) {
                keys.push(p[j]);
                positions.push((offset + j) as u64);
            }
            offset += p.len();
        }
        let cmp = |a: &u64, b: &u64| a.cmp(b);
        let splitters = choose_splitters(&keys, &positions, &lengths, per_rank, &cmp);
        let mut sizes = vec![0; size];
        let mut offset = 0;
        for p in parts {
            let mut cuts: Vec<usize> = splitters
                .iter()
                .map(|(k, pos)| cut(p, offset, k, *pos as usize, &cmp))
                .collect();
            cuts.resize(size - 1, p.len());
            let mut prev = 0;
            for (dest, &c) in cuts.iter().chain(std::iter::once(&p.len())).enumerate() {
                sizes[dest] += c - prev;
                prev = c;
            }
            offset += p.len();
        }
        sizes
    }

    #[test]
    fn balance_is_within_ten_percent_whatever_the_keys() {
        let mut state = 42;
        for size in [2usize, 3, 4, 8, 16] {
            let n = 200 * size * size * OVERSAMPLING;
            // Random keys in random-length parts (some empty), all keys equal, few distinct
            // keys, and everything on one rank.
            let random: Vec<u64> = (0..n).map(|_| crate::tests::splitmix(&mut state)).collect();
            let cases: Vec<(&str, Vec<Vec<u64>>)> = vec![
                ("random", split_randomly(&random, size, &mut state)),
                ("equal", split_randomly(&vec![5; n], size, &mut state)),
                (
                    "three keys",
                    split_randomly(
                        &random.iter().map(|x| x % 3).collect::<Vec<_>>(),
                        size,
                        &mut state,
                    ),
                ),
                ("one rank", {
                    let mut parts = vec![Vec::new(); size];
                    parts[size / 2] = random.clone();
                    parts
                }),
            ];
            for (name, mut parts) in cases {
                for p in &mut parts {
                    p.sort_unstable();
                }
                let sizes = simulate(&parts);
                assert_eq!(sizes.iter().sum::<usize>(), n);
                let ideal = n as f64 / size as f64;
                for &s in &sizes {
                    assert!(
                        (s as f64 - ideal).abs() <= 0.1 * ideal,
                        "{name}, {size} ranks: {sizes:?}"
                    );
                }
            }
        }
    }

    fn split_randomly(data: &[u64], size: usize, state: &mut u64) -> Vec<Vec<u64>> {
        let mut cuts: Vec<usize> = (0..size - 1)
            .map(|_| (crate::tests::splitmix(state) as usize) % (data.len() + 1))
            .collect();
        cuts.sort_unstable();
        // One part is always empty when there are three or more.
        if size >= 3 {
            cuts[1] = cuts[0];
        }
        let mut parts = Vec::new();
        let mut prev = 0;
        for c in cuts.into_iter().chain(std::iter::once(data.len())) {
            parts.push(data[prev..c].to_vec());
            prev = c;
        }
        parts
    }
}
