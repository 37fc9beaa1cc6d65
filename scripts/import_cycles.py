#!/usr/bin/env python3
"""List the import circles between the crate's source files.

Reads every `use` of `crate::`, `super::`, `self::` or a child module (with the
brace lists it opens), and every such path written inline in code (comments
dropped), under src/; resolves each path to the file of the module it names, and
prints the strongly connected components of the file graph that hold more than one
file. Test modules and loom models are left out. Exit status 0 always; the count is
on the last line.

Usage: scripts/import_cycles.py [-v] [SRC_DIR]   (-v: also the edges inside each circle)
"""
import os
import re
import sys

ARGS = [a for a in sys.argv[1:] if a != "-v"]
VERBOSE = "-v" in sys.argv[1:]
SRC = ARGS[0] if ARGS else "src"


def module_of(path):
    """The module path (list of names) of a source file."""
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


files = {}
for root, _, names in os.walk(SRC):
    for name in names:
        if name.endswith(".rs"):
            p = os.path.join(root, name)
            files[tuple(module_of(p))] = p


REEXPORTS = {}  # (module, name) -> the path it re-exports, absolute


def resolve(mod, path, depth=0):
    """The file of the module that defines the item `path` (relative to `mod`) names:
    the longest module prefix that is a file, followed through re-exports."""
    if path[0] == "crate":
        full = path[1:]
    else:
        full = list(mod)
        i = 0
        while i < len(path) and path[i] in ("super", "self"):
            if path[i] == "super":
                full = full[:-1]
            i += 1
        full = full + path[i:]
    for n in range(len(full), -1, -1):
        if tuple(full[:n]) in files:
            key = (tuple(full[:n]), full[n] if n < len(full) else None)
            if key in REEXPORTS and depth < 20:
                return resolve((), ["crate"] + REEXPORTS[key] + full[n + 1:], depth + 1)
            return tuple(full[:n])
    return None


USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+(\w+::[^;]*);", re.S | re.M)
INLINE = re.compile(r"\b((?:crate|super|self)(?:::\w+)+|\w+(?:::\w+)+)")
MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


def expand(tree):
    """Expand `a::{b, c::{d}}` into lists of names."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def rec(prefix, s):
        if "{" not in s:
            for part in split_top(s):
                out.append(prefix + [x for x in part.split("::") if x])
            return
        head, _, rest = s.partition("{")
        body = rest[: rest.rfind("}")]
        head = [x for x in head.split("::") if x]
        for part in split_top(body):
            rec(prefix + head, part)

    rec([], tree)
    return out


def split_top(s):
    depth, cur, parts = 0, "", []
    for ch in s:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return parts


def absolute(mod, p):
    if p[0] == "crate":
        return p[1:]
    full = list(mod)
    i = 0
    while i < len(p) and p[i] in ("super", "self"):
        if p[i] == "super":
            full = full[:-1]
        i += 1
    return full + p[i:]


PUB_USE = re.compile(r"^\s*pub(?:\([^)]*\))?\s+use\s+(\w+::[^;]*);", re.S | re.M)
for mod, path in files.items():
    text = re.sub(r"//[^\n]*", "", open(path).read())
    children = set(MOD.findall(text))
    for m in PUB_USE.finditer(text):
        for p in expand(m.group(1)):
            p = [re.split(r"\bas\b", x)[0] for x in p]
            alias = re.split(r"\bas\b", p[-1]) if False else None
            if p[0] in children:
                p = ["self"] + p
            if p[0] not in ("crate", "super", "self") or p[-1] in ("*", "self"):
                continue
            REEXPORTS[(mod, p[-1])] = absolute(mod, p)

graph = {m: set() for m in files}
for mod, path in files.items():
    # Test modules and loom models are not part of the library's layering.
    if path.endswith(("tests.rs", "loom_models.rs")):
        continue
    text = open(path).read()
    # Drop `#[cfg(test)] mod tests { ... }` blocks at the end of a file.
    cut = re.search(r"#\[cfg\((?:all\()?test[^\]]*\]\s*mod\s+tests\s*\{", text)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    children = set(MOD.findall(text))
    roots = {"crate", "super", "self"} | children

    def add(p):
        if p and p[0] in children:
            p = ["self"] + p
        if not p or p[0] not in ("crate", "super", "self"):
            return
        target = resolve(mod, p)
        if target is not None and target != mod:
            graph[mod].add(target)

    for m in USE.finditer(text):
        # A re-export is the parent's table of contents, not a dependency.
        if re.match(r"\s*pub", m.group(0)):
            continue
        if m.group(1).split("::")[0] not in roots:
            continue
        for p in expand(m.group(1)):
            add([x.split("as")[0] if False else re.split(r"\bas\b", x)[0] for x in p])
    for m in INLINE.finditer(USE.sub("", text)):
        add(m.group(1).split("::"))

# Tarjan's strongly connected components.
index, low, stack, on, sccs = {}, {}, [], set(), []
counter = [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(comp)


for v in sorted(graph):
    if v not in index:
        visit(v)

def name(m):
    return files[m][len(SRC) + 1:]


for comp in sorted(sccs, key=len, reverse=True):
    print(f"{len(comp)} files: " + ", ".join(sorted(name(m) for m in comp)))
    if VERBOSE:
        inside = set(comp)
        for m in sorted(comp, key=name):
            print(f"  {name(m)} -> " + ", ".join(sorted(name(t) for t in graph[m] & inside)))
print(f"import circles: {len(sccs)}")
