//! The exact sum of floating-point data spread across the ranks.

use blitz_par::iter::{ExactSum, ExactSummand};
use blitz_par::prelude::*;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

use crate::agree::{agree, catch, Step};
use crate::raw;
use crate::{Across, Error};

/// The float types [`Across::exact_sum`] sums: `f64` and `f32`.
pub trait ExactFloat: ExactSummand + Copy + sealed::Sealed {
    /// The accumulator rounded once to this type.
    fn round(sum: &ExactSum) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

impl ExactFloat for f64 {
    fn round(sum: &ExactSum) -> f64 {
        sum.to_f64()
    }
}

impl ExactFloat for f32 {
    fn round(sum: &ExactSum) -> f32 {
        sum.to_f32()
    }
}

impl<T, C> Across<'_, T, C>
where
    T: ExactFloat + Equivalence + Send + Sync,
    C: Communicator + ?Sized,
{
    /// The correctly rounded sum of the global sequence (as blitz-par's `exact_sum` and
    /// Python's `math.fsum`): the same bits for any number of ranks, any cut of the data and
    /// any number of threads, with no precision lost to cancellation.
    ///
    /// Each rank adds its part into blitz-par's exact accumulator ([`ExactSum`]) in parallel;
    /// the accumulators travel as their `ExactSum::WORDS` integer words (one allgather, 280
    /// bytes per rank), are merged exactly, and rounded once.
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// // Rank 0 holds 1e308 and 1.0, the last rank -1e308: plain addition loses the 1.0.
    /// let last = world.size() - 1;
    /// let mut local = Vec::new();
    /// if world.rank() == 0 {
    ///     local.extend([1e308, 1.0]);
    /// }
    /// if world.rank() == last {
    ///     local.push(-1e308);
    /// }
    /// assert_eq!(local.across(&world).exact_sum().unwrap(), 1.0);
    /// ```
    pub fn exact_sum(&self) -> Result<T, Error> {
        let step = Step::new("exact_sum");
        let words = ExactSum::WORDS;
        let local = catch(|| {
            self.local
                .par_iter()
                .copied()
                .collect::<ExactSum>()
                .to_words()
        });
        let (mine, _) = agree::<T, _, _>(self.comm, step, words as u64, local, |_| 0)?;
        let size = self.comm.size() as usize;
        let all = raw::all_gather_varcount(self.comm, &mine, &vec![words; size])?;
        let mut total = ExactSum::new();
        for (rank, part) in all.chunks_exact(words).enumerate() {
            let part = ExactSum::from_words(part).ok_or_else(|| Error::Mismatch {
                rank,
                message: "its exact-sum words are not a valid accumulator".to_owned(),
            })?;
            total.merge(&part);
        }
        Ok(<T as ExactFloat>::round(&total))
    }
}
