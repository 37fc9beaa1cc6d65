//! Recording where parallel time goes: a timeline of every thread's leaves, jobs, steals,
//! sleeps and wakes (the `trace` cargo feature).
//!
//! [`record`] runs a closure and returns its result with a [`Trace`] of everything the
//! process's pools did meanwhile. A trace gives:
//! - [`Trace::summary`]: per-thread busy, idle and asleep time, steals, leaves by size, the
//!   largest leaf, the longest wait for work, and a one-line verdict ("one item took 80% of
//!   the time: split it");
//! - [`Trace::to_chrome_json`]: the Chrome trace-event format, which
//!   [Perfetto's UI](https://ui.perfetto.dev) and `chrome://tracing` open: one track per
//!   thread, slices for leaves and jobs, flow arrows for steals and wakes;
//! - [`Trace::to_svg`]: a self-contained SVG timeline (a row per thread, colours by
//!   activity, idle time visible), for a README or a bug report.
//!
//! ```
//! use blitz_par::prelude::*;
//!
//! let (sum, trace) = blitz_par::trace::record(|| (0..100_000u64).into_par_iter().sum::<u64>());
//! assert_eq!(sum, 4_999_950_000);
//! println!("{}", trace.summary());
//! ```
//!
//! The process-wide form needs no code: run a program built with the feature with
//! `BLITZ_TRACE=path.json`, and the trace is written there (and an SVG beside it, `path.svg`)
//! when a pool is dropped and when the process exits (on Linux). A value that is empty, names
//! a directory, or cannot be created is reported on standard error, and nothing is recorded.
//!
//! # What it costs
//!
//! Without the feature, nothing: the hooks expand to no code. With it, each hook costs one
//! load and a branch while nothing records. While recording, each event is a 32-byte write
//! into the recording thread's own ring (no lock, no allocation after a thread's first event)
//! and, for most, a clock reading. Leaves take fewer: a leaf after the first of its loop
//! begins at the previous leaf's end (so the driver's work between two leaves of a loop
//! counts as the later leaf's), and a leaf's end shares the driver's own reading when it takes
//! one there. Each [`record`] adds a fixed cost: starting, collecting every thread's events,
//! and the trace's two allocations (the list of threads, and each thread's events; names are
//! shared), in instructions about half a 1,000-item sum's: record a stretch of work rather
//! than each short call. A ring holds 65,536 events
//! (2 MiB per thread that recorded); when it is full, that thread's *later* events are
//! dropped, never its earlier ones, and [`ThreadEvents::dropped`] counts them.
//!
//! Recording is process-wide: a trace holds the events of every thread of every pool during
//! the closure, not only those of the closure's work.

pub(crate) mod env;
mod output;
pub(crate) mod ring;
mod summary;

pub use summary::{Summary, ThreadSummary};

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// What an event says. `a` and `b` of an [`Event`] carry its details, as each variant says.
///
/// ```
/// use blitz_par::prelude::*;
/// use blitz_par::trace::EventKind;
///
/// let ((), trace) = blitz_par::trace::record(|| (0..64).into_par_iter().with_max_len(8).for_each(|_| ()));
/// let items: u64 = trace
///     .threads()
///     .iter()
///     .flat_map(|t| &t.events)
///     .filter(|e| e.kind == EventKind::LeafEnd)
///     .map(|e| e.a)
///     .sum();
/// assert_eq!(items, 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum EventKind {
    /// A leaf of a parallel iterator's drive starts: a chunk of items folded sequentially.
    LeafBegin,
    /// The leaf ends; `a`: its item count.
    LeafEnd,
    /// A drive splits its items in halves; `a`: how many items it split.
    Split,
    /// A thread starts running a job it took from a queue; `a`: the job's address.
    JobBegin,
    /// The job ends; `a`: the job's address.
    JobEnd,
    /// A join frame is promoted onto its thread's deque, where others can steal it; `a`: the
    /// job's address.
    Promote,
    /// A thread steals a job; `a`: the job's address, `b`: the victim's seat index.
    Steal,
    /// A job is pushed onto a pool's injector (work from outside the pool); `a`: the job.
    InjectPush,
    /// A job is taken off the injector; `a`: the job.
    InjectPop,
    /// A thread goes to sleep; `a`: the address of the word it sleeps on.
    SleepBegin,
    /// It wakes; `a`: the word.
    SleepEnd,
    /// A thread wakes a sleeping one; `a`: the sleeper's word (matches its `SleepEnd`).
    Wake,
    /// A thread starts waiting for a latch (running other jobs meanwhile).
    WaitBegin,
    /// The wait ends.
    WaitEnd,
    /// A scope spawns a job; `a`: the job.
    ScopeSpawn,
    /// `spawn_future` hands its closure to the pool; `a`: the task's address.
    FutureHandOver,
    /// A `SpawnFuture` dropped before its closure started cancels it; `a`: the task.
    FutureCancel,
    /// The watch hands the rest of a loop stuck in its first chunk to the pool; `a`: the
    /// job that carries the rest.
    Rescue,
    /// A sort enters a phase; `a`: the phase (see [`sort_phase_name`]), `b`: its length.
    SortBegin,
    /// The phase ends; `a`: the phase.
    SortEnd,
    /// [`record`]'s closure starts.
    RecordBegin,
    /// [`record`]'s closure ends.
    RecordEnd,
}

pub(crate) use EventKind as Kind;

/// The names of the sorts' phases, by the number `SortBegin` carries.
const SORT_PHASES: &[&str] = &["sort", "partition", "leaf sort", "merge"];

/// Sort phases, as the hooks number them: a whole `par_sort*` call (radix and string sorts
/// show as this phase alone), a quicksort's partition, a merge sort's leaf sort and
/// sequential merge.
pub(crate) mod phase {
    pub(crate) const SORT: u64 = 0;
    pub(crate) const PARTITION: u64 = 1;
    pub(crate) const LEAF_SORT: u64 = 2;
    pub(crate) const MERGE: u64 = 3;
}

/// The name of the sort phase numbered `phase` in a `SortBegin` event.
///
/// ```
/// assert_eq!(blitz_par::trace::sort_phase_name(0), "sort");
/// assert_eq!(blitz_par::trace::sort_phase_name(99), "sort phase");
/// ```
pub fn sort_phase_name(phase: u64) -> &'static str {
    SORT_PHASES
        .get(phase as usize)
        .copied()
        .unwrap_or("sort phase")
}

/// The hook's body (see `hook.rs`): one load and a branch while nothing records.
#[inline(always)]
pub(crate) fn emit(kind: Kind, a: u64, b: u64) {
    let session = ring::session();
    if session != 0 {
        ring::emit_slow(session, kind, a, b);
    }
}

/// [`emit`] at the clock reading `ticks`, which the caller took anyway.
#[inline(always)]
pub(crate) fn emit_at(kind: Kind, ticks: u64, a: u64) {
    let session = ring::session();
    if session != 0 {
        ring::emit_at_slow(session, kind, ticks, a);
    }
}

/// [`emit`] at the reading of this thread's last event if `follows` (see
/// `ring::emit_after_slow`).
#[inline(always)]
pub(crate) fn emit_after(kind: Kind, follows: bool) {
    let session = ring::session();
    if session != 0 {
        ring::emit_after_slow(session, kind, follows);
    }
}

/// [`emit`] that returns the clock reading the event carries, for the caller to use as its
/// own (the indexed driver's pacer, right after a leaf's end); 0 when nothing records.
#[inline(always)]
pub(crate) fn emit_reading(kind: Kind, a: u64) -> u64 {
    let session = ring::session();
    if session != 0 {
        ring::emit_reading_slow(session, kind, a)
    } else {
        0
    }
}

/// One recorded event.
///
/// ```
/// use blitz_par::trace::EventKind;
///
/// let ((), trace) = blitz_par::trace::record(|| {});
/// let main = trace.threads().iter().find(|t| t.events.iter().any(|e| e.kind == EventKind::RecordBegin));
/// assert!(main.is_some());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Nanoseconds since the recording started, from the crate's calibrated clock.
    pub time_ns: u64,
    /// What happened.
    pub kind: EventKind,
    /// The first detail (see [`EventKind`]).
    pub a: u64,
    /// The second detail (see [`EventKind`]).
    pub b: u64,
}

/// The events of one thread, in the order it recorded them.
///
/// ```
/// let ((), trace) = blitz_par::trace::record(|| {});
/// for thread in trace.threads() {
///     assert!(thread.events.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
///     assert_eq!(thread.dropped, 0);
/// }
/// ```
#[derive(Clone, Debug)]
pub struct ThreadEvents {
    /// The thread's name (its `std::thread` name, or its id), shared with the recorder's
    /// list of threads: a trace copies no name.
    pub name: Arc<str>,
    /// The track's number: stable for a thread within a process.
    pub track: usize,
    /// Its events, in order.
    pub events: Vec<Event>,
    /// Events dropped because its ring was full: always the latest ones.
    pub dropped: u64,
}

/// A recording: every thread's events between its start and end. Made by [`record`].
///
/// ```
/// use blitz_par::prelude::*;
///
/// let (v, trace) = blitz_par::trace::record(|| (0..1000).into_par_iter().map(|x| x * 2).collect::<Vec<i32>>());
/// assert_eq!(v.len(), 1000);
/// assert!(trace.duration_ns() > 0);
/// let json = trace.to_chrome_json();
/// assert!(json.starts_with('{'));
/// let svg = trace.to_svg();
/// assert!(svg.starts_with("<svg"));
/// ```
#[derive(Clone, Debug)]
pub struct Trace {
    threads: Vec<ThreadEvents>,
    duration_ns: u64,
}

/// Runs `work` while recording what every pool does, and returns its result with the
/// [`Trace`].
///
/// Recordings do not overlap: a `record` on another thread waits for this one to end. A
/// `record` inside `work` (or one while `BLITZ_TRACE` records the whole process) returns the
/// events of its own stretch of time.
///
/// ```
/// use blitz_par::prelude::*;
///
/// let pool = blitz_par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (sum, trace) = blitz_par::trace::record(|| pool.install(|| (1..=100u32).into_par_iter().sum::<u32>()));
/// assert_eq!(sum, 5050);
/// let leaves: u64 = trace
///     .threads()
///     .iter()
///     .flat_map(|t| &t.events)
///     .filter(|e| e.kind == blitz_par::trace::EventKind::LeafEnd)
///     .map(|e| e.a)
///     .sum();
/// assert_eq!(leaves, 100);
/// ```
pub fn record<R>(work: impl FnOnce() -> R) -> (R, Trace) {
    env::init();
    let session = ring::Session::start();
    let result = session.run(work);
    let (threads, duration_ns) = session.finish();
    (result, Trace::from_threads(threads, duration_ns))
}

impl Trace {
    /// Builds a trace from events, as if recorded (for tools that load traces, and tests).
    ///
    /// ```
    /// use blitz_par::trace::{Event, EventKind, ThreadEvents, Trace};
    ///
    /// let leaf = |t, kind, a| Event { time_ns: t, kind, a, b: 0 };
    /// let trace = Trace::from_threads(
    ///     vec![ThreadEvents {
    ///         name: "main".into(),
    ///         track: 0,
    ///         events: vec![leaf(0, EventKind::LeafBegin, 0), leaf(900, EventKind::LeafEnd, 1)],
    ///         dropped: 0,
    ///     }],
    ///     1000,
    /// );
    /// assert_eq!(trace.summary().largest_leaf_ns, 900);
    /// ```
    pub fn from_threads(threads: Vec<ThreadEvents>, duration_ns: u64) -> Trace {
        Trace {
            threads,
            duration_ns,
        }
    }

    /// Every thread that recorded an event, by track.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// assert!(!trace.threads().is_empty());
    /// ```
    pub fn threads(&self) -> &[ThreadEvents] {
        &self.threads
    }

    /// How long the recording lasted, in nanoseconds.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| std::thread::sleep(std::time::Duration::from_millis(1)));
    /// assert!(trace.duration_ns() >= 500_000);
    /// ```
    pub fn duration_ns(&self) -> u64 {
        self.duration_ns
    }

    /// Events dropped because a thread's ring was full, over all threads.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// assert_eq!(trace.dropped(), 0);
    /// ```
    pub fn dropped(&self) -> u64 {
        self.threads.iter().map(|t| t.dropped).sum()
    }

    /// What the trace says: time per thread, steals, leaves, and a verdict.
    ///
    /// ```
    /// use blitz_par::prelude::*;
    ///
    /// let ((), trace) = blitz_par::trace::record(|| (0..1000).into_par_iter().for_each(|_| ()));
    /// let summary = trace.summary();
    /// assert!(!summary.verdict.is_empty());
    /// println!("{summary}");
    /// ```
    pub fn summary(&self) -> Summary {
        summary::summarize(self)
    }

    /// The trace in the Chrome trace-event format (JSON), for Perfetto's UI
    /// (<https://ui.perfetto.dev>) or `chrome://tracing`.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// assert!(trace.to_chrome_json().contains("\"traceEvents\""));
    /// ```
    pub fn to_chrome_json(&self) -> String {
        output::chrome_json(self)
    }

    /// Writes [`to_chrome_json`](Self::to_chrome_json) to `path`.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// let path = std::env::temp_dir().join("blitz-par-doc-trace.json");
    /// trace.write_chrome_json(&path).unwrap();
    /// # std::fs::remove_file(path).unwrap();
    /// ```
    pub fn write_chrome_json(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_chrome_json())
    }

    /// The trace as a self-contained SVG timeline: a row per thread, coloured by what it
    /// did (leaves, jobs, other work, idle, asleep), with the summary's verdict above.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// assert!(trace.to_svg().ends_with("</svg>\n"));
    /// ```
    pub fn to_svg(&self) -> String {
        output::svg(self)
    }

    /// Writes [`to_svg`](Self::to_svg) to `path`.
    ///
    /// ```
    /// let ((), trace) = blitz_par::trace::record(|| {});
    /// let path = std::env::temp_dir().join("blitz-par-doc-trace.svg");
    /// trace.write_svg(&path).unwrap();
    /// # std::fs::remove_file(path).unwrap();
    /// ```
    pub fn write_svg(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_svg())
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.summary(), f)
    }
}
