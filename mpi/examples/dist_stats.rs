//! A deterministic mean and variance over distributed `f64`, and the mean from the correctly
//! rounded (exact) sum: the same bits for any number of ranks and threads.
//!
//! ```sh
//! cargo build --release -p blitz-par-mpi --example dist_stats
//! mpirun -n 3 target/release/examples/dist_stats 1000000
//! ```
//!
//! The N values (default 1,000,000; drawn from a generator seeded by global position, so they
//! do not depend on the number of ranks) are cut unevenly between the ranks, the last rank
//! holding none. Mean and variance are two deterministic sums (the second over squared
//! deviations). The program checks that a second, different cut gives the same bits, and that
//! rank 0 alone (on `MPI_COMM_SELF`, with all the data) gets them too; it exits with status 1
//! when not.

use std::process::ExitCode;

use blitz_par::prelude::*;
use blitz_par_mpi::mpi::topology::SimpleCommunicator;
use blitz_par_mpi::prelude::*;
use blitz_par_mpi::Error;

fn value(i: usize) -> f64 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_133b_111b);
    // Values of very different magnitudes, so that the order of additions shows in the bits.
    let u = (z >> 11) as f64 / (1u64 << 53) as f64;
    (u - 0.3) * 10f64.powi((z % 12) as i32 - 4)
}

/// Mean and (sample) variance, by two deterministic sums, and the mean from the correctly
/// rounded sum.
fn stats<C: Communicator>(comm: &C, local: &[f64], n: usize) -> Result<(f64, f64, f64), Error> {
    let mean = local.across(comm).deterministic().sum()? / n as f64;
    let squares: Vec<f64> = local.par_iter().map(|&x| (x - mean) * (x - mean)).collect();
    let variance = squares.across(comm).deterministic().sum()? / (n as f64 - 1.0);
    let exact_mean = local.across(comm).exact_sum()? / n as f64;
    Ok((mean, variance, exact_mean))
}

/// Rank `rank`'s range of `0..n` in a cut weighted by `weights` (one per rank).
fn part(n: usize, weights: &[usize], rank: usize) -> std::ops::Range<usize> {
    let total: usize = weights.iter().sum();
    let at = |r: usize| n * weights[..r].iter().sum::<usize>() / total.max(1);
    at(rank)..at(rank + 1)
}

fn main() -> ExitCode {
    let n: usize = match std::env::args().nth(1).map(|a| a.replace('_', "").parse()) {
        None => 1_000_000,
        Some(Ok(n)) if n >= 2 => n,
        _ => {
            eprintln!("usage: dist_stats [N >= 2]");
            return ExitCode::FAILURE;
        }
    };
    let universe = blitz_par_mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);

    // Two cuts: rank r weighs r + 1 (the last rank nothing), then the reverse.
    let first: Vec<usize> = (0..size)
        .map(|r| if r + 1 == size && size > 1 { 0 } else { r + 1 })
        .collect();
    let second: Vec<usize> = (0..size).map(|r| size - r).collect();
    let mut results = Vec::new();
    for weights in [&first, &second] {
        let local: Vec<f64> = part(n, weights, rank).into_par_iter().map(value).collect();
        match stats(&world, &local, n) {
            Ok(r) => results.push(r),
            Err(e) => {
                eprintln!("rank {rank}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let bits = |r: &(f64, f64, f64)| [r.0.to_bits(), r.1.to_bits(), r.2.to_bits()];
    let mut ok = bits(&results[0]) == bits(&results[1]);
    if rank == 0 {
        let alone = SimpleCommunicator::self_comm();
        let all: Vec<f64> = (0..n).into_par_iter().map(value).collect();
        let single = stats(&alone, &all, n).expect("one rank");
        ok &= bits(&single) == bits(&results[0]);
        println!(
            "dist_stats: {n} f64 on {size} ranks x {} threads: mean {:e} (bits {:#018x}), variance {:e} \
             (bits {:#018x}); exact mean {:e}; another cut and one rank alone give the same bits: {}",
            blitz_par::current_num_threads(),
            results[0].0,
            results[0].0.to_bits(),
            results[0].1,
            results[0].1.to_bits(),
            results[0].2,
            if ok { "ok" } else { "FAILED" },
        );
    }
    let mut verdict = [u8::from(ok)];
    world.process_at_rank(0).broadcast_into(&mut verdict[..]);
    if verdict[0] == 1 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
