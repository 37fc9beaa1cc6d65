//! The indexed driver: one chunk loop that peels chunks off a producer as the pacer
//! (`policy.rs`) decides, and the splits it asks for.
//!
//! The loop ([`chunk_loop`]) serves three kinds of consumer through [`Chunks`]: most take
//! their chunks off the front and join each chunk's result to the ones before ([`Front`]);
//! a consumer that folds from the back takes them off the back ([`Back`]); one whose folder
//! continues folds every chunk into one open folder ([`Continuing`]).

use super::policy::{split_point, Heat, Pacer, Place, Proof, Step};
use crate::iter::plumbing::{Consumer, Folder, Producer, Reducer};
use crate::scheduler::{join, join_offered, watch, Watch};
use crate::sync::{ticks, ticks_in};
use crate::tuning::RESCUE_NS;
use std::cell::Cell;

/// Folds `producer` into a fresh folder of `consumer` and records it in `pacer`. Also returns
/// whether the folder ended up full: then the items after these are useless too, as they
/// would be to one sequential fold (`find_first` found its match, `while_some` met a `None`).
#[inline]
fn fold_leaf<P, C>(
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
    // Recording, a leaf after the first of its loop begins at the previous leaf's end (or
    // at the thread's event after it), without a clock reading; the pacer's reading at a
    // leaf's end, when one is due, is the `LeafEnd`'s.
    trace_event!(@after pacer.done != 0, LeafBegin);
    let folder = producer.fold_with(consumer.into_folder());
    #[cfg(feature = "trace")]
    let reading = crate::trace::emit_reading(crate::trace::Kind::LeafEnd, n as u64);
    let full = folder.full();
    #[cfg(not(feature = "trace"))]
    pacer.record(n, remaining);
    #[cfg(feature = "trace")]
    pacer.record_by(n, remaining, &super::policy::LiveAt(reading));
    (folder.complete(), full)
}

/// Joins the result of the chunks folded so far (`done`, with the reducer that joins it to
/// what follows) and `rest`, the result of the items after them, or before them for a loop
/// that takes its chunks off the back (`back`).
#[inline]
fn finish<R, Red: Reducer<R>>(done: Option<(R, Red)>, rest: R, back: bool) -> R {
    match done {
        None => rest,
        Some((done, reducer)) if back => reducer.reduce(rest, done),
        Some((done, reducer)) => reducer.reduce(done, rest),
    }
}

/// How a chunk loop takes its chunks and keeps what it has folded.
trait Chunks<P: Producer, C: Consumer<P::Item>> {
    /// What the loop keeps of the chunks it has folded, with the reducer that joins it to the
    /// items left.
    type Kept;

    /// Whether chunks come off the back of the items left (and the items left lie before
    /// what is kept).
    const FROM_BACK: bool;

    /// Folds a chunk of `n` items, with `remaining` items left after it, into what was kept;
    /// `reducer` joins the chunk's side to the items left. Also returns whether the items
    /// left are useless now (a full folder).
    fn fold(
        kept: Option<Self::Kept>,
        producer: P,
        consumer: C,
        reducer: C::Reducer,
        n: usize,
        remaining: usize,
        pacer: &mut Pacer,
    ) -> (Self::Kept, bool);

    /// Whether what is kept makes the items left useless (a full open folder).
    #[inline]
    fn full(_kept: &Option<Self::Kept>) -> bool {
        false
    }

    /// The result of what is kept, with the reducer that joins it to the items left.
    fn close(kept: Option<Self::Kept>) -> Option<(C::Result, C::Reducer)>;

    /// Folds the last `len` items in one chunk and joins them to what is kept.
    #[inline]
    fn fold_rest(
        kept: Option<Self::Kept>,
        producer: P,
        consumer: C,
        len: usize,
        pacer: &mut Pacer,
    ) -> C::Result {
        let (rest, _) = fold_leaf(producer, consumer, len, 0, pacer);
        finish(Self::close(kept), rest, Self::FROM_BACK)
    }
}

/// Chunks each folded on its own and joined to the results of the chunks before them: off the
/// front ([`Front`]), or off the back (`Consumer::folds_from_back`, [`Back`]) and joined to the
/// results after them, its mirror image. `BACK` is a constant: each loop's code is that of
/// its side alone. A full folder from the back says nothing of the items before its chunk, so
/// that loop goes on (for `find_last` their consumer is beaten anyway).
struct Separate<const BACK: bool>;

/// Chunks off the front, each folded on its own.
type Front = Separate<false>;

/// Chunks off the back, each folded on its own.
type Back = Separate<true>;

impl<P: Producer, C: Consumer<P::Item>, const BACK: bool> Chunks<P, C> for Separate<BACK> {
    type Kept = (C::Result, C::Reducer);
    const FROM_BACK: bool = BACK;

    #[inline]
    fn fold(
        kept: Option<Self::Kept>,
        producer: P,
        consumer: C,
        reducer: C::Reducer,
        n: usize,
        remaining: usize,
        pacer: &mut Pacer,
    ) -> (Self::Kept, bool) {
        let (result, full) = fold_leaf(producer, consumer, n, remaining, pacer);
        let kept = match kept {
            None => (result, reducer),
            // Off the back, the chunks folded so far lie after this one.
            Some((done, previous)) if BACK => (previous.reduce(result, done), reducer),
            Some((done, previous)) => (previous.reduce(done, result), reducer),
        };
        (kept, full && !BACK)
    }

    #[inline]
    fn close(kept: Option<Self::Kept>) -> Option<(C::Result, C::Reducer)> {
        kept
    }
}

/// Chunks off the front, all folded by one open folder (`Consumer::folder_continues`): the
/// consumers of the chunks after the first are dropped unused. Runs entered (the folder need
/// not be `Send`, so it cannot be carried into `enter`).
struct Continuing;

impl<P: Producer, C: Consumer<P::Item>> Chunks<P, C> for Continuing {
    type Kept = (C::Folder, C::Reducer);
    const FROM_BACK: bool = false;

    #[inline]
    fn fold(
        kept: Option<Self::Kept>,
        producer: P,
        consumer: C,
        reducer: C::Reducer,
        n: usize,
        remaining: usize,
        pacer: &mut Pacer,
    ) -> (Self::Kept, bool) {
        let folder = match kept {
            Some((folder, _)) => folder,
            None => consumer.into_folder(),
        };
        let folder = producer.fold_with(folder);
        pacer.record(n, remaining);
        // A full folder ends the loop at its next check (`full`).
        ((folder, reducer), false)
    }

    #[inline]
    fn full(kept: &Option<Self::Kept>) -> bool {
        kept.as_ref().is_some_and(|(folder, _)| folder.full())
    }

    #[inline]
    fn close(kept: Option<Self::Kept>) -> Option<(C::Result, C::Reducer)> {
        kept.map(|(folder, reducer)| (folder.complete(), reducer))
    }

    #[inline]
    fn fold_rest(
        kept: Option<Self::Kept>,
        producer: P,
        consumer: C,
        len: usize,
        pacer: &mut Pacer,
    ) -> C::Result {
        let folder = match kept {
            Some((folder, _)) => folder,
            None => consumer.into_folder(),
        };
        let result = producer.fold_with(folder).complete();
        pacer.record(len, 0);
        result
    }
}

/// What a chunk loop of the indexed driver leaves to [`drive_indexed`]: its result, or a split
/// of the items it has not folded.
enum Driven<P, C, R, Red> {
    /// The loop's result.
    Done(R),
    /// Split these `len` items in halves (`split_and_join`), then join their result to `done`
    /// (the results of the chunks folded so far and their reducer): after it, or before it
    /// for a loop that takes its chunks off the back (`back`).
    Split {
        done: Option<(R, Red)>,
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
    match chunk_loops(len, producer, consumer, pacer) {
        Driven::Done(result) => result,
        Driven::Split {
            done,
            back,
            len,
            producer,
            consumer,
            pacer,
        } => finish(done, split_and_join(len, producer, consumer, pacer), back),
    }
}

/// Picks the chunk loop for the consumer ([`Chunks`]) and runs it. The loops for consumers
/// that fold from the back or keep their folder open are out of line: they are rare, and the
/// front loop stays as short as it was alone.
fn chunk_loops<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if C::FOLDER_MAY_CONTINUE && consumer.folder_continues() {
        if pacer.place == Place::Outside && len > 0 {
            // The open folder cannot be carried into `enter` (folders need not be `Send`),
            // so a loop that keeps one enters first: a few tens of nanoseconds, against the
            // allocation a collect into vectors makes anyway.
            return Driven::Done(enter_and_drive(len, producer, consumer, pacer));
        }
        return chunk_loop_out_of_line::<P, C, Continuing>(len, producer, consumer, pacer);
    }
    if C::MAY_FOLD_FROM_BACK && consumer.folds_from_back() {
        return chunk_loop_out_of_line::<P, C, Back>(len, producer, consumer, pacer);
    }
    chunk_loop::<P, C, Front>(len, producer, consumer, pacer)
}

/// [`chunk_loop`] in a function of its own.
#[inline(never)]
fn chunk_loop_out_of_line<P, C, L>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
    L: Chunks<P, C>,
{
    chunk_loop::<P, C, L>(len, producer, consumer, pacer)
}

/// The chunk loop: peels chunks as the pacer decides, folds them as `L` says, and returns
/// its result, or the split the pacer asks for once the loop runs in the scheduler. Before
/// that, a split or a proven loop continues inside `scheduler::enter` ([`enter_and_drive`]).
#[inline(always)]
fn chunk_loop<P, C, L>(
    mut len: usize,
    mut producer: P,
    mut consumer: C,
    mut pacer: Pacer,
) -> Driven<P, C, C::Result, C::Reducer>
where
    P: Producer,
    C: Consumer<P::Item>,
    L: Chunks<P, C>,
{
    pacer.start_loop();
    let mut kept: Option<L::Kept> = None;
    if len >= 2 && pacer.fresh() && Watch::worth(len) {
        match watch_first_chunk::<P, C, L>(len, producer, consumer, &mut pacer) {
            Watched::Handed(first, rest) => {
                return Driven::Done(finish(L::close(Some(first)), rest, L::FROM_BACK));
            }
            Watched::Shared(result) => return Driven::Done(result),
            Watched::Go(rest_len, rest_p, rest_c, first) => {
                (len, producer, consumer, kept) = (rest_len, rest_p, rest_c, first);
                if kept.is_some() && pacer.should_enter() && len > 0 {
                    // As after any chunk (below).
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(L::close(kept), rest, L::FROM_BACK));
                }
            }
        }
    }
    loop {
        if len == 0 || consumer.full() || L::full(&kept) {
            let rest = consumer.into_folder().complete();
            return Driven::Done(finish(L::close(kept), rest, L::FROM_BACK));
        }
        match pacer.decide(len) {
            Step::Split if pacer.place == Place::Outside => {
                let rest = enter_and_drive(len, producer, consumer, pacer);
                return Driven::Done(finish(L::close(kept), rest, L::FROM_BACK));
            }
            Step::Split => {
                return Driven::Split {
                    done: L::close(kept),
                    back: L::FROM_BACK,
                    len,
                    producer,
                    consumer,
                    pacer,
                };
            }
            Step::Peel(n) => {
                let ((chunk_p, chunk_c), (rest_p, rest_c), reducer) =
                    peel(producer, consumer, n, len, L::FROM_BACK);
                let (now_kept, full) =
                    L::fold(kept, chunk_p, chunk_c, reducer, n, len - n, &mut pacer);
                kept = Some(now_kept);
                producer = rest_p;
                consumer = rest_c;
                len = if full { 0 } else { len - n };
                pacer.before = pacer.before.saturating_add(n);
                if pacer.should_enter() {
                    let rest = enter_and_drive(len, producer, consumer, pacer);
                    return Driven::Done(finish(L::close(kept), rest, L::FROM_BACK));
                }
            }
            Step::FoldAll => {
                return Driven::Done(L::fold_rest(kept, producer, consumer, len, &mut pacer));
            }
        }
    }
}

/// Splits off a chunk of `n` of the `len` items: the front ones, or the back ones
/// (`from_back`). Returns the chunk, the items left, and the reducer that joins the front
/// part's result to the back part's.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn peel<P, C>(
    producer: P,
    consumer: C,
    n: usize,
    len: usize,
    from_back: bool,
) -> ((P, C), (P, C), C::Reducer)
where
    P: Producer,
    C: Consumer<P::Item>,
{
    if from_back {
        let (rest_p, back_p) = producer.split_at(len - n);
        let (rest_c, back_c, reducer) = consumer.split_at(len - n);
        ((back_p, back_c), (rest_p, rest_c), reducer)
    } else {
        let (front_p, rest_p) = producer.split_at(n);
        let (front_c, rest_c, reducer) = consumer.split_at(n);
        ((front_p, front_c), (rest_p, rest_c), reducer)
    }
}

/// What a loop's watched first chunk leaves to do ([`watch_first_chunk`]).
enum Watched<P, C, K, R> {
    /// The watchman handed the rest to the pool: what the loop keeps of the first chunk, and
    /// the rest's result.
    Handed(K, R),
    /// Go on with this many items, producer, consumer, and what the loop keeps of the first
    /// chunk (`None` if no chunk was folded).
    Go(usize, P, C, Option<K>),
    /// The loop's last call on this thread was rescued ([`HEAVY`]): it was split and shared
    /// at once, unwatched; its result.
    Shared(R),
}

thread_local! {
    /// The last watched loop of this thread whose rest the watchman handed out (a loop's
    /// `watch_first_chunk` instance, by address) and its first chunk's cost (ticks, items);
    /// zeros for none. A loop called again and again (a program's step, a benchmark) pays
    /// the watch's delay on every call otherwise: its rest waited [`RESCUE_NS`] and the
    /// watchman's wake-up before any other thread could start it, one core idle meanwhile
    /// (rayon's caller hands every item out at once). With this, the next call of the same
    /// loop splits to single items and shares them before its first item, as the rescued
    /// rest would have; a call of it that ends within [`RESCUE_NS`] forgets it again.
    ///
    /// [`RESCUE_NS`]: crate::tuning::RESCUE_NS
    static HEAVY: Cell<(usize, (u64, usize))> = const { Cell::new((0, (0, 0))) };
}

/// The first chunk of a fresh loop (`Pacer::fresh`), folded as `L` says while the rest of
/// the loop is watched (`scheduler::watch`). Out of the chunk loop, and out of line: in the
/// loop, the check and the moves of the rest through the watch made the chunks of long cheap
/// loops slower (a 10M-item sum took 2.0 to 2.6 against 1.5 ms on the 2-core VM).
#[inline(never)]
fn watch_first_chunk<P, C, L>(
    len: usize,
    producer: P,
    consumer: C,
    pacer: &mut Pacer,
) -> Watched<P, C, L::Kept, C::Result>
where
    P: Producer,
    C: Consumer<P::Item>,
    L: Chunks<P, C>,
{
    let key = watch_first_chunk::<P, C, L> as fn(usize, P, C, &mut Pacer) -> _ as usize;
    let (heavy, rate) = HEAVY.with(Cell::get);
    if heavy == key {
        return Watched::Shared(share_heavy(key, rate, len, producer, consumer, pacer));
    }
    let n = match pacer.decide(len) {
        Step::Peel(n) if !consumer.full() => n,
        // Not a chunk and a rest: the chunk loop decides again, with the same outcome.
        _ => return Watched::Go(len, producer, consumer, None),
    };
    let ((first_p, first_c), (rest_p, rest_c), reducer) =
        peel(producer, consumer, n, len, L::FROM_BACK);
    let rest_pacer = *pacer;
    let ((first, full), rest) = watch(
        len,
        0,
        pacer.loop_start,
        (rest_p, rest_c),
        move |(p, c), elapsed| drive_indexed(len - n, p, c, rest_pacer.rescued(elapsed, n)),
        || L::fold(None, first_p, first_c, reducer, n, len - n, pacer),
    );
    match rest {
        Err(rest_result) => {
            // The first chunk's reading (`fold_leaf`): the items' cost for the next call.
            HEAVY.with(|heavy| heavy.set((key, pacer.rate)));
            Watched::Handed(first, rest_result)
        }
        Ok((rest_p, rest_c)) => {
            pacer.before = pacer.before.saturating_add(n);
            let rest_len = if full { 0 } else { len - n };
            Watched::Go(rest_len, rest_p, rest_c, Some(first))
        }
    }
}

/// Drives a loop of `len` items whose last call on this thread was rescued, its first chunk
/// then costing `rate` (ticks, items): with that estimate, so that it splits to single items
/// and shares them before its first item (`Pacer::decide`'s heavy items), inside the
/// scheduler. Forgets the loop ([`HEAVY`]) if the whole call ends within `RESCUE_NS`: its
/// first chunk would not have been rescued. Out of line: once per call of a heavy loop.
#[cold]
#[inline(never)]
fn share_heavy<P, C>(
    key: usize,
    rate: (u64, usize),
    len: usize,
    producer: P,
    consumer: C,
    pacer: &Pacer,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let mut pacer = *pacer;
    pacer.rate = rate;
    pacer.proof = Proof::Proven;
    let start = pacer.loop_start;
    // Inside a pool already, entering costs a check (`scheduler::enter`).
    let result = enter_and_drive(len, producer, consumer, pacer);
    if ticks().wrapping_sub(start) < ticks_in(RESCUE_NS) {
        HEAVY.with(|heavy| {
            if heavy.get().0 == key {
                heavy.set((0, (0, 0)));
            }
        });
    }
    result
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
    trace_event!(Split, len);
    let (left_p, right_p) = producer.split_at(mid);
    let (left_c, right_c, reducer) = consumer.split_at(mid);
    // Each half copies the pacer when it starts: the halves capture a reference, not a copy,
    // and so stay smaller on every frame of the join they pass through (a stack's worth in
    // deeply nested loops). The half this thread runs keeps `before`; the other lies beyond
    // this one's items.
    // A hot loop's split for an awake worker (`Pacer::decide`): its join offers the frame.
    let offered = pacer.heat == Heat::Offering;
    let pacer = &pacer;
    let front = move || {
        let mut left_pacer = *pacer;
        left_pacer.heat = pacer.heat.of_half();
        if from_back {
            left_pacer.before = pacer.before.saturating_add(len - mid);
        }
        drive_indexed(mid, left_p, left_c, left_pacer)
    };
    let back = move || {
        let mut right_pacer = *pacer;
        right_pacer.heat = pacer.heat.of_half();
        if !from_back {
            right_pacer.before = pacer.before.saturating_add(mid);
        }
        drive_indexed(len - mid, right_p, right_c, right_pacer)
    };
    // The test of the constant leaves the swapped join out of the code of consumers that
    // never fold from the back.
    let (left, right) = if offered {
        offer_halves(from_back, front, back)
    } else if C::MAY_FOLD_FROM_BACK {
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

/// [`join_halves`] for a split offered to an awake worker (`scheduler::join_offered`): once
/// per hot drive, out of line.
#[cold]
#[inline(never)]
fn offer_halves<A, B, RA, RB>(from_back: bool, front: A, back: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if from_back {
        let (back, front) = join_offered(back, front);
        (front, back)
    } else {
        join_offered(front, back)
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
    pacer.place = Place::Entered;
    crate::scheduler::enter(move || drive_indexed(len, producer, consumer, pacer))
}
