//! loom models of the lock-free protocols: the deque (push, pop and steal racing), the latch
//! (set racing with falling asleep), sleep/wake (a job posted while a worker goes to sleep
//! is never lost), the watch's hand-off (the rest of a loop goes to exactly one of its
//! owner and the watchman) and `try_join`'s chained cancel. Run with `RUSTFLAGS="--cfg loom" cargo test --release --lib loom_models`.
//!
//! Futex waits are modelled as "yield and return spuriously" (`sync::futex`), so a lost
//! wake-up appears as a thread that never leaves its wait loop, which loom reports.

#![allow(missing_docs)]

#[cfg(test)]
mod models {
    use crate::scheduler::deque::{Deque, Steal};
    use crate::scheduler::injector::Injector;
    use crate::scheduler::job::{JobHeader, JobRef};
    use crate::scheduler::latch::{CoreLatch, SpinLatch};
    use crate::scheduler::registry::Registry;
    use crate::scheduler::sleep::{IdleState, Sleep, SleepWord};
    use crate::scheduler::watch_slot::{look_going_deep, Handoff};
    use crate::sync::{AtomicBool, AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    fn job(n: usize) -> JobRef {
        // SAFETY: fake job references, compared but never executed.
        unsafe { JobRef::new(std::ptr::without_provenance::<JobHeader>(n * 8)) }
    }

    /// A thread that sets `latch`, then lets go of `word` (the latch's owner's sleep word).
    fn spawn_setter(latch: &Arc<SpinLatch>, word: &Arc<SleepWord>) -> thread::JoinHandle<()> {
        let (latch, word) = (latch.clone(), word.clone());
        thread::spawn(move || {
            // SAFETY: the Arcs keep the latch and the word alive in the model; the models
            // assert what the scheduler relies on instead.
            unsafe { SpinLatch::set(&*latch) };
            drop(word);
        })
    }

    /// A worker's wait for `latch` (`Seat::wait_until`), which may sleep on `word`.
    fn wait_on_latch(sleep: &Sleep, latch: &SpinLatch, word: &SleepWord) {
        let mut idle = IdleState::new();
        sleep.start_looking();
        sleep.announce_sleepy(&mut idle);
        while !latch.core.probe() {
            if !sleep.sleep(&mut idle, &latch.core, word, || false) {
                sleep.announce_sleepy(&mut idle);
            }
        }
        sleep.work_found();
    }

    #[test]
    fn deque_push_pop_steal() {
        loom::model(|| {
            let d = Arc::new(Deque::new());
            let thief = {
                let d = d.clone();
                thread::spawn(move || match d.steal() {
                    Steal::Success(j) => Some(j),
                    _ => None,
                })
            };
            // SAFETY: this thread is the owner.
            unsafe {
                d.push(job(1));
                d.push(job(2));
            }
            // SAFETY: as above.
            let popped = unsafe { d.pop() };
            // SAFETY: as above.
            let popped2 = unsafe { d.pop() };
            let stolen = thief.join().unwrap();
            let mut all: Vec<JobRef> = [popped, popped2, stolen].into_iter().flatten().collect();
            all.sort_by_key(|j| j.as_ptr() as usize);
            assert_eq!(all, vec![job(1), job(2)], "each job taken exactly once");
        });
    }

    #[test]
    fn deque_last_job_race() {
        loom::model(|| {
            let d = Arc::new(Deque::new());
            // SAFETY: owner.
            unsafe { d.push(job(1)) };
            let thief = {
                let d = d.clone();
                thread::spawn(move || matches!(d.steal(), Steal::Success(_)))
            };
            // SAFETY: owner.
            let popped = unsafe { d.pop() }.is_some();
            let stolen = thief.join().unwrap();
            assert!(
                popped ^ stolen,
                "exactly one of owner and thief gets the last job"
            );
        });
    }

    #[test]
    fn latch_set_races_with_sleep() {
        loom::model(|| {
            let word = Arc::new(SleepWord::new());
            let latch = Arc::new(SpinLatch::new(&word));
            let setter = {
                let latch = latch.clone();
                let _word = word.clone();
                // SAFETY: the Arc keeps the latch alive; the word outlives it (held by _word).
                thread::spawn(move || unsafe { SpinLatch::set(&*latch) })
            };
            while !latch.core.probe() {
                Sleep::sleep_on_latch(&latch.core, &word);
            }
            setter.join().unwrap();
        });
    }

    #[test]
    fn posted_job_wakes_or_is_seen_by_sleeper() {
        loom::model(|| {
            let sleep = Arc::new(Sleep::new());
            let word = Arc::new(SleepWord::new());
            let job_posted = Arc::new(AtomicBool::new(false));
            let poster = {
                let (sleep, word, job_posted) = (sleep.clone(), word.clone(), job_posted.clone());
                thread::spawn(move || {
                    job_posted.store(true, Ordering::Release);
                    sleep.new_jobs(1, true, true, || sleep.wake(&word));
                })
            };
            // The worker: announce sleepy, look once more, sleep; it must never sleep through
            // the posted job.
            let latch = CoreLatch::new();
            let mut idle = IdleState::new();
            sleep.start_looking();
            sleep.announce_sleepy(&mut idle);
            loop {
                if job_posted.load(Ordering::Acquire) {
                    break;
                }
                let slept = sleep.sleep(&mut idle, &latch, &word, || {
                    job_posted.load(Ordering::Acquire)
                });
                if !slept {
                    // Decided not to sleep (new jobs): search again next round.
                    sleep.announce_sleepy(&mut idle);
                }
            }
            sleep.work_found();
            poster.join().unwrap();
            assert_eq!(
                sleep.sleeping_workers(),
                0,
                "the sleeping count is back to zero"
            );
        });
    }

    /// A pool waker (which takes the sleeper off the sleeping count itself) racing with a
    /// latch's setter (which leaves the count to the sleeper) and with the sleeper's own
    /// registration: whoever wakes it, the sleeper is counted out exactly once. Three threads
    /// are too many for an exhaustive search (it ran past 15 minutes): at most two preemptions
    /// per execution, which covers each waker acting between any two steps of the sleeper.
    #[test]
    fn sleeper_is_counted_out_exactly_once() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(2);
        builder.check(|| {
            let sleep = Arc::new(Sleep::new());
            let word = Arc::new(SleepWord::new());
            let pool_waker = {
                let (sleep, word) = (sleep.clone(), word.clone());
                thread::spawn(move || {
                    sleep.new_jobs(1, true, true, || sleep.wake(&word));
                })
            };
            let latch = Arc::new(SpinLatch::new(&word));
            let setter = spawn_setter(&latch, &word);
            wait_on_latch(&sleep, &latch, &word);
            pool_waker.join().unwrap();
            setter.join().unwrap();
            assert_eq!(sleep.sleeping_workers(), 0, "counted out exactly once");
        });
    }

    /// As [`sleeper_is_counted_out_exactly_once`], with a nudge (`SleepWord::nudge`, a watch
    /// ending the watchman's deep sleep) in place of the latch's setter: a nudge never ends
    /// the sleep nor counts the sleeper out (NUDGED is asleep and counted), and a pool waker
    /// that finds the word NUDGED counts it out as it does a COUNTED one. The sleeper is
    /// woken by the pool waker (a posted job) alone, and counted out exactly once.
    #[test]
    fn nudged_sleeper_is_counted_out_exactly_once() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(2);
        builder.check(|| {
            let sleep = Arc::new(Sleep::new());
            let word = Arc::new(SleepWord::new());
            let job_posted = Arc::new(AtomicBool::new(false));
            let pool_waker = {
                let (sleep, word, job_posted) = (sleep.clone(), word.clone(), job_posted.clone());
                thread::spawn(move || {
                    job_posted.store(true, Ordering::Release);
                    sleep.new_jobs(1, true, true, || sleep.wake(&word));
                })
            };
            let nudger = {
                let word = word.clone();
                thread::spawn(move || {
                    word.nudge();
                })
            };
            let latch = CoreLatch::new();
            let mut idle = IdleState::new();
            sleep.start_looking();
            sleep.announce_sleepy(&mut idle);
            while !job_posted.load(Ordering::Acquire) {
                // The wait of a worker asleep while nobody patrols (`watch::sleep_watching`
                // reading `DEEP`): no timeout, nudges taken back.
                let slept = sleep.sleep_with(
                    &mut idle,
                    &latch,
                    &word,
                    || job_posted.load(Ordering::Acquire),
                    |word| while word.wait_once(|| None) {},
                );
                if !slept {
                    sleep.announce_sleepy(&mut idle);
                }
            }
            sleep.work_found();
            pool_waker.join().unwrap();
            nudger.join().unwrap();
            assert_eq!(sleep.sleeping_workers(), 0, "counted out exactly once");
            assert!(!word.is_blocked(), "the sleeper left its sleep");
        });
    }

    /// A watch ending the deep sleep (`watch::resume_patrols`: `WATCHER` from `DEEP` to
    /// `NOBODY`, then a nudge of each sleeper) racing with a worker going to sleep and making
    /// its first wait (`watch::sleep_watching`, whose `look` reads `WATCHER` and waits without
    /// a timeout on `DEEP`). Checked: when the sleeper makes its futex wait on COUNTED, it
    /// either saw the watch or its word no longer holds COUNTED (a nudge is pending, so the
    /// wait returns at once, or the nudger's futex wake that follows its CAS wakes it). Fails
    /// if the nudge leaves the word as it is (a futex wake alone, lost when it comes between
    /// the sleeper's look and its wait), or without the nudger's SeqCst fence.
    #[test]
    fn nudge_is_seen_or_pending() {
        const NOBODY: usize = 0;
        const DEEP: usize = 1;
        loom::model(|| {
            let sleep = Arc::new(Sleep::new());
            let word = Arc::new(SleepWord::new());
            let watcher = Arc::new(AtomicUsize::new(DEEP));
            let nudger = {
                let (word, watcher) = (word.clone(), watcher.clone());
                thread::spawn(move || {
                    let _ =
                        watcher.compare_exchange(DEEP, NOBODY, Ordering::SeqCst, Ordering::Relaxed);
                    word.nudge();
                })
            };
            let latch = CoreLatch::new();
            let mut idle = IdleState::new();
            sleep.start_looking();
            sleep.announce_sleepy(&mut idle);
            let mut nudger = Some(nudger);
            let slept = sleep.sleep_with(
                &mut idle,
                &latch,
                &word,
                || false,
                |word| {
                    let mut saw = false;
                    // The first wait of the sleep, as `sleep_watching` makes it.
                    let waited = word.wait_once(|| {
                        saw = watcher.load(Ordering::SeqCst) != DEEP;
                        saw.then_some(1)
                    });
                    assert!(waited, "nobody wakes the sleeper");
                    // Whatever the nudger has still to do happens before the futex wait would
                    // block for good: the word must then tell the wait to return.
                    nudger.take().unwrap().join().unwrap();
                    assert!(
                        saw || !word.is_counted(),
                        "the sleeper waits without a timeout on COUNTED, and missed the watch"
                    );
                },
            );
            assert!(slept, "the sleeper slept");
            sleep.work_found();
            assert_eq!(sleep.sleeping_workers(), 0, "counted out once");
        });
    }

    /// A watch published as the patroller goes deep (`watch::patrol_round` through
    /// `look_going_deep`: `DEEP` stored, the heavy side of the asymmetric fence, a look at the
    /// slots) against its publisher (`Watch::publish` through `Handoff::publish_and_look`:
    /// the pointer stored, the light side, a Relaxed load of `WATCHER`). Both sides are
    /// `fence(SeqCst)` here, as `sync::asymmetric` argues `membarrier` and a compiler fence
    /// act. Checked: the patroller sees the watch (and patrols on), or the publisher reads
    /// `DEEP` (and ends the deep sleep itself, nudging every sleeper): never neither, which
    /// would leave the watch unpatrolled while every sleeper waits without a timeout. Fails
    /// without either fence (store buffering lets both loads read the old values).
    #[test]
    fn watch_published_as_the_patrol_goes_deep_is_seen_or_ends_it() {
        const DEEP: usize = 1;
        // A patroller's sleep word's address, as `WATCHER` holds it while it patrols.
        const PATROLLER: usize = 64;
        loom::model(|| {
            let watcher = Arc::new(AtomicUsize::new(PATROLLER));
            let slot = Arc::new(Handoff::new());
            let publisher = {
                let (watcher, slot) = (watcher.clone(), slot.clone());
                thread::spawn(move || {
                    let frame = std::ptr::without_provenance_mut::<JobHeader>(8);
                    slot.publish_and_look(frame, fake_registry(1), 0, false, &watcher) == DEEP
                })
            };
            let (fenced, watched) = look_going_deep(&watcher, DEEP, [&*slot]);
            assert!(fenced, "under loom the heavy side is a SeqCst fence");
            let ends_it = publisher.join().unwrap();
            assert!(
                watched || ends_it,
                "the patroller went deep without seeing the watch, and its publisher did not \
                 see `DEEP`"
            );
        });
    }

    /// A worker waiting on a latch set by another thread (a worker of another pool, for
    /// `install` and `in_place_scope` across pools) may return as soon as it sees the latch set,
    /// and then its seat, sleep word included, may be freed (its pool dropped) and the memory
    /// reused. So once the waiter can leave, the setter must not touch the sleep word again.
    /// Reuse is modelled by the waiter blocking the word again after it left: a late wake by
    /// the setter would move it back to AWAKE.
    #[test]
    fn latch_setter_leaves_the_sleep_word_alone_once_the_waiter_can_leave() {
        loom::model(|| {
            let sleep = Arc::new(Sleep::new());
            let word = Arc::new(SleepWord::new());
            let latch = Arc::new(SpinLatch::new(&word));
            let setter = spawn_setter(&latch, &word);
            wait_on_latch(&sleep, &latch, &word);
            // The waiter has left: its word now belongs to someone else, who blocks on it.
            word.block();
            setter.join().unwrap();
            assert!(
                word.is_blocked(),
                "the setter touched the waiter's sleep word after the waiter could leave"
            );
        });
    }

    /// A watched loop's frame: what the owner wrote before publishing it (`rest`), and what
    /// the watchman writes before handing it out (`elapsed`).
    #[repr(C)]
    struct Frame {
        header: JobHeader,
        rest: loom::cell::UnsafeCell<u64>,
        elapsed: loom::cell::UnsafeCell<u64>,
    }

    /// A frame's address, sent to the watchman as the real one reaches it through a slot.
    struct FramePtr(*mut Frame);
    // SAFETY: the model's threads reach the frame only as the watch's protocol lets them,
    // which is what the model checks (loom's cells report any unordered access).
    unsafe impl Send for FramePtr {}

    fn fake_registry(n: usize) -> *const Registry {
        std::ptr::without_provenance(n * 64)
    }

    /// The watch's hand-off (`watch_slot`), two watches in a row on one slot: the owner
    /// publishes a frame, then takes it back, or, if the watchman took it, pops it from the
    /// injector as the worker would and "runs" it, before it watches the next loop. The
    /// watchman looks at the slot twice and takes what it finds. Checked: each rest goes to
    /// exactly one of them, the watchman's view after a take is that watch's (its registry
    /// and guest flag, not the first watch's), the worker sees what the owner wrote into the
    /// frame and what the watchman wrote after taking it, and nothing is handed out twice.
    #[test]
    fn watch_slot_hands_the_rest_to_exactly_one() {
        /// The frames' `execute`, never called: the model runs its frames itself.
        ///
        /// # Safety
        /// None needed (it only panics); `unsafe` for the type of `JobHeader::execute`.
        unsafe fn never_run(_: std::ptr::NonNull<JobHeader>) {
            unreachable!("the model runs frames itself");
        }
        loom::model(|| {
            let slot = Arc::new(Handoff::new());
            let injector = Arc::new(Injector::new(2));
            let frames: Vec<*mut Frame> = (0..2)
                .map(|_| {
                    Box::into_raw(Box::new(Frame {
                        header: JobHeader { execute: never_run },
                        rest: loom::cell::UnsafeCell::new(0),
                        elapsed: loom::cell::UnsafeCell::new(0),
                    }))
                })
                .collect();
            let watchman = {
                let (slot, injector) = (slot.clone(), injector.clone());
                let ptrs: Vec<FramePtr> = frames.iter().map(|&f| FramePtr(f)).collect();
                thread::spawn(move || {
                    let mut taken = 0;
                    for _ in 0..2 {
                        let job = slot.watched();
                        if job.is_null() {
                            loom::thread::yield_now();
                            continue;
                        }
                        let Some(t) = slot.take(job) else { continue };
                        let i = ptrs
                            .iter()
                            .position(|p| p.0.cast::<JobHeader>() == job)
                            .expect("a published frame");
                        assert_eq!(t.registry, fake_registry(i + 1), "watch {i}'s registry");
                        assert_eq!(t.guest, i == 1, "watch {i}'s guest flag");
                        // SAFETY: we took the frame, so it is alive (its owner waits for it)
                        // and ours until we push it.
                        unsafe {
                            (*ptrs[i].0).elapsed.with_mut(|e| *e = 100 + i as u64);
                            injector.push(JobRef::new(job));
                        }
                        taken += 1;
                    }
                    taken
                })
            };
            let mut lost = 0;
            for (i, &frame) in frames.iter().enumerate() {
                // SAFETY: not published yet: ours alone.
                unsafe { (*frame).rest.with_mut(|r| *r = 10 + i as u64) };
                slot.publish(frame.cast(), fake_registry(i + 1), i as u64, i == 1);
                if slot.reclaim() {
                    continue;
                }
                lost += 1;
                // Taken: wait for it in the injector, and run it as its worker would.
                let job = loop {
                    if let Some(job) = injector.pop() {
                        break job;
                    }
                    loom::thread::yield_now();
                };
                assert_eq!(
                    job.as_ptr(),
                    frame.cast(),
                    "the rest handed out is this watch's"
                );
                // SAFETY: popped from the injector: the watchman is done with the frame.
                unsafe {
                    assert_eq!((*frame).rest.with(|r| *r), 10 + i as u64);
                    assert_eq!((*frame).elapsed.with(|e| *e), 100 + i as u64);
                }
            }
            assert_eq!(
                watchman.join().unwrap(),
                lost,
                "every rest taken was run once"
            );
            assert!(injector.pop().is_none(), "nothing handed out twice");
            for frame in frames {
                // SAFETY: made by `Box::into_raw` above; nobody uses it any more.
                drop(unsafe { Box::from_raw(frame) });
            }
        });
    }

    /// `try_join`'s cancellation (`future_slot.rs`, `CancelNode`): a cancel of a node is seen
    /// through the token of every node hung from it, and a node's own bit is its own: a
    /// grandchild's token sees the root's cancel once the canceller is joined (as the waiting
    /// side of a join is, through its latch), and a check that races with it sees either.
    #[test]
    fn cancel_node_sees_its_parents_cancel() {
        use crate::scheduler::future_slot::{CancelNode, CancelToken};
        loom::model(|| {
            let root = Arc::new(CancelNode::new(CancelToken::NONE));
            let child = Arc::new(CancelNode::new(root.token()));
            let grandchild = CancelNode::new(child.token());
            let canceller = {
                let root = root.clone();
                thread::spawn(move || root.cancel())
            };
            // SAFETY: the Arcs and the local keep every node of the chain alive.
            let _racing = unsafe { grandchild.token().is_cancelled() };
            assert!(!child.is_cancelled_here() && !grandchild.is_cancelled_here());
            canceller.join().unwrap();
            // SAFETY: as above.
            assert!(unsafe { grandchild.token().is_cancelled() });
            assert!(root.is_cancelled_here());
            // SAFETY: as above; `NONE` is never cancelled.
            assert!(!unsafe { CancelToken::NONE.is_cancelled() });
        });
    }
}
