#!/usr/bin/env python3
"""Measures what parallel pipelines cost to compile with blitz-par and with rayon.

Writes a scratch crate whose `main` holds N groups of three small pipelines (`map` / `filter` /
`sum`, `map` / `collect`, `enumerate` / `filter` / `count`), each with closures of its own, so
that every pipeline is monomorphised anew, as in a user's program. The same source builds
against blitz-par (this repository, by path) or rayon (`use` lines switched by a feature).
Each build is timed from scratch for the scratch crate only (dependencies built first,
incremental compilation off), in debug and in release:

    python3 scripts/compile_cost.py [--groups N] [--rounds R] [--out DIR]

With `cargo llvm-lines` installed, also prints the LLVM IR lines of the debug build of each,
the measure that follows the generic code a pipeline instantiates. Compare the ratios within
one run: the machines here are shared.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_crate(out, groups):
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    with open(os.path.join(out, "Cargo.toml"), "w") as f:
        f.write(
            "[package]\n"
            'name = "compile-cost"\n'
            'version = "0.1.0"\n'
            'edition = "2021"\n\n'
            "[dependencies]\n"
            f'blitz-par = {{ path = "{REPO}", optional = true }}\n'
            'rayon = { version = "1", optional = true }\n\n'
            "[features]\n"
            'blitz = ["dep:blitz-par"]\n'
            'rayon = ["dep:rayon"]\n\n'
            "[workspace]\n"
        )
    lines = [
        '#[cfg(feature = "blitz")]',
        "use blitz_par::prelude::*;",
        '#[cfg(feature = "rayon")]',
        "use rayon::prelude::*;",
        "",
        "fn main() {",
        "    let v: Vec<u64> = (0..1000).collect();",
        "    let mut acc = 0u64;",
    ]
    for k in range(groups):
        lines.append(
            f"    acc += v.par_iter().map(|&x| x * {k + 1})"
            f".filter(|&x| x % {k + 2} == 0).sum::<u64>();"
        )
        lines.append(
            f"    acc += v.par_iter().map(|&x| x + {k}).collect::<Vec<u64>>().len() as u64;"
        )
        lines.append(
            f"    acc += v.par_iter().enumerate().filter(|&(i, _)| i % {k + 3} == 0)"
            ".count() as u64;"
        )
    lines += ['    println!("{acc}");', "}", ""]
    with open(os.path.join(out, "src", "main.rs"), "w") as f:
        f.write("\n".join(lines))


def cargo(out, args, env=None):
    subprocess.run(
        ["cargo"] + args,
        cwd=out,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def timed_build(out, feature, profile):
    env = dict(os.environ, CARGO_INCREMENTAL="0")
    args = ["build", "-q", "--profile", profile, "--features", feature]
    cargo(out, args, env)  # dependencies
    os.utime(os.path.join(out, "src", "main.rs"))
    start = time.monotonic()
    cargo(out, args, env)
    return time.monotonic() - start


def llvm_lines(out, feature):
    result = subprocess.run(
        ["cargo", "llvm-lines", "--features", feature],
        cwd=out,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return None
    for line in result.stdout.splitlines():
        if "(TOTAL)" in line:
            return int(line.split()[0])
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=40, help="groups of three pipelines")
    parser.add_argument("--rounds", type=int, default=2, help="timed builds of each kind")
    parser.add_argument("--out", default="/tmp/blitz-compile-cost", help="scratch crate")
    args = parser.parse_args()
    write_crate(args.out, args.groups)
    print(f"{3 * args.groups} pipelines, scratch crate in {args.out}")
    for profile in ["dev", "release"]:
        for feature in ["rayon", "blitz"]:
            times = [timed_build(args.out, feature, profile) for _ in range(args.rounds)]
            shown = ", ".join(f"{t:.1f}" for t in times)
            print(f"{profile:>7} {feature:>5}: {min(times):6.1f} s (builds: {shown})")
    if shutil.which("cargo-llvm-lines"):
        for feature in ["rayon", "blitz"]:
            print(f"LLVM IR lines, debug, {feature}: {llvm_lines(args.out, feature)}")
    else:
        print("(cargo llvm-lines not installed: no IR line counts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
