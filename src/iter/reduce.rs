//! `reduce`, `sum` and `product`: consumers that combine items with an associative operation.
//! The grouping of the operations follows the split tree, so floating-point results may differ
//! from a sequential fold by rounding.

use super::plumbing::*;
use super::ParallelIterator;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

pub(super) fn reduce<I, ID, OP>(par_iter: I, identity: &ID, op: &OP) -> I::Item
where
    I: ParallelIterator,
    ID: Fn() -> I::Item + Sync,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    par_iter.drive_unindexed(ReduceConsumer { identity, op })
}

struct ReduceConsumer<'r, ID, OP> {
    identity: &'r ID,
    op: &'r OP,
}

impl<'r, ID, OP> Clone for ReduceConsumer<'r, ID, OP> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<'r, ID, OP> Copy for ReduceConsumer<'r, ID, OP> {}

impl<'r, T, ID, OP> Consumer<T> for ReduceConsumer<'r, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Folder = ReduceFolder<'r, OP, T>;
    type Reducer = Self;
    type Result = T;
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (self, self, self)
    }
    fn into_folder(self) -> Self::Folder {
        ReduceFolder {
            op: self.op,
            item: (self.identity)(),
        }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<'r, T, ID, OP> UnindexedConsumer<T> for ReduceConsumer<'r, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> Self {
        *self
    }
}

impl<'r, T, ID, OP> Reducer<T> for ReduceConsumer<'r, ID, OP>
where
    OP: Fn(T, T) -> T + Sync,
{
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

struct ReduceFolder<'r, OP, T> {
    op: &'r OP,
    item: T,
}

impl<'r, T, OP> Folder<T> for ReduceFolder<'r, OP, T>
where
    OP: Fn(T, T) -> T + Sync,
{
    type Result = T;
    fn consume(self, item: T) -> Self {
        ReduceFolder {
            op: self.op,
            item: (self.op)(self.item, item),
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        ReduceFolder {
            op: self.op,
            item: iter.into_iter().fold(self.item, self.op),
        }
    }
    fn complete(self) -> T {
        self.item
    }
    fn full(&self) -> bool {
        false
    }
}

/// Whether a consumer adds or multiplies; the two share all their code.
trait Combine<S, T> {
    fn empty() -> S;
    fn fold_in<I: Iterator<Item = T>>(acc: S, iter: I) -> S;
    fn join(left: S, right: S) -> S;
}

struct Add;
struct Mul;

impl<S: Sum<T> + Sum<S>, T> Combine<S, T> for Add {
    fn empty() -> S {
        std::iter::empty::<T>().sum()
    }
    fn fold_in<I: Iterator<Item = T>>(acc: S, iter: I) -> S {
        [acc, iter.sum()].into_iter().sum()
    }
    fn join(left: S, right: S) -> S {
        [left, right].into_iter().sum()
    }
}

impl<S: Product<T> + Product<S>, T> Combine<S, T> for Mul {
    fn empty() -> S {
        std::iter::empty::<T>().product()
    }
    fn fold_in<I: Iterator<Item = T>>(acc: S, iter: I) -> S {
        [acc, iter.product()].into_iter().product()
    }
    fn join(left: S, right: S) -> S {
        [left, right].into_iter().product()
    }
}

/// Counts items: each folder calls std's `Iterator::count` on its chunk, which std
/// specialises (`str::Chars` counts the bytes that start a char, 8 at a time; `Filter` adds up
/// the predicate's answers without a branch), where a sum of ones would decode every char.
struct Count;

impl<T> Combine<usize, T> for Count {
    fn empty() -> usize {
        0
    }
    fn fold_in<I: Iterator<Item = T>>(acc: usize, iter: I) -> usize {
        acc + iter.count()
    }
    fn join(left: usize, right: usize) -> usize {
        left + right
    }
}

pub(super) fn count<I: ParallelIterator>(par_iter: I) -> usize {
    par_iter.drive_unindexed(CombineConsumer::<Count, usize>(PhantomData))
}

pub(super) fn sum<I, S>(par_iter: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum<S>,
{
    par_iter.drive_unindexed(CombineConsumer::<Add, S>(PhantomData))
}

pub(super) fn product<I, S>(par_iter: I) -> S
where
    I: ParallelIterator,
    S: Send + Product<I::Item> + Product<S>,
{
    par_iter.drive_unindexed(CombineConsumer::<Mul, S>(PhantomData))
}

struct CombineConsumer<K, S>(PhantomData<fn() -> (K, S)>);

impl<K, S> CombineConsumer<K, S> {
    fn new() -> Self {
        CombineConsumer(PhantomData)
    }
}

impl<K, S, T> Consumer<T> for CombineConsumer<K, S>
where
    K: Combine<S, T> + Combine<S, S>,
    S: Send,
{
    type Folder = CombineFolder<K, S>;
    type Reducer = Self;
    type Result = S;
    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (Self::new(), Self::new(), Self::new())
    }
    fn into_folder(self) -> Self::Folder {
        CombineFolder {
            acc: <K as Combine<S, T>>::empty(),
            _kind: PhantomData,
        }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<K, S, T> UnindexedConsumer<T> for CombineConsumer<K, S>
where
    K: Combine<S, T> + Combine<S, S>,
    S: Send,
{
    fn split_off_left(&self) -> Self {
        Self::new()
    }
    fn to_reducer(&self) -> Self {
        Self::new()
    }
}

impl<K, S> Reducer<S> for CombineConsumer<K, S>
where
    K: Combine<S, S>,
{
    fn reduce(self, left: S, right: S) -> S {
        K::join(left, right)
    }
}

struct CombineFolder<K, S> {
    acc: S,
    _kind: PhantomData<fn() -> K>,
}

impl<K, S, T> Folder<T> for CombineFolder<K, S>
where
    K: Combine<S, T>,
{
    type Result = S;
    fn consume(self, item: T) -> Self {
        CombineFolder {
            acc: K::fold_in(self.acc, std::iter::once(item)),
            _kind: PhantomData,
        }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        CombineFolder {
            acc: K::fold_in(self.acc, iter.into_iter()),
            _kind: PhantomData,
        }
    }
    fn complete(self) -> S {
        self.acc
    }
    fn full(&self) -> bool {
        false
    }
}
