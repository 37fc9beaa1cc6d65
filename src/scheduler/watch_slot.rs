//! A watch slot's hand-off: the lock-free part of the watch (`watch.rs`), kept apart so that
//! the loom models (`loom_models.rs`, `watch_slot_hands_the_rest_to_exactly_one`) check the
//! code the watch runs.
//!
//! The owner of a slot (the thread whose loop is watched) publishes the rest of its loop
//! ([`Handoff::publish`]), runs its first chunk, and takes the rest back
//! ([`Handoff::reclaim`]). Meanwhile the watchman may look at the slot ([`Handoff::since`],
//! [`Handoff::watched`], [`Handoff::hints`]) and take the rest ([`Handoff::take`]) to hand it
//! to the pool.
//!
//! Memory ordering:
//! - The owner stores the clock reading, the registry and the guest flag (Relaxed), then the
//!   frame's pointer (Release). Everything it wrote into the frame before `publish` is
//!   ordered before that store too.
//! - `take` is a CAS of the pointer to null that reads the owner's Release store (Acquire):
//!   after it, the frame's contents and the three fields are those of this watch. (A later
//!   watch cannot overwrite them while this one is taken: the owner publishes again only after
//!   the rest it lost has run.)
//! - A later watch may publish a frame at the address of one the watchman read before (the
//!   same call site at the same stack depth): its `take` then takes the later watch, which is
//!   sound, since the pointer is all it uses and the fields are read after the CAS.
//! - `reclaim` is a swap to null. Both it and `take` are read-modify-writes of one atomic, so
//!   exactly one of them finds the pointer: the one that does owns the rest.
//! - What `since`, `watched` and `hints` read before a `take` may belong to another watch
//!   (`since` and `hints` are Relaxed, and read apart from the pointer): the watchman uses them
//!   only to choose whether to take, never to reach memory.
//! - From a successful `take` on, the frame is reached through the injector (whose push and
//!   pop order the watchman's writes before the worker's reads) and the frame's latch (the
//!   worker's writes before the owner's reads); `watch.rs` says more.

// Under loom only the model uses this module, and not all of it.
#![cfg_attr(loom, allow(dead_code))]

use super::job::JobHeader;
use super::registry::Registry;
use crate::sync::{asymmetric, AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// The shared part of a watch slot.
pub(crate) struct Handoff {
    /// The watched frame (a `WatchHead` first), or null.
    job: AtomicPtr<JobHeader>,
    /// The clock when the watch began.
    since: AtomicU64,
    /// The registry the rest goes to.
    registry: AtomicPtr<Registry>,
    /// Whether the owner runs outside every pool (see `watch.rs`).
    guest: AtomicBool,
    /// Whether the owner has moved `since` since it published the watch (`refresh`): its
    /// thread finishes leaves and polls between them, so the watchman need not hurry for it.
    touched: AtomicBool,
}

/// What the watchman learns with the rest it took.
pub(crate) struct Taken {
    /// The registry the owner named.
    pub(crate) registry: *const Registry,
    /// Whether the owner runs outside every pool.
    pub(crate) guest: bool,
}

impl Handoff {
    /// An empty slot.
    pub(crate) fn new() -> Handoff {
        Handoff {
            job: AtomicPtr::new(std::ptr::null_mut()),
            since: AtomicU64::new(0),
            registry: AtomicPtr::new(std::ptr::null_mut()),
            guest: AtomicBool::new(false),
            touched: AtomicBool::new(false),
        }
    }

    /// Whether a watch is published (the owner's own view; the watchman may have just taken
    /// it).
    #[inline]
    pub(crate) fn is_watched(&self) -> bool {
        !self.job.load(Ordering::Relaxed).is_null()
    }

    /// Publishes `job`, to go to `registry`, watched from clock `since`. Owner only, with no
    /// watch published.
    #[inline]
    pub(crate) fn publish(
        &self,
        job: *mut JobHeader,
        registry: *const Registry,
        since: u64,
        guest: bool,
    ) {
        self.registry.store(registry.cast_mut(), Ordering::Relaxed);
        self.since.store(since, Ordering::Relaxed);
        self.guest.store(guest, Ordering::Relaxed);
        self.touched.store(false, Ordering::Relaxed);
        // Release: the stores above and the frame's contents go with the pointer.
        self.job.store(job, Ordering::Release);
    }

    /// [`publish`](Self::publish), then a look at `watcher` (who patrols, `watch::WATCHER`):
    /// the publisher's side of the Dekker pair with the patroller that goes deep
    /// ([`look_going_deep`]). Between the Release store of the pointer and the Relaxed load,
    /// the light side of the asymmetric fence, a compiler fence: no instruction on the path
    /// of every short loop. Returns the value read.
    #[inline]
    pub(crate) fn publish_and_look(
        &self,
        job: *mut JobHeader,
        registry: *const Registry,
        since: u64,
        guest: bool,
        watcher: &AtomicUsize,
    ) -> usize {
        self.publish(job, registry, since, guest);
        asymmetric::light();
        watcher.load(Ordering::Relaxed)
    }

    /// Takes the published watch back: true if it was still there (the owner keeps the rest),
    /// false if the watchman took it. Owner only, after `publish`.
    #[inline]
    pub(crate) fn reclaim(&self) -> bool {
        !self
            .job
            .swap(std::ptr::null_mut(), Ordering::Acquire)
            .is_null()
    }

    /// Moves the watch's clock reading to `now`: the owner has just shown that it is not
    /// stuck in an item (see `watch::touch`). Owner only, while watched; the watchman reads
    /// the reading only to choose whether to take (see the module docs), so a stale or early
    /// read of it changes nothing else.
    #[inline]
    pub(crate) fn refresh(&self, now: u64) {
        self.since.store(now, Ordering::Relaxed);
        if !self.touched.load(Ordering::Relaxed) {
            self.touched.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the watch's clock reading was moved by `refresh` since it was published: may
    /// be another watch's, so only a hint for how soon to look again.
    #[inline]
    pub(crate) fn touched(&self) -> bool {
        self.touched.load(Ordering::Relaxed)
    }

    /// When the watch began, as last stored: may be another watch's (see the module docs).
    #[inline]
    pub(crate) fn since(&self) -> u64 {
        self.since.load(Ordering::Relaxed)
    }

    /// The published frame, or null.
    #[inline]
    pub(crate) fn watched(&self) -> *mut JobHeader {
        self.job.load(Ordering::Acquire)
    }

    /// The same, in the single total order of SeqCst operations (the watchman's check before
    /// it sleeps for good).
    pub(crate) fn watched_seq_cst(&self) -> bool {
        !self.job.load(Ordering::SeqCst).is_null()
    }

    /// The registry and guest flag as last stored: may be another watch's, so only to be
    /// compared and counted, never dereferenced.
    #[inline]
    pub(crate) fn hints(&self) -> (*const Registry, bool) {
        (
            self.registry.load(Ordering::Relaxed).cast_const(),
            self.guest.load(Ordering::Relaxed),
        )
    }

    /// Takes the watch of `job` (read by [`watched`](Self::watched)) if the owner has not
    /// taken it back: the caller then owns the rest, and the owner waits for it.
    #[inline]
    pub(crate) fn take(&self, job: *mut JobHeader) -> Option<Taken> {
        self.job
            .compare_exchange(
                job,
                std::ptr::null_mut(),
                Ordering::Acquire,
                Ordering::Relaxed,
            )
            .ok()?;
        // The owner stored these before its Release store of the pointer our CAS read, and
        // cannot publish again before the rest we took has run.
        Some(Taken {
            registry: self.registry.load(Ordering::Relaxed).cast_const(),
            guest: self.guest.load(Ordering::Relaxed),
        })
    }
}

/// The patroller's last look before nobody patrols: stores `deep` in `watcher`, runs the
/// heavy side of the asymmetric fence, then looks at every slot of `slots`. Returns whether
/// the heavy fence held (false: it was only this thread's SeqCst fence, see
/// `sync::asymmetric`) and whether a slot is watched.
///
/// The other side is [`Handoff::publish_and_look`]: the store of the pointer, the light side,
/// the load of `watcher`. The two fences act as SeqCst fences (`sync::asymmetric`), both in
/// the single total order S: if the heavy one comes first, the publisher's load reads `deep`
/// or a later value of `watcher`, and the publisher ends the deep sleep itself; if the light
/// one comes first, this look reads the publisher's pointer (or a later value: null once the
/// watch has ended or been taken). So a watch is never left with nobody patrolling and nobody
/// told (the loom model `watch_published_as_the_patrol_goes_deep_is_seen_or_ends_it`).
pub(crate) fn look_going_deep<'a>(
    watcher: &AtomicUsize,
    deep: usize,
    slots: impl IntoIterator<Item = &'a Handoff>,
) -> (bool, bool) {
    watcher.store(deep, Ordering::SeqCst);
    let fenced = asymmetric::heavy();
    let watched = slots.into_iter().any(Handoff::watched_seq_cst);
    (fenced, watched)
}
