//! rayon 1.12.0's API over blitz-par, for a program's `[patch.crates-io]`.
//!
//! Every item is blitz-par's own, re-exported at rayon's path: `rayon::iter::Map` is
//! `blitz_par::iter::Map`, and the pool items come through this workspace's `rayon_core` (as
//! in rayon), so a program that names both crates, or blitz-par too, has one type of each and
//! one global pool. Only rayon's names are here; blitz-par's additions (`spawn_future`,
//! `parallel_for`, `SyncPtr`, scans, `ExactSum`, `Deterministic`, its integrations) are reached
//! through `blitz_par` itself. Methods that blitz-par adds to the shared traits and types
//! (`ParallelIterator::exact_sum`, `Consumer::with_len_hint`, ...) stay visible on them, since
//! the traits are the same. rayon's deprecated `iter::repeatn` is left out: see
//! compat/README.md and `check_api.py`.
//!
//! ```
//! use rayon::prelude::*;
//! let v: Vec<u64> = (0..1000u64).into_par_iter().map(|x| x * 2).collect();
//! assert_eq!(v.par_iter().sum::<u64>(), 999_000);
//! let it: rayon::iter::Map<rayon::range::Iter<u64>, fn(u64) -> u64> =
//!     (0..3u64).into_par_iter().map(|x| x + 1);
//! let same: blitz_par::iter::Map<blitz_par::range::Iter<u64>, fn(u64) -> u64> = it;
//! assert_eq!(same.sum::<u64>(), 6);
//! ```
#![deny(missing_docs)]

pub use rayon_core::{
    broadcast, current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo,
    join, join_context, max_num_threads, scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo,
    yield_local, yield_now, BroadcastContext, FnContext, Scope, ScopeFifo, ThreadBuilder,
    ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Yield,
};

/// Parallel iterator types for arrays (`[T; N]`).
pub mod array {
    pub use blitz_par::array::IntoIter;
}

/// Parallel iterator types for the standard collections.
pub mod collections {
    /// Parallel iterator types for `BinaryHeap`.
    pub mod binary_heap {
        pub use blitz_par::collections::binary_heap::{Drain, IntoIter, Iter};
    }
    /// Parallel iterator types for `BTreeMap`.
    pub mod btree_map {
        pub use blitz_par::collections::btree_map::{IntoIter, Iter, IterMut};
    }
    /// Parallel iterator types for `BTreeSet`.
    pub mod btree_set {
        pub use blitz_par::collections::btree_set::{IntoIter, Iter};
    }
    /// Parallel iterator types for `HashMap`.
    pub mod hash_map {
        pub use blitz_par::collections::hash_map::{Drain, IntoIter, Iter, IterMut};
    }
    /// Parallel iterator types for `HashSet`.
    pub mod hash_set {
        pub use blitz_par::collections::hash_set::{Drain, IntoIter, Iter};
    }
    /// Parallel iterator types for `LinkedList`.
    pub mod linked_list {
        pub use blitz_par::collections::linked_list::{IntoIter, Iter, IterMut};
    }
    /// Parallel iterator types for `VecDeque`.
    pub mod vec_deque {
        pub use blitz_par::collections::vec_deque::{Drain, IntoIter, Iter, IterMut};
    }
}

/// Traits and types for parallel iterators.
pub mod iter {
    pub use blitz_par::iter::{
        empty, once, repeat, repeat_n, split, walk_tree, walk_tree_postfix, walk_tree_prefix,
        Chain, Chunks, Cloned, Copied, Either, Empty, Enumerate, ExponentialBlocks, Filter,
        FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldChunks, FoldChunksWith,
        FoldWith, FromParallelIterator, IndexedParallelIterator, Inspect, Interleave,
        InterleaveShortest, Intersperse, IntoParallelIterator, IntoParallelRefIterator,
        IntoParallelRefMutIterator, IterBridge, Map, MapInit, MapWith, MaxLen, MinLen, MultiZip,
        Once, PanicFuse, ParallelBridge, ParallelDrainFull, ParallelDrainRange, ParallelExtend,
        ParallelIterator, Positions, Repeat, RepeatN, Rev, Skip, SkipAny, SkipAnyWhile, Split,
        StepBy, Take, TakeAny, TakeAnyWhile, TryFold, TryFoldWith, UniformBlocks, Update, WalkTree,
        WalkTreePostfix, WalkTreePrefix, WhileSome, Zip, ZipEq,
    };

    /// The traits and functions for writing parallel iterators and consumers by hand.
    pub mod plumbing {
        pub use blitz_par::iter::plumbing::{
            bridge, bridge_producer_consumer, bridge_unindexed, Consumer, Folder, Producer,
            ProducerCallback, Reducer, UnindexedConsumer, UnindexedProducer,
        };
    }
}

/// Parallel iterator types for `Option`.
pub mod option {
    pub use blitz_par::option::{IntoIter, Iter, IterMut};
}

/// The traits a program brings into scope with `use rayon::prelude::*`.
pub mod prelude {
    pub use blitz_par::iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator,
    };
    pub use blitz_par::slice::{ParallelSlice, ParallelSliceMut};
    pub use blitz_par::str::ParallelString;
}

/// Parallel iterator types for ranges.
pub mod range {
    pub use blitz_par::range::Iter;
}

/// Parallel iterator types for inclusive ranges.
pub mod range_inclusive {
    pub use blitz_par::range_inclusive::Iter;
}

/// Parallel iterator types for `Result`.
pub mod result {
    pub use blitz_par::result::{IntoIter, Iter, IterMut};
}

/// Parallel iterators and methods for slices.
pub mod slice {
    pub use blitz_par::slice::{
        ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact, ChunksExactMut, ChunksMut, Iter,
        IterMut, ParallelSlice, ParallelSliceMut, RChunks, RChunksExact, RChunksExactMut,
        RChunksMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
    };
}

/// Parallel iterators and methods for strings.
pub mod str {
    pub use blitz_par::str::{
        Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, ParallelString,
        Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator, SplitWhitespace,
    };
}

/// Parallel iterator types for `String`.
pub mod string {
    pub use blitz_par::string::Drain;
}

/// Parallel iterator types for `Vec`.
pub mod vec {
    pub use blitz_par::vec::{Drain, IntoIter};
}
