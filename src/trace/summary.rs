//! Reading a trace: slices, what each thread did when, and the summary with its verdict.

use std::collections::HashMap;
use std::fmt;

use super::{EventKind as K, Trace};

/// What a slice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SliceKind {
    Leaf,
    Job,
    Sleep,
    Wait,
    Sort,
    Record,
}

/// What a thread does at a moment: its innermost slice's activity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Activity {
    Leaf,
    Job,
    Other,
    Idle,
    Asleep,
}

impl Activity {
    pub(crate) const ALL: [Activity; 5] = [
        Activity::Leaf,
        Activity::Job,
        Activity::Other,
        Activity::Idle,
        Activity::Asleep,
    ];
}

fn begins(kind: K) -> Option<SliceKind> {
    Some(match kind {
        K::LeafBegin => SliceKind::Leaf,
        K::JobBegin => SliceKind::Job,
        K::SleepBegin => SliceKind::Sleep,
        K::WaitBegin => SliceKind::Wait,
        K::SortBegin => SliceKind::Sort,
        K::RecordBegin => SliceKind::Record,
        _ => return None,
    })
}

fn ends(kind: K) -> Option<SliceKind> {
    Some(match kind {
        K::LeafEnd => SliceKind::Leaf,
        K::JobEnd => SliceKind::Job,
        K::SleepEnd => SliceKind::Sleep,
        K::WaitEnd => SliceKind::Wait,
        K::SortEnd => SliceKind::Sort,
        K::RecordEnd => SliceKind::Record,
        _ => return None,
    })
}

fn activity(stack: &[(SliceKind, u64, u64)]) -> Activity {
    match stack.last() {
        None => Activity::Idle,
        Some((kind, ..)) => match kind {
            SliceKind::Leaf => Activity::Leaf,
            SliceKind::Job => Activity::Job,
            SliceKind::Sort | SliceKind::Record => Activity::Other,
            SliceKind::Wait => Activity::Idle,
            SliceKind::Sleep => Activity::Asleep,
        },
    }
}

/// One slice of a thread's timeline.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slice {
    pub(crate) kind: SliceKind,
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// The begin event's `a` (a job's address, a sleep word, a sort phase).
    pub(crate) arg: u64,
    /// The end event's `a` (a leaf's items).
    pub(crate) end_arg: u64,
}

/// A thread's timeline: its slices (closed at the recording's edges: a slice open when the
/// recording started begins at 0, one open at its end ends there) and its activity segments.
pub(crate) struct Timeline {
    pub(crate) slices: Vec<Slice>,
    pub(crate) segments: Vec<(u64, u64, Activity)>,
}

/// The time up to which a thread's events tell what it did: the recording's end, or its
/// last event if its ring filled (what came after was dropped).
pub(crate) fn known_until(thread: &super::ThreadEvents, duration: u64) -> u64 {
    if thread.dropped > 0 {
        thread.events.last().map_or(0, |e| e.time_ns.min(duration))
    } else {
        duration
    }
}

pub(crate) fn timeline(events: &[super::Event], duration: u64) -> Timeline {
    // Ends whose begin came before the recording: open them at 0, outermost first.
    let mut stack: Vec<SliceKind> = Vec::new();
    let mut unmatched = Vec::new();
    for event in events {
        if let Some(kind) = begins(event.kind) {
            stack.push(kind);
        } else if let Some(kind) = ends(event.kind) {
            if let Some(at) = stack.iter().rposition(|&k| k == kind) {
                stack.truncate(at);
            } else {
                unmatched.push(kind);
            }
        }
    }
    let mut stack: Vec<(SliceKind, u64, u64)> =
        unmatched.iter().rev().map(|&kind| (kind, 0, 0)).collect();
    let mut slices = Vec::new();
    let mut segments: Vec<(u64, u64, Activity)> = Vec::new();
    let mut last = 0;
    let mut advance = |stack: &[(SliceKind, u64, u64)], to: u64, segments: &mut Vec<_>| {
        let to = to.min(duration);
        if to > last {
            let now = activity(stack);
            match segments.last_mut() {
                Some((_, end, a)) if *a == now && *end == last => *end = to,
                _ => segments.push((last, to, now)),
            }
            last = to;
        }
    };
    for event in events {
        let t = event.time_ns;
        if let Some(kind) = begins(event.kind) {
            advance(&stack, t, &mut segments);
            stack.push((kind, t, event.a));
        } else if let Some(kind) = ends(event.kind) {
            advance(&stack, t, &mut segments);
            if let Some(at) = stack.iter().rposition(|&(k, ..)| k == kind) {
                while stack.len() > at {
                    let (k, start, arg) = stack.pop().expect("nonempty");
                    slices.push(Slice {
                        kind: k,
                        start,
                        end: t,
                        arg,
                        end_arg: if k == kind { event.a } else { 0 },
                    });
                }
            }
        }
    }
    advance(&stack, duration, &mut segments);
    while let Some((kind, start, arg)) = stack.pop() {
        slices.push(Slice {
            kind,
            start,
            end: duration.max(start),
            arg,
            end_arg: 0,
        });
    }
    slices.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    Timeline { slices, segments }
}

/// One thread's line of a [`Summary`].
///
/// ```
/// let ((), trace) = blitz_par::trace::record(|| {});
/// let line = &trace.summary().threads[0];
/// assert!(line.busy_ns + line.idle_ns + line.asleep_ns <= trace.duration_ns());
/// ```
#[derive(Clone, Debug)]
pub struct ThreadSummary {
    /// The thread's name.
    pub name: String,
    /// Time running leaves, jobs or other work, in ns.
    pub busy_ns: u64,
    /// Time awake with nothing to run (looking for work, or waiting on a latch), in ns.
    pub idle_ns: u64,
    /// Time asleep, in ns.
    pub asleep_ns: u64,
    /// Jobs it stole.
    pub steals: u64,
    /// Leaves it ran.
    pub leaves: u64,
}

/// What a [`Trace`] says. `Display` prints it as a short table and the verdict.
///
/// ```
/// use blitz_par::prelude::*;
///
/// let ((), trace) = blitz_par::trace::record(|| (0..1000).into_par_iter().with_max_len(1).for_each(|_| ()));
/// let summary = trace.summary();
/// assert_eq!(summary.leaves_by_size.iter().map(|&(_, n)| n).sum::<u64>(), summary.leaves);
/// ```
#[derive(Clone, Debug)]
pub struct Summary {
    /// How long the recording lasted, in ns.
    pub duration_ns: u64,
    /// One line per thread, by track.
    pub threads: Vec<ThreadSummary>,
    /// Steals over all threads.
    pub steals: u64,
    /// Splits of the drives.
    pub splits: u64,
    /// Leaves of the drives.
    pub leaves: u64,
    /// Leaves by their item count: `(n, count)` counts the leaves of `n` to `2n - 1` items,
    /// `n` a power of two.
    pub leaves_by_size: Vec<(u64, u64)>,
    /// The longest leaf, in ns.
    pub largest_leaf_ns: u64,
    /// The items of that leaf.
    pub largest_leaf_items: u64,
    /// The median leaf, in ns.
    pub median_leaf_ns: u64,
    /// The longest stretch a thread that ran work spent awake with nothing to run between two
    /// pieces of it, in ns.
    pub longest_wait_ns: u64,
    /// Jobs that waited in a queue while a thread slept, not woken for them.
    pub jobs_waited_while_asleep: u64,
    /// Events dropped by full rings.
    pub dropped: u64,
    /// What to do about it, in one line.
    pub verdict: String,
}

/// A job waits this long, with a thread asleep and not woken all along, to count as one
/// that waited while threads slept.
const WAITED_NS: u64 = 5_000_000;
/// The work is too fine when at least this many leaves ran, and the threads that ran them
/// spent less than half their busy time inside them (the rest: splitting, joining, taking
/// jobs, recording). A share, not a length: a leaf's length depends on the machine and on
/// instrumentation (ThreadSanitizer makes each one tens of times longer), the share does not.
const FINE_LEAVES: u64 = 100;
/// One leaf taking this share of the recording is the heavy item.
const HEAVY_SHARE: f64 = 0.5;
/// Busy less than this share of the time: too little parallel work.
const IDLE_SHARE: f64 = 0.5;

pub(crate) fn summarize(trace: &Trace) -> Summary {
    let duration = trace.duration_ns.max(1);
    let mut threads = Vec::new();
    let mut leaf_times = Vec::new();
    let mut leaf_total = 0u64;
    let mut largest = (0u64, 0u64);
    let mut longest_wait = 0;
    let (mut working, mut working_busy) = (0u64, 0u64);
    let mut splits = 0;
    let mut by_size: HashMap<u64, u64> = HashMap::new();
    // Jobs pushed, by address: when; taken: when.
    let mut pushed: HashMap<u64, u64> = HashMap::new();
    // Jobs' waits: (pushed, taken, the thread that took it).
    let mut waits: Vec<(u64, u64, usize)> = Vec::new();
    // Sleeps: (word, start, end); wakes: word -> times.
    let mut sleeps: Vec<(usize, u64, u64, u64)> = Vec::new();
    let mut wakes: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut all: Vec<(u64, super::EventKind, u64, usize)> = Vec::new();
    for (row, thread) in trace.threads.iter().enumerate() {
        let line = timeline(&thread.events, known_until(thread, duration));
        let mut spent = [0u64; 5];
        // A thread that ran work (a leaf or a job) waited for work when idle between two
        // pieces of it; a thread that ran none (a caller blocked on an outside pool, a pool
        // with nothing to do) only waited, and is left out of the busy share.
        let works = line
            .slices
            .iter()
            .any(|s| matches!(s.kind, SliceKind::Leaf | SliceKind::Job));
        let until = known_until(thread, duration);
        for &(s, e, a) in &line.segments {
            spent[a as usize] += e - s;
            if works && a == Activity::Idle && s > 0 && e < until {
                longest_wait = longest_wait.max(e - s);
            }
        }
        if works {
            working += 1;
            working_busy += spent[0] + spent[1] + spent[2];
        }
        let mut leaves = 0;
        for slice in &line.slices {
            match slice.kind {
                SliceKind::Leaf => {
                    leaves += 1;
                    let time = slice.end - slice.start;
                    leaf_times.push(time);
                    leaf_total += time;
                    if time > largest.0 {
                        largest = (time, slice.end_arg);
                    }
                    let items = slice.end_arg.max(1);
                    *by_size.entry(1 << items.ilog2()).or_default() += 1;
                }
                SliceKind::Sleep => sleeps.push((row, slice.arg, slice.start, slice.end)),
                _ => {}
            }
        }
        let mut steals = 0;
        for event in &thread.events {
            match event.kind {
                K::Split => splits += 1,
                K::Steal => steals += 1,
                K::Wake => wakes.entry(event.a).or_default().push(event.time_ns),
                _ => {}
            }
            all.push((event.time_ns, event.kind, event.a, row));
        }
        threads.push(ThreadSummary {
            name: thread.name.to_string(),
            busy_ns: spent[0] + spent[1] + spent[2],
            idle_ns: spent[3],
            asleep_ns: spent[4],
            steals,
            leaves,
        });
    }
    // Jobs' waits: from a push to the first take after it.
    all.sort_by_key(|&(t, ..)| t);
    for &(t, kind, a, row) in &all {
        match kind {
            K::Promote | K::InjectPush | K::ScopeSpawn => {
                pushed.insert(a, t);
            }
            K::Steal | K::InjectPop | K::JobBegin => {
                if let Some(at) = pushed.remove(&a) {
                    waits.push((at, t, row));
                }
            }
            _ => {}
        }
    }
    for times in wakes.values_mut() {
        times.sort_unstable();
    }
    // A job waited while a thread slept: the thread that finally took it was asleep when it
    // was pushed, and nobody woke it for WAITED_NS or more (a wake lost, or never sent). A
    // sleeper of another pool, which could not have taken it, does not count.
    let jobs_waited_while_asleep = waits
        .iter()
        .filter(|&&(from, to, taker)| {
            to - from >= WAITED_NS
                && sleeps.iter().any(|&(row, word, start, end)| {
                    let woken = wakes
                        .get(&word)
                        .and_then(|w| w.iter().copied().find(|&t| t >= from))
                        .unwrap_or(end)
                        .min(end);
                    row == taker && start <= from && end > from && woken - from >= WAITED_NS
                })
        })
        .count() as u64;
    leaf_times.sort_unstable();
    let median = leaf_times.get(leaf_times.len() / 2).copied().unwrap_or(0);
    let leaves = leaf_times.len() as u64;
    let mut leaves_by_size: Vec<(u64, u64)> = by_size.into_iter().collect();
    leaves_by_size.sort_unstable();
    let steals = threads.iter().map(|t| t.steals).sum();
    let busy_share = working_busy as f64 / (duration as f64 * working.max(1) as f64);
    let share = largest.0 as f64 / duration as f64;
    let verdict = if threads.len() > 1 && share >= HEAVY_SHARE {
        let percent = (share * 100.0).round() as u64;
        if largest.1 == 1 {
            format!("one item took {percent}% of the time: split it")
        } else if largest.1 == 0 {
            format!("one leaf took {percent}% of the time: split its work")
        } else {
            format!(
                "one leaf of {} items took {percent}% of the time: split its heaviest item, \
                 or cap leaves with with_max_len",
                largest.1
            )
        }
    } else if leaves >= FINE_LEAVES && leaf_total.saturating_mul(2) < working_busy {
        format!(
            "leaves of {}: the work is too fine (threads spent {}% of their busy time in \
             leaves): give each leaf more (with_min_len, fold_chunks) or drop with_max_len",
            human(median),
            (leaf_total as f64 * 100.0 / working_busy.max(1) as f64).round() as u64
        )
    } else if jobs_waited_while_asleep > 0 {
        format!(
            "threads slept while {jobs_waited_while_asleep} job{} waited",
            if jobs_waited_while_asleep == 1 {
                ""
            } else {
                "s"
            }
        )
    } else if working > 1 && busy_share < IDLE_SHARE {
        format!(
            "threads were busy {}% of the time: too little parallel work for {} threads",
            (busy_share * 100.0).round() as u64,
            working
        )
    } else {
        format!(
            "no problem found: threads busy {}% of the time",
            (busy_share * 100.0).round() as u64
        )
    };
    Summary {
        duration_ns: duration,
        threads,
        steals,
        splits,
        leaves,
        leaves_by_size,
        largest_leaf_ns: largest.0,
        largest_leaf_items: largest.1,
        median_leaf_ns: median,
        longest_wait_ns: longest_wait,
        jobs_waited_while_asleep,
        dropped: trace.dropped(),
        verdict,
    }
}

/// A span of nanoseconds, readably.
pub(crate) fn human(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{} ms", ns / 1_000_000)
    } else if ns >= 1_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else if ns >= 10_000 {
        format!("{} us", ns / 1_000)
    } else if ns >= 1_000 {
        format!("{:.1} us", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "recorded {}", human(self.duration_ns))?;
        writeln!(
            f,
            "{:<24} {:>9} {:>9} {:>9} {:>7} {:>7}",
            "thread", "busy", "idle", "asleep", "steals", "leaves"
        )?;
        for t in &self.threads {
            let name: String = t.name.chars().take(24).collect();
            writeln!(
                f,
                "{:<24} {:>9} {:>9} {:>9} {:>7} {:>7}",
                name,
                human(t.busy_ns),
                human(t.idle_ns),
                human(t.asleep_ns),
                t.steals,
                t.leaves
            )?;
        }
        write!(
            f,
            "{} splits, {} leaves by items:",
            self.splits, self.leaves
        )?;
        for &(n, count) in &self.leaves_by_size {
            write!(f, " {n}..{}: {count}", 2 * n - 1)?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "largest leaf {} ({} items), median leaf {}, longest wait for work {}",
            human(self.largest_leaf_ns),
            self.largest_leaf_items,
            human(self.median_leaf_ns),
            human(self.longest_wait_ns)
        )?;
        if self.dropped > 0 {
            writeln!(f, "{} events dropped (rings full)", self.dropped)?;
        }
        writeln!(f, "verdict: {}", self.verdict)
    }
}
