#!/bin/sh
# The join table of issue 41: fork-join cost against plain recursion, rayon and chili (fib,
# tree sums in one allocation and boxed node by node, `join!` of four against nested joins),
# on all CPUs and on one CPU with no thread-count variable (`taskset -c 0`: what a machine or
# container with one CPU gives), then `few_heavy_items` and `par_split_whitespace` against
# rayon (criterion, from `benches/iter.rs`). Run on a quiet machine, from the repository root.
# About 5 minutes after the build.
set -eu
unset BLITZ_NUM_THREADS RAYON_NUM_THREADS
cargo build --release --example fibtree
cargo bench --bench iter --no-run
bin=${CARGO_TARGET_DIR:-target}/release/examples/fibtree
echo "== all CPUs ($(nproc)): best run, ratio to the sequential recursion"
"$bin"
echo "== one CPU (taskset -c 0, no thread-count variable)"
taskset -c 0 "$bin"
echo "== few_heavy_items and par_split_whitespace (criterion; ratio = blitz / rayon)"
cargo bench --bench iter -- 'few_heavy_items|split_whitespace_14MB' 2>&1 |
    awk '/^(few_heavy_items|split_whitespace_14MB)\// && /time:/ { print; next }
         /^(few_heavy_items|split_whitespace_14MB)\// { name = $1; next }
         name != "" && /time:/ { print name, $0; name = "" }'
