//! Searches over 10^27 items must stop as soon as their answer is known: over `u128` ranges
//! (longer than a `usize`, so unindexed) and over three nested `flat_map`s of 10^9 each. The
//! workloads are those of rayon's `tests/octillion.rs`; none of them could finish by visiting
//! more than a vanishing part of the items. Each test runs under the watchdog: a search that
//! does not stop (or a lost wake-up) fails it in bounded time, naming the search.

#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use blitz_par::ThreadPoolBuilder;
use watchdog::{within, LIVENESS};

const N: u128 = 1_000_000_000_000_000_000_000_000_000;
const BILLION: u32 = 1_000_000_000;

fn range() -> blitz_par::range::Iter<u128> {
    (0..N).into_par_iter()
}

fn range_inclusive() -> blitz_par::range_inclusive::Iter<u128> {
    (0..=N).into_par_iter()
}

/// `0..N` as three levels of `flat_map` over indexed ranges of 10^9, each capped at leaves of
/// 1,000 items.
fn nested() -> impl ParallelIterator<Item = u128> {
    let level = || (0..BILLION).into_par_iter().with_max_len(1_000);
    level()
        .map(|i| u64::from(i) * u64::from(BILLION))
        .flat_map(move |hi| level().map(move |j| hi + u64::from(j)))
        .map(|i| u128::from(i) * u128::from(BILLION))
        .flat_map(move |hi| level().map(move |j| hi + u128::from(j)))
}

/// Runs `body` under the watchdog: `what`, a search over 10^27 items, must stop at its answer.
fn stops(what: &str, body: impl FnOnce() + Send + 'static) {
    within(LIVENESS, &format!("{what} stopped at its answer"), body);
}

/// Runs `f` in a pool of `threads` threads.
fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool of 2 threads")
        .install(f)
}

#[test]
fn find_first_stops_at_the_front() {
    stops("find_first from the front", || {
        assert_eq!(range().find_first(|_| true), Some(0));
        assert_eq!(range_inclusive().find_first(|_| true), Some(0));
        assert_eq!(nested().find_first(|_| true), Some(0));
        assert_eq!(range().find_first(|&x| x >= 12_345), Some(12_345));
        assert_eq!(
            nested().find_first(|&x| x % 1_000 == 777 && x > 700_000),
            Some(700_777)
        );
    });
}

#[test]
fn find_last_stops_at_the_back() {
    stops("find_last from the back", || {
        for threads in [1, 2] {
            with_threads(threads, || {
                assert_eq!(range().find_last(|_| true), Some(N - 1));
                assert_eq!(range_inclusive().find_last(|_| true), Some(N));
                assert_eq!(nested().find_last(|_| true), Some(N - 1));
                assert_eq!(range().find_last(|&x| x % 1_000 == 7), Some(N - 993));
            });
        }
    });
}

#[test]
fn find_last_stops_at_the_back_behind_every_adapter() {
    // Each adapter between the range and the search must pass on that the search runs from
    // the back; one that does not makes the driver start at the front, 10^27 items away.
    stops("find_last behind every adapter", || {
        for threads in [1, 2] {
            with_threads(threads, || {
                let last = Some(N - 1);
                assert_eq!(range().map(|x| x).find_last(|_| true), last);
                assert_eq!(range().map_init(|| 0u8, |_, x| x).find_last(|_| true), last);
                assert_eq!(range().map_with(0u8, |_, x| x).find_last(|_| true), last);
                assert_eq!(range().panic_fuse().find_last(|_| true), last);
                assert_eq!(range().inspect(|_| ()).find_last(|_| true), last);
                assert_eq!(range().update(|_| ()).find_last(|_| true), last);
                assert_eq!(range().filter(|_| true).find_last(|_| true), last);
                assert_eq!(range().filter_map(Some).find_last(|_| true), last);
                assert_eq!(range().map(Some).while_some().find_last(|_| true), last);
                assert_eq!(range().flat_map_iter(|x| [x]).find_last(|_| true), last);
                assert_eq!(
                    nested().map_init(|| 0u8, |_, x| x).find_last(|_| true),
                    last
                );
                assert_eq!(nested().panic_fuse().find_last(|_| true), last);
            });
        }
    });
}

#[test]
fn find_any_reaches_the_second_half() {
    // The first half holds no match: some thread must be given part of the second half while
    // another is still in the first.
    stops("find_any with its match in the second half", || {
        with_threads(2, || {
            let x = range().find_any(|&x| x > N / 2);
            assert!(x.is_some_and(|x| x > N / 2));
            let x = nested().find_any(|&x| x > N / 2);
            assert!(x.is_some_and(|x| x > N / 2));
            let x = range().filter(|&x| x > N / 2).find_any(|_| true);
            assert!(x.is_some_and(|x| x > N / 2));
            let x = nested().filter(|&x| x > N / 2).find_any(|_| true);
            assert!(x.is_some_and(|x| x > N / 2));
        });
    });
}

#[test]
fn position_and_any_over_wide_ranges() {
    stops(
        "any, find_first and find_last over the widest ranges",
        || {
            assert!(range().any(|x| x == 5));
            assert!((0..u128::MAX).into_par_iter().any(|x| x == 3));
            assert_eq!(
                (i128::MIN..i128::MAX).into_par_iter().find_first(|_| true),
                Some(i128::MIN)
            );
            assert_eq!(
                (i128::MIN..i128::MAX).into_par_iter().find_last(|_| true),
                Some(i128::MAX - 1)
            );
            with_threads(2, || {
                let x = (0..u128::MAX)
                    .into_par_iter()
                    .find_any(|&x| x > u128::MAX / 2);
                assert!(x.is_some_and(|x| x > u128::MAX / 2));
                assert_eq!(
                    (0..u128::MAX).into_par_iter().find_last(|&x| x % 3 == 0),
                    Some(u128::MAX - 3)
                );
            });
        },
    );
}

#[test]
fn a_fold_ahead_of_a_search_lets_it_stop() {
    // Each chunk's accumulator reaches the search as the chunk is folded; one per loop would
    // come after 10^27 items. The ordered searches also need the positions of the items
    // behind the fold, or every item of the first outer one would come before any other.
    stops("a search behind a fold", || {
        for threads in [1, 2] {
            with_threads(threads, || {
                assert!(nested().fold(|| (), |_, _| ()).find_any(|_| true).is_some());
                assert!(nested().fold(|| 0u8, |_, _| 1).any(|n| n > 0));
                let first_of = |acc: Option<u128>, x| acc.or(Some(x));
                let first = nested().fold(|| None, first_of).find_first(|_| true);
                assert_eq!(first, Some(Some(0)));
                let last = nested().fold(|| None, |_, x| Some(x)).find_last(|_| true);
                assert_eq!(last, Some(Some(N - 1)));
                let first = nested()
                    .try_fold(|| None, |acc, x| Ok::<_, ()>(first_of(acc, x)))
                    .find_first(|r| r.is_ok());
                assert_eq!(first, Some(Ok(Some(0))));
            });
        }
    });
}
