//! Property tests of the public sorts against std's, through `ParallelSliceMut`, at sizes
//! large enough to take the parallel paths with production thresholds.

use blitz_par::prelude::*;
use quickcheck::{quickcheck, TestResult};

/// Repeats `v` (up to `len` elements) so that quickcheck's small vectors become large inputs
/// with many duplicates.
fn grow<T: Clone>(v: &[T], len: usize) -> Vec<T> {
    v.iter()
        .cloned()
        .cycle()
        .take(if v.is_empty() { 0 } else { len })
        .collect()
}

quickcheck! {
    fn stable_by_key_is_stable(keys: Vec<u8>, len: u16) -> TestResult {
        let keys = grow(&keys, len as usize * 8);
        let input: Vec<(u8, usize)> = keys.iter().enumerate().map(|(i, &k)| (k % 16, i)).collect();
        let mut expected = input.clone();
        expected.sort_by_key(|p| p.0);
        let mut got = input.clone();
        got.par_sort_by_key(|p| p.0);
        let mut got_by = input.clone();
        got_by.par_sort_by(|a, b| a.0.cmp(&b.0));
        let mut got_cached = input;
        got_cached.par_sort_by_cached_key(|p| format!("{:03}", p.0));
        TestResult::from_bool(got == expected && got_by == expected && got_cached == expected)
    }

    fn unstable_matches_std(values: Vec<i64>, len: u16) -> bool {
        let input = grow(&values, len as usize * 8);
        let mut expected = input.clone();
        expected.sort_unstable();
        let mut radix = input.clone();
        radix.par_sort_unstable();
        let mut radix_stable = input.clone();
        radix_stable.par_sort();
        let mut by = input.clone();
        by.par_sort_unstable_by(|a, b| a.cmp(b));
        let mut by_key = input.clone();
        by_key.par_sort_unstable_by_key(|&a| a);
        radix == expected && radix_stable == expected && by == expected && by_key == expected
    }

    fn total_cmp_matches_std(values: Vec<f64>, len: u16) -> bool {
        let input = grow(&values, len as usize * 8);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut expected = input.clone();
        expected.sort_by(f64::total_cmp);
        let mut unstable = input.clone();
        unstable.par_sort_unstable_by(f64::total_cmp);
        let mut stable = input.clone();
        stable.par_sort_by(f64::total_cmp);
        let input32: Vec<f32> = input.iter().map(|&x| x as f32).collect();
        let mut expected32 = input32.clone();
        expected32.sort_by(f32::total_cmp);
        let mut got32 = input32;
        got32.par_sort_unstable_by(f32::total_cmp);
        bits(&unstable) == bits(&expected)
            && bits(&stable) == bits(&expected)
            && got32.iter().map(|x| x.to_bits()).eq(expected32.iter().map(|x| x.to_bits()))
    }

    fn strings_match_std(values: Vec<String>, len: u16) -> bool {
        let input = grow(&values, len as usize);
        let mut expected = input.clone();
        expected.sort();
        let mut got = input.clone();
        got.par_sort_unstable();
        let mut got_stable = input.clone();
        got_stable.par_sort();
        let mut strs: Vec<&str> = input.iter().map(String::as_str).collect();
        strs.par_sort_unstable();
        let mut bytes: Vec<Vec<u8>> = input.iter().map(|s| s.clone().into_bytes()).collect();
        bytes.par_sort();
        // Records by a cloned `String` key: equal keys keep their input order.
        let records: Vec<(String, usize)> = input.iter().cloned().enumerate().map(|(i, s)| (s, i)).collect();
        let mut expected_records = records.clone();
        expected_records.sort_by_key(|r| r.0.clone());
        let mut by_key = records.clone();
        by_key.par_sort_by_key(|r| r.0.clone());
        let mut by_cached_key = records;
        by_cached_key.par_sort_by_cached_key(|r| r.0.clone().into_boxed_str());
        got == expected
            && got_stable == expected
            && strs.iter().eq(expected.iter())
            && bytes.iter().map(|b| b.as_slice()).eq(expected.iter().map(|s| s.as_bytes()))
            && by_key == expected_records
            && by_cached_key == expected_records
    }

    fn distinct_strings_match_std(values: Vec<(String, u32)>) -> bool {
        // Distinct strings with common prefixes, past the sequential threshold.
        let input: Vec<String> = values
            .iter()
            .cycle()
            .take(if values.is_empty() { 0 } else { 20_000 })
            .enumerate()
            .map(|(i, (s, n))| format!("{s}{}", (*n as usize).wrapping_mul(i) % 1000))
            .collect();
        let mut expected = input.clone();
        expected.sort();
        let mut got = input;
        got.par_sort_unstable();
        got == expected
    }
}

fn patterns(len: usize) -> Vec<(&'static str, Vec<u32>)> {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let n = len as u32;
    vec![
        ("random", (0..len).map(|_| next() as u32).collect()),
        ("sorted", (0..n).collect()),
        ("reversed", (0..n).rev().collect()),
        (
            "few_distinct",
            (0..len)
                .map(|_| (next() % (len as u64 / 1000 + 1)) as u32 * 7919)
                .collect(),
        ),
        ("sawtooth", (0..n).map(|i| i % (n / 20 + 1)).collect()),
        (
            "organ_pipe",
            (0..n).map(|i| if i < n / 2 { i } else { n - i }).collect(),
        ),
        ("equal", vec![5; len]),
    ]
}

#[test]
fn all_patterns_all_sorts() {
    for len in [0, 1, 2, 3, 10, 1000, 8191, 8192, 100_000, 300_001] {
        for (name, input) in patterns(len) {
            let mut expected = input.clone();
            expected.sort();
            let check = |got: Vec<u32>, what: &str| assert!(got == expected, "{what} {name} {len}");
            let mut v = input.clone();
            v.par_sort();
            check(v, "par_sort");
            let mut v = input.clone();
            v.par_sort_unstable();
            check(v, "par_sort_unstable");
            let mut v = input.clone();
            v.par_sort_by(|a, b| a.cmp(b));
            check(v, "par_sort_by");
            let mut v = input.clone();
            v.par_sort_unstable_by(|a, b| a.cmp(b));
            check(v, "par_sort_unstable_by");
            let mut v = input.clone();
            v.par_sort_by_cached_key(|&a| a);
            check(v, "par_sort_by_cached_key");
            let mut v: Vec<f64> = input.iter().map(|&x| x as f64 - 1e5).collect();
            v.par_sort_unstable_by(f64::total_cmp);
            check(
                v.iter().map(|&x| (x + 1e5) as u32).collect(),
                "f64 total_cmp",
            );
        }
    }
}
