# shellcheck shell=bash
# The set-up shared by scripts/algos_icount.sh, scripts/select_icount.sh and
# scripts/trace_icount.sh: a copy of the crate whose clock runs slow under callgrind, and a probe
# package that depends on it. Sourced, not run.

# icount_probe ROOT REV WORK READ [APPEND]: copies the crate at REV (the working tree's tracked
# files if REV is empty) from ROOT to WORK/src; in its src/sync/clock.rs replaces the TSC
# reading by the expression READ (e.g. `core::arch::x86_64::_rdtsc() >> 6`, so that chunk sizes
# under valgrind's slowdown match native ones), turns the clock's calibration off, and appends
# APPEND; writes WORK/probe/Cargo.toml, a release profile with line tables, depending on it.
# The caller writes WORK/probe/src/main.rs.
icount_probe() {
    local root=$1 rev=$2 work=$3
    mkdir -p "$work/src" "$work/probe/src"
    if [ -n "$rev" ]; then
        git -C "$root" archive "$rev" | tar -x -C "$work/src"
    else
        (cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
    fi
    python3 - "$work/src/src/sync/clock.rs" "$4" "${5:-}" <<'PY'
import sys
p, read_with, append = sys.argv[1:4]
s = open(p).read()
read = "core::arch::x86_64::_rdtsc()\n"
calibrate = "if !MEASURED.load(Ordering::Relaxed) {\n        calibrate_step();"
assert s.count(read) == 1 and s.count(calibrate) == 1, "clock.rs changed: update scripts/lib/icount.sh"
s = s.replace(read, read_with + "\n")
s = s.replace(calibrate, "if false && !MEASURED.load(Ordering::Relaxed) {\n        calibrate_step();")
open(p, "w").write(s + append)
PY
    cat > "$work/probe/Cargo.toml" <<TOML
[package]
name = "probe"
version = "0.0.0"
edition = "2021"
[dependencies]
blitz-par = { path = "$work/src" }
[profile.release]
debug = "line-tables-only"
[workspace]
TOML
}
