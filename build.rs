//! Tells the crate whether the compiler takes `label` operands in inline assembly (Rust 1.87):
//! with them, a join's poll is one subtraction on memory and a branch on its sign
//! (`src/scheduler/registry/seat.rs`, `Seat::tick`); without them (down to the stated minimum,
//! 1.85), the same count in portable code, one load and two instructions more.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rustc-check-cfg=cfg(blitz_asm_goto)");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|version| minor_version(&version));
    // An unknown version takes the portable code: it builds on every compiler.
    if minor.is_some_and(|minor| minor >= 87) {
        println!("cargo:rustc-cfg=blitz_asm_goto");
    }
}

/// The minor version of `rustc --version`'s "rustc 1.MINOR.PATCH ..." line.
fn minor_version(version: &str) -> Option<u32> {
    let number = version.split_whitespace().nth(1)?;
    let mut parts = number.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
