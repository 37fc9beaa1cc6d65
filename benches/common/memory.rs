//! Helpers of the sort benches that read `/proc` (Linux only): resident size and fault counts.
//! Shared through `#[path]`; not a bench of its own.

// Each user takes the helpers it needs.
#![allow(dead_code)]

/// The process's resident size in bytes: `Rss` of `/proc/self/smaps_rollup`.
pub fn resident_bytes() -> u64 {
    let rollup =
        std::fs::read_to_string("/proc/self/smaps_rollup").expect("read /proc/self/smaps_rollup");
    let kb: u64 = rollup
        .lines()
        .find_map(|line| line.strip_prefix("Rss:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("an Rss line in smaps_rollup");
    kb << 10
}

/// Minor and major faults, user and system CPU (in clock ticks, usually 10 ms), from
/// `/proc/self/stat`.
pub fn faults_and_cpu() -> [u64; 4] {
    let text = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    // The command name (field 2) may hold spaces; the rest follows its closing parenthesis.
    let rest = &text[text.rfind(')').expect("stat format") + 2..];
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // Fields 10, 12, 14, 15 of proc(5), counted from 1 with the state (field 3) at index 0.
    [fields[7], fields[9], fields[11], fields[12]]
}

/// Milliseconds per clock tick of `faults_and_cpu` (`USER_HZ`, 100 on Linux).
pub const TICK_MS: f64 = 10.0;

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// xorshift64*, as in `benches/sort.rs`: the same data for every run and library.
pub fn random_u64(len: usize) -> Vec<u64> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}
