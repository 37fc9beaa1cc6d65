//! The indexed driver: the chunk loop that peels chunks off a producer as the pacer
//! (`policy.rs`) decides, and the splits it asks for.

use super::policy::{split_point, Pacer, Step};
use crate::iter::plumbing::{Consumer, Folder, Producer, Reducer};
use crate::scheduler::{join, may_watch, watch};

/// Folds `producer` into a fresh folder of `consumer` and records it in `pacer`. Also returns
/// whether the folder ended up full: then the items after these are useless too, as they
/// would be to one sequential fold (`find_first` found its match, `while_some` met a `None`).
#[inline]
pub(super) fn fold_leaf<P, C>(
    producer: P,
    consumer: C,
    n: usize,
    remaining: usize,
    pacer: &mut Pacer,
) -> (C::Result, bool)
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let folder = producer.fold_with(consumer.into_folder());
    let full = folder.full();
    pacer.record(n, remaining);
    (folder.complete(), full)
}

/// Joins `acc` (the results so far, with the reducer that joins them to what follows) and
/// `result` (what follows).
#[inline]
pub(super) fn finish<R, Red: Reducer<R>>(acc: Option<(R, Red)>, result: R) -> R {
    match acc {
        None => result,
        Some((left, reducer)) => reducer.reduce(left, result),
    }
}

/// What a chunk loop of the indexed driver leaves to [`drive_indexed`]: its result, or a split
/// of the items it has not folded.
pub(super) enum Driven<P, C, R, Red> {
    /// The loop's result.
    Done(R),
    /// Split these `len` items in halves (`split_and_join`), then join their result to `acc`
    /// (the results of the chunks folded so far and their reducer): after it, or before it
    /// for a loop that folds from the back (`back`).
    Split {
        acc: Option<(R, Red)>,
        back: bool,
        len: usize,
        producer: P,
        consumer: C,
        pacer: Pacer,
    },
}

/// The indexed driver (see the module docs): the chunk loop, then the split it asks for.
///
/// The split runs here, after the loop has returned, not inside the loop: a frame stays on
/// the stack under every nested split, and a debug build makes a function's frame as large as
/// all its locals. Splitting from the loop, each level of `tests/octillion.rs` (three nested
/// ranges, 60 splits deep) took 15.7 KB of stack in a debug build (rayon 4.4 KB) and 2.4 KB
/// in a release one (rayon 1.1 KB); with this, the pacer shared by reference
/// (`split_and_join`) and the two paths of a join in frames of their own in debug builds
/// (`scheduler::join`), 7.7 KB and 1.8 KB. `tests/stack_depth.rs` holds it to that.
#[inline]
pub(in crate::iter::plumbing) fn drive_indexed<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: Pacer,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    match chunk_loop(len, producer, consumer, pacer) {
        Driven::Done(result) => result,
        Driven::Split {
            acc,
            back,
            len,
            producer,
            consumer,
            pacer,
        } => {
            let rest = split_and_join(len, producer, consumer, pacer);
            match acc {
                None => rest,
                Some((done, reducer)) if back => reducer.reduce(rest, done),
                Some((done, reducer)) => reducer.reduce(done, rest),
            }
        }
    }
}

/// The chunk loop of [`drive_indexed`], or of one of its variants for consumers that fold from
/// the back or keep their folder open.
pub(super) fn chunk_loop<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if C::FOLDER_MAY_CONTINUE && consumer.folder_continues() {
        if !pacer.entered && len > 0 {
            // The open folder cannot be carried into `enter` (folders need not be `Send`),
            // so a loop that keeps one enters first: a few tens of nanoseconds, against the
            // allocation a collect into vectors makes anyway.
            return Driven::Done(enter_and_drive(len, producer, consumer, pacer));
        }
        return drive_continuing(len, producer, consumer, pacer);
    }
    if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
        return drive_from_back(len, producer, consumer, pacer);
    }
    pacer.start_loop();
    // Results of the chunks folded so far, and the reducer that joins them to the next part.
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    if len >= 2 && pacer.fresh() && may_watch(len) {
        let fold = |p: P, c: C, n, pacer: &mut Pacer| fold_leaf(p, c, n, len - n, pacer);
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(first, reducer, rest) => {
                return Driven::Done(reducer.reduce(first, rest))
            }
            Watched::Go(rest_len, rest_p, rest_c, first) => {
                (len, producer, consumer, acc) = (rest_len, rest_p, rest_c, first);
                if acc.is_some() && pacer.should_enter() && len > 0 {
                    // As after any chunk (below).
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(acc, rest));
                }
            }
        }
    }
    loop {
        if len == 0 || consumer.full() {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish(acc, rest));
        }
        match pacer.decide(len) {
            Step::Split if !pacer.entered => {
                let rest = enter_and_drive(len, producer, consumer, pacer);
                return Driven::Done(finish(acc, rest));
            }
            Step::Split => {
                return Driven::Split {
                    acc,
                    back: false,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (front_p, rest_p) = producer.split_at(n);
                let (front_c, rest_c, reducer) = consumer.split_at(n);
                let (result, full) = fold_leaf(front_p, front_c, n, len - n, &mut pacer);
                acc = Some(match acc {
                    None => (result, reducer),
                    Some((left, previous)) => (previous.reduce(left, result), reducer),
                });
                producer = rest_p;
                consumer = rest_c;
                len = if full { 0 } else { len - n };
                pacer.before = pacer.before.saturating_add(n);
                if pacer.should_enter() {
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(acc, rest));
                }
            }
            Step::FoldAll => {
                let (result, _) = fold_leaf(producer, consumer, len, 0, &mut pacer);
                return Driven::Done(finish(acc, result));
            }
        }
    }
}

/// What a loop's watched first chunk leaves to do ([`watch_first_chunk`]).
pub(super) enum Watched<P, C, A, Red, R> {
    /// The watchman handed the rest to the pool: the first chunk's `A` (its result, or its
    /// open folder), the reducer that joins it to the rest (the chunk first; the rest first
    /// for a consumer that folds from the back), and the rest's result.
    Handed(A, Red, R),
    /// Go on with this many items, producer, consumer, and the first chunk's `A` and reducer
    /// (`None` if no chunk was folded).
    Go(usize, P, C, Option<(A, Red)>),
}

/// The first chunk of a fresh loop (`Pacer::fresh`), folded by `fold` (into an `A`, and
/// whether its folder is full) while the rest of the loop is watched (`scheduler::watch`).
/// The chunk is the loop's front, or its back for a consumer that folds from the back.
/// Out of the chunk loop, and out of line: in the loop, the check and the moves of the rest
/// through the watch made the chunks of long cheap loops slower (a 10M-item sum took 2.0 to
/// 2.6 against 1.5 ms on the 2-core VM).
#[inline(never)]
#[allow(clippy::type_complexity)]
pub(super) fn watch_first_chunk<P, C, A>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: &mut Pacer,
    fold: impl FnOnce(P, C, usize, &mut Pacer) -> (A, bool),
) -> Watched<P, C, A, C::Reducer, C::Result>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let n = match pacer.decide(len) {
        Step::Peel(n) if !consumer.full() => n,
        // Not a chunk and a rest: the chunk loop decides again, with the same outcome.
        _ => return Watched::Go(len, producer, consumer, None),
    };
    // A consumer that folds from the back takes its first chunk from the back
    // (`drive_from_back`); its reducer then joins the rest (front) to the chunk (back).
    let ((first_p, first_c), (rest_p, rest_c), reducer) =
        if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
            let (rest_p, back_p) = producer.split_at(len - n);
            let (rest_c, back_c, reducer) = consumer.split_at(len - n);
            ((back_p, back_c), (rest_p, rest_c), reducer)
        } else {
            let (front_p, rest_p) = producer.split_at(n);
            let (front_c, rest_c, reducer) = consumer.split_at(n);
            ((front_p, front_c), (rest_p, rest_c), reducer)
        };
    let rest_pacer = *pacer;
    let ((first, full), rest) = watch(
        len,
        0,
        pacer.loop_start,
        (rest_p, rest_c),
        move |(p, c), elapsed| drive_indexed(len - n, p, c, rest_pacer.rescued(elapsed, n)),
        || fold(first_p, first_c, n, pacer),
    );
    match rest {
        Err(rest_result) => Watched::Handed(first, reducer, rest_result),
        Ok((rest_p, rest_c)) => {
            pacer.before = pacer.before.saturating_add(n);
            let rest_len = if full { 0 } else { len - n };
            Watched::Go(rest_len, rest_p, rest_c, Some((first, reducer)))
        }
    }
}

/// Splits the `len` items in halves and drives both, potentially in parallel. A consumer
/// that folds from the back runs the back half on this thread and offers the front one.
#[inline]
pub(super) fn split_and_join<P, C>(len: usize, producer: P, consumer: C, pacer: Pacer) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let from_back = C::MAY_FOLD_FROM_BACK && consumer.folds_from_back();
    let mid = if consumer.searches_in_order() && len <= pacer.max_len {
        // The lead stays with this thread, at the end the search starts from.
        let lead = pacer.search_split_point(len);
        if from_back {
            len - lead
        } else {
            lead
        }
    } else {
        split_point(len, pacer.min_len)
    };
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    // Each half copies the pacer when it starts: the halves capture a reference, not a copy,
    // and so stay smaller on every frame of the join they pass through (a stack's worth in
    // deeply nested loops). The half this thread runs keeps `before`; the other lies beyond
    // this one's items.
    let pacer = &pacer;
    let front = move || {
        let mut left_pacer = *pacer;
        left_pacer.offer = false;
        if from_back {
            left_pacer.before = pacer.before.saturating_add(len - mid);
        }
        drive_indexed(mid, left_p, left_c, left_pacer)
    };
    let back = move || {
        let mut right_pacer = *pacer;
        right_pacer.offer = false;
        if !from_back {
            right_pacer.before = pacer.before.saturating_add(mid);
        }
        drive_indexed(len - mid, right_p, right_c, right_pacer)
    };
    // The test of the constant leaves the swapped join out of the code of consumers that
    // never fold from the back.
    let (left, right) = if C::MAY_FOLD_FROM_BACK {
        join_halves(from_back, front, back)
    } else {
        join(front, back)
    };
    reducer.reduce(left, right)
}

/// Runs the two halves of a split, potentially in parallel, and returns their results as
/// (front, back): the front half on this thread and the back one offered to thieves, or the
/// other way round for a consumer that folds from the back, so that its search meets the last
/// match first.
#[inline]
pub(crate) fn join_halves<A, B, RA, RB>(from_back: bool, front: A, back: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if from_back {
        let (back, front) = join(back, front);
        (front, back)
    } else {
        join(front, back)
    }
}

/// The loop of [`drive_indexed`] for a consumer that folds from the back
/// (`Consumer::folds_from_back`): the mirror image of the front loop. `acc` holds the results
/// of the chunks after the items left, with the reducer that joins those items to them.
#[inline(never)]
pub(super) fn drive_from_back<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.start_loop();
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    let finish_back = |result: C::Result, acc: Option<(C::Result, C::Reducer)>| match acc {
        None => result,
        Some((right, reducer)) => reducer.reduce(result, right),
    };
    if len >= 2 && pacer.fresh() && may_watch(len) {
        // A full folder says nothing of the items before it (as below).
        let fold = |p: P, c: C, n, pacer: &mut Pacer| (fold_leaf(p, c, n, len - n, pacer).0, false);
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(last, reducer, rest) => {
                return Driven::Done(reducer.reduce(rest, last))
            }
            Watched::Go(rest_len, rest_p, rest_c, last) => {
                (len, producer, consumer, acc) = (rest_len, rest_p, rest_c, last);
                if acc.is_some() && pacer.should_enter() && len > 0 {
                    // As after any chunk (below).
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish_back(rest, acc));
                }
            }
        }
    }
    loop {
        if len == 0 || consumer.full() {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish_back(rest, acc));
        }
        match pacer.decide(len) {
            Step::Split if !pacer.entered => {
                let rest = enter_and_drive(len, producer, consumer, pacer);
                return Driven::Done(finish_back(rest, acc));
            }
            Step::Split => {
                return Driven::Split {
                    acc,
                    back: true,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (rest_p, back_p) = producer.split_at(len - n);
                let (rest_c, back_c, reducer) = consumer.split_at(len - n);
                // A full folder here says nothing of the items before it: keep going (for
                // `find_last` the consumer of those items is then beaten anyway).
                let (result, _) = fold_leaf(back_p, back_c, n, len - n, &mut pacer);
                acc = Some(match acc {
                    None => (result, reducer),
                    Some((right, previous)) => (previous.reduce(result, right), reducer),
                });
                producer = rest_p;
                consumer = rest_c;
                len -= n;
                pacer.before = pacer.before.saturating_add(n);
                if pacer.should_enter() {
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish_back(rest, acc));
                }
            }
            Step::FoldAll => {
                let (result, _) = fold_leaf(producer, consumer, len, 0, &mut pacer);
                return Driven::Done(finish_back(result, acc));
            }
        }
    }
}

/// The loop of [`drive_indexed`] for a consumer whose folder continues over the chunks
/// (`Consumer::folder_continues`): one folder takes every chunk up to the next split or the
/// end, and the consumers of the chunks after the first are dropped unused. Runs entered.
#[inline(never)]
pub(super) fn drive_continuing<P, C>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.start_loop();
    // The folder holding every item folded so far, and the reducer that joins its result to
    // the rest.
    let mut open: Option<(C::Folder, C::Reducer)> = None;
    if len >= 2 && pacer.fresh() && may_watch(len) {
        // A full folder ends the loop at the top of the chunk loop, as after any chunk.
        let fold = |p: P, c: C, n, pacer: &mut Pacer| {
            let folder = p.fold_with(c.into_folder());
            pacer.record(n, len - n);
            (folder, false)
        };
        match watch_first_chunk(len, producer, consumer, &mut pacer, fold) {
            Watched::Handed(first, reducer, rest) => {
                return Driven::Done(reducer.reduce(first.complete(), rest))
            }
            Watched::Go(rest_len, rest_p, rest_c, first) => {
                (len, producer, consumer, open) = (rest_len, rest_p, rest_c, first);
            }
        }
    }
    let close = |open: Option<(C::Folder, C::Reducer)>| open.map(|(f, r)| (f.complete(), r));
    loop {
        if len == 0 || consumer.full() || open.as_ref().is_some_and(|(f, _)| f.full()) {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish(close(open), rest));
        }
        match pacer.decide(len) {
            Step::Split => {
                return Driven::Split {
                    acc: close(open),
                    back: false,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let (front_p, rest_p) = producer.split_at(n);
                let (front_c, rest_c, reducer) = consumer.split_at(n);
                let folder = match open {
                    Some((folder, _)) => folder,
                    None => front_c.into_folder(),
                };
                let folder = front_p.fold_with(folder);
                pacer.record(n, len - n);
                open = Some((folder, reducer));
                producer = rest_p;
                consumer = rest_c;
                len -= n;
            }
            Step::FoldAll => {
                let folder = match open {
                    Some((folder, _)) => folder,
                    None => consumer.into_folder(),
                };
                let result = producer.fold_with(folder).complete();
                pacer.record(len, 0);
                return Driven::Done(result);
            }
        }
    }
}

/// Continues the loop inside `scheduler::enter` (see the module docs).
#[cold]
#[inline(never)]
pub(super) fn enter_and_drive<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    mut pacer: Pacer,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    pacer.entered = true;
    crate::scheduler::enter(move || drive_indexed(len, producer, consumer, pacer))
}
