//! Reductions and scans over data spread across the ranks: the [`Across`] view.

use std::iter::Sum;

use blitz_par::prelude::*;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

use crate::agree::{agree, catch, Step};
use crate::deterministic::Deterministic;
use crate::raw;
use crate::Error;

/// Elements per block of a rank's local scan: each block is scanned by one thread, after the
/// blocks' totals are known (a block of 64 Ki 8-byte elements is 512 KiB, a few tens of
/// microseconds of work, small enough to balance two to a few dozen threads).
const SCAN_BLOCK: usize = 64 * 1024;

/// Views a rank's local slice as its part of data spread across the ranks of a communicator.
///
/// The ranks' parts, read in rank order, form the global sequence: rank 0's elements first.
/// Parts may have any length, empty included.
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// let local: Vec<u64> = (0..1000).map(|i| i + 1000 * world.rank() as u64).collect();
/// let total = local.across(&world).sum().unwrap();
/// let n = 1000 * world.size() as u64;
/// assert_eq!(total, n * (n - 1) / 2);
/// ```
pub trait AcrossRanks<T> {
    /// This rank's part of the global sequence, on `comm`.
    fn across<'a, C: Communicator + ?Sized>(&'a self, comm: &'a C) -> Across<'a, T, C>;
}

impl<T> AcrossRanks<T> for [T] {
    fn across<'a, C: Communicator + ?Sized>(&'a self, comm: &'a C) -> Across<'a, T, C> {
        Across { local: self, comm }
    }
}

/// A rank's part of a sequence spread across a communicator's ranks (see [`AcrossRanks`]).
///
/// Every method is collective: all ranks of the communicator must call the same method, on
/// the same element type, in the same order. Each returns the same result on every rank
/// (a scan returns this rank's part of the result), or the same [`Error`] on every rank.
/// The local work runs on blitz-par's current pool (the global one, or the one the caller
/// has entered with `install`); only the calling thread calls MPI.
pub struct Across<'a, T, C: ?Sized> {
    pub(crate) local: &'a [T],
    pub(crate) comm: &'a C,
}

impl<'a, T, C> Across<'a, T, C>
where
    T: Equivalence + Copy + Send + Sync,
    C: Communicator + ?Sized,
{
    /// Reduces the global sequence with `op`, which must be associative; `None` when every
    /// rank's part is empty.
    ///
    /// Each rank reduces its part in parallel, then the ranks' results are gathered and
    /// combined in rank order, so `op` need not be commutative. For floating-point addition,
    /// where association changes the result, see [`deterministic`](Self::deterministic).
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![world.rank() as u64 + 1; 10];
    /// let max = local.across(&world).reduce(|a, b| a.max(b)).unwrap();
    /// assert_eq!(max, Some(world.size() as u64));
    /// ```
    pub fn reduce<F>(&self, op: F) -> Result<Option<T>, Error>
    where
        F: Fn(T, T) -> T + Sync + Send,
    {
        let step = Step::new("reduce");
        let local = catch(|| self.local.par_iter().copied().reduce_with(&op));
        let (partial, present) =
            agree::<T, _, _>(self.comm, step, 0, local, |p| u64::from(p.is_some()))?;
        let partials = self.gather_partials(partial, &present)?;
        self.finish(|| partials.into_iter().reduce(&op))
    }

    /// The sum of the global sequence (`T::sum` of nothing when it is empty).
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![2i64; 100];
    /// assert_eq!(local.across(&world).sum().unwrap(), 200 * world.size() as i64);
    /// ```
    pub fn sum(&self) -> Result<T, Error>
    where
        T: Sum<T>,
    {
        let step = Step::new("sum");
        let local = catch(|| self.local.par_iter().copied().sum::<T>());
        let (partial, _) = agree::<T, _, _>(self.comm, step, 0, local, |_| 1)?;
        let partials = self.gather_partials(Some(partial), &vec![1; self.size()])?;
        self.finish(|| partials.into_iter().sum())
    }

    /// The least element, `None` when every part is empty. Of equal least elements, the first
    /// in global order.
    pub fn min(&self) -> Result<Option<T>, Error>
    where
        T: Ord,
    {
        self.reduce(|a, b| if b < a { b } else { a })
    }

    /// The greatest element, `None` when every part is empty. Of equal greatest elements, the
    /// last in global order (as `Iterator::max`).
    pub fn max(&self) -> Result<Option<T>, Error>
    where
        T: Ord,
    {
        self.reduce(|a, b| if b >= a { b } else { a })
    }

    /// The least element by `compare`, `None` when every part is empty; the first of equals.
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![1.5f64, -0.25];
    /// assert_eq!(local.across(&world).min_by(f64::total_cmp).unwrap(), Some(-0.25));
    /// ```
    pub fn min_by<F>(&self, compare: F) -> Result<Option<T>, Error>
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync + Send,
    {
        self.reduce(|a, b| if compare(&b, &a).is_lt() { b } else { a })
    }

    /// The greatest element by `compare`, `None` when every part is empty; the last of equals.
    pub fn max_by<F>(&self, compare: F) -> Result<Option<T>, Error>
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync + Send,
    {
        self.reduce(|a, b| if compare(&b, &a).is_ge() { b } else { a })
    }

    /// The deterministic mode: reductions whose result is bit-identical whatever the number
    /// of ranks, the lengths of their parts, and the number of threads of each rank (see
    /// [`Deterministic`]).
    pub fn deterministic(&self) -> Deterministic<'a, T, C> {
        Deterministic {
            local: self.local,
            comm: self.comm,
        }
    }

    /// The inclusive prefix "sums" by the associative `op`: element `i` of the global result
    /// is `op` over global elements `0..=i`, in order. Returns this rank's part of the result
    /// (as long as its part of the input).
    ///
    /// Each rank scans its part in parallel (block totals, then each block scanned from its
    /// carry), and the ranks' totals are joined by one gather: each rank combines the totals
    /// of the ranks before it, in rank order, as its carry.
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![1u64; 3];
    /// let prefix = local.across(&world).inclusive_scan(|a, b| a + b).unwrap();
    /// let first = 3 * world.rank() as u64;
    /// assert_eq!(prefix, [first + 1, first + 2, first + 3]);
    /// ```
    pub fn inclusive_scan<F>(&self, op: F) -> Result<Vec<T>, Error>
    where
        F: Fn(T, T) -> T + Sync + Send,
    {
        self.scan(Step::new("inclusive_scan"), None, op, true)
    }

    /// The exclusive prefix "sums" by the associative `op`, starting from `identity`: element
    /// `i` of the global result is `identity` combined with global elements `0..i`, in order.
    /// Returns this rank's part of the result.
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![1u64; 3];
    /// let offsets = local.across(&world).exclusive_scan(0, |a, b| a + b).unwrap();
    /// let first = 3 * world.rank() as u64;
    /// assert_eq!(offsets, [first, first + 1, first + 2]);
    /// ```
    pub fn exclusive_scan<F>(&self, identity: T, op: F) -> Result<Vec<T>, Error>
    where
        F: Fn(T, T) -> T + Sync + Send,
    {
        self.scan(Step::new("exclusive_scan"), Some(identity), op, false)
    }

    fn size(&self) -> usize {
        self.comm.size() as usize
    }

    /// Every rank's partial result, in rank order, skipping ranks with none (`present[r]` is
    /// 1 when rank `r` has one).
    fn gather_partials(&self, partial: Option<T>, present: &[u64]) -> Result<Vec<T>, Error> {
        let counts: Vec<usize> = present.iter().map(|&p| p as usize).collect();
        let mine: Vec<T> = partial.into_iter().collect();
        raw::all_gather_varcount(self.comm, &mine, &counts)
    }

    /// Runs the last local phase, after the last collective: a panic there can leave no rank
    /// waiting, and is reported by the rank where it happened.
    fn finish<R>(&self, f: impl FnOnce() -> R) -> Result<R, Error> {
        catch(f).map_err(|message| Error::Panicked {
            rank: self.comm.rank() as usize,
            message,
        })
    }

    fn scan<F>(
        &self,
        step: Step,
        identity: Option<T>,
        op: F,
        inclusive: bool,
    ) -> Result<Vec<T>, Error>
    where
        F: Fn(T, T) -> T + Sync + Send,
    {
        let local = self.local;
        // Pass 1: the blocks' totals, in parallel.
        let totals = catch(|| {
            let totals = local
                .par_chunks(SCAN_BLOCK)
                .map(|block| {
                    block
                        .iter()
                        .copied()
                        .reduce(&op)
                        .expect("blocks are not empty")
                })
                .collect::<Vec<T>>();
            let rank_total = totals.iter().copied().reduce(&op);
            (totals, rank_total)
        });
        let ((totals, rank_total), present) =
            agree::<T, _, _>(self.comm, step, 0, totals, |(_, t)| u64::from(t.is_some()))?;
        let rank_totals = self.gather_partials(rank_total, &present)?;
        let me = self.comm.rank() as usize;
        let before = present[..me].iter().sum::<u64>() as usize;
        self.finish(|| {
            // This rank's carry: the identity, then the totals of the ranks before it.
            let mut carry = rank_totals[..before]
                .iter()
                .copied()
                .fold(identity, |acc, t| Some(acc.map_or(t, |a| op(a, t))));
            let mut carries = Vec::with_capacity(totals.len());
            for &t in &totals {
                carries.push(carry);
                carry = Some(carry.map_or(t, |c| op(c, t)));
            }
            // Pass 2: each block scanned from its carry, in parallel.
            let mut out = local.to_vec();
            out.par_chunks_mut(SCAN_BLOCK)
                .zip(carries)
                .for_each(|(block, carry)| scan_block(block, carry, &op, inclusive));
            out
        })
    }
}

/// Scans `block` in place from `carry` (`None`: nothing before it; only for an inclusive scan).
fn scan_block<T: Copy, F: Fn(T, T) -> T>(
    block: &mut [T],
    carry: Option<T>,
    op: &F,
    inclusive: bool,
) {
    let mut acc = carry;
    for x in block {
        let item = *x;
        let next = acc.map_or(item, |a| op(a, item));
        *x = if inclusive {
            next
        } else {
            acc.expect("an exclusive scan starts from its identity")
        };
        acc = Some(next);
    }
}
