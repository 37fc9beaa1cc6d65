//! Quick timing of join-heavy recursions (fib, binary tree sum): blitz-par vs sequential.
use std::time::Instant;

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_par(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = blitz_par::join(|| fib_par(n - 1), || fib_par(n - 2));
    a + b
}

struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn tree(layers: usize) -> Node {
    Node {
        val: 1,
        left: (layers > 1).then(|| Box::new(tree(layers - 1))),
        right: (layers > 1).then(|| Box::new(tree(layers - 1))),
    }
}

fn sum_seq(n: &Node) -> u64 {
    n.val + n.left.as_deref().map_or(0, sum_seq) + n.right.as_deref().map_or(0, sum_seq)
}

fn sum_par(n: &Node) -> u64 {
    let (l, r) = blitz_par::join(
        || n.left.as_deref().map_or(0, sum_par),
        || n.right.as_deref().map_or(0, sum_par),
    );
    n.val + l + r
}

fn time<R>(name: &str, reps: usize, mut f: impl FnMut() -> R) {
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{name:>24}: {:>10.4} ms (best of {reps})", best * 1e3);
}

fn main() {
    let n = std::hint::black_box(27);
    time("fib(27) sequential", 20, || fib_seq(n));
    time("fib(27) blitz join", 20, || fib_par(n));
    let small = tree(10);
    time("tree 1023 sequential", 2000, || sum_seq(&small));
    time("tree 1023 blitz", 2000, || sum_par(&small));
    let big = tree(24);
    time("tree 16.7M sequential", 5, || sum_seq(&big));
    time("tree 16.7M blitz", 5, || sum_par(&big));
}
