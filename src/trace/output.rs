//! Writing a trace: the Chrome trace-event JSON and the SVG timeline.

use std::collections::HashMap;
use std::fmt::Write;

use super::summary::{human, known_until, timeline, Activity, SliceKind};
use super::{sort_phase_name, EventKind as K, Trace};

/// JSON string contents: quotes, backslashes and control characters escaped.
fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Microseconds, as the format wants them.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

pub(crate) fn chrome_json(trace: &Trace) -> String {
    let duration = trace.duration_ns;
    let mut items: Vec<String> = Vec::new();
    items.push(
        r#"{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"blitz-par"}}"#.into(),
    );
    // Where each job was pushed (for steal arrows) and where each sleep word was woken.
    let mut pushes: HashMap<u64, (usize, u64)> = HashMap::new();
    let mut wakes: HashMap<u64, Vec<(usize, u64)>> = HashMap::new();
    for thread in &trace.threads {
        for e in &thread.events {
            match e.kind {
                K::Promote | K::InjectPush | K::ScopeSpawn => {
                    pushes.insert(e.a, (thread.track, e.time_ns));
                }
                K::Wake => wakes
                    .entry(e.a)
                    .or_default()
                    .push((thread.track, e.time_ns)),
                _ => {}
            }
        }
    }
    let mut flow = 0u64;
    for thread in &trace.threads {
        let tid = thread.track;
        items.push(format!(
            r#"{{"name":"thread_name","ph":"M","pid":1,"tid":{tid},"args":{{"name":"{}"}}}}"#,
            escape_json(&thread.name)
        ));
        items.push(format!(
            r#"{{"name":"thread_sort_index","ph":"M","pid":1,"tid":{tid},"args":{{"sort_index":{tid}}}}}"#
        ));
        let line = timeline(&thread.events, known_until(thread, duration));
        // A steal's arrow ends where the thief's run of the job starts: a flow binds to the
        // slice that encloses its end.
        let runs: HashMap<u64, u64> = line
            .slices
            .iter()
            .filter(|s| s.kind == SliceKind::Job)
            .map(|s| (s.arg, s.start))
            .collect();
        for s in &line.slices {
            let (name, cat, args) = match s.kind {
                SliceKind::Leaf => ("leaf", "leaf", format!(r#"{{"items":{}}}"#, s.end_arg)),
                SliceKind::Job => ("job", "job", format!(r#"{{"job":"{:#x}"}}"#, s.arg)),
                SliceKind::Sleep => ("sleep", "sleep", "{}".into()),
                SliceKind::Wait => ("wait", "wait", "{}".into()),
                SliceKind::Sort => (sort_phase_name(s.arg), "sort", "{}".into()),
                SliceKind::Record => ("record", "record", "{}".into()),
            };
            items.push(format!(
                r#"{{"name":"{name}","cat":"{cat}","ph":"X","ts":{},"dur":{},"pid":1,"tid":{tid},"args":{args}}}"#,
                us(s.start),
                us(s.end.saturating_sub(s.start))
            ));
            // A wake's arrow ends at the end of the sleep it ended.
            if s.kind == SliceKind::Sleep && s.end < duration {
                let waker = wakes.get(&s.arg).and_then(|w| {
                    w.iter()
                        .rfind(|&&(_, t)| t >= s.start && t <= s.end + 1_000)
                });
                if let Some(&(from, t)) = waker {
                    flow += 1;
                    items.push(format!(
                        r#"{{"name":"wake","cat":"wake","ph":"s","id":{flow},"ts":{},"pid":1,"tid":{from}}}"#,
                        us(t)
                    ));
                    items.push(format!(
                        r#"{{"name":"wake","cat":"wake","ph":"f","bp":"e","id":{flow},"ts":{},"pid":1,"tid":{tid}}}"#,
                        us(s.end.saturating_sub(1))
                    ));
                }
            }
        }
        for e in &thread.events {
            let (name, args) = match e.kind {
                K::Split => ("split", format!(r#"{{"items":{}}}"#, e.a)),
                K::Promote => ("promote", format!(r#"{{"job":"{:#x}"}}"#, e.a)),
                K::Steal => (
                    "steal",
                    format!(r#"{{"job":"{:#x}","victim_seat":{}}}"#, e.a, e.b),
                ),
                K::InjectPush => ("inject push", format!(r#"{{"job":"{:#x}"}}"#, e.a)),
                K::InjectPop => ("inject pop", format!(r#"{{"job":"{:#x}"}}"#, e.a)),
                K::Wake => ("wake", format!(r#"{{"word":"{:#x}"}}"#, e.a)),
                K::ScopeSpawn => ("scope spawn", format!(r#"{{"job":"{:#x}"}}"#, e.a)),
                K::FutureHandOver => (
                    "spawn_future hand-over",
                    format!(r#"{{"task":"{:#x}"}}"#, e.a),
                ),
                K::FutureCancel => ("spawn_future cancel", format!(r#"{{"task":"{:#x}"}}"#, e.a)),
                K::Rescue => ("watch rescue", format!(r#"{{"job":"{:#x}"}}"#, e.a)),
                _ => continue,
            };
            items.push(format!(
                r#"{{"name":"{name}","ph":"i","s":"t","ts":{},"pid":1,"tid":{tid},"args":{args}}}"#,
                us(e.time_ns)
            ));
            // A steal's arrow runs from the push to the steal.
            if matches!(e.kind, K::Steal | K::InjectPop) {
                if let Some(&(from, t)) = pushes.get(&e.a) {
                    if t <= e.time_ns {
                        flow += 1;
                        items.push(format!(
                            r#"{{"name":"steal","cat":"steal","ph":"s","id":{flow},"ts":{},"pid":1,"tid":{from}}}"#,
                            us(t)
                        ));
                        let end = runs
                            .get(&e.a)
                            .copied()
                            .filter(|&t| t >= e.time_ns)
                            .unwrap_or(e.time_ns);
                        items.push(format!(
                            r#"{{"name":"steal","cat":"steal","ph":"f","bp":"e","id":{flow},"ts":{},"pid":1,"tid":{tid}}}"#,
                            us(end)
                        ));
                    }
                }
            }
        }
    }
    let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(item);
    }
    out.push_str("\n]}\n");
    out
}

/// XML text: the five special characters escaped.
fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

fn colour(a: Activity) -> &'static str {
    match a {
        Activity::Leaf => "#2e8b57",
        Activity::Job => "#4682b4",
        Activity::Other => "#8a7fc0",
        Activity::Idle => "#f4c7c3",
        Activity::Asleep => "#dcdcdc",
    }
}

fn label(a: Activity) -> &'static str {
    match a {
        Activity::Leaf => "leaf",
        Activity::Job => "job",
        Activity::Other => "other work",
        Activity::Idle => "idle",
        Activity::Asleep => "asleep",
    }
}

const WIDTH: usize = 900;
const LABEL: usize = 170;
const ROW: usize = 18;

pub(crate) fn svg(trace: &Trace) -> String {
    let duration = trace.duration_ns.max(1);
    let summary = trace.summary();
    let rows = trace.threads.len();
    let top = 40;
    let height = top + rows * ROW + 60;
    let total = LABEL + WIDTH + 20;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" viewBox="0 0 {total} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="{total}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="10" y="18" font-size="13">{} on {} threads; {}</text>"#,
        human(duration),
        rows,
        escape_xml(&summary.verdict)
    );
    let mut framed = false;
    for (row, thread) in trace.threads.iter().enumerate() {
        let y = top + row * ROW;
        let name: String = thread.name.chars().take(26).collect();
        let _ = writeln!(
            out,
            r#"<text x="10" y="{}">{}</text>"#,
            y + ROW - 5,
            escape_xml(&name)
        );
        // Each pixel column shows the activity that took most of its time.
        let mut cover = vec![[0u64; 5]; WIDTH];
        let line = timeline(&thread.events, known_until(thread, duration));
        for &(s, e, a) in &line.segments {
            let first = (s as u128 * WIDTH as u128 / duration as u128) as usize;
            let last = ((e as u128 * WIDTH as u128).div_ceil(duration as u128) as usize).min(WIDTH);
            for (x, column) in cover.iter_mut().enumerate().take(last).skip(first) {
                let x0 = (x as u128 * duration as u128 / WIDTH as u128) as u64;
                let x1 = ((x as u128 + 1) * duration as u128 / WIDTH as u128) as u64;
                column[a as usize] += e.min(x1).saturating_sub(s.max(x0));
            }
        }
        let mut x = 0;
        while x < WIDTH {
            let pick = |c: &[u64; 5]| {
                let best = (0..5).max_by_key(|&i| c[i]).expect("five");
                (c[best] > 0).then_some(best)
            };
            let Some(a) = pick(&cover[x]) else {
                x += 1;
                continue;
            };
            let mut end = x + 1;
            while end < WIDTH && pick(&cover[end]) == Some(a) {
                end += 1;
            }
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
                LABEL + x,
                y + 2,
                end - x,
                ROW - 4,
                colour(Activity::ALL[a])
            );
            x = end;
        }
        // Leaves wide enough to see get a mark where they start; the longest leaf of the
        // trace gets a frame.
        let px = |t: u64| LABEL as f64 + t as f64 * WIDTH as f64 / duration as f64;
        for leaf in line.slices.iter().filter(|s| s.kind == SliceKind::Leaf) {
            let (x0, x1) = (px(leaf.start), px(leaf.end));
            if x1 - x0 >= 4.0 {
                let _ = writeln!(
                    out,
                    r#"<rect x="{x0:.1}" y="{}" width="1" height="{}" fill="white"/>"#,
                    y + 2,
                    ROW - 4
                );
            }
            if leaf.end - leaf.start == summary.largest_leaf_ns && !framed {
                framed = true;
                let _ = writeln!(
                    out,
                    r#"<rect x="{x0:.1}" y="{}" width="{:.1}" height="{}" fill="none" stroke="black" stroke-width="1.5"><title>the longest leaf: {} items, {}</title></rect>"#,
                    y + 1,
                    (x1 - x0).max(1.0),
                    ROW - 2,
                    leaf.end_arg,
                    human(leaf.end - leaf.start)
                );
            }
        }
    }
    // Time axis.
    let axis = top + rows * ROW + 6;
    let _ = writeln!(
        out,
        r#"<line x1="{LABEL}" y1="{axis}" x2="{}" y2="{axis}" stroke="black"/>"#,
        LABEL + WIDTH
    );
    for i in 0..=4 {
        let x = LABEL + WIDTH * i / 4;
        let _ = writeln!(
            out,
            r#"<line x1="{x}" y1="{axis}" x2="{x}" y2="{}" stroke="black"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            axis + 4,
            axis + 16,
            human(duration * i as u64 / 4)
        );
    }
    // Legend.
    let legend = axis + 36;
    for (i, a) in Activity::ALL.iter().enumerate() {
        let x = LABEL + i * 110;
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{legend}">{}</text>"#,
            legend - 10,
            colour(*a),
            x + 16,
            label(*a)
        );
    }
    out.push_str("</svg>\n");
    out
}
