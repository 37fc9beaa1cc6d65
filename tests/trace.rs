//! The `trace` feature: recording is complete and ordered per thread, changes no result, and
//! writes JSON in the trace-event format and well-formed SVG; each verdict of the summary on a
//! program made to show it.
#![cfg(feature = "trace")]

#[path = "common/watchdog.rs"]
mod watchdog;

use blitz_par::prelude::*;
use blitz_par::trace::{self, Event, EventKind, ThreadEvents, Trace};
use blitz_par::{ThreadPool, ThreadPoolBuilder};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Recording is process-wide: the tests of this file take turns, so that one test's
/// untraced work does not show up in another's trace.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

fn spin(d: Duration) {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn events(trace: &Trace) -> impl Iterator<Item = &Event> {
    trace.threads().iter().flat_map(|t| &t.events)
}

fn count(trace: &Trace, kind: EventKind) -> usize {
    events(trace).filter(|e| e.kind == kind).count()
}

/// Every leaf and split of a drive is there, each thread's events are in time order, and
/// leaves open and close in turn on each thread.
fn complete_and_ordered(threads: usize) {
    const N: u64 = 2_000;
    let pool = pool(threads);
    let _serial = serial();
    let (sum, trace) = trace::record(|| {
        pool.install(|| {
            (0..N as u32)
                .into_par_iter()
                .with_max_len(1)
                .map(|x| u64::from(x) * 3)
                .sum::<u64>()
        })
    });
    assert_eq!(sum, 3 * N * (N - 1) / 2);
    assert_eq!(trace.dropped(), 0);
    let leaves: Vec<&Event> = events(&trace)
        .filter(|e| e.kind == EventKind::LeafEnd)
        .collect();
    assert_eq!(leaves.len() as u64, N, "one leaf per item");
    assert!(leaves.iter().all(|e| e.a == 1));
    assert_eq!(count(&trace, EventKind::LeafBegin) as u64, N);
    assert_eq!(
        count(&trace, EventKind::Split) as u64,
        N - 1,
        "n - 1 splits"
    );
    assert_eq!(count(&trace, EventKind::RecordBegin), 1);
    assert_eq!(count(&trace, EventKind::RecordEnd), 1);
    for thread in trace.threads() {
        check_thread(thread, trace.duration_ns());
    }
    // Every stolen job was promoted first, and run by its thief.
    for thread in trace.threads() {
        for steal in thread.events.iter().filter(|e| e.kind == EventKind::Steal) {
            assert!(
                events(&trace).any(|e| e.kind == EventKind::Promote
                    && e.a == steal.a
                    && e.time_ns <= steal.time_ns),
                "a steal without its promotion"
            );
            assert!(thread
                .events
                .iter()
                .any(|e| e.kind == EventKind::JobBegin && e.a == steal.a));
        }
    }
    if threads == 1 {
        assert_eq!(count(&trace, EventKind::Steal), 0);
    }
}

fn check_thread(thread: &ThreadEvents, duration: u64) {
    assert!(
        thread
            .events
            .windows(2)
            .all(|w| w[0].time_ns <= w[1].time_ns),
        "{}: events out of order",
        thread.name
    );
    assert!(thread.events.iter().all(|e| e.time_ns <= duration));
    let mut in_leaf = false;
    for e in &thread.events {
        match e.kind {
            EventKind::LeafBegin => {
                assert!(!in_leaf, "{}: a leaf inside a leaf", thread.name);
                in_leaf = true;
            }
            EventKind::LeafEnd => {
                assert!(in_leaf, "{}: a leaf ends that did not begin", thread.name);
                in_leaf = false;
            }
            _ => {}
        }
    }
    assert!(!in_leaf, "{}: a leaf that never ended", thread.name);
}

/// The leaves of one chunk loop share their boundaries: a leaf after the first of its loop
/// begins at the previous leaf's end, without a clock reading of its own.
#[test]
fn consecutive_leaves_share_a_reading() {
    const N: u64 = 100_000;
    let pool = pool(1);
    let _serial = serial();
    let (sum, trace) = trace::record(|| {
        pool.install(|| {
            (0..N as u32)
                .into_par_iter()
                .with_max_len(64)
                .map(u64::from)
                .sum::<u64>()
        })
    });
    assert_eq!(sum, N * (N - 1) / 2);
    assert_eq!(trace.dropped(), 0);
    let items: u64 = events(&trace)
        .filter(|e| e.kind == EventKind::LeafEnd)
        .map(|e| e.a)
        .sum();
    assert_eq!(items, N);
    let mut shared = 0;
    for thread in trace.threads() {
        check_thread(thread, trace.duration_ns());
        shared += thread
            .events
            .windows(2)
            .filter(|w| {
                w[0].kind == EventKind::LeafEnd
                    && w[1].kind == EventKind::LeafBegin
                    && w[0].time_ns == w[1].time_ns
            })
            .count();
    }
    assert!(shared > 0, "no leaf began at the previous one's end");
}

/// A leaf shares a reading only with the previous leaf of its own loop: the first leaf of a
/// call begins at a reading of its own, not at the end of the last call's last leaf, so the
/// time between two calls is in no leaf.
#[test]
fn the_time_between_two_calls_is_in_no_leaf() {
    let _serial = serial();
    let v: Vec<u64> = (0..1000).collect();
    let (sum, trace) = trace::record(|| {
        let first = v.par_iter().sum::<u64>();
        std::thread::sleep(Duration::from_millis(200));
        first + v.par_iter().sum::<u64>()
    });
    assert_eq!(sum, 2 * 499_500);
    for thread in trace.threads() {
        check_thread(thread, trace.duration_ns());
        let mut begin = None;
        for e in &thread.events {
            match e.kind {
                EventKind::LeafBegin => begin = Some(e.time_ns),
                EventKind::LeafEnd => {
                    let length = e.time_ns - begin.take().expect("a leaf begins before it ends");
                    // The sleep is 200 ms; a leaf of 1,000 additions, preempted, not that long.
                    assert!(
                        length < 100_000_000,
                        "a leaf of {length} ns spans the sleep"
                    );
                }
                _ => {}
            }
        }
    }
}

/// A loop of a few heavy items called again from outside the pools: its first call's rest
/// is rescued (the watchman hands it out once the first item has run `RESCUE_NS`); the next
/// call of the same loop on the same thread is not watched, but split and shared before its
/// first item ends: the calling thread promotes halves before its first leaf ends, and
/// nothing is rescued.
#[test]
fn a_heavy_loop_called_again_shares_before_its_first_item_ends() {
    let _serial = serial();
    if blitz_par::current_num_threads() < 2 {
        return; // a pool of one thread watches nothing
    }
    let call = || {
        (0..8u64)
            .into_par_iter()
            .map(|i| {
                spin(Duration::from_millis(2));
                i
            })
            .sum::<u64>()
    };
    // The watchman may come late on a loaded machine, after the first item: call until a
    // rescue is seen.
    let rescued = (0..20).any(|_| {
        let (sum, trace) = trace::record(call);
        assert_eq!(sum, 28);
        count(&trace, EventKind::Rescue) > 0
    });
    assert!(rescued, "no call of 8 items of 2 ms was rescued");
    let (sum, trace) = trace::record(call);
    assert_eq!(sum, 28);
    assert_eq!(
        count(&trace, EventKind::Rescue),
        0,
        "the loop was watched again"
    );
    let me = std::thread::current();
    let caller = trace
        .threads()
        .iter()
        .find(|t| Some(&*t.name) == me.name())
        .expect("the calling thread's events");
    let first = |kind| caller.events.iter().position(|e| e.kind == kind);
    let promoted = first(EventKind::Promote).expect("the caller shared halves");
    let leaf_end = first(EventKind::LeafEnd).expect("the caller ran an item");
    assert!(
        promoted < leaf_end,
        "the caller's first item ended before it shared anything"
    );
}

#[test]
fn events_complete_and_ordered_on_1_thread() {
    complete_and_ordered(1);
}

#[test]
fn events_complete_and_ordered_on_2_threads() {
    complete_and_ordered(2);
}

#[test]
fn events_complete_and_ordered_on_16_threads() {
    complete_and_ordered(16);
}

#[test]
fn traced_results_equal_untraced() {
    let pool = pool(4);
    let work = || {
        pool.install(|| {
            let v: Vec<u64> = (0..50_000u64)
                .into_par_iter()
                .map(|x| x * x % 1009)
                .collect();
            let sum: u64 = v.par_iter().sum();
            let mut sorted = v.clone();
            sorted.par_sort();
            let (a, b) = blitz_par::join(|| v.iter().max().copied(), || v.len());
            let mut spawned = Vec::new();
            blitz_par::scope(|s| {
                s.spawn(|_| spawned.push(7u64));
            });
            (v, sum, sorted, a, b, spawned)
        })
    };
    let untraced = work();
    let _serial = serial();
    let (traced, trace) = trace::record(work);
    assert!(traced == untraced);
    assert!(count(&trace, EventKind::SortBegin) >= 1);
    assert_eq!(
        count(&trace, EventKind::SortBegin),
        count(&trace, EventKind::SortEnd)
    );
    assert_eq!(count(&trace, EventKind::ScopeSpawn), 1);
}

#[test]
fn nested_record_gets_its_own_stretch() {
    let _serial = serial();
    let ((inner, _), outer) = trace::record(|| {
        let _ = (0..1000).into_par_iter().sum::<i32>();
        trace::record(|| (0..10).into_par_iter().with_max_len(1).sum::<i32>())
    });
    assert_eq!(inner, 45);
    assert!(count(&outer, EventKind::LeafEnd) >= 10);
}

/// Spawned futures: hand-overs and cancellations are recorded.
#[test]
fn spawn_future_events() {
    let pool = pool(2);
    let _serial = serial();
    let (value, trace) = trace::record(|| {
        let f = pool.spawn_future(|| 21 * 2);
        futures::executor::block_on(f)
    });
    assert_eq!(value, 42);
    assert_eq!(count(&trace, EventKind::FutureHandOver), 1);
    assert!(count(&trace, EventKind::InjectPush) >= 1);
}

// ---- The Chrome trace-event JSON ----

fn sample_trace() -> Trace {
    let pool = pool(4);
    let _serial = serial();
    trace::record(|| {
        pool.install(|| {
            (0..2000u64)
                .into_par_iter()
                .map(|x| {
                    if x % 100 == 0 {
                        spin(Duration::from_micros(200));
                    }
                    x
                })
                .sum::<u64>()
        })
    })
    .1
}

#[test]
fn json_has_the_trace_event_formats_required_fields() {
    let trace = sample_trace();
    let json: serde_json::Value = serde_json::from_str(&trace.to_chrome_json()).unwrap();
    let events = json["traceEvents"].as_array().expect("a traceEvents array");
    assert!(!events.is_empty());
    let mut starts = std::collections::HashSet::new();
    let mut finishes = std::collections::HashSet::new();
    let mut slices = 0;
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["name"].is_string(), "name: {e}");
        assert!(e["pid"].is_u64() && e["tid"].is_u64(), "pid, tid: {e}");
        match ph {
            "M" => assert!(e["args"].is_object()),
            "X" => {
                slices += 1;
                assert!(
                    e["ts"].is_number() && e["dur"].as_f64().unwrap() >= 0.0,
                    "{e}"
                );
            }
            "i" => {
                assert!(e["ts"].is_number());
                assert!(matches!(e["s"].as_str(), Some("t" | "p" | "g")));
            }
            "s" | "f" => {
                assert!(e["ts"].is_number());
                let id = e["id"].as_u64().expect("a flow's id");
                if ph == "s" {
                    starts.insert(id);
                } else {
                    assert_eq!(e["bp"], "e");
                    finishes.insert(id);
                }
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    assert!(slices > 0);
    assert_eq!(starts, finishes, "every flow arrow has both ends");
    // One named track per thread.
    let names = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .count();
    assert_eq!(names, trace.threads().len());
}

// ---- The SVG ----

/// A small well-formedness check: tags nest and close, attribute values are quoted, and text
/// holds no raw `<` or unescaped `&`.
fn check_xml(s: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = s;
    let mut roots = 0;
    let check_text = |text: &str| {
        let mut t = text;
        while let Some(at) = t.find('&') {
            let entity = &t[at..];
            let end = entity.find(';').expect("an entity ends with ;");
            assert!(
                matches!(
                    &entity[..=end],
                    "&amp;" | "&lt;" | "&gt;" | "&quot;" | "&apos;"
                ),
                "unknown entity {}",
                &entity[..=end]
            );
            t = &entity[end + 1..];
        }
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        assert!(
            !stack.is_empty() || rest[..open].trim().is_empty(),
            "text outside the root"
        );
        let close = rest[open..].find('>').expect("a tag ends") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "closing tag mismatch");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body.split_whitespace().next().expect("a tag name");
        assert!(name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'));
        let attrs = &body[name.len()..];
        assert_eq!(
            attrs.matches('"').count() % 2,
            0,
            "unbalanced quotes in {tag}"
        );
        for part in attrs.split('"').step_by(2) {
            let part = part.trim();
            if !part.is_empty() {
                assert!(
                    part.ends_with('='),
                    "an attribute without a quoted value: {tag}"
                );
            }
        }
        for value in attrs.split('"').skip(1).step_by(2) {
            assert!(!value.contains('<'));
            check_text(value);
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name);
        }
    }
    assert!(rest.trim().is_empty());
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

#[test]
fn svg_is_well_formed_xml() {
    let trace = sample_trace();
    let svg = trace.to_svg();
    check_xml(&svg);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    for thread in trace.threads() {
        let name: String = thread.name.chars().take(26).collect();
        assert!(svg.contains(&name.replace('&', "&amp;").replace('<', "&lt;")));
    }
}

#[test]
fn the_checker_rejects_broken_xml() {
    for bad in [
        "<a><b></a></b>",
        "<a>x & y</a>",
        "<a x=1></a>",
        "<a></a><b/>",
        "<a>",
    ] {
        assert!(
            std::panic::catch_unwind(|| check_xml(bad)).is_err(),
            "{bad} passed"
        );
    }
    check_xml("<a x=\"1\"><b/>t &amp; u</a>");
}

// ---- The verdicts ----

#[test]
fn verdict_one_heavy_item() {
    let pool = pool(2);
    let _serial = serial();
    let ((), trace) = trace::record(|| {
        pool.install(|| {
            (0..1000).into_par_iter().for_each(|i| {
                if i == 500 {
                    // Long against everything else the recording holds (the other items'
                    // 1 ms, the pool's wake-up), even on a loaded machine.
                    std::thread::sleep(Duration::from_millis(200));
                } else {
                    spin(Duration::from_micros(1));
                }
            })
        })
    });
    let summary = trace.summary();
    assert!(summary.largest_leaf_ns >= 200_000_000, "{summary}");
    assert!(
        summary.verdict.contains("took") && summary.verdict.contains("of the time: split"),
        "{summary}"
    );
}

#[test]
fn verdict_too_fine() {
    let pool = pool(2);
    let _serial = serial();
    let (sum, trace) = trace::record(|| {
        pool.install(|| {
            (0..20_000u32)
                .into_par_iter()
                .with_max_len(1)
                .map(|x| u64::from(x) ^ 1)
                .sum::<u64>()
        })
    });
    assert_eq!(sum, (0..20_000u64).map(|x| x ^ 1).sum::<u64>());
    let summary = trace.summary();
    assert_eq!(summary.leaves, 20_000);
    assert!(
        summary.verdict.contains("the work is too fine"),
        "{summary}"
    );
    assert!(summary.verdict.starts_with("leaves of "), "{summary}");
}

#[test]
fn verdict_balanced_names_no_culprit() {
    let pool = pool(2);
    let _serial = serial();
    let ((), trace) = trace::record(|| {
        pool.install(|| {
            // Half a second of items: a thread preempted for a time slice or two on a
            // loaded machine does not make one item look like most of the run.
            (0..2000)
                .into_par_iter()
                .for_each(|_| spin(Duration::from_micros(250)))
        })
    });
    let summary = trace.summary();
    assert_eq!(
        summary.leaves_by_size.iter().map(|&(_, n)| n).sum::<u64>(),
        summary.leaves
    );
    assert!(!summary.verdict.contains("too fine"), "{summary}");
    assert!(!summary.verdict.starts_with("one item"), "{summary}");
}

fn event(time_ns: u64, kind: EventKind, a: u64) -> Event {
    Event {
        time_ns,
        kind,
        a,
        b: 0,
    }
}

/// A thread asleep, never woken, while jobs waited 6 to 8 ms in a queue: the scheduler does not
/// do that on purpose, so the program is a trace made for it (as a lost wake-up would leave).
#[test]
fn verdict_slept_while_jobs_waited() {
    use EventKind::*;
    let ms = 1_000_000;
    let busy = ThreadEvents {
        name: "worker 0".into(),
        track: 0,
        events: vec![
            event(0, JobBegin, 1),
            event(ms, Promote, 0xa0),
            event(ms, Promote, 0xb0),
            event(ms, Promote, 0xc0),
            event(3 * ms, LeafBegin, 0),
            event(4 * ms, LeafEnd, 10),
            event(10 * ms, JobEnd, 1),
        ],
        dropped: 0,
    };
    let asleep = ThreadEvents {
        name: "worker 1".into(),
        track: 1,
        events: vec![
            event(0, SleepBegin, 0x50),
            event(6 * ms, SleepEnd, 0x50),
            event(7 * ms, Steal, 0xa0),
            event(7 * ms, JobBegin, 0xa0),
            event(7 * ms, JobEnd, 0xa0),
            event(8 * ms, Steal, 0xb0),
            event(9 * ms, Steal, 0xc0),
        ],
        dropped: 0,
    };
    let summary = Trace::from_threads(vec![busy.clone(), asleep.clone()], 10 * ms).summary();
    assert_eq!(summary.jobs_waited_while_asleep, 3);
    assert_eq!(summary.verdict, "threads slept while 3 jobs waited");
    // Woken at once for the jobs: not the verdict.
    let mut woken = busy.clone();
    woken.events.insert(1, event(ms, Wake, 0x50));
    let summary = Trace::from_threads(vec![woken, asleep.clone()], 10 * ms).summary();
    assert_eq!(summary.jobs_waited_while_asleep, 0);
    // Taken by a thread that was awake (a sleeper of another pool slept on): not the verdict.
    let mut other = asleep;
    other
        .events
        .retain(|e| matches!(e.kind, SleepBegin | SleepEnd));
    let mut taker = busy;
    taker
        .events
        .extend([event(7 * ms, Steal, 0xa0), event(8 * ms, Steal, 0xb0)]);
    taker.events.sort_by_key(|e| e.time_ns);
    let summary = Trace::from_threads(vec![taker, other], 10 * ms).summary();
    assert_eq!(summary.jobs_waited_while_asleep, 0);
}

// ---- BLITZ_TRACE ----

/// Run by `blitz_trace_writes_the_file` in a child process with `BLITZ_TRACE` set.
#[test]
#[ignore = "run by blitz_trace_writes_the_file"]
fn blitz_trace_child() {
    let pool = pool(2);
    let sum: u64 = pool.install(|| {
        (0..10_000u32)
            .into_par_iter()
            .with_max_len(100)
            .map(u64::from)
            .sum()
    });
    assert_eq!(sum, 49_995_000);
    drop(pool);
}

fn run_child(value: &std::ffi::OsStr) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "blitz_trace_child",
            "--ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env("BLITZ_TRACE", value)
        .output()
        .unwrap()
}

#[test]
fn blitz_trace_writes_the_file() {
    watchdog::within(watchdog::LIVENESS, "the traced child finished", || {
        let dir = std::env::temp_dir().join(format!("blitz-par-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.json");
        let out = run_child(path.as_os_str());
        assert!(out.status.success(), "{out:?}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(json["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "leaf"));
        check_xml(&std::fs::read_to_string(path.with_extension("svg")).unwrap());
        // A directory: reported, and the child still runs.
        let out = run_child(dir.as_os_str());
        assert!(out.status.success(), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("BLITZ_TRACE") && stderr.contains("is a directory"),
            "{stderr}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
