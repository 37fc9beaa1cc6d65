//! Progress bars on parallel iterators (feature `indicatif`), against the real indicatif:
//! the bar counts every item passed on, exactly, whatever the path (consumers, producers
//! behind indexed adapters, folders fed item by item), finishes when the drive ran to its
//! end, and does not finish when a search stopped it early or a closure panicked.
#![cfg(feature = "indicatif")]

use blitz_par::prelude::*;
use indicatif::{ProgressBar, ProgressFinish};
use quickcheck::quickcheck;

fn hidden(len: u64) -> ProgressBar {
    let bar = ProgressBar::hidden();
    bar.set_length(len);
    bar
}

#[test]
fn consumers_count_every_item_and_finish() {
    let n = 1_000_000u64;
    let bar = hidden(n);
    let sum: u64 = (0..n).into_par_iter().progress_with(bar.clone()).sum();
    assert_eq!(sum, n * (n - 1) / 2);
    assert_eq!(bar.position(), n);
    assert!(bar.is_finished());

    let v: Vec<u32> = (0..300_000).collect();
    let bar = hidden(v.len() as u64);
    let doubled: Vec<u32> = v
        .par_iter()
        .progress_with(bar.clone())
        .map(|x| x * 2)
        .collect();
    assert_eq!(doubled, v.iter().map(|x| x * 2).collect::<Vec<_>>());
    assert_eq!(bar.position(), v.len() as u64);
    assert!(bar.is_finished());
}

#[test]
fn indexed_adapters_behind_the_bar_count_through_the_producer() {
    let v: Vec<u64> = (0..200_000).collect();
    let bar = hidden(v.len() as u64);
    let s: u64 = v
        .par_iter()
        .progress_with(bar.clone())
        .enumerate()
        .map(|(i, &x)| i as u64 ^ x)
        .sum();
    assert_eq!(s, 0);
    assert_eq!(bar.position(), v.len() as u64);
    assert!(bar.is_finished());

    let bar = hidden(v.len() as u64);
    let zipped: Vec<(u64, u64)> = v
        .par_iter()
        .copied()
        .progress_with(bar.clone())
        .zip(v.par_iter().copied().rev())
        .collect();
    assert_eq!(zipped.len(), v.len());
    assert_eq!(zipped[0], (0, 199_999));
    assert_eq!(bar.position(), v.len() as u64);

    // A shorter partner: zip takes as many as the shorter side has; the bar counts those.
    let bar = hidden(v.len() as u64);
    let n = v.par_iter().progress_with(bar.clone()).zip(0..1000).count();
    assert_eq!((n, bar.position()), (1000, 1000));
    assert!(!bar.is_finished());
}

#[test]
fn unindexed_iterators_and_item_by_item_folders_count_exactly() {
    // A bar of no length: finishing one with a length sets its position to that length.
    let bar = ProgressBar::hidden();
    let evens = (0..100_000u32)
        .into_par_iter()
        .filter(|x| x % 2 == 0)
        .progress_with(bar.clone())
        .count();
    assert_eq!((evens, bar.position()), (50_000, 50_000));
    assert!(bar.is_finished());

    // `flat_map_iter` feeds the folder behind it one item at a time.
    let expected: u64 = (0..2000u64).map(|i| i % 97).sum();
    let bar = hidden(expected);
    let n = (0..2000u64)
        .into_par_iter()
        .flat_map_iter(|i| 0..i % 97)
        .progress_with(bar.clone())
        .count();
    assert_eq!(n as u64, expected);
    assert_eq!(bar.position(), expected);
    assert!(bar.is_finished());

    let bar = hidden(10_000);
    let s: u64 = (0..10_000u64).par_bridge().progress_with(bar.clone()).sum();
    assert_eq!(s, 9_999 * 10_000 / 2);
    assert_eq!(bar.position(), 10_000);
}

#[test]
fn a_search_that_stops_early_leaves_the_bar_where_it_stopped() {
    let n = 10_000_000u64;
    let bar = hidden(n);
    let found = (0..n)
        .into_par_iter()
        .progress_with(bar.clone())
        .find_first(|&x| x == 10);
    assert_eq!(found, Some(10));
    assert!(bar.position() >= 11 && bar.position() < n);
    assert!(!bar.is_finished());

    let bar = hidden(n);
    assert!((0..n)
        .into_par_iter()
        .filter(|x| x % 3 == 0)
        .progress_with(bar.clone())
        .any(|x| x == 300));
    assert!(bar.position() < n);
    assert!(!bar.is_finished());
}

/// `with_position` counts on from the position given, as indicatif's own rayon adapter does,
/// for bars whose count ends below, at and past their length (a bar of 10 started at 5 ends
/// at 15 after 10 items), and for bars without a length.
#[test]
fn with_position_counts_on_as_indicatifs_rayon_adapter_does() {
    let bar = |len: Option<u64>| {
        let bar = ProgressBar::hidden();
        if let Some(len) = len {
            bar.set_length(len);
        }
        bar
    };
    for (len, start, items) in [
        (Some(10), 5, 10u64),
        (Some(10), 0, 10),
        (Some(20), 5, 10),
        (Some(15), 5, 10),
        (Some(100_000), 3, 50_000),
        (None, 7, 10),
    ] {
        let ours = bar(len);
        (0..items)
            .into_par_iter()
            .progress_with(ours.clone())
            .with_position(start)
            .for_each(|_| {});
        let theirs = bar(len);
        rayon::iter::ParallelIterator::for_each(
            indicatif::ParallelProgressIterator::progress_with(
                rayon::iter::IntoParallelIterator::into_par_iter(0..items),
                theirs.clone(),
            )
            .with_position(start),
            |_| {},
        );
        assert_eq!(
            ours.position(),
            theirs.position(),
            "bar of {len:?} from {start}, {items} items"
        );
        assert_eq!(ours.position(), start + items);
        // Finished only where finishing left the position as it was.
        assert_eq!(
            ours.is_finished(),
            len == Some(start + items) || len.is_none()
        );
    }
}

#[test]
fn builders_and_finish_styles() {
    let bar = ProgressBar::hidden();
    (0..100)
        .into_par_iter()
        .progress_with(bar.clone())
        .with_position(1000)
        .with_message("work")
        .with_prefix("[1/1]")
        .for_each(|_| {});
    assert_eq!(bar.position(), 1100);
    assert_eq!(bar.message(), "work");
    assert_eq!(bar.prefix(), "[1/1]");

    // `Abandon` leaves the bar as it is when the drive ends: still counted, not finished.
    let bar = hidden(100);
    (0..100)
        .into_par_iter()
        .progress_with(bar.clone())
        .with_finish(ProgressFinish::Abandon)
        .for_each(|_| {});
    assert_eq!(bar.position(), 100);
}

#[test]
fn a_panicking_closure_propagates_and_does_not_finish_the_bar() {
    let bar = hidden(100_000);
    let result = std::panic::catch_unwind(|| {
        (0..100_000u32)
            .into_par_iter()
            .progress_with(bar.clone())
            .for_each(|x| assert!(x != 50_000, "boom"));
    });
    assert!(result.is_err());
    assert!(!bar.is_finished());
    assert!(bar.position() < 100_000);
    // The pool still works.
    assert_eq!((0..1000).into_par_iter().progress_count(1000).count(), 1000);
}

quickcheck! {
    fn position_equals_items_and_sum_matches(v: Vec<u32>, min_len: u8, max_len: u16) -> bool {
        let min_len = usize::from(min_len) + 1;
        let max_len = usize::from(max_len).max(min_len);
        let bar = hidden(v.len() as u64);
        let s: u64 = v
            .par_iter()
            .with_min_len(min_len)
            .with_max_len(max_len)
            .progress_with(bar.clone())
            .map(|&x| u64::from(x))
            .sum();
        s == v.iter().map(|&x| u64::from(x)).sum::<u64>()
            && bar.position() == v.len() as u64
            && bar.is_finished()
    }

    fn filtered_collect_matches_and_counts(v: Vec<i16>) -> bool {
        let bar = ProgressBar::hidden();
        let kept: Vec<i16> = v
            .par_iter()
            .copied()
            .filter(|x| x % 3 != 0)
            .progress_with(bar.clone())
            .collect();
        let expected: Vec<i16> = v.iter().copied().filter(|x| x % 3 != 0).collect();
        bar.position() == expected.len() as u64 && kept == expected
    }
}
