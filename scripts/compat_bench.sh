#!/usr/bin/env bash
# The rayon compatibility crates' benchmark (issue "Move a whole program onto blitz-par", its
# Performance section). Builds compat/bench/src/main.rs, in release mode, three ways:
#
#   patched    blitz-par, and rayon/rayon-core patched to compat/ ([patch.crates-io]): one pool;
#   unpatched  blitz-par by path, real rayon from crates.io beside it: two pools;
#   rayon      real rayon only (the program's own code on rayon too).
#
# The program's own parallel code goes through a `par` facade (blitz-par with the `blitz`
# feature, rayon without); ndarray's, hashbrown's and indexmap's `rayon` features always call
# `rayon`, which is blitz-par only in the patched build. Each build is a scratch workspace under
# target/compat-bench/ (never the repository root), sharing one target directory. The script
# fails unless the patch took in the patched build (`cargo tree -i rayon` and `-i rayon-core`
# show compat/'s paths, and Cargo.lock has no registry source for them) and did not in the others.
#
# Then it runs the three binaries one after the other and prints one table:
#   one pool against two: own code + ndarray Zip::par_for_each + hashbrown par_extend, ROUNDS
#     rounds: wall time, CPU time (user+sys), CPUs busy, peak thread count;
#   real crates: ndarray Zip::par_for_each and par_map_collect (SIDE x SIDE f64), hashbrown
#     par_iter().map().sum() (SUM entries), indexmap par_sort_keys (SORT entries): best and
#     median of REPEATS, and patched / rayon.
#
# Usage: scripts/compat_bench.sh [--rounds N] [--side N] [--own-items N] [--extend-entries N]
#                                [--sum-entries N] [--sort-entries N] [--repeats N]
#                                [--workload all|one-pool|crates]
# Defaults are the issue's sizes: 1,000 rounds, 2,048 x 2,048, 1M own items, 1M par_extend
# entries, 10M entries summed, 1M sorted, 10 repeats. A smoke run:
#   scripts/compat_bench.sh --rounds 3 --side 64 --own-items 1000 --extend-entries 1000 \
#       --sum-entries 10000 --sort-entries 1000 --repeats 2
# Needs crates.io (or a filled cargo registry cache). Timings mean something only on a quiet
# machine.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$REPO/target/compat-bench
export CARGO_TARGET_DIR=$WORK/target
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
mkdir -p "$WORK"
ARGS=("$@")

BUILDS=(patched unpatched rayon)

# manifest BUILD: the scratch workspace's Cargo.toml.
manifest() {
    local build=$1 blitz_dep="" default="" patch=""
    if [ "$build" != rayon ]; then
        blitz_dep="blitz-par = { path = \"$REPO\" }"
        default='default = ["blitz"]'
    fi
    if [ "$build" = patched ]; then
        patch=$(printf '[patch.crates-io]\nrayon = { path = "%s" }\nrayon-core = { path = "%s" }\n' \
            "$REPO/compat/rayon" "$REPO/compat/rayon-core")
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

[profile.release]
debug = false

[workspace]

$patch
EOF
}

# check_source BUILD: the patch took in the patched build, and only there.
check_source() {
    local build=$1 dir=$WORK/$1 krate first registry
    for krate in rayon rayon-core; do
        first=$(cargo tree --quiet --manifest-path "$dir/Cargo.toml" -e normal -i "$krate" | head -1)
        registry=no
        if awk -v want="\"$krate\"" '/^\[\[package\]\]/ { name = "" } /^name = / { name = $3 }
                /^source = / && name == want { found = 1 } END { exit !found }' "$dir/Cargo.lock"; then
            registry=yes
        fi
        if [ "$build" = patched ]; then
            case "$first" in
            "$krate v"*"($REPO/compat/$krate)"*) ;;
            *)
                echo "$build: patch not taken: cargo tree -i $krate starts with: $first" >&2
                return 1
                ;;
            esac
            if [ $registry = yes ]; then
                echo "$build: Cargo.lock has a registry source for $krate" >&2
                return 1
            fi
        else
            case "$first" in
            *"$REPO/compat"*)
                echo "$build: compat crate in the graph: cargo tree -i $krate: $first" >&2
                return 1
                ;;
            esac
            if [ $registry = no ]; then
                echo "$build: Cargo.lock has no registry source for $krate" >&2
                return 1
            fi
        fi
        echo "  $build: $first"
    done
    if [ "$build" = rayon ] && grep -q '^name = "blitz-par"' "$dir/Cargo.lock"; then
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
    if grep -q 'was not used in the crate graph' "$log"; then
        grep -i 'patch' "$log" >&2
        echo "$build: cargo says the patch was not used" >&2
        exit 1
    fi
    check_source "$build"
done

for build in "${BUILDS[@]}"; do
    echo "== run $build ($(date +%T))"
    "$CARGO_TARGET_DIR/release/compat-bench-$build" "${ARGS[@]}" | tee "$WORK/$build.out"
done

# The table: one row per figure, a column per build; ratios patched / rayon where lower is better.
awk '
    FNR == 1 { col++ }
    /^RESULT / { key = $2; if (!(key in seen)) { seen[key] = 1; order[++n] = key } val[key, col] = $3 }
    END {
        printf "\n%-44s %14s %14s %14s %16s\n", "figure", "patched", "unpatched", "rayon", "patched / rayon"
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (k ~ /_by_name$/) { named[++m] = k; continue }
            ratio = ""
            if (k ~ /_ms$/ && val[k, 3] + 0 > 0) ratio = sprintf("%.2fx", val[k, 1] / val[k, 3])
            printf "%-44s %14s %14s %14s %16s\n", k, val[k, 1], val[k, 2], val[k, 3], ratio
        }
        for (i = 1; i <= m; i++) {
            k = named[i]
            printf "\n%s:\n  patched:   %s\n  unpatched: %s\n  rayon:     %s\n", k, val[k, 1], val[k, 2], val[k, 3]
        }
    }' "$WORK/patched.out" "$WORK/unpatched.out" "$WORK/rayon.out"
