//! Docs that name code, held to the code: the scheduler's file lists (its `README.md` table and
//! `scheduler/mod.rs`'s layout) name every file of `src/scheduler/`, and the README's table of
//! the iterators' interface names every function and type that code outside the scheduler takes
//! from `crate::scheduler`, and the scheduler takes its atomics from `crate::sync` as
//! `src/sync/mod.rs` says; the thresholds kept outside `src/tuning.rs` have the values its second
//! table gives them; each layer imports only what the layer table of `src/lib.rs` allows; and the
//! scheduler README's loom table names every loom model, and `src/lib.rs` every thread the
//! crate starts. (The
//! main tuning table has its own test, in `src/tuning.rs`.)

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.rs` files under `dir`, as paths relative to `base` with `/` separators.
fn rust_files(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(base).unwrap();
            let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
            out.insert(parts.join("/"));
        }
    }
}

#[test]
fn the_scheduler_file_lists_name_every_file() {
    let dir = root().join("src/scheduler");
    let mut files = BTreeSet::new();
    rust_files(&dir, &dir, &mut files);
    let readme = fs::read_to_string(dir.join("README.md")).unwrap();
    let table: String = readme
        .lines()
        .skip_while(|l| !l.starts_with("| File |"))
        .take_while(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    let layout: String = fs::read_to_string(dir.join("mod.rs"))
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    for file in &files {
        let name = format!("`{file}`");
        assert!(
            table.contains(&name),
            "src/scheduler/README.md's file table does not name {name}"
        );
        // mod.rs names the registry's files in its `registry/` entry, and itself as "this file".
        let short = match file.strip_prefix("registry/") {
            Some(f) => format!("(`{f}`)"),
            None => name.clone(),
        };
        assert!(
            file == "mod.rs" || layout.contains(&short) || layout.contains(&name),
            "scheduler/mod.rs's layout does not name {name}"
        );
    }
}

/// The names code outside the scheduler imports from it (`use crate::scheduler::{..}`) or calls
/// through it (`crate::scheduler::name`), less the public API (re-exported at the crate root).
fn scheduler_names_used_outside() -> BTreeSet<String> {
    let src = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&src, &src, &mut files);
    let public: BTreeSet<&str> = [
        "join",
        "join_context",
        "scope",
        "spawn",
        "current_num_threads",
        "ThreadPool",
        "ThreadPoolBuilder",
        "self",
    ]
    .into();
    let mut names = BTreeSet::new();
    for file in files.iter().filter(|f| !f.starts_with("scheduler/")) {
        let text = fs::read_to_string(src.join(file)).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("crate::scheduler::") {
            rest = &rest[at + "crate::scheduler::".len()..];
            let list = if let Some(body) = rest.strip_prefix('{') {
                &body[..body.find('}').unwrap()]
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            };
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let name = name.split("::").next().unwrap().trim();
                if !public.contains(name) {
                    names.insert(name.to_string());
                }
            }
        }
    }
    names
}

#[test]
fn the_interface_table_names_what_the_iterators_use() {
    let readme = fs::read_to_string(root().join("src/scheduler/README.md")).unwrap();
    let start = readme.find("## The iterators' interface").unwrap();
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let names = scheduler_names_used_outside();
    assert!(
        names.contains("enter") && names.contains("share"),
        "{names:?}"
    );
    for name in &names {
        let named = section.contains(&format!("`{name}("))
            || section.contains(&format!("`{name}`"))
            || section.contains(&format!("`{name}::"))
            || section.contains(&format!("({name})"))
            || section.contains(&format!("`{name} "))
            || section.contains(&format!(", {name}("));
        assert!(
            named,
            "code outside the scheduler uses scheduler::{name}, which the README's table of \
             the iterators' interface does not name"
        );
    }
}

/// `src/sync/mod.rs`: the scheduler's code (its tests and loom models aside) names
/// `std::sync::atomic` and `atomic_wait` nowhere but in the deterministic hint.
#[test]
fn the_scheduler_takes_its_atomics_from_sync() {
    let dir = root().join("src/scheduler");
    let mut files = BTreeSet::new();
    rust_files(&dir, &dir, &mut files);
    for file in &files {
        if file.ends_with("tests.rs") || file == "loom_models.rs" || file == "deterministic.rs" {
            continue;
        }
        let text = fs::read_to_string(dir.join(file)).unwrap();
        let code = text
            .find("#[cfg(test)]\nmod tests")
            .or_else(|| text.find("#[cfg(all(test, not(loom)))]\nmod tests"))
            .map_or(text.as_str(), |end| &text[..end]);
        for line in code.lines().map(str::trim_start) {
            if line.starts_with("//") {
                continue;
            }
            assert!(
                !line.contains("std::sync::atomic") && !line.contains("atomic_wait"),
                "scheduler/{file} names an atomic outside crate::sync: {line}"
            );
        }
    }
}

/// The value of a constant's initialiser as the thresholds write them: a number, or two
/// joined by `*` or `<<`.
fn evaluate(expr: &str) -> u128 {
    let number = |s: &str| -> u128 { s.trim().replace('_', "").parse().unwrap() };
    if let Some((a, b)) = expr.split_once("<<") {
        number(a) << number(b)
    } else if let Some((a, b)) = expr.split_once('*') {
        number(a) * number(b)
    } else {
        number(expr)
    }
}

#[test]
fn the_thresholds_kept_beside_their_code_match_the_tuning_table() {
    let tuning = fs::read_to_string(root().join("src/tuning.rs")).unwrap();
    let rows: Vec<(String, u128, String)> = tuning
        .lines()
        .skip_while(|l| !l.starts_with("//! Thresholds kept beside the code"))
        .filter_map(|l| l.strip_prefix("//! | `"))
        .map(|row| {
            let cells: Vec<&str> = row.split(" | ").collect();
            let name = cells[0].trim_end_matches('`').to_owned();
            let value: String = cells[1]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .collect();
            let file = cells[2].trim_matches('`').to_owned();
            (name, value.parse().unwrap(), file)
        })
        .collect();
    assert_eq!(rows.len(), 5, "the second table of src/tuning.rs: {rows:?}");
    for (name, value, file) in rows {
        let source = fs::read_to_string(root().join("src").join(&file)).unwrap();
        let declaration = source
            .lines()
            .map(|l| {
                l.trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ")
            })
            .find_map(|l| l.strip_prefix(&format!("const {name}: ")))
            .unwrap_or_else(|| panic!("src/{file} declares no `const {name}`"));
        let expr = declaration.split_once('=').unwrap().1.trim_end_matches(';');
        assert_eq!(evaluate(expr), value, "{name} in src/{file}");
        assert!(
            source.contains("second table\n// of `src/tuning.rs`"),
            "src/{file} does not point to the tuning table"
        );
    }
}

/// The names in backticks in `cell`.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The modules of this crate that `source`'s code (comments left out) names by `crate::`.
fn crate_paths(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `$crate::` in macros names this crate too.
            names.insert(name);
            rest = after;
        }
    }
    names
}

#[test]
fn each_layer_imports_only_what_the_layer_table_says() {
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let rows: Vec<Vec<&str>> = lib
        .lines()
        .skip_while(|l| !l.starts_with("//! | layer |"))
        .skip(2)
        .take_while(|l| l.starts_with("//! |"))
        .map(|l| {
            l.trim_start_matches("//! |")
                .split(" |")
                .map(str::trim)
                .collect()
        })
        .collect();
    let layers: BTreeSet<&str> = rows.iter().map(|r| quoted(r[0])[0]).collect();
    // Every module of the crate's root has a row.
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(root().join("src")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            path.join("mod.rs").exists()
        } else {
            path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "prelude"
        };
        if module {
            modules.insert(name);
        }
    }
    let listed: BTreeSet<String> = layers.iter().map(|l| l.to_string()).collect();
    assert_eq!(
        modules, listed,
        "the modules of src/ against the layer table's rows"
    );
    for row in &rows {
        let layer = quoted(row[0])[0];
        let allowed: BTreeSet<&str> = quoted(row[2]).into_iter().collect();
        // `slice` and `str` in `vec.rs`, ...: the modules, then the files.
        let (only, files): (Vec<&str>, Vec<&str>) = quoted(row[3])
            .into_iter()
            .partition(|q| !q.ends_with(".rs"));
        let dir = root().join("src").join(layer);
        let mut sources = BTreeSet::new();
        if dir.is_dir() {
            rust_files(&dir, &dir, &mut sources);
        } else {
            sources.insert(String::new());
        }
        for file in &sources {
            let path = if file.is_empty() {
                root().join("src").join(format!("{layer}.rs"))
            } else {
                dir.join(file)
            };
            let name = file.rsplit('/').next().unwrap();
            for used in crate_paths(&fs::read_to_string(&path).unwrap()) {
                let ok = used == layer
                    || used == "prelude"
                    || allowed.contains(used.as_str())
                    || (only.contains(&used.as_str()) && files.contains(&name));
                assert!(
                    ok || !layers.contains(used.as_str()),
                    "src/{layer}/{file} imports `crate::{used}`, which src/lib.rs's layer \
                     table does not allow `{layer}`"
                );
            }
        }
    }
}

#[test]
fn the_loom_list_names_every_loom_model() {
    let dir = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&dir, &dir, &mut files);
    // Each `loom::model(` (or model builder) belongs to the test function declared last above
    // it.
    let mut models = BTreeSet::new();
    for file in &files {
        let source = fs::read_to_string(dir.join(file)).unwrap();
        let mut current = None;
        for line in source.lines() {
            let code = line.trim_start();
            if let Some(rest) = code.strip_prefix("fn ") {
                current = rest.split_once('(').map(|(name, _)| name.to_owned());
            }
            if code.contains("loom::model(") || code.contains("loom::model::Builder") {
                let name = current.clone().expect("a loom model inside a function");
                let short = file.rsplit('/').next().unwrap().to_owned();
                models.insert((name, short));
            }
        }
    }
    assert!(models.len() >= 10, "{models:?}");
    let readme = fs::read_to_string(dir.join("scheduler/README.md")).unwrap();
    let mut listed = BTreeSet::new();
    for row in readme
        .lines()
        .skip_while(|l| !l.starts_with("| Protocol | Models | File |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
    {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let file = quoted(cells[2])[0].to_owned();
        for model in quoted(cells[1]) {
            listed.insert((model.to_owned(), file.clone()));
        }
    }
    assert_eq!(
        listed, models,
        "src/scheduler/README.md's loom table against the loom models in src/"
    );
}

/// `source` without its test modules (`#[cfg(test)]`, `#[cfg(all(test, ...))]`).
fn without_tests(source: &str) -> &str {
    let cut = ["\n#[cfg(test)]\nmod ", "\n#[cfg(all(test"]
        .iter()
        .filter_map(|marker| source.find(marker))
        .min()
        .unwrap_or(source.len());
    &source[..cut]
}

#[test]
fn the_list_of_threads_names_every_thread_the_crate_starts() {
    let dir = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&dir, &dir, &mut files);
    // Threads the crate names, and the files that start threads at all (tests left out).
    let mut names = BTreeSet::new();
    let mut starters = BTreeSet::new();
    for file in &files {
        if file.ends_with("loom_models.rs") || file.ends_with("/tests.rs") {
            continue;
        }
        let source = fs::read_to_string(dir.join(file)).unwrap();
        for line in without_tests(&source).lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.contains("thread::Builder::new()") || code.contains("thread::spawn(") {
                starters.insert(file.clone());
            }
            if let Some(at) = code.find(".name(\"blitz-par-") {
                let name = code[at + ".name(\"".len()..].split('"').next().unwrap();
                names.insert(name.to_owned());
            }
        }
    }
    // The pools' threads (the spawn handlers, `build_scoped`'s, the lenient start of the
    // global pool), the three named ones, and the debug builds' stall watchdog.
    let expected: BTreeSet<String> = [
        "scheduler/builder.rs",
        "scheduler/stall.rs",
        "scheduler/thread.rs",
        "scheduler/registry/lifecycle.rs",
        "scheduler/watch.rs",
        "scheduler/spawn_future.rs",
        "slice/sort/scratch.rs",
    ]
    .map(String::from)
    .into();
    assert_eq!(starters, expected, "the files of src/ that start threads");
    let lib = fs::read_to_string(dir.join("lib.rs")).unwrap();
    let listed: BTreeSet<String> = lib
        .lines()
        .skip_while(|l| !l.starts_with("//! Besides the pools' threads, the crate starts"))
        .take_while(|l| !l.starts_with("//! #"))
        .filter_map(|l| l.strip_prefix("//! - `"))
        .map(|l| l.split('`').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        listed, names,
        "src/lib.rs's list of threads against the code"
    );
}
