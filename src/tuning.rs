//! Every threshold of the scheduler and the splitting driver, in one table: times in
//! nanoseconds, sizes in items, rounds or bytes. Code that compares a threshold with the
//! clock converts with the measured clock rate (`sync::clock`), so a threshold means the
//! time it states on every machine.
//!
//! Where two thresholds share a value for a reason, one is written in terms of the other
//! (`ASKED_SPLIT_NS = MIN_SPLIT_NS / 2`); equal numbers written out twice are independent
//! choices. The doc comment of each constant says what it trades off in its first line, then
//! where its value came from, and its last line whether the value was *measured* (compared
//! with another value, or with none, on a named bench and machine) or *chosen* (set by
//! reasoning, perhaps from measured costs, without such a comparison): the table's last
//! column. Measurements were taken on a shared 2-core AMD EPYC VM and a
//! lent 16-core Xeon VM (the "2-core VM" and the "16-core Xeon" below); their figures are
//! in `PERF.md` and the scheduler README.
//!
//! | constant | value | used by | trades off | origin |
//! |---|---|---|---|---|
//! | [`SPIN_ROUNDS`] | 32 rounds | sleep | an idle worker's CPU against how soon it takes new work | chosen |
//! | [`SPIN_PAUSES`] | 32 pauses | sleep | the cost of a spin round against how often it looks for work | chosen |
//! | [`YIELD_ROUNDS`] | 32 rounds (`SPIN_ROUNDS`) | sleep | the CPU of yielding against waking from sleep | chosen |
//! | [`MAX_FRAMES`] | 64 frames | registry | a seat's size against how deep joins can be promoted | chosen |
//! | [`RECORD_WINDOW`] | 8 frames | registry | the bookkeeping of deep joins against how many of them can be stolen | chosen |
//! | [`JOINS_PER_CLOCK_READ`] | 512 joins | heartbeat | clock reads against how late a beat is noticed | chosen |
//! | [`SPLIT_CHECK_WEIGHT`] | 128 joins | heartbeat | how often the driver's chunks read the clock for the heartbeat | measured |
//! | [`GUEST_SEATS`] | 64 seats | registry | a pool's size against outside threads that must inject | chosen |
//! | [`HEARTBEAT_NS`] | 20,000 ns (`MIN_SPLIT_NS`) | heartbeat | waking workers for short work against starting late on long work | measured |
//! | [`PROVEN_BEAT_NS`] | 12,500 ns | heartbeat | how fast a busy pool wakes all workers against wake-ups for nothing | measured |
//! | [`RESCUE_NS`] | 50,000 ns (`WAKE_SHARE_NS`) | watch | how soon a loop's heavy first item lets others take the rest | measured |
//! | [`RESCUE_SOON_NS`] | 12,500 ns (`RESCUE_NS / 4`) | watch | the watchman's wake-ups against a late rescue | chosen |
//! | [`RESCUE_AFTER_NS`] | 20,000 ns | watch | the watchman's wake-ups against a late rescue | chosen |
//! | [`PATROL_NS`] | 500,000 ns | watch | the watchman's CPU against how late a rescue comes | chosen |
//! | [`HURRY_ROUNDS`] | 64 rounds | watch | the watchman's CPU after a rescue against the next loop's rescue | chosen |
//! | [`PATROL_ROUNDS`] | 8 rounds | watch | the watchman's CPU against a wake-up when loops resume | chosen |
//! | [`WATCH_ITEMS_PER_THREAD`] | 16 items | watch | the watch's cost on longer loops against their first item's delay | chosen |
//! | [`TIMED_CHUNK`] | 256 items | splitter | clock reads against how soon costly items are seen | measured |
//! | [`READ_WORTH_NS`] | 400 ns | splitter | clock reads against how soon slow items are seen | chosen |
//! | [`SETTLED_NS`] | 4,000 ns | splitter | a chunk's fixed cost against how long a hungry thread waits | chosen |
//! | [`SETTLED_MIN_ITEMS`] | 32 items | splitter | the cost of a chunk's end on long items against the wait for a split | measured |
//! | [`SETTLED_READ_CHUNKS`] | 4 chunks (`JOINS_PER_CLOCK_READ / SPLIT_CHECK_WEIGHT`) | splitter | clock reads against following changes in item cost | chosen |
//! | [`LONG_CHUNK_NS`] | 32,000 ns (`8 * SETTLED_NS`) | splitter | the longest a hungry thread waits when items are heavy | chosen |
//! | [`RAMP_NS`] | 1,000 ns | splitter | chunks and readings while learning against a hungry thread's wait | measured |
//! | [`RAMP_GROWTH`] | 32 times | splitter | how far one early reading is trusted | chosen |
//! | [`MIN_SPLIT_NS`] | 20,000 ns | splitter | sharing a loop's end against handing off work that costs more than it saves | measured |
//! | [`ASKED_SPLIT_NS`] | 10,000 ns (`MIN_SPLIT_NS / 2`) | splitter | sharing with an awake thief against a split's cost | measured |
//! | [`PROVEN_NS`] | 10,000 ns (`ASKED_SPLIT_NS`) | splitter | trusting an estimate against answering requests late | measured |
//! | [`STREAK_GAP_NS`] | 10,000 ns (`ASKED_SPLIT_NS`) | splitter | what counts as a loop of calls | chosen |
//! | [`LOOP_WAKE_NS`] | 12,500 ns (`PROVEN_BEAT_NS`) | splitter | a worker woken for a loop of calls against one woken for too little | measured |
//! | [`HOT_SPAN_ITEMS`] | 1,024 items | splitter | trusting a reading (an interrupt in it) against a loop's late turn hot | chosen |
//! | [`HOT_MIN_REMAINING`] | 16,384 items (`16 * HOT_SPAN_ITEMS`) | splitter | an extra chunk of short loops against a loop of calls that splits | chosen |
//! | [`EAGER_INHERITED_MAX`] | 256 items | splitter | splitting on an inherited estimate against checking it first | measured |
//! | [`SEARCH_LEAD_NS`] | 40,000 ns (`2 * MIN_SPLIT_NS`) | splitter | an ordered search's hand-offs against scanning past its match | chosen |
//! | [`EARLY_WAKE_NS`] | 100,000 ns (`5 * MIN_SPLIT_NS`) | splitter | waking at once for long work against wake-ups for nothing | measured |
//! | [`EARLY_WAKE_SPAN_NS`] | 1,600 ns | splitter | trusting a reading for an early wake against waking late | chosen |
//! | [`WAKE_SHARE_NS`] | 50,000 ns (`EARLY_WAKE_NS / 2`) | splitter | CPU of woken workers against how soon all of them help | measured |
//! | [`MAX_EARLY_WAKES`] | 64 wakes | splitter | an early wake's reach | chosen |
//! | [`SPLIT_ALIGN_ITEMS`] | 64 items | splitter | balance of a split against aligned chunks | measured |
//! | [`EAGER_LEAVES_PER_THREAD`] | 16 leaves | splitter | unindexed splits against balance at the end of a drive | measured |
//! | [`SPINE_DEPTH`] | 5 splits | splitter | unindexed splits against how soon a thread polls | measured |
//! | [`LEAF_SPAN_NS`] | 200 ns | splitter | trusting a first leaf's time against waking late | chosen |
//! | [`BATCH_FAST_NS`] | 2,000 ns | par_bridge | lock traffic against items held back from other threads | chosen |
//! | [`BATCH_SLOW_NS`] | 40,000 ns | par_bridge | items held back from other threads against lock traffic | chosen |
//! | [`MAX_BATCH`] | 256 items | par_bridge | lock traffic against items held back from other threads | chosen |
//! | [`MIN_ADVISED_BYTES`] | 4,194,304 bytes | sync | a system call against page faults of a large fill | chosen |
//!
//! A test (`tuning::tests`) checks this table against the constants, and each constant's
//! origin against its doc comment.
//!
//! Thresholds kept beside the code they shape, because they are part of its contract or of
//! one data structure, not of the driver's pacing; each links back here:
//!
//! | constant | value | in | trades off | origin |
//! |---|---|---|---|---|
//! | `CHECK_EVERY` | 256 items | `iter/find.rs` | how soon an ordered search stops once beaten against a load per item | chosen |
//! | `PARALLEL_APPEND_BYTES` | 262,144 bytes | `iter/collect/mod.rs` | a parallel copy of a collect's blocks against its split's cost ([`MIN_SPLIT_NS`]) | chosen |
//! | `SCAN_BLOCK_BYTES` | 262,144 bytes | `iter/scan.rs` | a scan block's fixed costs against staying in L2; part of the reproducibility contract | measured |
//! | `LEAF_LEN` | 1,024 items | `iter/reduction_tree.rs` | the fixed tree's leaves; part of the reproducibility contract | chosen |
//! | `MIN_CAPACITY` | 64 jobs | `scheduler/deque.rs` | a deque's first allocation against growing it | chosen |
//!
//! `tests/docs_stay_true.rs` checks this table against those files.

// ----------------------------------------------------------------------------------------
// Sleep: how an idle worker waits (`scheduler/sleep.rs`).

/// Spin rounds before an idle worker yields: CPU burnt while idle against how soon new work
/// is taken. A round is one search for work plus [`SPIN_PAUSES`] pause instructions, about
/// 0.2 to 1 us on the 2-core VM, so spinning lasts roughly 5 to 30 us.
/// Chosen: spinning of 5 to 30 us, shorter than a wake from sleep; no other value was compared.
pub(crate) const SPIN_ROUNDS: u32 = 32;

/// Pause instructions per spin round: the cost of a search against how often one runs.
/// Chosen: as many pauses as rounds; no other value was compared.
pub(crate) const SPIN_PAUSES: u32 = 32;

/// Rounds an idle worker yields (a `sched_yield` each, about 1 us when nothing else is
/// runnable) between spinning and sleeping: the CPU of yielding against the tens of
/// microseconds a wake from sleep costs. As many as it spins.
/// Chosen: as many as [`SPIN_ROUNDS`]; no other value was compared.
pub(crate) const YIELD_ROUNDS: u32 = SPIN_ROUNDS;

// ----------------------------------------------------------------------------------------
// Registry and heartbeat (`scheduler/registry/`).

/// Join frames a seat can record (and so promote): a seat's size against how deep a
/// recursion's joins can be handed out. A join opened while this many are recorded runs
/// unrecorded (see [`RECORD_WINDOW`]).
/// Chosen: deeper than the joins a thief can take in practice; no other value was compared.
pub(crate) const MAX_FRAMES: usize = 64;

/// A join is recorded only while fewer than this many recorded frames wait unpromoted:
/// bookkeeping of deep joins against how many of them can be stolen. The outermost ones,
/// which promotion takes first, are recorded; deeper joins still poll, which makes most joins
/// of a deep recursion as cheap as two calls plus a countdown. (0 on a pool's only seat:
/// `scheduler/README.md`, "The only seat".)
/// Chosen: the joins that promotion takes first; no other value was compared.
pub(crate) const RECORD_WINDOW: usize = 8;

/// Joins between two heartbeat clock reads: clock reads against how late a beat is
/// noticed. A join costs 1-3 ns and a clock read about 7 ns, so 512 keeps the clock under 1%
/// of join overhead while the heartbeat still notices its first beat within a microsecond or
/// two.
/// Chosen: from the measured costs of a join and a clock read, above.
pub(crate) const JOINS_PER_CLOCK_READ: u32 = 512;

/// What the driver's poll between two chunks counts for, in joins: how often chunks read the
/// clock for the heartbeat. A settled chunk takes a few microseconds, so every fourth one
/// reads it, often enough for the proven-work beat ([`PROVEN_BEAT_NS`]). With 32 (every
/// sixteenth chunk, ~64 us) a 16-core pool took several hundred microseconds to wake all
/// its workers.
/// Measured: against 32, the time a 16-core pool took to wake all its workers (16-core Xeon).
pub(crate) const SPLIT_CHECK_WEIGHT: u32 = 128;

/// Guest seats of a registry that lets outside callers take part in its work (the global
/// pool's by default, see `ThreadPoolBuilder::pool_threads_only`): threads outside every pool
/// running parallel work at the same time. A registry's size against outside threads that
/// must inject their work (a 65th concurrent one does). At most 64: the seats in use are bits
/// of one word.
/// Chosen: the bits of one word.
pub(crate) const GUEST_SEATS: usize = 64;

/// The first heartbeat of a busy period: waking workers for short work against starting late
/// on long work. As long as a split must be worth ([`MIN_SPLIT_NS`]): work shorter than that
/// never wakes a worker, so a sum of 100,000 integers (about 10 us) stays on the calling
/// thread. At 100 us, work of 100 us to a few milliseconds that starts with the workers
/// asleep ran alone for its first 100 us while rayon wakes a worker at once; at 20 us, max of
/// 1M `u64` went from 308 to 253 us on the 2-core VM (rayon 237), a 1,000 x 1,000
/// `flat_map_iter` from 167 to 138 us (rayon 101).
/// Measured: against 100 us, with benches of work starting with the workers asleep (2-core VM; `PERF.md`).
pub(crate) const HEARTBEAT_NS: u64 = MIN_SPLIT_NS;

/// The heartbeat period once a busy period has lasted [`HEARTBEAT_NS`] (or began with a
/// wake-up): how fast a busy pool wakes all its workers against wake-ups for nothing. A pool
/// wakes one worker per beat per busy thread, so this brings all 16 workers of a 16-core
/// machine in within about 100 us of the first beat (a 100 us period needed 400 to 500 us).
/// Measured: against 100 us, the time to wake all 16 workers (16-core Xeon).
pub(crate) const PROVEN_BEAT_NS: u64 = 12_500;

// ----------------------------------------------------------------------------------------
// The watch: handing out the rest of a loop whose first item runs long (`scheduler/watch.rs`).

/// How long a watched item runs before the rest of its loop goes to the pool: how soon
/// others take the rest of a loop of heavy items, against handing out loops that would have
/// ended soon anyway. A wake's share of work ([`WAKE_SHARE_NS`]): the rest of a loop whose
/// first item took that long is worth waking a worker for. Against 100 us, 8 items of ~0.8
/// ms on the 2-core VM took 3.36 against 3.55 ms (rayon 3.29), the watchman's CPU unchanged.
/// Measured: against 100 us, 8 items of ~0.8 ms (2-core VM).
pub(crate) const RESCUE_NS: u64 = WAKE_SHARE_NS;

/// A watch that has run this long makes the watchman come back after [`RESCUE_AFTER_NS`]
/// rather than [`PATROL_NS`]: its wake-ups against a rescue a patrol late.
/// Chosen: a quarter of [`RESCUE_NS`]; no other value was compared.
pub(crate) const RESCUE_SOON_NS: u64 = RESCUE_NS / 4;

/// The watchman's sleep when it expects a watch to be due (after a watch woke it, a watch is
/// [`RESCUE_SOON_NS`] old, or for [`HURRY_ROUNDS`] after a rescue): its wake-ups against a
/// late rescue. Shorter than [`RESCUE_NS`] because Linux adds its timer slack (50 us by
/// default) to every timed sleep: on the 2-core VM a 10 us sleep took 23 to 81 us, a 50 us
/// one 102 us.
/// Chosen: from measured lengths of timed sleeps, above.
pub(crate) const RESCUE_AFTER_NS: u64 = 20_000;

/// The watchman's interval while loops are watched: its CPU against how late a rescue comes
/// (between [`RESCUE_NS`] and this much later). About 2,000 wake-ups a second, well under 1%
/// of a core.
/// Chosen: about 2,000 wake-ups a second; no other value was compared.
pub(crate) const PATROL_NS: u64 = 500_000;

/// Rounds at the short interval ([`RESCUE_AFTER_NS`]) after a rescue, about 5 ms: the
/// watchman's CPU against the rescue of the next loop, which likely has heavy items too.
/// While heavy loops keep coming (8 items of ~0.8 ms back to back on the 2-core VM) the
/// watchman used 1% of a core.
/// Chosen: about 5 ms; the watchman's CPU was measured with it, above, not other values.
pub(crate) const HURRY_ROUNDS: u32 = 64;

/// Rounds without a new watch after which the watchman sleeps until the next watch wakes it
/// (about 4 ms): its CPU against a wake-up (one `unpark`) when loops resume.
/// Chosen: about 4 ms; no other value was compared.
pub(crate) const PATROL_ROUNDS: u32 = 8;

/// Loops of more than this many items per thread of the pool are not watched: the watch's
/// few nanoseconds on longer loops of cheap items against the delay of their first item,
/// which is then at most 1/16 of each thread's share.
/// Chosen: a first item's delay of at most 1/16 of a share; no other value was compared.
pub(crate) const WATCH_ITEMS_PER_THREAD: usize = 16;

// ----------------------------------------------------------------------------------------
// The indexed driver's chunks and readings (`iter/plumbing/splitter/policy.rs`).

/// Items between two clock readings (after a loop's first chunk): clock reads against how
/// soon costly items are seen. A reading costs 7-15 ns with `rdtsc`, 20-40 ns with
/// `Instant`; over 256 cheap items it stays a small part of the chunk. With 64, a quarter of
/// a 1,000-item sum's time went to `rdtsc` on the 2-core VM; 256 saved about 15% of it.
/// Measured: against 64, a 1,000-item sum's time (2-core VM).
pub(crate) const TIMED_CHUNK: usize = 256;

/// Items estimated to take this long are worth a clock reading: clock reads against how soon
/// slow items are seen. A reading then costs under 5%.
/// Chosen: from the measured cost of a reading, above.
pub(crate) const READ_WORTH_NS: u64 = 400;

/// A chunk that took longer pauses the doubling of the chunk size: a chunk's fixed cost (tens
/// of nanoseconds, under 1% here) against how long a hungry thread waits for a split.
/// Chosen: from the measured fixed cost of a chunk, above; no other value was compared.
pub(crate) const SETTLED_NS: u64 = 4_000;

/// A chunk of fewer items keeps doubling past [`SETTLED_NS`] (up to [`LONG_CHUNK_NS`]): the
/// end of a chunk breaks the overlap of long dependency chains, against a hungry thread's
/// wait. With ~4 us chunks of ~3 items, a map of 200 dependent `sqrt` per item (1.3 us each)
/// burnt 2-3% more CPU than rayon's long leaves; with 32 items per chunk it runs at par.
/// Measured: against chunks of ~3 items, a map of 200 dependent `sqrt` per item against rayon (2-core VM).
pub(crate) const SETTLED_MIN_ITEMS: usize = 32;

/// Once the chunk size has settled (and the early wake is decided), the clock is read every
/// this many chunks, and the heartbeat uses that reading: clock reads against following
/// changes in the items' cost. A reading at a chunk's end costs far more than alone (about
/// 300 ns after items of 200 dependent `sqrt`, 50 ns in a memory-bound sum); one per heartbeat
/// clock read keeps the heartbeat's cadence.
/// Chosen: one reading per heartbeat clock read; the cost of a reading at a chunk's end was measured, above.
pub(crate) const SETTLED_READ_CHUNKS: u32 = JOINS_PER_CLOCK_READ / SPLIT_CHECK_WEIGHT;

/// The chunk length at which doubling pauses however few items it holds: the longest an
/// idle thread waits for its split when items are heavy.
/// Chosen: eight settled chunks; no other value was compared.
pub(crate) const LONG_CHUNK_NS: u64 = 8 * SETTLED_NS;

/// Work a chunk may grow to at once, faster than doubling: fewer chunks and readings while
/// the loop learns that items are cheap, against a hungry thread's wait (a chunk this short
/// is far below [`SETTLED_NS`]). A 100,000-item sum of `i64` took 11 chunks and 4 readings by
/// doubling; with this, 4 or 5 chunks, 1.2% over one fold of it on the 2-core VM.
/// Measured: against plain doubling, the chunks, readings and time of a 100,000-item sum (2-core VM).
pub(crate) const RAMP_NS: u64 = 1_000;

/// The most a chunk grows at one reading: how far an estimate from a single item (which holds
/// a chunk's fixed costs too) is trusted.
/// Chosen: no other value was compared.
pub(crate) const RAMP_GROWTH: usize = 32;

// ----------------------------------------------------------------------------------------
// When the indexed driver splits and wakes (`iter/plumbing/splitter/policy.rs`).

/// A split on request needs at least this much estimated work left: sharing a loop's last
/// stretch against handing off work that costs more than it saves. A steal and the join that
/// waits for it cost a microsecond or more, and more when the thief is slow to start (a
/// shared 2-core machine: a 12 us sum of 100,000 `i64` ran 10-20% slower than sequential with
/// a 10 us bound); waking a sleeping worker costs tens of microseconds.
/// Measured: against 10 us, a 12 us sum of 100,000 `i64` against sequential (2-core VM).
pub(crate) const MIN_SPLIT_NS: u64 = 20_000;

/// A split that an awake idle thread asked for needs only this much work left in a *hot*
/// loop (one that saw a worker awake at a reading): sharing with a thief that starts within
/// a microsecond against the split's cost. Half of [`MIN_SPLIT_NS`], which guards against a
/// woken worker that starts tens of microseconds late. With 5 us, loops of 30,000-item sums
/// (~5.5 us alone) ran 15% slower than the sequential loop in bursts of 20 calls.
/// Measured: against 5 us, bursts of 30,000-item sums against the sequential loop (2-core VM).
pub(crate) const ASKED_SPLIT_NS: u64 = MIN_SPLIT_NS / 2;

/// A loop honours split requests only after running this long: trusting its cost estimate
/// against answering requests late. By then its chunks are long enough to be timed well; a
/// 100,000-item sum (12 us) on a 16-core Xeon split on its first 16-item chunk's estimate and
/// ran 45% slower than sequential. As long as the least split an awake thief gets.
/// Measured: against no such wait, a 100,000-item sum against sequential (16-core Xeon); the value is [`ASKED_SPLIT_NS`]'s.
pub(crate) const PROVEN_NS: u64 = ASKED_SPLIT_NS;

/// A drive that begins at most this long after the estimated end of the thread's last drive
/// with a split's worth for an awake thief continues a loop of such calls: what counts as a
/// loop. As long as such a split, so that a worker woken for the loop is still awake.
/// Chosen: as long as [`ASKED_SPLIT_NS`]; no other value was compared.
pub(crate) const STREAK_GAP_NS: u64 = ASKED_SPLIT_NS;

/// The work a drive in a loop of calls must have left to wake a sleeping worker for the calls
/// that follow: a worker woken for the loop against one woken for too little. What the
/// heartbeat would wake one for once work is proven. Loops of 50,000-item sums (~9 us left at
/// their reading) woke a worker at the [`ASKED_SPLIT_NS`] bar now and then, for 0.92 to 0.99
/// times the sequential time and 1.9 times its CPU; they now stay on one thread.
/// Measured: against the [`ASKED_SPLIT_NS`] bar, loops of 50,000-item sums (2-core VM).
pub(crate) const LOOP_WAKE_NS: u64 = PROVEN_BEAT_NS;

/// A reading must time at least this many items to make a loop hot or count towards a loop
/// of calls: trusting a reading against a loop's late turn hot. Not a time: a reading of one
/// item that an interrupt held up looked like milliseconds of work, about once in 20,000
/// 1,000-item sums on the 2-core VM. A 100,000-item sum of `i64` gets such a reading after
/// 4,096 items.
/// Chosen: longer than a reading an interrupt can mislead (that misreading was measured, above).
pub(crate) const HOT_SPAN_ITEMS: usize = 1_024;

/// Items a loop must have left for an early reading (of fewer than [`HOT_SPAN_ITEMS`]) to keep
/// it asking on an awake thief's bar: an extra chunk and reading of short loops against a
/// loop of calls that splits. Cheap items (0.1 to 0.2 ns a sum of `i64`) take
/// [`ASKED_SPLIT_NS`] only by the tens of thousands.
/// Chosen: 16 times [`HOT_SPAN_ITEMS`]; no other value was compared.
pub(crate) const HOT_MIN_REMAINING: usize = 16 * HOT_SPAN_ITEMS;

/// The most items a loop splits at once on an estimate it inherited that says items are
/// heavy: splitting on an inherited estimate against checking it with a chunk of its own. An
/// estimate from one item that a page fault made look heavy made a 10M-item map and collect
/// split down to single items in half the runs (350 ms against 20); this many items split
/// wrongly cost tens of microseconds.
/// Measured: against no bound, a 10M-item map and collect (the failure above).
pub(crate) const EAGER_INHERITED_MAX: usize = 256;

/// The lead an ordered search keeps when it hands work off: hand-offs (each costs a split)
/// against scanning past its match. Twice what a split must leave, so that a hand-off's cost
/// stays small against the lead.
/// Chosen: twice a split's worth; no other value was compared.
pub(crate) const SEARCH_LEAD_NS: u64 = 2 * MIN_SPLIT_NS;

/// A reading that estimates at least this much work left wakes sleeping workers at once:
/// starting long work on every core against wake-ups for nothing. rayon wakes a worker when
/// work is posted, and ran a 150 us `flat_map_iter` in 92-96 us against our 118-120 us before
/// this. Five splits' worth.
/// Measured: against no early wake, a 150 us `flat_map_iter` against rayon (2-core VM); the factor 5 was chosen.
pub(crate) const EARLY_WAKE_NS: u64 = 5 * MIN_SPLIT_NS;

/// An early wake needs a reading that timed at least this much work: trusting the reading
/// (the fixed costs of its chunks overstate the cost per item by far less than the factor of
/// 5 between [`EARLY_WAKE_NS`] and [`MIN_SPLIT_NS`]) against waking late.
/// Chosen: no other value was compared.
pub(crate) const EARLY_WAKE_SPAN_NS: u64 = 1_600;

/// An early wake asks for one sleeper per this much work left: the CPU of woken workers
/// against how soon all of them help. On the 16-core Xeon waking all at once made a 60 us
/// call burn 6.9 times the sequential CPU, one per beat left them idle until ~450 us; one per
/// 50 us wakes about 7 for a sum of 1M `u64` (~350 us alone), all 16 for 10M.
/// Measured: against waking all at once and one per beat, sums of 1M and 10M `u64` (16-core Xeon).
pub(crate) const WAKE_SHARE_NS: u64 = EARLY_WAKE_NS / 2;

/// The most sleepers one early wake asks for: the reach of one estimate.
/// Chosen: no other value was compared.
pub(crate) const MAX_EARLY_WAKES: u32 = 64;

/// Splits fall on multiples of this many items where that costs little balance: at most
/// 63 items of balance against chunks that start aligned (a sum's vector loop over an
/// unaligned start ran 40% slower on the 16-core Xeon).
/// Measured: against unaligned splits, a sum's vector loop (16-core Xeon); 64 was chosen.
pub(crate) const SPLIT_ALIGN_ITEMS: usize = 64;

// ----------------------------------------------------------------------------------------
// The unindexed driver (`iter/plumbing/splitter/unindexed.rs`).

/// Leaves per thread that an unindexed drive splits into before any fold: splits against
/// balance at the end of the drive (a fold cannot be interrupted to answer a hungry thread).
/// With four, `par_lines` and `par_chars` over 14 MB on 2 cores ran 1.1 to 1.2 times rayon's
/// time, with 16 1.0 to 1.1. A power of two.
/// Measured: against four, `par_lines` and `par_chars` over 14 MB against rayon (2 cores).
pub(crate) const EAGER_LEAVES_PER_THREAD: usize = 16;

/// Splits beyond the eager ones down the halves a thread runs first: more leaves against how
/// soon a thread reaches a leaf's end, where it polls. Without them, the first leaf of a 4.7
/// ms `par_lines` ran 0.6 ms before anything polled: 4.0 ms against rayon's 2.4 (2.6 with).
/// Measured: against none, a 4.7 ms `par_lines` against rayon (2-core VM).
pub(crate) const SPINE_DEPTH: u32 = 5;

/// The least a timed first leaf must take for its estimate to count: trusting it against
/// waking late. Lower than [`EARLY_WAKE_SPAN_NS`] because a leaf is one fold with few fixed
/// costs, and the first leaf is small (1/8192 of the input on 16 threads).
/// Chosen: below [`EARLY_WAKE_SPAN_NS`], for the reason above; no other value was compared.
pub(crate) const LEAF_SPAN_NS: u64 = 200;

// ----------------------------------------------------------------------------------------
// `par_bridge` (`iter/par_bridge.rs`): batches taken from the shared iterator.

/// A batch that took less than this doubles: lock traffic against items held back from
/// other threads (the lock is a real part of a batch this short).
/// Chosen: no other value was compared.
pub(crate) const BATCH_FAST_NS: u64 = 2_000;

/// A batch that took more than this halves: items held back from other threads against lock
/// traffic.
/// Chosen: no other value was compared.
pub(crate) const BATCH_SLOW_NS: u64 = 40_000;

/// The largest batch: lock traffic against items taken ahead, which other threads cannot
/// have.
/// Chosen: no other value was compared.
pub(crate) const MAX_BATCH: usize = 256;

// ----------------------------------------------------------------------------------------
// Memory (`sync/memory.rs`).

/// Fills of fewer bytes get no huge-page advice: a system call (about a microsecond) against
/// the page faults of a large fill. The range then holds at most one whole 2 MiB page.
/// Chosen: two huge pages; no other value was compared.
pub(crate) const MIN_ADVISED_BYTES: usize = 4 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every constant of this module, with its value.
    macro_rules! constants {
        ($($name:ident),* $(,)?) => {
            [$((stringify!($name), $name as u128)),*]
        };
    }

    #[test]
    fn the_table_in_the_docs_lists_every_constant_with_its_value() {
        let constants = constants![
            SPIN_ROUNDS,
            SPIN_PAUSES,
            YIELD_ROUNDS,
            MAX_FRAMES,
            RECORD_WINDOW,
            JOINS_PER_CLOCK_READ,
            SPLIT_CHECK_WEIGHT,
            GUEST_SEATS,
            HEARTBEAT_NS,
            PROVEN_BEAT_NS,
            RESCUE_NS,
            RESCUE_SOON_NS,
            RESCUE_AFTER_NS,
            PATROL_NS,
            HURRY_ROUNDS,
            PATROL_ROUNDS,
            WATCH_ITEMS_PER_THREAD,
            TIMED_CHUNK,
            READ_WORTH_NS,
            SETTLED_NS,
            SETTLED_MIN_ITEMS,
            SETTLED_READ_CHUNKS,
            LONG_CHUNK_NS,
            RAMP_NS,
            RAMP_GROWTH,
            MIN_SPLIT_NS,
            ASKED_SPLIT_NS,
            PROVEN_NS,
            STREAK_GAP_NS,
            LOOP_WAKE_NS,
            HOT_SPAN_ITEMS,
            HOT_MIN_REMAINING,
            EAGER_INHERITED_MAX,
            SEARCH_LEAD_NS,
            EARLY_WAKE_NS,
            EARLY_WAKE_SPAN_NS,
            WAKE_SHARE_NS,
            MAX_EARLY_WAKES,
            SPLIT_ALIGN_ITEMS,
            EAGER_LEAVES_PER_THREAD,
            SPINE_DEPTH,
            LEAF_SPAN_NS,
            BATCH_FAST_NS,
            BATCH_SLOW_NS,
            MAX_BATCH,
            MIN_ADVISED_BYTES,
        ];
        let source = include_str!("tuning.rs");
        // The rows of the table: | [`NAME`] | value unit ... |
        let rows: Vec<(&str, u128)> = source
            .lines()
            .filter_map(|line| line.strip_prefix("//! | [`"))
            .map(|row| {
                let (name, rest) = row.split_once("`]").unwrap();
                let value = rest.trim_start_matches([' ', '|']);
                let digits: String = value
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == ',')
                    .filter(char::is_ascii_digit)
                    .collect();
                (name, digits.parse().unwrap())
            })
            .collect();
        assert_eq!(
            rows, constants,
            "the table, in order, against the constants"
        );
        // And the list above holds every constant of this module, in order.
        let declared: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub(crate) const "))
            .map(|line| line.split_once(':').unwrap().0)
            .collect();
        let listed: Vec<&str> = constants.iter().map(|(name, _)| *name).collect();
        assert_eq!(declared, listed);
    }

    #[test]
    fn each_constant_says_whether_it_was_measured_or_chosen() {
        let source = include_str!("tuning.rs");
        // The table's last column, by constant.
        let table: Vec<(&str, &str)> = source
            .lines()
            .filter_map(|line| line.strip_prefix("//! | [`"))
            .map(|row| {
                let (name, rest) = row.split_once("`]").unwrap();
                let origin = rest.trim_end_matches(" |").rsplit("| ").next().unwrap();
                (name, origin)
            })
            .collect();
        // The last doc line above each constant.
        let lines: Vec<&str> = source.lines().collect();
        let docs: Vec<(&str, &str)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, line)| {
                let name = line.strip_prefix("pub(crate) const ")?.split_once(':')?.0;
                let last = lines[i - 1].strip_prefix("/// ").unwrap_or("");
                let origin = if last.starts_with("Measured: ") {
                    "measured"
                } else if last.starts_with("Chosen: ") {
                    "chosen"
                } else {
                    panic!("{name}: the last doc line says neither `Measured:` nor `Chosen:`")
                };
                Some((name, origin))
            })
            .collect();
        assert_eq!(table, docs, "the table's origins against the doc comments");
    }

    #[test]
    fn relations_the_code_relies_on_hold() {
        // The pacer's bars, from the most to the least work left.
        const { assert!(EARLY_WAKE_NS > 2 * MIN_SPLIT_NS) };
        const { assert!(MIN_SPLIT_NS > LOOP_WAKE_NS && LOOP_WAKE_NS > ASKED_SPLIT_NS) };
        // Chunks: the settled length is below the longest, readings within a chunk's ramp.
        const { assert!(2 * SETTLED_NS < LONG_CHUNK_NS / 2) };
        const { assert!(READ_WORTH_NS < RAMP_NS && RAMP_NS < SETTLED_NS) };
        const { assert!(LEAF_SPAN_NS < EARLY_WAKE_SPAN_NS) };
        const { assert!(EAGER_LEAVES_PER_THREAD.is_power_of_two()) };
        const { assert!(SPLIT_ALIGN_ITEMS.is_power_of_two()) };
        const { assert!(RECORD_WINDOW <= MAX_FRAMES) };
        const { assert!(GUEST_SEATS <= 64) };
        const { assert!(SETTLED_READ_CHUNKS * SPLIT_CHECK_WEIGHT == JOINS_PER_CLOCK_READ) };
        const { assert!(RESCUE_SOON_NS < RESCUE_NS && RESCUE_NS < PATROL_NS) };
        const { assert!(BATCH_FAST_NS < BATCH_SLOW_NS) };
    }
}
