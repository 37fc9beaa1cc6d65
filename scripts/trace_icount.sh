#!/usr/bin/env bash
# Instructions per 1,000-item sum (`v.par_iter().sum()`) with the `trace` feature off, on but
# not recording, each call in a `trace::record` of its own (the trace dropped too), and calls
# inside a recording of 1,000 calls; and the hook events each recorded call writes. Counted
# by callgrind on the calling thread (a pool of 2, the sum running outside it, as in
# benches/trace.rs), for the working tree or a revision (REV).
#
# Under valgrind a call runs some 50 times slower, and the driver's pacer, which times its
# chunks, would split and enter the pool where a native run peels three chunks and folds. So
# the count runs against a copy of the sources whose clock reads 1,024 times slower (and is
# never recalibrated): the pacer then sees about what it sees natively (3 leaves, as a native
# loop of such sums records), and the code counted is the crate's but for one shift per clock
# reading.
#
# Then the same for a tree sum with a join at every node (`benches/common/tree.rs`, 262,143
# nodes here, the bench's 16.7M being too long under valgrind): instructions per node (per
# join), counted on every thread, off, on but not recording, and in a `record` of its own.
#
# Each clock reading of the counted copy goes through a function of its own, so the counts
# include a call per reading (some 5 instructions), and the table gives readings per call.
#
# Usage: scripts/trace_icount.sh [REV]     (about 8 minutes: two release builds, ten runs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/lib/icount.sh
. "$root/scripts/lib/icount.sh"
icount_probe "$root" "${1:-}" "$work" "tsc_read() >> 10" '
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
#[inline(never)]
fn tsc_read() -> u64 {
    // SAFETY: RDTSC has no preconditions.
    unsafe { core::arch::x86_64::_rdtsc() }
}
'
printf '[features]\ntrace = ["blitz-par/trace"]\n' >> "$work/probe/Cargo.toml"
cat > "$work/probe/src/main.rs" <<'RS'
use blitz_par::prelude::*;
use std::hint::black_box;

#[inline(never)]
fn sum(v: &[u64]) -> u64 {
    black_box(v).par_iter().sum::<u64>()
}

#[cfg(feature = "trace")]
#[inline(never)]
fn recorded(v: &[u64]) -> u64 {
    let (s, trace) = blitz_par::trace::record(|| sum(v));
    drop(black_box(trace));
    s
}

#[cfg(feature = "trace")]
#[inline(never)]
fn inside(v: &[u64], calls: usize) -> u64 {
    let (s, trace) = blitz_par::trace::record(|| (0..calls).map(|_| sum(v)).sum::<u64>());
    assert_eq!(trace.dropped(), 0);
    drop(black_box(trace));
    s
}

#[path = "tree.rs"]
mod tree;

#[inline(never)]
fn tree_sum(n: &tree::Node) -> u64 {
    let (l, r) = blitz_par::join(
        || n.left.map_or(0, tree_sum),
        || n.right.map_or(0, tree_sum),
    );
    n.val + l + r
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    if let Some(tree_mode) = mode.strip_prefix("tree-") {
        let (how, calls) = tree_mode.split_once('-').unwrap();
        let layers = 18;
        let mut slots = tree::storage(layers);
        let root = tree::build(&mut slots);
        let nodes = (1u64 << layers) - 1;
        assert_eq!(tree_sum(root), nodes);
        for _ in 0..calls.parse::<usize>().unwrap() {
            let total = match how {
                #[cfg(feature = "trace")]
                "recorded" => {
                    let (s, trace) = blitz_par::trace::record(|| tree_sum(root));
                    drop(black_box(trace));
                    s
                }
                _ => tree_sum(root),
            };
            assert_eq!(total, nodes);
        }
        return;
    }
    let v: Vec<u64> = (0..1000).collect();
    for _ in 0..100 {
        assert_eq!(sum(&v), 499_500);
    }
    let mut total = 0;
    match mode.as_str() {
        #[cfg(feature = "trace")]
        "recorded" => (0..10_000).for_each(|_| total += recorded(&v)),
        #[cfg(feature = "trace")]
        "inside" => (0..10).for_each(|_| total += inside(&v, 1000)),
        _ => (0..10_000).for_each(|_| total += sum(&v)),
    }
    assert_eq!(total, 10_000 * 499_500);
}
RS
# The bench's tree (its layout and build), without the other libraries' sums.
sed '/^pub fn sum_seq/,$d' "$root/benches/common/tree.rs" > "$work/probe/src/tree.rs"
cp "$root/Cargo.lock" "$work/probe/"
export CARGO_TARGET_DIR="$work/target"
(cd "$work/probe" && cargo build --release --quiet && cp "$CARGO_TARGET_DIR/release/probe" "$work/off" &&
    cargo build --release --quiet --features trace && cp "$CARGO_TARGET_DIR/release/probe" "$work/on")
count() { # binary mode function -> "instructions hook-events clock-readings", main thread
    # (valgrind runs one thread at a time, and a toggle counts any thread that runs meanwhile:
    # the pool's idle workers and the watch's patrols would be counted with the call's).
    rm -f "$work"/cg*
    BLITZ_NUM_THREADS=2 valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$work/cg" --toggle-collect="$3" "$work/$1" "$2" >/dev/null 2>&1
    python3 - "$work/cg-01" <<'PY'
import re, sys
total, calls, reads, names, callee = 0, 0, 0, {}, None
for line in open(sys.argv[1]):
    if line.startswith("summary:"):
        total = int(line.split()[1])
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(2):
            names[m.group(1)] = m.group(2)
        callee = names.get(m.group(1)) if line.startswith("cfn=") else None
    elif line.startswith("calls=") and callee is not None:
        if "trace::ring::emit" in callee:
            calls += int(line.split()[0][6:])
        if callee.endswith("clock::tsc_read"):
            reads += int(line.split()[0][6:])
        callee = None
print(total, calls, reads)
PY
}
count_all() { # binary mode -> "instructions calls-of-emit", the whole run, every thread
    rm -f "$work"/cg*
    BLITZ_NUM_THREADS=2 valgrind --tool=callgrind \
        --callgrind-out-file="$work/cg" "$work/$1" "$2" >/dev/null 2>&1
    python3 - "$work/cg" <<'PY'
import re, sys
total, calls, names, callee = 0, 0, {}, None
for line in open(sys.argv[1]):
    if line.startswith("summary:"):
        total = int(line.split()[1])
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(2):
            names[m.group(1)] = m.group(2)
        callee = names.get(m.group(1)) if line.startswith("cfn=") else None
    elif line.startswith("calls=") and callee is not None:
        if "trace::ring::emit" in callee:
            calls += int(line.split()[0][6:])
        callee = None
print(total, calls)
PY
}
# The sum's function runs 100 times more in the off and on modes (the warm-up).
read -r off _ off_reads < <(count off plain probe::sum)
read -r on _ on_reads < <(count on plain probe::sum)
read -r rec rec_events rec_reads < <(count on recorded probe::recorded)
read -r ins ins_events ins_reads < <(count on inside probe::inside)
python3 - "$off" "$on" "$rec" "$rec_events" "$ins" "$ins_events" \
    "$off_reads" "$on_reads" "$rec_reads" "$ins_reads" <<'PY'
import sys
off, on, rec, rec_ev, ins, ins_ev, off_r, on_r, rec_r, ins_r = map(int, sys.argv[1:])
off, on, off_r, on_r = off / 10_100, on / 10_100, off_r / 10_100, on_r / 10_100
rows = [("feature off", off, "", off_r), ("on, not recording", on, "", on_r),
        ("a `record` per call (its trace dropped too)", rec / 10_000,
         f"{rec_ev / 10_000:.1f}", rec_r / 10_000),
        ("calls inside a recording of 1,000", ins / 10_000, f"{ins_ev / 10_000:.1f}",
         ins_r / 10_000)]
print("| 1,000-item sum | instructions per call | vs off | hook events per call | clock readings per call |")
print("|---|---|---|---|---|")
for label, n, ev, r in rows:
    print(f"| {label} | {n:,.0f} | {n / off:.2f}x | {ev} | {r:.2f} |")
PY
# The tree: whole runs of one and of three calls (tree built, pool started, a warm-up call),
# every thread counted; their difference, halved, is one call's (the pool's idle workers'
# looking for work included: valgrind runs one thread at a time).
# (Readings are counted for the sum alone.)
read -r off1 _ < <(count_all off tree-plain-1)
read -r off3 _ < <(count_all off tree-plain-3)
read -r on1 _ < <(count_all on tree-plain-1)
read -r on3 _ < <(count_all on tree-plain-3)
read -r rec1 ev1 < <(count_all on tree-recorded-1)
read -r rec3 ev3 < <(count_all on tree-recorded-3)
python3 - "$off1" "$off3" "$on1" "$on3" "$rec1" "$rec3" "$ev1" "$ev3" <<'PY'
import sys
off1, off3, on1, on3, rec1, rec3, ev1, ev3 = map(int, sys.argv[1:])
nodes = (1 << 18) - 1
off, on, rec = (off3 - off1) / 2, (on3 - on1) / 2, (rec3 - rec1) / 2
print()
print("| 262,143-node tree sum | instructions per node (a join each) | vs off | hook events per call |")
print("|---|---|---|---|")
for label, n, ev in [("feature off", off, ""), ("on, not recording", on, ""),
                     ("in a `record` of its own", rec, f"{(ev3 - ev1) / 2:,.0f}")]:
    print(f"| {label} | {n / nodes:,.2f} | {n / off:.3f}x | {ev} |")
PY
