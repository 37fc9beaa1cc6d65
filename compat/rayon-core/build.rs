// Cargo accepts `links` only from a package with a build script; this one has nothing to build.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
