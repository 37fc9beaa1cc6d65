#!/usr/bin/env bash
# Instructions of a representative set of the benches' workloads at a base revision and at
# HEAD (or the working tree, WORKTREE=1), on 1 and 2 threads of the global pool
# (BLITZ_NUM_THREADS), each called from outside the pool as the benches call them: a table
# of base, head and their ratio. Written for issue 42 (the release-readiness work: sealed
# traits, forwarded hints, layout moves, the pacer's state enums, SyncPtr<'a, T>, the radix
# sorts' key trait), whose base is the revision before its first commit.
#
# Counted by callgrind over every thread, as the difference between a run that builds the
# row's input and calls it and one that builds the input and stops there (SKIP=1), both ending
# the process at once: the input's construction and the pool's start cancel out, and the
# workers' part (their idle spinning included) is in the count.
# Valgrind runs one thread at a time, so the 2-thread counts vary between runs with the
# interleaving (REPS=N takes the median of N runs); the 1-thread counts are exact to a few
# instructions.
#
# As in scripts/algos_icount.sh, both revisions are copies whose clock reads 64 times slower
# (about valgrind's slowdown), so that the pacer sizes its chunks about as it does natively.
# Nothing in the work tree is touched: each revision is taken by `git archive`.
#
# Usage: scripts/release_icount.sh [BASE [HEAD]]   (BASE default b09120e, HEAD default HEAD;
# two release builds of the probe, then 22 rows x 2 pool sizes x 2 revisions x 2 runs under
# callgrind: about 35 minutes in all on a busy 2-core machine)
# The 2-thread rows count the idle worker's spinning (find_work, request_split), whose length
# follows valgrind's thread switches: a row over 1.02x there is worth REPS=3 and a look at
# the per-thread files (`callgrind_annotate --auto=no WORK/head-ROW-2.cg-02`) before it is
# called a regression.
# ROWS="sum_1k sort_u64 ..." narrows the rows, THREADS="1 2" the pool sizes, REPS=N repeats
# each count (median). WORK=DIR keeps the copies, builds and profiles in DIR (reused by the
# next run), KEEP=1 a fresh temporary one (printed), for callgrind_annotate:
#   callgrind_annotate --inclusive=yes WORK/base-<row>-<threads>.cg.1-01
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:-b09120e}"
head="${2:-HEAD}"
[ -n "${WORKTREE:-}" ] && head=""
if [ -n "${WORK:-}" ]; then
    work=$WORK # kept; a revision's copy already there is reused, so its build is incremental
    mkdir -p "$work"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/release_icount.XXXXXX")"
    [ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || trap 'rm -rf "$work"' EXIT
fi
# shellcheck source=scripts/lib/icount.sh
. "$root/scripts/lib/icount.sh"

probe_main() {
    cat <<'RS'
use blitz_par::prelude::*;
use std::hint::black_box;

fn xorshift(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// A complete binary tree of `n` nodes in an array (children of i at 2i+1, 2i+2).
fn tree_sum(t: &[u64], i: usize) -> u64 {
    if i >= t.len() {
        return 0;
    }
    let (a, b) = blitz_par::join(|| tree_sum(t, 2 * i + 1), || tree_sum(t, 2 * i + 2));
    t[i].wrapping_add(a).wrapping_add(b)
}

#[derive(Clone)]
struct Rec {
    key: u32,
    _pad: [u32; 3],
}

/// Runs `f` and ends the process there, or ends it in its place where SKIP is set: the
/// difference between the two runs' counts is `f`'s, every thread's part included.
fn counted<R>(f: impl FnOnce() -> R) -> R {
    if std::env::var("SKIP").map_or(true, |s| s.is_empty()) {
        black_box(f());
    }
    std::process::exit(0)
}

// One function per row, never inlined.
#[inline(never)]
fn w_sum_1k(v: &[u64]) -> u64 {
    let mut s = 0u64;
    for _ in 0..100 {
        s = s.wrapping_add(black_box(v).par_iter().sum::<u64>());
    }
    s
}
#[inline(never)]
fn w_sum_1m(v: &[u64]) -> u64 { black_box(v).par_iter().sum::<u64>() }
#[inline(never)]
fn w_map_collect(v: &[u64]) -> Vec<u64> { black_box(v).par_iter().map(|x| x.wrapping_mul(3)).collect() }
#[inline(never)]
fn w_filter_collect(v: &[u64]) -> Vec<u64> { black_box(v).par_iter().copied().filter(|x| x % 3 == 0).collect() }
#[inline(never)]
fn w_sort_unstable_u64(v: &mut [u64]) { black_box(v).par_sort_unstable() }
#[inline(never)]
fn w_sort_u64(v: &mut [u64]) { black_box(v).par_sort() }
#[inline(never)]
fn w_sort_u32(v: &mut [u32]) { black_box(v).par_sort_unstable() }
#[inline(never)]
fn w_sort_i64(v: &mut [i64]) { black_box(v).par_sort_unstable() }
#[inline(never)]
fn w_sort_f64(v: &mut [f64]) { black_box(v).par_sort_unstable_by(f64::total_cmp) }
#[inline(never)]
fn w_sort_string(v: &mut [String]) { black_box(v).par_sort_unstable() }
#[inline(never)]
fn w_sort_string_stable(v: &mut [String]) { black_box(v).par_sort() }
#[inline(never)]
fn w_sort_str(v: &mut [&str]) { black_box(v).par_sort_unstable() }
#[inline(never)]
fn w_sort_by_key(v: &mut [Rec]) { black_box(v).par_sort_by_key(|r| r.key) }
#[inline(never)]
fn w_scan(v: &mut [u64]) { black_box(v).par_inclusive_scan(|a, b| a.wrapping_add(*b)) }
#[inline(never)]
fn w_tree_join(t: &[u64]) -> u64 { tree_sum(black_box(t), 0) }
#[inline(never)]
fn w_chunks(v: &[u64]) -> u64 {
    black_box(v).par_chunks(64).map(|c| c.iter().fold(0u64, |a, x| a.wrapping_add(*x))).sum()
}
#[inline(never)]
fn w_split_whitespace(s: &str) -> usize { black_box(s).par_split_whitespace().map(str::len).sum() }
#[inline(never)]
fn w_zip(a: &[u64], b: &[u64]) -> u64 {
    black_box(a).par_iter().zip(black_box(b)).map(|(x, y)| x.wrapping_mul(*y)).sum()
}
#[inline(never)]
fn w_fold_reduce(v: &[u64]) -> u64 {
    black_box(v)
        .par_iter()
        .fold(|| 0u64, |a, x| a ^ x.rotate_left(7))
        .reduce(|| 0, |a, b| a ^ b)
}
#[inline(never)]
fn w_find_first(v: &[u64]) -> Option<u64> {
    let n = v.len() as u64;
    black_box(v).par_iter().copied().find_first(|&x| x == n * 3 / 4)
}
#[inline(never)]
fn w_collect_strings(v: &[u64]) -> Vec<String> { black_box(v).par_iter().map(|x| x.to_string()).collect() }
#[inline(never)]
fn w_par_extend(out: &mut Vec<u64>, v: &[u64]) { out.par_extend(black_box(v).par_iter().map(|x| x + 1)) }

fn main() {
    let row = std::env::args().nth(1).unwrap();
    const M: usize = 1_000_000;
    const K100: usize = 100_000;
    // The pool started and a first call made outside the count.
    let warm: Vec<u64> = (0..100_000).collect();
    black_box(black_box(&warm).par_iter().sum::<u64>());
    let r = xorshift(7, M);
    let seq: Vec<u64> = (0..M as u64).collect();
    let out: u64 = match row.as_str() {
        "sum_1k" => counted(|| w_sum_1k(&seq[..1000])),
        "sum_1m" => counted(|| w_sum_1m(&seq)),
        "map_collect" => counted(|| w_map_collect(&r)).len() as u64,
        "filter_collect" => counted(|| w_filter_collect(&r)).len() as u64,
        "sort_unstable_u64" => { let mut v = r.clone(); counted(|| w_sort_unstable_u64(&mut v)); v[M / 2] }
        "sort_u64" => { let mut v = r.clone(); counted(|| w_sort_u64(&mut v)); v[M / 2] }
        "sort_u32" => { let mut v: Vec<u32> = r.iter().map(|&x| x as u32).collect(); counted(|| w_sort_u32(&mut v)); v[M / 2] as u64 }
        "sort_i64" => { let mut v: Vec<i64> = r.iter().map(|&x| (x as i64) >> 20).collect(); counted(|| w_sort_i64(&mut v)); v[M / 2] as u64 }
        "sort_f64" => { let mut v: Vec<f64> = r.iter().map(|&x| (x as i64) as f64 / 3.0).collect(); counted(|| w_sort_f64(&mut v)); v[M / 2] as u64 }
        "sort_string" | "sort_string_stable" | "sort_str" => {
            let owned: Vec<String> = r[..K100].iter().map(|x| format!("{:x}", x % 1_000_000_007)).collect();
            if row == "sort_str" {
                let mut v: Vec<&str> = owned.iter().map(String::as_str).collect();
                counted(|| w_sort_str(&mut v));
                v[K100 / 2].len() as u64
            } else {
                let mut v = owned.clone();
                if row == "sort_string" { counted(|| w_sort_string(&mut v)) } else { counted(|| w_sort_string_stable(&mut v)) }
                v[K100 / 2].len() as u64
            }
        }
        "sort_by_key" => {
            let mut v: Vec<Rec> = r.iter().map(|&x| Rec { key: (x >> 32) as u32, _pad: [x as u32; 3] }).collect();
            counted(|| w_sort_by_key(&mut v));
            v[M / 2].key as u64
        }
        "scan" => { let mut v = r.clone(); counted(|| w_scan(&mut v)); v[M - 1] }
        "tree_join" => counted(|| w_tree_join(&r)),
        "chunks" => counted(|| w_chunks(&r)),
        "split_whitespace" => {
            let text: String = r.iter().map(|x| format!("{} ", x % 100_000)).collect();
            counted(|| w_split_whitespace(&text)) as u64
        }
        "zip" => counted(|| w_zip(&r, &seq)),
        "fold_reduce" => counted(|| w_fold_reduce(&r)),
        "find_first" => counted(|| w_find_first(&seq)).unwrap_or(0) as u64,
        "collect_strings" => counted(|| w_collect_strings(&r[..K100])).len() as u64,
        "par_extend" => { let mut o = Vec::new(); counted(|| w_par_extend(&mut o, &r)); o.len() as u64 }
        _ => panic!("unknown row {row}"),
    };
    println!("{out}");
}
RS
}

build() { # name rev -> $work/<name>.bin
    local w="$work/$1" id
    id=$(if [ -n "$2" ]; then git -C "$root" rev-parse "$2"; else echo worktree; fi)
    if [ "$id" = worktree ] || [ "$(cat "$w/rev" 2>/dev/null)" != "$id" ]; then
        rm -rf "$w"
        icount_probe "$root" "$2" "$w" "core::arch::x86_64::_rdtsc() >> 6"
        echo "$id" > "$w/rev"
    fi
    probe_main > "$w/probe/src/main.rs"
    cp "$root/Cargo.lock" "$w/probe/"
    (cd "$w/probe" && CARGO_TARGET_DIR="${ICOUNT_TARGET_DIR:-$work/target}" \
        nice cargo build --release --quiet \
        && cp "${ICOUNT_TARGET_DIR:-$work/target}/release/probe" "$work/$1.bin")
}
echo "building $base and ${head:-the working tree}" >&2
build base "$base"
build head "$head"

total() { # name row threads [SKIP] -> instructions of the whole run, every thread
    local out="$work/$1-$2-$3${4:+-skip}.cg"
    rm -f "$out"*
    SKIP=${4:-} BLITZ_NUM_THREADS=$3 valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$out" "$work/$1.bin" "$2" >/dev/null 2>&1
    cat "$out"-* | awk '/^summary:/ { s += $2 } END { print s }'
}
count() { # name row threads -> the row's instructions
    echo $(($(total "$1" "$2" "$3") - $(total "$1" "$2" "$3" skip)))
}
median() { tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
counts() { # name row threads -> median over REPS runs
    local xs="" i
    for ((i = 0; i < ${REPS:-1}; i++)); do xs="$xs $(count "$1" "$2" "$3")"; done
    echo "$xs" | xargs -n1 | median
}

rows=${ROWS:-"sum_1k sum_1m map_collect filter_collect sort_unstable_u64 sort_u64 sort_u32 sort_i64 sort_f64 sort_string sort_string_stable sort_str sort_by_key scan tree_join chunks split_whitespace zip fold_reduce find_first collect_strings par_extend"}
echo "| workload | threads | base ($base) | head (${head:-work tree}) | head/base |"
echo "|---|---|---|---|---|"
for t in ${THREADS:-1 2}; do
    for row in $rows; do
        b=$(counts base "$row" "$t")
        h=$(counts head "$row" "$t")
        python3 -c "import sys; r, t, b, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]); \
flag = '  <-- over 1.02x' if h > 1.02 * b else ''; \
print(f'| {r} | {t} | {b:,} | {h:,} | {h / b:.3f}x |{flag}')" "$row" "$t" "$b" "$h"
    done
done
