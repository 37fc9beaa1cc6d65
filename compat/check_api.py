#!/usr/bin/env python3
"""Compare the public API of the compatibility crates with the real rayon and rayon-core.

Reads rustdoc JSON (standard library only) for four crates: the real `rayon` and `rayon_core`,
and the compatibility `rayon` and `rayon_core` (which re-export blitz-par, whose JSON is read too
to resolve the re-exports). For each pair it compares:

- every public item path (modules, structs, enums, traits, functions, macros, type aliases,
  constants, statics) in each of Rust's three namespaces (types, values, macros), with `use`
  items (named and glob) resolved to their targets, also across crates: a `use` takes every
  namespace of a name (`pub use blitz_par::join` brings the function and the `join!` macro,
  and rustdoc records one `use` per namespace), so an item rayon lacks cannot ride in beside
  one it has;
- the kind of each item (a struct where rayon has a struct, not a type alias);
- every trait's associated items, with their required/provided status, and each struct's or
  enum's inherent methods (missing ones fail; extra ones are listed, not failed: blitz-par's
  methods on shared types and traits stay visible through the re-exports);
- in `iter::plumbing` (which other crates implement), the signatures of the functions and of
  every trait's items and bounds, with rustdoc's ids and crate prefixes left out;
- that types rayon keeps apart are not one type here (an alias, or one type at two paths);
- the impls of rayon's traits (which types are parallel iterators, collect, extend, ...), each
  named coarsely (`ParallelIterator for vec::IntoIter<_>`); an impl generic over the trait's
  parameter stands for rayon's impls for each parameter;
- that each trait rayon seals (a hidden required method, or a supertrait that is not publicly
  reachable) is sealed in the compatibility crate too.

Deprecated rayon items may be missing: they are printed as allowed omissions. Missing items and
extra items (other than methods) fail the check.

Usage: check_api.py DOC_DIR_REAL DOC_DIR_COMPAT
  DOC_DIR_REAL holds rayon.json and rayon_core.json built from crates.io;
  DOC_DIR_COMPAT holds rayon.json, rayon_core.json and blitz_par.json from this repository.
"""

import json
import os
import sys

ITEM_KINDS = {
    "module",
    "struct",
    "enum",
    "union",
    "trait",
    "trait_alias",
    "function",
    "macro",
    "proc_macro",
    "type_alias",
    "constant",
    "static",
}


# The namespace of each item kind (rustdoc's kinds, and the `paths` summaries' kinds of other
# crates' items): one path can name a type, a value and a macro at once.
MACRO_KINDS = {"macro", "proc_macro", "proc_attribute", "proc_derive"}
VALUE_KINDS = {"function", "constant", "static"}


def namespace(kind):
    """`macro`, `value` or `type`: where an item of `kind` lives."""
    if kind in MACRO_KINDS:
        return "macro"
    if kind in VALUE_KINDS:
        return "value"
    return "type"


def path_text(path, ns):
    """A path for a message: `rayon_core::join!` for a macro."""
    return "::".join(path) + ("!" if ns == "macro" else "")


class Crate:
    """One crate's rustdoc JSON, with its public items by path and namespace."""

    def __init__(self, path, universe):
        with open(path) as f:
            self.doc = json.load(f)
        self.index = self.doc["index"]
        self.paths = self.doc["paths"]
        self.externals = self.doc["external_crates"]
        root = self.index[str(self.doc["root"])]
        self.name = root["name"]
        self.universe = universe
        universe[self.name] = self
        self._public = None

    def item(self, item_id):
        return self.index.get(str(item_id)) if item_id is not None else None

    @staticmethod
    def kind_of(item):
        return next(iter(item["inner"]))

    @staticmethod
    def hidden(item):
        for attr in item.get("attrs", []):
            text = attr if isinstance(attr, str) else json.dumps(attr)
            if "doc(hidden)" in text.replace(" ", "") or '"hidden"' in text:
                return True
        return False

    def public(self):
        """{(path tuple, namespace): Entry}: every publicly reachable item, re-exports
        resolved."""
        if self._public is None:
            self._public = {}
            root = self.item(self.doc["root"])
            self._walk_module(root, (self.name,), set())
        return self._public

    def by_defining_path(self, path, ns):
        """The public entry of the item that `paths` names by its defining (private) path, in
        namespace `ns`."""
        ids = {
            (self.name, int(item_id))
            for item_id, summary in self.paths.items()
            if summary["crate_id"] == 0 and tuple(summary["path"]) == path and namespace(summary["kind"]) == ns
        }
        for entry in self.public().values():
            if entry.identity() in ids:
                return entry
        return None

    def _add(self, path, entry, ns=None):
        """Records `entry` at `path`, in the namespace of its kind (or `ns`, for an entry whose
        kind says none: an unresolved re-export)."""
        self._public.setdefault((path, ns or namespace(entry.kind)), entry)

    def _walk_module(self, module, path, seen):
        key = (self.name, module["id"], path)
        if key in seen:
            return
        seen.add(key)
        self._add(path, Entry(self, module, "module"))
        self._walk_children(module, path, seen)

    def _walk_children(self, module, path, seen):
        """The public items of `module`, at `path` (its own, or a glob re-export's)."""
        for child_id in module["inner"]["module"]["items"]:
            child = self.item(child_id)
            if child is None or child["visibility"] != "public" or self.hidden(child):
                continue
            kind = self.kind_of(child)
            if kind == "use":
                self._walk_use(child, path, seen)
            elif kind == "module":
                self._walk_module(child, path + (child["name"],), seen)
            elif kind in ITEM_KINDS:
                self._add(path + (child["name"],), Entry(self, child, kind))

    def _walk_use(self, use_item, path, seen):
        use = use_item["inner"]["use"]
        target = self.item(use["id"])
        if target is not None:
            # A target in this crate.
            if use["is_glob"]:
                if self.kind_of(target) == "module":
                    self._walk_children(target, path, seen)
                return
            kind = self.kind_of(target)
            if kind == "module":
                self._walk_module(target, path + (use["name"],), seen)
            elif kind == "use":
                self._walk_use(dict(target, inner={"use": dict(target["inner"]["use"], name=use["name"])}), path, seen)
            else:
                self._add(path + (use["name"],), Entry(self, target, kind))
            return
        # A target in another crate: find it by its path there.
        summary = self.paths.get(str(use["id"])) if use["id"] is not None else None
        if summary is None:
            self._add(path + (use["name"],), Entry(None, None, "unresolved:" + use["source"]), "type")
            return
        crate_name = self.externals[str(summary["crate_id"])]["name"] if summary["crate_id"] != 0 else self.name
        other = self.universe.get(crate_name)
        target_path = tuple(summary["path"])
        if other is None:
            # Not loaded (either, std): its kind is all we know.
            kind = summary["kind"]
            if not use["is_glob"]:
                self._add(path + (use["name"],), Entry(None, None, kind, foreign=target_path))
            return
        table = other.public()
        if use["is_glob"]:
            depth = len(target_path)
            for (p, ns), entry in table.items():
                if len(p) == depth + 1 and p[:depth] == target_path:
                    self._add(path + (p[-1],), entry, ns)
            # A glob of a module also brings its submodules' contents at their own paths.
            for (p, ns), entry in table.items():
                if len(p) > depth + 1 and p[:depth] == target_path:
                    self._add(path + p[depth:], entry, ns)
            return
        # This `use` names one namespace of the target (rustdoc records one `use` per namespace
        # that the name resolves in): the item of that namespace, not whichever came first.
        ns = namespace(summary["kind"])
        entry = table.get((target_path, ns)) or other.by_defining_path(target_path, ns)
        if entry is None:
            self._add(path + (use["name"],), Entry(None, None, "unresolved:" + "::".join(target_path)), ns)
            return
        self._add(path + (use["name"],), entry, ns)
        if entry.kind == "module":
            depth = len(target_path)
            for (p, sub_ns), sub in table.items():
                if len(p) > depth and p[:depth] == target_path:
                    self._add(path + (use["name"],) + p[depth:], sub, sub_ns)


class Entry:
    """A public item: the crate that defines it, its JSON, its kind."""

    def __init__(self, crate, item, kind, foreign=None):
        self.crate = crate
        self.item = item
        self.kind = kind
        self.foreign = foreign

    @property
    def deprecated(self):
        return self.item is not None and self.item.get("deprecation") is not None

    def identity(self):
        if self.item is None:
            return ("foreign", self.foreign)
        return (self.crate.name, self.item["id"])

    def members(self):
        """{name: (kind, required, hidden, deprecated)} of a trait's items or a type's inherent methods."""
        out = {}
        if self.item is None:
            return out
        inner = self.item["inner"]
        if self.kind == "trait":
            for member_id in inner["trait"]["items"]:
                member = self.crate.item(member_id)
                if member is None:
                    continue
                mkind = Crate.kind_of(member)
                if mkind == "function":
                    required = not member["inner"]["function"]["has_body"]
                elif mkind == "assoc_type":
                    required = member["inner"]["assoc_type"].get("type") is None
                elif mkind == "assoc_const":
                    required = member["inner"]["assoc_const"].get("value") is None
                else:
                    required = False
                out[member["name"]] = (
                    mkind,
                    required,
                    Crate.hidden(member),
                    member.get("deprecation") is not None,
                )
        elif self.kind in ("struct", "enum", "union"):
            for impl_id in inner[self.kind].get("impls", []):
                impl = self.crate.item(impl_id)
                if impl is None:
                    continue
                body = impl["inner"]["impl"]
                if body.get("trait") is not None or body.get("is_synthetic") or body.get("blanket_impl"):
                    continue
                for member_id in body["items"]:
                    member = self.crate.item(member_id)
                    if member is None or member["visibility"] != "public":
                        continue
                    out[member["name"]] = (
                        Crate.kind_of(member),
                        False,
                        Crate.hidden(member),
                        member.get("deprecation") is not None,
                    )
        return out

    def sealed(self):
        """Whether outside code cannot implement this trait."""
        if self.kind != "trait" or self.item is None:
            return False
        public_ids = {e.identity() for e in self.crate.public().values()}
        for bound in self.item["inner"]["trait"]["bounds"]:
            trait = bound.get("trait_bound", {}).get("trait")
            if trait is None:
                continue
            if self.crate.item(trait["id"]) is not None and (self.crate.name, trait["id"]) not in public_ids:
                return True
        for member_id in self.item["inner"]["trait"]["items"]:
            member = self.crate.item(member_id)
            if member is None or Crate.kind_of(member) != "function":
                continue
            if not member["inner"]["function"]["has_body"] and Crate.hidden(member):
                return True
        return False


def signature(value):
    """A signature with rustdoc's ids and paths' crate prefixes left out, for comparison."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("id", "span", "docs", "links", "attrs", "has_body", "default"):
                continue
            if key == "path" and isinstance(item, str):
                item = item.rsplit("::", 1)[-1]
            out[key] = signature(item)
        return out
    if isinstance(value, list):
        return [signature(v) for v in value]
    return value


NAMES = {}


def coarse(ty):
    """A type with its generic parameters and lifetimes left out: `Vec<_>`, `&mut [_]`; a type
    of the crates compared is named by its public path (`NAMES`: (crate, id) -> path)."""
    if not isinstance(ty, dict):
        return "?"
    kind, body = next(iter(ty.items()))
    if kind == "resolved_path":
        name = NAMES.get(body.get("id"), body["path"].rsplit("::", 1)[-1])
        return name + coarse_args(body.get("args"))
    if kind == "generic":
        return "_"
    if kind == "primitive":
        return body
    if kind == "borrowed_ref":
        return "&" + ("mut " if body.get("is_mutable") else "") + coarse(body["type"])
    if kind == "slice":
        return "[" + coarse(body) + "]"
    if kind == "array":
        return "[" + coarse(body["type"]) + "; N]"
    if kind == "tuple":
        return "(" + ", ".join(coarse(t) for t in body) + ")"
    return "_"


def coarse_args(args):
    if not args or "angle_bracketed" not in args:
        return ""
    parts = []
    for arg in args["angle_bracketed"]["args"]:
        if "type" in arg:
            parts.append(coarse(arg["type"]))
        elif "const" in arg:
            parts.append("N")
    for constraint in args["angle_bracketed"].get("constraints", []):
        binding = constraint.get("binding", {})
        if "equality" in binding and "type" in binding["equality"]:
            parts.append(constraint["name"] + "=" + coarse(binding["equality"]["type"]))
    return "<" + ", ".join(parts) + ">" if parts else ""


def trait_impls(entry):
    """The coarse `Trait<..> for Type` of every impl of a trait that its crate holds."""
    out = set()
    for impl_id in entry.item["inner"]["trait"].get("implementations", []):
        impl = entry.crate.item(impl_id)
        if impl is None:
            continue
        body = impl["inner"]["impl"]
        if body.get("is_synthetic") or body.get("blanket_impl") is not None:
            continue
        out.add(entry.item["name"] + coarse_args(body["trait"].get("args")) + " for " + coarse(body["for"]))
    return out


def compare(real, compat, report):
    """Compare one real crate with its compatibility twin; append failures to report."""
    real_items = real.public()
    compat_items = compat.public()
    failures = []
    omitted = []
    notes = []

    def twin(key):
        """The compatibility crate's key for a real crate's (path, namespace) key."""
        path, ns = key
        return ((compat.name,) + path[1:], ns)

    for key in sorted(real_items):
        want = real_items[key]
        path, ns = key
        name = path_text(path, ns)
        shown = path_text(*twin(key))
        got = compat_items.get(twin(key))
        if got is None:
            if want.deprecated:
                omitted.append(name)
            else:
                failures.append(f"missing {want.kind}: {shown}")
            continue
        if got.kind != want.kind:
            failures.append(f"kind: {shown} is a {got.kind}, rayon's is a {want.kind}")
            continue
        want_members = want.members()
        got_members = got.members()
        for member, (mkind, required, hidden, deprecated) in sorted(want_members.items()):
            if hidden:
                continue
            if member not in got_members:
                if deprecated:
                    omitted.append(f"{name}::{member}")
                else:
                    failures.append(f"missing {mkind}: {shown}::{member}")
                continue
            gkind, grequired, ghidden, _ = got_members[member]
            if gkind != mkind:
                failures.append(f"kind: {shown}::{member} is a {gkind}, rayon's is a {mkind}")
            elif want.kind == "trait" and grequired != required:
                state = "required" if grequired else "provided"
                failures.append(f"{shown}::{member} is {state}, rayon's is not")
            elif ghidden:
                failures.append(f"hidden: {shown}::{member} (public in rayon)")
        for member, (gkind, grequired, ghidden, _) in sorted(got_members.items()):
            if member in want_members:
                continue
            if want.kind == "trait" and grequired:
                failures.append(f"extra required {gkind}: {shown}::{member} (rayon's implementors lack it)")
            else:
                notes.append(f"extra {'hidden ' if ghidden else ''}{gkind}: {shown}::{member}")
        if want.kind == "trait" and want.sealed() and not got.sealed():
            failures.append(f"unsealed: {shown} (sealed in rayon)")
    # iter::plumbing is implemented by other crates (ndarray, hashbrown, indicatif, ...): its
    # functions and trait methods must have rayon's signatures exactly.
    for (path, ns), want in real_items.items():
        if path[1:3] != ("iter", "plumbing") or want.item is None or want.kind == "module":
            continue
        got = compat_items.get(twin((path, ns)))
        if got is None or got.item is None or got.kind != want.kind:
            continue
        name = path_text(*twin((path, ns)))
        pairs = [] if want.kind == "trait" else [(name, want.item, got.item)]
        if want.kind == "trait":
            theirs = {m["name"]: m for m in map(want.crate.item, want.item["inner"]["trait"]["items"]) if m}
            ours = {m["name"]: m for m in map(got.crate.item, got.item["inner"]["trait"]["items"]) if m}
            pairs += [(f"{name}::{m}", theirs[m], ours[m]) for m in theirs if m in ours]
            pairs.append((name + " (bounds)", want.item["inner"]["trait"]["bounds"], got.item["inner"]["trait"]["bounds"]))
            pairs.append((name + " (generics)", want.item["inner"]["trait"]["generics"], got.item["inner"]["trait"]["generics"]))
        for label, a, b in pairs:
            if isinstance(a, dict) and "inner" in a:
                a, b = a["inner"], b["inner"]
            if signature(a) != signature(b):
                failures.append(f"signature: {label} differs from rayon's")
                if os.environ.get("CHECK_API_VERBOSE"):
                    failures.append(f"    rayon's: {json.dumps(signature(a))}")
                    failures.append(f"    here:    {json.dumps(signature(b))}")

    # The impls of rayon's traits: every type rayon makes a parallel iterator (or collects,
    # extends, ...) is one here too. Types are named by their public paths in each crate.
    def names(crate, items):
        table = {}
        for (p, _), e in sorted(items.items(), key=lambda pe: (len(pe[0][0]), pe[0])):
            if e.item is not None and e.crate is crate and e.kind in ("struct", "enum"):
                table.setdefault(e.item["id"], "::".join(p[1:]))
        return table

    want_names = names(real, real_items)
    for (path, ns), want in real_items.items():
        got = compat_items.get(twin((path, ns)))
        if want.kind != "trait" or got is None or got.kind != "trait" or want.item is None or got.item is None:
            continue
        if path[-2] == "prelude":
            continue
        NAMES.clear()
        NAMES.update(want.crate is real and want_names or names(want.crate, real_items))
        theirs = trait_impls(want)
        NAMES.clear()
        NAMES.update(names(got.crate, compat_items))
        ours = trait_impls(got)
        # An impl generic over the trait's parameters (`FromParallelIterator<_> for Box<str>`,
        # with a where clause) stands for rayon's impls of it for each parameter.
        generic = {i.split(" for ", 1)[1] for i in ours if i.split(" for ", 1)[0].endswith("<_>")}
        for impl in sorted(theirs - ours):
            if impl.split(" for ", 1)[1] in generic:
                continue
            failures.append(f"missing impl: {impl} (of {'::'.join((compat.name,) + path[1:])})")

    # Types rayon keeps apart must not be one type here (an alias, or one re-export at two paths).
    by_identity = {}
    for (path, ns), want in real_items.items():
        got = compat_items.get(twin((path, ns)))
        if got is None or want.kind not in ("struct", "enum", "union", "trait") or got.item is None:
            continue
        by_identity.setdefault(got.identity(), {})[want.identity()] = "::".join((compat.name,) + path[1:])
    for names in by_identity.values():
        if len(names) > 1:
            failures.append("one type here, distinct in rayon: " + ", ".join(sorted(names.values())))
    for path, ns in sorted(compat_items):
        if ((real.name,) + path[1:], ns) not in real_items:
            failures.append(f"extra {compat_items[path, ns].kind}: {path_text(path, ns)}")
    report.append((real.name, failures, omitted, notes))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    real_dir, compat_dir = sys.argv[1], sys.argv[2]
    real_universe, compat_universe = {}, {}
    real_core = Crate(os.path.join(real_dir, "rayon_core.json"), real_universe)
    real_rayon = Crate(os.path.join(real_dir, "rayon.json"), real_universe)
    Crate(os.path.join(compat_dir, "blitz_par.json"), compat_universe)
    compat_core = Crate(os.path.join(compat_dir, "rayon_core.json"), compat_universe)
    compat_rayon = Crate(os.path.join(compat_dir, "rayon.json"), compat_universe)
    for real, compat in ((real_core, compat_core), (real_rayon, compat_rayon)):
        print(f"{real.name} {real.doc.get('crate_version')} (rustdoc JSON format {real.doc['format_version']}): "
              f"{len(real.public())} public items; compat: {len(compat.public())}")
    report = []
    compare(real_core, compat_core, report)
    compare(real_rayon, compat_rayon, report)
    failed = False
    for name, failures, omitted, notes in report:
        print(f"\n== {name}")
        print(f"deprecated items left out ({len(omitted)}):")
        for line in omitted:
            print(f"  {line}")
        if os.environ.get("CHECK_API_VERBOSE"):
            print(f"methods beyond rayon's ({len(notes)}):")
            for line in notes:
                print(f"  {line}")
        else:
            print(f"methods beyond rayon's on shared types and traits: {len(notes)} (CHECK_API_VERBOSE=1 lists them)")
        if failures:
            failed = True
            print(f"FAILURES ({len(failures)}):")
            for line in failures:
                print(f"  {line}")
        else:
            print("public items match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
