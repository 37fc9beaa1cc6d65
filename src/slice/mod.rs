//! Parallel operations on slices: iterators over elements, chunks and windows, and sorts.

pub(crate) mod sort;

/// Parallel operations on mutable slices (rayon's `ParallelSliceMut`).
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

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
        sort::par_sort(self.as_parallel_slice_mut())
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
        sort::par_sort_by(self.as_parallel_slice_mut(), compare)
    }

    /// Sorts the slice in parallel, stably, by a key.
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
        sort::par_sort_by_key(self.as_parallel_slice_mut(), f, true)
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
        sort::par_sort_by_cached_key(self.as_parallel_slice_mut(), f)
    }

    /// Sorts the slice in parallel, without preserving the order of equal elements.
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
        sort::par_sort_unstable(self.as_parallel_slice_mut())
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
        sort::par_sort_unstable_by(self.as_parallel_slice_mut(), compare)
    }

    /// Sorts the slice in parallel, unstably, by a key.
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
        sort::par_sort_by_key(self.as_parallel_slice_mut(), f, false)
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
