//! A perfect binary tree with a fixed memory layout, and its sum with a join at every node on
//! each library compared (and sequentially). Shared by `benches/join.rs` and
//! `examples/fibtree.rs` through `#[path]`; not a bench of its own.
//!
//! Why a fixed layout: a tree of `Box`es lies wherever the allocator puts each node, which
//! depends on what the process allocated and freed before. The same left-first sum then ran
//! 5x faster or slower from one process to the next (the prefetchers catch an address-ordered
//! walk, not a scattered one), far more than a join costs. Here all nodes live in one
//! allocation, in the order a left-first traversal visits them (preorder), so every process
//! and every library walks the same addresses in the same order: the walk streams through
//! memory, and what remains is the cost of the calls and joins themselves.
//!
//! Every library visits the left subtree first (chili's closures are swapped: its `join` runs
//! the second closure first).

// Each user takes the forms it compares.
#![allow(dead_code)]

use std::mem::MaybeUninit;

/// A node: the same shape as a `Box`ed tree's (`val` and two optional child pointers).
pub struct Node<'a> {
    pub val: u64,
    pub left: Option<&'a Node<'a>>,
    pub right: Option<&'a Node<'a>>,
}

/// Storage for a tree of `layers` layers (`2^layers - 1` nodes).
pub fn storage<'a>(layers: u32) -> Vec<MaybeUninit<Node<'a>>> {
    let mut v = Vec::new();
    v.resize_with((1usize << layers) - 1, MaybeUninit::uninit);
    v
}

/// Builds the tree in `slots` (from [`storage`]): the root in the first slot, then its left
/// subtree, then its right subtree, recursively (preorder). Every node has `val` 1, so the
/// sum is the node count.
pub fn build<'a>(slots: &'a mut [MaybeUninit<Node<'a>>]) -> &'a Node<'a> {
    let (head, rest) = slots.split_first_mut().expect("a tree has a root");
    let (left, right) = rest.split_at_mut(rest.len() / 2);
    let (left, right) = if left.is_empty() {
        (None, None)
    } else {
        (Some(build(left)), Some(build(right)))
    };
    head.write(Node {
        val: 1,
        left,
        right,
    })
}

pub fn sum_seq(n: &Node) -> u64 {
    n.val + n.left.map_or(0, sum_seq) + n.right.map_or(0, sum_seq)
}

pub fn sum_blitz(n: &Node) -> u64 {
    let (l, r) = blitz_par::join(
        || n.left.map_or(0, sum_blitz),
        || n.right.map_or(0, sum_blitz),
    );
    n.val + l + r
}

pub fn sum_rayon(n: &Node) -> u64 {
    let (l, r) = rayon::join(
        || n.left.map_or(0, sum_rayon),
        || n.right.map_or(0, sum_rayon),
    );
    n.val + l + r
}

/// Left subtree first: chili's `join` runs its second closure first.
pub fn sum_chili(n: &Node, s: &mut chili::Scope<'_>) -> u64 {
    let (r, l) = s.join(
        |s| n.right.map_or(0, |n| sum_chili(n, s)),
        |s| n.left.map_or(0, |n| sum_chili(n, s)),
    );
    n.val + l + r
}

/// The root's two subtrees summed on two plain threads, no scheduler: the machine's own limit
/// for two cores.
pub fn sum_two_threads(n: &Node) -> u64 {
    std::thread::scope(|s| {
        let right = s.spawn(|| n.right.map_or(0, sum_seq));
        let left = n.left.map_or(0, sum_seq);
        n.val + left + right.join().unwrap()
    })
}

/// A node of a tree boxed node by node, as a user's tree would be: wherever the allocator
/// puts each node (see the module's note on why the other benches avoid this layout).
pub struct BoxNode {
    pub val: u64,
    pub left: Option<Box<BoxNode>>,
    pub right: Option<Box<BoxNode>>,
}

/// A boxed tree of `layers` layers, every `val` 1, each node allocated on its own, parents
/// before children (preorder), as a recursive builder would.
pub fn build_boxed(layers: u32) -> Box<BoxNode> {
    let (left, right) = if layers > 1 {
        (Some(build_boxed(layers - 1)), Some(build_boxed(layers - 1)))
    } else {
        (None, None)
    };
    Box::new(BoxNode {
        val: 1,
        left,
        right,
    })
}

pub fn sum_boxed_seq(n: &BoxNode) -> u64 {
    n.val + n.left.as_deref().map_or(0, sum_boxed_seq) + n.right.as_deref().map_or(0, sum_boxed_seq)
}

pub fn sum_boxed_blitz(n: &BoxNode) -> u64 {
    let (l, r) = blitz_par::join(
        || n.left.as_deref().map_or(0, sum_boxed_blitz),
        || n.right.as_deref().map_or(0, sum_boxed_blitz),
    );
    n.val + l + r
}

pub fn sum_boxed_rayon(n: &BoxNode) -> u64 {
    let (l, r) = rayon::join(
        || n.left.as_deref().map_or(0, sum_boxed_rayon),
        || n.right.as_deref().map_or(0, sum_boxed_rayon),
    );
    n.val + l + r
}

/// Left subtree first: chili's `join` runs its second closure first.
pub fn sum_boxed_chili(n: &BoxNode, s: &mut chili::Scope<'_>) -> u64 {
    let (r, l) = s.join(
        |s| n.right.as_deref().map_or(0, |n| sum_boxed_chili(n, s)),
        |s| n.left.as_deref().map_or(0, |n| sum_boxed_chili(n, s)),
    );
    n.val + l + r
}

/// The two children of an inner node of a full tree.
fn children<'a>(n: &Node<'a>) -> (&'a Node<'a>, &'a Node<'a>) {
    (n.left.expect("full tree"), n.right.expect("full tree"))
}

/// The binary tree read as a 4-ary one (a node, its two children, and their four children as
/// its subtrees), summed with one `join!` of four per 4-ary node.
pub fn sum4_join_many(n: &Node) -> u64 {
    match (n.left, n.right) {
        (Some(l), Some(r)) if l.left.is_some() => {
            let ((a, b), (c, d)) = (children(l), children(r));
            let (a, b, c, d) = blitz_par::join!(
                || sum4_join_many(a),
                || sum4_join_many(b),
                || sum4_join_many(c),
                || sum4_join_many(d)
            );
            n.val + l.val + r.val + a + b + c + d
        }
        _ => sum_seq(n),
    }
}

/// [`sum4_join_many`] with the four subtrees joined by nested pairwise joins, as users write
/// it without `join!`.
pub fn sum4_nested(n: &Node) -> u64 {
    match (n.left, n.right) {
        (Some(l), Some(r)) if l.left.is_some() => {
            let ((a, b), (c, d)) = (children(l), children(r));
            let ((a, b), (c, d)) = blitz_par::join(
                || blitz_par::join(|| sum4_nested(a), || sum4_nested(b)),
                || blitz_par::join(|| sum4_nested(c), || sum4_nested(d)),
            );
            n.val + l.val + r.val + a + b + c + d
        }
        _ => sum_seq(n),
    }
}
