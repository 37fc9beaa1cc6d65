# shellcheck shell=bash
# The patch check shared by scripts/compat_suites.sh and scripts/compat_bench.sh: the
# `[patch.crates-io]` table that points `rayon` and `rayon-core` at compat/, and the proof that a
# scratch workspace's crate graph did (or did not) take it. Sourced, not run; needs REPO set to
# the repository root.

# compat_patch_table KRATE...: the `[patch.crates-io]` table for the named compat crates.
compat_patch_table() {
    local krate
    printf '\n[patch.crates-io]\n'
    for krate in "$@"; do
        printf '%s = { path = "%s" }\n' "$krate" "$REPO/compat/$krate"
    done
}

# compat_patch_unused LOG: succeeds if cargo's output LOG says a patch went unused.
compat_patch_unused() {
    grep -q 'was not used in the crate graph' "$1"
}

# compat_lock_has_registry LOCK KRATE: succeeds if the lock file has a [[package]] named KRATE
# with a `source` line (a registry or git copy, not a path).
compat_lock_has_registry() {
    awk -v want="\"$2\"" '/^\[\[package\]\]/ { name = "" } /^name = / { name = $3 }
        /^source = / && name == want { found = 1 } END { exit !found }' "$1"
}

# compat_check_patch MODE DIR KRATES [CARGO_TREE_ARGS...]
# MODE `patched`: every crate in KRATES (a space-separated list) comes from compat/: the first
# line of `cargo tree -i KRATE` names compat/'s path, and DIR/Cargo.lock has no registry source
# for it. MODE `unpatched`: the opposite (no compat/ path, a registry source). Prints each
# crate's first tree line; on failure says why on stderr and returns 1. CARGO_TREE_ARGS choose
# the graph (features, edge kinds, targets).
compat_check_patch() {
    local mode=$1 dir=$2 krates=$3 krate first
    shift 3
    for krate in $krates; do
        first=$(cargo tree --quiet --manifest-path "$dir/Cargo.toml" "$@" -i "$krate" | head -1)
        if [ "$mode" = patched ]; then
            case "$first" in
            "$krate v"*"($REPO/compat/$krate)"*) ;;
            *)
                echo "patch not taken in $dir: cargo tree -i $krate starts with: $first" >&2
                return 1
                ;;
            esac
            if compat_lock_has_registry "$dir/Cargo.lock" "$krate"; then
                echo "patch not taken in $dir: Cargo.lock has a registry source for $krate" >&2
                return 1
            fi
        else
            case "$first" in
            *"$REPO/compat/"*)
                echo "compat crate in the graph of $dir: cargo tree -i $krate: $first" >&2
                return 1
                ;;
            esac
            if ! compat_lock_has_registry "$dir/Cargo.lock" "$krate"; then
                echo "$dir: Cargo.lock has no registry source for $krate" >&2
                return 1
            fi
        fi
        echo "  $(basename "$dir"): $first"
    done
}
