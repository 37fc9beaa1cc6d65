//! `unzip`, `partition`, `partition_map`, and the two-sided consumer behind them and
//! `unzip_into_vecs`.
//!
//! All of them drive the iterator once, through an [`UnzipConsumer`] that holds one consumer
//! of each target collection and sends every item to one side or both. The targets make those
//! consumers themselves, through their own `par_extend`: the left target extends from an
//! [`UnzipA`], which, when driven with the left consumer, extends the right target from an
//! [`UnzipB`], which, when driven with the right consumer, drives the base with both. So each
//! side collects as fast as a plain `collect` into it: two `Vec`s from an indexed `unzip`
//! write their items straight into place, and `partition` grows one vector per loop of the
//! driver on each side.

use super::plumbing::*;
use super::*;

/// How the items of an iterator go to the two sides.
pub(crate) trait UnzipOp<T>: Sync + Send {
    /// The items of the left side.
    type Left: Send;
    /// The items of the right side.
    type Right: Send;
    /// Whether every item sends exactly one value to each side, so that both sides have the
    /// base's length and positions.
    const EACH_ITEM_TO_BOTH: bool;
    /// What `item` sends to each side.
    fn split(&self, item: T) -> Sides<Self::Left, Self::Right>;
}

/// What one item sends to the two sides.
pub(crate) enum Sides<L, R> {
    Left(L),
    Right(R),
    Both(L, R),
}

/// `unzip`: the first half of each pair to the left, the second to the right.
pub(crate) struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;
    const EACH_ITEM_TO_BOTH: bool = true;
    #[inline]
    fn split(&self, (a, b): (A, B)) -> Sides<A, B> {
        Sides::Both(a, b)
    }
}

/// `partition`: the items for which the predicate holds to the left, the others right.
struct Partition<P>(P);

impl<T, P> UnzipOp<T> for Partition<P>
where
    T: Send,
    P: Fn(&T) -> bool + Sync + Send,
{
    type Left = T;
    type Right = T;
    const EACH_ITEM_TO_BOTH: bool = false;
    #[inline]
    fn split(&self, item: T) -> Sides<T, T> {
        if (self.0)(&item) {
            Sides::Left(item)
        } else {
            Sides::Right(item)
        }
    }
}

/// `partition_map`: each item mapped to `Either`, and sent to the side it names.
pub(crate) struct PartitionMap<P>(pub(crate) P);

impl<T, P, L, R> UnzipOp<T> for PartitionMap<P>
where
    P: Fn(T) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    type Left = L;
    type Right = R;
    const EACH_ITEM_TO_BOTH: bool = false;
    #[inline]
    fn split(&self, item: T) -> Sides<L, R> {
        match (self.0)(item) {
            Either::Left(l) => Sides::Left(l),
            Either::Right(r) => Sides::Right(r),
        }
    }
}

/// Extends `a` and `b` with the two sides of `par_iter`, as `op` divides it, in one pass.
pub(crate) fn unzip_into<I, OP, ExtendA, ExtendB>(
    par_iter: I,
    op: OP,
    a: &mut ExtendA,
    b: &mut ExtendB,
) where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    ExtendA: Send + ParallelExtend<OP::Left> + ?Sized,
    ExtendB: Send + ParallelExtend<OP::Right> + ?Sized,
{
    a.par_extend(UnzipA {
        base: par_iter,
        op,
        b,
    });
}

/// [`unzip_into`] two new collections.
fn unzip_new<I, OP, FromA, FromB>(par_iter: I, op: OP) -> (FromA, FromB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Default + Send + ParallelExtend<OP::Left>,
    FromB: Default + Send + ParallelExtend<OP::Right>,
{
    let mut a = FromA::default();
    let mut b = FromB::default();
    unzip_into(par_iter, op, &mut a, &mut b);
    (a, b)
}

pub(super) fn unzip<I, A, B, FromA, FromB>(par_iter: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    unzip_new(par_iter, Unzip)
}

pub(super) fn partition<I, A, B, P>(par_iter: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    unzip_new(par_iter, Partition(predicate))
}

pub(super) fn partition_map<I, A, B, P, L, R>(par_iter: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
    P: Fn(I::Item) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    unzip_new(par_iter, PartitionMap(predicate))
}

/// The left side's items, as the left target's `par_extend` sees them. Driving it extends the
/// right target from an [`UnzipB`] that carries the left consumer along.
struct UnzipA<'b, I, OP, ExtendB: ?Sized> {
    base: I,
    op: OP,
    b: &'b mut ExtendB,
}

impl<I, OP, ExtendB> ParallelIterator for UnzipA<'_, I, OP, ExtendB>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    ExtendB: Send + ParallelExtend<OP::Right> + ?Sized,
{
    type Item = OP::Left;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let mut left_result = None;
        self.b.par_extend(UnzipB {
            base: self.base,
            op: self.op,
            left: consumer,
            left_result: &mut left_result,
        });
        left_result
            .expect("unzip: the right-hand collection's `par_extend` did not drive its iterator")
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::EACH_ITEM_TO_BOTH {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// The right side's items, as the right target's `par_extend` sees them. Driving it drives
/// the base once, with both sides' consumers.
struct UnzipB<'r, I, OP, CA, RA> {
    base: I,
    op: OP,
    left: CA,
    left_result: &'r mut Option<RA>,
}

impl<I, OP, CA> ParallelIterator for UnzipB<'_, I, OP, CA, CA::Result>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left>,
{
    type Item = OP::Right;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let both = UnzipConsumer::new(&self.op, self.left, consumer);
        let (left, right) = self.base.drive_unindexed(both);
        *self.left_result = Some(left);
        right
    }

    fn opt_len(&self) -> Option<usize> {
        if OP::EACH_ITEM_TO_BOTH {
            self.base.opt_len()
        } else {
            None
        }
    }
}

/// Feeds the items to two consumers, as `op` divides them.
pub(crate) struct UnzipConsumer<'o, OP, CA, CB> {
    op: &'o OP,
    left: CA,
    right: CB,
}

impl<'o, OP, CA, CB> UnzipConsumer<'o, OP, CA, CB> {
    pub(crate) fn new(op: &'o OP, left: CA, right: CB) -> Self {
        UnzipConsumer { op, left, right }
    }
}

impl<'o, T, OP, CA, CB> Consumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: Consumer<OP::Left>,
    CB: Consumer<OP::Right>,
{
    type Folder = UnzipFolder<'o, OP, CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        // For an op that does not send every item to both sides, the sides' consumers are
        // unindexed ones (their targets saw no length), which ignore the index.
        let (a1, a2, ra) = self.left.split_at(index);
        let (b1, b2, rb) = self.right.split_at(index);
        (
            UnzipConsumer::new(self.op, a1, b1),
            UnzipConsumer::new(self.op, a2, b2),
            UnzipReducer(ra, rb),
        )
    }
    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }
    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
    const FOLDER_MAY_CONTINUE: bool = CA::FOLDER_MAY_CONTINUE && CB::FOLDER_MAY_CONTINUE;
    fn folder_continues(&self) -> bool {
        self.left.folder_continues() && self.right.folder_continues()
    }
    // Full only when both sides are.
    const MAY_STOP_EARLY: bool = CA::MAY_STOP_EARLY && CB::MAY_STOP_EARLY;
    const GROUPING: Grouping = CA::GROUPING.at_least(CB::GROUPING);
    fn with_len_hint(self, len: usize) -> Self {
        if OP::EACH_ITEM_TO_BOTH {
            UnzipConsumer::new(
                self.op,
                self.left.with_len_hint(len),
                self.right.with_len_hint(len),
            )
        } else {
            self
        }
    }
}

impl<T, OP, CA, CB> UnindexedConsumer<T> for UnzipConsumer<'_, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: UnindexedConsumer<OP::Left>,
    CB: UnindexedConsumer<OP::Right>,
{
    fn split_off_left(&self) -> Self {
        UnzipConsumer::new(
            self.op,
            self.left.split_off_left(),
            self.right.split_off_left(),
        )
    }
    fn to_reducer(&self) -> Self::Reducer {
        UnzipReducer(self.left.to_reducer(), self.right.to_reducer())
    }
}

pub(crate) struct UnzipFolder<'o, OP, FA, FB> {
    op: &'o OP,
    left: FA,
    right: FB,
}

/// Items per batch of [`UnzipFolder::consume_iter`]: up to 256, and at most about 4 KiB of
/// each side's items, so both buffers stay in the L1 cache.
fn batch_len<L, R>() -> usize {
    let size = std::mem::size_of::<L>()
        .max(std::mem::size_of::<R>())
        .max(1);
    (4096 / size).clamp(1, 256)
}

/// Moves up to `batch` items of `iter` into the empty buffers `lefts` and `rights` (each with
/// room for `batch` items), as `op` divides them.
///
/// `Vec::push` kept both lengths in memory and checked both capacities at every item: the
/// loop ran at half the speed of a plain collect. Here the counts live in a local guard that
/// the optimiser keeps in registers; the guard sets the buffers' lengths when the batch ends
/// and when `iter` or `op` panics, so every item moved so far is dropped exactly once.
#[inline]
fn fill_batch<T, OP, I>(
    op: &OP,
    iter: &mut I,
    batch: usize,
    lefts: &mut Vec<OP::Left>,
    rights: &mut Vec<OP::Right>,
) where
    OP: UnzipOp<T>,
    I: Iterator<Item = T>,
{
    struct Filled<'a, L, R> {
        lefts: &'a mut Vec<L>,
        rights: &'a mut Vec<R>,
        left_ptr: *mut L,
        right_ptr: *mut R,
        left_len: usize,
        right_len: usize,
    }
    impl<L, R> Filled<'_, L, R> {
        /// # Safety
        /// Called fewer times than `lefts` has capacity for.
        #[inline]
        unsafe fn left(&mut self, l: L) {
            // SAFETY: slot `left_len` is below the capacity (the caller's contract) and not
            // written yet; the count grows only after the write.
            unsafe { self.left_ptr.add(self.left_len).write(l) };
            self.left_len += 1;
        }
        /// # Safety
        /// Called fewer times than `rights` has capacity for.
        #[inline]
        unsafe fn right(&mut self, r: R) {
            // SAFETY: as in `left`.
            unsafe { self.right_ptr.add(self.right_len).write(r) };
            self.right_len += 1;
        }
    }
    impl<L, R> Drop for Filled<'_, L, R> {
        fn drop(&mut self) {
            // SAFETY: the first `left_len` slots of `lefts` and `right_len` of `rights` were
            // written (each count grows only after its write), and both buffers were empty
            // when the batch started.
            unsafe {
                self.lefts.set_len(self.left_len);
                self.rights.set_len(self.right_len);
            }
        }
    }
    debug_assert!(lefts.is_empty() && rights.is_empty());
    assert!(lefts.capacity() >= batch && rights.capacity() >= batch);
    let mut filled = Filled {
        left_ptr: lefts.as_mut_ptr(),
        right_ptr: rights.as_mut_ptr(),
        lefts,
        rights,
        left_len: 0,
        right_len: 0,
    };
    for item in iter.take(batch) {
        let sides = op.split(item);
        // SAFETY: at most `batch` items come and each sends at most one value to a side, so
        // each side is called at most `batch` times, and both capacities reach `batch`
        // (asserted above).
        unsafe {
            match sides {
                Sides::Left(l) => filled.left(l),
                Sides::Right(r) => filled.right(r),
                Sides::Both(l, r) => {
                    filled.left(l);
                    filled.right(r);
                }
            }
        }
    }
}

impl<T, OP, FA, FB> Folder<T> for UnzipFolder<'_, OP, FA, FB>
where
    OP: UnzipOp<T>,
    FA: Folder<OP::Left>,
    FB: Folder<OP::Right>,
{
    type Result = (FA::Result, FB::Result);
    #[inline]
    fn consume(mut self, item: T) -> Self {
        match self.op.split(item) {
            Sides::Left(l) => self.left = self.left.consume(l),
            Sides::Right(r) => self.right = self.right.consume(r),
            Sides::Both(l, r) => {
                self.left = self.left.consume(l);
                self.right = self.right.consume(r);
            }
        }
        self
    }
    /// Sorts a batch of items into two buffers, then hands each buffer to its side's
    /// `consume_iter`. Item by item, both sides' folders (a collect's are 40 to 48 bytes)
    /// went through memory at every item, three quarters of a `partition`'s time; batched,
    /// each side runs its own tight loop.
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        if FA::CHEAP_CONSUME && FB::CHEAP_CONSUME {
            // Two stores into place (an indexed `unzip` into two `Vec`s): batches would only
            // add a copy.
            for item in iter {
                self = self.consume(item);
                if self.full() {
                    break;
                }
            }
            return self;
        }
        let batch = batch_len::<OP::Left, OP::Right>();
        // Room for a batch, or for all the items when fewer may come (none: no allocation).
        // (At least one, so that an iterator whose size hint is wrong still ends the loop.)
        let batch = iter.size_hint().1.map_or(batch, |n| n.min(batch)).max(1);
        let mut lefts = Vec::with_capacity(batch);
        let mut rights = Vec::with_capacity(batch);
        loop {
            fill_batch(self.op, &mut iter, batch, &mut lefts, &mut rights);
            if lefts.is_empty() && rights.is_empty() {
                return self;
            }
            self.left = self.left.consume_iter(lefts.drain(..));
            self.right = self.right.consume_iter(rights.drain(..));
            if self.full() {
                return self;
            }
        }
    }
    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }
    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

pub(crate) struct UnzipReducer<RA, RB>(RA, RB);

impl<A, B, RA, RB> Reducer<(A, B)> for UnzipReducer<RA, RB>
where
    RA: Reducer<A>,
    RB: Reducer<B>,
{
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.0.reduce(left.0, right.0),
            self.1.reduce(left.1, right.1),
        )
    }
}
