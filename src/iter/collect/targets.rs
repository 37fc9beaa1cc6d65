//! [`FromParallelIterator`] and [`ParallelExtend`] for std's collections other than `Vec`.
//!
//! `VecDeque` and `BinaryHeap` collect a `Vec` in parallel (written in place when the length
//! is known) and take it over; `LinkedList` builds its nodes in parallel, one list per loop
//! of the driver, and links the lists. `String` concatenates its pieces into one `String` per
//! loop of the driver (encoding and copying in parallel) and copies those into place in
//! parallel. The others collect per-leaf vectors in parallel (see [`collect_list`]), make room
//! for all the items where they can, and insert sequentially.

use super::list::ListReducer;
use super::{append_list, collect_list};
use crate::iter::plumbing::*;
use crate::iter::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

/// A collection that can make room for items before a sequential extend.
trait Reserve {
    /// Makes room for `n` more items (as pieces of the list: for strings, a number of pieces,
    /// not of bytes, so they reserve nothing).
    fn reserve_items(&mut self, n: usize) {
        let _ = n;
    }
}

impl<T> Reserve for BTreeSet<T> {}
impl<K, V> Reserve for BTreeMap<K, V> {}
impl Reserve for OsString {}

impl<T: Eq + Hash, S: BuildHasher> Reserve for HashSet<T, S> {
    fn reserve_items(&mut self, n: usize) {
        self.reserve(n);
    }
}

impl<K: Eq + Hash, V, S: BuildHasher> Reserve for HashMap<K, V, S> {
    fn reserve_items(&mut self, n: usize) {
        self.reserve(n);
    }
}

/// Extends `target` with the items of `par_iter`, in order, after making room for all of
/// them (a hash table then grows once, not at every doubling).
fn extend_from_list<T, I, E>(target: &mut E, par_iter: I)
where
    T: Send,
    I: IntoParallelIterator<Item = T>,
    E: Extend<T> + Reserve,
{
    let list = collect_list(par_iter.into_par_iter());
    target.reserve_items(list.iter().map(Vec::len).sum());
    for v in list {
        target.extend(v);
    }
}

/// `VecDeque` and `BinaryHeap`: a `Vec` collected in parallel, then taken over (`From<Vec>`
/// costs nothing for a `VecDeque`, and heapifies in linear time) or appended.
macro_rules! via_vec {
    ($(impl<T> for $ty:ty, where [$($bounds:tt)*];)*) => {$(
        impl<T> ParallelExtend<T> for $ty
        where
            $($bounds)*
        {
            fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
                let items = Vec::from_par_iter(par_iter);
                if self.is_empty() && self.capacity() < items.len() {
                    *self = <$ty>::from(items);
                } else {
                    self.extend(items);
                }
            }
        }

        impl<T> FromParallelIterator<T> for $ty
        where
            $($bounds)*
        {
            fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
                <$ty>::from(Vec::from_par_iter(par_iter))
            }
        }
    )*};
}

via_vec! {
    impl<T> for VecDeque<T>, where [T: Send];
    impl<T> for BinaryHeap<T>, where [T: Ord + Send];
}

/// Nodes allocated by every thread, one list per loop of the driver, linked in order.
impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let mut list = par_iter
            .into_par_iter()
            .fold(LinkedList::new, |mut list, item| {
                list.push_back(item);
                list
            })
            .reduce(LinkedList::new, |mut left, mut right| {
                left.append(&mut right);
                left
            });
        self.append(&mut list);
    }
}

impl<T: Send> FromParallelIterator<T> for LinkedList<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let mut list = LinkedList::new();
        list.par_extend(par_iter);
        list
    }
}

macro_rules! via_list {
    ($(impl<$($g:ident),*> for $ty:ty, item $item:ty, where [$($bounds:tt)*];)*) => {$(
        impl<$($g),*> ParallelExtend<$item> for $ty
        where
            $($bounds)*
        {
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                extend_from_list(self, par_iter)
            }
        }

        impl<$($g),*> FromParallelIterator<$item> for $ty
        where
            $ty: Default,
            $($bounds)*
        {
            fn from_par_iter<I>(par_iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                let mut target = <$ty>::default();
                target.par_extend(par_iter);
                target
            }
        }
    )*};
}

via_list! {
    impl<T> for BTreeSet<T>, item T, where [T: Ord + Send];
    impl<K, V> for BTreeMap<K, V>, item (K, V), where [K: Ord + Send, V: Send];
    impl<T, S> for HashSet<T, S>, item T, where [T: Eq + Hash + Send, S: BuildHasher + Send];
    impl<K, V, S> for HashMap<K, V, S>, item (K, V), where [K: Eq + Hash + Send, V: Send, S: BuildHasher + Send];
    impl<> for OsString, item OsString, where [];
}

/// `String` and `OsString` from borrowed pieces (a lifetime the `via_list!` form cannot name).
macro_rules! via_list_borrowed {
    ($(for $ty:ty, item $item:ty;)*) => {$(
        impl<'a> ParallelExtend<$item> for $ty {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                extend_from_list(self, par_iter)
            }
        }

        impl<'a> FromParallelIterator<$item> for $ty {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut target = <$ty>::new();
                target.par_extend(par_iter);
                target
            }
        }
    )*};
}

via_list_borrowed! {
    for OsString, item &'a OsStr;
    for OsString, item Cow<'a, OsStr>;
}

/// Appends the items of `par_iter` to `target`, in order: each loop of the driver writes its
/// items' UTF-8 into a buffer of its own ([`StringFolder`]), so the encoding and the copying
/// run on every thread, and the buffers are then copied into place in parallel
/// ([`append_list`]). Only the last step touches `target`, and it runs no user code: a panic
/// in `par_iter` leaves `target` as it was.
fn extend_string<I>(target: &mut String, par_iter: I)
where
    I: IntoParallelIterator,
    I::Item: StrPiece,
{
    let pieces = par_iter.into_par_iter().drive_unindexed(StringConsumer);
    let mut bytes = std::mem::take(target).into_bytes();
    append_list(&mut bytes, pieces);
    // SAFETY: `bytes` holds the target's UTF-8 followed by buffers that each hold the whole
    // UTF-8 encodings of whole pieces (`StringFolder`), and a concatenation of UTF-8 is UTF-8.
    *target = unsafe { String::from_utf8_unchecked(bytes) };
}

/// An item that a `String` collects: a char or a piece of text.
trait StrPiece: Send {
    /// The most bytes [`StrPiece::write_utf8`] writes.
    fn max_len(&self) -> usize;

    /// Writes the item's UTF-8 at `dst` and returns its length.
    ///
    /// # Safety
    ///
    /// `dst` is valid for writes of [`StrPiece::max_len`] bytes.
    unsafe fn write_utf8(self, dst: *mut u8) -> usize;
}

impl StrPiece for char {
    #[inline]
    fn max_len(&self) -> usize {
        4
    }
    /// # Safety
    /// As for [`StrPiece::write_utf8`].
    #[inline]
    unsafe fn write_utf8(self, dst: *mut u8) -> usize {
        if self.is_ascii() {
            // SAFETY: `dst` is valid for 4 bytes (the contract).
            unsafe { dst.write(self as u8) };
            return 1;
        }
        let mut utf8 = [0u8; 4];
        let len = self.encode_utf8(&mut utf8).len();
        // SAFETY: `len <= 4`, and `dst` is valid for 4 bytes (the contract).
        unsafe { std::ptr::copy_nonoverlapping(utf8.as_ptr(), dst, len) };
        len
    }
}

impl StrPiece for &char {
    #[inline]
    fn max_len(&self) -> usize {
        4
    }
    /// # Safety
    /// As for [`StrPiece::write_utf8`].
    #[inline]
    unsafe fn write_utf8(self, dst: *mut u8) -> usize {
        // SAFETY: the same contract.
        unsafe { (*self).write_utf8(dst) }
    }
}

macro_rules! text_piece {
    ($(impl<$($l:lifetime)?> for $ty:ty;)*) => {$(
        impl<$($l)?> StrPiece for $ty {
            #[inline]
            fn max_len(&self) -> usize {
                self.len()
            }
            /// # Safety
            /// As for [`StrPiece::write_utf8`].
            #[inline]
            unsafe fn write_utf8(self, dst: *mut u8) -> usize {
                let text: &str = &self;
                // SAFETY: `dst` is valid for `text.len()` bytes (the contract), and cannot
                // overlap `text`, which the caller does not own.
                unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), dst, text.len()) };
                text.len()
            }
        }
    )*};
}

text_piece! {
    impl<'a> for &'a str;
    impl<> for String;
    impl<> for Box<str>;
    impl<'a> for Cow<'a, str>;
}

/// The consumer of [`extend_string`]: results are the folders' buffers, in order (a list,
/// reduced as the list of a `Vec` collect: small neighbours are merged).
#[derive(Clone, Copy)]
struct StringConsumer;

impl<T: StrPiece> Consumer<T> for StringConsumer {
    /// Collected in order, whatever the grouping.
    const GROUPING: Grouping = Grouping::Free;
    type Folder = StringFolder;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<u8>>;
    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (self, self, ListReducer)
    }
    fn into_folder(self) -> StringFolder {
        StringFolder { utf8: Vec::new() }
    }
    fn full(&self) -> bool {
        false
    }
    const FOLDER_MAY_CONTINUE: bool = true;
    fn folder_continues(&self) -> bool {
        true
    }
}

impl<T: StrPiece> UnindexedConsumer<T> for StringConsumer {
    fn split_off_left(&self) -> Self {
        *self
    }
    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

/// Writes every item's UTF-8 into one buffer, with its length in a register between the
/// capacity checks (`String::push` in a loop kept the length in memory and ran 2x slower
/// than std's `collect`; a `fold` that moves a `String` at every item, 5x).
struct StringFolder {
    utf8: Vec<u8>,
}

impl<T: StrPiece> Folder<T> for StringFolder {
    type Result = LinkedList<Vec<u8>>;
    fn consume(self, item: T) -> Self {
        self.consume_iter(std::iter::once(item))
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let mut iter = iter.into_iter();
        loop {
            let capacity = self.utf8.capacity();
            let ptr = self.utf8.as_mut_ptr();
            let mut len = self.utf8.len();
            let stopped = iter.try_for_each(|item| {
                if capacity - len < item.max_len() {
                    return std::ops::ControlFlow::Break(item);
                }
                // SAFETY: `len + max_len <= capacity`, so the write stays in the buffer's
                // spare capacity, which nothing else references.
                len += unsafe { item.write_utf8(ptr.add(len)) };
                std::ops::ControlFlow::Continue(())
            });
            // SAFETY: `[old len, len)` was written above with whole UTF-8 encodings, within
            // capacity. (Bytes need no drop, so a panic before this line loses nothing.)
            unsafe { self.utf8.set_len(len) };
            match stopped {
                std::ops::ControlFlow::Continue(()) => return self,
                std::ops::ControlFlow::Break(item) => {
                    self.utf8.reserve(item.max_len().max(64));
                    let len = self.utf8.len();
                    // SAFETY: just reserved `max_len` bytes of spare capacity.
                    let written = unsafe { item.write_utf8(self.utf8.as_mut_ptr().add(len)) };
                    // SAFETY: `written` bytes after `len` hold the item's UTF-8.
                    unsafe { self.utf8.set_len(len + written) };
                }
            }
        }
    }
    fn complete(self) -> LinkedList<Vec<u8>> {
        let mut list = LinkedList::new();
        if !self.utf8.is_empty() {
            list.push_back(self.utf8);
        }
        list
    }
    fn full(&self) -> bool {
        false
    }
}

/// `String` from chars and string pieces, owned or borrowed (see [`extend_string`]).
macro_rules! via_string {
    ($(impl<$($l:lifetime)?> item $item:ty;)*) => {$(
        impl<$($l)?> ParallelExtend<$item> for String {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                extend_string(self, par_iter)
            }
        }

        impl<$($l)?> FromParallelIterator<$item> for String {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut target = String::new();
                target.par_extend(par_iter);
                target
            }
        }
    )*};
}

via_string! {
    impl<> item char;
    impl<'a> item &'a char;
    impl<'a> item &'a str;
    impl<> item String;
    impl<> item Box<str>;
    impl<'a> item Cow<'a, str>;
}

/// Extending with references to `Copy` items, as std's `Extend<&T>` does (rayon has these).
macro_rules! extend_copied {
    ($(impl<$($g:ident),*> for $ty:ty, item $item:ty, where [$($bounds:tt)*], |$x:pat_param| $owned:expr;)*) => {$(
        impl<'a, $($g),*> ParallelExtend<$item> for $ty
        where
            $($bounds)*
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.par_extend(par_iter.into_par_iter().map(|$x| $owned))
            }
        }
    )*};
}

extend_copied! {
    impl<T> for VecDeque<T>, item &'a T, where [T: 'a + Copy + Send + Sync], |&x| x;
    impl<T> for LinkedList<T>, item &'a T, where [T: 'a + Copy + Send + Sync], |&x| x;
    impl<T> for BinaryHeap<T>, item &'a T, where [T: 'a + Copy + Ord + Send + Sync], |&x| x;
    impl<T> for BTreeSet<T>, item &'a T, where [T: 'a + Copy + Ord + Send + Sync], |&x| x;
    impl<T, S> for HashSet<T, S>, item &'a T,
        where [T: 'a + Copy + Eq + Hash + Send + Sync, S: BuildHasher + Send], |&x| x;
    impl<K, V> for BTreeMap<K, V>, item (&'a K, &'a V),
        where [K: 'a + Copy + Ord + Send + Sync, V: 'a + Copy + Send + Sync], |(&k, &v)| (k, v);
    impl<K, V, S> for HashMap<K, V, S>, item (&'a K, &'a V),
        where [K: 'a + Copy + Eq + Hash + Send + Sync, V: 'a + Copy + Send + Sync, S: BuildHasher + Send],
        |(&k, &v)| (k, v);
}

/// `Box<str>` collects whatever `String` collects (rayon 1.11).
///
/// ```
/// use blitz_par::prelude::*;
/// let s: Box<str> = ['a', 'b'].par_iter().collect();
/// assert_eq!(&*s, "ab");
/// ```
impl<T: Send> FromParallelIterator<T> for Box<str>
where
    String: FromParallelIterator<T>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        String::from_par_iter(par_iter).into_boxed_str()
    }
}

impl<T: Send> FromParallelIterator<T> for Rc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

impl<T: Send> FromParallelIterator<T> for Arc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into()
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied())
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into_boxed_slice()
    }
}

impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter
            .into_par_iter()
            .drive_unindexed(crate::iter::noop::NoopConsumer)
    }
}

impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, par_iter: I) {
        par_iter
            .into_par_iter()
            .drive_unindexed(crate::iter::noop::NoopConsumer)
    }
}

/// Turns a `FromParallelIterator` into a `Default + ParallelExtend` for the unzipping
/// helpers, which extend each side exactly once (rayon's trick, so that collecting pairs
/// needs only `FromParallelIterator` on each side).
struct Collector<C> {
    result: Option<C>,
}

impl<C> Default for Collector<C> {
    fn default() -> Self {
        Collector { result: None }
    }
}

impl<C> Collector<C> {
    fn finish(self) -> C {
        self.result.expect("unzip extends each side once")
    }
}

impl<T: Send, C: FromParallelIterator<T> + Send> ParallelExtend<T> for Collector<C> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        debug_assert!(self.result.is_none());
        self.result = Some(C::from_par_iter(par_iter));
    }
}

/// A pair of collections from items that `$op` (an `UnzipOp` of `unzip.rs`) sends to the sides
/// `$a` and `$b`: one pass over the items extends both sides, and each side is collected as a
/// `Collector`.
macro_rules! two_sided {
    ($(
        impl<$a:ident, $b:ident, $from_a:ident, $from_b:ident, $extend_a:ident, $extend_b:ident>
        item $item:ty, $op:expr;
    )*) => {$(
        impl<$a, $b, $from_a, $from_b> FromParallelIterator<$item> for ($from_a, $from_b)
        where
            $a: Send,
            $b: Send,
            $from_a: Send + FromParallelIterator<$a>,
            $from_b: Send + FromParallelIterator<$b>,
        {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut sides = (Collector::default(), Collector::default());
                sides.par_extend(par_iter);
                (sides.0.finish(), sides.1.finish())
            }
        }

        impl<$a, $b, $extend_a, $extend_b> ParallelExtend<$item> for ($extend_a, $extend_b)
        where
            $a: Send,
            $b: Send,
            $extend_a: Send + ParallelExtend<$a>,
            $extend_b: Send + ParallelExtend<$b>,
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                crate::iter::unzip::unzip_into(
                    par_iter.into_par_iter(),
                    $op,
                    &mut self.0,
                    &mut self.1,
                );
            }
        }
    )*};
}

two_sided! {
    impl<A, B, FromA, FromB, ExtendA, ExtendB> item (A, B), crate::iter::unzip::Unzip;
    impl<L, R, FromL, FromR, ExtendL, ExtendR> item Either<L, R>, crate::iter::unzip::PartitionMap(std::convert::identity);
}

impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(collection) => collection.par_extend(par_iter),
            Either::Right(collection) => collection.par_extend(par_iter),
        }
    }
}

/// Collects `Some` items; the first `None` seen stops the collection (other parts stop soon
/// after) and the result is `None`.
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let failed = std::sync::atomic::AtomicBool::new(false);
        let collection = par_iter
            .into_par_iter()
            .map(|item| {
                if item.is_none() {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                item
            })
            .while_some_flag(&failed)
            .collect();
        if failed.into_inner() {
            None
        } else {
            Some(collection)
        }
    }
}

/// Collects `Ok` items; an `Err` stops the collection (other parts stop soon after) and one
/// of the errors seen is returned.
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        let error = std::sync::Mutex::new(None);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let collection = par_iter
            .into_par_iter()
            .map(|item| match item {
                Ok(value) => Some(value),
                Err(e) => {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                    let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.is_none() {
                        *slot = Some(e);
                    }
                    None
                }
            })
            .while_some_flag(&failed)
            .collect();
        match error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(collection),
        }
    }
}

/// `while_some` driven by an outside flag, for the `Option`/`Result` collections above.
trait WhileSomeFlag: ParallelIterator {
    fn while_some_flag<T>(self, flag: &std::sync::atomic::AtomicBool) -> WhileSomeFlagIter<'_, Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
    {
        WhileSomeFlagIter { base: self, flag }
    }
}

impl<I: ParallelIterator> WhileSomeFlag for I {}

struct WhileSomeFlagIter<'f, I> {
    base: I,
    flag: &'f std::sync::atomic::AtomicBool,
}

impl<'f, I, T> ParallelIterator for WhileSomeFlagIter<'f, I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(WhileSomeConsumer {
            base: consumer,
            flag: self.flag,
        })
    }
}

pub(crate) struct WhileSomeConsumer<'f, C> {
    pub(crate) base: C,
    pub(crate) flag: &'f std::sync::atomic::AtomicBool,
}

impl<'f, T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<'f, C> {
    type Folder = WhileSomeFolder<'f, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, reducer) = self.base.split_at(index);
        (
            WhileSomeConsumer {
                base: l,
                flag: self.flag,
            },
            WhileSomeConsumer {
                base: r,
                flag: self.flag,
            },
            reducer,
        )
    }
    fn into_folder(self) -> Self::Folder {
        WhileSomeFolder {
            base: self.base.into_folder(),
            flag: self.flag,
        }
    }
    fn full(&self) -> bool {
        self.flag.load(std::sync::atomic::Ordering::Relaxed) || self.base.full()
    }
    forward_hints!(base: C => T, len, stops_early);
}

impl<'f, T, C: UnindexedConsumer<T>> UnindexedConsumer<Option<T>> for WhileSomeConsumer<'f, C> {
    fn split_off_left(&self) -> Self {
        WhileSomeConsumer {
            base: self.base.split_off_left(),
            flag: self.flag,
        }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

pub(crate) struct WhileSomeFolder<'f, F> {
    base: F,
    flag: &'f std::sync::atomic::AtomicBool,
}

impl<'f, T, F: Folder<T>> Folder<Option<T>> for WhileSomeFolder<'f, F> {
    type Result = F::Result;
    fn consume(mut self, item: Option<T>) -> Self {
        match item {
            Some(x) => self.base = self.base.consume(x),
            None => self.flag.store(true, std::sync::atomic::Ordering::Relaxed),
        }
        self
    }
    /// The base's own loop over the items up to the first `None` (or until another part has
    /// seen one): the base folder stays in registers, instead of going through memory at each
    /// item as `consume` makes it.
    fn consume_iter<I: IntoIterator<Item = Option<T>>>(mut self, iter: I) -> Self {
        let flag = self.flag;
        let items = iter.into_iter().map_while(|item| match item {
            Some(x) if !flag.load(std::sync::atomic::Ordering::Relaxed) => Some(x),
            Some(_) => None,
            None => {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
                None
            }
        });
        self.base = self.base.consume_iter(items);
        self
    }
    fn complete(self) -> F::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.flag.load(std::sync::atomic::Ordering::Relaxed) || self.base.full()
    }
}
