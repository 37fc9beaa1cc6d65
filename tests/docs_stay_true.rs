//! Docs that name code, held to the code: the scheduler's file lists (its `README.md` table and
//! `scheduler/mod.rs`'s layout) name every file of `src/scheduler/`, and the README's table of
//! the iterators' interface names every function and type that code outside the scheduler takes
//! from `crate::scheduler`, and the scheduler takes its atomics from `crate::sync` as
//! `src/sync/mod.rs` says. (The tuning table has its own test, in `src/tuning.rs`.)

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
