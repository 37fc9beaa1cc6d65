#!/usr/bin/env bash
# Wall-clock check of the nudge that cannot be lost (sleeping workers wait without a timeout
# while nobody patrols the watches): the 1,000-item sum called in a loop from outside the pool
# (`sum_i64/blitz/1000`, the row a real wake-up of the nudged sleepers made 1.3x slower) at a
# base revision and at HEAD, in alternated rounds, as a table of the median time of each and
# head/base; then the idle check, `examples/idle_wakeups.rs` (HEAD's, copied into the base
# tree): one parallel call, 3 s idle, the wake-ups of each pool thread meanwhile. For a
# quiet machine; the instruction counts are scripts/release_icount.sh's.
#
# BASE is built from `git archive` under target/nudge_ab/ (its own target directory there),
# HEAD in this checkout's; the work tree is not touched.
#
# Usage: scripts/nudge_ab.sh BASE   (e.g. 5d8d4d3; builds first, then about 1 minute of
# runs: ROUNDS=4 rounds x 2 revisions of MEASURE=3 s plus 1 s warm-up, and 2 x 3 s idle)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: scripts/nudge_ab.sh BASE}"
rounds=${ROUNDS:-4}
measure=${MEASURE:-3}
work="$root/target/nudge_ab"
row='^sum_i64/blitz/1000$'
mkdir -p "$work"

bins() { # dir target-dir -> "iter-bench-bin idle-example-bin", built with cargo
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo build --release --example idle_wakeups \
        --message-format=json 2>/dev/null
     cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --no-run --bench iter \
        --message-format=json 2>/dev/null) | python3 -c '
import json, sys
exe = {}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        exe[m["target"]["name"]] = m["executable"]
print(exe["iter"], exe["idle_wakeups"])'
}
rev=$(git -C "$root" rev-parse "$base")
if [ "$(cat "$work/base.rev" 2>/dev/null)" != "$rev" ]; then
    rm -rf "$work/base"
    mkdir -p "$work/base"
    git -C "$root" archive "$rev" | tar -x -C "$work/base"
    echo "$rev" > "$work/base.rev"
fi
cp "$root/examples/idle_wakeups.rs" "$work/base/examples/idle_wakeups.rs"
echo "building $base and HEAD" >&2
read -r base_iter base_idle < <(bins "$work/base" "$work/target")
read -r head_iter head_idle < <(bins "$root" "${CARGO_TARGET_DIR:-$root/target}")

run() { # label bin -> appends "label row seconds" lines to $work/times
    "$2" --bench --warm-up-time 1 --measurement-time "$measure" --noplot "$row" 2>/dev/null \
        | python3 -c '
import re, sys
label = sys.argv[1]
unit = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
name = None
for line in sys.stdin:
    m = re.match(r"^(\S+)", line)
    if m and "time:" not in line.split()[0]:
        name = m.group(1)
    t = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
    if t and name:
        print(label, name, float(t.group(1)) * unit[t.group(2)])
' "$1" >> "$work/times"
}
rm -f "$work/times"
for ((r = 1; r <= rounds; r++)); do
    echo "round $r of $rounds" >&2
    # Alternated, and the order flipped each round, so that a drift in the machine's state
    # falls on both revisions.
    if ((r % 2)); then order="base head"; else order="head base"; fi
    for who in $order; do
        if [ "$who" = base ]; then run base "$base_iter"; else run head "$head_iter"; fi
    done
done
python3 - "$work/times" "$base" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    who, row, t = line.split()
    times.setdefault(row, {}).setdefault(who, []).append(float(t))
def fmt(s):
    for u, f in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= f:
            return f"{s / f:.3g} {u}"
    return f"{s * 1e12:.3g} ps"
print(f"| row | base ({sys.argv[2]}) | head | head/base | rounds |")
print("|---|---|---|---|---|")
for row, w in times.items():
    if "base" in w and "head" in w:
        b, h = statistics.median(w["base"]), statistics.median(w["head"])
        print(f"| {row} | {fmt(b)} | {fmt(h)} | {h / b:.3f}x | {len(w['base'])}/{len(w['head'])} |")
PY
echo
echo "idle, base ($base):"
"$base_idle"
echo
echo "idle, head:"
"$head_idle"
