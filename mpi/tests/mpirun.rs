//! The distributed tests: every operation under `mpirun -n 1`, `2`, `3` and `4`, against the
//! single-process blitz-par (or sequential) result on the same global data, with random part
//! sizes, empty parts included (exact sums against blitz-par's `exact_sum`); then the failures: panicking operators and comparators,
//! mismatched operations and element types, and the split exchange for counts past MPI's
//! `int` (with the limit lowered).
//!
//! Run by `cargo test -p blitz-par-mpi` (needs MPI and `mpirun`; not a default member of the
//! workspace). Started outside `mpirun`, the binary launches itself under `mpirun -n 1..4` and
//! fails if a run fails or outlives its deadline; started by `mpirun` (`OMPI_COMM_WORLD_SIZE`
//! or `PMI_SIZE` set), it runs the checks.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use blitz_par::prelude::*;
use blitz_par_mpi::mpi::traits::Equivalence;
use blitz_par_mpi::prelude::*;
use blitz_par_mpi::{Error, LEAF_LEN};

/// How long one `mpirun` may take before the test calls it hung (the four runs take about
/// 10 s each on the 2-core development VM, oversubscribed).
const DEADLINE: Duration = Duration::from_secs(240);

fn main() -> ExitCode {
    let under_mpirun = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if under_mpirun {
        run_checks();
        ExitCode::SUCCESS
    } else {
        launch()
    }
}

/// Runs this binary under `mpirun -n 1..=4`.
fn launch() -> ExitCode {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mpirun = std::env::var("MPIRUN").unwrap_or_else(|_| "mpirun".to_owned());
    let mut failed = 0;
    for ranks in 1..=4 {
        let start = Instant::now();
        let child = Command::new(&mpirun)
            .args(["-n", &ranks.to_string()])
            .arg(&exe)
            // Open MPI refuses root and more ranks than cores without these (MPICH ignores
            // them). Two threads per rank: blitz-par's parallel paths run on every rank.
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .env("BLITZ_NUM_THREADS", "2")
            .stdin(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "cannot start `{mpirun}` ({e}): install MPI (openmpi-bin, libopenmpi-dev)"
                );
                return ExitCode::FAILURE;
            }
        };
        let status = loop {
            if let Some(status) = child.try_wait().expect("waiting for mpirun") {
                break Some(status);
            }
            if start.elapsed() > DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let secs = start.elapsed().as_secs_f64();
        match status {
            Some(s) if s.success() => println!("mpirun -n {ranks}: ok ({secs:.1} s)"),
            Some(s) => {
                println!("mpirun -n {ranks}: FAILED ({s}, {secs:.1} s)");
                failed += 1;
            }
            None => {
                println!("mpirun -n {ranks}: HUNG (killed after {DEADLINE:?})");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", 4 - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_133b_111b);
    z ^ (z >> 31)
}

/// An affine map `x -> a x + b` (wrapping); composing them is associative, not commutative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Equivalence)]
struct Affine {
    a: u64,
    b: u64,
}

/// `first` then `second`.
fn compose(first: Affine, second: Affine) -> Affine {
    Affine {
        a: second.a.wrapping_mul(first.a),
        b: second.a.wrapping_mul(first.b).wrapping_add(second.b),
    }
}

/// A record sorted by a key with many duplicates; `index` shows stability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Equivalence)]
struct Record {
    key: u32,
    index: u64,
}

/// The cut of a global sequence of `n` items into `size` parts, the same on every rank.
struct Cut {
    starts: Vec<usize>,
}

impl Cut {
    /// Random cuts; with `empty`, rank 1 (when there is one) gets nothing; with `one`, the
    /// last rank gets everything.
    fn new(n: usize, size: usize, state: &mut u64, shape: Shape) -> Cut {
        let mut cuts: Vec<usize> = (0..size - 1)
            .map(|_| (splitmix(state) as usize) % (n + 1))
            .collect();
        cuts.sort_unstable();
        match shape {
            Shape::Random => {}
            Shape::RankOneEmpty if size >= 3 => cuts[1] = cuts[0],
            Shape::RankOneEmpty if size == 2 => cuts[0] = n,
            Shape::RankOneEmpty => {}
            Shape::AllOnLast => cuts.iter_mut().for_each(|c| *c = 0),
        }
        let mut starts = vec![0];
        starts.extend(cuts);
        starts.push(n);
        Cut { starts }
    }

    fn part<'a, T>(&self, global: &'a [T], rank: usize) -> &'a [T] {
        &global[self.starts[rank]..self.starts[rank + 1]]
    }
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    Random,
    RankOneEmpty,
    AllOnLast,
}

/// The fixed tree of the deterministic mode, by its definition, on one thread.
fn tree_reduce<T: Copy>(items: &[T], op: &impl Fn(T, T) -> T) -> Option<T> {
    let leaves: Vec<T> = items
        .chunks(LEAF_LEN)
        .map(|leaf| leaf.iter().copied().reduce(op).unwrap())
        .collect();
    fn tree<T: Copy>(v: &[T], op: &impl Fn(T, T) -> T) -> T {
        if v.len() == 1 {
            return v[0];
        }
        let mid = v.len().next_power_of_two() / 2;
        op(tree(&v[..mid], op), tree(&v[mid..], op))
    }
    (!leaves.is_empty()).then(|| tree(&leaves, op))
}

/// Every rank's lengths, through plain MPI (independent of the crate under test).
fn lengths_of<C: Communicator>(world: &C, local: usize) -> Vec<usize> {
    let mut all = vec![0u64; world.size() as usize];
    world.all_gather_into(&(local as u64), &mut all[..]);
    all.into_iter().map(|n| n as usize).collect()
}

fn run_checks() {
    let universe = blitz_par_mpi::initialize().expect("MPI initialises with Funneled support");
    let world = universe.world();
    let size = world.size() as usize;
    let rank = world.rank() as usize;
    let mut state = 0x5eed;
    let mut checks = 0;

    let sizes = [0usize, 1, 7, 3 * LEAF_LEN + 5, 70_000, 300_000];
    for (case, &n) in sizes.iter().enumerate() {
        for shape in [Shape::Random, Shape::RankOneEmpty, Shape::AllOnLast] {
            let cut = Cut::new(n, size, &mut state, shape);
            let context = format!("n = {n}, {shape:?}, case {case}");
            checks += check_reductions(&world, &cut, n, &mut state, &context);
            checks += check_scans(&world, &cut, n, &mut state, &context);
            checks += check_sorts(&world, &cut, n, &mut state, &context);
        }
    }
    checks += check_failures(&world);

    // The split exchange: at most 7 elements per MPI call.
    blitz_par_mpi::set_max_count_for_tests(7);
    let cut = Cut::new(5000, size, &mut state, Shape::Random);
    checks += check_sorts(&world, &cut, 5000, &mut state, "split exchange");
    let cut = Cut::new(3 * LEAF_LEN + 1, size, &mut state, Shape::Random);
    checks += check_reductions(&world, &cut, 3 * LEAF_LEN + 1, &mut state, "split exchange");
    blitz_par_mpi::set_max_count_for_tests(usize::MAX);

    if rank == 0 {
        println!("{size} ranks: {checks} checks passed");
    }
}

fn check_reductions<C: Communicator>(
    world: &C,
    cut: &Cut,
    n: usize,
    state: &mut u64,
    context: &str,
) -> usize {
    let rank = world.rank() as usize;
    let ints: Vec<u64> = (0..n).map(|_| splitmix(state) >> 20).collect();
    let local = cut.part(&ints, rank);
    assert_eq!(
        local.across(world).sum().unwrap(),
        ints.par_iter().sum::<u64>(),
        "{context}"
    );
    assert_eq!(
        local.across(world).min().unwrap(),
        ints.iter().copied().min(),
        "{context}"
    );
    assert_eq!(
        local.across(world).max().unwrap(),
        ints.iter().copied().max(),
        "{context}"
    );
    assert_eq!(
        local.across(world).reduce(|a, b| a ^ b).unwrap(),
        ints.iter().copied().reduce(|a, b| a ^ b),
        "{context}"
    );

    let maps: Vec<Affine> = (0..n)
        .map(|_| Affine {
            a: splitmix(state) | 1,
            b: splitmix(state),
        })
        .collect();
    let local_maps = cut.part(&maps, rank);
    assert_eq!(
        local_maps.across(world).reduce(compose).unwrap(),
        maps.iter().copied().reduce(compose),
        "non-commutative reduce, {context}"
    );

    let floats: Vec<f64> = (0..n)
        .map(|_| (splitmix(state) as f64 / u64::MAX as f64 - 0.5) * 1e6)
        .collect();
    let local_floats = cut.part(&floats, rank);
    let sum = local_floats.across(world).deterministic().sum().unwrap();
    let expected =
        tree_reduce(&floats, &|a, b| a + b).unwrap_or_else(|| std::iter::empty::<f64>().sum());
    assert_eq!(
        sum.to_bits(),
        expected.to_bits(),
        "deterministic sum, {context}"
    );
    assert_eq!(
        local_floats.across(world).min_by(f64::total_cmp).unwrap(),
        floats.iter().copied().min_by(f64::total_cmp),
        "{context}"
    );
    assert_eq!(
        local_floats.across(world).exact_sum().unwrap().to_bits(),
        floats.par_iter().exact_sum().to_bits(),
        "exact sum, {context}"
    );
    // Magnitudes from 1e-300 to 1e300, both signs: cancellation everywhere.
    let wild: Vec<f64> = (0..n)
        .map(|_| {
            let r = splitmix(state);
            let sign = if r & 1 == 0 { 1.0 } else { -1.0 };
            sign * ((r >> 12) as f64 / (1u64 << 52) as f64) * 10f64.powi((r % 601) as i32 - 300)
        })
        .collect();
    assert!(wild.iter().all(|x| x.is_finite()));
    assert_eq!(
        cut.part(&wild, rank)
            .across(world)
            .exact_sum()
            .unwrap()
            .to_bits(),
        wild.par_iter().exact_sum().to_bits(),
        "exact sum of wild magnitudes, {context}"
    );
    let singles: Vec<f32> = floats.iter().map(|&x| x as f32).collect();
    assert_eq!(
        cut.part(&singles, rank)
            .across(world)
            .exact_sum()
            .unwrap()
            .to_bits(),
        singles.par_iter().exact_sum().to_bits(),
        "exact f32 sum, {context}"
    );
    // An operator that is not associative shows the exact tree.
    let skew = |a: u64, b: u64| a.wrapping_mul(3).wrapping_add(b);
    assert_eq!(
        local.across(world).deterministic().reduce(skew).unwrap(),
        tree_reduce(&ints, &skew),
        "deterministic tree, {context}"
    );
    10
}

fn check_scans<C: Communicator>(
    world: &C,
    cut: &Cut,
    n: usize,
    state: &mut u64,
    context: &str,
) -> usize {
    let rank = world.rank() as usize;
    let ints: Vec<u64> = (0..n).map(|_| splitmix(state)).collect();
    let local = cut.part(&ints, rank);
    let start = cut.starts[rank];
    let add = |a: u64, b: u64| a.wrapping_add(b);
    let inclusive: Vec<u64> = ints
        .iter()
        .scan(0u64, |acc, &x| {
            *acc = acc.wrapping_add(x);
            Some(*acc)
        })
        .collect();
    let got = local.across(world).inclusive_scan(add).unwrap();
    assert_eq!(got, cut.part(&inclusive, rank), "inclusive scan, {context}");
    let got = local.across(world).exclusive_scan(5, add).unwrap();
    let expected: Vec<u64> = (0..local.len())
        .map(|i| {
            let g = start + i;
            if g == 0 {
                5
            } else {
                inclusive[g - 1].wrapping_add(5)
            }
        })
        .collect();
    assert_eq!(got, expected, "exclusive scan, {context}");

    let maps: Vec<Affine> = (0..n)
        .map(|_| Affine {
            a: splitmix(state) | 1,
            b: splitmix(state),
        })
        .collect();
    let local_maps = cut.part(&maps, rank);
    let prefix: Vec<Affine> = maps
        .iter()
        .scan(None, |acc: &mut Option<Affine>, &m| {
            let next = acc.map_or(m, |a| compose(a, m));
            *acc = Some(next);
            Some(next)
        })
        .collect();
    let got = local_maps.across(world).inclusive_scan(compose).unwrap();
    assert_eq!(
        got,
        cut.part(&prefix, rank),
        "non-commutative scan, {context}"
    );
    3
}

fn check_sorts<C: Communicator>(
    world: &C,
    cut: &Cut,
    n: usize,
    state: &mut u64,
    context: &str,
) -> usize {
    let rank = world.rank() as usize;
    let size = world.size() as usize;
    let mut checks = 0;
    let distinct: Vec<u64> = (0..n).map(|_| splitmix(state)).collect();
    let few: Vec<u64> = (0..n).map(|_| splitmix(state) % 3).collect();
    let equal = vec![42u64; n];
    for (name, global) in [
        ("distinct", &distinct),
        ("three keys", &few),
        ("equal", &equal),
    ] {
        let local = cut.part(global, rank).to_vec();
        let part = blitz_par_mpi::par_sort_unstable(world, local).unwrap();
        let mut expected = global.clone();
        expected.par_sort_unstable();
        check_part(
            world,
            &part,
            &expected,
            &format!("par_sort_unstable, {name}, {context}"),
        );
        // Balanced within 10% of N / P, once N is large enough for the bound (54 P^2).
        if n >= 54 * size * size * blitz_par_mpi::OVERSAMPLING / 32 && n >= 1000 {
            let ideal = n as f64 / size as f64;
            let lengths = lengths_of(world, part.len());
            assert!(
                lengths
                    .iter()
                    .all(|&l| (l as f64 - ideal).abs() <= 0.1 * ideal),
                "balance {lengths:?}, {name}, {context}"
            );
        }
        checks += 1;
    }

    let records: Vec<Record> = (0..n)
        .map(|i| Record {
            key: (splitmix(state) % 100) as u32,
            index: i as u64,
        })
        .collect();
    let local = cut.part(&records, rank).to_vec();
    let part = blitz_par_mpi::par_sort_by_key(world, local, |r| r.key).unwrap();
    let mut expected = records.clone();
    expected.par_sort_by_key(|r| r.key);
    check_part(
        world,
        &part,
        &expected,
        &format!("par_sort_by_key, {context}"),
    );

    let floats: Vec<f64> = (0..n)
        .map(|_| f64::from_bits(splitmix(state) >> 2))
        .collect();
    let local = cut.part(&floats, rank).to_vec();
    let part = blitz_par_mpi::par_sort_by(world, local, f64::total_cmp).unwrap();
    let mut expected = floats.clone();
    expected.par_sort_by(f64::total_cmp);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    check_part(
        world,
        &bits(&part),
        &bits(&expected),
        &format!("par_sort_by, {context}"),
    );

    let local = cut.part(&few, rank).to_vec();
    let part = blitz_par_mpi::par_sort(world, local).unwrap();
    let mut expected = few.clone();
    expected.sort();
    check_part(world, &part, &expected, &format!("par_sort, {context}"));
    checks + 3
}

/// This rank's part is its slice of `expected`, and the parts cover it.
fn check_part<C: Communicator, T: PartialEq + std::fmt::Debug>(
    world: &C,
    part: &[T],
    expected: &[T],
    context: &str,
) {
    let rank = world.rank() as usize;
    let lengths = lengths_of(world, part.len());
    assert_eq!(lengths.iter().sum::<usize>(), expected.len(), "{context}");
    let start: usize = lengths[..rank].iter().sum();
    assert!(
        part == &expected[start..start + part.len()],
        "{context}: rank {rank}'s part differs"
    );
}

fn check_failures<C: Communicator>(world: &C) -> usize {
    let rank = world.rank() as usize;
    let size = world.size() as usize;
    let last = size - 1;
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let data: Vec<u64> = (0..20_000u64)
        .map(|i| i * 7919 % 10_007 + rank as u64)
        .collect();

    // An operator that panics on the last rank only.
    let got = data.across(world).reduce(|a, b| {
        if rank == last && a % 97 == 3 {
            panic!("operator failed on rank {rank}");
        }
        a.max(b)
    });
    let expected_panic = Error::Panicked {
        rank: last,
        message: format!("operator failed on rank {last}"),
    };
    assert_eq!(got, Err(expected_panic.clone()), "reduce");

    let got = data.across(world).inclusive_scan(|a, b| {
        if rank == last && a % 97 == 3 {
            panic!("operator failed on rank {rank}");
        }
        a.wrapping_add(b)
    });
    assert_eq!(got, Err(expected_panic.clone()), "scan");

    let got = data.across(world).deterministic().reduce(|a, b| {
        if rank == last && b % 97 == 3 {
            panic!("operator failed on rank {rank}");
        }
        a ^ b
    });
    assert_eq!(got, Err(expected_panic.clone()), "deterministic reduce");

    // A comparator that panics on the last rank's local sort.
    let got = blitz_par_mpi::par_sort_by(world, data.clone(), |a, b| {
        if rank == last && *a == 5000 {
            panic!("comparator failed on rank {rank}");
        }
        a.cmp(b)
    });
    let message = format!("comparator failed on rank {last}");
    assert_eq!(
        got,
        Err(Error::Panicked {
            rank: last,
            message
        }),
        "sort"
    );

    std::panic::set_hook(quiet);

    if size > 1 {
        // Different element types.
        let got = if rank == 0 {
            data.across(world).sum().map(|_| ())
        } else {
            let signed: Vec<i64> = data.iter().map(|&x| x as i64).collect();
            signed.across(world).sum().map(|_| ())
        };
        match got {
            Err(Error::Mismatch { rank: 1, message }) => {
                assert!(
                    message.contains("i64") && message.contains("u64"),
                    "{message}"
                )
            }
            other => panic!("mismatched types gave {other:?}"),
        }
        // Different operations.
        let got = if rank == last {
            blitz_par_mpi::par_sort_unstable(world, data.clone()).map(|_| ())
        } else {
            data.across(world).sum().map(|_| ())
        };
        assert!(
            matches!(got, Err(Error::Mismatch { rank: r, .. }) if r == last),
            "mismatched operations gave {got:?}"
        );
    }

    // Exact sums across ranks: 1e308 on rank 0, -1e308 on the last, 1.0 in the middle.
    let mut spread = Vec::new();
    if rank == 0 {
        spread.push(1e308);
    }
    if rank == size / 2 {
        spread.push(1.0);
    }
    if rank == last {
        spread.push(-1e308);
    }
    assert_eq!(spread.across(world).exact_sum().unwrap(), 1.0);

    // The communicator still works after every failure.
    let total = data.across(world).sum().unwrap();
    let expected: u64 = (0..size as u64)
        .map(|r| (0..20_000u64).map(|i| i * 7919 % 10_007 + r).sum::<u64>())
        .sum();
    assert_eq!(total, expected);
    8
}
