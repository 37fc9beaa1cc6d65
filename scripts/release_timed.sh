#!/usr/bin/env bash
# Wall-clock check of issue 42's "nothing got slower": a few criterion rows of blitz-par at a
# base revision and at HEAD (or the working tree), in alternated rounds, as a table of the
# median time of each and head/base. For a quiet machine; scripts/release_icount.sh is the
# instruction-count twin that any machine can run.
#
# The rows: the 1,000-item and 10M-item sums (the cost of one call outside the pool and the
# per-item loop), map+collect and filter+collect of 10M (the collect consumers, the driver's
# hints), par_split_whitespace (the unindexed drive, Pattern's split loop moved onto the
# sealed trait), and the sorts whose type recognition moved to the key trait (1M random u64,
# 1M f64 by total_cmp, 1M Strings, 1M records by a u32 key).
#
# BASE is built from `git archive` under target/release_timed/ (its own target directory
# there), HEAD in this checkout's; the work tree is not touched. Each revision's own bench
# files run (the rows' names are the same in both).
#
# Usage: scripts/release_timed.sh BASE   (e.g. b09120e; builds first, then about 5 minutes
# of runs: 9 rows x 2 revisions x ROUNDS=3 rounds of MEASURE=2 s plus 1 s warm-up each)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: scripts/release_timed.sh BASE}"
rounds=${ROUNDS:-3}
measure=${MEASURE:-2}
work="$root/target/release_timed"
mkdir -p "$work"
iter_rows='^sum_i64/blitz/(1000|10000000)$|^(map|filter)_collect_10M/blitz$|^split_whitespace_14MB/blitz$'
sort_rows='^(u64_random_1M|f64_random_1M|string_1M)/unstable/blitz|^u32_field_1M/unstable_by_key/blitz'

bins() { # dir target-dir -> "iter-bin sort-bin" built with `cargo bench --no-run`
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --no-run --bench iter --bench sort \
        --message-format=json 2>/dev/null) | python3 -c '
import json, sys
exe = {}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("iter", "sort"):
        exe[m["target"]["name"]] = m["executable"]
print(exe["iter"], exe["sort"])'
}
rev=$(git -C "$root" rev-parse "$base")
if [ "$(cat "$work/base.rev" 2>/dev/null)" != "$rev" ]; then
    rm -rf "$work/base"
    mkdir -p "$work/base"
    git -C "$root" archive "$rev" | tar -x -C "$work/base"
    echo "$rev" > "$work/base.rev"
fi
echo "building $base and HEAD" >&2
read -r base_iter base_sort < <(bins "$work/base" "$work/target")
read -r head_iter head_sort < <(bins "$root" "${CARGO_TARGET_DIR:-$root/target}")

run() { # label bin filter -> appends "label row seconds" lines to $work/times
    "$2" --bench --warm-up-time 1 --measurement-time "$measure" --noplot "$3" 2>/dev/null \
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
        if [ "$who" = base ]; then
            run base "$base_iter" "$iter_rows"; run base "$base_sort" "$sort_rows"
        else
            run head "$head_iter" "$iter_rows"; run head "$head_sort" "$sort_rows"
        fi
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
