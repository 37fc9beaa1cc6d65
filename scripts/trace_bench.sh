#!/usr/bin/env bash
# The `trace` feature's cost (issue "See where parallel time goes", its Performance table):
# benches/trace.rs built without the feature (`off`) and with it (`on`, not recording, and
# `recording`: each call in a `trace::record` of its own; and for the sum `in_recording`: calls
# made while a recording of 1,000 calls is on), on a 1,000-item sum and a 16,777,215-node tree
# sum. Prints one table: the mean time of each and its ratio to `off`, and the memory a
# recording thread uses.
#
# Usage: scripts/trace_bench.sh [sum|tree]   (both: about 3 minutes after the builds; `sum`
#                                            alone about 40 seconds; run it on a quiet machine)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
case "${1:-}" in
    "") filter="" ;;
    sum) filter="trace_sum_1000" ;;
    tree) filter="trace_tree_sum" ;;
    *) echo "usage: $0 [sum|tree]" >&2; exit 2 ;;
esac
rm -rf "$target/criterion/trace_sum_1000" "$target/criterion/trace_tree_sum"
cargo bench --bench trace -- $filter
cargo bench --bench trace --features trace -- $filter
python3 - "$target/criterion" <<'PY'
import json, os, sys
root = sys.argv[1]
def mean(group, mode, n):
    path = os.path.join(root, group, mode, str(n), "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["mean"]["point_estimate"]
def fmt(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.2f} us"
print()
print("| workload | feature off | on, not recording | recording, a `record` per call | calls inside a recording |")
print("|---|---|---|---|---|")
for label, group, n in [("1,000-item sum", "trace_sum_1000", 1000),
                        ("16.7M-node tree sum", "trace_tree_sum", (1 << 24) - 1)]:
    if not os.path.exists(os.path.join(root, group)):
        continue
    off, on, rec = (mean(group, m, n) for m in ("off", "on", "recording"))
    inside = ""
    if os.path.exists(os.path.join(root, group, "in_recording")):
        ins = mean(group, "in_recording", n)
        inside = f"{fmt(ins)} ({ins / off:.3f}x)"
    print(f"| {label} | {fmt(off)} | {fmt(on)} ({on / off:.3f}x) | {fmt(rec)} ({rec / off:.3f}x) | {inside} |")
print()
print("Memory: 2 MiB per thread that records an event (65,536 events of 32 bytes), allocated at")
print("its first event; later events of a full ring are dropped and counted.")
PY
