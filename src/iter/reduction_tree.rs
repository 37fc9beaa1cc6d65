//! The fixed reduction tree's shape: leaves of [`LEAF_LEN`] items, where a node of leaves
//! splits ([`tree_split`]), the complete nodes over a range of leaves ([`subtrees`]), and
//! [`TreeReduction`], which combines such nodes' values into the root's. The public path of
//! these items is [`crate::iter::deterministic`]; the driver (`plumbing::fixed_tree`) uses them
//! from here, below the iterators.

use std::fmt;
use std::ops::Range;

// One of the thresholds kept beside their code: listed, with its origin, in the second table
// of `src/tuning.rs` (`tests/docs_stay_true.rs` holds the two to the same value).
/// The number of items in a leaf of the fixed reduction tree: the last leaf holds the rest.
///
/// A leaf is folded sequentially, so it is what one thread does without a split: long enough
/// that the join around it costs nothing against it (a 10M-item sum of `f64` in leaves of
/// this size takes no longer than the adaptive sum), short enough that inputs of a few
/// thousand items still split between threads. Inputs of at most this many items are
/// reduced sequentially.
///
/// Part of the reproducibility contract: with [`tree_split`], it decides the tree along which
/// every deterministic reduction groups its `op`, hence the bits of its result (and
/// `blitz-par-mpi` reproduces the tree across ranks from it). A change of this value or of the
/// tree's shape is a breaking change (a new major version).
///
/// ```
/// use blitz_par::iter::deterministic::{leaf_count, LEAF_LEN};
/// assert_eq!(LEAF_LEN, 1024);
/// assert_eq!(leaf_count(LEAF_LEN + 1), 2);
/// ```
pub const LEAF_LEN: usize = 1024;

/// The number of leaves of `len` items: `len.div_ceil(LEAF_LEN)`.
///
/// ```
/// use blitz_par::iter::deterministic::{leaf_count, LEAF_LEN};
/// assert_eq!(leaf_count(0), 0);
/// assert_eq!(leaf_count(1), 1);
/// assert_eq!(leaf_count(3 * LEAF_LEN), 3);
/// ```
pub const fn leaf_count(len: usize) -> usize {
    len.div_ceil(LEAF_LEN)
}

/// Where the node of leaves `lo..hi` (`hi - lo >= 2`) splits: `lo + (hi - lo)
/// .next_power_of_two() / 2`. The left part is a complete subtree of a power of two leaves.
///
/// ```
/// use blitz_par::iter::deterministic::tree_split;
/// assert_eq!(tree_split(0, 2), 1);
/// assert_eq!(tree_split(0, 5), 4);
/// assert_eq!(tree_split(4, 5 + 4), 8);
/// assert_eq!(tree_split(0, 8), 4);
/// ```
pub const fn tree_split(lo: usize, hi: usize) -> usize {
    assert!(
        hi >= lo + 2,
        "tree_split: a node of fewer than two leaves does not split"
    );
    lo + (hi - lo).next_power_of_two() / 2
}

/// The nodes of the fixed tree over `total` leaves that make up the leaves `leaves`, left to
/// right: the fewest, largest aligned subtrees (at most about `2 log2(total)` of them).
/// Reduce each node's items alone (deterministically) and combine the values with
/// [`TreeReduction`] to get the whole tree's value.
///
/// Panics if `leaves` is not inside `0..total`.
///
/// ```
/// use blitz_par::iter::deterministic::subtrees;
/// // Leaves 3..11 of a tree over 13: leaf 3, leaves 4..8, 8..10, leaf 10.
/// assert_eq!(subtrees(3..11, 13).collect::<Vec<_>>(), [3..4, 4..8, 8..10, 10..11]);
/// // The right edge: nodes there are cut at `total`; leaves 8..13 are the root's right child.
/// assert_eq!(subtrees(8..13, 13).collect::<Vec<_>>(), [8..13]);
/// assert_eq!(subtrees(9..13, 13).collect::<Vec<_>>(), [9..10, 10..12, 12..13]);
/// ```
pub fn subtrees(leaves: Range<usize>, total: usize) -> impl Iterator<Item = Range<usize>> {
    assert!(
        leaves.start <= leaves.end && leaves.end <= total,
        "subtrees: leaves {leaves:?} outside 0..{total}"
    );
    let end = leaves.end;
    let mut at = leaves.start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        // The largest aligned node starting at `at` that ends by `end`.
        let mut level = if at == 0 {
            usize::BITS - 1
        } else {
            at.trailing_zeros()
        };
        let node_end = |level: u32| {
            1usize
                .checked_shl(level)
                .and_then(|size| at.checked_add(size))
                .map_or(total, |e| e.min(total))
        };
        while node_end(level) > end {
            level -= 1;
        }
        let node = at..node_end(level);
        at = node.end;
        Some(node)
    })
}

/// Combines the values of consecutive nodes of the fixed tree (from [`subtrees`], in order,
/// perhaps computed on different machines) into the value of the whole tree, joining exactly
/// the pairs the tree joins, so the result is bit for bit that of one deterministic drive.
///
/// ```
/// use blitz_par::iter::deterministic::{subtrees, TreeReduction, LEAF_LEN};
/// use blitz_par::prelude::*;
/// let v: Vec<f64> = (0..20 * LEAF_LEN).map(|i| (i as f64).sqrt()).collect();
/// let whole = v.par_iter().deterministic().sum::<f64>();
/// // Two "ranks": leaves 0..7 and 7..20.
/// let mut tree = TreeReduction::new(20);
/// for part in [0..7, 7..20] {
///     for node in subtrees(part, 20) {
///         let items = &v[node.start * LEAF_LEN..(node.end * LEAF_LEN).min(v.len())];
///         let value = items.par_iter().deterministic().sum::<f64>();
///         tree.push(node, value, |a, b| a + b);
///     }
/// }
/// assert_eq!(tree.finish().unwrap().to_bits(), whole.to_bits());
/// ```
pub struct TreeReduction<T> {
    /// Leaves of the whole tree.
    total: usize,
    /// The nodes pushed and not yet joined, left to right: `(level, index, value)` for the
    /// node of leaves `index << level .. min((index + 1) << level, total)`.
    nodes: Vec<(u32, usize, T)>,
    /// Where the next node must start.
    next: usize,
}

impl<T> TreeReduction<T> {
    /// A reduction over a tree of `total` leaves (see [`leaf_count`]).
    ///
    /// ```
    /// let tree = blitz_par::iter::deterministic::TreeReduction::<f64>::new(4);
    /// assert_eq!(tree.finish(), None);
    /// ```
    pub fn new(total: usize) -> Self {
        TreeReduction {
            total,
            nodes: Vec::new(),
            next: 0,
        }
    }

    /// Adds the value of the node of leaves `leaves`, which must start where the last one
    /// ended (at 0 for the first) and be a node of the tree (as [`subtrees`] gives), and joins
    /// every pair of nodes that this completes with `op(left, right)`.
    ///
    /// Panics if `leaves` does not start where the last node ended or is not a node.
    ///
    /// ```
    /// use blitz_par::iter::deterministic::TreeReduction;
    /// let mut tree = TreeReduction::new(3);
    /// tree.push(0..2, "ab".to_string(), |a, b| a + &b);
    /// tree.push(2..3, "c".to_string(), |a, b| a + &b);
    /// assert_eq!(tree.finish().as_deref(), Some("abc"));
    /// ```
    pub fn push(&mut self, leaves: Range<usize>, value: T, mut op: impl FnMut(T, T) -> T) {
        assert!(
            leaves.start == self.next && leaves.start < leaves.end && leaves.end <= self.total,
            "TreeReduction::push: {leaves:?} does not follow the nodes pushed so far (next leaf {}, of {})",
            self.next,
            self.total
        );
        let len = leaves.end - leaves.start;
        let level = len.next_power_of_two().trailing_zeros();
        let aligned = leaves.start % (1 << level) == 0;
        let whole = len.is_power_of_two() || leaves.end == self.total;
        assert!(
            aligned && whole,
            "TreeReduction::push: {leaves:?} is not a node of the tree over {} leaves",
            self.total
        );
        self.next = leaves.end;
        self.nodes.push((level, leaves.start >> level, value));
        self.join_completed(&mut op);
    }

    /// Joins the nodes at the end that the last push completed: a right child with its left
    /// sibling, and a left child whose right sibling lies beyond the last leaf moves up as is.
    fn join_completed(&mut self, op: &mut impl FnMut(T, T) -> T) {
        loop {
            let Some(&(level, index, _)) = self.nodes.last() else {
                return;
            };
            let size = 1u128 << level;
            let root = index == 0 && size >= self.total as u128;
            if root {
                return;
            }
            if index % 2 == 0 {
                if (index as u128 + 1) * size >= self.total as u128 {
                    // No right sibling: this is the parent's value.
                    let last = self.nodes.last_mut().expect("just read");
                    (last.0, last.1) = (level + 1, index / 2);
                    continue;
                }
                return;
            }
            let n = self.nodes.len();
            if n < 2 || self.nodes[n - 2].0 != level || self.nodes[n - 2].1 + 1 != index {
                return;
            }
            let (_, _, right) = self.nodes.pop().expect("two nodes");
            let (_, _, left) = self.nodes.pop().expect("two nodes");
            self.nodes.push((level + 1, index / 2, op(left, right)));
        }
    }

    /// The value of the whole tree, once every leaf has been pushed; `None` if none was.
    ///
    /// Panics if some leaves were pushed but not all.
    ///
    /// ```
    /// use blitz_par::iter::deterministic::TreeReduction;
    /// let mut tree = TreeReduction::new(1);
    /// tree.push(0..1, 7, |a, b| a + b);
    /// assert_eq!(tree.finish(), Some(7));
    /// ```
    pub fn finish(mut self) -> Option<T> {
        if self.next == 0 {
            return None;
        }
        assert!(
            self.next == self.total && self.nodes.len() == 1,
            "TreeReduction::finish: leaves {}..{} were not pushed",
            self.next,
            self.total
        );
        self.nodes.pop().map(|(_, _, value)| value)
    }
}

impl<T: fmt::Debug> fmt::Debug for TreeReduction<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeReduction")
            .field("total", &self.total)
            .field("next", &self.next)
            .field("nodes", &self.nodes)
            .finish()
    }
}
