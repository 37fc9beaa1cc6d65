//! Parallel iterators over string slices: [`ParallelString`].
//!
//! Every iterator here is unindexed. A string is split near its middle at a point the items do
//! not cross: a char boundary for chars, bytes and matches of a char pattern, and a separator
//! for the `split` family, so that the pieces of the two halves are exactly the pieces of the
//! whole. Leaves run std's sequential `str` iterators.

use crate::iter::plumbing::{
    bridge_unindexed_halving, Folder, UnindexedConsumer, UnindexedProducer,
};
use crate::iter::ParallelIterator;

/// A char pattern for the `par_split` and `par_matches` families: a `char`, a slice or array of
/// chars (any of them), or a predicate `Fn(char) -> bool + Sync + Send`. (rayon's `Pattern`;
/// std's `&str` patterns are not supported, as in rayon.) Sealed, as rayon's is: only these
/// types implement it.
///
/// ```
/// use blitz_par::prelude::*;
/// assert_eq!("a-b_c".par_split(&['-', '_'][..]).count(), 3);
/// assert_eq!("a-b_c".par_split(|c: char| !c.is_alphabetic()).count(), 3);
/// ```
pub trait Pattern: sealed::Sealed + Sync + Send {
    /// Whether `c` matches.
    fn matches_char(&self, c: char) -> bool;
}

/// Keeps [`Pattern`] to the types this module implements it for.
/// It also carries the leaf loop of the split family, which users can neither call nor
/// override: the trait cannot be named outside this module.
mod sealed {
    use super::{fold_split_pieces, Folder, Pattern};

    /// Implemented exactly where `Pattern` is.
    pub trait Sealed {
        /// Folds the pieces of `text` between matches into `folder` (`split`;
        /// `split_inclusive` when `inclusive`, each piece keeping the match that ends it),
        /// leaving out a final empty piece when `terminator`. The default runs std's split
        /// with [`Pattern::matches_char`]; patterns that can be searched faster (a single
        /// `char`, whitespace) override it.
        #[inline]
        fn fold_splits<'a, F>(
            &self,
            text: &'a str,
            folder: F,
            inclusive: bool,
            terminator: bool,
        ) -> F
        where
            F: Folder<&'a str>,
            Self: Pattern + Sized,
        {
            let matches = |c| self.matches_char(c);
            if inclusive {
                folder.consume_iter(text.split_inclusive(matches))
            } else {
                fold_split_pieces(text.split(matches), folder, terminator)
            }
        }
    }
    impl Sealed for &[char] {}
    impl<const N: usize> Sealed for [char; N] {}
    impl<const N: usize> Sealed for &[char; N] {}
    impl<F: Fn(char) -> bool + Sync + Send> Sealed for F {}
}

/// Folds the pieces of a `split` into `folder`; with `terminator`, a final empty piece (the
/// text is empty or ends with a separator) is not an item (as `split_terminator`).
#[inline]
fn fold_split_pieces<'a, F, I>(pieces: I, folder: F, terminator: bool) -> F
where
    F: Folder<&'a str>,
    I: Iterator<Item = &'a str>,
{
    if !terminator {
        return folder.consume_iter(pieces);
    }
    let mut pieces = pieces.peekable();
    let mut folder = folder;
    while let Some(piece) = pieces.next() {
        if piece.is_empty() && pieces.peek().is_none() {
            break;
        }
        folder = folder.consume(piece);
        if folder.full() {
            break;
        }
    }
    folder
}

impl Pattern for char {
    fn matches_char(&self, c: char) -> bool {
        *self == c
    }
}

impl sealed::Sealed for char {
    #[inline]
    fn fold_splits<'a, F>(&self, text: &'a str, folder: F, inclusive: bool, terminator: bool) -> F
    where
        F: Folder<&'a str>,
    {
        // std's searcher for one char looks for its last byte with `memchr`.
        if inclusive {
            folder.consume_iter(text.split_inclusive(*self))
        } else {
            if self.is_ascii() {
                let pieces = AsciiSplit {
                    text,
                    start: 0,
                    finished: false,
                    separator: *self as u8,
                };
                fold_split_pieces(pieces, folder, terminator)
            } else {
                fold_split_pieces(text.split(*self), folder, terminator)
            }
        }
    }
}

/// The separator of [`ParallelString::par_split_whitespace`] (Unicode whitespace) and
/// [`ParallelString::par_split_ascii_whitespace`] (ASCII whitespace): a pattern whose test is
/// inlined into the leaf loop, where a function pointer would be called at every char.
#[derive(Clone, Copy, Debug)]
struct Whitespace {
    ascii: bool,
}

impl Pattern for Whitespace {
    #[inline]
    fn matches_char(&self, c: char) -> bool {
        if self.ascii {
            c.is_ascii_whitespace()
        } else {
            c.is_whitespace()
        }
    }
}

impl sealed::Sealed for Whitespace {
    #[inline]
    fn fold_splits<'a, F>(&self, text: &'a str, folder: F, inclusive: bool, terminator: bool) -> F
    where
        F: Folder<&'a str>,
    {
        match (self.ascii, inclusive) {
            // ASCII whitespace never occurs inside a multi-byte char: split the bytes (as
            // std's `split_ascii_whitespace` does).
            (true, false) => {
                let pieces = text.as_bytes().split(u8::is_ascii_whitespace).map(|piece| {
                    // SAFETY: `piece` lies between ASCII bytes (or the ends) of a `str`, so it
                    // starts and ends on char boundaries and is valid UTF-8.
                    unsafe { std::str::from_utf8_unchecked(piece) }
                });
                fold_split_pieces(pieces, folder, terminator)
            }
            (false, false) => fold_split_pieces(
                UnicodeWhitespaceSplit {
                    text,
                    start: 0,
                    finished: false,
                },
                folder,
                terminator,
            ),
            (true, true) => {
                folder.consume_iter(text.split_inclusive(|c: char| c.is_ascii_whitespace()))
            }
            (false, true) => folder.consume_iter(text.split_inclusive(char::is_whitespace)),
        }
    }
}

/// `text.split(separator)` for an ASCII separator, which never occurs inside a multi-byte
/// char: a search of the bytes, 8 at a time, inlined into the leaf loop. std's split calls
/// `memchr` and then compares the char's bytes through `memcmp` for every piece, which short
/// pieces (lines of text) pay in full.
struct AsciiSplit<'a> {
    text: &'a str,
    /// Where the next piece starts (just after a separator, or 0).
    start: usize,
    finished: bool,
    separator: u8,
}

impl<'a> Iterator for AsciiSplit<'a> {
    type Item = &'a str;

    // Always inlined into the leaf, as `UnicodeWhitespaceSplit::next` is, for the same reason.
    #[inline(always)]
    fn next(&mut self) -> Option<&'a str> {
        if self.finished {
            return None;
        }
        let rest = &self.text.as_bytes()[self.start..];
        match find_byte(rest, self.separator) {
            Some(k) => {
                let piece = &self.text[self.start..self.start + k];
                self.start += k + 1;
                Some(piece)
            }
            None => {
                self.finished = true;
                Some(&self.text[self.start..])
            }
        }
    }
}

/// The index of the first `byte` in `haystack`: eight bytes at a time, each word tested for a
/// zero byte after an XOR with the byte repeated (the lowest flagged byte is exact).
#[inline]
fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(byte);
    let mut words = haystack.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ pattern;
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        if zeros != 0 {
            return Some(offset + (zeros.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == byte)
        .map(|k| offset + k)
}

/// `text.split(char::is_whitespace)`, with the test of ASCII bytes (nearly all of most text)
/// done on the byte: std's split decodes every char first.
struct UnicodeWhitespaceSplit<'a> {
    text: &'a str,
    /// Where the next piece starts (a char boundary).
    start: usize,
    finished: bool,
}

impl<'a> Iterator for UnicodeWhitespaceSplit<'a> {
    type Item = &'a str;

    // Always inlined, with the rare multi-byte char out of line: where LLVM declined to
    // inline this loop into the leaf (as it did in some binaries, not others), every piece
    // paid a call and the split ran at about two thirds of its inlined speed.
    #[inline(always)]
    fn next(&mut self) -> Option<&'a str> {
        if self.finished {
            return None;
        }
        let bytes = self.text.as_bytes();
        let mut i = self.start;
        while let Some(&b) = bytes.get(i) {
            let (space, len) = if b < 0x80 {
                // `char::is_whitespace` of the ASCII chars: U+0009 to U+000D and U+0020.
                (matches!(b, b'\t'..=b'\r' | b' '), 1)
            } else if matches!(b, 0xc2 | 0xe1 | 0xe2 | 0xe3) {
                // The lead bytes of the other whitespace chars (U+0085, U+00A0, U+1680,
                // U+2000 to U+205F, U+3000): decode and test.
                non_ascii_whitespace(self.text, i)
            } else {
                // Any other lead byte (`i` is a char boundary) starts a char that is not
                // whitespace, whose length it gives.
                (false, 2 + usize::from(b >= 0xe0) + usize::from(b >= 0xf0))
            };
            if space {
                let piece = &self.text[self.start..i];
                self.start = i + len;
                return Some(piece);
            }
            i += len;
        }
        self.finished = true;
        Some(&self.text[self.start..])
    }
}

/// Whether the char at `i` (a char boundary) is whitespace, and its length in bytes.
#[inline(never)]
fn non_ascii_whitespace(text: &str, i: usize) -> (bool, usize) {
    let c = text[i..].chars().next().unwrap_or_default();
    (c.is_whitespace(), c.len_utf8())
}

impl Pattern for &[char] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> Pattern for [char; N] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> Pattern for &[char; N] {
    fn matches_char(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    fn matches_char(&self, c: char) -> bool {
        self(c)
    }
}

/// Parallel iterators over the contents of a string (rayon's `ParallelString`).
///
/// ```
/// use blitz_par::prelude::*;
/// let words = "one two  three".par_split_whitespace().count();
/// assert_eq!(words, 3);
/// ```
pub trait ParallelString {
    /// The string itself.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("ab".as_parallel_string(), "ab");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// The chars, in order where order matters.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("héllo".par_chars().filter(|c| c.is_ascii()).count(), 4);
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            text: self.as_parallel_string(),
        }
    }

    /// The chars with their byte offsets.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(usize, char)> = "aé!".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'é'), (3, '!')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            text: self.as_parallel_string(),
        }
    }

    /// The bytes.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 294);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            text: self.as_parallel_string(),
        }
    }

    /// The UTF-16 code units.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("a😀".par_encode_utf16().count(), 3);
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            text: self.as_parallel_string(),
        }
    }

    /// The pieces between matches of `separator` (as `str::split`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = "a,b,,c".par_split(',').collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split(SplitParts {
            text: self.as_parallel_string(),
            separator,
            terminator: false,
            inclusive: false,
        })
    }

    /// The pieces ending at each match of `separator`, the match included (as
    /// `str::split_inclusive`): no empty piece at the end, none at all for an empty string.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = "a\nb\n\nc".par_split_inclusive('\n').collect();
    /// assert_eq!(v, ["a\n", "b\n", "\n", "c"]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive(SplitParts {
            text: self.as_parallel_string(),
            separator,
            terminator: false,
            inclusive: true,
        })
    }

    /// The pieces between matches of `terminator`, without a final empty piece (as
    /// `str::split_terminator`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = "a;b;".par_split_terminator(';').collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator(split_parts(self.as_parallel_string(), terminator, true))
    }

    /// The lines, without their `\n` or `\r\n` (as `str::lines`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = "a\r\nb\n\nc\n".par_lines().collect();
    /// assert_eq!(v, ["a", "b", "", "c"]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines(split_parts(self.as_parallel_string(), '\n', true))
    }

    /// The non-empty pieces between whitespace (as `str::split_whitespace`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = "  a b\t\n c ".par_split_whitespace().collect();
    /// assert_eq!(v, ["a", "b", "c"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        let ws = Whitespace { ascii: false };
        SplitWhitespace(split_parts(self.as_parallel_string(), ws, false))
    }

    /// The non-empty pieces between ASCII whitespace (as `str::split_ascii_whitespace`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&str> = " a  b ".par_split_ascii_whitespace().collect();
    /// assert_eq!(v, ["a", "b"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        let ws = Whitespace { ascii: true };
        SplitAsciiWhitespace(split_parts(self.as_parallel_string(), ws, false))
    }

    /// The matches of `pattern` (as `str::matches`; every match is one char).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("a1b22".par_matches(char::is_numeric).count(), 3);
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            text: self.as_parallel_string(),
            pattern,
        }
    }

    /// The matches of `pattern` with their byte offsets (as `str::match_indices`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<(usize, &str)> = "a1b2".par_match_indices(char::is_numeric).collect();
    /// assert_eq!(v, [(1, "1"), (3, "2")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            text: self.as_parallel_string(),
            pattern,
        }
    }
}

impl ParallelString for str {
    #[inline]
    fn as_parallel_string(&self) -> &str {
        self
    }
}

#[inline]
fn strip_carriage_return(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

#[inline]
fn not_empty(piece: &&str) -> bool {
    !piece.is_empty()
}

/// The parallel iterator of [`ParallelString::par_lines`].
///
/// ```
/// use blitz_par::prelude::*;
/// let l: blitz_par::str::Lines<'_> = "a\nb".par_lines();
/// assert_eq!(l.count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Lines<'a>(SplitParts<'a, char>);

impl<'a> ParallelIterator for Lines<'a> {
    type Item = &'a str;
    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        // A function item, inlined into the leaf loop (a function pointer in the type, as
        // before, cost an indirect call per line).
        self.0.map(strip_carriage_return).drive_unindexed(consumer)
    }
}

/// The parallel iterator of [`ParallelString::par_split_whitespace`].
///
/// ```
/// use blitz_par::prelude::*;
/// let w: blitz_par::str::SplitWhitespace<'_> = " a b ".par_split_whitespace();
/// assert_eq!(w.count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SplitWhitespace<'a>(SplitParts<'a, Whitespace>);

impl<'a> ParallelIterator for SplitWhitespace<'a> {
    type Item = &'a str;
    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        // As for `Lines`: the test for empty pieces is inlined.
        self.0.filter(not_empty).drive_unindexed(consumer)
    }
}

/// The parallel iterator of [`ParallelString::par_split_ascii_whitespace`].
///
/// ```
/// use blitz_par::prelude::*;
/// let w: blitz_par::str::SplitAsciiWhitespace<'_> = " a b ".par_split_ascii_whitespace();
/// assert_eq!(w.count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SplitAsciiWhitespace<'a>(SplitParts<'a, Whitespace>);

impl<'a> ParallelIterator for SplitAsciiWhitespace<'a> {
    type Item = &'a str;
    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        self.0.filter(not_empty).drive_unindexed(consumer)
    }
}

/// The char boundary at or after the middle of `text` (`text.len()` if none before the end).
fn middle_boundary(text: &str) -> usize {
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    mid
}

/// A piece of the original string starting at byte `offset`, split at char boundaries.
struct CharProducer<'a, K> {
    text: &'a str,
    offset: usize,
    kind: K,
}

/// What a [`CharProducer`]'s leaves yield.
trait CharLeaf<'a>: Copy + Send {
    type Item: Send;
    fn fold<F: Folder<Self::Item>>(self, text: &'a str, offset: usize, folder: F) -> F;
}

impl<'a, K: CharLeaf<'a>> UnindexedProducer for CharProducer<'a, K> {
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = K::Item;
    fn split(self) -> (Self, Option<Self>) {
        let mid = middle_boundary(self.text);
        if mid == 0 || mid >= self.text.len() {
            return (self, None);
        }
        let (left, right) = self.text.split_at(mid);
        (
            CharProducer {
                text: left,
                offset: self.offset,
                kind: self.kind,
            },
            Some(CharProducer {
                text: right,
                offset: self.offset + mid,
                kind: self.kind,
            }),
        )
    }
    fn fold_with<F: Folder<K::Item>>(self, folder: F) -> F {
        self.kind.fold(self.text, self.offset, folder)
    }
}

macro_rules! char_iter {
    ($(#[$doc:meta])* $name:ident $(<$p:ident>)?, $leaf:ident, item $item:ty, |$text:ident, $offset:ident, $kind:ident| $iter:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name<'a $(, $p)?> {
            text: &'a str,
            $(pattern: $p,)?
        }

        struct $leaf<'p $(, $p)?> {
            $(pattern: &'p $p,)?
            _marker: std::marker::PhantomData<&'p ()>,
        }

        impl<'p $(, $p)?> Clone for $leaf<'p $(, $p)?> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<'p $(, $p)?> Copy for $leaf<'p $(, $p)?> {}

        impl<'a, 'p $(, $p: Pattern)?> CharLeaf<'a> for $leaf<'p $(, $p)?> {
            type Item = $item;
            fn fold<F: Folder<$item>>(self, $text: &'a str, $offset: usize, folder: F) -> F {
                let $kind = self;
                let _ = &$kind;
                folder.consume_iter($iter)
            }
        }

        impl<'a $(, $p: Pattern)?> ParallelIterator for $name<'a $(, $p)?> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<$item>>(self, consumer: C) -> C::Result {
                let kind = $leaf { $(pattern: &self.pattern as &$p,)? _marker: std::marker::PhantomData };
                bridge_unindexed_halving(CharProducer { text: self.text, offset: 0, kind }, consumer)
            }
        }
    };
}

char_iter!(
    /// The parallel iterator of [`ParallelString::par_chars`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("abc".par_chars().collect::<String>(), "abc");
    /// ```
    Chars, CharsLeaf, item char, |text, _offset, _kind| text.chars()
);

char_iter!(
    /// The parallel iterator of [`ParallelString::par_char_indices`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("ab".par_char_indices().map(|(i, _)| i).sum::<usize>(), 1);
    /// ```
    CharIndices, CharIndicesLeaf, item (usize, char), |text, offset, _kind| text.char_indices().map(move |(i, c)| (i + offset, c))
);

char_iter!(
    /// The parallel iterator of [`ParallelString::par_bytes`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("ab".par_bytes().collect::<Vec<u8>>(), b"ab");
    /// ```
    Bytes, BytesLeaf, item u8, |text, _offset, _kind| text.bytes()
);

char_iter!(
    /// The parallel iterator of [`ParallelString::par_encode_utf16`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u16> = "hé".par_encode_utf16().collect();
    /// assert_eq!(v, "hé".encode_utf16().collect::<Vec<_>>());
    /// ```
    EncodeUtf16, EncodeUtf16Leaf, item u16, |text, _offset, _kind| text.encode_utf16()
);

char_iter!(
    /// The parallel iterator of [`ParallelString::par_matches`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("a,b,c".par_matches(',').count(), 2);
    /// ```
    Matches<P>, MatchesLeaf, item &'a str, |text, _offset, kind| text.matches(|c| kind.pattern.matches_char(c))
);

char_iter!(
    /// The parallel iterator of [`ParallelString::par_match_indices`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!("a,b".par_match_indices(',').collect::<Vec<_>>(), [(1, ",")]);
    /// ```
    MatchIndices<P>, MatchIndicesLeaf, item (usize, &'a str),
    |text, offset, kind| text.match_indices(|c| kind.pattern.matches_char(c)).map(move |(i, m)| (i + offset, m))
);

/// The pieces of a string between (or, `inclusive`, ending at) the matches of a separator:
/// what [`Split`], [`SplitTerminator`], [`SplitInclusive`], [`Lines`] and the whitespace
/// splits drive.
#[derive(Clone, Debug)]
struct SplitParts<'a, P> {
    text: &'a str,
    separator: P,
    /// `split_terminator`: no empty piece after a final separator.
    terminator: bool,
    /// `split_inclusive`: each piece keeps the separator that ends it.
    inclusive: bool,
}

/// The exclusive pieces of `text` between matches of `separator` (`terminator`: without a
/// final empty piece).
fn split_parts<P>(text: &str, separator: P, terminator: bool) -> SplitParts<'_, P> {
    SplitParts {
        text,
        separator,
        terminator,
        inclusive: false,
    }
}

/// The parallel iterator of [`ParallelString::par_split`].
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::str::Split<'_, char> = "a b c".par_split(' ');
/// assert_eq!(it.collect::<Vec<_>>(), ["a", "b", "c"]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct Split<'a, P>(SplitParts<'a, P>);

/// The parallel iterator of [`ParallelString::par_split_terminator`].
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::str::SplitTerminator<'_, char> = "a;b;".par_split_terminator(';');
/// assert_eq!(it.count(), 2);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SplitTerminator<'a, P>(SplitParts<'a, P>);

/// The parallel iterator of [`ParallelString::par_split_inclusive`].
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::str::SplitInclusive<'_, char> = "a;b".par_split_inclusive(';');
/// assert_eq!(it.collect::<Vec<_>>(), ["a;", "b"]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "iterator adapters are lazy"]
pub struct SplitInclusive<'a, P>(SplitParts<'a, P>);

/// The three public splits drive their [`SplitParts`].
macro_rules! drive_split_parts {
    ($($name:ident),*) => {$(
        impl<'a, P: Pattern> ParallelIterator for $name<'a, P> {
            type Item = &'a str;
            fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
                self.0.drive_unindexed(consumer)
            }
        }
    )*};
}

drive_split_parts!(Split, SplitTerminator, SplitInclusive);

impl<'a, P: Pattern> ParallelIterator for SplitParts<'a, P> {
    type Item = &'a str;
    fn drive_unindexed<C: UnindexedConsumer<&'a str>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            text: self.text,
            separator: &self.separator,
            last: self.terminator,
            inclusive: self.inclusive,
        };
        bridge_unindexed_halving(producer, consumer)
    }
}

/// A part of the string whose pieces are exactly `text.split(separator)`: parts are cut at a
/// separator, which neither side keeps.
struct SplitProducer<'a, 'p, P> {
    text: &'a str,
    separator: &'p P,
    /// This part ends the string and the iterator is `split_terminator`: drop a final empty
    /// piece.
    last: bool,
    /// `split_inclusive`: the left part keeps the separator it is cut at, and a separator
    /// that ends the part is no place to cut (the left part would be the whole again).
    inclusive: bool,
}

impl<'a, 'p, P: Pattern> UnindexedProducer for SplitProducer<'a, 'p, P> {
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = &'a str;

    fn split(self) -> (Self, Option<Self>) {
        let mid = middle_boundary(self.text);
        let cut_end = match self.inclusive {
            true => self.text.len(),
            false => usize::MAX,
        };
        let is_sep =
            |(i, c): (usize, char)| self.separator.matches_char(c) && i + c.len_utf8() < cut_end;
        // The nearest separator after the middle, else the nearest before it. Also the one
        // before it when the one after ends the text: that cut leaves nothing on its right
        // (`par_lines` over "a\nb\n" would split into "a\nb" and ""), and a few long
        // pieces, each worth a thread, are where a split matters most.
        let before = || self.text[..mid].char_indices().rev().find(|&ic| is_sep(ic));
        let found = match self.text[mid..]
            .char_indices()
            .map(|(i, c)| (mid + i, c))
            .find(|&ic| is_sep(ic))
        {
            Some((i, c)) if i + c.len_utf8() == self.text.len() => before().or(Some((i, c))),
            Some(after) => Some(after),
            None => before(),
        }
        .map(|(i, c)| (i, c.len_utf8()));
        match found {
            Some((at, sep_len)) => (
                SplitProducer {
                    text: &self.text[..at + if self.inclusive { sep_len } else { 0 }],
                    separator: self.separator,
                    last: false,
                    inclusive: self.inclusive,
                },
                Some(SplitProducer {
                    text: &self.text[at + sep_len..],
                    separator: self.separator,
                    last: self.last,
                    inclusive: self.inclusive,
                }),
            ),
            None => (self, None),
        }
    }

    fn fold_with<F: Folder<&'a str>>(self, folder: F) -> F {
        sealed::Sealed::fold_splits(self.separator, self.text, folder, self.inclusive, self.last)
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn ascii_split_matches_std() {
        for byte in [b'\n', b',', b'a', 0u8, 0x7f] {
            assert_eq!(super::find_byte(&[], byte), None);
            // Every position in words and remainders, with matches before and after.
            for len in 0..40 {
                for at in 0..len {
                    let mut hay = vec![byte.wrapping_add(1); len];
                    hay[at] = byte;
                    if at + 3 < len {
                        hay[at + 3] = byte;
                    }
                    assert_eq!(super::find_byte(&hay, byte), Some(at), "{len} {at}");
                }
            }
        }
        // Bytes that differ from the separator only in the high bit, or by one.
        let hay = [0x8a, 0x0b, 0x09, 0x8a, 0x0a];
        assert_eq!(super::find_byte(&hay, 0x0a), Some(4));
        let texts = ["", ",", ",,", "a,b", "ü,€,,😀,", ",x,", "no separator"];
        for text in texts {
            let ours: Vec<&str> = super::AsciiSplit {
                text,
                start: 0,
                finished: false,
                separator: b',',
            }
            .collect();
            assert_eq!(ours, text.split(',').collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn unicode_whitespace_split_matches_std() {
        let spaces: Vec<char> = (0..=0x3000u32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .collect();
        assert_eq!(spaces.len(), 25);
        let mut texts: Vec<String> = ["", " ", "a", " a ", "a  b", "é\u{a0}😀\u{3000}x\u{85}"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Every whitespace char between, before and after multi-byte and ASCII chars.
        for &c in &spaces {
            texts.push(format!("{c}ä{c}{c}b€{c}"));
        }
        // Multi-byte chars that are not whitespace, next to ASCII whitespace.
        texts.push("\u{2060}\t\u{feff}\r\n\u{200b}\u{1680}x".to_string());
        // Chars that share a lead byte with whitespace chars but are not whitespace.
        texts.push("\u{a9}\u{1681}\u{3001} \u{a9}\u{205f}\u{2060}\u{3000}\u{3001}".to_string());
        for text in &texts {
            let ours: Vec<&str> = super::UnicodeWhitespaceSplit {
                text,
                start: 0,
                finished: false,
            }
            .collect();
            let std: Vec<&str> = text.split(char::is_whitespace).collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    fn texts() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            ",",
            ",,",
            "a",
            "a,",
            ",a",
            "a,b,,c,",
            "héllo, wörld,,😀,x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push(
            (0..2000)
                .map(|i| {
                    if i % 7 == 0 {
                        ','
                    } else {
                        char::from(b'a' + (i % 26) as u8)
                    }
                })
                .collect(),
        );
        v.push("line one\r\nline two\n\n  spaced   out \t\nlast".repeat(50));
        v
    }

    #[test]
    fn split_family_matches_std() {
        for t in texts() {
            let t = t.as_str();
            assert_eq!(
                t.par_split(',').collect::<Vec<_>>(),
                t.split(',').collect::<Vec<_>>(),
                "{t:?}"
            );
            assert_eq!(
                t.par_split_terminator(',').collect::<Vec<_>>(),
                t.split_terminator(',').collect::<Vec<_>>(),
                "{t:?}"
            );
            assert_eq!(
                t.par_lines().collect::<Vec<_>>(),
                t.lines().collect::<Vec<_>>(),
                "{t:?}"
            );
            assert_eq!(
                t.par_split_whitespace().collect::<Vec<_>>(),
                t.split_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(
                t.par_split_ascii_whitespace().collect::<Vec<_>>(),
                t.split_ascii_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(t.par_chars().collect::<String>(), t);
            assert_eq!(
                t.par_char_indices().collect::<Vec<_>>(),
                t.char_indices().collect::<Vec<_>>()
            );
            assert_eq!(t.par_bytes().collect::<Vec<_>>(), t.as_bytes());
            assert_eq!(
                t.par_encode_utf16().collect::<Vec<_>>(),
                t.encode_utf16().collect::<Vec<_>>()
            );
            assert_eq!(
                t.par_matches(',').collect::<Vec<_>>(),
                t.matches(',').collect::<Vec<_>>()
            );
            assert_eq!(
                t.par_match_indices(',').collect::<Vec<_>>(),
                t.match_indices(',').collect::<Vec<_>>()
            );
        }
    }
}
