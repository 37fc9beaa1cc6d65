//! Byte strings in their natural order: an MSD radix sort on packed keys.
//!
//! Serves `par_sort` and `par_sort_unstable` on `String`, `&str`, `Vec<u8>`, `&[u8]`,
//! `Box<str>` and `Box<[u8]>` (whose `Ord` is the lexicographic order of their bytes), and
//! `par_sort_by_key`, `par_sort_unstable_by_key` and `par_sort_by_cached_key` when the key is
//! one of these types.
//!
//! A comparison sort of strings pays a cache miss or two per comparison (the element, then
//! its heap bytes), `n log n` times, and the quicksort's top partition runs on one thread.
//! Here each string is read twice per round instead, by parallel passes:
//!
//! 1. The alphabet: which byte values the strings hold in the next window of characters
//!    (from `depth`, 0 at first), and the longest length (see [`Encoding`]: text has few
//!    distinct bytes, so a character takes fewer than 8 bits).
//! 2. Each element `i` gets a `u64` key: the codes of its next characters (0 where the
//!    string has ended), as many as fill the top `64 - b` bits, above the index `i` in the low
//!    `b = bits(len - 1)` bits. Keys are distinct, and their order is the order of (prefix,
//!    index): codes keep byte order, and an ended string sorts below any that goes on, so a
//!    smaller prefix means a smaller string.
//! 3. The keys are sorted by [`radix::radix_sort`] (parallel; it skips the bits that do not
//!    differ).
//! 4. Runs of equal prefix are resolved, in parallel: a short run by comparing the strings
//!    (ties by index); a long one by another round from the first character its key did not
//!    hold (its strings agree up to there). A run whose strings have all ended is in order:
//!    they are equal (with 8-bit codes, where byte 0 and the end look alike, it is compared).
//! 5. The elements are gathered into a scratch buffer in key order and copied back.
//!
//! Before step 1, one parallel pass of neighbour comparisons takes input already in order
//! (or in reverse order) as it is. At the start of each round, a prefix common to all the
//! strings of the run (paths, URLs, equal strings) is measured and skipped in one pass, rather
//! than a key's worth of characters per round; for a long run, only when a sample suggests
//! one.
//!
//! Ties are ordered by index at every step, so the result is stable and serves every call.
//! No user code runs in steps 1 to 5 (the natural order is fixed; the key-based calls compute
//! their keys first), so nothing can panic between the moves of step 5.
//!
//! Memory: 8 bytes of key per element and the radix sort's scratch of the same size, plus a
//! scratch buffer of the elements for the gather (and the keys, for the key-based calls).

use std::cmp::Ordering;
use std::ops::Range;

use super::gather::{gather_in_order, index_bits};
use super::thresholds::{poll_scheduler, Tuning};
use super::{key, merge, radix, radix_parts};
use crate::prelude::*;
use crate::SyncPtr;

/// Sees a value as the bytes whose lexicographic order is its natural order.
pub(super) type View<T> = for<'a> fn(&'a T) -> &'a [u8];

/// A view for `T` if `T` is one of the byte-string types of the module documentation.
pub(super) fn byte_view<T>() -> Option<View<T>> {
    /// The owned types, seen through the bytes their `Ord` compares.
    trait Bytes {
        fn bytes(&self) -> &[u8];
    }
    impl Bytes for String {
        fn bytes(&self) -> &[u8] {
            self.as_bytes()
        }
    }
    impl Bytes for Box<str> {
        fn bytes(&self) -> &[u8] {
            self.as_bytes()
        }
    }
    impl Bytes for Vec<u8> {
        fn bytes(&self) -> &[u8] {
            self
        }
    }
    impl Bytes for Box<[u8]> {
        fn bytes(&self) -> &[u8] {
            self
        }
    }
    macro_rules! owned {
        ($($u:ty),*) => {$(
            if key::is_type::<T, $u>() {
                fn view<T>(x: &T) -> &[u8] {
                    match key::cast_ref::<T, $u>(x) {
                        Some(x) => x.bytes(),
                        None => unreachable!("`byte_view` checked that `T` is `{}`", stringify!($u)),
                    }
                }
                return Some(view::<T>);
            }
        )*};
    }
    owned!(String, Vec<u8>, Box<str>, Box<[u8]>);
    // `&'a str` and `&'a [u8]` for any `'a` (`key::borrowed_bytes`).
    if key::is_borrowed_bytes::<T>() {
        fn view<T>(x: &T) -> &[u8] {
            match key::borrowed_bytes(x) {
                Some(bytes) => bytes,
                None => unreachable!("`byte_view` checked that `T` is `&str` or `&[u8]`"),
            }
        }
        return Some(view::<T>);
    }
    None
}

/// Sorts `v` if `T` is a byte-string type (see the module documentation); returns whether it
/// did. The radix sort is stable, so this serves `par_sort` and `par_sort_unstable`; `stable`
/// only matters for input in reverse order.
pub(super) fn try_sort<T: Send>(v: &mut [T], stable: bool, tuning: &Tuning) -> bool {
    let Some(view) = byte_view::<T>() else {
        return false;
    };
    let from = SyncPtr::new(v);
    let bytes = |i: usize| {
        // SAFETY: `i < len` (every index comes from `0..len`); the slice is only read, and
        // not used through `v`, while `bytes` is in use (until `par_order` returns); `T`, a
        // byte-string type, is `Sync`, so threads may share it.
        view(unsafe { &*from.get(i) })
    };
    let found = find_order(from.len(), &bytes, stable);
    if !matches!(found, Found::Unordered) {
        // Done with `bytes`, so `v` may be used again.
        return take_order(v, found);
    }
    let Some(order) = par_order(from.len(), &bytes, tuning) else {
        return false;
    };
    gather_in_order(v, &order, tuning);
    true
}

/// What one parallel pass of neighbour comparisons found (random input ends it at once).
enum Found {
    /// Nowhere descending: in order already.
    InOrder,
    /// Nowhere ascending: reversing the whole orders it; for a stable sort, each of these
    /// ranges (runs of equal elements, as they lie after the reversal) is then reversed back.
    Reversed(Vec<Range<usize>>),
    /// Neither.
    Unordered,
}

/// Whether `len` elements, element `i` seen as `bytes(i)`, are in order or in reverse order.
fn find_order<'s, F>(len: usize, bytes: &F, stable: bool) -> Found
where
    F: Fn(usize) -> &'s [u8] + Sync,
{
    if (1..len).into_par_iter().all(|i| bytes(i - 1) <= bytes(i)) {
        return Found::InOrder;
    }
    if !(1..len).into_par_iter().all(|i| bytes(i - 1) >= bytes(i)) {
        return Found::Unordered;
    }
    let mut equal_runs = Vec::new();
    if stable {
        let mut start = 0;
        for i in 1..=len {
            if i == len || bytes(i) != bytes(start) {
                if i - start > 1 {
                    equal_runs.push(len - i..len - start);
                }
                start = i;
            }
        }
    }
    Found::Reversed(equal_runs)
}

/// Puts `v` in order as `found` says; returns whether it did.
fn take_order<T: Send>(v: &mut [T], found: Found) -> bool {
    match found {
        Found::InOrder => true,
        Found::Reversed(equal_runs) => {
            let (front, back) = v.split_at_mut(v.len() / 2);
            front
                .par_iter_mut()
                .zip(back.par_iter_mut().rev())
                .for_each(|(a, b)| std::mem::swap(a, b));
            for run in equal_runs {
                v[run].reverse();
            }
            true
        }
        Found::Unordered => false,
    }
}

/// A key wrapped so that the compiler lets threads share and send it.
struct SharedKey<K>(K);

// SAFETY: only made for `K` with a byte view, all of which are `Send` and `Sync`
// (`try_sort_by_key` checks before it makes one).
unsafe impl<K> Send for SharedKey<K> {}
// SAFETY: as above.
unsafe impl<K> Sync for SharedKey<K> {}

/// Sorts `v` by `f` (each key computed once) if `K` is a byte-string type; returns whether it
/// did. The radix sort is stable (`stable` only matters for keys in reverse order), so this
/// serves `par_sort_by_key`, `par_sort_unstable_by_key` and
/// `par_sort_by_cached_key`. A panic in `f` reaches the caller with `v` untouched.
pub(super) fn try_sort_by_key<T, K, F>(v: &mut [T], f: &F, stable: bool, tuning: &Tuning) -> bool
where
    T: Send,
    F: Fn(&T) -> K + Sync,
{
    let Some(view) = byte_view::<K>() else {
        return false;
    };
    let keys: Vec<SharedKey<K>> = v.par_iter_mut().map(|x| SharedKey(f(&*x))).collect();
    let bytes = |i: usize| view(&keys[i].0);
    if !take_order(v, find_order(keys.len(), &bytes, stable)) {
        let Some(order) = par_order(keys.len(), &bytes, tuning) else {
            return false;
        };
        gather_in_order(v, &order, tuning);
    }
    // The keys were made in parallel; free them so too.
    keys.into_par_iter().for_each(drop);
    true
}

/// Characters a key can hold at most (see `Encoding`): alphabets of up to 3 bytes could put
/// more in a key, but the alphabet pass reads this many bytes of each string.
const WINDOW: usize = 16;

/// Strings per task of the alphabet and key passes.
const ALPHABET_CHUNK: usize = 1024;

/// A sample's common prefix that makes a pass measure a long run's.
const MIN_SKIP: usize = 8;

/// The length of the common prefix of `a` and `b`.
#[inline]
fn common_len(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= len && a[i..i + 8] == b[i..i + 8] {
        i += 8;
    }
    while i < len && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Strings whose bytes make the first guess of a long run's alphabet (and common prefix).
const ALPHABET_SAMPLE: usize = 1024;

/// The set of byte values seen in some strings' windows.
#[derive(Clone, Copy, Default)]
struct Alphabet {
    bytes: [u64; 4],
}

impl Alphabet {
    fn union(self, other: Self) -> Self {
        let mut bytes = self.bytes;
        for (word, other) in bytes.iter_mut().zip(other.bytes) {
            *word |= other;
        }
        Alphabet { bytes }
    }
}

/// How one round turns the next characters of a string into prefix bits.
///
/// Each byte of the alphabet gets a code in `1..=symbols`, in byte order, and the end of the
/// string gets 0, below every byte; `bits` per character, `chars` characters per key. Text
/// uses few distinct bytes (hexadecimal digits: 16, 5 bits each), so a key holds more
/// characters than 8 bits per byte would allow, and runs of equal prefix are rarer. An
/// alphabet of 256 bytes has no room for the end: codes are the bytes themselves and the end
/// is 0, like byte 0 (`exact` is false), which only comparing tells apart.
struct Encoding {
    codes: [u8; 256],
    bits: u32,
    chars: usize,
    exact: bool,
}

impl Encoding {
    fn new(alphabet: &Alphabet, prefix_bits: u32) -> Encoding {
        let symbols: u32 = alphabet.bytes.iter().map(|word| word.count_ones()).sum();
        let mut codes = [0u8; 256];
        let (bits, exact) = if symbols >= 256 {
            for (code, byte) in codes.iter_mut().zip(0u8..=255) {
                *code = byte;
            }
            (8, false)
        } else {
            let mut next = 0u8;
            for (byte, code) in codes.iter_mut().enumerate() {
                if alphabet.bytes[byte >> 6] & (1 << (byte & 63)) != 0 {
                    next += 1;
                    *code = next;
                }
            }
            // Codes `0..=symbols` need this many bits.
            ((u32::BITS - symbols.leading_zeros()).max(1), true)
        };
        Encoding {
            codes,
            bits,
            chars: ((prefix_bits / bits) as usize).min(WINDOW),
            exact,
        }
    }
}

/// How keys are made for one sort.
struct Keys<'f, F> {
    /// The bytes of element `i`.
    bytes: &'f F,
    /// Bits of the index (the low bits of a key).
    shift: u32,
}

impl<'s, F: Fn(usize) -> &'s [u8] + Sync> Keys<'_, F> {
    /// Bits of a key above the index.
    fn prefix_bits(&self) -> u32 {
        u64::BITS - self.shift
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key & ((1u64 << self.shift) - 1)) as usize
    }

    #[inline]
    fn prefix(&self, key: u64) -> u64 {
        key >> self.shift
    }

    /// The bytes of `string` from `depth` (none if it has ended).
    #[inline]
    fn rest<'a>(&self, string: &'a [u8], depth: usize) -> &'a [u8] {
        string.get(depth..).unwrap_or_default()
    }

    /// The length of the prefix, from `depth`, that the strings behind `keys` share with
    /// `reference`; and whether they all equal it from `depth` on.
    fn common_prefix(
        &self,
        keys: impl Iterator<Item = u64>,
        depth: usize,
        reference: &[u8],
    ) -> (usize, bool) {
        let (mut common, mut all_equal) = (reference.len(), true);
        for key in keys {
            let rest = self.rest((self.bytes)(self.index(key)), depth);
            all_equal &= rest == reference;
            common = common_len(rest, &reference[..common]);
        }
        (common, all_equal)
    }

    /// The alphabet of the windows, from `depth`, of the elements behind `keys`.
    fn alphabet_of(&self, keys: impl Iterator<Item = u64>, depth: usize) -> Alphabet {
        // One store per byte (no chain of dependent updates), folded into bits once.
        let mut seen = [false; 256];
        for key in keys {
            let string = (self.bytes)(self.index(key));
            let rest = string.get(depth..).unwrap_or_default();
            for &byte in &rest[..rest.len().min(WINDOW)] {
                seen[usize::from(byte)] = true;
            }
        }
        let mut bytes = [0u64; 4];
        for (byte, _) in seen.iter().enumerate().filter(|(_, &seen)| seen) {
            bytes[byte >> 6] |= 1 << (byte & 63);
        }
        Alphabet { bytes }
    }

    /// The alphabet of the windows, from `depth`, of the elements behind `order`.
    fn alphabet(&self, order: &[u64], depth: usize) -> Alphabet {
        order
            .par_chunks(ALPHABET_CHUNK)
            .map(|chunk| self.alphabet_of(chunk.iter().copied(), depth))
            .reduce(Alphabet::default, Alphabet::union)
    }

    /// The alphabet of the windows, from `depth`, of a sample of the elements behind `order`.
    fn sampled_alphabet(&self, order: &[u64], depth: usize) -> Alphabet {
        let sample = radix_parts::sample_positions(order.len(), ALPHABET_SAMPLE).map(|i| order[i]);
        self.alphabet_of(sample, depth)
    }

    /// The key of element `index` for the characters from `depth`, the element's length, and
    /// whether the encoding lacks one of the bytes the key holds.
    #[inline]
    fn key(&self, index: usize, depth: usize, encoding: &Encoding) -> (u64, usize, bool) {
        let bytes = (self.bytes)(index);
        let rest = bytes.get(depth..).unwrap_or_default();
        let mut code = 0u64;
        let mut absent = false;
        for j in 0..encoding.chars {
            let char_code = match rest.get(j) {
                Some(&byte) => {
                    let char_code = encoding.codes[usize::from(byte)];
                    absent |= char_code == 0;
                    char_code
                }
                None => 0,
            };
            code = (code << encoding.bits) | u64::from(char_code);
        }
        let unused = self.prefix_bits() - encoding.bits * encoding.chars as u32;
        let key = (code << unused << self.shift) | index as u64;
        (key, bytes.len(), absent && encoding.exact)
    }

    /// Keys the elements behind `order` (in place) for the characters from `depth`; returns
    /// the longest length, and whether the encoding lacked a byte (then the keys are not in
    /// the order of the strings).
    fn rekey(&self, order: &mut [u64], depth: usize, encoding: &Encoding) -> (usize, bool) {
        order
            .par_chunks_mut(ALPHABET_CHUNK)
            .map(|chunk| {
                let (mut longest, mut absent) = (0, false);
                for key in chunk {
                    let (again, len, lacked) = self.key(self.index(*key), depth, encoding);
                    *key = again;
                    longest = longest.max(len);
                    absent |= lacked;
                }
                (longest, absent)
            })
            .reduce(|| (0, false), |a, b| (a.0.max(b.0), a.1 | b.1))
    }

    /// The natural order of the elements behind two keys, ties by index.
    #[inline]
    fn compare(&self, a: &u64, b: &u64) -> Ordering {
        let (a, b) = (self.index(*a), self.index(*b));
        (self.bytes)(a).cmp((self.bytes)(b)).then(a.cmp(&b))
    }
}

/// The keys of elements `0..len` in the order of `bytes(i)`, ties by index; the index of each
/// is its low `index_bits(len)` bits. `None` for more than 2^56 elements (no byte of prefix
/// would fit beside the index).
fn par_order<'s, F>(len: usize, bytes: &F, tuning: &Tuning) -> Option<Vec<u64>>
where
    F: Fn(usize) -> &'s [u8] + Sync,
{
    let shift = index_bits(len);
    if u64::BITS - shift < 8 {
        return None;
    }
    let keys = Keys { bytes, shift };
    let mut order: Vec<u64> = (0..len as u64).into_par_iter().collect();
    sort_run(&mut order, 0, true, &keys, tuning);
    Some(order)
}

/// Sorts `run`: keys, in index order, of elements that agree on their first `depth` bytes
/// (exactly if `exact`; else but for zero bytes where one of them has ended).
fn sort_run<'s, F>(
    run: &mut [u64],
    mut depth: usize,
    exact: bool,
    keys: &Keys<'_, F>,
    tuning: &Tuning,
) where
    F: Fn(usize) -> &'s [u8] + Sync,
{
    // A common prefix (paths, URLs; equal strings) is skipped at once, rather than a key's
    // worth of characters per round: a short run is measured whole; for a long one a sample
    // must show a long common prefix or equal strings before a pass measures the run.
    let reference = keys.rest((keys.bytes)(keys.index(run[0])), depth);
    let (common, all_equal) = if run.len() <= ALPHABET_SAMPLE {
        keys.common_prefix(run.iter().copied(), depth, reference)
    } else {
        let sample = radix_parts::sample_positions(run.len(), ALPHABET_SAMPLE).map(|i| run[i]);
        let (common, all_equal) = keys.common_prefix(sample, depth, reference);
        if common >= MIN_SKIP || (all_equal && exact) {
            run.par_chunks(ALPHABET_CHUNK)
                .map(|chunk| keys.common_prefix(chunk.iter().copied(), depth, reference))
                .reduce(|| (usize::MAX, true), |a, b| (a.0.min(b.0), a.1 && b.1))
        } else {
            (0, false)
        }
    };
    if all_equal && exact {
        // Equal strings, in index order.
        return;
    }
    depth += common;

    // Most text uses few bytes, and a sample shows which; should a string hold another, the
    // keys say so, and the whole alphabet is taken.
    let alphabet = if run.len() > ALPHABET_SAMPLE {
        keys.sampled_alphabet(run, depth)
    } else {
        keys.alphabet(run, depth)
    };
    let mut encoding = Encoding::new(&alphabet, keys.prefix_bits());
    let (mut longest, absent) = keys.rekey(run, depth, &encoding);
    if absent {
        encoding = Encoding::new(&keys.alphabet(run, depth), keys.prefix_bits());
        (longest, _) = keys.rekey(run, depth, &encoding);
    }
    if longest <= depth {
        // Every string has ended: the keys are bare indices, still in order.
        if !exact {
            // Zero bytes and ends looked alike: comparing (lengths) orders them. Equal strings
            // in index order are a single run for the merge sort: one pass.
            let compare = |a: &u64, b: &u64| keys.compare(a, b);
            merge::par_merge_sort(
                run,
                &compare,
                &|leaf: &mut [u64]| leaf.sort_unstable_by(compare),
                tuning,
            );
        }
        // Else they are equal.
        return;
    }
    if run.len() < tuning.string_radix_from {
        run.sort_unstable();
    } else {
        radix::radix_sort(run, tuning);
    }
    par_resolve(
        run,
        depth + encoding.chars,
        exact && encoding.exact,
        keys,
        tuning,
    );
}

/// Orders each run of equal prefixes in `order`, sorted keys made by `sort_run`; `depth` and
/// `exact` are as `sort_run` takes them, for the strings of each run.
fn par_resolve<'s, F>(
    order: &mut [u64],
    depth: usize,
    exact: bool,
    keys: &Keys<'_, F>,
    tuning: &Tuning,
) where
    F: Fn(usize) -> &'s [u8] + Sync,
{
    let len = order.len();
    if len > tuning.radix_parallel_below.max(2) {
        // Split at an end of the run that holds the middle key, so no run is cut.
        let half = len / 2;
        let prefix = keys.prefix(order[half]);
        let start = order[..half].partition_point(|&k| keys.prefix(k) < prefix);
        let end = half + order[half..].partition_point(|&k| keys.prefix(k) == prefix);
        let mid = if start > 0 {
            start
        } else if end < len {
            end
        } else {
            return resolve_run(order, depth, exact, keys, tuning);
        };
        let (low, high) = order.split_at_mut(mid);
        crate::join(
            || par_resolve(low, depth, exact, keys, tuning),
            || par_resolve(high, depth, exact, keys, tuning),
        );
        return;
    }
    poll_scheduler();
    let mut start = 0;
    while start < len {
        let prefix = keys.prefix(order[start]);
        let mut end = start + 1;
        while end < len && keys.prefix(order[end]) == prefix {
            end += 1;
        }
        if end - start > 1 {
            resolve_run(&mut order[start..end], depth, exact, keys, tuning);
        }
        start = end;
    }
}

/// Orders `run`: at least two keys with the same prefix, in index order.
fn resolve_run<'s, F>(
    run: &mut [u64],
    depth: usize,
    exact: bool,
    keys: &Keys<'_, F>,
    tuning: &Tuning,
) where
    F: Fn(usize) -> &'s [u8] + Sync,
{
    if run.len() <= tuning.radix_small.max(2) {
        run.sort_unstable_by(|a, b| keys.compare(a, b));
    } else {
        sort_run(run, depth, exact, keys, tuning);
    }
}
