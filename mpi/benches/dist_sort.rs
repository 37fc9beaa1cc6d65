//! The distributed sort against the single-process sort, on the same keys: 1 rank x 2 threads,
//! 2 ranks x 1 thread, and blitz-par's `par_sort_unstable` with 2 threads, with the time of
//! each phase (local sort, sampling, exchange, merge).
//!
//! ```sh
//! cargo bench -p blitz-par-mpi --bench dist_sort            # 20M keys, 3 rounds
//! BENCH_N=5000000 BENCH_ROUNDS=5 cargo bench -p blitz-par-mpi --bench dist_sort
//! ```
//!
//! Started by cargo, the binary runs each configuration as a fresh process (under `mpirun` for
//! the distributed ones; Open MPI's options), the configurations interleaved round by round.
//! Each process sorts the same keys (a generator seeded by global position) `REPS` times, and
//! reports its first call (page faults of fresh buffers included) and the median of the
//! others; a distributed phase's time is that of its slowest rank.

use std::process::{Command, Stdio};
use std::time::Instant;

use blitz_par::prelude::*;
use blitz_par_mpi::mpi::collective::SystemOperation;
use blitz_par_mpi::prelude::*;

const REPS: usize = 4;

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_133b_111b);
    z ^ (z >> 31)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn keys(start: usize, end: usize) -> Vec<u64> {
    (start..end)
        .into_par_iter()
        .map(|i| mix(i as u64))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let n = env_usize("BENCH_N", 20_000_000);
    let under_mpirun = std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some()
        || std::env::var_os("PMI_SIZE").is_some();
    if under_mpirun {
        distributed(n);
    } else if std::env::var_os("BENCH_SINGLE").is_some() {
        single(n);
    } else {
        orchestrate(n);
    }
}

fn orchestrate(n: usize) {
    let exe = std::env::current_exe().expect("the bench binary");
    let rounds = env_usize("BENCH_ROUNDS", 3);
    println!(
        "{n} random u64; {rounds} rounds; each line: first call, median of the next {}",
        REPS - 1
    );
    for round in 1..=rounds {
        println!("-- round {round}");
        let mut single = Command::new(&exe);
        single
            .env("BENCH_SINGLE", "1")
            .env("BLITZ_NUM_THREADS", "2");
        run(single);
        for (ranks, threads, bind) in [("1", "2", "none"), ("2", "1", "core")] {
            let mut mpirun = Command::new("mpirun");
            mpirun
                .args(["-n", ranks, "--bind-to", bind])
                .arg(&exe)
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
                .env("BLITZ_NUM_THREADS", threads);
            run(mpirun);
        }
    }
}

fn run(mut command: Command) {
    let status = command
        .stdin(Stdio::null())
        .status()
        .expect("starting a configuration");
    assert!(status.success(), "a configuration failed: {status}");
}

fn single(n: usize) {
    let data = keys(0, n);
    let mut times = Vec::new();
    for _ in 0..REPS {
        let mut v = data.clone();
        let clock = Instant::now();
        v.par_sort_unstable();
        times.push(clock.elapsed().as_secs_f64());
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
    println!(
        "single process x {} threads (par_sort_unstable): first {:.1} ms, median {:.1} ms",
        blitz_par::current_num_threads(),
        1e3 * times[0],
        1e3 * median(times[1..].to_vec())
    );
}

fn distributed(n: usize) {
    let universe = blitz_par_mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let data = keys(n * rank / size, n * (rank + 1) / size);
    // Per rep: total, local sort, sampling, exchange, merge (slowest rank each).
    let mut reps: Vec<[f64; 5]> = Vec::new();
    for _ in 0..REPS {
        let local = data.clone();
        world.barrier();
        let clock = Instant::now();
        let (sorted, p) = blitz_par_mpi::par_sort_unstable_profiled(&world, local).expect("sorts");
        let mine = [
            clock.elapsed().as_secs_f64(),
            p.local_sort.as_secs_f64(),
            p.sampling.as_secs_f64(),
            p.exchange.as_secs_f64(),
            p.merge.as_secs_f64(),
        ];
        let mut slowest = [0f64; 5];
        world.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
        reps.push(slowest);
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    }
    if rank == 0 {
        let phase = |i: usize| 1e3 * median(reps[1..].iter().map(|r| r[i]).collect());
        println!(
            "{size} rank(s) x {} thread(s): first {:.1} ms, median {:.1} ms (local sort {:.1}, sampling {:.2}, \
             exchange {:.1}, merge {:.1})",
            blitz_par::current_num_threads(),
            1e3 * reps[0][0],
            phase(0),
            phase(1),
            phase(2),
            phase(3),
            phase(4),
        );
    }
}
