//! blitz-par-mpi: distributed sort, reductions and scans over MPI ranks, each rank running
//! blitz-par's thread pool.
//!
//! HPC programs pair MPI between nodes with threads within each node. This crate gives a Rust
//! program that pairing: each rank holds a part of the data, its local work runs on blitz-par's
//! pool, and the ranks talk through MPI collectives (rsmpi, over OpenMPI or MPICH).
//!
//! - Reductions and scans, through the [`Across`] view of a rank's slice:
//!   [`sum`](Across::sum), [`reduce`](Across::reduce), [`min`](Across::min),
//!   [`max`](Across::max), [`inclusive_scan`](Across::inclusive_scan),
//!   [`exclusive_scan`](Across::exclusive_scan), and a [`deterministic`](Across::deterministic)
//!   mode whose results are the same bits for any number of ranks and threads, and
//!   [`exact_sum`](Across::exact_sum), the correctly rounded sum of `f64` or `f32` data.
//! - A distributed sample sort: [`par_sort_unstable`], [`par_sort`], [`par_sort_by`],
//!   [`par_sort_by_key`]. The ranks' outputs, in rank order, form the sorted whole, within
//!   10% of `N / P` elements each.
//!
//! ```no_run
//! use blitz_par_mpi::prelude::*;
//!
//! let universe = blitz_par_mpi::initialize().unwrap();
//! let world = universe.world();
//! let local: Vec<u64> = (0..1_000_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
//! let total = local.across(&world).reduce(|a, b| a ^ b).unwrap();
//! let sorted = blitz_par_mpi::par_sort_unstable(&world, local).unwrap();
//! println!("rank {} holds {} keys; xor of all: {total:?}", world.rank(), sorted.len());
//! ```
//!
//! Run it with `mpirun -n 4 target/release/...`; see the crate's README for clusters (threads
//! per rank, `BLITZ_NUM_THREADS`, pinning).
//!
//! # Every rank fails, or none
//!
//! Every operation is collective: all ranks of the communicator call it, in the same order.
//! MPI cannot cancel a collective that some ranks have entered, so a rank that fails (a
//! comparator or operator that panics, a different operation or element type than the
//! others) would leave the others waiting forever. Instead each operation runs its local
//! phases under `catch_unwind`, and before each collective step the ranks agree, in one small
//! allgather, that every rank is ready for it. When one is not, all return the same [`Error`],
//! with the failing rank and its panic message. A panic in the last local phase, after the last
//! collective, is reported by the rank where it happened (no rank is left waiting then).
//!
//! # Threads and MPI
//!
//! Only the thread that calls an operation calls MPI; blitz-par's pool threads never do. So
//! MPI's `Funneled` level suffices when operations are called from the main thread, which is
//! what [`initialize`] asks for (and checks it got). A program that calls the operations from
//! another thread (one at a time) needs `Serialized`, and one that calls them from several
//! threads at once `Multiple`, each on its own communicator: initialise MPI itself with
//! `mpi::initialize_with_threading`.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod agree;
mod deterministic;
mod error;
mod exact;
mod raw;
mod reduce;
mod sort;

pub use deterministic::{Deterministic, LEAF_LEN};
pub use error::Error;
pub use exact::ExactFloat;
#[doc(hidden)]
pub use raw::set_max_count_for_tests;
pub use reduce::{Across, AcrossRanks};
pub use sort::{
    par_sort, par_sort_by, par_sort_by_key, par_sort_unstable, par_sort_unstable_profiled,
    SortProfile, OVERSAMPLING,
};

/// The rsmpi crate this one is built on, for its communicators, `Equivalence` derive and
/// the rest of MPI.
pub use mpi;

/// The traits a program needs: [`AcrossRanks`], and rsmpi's communicator and root traits.
pub mod prelude {
    pub use crate::AcrossRanks;
    pub use mpi::traits::{Communicator, CommunicatorCollectives, Root};
}

/// Initialises MPI with the thread support the operations need when called from this thread
/// (`Funneled`: only this thread calls MPI; blitz-par's workers never do), and checks that
/// the library granted it.
///
/// Call it once, from the main thread; MPI is finalised when the returned universe is dropped.
///
/// ```no_run
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// # drop(world);
/// ```
pub fn initialize() -> Result<mpi::environment::Universe, Error> {
    let requested = mpi::Threading::Funneled;
    let (universe, provided) = mpi::initialize_with_threading(requested).ok_or_else(|| {
        Error::Initialization("MPI was already initialised in this process".to_owned())
    })?;
    if provided < requested {
        return Err(Error::ThreadLevel {
            requested,
            provided,
        });
    }
    Ok(universe)
}

#[cfg(test)]
pub(crate) mod tests {
    /// SplitMix64: a seeded generator for the unit tests.
    pub(crate) fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_133b_111b);
        z ^ (z >> 31)
    }
}
