#!/usr/bin/env bash
# Compares the public API of the compatibility crates (compat/rayon, compat/rayon-core) with the
# real rayon and rayon-core of the same versions, from crates.io: every public item path in
# each namespace (types, values, macros), each item's kind, each trait's items (required or
# provided), structs' inherent methods, the signatures in iter::plumbing (which other crates
# implement), the impls of rayon's traits, sealed traits, and that types rayon keeps apart are
# apart here too. Missing items and items beyond rayon's fail; rayon's deprecated items may be
# missing and are listed. See compat/README.md.
#
# Needs a nightly toolchain (rustdoc's JSON output is unstable) and crates.io. Everything it
# builds stays under target/compat-api/. Usage: compat/check-api.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out="$repo/target/compat-api"
mkdir -p "$out/real/src"

version() { sed -n 's/^version = "\(.*\)"/\1/p' "compat/$1/Cargo.toml" | head -n 1; }
rayon_version=$(version rayon)
core_version=$(version rayon-core)

# The real crates, fetched by a scratch project of their exact versions.
cat > "$out/real/Cargo.toml" <<TOML
[package]
name = "compat-api-real"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rayon = "=$rayon_version"
rayon-core = "=$core_version"

[workspace]
TOML
: > "$out/real/src/lib.rs"

# Hidden items are documented too: rayon seals traits with a hidden method, and the script
# looks for it (and reports blitz-par's hidden trait items).
json=(-- -Z unstable-options --output-format json --document-hidden-items)
export CARGO_TERM_COLOR=never
(
    cd "$out/real"
    export CARGO_TARGET_DIR="$out/target-real"
    cargo +nightly rustdoc -q -p "rayon-core@$core_version" "${json[@]}"
    cargo +nightly rustdoc -q -p "rayon@$rayon_version" "${json[@]}"
)
(
    cd compat
    export CARGO_TARGET_DIR="$out/target-compat"
    cargo +nightly rustdoc -q -p blitz-par "${json[@]}"
    cargo +nightly rustdoc -q -p rayon-core "${json[@]}"
    cargo +nightly rustdoc -q -p rayon "${json[@]}"
)
python3 compat/check_api.py "$out/target-real/doc" "$out/target-compat/doc"
