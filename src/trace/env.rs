//! The process-wide recording: `BLITZ_TRACE=path.json`.
//!
//! Read once, when the first pool (or the global pool) is built. A usable path starts a
//! session that lasts the process's life; the trace is written to the path when a pool is
//! dropped and when the process exits (`atexit`, on Linux), each time with every event so far,
//! and an SVG timeline beside it (the path with `.svg` for its extension). A path that cannot
//! be created is reported on standard error once, and nothing is recorded.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use super::ring::{self, Session};
use super::Trace;

/// The process-wide session: its path, id and start.
struct ProcessWide {
    path: PathBuf,
    start: u64,
}

static PROCESS_WIDE: OnceLock<Option<ProcessWide>> = OnceLock::new();
static PROCESS_SESSION: AtomicU64 = AtomicU64::new(0);
/// One write at a time.
static WRITING: Mutex<()> = Mutex::new(());

/// The process-wide session's id, 0 if none.
pub(crate) fn session_id() -> u64 {
    PROCESS_SESSION.load(Ordering::Acquire)
}

/// What `BLITZ_TRACE` says: `Ok(None)` when unset, the path when usable, else why not.
pub(crate) fn parse(value: Option<std::ffi::OsString>) -> Result<Option<PathBuf>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    if value.is_empty() {
        return Err(
            "BLITZ_TRACE is set but empty; set it to a file path such as trace.json".into(),
        );
    }
    let path = PathBuf::from(value);
    if path.is_dir() {
        return Err(format!(
            "BLITZ_TRACE={} is a directory; set it to a file path such as {}",
            path.display(),
            path.join("trace.json").display()
        ));
    }
    std::fs::File::create(&path).map_err(|error| {
        format!(
            "BLITZ_TRACE={}: cannot create the file ({error}); nothing is recorded",
            path.display()
        )
    })?;
    Ok(Some(path))
}

/// Starts the process-wide recording if `BLITZ_TRACE` asks for it (once per process).
pub(crate) fn init() {
    PROCESS_WIDE.get_or_init(|| match parse(std::env::var_os("BLITZ_TRACE")) {
        Ok(None) => None,
        Err(message) => {
            eprintln!("blitz-par: {message}");
            None
        }
        Ok(Some(path)) => {
            let (id, start) = Session::start_process_wide();
            PROCESS_SESSION.store(id, Ordering::Release);
            #[cfg(target_os = "linux")]
            {
                extern "C" fn at_exit() {
                    write_now();
                }
                // SAFETY: `at_exit` is a plain function that does not unwind (`write_now`
                // catches its errors and reports them).
                unsafe { libc::atexit(at_exit) };
            }
            Some(ProcessWide { path, start })
        }
    });
}

/// Writes the process-wide trace so far, if one is recording (a pool's drop, the exit).
pub(crate) fn write_now() {
    let Some(Some(wide)) = PROCESS_WIDE.get() else {
        return;
    };
    let _guard = WRITING.lock().unwrap_or_else(|p| p.into_inner());
    let threads = ring::collect(session_id(), wide.start, None);
    let end = crate::sync::ticks();
    let trace = Trace::from_threads(threads, crate::sync::ns_in(end.saturating_sub(wide.start)));
    let result = std::panic::catch_unwind(|| {
        trace
            .write_chrome_json(&wide.path)
            .and_then(|()| trace.write_svg(wide.path.with_extension("svg")))
    });
    match result {
        Ok(Ok(())) => {}
        Ok(Err(error)) => eprintln!(
            "blitz-par: BLITZ_TRACE={}: cannot write the trace ({error})",
            wide.path.display()
        ),
        Err(_) => eprintln!("blitz-par: BLITZ_TRACE: writing the trace panicked"),
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::parse;

    #[test]
    fn bad_values_are_reported_clearly() {
        assert_eq!(parse(None), Ok(None));
        let empty = parse(Some("".into())).unwrap_err();
        assert!(empty.contains("empty"), "{empty}");
        let dir = std::env::temp_dir();
        let is_dir = parse(Some(dir.clone().into_os_string())).unwrap_err();
        assert!(is_dir.contains("is a directory"), "{is_dir}");
        let missing = dir.join("blitz-par-no-such-dir").join("x").join("t.json");
        let cannot = parse(Some(missing.into_os_string())).unwrap_err();
        assert!(cannot.contains("cannot create"), "{cannot}");
        let good = dir.join(format!("blitz-par-env-test-{}.json", std::process::id()));
        assert_eq!(
            parse(Some(good.clone().into_os_string())),
            Ok(Some(good.clone()))
        );
        std::fs::remove_file(good).unwrap();
    }
}
