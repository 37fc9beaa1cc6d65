//! Slice and string splits that rayon has (`par_split_inclusive`, `par_chunk_by_mut`,
//! `par_array_windows`, exact chunks' remainders) against std.

use blitz_par::prelude::*;
use quickcheck::quickcheck;

#[test]
fn slice_split_inclusive_and_chunk_by_mut() {
    for n in [0usize, 1, 2, 100, 100_000] {
        let v: Vec<u32> = (0..n as u32)
            .map(|x| x.wrapping_mul(2_654_435_761) % 97)
            .collect();
        let sep = |&x: &u32| x % 13 == 0;
        let par: Vec<&[u32]> = v.par_split_inclusive(sep).collect();
        let seq: Vec<&[u32]> = v.split_inclusive(sep).collect();
        assert_eq!(par, seq, "n={n}");
        // Separator in last place, and every element a separator.
        let mut w = v.clone();
        w.push(0);
        let par: Vec<&[u32]> = w.par_split_inclusive(sep).collect();
        assert_eq!(par, w.split_inclusive(sep).collect::<Vec<_>>());
        let zeros = vec![0u32; n];
        assert_eq!(
            zeros.par_split_inclusive(sep).count(),
            zeros.split_inclusive(sep).count()
        );

        let mut a = v.clone();
        let mut b = v.clone();
        a.par_split_inclusive_mut(sep).for_each(|p| p.reverse());
        b.split_inclusive_mut(sep).for_each(|p| p.reverse());
        assert_eq!(a, b);

        let mut a = v.clone();
        let mut b = v.clone();
        a.par_chunk_by_mut(|x, y| x / 10 == y / 10)
            .for_each(|g| g.sort());
        b.chunk_by_mut(|x, y| x / 10 == y / 10)
            .for_each(|g| g.sort());
        assert_eq!(a, b);
        let mut a = v.clone();
        let groups = a.par_chunk_by_mut(|x, y| x <= y).count();
        assert_eq!(groups, v.chunk_by(|x, y| x <= y).count());
    }
}

#[test]
fn str_split_inclusive() {
    let text = "line one\nline two\n\nthird\u{2028}line\nlast".repeat(3000);
    for t in [
        "",
        "\n",
        "a",
        "a\n",
        "\n\n",
        "no newline",
        text.as_str(),
        &text[..text.len() - 4],
    ] {
        let par: Vec<&str> = t.par_split_inclusive('\n').collect();
        assert_eq!(par, t.split_inclusive('\n').collect::<Vec<_>>());
        let par: Vec<&str> = t.par_split_inclusive(char::is_whitespace).collect();
        assert_eq!(
            par,
            t.split_inclusive(char::is_whitespace).collect::<Vec<_>>()
        );
    }
    let it: blitz_par::str::SplitTerminator<'_, char> = "a;b;".par_split_terminator(';');
    assert_eq!(it.collect::<Vec<_>>(), ["a", "b"]);
    let it: blitz_par::str::SplitAsciiWhitespace<'_> = " a  b ".par_split_ascii_whitespace();
    assert_eq!(it.collect::<Vec<_>>(), ["a", "b"]);
}

/// The iterator types rayon names apart are types apart here too (not aliases of one type), so
/// that code with an `impl` for each, as rayon allows, builds.
#[test]
fn iterator_types_named_apart_are_distinct() {
    use blitz_par::iter::{SkipAny, TakeAny};
    use blitz_par::str::{
        Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
    };
    use std::any::TypeId;
    type R = blitz_par::range::Iter<u32>;
    fn id<T: 'static>() -> TypeId {
        TypeId::of::<T>()
    }
    assert_ne!(id::<TakeAny<R>>(), id::<SkipAny<R>>());
    let splits = [
        id::<Split<'static, char>>(),
        id::<SplitTerminator<'static, char>>(),
        id::<SplitInclusive<'static, char>>(),
    ];
    assert!(splits[0] != splits[1] && splits[1] != splits[2] && splits[0] != splits[2]);
    assert_ne!(
        id::<SplitWhitespace<'static>>(),
        id::<SplitAsciiWhitespace<'static>>()
    );
    // Each keeps its own behaviour.
    let take: TakeAny<R> = (0..100u32).into_par_iter().take_any(10);
    let skip: SkipAny<R> = (0..100u32).into_par_iter().skip_any(10);
    assert_eq!((take.count(), skip.count()), (10, 90));
    let s = "a\u{2003}b c";
    let ws: SplitWhitespace<'_> = s.par_split_whitespace();
    let ascii: SplitAsciiWhitespace<'_> = s.par_split_ascii_whitespace();
    assert_eq!(
        ws.collect::<Vec<_>>(),
        s.split_whitespace().collect::<Vec<_>>()
    );
    assert_eq!(
        ascii.collect::<Vec<_>>(),
        s.split_ascii_whitespace().collect::<Vec<_>>()
    );
}

#[test]
fn slice_array_windows() {
    for n in [0usize, 1, 2, 3, 10_000] {
        let v: Vec<u32> = (0..n as u32).collect();
        let par: Vec<&[u32; 3]> = v.par_array_windows().collect();
        let seq: Vec<&[u32; 3]> = v.windows(3).map(|w| w.try_into().unwrap()).collect();
        assert_eq!(par, seq);
        assert_eq!(v.par_array_windows::<1>().len(), n);
        let rev: Vec<[u32; 2]> = v.par_array_windows().rev().copied().collect();
        let mut seq: Vec<[u32; 2]> = v.windows(2).map(|w| [w[0], w[1]]).collect();
        seq.reverse();
        assert_eq!(rev, seq);
    }
}

#[test]
fn exact_chunks_remainders() {
    for n in [0usize, 1, 5, 6, 1001] {
        let mut v: Vec<u32> = (0..n as u32).collect();
        for size in [1usize, 2, 3, 7] {
            assert_eq!(
                v.par_chunks_exact(size).remainder(),
                v.chunks_exact(size).remainder()
            );
            assert_eq!(
                v.par_rchunks_exact(size).remainder(),
                v.rchunks_exact(size).remainder()
            );
            let want = v.chunks_exact(size).remainder().to_vec();
            assert_eq!(v.par_chunks_exact_mut(size).into_remainder(), &want[..]);
            let want = v.rchunks_exact(size).remainder().to_vec();
            let mut it = v.par_rchunks_exact_mut(size);
            assert_eq!(it.remainder(), &want[..]);
            let taken = it.take_remainder();
            assert!(it.remainder().is_empty());
            assert_eq!(it.count(), n / size);
            assert_eq!(taken, &want[..]);
        }
    }
}

quickcheck! {
    fn prop_slice_split_inclusive(v: Vec<u8>) -> bool {
        let sep = |&x: &u8| x % 5 == 0;
        let par: Vec<&[u8]> = v.par_split_inclusive(sep).collect();
        let mut a = v.clone();
        let mut b = v.clone();
        a.par_split_inclusive_mut(sep).for_each(|p| p.sort());
        b.split_inclusive_mut(sep).for_each(|p| p.sort());
        par == v.split_inclusive(sep).collect::<Vec<_>>() && a == b
    }

    fn prop_chunk_by_mut(v: Vec<u8>) -> bool {
        let mut a = v.clone();
        let mut b = v.clone();
        a.par_chunk_by_mut(|x, y| x <= y).for_each(|g| g.reverse());
        b.chunk_by_mut(|x, y| x <= y).for_each(|g| g.reverse());
        a == b
    }

    fn prop_str_split_inclusive(s: String) -> bool {
        let par: Vec<&str> = s.par_split_inclusive(|c: char| c.is_ascii_punctuation()).collect();
        par == s.split_inclusive(|c: char| c.is_ascii_punctuation()).collect::<Vec<_>>()
    }
}
