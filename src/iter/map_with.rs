//! `map_with` and `map_init`: `map` with a mutable per-leaf state, either cloned from a value
//! (`map_with`) or made by a function (`map_init`). Both share one implementation over a
//! [`Seed`], the thing every split copies and every leaf turns into its state.

use super::plumbing::*;
use super::*;
use std::fmt;

/// What a split copies and a leaf turns into its mutable state.
trait Seed: Send {
    type State;
    fn split_off(&self) -> Self;
    fn into_state(self) -> Self::State;
}

struct CloneSeed<T>(T);

impl<T: Clone + Send> Seed for CloneSeed<T> {
    type State = T;
    fn split_off(&self) -> Self {
        CloneSeed(self.0.clone())
    }
    fn into_state(self) -> T {
        self.0
    }
}

struct InitSeed<'i, INIT>(&'i INIT);

impl<'i, INIT, T> Seed for InitSeed<'i, INIT>
where
    INIT: Fn() -> T + Sync,
{
    type State = T;
    fn split_off(&self) -> Self {
        InitSeed(self.0)
    }
    fn into_state(self) -> T {
        (self.0)()
    }
}

/// The iterator of [`ParallelIterator::map_with`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..3).into_par_iter().map_with(1, |one, x| x + *one).collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    map_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    pub(super) fn new(base: I, item: T, map_op: F) -> Self {
        MapWith { base, item, map_op }
    }
}

/// The iterator of [`ParallelIterator::map_init`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<i32> = (0..3).into_par_iter().map_init(|| 1, |one, x| x + *one).collect();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map_op: F,
}

impl<I: fmt::Debug, INIT, F> fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit { base, init, map_op }
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let consumer = SeedConsumer {
            base: consumer,
            seed: CloneSeed(self.item),
            map_op: &self.map_op,
        };
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let consumer = SeedConsumer {
            base: consumer,
            seed: CloneSeed(self.item),
            map_op: &self.map_op,
        };
        self.base.drive(consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let callback = SeedCallback {
            callback,
            seed: CloneSeed(self.item),
            map_op: &self.map_op,
        };
        self.base.with_producer(callback)
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let consumer = SeedConsumer {
            base: consumer,
            seed: InitSeed(&self.init),
            map_op: &self.map_op,
        };
        self.base.drive_unindexed(consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let consumer = SeedConsumer {
            base: consumer,
            seed: InitSeed(&self.init),
            map_op: &self.map_op,
        };
        self.base.drive(consumer)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let callback = SeedCallback {
            callback,
            seed: InitSeed(&self.init),
            map_op: &self.map_op,
        };
        self.base.with_producer(callback)
    }
}

struct SeedCallback<'f, CB, S, F> {
    callback: CB,
    seed: S,
    map_op: &'f F,
}

impl<'f, T, R, CB, S, F> ProducerCallback<T> for SeedCallback<'f, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: Seed,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(SeedProducer {
            base,
            seed: self.seed,
            map_op: self.map_op,
        })
    }
}

struct SeedProducer<'f, P, S, F> {
    base: P,
    seed: S,
    map_op: &'f F,
}

impl<'f, P, S, F, R> Producer for SeedProducer<'f, P, S, F>
where
    P: Producer,
    S: Seed,
    F: Fn(&mut S::State, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = StateIter<'f, P::IntoIter, S::State, F>;
    fn into_iter(self) -> Self::IntoIter {
        StateIter {
            base: self.base.into_iter(),
            state: self.seed.into_state(),
            map_op: self.map_op,
        }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        let left_seed = self.seed.split_off();
        (
            SeedProducer {
                base: left,
                seed: left_seed,
                map_op: self.map_op,
            },
            SeedProducer {
                base: right,
                seed: self.seed,
                map_op: self.map_op,
            },
        )
    }
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let folder = StateFolder {
            base: folder,
            state: self.seed.into_state(),
            map_op: self.map_op,
        };
        self.base.fold_with(folder).base
    }
}

/// A leaf's sequential iterator: the base items mapped with the leaf's state.
pub(super) struct StateIter<'f, I, T, F> {
    base: I,
    state: T,
    map_op: &'f F,
}

impl<'f, I, T, F, R> Iterator for StateIter<'f, I, T, F>
where
    I: Iterator,
    F: Fn(&mut T, I::Item) -> R,
{
    type Item = R;
    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.map_op)(&mut self.state, item))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<'f, I, T, F, R> DoubleEndedIterator for StateIter<'f, I, T, F>
where
    I: DoubleEndedIterator,
    F: Fn(&mut T, I::Item) -> R,
{
    fn next_back(&mut self) -> Option<R> {
        let item = self.base.next_back()?;
        Some((self.map_op)(&mut self.state, item))
    }
}

impl<'f, I, T, F, R> ExactSizeIterator for StateIter<'f, I, T, F>
where
    I: ExactSizeIterator,
    F: Fn(&mut T, I::Item) -> R,
{
}

struct SeedConsumer<'f, C, S, F> {
    base: C,
    seed: S,
    map_op: &'f F,
}

impl<'f, T, R, C, S, F> Consumer<T> for SeedConsumer<'f, C, S, F>
where
    C: Consumer<R>,
    S: Seed,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    type Folder = StateFolder<'f, C::Folder, S::State, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left_seed = self.seed.split_off();
        (
            SeedConsumer {
                base: left,
                seed: left_seed,
                map_op: self.map_op,
            },
            SeedConsumer {
                base: right,
                seed: self.seed,
                map_op: self.map_op,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        StateFolder {
            base: self.base.into_folder(),
            state: self.seed.into_state(),
            map_op: self.map_op,
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
    // A state may serve any run of items (as for `fold`), so its folder goes on where the base's
    // folder does.
    forward_hints!(base: C => R, len);
}

impl<'f, T, R, C, S, F> UnindexedConsumer<T> for SeedConsumer<'f, C, S, F>
where
    C: UnindexedConsumer<R>,
    S: Seed,
    F: Fn(&mut S::State, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        SeedConsumer {
            base: self.base.split_off_left(),
            seed: self.seed.split_off(),
            map_op: self.map_op,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct StateFolder<'f, G, T, F> {
    base: G,
    state: T,
    map_op: &'f F,
}

impl<'f, T, R, G, ST, F> Folder<T> for StateFolder<'f, G, ST, F>
where
    G: Folder<R>,
    F: Fn(&mut ST, T) -> R,
{
    type Result = G::Result;
    fn consume(mut self, item: T) -> Self {
        let mapped = (self.map_op)(&mut self.state, item);
        self.base = self.base.consume(mapped);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let map_op = self.map_op;
        let state = &mut self.state;
        self.base = self
            .base
            .consume_iter(iter.into_iter().map(|x| map_op(state, x)));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
