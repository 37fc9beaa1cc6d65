//! Parallel prefix scans: `inclusive_scan` and `exclusive_scan` on indexed parallel iterators,
//! `par_inclusive_scan` and `par_exclusive_scan` on mutable slices.
//!
//! # The algorithm: a chained scan over fixed blocks with decoupled look-back
//!
//! The input is cut into blocks of [`scan_block_len`] items (a number that depends on the
//! item type's size alone). Threads claim blocks in order from a shared counter. Block `k`
//! has a *local* inclusive scan `L` (its items combined from its first one), an *aggregate*
//! `A_k` (the last `L`) and a *prefix* `P_k`, the combination of everything before it. Its
//! outputs are always `P_k ∘ L_i` (inclusive) or `P_k ∘ L_{i-1}` (exclusive, `P_k` for its
//! first item), and its inclusive prefix is `I_k = P_k ∘ A_k`; block 0 of an inclusive scan
//! has no prefix and outputs `L` itself.
//!
//! A thread that claims block `k` and finds `I_{k-1}` already published scans the block in a
//! single pass, computing `L` and the outputs together (the adaptive, single-pass case of de
//! Wolff et al., "Zero-Overhead Parallel Scans for Multi-Core CPUs", PMAM'24). Otherwise it
//! scans the block locally, publishes `A_k`, looks back at its predecessors until it meets a
//! published `I_j`, and folds `P_k = I_j ∘ A_{j+1} ∘ ... ∘ A_{k-1}` from the left; then it
//! applies `P_k` to the block, which is still in cache. So the scan reads and writes memory
//! once in both cases, and one thread alone always takes the single pass.
//!
//! Why the result does not depend on the schedule, floats included: every `P_k` is the left
//! fold `((A_0 ∘ A_1) ∘ A_2) ∘ ... ∘ A_{k-1}` (with the identity in front for an exclusive
//! scan), whichever `I_j` the look-back met, because each published `I_j` is itself
//! `P_j ∘ A_j` computed by the same operations on the same operands; and each block's `L`
//! is fixed by the block's items. Blocks are fixed by length, so the whole expression is fixed
//! by the input's length: the same bits on 1 or 64 threads and in every run.
//!
//! Everything is safe code: published values live in `OnceLock`s, the blocks' pieces are
//! handed out through uncontended mutexes. A panic in `op` marks the scan poisoned, so
//! threads waiting in a look-back stop instead of waiting for a block that will never be
//! published; the panic then propagates from the join, and every item is dropped once (by
//! the output it was written to, the buffer that held it, or the unclaimed block).

use super::plumbing::*;
use super::*;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

// One of the thresholds kept beside their code: listed, with its origin, in the second table
// of `src/tuning.rs` (`tests/docs_stay_true.rs` holds the two to the same value).
/// The number of bytes of items in one block of a parallel scan: large enough that a block's
/// fixed costs (a claim, two publications, a look-back: cache lines that move between cores)
/// vanish against its items, small enough that a block stays in the L2 cache between the two
/// passes of the look-back case. (With 64 KiB blocks, an in-place prefix sum of 10M `u64` on
/// two threads took about 1.4 times as long as with 256 KiB.)
///
/// Part of the reproducibility contract: the blocks decide how a scan groups its `op`, so for
/// an `op` that is not exactly associative (float sums) they decide the result's bits. A
/// change of this value is a breaking change (a new major version), as is one of
/// [`scan_block_len`]'s bounds.
///
/// ```
/// assert_eq!(blitz_par::iter::SCAN_BLOCK_BYTES, 256 * 1024);
/// ```
pub const SCAN_BLOCK_BYTES: usize = 256 * 1024;

/// The number of items in one block of a parallel scan of `T`: [`SCAN_BLOCK_BYTES`] divided by
/// the size of `T`, kept between 256 and 65,536. Scan results depend on it, and on nothing
/// else of the machine or the pool: it is what makes them the same on any number of threads.
///
/// ```
/// assert_eq!(blitz_par::iter::scan_block_len::<u64>(), 32_768);
/// assert_eq!(blitz_par::iter::scan_block_len::<[f64; 4]>(), 8192);
/// ```
pub const fn scan_block_len<T>() -> usize {
    let size = std::mem::size_of::<T>();
    // Zero-sized items: one block holds them all.
    let len = match SCAN_BLOCK_BYTES.checked_div(size) {
        Some(len) => len,
        None => usize::MAX,
    };
    if len < 256 {
        256
    } else if len > 65_536 {
        65_536
    } else {
        len
    }
}

/// Applies the block's prefix to a local result: `prefix ∘ local`, or the local result itself
/// where there is no prefix (block 0 of an inclusive scan).
#[inline(always)]
fn apply<T: Clone, F: Fn(&T, &T) -> T>(op: &F, prefix: Option<&T>, local: &T) -> T {
    match prefix {
        Some(prefix) => op(prefix, local),
        None => local.clone(),
    }
}

/// One block of a scan: a sub-slice scanned in place, or a piece of a producer with the piece
/// of the consumer its outputs go to.
trait Piece<T, F>: Send {
    /// What the block leaves for the final reduction.
    type Out: Send;
    /// The single pass, with the block's prefix known (`None`: block 0 of an inclusive scan).
    /// Returns the block's aggregate `A`.
    fn fused(self, prefix: Option<&T>, op: &F, exclusive: bool) -> (T, Self::Out);
    /// The first pass of the look-back case: the local inclusive scan. Returns `A`.
    fn local(&mut self, op: &F, buf: &mut Vec<T>) -> T;
    /// The second pass: applies the prefix to the local scan of [`local`](Piece::local).
    fn finish(self, prefix: &T, op: &F, exclusive: bool, buf: &mut Vec<T>) -> Self::Out;
}

impl<T, F> Piece<T, F> for &mut [T]
where
    T: Clone + Send,
    F: Fn(&T, &T) -> T,
{
    type Out = ();

    #[inline]
    fn fused(self, prefix: Option<&T>, op: &F, exclusive: bool) -> (T, ()) {
        let mut local = self[0].clone();
        if exclusive {
            let prefix = prefix.expect("an exclusive scan always has a prefix");
            self[0] = prefix.clone();
            for x in &mut self[1..] {
                let out = op(prefix, &local);
                local = op(&local, x);
                *x = out;
            }
        } else if let Some(prefix) = prefix {
            self[0] = op(prefix, &local);
            for x in &mut self[1..] {
                local = op(&local, x);
                *x = op(prefix, &local);
            }
        } else {
            for x in &mut self[1..] {
                local = op(&local, x);
                *x = local.clone();
            }
        }
        (local, ())
    }

    #[inline]
    fn local(&mut self, op: &F, _buf: &mut Vec<T>) -> T {
        let mut local = self[0].clone();
        for x in &mut self[1..] {
            local = op(&local, x);
            *x = local.clone();
        }
        local
    }

    #[inline]
    fn finish(self, prefix: &T, op: &F, exclusive: bool, _buf: &mut Vec<T>) {
        if exclusive {
            // Outputs are `prefix ∘ L[i - 1]`: shift by one from the back.
            for i in (1..self.len()).rev() {
                self[i] = op(prefix, &self[i - 1]);
            }
            self[0] = prefix.clone();
        } else {
            for x in self.iter_mut() {
                *x = op(prefix, x);
            }
        }
    }
}

/// A block of an iterator's scan: its items' producer and the consumer of its outputs.
struct IterPiece<P, C> {
    producer: Option<P>,
    consumer: C,
}

impl<T, F, P, C> Piece<T, F> for IterPiece<P, C>
where
    T: Clone + Send,
    F: Fn(&T, &T) -> T,
    P: Producer<Item = T>,
    C: Consumer<T>,
{
    type Out = C::Result;

    #[inline]
    fn fused(self, prefix: Option<&T>, op: &F, exclusive: bool) -> (T, C::Result) {
        let mut items = self.producer.expect("a block is scanned once").into_iter();
        let mut folder = self.consumer.into_folder();
        let mut local = items.next().expect("blocks are not empty");
        if exclusive {
            let prefix = prefix.expect("an exclusive scan always has a prefix");
            folder = folder.consume(prefix.clone());
            for x in items {
                let out = op(prefix, &local);
                local = op(&local, &x);
                folder = folder.consume(out);
            }
        } else {
            folder = folder.consume(apply(op, prefix, &local));
            for x in items {
                local = op(&local, &x);
                folder = folder.consume(apply(op, prefix, &local));
            }
        }
        (local, folder.complete())
    }

    #[inline]
    fn local(&mut self, op: &F, buf: &mut Vec<T>) -> T {
        let mut items = self
            .producer
            .take()
            .expect("a block is scanned once")
            .into_iter();
        let mut local = items.next().expect("blocks are not empty");
        buf.reserve(items.len() + 1);
        for x in items {
            let next = op(&local, &x);
            buf.push(std::mem::replace(&mut local, next));
        }
        buf.push(local.clone());
        local
    }

    #[inline]
    fn finish(self, prefix: &T, op: &F, exclusive: bool, buf: &mut Vec<T>) -> C::Result {
        let mut folder = self.consumer.into_folder();
        if exclusive {
            buf.pop();
            folder = folder.consume(prefix.clone());
        }
        for local in buf.drain(..) {
            folder = folder.consume(op(prefix, &local));
        }
        folder.complete()
    }
}

/// What the threads of one scan share.
struct Shared<'a, T, F, B: Piece<T, F>> {
    op: &'a F,
    /// The exclusive scan's identity: the prefix of block 0.
    identity: Option<&'a T>,
    /// Aggregates `A_k`, published by blocks that had to look back.
    aggregates: Box<[OnceLock<T>]>,
    /// Inclusive prefixes `I_k`.
    inclusive: Box<[OnceLock<T>]>,
    /// The next block to claim.
    next: AtomicUsize,
    /// Set when `op` panicked in some block.
    poisoned: AtomicBool,
    /// Block `k`'s piece before it is claimed, its output after.
    blocks: Box<[Mutex<PieceSlot<B, T, F>>]>,
}

/// A block's slot, holding the piece `B` or its output.
type PieceSlot<B, T, F> = Slot<B, <B as Piece<T, F>>::Out>;

enum Slot<B, O> {
    Waiting(B),
    Claimed,
    Done(O),
}

/// Sets `poisoned` if dropped during a panic (forgotten on success).
struct PoisonOnUnwind<'a>(&'a AtomicBool);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl<'a, T, F, B> Shared<'a, T, F, B>
where
    T: Clone + Send + Sync,
    F: Fn(&T, &T) -> T + Sync,
    B: Piece<T, F>,
{
    fn new(op: &'a F, identity: Option<&'a T>, pieces: Vec<B>) -> Self {
        let n = pieces.len();
        Shared {
            op,
            identity,
            aggregates: (0..n).map(|_| OnceLock::new()).collect(),
            inclusive: (0..n).map(|_| OnceLock::new()).collect(),
            next: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
            blocks: pieces
                .into_iter()
                .map(|b| Mutex::new(Slot::Waiting(b)))
                .collect(),
        }
    }

    /// Claims and scans blocks until none is left (or the scan is poisoned).
    fn participate(&self) {
        let mut buf = Vec::new();
        loop {
            if self.poisoned.load(Ordering::Relaxed) {
                return;
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= self.blocks.len() {
                return;
            }
            let mut slot = self.blocks[k].lock().unwrap_or_else(|e| e.into_inner());
            let Slot::Waiting(piece) = std::mem::replace(&mut *slot, Slot::Claimed) else {
                unreachable!("block {k} claimed twice");
            };
            drop(slot);
            let guard = PoisonOnUnwind(&self.poisoned);
            let out = self.scan_block(k, piece, &mut buf);
            std::mem::forget(guard);
            let Some(out) = out else { return };
            *self.blocks[k].lock().unwrap_or_else(|e| e.into_inner()) = Slot::Done(out);
        }
    }

    /// Scans block `k`; `None` if the scan was poisoned while it looked back.
    fn scan_block(&self, k: usize, mut piece: B, buf: &mut Vec<T>) -> Option<B::Out> {
        let op = self.op;
        let exclusive = self.identity.is_some();
        let ready = if k == 0 {
            Some(self.identity)
        } else {
            self.inclusive[k - 1].get().map(Some)
        };
        if let Some(prefix) = ready {
            let (aggregate, out) = piece.fused(prefix, op, exclusive);
            let _ = self.inclusive[k].set(apply(op, prefix, &aggregate));
            return Some(out);
        }
        let aggregate = piece.local(op, buf);
        let aggregate = self.aggregates[k].get_or_init(|| aggregate);
        let prefix = self.look_back(k)?;
        let _ = self.inclusive[k].set(op(&prefix, aggregate));
        Some(piece.finish(&prefix, op, exclusive, buf))
    }

    /// `P_k`: walks back to the nearest published inclusive prefix, then folds the aggregates
    /// after it from the left.
    fn look_back(&self, k: usize) -> Option<T> {
        let mut j = k - 1;
        let found = loop {
            if let Some(inclusive) = self.inclusive[j].get() {
                break inclusive;
            }
            if self.aggregates[j].get().is_some() {
                // Block 0 publishes only its inclusive prefix, so `j > 0` here.
                j -= 1;
                continue;
            }
            self.wait_for(j)?;
        };
        let mut prefix = found.clone();
        for aggregate in &self.aggregates[j + 1..k] {
            let aggregate = aggregate.get().expect("seen published in the look-back");
            prefix = (self.op)(&prefix, aggregate);
        }
        Some(prefix)
    }

    /// Waits until block `j` publishes something; `None` if the scan is poisoned first.
    #[cold]
    fn wait_for(&self, j: usize) -> Option<()> {
        let mut spins = 0u32;
        while self.inclusive[j].get().is_none() && self.aggregates[j].get().is_none() {
            if self.poisoned.load(Ordering::Acquire) {
                return None;
            }
            if spins < 64 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        Some(())
    }

    /// The blocks' outputs in order (after every participant has returned without a panic).
    fn into_outputs(self) -> impl Iterator<Item = B::Out> {
        self.blocks.into_vec().into_iter().map(|slot| {
            match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Slot::Done(out) => out,
                _ => unreachable!("every block is scanned"),
            }
        })
    }

    /// The inclusive prefix of the last block: the total.
    fn total(&self) -> Option<&T> {
        self.inclusive.last().and_then(OnceLock::get)
    }
}

/// Runs `shared.participate()` on up to `current_num_threads()` threads of the pool.
fn run<T, F, B>(shared: &Shared<'_, T, F, B>)
where
    T: Clone + Send + Sync,
    F: Fn(&T, &T) -> T + Sync,
    B: Piece<T, F>,
{
    let threads = crate::current_num_threads().min(shared.blocks.len());
    if threads <= 1 {
        return shared.participate();
    }
    fn tree<T, F, B>(shared: &Shared<'_, T, F, B>, threads: usize)
    where
        T: Clone + Send + Sync,
        F: Fn(&T, &T) -> T + Sync,
        B: Piece<T, F>,
    {
        if threads <= 1 {
            // Make the halves recorded on the way down stealable now: a participant runs
            // without joins until the blocks run out.
            crate::scheduler::share(crate::scheduler::Share::Now);
            shared.participate();
        } else {
            let right = threads / 2;
            crate::join(|| tree(shared, threads - right), || tree(shared, right));
        }
    }
    crate::scheduler::enter(|| {
        crate::scheduler::wake(crate::scheduler::Wake::Sleepers(
            u32::try_from(threads - 1).unwrap_or(u32::MAX),
        ));
        tree(shared, threads);
    });
}

/// Scans `slice` in place: inclusive without `identity`, exclusive with it. Returns the
/// total (`None` for an empty inclusive scan; the identity for an empty exclusive one).
pub(crate) fn scan_slice<T, F>(slice: &mut [T], identity: Option<T>, op: &F) -> Option<T>
where
    T: Clone + Send + Sync,
    F: Fn(&T, &T) -> T + Sync,
{
    if slice.is_empty() {
        return identity;
    }
    let block = scan_block_len::<T>();
    let exclusive = identity.is_some();
    if slice.len() <= block {
        let (aggregate, ()) = slice.fused(identity.as_ref(), op, exclusive);
        return Some(apply(op, identity.as_ref(), &aggregate));
    }
    let pieces: Vec<&mut [T]> = slice.chunks_mut(block).collect();
    let shared = Shared::new(op, identity.as_ref(), pieces);
    run(&shared);
    shared.total().cloned()
}

/// The iterator of [`IndexedParallelIterator::inclusive_scan`] and
/// [`IndexedParallelIterator::exclusive_scan`].
///
/// ```
/// use blitz_par::prelude::*;
/// let sums: Vec<u32> = [1u32, 2, 3, 4].par_iter().copied().inclusive_scan(|a, b| a + b).collect();
/// assert_eq!(sums, [1, 3, 6, 10]);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Scan<I: ParallelIterator, F> {
    base: I,
    identity: Option<I::Item>,
    op: F,
}

impl<I: ParallelIterator + fmt::Debug, F> fmt::Debug for Scan<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scan")
            .field("base", &self.base)
            .field("exclusive", &self.identity.is_some())
            .finish()
    }
}

impl<I: ParallelIterator, F> Scan<I, F> {
    pub(super) fn new(base: I, identity: Option<I::Item>, op: F) -> Self {
        Scan { base, identity, op }
    }
}

impl<I, F> ParallelIterator for Scan<I, F>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Sync,
    F: Fn(&I::Item, &I::Item) -> I::Item + Sync + Send,
{
    type Item = I::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<I::Item>,
    {
        IndexedParallelIterator::drive(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I, F> IndexedParallelIterator for Scan<I, F>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Sync,
    F: Fn(&I::Item, &I::Item) -> I::Item + Sync + Send,
{
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<I::Item>,
    {
        let len = self.base.len();
        self.base.with_producer(ScanCallback {
            len,
            consumer,
            identity: self.identity,
            op: &self.op,
        })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    /// The scan's outputs depend on everything before them, so the producer this hands out
    /// is of the scanned items, computed in parallel into a vector first.
    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<I::Item>,
    {
        let mut items = Vec::new();
        self.collect_into_vec(&mut items);
        items.into_par_iter().with_producer(callback)
    }
}

/// Receives the base's producer and scans it into the consumer.
struct ScanCallback<'f, T, C, F> {
    len: usize,
    consumer: C,
    identity: Option<T>,
    op: &'f F,
}

impl<'f, T, C, F> ProducerCallback<T> for ScanCallback<'f, T, C, F>
where
    T: Clone + Send + Sync,
    C: Consumer<T>,
    F: Fn(&T, &T) -> T + Sync,
{
    type Output = C::Result;

    fn callback<P>(self, producer: P) -> C::Result
    where
        P: Producer<Item = T>,
    {
        let ScanCallback {
            len,
            consumer,
            identity,
            op,
        } = self;
        let exclusive = identity.is_some();
        let block = scan_block_len::<T>();
        let consumer = consumer.with_len_hint(len);
        if len == 0 {
            return consumer.into_folder().complete();
        }
        if len <= block {
            let piece = IterPiece {
                producer: Some(producer),
                consumer,
            };
            return piece.fused(identity.as_ref(), op, exclusive).1;
        }
        // Cut producer and consumer into the blocks; the reducers stay on this thread (they
        // need not be `Send`) and join the blocks' results from the right at the end.
        let blocks = len.div_ceil(block);
        let mut pieces = Vec::with_capacity(blocks);
        let mut reducers = Vec::with_capacity(blocks - 1);
        let (mut producer, mut consumer) = (producer, consumer);
        for _ in 1..blocks {
            let (p, rest_p) = producer.split_at(block);
            let (c, rest_c, reducer) = consumer.split_at(block);
            pieces.push(IterPiece {
                producer: Some(p),
                consumer: c,
            });
            reducers.push(reducer);
            (producer, consumer) = (rest_p, rest_c);
        }
        pieces.push(IterPiece {
            producer: Some(producer),
            consumer,
        });
        let shared = Shared::new(op, identity.as_ref(), pieces);
        run(&shared);
        let mut outputs: Vec<C::Result> = shared.into_outputs().collect();
        let mut result = outputs.pop().expect("at least two blocks");
        while let Some(reducer) = reducers.pop() {
            let left = outputs.pop().expect("one result per reducer");
            result = reducer.reduce(left, result);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq_inclusive(v: &[u64]) -> Vec<u64> {
        v.iter()
            .scan(0u64, |acc, &x| {
                *acc = acc.wrapping_add(x);
                Some(*acc)
            })
            .collect()
    }

    #[test]
    fn slice_sizes_around_blocks() {
        let block = scan_block_len::<u64>();
        for len in [0, 1, 2, block - 1, block, block + 1, 3 * block + 7] {
            let input: Vec<u64> = (0..len as u64).map(|x| x * 7 + 1).collect();
            let mut v = input.clone();
            scan_slice(&mut v, None, &|a: &u64, b: &u64| a.wrapping_add(*b));
            assert_eq!(v, seq_inclusive(&input), "len {len}");
            let mut v = input.clone();
            let total = scan_slice(&mut v, Some(5), &|a: &u64, b: &u64| a.wrapping_add(*b));
            let mut expect = vec![5];
            expect.extend(seq_inclusive(&input).iter().map(|x| x + 5));
            assert_eq!(total, expect.pop());
            assert_eq!(v, expect, "len {len}");
        }
    }
}
