//! The global pool: its registry (`GLOBAL`), started on first use with the configuration the
//! environment chooses unless `ThreadPoolBuilder::build_global` came first, and how work
//! started outside every pool reaches it.

use super::registry::{run_on_worker_blocking, Owner, Registry, RegistryConfig, GUEST_SEATS};
use super::MAX_NUM_THREADS;
use std::sync::{Arc, OnceLock};

/// The global pool's registry, once started (by first use or `build_global`).
pub(crate) static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();

/// The global pool's registry, started on first use.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    GLOBAL.get_or_init(default_global_registry)
}

/// Whether the pool that parallel work of this thread runs in is deterministic: its own
/// pool's switch, or the global pool's for a thread outside every pool (which the variable
/// decides, before the global pool exists too).
pub(crate) fn deterministic_pool() -> bool {
    Owner::with_current(|owner| match owner {
        Some(owner) => owner.registry().deterministic,
        None => match GLOBAL.get() {
            Some(registry) => registry.deterministic,
            None => super::deterministic_from_env(),
        },
    })
}

/// Whether parallel work that a thread outside every pool starts must run on the global
/// pool's workers, the caller blocking, rather than partly on the caller as a guest: the pool
/// was configured so (`ThreadPoolBuilder::pool_threads_only`) and has no guest seats. Before
/// the pool starts: whether the environment asks for one thread, which starts it now (as does
/// an unusable value there, so that the first parallel call reports it). Otherwise the pool
/// starts only when the work first wants it (`scheduler::enter`, the watch), so that a short
/// first loop does not wait for its threads. One Acquire load and one field on the fast path.
#[inline]
pub(crate) fn outside_work_runs_on_workers() -> bool {
    match GLOBAL.get() {
        Some(registry) => !registry.takes_guests(),
        None => unstarted_global_runs_outside_work_on_workers(),
    }
}

#[cold]
fn unstarted_global_runs_outside_work_on_workers() -> bool {
    // Without `build_global`, only the environment can configure the pool this way; a
    // `build_global` that comes later decides for the calls after it.
    if environment_needs_the_pool() {
        return !global_registry().takes_guests();
    }
    // Here, before the driver times its first chunk, rather than in it: the watch learns the
    // thread count the pool is planned to have, and then leaves loops too long for it alone
    // from the start (`may_watch`).
    #[cfg(not(loom))]
    super::watch::plan_unstarted_global();
    false
}

/// Runs `f` on a worker of the global pool and blocks until it is done (for a caller outside
/// every pool, when [`outside_work_runs_on_workers`]). Compiled once, not per closure type.
#[inline(never)]
pub(crate) fn run_on_global_worker(f: &mut (dyn FnMut() + Send)) {
    run_on_worker_blocking(global_registry(), f);
}

/// The registry of the calling thread's pool, or the global one.
pub(crate) fn current_registry() -> Arc<Registry> {
    Owner::with_current(|owner| match owner {
        None => global_registry().clone(),
        Some(owner) => owner.seat().registry_arc(),
    })
}

/// What the environment says of the global pool's thread count, read once: the count it
/// chooses (`BLITZ_NUM_THREADS`, else `RAYON_NUM_THREADS`), and whether a value was unusable.
fn global_threads_from_env() -> (Option<usize>, bool) {
    static READ: std::sync::OnceLock<(Option<usize>, bool)> = std::sync::OnceLock::new();
    *READ.get_or_init(|| {
        let blitz = std::env::var("BLITZ_NUM_THREADS").ok();
        let rayon = std::env::var("RAYON_NUM_THREADS").ok();
        let (chosen, ignored) = threads_from_env(blitz.as_deref(), rayon.as_deref());
        (chosen, !ignored.is_empty())
    })
}

/// Whether the global pool must start before parallel work runs, if nothing configured it
/// yet: the environment asks for one thread (`BLITZ_NUM_THREADS`, else `RAYON_NUM_THREADS`),
/// and a global pool started without `build_global` then keeps the work of outside callers
/// on its thread (see [`ThreadPoolBuilder::pool_threads_only`]); or a variable holds an
/// unusable value, which starting the pool reports. Read once.
pub(crate) fn environment_needs_the_pool() -> bool {
    let (chosen, unusable) = global_threads_from_env();
    chosen == Some(1) || unusable
}

/// The number of threads the global pool will start with if nothing else configures it
/// first, as far as can be told without starting it, and cheaply: what the environment
/// chooses, else the CPUs the process may run on (without `available_parallelism`'s reads of
/// cgroup quotas, some 50 us on the 2-core VM: so this may be more than the pool will have).
/// Read once. `None` when a variable holds an unusable value: starting the pool reports it.
pub(crate) fn planned_global_threads() -> Option<usize> {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    match global_threads_from_env() {
        (_, true) => None,
        (Some(n), false) => Some(n.clamp(1, MAX_NUM_THREADS)),
        (None, false) => Some(*CPUS.get_or_init(crate::sync::cpus_allowed)),
    }
}

/// The global pool when nothing else was asked for (started by the first parallel call that
/// needs it): the
/// default configuration, sized by the environment, with as many of its threads as the system
/// lets start (`Registry::start_lenient`). Outside callers take part in its work, unless the
/// environment asks for one thread.
pub(crate) fn default_global_registry() -> Arc<Registry> {
    let (num_threads, chosen) = default_num_threads();
    let pool_threads_only = chosen && num_threads == 1;
    // `BLITZ_DETERMINISTIC` decides for the global pool as for every unconfigured one.
    let deterministic = super::deterministic_from_env();
    if deterministic {
        super::note_deterministic();
    }
    Registry::start_lenient(
        RegistryConfig {
            num_threads: num_threads.clamp(1, MAX_NUM_THREADS),
            guest_seats: if pool_threads_only { 0 } else { GUEST_SEATS },
            deterministic,
            one_cpu: !chosen && num_threads == 1,
            os_names: true,
            ..RegistryConfig::default()
        },
        "global thread pool",
    )
}

/// The number of threads a pool uses when none is configured: `BLITZ_NUM_THREADS` if it holds
/// a positive integer, else `RAYON_NUM_THREADS` if it does (a deployment configured for rayon
/// keeps its limit; 0 there means the default, as in rayon), else
/// `std::thread::available_parallelism()`. An unusable value is reported on stderr once.
/// Also says whether a variable decided it (a thread count the user chose).
pub(super) fn default_num_threads() -> (usize, bool) {
    static REPORTED: std::sync::Once = std::sync::Once::new();
    let blitz = std::env::var("BLITZ_NUM_THREADS").ok();
    let rayon = std::env::var("RAYON_NUM_THREADS").ok();
    let (chosen, ignored) = threads_from_env(blitz.as_deref(), rayon.as_deref());
    let n = chosen.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if !ignored.is_empty() {
        REPORTED.call_once(|| {
            for (name, value) in ignored {
                eprintln!(
                    "blitz-par: ignoring {name}={value:?}: expected a positive integer; \
                     using {n} threads"
                );
            }
        });
    }
    (n, chosen.is_some())
}

/// The thread count that the values of `BLITZ_NUM_THREADS` and `RAYON_NUM_THREADS` (`None`:
/// unset) ask for, if any, and the variables whose values were unusable, with those values.
/// The first variable set to a positive integer decides; `RAYON_NUM_THREADS=0` asks for the
/// default, as rayon reads it.
pub(super) fn threads_from_env<'v>(
    blitz: Option<&'v str>,
    rayon: Option<&'v str>,
) -> (Option<usize>, Vec<(&'static str, &'v str)>) {
    let mut ignored = Vec::new();
    if let Some(value) = blitz {
        match value.trim().parse::<usize>() {
            Ok(n) if n > 0 => return (Some(n), ignored),
            _ => ignored.push(("BLITZ_NUM_THREADS", value)),
        }
    }
    if let Some(value) = rayon {
        match value.trim().parse::<usize>() {
            Ok(0) => {}
            Ok(n) => return (Some(n), ignored),
            Err(_) => ignored.push(("RAYON_NUM_THREADS", value)),
        }
    }
    (None, ignored)
}

#[cfg(test)]
mod tests {
    use super::threads_from_env;

    #[test]
    fn blitz_then_rayon_variable_decides_the_thread_count() {
        assert_eq!(threads_from_env(None, None), (None, vec![]));
        assert_eq!(threads_from_env(Some("3"), None), (Some(3), vec![]));
        assert_eq!(threads_from_env(Some(" 3\n"), Some("5")), (Some(3), vec![]));
        assert_eq!(threads_from_env(None, Some("5")), (Some(5), vec![]));
        // 0 asks rayon for its default; for us it is not a thread count.
        assert_eq!(threads_from_env(None, Some("0")), (None, vec![]));
        assert_eq!(
            threads_from_env(Some("0"), None),
            (None, vec![("BLITZ_NUM_THREADS", "0")])
        );
        // An unusable value is reported and the next source decides.
        assert_eq!(
            threads_from_env(Some("lots"), Some("4")),
            (Some(4), vec![("BLITZ_NUM_THREADS", "lots")])
        );
        assert_eq!(
            threads_from_env(Some("-2"), Some("x")),
            (
                None,
                vec![("BLITZ_NUM_THREADS", "-2"), ("RAYON_NUM_THREADS", "x")]
            )
        );
    }
}
