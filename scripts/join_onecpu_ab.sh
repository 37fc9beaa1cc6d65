#!/bin/sh
# The one-CPU rows of issue 41's join table, this checkout against a base revision: fib(30),
# the 16.7M-node tree in one allocation, and the same tree boxed node by node (summed from
# outside every pool), each as the ratio of blitz-par's best run to the plain recursion of the
# same process (`examples/fibtree`). Both builds run under `taskset -c 0` with no thread-count
# variable (what a machine or container with one CPU gives: the global pool sized by a CPU
# count of one), alternately, ROUNDS times (default 3), each row in a process of its own.
#
#   scripts/join_onecpu_ab.sh BASE_REV      # e.g. scripts/join_onecpu_ab.sh main
#
# Run on a quiet machine, from the repository root. On the 2-core VM: about 3 minutes to build
# the base revision (its own target directory), then about a minute per round (three rounds:
# about 3 minutes).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 BASE_REV" >&2; exit 2; }
unset BLITZ_NUM_THREADS RAYON_NUM_THREADS
base=$1
rounds=${ROUNDS:-3}
root=$(pwd)
tmp=$(mktemp -d)
cleanup() {
    [ -d "$tmp/wt-base" ] && git -C "$root" worktree remove --force "$tmp/wt-base"
    rm -rf "$tmp"
}
trap cleanup EXIT

target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
echo "== building HEAD (the current checkout)" >&2
(cd "$root" && CARGO_TARGET_DIR="$target" cargo build --release --example fibtree)
cp "$target/release/examples/fibtree" "$tmp/fibtree-head"
echo "== building $base" >&2
git -C "$root" worktree add --detach --quiet "$tmp/wt-base" "$base"
(cd "$tmp/wt-base" && CARGO_TARGET_DIR="$tmp/target" cargo build --release --example fibtree)
cp "$tmp/target/release/examples/fibtree" "$tmp/fibtree-base"

# The blitz-par ratio of one row, from one process: "1.23".
ratio() {
    taskset -c 0 "$1" "$2" | awk -v row="$2" '
        index($0, row) { for (i = 1; i <= NF; i++) if ($i == "blitz") { r = $(i + 2); break } }
        END { gsub(/[()x]/, "", r); print r }'
}

printf '%-12s %5s %8s %8s %10s\n' row round "$base" HEAD "HEAD/base"
for round in $(seq 1 "$rounds"); do
    for row in 'fib(30)' 'tree 16.7M' 'boxed 16.7M'; do
        # Alternate which build goes first, so that neither always runs on a warmer machine.
        if [ $((round % 2)) -eq 1 ]; then
            b=$(ratio "$tmp/fibtree-base" "$row")
            h=$(ratio "$tmp/fibtree-head" "$row")
        else
            h=$(ratio "$tmp/fibtree-head" "$row")
            b=$(ratio "$tmp/fibtree-base" "$row")
        fi
        printf '%-12s %5s %7sx %7sx %10s\n' "$row" "$round" "$b" "$h" \
            "$(awk -v b="$b" -v h="$h" 'BEGIN { printf "%.3f", h / b }')"
    done
done
