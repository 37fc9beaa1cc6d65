#!/usr/bin/env python3
"""Compares the first parallel calls of fresh processes between builds of `examples/first_call.rs`.

Each round runs every given command once, in turn (so that they share the machine's state
round by round), and the script prints, for each command and each of the example's three
figures (first 1,000-item sum, first 1M-item sum, second 1M-item sum), the median and the
quartiles over all rounds, in microseconds:

    python3 scripts/first_call.py [--rounds N] COMMAND [COMMAND ...]

A command is a binary, or a binary and its argument in one quoted word (`"BINARY rayon"`,
`"BINARY seq"`: the same sums with rayon or the sequential loop). Build the binaries with
`cargo build --release --example first_call` in each worktree and pass
`target/release/examples/first_call` of each. On a shared machine, run it while nothing
else runs.
"""
import argparse
import statistics
import subprocess


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    figures = {binary: [[], [], []] for binary in args.binaries}
    for _ in range(args.rounds):
        for binary in args.binaries:
            out = subprocess.run(
                binary.split(), check=True, capture_output=True, text=True
            ).stdout
            for column, value in zip(figures[binary], out.split()):
                column.append(int(value) / 1000)
    names = ["first sum of 1,000", "first sum of 1M", "second sum of 1M"]
    for binary in args.binaries:
        print(binary)
        for name, column in zip(names, figures[binary]):
            q1, median, q3 = statistics.quantiles(column, n=4)
            print(f"  {name:>20}: median {median:9.1f} us  (quartiles {q1:.1f} to {q3:.1f})")


if __name__ == "__main__":
    main()
