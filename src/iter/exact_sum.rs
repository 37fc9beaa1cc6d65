//! `exact_sum`: the correctly rounded sum of floating-point items, whatever their order, the
//! thread count or the grouping of the additions, and [`ExactSum`], the accumulator behind it.
//!
//! Every finite `f64` is an integer multiple of 2^-1074 (the least subnormal), below 2^1024:
//! an integer of at most 2,098 bits in those units. [`ExactSum`] keeps the sum of such
//! integers exactly, as 68 signed 128-bit *bins* where bin `g` counts units of 2^(32 g)
//! (R. M. Neal's "small superaccumulator", arXiv:1505.05571, with wider bins, so that a term
//! lands in one bin and carries are taken only every 2^40 terms). The sum is rounded once,
//! at the end, to the nearest `f64` (or `f32`), ties to even, as Python's `math.fsum` does.
//!
//! Long runs of terms go through a variant of Neal's "large superaccumulator" first
//! ([`Batch`]): a term adds its raw bits to a 64-bit chunk named by its sign and exponent and
//! counts itself there, with no shift, no mask and no branch on the data, and the chunks are
//! drained into the bins every few thousand terms.

use super::plumbing::*;
use super::ParallelIterator;
use std::fmt;

/// Bins of the accumulator: bin `g` weighs 2^(32 g) units of 2^-1074. A term's mantissa
/// shifted by up to 31 bits lands in one of bins 0..=63 (exponents up to 2046); the others
/// take carries: 68 x 32 = 2,176 bits hold the sum of 2^64 of the largest doubles.
const BINS: usize = 68;

/// Terms (or their equivalent, after merges) the bins can take between two carry passes:
/// one term adds less than 2^85 to a bin (a 53-bit mantissa shifted by up to 31 bits, or a
/// normalised bin), and an `i128` holds 2^127.
const CARRY_EVERY: u64 = 1 << 40;

/// The least number of items for which [`ExactSum::add_all`] takes the faster [`Batch`]
/// path: below it, the drain costs more than the per-term savings.
const BATCH_MIN: usize = 64;

const FRACTION: u64 = (1 << 52) - 1;
const IMPLICIT: u64 = 1 << 52;
const NEGATIVE_ZERO: u64 = 1 << 63;

/// Flag bits of [`ExactSum::to_words`]'s word 0.
const FLAG_NAN: u64 = 1;
const FLAG_POS_INF: u64 = 1 << 1;
const FLAG_NEG_INF: u64 = 1 << 2;
/// At least one term was added.
const FLAG_ANY: u64 = 1 << 3;
/// At least one term other than `-0.0` was added (an exact zero sum is `-0.0` only without
/// such a term, as IEEE addition gives).
const FLAG_NOT_NEG_ZERO: u64 = 1 << 4;
const FLAGS: u64 = FLAG_NAN | FLAG_POS_INF | FLAG_NEG_INF | FLAG_ANY | FLAG_NOT_NEG_ZERO;

/// An exact sum of floating-point numbers, rounded only when read: the accumulator behind
/// [`ParallelIterator::exact_sum`], public so that sums can be kept, merged and shipped
/// (between MPI ranks, say) without losing a bit.
///
/// Adding (`add`, `+=`, `extend`) and merging are exact and commutative, so any order and
/// any grouping of the same terms gives the same accumulator, and [`to_f64`](Self::to_f64)
/// the correctly rounded value of their real sum (ties to even), as Python's `math.fsum`:
///
/// - a NaN term gives NaN, and so do `+inf` and `-inf` together; otherwise an infinite term
///   gives that infinity;
/// - a finite sum too large for the result type gives the infinity of its sign;
/// - an exact zero is `-0.0` when every term was `-0.0`, and `+0.0` otherwise (the empty sum
///   included).
///
/// `f32` terms are added as the `f64` they convert to exactly; [`to_f32`](Self::to_f32)
/// rounds the exact sum to `f32` once (not through `f64`, which would round twice).
///
/// Up to 2^64 terms (in all merged accumulators together) are summed exactly.
///
/// ```
/// use blitz_par::iter::ExactSum;
/// let mut sum = ExactSum::new();
/// for x in [1e308, 1.0, -1e308] {
///     sum.add(x);
/// }
/// assert_eq!(sum.to_f64(), 1.0);
/// // Plain addition loses the 1.0.
/// assert_eq!(1e308 + 1.0 - 1e308, 0.0);
///
/// // Shipped as words and rebuilt elsewhere, then merged: still exact.
/// let words = sum.to_words();
/// let mut other: ExactSum = [0.1, 0.2].into_iter().collect();
/// other.merge(&ExactSum::from_words(&words).unwrap());
/// assert_eq!(other.to_f64(), 1.3000000000000000444);
/// ```
#[derive(Clone)]
pub struct ExactSum {
    /// The finite terms' sum: the sum over `g` of `bins[g]` 2^(32 g) units of 2^-1074.
    bins: [i128; BINS],
    /// `FLAG_*` bits.
    flags: u64,
    /// Terms added to the bins since their last carry pass, counting a merged accumulator
    /// as its own count (see [`CARRY_EVERY`]).
    pending: u64,
}

impl ExactSum {
    /// The number of words of [`to_words`](Self::to_words): a flags word, then the exact
    /// finite sum as a 2,176-bit two's complement integer in units of 2^-1074, least
    /// significant word first.
    pub const WORDS: usize = 1 + BINS / 2;

    /// An empty sum (its value is `+0.0`).
    ///
    /// ```
    /// assert_eq!(blitz_par::iter::ExactSum::new().to_f64().to_bits(), 0.0f64.to_bits());
    /// ```
    pub fn new() -> Self {
        ExactSum {
            bins: [0; BINS],
            flags: 0,
            pending: 0,
        }
    }

    /// Adds `x` exactly. An `f32` is added as `f64::from(x)`, which is exact.
    ///
    /// ```
    /// let mut sum = blitz_par::iter::ExactSum::new();
    /// sum.add(0.1);
    /// sum.add(f64::from(0.25f32));
    /// assert_eq!(sum.to_f64(), 0.35);
    /// ```
    #[inline]
    pub fn add(&mut self, x: f64) {
        let bits = x.to_bits();
        self.flags |= FLAG_ANY
            | if bits == NEGATIVE_ZERO {
                0
            } else {
                FLAG_NOT_NEG_ZERO
            };
        self.count_terms(1);
        let exponent = (bits >> 52) & 0x7ff;
        if exponent.wrapping_sub(1) >= 0x7fe {
            self.add_unusual(bits);
            return;
        }
        let p = exponent - 1;
        let v = i128::from((bits & FRACTION) | IMPLICIT) << (p & 31);
        let bin = &mut self.bins[(p >> 5) as usize];
        if (bits as i64) < 0 {
            *bin -= v;
        } else {
            *bin += v;
        }
    }

    /// Adds a term whose biased exponent is 0 (zeros, subnormals) or 0x7ff (infinities, NaN).
    #[cold]
    fn add_unusual(&mut self, bits: u64) {
        let exponent = (bits >> 52) & 0x7ff;
        let negative = (bits as i64) < 0;
        if exponent == 0 {
            // Zero or subnormal: the fraction counts units of 2^-1074 already.
            let v = i128::from(bits & FRACTION);
            self.bins[0] += if negative { -v } else { v };
        } else if bits & FRACTION != 0 {
            self.flags |= FLAG_NAN;
        } else if negative {
            self.flags |= FLAG_NEG_INF;
        } else {
            self.flags |= FLAG_POS_INF;
        }
    }

    /// Adds every term of `terms` exactly: what [`add`](Self::add) does, in a loop that keeps
    /// several bins sets so that consecutive terms do not wait for each other.
    ///
    /// ```
    /// let mut sum = blitz_par::iter::ExactSum::new();
    /// sum.add_all((0..1000).map(|i| f64::from(i) * 0.1));
    /// assert_eq!(sum.to_f64(), 49_950.0);
    /// ```
    pub fn add_all<I: IntoIterator<Item = f64>>(&mut self, terms: I) {
        let mut terms = terms.into_iter();
        if terms.size_hint().0 < BATCH_MIN {
            for x in terms {
                self.add(x);
            }
            return;
        }
        let mut batch = Batch::take();
        loop {
            let (added, used, done) = batch.pass(&mut terms);
            batch.drain_into(added, used, self);
            if done {
                break;
            }
        }
        batch.put_back();
    }

    /// Adds the terms of `other` to `self`, exactly.
    ///
    /// ```
    /// use blitz_par::iter::ExactSum;
    /// let mut a: ExactSum = [1e16, 1.0].into_iter().collect();
    /// let b: ExactSum = [-1e16, 1.0].into_iter().collect();
    /// a.merge(&b);
    /// assert_eq!(a.to_f64(), 2.0);
    /// ```
    pub fn merge(&mut self, other: &ExactSum) {
        self.flags |= other.flags;
        self.count_terms(other.pending);
        for (bin, add) in self.bins.iter_mut().zip(&other.bins) {
            *bin += add;
        }
    }

    /// Records `n` more terms for the bins; takes the carries first if the bins could
    /// overflow otherwise.
    #[inline]
    fn count_terms(&mut self, n: u64) {
        self.pending += n;
        if self.pending >= CARRY_EVERY {
            self.carry();
            self.pending = n.min(CARRY_EVERY - 1);
        }
    }

    /// Takes every bin's carries into the next one: bins 0..67 end in `0..2^32`, the last
    /// holds the rest, with the sign of the whole.
    fn carry(&mut self) {
        for g in 0..BINS - 1 {
            let carry = self.bins[g] >> 32;
            self.bins[g] -= carry << 32;
            self.bins[g + 1] += carry;
        }
        self.pending = 1;
    }

    /// The exact finite sum as a two's complement integer of `WORDS - 1` words.
    fn value_words(&self) -> [u64; BINS / 2] {
        let mut carried = self.clone();
        carried.carry();
        let mut words = [0u64; BINS / 2];
        for (i, word) in words.iter_mut().enumerate() {
            // Bins below the last are in 0..2^32; the last is signed, and its two's
            // complement low bits are the top of the integer.
            let low = carried.bins[2 * i] as u64 & 0xffff_ffff;
            let high = carried.bins[2 * i + 1] as u64;
            *word = low | high << 32;
        }
        words
    }

    /// The accumulator as plain words, to ship or store: [`WORDS`](Self::WORDS) of them,
    /// the same for every accumulator of the same terms (whatever their order or grouping).
    /// Word 0 holds flags (NaN, `+inf`, `-inf`, any term, any term other than `-0.0`); the
    /// rest the exact sum of the finite terms as a two's complement integer in units of
    /// 2^-1074, least significant word first. [`from_words`](Self::from_words) rebuilds it.
    ///
    /// ```
    /// use blitz_par::iter::ExactSum;
    /// let a: ExactSum = [0.5, 0.25].into_iter().collect();
    /// let b: ExactSum = [0.25, 0.5].into_iter().collect();
    /// assert_eq!(a.to_words(), b.to_words());
    /// assert_eq!(a.to_words().len(), ExactSum::WORDS);
    /// ```
    pub fn to_words(&self) -> Vec<u64> {
        let mut words = Vec::with_capacity(Self::WORDS);
        words.push(self.flags);
        words.extend_from_slice(&self.value_words());
        words
    }

    /// Rebuilds an accumulator from [`to_words`](Self::to_words)'s words; `None` if there are
    /// not exactly [`WORDS`](Self::WORDS) of them or word 0 has bits no flag uses.
    ///
    /// ```
    /// use blitz_par::iter::ExactSum;
    /// let sum: ExactSum = [1.0, f64::INFINITY].into_iter().collect();
    /// let back = ExactSum::from_words(&sum.to_words()).unwrap();
    /// assert_eq!(back.to_f64(), f64::INFINITY);
    /// assert!(ExactSum::from_words(&[0; 3]).is_none());
    /// ```
    pub fn from_words(words: &[u64]) -> Option<ExactSum> {
        if words.len() != Self::WORDS || words[0] & !FLAGS != 0 {
            return None;
        }
        let mut sum = ExactSum::new();
        sum.flags = words[0];
        for (i, &word) in words[1..].iter().enumerate() {
            sum.bins[2 * i] = i128::from(word & 0xffff_ffff);
            sum.bins[2 * i + 1] = i128::from(word >> 32);
        }
        // The top word is signed.
        sum.bins[BINS - 1] = i128::from((words[Self::WORDS - 1] as i64) >> 32);
        sum.pending = 1;
        Some(sum)
    }

    /// The sum, correctly rounded to `f64` (ties to even); see the type's docs for NaN,
    /// infinities, overflow and zeros.
    ///
    /// ```
    /// let sum: blitz_par::iter::ExactSum = [0.1; 10].into_iter().collect();
    /// assert_eq!(sum.to_f64(), 1.0);
    /// ```
    pub fn to_f64(&self) -> f64 {
        f64::from_bits(self.round(Format::F64))
    }

    /// The sum, correctly rounded to `f32` (ties to even), in one rounding from the exact
    /// value; see the type's docs for NaN, infinities, overflow and zeros.
    ///
    /// ```
    /// let sum: blitz_par::iter::ExactSum = [0.1f32; 10].into_iter().map(f64::from).collect();
    /// assert_eq!(sum.to_f32(), 1.0);
    /// ```
    pub fn to_f32(&self) -> f32 {
        f32::from_bits(self.round(Format::F32) as u32)
    }

    /// The bits of the rounded sum in `format`.
    fn round(&self, format: Format) -> u64 {
        let flags = self.flags;
        if flags & FLAG_NAN != 0
            || flags & (FLAG_POS_INF | FLAG_NEG_INF) == FLAG_POS_INF | FLAG_NEG_INF
        {
            return format.nan;
        }
        if flags & FLAG_POS_INF != 0 {
            return format.infinity;
        }
        if flags & FLAG_NEG_INF != 0 {
            return format.sign | format.infinity;
        }
        let mut magnitude = self.value_words();
        let negative = (magnitude[BINS / 2 - 1] as i64) < 0;
        if negative {
            negate(&mut magnitude);
        }
        let sign = if negative { format.sign } else { 0 };
        let Some(top) = top_bit(&magnitude) else {
            let all_negative_zeros = flags & FLAG_ANY != 0 && flags & FLAG_NOT_NEG_ZERO == 0;
            return if all_negative_zeros { format.sign } else { 0 };
        };
        // The last place kept: `precision` bits from the top, but never below the format's
        // least subnormal.
        let ulp = (top + 1)
            .saturating_sub(format.precision)
            .max(format.least_ulp);
        let mut mantissa = bits_from(&magnitude, ulp, format.precision);
        if ulp > 0 && bit(&magnitude, ulp - 1) {
            let sticky = ulp > 1 && any_below(&magnitude, ulp - 1);
            if sticky || mantissa & 1 == 1 {
                mantissa += 1;
            }
        }
        // With the implicit bit in `mantissa`, `(ulp - least) << (precision - 1) + mantissa`
        // is the format's bit pattern, subnormals included; a carry out of the mantissa
        // moves into the exponent by itself.
        let exponent = u64::from(ulp - format.least_ulp);
        if exponent >= format.max_exponent {
            return sign | format.infinity;
        }
        let bits = (exponent << (format.precision - 1)) + mantissa;
        sign | bits.min(format.infinity)
    }
}

/// The parameters of a rounding target.
#[derive(Clone, Copy)]
struct Format {
    /// Significand bits, the implicit one included.
    precision: u32,
    /// The least subnormal, in units of 2^-1074 (its bit position).
    least_ulp: u32,
    /// The ulp position (above `least_ulp`) from which every value is infinite.
    max_exponent: u64,
    sign: u64,
    infinity: u64,
    nan: u64,
}

impl Format {
    const F64: Format = Format {
        precision: 53,
        least_ulp: 0,
        max_exponent: 0x7ff,
        sign: 1 << 63,
        infinity: 0x7ff0_0000_0000_0000,
        nan: 0x7ff8_0000_0000_0000,
    };
    const F32: Format = Format {
        precision: 24,
        least_ulp: 1074 - 149,
        max_exponent: 0xff,
        sign: 1 << 31,
        infinity: 0x7f80_0000,
        nan: 0x7fc0_0000,
    };
}

/// Two's complement negation of a multiword integer.
fn negate(words: &mut [u64]) {
    let mut carry = true;
    for word in words {
        let (sum, overflow) = (!*word).overflowing_add(u64::from(carry));
        *word = sum;
        carry = overflow;
    }
}

/// The position of the highest set bit, if any.
fn top_bit(words: &[u64]) -> Option<u32> {
    words
        .iter()
        .rposition(|&w| w != 0)
        .map(|i| i as u32 * 64 + 63 - words[i].leading_zeros())
}

fn bit(words: &[u64], at: u32) -> bool {
    words[(at / 64) as usize] >> (at % 64) & 1 == 1
}

/// Whether any bit below position `at` is set.
fn any_below(words: &[u64], at: u32) -> bool {
    let (full, part) = ((at / 64) as usize, at % 64);
    words[..full].iter().any(|&w| w != 0) || (part > 0 && words[full] << (64 - part) != 0)
}

/// The `count` (at most 64) bits from position `from` up.
fn bits_from(words: &[u64], from: u32, count: u32) -> u64 {
    let (i, shift) = ((from / 64) as usize, from % 64);
    let mut v = words[i] >> shift;
    if shift > 0 && i + 1 < words.len() {
        v |= words[i + 1] << (64 - shift);
    }
    if count < 64 {
        v &= (1 << count) - 1;
    }
    v
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum::new()
    }
}

impl fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExactSum")
            .field("f64", &self.to_f64())
            .finish_non_exhaustive()
    }
}

/// Two accumulators are equal when they hold the same terms' sum and flags (whatever the
/// order, grouping or representation that led there).
impl PartialEq for ExactSum {
    fn eq(&self, other: &Self) -> bool {
        self.flags == other.flags && self.value_words() == other.value_words()
    }
}

impl Eq for ExactSum {}

impl std::ops::AddAssign<f64> for ExactSum {
    fn add_assign(&mut self, x: f64) {
        self.add(x);
    }
}

impl std::ops::AddAssign<&ExactSum> for ExactSum {
    fn add_assign(&mut self, other: &ExactSum) {
        self.merge(other);
    }
}

impl Extend<f64> for ExactSum {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, terms: I) {
        self.add_all(terms);
    }
}

impl FromIterator<f64> for ExactSum {
    fn from_iter<I: IntoIterator<Item = f64>>(terms: I) -> Self {
        let mut sum = ExactSum::new();
        sum.add_all(terms);
        sum
    }
}

/// Chunks of a [`Batch`] set: one per sign and biased exponent (a term's top 12 bits).
const CHUNKS: usize = 4096;

/// The sets of a [`Batch`]: consecutive terms go to different sets, so that terms of the
/// same exponent (uniform data in `[0, 1)` is almost all one exponent) do not wait for each
/// other's store to the same chunk.
const SETS: usize = 4;

/// Terms a [`Batch`] takes between two drains: each set then takes at most 2,047 terms, so
/// that a chunk's sum of mantissas (each below 2^53) stays below 2^64.
const PASS: usize = SETS * 2047;

thread_local! {
    /// Each thread's [`Batch`], kept between sums: it is 160 KB, too much to clear for every
    /// leaf of a drive (drains clear the chunks they read, so a kept batch is clear).
    static BATCH: std::cell::Cell<Option<Box<Batch>>> = const { std::cell::Cell::new(None) };
}

/// The fast path of [`ExactSum::add_all`], after R. M. Neal's "large superaccumulator": per
/// set, a chunk for every sign and biased exponent, to which a term adds its raw bits, and a
/// count of those terms. A chunk's terms share their top 12 bits, so the count recovers the
/// sum of their mantissas (implicit bits included) from the sum of their bits (modulo 2^64,
/// and the true sum is below that), and tells zeros and infinities from subnormals and
/// NaNs: a term costs two additions to memory, with no branch, no shift and no mask, and
/// every [`PASS`] terms the chunks of the 64-chunk blocks used are drained into the
/// [`ExactSum`]'s bins.
struct Batch {
    /// `sums[k * CHUNKS + top]`: the wrapping sum of the bits of set `k`'s terms whose top
    /// 12 bits are `top`.
    sums: Box<[u64]>,
    /// `counts[k * CHUNKS + top]`: how many terms `sums` holds.
    counts: Box<[u16]>,
}

impl Batch {
    /// This thread's batch (a fresh one if it is in use further up the stack).
    fn take() -> Box<Batch> {
        BATCH.with(|batch| batch.take()).unwrap_or_else(|| {
            Box::new(Batch {
                sums: vec![0; SETS * CHUNKS].into_boxed_slice(),
                counts: vec![0; SETS * CHUNKS].into_boxed_slice(),
            })
        })
    }

    /// Gives the (clear) batch back to this thread.
    fn put_back(self: Box<Batch>) {
        BATCH.with(|batch| batch.set(Some(self)));
    }

    /// Adds one term to set `K`, noting the 64-chunk block it used in `used` (kept in a
    /// register by the loop).
    #[inline(always)]
    fn add_one<const K: usize>(
        sums: &mut [u64; SETS * CHUNKS],
        counts: &mut [u16; SETS * CHUNKS],
        used: &mut u64,
        x: f64,
    ) {
        let bits = x.to_bits();
        let top = (bits >> 52) as usize;
        let at = K * CHUNKS + top;
        sums[at] = sums[at].wrapping_add(bits);
        counts[at] += 1;
        *used |= 1 << (top >> 6);
    }

    /// Adds up to [`PASS`] terms of `terms`, one to each set in turn; returns how many, the
    /// blocks used (bit `b`: chunks `64 b .. 64 b + 64`), and whether `terms` ended.
    fn pass<I: Iterator<Item = f64>>(&mut self, terms: &mut I) -> (usize, u64, bool) {
        let sums: &mut [u64; SETS * CHUNKS] = (&mut *self.sums).try_into().expect("sums");
        let counts: &mut [u16; SETS * CHUNKS] = (&mut *self.counts).try_into().expect("counts");
        let mut used = 0;
        let mut rounds = PASS / SETS;
        // Terms taken in the last, partial round.
        let mut partial = 0;
        let done = loop {
            if rounds == 0 {
                break false;
            }
            let Some(a) = terms.next() else {
                break true;
            };
            Self::add_one::<0>(sums, counts, &mut used, a);
            let Some(b) = terms.next() else {
                partial = 1;
                break true;
            };
            Self::add_one::<1>(sums, counts, &mut used, b);
            let Some(c) = terms.next() else {
                partial = 2;
                break true;
            };
            Self::add_one::<2>(sums, counts, &mut used, c);
            let Some(d) = terms.next() else {
                partial = 3;
                break true;
            };
            Self::add_one::<3>(sums, counts, &mut used, d);
            rounds -= 1;
        };
        ((PASS / SETS - rounds) * SETS + partial, used, done)
    }

    /// Adds the `added` terms of the chunks of the blocks `used` to `sum`, and clears them.
    fn drain_into(&mut self, added: usize, used: u64, sum: &mut ExactSum) {
        if added == 0 {
            return;
        }
        sum.flags |= FLAG_ANY;
        sum.count_terms(added as u64);
        let blocks = (0..64).filter(|b| used >> b & 1 == 1);
        for top in blocks.flat_map(|b| 64 * b..64 * b + 64) {
            // The sets' sums of the fractions (with implicit bits for usual exponents).
            let mut total = 0u128;
            let mut terms = 0;
            for k in 0..SETS {
                let n = u64::from(std::mem::take(&mut self.counts[k * CHUNKS + top]));
                let bits = std::mem::take(&mut self.sums[k * CHUNKS + top]);
                // Every term here has `top` as its top 12 bits: take them out again.
                let fractions = bits.wrapping_sub(n.wrapping_mul((top as u64) << 52));
                total += u128::from(fractions);
                terms += n;
            }
            if terms == 0 {
                continue;
            }
            let (exponent, negative) = (top & 0x7ff, top >> 11 == 1);
            match exponent {
                0 => {
                    // Zeros and subnormals: the fractions count units of 2^-1074. Only
                    // -0.0 adds nothing with a negative sign.
                    if !negative || total != 0 {
                        sum.flags |= FLAG_NOT_NEG_ZERO;
                    }
                    let v = total as i128;
                    sum.bins[0] += if negative { -v } else { v };
                    continue;
                }
                0x7ff => {
                    // Infinities have zero fractions, NaNs not.
                    sum.flags |= FLAG_NOT_NEG_ZERO
                        | match (total != 0, negative) {
                            (true, _) => FLAG_NAN,
                            (false, true) => FLAG_NEG_INF,
                            (false, false) => FLAG_POS_INF,
                        };
                    continue;
                }
                _ => sum.flags |= FLAG_NOT_NEG_ZERO,
            }
            // The implicit bits, then the mantissas' weight: 2^(exponent - 1) units. The
            // total is below 2^66, shifted by under 32 bits: well inside an i128.
            total += u128::from(terms) << 52;
            let p = exponent - 1;
            let v = (total as i128) << (p & 31);
            let bin = &mut sum.bins[p >> 5];
            if negative {
                *bin -= v;
            } else {
                *bin += v;
            }
        }
    }
}

/// Item types [`ParallelIterator::exact_sum`] sums: `f64` and `f32`, by value or by
/// reference. Sealed: the rounding of the result is defined for these alone.
///
/// ```
/// use blitz_par::prelude::*;
/// let v = vec![0.1f32; 10];
/// let total: f32 = v.par_iter().exact_sum();
/// assert_eq!(total, 1.0);
/// ```
pub trait ExactSummand: Send + sealed::Sealed {
    /// The result type: `f64` for `f64` items, `f32` for `f32` items.
    type Output;
    /// The term as the `f64` it equals exactly.
    #[doc(hidden)]
    fn term(self) -> f64;
    /// The accumulator's value rounded to `Output`.
    #[doc(hidden)]
    fn round(sum: &ExactSum) -> Self::Output;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl Sealed for &f64 {}
    impl Sealed for &f32 {}
}

impl ExactSummand for f64 {
    type Output = f64;
    #[inline]
    fn term(self) -> f64 {
        self
    }
    fn round(sum: &ExactSum) -> f64 {
        sum.to_f64()
    }
}

impl ExactSummand for &f64 {
    type Output = f64;
    #[inline]
    fn term(self) -> f64 {
        *self
    }
    fn round(sum: &ExactSum) -> f64 {
        sum.to_f64()
    }
}

impl ExactSummand for f32 {
    type Output = f32;
    #[inline]
    fn term(self) -> f64 {
        f64::from(self)
    }
    fn round(sum: &ExactSum) -> f32 {
        sum.to_f32()
    }
}

impl ExactSummand for &f32 {
    type Output = f32;
    #[inline]
    fn term(self) -> f64 {
        f64::from(*self)
    }
    fn round(sum: &ExactSum) -> f32 {
        sum.to_f32()
    }
}

/// Collects the exact sum of `f64` or `f32` items (or references to them): what
/// [`ParallelIterator::exact_sum`] rounds, kept whole.
///
/// ```
/// use blitz_par::iter::ExactSum;
/// use blitz_par::prelude::*;
/// let v = vec![0.1; 1000];
/// let sum: ExactSum = v.par_iter().collect();
/// assert_eq!(sum.to_f64(), 100.0);
/// ```
impl<T: ExactSummand> super::FromParallelIterator<T> for ExactSum {
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: super::IntoParallelIterator<Item = T>,
    {
        *par_iter.into_par_iter().drive_unindexed(ExactSumConsumer)
    }
}

/// Adds the items of a parallel iterator of `f64` or `f32` items (or references to them),
/// exactly.
///
/// ```
/// use blitz_par::iter::ExactSum;
/// use blitz_par::prelude::*;
/// let mut sum = ExactSum::new();
/// sum.par_extend(vec![1e100, 1.0]);
/// sum.par_extend(vec![-1e100]);
/// assert_eq!(sum.to_f64(), 1.0);
/// ```
impl<T: ExactSummand> super::ParallelExtend<T> for ExactSum {
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: super::IntoParallelIterator<Item = T>,
    {
        self.merge(&par_iter.into_par_iter().drive_unindexed(ExactSumConsumer));
    }
}

pub(super) fn exact_sum<I>(par_iter: I) -> <I::Item as ExactSummand>::Output
where
    I: ParallelIterator,
    I::Item: ExactSummand,
{
    let sum = par_iter.drive_unindexed(ExactSumConsumer);
    <I::Item as ExactSummand>::round(&sum)
}

/// The consumer of `exact_sum`: one boxed accumulator per leaf (an [`ExactSum`] is about 1 KB,
/// and folders move), merged by the reducer.
struct ExactSumConsumer;

impl<T: ExactSummand> Consumer<T> for ExactSumConsumer {
    /// Exact: the same whatever the grouping.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = ExactSumFolder;
    type Reducer = ExactSumConsumer;
    type Result = Box<ExactSum>;
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (ExactSumConsumer, ExactSumConsumer, ExactSumConsumer)
    }
    fn into_folder(self) -> ExactSumFolder {
        ExactSumFolder(Box::default())
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: ExactSummand> UnindexedConsumer<T> for ExactSumConsumer {
    fn split_off_left(&self) -> Self {
        ExactSumConsumer
    }
    fn to_reducer(&self) -> Self {
        ExactSumConsumer
    }
}

impl Reducer<Box<ExactSum>> for ExactSumConsumer {
    fn reduce(self, mut left: Box<ExactSum>, right: Box<ExactSum>) -> Box<ExactSum> {
        left.merge(&right);
        left
    }
}

struct ExactSumFolder(Box<ExactSum>);

impl<T: ExactSummand> Folder<T> for ExactSumFolder {
    type Result = Box<ExactSum>;
    fn consume(mut self, item: T) -> Self {
        self.0.add(item.term());
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.0.add_all(iter.into_iter().map(ExactSummand::term));
        self
    }
    fn complete(self) -> Box<ExactSum> {
        self.0
    }
    fn full(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum_of(terms: &[f64]) -> ExactSum {
        terms.iter().copied().collect()
    }

    #[test]
    fn the_batch_loop_and_single_adds_agree() {
        // Enough terms for the four-set loop, with every kind of term among them.
        let mut terms: Vec<f64> = (0..1000)
            .map(|i| (f64::from(i) - 500.5) * 1.37e-3)
            .collect();
        terms.extend([0.0, -0.0, 5e-324, -2.5e-320, 1e308, -1e300, 3.0e-310]);
        let batched: ExactSum = terms.iter().copied().collect();
        let mut single = ExactSum::new();
        for &x in &terms {
            single.add(x);
        }
        assert_eq!(batched, single);
        assert_eq!(batched.to_words(), single.to_words());
    }

    #[test]
    fn the_batch_path_reads_zeros_infinities_and_nans_from_its_counts() {
        let many = |x: f64, n: usize| std::iter::repeat_n(x, n);
        let batched = |terms: Vec<f64>| {
            assert!(terms.len() >= BATCH_MIN);
            let mut single = ExactSum::new();
            for &x in &terms {
                single.add(x);
            }
            let batched: ExactSum = terms.into_iter().collect();
            assert_eq!(batched, single);
            batched.to_f64()
        };
        assert_eq!(
            batched(many(-0.0, 1000).collect()).to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(batched(many(-0.0, 999).chain([0.0]).collect()).to_bits(), 0);
        let inf = many(1.0, 500).chain([f64::INFINITY]).chain(many(-2.0, 500));
        assert_eq!(batched(inf.collect()), f64::INFINITY);
        let both = many(f64::NEG_INFINITY, 100).chain(many(f64::INFINITY, 100));
        assert!(batched(both.collect()).is_nan());
        let nan = many(1.0, 9000).chain([f64::from_bits(0x7ff0_0000_0000_0001)]);
        assert!(batched(nan.collect()).is_nan());
        // Subnormals of both signs and -0.0 beside them.
        let tiny = many(-5e-324, 3000)
            .chain(many(-0.0, 10))
            .chain(many(1e-320, 1));
        assert_eq!(batched(tiny.collect()), 1e-320 - 3000.0 * 5e-324);
    }

    #[test]
    fn carries_keep_the_value() {
        let mut a = sum_of(&[1e300, -3.5, 2.0f64.powi(-1070), 7.25e20]);
        let words = a.to_words();
        a.carry();
        assert_eq!(a.to_words(), words);
        // Many carry passes forced through the pending count.
        a.pending = CARRY_EVERY - 1;
        a.add(1.0);
        assert!(a.pending < CARRY_EVERY);
        let mut b = sum_of(&[1e300, -3.5, 2.0f64.powi(-1070), 7.25e20]);
        b.add(1.0);
        assert_eq!(a, b);
    }

    #[test]
    fn words_round_trip_negative_sums() {
        let a = sum_of(&[-1e308, -1e308, 1.0, -5e-324]);
        let back = ExactSum::from_words(&a.to_words()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.to_f64(), f64::NEG_INFINITY);
        let mut c = back.clone();
        c.merge(&sum_of(&[1e308, 1e308]));
        assert_eq!(c.to_f64(), 1.0);
        let mut bad = a.to_words();
        bad[0] |= 1 << 40;
        assert!(ExactSum::from_words(&bad).is_none());
    }

    #[test]
    fn rounding_helpers() {
        let mut w = [0u64; 3];
        w[1] = 1 << 5;
        assert_eq!(top_bit(&w), Some(69));
        assert!(bit(&w, 69));
        assert!(!any_below(&w, 69));
        assert!(any_below(&w, 70));
        assert_eq!(bits_from(&w, 60, 16), 1 << 9);
        negate(&mut w);
        assert_eq!(w, [0, u64::MAX << 5, u64::MAX]);
    }
}
