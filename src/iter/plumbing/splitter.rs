//! The splitting policy: the one place that decides between splitting, peeling a chunk and
//! folding. Replaces rayon's "split about `num_threads` times, then again on every steal",
//! whose fixed splits cost ~70x a sequential loop on a 1,000-element sum.
//!
//! Indexed work is processed as a loop over chunks taken off the front. A chunk starts at one
//! item and doubles, so that a thread that gets hungry is answered within a few items even when
//! items are heavy; doubling pauses while chunks take more than [`SETTLED_TICKS`] of work, so
//! that the fixed cost of a chunk (a split of producer and consumer, a fold, a reduce, one call
//! to `split_wanted`) stays small against the work. Growth only pauses, it never stops: one
//! slow chunk (page faults on fresh memory, a preempted thread) must not pin the chunk size
//! low for the rest of the loop, which made leaves 64 items long in early measurements. Between chunks the driver splits the rest
//! in halves when the scheduler says an idle thread wants work (`split_wanted`), or when the
//! rest is longer than `with_max_len` allows. Both halves run the same loop.
//!
//! A request to split is honoured only when the rest is estimated to take at least
//! [`MIN_SPLIT_TICKS`] (from the timing of the chunks so far): handing a thief a few
//! microseconds of work costs the owner more (a promoted join, waiting for the thief's result)
//! than doing it, and idle workers ask for work all the time.
//!
//! THE TUNING KNOBS are `Pacer::decide`, [`SETTLED_TICKS`], [`MIN_SPLIT_TICKS`],
//! [`TIMED_CHUNK`] and [`eager_depth`]; nothing else in the crate splits.

use super::{Consumer, Folder, Producer, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::scheduler::{join, split_wanted};
use crate::sync::ticks;

/// Chunks shorter than this are not timed: reading the clock (~7 ns for `rdtsc`, ~20-25 ns for
/// `Instant::now`) would cost more than the ~1 ns an item of a cheap loop takes. 16 cheap items
/// take about the time of one clock read.
const TIMED_CHUNK: usize = 16;

/// A chunk that took more than this many clock ticks pauses the doubling: about 4 us at the
/// 2.5 GHz TSC rate of current x86 parts (invariant TSCs tick at 1 to 4 GHz, so 2.5 to 10 us);
/// `ticks` counts nanoseconds elsewhere (and under Miri). A few microseconds is long enough
/// that the per-chunk overhead (tens of nanoseconds) is below 1%, and short enough that an
/// idle thread waits at most that long for work.
const SETTLED_TICKS: u64 = if cfg!(all(target_arch = "x86_64", not(miri), not(loom))) {
    10_000
} else {
    4_000
};

/// A split on request needs at least this much estimated work left: about 20 us at a 2.5 GHz
/// TSC (nanoseconds elsewhere: 20 us). A steal by an awake thief and the join that waits for
/// it cost a microsecond or more, and more when the thief is slow to start (a shared 2-core
/// machine: a 12 us sum of 100,000 i64 ran 10-20% slower than sequential with a 10 us bound);
/// waking a sleeping worker costs tens of microseconds. Above ~20 us a split pays off even
/// with a slow thief; the price is that the last ~20 us of a loop are not shared.
const MIN_SPLIT_TICKS: u64 = if cfg!(all(target_arch = "x86_64", not(miri), not(loom))) {
    50_000
} else {
    20_000
};

/// What the driver does next with the `len` items it holds.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Split in halves and run both, potentially in parallel.
    Split,
    /// Fold this many items off the front, then decide again.
    Peel(usize),
    /// Fold everything.
    FoldAll,
}

/// The per-branch state of the policy: leaf bounds and the current chunk size.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacer {
    /// `with_min_len`: no leaf shorter (unless the whole input is).
    min_len: usize,
    /// `with_max_len`: no leaf longer.
    max_len: usize,
    /// Items in the next chunk.
    chunk: usize,
    /// The clock reading at the end of the previous chunk, if it was timed (0: none). The next
    /// timed chunk starts from it, so a run of chunks costs one clock read per chunk; the few
    /// nanoseconds of splitting between chunks are counted with the chunk, which is harmless.
    last_tick: u64,
    /// Ticks and items of the last timed chunk (items 0: none yet): the cost estimate behind
    /// [`MIN_SPLIT_TICKS`]. Inherited by both halves of a split.
    rate: (u64, usize),
    /// When this loop started and how many items it has folded: the estimate before any chunk
    /// was timed.
    loop_start: u64,
    done: usize,
    /// Whether to ask `split_wanted` at all: cleared once the timed estimate says the rest of
    /// the loop is too short to be worth splitting (it only gets shorter). Saves the call,
    /// whose slow path is taken often while idle threads keep asking.
    asking: bool,
}

impl Pacer {
    pub(super) fn new(min_len: usize, max_len: usize) -> Self {
        let min_len = min_len.max(1);
        Pacer {
            min_len,
            max_len: max_len.max(1),
            chunk: 1,
            last_tick: 0,
            rate: (0, 0),
            loop_start: 0,
            done: 0,
            asking: true,
        }
    }

    /// Starts the loop of one `drive_indexed` call.
    #[inline]
    fn start_loop(&mut self) {
        self.last_tick = 0;
        self.loop_start = ticks();
        self.done = 0;
    }

    /// Whether `len` more items are estimated to take at least [`MIN_SPLIT_TICKS`]. Before
    /// anything was folded there is no estimate: no (the first chunk is one item, so the
    /// answer comes after one item).
    #[inline(never)]
    fn worth_splitting(&self, len: usize) -> bool {
        let (ticks_spent, items) = if self.rate.1 > 0 {
            self.rate
        } else if self.done > 0 {
            (ticks().wrapping_sub(self.loop_start), self.done)
        } else {
            return false;
        };
        (len as u128) * u128::from(ticks_spent) >= u128::from(MIN_SPLIT_TICKS) * (items as u128)
    }

    /// THE POLICY. Called before every chunk; `len > 0`.
    #[inline]
    fn decide(&self, len: usize) -> Step {
        // Split only if both halves are long enough to be leaves.
        if len / 2 >= self.min_len
            && (len > self.max_len
                || (self.asking && self.done > 0 && split_wanted() && self.worth_splitting(len)))
        {
            return Step::Split;
        }
        let chunk = self.chunk.min(self.max_len).max(self.min_len);
        // Peel only if what remains can still be a leaf on its own.
        if chunk < len && len - chunk >= self.min_len {
            Step::Peel(chunk)
        } else {
            Step::FoldAll
        }
    }

    /// Records that a chunk of `n` items took `elapsed` ticks (None: not timed): doubles the
    /// chunk unless it took long enough already.
    #[inline]
    fn record(&mut self, n: usize, elapsed: Option<u64>, remaining: usize) {
        self.done += n;
        if let Some(t) = elapsed {
            self.rate = (t, n);
            if (remaining as u128) * u128::from(t) < u128::from(MIN_SPLIT_TICKS) * (n as u128) {
                self.asking = false;
            }
        }
        if n < self.chunk {
            return;
        }
        match elapsed {
            Some(t) if t > SETTLED_TICKS => {}
            _ => self.chunk = self.chunk.saturating_mul(2),
        }
    }
}

/// Folds `producer` into a fresh folder of `consumer`, timing it when the chunk is long enough.
#[inline]
fn fold_leaf<P, C>(
    producer: P,
    consumer: C,
    n: usize,
    remaining: usize,
    pacer: &mut Pacer,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The first chunk of a loop is timed too (from the loop's start): one clock read gives the
    // first estimate, so that short loops stop asking `split_wanted` at once.
    if n < TIMED_CHUNK && pacer.done > 0 {
        let result = producer.fold_with(consumer.into_folder()).complete();
        pacer.last_tick = 0;
        pacer.record(n, None, remaining);
        result
    } else {
        let start = if pacer.done == 0 {
            pacer.loop_start
        } else if pacer.last_tick != 0 {
            pacer.last_tick
        } else {
            ticks()
        };
        let result = producer.fold_with(consumer.into_folder()).complete();
        let end = ticks();
        pacer.last_tick = end;
        pacer.record(n, Some(end.wrapping_sub(start)), remaining);
        result
    }
}

/// Joins `acc` (the results so far, with the reducer that joins them to what follows) and
/// `result` (what follows).
#[inline]
fn finish<R, Red: Reducer<R>>(acc: Option<(R, Red)>, result: R) -> R {
    match acc {
        None => result,
        Some((left, reducer)) => reducer.reduce(left, result),
    }
}

/// The indexed driver loop (see the module docs).
pub(super) fn drive_indexed<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.start_loop();
    // Results of the chunks folded so far, and the reducer that joins them to the next part.
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    loop {
        if len == 0 || consumer.full() {
            let rest = consumer.into_folder().complete();
            return finish(acc, rest);
        }
        match pacer.decide(len) {
            Step::Split => {
                let mid = len / 2;
                let (left_p, right_p) = producer.split_at(mid);
                let (left_c, right_c, reducer) = consumer.split_at(mid);
                let (left, right) = join(
                    move || drive_indexed(mid, left_p, left_c, pacer),
                    move || drive_indexed(len - mid, right_p, right_c, pacer),
                );
                return finish(acc, reducer.reduce(left, right));
            }
            Step::Peel(n) => {
                let (front_p, rest_p) = producer.split_at(n);
                let (front_c, rest_c, reducer) = consumer.split_at(n);
                let result = fold_leaf(front_p, front_c, n, len - n, &mut pacer);
                acc = Some(match acc {
                    None => (result, reducer),
                    Some((left, previous)) => (previous.reduce(left, result), reducer),
                });
                producer = rest_p;
                consumer = rest_c;
                len -= n;
            }
            Step::FoldAll => {
                let result = fold_leaf(producer, consumer, len, 0, &mut pacer);
                return finish(acc, result);
            }
        }
    }
}

/// How many times an unindexed producer is split in halves before any fold, without being
/// asked: log2 of the thread count plus 2, so every thread can get about four leaves. A fold
/// of an unindexed producer cannot be interrupted to answer a hungry thread, so some
/// parallel slack must exist before folding starts.
pub(super) fn eager_depth() -> u32 {
    let threads = crate::current_num_threads().max(1);
    (usize::BITS - threads.leading_zeros() - 1) + 2
}

/// The unindexed driver: split while `depth` lasts or the scheduler asks, then fold.
pub(super) fn drive_unindexed<P, C>(producer: P, consumer: C, depth: u32) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let producer = if depth > 0 || split_wanted() {
        match producer.split() {
            (left_p, Some(right_p)) => {
                let reducer = consumer.to_reducer();
                let left_c = consumer.split_off_left();
                let depth = depth.saturating_sub(1);
                let (left, right) = join(
                    move || drive_unindexed(left_p, left_c, depth),
                    move || drive_unindexed(right_p, consumer, depth),
                );
                return reducer.reduce(left, right);
            }
            (producer, None) => producer,
        }
    } else {
        producer
    };
    producer.fold_with(consumer.into_folder()).complete()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_respected_by_decide() {
        let p = Pacer::new(usize::MAX, usize::MAX);
        assert_eq!(p.decide(10), Step::FoldAll);
        let p = Pacer {
            chunk: 4,
            ..Pacer::new(3, usize::MAX)
        };
        // 4 off 6 leaves 2 < min_len 3: fold all (unless a split is wanted, which needs 6/2 >= 3).
        let step = p.decide(6);
        assert!(step == Step::FoldAll || step == Step::Split);
        let p = Pacer::new(1, 1);
        assert_eq!(p.decide(2), Step::Split);
    }

    #[test]
    fn chunks_double_pause_and_resume() {
        let mut p = Pacer::new(1, usize::MAX);
        p.record(1, None, usize::MAX);
        p.record(2, None, usize::MAX);
        assert_eq!(p.chunk, 4);
        p.record(4, Some(SETTLED_TICKS + 1), usize::MAX);
        assert_eq!(p.chunk, 4);
        p.record(4, Some(SETTLED_TICKS / 2), usize::MAX);
        assert_eq!(p.chunk, 8);
        p.record(3, Some(1), usize::MAX);
        assert_eq!(p.chunk, 8);
    }

    #[test]
    fn eager_depth_is_small() {
        assert!((2..=10).contains(&eager_depth()));
    }
}
