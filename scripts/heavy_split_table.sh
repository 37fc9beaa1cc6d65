#!/bin/sh
# `few_heavy_items` and `par_split_whitespace` (14 MB) against rayon: the criterion rows of
# `benches/iter.rs`, from a thread outside every pool (as a user's `main` calls them), printed
# as medians and blitz-par / rayon ratios. Builds the current checkout and, for each revision
# given as an argument, that revision in a temporary worktree; then runs every build's bench in
# turn, ROUNDS times (default 3), so that each row's builds share the machine's state. Revisions
# whose bench lacks a row (few_heavy_items is newer than some) print what they have.
#
#   scripts/heavy_split_table.sh                      # this checkout only
#   scripts/heavy_split_table.sh 21f708b d2c1562^     # and two older revisions
#
# Run on a quiet machine, from the repository root. On a 2-core VM: about 4 minutes to build
# each revision, then about 1 minute per build and round (3 rounds of this checkout: about
# 7 minutes in all). CRITERION_ARGS (e.g. "--warm-up-time 0.2 --measurement-time 1") shortens
# the runs for a check of the script itself.
set -eu
unset BLITZ_NUM_THREADS RAYON_NUM_THREADS
rounds=${ROUNDS:-3}
filter='few_heavy_items|split_whitespace_14MB'
root=$(pwd)
tmp=$(mktemp -d)
cleanup() {
    for dir in "$tmp"/wt-*; do
        [ -d "$dir" ] && git -C "$root" worktree remove --force "$dir"
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

# Builds the bench in directory $1 with target directory $2; prints the executable's path.
build() {
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --bench iter --no-run 2>&1) |
        sed -n 's/.*Executable.*(\(.*\))$/\1/p' | tail -n 1
}

names="HEAD"
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
echo "== building the current checkout" >&2
exe=$(build "$root" "$target")
[ -n "$exe" ] || { echo "no bench executable for the current checkout" >&2; exit 1; }
echo "$root $exe" >"$tmp/builds"
for rev in "$@"; do
    dir="$tmp/wt-$(echo "$rev" | tr -c 'A-Za-z0-9\n' _)"
    echo "== building $rev" >&2
    git -C "$root" worktree add --detach --quiet "$dir" "$rev"
    exe=$(build "$dir" "$tmp/target")
    [ -n "$exe" ] || { echo "no bench executable for $rev" >&2; exit 1; }
    echo "$dir $exe" >>"$tmp/builds"
    names="$names $rev"
done

# One run of one build: "group/function median unit" lines.
run() {
    (cd "$1" && "$2" --bench ${CRITERION_ARGS:-} "$filter" 2>&1) |
        awk '/^(few_heavy_items|split_whitespace_14MB)\// && /time:/ { print $1, $5, $6; next }
             /^(few_heavy_items|split_whitespace_14MB)\// { name = $1; next }
             name != "" && /time:/ { print name, $4, $5; name = "" }'
}

round=1
while [ "$round" -le "$rounds" ]; do
    set -- $names
    while read -r dir exe; do
        echo "== round $round: $1" >&2
        run "$dir" "$exe" </dev/null | sed "s|^|$1 $round |" >>"$tmp/rows"
        shift
    done <"$tmp/builds"
    round=$((round + 1))
done

# Medians in milliseconds, then blitz-par / rayon per build, round and group.
awk '
    function ms(v, unit) { return unit == "s" ? v * 1000 : unit == "µs" || unit == "us" ? v / 1000 : unit == "ns" ? v / 1e6 : v }
    { split($3, p, "/"); key = $1 " " $2 " " p[1]; t[key, p[2]] = ms($4, $5); keys[key] = 1 }
    END {
        printf "%-12s %-5s %-22s %10s %10s %10s %8s\n", "build", "round", "group", "seq ms", "rayon ms", "blitz ms", "ratio"
        for (k in keys) {
            split(k, f, " ")
            r = t[k, "rayon"]; b = t[k, "blitz"]
            printf "%-12s %-5s %-22s %10.3f %10.3f %10.3f %8.3f\n", f[1], f[2], f[3], t[k, "seq"], r, b, (r > 0 ? b / r : 0)
        }
    }' "$tmp/rows" | { read -r header; echo "$header"; sort -k3,3 -k1,1 -k2,2n; }
