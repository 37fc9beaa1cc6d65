//! `unzip`, `partition`, `partition_map`, and the pair consumer behind `unzip_into_vecs`.
//!
//! The general forms sort every item into one of two per-leaf vectors, then extend both
//! targets in order. Indexed pairs into two `Vec`s (`unzip_into_vecs`) use [`UnzipConsumer`]
//! to write both vectors directly.

use super::plumbing::*;
use super::*;
use std::collections::LinkedList;

type Halves<A, B> = LinkedList<(Vec<A>, Vec<B>)>;

/// Sorts items into two lists of per-leaf vectors with `place`, then extends both targets.
fn split_two<I, A, B, FromA, FromB, F>(par_iter: I, place: F) -> (FromA, FromB)
where
    I: ParallelIterator,
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
    F: Fn(I::Item, &mut Vec<A>, &mut Vec<B>) + Sync + Send,
{
    let mut a = FromA::default();
    let mut b = FromB::default();
    split_two_into(par_iter, &mut a, &mut b, place);
    (a, b)
}

/// [`split_two`] into existing targets.
pub(super) fn split_two_into<I, A, B, ExtendA, ExtendB, F>(
    par_iter: I,
    a: &mut ExtendA,
    b: &mut ExtendB,
    place: F,
) where
    I: ParallelIterator,
    A: Send,
    B: Send,
    ExtendA: Send + ParallelExtend<A> + ?Sized,
    ExtendB: Send + ParallelExtend<B> + ?Sized,
    F: Fn(I::Item, &mut Vec<A>, &mut Vec<B>) + Sync + Send,
{
    let list: Halves<A, B> = par_iter
        .fold(
            || (Vec::new(), Vec::new()),
            |(mut a, mut b), item| {
                place(item, &mut a, &mut b);
                (a, b)
            },
        )
        .map(|pair| LinkedList::from([pair]))
        .reduce(LinkedList::new, |mut l, mut r| {
            l.append(&mut r);
            l
        });
    let (lefts, rights): (Vec<Vec<A>>, Vec<Vec<B>>) = list.into_iter().unzip();
    a.par_extend(lefts.into_par_iter().flatten());
    b.par_extend(rights.into_par_iter().flatten());
}

pub(super) fn unzip<I, A, B, FromA, FromB>(par_iter: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    split_two(par_iter, place_pair)
}

pub(super) fn partition<I, A, B, P>(par_iter: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    split_two(
        par_iter,
        |x, a, b| if predicate(&x) { a.push(x) } else { b.push(x) },
    )
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
    split_two(par_iter, |x, a, b| place_either(predicate(x), a, b))
}

/// How `unzip` places an item: each half of the pair on its side.
pub(super) fn place_pair<A, B>((x, y): (A, B), a: &mut Vec<A>, b: &mut Vec<B>) {
    a.push(x);
    b.push(y);
}

/// How `partition_map` places an item: on the side it names.
pub(super) fn place_either<L, R>(x: Either<L, R>, a: &mut Vec<L>, b: &mut Vec<R>) {
    match x {
        Either::Left(l) => a.push(l),
        Either::Right(r) => b.push(r),
    }
}

/// Feeds the halves of pairs to two consumers.
pub(super) struct UnzipConsumer<CA, CB> {
    left: CA,
    right: CB,
}

impl<CA, CB> UnzipConsumer<CA, CB> {
    pub(super) fn new(left: CA, right: CB) -> Self {
        UnzipConsumer { left, right }
    }
}

impl<A, B, CA, CB> Consumer<(A, B)> for UnzipConsumer<CA, CB>
where
    CA: Consumer<A>,
    CB: Consumer<B>,
{
    type Folder = UnzipFolder<CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (a1, a2, ra) = self.left.split_at(index);
        let (b1, b2, rb) = self.right.split_at(index);
        (
            UnzipConsumer::new(a1, b1),
            UnzipConsumer::new(a2, b2),
            UnzipReducer(ra, rb),
        )
    }
    fn into_folder(self) -> Self::Folder {
        UnzipFolder(self.left.into_folder(), self.right.into_folder())
    }
    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

pub(super) struct UnzipFolder<FA, FB>(FA, FB);

impl<A, B, FA, FB> Folder<(A, B)> for UnzipFolder<FA, FB>
where
    FA: Folder<A>,
    FB: Folder<B>,
{
    type Result = (FA::Result, FB::Result);
    fn consume(self, (a, b): (A, B)) -> Self {
        UnzipFolder(self.0.consume(a), self.1.consume(b))
    }
    fn complete(self) -> Self::Result {
        (self.0.complete(), self.1.complete())
    }
    fn full(&self) -> bool {
        self.0.full() && self.1.full()
    }
}

pub(super) struct UnzipReducer<RA, RB>(RA, RB);

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
