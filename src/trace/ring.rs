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
// The process-wide words are std's (a loom atomic cannot be a static); a ring's own words and
// slots go through the shim, so that the loom model checks the ring's protocol.
use std::sync::atomic::AtomicU64 as StdAtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::sync::{AtomicBool, AtomicU64, Ordering, UnsafeCell};

use super::Kind;
use crate::sync::ticks;

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

/// The id of the session now recording; 0 when none.
static SESSION: StdAtomicU64 = StdAtomicU64::new(0);
/// The last session id handed out.
static LAST_SESSION: StdAtomicU64 = StdAtomicU64::new(0);
/// Held by the one session that records, from its start to the end of its collection.
static SESSION_LOCK: Mutex<()> = Mutex::new(());
/// Every ring claimed so far, in the order they were first claimed.
static RINGS: Mutex<Vec<Arc<Ring>>> = Mutex::new(Vec::new());

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
    /// The owning thread's name, set at each claim.
    name: Mutex<String>,
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
    fn new(index: usize, name: String, capacity: usize) -> Ring {
        Ring {
            state: AtomicU64::new(0),
            drops: AtomicU64::new(0),
            owned: AtomicBool::new(true),
            index,
            name: Mutex::new(name),
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

    /// Collector: the events of `session` published so far, and the drops.
    fn collect(&self, session: u64) -> (Vec<RawEvent>, u64) {
        let state = self.state.load(Ordering::Acquire);
        if state >> 32 != session {
            return (Vec::new(), 0);
        }
        let len = (state & LEN_MASK) as usize;
        let Some(slots) = self.slots.get() else {
            return (Vec::new(), 0);
        };
        let events = slots[..len]
            .iter()
            // SAFETY: slots below the published length were written before its Release
            // store, which our Acquire load saw; the owner does not write them again in this
            // session.
            .map(|slot| slot.with(|slot| unsafe { (*slot).assume_init() }))
            .collect();
        (events, self.drops.load(Ordering::Relaxed))
    }

    pub(crate) fn name(&self) -> String {
        lock(&self.name).clone()
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
        self.0.owned.store(false, Ordering::Release);
    }
}

std::thread_local! {
    static CLAIM: std::cell::UnsafeCell<Option<Claim>> = const { std::cell::UnsafeCell::new(None) };
    /// Set while this thread runs `record`'s closure: a nested `record` records a window of
    /// the session instead of starting one.
    static RECORDING_HERE: Cell<bool> = const { Cell::new(false) };
}

/// The hook's path while recording: out of line, so that the hook itself stays a load and a
/// branch.
#[cold]
#[inline(never)]
pub(crate) fn emit_slow(session: u64, kind: Kind, a: u64, b: u64) {
    let event = RawEvent {
        ticks: ticks(),
        a,
        b,
        kind,
    };
    // A thread being torn down (its thread-locals gone) records nothing.
    let _ = CLAIM.try_with(|claim| {
        // SAFETY: the cell is this thread's own and not borrowed across this call (nothing
        // below re-enters `emit_slow`).
        let claim = unsafe { &mut *claim.get() };
        let ring = match claim {
            Some(Claim(ring)) => ring,
            None => &claim.insert(Claim(claim_ring())).0,
        };
        ring.push(session, event);
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
        *lock(&ring.name) = thread_name();
        ring.worker.store(true, Ordering::Relaxed);
    });
}

/// The calling thread's name, or its seat's, or its id.
fn thread_name() -> String {
    std::thread::current()
        .name()
        .map(str::to_owned)
        .or_else(|| crate::current_thread_index().map(|i| format!("worker {i}")))
        .unwrap_or_else(|| format!("{:?}", std::thread::current().id()))
}

/// Claims a ring for the calling thread: one a thread that exited left, whose events no
/// session collecting now needs, or a new one.
fn claim_ring() -> Arc<Ring> {
    let name = thread_name();
    let session = SESSION.load(Ordering::Acquire);
    let mut rings = lock(&RINGS);
    for ring in rings.iter() {
        if !ring.owned.load(Ordering::Acquire)
            && ring.state.load(Ordering::Relaxed) >> 32 != session
        {
            ring.owned.store(true, Ordering::Relaxed);
            ring.worker.store(false, Ordering::Relaxed);
            *lock(&ring.name) = name;
            return ring.clone();
        }
    }
    let ring = Arc::new(Ring::new(rings.len(), name, RING_EVENTS));
    rings.push(ring.clone());
    ring
}

/// The current session id, for the hook.
#[inline(always)]
pub(crate) fn session() -> u64 {
    SESSION.load(Ordering::Acquire)
}

/// What a collection returns: per ring (index, name), its events in order, and its drops.
pub(crate) struct Collected {
    pub(crate) threads: Vec<(usize, String, Vec<RawEvent>, u64)>,
}

/// Collects every ring's events of `session`.
fn collect(session: u64) -> Collected {
    let rings: Vec<Arc<Ring>> = lock(&RINGS).clone();
    let threads = rings
        .iter()
        .filter_map(|ring| {
            let (events, drops) = ring.collect(session);
            let live_worker =
                ring.worker.load(Ordering::Relaxed) && ring.owned.load(Ordering::Relaxed);
            (!events.is_empty() || drops > 0 || live_worker)
                .then(|| (ring.index, ring.name(), events, drops))
        })
        .collect();
    Collected { threads }
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
        let open = SESSION.load(Ordering::Acquire);
        if open != 0 && (RECORDING_HERE.with(Cell::get) || open == process_session()) {
            return Session {
                id: open,
                start: ticks(),
                owns: false,
                _lock: None,
            };
        }
        let guard = lock(&SESSION_LOCK);
        let id = LAST_SESSION.fetch_add(1, Ordering::Relaxed) + 1;
        let start = ticks();
        SESSION.store(id, Ordering::Release);
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
        let id = LAST_SESSION.fetch_add(1, Ordering::Relaxed) + 1;
        let start = ticks();
        SESSION.store(id, Ordering::Release);
        (id, start)
    }

    /// Runs `f` as this session's work.
    pub(crate) fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                RECORDING_HERE.with(|here| here.set(self.0));
            }
        }
        let _reset = Reset(RECORDING_HERE.with(|here| here.replace(true)));
        f()
    }

    /// Stops recording (if this session owns it) and collects the events between its start
    /// and now.
    pub(crate) fn finish(self) -> (Collected, u64, u64) {
        let end = ticks();
        if self.owns {
            SESSION.store(0, Ordering::Release);
        }
        let mut collected = collect(self.id);
        if !self.owns {
            for (_, _, events, _) in &mut collected.threads {
                events.retain(|e| {
                    e.ticks.wrapping_sub(self.start) as i64 >= 0
                        && end.wrapping_sub(e.ticks) as i64 >= 0
                });
            }
            collected
                .threads
                .retain(|(_, _, events, drops)| !events.is_empty() || *drops > 0);
        }
        (collected, self.start, end)
        // The lock goes with `self`, after the collection.
    }
}

/// Collects the process-wide session's events so far.
pub(crate) fn collect_process_wide(id: u64) -> Collected {
    collect(id)
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
        let ring = Ring::new(0, "t".into(), 4);
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
            let ring = Arc::new(Ring::new(0, "t".into(), 2));
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
