//! The cheap clock: [`ticks`] for readings, [`ns_in`] and [`ticks_in`] to turn a span of
//! ticks into nanoseconds and back, at a rate measured once per process ([`Rate`]).
//!
//! Readings are ticks of a counter that costs a few nanoseconds to read: the time-stamp
//! counter on x86-64 (`rdtsc`), the virtual counter on aarch64 (`cntvct_el0`), and
//! nanoseconds from `Instant` elsewhere (and under Miri and loom). A reading is only ever
//! compared with another reading of the same clock; durations and thresholds are nanoseconds
//! (`crate::tuning`), converted at the rate.
//!
//! The rate:
//! - aarch64 states it (`cntfrq_el0`): read at the first conversion.
//! - x86-64 does not (the TSC ticks at a fixed rate of 1 to 4 GHz, the part's base clock, and
//!   no portable interface says which), so it is measured: against `Instant` across one
//!   millisecond or more of the process's life. The two readings are taken by pool workers
//!   on their way to sleep ([`calibrate`]), never on the path of a parallel call, so that
//!   calibrating adds nothing to the first call's latency. Until then (a process whose
//!   workers have not gone to sleep twice a millisecond apart), the rate is assumed to be
//!   2.5 GHz: within a factor 2.5 of every current part, and what the thresholds were first
//!   tuned with.
//! - elsewhere a tick is a nanosecond.
//!
//! The rate is kept as two 32.32 fixed-point factors, one for each direction, so that a
//! conversion is a load, a multiplication and a shift. It changes at most once, from the
//! assumed rate to the measured one ([`measured`] says which); a span converted across that
//! change is off by their ratio, once.

#[cfg(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri),
    not(loom)
))]
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads the clock, in ticks: compare it only with other readings (see the module docs).
/// About 7 to 15 ns with `rdtsc` on the machines measured, 20 to 40 ns with `Instant`.
#[inline]
pub(crate) fn ticks() -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        // SAFETY: RDTSC has no preconditions; it is available on every x86_64 CPU.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(all(target_arch = "aarch64", not(miri), not(loom)))]
    {
        let count: u64;
        // SAFETY: reading CNTVCT_EL0 has no preconditions at EL0 on the operating systems
        // Rust targets on aarch64 (Linux, macOS, Windows and the BSDs allow it; their own
        // clocks read it); it touches no memory and no flags.
        unsafe {
            core::arch::asm!(
                "mrs {}, cntvct_el0",
                out(reg) count,
                options(nomem, nostack, preserves_flags)
            );
        }
        count
    }
    #[cfg(not(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    )))]
    {
        nanos_since_start()
    }
}

/// Nanoseconds since the first call: the clock of platforms without a cheap counter, and what
/// the TSC is calibrated against.
#[cfg(not(all(target_arch = "aarch64", not(miri), not(loom))))]
fn nanos_since_start() -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    u64::try_from(START.get_or_init(Instant::now).elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// One in 32.32 fixed point.
#[cfg(any(test, not(all(target_arch = "x86_64", not(miri), not(loom)))))]
const ONE: u64 = 1 << 32;

/// `value` times a 32.32 factor, saturating.
#[inline]
const fn scale(value: u64, factor: u64) -> u64 {
    let product = (value as u128 * factor as u128) >> 32;
    if product > u64::MAX as u128 {
        u64::MAX
    } else {
        product as u64
    }
}

/// The rate of a counter of `hz` ticks a second, as the factors of [`ns_in`] and
/// [`ticks_in`] (nanoseconds per tick, ticks per nanosecond) in 32.32 fixed point.
#[cfg(any(
    test,
    all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    )
))]
const fn factors(hz: u64) -> (u64, u64) {
    let ns_per_tick = ((1_000_000_000u128 << 32) / hz as u128) as u64;
    let ticks_per_ns = ((hz as u128) << 32) / 1_000_000_000;
    (ns_per_tick, ticks_per_ns as u64)
}

/// The TSC rate assumed until one is measured (see the module docs).
#[cfg(any(test, all(target_arch = "x86_64", not(miri), not(loom))))]
const ASSUMED_TSC_HZ: u64 = 2_500_000_000;

/// Nanoseconds per tick and ticks per nanosecond, 32.32 fixed point: on x86-64 the assumed
/// rate until [`calibrate`] measures it; on aarch64 0 until the first conversion reads the
/// counter's frequency.
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
static NS_PER_TICK: AtomicU64 = AtomicU64::new(factors(ASSUMED_TSC_HZ).0);
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
static TICKS_PER_NS: AtomicU64 = AtomicU64::new(factors(ASSUMED_TSC_HZ).1);
#[cfg(all(target_arch = "aarch64", not(miri), not(loom)))]
static NS_PER_TICK: AtomicU64 = AtomicU64::new(0);
#[cfg(all(target_arch = "aarch64", not(miri), not(loom)))]
static TICKS_PER_NS: AtomicU64 = AtomicU64::new(0);

/// The 32.32 factor in `slot` (one of the two above); on aarch64 set from the counter's
/// frequency on first use.
#[cfg(all(
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri),
    not(loom)
))]
#[inline]
fn factor(slot: &AtomicU64) -> u64 {
    let factor = slot.load(Ordering::Relaxed);
    #[cfg(target_arch = "aarch64")]
    if factor == 0 {
        return read_counter_frequency(slot);
    }
    factor
}

/// Sets both factors from `cntfrq_el0` and returns the one in `slot`.
#[cfg(all(target_arch = "aarch64", not(miri), not(loom)))]
#[cold]
fn read_counter_frequency(slot: &AtomicU64) -> u64 {
    let hz: u64;
    // SAFETY: as for CNTVCT_EL0 in `ticks`: readable at EL0, touches no memory and no flags.
    unsafe {
        core::arch::asm!(
            "mrs {}, cntfrq_el0",
            out(reg) hz,
            options(nomem, nostack, preserves_flags)
        );
    }
    // A counter that states no frequency is taken to count nanoseconds (then it is at least
    // not off by the factor of 40 between the common 24 MHz and 1 GHz counters).
    let (ns_per_tick, ticks_per_ns) = if hz == 0 { (ONE, ONE) } else { factors(hz) };
    NS_PER_TICK.store(ns_per_tick, Ordering::Relaxed);
    TICKS_PER_NS.store(ticks_per_ns, Ordering::Relaxed);
    if std::ptr::eq(slot, &NS_PER_TICK) {
        ns_per_tick
    } else {
        ticks_per_ns
    }
}

/// The clock's rate at one moment, to convert thresholds with: [`Rate::ticks`] is a
/// multiplication, without the load that [`ticks_in`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rate {
    /// Ticks per nanosecond, 32.32 fixed point.
    ticks_per_ns: u64,
}

impl Rate {
    /// The rate of a clock that counts nanoseconds.
    #[cfg(test)]
    pub(crate) const NANOS: Rate = Rate { ticks_per_ns: ONE };

    /// Ticks in a span of `ns` nanoseconds.
    #[inline]
    pub(crate) const fn ticks(self, ns: u64) -> u64 {
        scale(ns, self.ticks_per_ns)
    }
}

/// The clock's rate now (see the module docs).
#[inline]
pub(crate) fn rate() -> Rate {
    #[cfg(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    ))]
    {
        Rate {
            ticks_per_ns: factor(&TICKS_PER_NS),
        }
    }
    #[cfg(not(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    )))]
    {
        Rate { ticks_per_ns: ONE }
    }
}

/// Nanoseconds in a span of `ticks` ticks (the difference of two [`ticks`] readings).
#[inline]
pub(crate) fn ns_in(ticks: u64) -> u64 {
    #[cfg(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    ))]
    {
        scale(ticks, factor(&NS_PER_TICK))
    }
    #[cfg(not(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        not(miri),
        not(loom)
    )))]
    {
        ticks
    }
}

/// Ticks in a span of `ns` nanoseconds: to add to a reading for a deadline, or to compare a
/// span of ticks with a threshold.
#[inline]
pub(crate) fn ticks_in(ns: u64) -> u64 {
    rate().ticks(ns)
}

/// A reading of the counter and of `Instant` (as nanoseconds since the clock's start), taken
/// together.
#[cfg(any(test, all(target_arch = "x86_64", not(miri), not(loom))))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pair {
    ticks: u64,
    ns: u64,
}

/// The counter's rate between two [`Pair`]s, as the factors of [`ns_in`] and [`ticks_in`]:
/// `None` when the span is too short to measure it to about 1% (under a millisecond, or
/// under a million ticks), or the readings go backwards.
#[cfg(any(test, all(target_arch = "x86_64", not(miri), not(loom))))]
fn rate_between(first: Pair, second: Pair) -> Option<(u64, u64)> {
    let ticks = second.ticks.checked_sub(first.ticks)?;
    let ns = second.ns.checked_sub(first.ns)?;
    if ns < 1_000_000 || ticks < 1_000_000 {
        return None;
    }
    let ns_per_tick = ((u128::from(ns) << 32) / u128::from(ticks)) as u64;
    let ticks_per_ns = ((u128::from(ticks) << 32) / u128::from(ns)) as u64;
    Some((ns_per_tick, ticks_per_ns))
}

/// Takes a [`Pair`] (the counter's reading is the middle of two around `Instant`'s), or
/// `None` if the thread was held up while it read: the two lie more than `bracket` ticks
/// apart.
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
fn pair(bracket: u64) -> Option<Pair> {
    let before = ticks();
    let ns = nanos_since_start();
    let after = ticks();
    let spread = after.wrapping_sub(before);
    (spread <= bracket).then(|| Pair {
        ticks: before.wrapping_add(spread / 2),
        ns,
    })
}

/// The first [`Pair`] of the calibration (`ticks` 0: none yet).
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
static FIRST: std::sync::Mutex<Pair> = std::sync::Mutex::new(Pair { ticks: 0, ns: 0 });

/// Whether the rate has been measured (see [`measured`]).
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
static MEASURED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Measures the counter's rate, in steps, for a caller about to wait anyway (a pool worker
/// about to sleep): the first call takes a reading of the counter and of `Instant`, a call a
/// millisecond or more later another, and sets the rate from the two. Afterwards one
/// relaxed load. Does nothing where the rate is known.
#[inline]
pub(crate) fn calibrate() {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    if !MEASURED.load(Ordering::Relaxed) {
        calibrate_step();
    }
}

#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
#[cold]
fn calibrate_step() {
    // Another thread calibrating: leave it to that one.
    let Ok(mut first) = FIRST.try_lock() else {
        return;
    };
    // A reading held up by more than ~2 us (at 2.5 GHz; 1 to 5 us on real parts) would add
    // that to a span of a millisecond or more: 0.2% or less.
    let Some(now) = pair(5_000) else {
        return;
    };
    if first.ticks == 0 {
        *first = now;
        return;
    }
    if let Some((ns_per_tick, ticks_per_ns)) = rate_between(*first, now) {
        NS_PER_TICK.store(ns_per_tick, Ordering::Relaxed);
        TICKS_PER_NS.store(ticks_per_ns, Ordering::Relaxed);
        // Release: whoever sees the flag sees the rate (`measured`).
        MEASURED.store(true, Ordering::Release);
    }
}

/// Whether the rate has been measured: false until then where it is measured (x86-64), and
/// false where it needs no measuring. Once true, [`rate`] returns the measured rate.
#[inline]
pub(crate) fn measured() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        MEASURED.load(Ordering::Acquire)
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(loom))))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_at_the_assumed_rate() {
        let (ns_per_tick, ticks_per_ns) = factors(ASSUMED_TSC_HZ);
        // 2.5 GHz: 0.4 ns a tick, 2.5 ticks a nanosecond.
        assert_eq!(scale(2_500, ns_per_tick), 999);
        assert_eq!(scale(1_000, ticks_per_ns), 2_500);
        assert_eq!(scale(u64::MAX, ticks_per_ns), u64::MAX, "saturates");
        assert_eq!(scale(0, ns_per_tick), 0);
        assert_eq!(Rate::NANOS.ticks(12_345), 12_345);
    }

    #[test]
    fn the_rate_is_measured_over_a_millisecond_or_more() {
        let at = |ticks, ns| Pair { ticks, ns };
        // 3 GHz over 2 ms.
        let (ns_per_tick, ticks_per_ns) =
            rate_between(at(1_000, 5_000), at(6_001_000, 2_005_000)).unwrap();
        assert_eq!(scale(3_000_000, ns_per_tick), 999_999);
        assert_eq!(scale(1_000_000, ticks_per_ns), 3_000_000);
        // Too short a span, or readings that go backwards: nothing.
        assert_eq!(rate_between(at(0, 0), at(2_000_000, 999_999)), None);
        assert_eq!(rate_between(at(0, 0), at(999_999, 2_000_000)), None);
        assert_eq!(rate_between(at(5, 5), at(4, 2_000_000)), None);
        assert_eq!(rate_between(at(5, 2_000_000), at(4_000_000, 5)), None);
    }

    #[test]
    fn a_span_reads_the_same_in_both_units() {
        // Whatever the rate (assumed, measured or stated), converting there and back loses
        // at most the rounding of a tick.
        let span = ticks_in(1_000_000);
        let back = ns_in(span);
        assert!(
            (999_000..=1_001_000).contains(&back),
            "{span} ticks, {back} ns"
        );
    }

    #[test]
    fn workers_on_their_way_to_sleep_measure_the_rate() {
        // Workers calibrate as they go to sleep: rounds of work a few milliseconds apart give
        // them the chances. A test never asserts a time: this checks that the measurement
        // happens within a bounded number of rounds, and that the rate it finds makes 10 ms
        // of `Instant` read as 10 ms give or take a quarter (the thread may be preempted
        // between its readings; the calibration itself is good to ~1%).
        if cfg!(not(all(target_arch = "x86_64", not(miri), not(loom)))) {
            return;
        }
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for _ in 0..200 {
            if measured() {
                break;
            }
            pool.install(|| crate::join(|| (), || ()));
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert!(
            measured(),
            "no worker measured the clock's rate in 200 rounds"
        );
        let best = (0..5)
            .map(|_| {
                let (start, since) = (ticks(), std::time::Instant::now());
                std::thread::sleep(std::time::Duration::from_millis(10));
                let (end, real) = (ticks(), since.elapsed().as_nanos() as u64);
                ns_in(end - start) as f64 / real as f64
            })
            .min_by(|a, b| (a - 1.0).abs().total_cmp(&(b - 1.0).abs()))
            .unwrap();
        assert!(
            (0.75..1.25).contains(&best),
            "ticks read {best} times `Instant`"
        );
    }
}
