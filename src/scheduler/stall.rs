//! Debug builds only: the stall watchdog, which reports a join whose first closure seems
//! blocked while its second closure waits unpromoted (`README.md`, "A first closure that
//! blocks").
//!
//! Only the owner of a seat promotes its recorded frames, at its polls, so a join whose `a`
//! waits for its `b` (a channel, a barrier) never returns: rayon would run `b` on another
//! thread. Making `b` stealable without a poll costs every join (the README says what), so
//! debug builds make such a join visible instead. Each seat publishes two words: a count of
//! its polls, and the location of its oldest recorded frame that waits unpromoted (null when
//! none). A thread of its own, `blitz-par-stall`, started with the first registry, looks at
//! every seat of every live registry a few times per threshold; a seat whose oldest
//! unpromoted frame stayed the same, and whose poll count did not move, for the threshold
//! (`BLITZ_PAR_STALL_MS`, default 1,000 ms), while some worker of its pool sleeps or is idle,
//! or some thread asked that seat for work, is reported once to stderr with the join's
//! location. A long `a` that runs sequential code without any parallel call is reported too:
//! it does not poll either, and its `b` waits as long.
//!
//! The watchdog keeps a `Weak` of each registry and holds an `Arc` only while it looks at its
//! seats, so a pool's registry is freed as before, at times on this thread (when the pool was
//! dropped during a look).
//!
//! Release builds have none of this: the words, their stores on the join path, the locations
//! (`#[track_caller]` on `join` only under `debug_assertions`) and the thread. Nor have loom
//! builds (loom's atomics need a model, and the thread would run outside every model).

use super::registry::Registry;
use crate::sync::{AtomicPtr, AtomicU32, Mutex, Ordering};
use std::panic::Location;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// What a seat publishes for the stall watchdog; written by its owner only.
pub(crate) struct SeatStall {
    /// The seat's polls, counted (wrapping).
    polls: AtomicU32,
    /// The location of the seat's oldest recorded, unpromoted join frame, or null.
    site: AtomicPtr<Location<'static>>,
}

impl SeatStall {
    pub(crate) const fn new() -> SeatStall {
        SeatStall {
            polls: AtomicU32::new(0),
            site: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The owner polled (a join's split check, the iterator driver's).
    #[inline]
    pub(crate) fn polled(&self) {
        // Only the owner writes: a load and a store, no read-modify-write.
        let polls = self.polls.load(Ordering::Relaxed);
        self.polls.store(polls.wrapping_add(1), Ordering::Relaxed);
    }

    /// The owner's oldest unpromoted frame is now the one recorded at `site` (null: none).
    #[inline]
    pub(crate) fn set_site(&self, site: *const Location<'static>) {
        self.site.store(site.cast_mut(), Ordering::Relaxed);
    }
}

/// The default threshold, in milliseconds.
const DEFAULT_THRESHOLD_MS: u64 = 1000;

/// The threshold: `BLITZ_PAR_STALL_MS` (a whole number above 0) or the default, read once.
/// A test sets it small in a child process's environment (`tests/stall_watchdog.rs`).
fn threshold() -> Duration {
    static THRESHOLD: OnceLock<Duration> = OnceLock::new();
    *THRESHOLD.get_or_init(|| {
        let ms = std::env::var("BLITZ_PAR_STALL_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .unwrap_or(DEFAULT_THRESHOLD_MS);
        Duration::from_millis(ms)
    })
}

/// The registries to look at.
static REGISTRIES: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

static THREAD: OnceLock<()> = OnceLock::new();

/// A registry was built: watch its seats (and start the watchdog with the first).
pub(crate) fn register(registry: &Arc<Registry>) {
    if cfg!(miri) {
        return;
    }
    let mut registries = REGISTRIES.lock().unwrap_or_else(|e| e.into_inner());
    registries.retain(|r| r.strong_count() > 0);
    registries.push(Arc::downgrade(registry));
    drop(registries);
    THREAD.get_or_init(|| {
        // Not started (out of threads): nothing is watched. A small stack: it formats a line
        // at most, and a process near its address-space limit (`tests/thread_limits.rs`)
        // keeps its room for the pool's threads.
        let _ = std::thread::Builder::new()
            .name("blitz-par-stall".into())
            .stack_size(128 * 1024)
            .spawn(patrol);
    });
}

/// What the watchdog saw of one seat.
struct Seen {
    registry: *const Registry,
    index: usize,
    polls: u32,
    site: *const Location<'static>,
    since: Instant,
    reported: bool,
}

fn patrol() {
    let mut seen: Vec<Seen> = Vec::new();
    loop {
        let threshold = threshold();
        std::thread::sleep((threshold / 4).max(Duration::from_millis(5)));
        let registries: Vec<Arc<Registry>> = REGISTRIES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let now = Instant::now();
        let mut next = Vec::with_capacity(seen.len());
        for registry in &registries {
            let ptr = Arc::as_ptr(registry);
            for (index, stall, asked) in registry.stall_view() {
                let site = stall.site.load(Ordering::Relaxed).cast_const();
                if site.is_null() {
                    continue;
                }
                let polls = stall.polls.load(Ordering::Relaxed);
                let mut entry = match seen
                    .iter()
                    .position(|s| s.registry == ptr && s.index == index)
                {
                    Some(i) => seen.swap_remove(i),
                    None => Seen {
                        registry: ptr,
                        index,
                        polls,
                        site,
                        since: now,
                        reported: false,
                    },
                };
                if entry.polls != polls || entry.site != site {
                    entry.polls = polls;
                    entry.site = site;
                    entry.since = now;
                    entry.reported = false;
                }
                let still = now.duration_since(entry.since);
                if !entry.reported && still >= threshold && others_wait(registry, asked) {
                    entry.reported = true;
                    report(site, still);
                }
                next.push(entry);
            }
        }
        seen = next;
    }
}

/// Whether a thread could run the seat's `b` if it were promoted: a worker of its pool sleeps
/// or is idle, or some thread asked the seat for work (`asked`).
fn others_wait(registry: &Registry, asked: bool) -> bool {
    registry.sleep.sleeping_workers() > 0 || registry.sleep.idle_awake_workers() > 0 || asked
}

fn report(site: *const Location<'static>, still: Duration) {
    // SAFETY: every published site is a `&'static Location` (`Owner::publish_site`).
    let site = unsafe { &*site };
    eprintln!(
        "blitz-par: a join at {}:{} has not polled for {:.1} s while its second closure waits \
         unpromoted and other threads are idle; if its first closure waits for the second, this \
         join hangs (rayon would run the second on another thread), or it runs long without a \
         parallel call: see the docs of `blitz_par::join`",
        site.file(),
        site.line(),
        still.as_secs_f64(),
    );
}
