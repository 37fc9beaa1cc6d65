//! The watch: handing the rest of a short loop to the pool while its first item runs long.
//!
//! The iterator driver learns what items cost by running the first one, and it cannot split
//! while an item runs: nothing polls inside a user's closure. Rayon splits up front, so 8
//! items of 5 ms on 8 threads take it 5 ms; they took us 10 (the first item alone, then the
//! rest in parallel). Splitting up front would cost a push and a wake-up on every call, and
//! a wake-up costs tens of microseconds of some core's time: what keeps a 1,000-item sum at
//! a sequential loop's cost is that nobody is woken for it.
//!
//! So the driver *watches* the first chunk of a short loop instead ([`watch`]): it publishes
//! the rest of the loop in its thread's watch slot (a pointer, a registry and a clock
//! reading: three plain stores), runs the chunk, and takes the slot back with one swap. The
//! *watchman* looks at the slots every [`PATROL_NS`] while loops are being watched: on Linux
//! that is whichever worker is asleep when a patrol is due ([`sleep_watching`]: a worker's
//! sleep then has a timeout), so that a program runs on the pools' threads alone; elsewhere a
//! background thread of its own. A slot watched for more than [`RESCUE_NS`] (about 50 us) has its rest
//! taken (a CAS on the slot's pointer) and injected into the pool with the time the chunk
//! has run so far, which tells the loop that picks it up that its items are heavy: it splits
//! them down to single items and wakes sleepers for them at once (`Share::Waking`). The
//! owner's swap then finds the slot empty, and it waits for the rest as for a stolen join:
//! in its seat, running jobs, or, outside every pool, as a guest that enters only now and
//! helps while there is work to steal (`Seat::help_until`), then blocks. From the rescue on,
//! such an owner counts as a guest (`Registry::active_guests`), so the workers woken for the
//! rest leave its core to it (on the 2-core VM three threads on two cores had made 8 items
//! of ~0.8 ms no faster than without the watch).
//!
//! An unindexed drive watches its whole first half, not one chunk: there the leaves of the
//! first half [`touch`] the watch as they end, and the watchman hands the rest out only once
//! the thread has gone [`RESCUE_NS`] without finishing one. Its thread polls between those
//! leaves, and its first promotion (a thread asked for work, a beat, sharing before long
//! leaves) hands the rest out itself, before the first half's frames: it is the oldest and
//! largest piece ([`take_own_rest`]).
//!
//! Costs: the watchman sleeps for good (no timer; on Linux the sleeping workers wait without
//! a timeout) after [`PATROL_ROUNDS`] rounds that see no
//! new watch ([`DEEP`]), and the next watch wakes it (on Linux it *nudges* each sleeping
//! worker of every pool, `SleepWord::nudge`: a change of the sleep word and a futex wake that
//! cannot be lost, after which they sleep with a timeout again; elsewhere one `unpark`); while
//! loops keep being watched it wakes every [`PATROL_NS`] (on Linux, the other sleeping
//! workers every [`PATROL_NS`] more, in case the patrolling one left its sleep), about 2,000 short wake-ups a second, and every
//! [`RESCUE_AFTER_NS`] for a while after a rescue. A loop whose first chunk is short pays the
//! three stores and the swap, and the first chunk's call out of the chunk loop: about 14 ns
//! (a sum of 8 or 32 items on the 2-core VM, best of 101 rounds of 200 calls: 54 against 40
//! ns; the sequential loop takes 2 to 3 ns). Longer loops pay one load ([`may_watch`]).
//!
//! The first watch starts nothing on its caller's path but one thread: outside
//! every pool, before the global pool has started, the loop is watched if the pool is
//! planned to have enough threads (`Watch::open`), and that thread (on Linux
//! `blitz-par-start`, which then exits; elsewhere the watchman) starts the pool while the
//! chunk runs. A loop it leaves alone starts no thread, so a process's first short loop of
//! cheap items costs what a later one does; the pool starts when a drive first wants to
//! split (`scheduler::enter`). (Starting it took ~0.3 ms of the caller's time on the 2-core
//! VM: reading the cgroup quota, starting two workers and the watchman.)
//!
//! Memory ordering: the slot's hand-off (`watch_slot.rs`, with a loom model) publishes the
//! frame, the registry and the clock reading with a Release store of the slot's pointer that
//! the watchman's CAS reads (Acquire); exactly one of the owner's swap and the watchman's CAS
//! takes the pointer out of the slot, and the one that does owns the rest. The watchman writes the elapsed time into the frame before
//! injecting it; the injector's push and pop order that write before the executing worker's
//! read. The worker's result reaches the owner through the frame's latch (Release/Acquire).
//! The watchman injects under a strong count of the registry: its push makes the rest
//! visible, and the rest may run, the owner return and its pool be dropped before the
//! injection has read the sleep state to wake a worker (ThreadSanitizer caught that race).
//! The watchman that goes to sleep for good stores [`DEEP`], then rechecks the slots; the
//! owner stores its pointer, then reads the state. On Linux the pair cannot both miss: the
//! watchman's side runs `membarrier`, the owner's a compiler fence, which act as two SeqCst
//! fences (`sync::asymmetric`, [`look_going_deep`]). Elsewhere, or where `membarrier` is
//! refused, either may miss the other: such a watch is only not rescued (its loop runs as it
//! would without the watch), and on Linux the deep sleepers keep a timeout for it.

use super::global::planned_global_threads;
use super::global::{global_registry, GLOBAL};
use super::job::{JobHeader, JobRef};
use super::latch::CountLatch;
use super::registry::{Owner, Registry};
#[cfg(all(target_os = "linux", not(miri)))]
use super::sleep::SleepWord;
use super::watch_slot::{look_going_deep, Handoff, Taken};
use crate::sync::{
    asymmetric, ns_in, ticks, ticks_in, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize,
    Ordering,
};
use crate::tuning::{
    HURRY_ROUNDS, PATROL_NS, PATROL_ROUNDS, RESCUE_AFTER_NS, RESCUE_NS, RESCUE_SOON_NS,
    WATCH_ITEMS_PER_THREAD,
};
use std::cell::{Cell, UnsafeCell};
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};
#[cfg(not(all(target_os = "linux", not(miri))))]
use std::thread::Thread;
#[cfg(not(all(target_os = "linux", not(miri))))]
use std::time::Duration;

/// The longest loop any pool would watch: [`WATCH_ITEMS_PER_THREAD`] items per thread of
/// the largest pool started so far. Checked first ([`may_watch`]), so that longer loops pay
/// one load for the watch.
static WATCH_MAX: AtomicUsize = AtomicUsize::new(0);

/// Records that a pool of `threads` threads started (see [`WATCH_MAX`]).
pub(crate) fn pool_started(threads: usize) {
    WATCH_MAX.fetch_max(
        threads.saturating_mul(WATCH_ITEMS_PER_THREAD),
        Ordering::Relaxed,
    );
}

/// Whether a loop of `items` items may be watched by [`watch`]: false for loops longer than
/// any started pool watches. Before the first pool starts, true: [`watch`] then decides from
/// the thread count the global pool will have, and the watchman starts that pool while the
/// first chunk runs (a program whose one parallel loop is over a few heavy items, a
/// command-line tool working on a few files, needs the watch most).
#[inline]
pub(crate) fn may_watch(items: usize) -> bool {
    let max = WATCH_MAX.load(Ordering::Relaxed);
    items <= max || max == 0
}

/// Who patrols the watches ([`WATCHER`]): nobody in particular; any worker asleep (on
/// Linux) or the watchman (elsewhere) patrols when a patrol is due ([`DUE`]).
const NOBODY: usize = 0;
/// Nobody patrols: no new watch for [`PATROL_ROUNDS`] patrols. Workers sleep without a
/// timeout (the watchman parks without one) until a watch turns this back to [`NOBODY`].
const DEEP: usize = 1;

/// [`NOBODY`], [`DEEP`], or the address of the sleep word of the worker that patrols now
/// (Linux): it sleeps until the next patrol is due, the other sleepers a while longer, so
/// that they take over only if it has left its sleep.
static WATCHER: AtomicUsize = AtomicUsize::new(DEEP);

/// The clock reading at which the next patrol is due: taken (a CAS) by the one that
/// patrols then.
static DUE: AtomicU64 = AtomicU64::new(0);
/// Patrols in a row that saw no new watch.
static QUIET: AtomicU32 = AtomicU32::new(0);
/// The newest clock reading the last patrol saw in a slot.
static NEWEST: AtomicU64 = AtomicU64::new(0);
/// Patrols left at the short interval after a rescue.
static HURRY: AtomicU32 = AtomicU32::new(0);

/// The watchman thread, started by the first watch (`None` if it could not be started: then
/// nothing is watched). Where a worker's sleep has no timeout (off Linux), it patrols.
#[cfg(not(all(target_os = "linux", not(miri))))]
static WATCHMAN: OnceLock<Option<Thread>> = OnceLock::new();

/// A thread's watch slot. Slots are never freed: a thread's slot is marked free when the
/// thread ends and taken by the next thread that watches a loop, so there are as many slots
/// as threads ever watched loops at once.
///
/// Its hand-off's `guest` flag says whether the owner runs outside every pool: a core the
/// pool's count of guests does not know of. Once the rest is handed out the owner counts as
/// a guest running parallel work (`Registry::active_guests`) until its chunk ends, so that
/// the workers woken for the rest leave it its core.
#[repr(align(128))]
struct Slot {
    /// The watch itself: frame, clock reading, registry, guest flag.
    handoff: Handoff,
    /// Whether a live thread owns the slot.
    in_use: AtomicBool,
    /// The next slot of the list; fixed before the slot is published.
    next: *const Slot,
}

// SAFETY: every field shared between threads is an atomic; `next` is written before the
// slot is published (Release CAS on `SLOTS`) and never again.
unsafe impl Sync for Slot {}

/// The list of all slots, newest first.
static SLOTS: AtomicPtr<Slot> = AtomicPtr::new(std::ptr::null_mut());

fn slots() -> impl Iterator<Item = &'static Slot> {
    let mut next = SLOTS.load(Ordering::Acquire).cast_const();
    std::iter::from_fn(move || {
        // SAFETY: slots are leaked when created and never freed; `next` was fixed before
        // publication, which the Acquire loads above and of a previous slot's publisher saw.
        let slot = unsafe { next.as_ref()? };
        next = slot.next;
        Some(slot)
    })
}

/// A free slot, or a new one.
fn claim_slot() -> &'static Slot {
    for slot in slots() {
        if !slot.in_use.load(Ordering::Relaxed)
            && slot
                .in_use
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            return slot;
        }
    }
    let slot: &'static mut Slot = Box::leak(Box::new(Slot {
        handoff: Handoff::new(),
        in_use: AtomicBool::new(true),
        next: std::ptr::null(),
    }));
    let mut head = SLOTS.load(Ordering::Relaxed);
    loop {
        slot.next = head;
        match SLOTS.compare_exchange_weak(head, slot, Ordering::Release, Ordering::Relaxed) {
            Ok(_) => return slot,
            Err(now) => head = now,
        }
    }
}

/// A thread's claim on its slot, given back when the thread ends.
struct SlotClaim(&'static Slot);

impl Drop for SlotClaim {
    fn drop(&mut self) {
        // A thread ends outside every loop, so the slot is not watched.
        debug_assert!(!self.0.handoff.is_watched());
        self.0.in_use.store(false, Ordering::Release);
    }
}

thread_local! {
    static MY_SLOT: SlotClaim = SlotClaim(claim_slot());
    /// The drive whose watch this thread's slot holds (see [`touch`]); 0 for none.
    static WATCHED_DRIVE: Cell<usize> = const { Cell::new(0) };
    /// The rest of this thread's innermost open watch, if its own promotion may hand it out
    /// ([`take_own_rest`]): the frame, and the owner's count of recorded join frames when it
    /// was published. Null for none.
    static OWN_REST: Cell<(*mut JobHeader, usize)> =
        const { Cell::new((std::ptr::null_mut(), 0)) };
}

/// For the promotion of this thread's seat (`Owner::promote_oldest`), whose oldest frame not
/// yet promoted is the `promoted`th: the rest of the unindexed drive this thread runs under
/// watch, if the watchman has not taken it and every join frame recorded before the watch
/// began is promoted (the rest is then the oldest piece of work this thread holds, and the
/// largest: half the drive). Takes it out of the slot, so that the watchman cannot, and
/// returns it as a job for the caller to push on its deque; the owner's `settle` then finds
/// the slot empty and waits for the rest's latch like a join whose frame was promoted,
/// running the rest itself if nobody stole it.
///
/// Without this, only the watchman handed the rest out, after `RESCUE_NS` without a leaf
/// ending, or the owner ran it after its first half: a thread that asked for work got the
/// first half's frames, a quarter, an eighth, ..., and the half waited. A long drive of
/// cheap leaves (ndarray's `Zip::par_for_each` over 2,048 x 2,048 on 2 threads) ran 1.05x to
/// 1.10x slower than with its first split a plain join.
#[inline]
pub(crate) fn take_own_rest(promoted: usize) -> Option<JobRef> {
    let (job, depth) = OWN_REST.try_with(Cell::get).ok()?;
    if job.is_null() || promoted < depth {
        return None;
    }
    take_own_rest_cold(job)
}

#[cold]
fn take_own_rest_cold(job: *mut JobHeader) -> Option<JobRef> {
    OWN_REST.set((std::ptr::null_mut(), 0));
    // A CAS from this watch's frame, not a swap: if the watchman took the rest, a watch
    // opened since in the emptied slot (by a loop nested in the first half) is not ours.
    // The frame cannot be another watch's: ours is alive at that address until it settles.
    MY_SLOT.try_with(|claim| claim.0.handoff.take(job)).ok()??;
    // SAFETY: taken out of the slot, so the watchman cannot hand it out and the owner's
    // `settle` waits for its latch: the frame lives until the job has run, and this is the
    // one right to run it.
    Some(unsafe { JobRef::from_ptr(job) })
}

/// Marks this thread's open watch, an unindexed drive's, as one whose rest its promotion may
/// take ([`take_own_rest`]), until dropped; then the outer drive's mark, if any, is back.
struct OwnRestMark((*mut JobHeader, usize));

impl OwnRestMark {
    fn set(rest: (*mut JobHeader, usize)) -> OwnRestMark {
        OwnRestMark(OWN_REST.replace(rest))
    }
}

impl Drop for OwnRestMark {
    fn drop(&mut self) {
        OWN_REST.set(self.0);
    }
}

/// For an unindexed drive whose first half runs under a watch: its thread has just finished a
/// leaf of `drive` at clock `now`, so it is not stuck in an item, and it answers requests for
/// work at its polls. If this thread's watch is that drive's, its clock reading moves to
/// `now`: the watchman rescues the rest only once the thread has gone [`RESCUE_NS`]
/// without finishing a leaf, not [`RESCUE_NS`] into the first half. Without this, every
/// drive whose first half ran longer than that had its rest rescued, though its leaves were
/// short and its thread polled between them, and each rescue put the watchman at its short
/// interval for a while: on the 2-core VM, in a loop of `par_chars().filter().count()` over
/// 189 KB (~120 us a call), the watchman woke every ~85 us and took a third of a core.
///
/// `drive` names the drive (the address of its shared state); a leaf of another drive run by
/// this thread meanwhile (a stolen job, a drive nested in an item) leaves the watch alone.
#[inline]
pub(crate) fn touch(drive: usize, now: u64) {
    if drive != 0 && WATCHED_DRIVE.get() == drive {
        touch_slot(now);
    }
}

#[cold]
fn touch_slot(now: u64) {
    let _ = MY_SLOT.try_with(|claim| claim.0.handoff.refresh(now));
}

/// Marks this thread's open watch as `drive`'s until dropped (see [`touch`]).
struct DriveMark(usize);

impl DriveMark {
    fn set(drive: usize) -> DriveMark {
        DriveMark(WATCHED_DRIVE.replace(drive))
    }
}

impl Drop for DriveMark {
    fn drop(&mut self) {
        WATCHED_DRIVE.set(self.0);
    }
}

/// The watchman, started on first use. Started for the watch of a thread outside every pool
/// before the global pool has started (`start_global`), it starts that pool first, on its own
/// thread: the watched chunk runs meanwhile, and the pool is there if its rest is handed out.
#[cfg(not(all(target_os = "linux", not(miri))))]
fn watchman(start_global: bool) -> Option<&'static Thread> {
    WATCHMAN
        .get_or_init(|| {
            std::thread::Builder::new()
                .name("blitz-par-watch".into())
                .spawn(move || {
                    if start_global {
                        global_registry();
                    }
                    patrol();
                })
                .ok()
                .map(|handle| handle.thread().clone())
        })
        .as_ref()
}

/// Where sleeping workers patrol: nothing to start for a watch, unless it is opened before
/// the global pool has started (`start_global`). Then a thread starts that pool, while the
/// watched chunk runs, and ends: the pool's workers patrol. False if it could not start (the
/// loop is then not watched).
#[cfg(all(target_os = "linux", not(miri)))]
fn watchman(start_global: bool) -> Option<()> {
    static STARTER: OnceLock<bool> = OnceLock::new();
    if !start_global {
        return Some(());
    }
    STARTER
        .get_or_init(|| {
            std::thread::Builder::new()
                .name("blitz-par-start".into())
                .spawn(|| {
                    global_registry();
                })
                .is_ok()
        })
        .then_some(())
}

/// Whether the patrol starts the global pool for a watch that names it before it started
/// (the watchman thread does; a worker that patrols while asleep waits for
/// `blitz-par-start` to have started it instead).
const WATCHMAN_STARTS_GLOBAL: bool = cfg!(not(all(target_os = "linux", not(miri))));

/// The registry a slot's rest goes to: the one its owner named, or the global pool for null
/// (the watch of a thread outside every pool, opened before that pool started: see
/// [`Watch::open`]), which this starts if it has not started yet.
fn destination(registry: *const Registry) -> *const Registry {
    if registry.is_null() {
        Arc::as_ptr(global_registry())
    } else {
        registry
    }
}

/// The start of every watched frame, the part the watchman reaches.
#[repr(C)]
struct WatchHead {
    header: JobHeader,
    /// Nanoseconds the item had run when the watchman took the rest (written by it, read by the
    /// worker that runs the rest).
    elapsed: UnsafeCell<u64>,
    latch: CountLatch,
}

/// A watched loop's rest, on its owner's stack.
#[repr(C)]
struct WatchFrame<T, F, R> {
    head: WatchHead,
    rest: UnsafeCell<ManuallyDrop<(T, F)>>,
    result: UnsafeCell<MaybeUninit<std::thread::Result<R>>>,
}

/// Runs the rest of a watched loop that the watchman took.
///
/// # Safety
/// `header` is the head of a live `WatchFrame<T, F, R>` that the watchman took out of its
/// slot (so its owner waits on its latch and nobody else runs it).
unsafe fn execute_watched<T, F, R>(header: NonNull<JobHeader>)
where
    F: FnOnce(T, u64) -> R,
{
    let frame = header.as_ptr().cast_const().cast::<WatchFrame<T, F, R>>();
    // SAFETY: by contract the frame is alive and this is its one execution; the watchman's
    // write of `elapsed` was ordered before this by the injector.
    unsafe {
        let (data, rescue) = ManuallyDrop::take(&mut *(*frame).rest.get());
        let elapsed = *(*frame).head.elapsed.get();
        let result = catch_unwind(AssertUnwindSafe(move || rescue(data, elapsed)));
        (*(*frame).result.get()).write(result);
        // After this the owner may return and free the frame.
        CountLatch::decrement(&raw const (*frame).head.latch);
    }
}

/// Runs `first` (the first chunk of a loop of `items` items, begun at clock `since`) while
/// the rest of the loop, `data`, is watched: if `first` runs longer than [`RESCUE_NS`],
/// the watchman hands `data` to a worker of the pool, which runs `rescue(data, elapsed)`,
/// `elapsed` being how long `first` had run by then, in nanoseconds. Returns `first`'s result and either
/// `data` back (not handed out: the caller goes on with it) or `rescue`'s result.
///
/// Loops of more than [`WATCH_ITEMS_PER_THREAD`] items per thread, and loops inside a
/// watched item of the same thread, are not watched, nor are loops on a pool of one thread.
/// A drive of unknown length (unindexed) passes 0 `items`, and is watched; it also names
/// itself (`drive`, nonzero) so that its leaves can [`touch`] the watch (0 for loops that do
/// not). A panic of `first` propagates after
/// `rescue` (if it was handed out) has finished; a panic of `rescue` propagates to the
/// caller.
pub(crate) fn watch<T, F, R, RA>(
    items: usize,
    drive: usize,
    since: u64,
    data: T,
    rescue: F,
    first: impl FnOnce() -> RA,
) -> (RA, Result<T, R>)
where
    T: Send,
    F: FnOnce(T, u64) -> R + Send,
    R: Send,
{
    Owner::with_current(|owner| watch_in(owner, items, drive, since, data, rescue, first))
}

/// [`watch`], with the calling thread's seat as its owner (or none).
fn watch_in<T, F, R, RA>(
    owner: Option<Owner<'_>>,
    items: usize,
    drive: usize,
    since: u64,
    data: T,
    rescue: F,
    first: impl FnOnce() -> RA,
) -> (RA, Result<T, R>)
where
    T: Send,
    F: FnOnce(T, u64) -> R + Send,
    R: Send,
{
    // Only the frame's layout and the reading of the result depend on the types: the rest is
    // in `Watch`, compiled once rather than for every loop of every pipeline.
    let Some(watch) = Watch::open(owner, items) else {
        return (first(), Ok(data));
    };
    let frame = WatchFrame::<T, F, R> {
        head: watch.head(execute_watched::<T, F, R>),
        rest: UnsafeCell::new(ManuallyDrop::new((data, rescue))),
        result: UnsafeCell::new(MaybeUninit::uninit()),
    };
    // Derived from the whole frame: the worker reaches `rest` and `result` through it.
    let ptr = (&raw const frame).cast::<JobHeader>().cast_mut();
    watch.publish(ptr, since);
    let watched = Watched {
        watch: &watch,
        frame: &frame,
    };
    let mark = DriveMark::set(drive);
    // An unindexed drive's rest (half the drive) goes to the first thread that asks for work
    // at one of the owner's polls (`take_own_rest`). A loop's first chunk polls nothing: its
    // rest is the watchman's alone (a rest taken by a poll of a loop nested in the chunk's
    // items would run with no estimate of the items' cost), and its watch leaves the mark
    // alone, so that short loops pay nothing more. An outer drive's mark seen inside such a
    // chunk names a rest the watchman took (the slot was empty when the chunk's watch
    // opened): `take_own_rest`'s CAS from that rest's address then finds the chunk's own
    // frame there, fails, and clears the mark.
    let own = match watch.owner {
        Some(owner) if drive != 0 => Some(OwnRestMark::set((ptr, owner.recorded_frames()))),
        _ => None,
    };
    let ra = first();
    drop(own);
    drop(mark);
    let handed = watch.settle(&frame.head);
    // Settled: the guard's unwinding path is not needed.
    std::mem::forget(watched);
    if !handed {
        // Not handed out: nobody else has seen `rest`.
        return (ra, Ok(ManuallyDrop::into_inner(frame.rest.into_inner()).0));
    }
    // SAFETY: handed out and settled, so the worker wrote the result (Release/Acquire
    // through the latch), and nothing else reads it.
    match unsafe { frame.result.into_inner().assume_init() } {
        Ok(rb) => (ra, Err(rb)),
        Err(payload) => resume_unwind(payload),
    }
}

/// The type-independent side of one watch, on its owner's thread: the owner's seat (none
/// outside every pool), the registry the rest goes to and the thread's slot.
struct Watch<'o> {
    owner: Option<Owner<'o>>,
    /// The Arc's data pointer itself (not a reborrow of it): the watchman takes a strong
    /// count through it while it hands the rest out. Null for the global pool when the watch
    /// was opened before that pool started ([`destination`]).
    registry: *const Registry,
    slot: &'static Slot,
}

impl<'o> Watch<'o> {
    /// The watch of a loop of `items` items on this thread, whose seat is `owner`'s, or
    /// `None` where the loop is not watched (see [`watch`]).
    ///
    /// Outside every pool before the global pool has started, the thread count is the one it
    /// is planned to have (`planned_global_threads`, which may exceed it: a bound on which
    /// loops are watched, nothing else), and the rest goes to a null registry, the global
    /// pool, which the watchman starts. A short loop of cheap items that the watch leaves
    /// alone (all of them with more than [`WATCH_ITEMS_PER_THREAD`] items a thread) thus
    /// starts no thread: the first 1,000-item sum of a process costs what a later one does.
    #[inline]
    fn open(owner: Option<Owner<'o>>, items: usize) -> Option<Watch<'o>> {
        let (registry, threads) = match owner {
            None => match GLOBAL.get() {
                Some(global) => (Arc::as_ptr(global), global.num_threads()),
                None => unstarted_global(),
            },
            Some(owner) => (owner.seat().registry_ptr(), owner.registry().num_threads()),
        };
        // A pool of one thread has nobody to hand the rest to: its one worker would take the
        // rest back from the injector after the chunk (and a drive handed out splits
        // otherwise).
        if threads < 2 || items > WATCH_ITEMS_PER_THREAD.saturating_mul(threads) {
            return None;
        }
        let slot = MY_SLOT.try_with(|claim| claim.0).ok()?;
        if slot.handoff.is_watched() {
            // A loop around this one, on this thread, is watched: its rescue covers this one.
            return None;
        }
        watchman(registry.is_null())?;
        Some(Watch {
            owner,
            registry,
            slot,
        })
    }

    /// The head of this watch's frame, whose job runs `execute`.
    #[inline]
    fn head(&self, execute: unsafe fn(NonNull<JobHeader>)) -> WatchHead {
        WatchHead {
            header: JobHeader { execute },
            elapsed: UnsafeCell::new(0),
            latch: match self.owner {
                None => CountLatch::new_blocking(),
                Some(owner) => CountLatch::new(&owner.seat().sleep_word),
            },
        }
    }

    /// Publishes the frame `job` (whose loop began at clock `since`) in the slot, and wakes
    /// the watchman if it sleeps for good.
    #[inline]
    fn publish(&self, job: *mut JobHeader, since: u64) {
        // The publisher's side of the Dekker pair with a patroller going deep
        // (`look_going_deep`): the light side of the asymmetric fence, no instruction.
        let watcher = self.slot.handoff.publish_and_look(
            job,
            self.registry,
            since,
            self.owner.is_none(),
            &WATCHER,
        );
        if watcher == DEEP {
            resume_patrols();
        }
    }

    /// Takes the watch back once its chunk has returned or is unwinding: false if the rest
    /// was not handed out (the caller takes it back out of the frame), true once the worker
    /// that took it has finished (its result is then in the frame).
    #[inline]
    fn settle(&self, head: &WatchHead) -> bool {
        if self.slot.handoff.reclaim() {
            return false;
        }
        self.wait(&head.latch);
        true
    }

    /// Waits for the worker that took the rest, as a join waits for its thief.
    #[cold]
    #[inline(never)]
    fn wait(&self, latch: &CountLatch) {
        match self.owner {
            None => {
                // The watchman counted us as a guest; now become one for real, so as to help
                // with the rest (it splits and shares at once) instead of blocking while a
                // worker may still be waking up. Entering costs tens of nanoseconds, against
                // a rest of milliseconds. With every guest seat taken, block. (Without a
                // seat, the watch's registry is the global one.)
                let registry = global_registry();
                registry.active_guests.fetch_sub(1, Ordering::Relaxed);
                let latch = latch.blocking_latch();
                let helped = registry.try_enter_as_guest(latch, |latch| {
                    Owner::with_current(|owner| owner.expect("just entered").help_until(latch))
                });
                if helped.is_err() {
                    // Blocking without a seat: give back the core the watchman counted (its
                    // count was taken out above), as a guest that stops holding one does.
                    registry.give_back_core();
                    latch.wait();
                }
            }
            Some(owner) => owner.wait_until(latch.seat_latch()),
        }
    }
}

/// The registry and thread count of [`Watch::open`] for a thread outside every pool before
/// the global pool has started: null and the planned count (see there). Out of line: once per
/// loop only until the pool starts. Records the planned count as a started pool's
/// ([`pool_started`]), so that longer loops are turned away by [`may_watch`] from then on.
/// Where the environment holds an unusable thread count, starts the pool instead, which
/// reports it.
#[cold]
#[inline(never)]
fn unstarted_global() -> (*const Registry, usize) {
    match planned_global_threads() {
        Some(threads) => {
            plan(threads);
            (std::ptr::null(), threads)
        }
        None => {
            let global = global_registry();
            (Arc::as_ptr(global), global.num_threads())
        }
    }
}

/// Records the thread count that the global pool, not started yet, is planned to have, as
/// [`unstarted_global`] does: called by every parallel call from outside the pools until the
/// pool starts (`pool::outside_work_runs_on_workers`), before the driver times its first
/// chunk, so that [`may_watch`] turns longer loops away from the first loop on.
pub(crate) fn plan_unstarted_global() {
    if let Some(threads) = planned_global_threads() {
        plan(threads);
    }
}

/// [`pool_started`], unless a pool as large has been recorded.
fn plan(threads: usize) {
    if WATCH_MAX.load(Ordering::Relaxed) < threads.saturating_mul(WATCH_ITEMS_PER_THREAD) {
        pool_started(threads);
    }
}

/// The owner's side of a watch while its chunk runs: if the chunk panics, the guard settles
/// the watch before the frame goes (a guard rather than `catch_unwind`, which cost a few
/// nanoseconds on every short loop).
struct Watched<'a, T, F, R> {
    watch: &'a Watch<'a>,
    frame: &'a WatchFrame<T, F, R>,
}

impl<T, F, R> Drop for Watched<'_, T, F, R> {
    /// The chunk panicked: settle the watch before the frame goes (the rest may borrow what
    /// the unwinding frees), then let the panic go on; the rest's own result or panic is
    /// dropped.
    fn drop(&mut self) {
        if self.watch.settle(&self.frame.head) {
            // SAFETY: handed out and settled: the worker wrote the result, which nobody else
            // reads.
            drop(unsafe { (*self.frame.result.get()).assume_init_read() });
        } else {
            // SAFETY: not handed out, so `rest` is still in the frame and ours; the frame is
            // not used again (it is being unwound).
            unsafe { ManuallyDrop::drop(&mut *self.frame.rest.get()) };
        }
    }
}

/// Whether handing out a loop's rest to `registry` can help now: more workers are asleep or
/// idle than guests hold cores, counting the owner if it runs outside every pool (`guest`):
/// the owner and the workers that take its rest then stay within the pool's thread count,
/// as the heartbeat's guest cap keeps them. Known only for the global pool, which is never
/// freed; a slot's registry may otherwise end as soon as its loop does.
fn worth_rescue(registry: *const Registry, guest: bool) -> bool {
    match GLOBAL.get() {
        Some(global) if std::ptr::eq(Arc::as_ptr(global), registry) => {
            let sleep = &global.sleep;
            let free = sleep.sleeping_workers() + sleep.idle_awake_workers();
            free as usize > global.active_guests.load(Ordering::Relaxed) + usize::from(guest)
        }
        _ => true,
    }
}

/// The cold side of a watch published while nobody patrols ([`DEEP`]): patrols resume, the
/// first one due [`RESCUE_AFTER_NS`] from now (the watch's item has just begun), and the deep
/// sleep ends ([`end_deep`]): where workers patrol, every sleeping worker of every pool is
/// made to look again at how long it sleeps; elsewhere the watchman is unparked.
#[cold]
#[inline(never)]
fn resume_patrols() {
    DUE.store(
        ticks().wrapping_add(ticks_in(RESCUE_AFTER_NS)),
        Ordering::Relaxed,
    );
    QUIET.store(0, Ordering::Relaxed);
    let ended = end_deep(NOBODY);
    #[cfg(not(all(target_os = "linux", not(miri))))]
    if ended {
        if let Some(watchman) = watchman(false) {
            watchman.unpark();
        }
    }
    #[cfg(all(target_os = "linux", not(miri)))]
    let _ = ended;
}

/// Ends the deep sleep: `WATCHER` from [`DEEP`] to `new` (a CAS, so that one caller ends
/// each deep sleep), then, where workers patrol, a nudge of every sleeping worker of every
/// pool ([`nudge_every_pool`]): a sleeper that read `DEEP` waits for that nudge without a
/// timeout. Returns whether this call ended it.
fn end_deep(new: usize) -> bool {
    if WATCHER
        .compare_exchange(DEEP, new, Ordering::SeqCst, Ordering::Relaxed)
        .is_err()
    {
        return false;
    }
    #[cfg(all(target_os = "linux", not(miri)))]
    nudge_every_pool();
    true
}

/// Every registry that has workers, which may sleep and read [`DEEP`]: registered when built
/// (before its workers start), removed when dropped. Read only where a deep sleep ends
/// ([`end_deep`], once per deep sleep), to nudge every pool's sleepers, and not only those of
/// the watch's pool: a sleeper of any pool patrols every slot, and a slot names only its own
/// pool (which may be freed as soon as its loop ends).
///
/// A lock is enough off the path of the short loops: its holders only push, remove, or nudge
/// (a fence, a CAS and a futex wake per worker), never wait for another thread, so a worker
/// asleep and counted that takes it while it patrols waits for no one's progress.
#[cfg(all(target_os = "linux", not(miri)))]
static POOLS: crate::sync::Mutex<Vec<PoolPtr>> = crate::sync::Mutex::new(Vec::new());

/// A registry in [`POOLS`].
#[cfg(all(target_os = "linux", not(miri)))]
struct PoolPtr(*const Registry);

// SAFETY: the pointer is only used to nudge the registry's sleep words (atomics), under the
// lock of `POOLS`, which `pool_dropped` takes to remove it before the registry is freed.
#[cfg(all(target_os = "linux", not(miri)))]
unsafe impl Send for PoolPtr {}

#[cfg(all(target_os = "linux", not(miri)))]
fn pools() -> std::sync::MutexGuard<'static, Vec<PoolPtr>> {
    // Nothing panics under the lock; a poisoned list is still whole.
    POOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A registry with workers was built: its sleepers are nudged when a deep sleep ends. Called
/// before its workers start, so that a deep sleep ended before this sees none of them asleep
/// (the workers' first look at `WATCHER` comes after this lock, which comes after the end's).
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn pool_registered(registry: &Registry) {
    pools().push(PoolPtr(registry));
}

/// A registry is being dropped (`Drop for Registry`, before any of its fields): from now on
/// nobody nudges its sleep words.
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn pool_dropped(registry: &Registry) {
    pools().retain(|pool| !std::ptr::eq(pool.0, registry));
}

/// Nudges every sleeping worker of every pool ([`POOLS`]): they look again at `WATCHER`.
#[cfg(all(target_os = "linux", not(miri)))]
fn nudge_every_pool() {
    for pool in pools().iter() {
        // SAFETY: a registry in the list is alive until `pool_dropped` has removed it, which
        // waits for this lock.
        unsafe { (*pool.0).nudge_sleepers() };
    }
}

/// The sleep of a worker asleep and counted on `word` (`Sleep::sleep`): while loops are being
/// watched (not [`DEEP`]), it wakes when a patrol is due and patrols, if no other sleeper has
/// taken that patrol; the worker that patrolled last ([`WATCHER`]) sleeps until the next one
/// is due, the others [`PATROL_NS`] longer, so that one of them takes over only if it left
/// its sleep. A patrol runs on a worker that is asleep, so it takes nothing from running work;
/// and a rescue only helps while some worker is asleep or idle (`worth_rescue`), which then
/// sleeps here or soon will. No thread beyond the pools' own is needed.
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn sleep_watching(word: &SleepWord) {
    let me = std::ptr::from_ref(word) as usize;
    trace_event!(SleepBegin, word as *const SleepWord);
    // Each wait looks at `WATCHER` after taking back a nudge and a SeqCst fence
    // (`SleepWord::wait_once`), so a watch's nudge is never lost, and a sleeper that reads
    // `DEEP` waits until nudged or woken (`deep_wait`).
    while word.wait_once(|| patrol_wait(me)) {}
    trace_event!(SleepEnd, word as *const SleepWord);
    if WATCHER.load(Ordering::Relaxed) == me
        && WATCHER
            .compare_exchange(me, NOBODY, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        && slots().any(|slot| slot.handoff.is_watched())
    {
        // Leaving the patrol while a loop is watched: the other sleepers of this pool and of
        // the global pool look again at their timeouts, so that one of them takes the patrol
        // over when it is due rather than `PATROL_NS` later. Only sooner: every sleeper
        // either read a value other than `DEEP`, and has a timeout, or was nudged when the
        // deep sleep ended (`end_deep`). The nudge's fence orders the CAS above before its
        // load of each word: a nudged sleeper reads `NOBODY` or a later value.
        Owner::with_current(|owner| {
            if let Some(owner) = owner {
                owner.registry().nudge_sleepers();
            }
        });
        if let Some(global) = GLOBAL.get() {
            global.nudge_sleepers();
        }
    }
}

/// How long a sleeping worker (`me`, its sleep word's address) sleeps before it looks again
/// (while nobody patrols, [`deep_wait`]: until nudged or woken); patrols first if one is due.
#[cfg(all(target_os = "linux", not(miri)))]
fn patrol_wait(me: usize) -> Option<u64> {
    loop {
        // After the sleeper's fence (`SleepWord::wait_once`): a watch that ends the deep
        // sleep after this load nudges the word, and the futex wait returns.
        let watcher = WATCHER.load(Ordering::SeqCst);
        if watcher == DEEP {
            return deep_wait();
        }
        let now = ticks();
        let due = DUE.load(Ordering::Relaxed);
        let left = due.wrapping_sub(now);
        if left != 0 && left < u64::MAX / 2 {
            let ns = ns_in(left).max(1);
            return Some(if watcher == me || watcher == NOBODY {
                ns
            } else {
                ns + PATROL_NS
            });
        }
        // Due: this sleeper patrols, unless another took the patrol meanwhile.
        let guess = now.wrapping_add(ticks_in(PATROL_NS));
        if DUE
            .compare_exchange(due, guess, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            continue;
        }
        if watcher != me {
            let _ = WATCHER.compare_exchange(watcher, me, Ordering::Relaxed, Ordering::Relaxed);
        }
        match patrol_round(me) {
            Some(ns) => DUE.store(now.wrapping_add(ticks_in(ns)), Ordering::Relaxed),
            None => return deep_wait(),
        }
    }
}

/// How long a sleeper that read `DEEP` waits before it looks again, if no nudge or wake comes
/// first: for ever. Every end of a deep sleep nudges every pool's sleepers ([`end_deep`]),
/// and the patroller goes deep only after a look that a watch published meanwhile cannot
/// slip past ([`look_going_deep`]'s heavy fence), so no watch is left unpatrolled while every
/// sleeper waits. Where the heavy fence is not available (`sync::asymmetric`: an old kernel,
/// a seccomp filter), a watch published as the patroller goes deep may be missed, and the
/// sleepers look again after [`DEEP_BACKSTOP_NS`] (the scheduler README, "What stays
/// uncovered"). The answer is read after the Acquire of `WATCHER`'s `DEEP`, and the patroller
/// asked for it before storing `DEEP`: a sleeper sees the answer of the deep sleep it read.
/// (The first `DEEP`, `WATCHER`'s initial value, was stored by no patroller: no watch was
/// published before it, so nothing can be missed there.)
#[cfg(all(target_os = "linux", not(miri)))]
fn deep_wait() -> Option<u64> {
    asymmetric::unavailable().then_some(DEEP_BACKSTOP_NS)
}

/// How long a sleeper that read `DEEP` waits before it looks again where the heavy fence is
/// not available ([`deep_wait`]): a loop whose first item waits for another of its items
/// then waits at most this long for its rescue, where it would otherwise wait for the next
/// watch. One short wake-up a second per sleeping worker.
#[cfg(all(target_os = "linux", not(miri)))]
const DEEP_BACKSTOP_NS: u64 = 1_000_000_000;

/// The watchman's loop, where workers cannot patrol (see the module docs).
#[cfg(not(all(target_os = "linux", not(miri))))]
fn patrol() {
    WATCHER.store(NOBODY, Ordering::Relaxed);
    let mut woken = false;
    loop {
        if woken {
            // A watch woke us: its item has just begun.
            std::thread::park_timeout(Duration::from_nanos(RESCUE_AFTER_NS));
            woken = false;
        }
        match patrol_round(NOBODY) {
            Some(ns) => std::thread::park_timeout(Duration::from_nanos(ns)),
            None => {
                while WATCHER.load(Ordering::Acquire) == DEEP {
                    std::thread::park();
                }
                woken = true;
            }
        }
    }
}

/// One patrol over every slot (see the module docs), by `me` ([`WATCHER`]'s value for the
/// patroller): rescues what is due and worth it. Returns the time until the next patrol, or
/// `None` if nobody patrols from now on ([`DEEP`], stored here: no new watch for
/// [`PATROL_ROUNDS`] patrols, and none watched now).
fn patrol_round(me: usize) -> Option<u64> {
    let now = ticks();
    let mut watched = false;
    let mut soon = false;
    let newest = NEWEST.load(Ordering::Relaxed);
    let mut latest = newest;
    let mut hurry = HURRY.load(Ordering::Relaxed);
    for slot in slots() {
        let handoff = &slot.handoff;
        let since = handoff.since();
        if since.wrapping_sub(latest) < u64::MAX / 2 {
            latest = since;
        }
        let job = handoff.watched();
        if job.is_null() {
            continue;
        }
        watched = true;
        let age = now.wrapping_sub(since);
        if age >= u64::MAX / 2 {
            // Read `since` before the clock moved past it on this core: just begun.
            continue;
        }
        let age = ns_in(age);
        // An unindexed drive's watch whose leaves have moved its clock (`touch`): its
        // thread finishes leaves and answers requests between them, so a rescue can wait
        // for the next patrol. Hurrying for it woke the watchman every ~85 us for the
        // whole first half of every long cheap drive (its leaves run past
        // `RESCUE_SOON_NS`), each wake taking a core from the drive's threads.
        let touched = handoff.touched();
        if age < RESCUE_NS {
            // Watched for a while already: its item is not a short one, look again when
            // it is due. (The watches of a stream of short loops are younger than that,
            // and wait for the next patrol.)
            soon |= age >= RESCUE_SOON_NS && !touched;
            continue;
        }
        // The registry is only compared with the global pool's address, and `guest` only
        // counted: harmless if stale.
        let (registry, guest) = handoff.hints();
        if registry.is_null() && !WATCHMAN_STARTS_GLOBAL && GLOBAL.get().is_none() {
            // The global pool is starting (`blitz-par-start`): look again next patrol. A
            // worker of another pool must not wait for that start here, asleep and counted.
            continue;
        }
        if !worth_rescue(destination(registry), guest) {
            continue;
        }
        if let Some(Taken { registry, guest }) = handoff.take(job) {
            let registry = destination(registry);
            // SAFETY: we took the frame out of its slot, so its owner waits on its latch
            // (the frame and the registry it named, whose thread it is in, stay alive
            // until the latch is set) and nobody else runs it. Its stores were made
            // before its Release store of the pointer, which our CAS read. The registry
            // pointer is an Arc's data pointer (`watch`, `destination`): every registry is
            // made by `Arc::new_cyclic`, and the global one lives in `GLOBAL`.
            let registry = unsafe {
                let head = job.cast_const().cast::<WatchHead>();
                *(*head).elapsed.get() = age;
                // Our own strong count: once the push below makes the rest visible, a
                // worker may run it and set the latch, the owner return and its pool be
                // dropped, all before `inject` has woken anyone (it reads the sleep state
                // after the push). The count keeps the registry until we are done.
                Arc::increment_strong_count(registry);
                Arc::from_raw(registry)
            };
            if guest {
                registry.active_guests.fetch_add(1, Ordering::Relaxed);
            }
            trace_event!(Rescue, job);
            // SAFETY: the frame is alive and ours to hand out (above); after the push
            // we no longer touch it.
            registry.inject(unsafe { JobRef::from_ptr(job) });
            // The last count if the pool was dropped meanwhile: the registry is then
            // dropped here.
            drop(registry);
            if !touched {
                hurry = HURRY_ROUNDS;
            }
        }
    }
    NEWEST.store(latest, Ordering::Relaxed);
    let mut quiet = QUIET.load(Ordering::Relaxed);
    if latest != newest {
        quiet = 0;
    } else if !watched {
        quiet += 1;
    }
    QUIET.store(quiet, Ordering::Relaxed);
    if quiet >= PATROL_ROUNDS {
        // Asked before `DEEP` is stored (and answered for good): a sleeper that reads this
        // `DEEP` learns with it whether it may wait without a timeout (`deep_wait`).
        let ready = asymmetric::ready();
        let (fenced, watched) = look_going_deep(&WATCHER, DEEP, slots().map(|slot| &slot.handoff));
        if !watched && (fenced || !ready) {
            QUIET.store(0, Ordering::Relaxed);
            return None;
        }
        // A watch was published as we went deep (or the heavy fence failed after a
        // registration that told the sleepers it would hold): patrol on. A sleeper may have
        // read `DEEP` meanwhile and wait for a nudge: ending the deep sleep nudges it.
        end_deep(me);
    }
    HURRY.store(hurry.saturating_sub(1), Ordering::Relaxed);
    Some(if soon || hurry > 0 {
        RESCUE_AFTER_NS
    } else {
        PATROL_NS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    /// The clock reading in this thread's slot.
    fn my_since() -> u64 {
        MY_SLOT.with(|claim| claim.0.handoff.since())
    }

    #[test]
    fn an_unindexed_drives_rest_goes_out_at_its_owners_promotion() {
        use crate::scheduler::{share, Share};
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for _ in 0..20 {
            let ((), rest) = pool.install(|| {
                watch(
                    0,
                    0x1000,
                    ticks(),
                    7u32,
                    |x, _elapsed| x + 1,
                    || {
                        // A promotion (here every frame's, as before a long stretch without
                        // joins) hands out the rest first: it is then no longer watched.
                        share(Share::Now);
                        assert!(MY_SLOT.with(|claim| !claim.0.handoff.is_watched()));
                    },
                )
            });
            // Handed out, and run once, by a thief or by the owner's wait.
            assert_eq!(rest, Err(8));
        }
        // Under a join recorded before the watch (its frame is older, and promoted first),
        // and with a drive nested in the first half, watched once the outer rest has gone
        // out: each promotion takes only its own watch's rest, each rest runs once.
        for _ in 0..20 {
            let ((inner, outer), other) = pool.install(|| {
                crate::join(
                    || {
                        watch(
                            0,
                            0x1000,
                            ticks(),
                            7u32,
                            |x, _elapsed| x + 1,
                            || {
                                share(Share::Now);
                                let ((), inner) = watch(
                                    0,
                                    0x2000,
                                    ticks(),
                                    70u32,
                                    |x, _elapsed| x + 2,
                                    || share(Share::Now),
                                );
                                inner
                            },
                        )
                    },
                    || 5u32,
                )
            });
            assert_eq!((outer, inner, other), (Err(8), Err(72), 5));
        }
    }

    #[test]
    fn touches_move_only_their_own_drives_watch() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (drive, other) = (0x1000usize, 0x2000usize);
        let start = ticks();
        let ((), rest) = pool.install(|| {
            watch(
                0,
                drive,
                start,
                7u32,
                |x, _elapsed| x + 1,
                || {
                    assert_eq!(my_since(), start);
                    // Another drive's leaf (a stolen job, a nested drive) leaves it.
                    touch(other, start + 10);
                    assert_eq!(my_since(), start);
                    touch(0, start + 20);
                    assert_eq!(my_since(), start);
                    // A leaf of the watched drive moves it.
                    touch(drive, start + 30);
                    assert_eq!(my_since(), start + 30);
                },
            )
        });
        // However the watch ended (rescued or not), the rest ran once.
        assert!(matches!(rest, Ok(7) | Err(8)));
        // Once the watch has ended, the drive's leaves touch nothing.
        pool.install(|| {
            let before = my_since();
            touch(drive, before.wrapping_add(40));
            assert_eq!(my_since(), before);
        });
        // A loop watched without a name (the indexed driver's first chunks) is never touched.
        let ((), rest) = pool.install(|| {
            watch(
                2,
                0,
                start,
                7u32,
                |x, _elapsed| x + 1,
                || {
                    touch(0, start + 50);
                    assert_eq!(my_since(), start);
                },
            )
        });
        assert!(matches!(rest, Ok(7) | Err(8)));
    }
}
