#!/usr/bin/env bash
# Runs other people's test suites against the rayon compatibility crates (compat/rayon,
# compat/rayon-core): rayon's and rayon-core's own tests, and the rayon support of hashbrown,
# indexmap, ndarray and indicatif, each built from its crates.io package with
#
#     [patch.crates-io]
#     rayon = { path = "<repo>/compat/rayon" }
#     rayon-core = { path = "<repo>/compat/rayon-core" }
#
# Then two programs of our own (compat/suites/): one that calls blitz-par directly and rayon
# (patched) and checks that they share one pool and one set of threads, and one that runs
# hashbrown's, indexmap's and ndarray's parallel work together in one process.
#
# Everything happens in scratch workspaces under target/compat-suites/ (each with an empty
# `[workspace]` table, so that none belongs to blitz-par's workspace), which share one target
# directory, target/compat-suites/target, so that the dependencies build once. blitz-par's own
# Cargo.toml and Cargo.lock are never touched, and its benches' real rayon stays real.
#
# Each suite fails unless the patch took: `cargo tree -i rayon` (and `-i rayon-core`) must show
# the compat crates' paths, the scratch Cargo.lock must hold no registry `source` for either,
# and cargo's "Patch ... was not used in the crate graph" warning fails the run.
#
# Usage: scripts/compat_suites.sh [SUITE...]   (no argument: every suite; names below)
# Needs network access to crates.io (cargo fetches the packages and their dev-dependencies).
# Prints one summary line per suite; exits non-zero if any suite failed.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$REPO/target/compat-suites
export CARGO_TARGET_DIR=$WORK/target
export CARGO_TERM_COLOR=never
# The scratch copies are read-only registry sources; no incremental caches for them.
export CARGO_INCREMENTAL=0
# No debug info in these debug builds: it is most of their link time and of the disk they take,
# and a failing test still names its assertion.
export CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0
mkdir -p "$WORK"

# The crates a suite patches (and checks): both, as a user would write it, but for rayon-core's
# own tests, whose graph has no rayon (cargo would rightly warn that that patch is unused).
PATCHED="rayon rayon-core"
# shellcheck source=scripts/lib/compat_patch.sh
. "$REPO/scripts/lib/compat_patch.sh"
# shellcheck disable=SC2086 # PATCHED is a list of names
patch_table() { compat_patch_table $PATCHED; }

SUMMARY=()
FAILED=0

# The directory of a crates.io package's source (in cargo's registry cache): a scratch project
# that depends on it (REQ is a version requirement: "=1.12.0", or "0.17" for the newest of a
# series), then `cargo metadata` (which fetches) for the resolved package's manifest.
package_source() {
    local name=$1 req=$2 dir=$WORK/fetch/$1
    mkdir -p "$dir/src"
    : >"$dir/src/lib.rs"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "fetch-$name"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$name = "$req"

[workspace]
EOF
    # The registry keeps a package's source in a directory named NAME-VERSION; the digit after
    # the hyphen keeps `rayon` from matching `rayon-core-...`. (No JSON tool needed.)
    local manifest
    manifest=$(cargo metadata --quiet --format-version 1 --manifest-path "$dir/Cargo.toml" |
        grep -o "\"manifest_path\":\"[^\"]*/registry/src/[^\"]*/$name-[0-9][^/\"]*/Cargo.toml\"" |
        head -1 | cut -d'"' -f4)
    if [ -z "$manifest" ]; then
        echo "no crates.io source found for $name $req" >&2
        return 1
    fi
    dirname "$manifest"
}

# A fresh copy of a crates.io package under $WORK/NAME, made its own workspace, with the patch.
copy_package() {
    local name=$1 req=$2 src
    src=$(package_source "$name" "$req")
    rm -rf "${WORK:?}/$name"
    # -p: the sources keep their times, so a warm run does not rebuild them.
    cp -rp "$src" "$WORK/$name"
    chmod -R u+w "$WORK/$name"
    # A shipped lock file would pin the dev-dependencies; they resolve afresh from crates.io.
    rm -f "$WORK/$name/Cargo.lock"
    { printf '\n[workspace]\n'; patch_table; } >>"$WORK/$name/Cargo.toml"
    echo "$(basename "$src")" >"$WORK/$name/.compat-source"
}

# run_suite NAME DIR FEATURES CARGO_TEST_ARGS... [-- HARNESS_ARGS...]
# Builds, checks the patch, runs `cargo test`, and records a summary line.
run_suite() {
    local name=$1 dir=$2 features=$3 log=$WORK/$1.log status=0
    shift 3
    local start=$SECONDS build_args=()
    for arg in "$@"; do
        [ "$arg" = -- ] && break
        # Doc tests cannot be built without running them; the library stands in.
        [ "$arg" = --doc ] && arg=--lib
        build_args+=("$arg")
    done
    echo "== $name ($(date +%T))"
    # Resolve and build first, so that the lock file exists for the patch check.
    cargo test --manifest-path "$dir/Cargo.toml" --features "$features" --no-run \
        "${build_args[@]}" >"$log" 2>&1 || status=$?
    grep -iE '^(warning: patch|error)' "$log" || true
    if [ "$status" = 0 ] && compat_patch_unused "$log"; then
        echo "$name: cargo says the patch was not used" >&2
        status=1
    fi
    if [ "$status" = 0 ]; then
        compat_check_patch patched "$dir" "$PATCHED" --features "$features" --target all -e all ||
            status=1
    fi
    if [ "$status" = 0 ]; then
        cargo test --manifest-path "$dir/Cargo.toml" --features "$features" --no-fail-fast "$@" \
            >>"$log" 2>&1 || status=$?
        if compat_patch_unused "$log"; then
            status=1
        fi
    fi
    local counts
    counts=$(awk '/^test result:/ {
            for (i = 1; i <= NF; i++) {
                if ($(i + 1) ~ /^passed/) p += $i
                if ($(i + 1) ~ /^failed/) f += $i
                if ($(i + 1) ~ /^ignored/) g += $i
            } }
        END { printf "passed %d, failed %d, ignored %d", p, f, g }' "$log")
    local verdict=ok
    if [ "$status" != 0 ]; then
        verdict="FAILED (see $log)"
        FAILED=1
        grep -E '^(test .* FAILED|---- |error)' "$log" | head -20 >&2 || true
    fi
    SUMMARY+=("$(printf '%-22s %s (%ds): %s' "$name" "$verdict" $((SECONDS - start)) "$counts")")
    echo "${SUMMARY[-1]}"
}

# A scratch package whose tests are a crates.io package's tests/*.rs, run against a dependency
# on the patched crate: in rayon's own package, `rayon` is the package itself, so its tests
# would test the real rayon; copied into a package that depends on `rayon`, they test ours.
tests_package() {
    local name=$1 krate=$2 req=$3 devdeps=$4 src dir=$WORK/$1
    src=$(package_source "$krate" "=$req")
    # The empty library keeps its time from run to run (a new one would rebuild every test).
    rm -rf "$dir/tests"
    mkdir -p "$dir/src" "$dir/tests"
    [ -e "$dir/src/lib.rs" ] || : >"$dir/src/lib.rs"
    rm -f "$dir/Cargo.lock"
    cp -p "$src"/tests/*.rs "$dir/tests/"
    chmod -R u+w "$dir"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$krate = "$req"

[dev-dependencies]
$devdeps

[workspace]
$(patch_table)
EOF
    echo "$krate-$req tests" >"$dir/.compat-source"
}

suite_rayon() {
    # rayon 1.12.0's tests/*.rs; its dev-dependencies as in its package.
    tests_package rayon-tests rayon 1.12.0 'rand = "0.9"
rand_xorshift = "0.4"'
    run_suite rayon-tests "$WORK/rayon-tests" ""
}

suite_rayon_core() {
    PATCHED="rayon-core"
    # rayon-core 1.13.0's tests/*.rs; its dev-dependencies, and crossbeam-utils, which the tests
    # use as rayon-core's own dependency.
    tests_package rayon-core-tests rayon-core 1.13.0 'rand = "0.9"
rand_xorshift = "0.4"
scoped-tls = "1.0"
crossbeam-utils = "0.8"
libc = "0.2"'
    run_suite rayon-core-tests "$WORK/rayon-core-tests" ""
    PATCHED="rayon rayon-core"
}

suite_hashbrown() {
    copy_package hashbrown 0.17
    # tests/rayon.rs and the unit tests (among them the rayon module's).
    run_suite hashbrown "$WORK/hashbrown" rayon --lib --test rayon
}

suite_indexmap() {
    copy_package indexmap 2
    # The unit tests of the rayon modules (indexmap::rayon::{map, set}).
    run_suite indexmap "$WORK/indexmap" rayon --lib -- rayon::
}

suite_ndarray() {
    copy_package ndarray 0.17
    # The doc tests of the `parallel` module (the package ships no tests/par_*.rs).
    run_suite ndarray "$WORK/ndarray" rayon --doc -- parallel
}

suite_indicatif() {
    copy_package indicatif 0.18
    # Every test, and the render tests of the in-memory terminal too.
    run_suite indicatif "$WORK/indicatif" rayon,in_memory
}

# A scratch package whose one test is compat/suites/FILE.rs, with blitz-par by path beside the
# patched crates and the dependencies DEPS.
program_package() {
    local name=$1 file=$2 deps=$3 dir=$WORK/$1
    mkdir -p "$dir/src"
    [ -e "$dir/src/lib.rs" ] || : >"$dir/src/lib.rs"
    rm -f "$dir/Cargo.lock"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
blitz-par = { path = "$REPO" }
$deps

[[test]]
name = "$file"
path = "$REPO/compat/suites/$file.rs"

[workspace]
$(patch_table)
EOF
}

suite_one_pool() {
    # blitz-par called directly and through rayon (patched): one pool, one set of threads.
    program_package one-pool one_pool 'rayon = "1"
rayon-core = "1"'
    run_suite one-pool "$WORK/one-pool" ""
}

suite_together() {
    # hashbrown, indexmap and ndarray with their `rayon` features in one process.
    program_package together together 'rayon = "1"
hashbrown = { version = "0.17", features = ["rayon"] }
indexmap = { version = "2", features = ["rayon"] }
ndarray = { version = "0.17", features = ["rayon"] }'
    run_suite together "$WORK/together" ""
}

ALL=(rayon rayon_core hashbrown indexmap ndarray indicatif one_pool together)
if [ $# -eq 0 ]; then
    set -- "${ALL[@]}"
fi
for suite in "$@"; do
    "suite_$suite"
done

echo
echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
exit $FAILED
