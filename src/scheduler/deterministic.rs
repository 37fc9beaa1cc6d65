//! The deterministic switch of pools (`ThreadPoolBuilder::deterministic`,
//! `BLITZ_DETERMINISTIC`), and the process-wide hint that lets every parallel drive skip the
//! question with one relaxed load while nothing deterministic exists.
//!
//! The iterator driver asks [`may_be_deterministic`] first, and only when it says yes looks
//! at the pool ([`deterministic_pool`]) and at its own thread-local requests
//! (`iter/plumbing/fixed_tree.rs`).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// 0: `BLITZ_DETERMINISTIC` not read yet; 1: nothing deterministic so far; 2: something may be
/// (a deterministic pool was built, a `deterministic()` iterator was driven, or the variable
/// asks for it). Only grows.
static MAYBE: AtomicU8 = AtomicU8::new(0);

/// Records that deterministic drives may happen from now on.
#[inline]
pub(crate) fn note_deterministic() {
    if MAYBE.load(Ordering::Relaxed) != 2 {
        MAYBE.store(2, Ordering::Relaxed);
    }
}

/// Whether any drive may have to be deterministic: false while no deterministic pool or
/// iterator exists and `BLITZ_DETERMINISTIC` does not ask for one. One relaxed load, after the
/// first call of the process (which reads the variable).
#[inline]
pub(crate) fn may_be_deterministic() -> bool {
    match MAYBE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => first_look(),
    }
}

#[cold]
fn first_look() -> bool {
    let from_env = deterministic_from_env();
    let _ = MAYBE.compare_exchange(
        0,
        if from_env { 2 } else { 1 },
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    MAYBE.load(Ordering::Relaxed) == 2
}

/// What `BLITZ_DETERMINISTIC` asks of pools built without
/// `ThreadPoolBuilder::deterministic` (the global pool among them): read once per process; an
/// unusable value is reported on stderr once and ignored.
pub(crate) fn deterministic_from_env() -> bool {
    static FROM_ENV: OnceLock<bool> = OnceLock::new();
    *FROM_ENV.get_or_init(|| {
        let value = std::env::var("BLITZ_DETERMINISTIC").ok();
        match parse_switch(value.as_deref()) {
            Ok(on) => on,
            Err(value) => {
                eprintln!(
                    "blitz-par: ignoring BLITZ_DETERMINISTIC={value:?}: expected 1 or 0 \
                     (or true/false, on/off, yes/no); pools are not deterministic"
                );
                false
            }
        }
    })
}

/// The value of a switch variable: unset or empty is off; otherwise 1/0, true/false, on/off,
/// yes/no (any case, surrounding spaces ignored).
fn parse_switch(value: Option<&str>) -> Result<bool, &str> {
    let Some(value) = value else {
        return Ok(false);
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "off" | "no" => Ok(false),
        "1" | "true" | "on" | "yes" => Ok(true),
        _ => Err(value),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_switch;

    #[test]
    fn switch_values() {
        assert_eq!(parse_switch(None), Ok(false));
        for on in ["1", "true", " TRUE\n", "on", "Yes"] {
            assert_eq!(parse_switch(Some(on)), Ok(true), "{on:?}");
        }
        for off in ["", "0", "false", "Off", "no"] {
            assert_eq!(parse_switch(Some(off)), Ok(false), "{off:?}");
        }
        assert_eq!(parse_switch(Some("2")), Err("2"));
        assert_eq!(parse_switch(Some("deterministic")), Err("deterministic"));
    }
}
