#!/usr/bin/env bash
# Instructions per element of the passes whose issue-40 targets are per-thread speed (the
# sum, the in-place scan, `par_is_sorted`, `par_dedup`, the demo's map/filter/collect
# pipeline), each beside its sequential baseline, on one thread: counted by callgrind, for
# the working tree or a revision (REV).
#
# As in scripts/trace_icount.sh, the sources are copied and their clock made to read 64 times
# slower (about valgrind's slowdown), so that the pacer sizes its chunks about as it does
# natively; the copy is never committed anywhere.
#
# Usage: scripts/algos_icount.sh [REV]    (about 4 minutes: one release build, 10 runs of 10M)
# N=<items> and ROWS="sum scan is_sorted dedup pipeline" narrow it; KEEP=1 keeps the build
# (its directory is printed) for callgrind_annotate or --branch-sim=yes by hand.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/lib/icount.sh
. "$root/scripts/lib/icount.sh"
icount_probe "$root" "${1:-}" "$work" "core::arch::x86_64::_rdtsc() >> 6"
cat > "$work/probe/src/main.rs" <<'RS'
use blitz_par::prelude::*;
use std::hint::black_box;

// One function per row, never inlined, so that callgrind counts it alone.
#[inline(never)]
fn sum_par(v: &[u64]) -> u64 { black_box(v).par_iter().sum::<u64>() }
#[inline(never)]
fn sum_seq(v: &[u64]) -> u64 { black_box(v).iter().sum::<u64>() }
#[inline(never)]
fn scan_par(v: &mut [u64]) { black_box(v).par_inclusive_scan(|a, b| a.wrapping_add(*b)) }
#[inline(never)]
fn scan_seq(v: &mut [u64]) {
    let mut acc = 0u64;
    for x in black_box(v) {
        acc = acc.wrapping_add(*x);
        *x = acc;
    }
}
#[inline(never)]
fn is_sorted_par(v: &[u64]) -> bool { black_box(v).par_is_sorted() }
#[inline(never)]
fn is_sorted_seq(v: &[u64]) -> bool { black_box(v).is_sorted() }
#[inline(never)]
fn dedup_par(v: &mut Vec<u64>) { black_box(v).par_dedup() }
#[inline(never)]
fn dedup_seq(v: &mut Vec<u64>) { black_box(v).dedup() }
#[inline(never)]
fn pipeline_par(v: &[i64]) -> Vec<i64> {
    black_box(v).par_iter().map(|x| x * 3).filter(|x| x % 7 == 0).collect()
}
#[inline(never)]
fn pipeline_seq(v: &[i64]) -> Vec<i64> {
    black_box(v).iter().map(|x| x * 3).filter(|x| x % 7 == 0).collect()
}

#[inline(never)]
fn warm_up() {
    let warm: Vec<u64> = (0..100_000).collect();
    black_box(black_box(&warm).par_iter().sum::<u64>());
}

fn xorshift(seed: u64, n: usize, m: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n).map(|_| { s ^= s >> 12; s ^= s << 25; s ^= s >> 27; s.wrapping_mul(0x2545f4914f6cdd1d) % m }).collect()
}

fn main() {
    let row = std::env::args().nth(1).unwrap();
    let n: usize = std::env::var("N").ok().map_or(10_000_000, |s| s.parse().unwrap());
    let pool = blitz_par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    // Rows run inside the pool, on its one worker, so that every item is counted on one thread.
    pool.install(|| {
        // A first call outside the count: the pool, the thread's seat, the clock's rate.
        warm_up();
        let k1e7 = xorshift(2, n, 10_000_000);
        let out = match row.as_str() {
            "sum_par" => sum_par(&k1e7) as usize,
            "sum_seq" => sum_seq(&k1e7) as usize,
            "scan_par" => { let mut v = k1e7.clone(); scan_par(&mut v); v[n - 1] as usize }
            "scan_seq" => { let mut v = k1e7.clone(); scan_seq(&mut v); v[n - 1] as usize }
            "is_sorted_par" | "is_sorted_seq" => {
                let v: Vec<u64> = (0..n as u64).collect();
                usize::from(if row == "is_sorted_par" { is_sorted_par(&v) } else { is_sorted_seq(&v) })
            }
            "dedup_par" | "dedup_seq" => {
                let mut v = k1e7.clone();
                v.sort_unstable();
                if row == "dedup_par" { dedup_par(&mut v) } else { dedup_seq(&mut v) }
                v.len()
            }
            "pipeline_par" | "pipeline_seq" => {
                let d: Vec<i64> = (0..n as i64).map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64) >> 20).collect();
                if row == "pipeline_par" { pipeline_par(&d) } else { pipeline_seq(&d) }.len()
            }
            _ => panic!("unknown row {row}"),
        };
        println!("{out}");
    });
}
RS
cp "$root/Cargo.lock" "$work/probe/"
export CARGO_TARGET_DIR="${ICOUNT_TARGET_DIR:-$work/target}"
(cd "$work/probe" && cargo build --release --quiet && cp "$CARGO_TARGET_DIR/release/probe" "$work/probe.bin")
n=${N:-10000000}
count() { # row -> instructions of probe::<row> and all it calls, summed over the threads
    rm -f "$work"/cg*
    N=$n valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/cg" \
        --toggle-collect="probe::$1" "$work/probe.bin" "$1" >/dev/null 2>&1
    cat "$work"/cg-* | awk '/^summary:/ { s += $2 } END { print s }'
}
echo "| row ($n items, 1 thread) | blitz-par instr./item | sequential instr./item | ratio |"
echo "|---|---|---|---|"
for row in ${ROWS:-sum scan is_sorted dedup pipeline}; do
    p=$(count "${row}_par")
    s=$(count "${row}_seq")
    python3 -c "import sys; row = sys.argv[1]; p, s, n = map(int, sys.argv[2:]); print(f'| {row} | {p / n:.3f} | {s / n:.3f} | {p / s:.2f}x |')" "$row" "$p" "$s" "$n"
done
