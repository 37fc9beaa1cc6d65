#!/usr/bin/env bash
# "Without the `trace` feature, the same machine code": builds a 1,000-item sum
# (`v.par_iter().sum()`) and a `join` into a small probe crate against two source trees of
# blitz-par, BASE (default: main) and the working tree, both without the feature, in release
# mode with one codegen unit, and compares the disassembly function by function: the probe's
# functions (the sum and the join with all the generic blitz-par code inlined into them) and
# every function of the blitz-par rlib (the scheduler's non-generic code: run_job, promotion,
# stealing, the injector, sleep and wake, the wait loop). Symbol hashes, local label numbers
# and anonymous-constant numbers are normalised (they differ with the source path and
# line numbers, not with the code); source paths are remapped to one.
#
# Usage: scripts/trace_asm_check.sh [BASE]      (about 3 minutes; prints "identical" or the
#                                                 functions that differ, and exits non-zero)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base_rev="${1:-main}"
work="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/base-src" "$base_rev" >/dev/null
export CARGO_TARGET_DIR="$work/target"
export RUSTFLAGS="--remap-path-prefix=$work/base-src=/src --remap-path-prefix=$root=/src --remap-path-prefix=$work/probe-base=/probe --remap-path-prefix=$work/probe-head=/probe"
for side in base head; do
    src="$root"
    [ "$side" = base ] && src="$work/base-src"
    mkdir -p "$work/probe-$side/src"
    cat > "$work/probe-$side/Cargo.toml" <<TOML
[package]
name = "asmprobe"
version = "0.0.0"
edition = "2021"
[lib]
crate-type = ["rlib"]
[dependencies]
blitz-par = { path = "$src" }
[profile.release]
debug = 0
codegen-units = 1
[workspace]
TOML
    cat > "$work/probe-$side/src/lib.rs" <<'RS'
use blitz_par::prelude::*;

#[inline(never)]
pub fn sum_1000(v: &[u64]) -> u64 {
    v.par_iter().sum()
}

#[inline(never)]
pub fn join_pair(a: &[u64]) -> (u64, u64) {
    blitz_par::join(|| a.iter().sum::<u64>(), || a.iter().max().copied().unwrap_or(0))
}
RS
    cp "$root/Cargo.lock" "$work/probe-$side/"
    (cd "$work/probe-$side" && cargo rustc --release --lib --quiet -- --emit obj -C debuginfo=0)
    objdump -dr --no-show-raw-insn "$CARGO_TARGET_DIR"/release/deps/asmprobe-*.o > "$work/probe-$side.dis"
    rm -f "$CARGO_TARGET_DIR"/release/deps/asmprobe-*.o
    mkdir "$work/rlib-$side"
    (cd "$work/rlib-$side" && ar x "$(ls -t "$CARGO_TARGET_DIR"/release/deps/libblitz_par-*.rlib | head -1)")
    objdump -dr --no-show-raw-insn "$work/rlib-$side"/*.o > "$work/rlib-$side.dis"
done
python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
def funcs(path):
    out, name, body = {}, None, []
    def norm(s):
        s = re.sub(r'17h[0-9a-f]{16}E', '', s)
        s = re.sub(r'\.L(CPI|BB|tmp|func_end)[0-9_]+', r'.L\1N', s)
        return re.sub(r'anon\.[0-9a-f]+\.[0-9]+', 'anon.N', s)
    for line in open(path):
        m = re.match(r'^[0-9a-f]+ <(.*)>:$', line.strip())
        if m:
            if name:
                out.setdefault(name, []).append('\n'.join(body))
            name, body = norm(m.group(1)), []
            continue
        l = line.rstrip()
        if name is None or not l or 'file format' in l or l.startswith('Disassembly'):
            continue
        l = re.sub(r'^\s*[0-9a-f]+:\s*', '', l)
        l = re.sub(r'\b[0-9a-f]+ <', '<', l)
        l = re.sub(r'<([^>+]*)\+0x[0-9a-f]+>', r'<\1+off>', l)
        body.append(norm(l))
    if name:
        out.setdefault(name, []).append('\n'.join(body))
    return out
bad = 0
for what in ("probe", "rlib"):
    a, b = funcs(f"{work}/{what}-base.dis"), funcs(f"{work}/{what}-head.dis")
    differ = sorted(k for k in set(a) | set(b) if sorted(a.get(k, [])) != sorted(b.get(k, [])))
    label = "the sum and the join (probe)" if what == "probe" else "the blitz-par rlib"
    print(f"{label}: {len(a)} functions at base, {len(b)} now, {len(differ)} differ")
    for k in differ[:20]:
        print("  differs:", k[:160])
    bad += len(differ)
print("identical" if bad == 0 else "DIFFERENT")
sys.exit(1 if bad else 0)
PY
