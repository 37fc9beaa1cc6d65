#!/usr/bin/env bash
# The rayon compatibility crates' benchmark (issue "Move a whole program onto blitz-par", its
# Performance section). Builds compat/bench/src/main.rs, in release mode, three ways:
#
#   patched    blitz-par, and rayon/rayon-core patched to compat/ ([patch.crates-io]): one pool;
#   unpatched  blitz-par by path, real rayon from crates.io beside it: two pools;
#   rayon      real rayon only (the program's own code on rayon too);
#   base       (with --base DIR) as patched, but blitz-par and compat/ taken from the checkout
#              DIR (another revision: the figures before a change, in the same table);
#   pool-only  (with --pool-only) as patched, but the global pool built with
#              `pool_threads_only(true)`: the calling thread blocks while the workers run its
#              parallel work, as in rayon, instead of taking part as a guest. On 2 cores the
#              guest and both workers compute at once in a long drive of a foreign unindexed
#              producer (PERF.md); this build shows what that costs.
#
# The program's own parallel code goes through a `par` facade (blitz-par with the `blitz`
# feature, rayon without); ndarray's, hashbrown's and indexmap's `rayon` features always call
# `rayon`, which is blitz-par only in the patched build. Each build is a scratch workspace under
# target/compat-bench/ (never the repository root), sharing one target directory. The script
# fails unless the patch took in the patched build (`cargo tree -i rayon` and `-i rayon-core`
# show compat/'s paths, and Cargo.lock has no registry source for them) and did not in the others.
#
# Then it runs the three binaries one after the other (PROCESSES times over, interleaved:
# patched, unpatched, rayon, patched, ...) and prints one table, each figure the median over
# the processes with the lowest and highest beside it when there are several:
#   one pool against two (workload one-pool): own code + ndarray Zip::par_for_each + hashbrown
#     par_extend, ROUNDS rounds: wall time, CPU time (user+sys), CPUs busy, peak thread count;
#   turns (one pool against two, phases that hold still): own code + ndarray
#     Zip::par_for_each + hashbrown par_iter().map().sum() over a map of TURN entries built
#     before the loop (nothing allocated in it), ROUNDS rounds: the same figures;
#   real crates: ndarray Zip::par_for_each and par_map_collect (SIDE x SIDE f64), hashbrown
#     par_iter().map().sum() (SUM entries), indexmap par_sort_keys (SORT entries): best and
#     median of REPEATS, and patched / rayon.
#
# Usage: scripts/compat_bench.sh [--rounds N] [--side N] [--own-items N] [--extend-entries N]
#                                [--sum-entries N] [--sort-entries N] [--turn-entries N]
#                                [--repeats N] [--processes N] [--pool-only]
#                                [--builds patched,pool-only,unpatched,rayon] [--base DIR]
#                                [--workload all|one-pool|turns|crates|zip[,...]]
# Defaults are the issue's sizes: 1,000 rounds, 2,048 x 2,048, 1M own items, 1M par_extend
# entries, 10M entries summed, 1M sorted, 1M entries in turns' map, 10 repeats, 1 process;
# `all` is one-pool and crates. The table that ranks the pools (about 7 minutes on the 2-core
# VM, builds included):
#   scripts/compat_bench.sh --workload turns,crates --processes 5 --pool-only
# ndarray's Zip::par_for_each alone, before and after a change (DIR: a copy of the revision
# before, e.g. `mkdir -p target/zip-base && git archive main | tar -x -C target/zip-base`;
# about 2 minutes on the 2-core VM, builds included):
#   scripts/compat_bench.sh --base DIR --builds patched,rayon --workload zip --repeats 300 \
#       --processes 7
# A smoke run:
#   scripts/compat_bench.sh --rounds 3 --side 64 --own-items 1000 --extend-entries 1000 \
#       --sum-entries 10000 --sort-entries 1000 --turn-entries 1000 --repeats 2 --processes 2 \
#       --workload all,turns
# Needs crates.io (or a filled cargo registry cache). Timings mean something only on a quiet
# machine.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$REPO/target/compat-bench
export CARGO_TARGET_DIR=$WORK/target
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
mkdir -p "$WORK"
# --processes is the script's; everything else goes to the program.
ARGS=()
PROCESSES=1
BUILDS=(patched unpatched rayon)
while [ $# -gt 0 ]; do
    if [ "$1" = --processes ]; then
        PROCESSES=${2:?--processes needs a number}
        shift 2
    elif [ "$1" = --pool-only ]; then
        BUILDS=(patched pool-only unpatched rayon)
        shift
    elif [ "$1" = --builds ]; then
        IFS=, read -r -a BUILDS <<<"${2:?--builds needs a list}"
        shift 2
    elif [ "$1" = --base ]; then
        BASE=$(cd "${2:?--base needs a directory}" && pwd)
        shift 2
    else
        ARGS+=("$1")
        shift
    fi
done
if [ -n "${BASE:-}" ] && [[ " ${BUILDS[*]} " != *" base "* ]]; then
    BUILDS=(base "${BUILDS[@]}")
fi
# shellcheck source=scripts/lib/compat_patch.sh
. "$REPO/scripts/lib/compat_patch.sh"

# manifest BUILD: the scratch workspace's Cargo.toml.
manifest() {
    local build=$1 blitz_dep="" default="" patch=""
    if [ "$build" != rayon ]; then
        blitz_dep="blitz-par = { path = \"$REPO\" }"
        default='default = ["blitz"]'
    fi
    if [ "$build" = pool-only ]; then
        default='default = ["blitz", "pool-only"]'
    fi
    if [ "$build" = patched ] || [ "$build" = pool-only ]; then
        patch=$(compat_patch_table rayon rayon-core)
    fi
    if [ "$build" = base ]; then
        blitz_dep="blitz-par = { path = \"$BASE\" }"
        patch=$(REPO=$BASE compat_patch_table rayon rayon-core)
    fi
    cat <<EOF
[package]
name = "compat-bench-$build"
version = "0.0.0"
edition = "2021"
publish = false

[[bin]]
name = "compat-bench-$build"
path = "$REPO/compat/bench/src/main.rs"

[dependencies]
$blitz_dep
rayon = "1"
ndarray = { version = "0.17", features = ["rayon"] }
hashbrown = { version = "0.17", features = ["rayon"] }
indexmap = { version = "2", features = ["rayon"] }
libc = "0.2"

[features]
$default
# The program's own parallel code on blitz-par (else on rayon).
blitz = []
# The global pool runs outside callers' work on its workers only (blitz-par's
# pool_threads_only(true)).
pool-only = []

[profile.release]
debug = false

[workspace]

$patch
EOF
}

# check_source BUILD: the patch took in the patched build, and only there.
check_source() {
    local build=$1 mode=unpatched
    case $build in patched | pool-only) mode=patched ;; esac
    if [ "$build" = base ]; then
        (REPO=$BASE compat_check_patch patched "$WORK/$build" "rayon rayon-core" -e normal) || return 1
        return 0
    fi
    compat_check_patch "$mode" "$WORK/$build" "rayon rayon-core" -e normal || return 1
    if [ "$build" = rayon ] && grep -q '^name = "blitz-par"' "$WORK/$build/Cargo.lock"; then
        echo "$build: blitz-par in the all-rayon build" >&2
        return 1
    fi
}

for build in "${BUILDS[@]}"; do
    dir=$WORK/$build
    mkdir -p "$dir"
    manifest "$build" >"$dir/Cargo.toml"
    echo "== build $build ($(date +%T))"
    log=$WORK/$build.build.log
    if ! cargo build --release --manifest-path "$dir/Cargo.toml" >"$log" 2>&1; then
        tail -30 "$log" >&2
        echo "$build: build failed (log: $log)" >&2
        exit 1
    fi
    if compat_patch_unused "$log"; then
        grep -i 'patch' "$log" >&2
        echo "$build: cargo says the patch was not used" >&2
        exit 1
    fi
    check_source "$build"
done

rm -f "$WORK"/*.out
for ((p = 1; p <= PROCESSES; p++)); do
    for build in "${BUILDS[@]}"; do
        echo "== run $build, process $p of $PROCESSES ($(date +%T))"
        "$CARGO_TARGET_DIR/release/compat-bench-$build" "${ARGS[@]}" | tee "$WORK/$build.$p.out"
    done
done

# The table: one row per figure, a column per build; each cell the median over the processes
# (the lower middle one of an even count), with [lowest-highest] when there are several;
# ratios of the medians to rayon's for the builds on blitz-par's pool (patched, pool-only),
# where lower is better. A figure that is not a number (threads by name) shows the first
# process's.
for build in "${BUILDS[@]}"; do
    cat "$WORK/$build".*.out | sed "s/^/$build /"
done | awk -v processes="$PROCESSES" -v builds="${BUILDS[*]}" '
    function median(k, c,    n, i, j, t, a) {
        n = count[k, c]
        for (i = 1; i <= n; i++) a[i] = val[k, c, i] + 0
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        lo[k, c] = a[1]; hi[k, c] = a[n]
        return a[int((n + 1) / 2)]
    }
    function cell(k, c,    m) {
        if (count[k, c] == 0) return ""
        if (val[k, c, 1] !~ /^[0-9.]+$/) return val[k, c, 1]
        m = median(k, c)
        mid[k, c] = m
        if (count[k, c] == 1) return val[k, c, 1]
        return sprintf("%g [%g-%g]", m, lo[k, c], hi[k, c])
    }
    BEGIN {
        nb = split(builds, name, " ")
        for (c = 1; c <= nb; c++) { col[name[c]] = c; if (name[c] == "rayon") base = c }
        for (c = 1; c <= nb; c++) if (name[c] == "base" || name[c] == "patched" || name[c] == "pool-only") ratio_of[++nr] = c
    }
    $2 == "RESULT" {
        c = col[$1]; key = $3
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        val[key, c, ++count[key, c]] = $4
    }
    END {
        w = processes > 1 ? 26 : 14
        line = sprintf("%-40s", "figure (" processes " process" (processes > 1 ? "es" : "") ")")
        for (c = 1; c <= nb; c++) line = line sprintf(" %" w "s", name[c])
        for (r = 1; r <= nr; r++) line = line sprintf(" %18s", name[ratio_of[r]] " / rayon")
        print "\n" line
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (k ~ /_by_name$/) { named[++m] = k; continue }
            line = sprintf("%-40s", k)
            for (c = 1; c <= nb; c++) line = line sprintf(" %" w "s", cell(k, c))
            for (r = 1; r <= nr; r++) {
                ratio = ""
                if (k ~ /_ms$/ && mid[k, base] + 0 > 0) ratio = sprintf("%.2fx", mid[k, ratio_of[r]] / mid[k, base])
                line = line sprintf(" %18s", ratio)
            }
            print line
        }
        for (i = 1; i <= m; i++) {
            k = named[i]
            printf "\n%s:\n", k
            for (c = 1; c <= nb; c++) printf "  %-10s %s\n", name[c] ":", val[k, c, 1]
        }
    }'
