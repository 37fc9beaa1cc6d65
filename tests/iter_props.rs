//! Properties: every adapter and consumer gives what std's sequential iterator gives, on
//! random inputs (order-sensitive ones exactly; float sums within a relative tolerance).

use blitz_par::prelude::*;
use quickcheck::{quickcheck, TestResult};
use std::collections::{BTreeMap, BTreeSet, HashSet, LinkedList, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn small(n: usize) -> usize {
    n % 64 + 1
}

quickcheck! {
    fn map_collect(v: Vec<i32>) -> bool {
        let par: Vec<i64> = v.par_iter().map(|&x| i64::from(x) * 3).collect();
        par == v.iter().map(|&x| i64::from(x) * 3).collect::<Vec<_>>()
    }

    fn filter_filter_map(v: Vec<i32>) -> bool {
        let a: Vec<i32> = v.par_iter().copied().filter(|x| x % 3 == 0).collect();
        let b: Vec<i32> = v.par_iter().filter_map(|&x| (x % 2 == 0).then_some(x / 2)).collect();
        a == v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
            && b == v.iter().filter_map(|&x| (x % 2 == 0).then_some(x / 2)).collect::<Vec<_>>()
    }

    fn sum_product_count(v: Vec<i16>) -> bool {
        let s: i64 = v.par_iter().map(|&x| i64::from(x)).sum();
        let p: u64 = v.par_iter().map(|&x| u64::from(x.unsigned_abs() % 3)).product::<u64>();
        s == v.iter().map(|&x| i64::from(x)).sum::<i64>()
            && p == v.iter().map(|&x| u64::from(x.unsigned_abs() % 3)).product::<u64>()
            && v.par_iter().count() == v.len()
    }

    fn float_sum_within_rounding(v: Vec<f32>) -> TestResult {
        if v.iter().any(|x| !x.is_finite()) {
            return TestResult::discard();
        }
        let v: Vec<f64> = v.into_iter().map(f64::from).collect();
        let seq: f64 = v.iter().sum();
        let par: f64 = v.par_iter().sum();
        let scale: f64 = v.iter().map(|x| x.abs()).sum::<f64>().max(1.0);
        TestResult::from_bool((seq - par).abs() <= 1e-9 * scale)
    }

    fn enumerate_zip_rev(v: Vec<u8>, w: Vec<u16>) -> bool {
        let e: Vec<(usize, u8)> = v.par_iter().copied().enumerate().collect();
        let z: Vec<(u8, u16)> = v.par_iter().copied().zip(w.par_iter().copied()).collect();
        let r: Vec<(usize, u8)> = v.par_iter().copied().enumerate().rev().collect();
        let rz: Vec<(u8, u16)> = v.par_iter().copied().zip(&w).map(|(a, &b)| (a, b)).rev().collect();
        e == v.iter().copied().enumerate().collect::<Vec<_>>()
            && z == v.iter().copied().zip(w.iter().copied()).collect::<Vec<_>>()
            && r == v.iter().copied().enumerate().rev().collect::<Vec<_>>()
            && rz == v.iter().copied().zip(w.iter().copied()).rev().collect::<Vec<_>>()
    }

    fn take_skip_chain(v: Vec<i32>, w: Vec<i32>, n: usize) -> bool {
        let n = n % (v.len() + 2);
        let t: Vec<i32> = v.par_iter().copied().take(n).collect();
        let s: Vec<i32> = v.par_iter().copied().skip(n).collect();
        let c: Vec<i32> = v.par_iter().copied().chain(w.par_iter().copied()).collect();
        let cu: Vec<i32> = v.par_iter().copied().filter(|x| x % 2 == 0).chain(w.clone()).collect();
        let cr: Vec<i32> = v.par_iter().copied().chain(w.par_iter().copied()).rev().skip(1).collect();
        t == v.iter().copied().take(n).collect::<Vec<_>>()
            && s == v.iter().copied().skip(n).collect::<Vec<_>>()
            && c == v.iter().chain(&w).copied().collect::<Vec<_>>()
            && cu == v.iter().copied().filter(|x| x % 2 == 0).chain(w.iter().copied()).collect::<Vec<_>>()
            && cr == v.iter().chain(&w).copied().rev().skip(1).collect::<Vec<_>>()
    }

    fn flat_maps(v: Vec<u8>) -> bool {
        let expected: Vec<u32> = v.iter().flat_map(|&x| 0..u32::from(x % 7)).collect();
        let a: Vec<u32> = v.par_iter().flat_map(|&x| (0..u32::from(x % 7)).into_par_iter()).collect();
        let b: Vec<u32> = v.par_iter().flat_map_iter(|&x| 0..u32::from(x % 7)).collect();
        let c: Vec<u32> = v.par_iter().map(|&x| (0..u32::from(x % 7)).collect::<Vec<_>>()).flatten().collect();
        let d: Vec<u32> = v.par_iter().map(|&x| (0..u32::from(x % 7)).collect::<Vec<_>>()).flatten_iter().collect();
        a == expected && b == expected && c == expected && d == expected
    }

    fn fold_reduce(v: Vec<i32>) -> bool {
        let expected: i64 = v.iter().map(|&x| i64::from(x)).sum();
        let a: i64 = v.par_iter().fold(|| 0i64, |a, &x| a + i64::from(x)).sum();
        let b: i64 = v.par_iter().fold_with(0i64, |a, &x| a + i64::from(x)).reduce(|| 0, |a, b| a + b);
        let c = v.par_iter().map(|&x| i64::from(x)).reduce_with(|a, b| a + b);
        let concat: Vec<i32> = v.par_iter().fold(Vec::new, |mut a, &x| { a.push(x); a }).reduce(Vec::new, |mut a, mut b| { a.append(&mut b); a });
        a == expected && b == expected && c == (!v.is_empty()).then_some(expected) && concat == v
    }

    fn min_max_first_last_of_ties(v: Vec<(u8, u16)>) -> bool {
        let by = |p: &&(u8, u16)| p.0;
        v.par_iter().min_by_key(by) == v.iter().min_by_key(by)
            && v.par_iter().max_by_key(by) == v.iter().max_by_key(by)
            && v.par_iter().min_by(|a, b| a.0.cmp(&b.0)) == v.iter().min_by(|a, b| a.0.cmp(&b.0))
            && v.par_iter().max_by(|a, b| a.0.cmp(&b.0)) == v.iter().max_by(|a, b| a.0.cmp(&b.0))
            && v.par_iter().min() == v.iter().min()
            && v.par_iter().max() == v.iter().max()
    }

    fn searches(v: Vec<u8>, target: u8) -> bool {
        let t = target % 16;
        let hit = |x: &&u8| **x % 16 == t;
        let any = v.par_iter().find_any(hit);
        any.iter().all(|x| *x % 16 == t)
            && any.is_some() == v.iter().any(|x| x % 16 == t)
            && v.par_iter().find_first(hit) .map(|x| x as *const u8) == v.iter().find(hit).map(|x| x as *const u8)
            && v.par_iter().find_last(hit).map(|x| x as *const u8) == v.iter().rfind(hit).map(|x| x as *const u8)
            && v.par_iter().position_first(|x| x % 16 == t) == v.iter().position(|x| x % 16 == t)
            && v.par_iter().position_last(|x| x % 16 == t) == v.iter().rposition(|x| x % 16 == t)
            && v.par_iter().position_any(|x| x % 16 == t).iter().all(|&i| v[i] % 16 == t)
            && v.par_iter().any(|x| x % 16 == t) == v.iter().any(|x| x % 16 == t)
            && v.par_iter().all(|x| x % 16 != t) == v.iter().all(|x| x % 16 != t)
            && v.par_iter().find_map_first(|&x| (x % 16 == t).then_some(u32::from(x) + 1)) == v.iter().find_map(|&x| (x % 16 == t).then_some(u32::from(x) + 1))
            && v.par_iter().find_map_last(|&x| (x % 16 == t).then_some(u32::from(x) + 1)) == v.iter().rev().find_map(|&x| (x % 16 == t).then_some(u32::from(x) + 1))
    }

    fn leaf_bounds(v: Vec<i32>, min: usize, max: usize) -> bool {
        let (min, max) = (small(min), small(max));
        let a: Vec<i32> = v.par_iter().copied().with_min_len(min).collect();
        let b: Vec<i32> = v.par_iter().copied().with_max_len(max).collect();
        let leaves: Vec<usize> = v.par_iter().with_max_len(max).fold(|| 0, |n, _| n + 1).collect();
        a == v && b == v && leaves.iter().all(|&n| n <= max) && leaves.iter().sum::<usize>() == v.len()
    }

    fn chunks_and_windows(v: Vec<u8>, size: usize) -> bool {
        let size = small(size);
        let c: Vec<Vec<u8>> = v.par_chunks(size).map(|c| c.to_vec()).collect();
        let ce: Vec<Vec<u8>> = v.par_chunks_exact(size).map(|c| c.to_vec()).collect();
        let rc: Vec<Vec<u8>> = v.par_rchunks(size).map(|c| c.to_vec()).collect();
        let rce: Vec<Vec<u8>> = v.par_rchunks_exact(size).map(|c| c.to_vec()).collect();
        let w: Vec<Vec<u8>> = v.par_windows(size).map(|c| c.to_vec()).collect();
        let rw: Vec<Vec<u8>> = v.par_windows(size).map(|c| c.to_vec()).rev().collect();
        c == v.chunks(size).map(|c| c.to_vec()).collect::<Vec<_>>()
            && ce == v.chunks_exact(size).map(|c| c.to_vec()).collect::<Vec<_>>()
            && rc == v.rchunks(size).map(|c| c.to_vec()).collect::<Vec<_>>()
            && rce == v.rchunks_exact(size).map(|c| c.to_vec()).collect::<Vec<_>>()
            && w == v.windows(size).map(|c| c.to_vec()).collect::<Vec<_>>()
            && rw == v.windows(size).rev().map(|c| c.to_vec()).collect::<Vec<_>>()
    }

    fn chunks_mut(v: Vec<u8>, size: usize) -> bool {
        let size = small(size);
        let mut a = v.clone();
        a.par_chunks_mut(size).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x = x.wrapping_add(i as u8)));
        let mut b = v.clone();
        b.chunks_mut(size).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x = x.wrapping_add(i as u8)));
        let mut c = v.clone();
        c.par_rchunks_mut(size).enumerate().for_each(|(i, c)| c[0] = i as u8);
        let mut d = v.clone();
        d.rchunks_mut(size).enumerate().for_each(|(i, c)| c[0] = i as u8);
        let mut e = v.clone();
        e.par_chunks_exact_mut(size).for_each(|c| c.reverse());
        e.par_rchunks_exact_mut(size).for_each(|c| c.reverse());
        let mut f = v.clone();
        f.chunks_exact_mut(size).for_each(|c| c.reverse());
        f.rchunks_exact_mut(size).for_each(|c| c.reverse());
        a == b && c == d && e == f
    }

    fn vec_by_value_and_drain(v: Vec<String>, a: usize, b: usize) -> bool {
        let owned: Vec<String> = v.clone().into_par_iter().rev().collect();
        let (a, b) = (a % (v.len() + 1), b % (v.len() + 1));
        let (lo, hi) = (a.min(b), a.max(b));
        let mut p = v.clone();
        let drained: Vec<String> = p.par_drain(lo..hi).collect();
        let mut s = v.clone();
        let expected: Vec<String> = s.drain(lo..hi).collect();
        owned == v.iter().rev().cloned().collect::<Vec<_>>() && drained == expected && p == s
    }

    fn map_with_init_inspect_update(v: Vec<u32>) -> bool {
        let a: Vec<u64> = v.par_iter().map_with(7u64, |k, &x| u64::from(x) + *k).collect();
        let b: Vec<u64> = v.par_iter().map_init(|| 7u64, |k, &x| u64::from(x) + *k).collect();
        let c: Vec<u32> = v.par_iter().copied().update(|x| *x = x.wrapping_mul(3)).inspect(|_| ()).collect();
        let expected: Vec<u64> = v.iter().map(|&x| u64::from(x) + 7).collect();
        a == expected && b == expected && c == v.iter().map(|x| x.wrapping_mul(3)).collect::<Vec<_>>()
    }

    fn collect_targets(v: Vec<(u8, i8)>) -> bool {
        let keys: Vec<u8> = v.iter().map(|p| p.0).collect();
        v.par_iter().copied().collect::<BTreeMap<_, _>>() == v.iter().copied().collect::<BTreeMap<_, _>>()
            && keys.par_iter().copied().collect::<HashSet<_>>() == keys.iter().copied().collect::<HashSet<_>>()
            && keys.par_iter().copied().collect::<BTreeSet<_>>() == keys.iter().copied().collect::<BTreeSet<_>>()
            && keys.par_iter().copied().collect::<VecDeque<_>>() == keys.iter().copied().collect::<VecDeque<_>>()
            && keys.par_iter().copied().collect::<LinkedList<_>>() == keys.iter().copied().collect::<LinkedList<_>>()
            && keys.par_iter().map(|&k| char::from(k)).collect::<String>() == keys.iter().map(|&k| char::from(k)).collect::<String>()
            && keys.par_iter().copied().collect::<Box<[u8]>>() == keys.iter().copied().collect::<Box<[u8]>>()
    }

    fn unzip_partition(v: Vec<(u8, i8)>) -> bool {
        let (a, b): (Vec<u8>, Vec<i8>) = v.par_iter().copied().unzip();
        let (c, d): (Vec<u8>, Vec<u8>) = v.par_iter().map(|p| p.0).partition(|x| x % 2 == 0);
        let (mut e, mut f) = (Vec::new(), Vec::new());
        v.par_iter().copied().unzip_into_vecs(&mut e, &mut f);
        let (sa, sb): (Vec<u8>, Vec<i8>) = v.iter().copied().unzip();
        let (sc, sd): (Vec<u8>, Vec<u8>) = v.iter().map(|p| p.0).partition(|x| x % 2 == 0);
        a == sa && b == sb && c == sc && d == sd && e == sa && f == sb
    }

    fn unzip_partition_other_targets(v: Vec<(u8, i8)>, big: bool) -> bool {
        // Large inputs too (repeated), so the driver splits, and unindexed bases.
        let v: Vec<(u8, i8)> = if big { v.iter().copied().cycle().take(v.len() * 500).collect() } else { v };
        let (a, b): (VecDeque<u8>, BTreeSet<i8>) = v.par_iter().copied().unzip();
        let (sa, sb): (VecDeque<u8>, BTreeSet<i8>) = v.iter().copied().unzip();
        let (c, d): (Vec<u8>, LinkedList<i8>) = v.par_iter().copied().filter(|p| p.0 % 3 != 0).unzip();
        let (sc, sd): (Vec<u8>, LinkedList<i8>) = v.iter().copied().filter(|p| p.0 % 3 != 0).unzip();
        let (e, f): (String, HashSet<u8>) = v.par_iter().partition_map(|&(x, y)| {
            if y < 0 { blitz_par::iter::Either::Left(char::from(x)) } else { blitz_par::iter::Either::Right(x) }
        });
        let se: String = v.iter().filter(|p| p.1 < 0).map(|p| char::from(p.0)).collect();
        let sf: HashSet<u8> = v.iter().filter(|p| p.1 >= 0).map(|p| p.0).collect();
        // Nested pairs, and pairs collected through `FromParallelIterator` for tuples.
        let ((g, h), i): ((Vec<u8>, Vec<i8>), Vec<usize>) =
            v.par_iter().enumerate().map(|(k, &p)| (p, k)).unzip();
        let (j, k): (Vec<u8>, Vec<i8>) = v.par_iter().copied().collect();
        let mut lm = (vec![7u8], vec![-7i8]);
        lm.par_extend(v.par_iter().copied().filter(|p| p.1 % 2 == 0));
        let (l, m) = lm;
        let (sl, sm): (Vec<u8>, Vec<i8>) =
            std::iter::once((7u8, -7i8)).chain(v.iter().copied().filter(|p| p.1 % 2 == 0)).unzip();
        let (su, sv): (Vec<u8>, Vec<i8>) = v.iter().copied().unzip();
        a == sa && b == sb && c == sc && d == sd && e == se && f == sf
            && g == su && h == sv && i == (0..v.len()).collect::<Vec<_>>()
            && j == su && k == sv && l == sl && m == sm
    }

    fn unzip_short_circuit_side(v: Vec<(u8, u8)>) -> bool {
        // A side that stops early (`Option` collection) does not stop the other.
        let (a, b): (Option<Vec<u8>>, Vec<u8>) =
            v.par_iter().map(|&(x, y)| ((x != 0).then_some(x), y)).collect();
        let sa: Option<Vec<u8>> = v.iter().map(|&(x, _)| (x != 0).then_some(x)).collect();
        a == sa && b == v.iter().map(|p| p.1).collect::<Vec<_>>()
    }

    fn option_result_collect(v: Vec<u8>) -> bool {
        let o: Option<Vec<u8>> = v.par_iter().map(|&x| (x != 0).then_some(x)).collect();
        let r: Result<Vec<u8>, u8> = v.par_iter().map(|&x| if x == 0 { Err(x) } else { Ok(x) }).collect();
        o == v.iter().map(|&x| (x != 0).then_some(x)).collect::<Option<Vec<u8>>>()
            && r == v.iter().map(|&x| if x == 0 { Err(x) } else { Ok(x) }).collect::<Result<Vec<u8>, u8>>()
    }

    fn large_string_collects(picks: Vec<u8>, reps: u16) -> bool {
        // Up to ~300,000 pieces of one to four bytes: past the size where the strings of the
        // threads are copied into place in parallel, with multi-byte chars at every seam.
        const ALPHABET: [&str; 6] = ["a", "é", "😀", " ", "xyz", ""];
        let words: Vec<&str> = picks.iter().cycle().take(picks.len() * (usize::from(reps) % 3_000 + 1))
            .map(|&p| ALPHABET[usize::from(p) % ALPHABET.len()]).collect();
        let expected: String = words.concat();
        let chars: String = expected.par_chars().collect();
        let refs: String = words.par_iter().copied().collect();
        let owned: String = words.par_iter().map(|w| w.to_string()).collect();
        let boxed: Box<str> = words.par_iter().map(|&w| Box::<str>::from(w)).collect();
        let mut extended = String::from("≥");
        extended.par_extend(expected.par_chars().filter(|c| *c != ' '));
        let want_extended: String = "≥".chars().chain(expected.chars().filter(|c| *c != ' ')).collect();
        chars == expected && refs == expected && owned == expected && *boxed == *expected
            && extended == want_extended
            && expected.par_chars().count() == expected.chars().count()
            && expected.par_chars().filter(|c| c.len_utf8() > 1).count() == expected.chars().filter(|c| c.len_utf8() > 1).count()
    }

    fn filtered_collect_on_pools_matches_std(v: Vec<u32>, reps: u16) -> bool {
        // Up to ~100 * 1,000 items through an unpredictable filter, on pools of 1, 2, 3 and 8
        // threads: long enough that the driver splits a loop after its first chunks.
        let v: Vec<u64> = v.iter().cycle().take(v.len() * (usize::from(reps) % 1_000 + 1))
            .enumerate().map(|(i, &x)| (i as u64) << 32 | u64::from(x)).collect();
        let expected: Vec<u64> = v.iter().map(|x| x * 3).filter(|x| x % 7 < 3).collect();
        [1, 2, 3, 8].into_iter().all(|threads| {
            let pool = blitz_par::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let got: Vec<u64> = pool.install(|| v.par_iter().map(|x| x * 3).filter(|x| x % 7 < 3).collect());
            let mut extended = vec![1, 2];
            pool.install(|| extended.par_extend(v.par_iter().map(|x| x * 3).filter(|x| x % 7 < 3)));
            got == expected && extended[..2] == [1, 2] && extended[2..] == expected[..]
        })
    }

    fn large_inputs_through_continuing_folders(v: Vec<u8>, reps: u16) -> bool {
        // Long inputs (up to ~100 * 2,000 items), so the driver peels many chunks into one
        // folder per loop: fold, try_fold, map_with/map_init, while_some, Option/Result and
        // the collections built from a `Vec` or a list.
        let v: Vec<u32> = v.iter().cycle().take(v.len() * (usize::from(reps) % 2_000 + 1))
            .enumerate().map(|(i, &x)| (i as u32) << 8 | u32::from(x)).collect();
        let concat: Vec<u32> = v.par_iter().fold(Vec::new, |mut a, &x| { a.push(x); a })
            .reduce(Vec::new, |mut a, mut b| { a.append(&mut b); a });
        let concat_with: Vec<u32> = v.par_iter().fold_with(Vec::new(), |mut a, &x| { a.push(x); a })
            .flatten().collect();
        let tried: Result<Vec<u32>, ()> = v.par_iter().try_fold(Vec::new, |mut a, &x| { a.push(x); Ok(a) })
            .try_reduce(Vec::new, |mut a, mut b| { a.append(&mut b); Ok(a) });
        let with: Vec<u64> = v.par_iter().map_with(1u64, |k, &x| u64::from(x) + *k).collect();
        let init: Vec<u64> = v.par_iter().map_init(|| 1u64, |k, &x| u64::from(x) + *k).collect();
        let expected_plus: Vec<u64> = v.iter().map(|&x| u64::from(x) + 1).collect();
        // `while_some`: the items kept are `Some` items of the input, in order, and all of
        // them when there is no `None`. Which ones are kept is unspecified otherwise (as in
        // rayon): a thread that took a later part may yield items after the first `None`
        // before it sees that one was found.
        let has_none = v.iter().any(|&x| x & 0xff == 0);
        let some: Vec<u32> = v.par_iter().map(|&x| (x & 0xff != 0).then_some(x)).while_some().collect();
        let some_ok = some.iter().all(|&x| x & 0xff != 0)
            && some.windows(2).all(|w| w[0] >> 8 < w[1] >> 8)
            && (has_none || some == v);
        let option: Option<Vec<u32>> = v.par_iter().map(|&x| (x & 0xff != 0).then_some(x)).collect();
        let result: Result<Vec<u32>, u32> = v.par_iter().map(|&x| if x & 0xff == 0 { Err(x) } else { Ok(x) }).collect();
        let list: LinkedList<u32> = v.par_iter().copied().collect();
        let deque: VecDeque<u32> = v.par_iter().copied().filter(|x| x % 3 != 0).collect();
        let heap: std::collections::BinaryHeap<u32> = v.par_iter().copied().collect();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let set: HashSet<u32> = v.par_iter().map(|x| x & 0xfff).collect();
        concat == v && concat_with == v && tried.as_ref() == Ok(&v)
            && with == expected_plus && init == expected_plus && some_ok
            && option == v.iter().map(|&x| (x & 0xff != 0).then_some(x)).collect::<Option<Vec<u32>>>()
            && result.is_ok() == v.iter().all(|&x| x & 0xff != 0)
            && result.as_ref().ok().is_none_or(|r| r == &v)
            && result.as_ref().err().is_none_or(|&e| e & 0xff == 0)
            && list.into_iter().eq(v.iter().copied())
            && deque.into_iter().eq(v.iter().copied().filter(|x| x % 3 != 0))
            && heap.into_sorted_vec() == sorted
            && set == v.iter().map(|x| x & 0xfff).collect::<HashSet<_>>()
    }

    fn string_splits_match_std(picks: Vec<u8>, reps: u8) -> bool {
        // Texts from an alphabet of separators, ASCII and Unicode whitespace, `\r\n` and
        // multi-byte chars; repeated to long texts so the halves split at separators.
        const ALPHABET: [&str; 12] = ["a", "b", ",", " ", "\t", "\n", "\r\n", "\u{2003}", "\u{85}", "é", "😀", "\u{a0}"];
        let piece: String = picks.iter().map(|&p| ALPHABET[usize::from(p) % ALPHABET.len()]).collect();
        let text = piece.repeat(usize::from(reps) % 40 * 25 + 1);
        let t = text.as_str();
        let multi = [',', '😀'];
        let pred = |c: char| c == 'b' || c == '\u{2003}';
        t.par_split(',').collect::<Vec<_>>() == t.split(',').collect::<Vec<_>>()
            && t.par_split('😀').collect::<Vec<_>>() == t.split('😀').collect::<Vec<_>>()
            && t.par_split_terminator(',').collect::<Vec<_>>() == t.split_terminator(',').collect::<Vec<_>>()
            && t.par_split_inclusive('\n').collect::<Vec<_>>() == t.split_inclusive('\n').collect::<Vec<_>>()
            && t.par_split(&multi[..]).collect::<Vec<_>>() == t.split(&multi[..]).collect::<Vec<_>>()
            && t.par_split_terminator(multi).collect::<Vec<_>>() == t.split_terminator(multi).collect::<Vec<_>>()
            && t.par_split(pred).collect::<Vec<_>>() == t.split(pred).collect::<Vec<_>>()
            && t.par_split_inclusive(pred).collect::<Vec<_>>() == t.split_inclusive(pred).collect::<Vec<_>>()
            && t.par_lines().collect::<Vec<_>>() == t.lines().collect::<Vec<_>>()
            && t.par_split_whitespace().collect::<Vec<_>>() == t.split_whitespace().collect::<Vec<_>>()
            && t.par_split_ascii_whitespace().collect::<Vec<_>>() == t.split_ascii_whitespace().collect::<Vec<_>>()
            && t.par_matches('é').collect::<Vec<_>>() == t.matches('é').collect::<Vec<_>>()
            && t.par_match_indices(pred).collect::<Vec<_>>() == t.match_indices(pred).collect::<Vec<_>>()
    }

    fn consumers_with_state(v: Vec<u16>, stop: u16) -> bool {
        // `for_each_with` / `for_each_init`: every item reaches the side effect exactly once.
        let (tx, rx) = std::sync::mpsc::channel();
        v.par_iter().for_each_with(tx, |tx, &x| tx.send(x).unwrap());
        let mut sent: Vec<u16> = rx.iter().collect();
        let inits = AtomicUsize::new(0);
        let seen = Mutex::new(Vec::new());
        v.par_iter().for_each_init(
            || { inits.fetch_add(1, Ordering::Relaxed); 5u16 },
            |k, &x| seen.lock().unwrap().push(x.wrapping_add(*k)),
        );
        let mut seen = seen.into_inner().unwrap();
        let mut sorted = v.clone();
        sorted.sort_unstable();
        sent.sort_unstable();
        seen.sort_unstable();
        let mut plus5: Vec<u16> = v.iter().map(|x| x.wrapping_add(5)).collect();
        plus5.sort_unstable();
        // The `try_` forms stop at an error and report one of the failing items.
        let stop = stop % 64;
        let fails = |x: u16| x % 64 == stop;
        let any_fails = v.iter().any(|&x| fails(x));
        let checked = |r: Result<(), u16>| match r {
            Ok(()) => !any_fails,
            Err(x) => any_fails && fails(x),
        };
        let r_with = v.par_iter().try_for_each_with(0u16, |_, &x| if fails(x) { Err(x) } else { Ok(()) });
        let r_init = v.par_iter().try_for_each_init(|| 0u16, |_, &x| if fails(x) { Err(x) } else { Ok(()) });
        let r_plain = v.par_iter().try_for_each(|&x| if fails(x) { Err(x) } else { Ok(()) });
        sent == sorted && seen == plus5
            && inits.load(Ordering::Relaxed) <= v.len().max(1)
            && checked(r_with) && checked(r_init) && checked(r_plain)
    }

    fn try_folds_and_reductions(v: Vec<u8>) -> bool {
        // Sums of bytes that overflow `u8` somewhere: each partial sum and their total
        // overflow exactly when the sequential sum does (the items are not negative).
        let expected = v.iter().try_fold(0u8, |a, &x| a.checked_add(x));
        let folded: Option<u8> = v.par_iter()
            .try_fold_with(0u8, |a, &x| a.checked_add(x))
            .try_reduce(|| 0, |a, b| a.checked_add(b));
        let folded_fn: Option<u8> = v.par_iter()
            .try_fold(|| 0u8, |a, &x| a.checked_add(x))
            .try_reduce_with(|a, b| a.checked_add(b))
            .unwrap_or(Some(0));
        let reduced: Option<u8> = v.par_iter().map(|&x| Some(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
        let reduced_with: Option<Option<u8>> = v.par_iter().map(|&x| Some(x)).try_reduce_with(|a, b| a.checked_add(b));
        folded == expected && folded_fn == expected && reduced == expected
            && reduced_with == (!v.is_empty()).then_some(expected)
    }

    fn find_map_any_and_zip_eq(v: Vec<u8>, target: u8) -> bool {
        let t = target % 16;
        let f = |&x: &u8| (x % 16 == t).then_some(u32::from(x) * 2);
        let any = v.par_iter().find_map_any(f);
        let doubled: Vec<u8> = v.iter().map(|x| x.wrapping_mul(2)).collect();
        let zipped: Vec<(u8, u8)> = v.par_iter().copied().zip_eq(doubled.par_iter().copied()).collect();
        any.is_some() == v.iter().any(|x| x % 16 == t)
            && any.is_none_or(|y| y % 2 == 0 && (y / 2) % 16 == u32::from(t))
            && zipped == v.iter().copied().zip(doubled.iter().copied()).collect::<Vec<_>>()
    }

    fn into_existing_vecs(v: Vec<(u16, i8)>, old: Vec<u32>) -> bool {
        // `collect_into_vec` and `unzip_into_vecs` replace what the vectors held.
        let mut target: Vec<u32> = old.clone();
        v.par_iter().map(|p| u32::from(p.0) + 1).collect_into_vec(&mut target);
        let (mut a, mut b): (Vec<u16>, Vec<i8>) = (vec![9; old.len()], vec![-9; old.len() / 2]);
        v.par_iter().copied().unzip_into_vecs(&mut a, &mut b);
        target == v.iter().map(|p| u32::from(p.0) + 1).collect::<Vec<_>>()
            && a == v.iter().map(|p| p.0).collect::<Vec<_>>()
            && b == v.iter().map(|p| p.1).collect::<Vec<_>>()
    }

    fn string_sources(chars: Vec<char>, reps: u8) -> bool {
        let text: String = chars.iter().collect::<String>().repeat(usize::from(reps) % 40 * 50 + 1);
        let t = text.as_str();
        t.par_chars().collect::<Vec<_>>() == t.chars().collect::<Vec<_>>()
            && t.par_char_indices().collect::<Vec<_>>() == t.char_indices().collect::<Vec<_>>()
            && t.par_bytes().collect::<Vec<_>>() == t.bytes().collect::<Vec<_>>()
            && t.par_encode_utf16().collect::<Vec<_>>() == t.encode_utf16().collect::<Vec<_>>()
            && t.par_char_indices().filter(|p| p.1.len_utf8() > 1).count() == t.chars().filter(|c| c.len_utf8() > 1).count()
    }

    fn ranges(start: i16, len: u8) -> bool {
        let end = start.saturating_add(i16::from(len));
        (start..end).into_par_iter().collect::<Vec<_>>() == (start..end).collect::<Vec<_>>()
            && (start..=end).into_par_iter().collect::<Vec<_>>() == (start..=end).collect::<Vec<_>>()
            && (i64::from(start)..i64::from(end)).into_par_iter().collect::<Vec<_>>() == (i64::from(start)..i64::from(end)).collect::<Vec<_>>()
            && (i64::from(start)..=i64::from(end)).into_par_iter().rev_free_sum() == (i64::from(start)..=i64::from(end)).sum::<i64>()
    }
}

/// A helper so the range property also exercises `sum` on an unindexed range.
trait RevFreeSum {
    fn rev_free_sum(self) -> i64;
}

impl<I: ParallelIterator<Item = i64>> RevFreeSum for I {
    fn rev_free_sum(self) -> i64 {
        self.sum()
    }
}
