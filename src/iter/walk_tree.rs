//! Sources that split user data with user code: [`split`] (data that knows how to halve
//! itself) and the tree walks [`walk_tree_prefix`], [`walk_tree_postfix`] and [`walk_tree`].
//!
//! All are unindexed producers for the one splitting driver, which decides when to split.
//! A tree walk's producer stands for an ordered run of items: for the prefix walk, `visited`
//! nodes first, then the whole subtrees of `pending`, in order; for the postfix walk, the
//! subtrees of `pending` first, then the `finished` nodes. Splitting halves `pending` when it
//! has two or more subtrees, and otherwise opens its one subtree (moving its root to
//! `visited` or `finished` and its children to `pending`), so a split never reorders items.
//! A leaf walks its subtrees depth-first with an explicit stack of child iterators: no
//! recursion, so a deep tree cannot overflow the thread's stack.

use super::plumbing::*;
use super::*;
use std::collections::VecDeque;
use std::fmt;

/// A parallel iterator over pieces of `data`: `splitter` cuts a piece in two (returning
/// `None` for the second half when it should not be cut), and the driver calls it as long as
/// it wants more parallelism. The items are the pieces that were not cut further. Which
/// pieces come out depends on how far the driver splits, as in rayon.
///
/// ```
/// use blitz_par::prelude::*;
/// use blitz_par::iter::split;
/// let total: u64 = split(0..1000u64, |r| {
///     if r.end - r.start < 10 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// })
/// .map(|r| r.sum::<u64>())
/// .sum();
/// assert_eq!(total, 499_500);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The iterator of [`split`].
///
/// ```
/// use blitz_par::prelude::*;
/// let n = blitz_par::iter::split(8usize, |n| if n > 1 { (n / 2, Some(n - n / 2)) } else { (n, None) })
///     .sum::<usize>();
/// assert_eq!(n, 8);
/// ```
#[derive(Clone)]
#[must_use = "iterator adapters are lazy"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: fmt::Debug, S> fmt::Debug for Split<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("data", &self.data).finish()
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;
    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        let producer = SplitProducer {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_unindexed(producer, consumer)
    }
}

struct SplitProducer<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> UnindexedProducer for SplitProducer<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = D;
    fn split(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        let right = right.map(|data| SplitProducer { data, splitter });
        (
            SplitProducer {
                data: left,
                splitter,
            },
            right,
        )
    }
    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}

/// Declares the walk function `$walk` and its iterator `$name` (the struct, its `Debug` and
/// its `ParallelIterator`, which drives a `TreeProducer` in prefix order or not).
macro_rules! tree_walk {
    (
        $(#[$walk_doc:meta])* fn $walk:ident;
        $(#[$doc:meta])* struct $name:ident;
        prefix: $prefix:expr
    ) => {
        $(#[$walk_doc])*
        pub fn $walk<S, B, I>(root: S, children_of: B) -> $name<S, B>
        where
            S: Send,
            B: Fn(&S) -> I + Send + Sync,
            I: IntoIterator<Item = S>,
        {
            $name { root, children_of }
        }

        $(#[$doc])*
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<S, B> {
            root: S,
            children_of: B,
        }

        impl<S: fmt::Debug, B> fmt::Debug for $name<S, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("root", &self.root)
                    .finish()
            }
        }

        impl<S, B, I> ParallelIterator for $name<S, B>
        where
            S: Send,
            B: Fn(&S) -> I + Send + Sync,
            I: IntoIterator<Item = S>,
        {
            type Item = S;
            fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
                let producer = TreeProducer {
                    pending: vec![self.root],
                    done: VecDeque::new(),
                    children_of: &self.children_of,
                    prefix: $prefix,
                };
                bridge_unindexed(producer, consumer)
            }
        }
    };
}

tree_walk!(
    /// A parallel iterator over the nodes of a tree, each node before its children and the
    /// children's subtrees in the order `children_of` gives them (a prefix walk).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use blitz_par::iter::walk_tree_prefix;
    /// //      4
    /// //     / \
    /// //    2   3
    /// //       / \
    /// //      1   2
    /// let nodes: Vec<u32> = walk_tree_prefix(4u32, |&n| match n {
    ///     4 => vec![2, 3],
    ///     3 => vec![1, 2],
    ///     _ => vec![],
    /// })
    /// .collect();
    /// assert_eq!(nodes, [4, 2, 3, 1, 2]);
    /// ```
    fn walk_tree_prefix;
    /// The iterator of [`walk_tree_prefix`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it: blitz_par::iter::WalkTreePrefix<u8, _> =
    ///     blitz_par::iter::walk_tree_prefix(1u8, |_| Vec::new());
    /// assert_eq!(it.count(), 1);
    /// ```
    struct WalkTreePrefix;
    prefix: true
);

tree_walk!(
    /// A parallel iterator over the nodes of a tree, each node after its children's subtrees,
    /// which come in the order `children_of` gives them (a postfix walk).
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// use blitz_par::iter::walk_tree_postfix;
    /// let nodes: Vec<u32> = walk_tree_postfix(4u32, |&n| match n {
    ///     4 => vec![2, 3],
    ///     3 => vec![1, 2],
    ///     _ => vec![],
    /// })
    /// .collect();
    /// assert_eq!(nodes, [2, 1, 2, 3, 4]);
    /// ```
    fn walk_tree_postfix;
    /// The iterator of [`walk_tree_postfix`].
    ///
    /// ```
    /// use blitz_par::prelude::*;
    /// let it: blitz_par::iter::WalkTreePostfix<u8, _> =
    ///     blitz_par::iter::walk_tree_postfix(1u8, |_| Vec::new());
    /// assert_eq!(it.count(), 1);
    /// ```
    struct WalkTreePostfix;
    prefix: false
);

/// A parallel iterator over the nodes of a tree, in no promised order (today the postfix
/// order, as in rayon; use [`walk_tree_prefix`] or [`walk_tree_postfix`] to rely on one).
///
/// ```
/// use blitz_par::prelude::*;
/// use blitz_par::iter::walk_tree;
/// // The numbers 1..=15 as a binary tree: n's children are 2n and 2n + 1.
/// let sum: u32 = walk_tree(1u32, |&n| [2 * n, 2 * n + 1].into_iter().filter(|&c| c <= 15))
///     .sum();
/// assert_eq!(sum, 120);
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree(walk_tree_postfix(root, children_of))
}

/// The iterator of [`walk_tree`].
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::iter::WalkTree<u8, _> = blitz_par::iter::walk_tree(1u8, |_| Vec::new());
/// assert_eq!(it.count(), 1);
/// ```
#[must_use = "iterator adapters are lazy"]
pub struct WalkTree<S, B>(WalkTreePostfix<S, B>);

impl<S: fmt::Debug, B> fmt::Debug for WalkTree<S, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WalkTree").field(&self.0.root).finish()
    }
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;
    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        self.0.drive_unindexed(consumer)
    }
}

/// An ordered run of a walk's items. Prefix: `done` (nodes already opened), then the
/// subtrees of `pending`. Postfix: the subtrees of `pending`, then `done`.
struct TreeProducer<'b, S, B> {
    pending: Vec<S>,
    done: VecDeque<S>,
    children_of: &'b B,
    prefix: bool,
}

impl<S, B, I> UnindexedProducer for TreeProducer<'_, S, B>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    fn drive_fixed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // Deterministic drives gather the items in order, then reduce them in parallel.
        crate::iter::plumbing::gather_then_fixed(self, consumer)
    }
    type Item = S;
    fn split(mut self) -> (Self, Option<Self>) {
        if self.pending.len() == 1 {
            // Open the one subtree: its root joins `done` (at the end for prefix, whose
            // `done` comes before `pending`; at the front for postfix, whose comes after).
            let root = self.pending.pop().expect("one pending subtree");
            self.pending = (self.children_of)(&root).into_iter().collect();
            if self.prefix {
                self.done.push_back(root);
            } else {
                self.done.push_front(root);
            }
        }
        if self.pending.len() < 2 {
            return (self, None);
        }
        let right_pending = self.pending.split_off(self.pending.len() / 2);
        let (left_done, right_done) = if self.prefix {
            (self.done, VecDeque::new())
        } else {
            (VecDeque::new(), self.done)
        };
        let left = TreeProducer {
            pending: self.pending,
            done: left_done,
            children_of: self.children_of,
            prefix: self.prefix,
        };
        let right = TreeProducer {
            pending: right_pending,
            done: right_done,
            children_of: self.children_of,
            prefix: self.prefix,
        };
        (left, Some(right))
    }

    fn fold_with<F: Folder<S>>(self, mut folder: F) -> F {
        let children_of = self.children_of;
        if self.prefix {
            folder = folder.consume_iter(self.done);
            for root in self.pending {
                if folder.full() {
                    return folder;
                }
                folder = walk_prefix(root, children_of, folder);
            }
        } else {
            for root in self.pending {
                if folder.full() {
                    return folder;
                }
                folder = walk_postfix(root, children_of, folder);
            }
            if !folder.full() {
                folder = folder.consume_iter(self.done);
            }
        }
        folder
    }
}

/// Folds `root`'s subtree in prefix order.
fn walk_prefix<S, B, I, F>(root: S, children_of: &B, folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let mut stack = vec![children_of(&root).into_iter()];
    let mut folder = folder.consume(root);
    while let Some(children) = stack.last_mut() {
        if folder.full() {
            break;
        }
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                folder = folder.consume(child);
                stack.push(grandchildren);
            }
            None => {
                stack.pop();
            }
        }
    }
    folder
}

/// Folds `root`'s subtree in postfix order.
fn walk_postfix<S, B, I, F>(root: S, children_of: &B, mut folder: F) -> F
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
    F: Folder<S>,
{
    let children = children_of(&root).into_iter();
    let mut stack = vec![(root, children)];
    while let Some((_, children)) = stack.last_mut() {
        if folder.full() {
            break;
        }
        match children.next() {
            Some(child) => {
                let grandchildren = children_of(&child).into_iter();
                stack.push((child, grandchildren));
            }
            None => {
                let (node, _) = stack.pop().expect("non-empty stack");
                folder = folder.consume(node);
            }
        }
    }
    folder
}
