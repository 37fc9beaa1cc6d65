//! Sorts N random `u64` across the ranks, checks the result globally, and prints one line.
//!
//! ```sh
//! cargo build --release -p blitz-par-mpi --example dist_sort
//! mpirun -n 4 target/release/examples/dist_sort 10000000
//! ```
//!
//! N (default 10,000,000) is the global count; each rank draws its share from a generator
//! seeded by global position, so the keys do not depend on the number of ranks. The check:
//! every part sorted, each part's last key at most the next non-empty part's first, the same
//! multiset of keys before and after (count, wrapping sum and xor of a hash of every key), and
//! every part within 10% of N / P. Exits with status 1 (on every rank) when a check fails.

use std::process::ExitCode;
use std::time::Instant;

use blitz_par::prelude::*;
use blitz_par_mpi::mpi::collective::SystemOperation;
use blitz_par_mpi::prelude::*;

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_133b_111b);
    z ^ (z >> 31)
}

/// Count, wrapping sum and xor of a hash of each key: equal for two permutations of one
/// multiset, and unequal for different ones but with negligible probability.
fn fingerprint(keys: &[u64]) -> [u64; 3] {
    let sum = keys
        .par_iter()
        .map(|&k| mix(k ^ 0x51ed))
        .reduce(|| 0, u64::wrapping_add);
    let xor = keys
        .par_iter()
        .map(|&k| mix(k.rotate_left(17)))
        .reduce(|| 0, |a, b| a ^ b);
    [keys.len() as u64, sum, xor]
}

fn main() -> ExitCode {
    let n: usize = match std::env::args().nth(1).map(|a| a.replace('_', "").parse()) {
        None => 10_000_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: dist_sort [N] ({e})");
            return ExitCode::FAILURE;
        }
    };
    let universe = blitz_par_mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);

    let start = n * rank / size;
    let end = n * (rank + 1) / size;
    let keys: Vec<u64> = (start..end)
        .into_par_iter()
        .map(|i| mix(i as u64))
        .collect();
    let before = fingerprint(&keys);

    world.barrier();
    let clock = Instant::now();
    let result = blitz_par_mpi::par_sort_unstable_profiled(&world, keys);
    let elapsed = clock.elapsed().as_secs_f64();
    let (sorted, profile) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rank {rank}: {e}");
            return ExitCode::FAILURE;
        }
    };

    // Checks: sorted parts, ordered boundaries, the same multiset, balance.
    let mut ok = sorted.par_windows(2).all(|w| w[0] <= w[1]);
    let ends = [
        sorted.len() as u64,
        sorted.first().copied().unwrap_or(0),
        sorted.last().copied().unwrap_or(0),
    ];
    let mut all_ends = vec![0u64; 3 * size];
    world.all_gather_into(&ends[..], &mut all_ends[..]);
    let mut last: Option<u64> = None;
    for part in all_ends.chunks_exact(3) {
        if part[0] > 0 {
            ok &= last.is_none_or(|l| l <= part[1]);
            last = Some(part[2]);
        }
    }
    let after = fingerprint(&sorted);
    let (mut sum_before, mut sum_after, mut xor_before, mut xor_after) =
        ([0u64; 2], [0u64; 2], 0u64, 0u64);
    world.all_reduce_into(&before[..2], &mut sum_before[..], SystemOperation::sum());
    world.all_reduce_into(&after[..2], &mut sum_after[..], SystemOperation::sum());
    world.all_reduce_into(&before[2], &mut xor_before, SystemOperation::bitwise_xor());
    world.all_reduce_into(&after[2], &mut xor_after, SystemOperation::bitwise_xor());
    let permutation =
        sum_before == sum_after && xor_before == xor_after && sum_after[0] == n as u64;
    let lengths: Vec<u64> = all_ends.chunks_exact(3).map(|p| p[0]).collect();
    let ideal = n as f64 / size as f64;
    let worst = lengths
        .iter()
        .map(|&l| (l as f64 - ideal).abs() / ideal.max(1.0))
        .fold(0.0, f64::max);
    let balanced = worst <= 0.10;
    let mut all_ok = 0u64;
    world.all_reduce_into(&u64::from(ok), &mut all_ok, SystemOperation::sum());
    let sorted_everywhere = all_ok == size as u64;

    // The slowest rank's times.
    let times = [
        elapsed,
        profile.local_sort.as_secs_f64(),
        profile.sampling.as_secs_f64(),
        profile.exchange.as_secs_f64(),
        profile.merge.as_secs_f64(),
    ];
    let mut slowest = [0f64; 5];
    world.all_reduce_into(&times[..], &mut slowest[..], SystemOperation::max());

    let passed = sorted_everywhere && permutation && balanced;
    if rank == 0 {
        println!(
            "dist_sort: {n} u64 on {size} ranks x {} threads: {:.3} s (local sort {:.3}, sampling {:.3}, \
             exchange {:.3}, merge {:.3}; slowest rank each); parts {}..{} (at most {:.1}% from N/P); \
             sorted {}, permutation {}, balanced {}",
            blitz_par::current_num_threads(),
            slowest[0],
            slowest[1],
            slowest[2],
            slowest[3],
            slowest[4],
            lengths.iter().min().unwrap_or(&0),
            lengths.iter().max().unwrap_or(&0),
            100.0 * worst,
            verdict(sorted_everywhere),
            verdict(permutation),
            verdict(balanced),
        );
    }
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "FAILED"
    }
}
