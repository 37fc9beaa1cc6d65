//! `fold_chunks` and `fold_chunks_with`: an indexed iterator of one folded value per chunk of
//! `chunk_size` items (the last chunk may be shorter), with no allocation per chunk.
//!
//! The producer splits at chunk boundaries only (index `i` of the output is item `i * size` of
//! the base), and a leaf folds each chunk by peeling it off the base producer with `split_at`,
//! so the leaf iterates from either end as [`Producer`] requires.

use super::plumbing::*;
use super::*;
use std::fmt;

/// The iterator of [`IndexedParallelIterator::fold_chunks`].
///
/// ```
/// use blitz_par::prelude::*;
/// let sums: Vec<i32> = (1..8).into_par_iter().fold_chunks(3, || 0, |a, x| a + x).collect();
/// assert_eq!(sums, [6, 15, 7]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldChunks<I, ID, F> {
    base: I,
    chunk_size: usize,
    identity: ID,
    fold_op: F,
}

/// The iterator of [`IndexedParallelIterator::fold_chunks_with`].
///
/// ```
/// use blitz_par::prelude::*;
/// let v: Vec<String> = ['a', 'b', 'c'].into_par_iter()
///     .fold_chunks_with(2, String::new(), |mut s, c| { s.push(c); s })
///     .collect();
/// assert_eq!(v, ["ab", "c"]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct FoldChunksWith<I, T, F> {
    base: I,
    chunk_size: usize,
    init: T,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for FoldChunks<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .finish()
    }
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for FoldChunksWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksWith")
            .field("base", &self.base)
            .field("chunk_size", &self.chunk_size)
            .field("init", &self.init)
            .finish()
    }
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(super) fn new(base: I, chunk_size: usize, identity: ID, fold_op: F) -> Self {
        assert!(chunk_size != 0, "fold_chunks: chunk_size must not be zero");
        FoldChunks {
            base,
            chunk_size,
            identity,
            fold_op,
        }
    }
}

impl<I, T, F> FoldChunksWith<I, T, F> {
    pub(super) fn new(base: I, chunk_size: usize, init: T, fold_op: F) -> Self {
        assert!(
            chunk_size != 0,
            "fold_chunks_with: chunk_size must not be zero"
        );
        FoldChunksWith {
            base,
            chunk_size,
            init,
            fold_op,
        }
    }
}

macro_rules! fold_chunks_iter {
    (impl<$($g:ident),*> $ty:ty where [$($bounds:tt)*], |$this:ident| $start:expr) => {
        impl<$($g),*> ParallelIterator for $ty
        where
            I: IndexedParallelIterator,
            F: Fn(T, I::Item) -> T + Sync + Send,
            T: Send,
            $($bounds)*
        {
            type Item = T;
            fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($g),*> IndexedParallelIterator for $ty
        where
            I: IndexedParallelIterator,
            F: Fn(T, I::Item) -> T + Sync + Send,
            T: Send,
            $($bounds)*
        {
            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }
            fn len(&self) -> usize {
                self.base.len().div_ceil(self.chunk_size)
            }
            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                let $this = self;
                let base_len = $this.base.len();
                let fold_op = &$this.fold_op;
                $this.base.with_producer(Callback {
                    callback,
                    chunk_size: $this.chunk_size,
                    base_len,
                    start: $start,
                    fold_op,
                    _result: std::marker::PhantomData,
                })
            }
        }
    };
}

fold_chunks_iter!(impl<I, ID, F, T> FoldChunks<I, ID, F> where [ID: Fn() -> T + Sync + Send], |this| CallIdentity(&this.identity));
fold_chunks_iter!(impl<I, F, T> FoldChunksWith<I, T, F> where [T: Clone], |this| CloneInit(this.init));

/// Where each chunk's accumulator comes from: a copy travels with every piece of the
/// producer, so that `fold_chunks_with`'s value need not be `Sync` (rayon's bound).
trait ChunkStart<T>: Clone + Send {
    fn make(&self) -> T;
}

/// `fold_chunks`'s identity function, shared by reference.
struct CallIdentity<'f, ID>(&'f ID);

impl<ID> Clone for CallIdentity<'_, ID> {
    fn clone(&self) -> Self {
        CallIdentity(self.0)
    }
}

impl<T, ID: Fn() -> T + Sync> ChunkStart<T> for CallIdentity<'_, ID> {
    fn make(&self) -> T {
        (self.0)()
    }
}

/// `fold_chunks_with`'s initial value, cloned for each chunk.
#[derive(Clone)]
struct CloneInit<T>(T);

impl<T: Clone + Send> ChunkStart<T> for CloneInit<T> {
    fn make(&self) -> T {
        self.0.clone()
    }
}

struct Callback<'f, CB, S, F, T> {
    callback: CB,
    chunk_size: usize,
    base_len: usize,
    start: S,
    fold_op: &'f F,
    _result: std::marker::PhantomData<fn() -> T>,
}

impl<'f, Item, T, CB, S, F> ProducerCallback<Item> for Callback<'f, CB, S, F, T>
where
    CB: ProducerCallback<T>,
    S: ChunkStart<T>,
    F: Fn(T, Item) -> T + Sync,
    T: Send,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = Item>>(self, base: P) -> CB::Output {
        self.callback.callback(FoldChunksProducer {
            base,
            chunk_size: self.chunk_size,
            len: self.base_len,
            start: self.start,
            fold_op: self.fold_op,
            _result: std::marker::PhantomData,
        })
    }
}

/// `len` base items, folded `chunk_size` at a time.
struct FoldChunksProducer<'f, P, S, F, T> {
    base: P,
    chunk_size: usize,
    len: usize,
    start: S,
    fold_op: &'f F,
    _result: std::marker::PhantomData<fn() -> T>,
}

impl<'f, P, S: Clone, F, T> FoldChunksProducer<'f, P, S, F, T> {
    fn with_base(&self, base: P, len: usize) -> Self {
        FoldChunksProducer {
            base,
            chunk_size: self.chunk_size,
            len,
            start: self.start.clone(),
            fold_op: self.fold_op,
            _result: std::marker::PhantomData,
        }
    }
}

impl<'f, P, S, F, T> Producer for FoldChunksProducer<'f, P, S, F, T>
where
    P: Producer,
    S: ChunkStart<T>,
    F: Fn(T, P::Item) -> T + Sync,
    T: Send,
{
    type Item = T;
    type IntoIter = FoldChunkSeq<'f, P, S, F, T>;
    fn into_iter(self) -> Self::IntoIter {
        FoldChunkSeq { rest: Some(self) }
    }
    fn min_len(&self) -> usize {
        super::regroup::regrouped_min_len(self.base.min_len(), self.chunk_size)
    }
    fn max_len(&self) -> usize {
        super::regroup::regrouped_max_len(self.base.max_len(), self.chunk_size)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.chunk_size).min(self.len);
        let len = self.len;
        let (left, right) = self.base.split_at(at);
        let left = FoldChunksProducer {
            base: left,
            len: at,
            ..self
        };
        let right = left.with_base(right, len - at);
        (left, right)
    }
}

/// A leaf of [`FoldChunks`] or [`FoldChunksWith`]: folds one chunk per step, from either end.
struct FoldChunkSeq<'f, P, S, F, T> {
    /// The chunks not yet folded (`None` once they are all done).
    rest: Option<FoldChunksProducer<'f, P, S, F, T>>,
}

impl<P, S, F, T> FoldChunkSeq<'_, P, S, F, T>
where
    P: Producer,
    S: ChunkStart<T>,
    F: Fn(T, P::Item) -> T + Sync,
{
    /// Folds the first chunk not yet folded (or, with `back`, the last: the partial one, if
    /// any) and keeps the others.
    fn fold_next(&mut self, back: bool) -> Option<T> {
        let rest = self.rest.take()?;
        if rest.len == 0 {
            return None;
        }
        let size = match rest.len % rest.chunk_size {
            partial if back && partial != 0 => partial,
            _ => rest.chunk_size.min(rest.len),
        };
        let remaining = rest.len - size;
        let (chunk, others) = if back {
            let (head, chunk) = rest.base.split_at(remaining);
            (chunk, head)
        } else {
            rest.base.split_at(size)
        };
        let value = chunk.into_iter().fold(rest.start.make(), rest.fold_op);
        self.rest = Some(FoldChunksProducer {
            base: others,
            len: remaining,
            ..rest
        });
        Some(value)
    }
}

impl<P, S, F, T> Iterator for FoldChunkSeq<'_, P, S, F, T>
where
    P: Producer,
    S: ChunkStart<T>,
    F: Fn(T, P::Item) -> T + Sync,
    T: Send,
{
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.fold_next(false)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self
            .rest
            .as_ref()
            .map_or(0, |rest| rest.len.div_ceil(rest.chunk_size));
        (n, Some(n))
    }
}

impl<P, S, F, T> DoubleEndedIterator for FoldChunkSeq<'_, P, S, F, T>
where
    P: Producer,
    S: ChunkStart<T>,
    F: Fn(T, P::Item) -> T + Sync,
    T: Send,
{
    fn next_back(&mut self) -> Option<T> {
        self.fold_next(true)
    }
}

impl<P, S, F, T> ExactSizeIterator for FoldChunkSeq<'_, P, S, F, T>
where
    P: Producer,
    S: ChunkStart<T>,
    F: Fn(T, P::Item) -> T + Sync,
    T: Send,
{
}
