//! The sorts' size thresholds ([`Tuning`]) and their calls into the scheduler between pieces
//! of sequential work.

/// Size thresholds. Production uses [`Tuning::DEFAULT`]; unit tests use tiny values so that
/// small inputs (and Miri) reach every parallel path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// Below this many elements the public sorts call std's sequential sorts.
    pub sequential_below: usize,
    /// Merge sort: leaves per thread (more leaves balance better; each level costs a pass).
    pub leaves_per_thread: usize,
    /// Merge sort: no leaf is made shorter than this.
    pub min_leaf_len: usize,
    /// Merges of at most this many elements run sequentially.
    pub merge_sequential_below: usize,
    /// Copies of at most this many bytes run sequentially.
    pub copy_sequential_bytes: usize,
    /// Radix sort: at most this many keys are handled by one thread.
    pub radix_parallel_below: usize,
    /// Radix sort: at most this many keys go to `sort_unstable`.
    pub radix_small: usize,
    /// Finding runs, counting sort: blocks per thread.
    pub radix_blocks_per_thread: usize,
    /// In-place radix sort: buckets of at most this many keys are sorted out of place, with a
    /// buffer of their size (larger ones get another in-place pass).
    pub radix_leaf_max: usize,
    /// In-place radix sort: bytes per block of keys moved at once.
    pub radix_in_place_block_bytes: usize,
    /// Byte-string sort: runs of fewer keys are ordered by `sort_unstable`, not the radix sort
    /// (which costs a scratch buffer and checks per call).
    pub string_radix_from: usize,
    /// Merging runs: bytes of keys per piece of the multiway merge (a piece and its working
    /// space should fit in a core's L2 cache).
    pub merge_piece_bytes: usize,
}

impl Tuning {
    /// Starting points, not a careful tuning (the shared 2-core machine was too loaded for
    /// that): sequential below 8K elements (a 1,000-element sort must cost what std's does);
    /// pieces of sequential work of tens of microseconds (4K-element leaves on the spine,
    /// 64K-key radix blocks, 16K-element merges), so that the heartbeat scheduler gets polled
    /// often; radix buckets of up to 16 keys go to `sort_unstable` (insertion sort).
    pub(crate) const DEFAULT: Tuning = Tuning {
        sequential_below: 8 * 1024,
        leaves_per_thread: 2,
        min_leaf_len: 4 * 1024,
        merge_sequential_below: 16 * 1024,
        copy_sequential_bytes: 256 * 1024,
        radix_parallel_below: 64 * 1024,
        radix_small: 16,
        radix_blocks_per_thread: 2,
        radix_leaf_max: 1 << 16,
        radix_in_place_block_bytes: 1024,
        string_radix_from: 2048,
        merge_piece_bytes: 128 * 1024,
    };
}

/// Lets the scheduler hand out work; called before each piece of sequential work (a leaf sort,
/// a sequential merge, one block of a radix pass), each of which takes tens to hundreds of
/// microseconds.
///
/// The scheduler promotes a recorded join (makes it stealable) only when it polls and an idle
/// thread has asked, and reads its heartbeat clock only once per 512 joins' worth of polls; a
/// coarse sequential piece makes no polls at all, so a request made during it waited for its
/// end. So before each piece we make every join this thread has recorded stealable at once
/// (the oldest holds the most work: the other half of the sort) and take the heartbeat check
/// (one clock read), which wakes a sleeping worker when one is due. Local 2-core VM, against
/// promoting only on request: 1M random strings `par_sort_unstable`, fastest of 5, 167-195
/// against 196-224 ms over six alternated rounds; 10M random u64 `par_sort_unstable`, best
/// of 5, 66-77 against 80-93 ms; comparison merge sorts unchanged within the noise.
#[inline]
pub(super) fn poll_scheduler() {
    crate::scheduler::share(crate::scheduler::Share::Now);
}

/// Lets the scheduler hand out work and wakes a sleeping worker for each piece handed out:
/// called before sequential work of milliseconds (a stripe of an in-place radix pass), during
/// which a sleeping worker would otherwise not be woken (see `poll_scheduler`).
#[inline]
pub(super) fn share_with_sleepers() {
    crate::scheduler::share(crate::scheduler::Share::Waking);
}
