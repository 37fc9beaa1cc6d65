//! Agreeing on success before each collective step, so that a failure on one rank never leaves
//! the others waiting.
//!
//! MPI has no way to cancel a collective that some ranks entered: if one rank's comparator
//! panics during its local sort while the others go on to the sample exchange, they wait for it
//! forever. So every operation is cut into steps: a local phase, run under `catch_unwind`, then
//! one small `MPI_Allgather` of a fixed-size header (the step's name, the element type's
//! fingerprint, the operation's parameters, the local outcome and one word of payload, usually
//! the local length). Every rank receives every header, so all of them take the same decision:
//! go on to the next collective, or return the same [`Error`] (with the failing rank's panic
//! message, broadcast from it). Mismatched calls, where one rank sorts while another sums,
//! or sums `u64` where another sums `i64`, are caught by the same headers instead of
//! matching the wrong collectives.
//!
//! The cost is one allgather of 7 words per rank per step: latency, not bandwidth (a few
//! microseconds within a node, tens across nodes), paid two to five times per operation.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

use mpi::collective::CommunicatorCollectives;
use mpi::collective::Root;
use mpi::topology::Communicator;

use crate::Error;

/// Longest panic message shipped to the other ranks, in bytes.
const MAX_MESSAGE: usize = 4096;

/// Words in a header.
const HEADER: usize = 7;

/// An operation and its step, as rank headers name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// The public operation, for messages.
    pub name: &'static str,
    /// Which collective step of it this is (0 for the first).
    pub phase: u8,
}

impl Step {
    /// The first step of `name`.
    pub(crate) const fn new(name: &'static str) -> Step {
        Step { name, phase: 0 }
    }

    /// The step after this one.
    pub(crate) const fn next(self) -> Step {
        Step {
            name: self.name,
            phase: self.phase + 1,
        }
    }

    fn code(self) -> u64 {
        (fnv1a(self.name.as_bytes()) << 8) | u64::from(self.phase)
    }
}

/// FNV-1a, 64 bits: a fingerprint that is the same in every process (`std`'s hashers are
/// seeded per process).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn type_fingerprint<T>() -> u64 {
    let name = std::any::type_name::<T>();
    fnv1a(name.as_bytes())
        ^ (std::mem::size_of::<T>() as u64).rotate_left(48)
        ^ (std::mem::align_of::<T>() as u64).rotate_left(40)
}

/// Runs `f`, turning a panic into its message.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(&*payload))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a payload that is not a string".to_owned()
    }
}

/// Fails on an inter-communicator, whose collectives mean something else.
pub(crate) fn check_intra<C: Communicator + ?Sized>(comm: &C) -> Result<(), Error> {
    let mut inter: std::os::raw::c_int = 0;
    // SAFETY: `comm` is a live communicator (rsmpi's types free theirs only on drop) and
    // `inter` is a valid place for the flag.
    unsafe { mpi::ffi::MPI_Comm_test_inter(comm.as_raw(), &mut inter) };
    if inter != 0 {
        Err(Error::InterCommunicator)
    } else {
        Ok(())
    }
}

/// The collective agreement of one step: every rank calls it with the outcome of its local
/// phase; all return `Ok` with the local result and every rank's payload word (in rank order),
/// or all return the same error.
///
/// `param` must be the same on every rank (an operation's parameter, such as a leaf length);
/// `T` is the element type, which must be the same too. `payload` reads this rank's word from
/// its local result.
pub(crate) fn agree<T, R, C>(
    comm: &C,
    step: Step,
    param: u64,
    local: Result<R, String>,
    payload: impl FnOnce(&R) -> u64,
) -> Result<(R, Vec<u64>), Error>
where
    C: Communicator + ?Sized,
{
    check_intra(comm)?;
    let type_name = std::any::type_name::<T>();
    let (status, message, word) = match &local {
        Ok(r) => (0u64, Vec::new(), payload(r)),
        Err(m) => {
            let mut bytes = m.as_bytes().to_vec();
            bytes.truncate(MAX_MESSAGE);
            (1, bytes, 0)
        }
    };
    let header: [u64; HEADER] = [
        step.code(),
        type_fingerprint::<T>(),
        param,
        status,
        message.len() as u64,
        type_name.len().min(MAX_MESSAGE) as u64,
        word,
    ];
    let size = comm.size() as usize;
    let mut all = vec![0u64; HEADER * size];
    comm.all_gather_into(&header[..], &mut all[..]);
    let headers: Vec<&[u64]> = all.chunks_exact(HEADER).collect();
    let first = headers[0];

    // Every rank reads the same headers, so every rank takes the same branch below and makes
    // the same (further) collective calls, or none.
    if let Some(rank) = headers.iter().position(|h| h[0] != first[0]) {
        return Err(Error::Mismatch {
            rank,
            message: format!(
                "it called a different operation or step than rank 0 (rank 0: `{}` step {})",
                step_name_of(first, step),
                first[0] & 0xff
            ),
        });
    }
    if let Some(rank) = headers.iter().position(|h| h[1] != first[1]) {
        let theirs = broadcast_bytes(comm, rank, type_name.as_bytes(), headers[rank][5]);
        let ours = broadcast_bytes(comm, 0, type_name.as_bytes(), first[5]);
        return Err(Error::Mismatch {
            rank,
            message: format!(
                "`{}` on elements of type `{}`, rank 0 on `{}`",
                step.name,
                String::from_utf8_lossy(&theirs),
                String::from_utf8_lossy(&ours)
            ),
        });
    }
    if let Some(rank) = headers.iter().position(|h| h[2] != first[2]) {
        return Err(Error::Mismatch {
            rank,
            message: format!(
                "`{}` with parameter {}, rank 0 with {}",
                step.name, headers[rank][2], first[2]
            ),
        });
    }
    if let Some(rank) = headers.iter().position(|h| h[3] != 0) {
        let bytes = broadcast_bytes(comm, rank, &message, headers[rank][4]);
        return Err(Error::Panicked {
            rank,
            message: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    let words = headers.iter().map(|h| h[6]).collect();
    match local {
        Ok(r) => Ok((r, words)),
        // A failed local phase has status 1 in its header, handled above.
        Err(_) => unreachable!("a failed rank's header reports its failure"),
    }
}

/// The name of rank 0's step, when it is this operation's (the common case of a mismatch is
/// two ranks at different steps of one operation); else a placeholder.
fn step_name_of(header: &[u64], step: Step) -> &'static str {
    if header[0] >> 8 == step.code() >> 8 {
        step.name
    } else {
        "another operation"
    }
}

/// Broadcasts `len` bytes from `root` (`bytes` there; ignored elsewhere).
fn broadcast_bytes<C: Communicator + ?Sized>(
    comm: &C,
    root: usize,
    bytes: &[u8],
    len: u64,
) -> Vec<u8> {
    let len = len as usize;
    let mut buffer = vec![0u8; len];
    if comm.rank() as usize == root {
        buffer.copy_from_slice(&bytes[..len]);
    }
    if len > 0 {
        comm.process_at_rank(root as mpi::Rank)
            .broadcast_into(&mut buffer[..]);
    }
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_types_and_steps_apart() {
        assert_ne!(type_fingerprint::<u64>(), type_fingerprint::<i64>());
        assert_ne!(type_fingerprint::<u64>(), type_fingerprint::<f64>());
        assert_eq!(type_fingerprint::<u32>(), type_fingerprint::<u32>());
        let sort = Step::new("sort");
        assert_ne!(sort.code(), sort.next().code());
        assert_ne!(sort.code(), Step::new("sum").code());
        assert_eq!(sort.code() >> 8, sort.next().code() >> 8);
    }

    #[test]
    fn catch_turns_a_panic_into_its_message() {
        let prev = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        let a = catch(|| panic!("boom {}", 7));
        let b = catch(|| std::panic::panic_any(5u8));
        panic::set_hook(prev);
        assert_eq!(a.unwrap_err(), "boom 7");
        assert_eq!(
            b.unwrap_err(),
            "a panic with a payload that is not a string"
        );
        assert_eq!(catch(|| 3), Ok(3));
    }
}
