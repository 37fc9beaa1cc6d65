//! fib(n) with a join at every call, on each library compared (and sequentially). Shared by
//! `benches/join.rs`, `benches/idle.rs` and `examples/scaling.rs` through `#[path]`; not a
//! bench of its own (Cargo only finds `benches/*.rs` and `benches/*/main.rs`).

// Each user takes the forms it compares.
#![allow(dead_code)]

pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

pub fn fib_blitz(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = blitz_par::join(|| fib_blitz(n - 1), || fib_blitz(n - 2));
    a + b
}

pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

pub fn fib_chili(n: u64, s: &mut chili::Scope<'_>) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(n - 1, s), |s| fib_chili(n - 2, s));
    a + b
}
