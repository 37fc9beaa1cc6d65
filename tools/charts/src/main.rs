//! Turns a bench run into the charts of `README.md` and `PERF.md`.
//!
//! ```text
//! cargo run -p blitz-par-charts -- collect target/criterion "2-core AMD EPYC VM" >> perf/results.csv
//! cargo run -p blitz-par-charts -- plot perf/results.csv docs/charts
//! ```
//!
//! `collect` reads criterion's `benchmark.json` and `estimates.json` files under a directory
//! and prints one CSV row per benchmark: `machine,workload,library,median_ns`. The library
//! comes from the start of criterion's function id (`blitz`/`blitz-par`, `rayon`, `chili`,
//! `seq`/`sequential`/`std`); the workload is the group, with the rest of the function id and
//! the parameter. `plot` draws, for each machine in a CSV, two SVG charts of the workloads
//! that have blitz-par and sequential figures: the speedup of each library over the
//! sequential code (rayon's bar where the workload has one), and, for the workloads with a
//! rayon figure, blitz-par's time relative to rayon's.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const LIBRARIES: [&str; 4] = ["blitz-par", "rayon", "chili", "sequential"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["collect", dir, machine] => collect(Path::new(dir), machine),
        ["plot", csv, out] => plot(Path::new(csv), Path::new(out)),
        _ => Err(
            "usage: blitz-par-charts collect <criterion-dir> <machine>\n       \
                  blitz-par-charts plot <results.csv> <out-dir>"
                .to_string(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("blitz-par-charts: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The library a criterion function id names, and what follows its name (a variant such as
/// `left-first`), or `None` for a function id that names no library we chart.
fn library_of(function_id: &str) -> Option<(&'static str, &str)> {
    let (head, rest) = function_id.split_once('/').unwrap_or((function_id, ""));
    let library = match head {
        "blitz" | "blitz-par" => "blitz-par",
        "rayon" => "rayon",
        "chili" => "chili",
        "seq" | "sequential" | "std" => "sequential",
        _ => return None,
    };
    Some((library, rest))
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn find_files(dir: &Path, name: &str, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            // criterion keeps the previous run under `base/` and the current one under `new/`.
            if path
                .file_name()
                .is_some_and(|n| n != "base" && n != "change")
            {
                find_files(&path, name, found)?;
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            found.push(path);
        }
    }
    Ok(())
}

fn collect(dir: &Path, machine: &str) -> Result<(), String> {
    if machine.contains(',') {
        return Err(format!("the machine name {machine:?} has a comma"));
    }
    let mut files = Vec::new();
    find_files(dir, "benchmark.json", &mut files)?;
    if files.is_empty() {
        return Err(format!("no criterion results under {}", dir.display()));
    }
    let mut rows = Vec::new();
    for file in files {
        let bench = read_json(&file)?;
        let field = |key: &str| bench[key].as_str().map(str::to_string);
        let (Some(group), Some(function)) = (field("group_id"), field("function_id")) else {
            continue;
        };
        let Some((library, variant)) = library_of(&function) else {
            continue;
        };
        let estimates = read_json(&file.with_file_name("estimates.json"))?;
        let Some(median) = estimates["median"]["point_estimate"].as_f64() else {
            return Err(format!("{}: no median", file.display()));
        };
        let mut workload = group;
        for part in [Some(variant.to_string()), field("value_str")]
            .into_iter()
            .flatten()
        {
            if !part.is_empty() {
                workload = format!("{workload} {part}");
            }
        }
        rows.push(format!(
            "{machine},{},{library},{median:.1}",
            workload.replace(',', ";")
        ));
    }
    rows.sort();
    for row in rows {
        println!("{row}");
    }
    Ok(())
}

/// machine -> workload -> library -> median nanoseconds.
type Table = BTreeMap<String, BTreeMap<String, BTreeMap<String, f64>>>;

fn read_csv(path: &Path) -> Result<Table, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut table = Table::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("machine,") {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let [machine, workload, library, nanos] = fields[..] else {
            return Err(format!(
                "{}:{}: expected 4 fields",
                path.display(),
                number + 1
            ));
        };
        if !LIBRARIES.contains(&library) {
            return Err(format!(
                "{}:{}: unknown library {library:?}",
                path.display(),
                number + 1
            ));
        }
        let nanos: f64 = nanos
            .parse()
            .map_err(|e| format!("{}:{}: {nanos:?}: {e}", path.display(), number + 1))?;
        table
            .entry(machine.to_string())
            .or_default()
            .entry(workload.to_string())
            .or_default()
            .insert(library.to_string(), nanos);
    }
    Ok(table)
}

fn slug(name: &str) -> String {
    let mut slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    slug.trim_matches('-').to_string()
}

fn plot(csv: &Path, out: &Path) -> Result<(), String> {
    let table = read_csv(csv)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (machine, workloads) in &table {
        // Workloads with sequential and blitz-par figures, in the CSV's (sorted) order, with
        // rayon's where the bench has it (the algorithms rayon lacks have none).
        let rows: Vec<(&String, f64, f64, Option<f64>)> = workloads
            .iter()
            .filter_map(|(name, libs)| {
                Some((
                    name,
                    libs.get("sequential")?.to_owned(),
                    *libs.get("blitz-par")?,
                    libs.get("rayon").copied(),
                ))
            })
            .collect();
        if rows.is_empty() {
            eprintln!("{machine}: no workload has sequential and blitz-par figures");
            continue;
        }
        let speedups: Vec<(String, Vec<f64>)> = rows
            .iter()
            .map(|&(name, seq, blitz, rayon)| {
                (
                    name.clone(),
                    vec![seq / blitz, rayon.map_or(f64::NAN, |r| seq / r)],
                )
            })
            .collect();
        let file = out.join(format!("{}-speedup.svg", slug(machine)));
        bars(
            &file,
            &format!("Speedup over sequential code ({machine})"),
            "times faster than the sequential loop (higher is better)",
            &["blitz-par", "rayon"],
            &speedups,
            1.0,
        )?;
        println!("{}", file.display());
        let relative: Vec<(String, Vec<f64>)> = rows
            .iter()
            .filter_map(|&(name, _, blitz, rayon)| Some((name.clone(), vec![blitz / rayon?])))
            .collect();
        if relative.is_empty() {
            continue;
        }
        let file = out.join(format!("{}-vs-rayon.svg", slug(machine)));
        bars(
            &file,
            &format!("blitz-par's time relative to rayon's ({machine})"),
            "blitz-par time / rayon time (lower is better)",
            &["blitz-par / rayon"],
            &relative,
            1.0,
        )?;
        println!("{}", file.display());
    }
    Ok(())
}

const COLOURS: [RGBColor; 2] = [RGBColor(0xd9, 0x48, 0x1c), RGBColor(0x4a, 0x6f, 0xa5)];

/// A horizontal bar chart: one row per workload, one bar per series, a reference line at
/// `reference`.
fn bars(
    file: &Path,
    title: &str,
    axis: &str,
    series: &[&str],
    rows: &[(String, Vec<f64>)],
    reference: f64,
) -> Result<(), String> {
    let error = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let row_height = 14 * series.len() as u32 + 10;
    let height = 110 + row_height * rows.len() as u32;
    let root = SVGBackend::new(file, (820, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let top = rows
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .filter(|v| !v.is_nan())
        .fold(reference, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(250)
        .build_cartesian_2d(0.0..top * 1.08, rows.len() as f64..0.0)
        .map_err(|e| error(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc(axis)
        .draw()
        .map_err(|e| error(&e))?;
    // The workload names, right-aligned against the axis at the middle of each row.
    let label_style =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, (name, _)) in rows.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, i as f64 + 0.5));
        root.draw(&Text::new(name.as_str(), (x - 6, y), label_style.clone()))
            .map_err(|e| error(&e))?;
    }
    let band = 1.0 / (series.len() as f64 + 1.0);
    for (s, name) in series.iter().enumerate() {
        let colour = COLOURS[s % COLOURS.len()];
        chart
            .draw_series(
                rows.iter()
                    .enumerate()
                    .filter(|(_, (_, values))| !values[s].is_nan())
                    .map(|(i, (_, values))| {
                        let low = i as f64 + band * (s as f64 + 0.5);
                        Rectangle::new([(0.0, low), (values[s], low + band)], colour.filled())
                    }),
            )
            .map_err(|e| error(&e))?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        // The value at the end of each bar.
        let value_style =
            TextStyle::from(("sans-serif", 10).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        chart
            .draw_series(
                rows.iter()
                    .enumerate()
                    .filter(|(_, (_, values))| !values[s].is_nan())
                    .map(|(i, (_, values))| {
                        let middle = i as f64 + band * (s as f64 + 1.0);
                        Text::new(
                            format!("{:.2}", values[s]),
                            (values[s], middle),
                            value_style.clone(),
                        )
                    }),
            )
            .map_err(|e| error(&e))?;
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(reference, 0.0), (reference, rows.len() as f64)],
            BLACK.stroke_width(1),
        )))
        .map_err(|e| error(&e))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))?;
    Ok(())
}
