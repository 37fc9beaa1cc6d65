//! The driver's hints through adapters: the consumers' hint constants (`FOLDER_MAY_CONTINUE`,
//! `MAY_FOLD_FROM_BACK`) and the methods they stand for, and producers' leaf bounds, as they
//! reach a source through every adapter that forwards them.

use blitz_par::prelude::*;

/// A source that records, when it is driven, the blitz-par hints of the consumer it gets: the
/// constants `FOLDER_MAY_CONTINUE` and `MAY_FOLD_FROM_BACK`, and the methods they stand for.
struct Probe<'a, I> {
    base: I,
    seen: &'a std::sync::atomic::AtomicU8,
}

const DRIVEN: u8 = 1;
const MAY_CONTINUE: u8 = 2;
const MAY_FROM_BACK: u8 = 4;
const CONTINUES: u8 = 8;
const FROM_BACK: u8 = 16;
const MAY_STOP: u8 = 32;

fn record<T, C: blitz_par::iter::plumbing::Consumer<T>>(
    seen: &std::sync::atomic::AtomicU8,
    consumer: &C,
) {
    let bit = |b: bool, value: u8| if b { value } else { 0 };
    let hints = DRIVEN
        | bit(C::FOLDER_MAY_CONTINUE, MAY_CONTINUE)
        | bit(C::MAY_FOLD_FROM_BACK, MAY_FROM_BACK)
        | bit(consumer.folder_continues(), CONTINUES)
        | bit(consumer.folds_from_back(), FROM_BACK)
        | bit(C::MAY_STOP_EARLY, MAY_STOP);
    seen.store(hints, std::sync::atomic::Ordering::Relaxed);
}

impl<I: ParallelIterator> ParallelIterator for Probe<'_, I> {
    type Item = I::Item;
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: blitz_par::iter::plumbing::UnindexedConsumer<I::Item>,
    {
        record(self.seen, &consumer);
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Probe<'_, I> {
    fn drive<C: blitz_par::iter::plumbing::Consumer<I::Item>>(self, consumer: C) -> C::Result {
        record(self.seen, &consumer);
        self.base.drive(consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: blitz_par::iter::plumbing::ProducerCallback<I::Item>,
    {
        self.base.with_producer(callback)
    }
}

/// The consumers' constants say that their hints may be true wherever they are, through every
/// adapter that forwards the hints: a constant left false would silently turn a search from
/// the back into a full scan, or a collect's one vector per loop into one per chunk.
#[test]
fn consumer_hint_constants_follow_the_hints_through_adapters() {
    use std::sync::atomic::{AtomicU8, Ordering};
    let v: Vec<u32> = (0..10_000).collect();
    let seen = AtomicU8::new(0);
    let probe = || Probe {
        base: v.par_iter().copied(),
        seen: &seen,
    };
    let hints = |name: &str, expected: u8| {
        let got = seen.swap(0, Ordering::Relaxed);
        assert_eq!(
            got & (DRIVEN | MAY_CONTINUE | MAY_FROM_BACK | MAY_STOP),
            expected,
            "{name}"
        );
        // Where a method says yes, its constant must too.
        assert!(got & CONTINUES == 0 || got & MAY_CONTINUE != 0, "{name}");
        assert!(got & FROM_BACK == 0 || got & MAY_FROM_BACK != 0, "{name}");
        got
    };

    assert_eq!(
        probe().map(|x| x + 1).sum::<u32>(),
        v.iter().map(|x| x + 1).sum()
    );
    hints("sum", DRIVEN);

    let last = probe()
        .map(|x| x / 2)
        .filter(|x| x % 3 == 0)
        .map_init(|| (), |_, x| x)
        .panic_fuse()
        .find_last(|&x| x < 100);
    assert_eq!(last, Some(99));
    let got = hints("find_last", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    assert!(got & FROM_BACK != 0, "find_last folds from the back");
    let got_first = probe().filter(|x| x % 3 == 0).find_first(|&x| x > 100);
    assert_eq!(got_first, Some(102));
    let got = hints("find_first", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    assert!(got & FROM_BACK == 0, "find_first folds from the front");
    let nested = probe().flat_map(|x| vec![x, x]).find_last(|&x| x < 7);
    assert_eq!(nested, Some(6));
    hints("flat_map, find_last", DRIVEN | MAY_FROM_BACK | MAY_STOP);
    let nested = probe().flat_map_iter(|x| [x, x]).find_last(|&x| x < 7);
    assert_eq!(nested, Some(6));
    hints(
        "flat_map_iter, find_last",
        DRIVEN | MAY_FROM_BACK | MAY_STOP,
    );

    let kept: Vec<u32> = probe().filter(|x| x % 7 == 0).map(|x| x * 2).collect();
    assert_eq!(
        kept,
        v.iter()
            .filter(|&x| x % 7 == 0)
            .map(|x| x * 2)
            .collect::<Vec<_>>()
    );
    let got = hints("filter, collect", DRIVEN | MAY_CONTINUE);
    assert!(
        got & CONTINUES != 0,
        "an unindexed collect continues its folder"
    );
    let total: u32 = probe().map(|x| x % 5).fold(|| 0, |a, x| a + x).sum();
    assert_eq!(total, v.iter().map(|x| x % 5).sum());
    hints("fold", DRIVEN | MAY_CONTINUE);
    // Ahead of a search, a fold keeps an accumulator per chunk, and passes the search on.
    let any = probe().fold(|| 0, |a, x| a + x).find_any(|&a| a > 0);
    assert!(any.is_some());
    let got = hints("fold, find_any", DRIVEN | MAY_STOP);
    assert!(got & CONTINUES == 0, "a fold ahead of a search");
    let first = probe()
        .try_fold(|| 0, |a, x| Some(a + x))
        .while_some()
        .find_first(|_| true);
    assert!(first.is_some());
    hints(
        "try_fold, while_some, find_first",
        DRIVEN | MAY_FROM_BACK | MAY_STOP,
    );
    let some: Vec<u32> = probe().map(Some).while_some().collect();
    assert_eq!(some, v);
    hints("while_some, collect", DRIVEN | MAY_CONTINUE | MAY_STOP);
    let (a, b): (Vec<u32>, Vec<u32>) = probe().filter(|x| x % 2 == 0).map(|x| (x, x)).unzip();
    assert_eq!(a, b);
    hints("filter, unzip", DRIVEN | MAY_CONTINUE);
}

/// The leaf bounds of the producer an indexed iterator hands out.
struct LeafBounds;

impl<T> blitz_par::iter::plumbing::ProducerCallback<T> for LeafBounds {
    type Output = (usize, usize);
    fn callback<P: blitz_par::iter::plumbing::Producer<Item = T>>(self, p: P) -> (usize, usize) {
        (p.min_len(), p.max_len())
    }
}

#[test]
fn leaf_bounds_carry_through_regrouping_adapters() {
    let base = || (0..1_000).into_par_iter().with_min_len(10).with_max_len(20);
    // Positions that gather k base positions: at least ceil(10 / k), at most 20 / k (>= 1).
    assert_eq!(base().with_producer(LeafBounds), (10, 20));
    assert_eq!(base().map(|x| x + 1).with_producer(LeafBounds), (10, 20));
    assert_eq!(base().step_by(3).with_producer(LeafBounds), (4, 6));
    assert_eq!(base().chunks(3).with_producer(LeafBounds), (4, 6));
    assert_eq!(base().step_by(40).with_producer(LeafBounds), (1, 1));
    assert_eq!(
        base()
            .fold_chunks(3, || 0, |a, x| a + x)
            .with_producer(LeafBounds),
        (4, 6)
    );
    assert_eq!(
        base()
            .fold_chunks_with(5, 0, |a, x| a + x)
            .with_producer(LeafBounds),
        (2, 4)
    );
    // A separator per item: twice the bounds, in output positions.
    assert_eq!(base().intersperse(0).with_producer(LeafBounds), (20, 40));
    assert_eq!(
        (0..10)
            .into_par_iter()
            .intersperse(0)
            .with_producer(LeafBounds),
        (2, usize::MAX)
    );

    // And the driver honours them: no leaf of `with_max_len(4).chunks(2)` folds more than 2.
    let leaves: Vec<usize> = (0..1_000)
        .into_par_iter()
        .with_max_len(4)
        .chunks(2)
        .fold(|| 0, |n, _| n + 1)
        .collect();
    assert_eq!(leaves.iter().sum::<usize>(), 500);
    assert!(leaves.iter().all(|&n| n <= 2), "{leaves:?}");
}
