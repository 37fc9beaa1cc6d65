//! Reductions whose result depends only on the global sequence and the operator: not on the
//! number of ranks, how the sequence is cut between them, nor the number of threads.
//!
//! The reduction tree is the one fixed for blitz-par's single-process `deterministic()` mode
//! (so that a distributed result and a single-process one agree bit for bit): the sequence of
//! length `n` is cut into leaves of [`LEAF_LEN`] items (leaf `k` covers items
//! `[k * LEAF_LEN, min((k + 1) * LEAF_LEN, n))`); a leaf is folded sequentially from its first
//! item; leaves `[lo, hi)` with `hi - lo > 1` are combined as `op(left, right)`, split at
//! `lo + next_power_of_two(hi - lo) / 2`. That is the perfect binary tree over leaf indices, a
//! missing right child passing its left child up.
//!
//! Across ranks:
//! 1. The ranks learn each other's lengths (the agreement before the first collective), so
//!    every rank knows where every leaf starts.
//! 2. A leaf belongs to the rank that holds its first item. The items at the start of a rank's
//!    part that continue a leaf begun on an earlier rank (fewer than `LEAF_LEN`) go to that
//!    rank, in one all-to-all-v exchange (skipped when every part starts on a leaf boundary).
//! 3. Each rank folds its leaves in parallel and reduces them into the largest subtrees of the
//!    fixed tree that lie within its leaves ([`subtrees`]): at most about `2 log2(leaves)`
//!    nodes.
//! 4. The nodes are gathered on every rank, which joins them, in order, as the tree does
//!    ([`TreeReduction`]).
//!
//! The tree, its nodes and their joining are blitz-par's own ([`blitz_par::iter::deterministic`]),
//! so that the two cannot drift apart.

use std::iter::Sum;
use std::ops::{Add, Range};

use blitz_par::iter::deterministic::{subtrees, TreeReduction};
use blitz_par::prelude::*;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

use crate::agree::{agree, catch, Step};
use crate::raw;
use crate::Error;

/// Items per leaf of the fixed reduction tree: blitz-par's
/// [`LEAF_LEN`](blitz_par::iter::deterministic::LEAF_LEN).
pub use blitz_par::iter::deterministic::LEAF_LEN;

/// The deterministic mode of an [`Across`](crate::Across) view, from
/// [`Across::deterministic`](crate::Across::deterministic).
///
/// ```no_run
/// use blitz_par_mpi::prelude::*;
///
/// let universe = blitz_par_mpi::initialize().unwrap();
/// let world = universe.world();
/// // Rank r holds 0.1 * r repeated r + 1 times: a different cut of the sequence for each
/// // number of ranks, and the same sum, to the bit, for any cut of the same sequence.
/// let r = world.rank() as usize;
/// let local = vec![0.1 * r as f64; r + 1];
/// let sum = local.across(&world).deterministic().sum().unwrap();
/// println!("{sum:e}");
/// ```
pub struct Deterministic<'a, T, C: ?Sized> {
    pub(crate) local: &'a [T],
    pub(crate) comm: &'a C,
}

impl<T, C> Deterministic<'_, T, C>
where
    T: Equivalence + Copy + Send + Sync,
    C: Communicator + ?Sized,
{
    /// Reduces the global sequence with `op` over the fixed tree; `None` when it is empty.
    /// The result is the same bits on every rank and for every cut of the sequence between
    /// ranks and threads (given an `op` that is a function of its arguments).
    pub fn reduce<F>(&self, op: F) -> Result<Option<T>, Error>
    where
        F: Fn(T, T) -> T + Sync + Send,
    {
        let comm = self.comm;
        let size = comm.size() as usize;
        let me = comm.rank() as usize;
        let step = Step::new("deterministic_reduce");
        let (_, lengths) = agree::<T, _, _>(comm, step, LEAF_LEN as u64, Ok(()), |_| {
            self.local.len() as u64
        })?;
        let layout = Layout::new(&lengths);
        if layout.total == 0 {
            return Ok(None);
        }

        // The items that continue a leaf begun on an earlier rank go to that leaf's owner.
        let heads: Vec<(usize, usize)> = (0..size).map(|rank| layout.head(rank)).collect();
        let mut send_counts = vec![0; size];
        let mut recv_counts = vec![0; size];
        for (rank, &(owner, head)) in heads.iter().enumerate() {
            if rank == me {
                send_counts[owner] += head;
            }
            if owner == me && rank != me {
                recv_counts[rank] = head;
            }
        }
        let tail = if heads.iter().any(|&(_, head)| head > 0) {
            let head = heads[me].1;
            let largest = LEAF_LEN * size;
            raw::all_to_all_varcount(
                comm,
                &self.local[..head],
                &send_counts,
                &recv_counts,
                largest,
            )
        } else {
            Vec::new()
        };

        // This rank's leaves, folded, and the largest subtrees within them.
        let (first_leaf, end_leaf) = layout.leaves(me);
        let leaves = layout.leaf_count();
        let nodes = catch(|| {
            if first_leaf == end_leaf {
                return Vec::new();
            }
            let own = &self.local[first_leaf * LEAF_LEN - layout.start[me]..];
            let whole = own.len() / LEAF_LEN * LEAF_LEN;
            let mut values: Vec<T> = own[..whole]
                .par_chunks(LEAF_LEN)
                .map(|leaf| fold_leaf(leaf.iter().copied(), &op))
                .collect();
            if whole < own.len() || !tail.is_empty() {
                values.push(fold_leaf(own[whole..].iter().chain(&tail).copied(), &op));
            }
            debug_assert_eq!(values.len(), end_leaf - first_leaf);
            node_values(&values, first_leaf, leaves, &op)
                .into_iter()
                .map(|(node, value)| (node.start as u64, node.end as u64, value))
                .collect()
        });
        let (nodes, node_counts) =
            agree::<T, _, _>(comm, step.next(), LEAF_LEN as u64, nodes, |n| {
                n.len() as u64
            })?;

        let counts: Vec<usize> = node_counts.iter().map(|&c| c as usize).collect();
        let values: Vec<T> = nodes.iter().map(|n| n.2).collect();
        let ranges: Vec<u64> = nodes.iter().flat_map(|n| [n.0, n.1]).collect();
        let all_values = raw::all_gather_varcount(comm, &values, &counts)?;
        let range_counts: Vec<usize> = counts.iter().map(|c| 2 * c).collect();
        let all_ranges = raw::all_gather_varcount(comm, &ranges, &range_counts)?;
        // Rank order is leaf order: the nodes come left to right.
        let nodes = all_ranges
            .chunks_exact(2)
            .map(|r| r[0] as usize..r[1] as usize)
            .zip(all_values);
        catch(|| join_nodes(nodes, leaves, &op))
            .map(Some)
            .map_err(|message| Error::Panicked { rank: me, message })
    }

    /// The sum over the fixed tree (`T::sum` of nothing when the sequence is empty): the same
    /// bits for every number of ranks and threads.
    ///
    /// ```no_run
    /// use blitz_par_mpi::prelude::*;
    ///
    /// let universe = blitz_par_mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let local = vec![0.1f64; 1000];
    /// let sum = local.across(&world).deterministic().sum().unwrap();
    /// assert!((sum - 100.0 * world.size() as f64).abs() < 1e-9);
    /// ```
    pub fn sum(&self) -> Result<T, Error>
    where
        T: Add<Output = T> + Sum<T>,
    {
        Ok(self
            .reduce(|a, b| a + b)?
            .unwrap_or_else(|| std::iter::empty().sum()))
    }
}

/// Folds one leaf from its first item, left to right.
fn fold_leaf<T, F: Fn(T, T) -> T>(items: impl Iterator<Item = T>, op: &F) -> T {
    items.reduce(op).expect("a leaf is not empty")
}

/// The largest nodes of the fixed tree over `leaves` leaves that lie within the leaves whose
/// folded values are `values` (the first being leaf `first`), each with its value: the node's
/// leaves joined as the tree joins them. A node is an aligned subtree, so the tree over its
/// leaves alone (relative indices) is the whole tree's below it.
fn node_values<T: Clone, F: Fn(T, T) -> T>(
    values: &[T],
    first: usize,
    leaves: usize,
    op: &F,
) -> Vec<(Range<usize>, T)> {
    subtrees(first..first + values.len(), leaves)
        .map(|node| {
            let mut tree = TreeReduction::new(node.len());
            let node_leaves = values[node.start - first..node.end - first].iter();
            for (i, value) in node_leaves.cloned().enumerate() {
                tree.push(i..i + 1, value, op);
            }
            (node, tree.finish().expect("a node has a leaf"))
        })
        .collect()
}

/// The value of the tree over `leaves` leaves from its nodes, given left to right and covering
/// every leaf (each rank's [`node_values`], in rank order).
fn join_nodes<T, F: Fn(T, T) -> T>(
    nodes: impl IntoIterator<Item = (Range<usize>, T)>,
    leaves: usize,
    op: &F,
) -> T {
    let mut tree = TreeReduction::new(leaves);
    for (node, value) in nodes {
        tree.push(node, value, op);
    }
    tree.finish().expect("the ranks hold some leaves")
}

/// Where each rank's part lies in the global sequence.
struct Layout {
    start: Vec<usize>,
    total: usize,
}

impl Layout {
    fn new(lengths: &[u64]) -> Layout {
        let mut start = Vec::with_capacity(lengths.len() + 1);
        let mut at = 0;
        for &n in lengths {
            start.push(at);
            at += n as usize;
        }
        start.push(at);
        Layout { start, total: at }
    }

    fn leaf_count(&self) -> usize {
        self.total.div_ceil(LEAF_LEN)
    }

    /// The leaves `rank` owns (those whose first item it holds): `[first, end)`.
    fn leaves(&self, rank: usize) -> (usize, usize) {
        let (a, b) = (self.start[rank], self.start[rank + 1]);
        (
            a.div_ceil(LEAF_LEN),
            b.div_ceil(LEAF_LEN).max(a.div_ceil(LEAF_LEN)),
        )
    }

    /// The owner of the leaf that `rank`'s first items continue, and how many items those are
    /// (0 when the rank's part starts on a leaf boundary or is empty).
    fn head(&self, rank: usize) -> (usize, usize) {
        let (a, b) = (self.start[rank], self.start[rank + 1]);
        if a == b || a % LEAF_LEN == 0 {
            return (rank, 0);
        }
        let leaf_start = a / LEAF_LEN * LEAF_LEN;
        let head = (a.div_ceil(LEAF_LEN) * LEAF_LEN).min(b) - a;
        // The owner: the last rank whose part starts at or before `leaf_start`, which holds it
        // (the part after it starts past `leaf_start`, so its own part is not empty).
        let owner = self.start.partition_point(|&s| s <= leaf_start) - 1;
        debug_assert!(owner < rank);
        (owner, head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree over leaves `[lo, hi)` by the shared definition, as a string.
    fn shape(lo: usize, hi: usize) -> String {
        if hi - lo == 1 {
            return lo.to_string();
        }
        let mid = lo + (hi - lo).next_power_of_two() / 2;
        format!("({} {})", shape(lo, mid), shape(mid, hi))
    }

    /// Leaves cut between "ranks" anywhere (here in two and three parts): each part's nodes,
    /// joined in order, give the tree of the shared definition. Strings stand for values:
    /// the join writes the tree it builds.
    #[test]
    fn nodes_of_any_cut_join_to_the_shared_tree() {
        let op = |a: String, b: String| format!("({a} {b})");
        for leaves in 1..24 {
            let names: Vec<String> = (0..leaves).map(|i| i.to_string()).collect();
            for a in 0..=leaves {
                for b in a..=leaves {
                    let nodes = [0..a, a..b, b..leaves]
                        .into_iter()
                        .filter(|part| !part.is_empty())
                        .flat_map(|part| {
                            node_values(&names[part.clone()], part.start, leaves, &op)
                        });
                    assert_eq!(
                        join_nodes(nodes, leaves, &op),
                        shape(0, leaves),
                        "{leaves} leaves cut at {a} and {b}"
                    );
                }
            }
        }
    }

    /// Each part's nodes are few: at most about `2 log2(leaves)`.
    #[test]
    fn a_part_ships_few_nodes() {
        let op = |a: u64, b: u64| a + b;
        for leaves in [1usize, 2, 3, 100, 1000, 4097] {
            let ones = vec![1u64; leaves];
            for first in [0, 1, leaves / 3, leaves - 1] {
                let nodes = node_values(&ones[first..], first, leaves, &op);
                assert!(nodes.len() <= 2 * (usize::BITS - leaves.leading_zeros()) as usize);
                assert_eq!(
                    nodes.iter().map(|n| n.1).sum::<u64>(),
                    (leaves - first) as u64
                );
            }
        }
    }

    #[test]
    fn layout_heads_go_to_the_owner_of_their_leaf() {
        // Parts of 1500, 0, 100, 3000 items: rank 2's items continue leaf 1 (owned by rank 0),
        // rank 3's first 448 items too.
        let layout = Layout::new(&[1500, 0, 100, 3000]);
        assert_eq!(layout.head(0), (0, 0));
        assert_eq!(layout.head(1), (1, 0));
        assert_eq!(layout.head(2), (0, 100));
        assert_eq!(layout.head(3), (0, 448));
        assert_eq!(layout.leaves(0), (0, 2));
        assert_eq!(layout.leaves(1), (2, 2));
        assert_eq!(layout.leaves(2), (2, 2));
        assert_eq!(layout.leaves(3), (2, 5));
        assert_eq!(layout.leaf_count(), 5);
    }
}
