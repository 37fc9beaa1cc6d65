//! Collectives that receive into uninitialised memory, and the exchange that splits counts too
//! large for MPI's `int`.
//!
//! rsmpi's collectives write into `&mut [T]`, which must hold valid `T`s beforehand; a rank that
//! has no element to copy cannot make one (the element types need not be `Default`), and
//! filling a 160 MB receive buffer only to overwrite it costs a pass over memory. So the
//! variable-count collectives here call the MPI functions directly, with `T`'s MPI datatype,
//! on `MaybeUninit<T>` buffers, and claim them initialised only once MPI has written every
//! element. That is sound because [`Equivalence`] (an `unsafe` trait) promises that `T`'s
//! datatype describes `T` exactly, and what arrives is what another rank of the same program
//! sent from valid `T`s.
//!
//! MPI's errors are fatal by default (`MPI_ERRORS_ARE_FATAL` on every communicator), so the
//! return codes are not checked here, as in rsmpi.

use std::mem::MaybeUninit;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::topology::Communicator;
use mpi::traits::AsRaw;

use crate::Error;

/// The largest count one message of the all-to-all exchange is given; `i32::MAX` but in the
/// tests of the split exchange.
static MAX_COUNT: AtomicUsize = AtomicUsize::new(i32::MAX as usize);

/// Tag of the point-to-point messages of a split exchange (`"bp"`). Collectives have a context
/// of their own; these messages share the communicator's point-to-point space, which matters
/// only to a program that has a receive for any tag posted while it calls an operation here.
const EXCHANGE_TAG: c_int = 0x6270;

/// Lowers the largest count the all-to-all exchange gives one MPI call, so that tests reach the
/// split exchange (which otherwise needs over 2^31 elements on one rank). Not for use outside
/// tests.
#[doc(hidden)]
pub fn set_max_count_for_tests(count: usize) {
    MAX_COUNT.store(count.clamp(1, i32::MAX as usize), Ordering::Relaxed);
}

fn max_count() -> usize {
    MAX_COUNT.load(Ordering::Relaxed)
}

/// `n` as an MPI count, or the error naming `what`.
pub(crate) fn count(what: &'static str, n: usize) -> Result<c_int, Error> {
    if n <= i32::MAX as usize {
        Ok(n as c_int)
    } else {
        Err(Error::CountOverflow {
            what,
            count: n as u64,
        })
    }
}

/// Exclusive prefix sums of `counts`, as MPI displacements.
fn displacements(what: &'static str, counts: &[usize]) -> Result<Vec<c_int>, Error> {
    let mut at = 0usize;
    counts
        .iter()
        .map(|&c| {
            let d = count(what, at);
            at += c;
            d
        })
        .collect()
}

fn counts_of(what: &'static str, counts: &[usize]) -> Result<Vec<c_int>, Error> {
    counts.iter().map(|&c| count(what, c)).collect()
}

/// A vector of `len` uninitialised elements.
fn uninit_vec<T>(len: usize) -> Vec<MaybeUninit<T>> {
    let mut v = Vec::with_capacity(len);
    // SAFETY: `MaybeUninit<T>` needs no initialisation, and the capacity is `len`.
    unsafe { v.set_len(len) };
    v
}

/// Claims a vector written in full by MPI as initialised.
///
/// # Safety
///
/// Every element of `v` must have been written with a valid `T` (by MPI, from valid `T`s of
/// another rank, as [`Equivalence`] promises).
unsafe fn assume_init<T>(v: Vec<MaybeUninit<T>>) -> Vec<T> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, so the allocation is one of
    // `capacity` `T`s; the caller promises every element is initialised.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<T>(), v.len(), v.capacity()) }
}

/// Every rank's `local` elements, concatenated in rank order, on every rank. `counts[r]` must
/// be rank `r`'s `local.len()` (every rank learns them through `agree`'s payload words).
pub(crate) fn all_gather_varcount<T, C>(
    comm: &C,
    local: &[T],
    counts: &[usize],
) -> Result<Vec<T>, Error>
where
    T: Equivalence,
    C: Communicator + ?Sized,
{
    let total: usize = counts.iter().sum();
    let recv_counts = counts_of("elements gathered from one rank", counts)?;
    let displs = displacements("elements gathered in all", counts)?;
    let send_count = count("elements gathered from one rank", local.len())?;
    let mut out = uninit_vec::<T>(total);
    let datatype = T::equivalent_datatype();
    // SAFETY: the send buffer holds `send_count` `T`s; the receive buffer has room for
    // `counts[r]` elements at `displs[r]` for every rank `r`, the counts and displacements
    // arrays have one entry per rank, and every rank passes matching counts.
    unsafe {
        ffi::MPI_Allgatherv(
            local.as_ptr().cast::<c_void>(),
            send_count,
            datatype.as_raw(),
            out.as_mut_ptr().cast::<c_void>(),
            recv_counts.as_ptr(),
            displs.as_ptr(),
            datatype.as_raw(),
            comm.as_raw(),
        );
    }
    // SAFETY: the counts add up to `total`, so MPI wrote every element.
    Ok(unsafe { assume_init(out) })
}

/// Every rank's `local` elements, concatenated in rank order, on `root` (`None` elsewhere).
/// `counts[r]` must be rank `r`'s `local.len()`.
pub(crate) fn gather_varcount<T, C>(
    comm: &C,
    root: usize,
    local: &[T],
    counts: &[usize],
) -> Result<Option<Vec<T>>, Error>
where
    T: Equivalence,
    C: Communicator + ?Sized,
{
    let is_root = comm.rank() as usize == root;
    let total: usize = counts.iter().sum();
    let recv_counts = counts_of("elements gathered from one rank", counts)?;
    let displs = displacements("elements gathered in all", counts)?;
    let send_count = count("elements gathered from one rank", local.len())?;
    let mut out = uninit_vec::<T>(if is_root { total } else { 0 });
    let datatype = T::equivalent_datatype();
    // SAFETY: as in `all_gather_varcount`; the receive arguments are read only on the root,
    // whose buffer has room for `total` elements.
    unsafe {
        ffi::MPI_Gatherv(
            local.as_ptr().cast::<c_void>(),
            send_count,
            datatype.as_raw(),
            out.as_mut_ptr().cast::<c_void>(),
            recv_counts.as_ptr(),
            displs.as_ptr(),
            datatype.as_raw(),
            root as c_int,
            comm.as_raw(),
        );
    }
    // SAFETY: on the root MPI wrote all `total` elements; elsewhere the vector is empty.
    Ok(is_root.then(|| unsafe { assume_init(out) }))
}

/// `root`'s `data` (of `len` elements) on every rank; `data` is ignored elsewhere.
pub(crate) fn broadcast<T, C>(
    comm: &C,
    root: usize,
    data: &[T],
    len: usize,
) -> Result<Vec<T>, Error>
where
    T: Equivalence + Copy,
    C: Communicator + ?Sized,
{
    let n = count("elements broadcast", len)?;
    let mut out = uninit_vec::<T>(len);
    if comm.rank() as usize == root {
        for (o, &x) in out.iter_mut().zip(data) {
            o.write(x);
        }
    }
    let datatype = T::equivalent_datatype();
    // SAFETY: the buffer holds `len` elements on every rank, initialised on the root.
    unsafe {
        ffi::MPI_Bcast(
            out.as_mut_ptr().cast::<c_void>(),
            n,
            datatype.as_raw(),
            root as c_int,
            comm.as_raw(),
        );
    }
    // SAFETY: the root wrote `len` elements above (its `data` has `len`), and MPI copied them to
    // the other ranks.
    Ok(unsafe { assume_init(out) })
}

/// The all-to-all-v exchange: `send` holds `send_counts[r]` elements for each rank `r` in rank
/// order; returns what the ranks sent here, in rank order (`recv_counts[r]` from rank `r`).
///
/// One `MPI_Alltoallv` when every count and displacement fits in an `int`; otherwise the
/// exchange goes as point-to-point messages of at most `int::MAX` elements each (MPI keeps
/// the order of messages between two ranks on one tag, so the pieces arrive in order). Every
/// rank takes the same branch: the choice depends on the largest count on any rank, which
/// `agree` has made known (`largest`).
pub(crate) fn all_to_all_varcount<T, C>(
    comm: &C,
    send: &[T],
    send_counts: &[usize],
    recv_counts: &[usize],
    largest: usize,
) -> Vec<T>
where
    T: Equivalence,
    C: Communicator + ?Sized,
{
    let total: usize = recv_counts.iter().sum();
    let mut out = uninit_vec::<T>(total);
    let datatype = T::equivalent_datatype();
    if largest <= max_count() {
        let to_int = |v: &[usize]| v.iter().map(|&c| c as c_int).collect::<Vec<_>>();
        let prefix = |v: &[usize]| {
            v.iter()
                .scan(0usize, |at, &c| {
                    let d = *at;
                    *at += c;
                    Some(d as c_int)
                })
                .collect::<Vec<_>>()
        };
        let (sc, sd, rc, rd) = (
            to_int(send_counts),
            prefix(send_counts),
            to_int(recv_counts),
            prefix(recv_counts),
        );
        // SAFETY: `largest` bounds every rank's send and receive totals, so every count and
        // displacement fits; the buffers have room for the counts at the displacements, one
        // entry per rank, and the ranks' counts match pairwise (each rank's receive counts are
        // what the others send it, from the count exchange).
        unsafe {
            ffi::MPI_Alltoallv(
                send.as_ptr().cast::<c_void>(),
                sc.as_ptr(),
                sd.as_ptr(),
                datatype.as_raw(),
                out.as_mut_ptr().cast::<c_void>(),
                rc.as_ptr(),
                rd.as_ptr(),
                datatype.as_raw(),
                comm.as_raw(),
            );
        }
    } else {
        split_exchange(comm, send, send_counts, recv_counts, &mut out, &datatype);
    }
    // SAFETY: the receive counts add up to `total`, and every element arrived.
    unsafe { assume_init(out) }
}

/// The exchange as point-to-point messages of at most `max_count()` elements.
fn split_exchange<T, C, D>(
    comm: &C,
    send: &[T],
    send_counts: &[usize],
    recv_counts: &[usize],
    out: &mut [MaybeUninit<T>],
    datatype: &D,
) where
    C: Communicator + ?Sized,
    D: AsRaw<Raw = ffi::MPI_Datatype>,
{
    let limit = max_count();
    let pieces = |counts: &[usize]| {
        let mut at = 0usize;
        let mut v = Vec::new();
        for (rank, &c) in counts.iter().enumerate() {
            let mut done = 0;
            while done < c {
                let n = (c - done).min(limit);
                v.push((rank, at + done, n));
                done += n;
            }
            at += c;
        }
        v
    };
    let receives = pieces(recv_counts);
    let sends = pieces(send_counts);
    // SAFETY: `RSMPI_REQUEST_NULL` is a constant the shim initialises before `main`.
    let null = unsafe { ffi::RSMPI_REQUEST_NULL };
    let mut requests = vec![null; receives.len() + sends.len()];
    for (request, &(rank, at, n)) in requests.iter_mut().zip(&receives) {
        // SAFETY: `out[at..at + n]` lies in the buffer (the pieces of a rank cover its slot
        // between the prefix sums of the counts), and no two pieces overlap; the buffer
        // outlives the `MPI_Waitall` below, which completes the request.
        unsafe {
            ffi::MPI_Irecv(
                out.as_mut_ptr().add(at).cast::<c_void>(),
                n as c_int,
                datatype.as_raw(),
                rank as c_int,
                EXCHANGE_TAG,
                comm.as_raw(),
                request,
            );
        }
    }
    for (request, &(rank, at, n)) in requests[receives.len()..].iter_mut().zip(&sends) {
        // SAFETY: as above, for `send[at..at + n]`, which is only read.
        unsafe {
            ffi::MPI_Isend(
                send.as_ptr().add(at).cast::<c_void>(),
                n as c_int,
                datatype.as_raw(),
                rank as c_int,
                EXCHANGE_TAG,
                comm.as_raw(),
                request,
            );
        }
    }
    // SAFETY: one live request per slot (the count is the vector's length), statuses ignored.
    unsafe {
        ffi::MPI_Waitall(
            requests.len() as c_int,
            requests.as_mut_ptr(),
            ffi::RSMPI_STATUSES_IGNORE,
        );
    }
}
