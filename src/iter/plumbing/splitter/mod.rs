//! The splitting policy: the one place that decides between splitting, peeling a chunk and
//! folding. Replaces rayon's "split about `num_threads` times, then again on every steal",
//! whose fixed splits and hand-over cost about 170 times a sequential loop on a 1,000-element
//! sum (`PERF.md`: 18.8 µs against 109 ns).
//!
//! # A walk-through: how `v.par_iter().sum()` reaches the worker threads
//!
//! Each step names the file that holds it, in the order a call passes through them.
//!
//! 1. `src/prelude.rs` brings in the traits. `par_iter()` (`IntoParallelRefIterator`,
//!    `src/iter/mod.rs`) calls `into_par_iter()` on `&[T]` (or `&Vec<T>`, `src/iter/vec.rs`),
//!    which returns `slice::Iter` (`src/slice/iter.rs`): an indexed iterator whose producer
//!    is the sub-slice itself.
//! 2. `sum` (`ParallelIterator::sum`, `src/iter/mod.rs`) calls `reduce::sum`
//!    (`src/iter/reduce.rs`), which builds a consumer (`CombineConsumer<Add, S>`: its folder
//!    runs `Iterator::sum` over a chunk, its reducer adds two partial sums) and calls
//!    `drive_unindexed` with it.
//! 3. The slice iterator answers with `bridge` (`src/iter/plumbing/mod.rs`): it hands its
//!    producer to `bridge_producer_consumer`, which makes a fresh [`Pacer`] and calls this
//!    driver, [`drive_indexed`] (`splitter/indexed.rs`).
//! 4. The chunk loop (`chunk_loop`) asks the pacer (`splitter/policy.rs`, `Pacer::decide`)
//!    what to do next: peel a chunk off the front (`Producer::split_at`,
//!    `Consumer::split_at`), fold it (`Producer::fold_with`: the sequential `sum` of that
//!    sub-slice) and add it to the chunks before; fold all the rest; or split. The pacer
//!    times chunks with the cheap clock (`src/sync/clock.rs`) and compares the estimate of
//!    the work left with the thresholds of `src/tuning.rs`. A 1,000-item sum ends here, on
//!    the calling thread: two chunks, never entering the scheduler.
//! 5. Once the loop has run [`PROVEN_NS`](crate::tuning::PROVEN_NS), it enters the scheduler
//!    (`enter_and_drive` calls `scheduler::enter`, `src/scheduler/mod.rs`). A thread outside
//!    every pool becomes a guest of the global pool: `pool::global_registry`
//!    (`src/scheduler/pool.rs`) starts it on first use (`builder.rs`, and
//!    `registry/lifecycle.rs` for the threads), and `Registry::enter_as_guest`
//!    (`registry/mod.rs`) gives the thread a seat (`registry/seat.rs`).
//! 6. Between chunks the pacer polls its seat (`scheduler::poll`, forwarded to
//!    `Owner::poll_for_split` in `registry/owner.rs`): an idle worker has raised the seat's
//!    request flag, or the heartbeat says a sleeping worker should be woken. The loop then
//!    splits the items left in halves (`split_and_join`) and calls `scheduler::join`
//!    (`src/scheduler/join.rs`): the second half's job is recorded in the join's stack frame
//!    and the seat's frames, not yet in a queue.
//! 7. The join's own poll promotes the recorded frame onto the seat's Chase-Lev deque
//!    (`src/scheduler/deque.rs`), waking a sleeper (`src/scheduler/sleep.rs`) if the heartbeat
//!    asked for one. A worker, looping in `Owner::wait_until_cold` (`registry/owner.rs`),
//!    steals the job (`job.rs`) and runs the second half: the same `drive_indexed`, with a
//!    copy of the pacer, in its own chunk loop.
//! 8. The calling thread runs the first half meanwhile. When it is done it pops the second
//!    half back if nobody took it, or runs other jobs until the thief sets the frame's latch
//!    (`src/scheduler/latch.rs`). The reducer adds the two halves' sums, and each level of
//!    splits adds its own on the way back up to `sum`'s caller.
//!
//! The scheduler's side of steps 5 to 8 (seats, promotion, the heartbeat, stealing, sleep)
//! is specified with its proofs in `src/scheduler/README.md`. Its section "The iterators'
//! interface" lists all that the driver calls in the scheduler: `enter`, `poll`, `share`,
//! `wake`, `thief_awake`, the watch (`Watch`, `watch`), `join` and `join_offered`.
//!
//! # The policy
//!
//! Indexed work is processed as a loop over chunks taken off the front. A chunk starts at one
//! item and doubles, so that a thread that gets hungry is answered within a few items even when
//! items are heavy (where a clock reading says items are cheap, it grows faster, to about
//! [`RAMP_NS`](crate::tuning::RAMP_NS) of work, ending each chunk at a multiple of its size); doubling pauses while
//! chunks take more than [`SETTLED_NS`](crate::tuning::SETTLED_NS) of work and hold at least [`SETTLED_MIN_ITEMS`](crate::tuning::SETTLED_MIN_ITEMS)
//! items (or take more than [`LONG_CHUNK_NS`](crate::tuning::LONG_CHUNK_NS)), so that the fixed cost of a chunk (a split
//! of producer and consumer, a fold, a reduce, one call to `scheduler::poll`) stays small against
//! the work. Growth only pauses, it never stops: one slow chunk (page faults on fresh memory, a
//! preempted thread) must not pin the chunk size low for the rest of the loop, which made
//! leaves 64 items long in early measurements.
//! Between chunks the driver splits the rest in halves when the scheduler says an idle thread
//! wants work (`scheduler::poll`), or when the rest is longer than `with_max_len` allows. Both
//! halves run the same loop.
//!
//! A request to split is honoured only when the loop has already run for [`PROVEN_NS`](crate::tuning::PROVEN_NS) (or
//! descends from one that has) and the rest is estimated to take at least
//! [`MIN_SPLIT_NS`](crate::tuning::MIN_SPLIT_NS): handing a thief a few microseconds of work costs the owner more (a
//! promoted join, possibly a wake-up, waiting for the thief's result) than doing it, and idle
//! workers ask for work all the time. Estimates from short chunks overstate the cost per item
//! (fixed costs dominate), hence the first condition.
//!
//! The clock is read at the start of a loop, after its first chunk, and then once the items
//! since the last reading are estimated to take [`READ_WORTH_NS`](crate::tuning::READ_WORTH_NS) (so every chunk when
//! items are heavy, and the doubling pauses in time) or number [`TIMED_CHUNK`](crate::tuning::TIMED_CHUNK); a reading
//! times all the items since the previous one. Once the chunk size has settled and the early
//! wake is decided, only every [`SETTLED_READ_CHUNKS`](crate::tuning::SETTLED_READ_CHUNKS)th chunk is timed, and the scheduler's
//! heartbeat takes that reading instead of its own: a clock reading at the end of a chunk
//! costs far more than alone. Once a reading says the rest of the loop is
//! too short to be worth a split, the rest is folded as one chunk, since nothing else uses
//! chunks. A 1,000-item sum of `u64` makes 3 chunks (1 item, 31 up to item 32, the rest) and 2 readings,
//! after its first and second chunks, besides the clock read at the loop's start: counted over
//! 100,000 sums on one thread and on two, by counters put in `Pacer::record_by` for the count.
//! (Before the rest was folded at once it made 11 chunks and 4 readings, and ran 0.21 against
//! 0.15 µs, best of 200,000, on the 2-core VM; the sequential loop takes 0.10.) The other
//! comments that count a 1,000-item sum's chunks or readings refer to this figure.
//!
//! A loop that finds a worker awake and looking for work at a reading of at least
//! [`HOT_SPAN_ITEMS`](crate::tuning::HOT_SPAN_ITEMS) items, with at least [`ASKED_SPLIT_NS`](crate::tuning::ASKED_SPLIT_NS) of work left, is *hot*: it
//! enters the scheduler at once, splits for that worker without waiting for its request
//! (its join offers the half at once: `scheduler::join_offered`), and honours requests of awake threads ([`Want::Asked`](crate::scheduler::Want::Asked), not
//! beats) down to [`ASKED_SPLIT_NS`](crate::tuning::ASKED_SPLIT_NS) left instead of [`MIN_SPLIT_NS`](crate::tuning::MIN_SPLIT_NS): such a thief
//! starts on its half within a microsecond. A thread that runs such loops one right after
//! another wakes one worker for the next ones ([`Pacer::note_thief`]). A loop of 100,000-item
//! sums, which no heartbeat ever reached, so runs on two threads.
//!
//! Items that each take at least [`MIN_SPLIT_NS`](crate::tuning::MIN_SPLIT_NS) by the estimate (blocking work, a
//! nested parallel call, a big chunk of a slice) are the exception to splitting on request:
//! inside the pool the loop splits them at once, down to single items, and before each chunk
//! pushes the halves it split off where other threads can take them, waking sleepers
//! (`scheduler::share(Share::Waking)`), since such a chunk polls nothing for an item's time or more.
//! The first chunk of a drive runs before anything is known of the items' cost, so a short
//! loop's first chunk is *watched* (`scheduler::watch`, for drives of up to 16 items per
//! thread): the rest of the loop is published for a background thread, which hands it to
//! the pool if the chunk is still running after ~50 us, with that time as the rest's
//! estimate (`Pacer::rescued`), so the rest splits at once. Before, a loop of 8 items of 5 ms
//! on 8 threads took 10 ms (rayon, which splits up front: 5 ms).
//!
//! The driver enters the scheduler (`scheduler::enter`, which makes a thread outside the pool
//! a guest of it) lazily: only once the loop has run [`PROVEN_NS`](crate::tuning::PROVEN_NS), or must split for
//! `with_max_len`. Before that no split request would be honoured anyway, so a short loop
//! costs no more than the sequential loop plus its chunking; entering costs 20-70 ns for a
//! guest, a third of a 1,000-item sum.
//!
//! Three consumer properties change the loop's shape, not its policy. A consumer whose folder
//! continues (`Consumer::folder_continues`: collecting into vectors) gets one folder for all
//! the chunks of a loop, so a thread's items between two splits go to one run of blocks; such
//! a loop enters the scheduler before its first chunk, since a folder need not be `Send` and
//! cannot be carried into `enter` later. A consumer that folds from the back
//! (`Consumer::folds_from_back`: `find_last`) gets chunks peeled off the back and runs the back
//! half of each split itself, so the search meets the last match first and stops. An ordered
//! search (`Consumer::searches_in_order`: `find_first`, `position_last`, ...) answers a
//! request for work by keeping only a lead at the end it starts from and handing off the rest
//! ([`Pacer::search_split_point`]), so the threads scan side by side from that end.
//!
//! Unindexed producers (strings, `par_bridge`, ...) cannot be cut at a chosen index, so they
//! split in halves: [`eager_depth`] levels before any fold, [`SPINE_DEPTH`](crate::tuning::SPINE_DEPTH) more down the halves
//! each thread runs first (so its first leaves are short and it soon polls), and further
//! wherever the scheduler asks before a leaf starts. Where halves hold about equal work
//! (strings, slices cut near the middle), the root thread times its first leaf, and that
//! time, once the next leaf's agrees, estimates the drive's for the early wake
//! ([`first_leaf_timed`](unindexed::first_leaf_timed)). Every leaf is timed:
//! once one takes [`MIN_SPLIT_NS`](crate::tuning::MIN_SPLIT_NS) or more, the drive's threads push their recorded halves
//! and wake sleepers after it and before each later leaf, as the indexed loop does for heavy
//! items. They do the same once a half of the drive has been stolen: a thief that took its
//! part before any leaf was seen to be long could otherwise block in its first leaf with its
//! halves unshared.
//!
//! Every threshold named here is in [`crate::tuning`], in nanoseconds or items, with what it
//! trades off.
//!
//! Other code splits work too, each around this driver or beside it:
//! - ranges longer than a `usize` (`iter/range.rs`) halve themselves [`eager_depth`] times
//!   and hand every piece to this driver;
//! - an unindexed `chain` (`iter/chain.rs`) joins its two parts once, and each part goes
//!   through this driver;
//! - `par_bridge` (`iter/par_bridge.rs`) is an unindexed producer that grants one split per
//!   thread, when this driver asks for it; its leaves drain the shared iterator in batches
//!   sized by their time, and share their thread's halves before heavy items, as this
//!   driver does;
//! - the sorts (`slice/sort/`) split with plain joins by their own `Tuning` (sizes in
//!   elements: a sort knows what an element costs), and make their join frames stealable
//!   before each long sequential piece (`scheduler::share(Share::Now)`).
//!
//! The code is in five files: `policy.rs` (the pacer's decisions), `state.rs` (its states),
//! `indexed.rs` (the chunk loop and its splits), `unindexed.rs` (the unindexed drive) and
//! `tests.rs`. The decisions are functions of their arguments: what a reading consults
//! outside the drive (the clock, the thread's last drive, whether a worker is awake) comes
//! through `policy::Outside` (the driver passes `Live`, tests their own), and what the threads
//! of an unindexed drive share lives in its `unindexed::Drive`, not in thread-locals.

mod indexed;
mod policy;
mod state;
#[cfg(test)]
mod tests;
mod unindexed;

pub(super) use indexed::drive_indexed;
pub(crate) use indexed::join_halves;
pub(super) use policy::Pacer;
pub(super) use unindexed::drive_unindexed_root;
pub(crate) use unindexed::eager_depth;
