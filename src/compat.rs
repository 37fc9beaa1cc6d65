//! rayon's module paths for its iterator types (`rayon::vec::IntoIter`, `rayon::range::Iter`,
//! `rayon::collections::hash_map::Drain`, ...), so that code naming those types compiles with
//! `blitz_par::` in place of `rayon::`. These modules are the types' only public paths, as in
//! rayon (the types are defined in `iter`'s private modules, under names of their own there).

/// Parallel iterators of arrays (rayon's `rayon::array`).
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::array::IntoIter<i32, 3> = [1, 2, 3].into_par_iter();
/// assert_eq!(it.sum::<i32>(), 6);
/// ```
pub mod array {
    pub use crate::iter::vec::ArrayIntoIter as IntoIter;
}

/// Parallel iterators of `Vec` (rayon's `rayon::vec`).
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::vec::IntoIter<i32> = vec![1, 2].into_par_iter();
/// assert_eq!(it.count(), 2);
/// ```
pub mod vec {
    pub use crate::iter::vec::Drain;
    pub use crate::iter::vec::VecIntoIter as IntoIter;
}

/// Parallel iterators of ranges (rayon's `rayon::range`).
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::range::Iter<u32> = (0..4u32).into_par_iter();
/// assert_eq!(it.sum::<u32>(), 6);
/// ```
pub mod range {
    pub use crate::iter::range::RangeIter as Iter;
}

/// Parallel iterators of inclusive ranges (rayon's `rayon::range_inclusive`).
///
/// ```
/// use blitz_par::prelude::*;
/// let it: blitz_par::range_inclusive::Iter<u8> = (0..=4u8).into_par_iter();
/// assert_eq!(it.count(), 5);
/// ```
pub mod range_inclusive {
    pub use crate::iter::range::RangeInclusiveIter as Iter;
}

/// Parallel iterators of `Option` (rayon's `rayon::option`).
///
/// ```
/// use blitz_par::prelude::*;
/// let x = Some(3);
/// let it: blitz_par::option::Iter<'_, i32> = x.par_iter();
/// assert_eq!(it.count(), 1);
/// ```
pub mod option {
    pub use crate::iter::sources::OptionIntoIter as IntoIter;
    pub use crate::iter::sources::{OptionIter as Iter, OptionIterMut as IterMut};
}

/// Parallel iterators of `Result` (rayon's `rayon::result`): the `Ok` value, if any.
///
/// ```
/// use blitz_par::prelude::*;
/// let r: Result<i32, ()> = Ok(3);
/// let it: blitz_par::result::IntoIter<i32> = r.into_par_iter();
/// assert_eq!(it.count(), 1);
/// ```
pub mod result {
    pub use crate::iter::sources::{
        ResultIntoIter as IntoIter, ResultIter as Iter, ResultIterMut as IterMut,
    };
}

/// Parallel iterators of `String` (rayon's `rayon::string`).
///
/// ```
/// use blitz_par::prelude::*;
/// let mut s = String::from("abc");
/// let it: blitz_par::string::Drain<'_> = s.par_drain(1..);
/// assert_eq!(it.count(), 2);
/// assert_eq!(s, "a");
/// ```
pub mod string {
    pub use crate::iter::drain::StringDrain as Drain;
}

/// Parallel iterators of std's collections (rayon's `rayon::collections`).
///
/// ```
/// use blitz_par::prelude::*;
/// let m: std::collections::HashMap<i32, i32> = [(1, 2)].into();
/// let it: blitz_par::collections::hash_map::Iter<'_, i32, i32> = m.par_iter();
/// assert_eq!(it.count(), 1);
/// ```
pub mod collections {
    /// `BinaryHeap`'s parallel iterators.
    pub mod binary_heap {
        pub use crate::iter::collections::BinaryHeapIntoIter as IntoIter;
        pub use crate::iter::collections::BinaryHeapIter as Iter;
        pub use crate::iter::drain::BinaryHeapDrain as Drain;
    }
    /// `BTreeMap`'s parallel iterators.
    pub mod btree_map {
        pub use crate::iter::collections::BTreeMapIntoIter as IntoIter;
        pub use crate::iter::collections::BTreeMapIter as Iter;
        pub use crate::iter::collections::BTreeMapIterMut as IterMut;
    }
    /// `BTreeSet`'s parallel iterators.
    pub mod btree_set {
        pub use crate::iter::collections::BTreeSetIntoIter as IntoIter;
        pub use crate::iter::collections::BTreeSetIter as Iter;
    }
    /// `HashMap`'s parallel iterators.
    pub mod hash_map {
        pub use crate::iter::collections::HashMapIntoIter as IntoIter;
        pub use crate::iter::collections::HashMapIter as Iter;
        pub use crate::iter::collections::HashMapIterMut as IterMut;
        pub use crate::iter::drain::HashMapDrain as Drain;
    }
    /// `HashSet`'s parallel iterators.
    pub mod hash_set {
        pub use crate::iter::collections::HashSetIntoIter as IntoIter;
        pub use crate::iter::collections::HashSetIter as Iter;
        pub use crate::iter::drain::HashSetDrain as Drain;
    }
    /// `LinkedList`'s parallel iterators.
    pub mod linked_list {
        pub use crate::iter::collections::LinkedListIntoIter as IntoIter;
        pub use crate::iter::collections::LinkedListIter as Iter;
        pub use crate::iter::collections::LinkedListIterMut as IterMut;
    }
    /// `VecDeque`'s parallel iterators.
    pub mod vec_deque {
        pub use crate::iter::collections::VecDequeIntoIter as IntoIter;
        pub use crate::iter::collections::VecDequeIter as Iter;
        pub use crate::iter::collections::VecDequeIterMut as IterMut;
        pub use crate::iter::drain::VecDequeDrain as Drain;
    }
}
