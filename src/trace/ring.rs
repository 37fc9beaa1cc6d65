//! Recording: one ring of events per thread, the session word, and collecting the rings.
//!
//! The protocol (its memory-ordering argument is in `src/scheduler/README.md`, "Tracing"):
//! - `SESSION` is 0 while nothing records, else the id of the current session. A hook loads
//!   it (Acquire) and returns at once on 0.
//! - Each thread that records claims a [`Ring`] once (under the `RINGS` lock, which
//!   allocates: the first event of a thread in a process, never again while it lives), and
//!   only that thread writes it (single producer).
//! - A ring's `state` packs the session its events belong to and how many there are. The
//!   writer writes slot `len`, then stores `(session, len + 1)` with Release; a collector
//!   loads `state` with Acquire and reads the slots below `len` of a ring of its session.
//!   A writer that sees a new session in `SESSION` starts its ring over (len 0).
//! - A full ring drops new events (it never overwrites): the collector may be reading the
//!   old ones. Drops are counted per ring and reported in the `Trace`.
//! - Sessions never overlap: `record` holds `SESSION_LOCK` from starting a session to the
//!   end of its collection, and a new session's id is stored (Release) only after the
//!   previous collection let go of the lock, so a writer that starts its ring over for the
//!   new session (having loaded its id with Acquire) cannot race with the old collection's
//!   reads.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::ptr;
// The process-wide words are std's (a loom atomic cannot be a static); a ring's own words and
// slots go through the shim, so that the loom model checks the ring's protocol.
use std::sync::atomic::AtomicU64 as StdAtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::sync::{AtomicBool, AtomicU64, Ordering, UnsafeCell};

use super::{Event, Kind, ThreadEvents};
use crate::sync::{ns_in, ticks};

/// Events a ring holds: 65,536 of 32 bytes, 2 MiB per thread that recorded.
pub(crate) const RING_EVENTS: usize = 1 << 16;

/// One recorded event, as a hook wrote it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawEvent {
    pub(crate) ticks: u64,
    pub(crate) a: u64,
    pub(crate) b: u64,
    pub(crate) kind: Kind,
}

/// The id of the session now recording; 0 when none. Every hook loads it, so it has a cache
/// line of its own (and the next, which some parts prefetch in pairs): a word that another
/// thread writes often, laid out beside it, would make each hook's load a miss. It is written
/// only when a session starts and ends.
static SESSION: Alone = Alone(StdAtomicU64::new(0));

/// A word alone on its 128 bytes.
#[repr(align(128))]
struct Alone(StdAtomicU64);

/// The last session id handed out. Written only under `SESSION_LOCK`: a load and a store, no
/// read-modify-write.
static LAST_SESSION: StdAtomicU64 = StdAtomicU64::new(0);
/// Held by the one session that records, from its start to the end of its collection.
static SESSION_LOCK: Mutex<()> = Mutex::new(());
/// Every ring claimed so far, in the order they were first claimed, with its owner's name.
static RINGS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// A ring in `RINGS`, with the name of the thread that claimed it last: the name lives under
/// the list's lock, which a collection holds anyway, so reading it takes no lock of its own.
struct Entry {
    ring: Arc<Ring>,
    name: Arc<str>,
}

/// One thread's events.
pub(crate) struct Ring {
    /// `session << 32 | len`: whose events the first `len` slots hold.
    state: AtomicU64,
    /// Events dropped in the state's session because the ring was full.
    drops: AtomicU64,
    /// Whether a live thread owns the ring; one that exited leaves it to the next claim.
    owned: AtomicBool,
    /// Its index in `RINGS`: the thread's track in the trace.
    pub(crate) index: usize,
    /// Whether a pool's worker owns it: its track shows in every trace, events or none.
    worker: AtomicBool,
    /// How many slots the ring gets at its first event.
    capacity: usize,
    /// The slots, allocated by the owner at its first event (a worker claims its ring when it
    /// starts, and costs no memory until it records). Set before the first Release store of
    /// `state`, which a collector acquires before it looks.
    slots: OnceLock<Box<[UnsafeCell<MaybeUninit<RawEvent>>]>>,
}

// SAFETY: the slots are written only by the owning thread and read by a collector only below
// the published length (module docs); the rest is atomics and a mutex.
unsafe impl Sync for Ring {}
// SAFETY: as above; a ring holds no thread-bound data.
unsafe impl Send for Ring {}

const LEN_MASK: u64 = (1 << 32) - 1;

impl Ring {
    fn new(index: usize, capacity: usize) -> Ring {
        Ring {
            state: AtomicU64::new(0),
            drops: AtomicU64::new(0),
            owned: AtomicBool::new(true),
            index,
            worker: AtomicBool::new(false),
            capacity,
            slots: OnceLock::new(),
        }
    }

    /// Owner: appends one event of `session`.
    fn push(&self, session: u64, event: RawEvent) {
        let state = self.state.load(Ordering::Relaxed);
        let mut len = (state & LEN_MASK) as usize;
        if state >> 32 != session {
            len = 0;
            self.drops.store(0, Ordering::Relaxed);
        }
        let slots = self.slots.get_or_init(|| {
            (0..self.capacity)
                .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
                .collect()
        });
        if len == slots.len() {
            self.drops
                .store(self.drops.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            // Published with the state below, unchanged.
        } else {
            // SAFETY: only the owner writes slots, and no collector reads slot `len` or above
            // of this session (module docs); the previous session's collector is done.
            slots[len].with_mut(|slot| unsafe { (*slot).write(event) });
            len += 1;
        }
        self.state
            .store(session << 32 | len as u64, Ordering::Release);
    }

    /// Owner: the reading of its last event of `session`, if it has one.
    fn last_ticks(&self, session: u64) -> Option<u64> {
        // The owner's own store: nothing to synchronise with.
        let state = self.state.load(Ordering::Relaxed);
        let len = (state & LEN_MASK) as usize;
        if state >> 32 != session || len == 0 {
            return None;
        }
        let slots = self.slots.get()?;
        // SAFETY: the owner wrote slot `len - 1` in this session (a collector only reads it).
        Some(slots[len - 1].with(|slot| unsafe { (*slot).assume_init_ref() }.ticks))
    }

    /// Collector: the events of `session` published so far, and the drops.
    #[cfg(test)]
    fn collect(&self, session: u64) -> (Vec<RawEvent>, u64) {
        self.collect_map(session, Some)
    }

    /// Collector: the events of `session` published so far that `keep` keeps, as it turns
    /// them, and the drops.
    fn collect_map<T>(
        &self,
        session: u64,
        mut keep: impl FnMut(RawEvent) -> Option<T>,
    ) -> (Vec<T>, u64) {
        let state = self.state.load(Ordering::Acquire);
        if state >> 32 != session {
            return (Vec::new(), 0);
        }
        let len = (state & LEN_MASK) as usize;
        let Some(slots) = self.slots.get() else {
            return (Vec::new(), 0);
        };
        // One allocation of the most it can take (a filtered iterator would grow it in steps).
        let mut events = Vec::with_capacity(len);
        for slot in &slots[..len] {
            // SAFETY: slots below the published length were written before its Release
            // store, which our Acquire load saw; the owner does not write them again in this
            // session.
            let event = slot.with(|slot| unsafe { (*slot).assume_init() });
            if let Some(kept) = keep(event) {
                events.push(kept);
            }
        }
        (events, self.drops.load(Ordering::Relaxed))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The calling thread's claim on a ring; gives it back when the thread exits.
struct Claim(Arc<Ring>);

impl Drop for Claim {
    fn drop(&mut self) {
        // The hook's fast path first: an event later in this thread's teardown (another
        // thread-local's destructor) finds no ring, and records nothing.
        RING.with(|ring| ring.set(ptr::null()));
        self.0.owned.store(false, Ordering::Release);
    }
}

std::thread_local! {
    static CLAIM: std::cell::UnsafeCell<Option<Claim>> = const { std::cell::UnsafeCell::new(None) };
    /// The claimed ring, once its slots exist: the hook's fast path. A thread-local without a
    /// destructor is a plain access (no check of whether it was set up or torn down); the
    /// claim's drop clears it before giving the ring back, and `RINGS` keeps every ring alive
    /// for the process's life, so a non-null pointer is this thread's ring.
    static RING: Cell<*const Ring> = const { Cell::new(ptr::null()) };
    /// Set while this thread runs `record`'s closure: a nested `record` records a window of
    /// the session instead of starting one.
    static RECORDING_HERE: Cell<bool> = const { Cell::new(false) };
}

/// The hook's path while recording: out of line, so that the hook itself stays a load and a
/// branch. A clock reading, a thread-local load, and the ring's append.
#[cold]
#[inline(never)]
pub(crate) fn emit_slow(session: u64, kind: Kind, a: u64, b: u64) {
    let ticks = ticks();
    push_here(session, RawEvent { ticks, a, b, kind });
}

/// [`emit_slow`] at a reading the caller took.
#[cold]
#[inline(never)]
pub(crate) fn emit_at_slow(session: u64, kind: Kind, ticks: u64, a: u64) {
    push_here(
        session,
        RawEvent {
            ticks,
            a,
            b: 0,
            kind,
        },
    );
}

/// [`emit_slow`] that returns its reading (see `trace::emit_reading`).
#[cold]
#[inline(never)]
pub(crate) fn emit_reading_slow(session: u64, kind: Kind, a: u64) -> u64 {
    let ticks = ticks();
    push_here(
        session,
        RawEvent {
            ticks,
            a,
            b: 0,
            kind,
        },
    );
    ticks
}

/// An event at the reading of this thread's last event of the session if `follows` (the
/// caller says nothing but its own bookkeeping came between), else at a reading of its own
/// (as also when the thread has no event of the session). A leaf of the indexed driver
/// after the first of its loop begins so, at the previous leaf's end (or at whatever event
/// came after it): one reading per boundary between two leaves, and the span between them
/// (the pacer's decision, the chunk's split) counts as the later leaf's. Never before the
/// thread's last event, so a thread's events stay in order.
#[cold]
#[inline(never)]
pub(crate) fn emit_after_slow(session: u64, kind: Kind, follows: bool) {
    let ring = RING.with(Cell::get);
    let last = if !follows || ring.is_null() {
        None
    } else {
        // SAFETY: as in `push_here`: a non-null `RING` is this thread's own live ring.
        unsafe { &*ring }.last_ticks(session)
    };
    let ticks = last.unwrap_or_else(ticks);
    push_here(
        session,
        RawEvent {
            ticks,
            a: 0,
            b: 0,
            kind,
        },
    );
}

/// Appends `event` of `session` to the calling thread's ring (claimed at its first event).
#[inline(always)]
fn push_here(session: u64, event: RawEvent) {
    let ring = RING.with(Cell::get);
    if ring.is_null() {
        push_first(session, event);
    } else {
        // SAFETY: a non-null `RING` is the ring this thread claimed and still owns (the claim
        // clears it before giving the ring back), kept alive by `RINGS`.
        unsafe { &*ring }.push(session, event);
    }
}

/// [`push_here`] for a thread without a ring with slots: it claims one (or allocates the
/// slots of the one it claimed when it started as a worker), then sets the fast path.
#[cold]
#[inline(never)]
fn push_first(session: u64, event: RawEvent) {
    // A thread being torn down (its claim gone) records nothing.
    let _ = CLAIM.try_with(|claim| {
        // SAFETY: the cell is this thread's own and not borrowed across this call (nothing
        // below re-enters `push_first`).
        let claim = unsafe { &mut *claim.get() };
        let ring = match claim {
            Some(Claim(ring)) => ring,
            None => &claim.insert(Claim(claim_ring())).0,
        };
        ring.push(session, event);
        RING.with(|fast| fast.set(Arc::as_ptr(ring)));
    });
}

/// A pool's worker starts: it claims its ring now, so that its track shows in a trace even
/// if it records nothing (asleep, or looking for work, all along).
pub(crate) fn worker_started() {
    let _ = CLAIM.try_with(|claim| {
        // SAFETY: the cell is this thread's own and not borrowed across this call.
        let claim = unsafe { &mut *claim.get() };
        let ring = match claim {
            Some(Claim(ring)) => ring,
            None => &claim.insert(Claim(claim_ring())).0,
        };
        let name = thread_name();
        lock(&RINGS)[ring.index].name = name;
        ring.worker.store(true, Ordering::Relaxed);
    });
}

/// The calling thread's name, or its seat's, or its id.
fn thread_name() -> Arc<str> {
    std::thread::current()
        .name()
        .map(Arc::from)
        .or_else(|| crate::current_thread_index().map(|i| format!("worker {i}").into()))
        .unwrap_or_else(|| format!("{:?}", std::thread::current().id()).into())
}

/// Claims a ring for the calling thread: one a thread that exited left, whose events no
/// session collecting now needs, or a new one.
fn claim_ring() -> Arc<Ring> {
    let name = thread_name();
    let session = SESSION.0.load(Ordering::Acquire);
    let mut rings = lock(&RINGS);
    for entry in rings.iter_mut() {
        let ring = &entry.ring;
        if !ring.owned.load(Ordering::Acquire)
            && ring.state.load(Ordering::Relaxed) >> 32 != session
        {
            ring.owned.store(true, Ordering::Relaxed);
            ring.worker.store(false, Ordering::Relaxed);
            entry.name = name;
            return ring.clone();
        }
    }
    let ring = Arc::new(Ring::new(rings.len(), RING_EVENTS));
    rings.push(Entry {
        ring: ring.clone(),
        name,
    });
    ring
}

/// The current session id, for the hook.
#[inline(always)]
pub(crate) fn session() -> u64 {
    SESSION.0.load(Ordering::Acquire)
}

/// Collects every ring's events of `session`, in nanoseconds since `start`, by track: those
/// of the whole session, or (`window`: the reading at its end) only those from `start` to it,
/// and then only the threads with such events (or drops). A live worker's track shows in a
/// whole session's trace, events or none.
///
/// Holds `RINGS` throughout (a thread's first event waits for it): a clone of the list would
/// cost an allocation and a count per ring on every `record`.
pub(crate) fn collect(session: u64, start: u64, window: Option<u64>) -> Vec<ThreadEvents> {
    let rings = lock(&RINGS);
    let mut threads = Vec::with_capacity(rings.len());
    for Entry { ring, name } in rings.iter() {
        let (events, dropped) = ring.collect_map(session, |e| {
            let inside = window.is_none_or(|end| {
                e.ticks.wrapping_sub(start) as i64 >= 0 && end.wrapping_sub(e.ticks) as i64 >= 0
            });
            inside.then(|| Event {
                time_ns: ns_in(e.ticks.saturating_sub(start)),
                kind: e.kind,
                a: e.a,
                b: e.b,
            })
        });
        let shown = !events.is_empty()
            || dropped > 0
            || (window.is_none()
                && ring.worker.load(Ordering::Relaxed)
                && ring.owned.load(Ordering::Relaxed));
        if shown {
            threads.push(ThreadEvents {
                name: name.clone(),
                track: ring.index,
                events,
                dropped,
            });
        }
    }
    threads
}

/// A recording in progress (`record`'s or the process-wide one's).
pub(crate) struct Session {
    id: u64,
    start: u64,
    /// Whether this recording started the session (else it is a window of an open one).
    owns: bool,
    _lock: Option<MutexGuard<'static, ()>>,
}

impl Session {
    /// Starts recording: a session of its own, or a window of the one open (the process-wide
    /// one, or an enclosing `record` on this thread).
    pub(crate) fn start() -> Session {
        let open = SESSION.0.load(Ordering::Acquire);
        if open != 0 && (RECORDING_HERE.with(Cell::get) || open == process_session()) {
            return Session {
                id: open,
                start: ticks(),
                owns: false,
                _lock: None,
            };
        }
        let guard = lock(&SESSION_LOCK);
        let id = next_session_id();
        let start = ticks();
        SESSION.0.store(id, Ordering::Release);
        Session {
            id,
            start,
            owns: true,
            _lock: Some(guard),
        }
    }

    /// Starts the process-wide session (`BLITZ_TRACE`): it never ends, and holds the lock
    /// forever (so every `record` is a window of it).
    pub(crate) fn start_process_wide() -> (u64, u64) {
        let guard = lock(&SESSION_LOCK);
        std::mem::forget(guard);
        let id = next_session_id();
        let start = ticks();
        SESSION.0.store(id, Ordering::Release);
        (id, start)
    }

    /// Runs `f` as this session's work, between its `RecordBegin` and (at [`Session::finish`])
    /// its `RecordEnd`. They carry the session's own readings of the clock, its start and end:
    /// two readings fewer per `record`.
    pub(crate) fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                RECORDING_HERE.with(|here| here.set(self.0));
            }
        }
        let _reset = Reset(RECORDING_HERE.with(|here| here.replace(true)));
        push_here(self.id, self.marker(Kind::RecordBegin, self.start));
        f()
    }

    fn marker(&self, kind: Kind, ticks: u64) -> RawEvent {
        RawEvent {
            ticks,
            a: 0,
            b: 0,
            kind,
        }
    }

    /// Stops recording (if this session owns it) and collects the events between its start
    /// and now: every thread's events, and the recording's length in nanoseconds.
    pub(crate) fn finish(self) -> (Vec<ThreadEvents>, u64) {
        let end = ticks();
        push_here(self.id, self.marker(Kind::RecordEnd, end));
        if self.owns {
            SESSION.0.store(0, Ordering::Release);
        }
        let window = (!self.owns).then_some(end);
        let threads = collect(self.id, self.start, window);
        (threads, ns_in(end.saturating_sub(self.start)))
        // The lock goes with `self`, after the collection.
    }
}

/// A new session's id; the caller holds `SESSION_LOCK`.
fn next_session_id() -> u64 {
    let id = LAST_SESSION.load(Ordering::Relaxed) + 1;
    LAST_SESSION.store(id, Ordering::Relaxed);
    id
}

/// The process-wide session's id, 0 if none.
fn process_session() -> u64 {
    super::env::session_id()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn event(a: u64) -> RawEvent {
        RawEvent {
            ticks: a,
            a,
            b: 0,
            kind: Kind::Split,
        }
    }

    #[test]
    fn a_full_ring_drops_the_newest_and_counts_them() {
        let ring = Ring::new(0, 4);
        for a in 0..7 {
            ring.push(1, event(a));
        }
        let (events, drops) = ring.collect(1);
        assert_eq!(events.iter().map(|e| e.a).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(drops, 3);
        // Another session's collector sees nothing of this one.
        assert_eq!(ring.collect(2).0.len(), 0);
        // A new session starts the ring over, drops included.
        ring.push(2, event(9));
        let (events, drops) = ring.collect(2);
        assert_eq!((events.len(), events[0].a, drops), (1, 9, 0));
        assert_eq!(ring.collect(1).0.len(), 0);
    }
}

/// The ring's protocol under loom: a collector running beside the writer sees a prefix of
/// the events, each whole, and the drops of its session only.
#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::Arc;

    #[test]
    fn collector_beside_writer_sees_whole_events() {
        loom::model(|| {
            let ring = Arc::new(Ring::new(0, 2));
            let writer = {
                let ring = ring.clone();
                loom::thread::spawn(move || {
                    for a in 1..=3 {
                        ring.push(
                            1,
                            RawEvent {
                                ticks: a,
                                a,
                                b: a,
                                kind: Kind::Split,
                            },
                        );
                    }
                })
            };
            let (events, drops) = ring.collect(1);
            for (i, e) in events.iter().enumerate() {
                assert_eq!((e.a, e.b), (i as u64 + 1, i as u64 + 1));
            }
            assert!(events.len() <= 2 && drops <= 1);
            writer.join().unwrap();
            let (events, drops) = ring.collect(1);
            assert_eq!((events.len(), drops), (2, 1));
        });
    }
}
