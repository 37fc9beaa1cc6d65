#!/usr/bin/env python3
"""Runs rayon's own documentation examples against blitz-par.

Reads the doc examples of the rayon and rayon-core sources that cargo has downloaded (rayon is
a dev-dependency), rewrites `rayon::` / `rayon_core::` to `blitz_par::`, and writes a scratch
crate with one test per example, depending on this repository by path:

    python3 scripts/rayon_doc_examples.py [OUT_DIR]    # default /tmp/blitz-rayon-doc-examples
    cd OUT_DIR && cargo test --release

An example that fails to compile names a gap in blitz-par's rayon API; one that fails at run
time, a difference in behaviour. Left out: examples rayon itself does not compile (`ignore`,
`compile_fail`, `text`, `ascii`, `notrust`) and those that need other crates (`rand`,
`scoped_tls`). Examples that build the global pool are `#[ignore]`d: all examples share one
process here, and the global pool can be built once.
"""
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/blitz-rayon-doc-examples"
REGISTRY = os.path.expanduser(os.environ.get("CARGO_HOME", "~/.cargo") + "/registry/src/*/")


def newest(name):
    dirs = glob.glob(REGISTRY + name + "-[0-9]*")
    if not dirs:
        sys.exit(f"no {name} sources under {REGISTRY}: run `cargo fetch` first")
    return max(dirs, key=lambda d: [int(x) for x in re.findall(r"\d+", os.path.basename(d))])


def examples(root, label):
    for path in sorted(glob.glob(root + "/src/**/*.rs", recursive=True)):
        if "/compile_fail/" in path:
            continue
        lines = open(path).read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^(///|//!)\s?```(.*)$", lines[i].strip())
            if not m:
                i += 1
                continue
            attrs, body, j = m.group(2).strip(), [], i + 1
            while j < len(lines):
                mm = re.match(r"^(///|//!) ?(.*)$", lines[j].strip())
                if not mm or mm.group(2).strip().startswith("```"):
                    break
                body.append(mm.group(2))
                j += 1
            # rayon-core marks thread examples `ignore-wasm`: they do run on other targets.
            kinds = attrs.replace("ignore-wasm", "")
            skip = any(a in kinds for a in ("compile_fail", "ignore", "text", "ascii", "notrust"))
            if body and not body[0].startswith("|") and not skip:
                yield f"{label}/{os.path.relpath(path, root)}:{i + 1}", attrs, body
            i = j + 1


def rewrite(body):
    out = []
    for line in body:
        stripped = line.lstrip()
        if stripped.startswith("# "):
            line = stripped[2:]
        elif stripped == "#":
            line = ""
        out.append(line)
    text = "\n".join(out)
    text = text.replace("use rayon_core as rayon", "use blitz_par as rayon")
    text = text.replace("extern crate rayon_core;", "").replace("extern crate rayon;", "")
    text = text.replace("rayon_core::", "blitz_par::").replace("rayon::", "blitz_par::")
    return re.sub(r"\buse rayon\b", "use blitz_par", text)


NEEDS_OTHER_CRATES = ("rand::", "scoped_tls::")

items = ["#![allow(unused, deprecated, clippy::all)]"]
left_out = []
n = 0
for label, root in (("rayon", newest("rayon")), ("rayon-core", newest("rayon-core"))):
    for where, attrs, body in examples(root, label):
        text = rewrite(body)
        if any(k in text for k in NEEDS_OTHER_CRATES):
            left_out.append(where)
            continue
        items.append(
            f"// {where}\n#[allow(unused)]\nmod t{n} {{\n"
            "pub fn run() -> Result<(), Box<dyn std::error::Error>> {\n"
            f"#[allow(unused)]\nlet _r = {{\n{text}\n}};\n#[allow(unreachable_code)]\nOk(())\n}}\n}}"
        )
        if "no_run" not in attrs:
            attr = "#[should_panic] " if "should_panic" in attrs else ""
            if "build_global" in text:
                attr += '#[ignore = "builds the global pool, which one process can do once"] '
            items.append(f"#[test] {attr}fn example_{n}() {{ t{n}::run().unwrap(); }}")
        n += 1

os.makedirs(OUT + "/src", exist_ok=True)
open(OUT + "/src/lib.rs", "w").write("\n".join(items) + "\n")
open(OUT + "/Cargo.toml", "w").write(
    '[package]\nname = "blitz-rayon-doc-examples"\nversion = "0.0.0"\nedition = "2021"\n'
    f'[dependencies]\nblitz-par = {{ path = "{REPO}" }}\n[workspace]\n'
)
print(f"{n} examples in {OUT}; left out {len(left_out)}: {', '.join(left_out)}")
