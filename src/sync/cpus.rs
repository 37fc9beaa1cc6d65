//! How many CPUs the process may run on, asked cheaply: for decisions made before the global
//! pool starts (`scheduler::builder::planned_global_threads`), which must not cost what
//! starting it does.
//!
//! `std::thread::available_parallelism` also reads the cgroup's CPU quota on Linux (a few
//! files under `/proc` and `/sys`: some 50 us on the 2-core VM, on every call), which can
//! only lower the count. Here Linux asks for the affinity mask alone (one system call), so
//! the count may exceed what `available_parallelism` says; elsewhere it is that.

/// The CPUs in the calling thread's affinity mask on Linux (at least 1), else
/// `available_parallelism` (1 if unknown).
#[cfg(all(target_os = "linux", not(miri), not(loom)))]
pub(crate) fn cpus_allowed() -> usize {
    // SAFETY: `cpu_set_t` is plain bits, for which all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a live, writable `cpu_set_t` of the size passed; 0 names this thread.
    let got = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    // SAFETY: `set` was initialised above (and filled in by the kernel if `got` is 0).
    // (`CPU_COUNT` is an `unsafe fn` in some versions of libc, safe in others.)
    #[allow(unused_unsafe)]
    let count = unsafe { libc::CPU_COUNT(&set) };
    match usize::try_from(count) {
        // The mask may not fit a `cpu_set_t` (more than 1,024 CPUs): ask std.
        Ok(n) if got == 0 && n > 0 => n,
        _ => available_parallelism(),
    }
}

/// Whether a thread waiting for another should spin (pause instructions between looks)
/// before it yields or sleeps: not when the process may run on one CPU only (a machine or
/// container with one CPU, `taskset -c 0`). There the thread it waits for can run only once
/// the waiter stops, so every pause delays what it waits for: a call handed to a pool's only
/// worker from outside spent some 25 us a call in the worker's idle spin and the caller's
/// (`PERF.md`, "Joins"). Read once per process on Linux, from the affinity mask of the first
/// thread that asks (threads inherit it; a CPU quota is not read, as for `cpus_allowed`);
/// elsewhere, and under loom and Miri, always true (the waits' models do not depend on it).
pub(crate) fn spinning_pays() -> bool {
    #[cfg(all(target_os = "linux", not(miri), not(loom)))]
    {
        static PAYS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *PAYS.get_or_init(|| cpus_allowed() > 1)
    }
    #[cfg(not(all(target_os = "linux", not(miri), not(loom))))]
    {
        true
    }
}

/// `available_parallelism`, 1 if unknown.
pub(crate) fn available_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Elsewhere: `available_parallelism` (see the module docs).
#[cfg(not(all(target_os = "linux", not(miri), not(loom))))]
pub(crate) fn cpus_allowed() -> usize {
    available_parallelism()
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpus_allowed_bound_what_std_reports() {
        let allowed = super::cpus_allowed();
        assert!(allowed >= 1);
        // The cgroup quota std also reads can only lower the count.
        assert!(allowed >= super::available_parallelism());
    }
}
