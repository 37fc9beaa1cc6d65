//! Running a test of the same binary in a child process: for tests that configure the global
//! pool (one per process) or limit the process's resources.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::process::Command;

/// Runs the ignored test `name` of this test binary alone in a new process, with neither
/// `BLITZ_NUM_THREADS` nor `RAYON_NUM_THREADS` inherited and `vars` set; panics unless it
/// passed. The child must print `CHILD-DONE` at its end, so that a filter that matches no test
/// cannot pass. Returns what the child wrote to stderr.
pub fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    run_child_output(name, vars).1
}

/// As [`run_child`], returning what the child wrote to stdout and to stderr.
pub fn run_child_output(name: &str, vars: &[(&str, &str)]) -> (String, String) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("BLITZ_NUM_THREADS")
        .env_remove("RAYON_NUM_THREADS");
    for (var, value) in vars {
        child.env(var, value);
    }
    let out = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("CHILD-DONE"),
        "child {name} with {vars:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    (stdout, stderr)
}
