//! The stack that deeply nested parallel loops need. A thread's stack overflowing aborts the
//! whole test process, which fails it.

use blitz_par::prelude::*;
use blitz_par::ThreadPoolBuilder;

const BILLION: u32 = 1_000_000_000;

/// The stack every thread of these tests gets, the calling one included. A debug build keeps
/// each local of a function in a slot of its own, and needs about four times the stack of a
/// release build. One path of 60 splits takes 0.6 to 0.8 MiB in a debug build (0.10 to 0.13 MiB
/// in a release one); rayon 1.12 takes about half. But a thread that waits for the stolen half
/// of a join runs other work on top of its own stack, so the deepest stack varies from run to
/// run: with 1 MiB a debug run overflowed about one time in five on a loaded 2-core machine,
/// with 1.5 MiB none of 100 did. The debug figure is std's default for a spawned thread.
const STACK: usize = if cfg!(debug_assertions) {
    2 << 20
} else {
    256 << 10
};

/// 10^27 items: three nested ranges of 10^9, each split down to leaves of at most 1,000
/// items, so that a thread that runs the first leaf of each has 60 splits on its stack.
fn nested() -> impl ParallelIterator<Item = u128> {
    let level = || (0..BILLION).into_par_iter().with_max_len(1_000);
    level()
        .map(|i| u64::from(i) * u64::from(BILLION))
        .flat_map(move |hi| level().map(move |j| hi + u64::from(j)))
        .map(|i| u128::from(i) * u128::from(BILLION))
        .flat_map(move |hi| level().map(move |j| hi + u128::from(j)))
}

/// Runs `f` on a thread of [`STACK`] bytes, inside a pool of `threads` threads of as much.
fn in_small_stacks<R: Send + 'static>(threads: usize, f: fn() -> R) -> R {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            ThreadPoolBuilder::new()
                .num_threads(threads)
                .stack_size(STACK)
                .build()
                .expect("a pool")
                .install(f)
        })
        .expect("a thread")
        .join()
        .expect("no panic")
}

#[test]
fn searches_sixty_splits_deep_fit_in_a_small_stack() {
    for threads in [1, 2, 4] {
        let first = in_small_stacks(threads, || {
            nested().find_first(|&x| x % 1_000 == 777 && x > 700_000)
        });
        assert_eq!(first, Some(700_777));
        // From the back: the driver's loop for consumers that fold from the back.
        let last = in_small_stacks(threads, || nested().find_last(|&x| x % 1_000 == 3));
        assert_eq!(last, Some(10u128.pow(27) - 997));
    }
}
