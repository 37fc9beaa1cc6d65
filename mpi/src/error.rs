//! The one error type of the crate.

use std::fmt;

/// Why a distributed operation failed.
///
/// Every rank of the communicator returns an error when any rank fails: the ranks agree on
/// success before each collective step (see the crate's documentation), so a failure on one
/// rank never leaves the others waiting. All ranks return the same variant with the same
/// fields, so that they can take the same decision afterwards.
///
/// ```
/// use blitz_par_mpi::Error;
///
/// let e = Error::Panicked { rank: 2, message: "index out of bounds".into() };
/// assert_eq!(e.to_string(), "rank 2 panicked: index out of bounds");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A closure passed to the operation (a reduction's operator, a comparator, a key
    /// function) panicked on `rank`. The panic was caught there; its message is shipped to
    /// every rank.
    Panicked {
        /// The lowest rank on which a closure panicked.
        rank: usize,
        /// The panic's message (its `&str` or `String` payload).
        message: String,
    },
    /// The ranks did not call the same operation on the same element type with the same
    /// parameters: `rank` disagreed with rank 0. (MPI would have matched the mismatched
    /// collectives anyway, and read garbage or waited forever.)
    Mismatch {
        /// The first rank that disagreed with rank 0.
        rank: usize,
        /// What differed, in words.
        message: String,
    },
    /// A count does not fit MPI's `int` count type and this operation cannot split it.
    CountOverflow {
        /// What was being counted.
        what: &'static str,
        /// The count.
        count: u64,
    },
    /// The communicator is an inter-communicator; the operations need an intra-communicator
    /// (a world, or one made by splitting or duplicating it).
    InterCommunicator,
    /// MPI was already initialised, or could not be.
    Initialization(String),
    /// The MPI library granted less thread support than the operations need.
    ThreadLevel {
        /// What the crate asked for.
        requested: mpi::Threading,
        /// What the library granted.
        provided: mpi::Threading,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Panicked { rank, message } => write!(f, "rank {rank} panicked: {message}"),
            Error::Mismatch { rank, message } => {
                write!(f, "rank {rank} disagrees with rank 0: {message}")
            }
            Error::CountOverflow { what, count } => write!(
                f,
                "{what}: {count} does not fit MPI's count type (at most {})",
                i32::MAX
            ),
            Error::InterCommunicator => {
                f.write_str("an inter-communicator was given where an intra-communicator is needed")
            }
            Error::Initialization(message) => write!(f, "MPI initialisation failed: {message}"),
            Error::ThreadLevel {
                requested,
                provided,
            } => write!(
                f,
                "MPI granted thread support {provided:?}, the operations need {requested:?}"
            ),
        }
    }
}

impl std::error::Error for Error {}
