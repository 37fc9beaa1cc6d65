//! Every synchronisation primitive the crate uses, in one place, so that `cfg(loom)` can swap
//! them for loom's models: atomics, futex wait/wake, cache padding. `SyncPtr` lives here too,
//! since collect, sort and `parallel_for` all write through it.

mod sync_ptr;

pub use sync_ptr::SyncPtr;
