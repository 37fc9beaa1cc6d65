//! Parallel operations on slices: iterators over elements, chunks and windows, and sorts.

mod array_windows;
mod dedup;
mod is_sorted;
mod iter;
mod select;
#[cfg(feature = "rand")]
mod shuffle;
pub(crate) mod sort;
mod split;

use crate::scheduler::in_pool;
pub use array_windows::ArrayWindows;
pub use dedup::ParallelVec;
pub use iter::{
    Chunks, ChunksExact, ChunksExactMut, ChunksMut, Iter, IterMut, RChunks, RChunksExact,
    RChunksExactMut, RChunksMut, Windows,
};
pub use split::{ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut};

/// Parallel operations on shared slices (rayon's `ParallelSlice`): chunks and windows.
///
/// ```
/// use blitz_par::prelude::*;
/// let v = [1, 2, 3, 4, 5];
/// let sums: Vec<i32> = v.par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice itself.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2].as_parallel_slice(), &[1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// Chunks of `chunk_size` elements (the last may be shorter), in parallel.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 3].par_chunks(2).count(), 2);
    /// ```
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        Chunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Chunks of exactly `chunk_size` elements; a shorter remainder is left out.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 3].par_chunks_exact(2).count(), 1);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice();
        let (exact, rem) = slice.split_at(slice.len() - slice.len() % chunk_size);
        ChunksExact::new(chunk_size, exact).with_remainder(rem)
    }

    /// Chunks of `chunk_size` elements counted from the end (the last may be shorter).
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<_> = [1, 2, 3].par_rchunks(2).collect();
    /// assert_eq!(v, [&[2, 3][..], &[1][..]]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        RChunks::new(chunk_size, self.as_parallel_slice())
    }

    /// Chunks of exactly `chunk_size` elements counted from the end; a shorter remainder at
    /// the front is left out. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<_> = [1, 2, 3].par_rchunks_exact(2).collect();
    /// assert_eq!(v, [&[2, 3][..]]);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice();
        let (rem, exact) = slice.split_at(slice.len() % chunk_size);
        RChunksExact::new(chunk_size, exact).with_remainder(rem)
    }

    /// All overlapping windows of `window_size` elements. Panics if `window_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 3].par_windows(2).count(), 2);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(window_size, self.as_parallel_slice())
    }

    /// All overlapping windows of `N` elements, as arrays (rayon 1.12). Panics if `N` is 0
    /// (when the iterator is used).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let sums: Vec<i32> = [1, 2, 3, 4].par_array_windows().map(|&[a, b]| a + b).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// The sub-slices between elements that satisfy `separator` (as `slice::split`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 0, 2, 0, 3].par_split(|&x| x == 0).count(), 3);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// The sub-slices ending at each element that satisfies `separator`, separator included
    /// (as `slice::split_inclusive`): no empty piece at the end, none at all for an empty
    /// slice.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<&[i32]> = [1, 0, 2].par_split_inclusive(|&x| x == 0).collect();
    /// assert_eq!(v, [&[1, 0][..], &[2][..]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// The runs of consecutive elements for which `same_group` holds pairwise (as
    /// `slice::chunk_by`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert_eq!([1, 2, 2, 3].par_chunk_by(|a, b| a == b).count(), 3);
    /// ```
    fn par_chunk_by<P>(&self, same_group: P) -> ChunkBy<'_, T, P>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
    {
        ChunkBy::new(self.as_parallel_slice(), same_group)
    }

    /// Whether the slice is sorted (`a <= b` for every adjacent pair), as std's
    /// `slice::is_sorted`, checked in parallel; stops early once a pair out of order is found.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<u64> = (0..100_000).collect();
    /// assert!(v.par_is_sorted());
    /// assert!(![1.0, f64::NAN, 2.0].par_is_sorted());
    /// assert!(Vec::<u8>::new().par_is_sorted());
    /// ```
    fn par_is_sorted(&self) -> bool
    where
        T: PartialOrd,
    {
        is_sorted::is_sorted_by(self.as_parallel_slice(), &|a: &T, b: &T| a <= b)
    }

    /// Whether `in_order(a, b)` holds for every adjacent pair `(a, b)`, as std's
    /// `slice::is_sorted_by` (whose closure returns `bool` since Rust 1.82), checked in
    /// parallel with an early exit. Unlike std's `FnMut`, `in_order` is `Fn + Sync`: it is
    /// called from several threads, and the pairs are not visited in order.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let v: Vec<i32> = (0..100_000).rev().collect();
    /// assert!(v.par_is_sorted_by(|a, b| a >= b));
    /// assert!(![1, 3, 2].par_is_sorted_by(|a, b| a <= b));
    /// ```
    fn par_is_sorted_by<F>(&self, in_order: F) -> bool
    where
        F: Fn(&T, &T) -> bool + Sync,
    {
        is_sorted::is_sorted_by(self.as_parallel_slice(), &in_order)
    }

    /// Whether the keys `key(x)` are sorted (`<=`), as std's `slice::is_sorted_by_key`,
    /// checked in parallel with an early exit. `key` is `Fn + Sync` and is called about once
    /// per element.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// assert!(["c", "bb", "aaa"].par_is_sorted_by_key(|s| s.len()));
    /// assert!(![-3i32, 1, 2].par_is_sorted_by_key(|x| x.unsigned_abs()));
    /// ```
    fn par_is_sorted_by_key<K, F>(&self, key: F) -> bool
    where
        K: PartialOrd,
        F: Fn(&T) -> K + Sync,
    {
        is_sorted::is_sorted_by_key(self.as_parallel_slice(), &key)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel operations on mutable slices (rayon's `ParallelSliceMut`).
///
/// Memory: `par_sort` and `par_sort_unstable` of integers and `char`, and `par_sort_by` /
/// `par_sort_unstable_by` of floats given `f64::total_cmp` or `f32::total_cmp`, are radix
/// sorts in place: a few KiB per thread, nothing the size of the slice. So are the quicksort
/// for elements that need dropping and the counting sort for primitive keys with few distinct
/// values. The other sorts (merge sorts, keyed sorts, byte strings) use a scratch buffer as
/// large as the slice, as rayon's stable sort does. On Linux, a buffer of 4 MiB or more is kept
/// for 250 ms after its sort returns (the largest one, up to 1 GiB), so that sorts called back
/// to back do not fault in fresh memory, and then unmapped by a background thread
/// (`blitz-par-scratch`): within half a second after any sort, the process's resident size is
/// back to what it was before. Elsewhere buffers go back to the global allocator at once.
///
/// Comparators and keys: if one panics, the panic reaches the caller once no other thread is
/// still sorting, and the slice holds a permutation of its elements (each in its latest
/// state; none lost, none dropped twice). If a comparator is not a total order (say
/// `partial_cmp(..).unwrap_or(Equal)` over floats with NaNs), the resulting order is
/// unspecified and the slice still holds a permutation. Short slices, and the pieces the
/// comparison sorts split slices into, are sorted by std's `sort_by` / `sort_unstable_by`,
/// which may then panic with "user-provided comparison function does not correctly implement
/// a total order"; rayon's sorts (its own copy of an older std sort) do not check. For
/// floats, `f64::total_cmp` is a total order and is radix sorted.
///
/// ```
/// use blitz_par::prelude::*;
/// let mut v = vec![3, 1, 2];
/// v.par_iter_mut().for_each(|x| *x *= 2);
/// v.par_sort_unstable();
/// assert_eq!(v, [2, 4, 6]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Mutable chunks of `chunk_size` elements (the last may be shorter), in parallel.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3];
    /// v.par_chunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [2, 1, 3]);
    /// ```
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable chunks of exactly `chunk_size` elements; a shorter remainder is left out.
    /// Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [2, 1, 3]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice_mut();
        let exact = slice.len() - slice.len() % chunk_size;
        let (exact, rem) = slice.split_at_mut(exact);
        ChunksExactMut::new(chunk_size, exact).with_remainder(rem)
    }

    /// Mutable chunks of `chunk_size` elements counted from the end. Panics if `chunk_size`
    /// is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3];
    /// v.par_rchunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(chunk_size, self.as_parallel_slice_mut())
    }

    /// Mutable sub-slices between elements that satisfy `separator` (as
    /// `slice::split_mut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [2, 1, 0, 4, 3];
    /// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
    /// assert_eq!(v, [1, 2, 0, 3, 4]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable sub-slices ending at each element that satisfies `separator`, separator
    /// included (as `slice::split_inclusive_mut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 0, 2, 0, 3];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|part| part.reverse());
    /// assert_eq!(v, [0, 1, 0, 2, 3]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Mutable runs of consecutive elements for which `same_group` holds pairwise (as
    /// `slice::chunk_by_mut`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 1, 2, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|g| g[0] = 0);
    /// assert_eq!(v, [0, 1, 0, 0, 3]);
    /// ```
    fn par_chunk_by_mut<P>(&mut self, same_group: P) -> ChunkByMut<'_, T, P>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), same_group)
    }

    /// Mutable chunks of exactly `chunk_size` elements counted from the end; a shorter
    /// remainder at the front is left out. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 2, 3];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        let slice = self.as_parallel_slice_mut();
        let (rem, exact) = slice.split_at_mut(slice.len() % chunk_size);
        RChunksExactMut::new(chunk_size, exact).with_remainder(rem)
    }

    /// Sorts the slice in parallel, stably.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort(v))
    }

    /// Sorts the slice in parallel, stably, with a comparator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_by(v, &compare))
    }

    /// Sorts the slice in parallel, stably, by a key.
    ///
    /// `f` may be called several times per element, as in rayon, except for keys of type
    /// `String`, `&str`, `Vec<u8>`, `&[u8]`, `Box<str>` or `Box<[u8]>`, and primitive integer
    /// and `char` keys: there each key is computed once (as by
    /// [`par_sort_by_cached_key`](Self::par_sort_by_cached_key)) and held while the sort
    /// runs, which then needs no comparisons (a radix sort of the key bytes, or of the key and
    /// the element's index packed into 64 bits, or a sort of (key, index) pairs where 64 bits
    /// are too few). A large slice then also takes 8 bytes per element for integer keys (16
    /// for pairs and byte strings) and a buffer of its own size.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![-3i32, 1, -2];
    /// v.par_sort_by_key(|x| x.abs());
    /// assert_eq!(v, [1, -2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_by_key(v, &f, true))
    }

    /// Sorts the slice in parallel, stably, by a key computed once per element.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![10, 9, 100];
    /// v.par_sort_by_cached_key(|x| x.to_string());
    /// assert_eq!(v, [10, 100, 9]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_by_cached_key(v, &f))
    }

    /// Sorts the slice in parallel, without preserving the order of equal elements.
    ///
    /// Large slices of byte strings (`String`, `&str`, `Vec<u8>`, `&[u8]`, `Box<str>`,
    /// `Box<[u8]>`) are radix sorted: besides the scratch buffer (see the trait's
    /// documentation), that takes 16 bytes per element for keys.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_unstable(v))
    }

    /// Sorts the slice in parallel, unstably, with a comparator.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![3, 1, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_unstable_by(v, &compare))
    }

    /// Sorts the slice in parallel, unstably, by a key.
    ///
    /// `f` is called as by [`par_sort_by_key`](Self::par_sort_by_key).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = vec![-3i32, 1, -2];
    /// v.par_sort_unstable_by_key(|x| x.abs());
    /// assert_eq!(v, [1, -2, -3]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let v = self.as_parallel_slice_mut();
        in_pool(|| sort::par_sort_by_key(v, &f, false))
    }

    /// Reorders the slice so that the element at `index` is the one that would be there if it
    /// were sorted, every element before it is `<=` it and every one after it `>=` it, and
    /// returns (the part before, the element, the part after), as std's
    /// `slice::select_nth_unstable`; in parallel. Panics, as std does, if `index >= len`.
    ///
    /// Floyd-Rivest selection: a sorted random sample brackets the element, and the slice is
    /// partitioned around the two bracketing pivots in parallel blocks, in place (by swaps);
    /// the part holding `index` is selected the same way, and
    /// parts below 64 Ki elements by std. The pivots are read by several threads at once,
    /// hence `T: Sync`. If the comparison panics, the panic reaches the caller and the slice
    /// holds a permutation of its elements.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v: Vec<u64> = (0..1_000_000).map(|i| i * 7919 % 1_000_003).collect();
    /// let (left, median, right) = v.par_select_nth_unstable(500_000);
    /// assert!(left.iter().all(|x| x <= median) && right.iter().all(|x| x >= median));
    ///
    /// let mut w = [5, 1, 4];
    /// assert_eq!(*w.par_select_nth_unstable(0).1, 1);
    /// let out_of_range = std::panic::catch_unwind(move || { w.par_select_nth_unstable(3); });
    /// assert!(out_of_range.is_err());
    /// ```
    fn par_select_nth_unstable(&mut self, index: usize) -> (&mut [T], &mut T, &mut [T])
    where
        T: Ord + Sync,
    {
        select::select_nth_unstable_by(self.as_parallel_slice_mut(), index, &T::cmp)
    }

    /// As [`par_select_nth_unstable`](Self::par_select_nth_unstable), ordered by `compare`
    /// (std's `select_nth_unstable_by`); `compare` is `Fn + Sync`.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [1, 5, 2, 4, 3];
    /// let (_, third_largest, _) = v.par_select_nth_unstable_by(2, |a, b| b.cmp(a));
    /// assert_eq!(*third_largest, 3);
    /// ```
    fn par_select_nth_unstable_by<F>(
        &mut self,
        index: usize,
        compare: F,
    ) -> (&mut [T], &mut T, &mut [T])
    where
        T: Sync,
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        select::select_nth_unstable_by(self.as_parallel_slice_mut(), index, &compare)
    }

    /// As [`par_select_nth_unstable`](Self::par_select_nth_unstable), ordered by a key (std's
    /// `select_nth_unstable_by_key`); `key` is `Fn + Sync` and called on both sides of every
    /// comparison.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v = [-5i32, 1, -2, 4];
    /// let (_, nth, _) = v.par_select_nth_unstable_by_key(1, |x| x.abs());
    /// assert_eq!(*nth, -2);
    /// ```
    fn par_select_nth_unstable_by_key<K, F>(
        &mut self,
        index: usize,
        key: F,
    ) -> (&mut [T], &mut T, &mut [T])
    where
        T: Sync,
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        select::select_nth_unstable_by(self.as_parallel_slice_mut(), index, &|a: &T, b: &T| {
            key(a).cmp(&key(b))
        })
    }

    /// Shuffles the slice into a uniform random permutation, in parallel, from a seed drawn
    /// from `rng` (one `u64`). **The same seed gives the same permutation on any number of
    /// threads**: the permutation depends only on the seed and the length. (Not the same
    /// permutation as rand's `SliceRandom::shuffle` with the same RNG.)
    ///
    /// Each element draws a random bucket (about one per 8 Ki elements), a stable counting
    /// sort gathers the buckets, and each bucket is shuffled by Fisher-Yates, all from
    /// generators seeded by the seed and fixed block and bucket numbers; this is uniform (the
    /// proof is in the module's notes). Needs a scratch buffer of the slice's size. Slices
    /// under 32 Ki elements are shuffled by Fisher-Yates on the calling thread. Feature
    /// `rand` (rand 0.10's `Rng`).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use rand::SeedableRng;
    /// let mut a: Vec<u32> = (0..100_000).collect();
    /// let mut b = a.clone();
    /// a.par_shuffle(&mut rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7));
    /// b.par_shuffle(&mut rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7));
    /// assert_eq!(a, b);
    /// assert_ne!(a, (0..100_000).collect::<Vec<_>>());
    /// a.par_sort_unstable();
    /// assert_eq!(a, (0..100_000).collect::<Vec<_>>());
    /// ```
    #[cfg(feature = "rand")]
    #[cfg_attr(docsrs, doc(cfg(feature = "rand")))]
    fn par_shuffle<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) {
        shuffle::shuffle(self.as_parallel_slice_mut(), rng.next_u64())
    }

    /// Replaces every element by the combination of it and all elements before it:
    /// `x0`, `x0 ∘ x1`, `x0 ∘ x1 ∘ x2`, ..., in place and in parallel, in a single pass over
    /// memory. The rules of
    /// [`IndexedParallelIterator::inclusive_scan`](crate::iter::IndexedParallelIterator::inclusive_scan)
    /// hold: `op` associative but not necessarily commutative, results the same on any
    /// number of threads (floats included), a panic in `op` propagated with the slice left
    /// holding valid (partly scanned) elements.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut v: Vec<u64> = (1..=100_000).collect();
    /// v.par_inclusive_scan(|a, b| a + b);
    /// assert_eq!(v[99_999], 100_000 * 100_001 / 2);
    /// assert_eq!(&v[..4], [1, 3, 6, 10]);
    /// ```
    fn par_inclusive_scan<F>(&mut self, op: F)
    where
        T: Clone + Sync,
        F: Fn(&T, &T) -> T + Sync + Send,
    {
        crate::iter::scan::scan_slice(self.as_parallel_slice_mut(), None, &op);
    }

    /// Replaces every element by the combination of `identity` and all elements before it:
    /// `identity`, `identity ∘ x0`, `identity ∘ x0 ∘ x1`, ..., in place and in parallel, and
    /// returns the combination of `identity` and all elements (`identity` for an empty
    /// slice). That is the offsets-for-a-scatter pattern: sizes in, offsets out, total to
    /// allocate. The rules of [`par_inclusive_scan`](Self::par_inclusive_scan) hold.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let mut sizes = vec![3usize, 0, 2, 5];
    /// let total = sizes.par_exclusive_scan(0, |a, b| a + b);
    /// assert_eq!((sizes, total), (vec![0, 3, 3, 5], 10));
    /// ```
    fn par_exclusive_scan<F>(&mut self, identity: T, op: F) -> T
    where
        T: Clone + Sync,
        F: Fn(&T, &T) -> T + Sync + Send,
    {
        crate::iter::scan::scan_slice(self.as_parallel_slice_mut(), Some(identity), &op)
            .expect("an exclusive scan has a total")
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
