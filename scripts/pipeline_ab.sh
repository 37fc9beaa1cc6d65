#!/usr/bin/env bash
# The demo's map/filter/collect pipeline (`examples/demo.rs`, its row "map/filter/collect
# pipeline over 10M i64") at a base revision and at HEAD: builds `examples/demo` (release) from
# each commit's tree (not the working tree), then runs the two binaries alternately, three
# runs each, and prints the row's sequential and parallel times and their ratio for every run,
# with the page faults and CPU time of the whole demo run (`perf stat`, when perf works).
#
# Usage: scripts/pipeline_ab.sh BASE_REV   (about 1 minute of runs on the 2-core VM, plus the
#                                          builds: several minutes the first time, when each
#                                          target dir builds the dependencies; run it on a
#                                          quiet machine)
# Environment: AB_DIR (default /tmp/blitz-pipeline-ab): sources, target dirs and binaries;
# the target dirs are kept for the next run. RUNS (default 3): runs of each binary.
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev="${1:?usage: $0 BASE_REV}"
dir="${AB_DIR:-/tmp/blitz-pipeline-ab}"
runs="${RUNS:-3}"
mkdir -p "$dir/bin"

build() { # name rev
    local name=$1 rev=$2 src="$dir/src-$1" target="$dir/target-$1"
    rm -rf "$src"
    mkdir -p "$src"
    git archive "$rev" | tar -x -C "$src"
    # A reused target dir must not take the old build for this one: the archive's files
    # carry the commit's time.
    find "$src" -type f -exec touch {} +
    echo "building $name ($(git rev-parse --short "$rev")) ..." >&2
    (cd "$src" && CARGO_TARGET_DIR="$target" cargo build --release --example demo --quiet)
    cp "$target/release/examples/demo" "$dir/bin/demo-$name"
}

start=$(date +%s)
build base "$base_rev"
build head HEAD
built=$(date +%s)

have_perf=0
if perf stat -e page-faults,task-clock true >/dev/null 2>&1; then
    have_perf=1
fi

row() { # name run
    local name=$1 run=$2 out stat line faults cpu
    stat=$(mktemp)
    if [ "$have_perf" = 1 ]; then
        out=$(perf stat -x, -o "$stat" -e page-faults,task-clock "$dir/bin/demo-$name")
        faults=$(awk -F, '$3 ~ /page-faults/ {print $1}' "$stat")
        cpu=$(awk -F, '$3 ~ /task-clock/ {printf "%.0f", $1}' "$stat")
    else
        out=$("$dir/bin/demo-$name")
        faults="-"
        cpu="-"
    fi
    rm -f "$stat"
    line=$(grep "map/filter/collect pipeline" <<<"$out" | head -1)
    # "... sequential  18.400 ms   blitz-par  14.500 ms   speedup  1.27x"
    awk -v name="$name" -v run="$run" -v faults="$faults" -v cpu="$cpu" '{
        for (i = 1; i <= NF; i++) {
            if ($i == "sequential") seq = $(i + 1)
            if ($i == "blitz-par") par = $(i + 1)
        }
        printf "| %s | %d | %.2f | %.2f | %.2fx | %s | %s |\n", name, run, seq, par, seq / par, faults, cpu
    }' <<<"$line"
}

echo
echo "base $(git rev-parse --short "$base_rev"), head $(git rev-parse --short HEAD); $(nproc) CPUs"
echo
echo "| build | run | sequential ms | parallel ms | speedup | page faults (whole demo) | CPU ms (whole demo) |"
echo "|---|---|---|---|---|---|---|"
for run in $(seq 1 "$runs"); do
    row base "$run"
    row head "$run"
done
end=$(date +%s)
echo
echo "builds $((built - start)) s, runs $((end - built)) s"
