#!/usr/bin/env bash
# Instructions of `par_select_nth_unstable(n/2)` against std's `select_nth_unstable(n/2)` on
# the algos bench's input (a random permutation of `0..n` from its xorshift64* shuffle), for
# the working tree or a revision (REV). Counted by callgrind over every thread (valgrind runs
# one thread at a time: a pool of 2 whose work is serialised), less a run that only builds
# the input and starts the pool; the workers' idle spinning is counted too.
#
# As in scripts/trace_icount.sh, the count runs against a copy of the sources whose clock
# reads 1,024 times slower (never recalibrated), so that the driver's pacer, which times its
# chunks, splits about as it does natively.
#
# Usage: scripts/select_icount.sh [REV] [N...]   (N: input lengths, default 1000000 10000000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:-}"
shift || true
lens=("$@")
[ ${#lens[@]} -gt 0 ] || lens=(1000000 10000000)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/lib/icount.sh
. "$root/scripts/lib/icount.sh"
icount_probe "$root" "$rev" "$work" "core::arch::x86_64::_rdtsc() >> 10"
cat > "$work/probe/src/main.rs" <<'RS'
use blitz_par::prelude::*;
use std::hint::black_box;

/// The algos bench's permutation (xorshift64*, the same seed).
fn permutation(n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n as u64).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..n).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let j = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

#[inline(never)]
fn par(v: &mut [u64]) -> u64 {
    let mid = v.len() / 2;
    *black_box(v).par_select_nth_unstable(mid).1
}

#[inline(never)]
fn std(v: &mut [u64]) -> u64 {
    let mid = v.len() / 2;
    *black_box(v).select_nth_unstable(mid).1
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap();
    let n: usize = args.next().unwrap().parse().unwrap();
    let mut v = permutation(n);
    // Start the pool outside the count.
    blitz_par::join(|| (), || ());
    let got = match mode.as_str() {
        "par" => par(&mut v),
        "std" => std(&mut v),
        _ => n as u64 / 2,
    };
    assert_eq!(got, n as u64 / 2);
}
RS
cp "$root/Cargo.lock" "$work/probe/"
export CARGO_TARGET_DIR="$work/target"
(cd "$work/probe" && cargo build --release --quiet)
count() { # mode n -> instructions of every thread, the whole run
    # (callgrind's --toggle-collect counts the thread that enters the function only: the
    # pool's workers would be left out; so whole runs, less one that only builds the input).
    rm -f "$work"/cg*
    BLITZ_NUM_THREADS=2 valgrind --tool=callgrind --callgrind-out-file="$work/cg" \
        "$CARGO_TARGET_DIR/release/probe" "$1" "$2" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$work/cg"
}
echo "| n | par_select_nth_unstable | std select_nth_unstable | ratio |"
echo "|---|---|---|---|"
for n in "${lens[@]}"; do
    none=$(count none "$n")
    p=$(($(count par "$n") - none))
    s=$(($(count std "$n") - none))
    python3 -c "import sys; p, s, n = map(int, sys.argv[1:]); print(f'| {n:,} | {p/1e6:.1f}M ({p/n:.1f}/item) | {s/1e6:.1f}M ({s/n:.1f}/item) | {p/s:.2f}x |')" "$p" "$s" "$n"
done
