#!/usr/bin/env bash
# The "Algorithms beyond rayon" table: ParlayLib and blitz-par on the same inputs, one after
# the other on the same machine (issue 40; figures go to PERF.md).
#
#   PARLAYLIB_GIT=<a clone or bare git dir of cmuparlay/parlaylib> scripts/parlay_bench.sh
#
# Without PARLAYLIB_GIT it clones https://github.com/cmuparlay/parlaylib. ParlayLib is
# copied into a temporary directory and never into this repository; only our driver
# (scripts/parlay_bench.cpp) is built against it, with g++ -O3 -std=c++17 -pthread.
# Then `cargo bench --bench algos -- --table` prints blitz-par's rows and their baselines.
# The driver is built with -march=native and blitz-par for baseline x86-64 (SSE2): vector
# loops over u64 (sums, compares) get four or eight lanes on the C++ side and two on ours.
# RUSTFLAGS="-C target-cpu=native" before this script builds both for the machine.
# On an AMD EPYC VM that build made the hash-based rows about 3x slower (rayon by hand too;
# PERF.md, pass 44), so the table there is the baseline build, which is what users get.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=${PARLAYLIB_GIT:-https://github.com/cmuparlay/parlaylib}
if git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    mkdir -p "$work/parlaylib"
    git --git-dir="$src" archive HEAD | tar -x -C "$work/parlaylib"
else
    git clone -q --depth 1 "$src" "$work/parlaylib"
fi

echo "building the ParlayLib driver..." >&2
g++ -O3 -std=c++17 -pthread -march=native -I "$work/parlaylib/include" \
    scripts/parlay_bench.cpp -o "$work/parlay_bench"
echo "building blitz-par's table..." >&2
cargo bench --features rand --bench algos --no-run 2>&1 | tail -1 >&2

echo "== ParlayLib ==" | tee "$work/parlay.txt"
"$work/parlay_bench" | tee -a "$work/parlay.txt"
echo "== blitz-par ==" | tee "$work/blitz.txt"
cargo bench --features rand --bench algos -- --table | tee -a "$work/blitz.txt"

# Side by side: every blitz-par row whose name ParlayLib also timed, and the ratio.
echo "== blitz-par / ParlayLib (ms) =="
awk 'NR == FNR { if ($2 ~ /^[0-9.]+$/) p[$1] = $2; next }
     $1 in p && $2 ~ /^[0-9.]+$/ { printf "%-32s %10.2f %10.2f %8.2fx\n", $1, $2, p[$1], $2 / p[$1] }' \
    "$work/parlay.txt" "$work/blitz.txt"
