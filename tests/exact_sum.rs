//! `exact_sum` and `ExactSum` against an exact reference written here: every finite double is
//! an integer number of units of 2^-1074, so their sum is a big integer; a result is right
//! when no neighbouring double lies nearer to that integer (ties to the even mantissa), and
//! infinite exactly when the sum reaches the overflow threshold. The reference shares no code
//! with the crate's accumulator and never rounds.

use blitz_par::iter::ExactSum;
use blitz_par::prelude::*;
use quickcheck::{quickcheck, TestResult};
use std::cmp::Ordering;

/// A signed big integer: sign and magnitude in base 2^32, least significant digit first.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big {
    negative: bool,
    digits: Vec<u32>,
}

impl Big {
    fn zero() -> Big {
        Big {
            negative: false,
            digits: Vec::new(),
        }
    }

    /// `m` times 2^`shift`.
    fn shifted(m: u64, shift: u32, negative: bool) -> Big {
        let mut digits = vec![0u32; (shift / 32) as usize];
        let wide = u128::from(m) << (shift % 32);
        let mut rest = wide;
        while rest != 0 {
            digits.push(rest as u32);
            rest >>= 32;
        }
        let mut big = Big { negative, digits };
        big.trim();
        big
    }

    /// A finite double as an integer number of units of 2^-1074.
    fn of(x: f64) -> Big {
        assert!(x.is_finite());
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        let (m, shift) = if exponent == 0 {
            (fraction, 0)
        } else {
            (fraction | 1 << 52, exponent - 1)
        };
        Big::shifted(m, shift, x.is_sign_negative())
    }

    fn trim(&mut self) {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.negative = false;
        }
    }

    fn cmp_magnitude(a: &[u32], b: &[u32]) -> Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn add_magnitudes(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u64;
        for i in 0..a.len().max(b.len()) {
            let s = u64::from(*a.get(i).unwrap_or(&0)) + u64::from(*b.get(i).unwrap_or(&0)) + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        out
    }

    /// `a - b` for `a >= b` in magnitude.
    fn sub_magnitudes(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i64;
        for (i, &digit) in a.iter().enumerate() {
            let mut d = i64::from(digit) - i64::from(*b.get(i).unwrap_or(&0)) - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            out.push(d as u32);
        }
        out
    }

    fn add(&self, other: &Big) -> Big {
        let mut out = if self.negative == other.negative {
            Big {
                negative: self.negative,
                digits: Big::add_magnitudes(&self.digits, &other.digits),
            }
        } else if Big::cmp_magnitude(&self.digits, &other.digits) != Ordering::Less {
            Big {
                negative: self.negative,
                digits: Big::sub_magnitudes(&self.digits, &other.digits),
            }
        } else {
            Big {
                negative: other.negative,
                digits: Big::sub_magnitudes(&other.digits, &self.digits),
            }
        };
        out.trim();
        out
    }

    fn neg(&self) -> Big {
        let mut out = self.clone();
        out.negative = !out.negative;
        out.trim();
        out
    }

    fn abs_cmp(&self, other: &Big) -> Ordering {
        Big::cmp_magnitude(&self.digits, &other.digits)
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }
}

/// The exact sum of finite terms.
fn exact(terms: &[f64]) -> Big {
    terms
        .iter()
        .fold(Big::zero(), |acc, &x| acc.add(&Big::of(x)))
}

/// What a correct `f64` result of summing `terms` must satisfy (finite terms only): the
/// nearest double, ties to even, infinite from the overflow threshold (2^1024 - 2^970) on,
/// and the sign of zero by IEEE's rules.
fn check_f64(terms: &[f64], got: f64) -> Result<(), String> {
    let e = exact(terms);
    let threshold = Big::shifted(1, 1024 + 1074, false).add(&Big::shifted(1, 970 + 1074, true));
    if e.abs_cmp(&threshold) != Ordering::Less {
        let want = if e.negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        return (got == want)
            .then_some(())
            .ok_or(format!("{got} for an overflow"));
    }
    if !got.is_finite() {
        return Err(format!("{got} for a finite sum"));
    }
    if e.is_zero() {
        let all_negative_zero = !terms.is_empty() && terms.iter().all(|x| x.to_bits() == 1 << 63);
        return (got == 0.0 && got.is_sign_negative() == all_negative_zero)
            .then_some(())
            .ok_or(format!("{got:e} for zero"));
    }
    if got != 0.0 && got.is_sign_negative() != e.negative {
        return Err(format!("{got} has the wrong sign"));
    }
    // The distance to `got`, and to each neighbour of `got` (towards and away from zero).
    let bits = got.to_bits();
    let mut neighbours = vec![f64::from_bits(bits.wrapping_add(1))];
    if bits & !(1 << 63) != 0 {
        neighbours.push(f64::from_bits(bits - 1));
    } else {
        neighbours.push(-got);
        neighbours.push(f64::from_bits(1));
        neighbours.push(-f64::from_bits(1));
    }
    nearest(
        &e,
        (got, bits & 1 == 1),
        neighbours.into_iter().map(|n| (n, n.to_bits() & 1 == 1)),
    )
}

/// As [`check_f64`], for an `f32` result of `f32` terms: one rounding of the exact sum.
fn check_f32(terms: &[f32], got: f32) -> Result<(), String> {
    let wide: Vec<f64> = terms.iter().map(|&x| f64::from(x)).collect();
    let e = exact(&wide);
    // f32::MAX is (2^24 - 1) 2^104; the threshold is 2^128 - 2^103.
    let threshold = Big::shifted(1, 128 + 1074, false).add(&Big::shifted(1, 103 + 1074, true));
    if e.abs_cmp(&threshold) != Ordering::Less {
        let want = if e.negative {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        return (got == want)
            .then_some(())
            .ok_or(format!("{got} for an overflow"));
    }
    if !got.is_finite() {
        return Err(format!("{got} for a finite sum"));
    }
    if e.is_zero() {
        let all_negative_zero = !terms.is_empty() && terms.iter().all(|x| x.to_bits() == 1 << 31);
        return (got == 0.0 && got.is_sign_negative() == all_negative_zero)
            .then_some(())
            .ok_or(format!("{got:e} for zero"));
    }
    let bits = got.to_bits();
    let mut neighbours = vec![f32::from_bits(bits.wrapping_add(1))];
    if bits & !(1 << 31) != 0 {
        neighbours.push(f32::from_bits(bits - 1));
    } else {
        neighbours.push(-got);
        neighbours.push(f32::from_bits(1));
        neighbours.push(-f32::from_bits(1));
    }
    let widen = |n: f32| (f64::from(n), n.to_bits() & 1 == 1);
    nearest(&e, widen(got), neighbours.into_iter().map(widen))
}

/// Checks that `got` is nearest to `e` of itself and its `neighbours`, a tie going to the even
/// one; each float comes with whether its last significand bit is odd (in its own format).
fn nearest(
    e: &Big,
    (got, got_odd): (f64, bool),
    neighbours: impl Iterator<Item = (f64, bool)>,
) -> Result<(), String> {
    let distance = |x: f64| e.add(&Big::of(x).neg());
    let here = distance(got);
    for (n, odd) in neighbours.filter(|(n, _)| n.is_finite()) {
        match distance(n).abs_cmp(&here) {
            Ordering::Less => return Err(format!("{n:e} is nearer than {got:e}")),
            Ordering::Equal if !odd && got_odd => {
                return Err(format!("a tie went to odd {got:e}, not {n:e}"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Pools of every size the issue names.
fn pools() -> Vec<blitz_par::ThreadPool> {
    [1, 2, 3, 8, 64]
        .into_iter()
        .map(|n| {
            blitz_par::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect()
}

/// The sum of `terms` by every route: sequential `ExactSum`, `exact_sum` on each pool, on
/// references and values, reversed; all must agree bit for bit; returns it.
fn all_routes(terms: &[f64], pools: &[blitz_par::ThreadPool]) -> f64 {
    let sequential: ExactSum = terms.iter().copied().collect();
    let want = sequential.to_f64();
    for pool in pools {
        pool.install(|| {
            let by_ref = terms.par_iter().exact_sum();
            let by_value = terms.par_iter().copied().rev().exact_sum();
            let unindexed = terms.par_iter().filter(|_| true).exact_sum();
            for got in [by_ref, by_value, unindexed] {
                assert_eq!(got.to_bits(), want.to_bits(), "{terms:?}");
            }
        });
    }
    want
}

/// A deterministic pseudo-random sequence (xorshift), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A finite double with a random exponent and sign.
    fn any_finite(&mut self) -> f64 {
        loop {
            let x = f64::from_bits(self.next());
            if x.is_finite() {
                return x;
            }
        }
    }
}

#[test]
fn the_reference_rejects_wrong_answers() {
    let tenths = [0.1; 10];
    assert!(check_f64(&tenths, tenths.iter().sum()).is_err());
    assert!(check_f64(&tenths, f64::from_bits(1.0f64.to_bits() + 1)).is_err());
    assert!(check_f64(&tenths, 1.0).is_ok());
    // A tie given to the odd neighbour, a wrong zero sign, a premature overflow.
    assert!(check_f64(&[1.0, 2f64.powi(-53)], 1.0 + 2f64.powi(-52)).is_err());
    assert!(check_f64(&[1.0, -1.0], -0.0).is_err());
    assert!(check_f64(&[f64::MAX, 2f64.powi(969)], f64::INFINITY).is_err());
    assert!(check_f32(&[1.0, 2f32.powi(-24), 2f32.powi(-60)], 1.0).is_err());
}

#[test]
fn the_issues_examples() {
    let pools = pools();
    let cases: Vec<Vec<f64>> = vec![
        vec![1e308, 1.0, -1e308],
        vec![0.1; 10],
        vec![1.0, 1e100, 1.0, -1e100],
        vec![f64::MAX, f64::MAX, -f64::MAX],
        vec![
            5e-324,
            5e-324,
            -1e-320,
            2.2250738585072014e-308,
            -2.225073858507201e-308,
        ],
    ];
    let wants = [Some(1.0), Some(1.0), Some(2.0), Some(f64::MAX), None];
    for (terms, want) in cases.iter().zip(wants) {
        let got = all_routes(terms, &pools);
        check_f64(terms, got).unwrap();
        if let Some(want) = want {
            assert_eq!(got, want, "{terms:?}");
        }
    }
}

#[test]
fn ties_round_to_even_and_a_tiny_term_breaks_them() {
    let half_ulp = 2f64.powi(-53);
    let tie = [1.0, half_ulp];
    assert_eq!(all_routes(&tie, &[]), 1.0);
    let above = [1.0, half_ulp, 5e-324];
    assert_eq!(all_routes(&above, &[]), 1.0 + 2f64.powi(-52));
    let odd_tie = [1.0 + 2f64.powi(-52), half_ulp];
    assert_eq!(all_routes(&odd_tie, &[]), 1.0 + 2f64.powi(-51));
    for terms in [&tie[..], &above, &odd_tie] {
        check_f64(terms, all_routes(terms, &[])).unwrap();
    }
}

#[test]
fn overflow_goes_to_the_infinity_of_the_sign_and_not_before() {
    let max = f64::MAX;
    let half_ulp_of_max = 2f64.powi(970);
    assert_eq!(all_routes(&[max, max], &[]), f64::INFINITY);
    assert_eq!(all_routes(&[-max, -max, 1.0], &[]), f64::NEG_INFINITY);
    // Exactly half an ulp above MAX is a tie, and MAX's mantissa is odd: infinity.
    assert_eq!(all_routes(&[max, half_ulp_of_max], &[]), f64::INFINITY);
    // A hair less stays finite.
    assert_eq!(all_routes(&[max, half_ulp_of_max, -5e-324], &[]), max);
    for terms in [
        vec![max, max],
        vec![max, half_ulp_of_max],
        vec![max, half_ulp_of_max, -5e-324],
    ] {
        check_f64(&terms, all_routes(&terms, &[])).unwrap();
    }
}

#[test]
fn nan_and_infinities_follow_ieee() {
    let pools = pools();
    let nan = all_routes(&[1.0, f64::NAN, 2.0], &pools);
    assert!(nan.is_nan());
    assert!(all_routes(&[f64::INFINITY, 1.0, f64::NEG_INFINITY], &pools).is_nan());
    assert_eq!(
        all_routes(&[f64::INFINITY, -1e308, -1e308], &pools),
        f64::INFINITY
    );
    assert_eq!(
        all_routes(&[f64::NEG_INFINITY, f64::MAX, f64::MAX], &pools),
        f64::NEG_INFINITY
    );
    // A NaN among many items, wherever it falls in the split tree.
    let mut many = vec![1.0; 100_000];
    many[77_777] = f64::NAN;
    assert!(all_routes(&many, &pools).is_nan());
    // f32 items: an f32 NaN and infinities.
    let v = [1.0f32, f32::INFINITY];
    assert_eq!(v.par_iter().exact_sum(), f32::INFINITY);
    let v = [f32::NEG_INFINITY, f32::INFINITY];
    assert!(v.par_iter().exact_sum().is_nan());
}

#[test]
fn zeros_have_the_sign_ieee_addition_gives() {
    let neg = all_routes(&[-0.0, -0.0, -0.0], &[]);
    assert!(neg == 0.0 && neg.is_sign_negative());
    for terms in [
        vec![-0.0, 0.0],
        vec![1.0, -1.0],
        vec![-1.0, 1.0, -0.0],
        vec![],
    ] {
        let got = all_routes(&terms, &[]);
        assert!(got == 0.0 && got.is_sign_positive(), "{terms:?}");
        check_f64(&terms, got).unwrap();
    }
    // A tiny negative sum stays negative, however small.
    assert_eq!(
        all_routes(&[-5e-324, 0.0], &[]).to_bits(),
        (-5e-324f64).to_bits()
    );
    let v = [-0.0f32; 5];
    assert!(v.par_iter().exact_sum().is_sign_negative());
}

#[test]
fn subnormals_and_massive_cancellation() {
    let pools = pools();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Pairs that cancel exactly, of every magnitude, around a few small residues, shuffled.
    let mut terms = Vec::new();
    for _ in 0..20_000 {
        let x = rng.any_finite();
        terms.push(x);
        terms.push(-x);
    }
    terms.extend([3.0e-320, -1.5e-323, 7.0, 2f64.powi(-1060)]);
    for i in (1..terms.len()).rev() {
        terms.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    let got = all_routes(&terms, &pools);
    check_f64(&terms, got).unwrap();
    // Only subnormals: exact in f64 whatever their number.
    let subnormals: Vec<f64> = (0..50_000)
        .map(|i| f64::from_bits(rng.next() % (1 << 52)) * if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let got = all_routes(&subnormals, &pools);
    check_f64(&subnormals, got).unwrap();
}

#[test]
fn random_data_of_every_scale() {
    let pools = pools();
    let mut rng = Rng(12345);
    for len in [0usize, 1, 2, 7, 255, 256, 1000, 4099, 65_536, 200_003] {
        let terms: Vec<f64> = (0..len)
            .map(|i| match i % 3 {
                0 => rng.any_finite(),
                1 => (rng.next() >> 11) as f64 * 2f64.powi(-53),
                _ => -((rng.next() >> 40) as f64),
            })
            .collect();
        let got = all_routes(&terms, if len <= 65_536 { &pools } else { &pools[..2] });
        check_f64(&terms, got).unwrap();
    }
}

#[test]
fn f32_sums_round_once() {
    // 1 + 2^-24 is a tie in f32; a tiny third term breaks it upwards. Rounded to f64 first,
    // the third term would vanish and the tie would go to even, 1.0.
    let terms = [1.0f32, 2f32.powi(-24), 2f32.powi(-60)];
    let got = terms.par_iter().exact_sum();
    assert_eq!(got, 1.0 + 2f32.powi(-23));
    check_f32(&terms, got).unwrap();
    let terms = [f32::MAX, f32::MAX, -f32::MAX];
    assert_eq!(terms.par_iter().exact_sum(), f32::MAX);
    let terms = [f32::MAX, 2f32.powi(103)];
    assert_eq!(terms.par_iter().exact_sum(), f32::INFINITY);
    check_f32(&terms, f32::INFINITY).unwrap();
    // Subnormal f32 results.
    let tiny = f32::from_bits(1);
    let terms = [tiny, tiny, tiny, -2.0 * tiny];
    assert_eq!(terms.par_iter().exact_sum(), tiny);
    let terms = [tiny, 2f32.powi(-151)];
    assert_eq!(terms.par_iter().exact_sum(), tiny);
}

#[test]
fn merged_and_shipped_accumulators_agree() {
    let mut rng = Rng(777);
    let terms: Vec<f64> = (0..10_000).map(|_| rng.any_finite() * 1e-200).collect();
    let whole: ExactSum = terms.iter().copied().collect();
    // Any split into parts, merged in any order, and through words.
    for cut in [0, 1, 3_333, 9_999, 10_000] {
        let left: ExactSum = terms[..cut].iter().copied().collect();
        let right: ExactSum = terms[cut..].iter().copied().collect();
        let mut a = ExactSum::from_words(&right.to_words()).unwrap();
        a.merge(&left);
        assert_eq!(a, whole);
        assert_eq!(a.to_words(), whole.to_words());
        assert_eq!(a.to_f64().to_bits(), whole.to_f64().to_bits());
    }
    check_f64(&terms, whole.to_f64()).unwrap();
}

quickcheck! {
    fn matches_the_reference(terms: Vec<f64>) -> TestResult {
        if terms.iter().any(|x| !x.is_finite()) {
            return TestResult::discard();
        }
        let got = terms.par_iter().exact_sum();
        let sequential: ExactSum = terms.iter().copied().collect();
        TestResult::from_bool(
            check_f64(&terms, got).is_ok() && got.to_bits() == sequential.to_f64().to_bits(),
        )
    }

    fn f32_matches_the_reference(terms: Vec<f32>) -> TestResult {
        if terms.iter().any(|x| !x.is_finite()) {
            return TestResult::discard();
        }
        TestResult::from_bool(check_f32(&terms, terms.par_iter().exact_sum()).is_ok())
    }

    fn order_does_not_matter(terms: Vec<f64>, seed: u64) -> bool {
        let mut shuffled = terms.clone();
        let mut rng = Rng(seed | 1);
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        terms.par_iter().exact_sum().to_bits() == shuffled.par_iter().exact_sum().to_bits()
            || terms.par_iter().exact_sum().is_nan() && shuffled.par_iter().exact_sum().is_nan()
    }
}
