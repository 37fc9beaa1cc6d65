//! In-place parallel MSD radix sort: the order of [`super::radix`], without a buffer the size
//! of the input.
//!
//! Why: a buffer the size of the input is fresh memory in a process that has not sorted
//! before, and the first write to fresh memory is what costs in a first sort. On the 2-core
//! development VM (a Firecracker guest whose host backs guest memory at its first touch), a
//! first `par_sort_unstable` of 50M `u64` spent 0.6 to 0.9 s of system time clearing the 400
//! MB scratch buffer's pages (`clear_page_erms` in a profile; no compaction, no other fault),
//! more than the whole sort takes once that memory has been used. Only the input's own
//! memory is sure to be cheap; this sort moves keys within it and needs, besides, a few
//! blocks per bucket per thread and the small buffers of its last level (see
//! [`Tuning::radix_leaf_max`]).
//!
//! One pass spreads the keys over 256 buckets in place, in parallel, by block permutation as
//! in IPS²Ra and IPS⁴o (Axtmann, Witt, Ferizovic and Sanders, "Engineering In-place
//! (Shared-memory) Sorting Algorithms", ACM TOPC 2022):
//!
//! 1. *Classification.* The input is cut into one stripe per thread. A thread reads its stripe
//!    in order and appends each key to its bucket's block in a buffer of its own (one block of
//!    `block` keys per bucket); a block that fills is written back to the front of the stripe,
//!    where keys have already been read. The stripe ends as full blocks (each of one bucket)
//!    followed by empty slots; the partial blocks stay in the buffer.
//! 2. *Regions.* The counts give each bucket its range of the output, and each bucket a region
//!    of block slots: from its start rounded up to a block boundary to its end rounded up.
//!    A region holds at least as many slots as its bucket has full blocks. Full blocks are
//!    moved within each region to its front (only where a region spans stripes).
//! 3. *Block permutation.* Every bucket has a write slot and a read slot: before the write
//!    slot its region holds its own blocks, between the two unsorted full blocks, after the
//!    read slot empty slots. Threads take a block from some bucket's read end and carry it to
//!    its bucket's write slot, swapping out the unsorted block there, if any, and carrying that
//!    one on. A mutex per bucket guards its two slots and the copies in and out of them.
//! 4. *Cleanup.* A bucket's full blocks now lie at the front of its region; its range also
//!    covers the slots before its region (up to a block) and after its blocks, which receive
//!    the threads' partial blocks. A region's last block may reach past its bucket's end,
//!    into the next bucket's range (or past the input's end, where that block was kept
//!    aside): such a block is saved first and then placed with the partial blocks.
//!
//! Each bucket is then cleaned up and sorted by the thread that takes it, while its keys are
//! in cache: by another in-place pass if large, else by [`super::radix::sequential_radix`]
//! with a buffer of the bucket's size.
//!
//! Invariant: between the passes the input holds exactly its keys; during a pass some of them
//! live in the buffers. Keys are `Copy` and no user code runs, so nothing can panic midway.

use std::mem::{self, MaybeUninit};
use std::sync::{Mutex, MutexGuard};

use super::key::RadixKey;
use super::radix_parts::{fit_interpolation, Classifier, Digit, Offset};
use super::scratch::Scratch;
use super::sequential_radix::sequential_radix;
use super::thresholds::{poll_scheduler, share_with_sleepers, Tuning};
use crate::sync::CachePadded;
use crate::SyncPtr;

/// Bits of a pass's digit: 256 buckets, so that a thread's buffer of one block per bucket
/// stays in its L2 cache (256 KiB with 1 KiB blocks).
const PASS_BITS: u32 = 8;

/// Sorts `v` (see the module documentation).
pub(super) fn in_place_radix_sort<K: RadixKey>(v: &mut [K], tuning: &Tuning) {
    sort(v, None, tuning);
}

/// Sorts `v`. `differing`: the bits in which its keys differ, if known (after a pass that
/// left every key in one bucket: then a digit of those bits is sure to split them).
fn sort<K: RadixKey>(v: &mut [K], differing: Option<u64>, tuning: &Tuning) {
    let len = v.len();
    if len <= tuning.radix_leaf_max.max(1) {
        let mut scratch = Scratch::<K>::initialized(len);
        // SAFETY: from `initialized`; any initialised bits are a valid `RadixKey` (the
        // trait's requirement) and keys are `Copy`.
        sequential_radix(v, unsafe { scratch.as_init() }, false, tuning);
        return;
    }
    let differing = match differing {
        Some(differing) => differing,
        None => {
            if let Some(interpolation) = fit_interpolation(v, 1 << PASS_BITS) {
                return pass(v, interpolation, tuning);
            }
            let range = Offset::of_sample(v, PASS_BITS);
            if Classifier::<K>::buckets(range) > 1 {
                return pass(v, range, tuning);
            }
            // The sample saw one value: find the bits that differ.
            let (or, and) = par_or_and(v, tuning);
            or & !and
        }
    };
    if differing != 0 {
        pass(v, Digit::highest(differing, PASS_BITS), tuning);
    }
}

/// The OR and the AND of every key's bits, in parallel.
fn par_or_and<K: RadixKey>(v: &[K], tuning: &Tuning) -> (u64, u64) {
    if v.len() <= tuning.radix_parallel_below {
        poll_scheduler();
        return v.iter().fold((0, u64::MAX), |(or, and), key| {
            (or | key.bits(), and & key.bits())
        });
    }
    let (low, high) = v.split_at(v.len() / 2);
    let ((or_low, and_low), (or_high, and_high)) =
        crate::join(|| par_or_and(low, tuning), || par_or_and(high, tuning));
    (or_low | or_high, and_low & and_high)
}

/// One pass by `classifier` (at most `2^PASS_BITS` buckets), then each bucket sorted.
fn pass<K: RadixKey, C: Classifier<K>>(v: &mut [K], classifier: C, tuning: &Tuning) {
    let len = v.len();
    let buckets = classifier.buckets();
    debug_assert!(buckets <= 1 << PASS_BITS);
    let block = (tuning.radix_in_place_block_bytes / mem::size_of::<K>()).max(1);
    let threads = crate::current_num_threads().max(1);
    // Whole blocks per stripe, and stripes of at least a few blocks per bucket (a shorter
    // stripe leaves most of its keys in partial blocks).
    let stripe_len = len
        .div_ceil(threads)
        .max(4 * block * buckets)
        .next_multiple_of(block);
    let stripes = classify_stripes(v, 0, stripe_len, classifier, block);
    let (or, and) = stripes
        .iter()
        .fold((0, u64::MAX), |(or, and), s| (or | s.or, and & s.and));

    // Bucket `d` takes `starts[d]..starts[d + 1]`, and its full blocks go to the slots from
    // `starts[d]` rounded up to a block.
    let mut starts = Vec::with_capacity(buckets + 1);
    let mut full = vec![0usize; buckets];
    let mut next = 0;
    for (d, full) in full.iter_mut().enumerate() {
        starts.push(next);
        for stripe in &stripes {
            *full += stripe.full[d];
            next += stripe.full[d] * block + stripe.partial[d];
        }
    }
    starts.push(next);
    assert_eq!(next, len, "in-place radix pass lost keys");
    let region = |d: usize| starts[d].div_ceil(block);

    let mut pointers = Vec::with_capacity(buckets);
    for (d, &full_blocks) in full.iter().enumerate() {
        let filled = gather_region(v, region(d), region(d + 1), &stripes, stripe_len, block);
        debug_assert!(full_blocks <= region(d + 1) - region(d));
        pointers.push(CachePadded(Mutex::new(Pointers {
            write: region(d),
            read: region(d) + filled,
        })));
    }
    // Any key will do as the carried blocks' initial contents.
    let filler = v[0];
    let permutation = Permutation {
        keys: SyncPtr::new(v),
        block,
        pointers,
        overflow: Mutex::new(Vec::new()),
        classifier,
    };
    par_permute(&permutation, 0, threads, filler);
    let Permutation { overflow, .. } = permutation;
    let overflow = overflow.into_inner().unwrap_or_else(|e| e.into_inner());

    // Save each region's last block where it reaches past its bucket's end.
    let mut saved: Vec<K> = Vec::new();
    let mut saved_at = vec![usize::MAX; buckets];
    for d in 0..buckets {
        let blocks_end = (region(d) + full[d]) * block;
        if full[d] > 0 && blocks_end > starts[d + 1] {
            saved_at[d] = saved.len();
            let last = blocks_end - block;
            if blocks_end <= len {
                saved.extend_from_slice(&v[last..blocks_end]);
            } else {
                // The slot past the input's end: `par_permute` kept it aside.
                assert_eq!(overflow.len(), block, "in-place radix pass lost a block");
                saved.extend_from_slice(&overflow);
            }
        }
    }
    let cleanup = Cleanup {
        starts: &starts,
        full: &full,
        block,
        stripes: &stripes,
        saved: &saved,
        saved_at: &saved_at,
    };
    // A pass that left every key in one bucket made no progress: the bucket's next pass
    // takes the bits that differ.
    let stuck = (0..buckets).any(|d| starts[d + 1] - starts[d] == len);
    let differing = stuck.then_some(or & !and);
    par_finish(v, 0, buckets, &cleanup, differing, tuning);
}

/// What classifying one stripe left: full blocks at the stripe's front, partial ones here.
struct Stripe<K> {
    /// The stripe's first slot (its first key's index, divided by the block length).
    first_slot: usize,
    /// Full blocks written from `first_slot` on.
    blocks: usize,
    /// Per bucket, full blocks written.
    full: Vec<usize>,
    /// Per bucket, keys in its partial block.
    partial: Vec<usize>,
    /// The partial blocks: bucket `d`'s at `d * block`, its first `partial[d]` slots set.
    buffer: Vec<MaybeUninit<K>>,
    /// The OR and the AND of the stripe's keys' bits.
    or: u64,
    and: u64,
}

impl<K: RadixKey> Stripe<K> {
    /// Bucket `d`'s keys in the partial block.
    fn partial_keys(&self, d: usize, block: usize) -> &[K] {
        let keys = &self.buffer[d * block..d * block + self.partial[d]];
        // SAFETY: `classify` wrote the first `partial[d]` slots of bucket `d`'s block (and
        // `MaybeUninit<K>` has `K`'s layout).
        unsafe { &*(keys as *const [MaybeUninit<K>] as *const [K]) }
    }
}

/// Classifies the stripes of `stripe_len` keys of `v` (the last may be shorter), in
/// parallel; `first` is the index of `v[0]` in the pass's input, a multiple of `block`.
fn classify_stripes<K: RadixKey, C: Classifier<K>>(
    v: &mut [K],
    first: usize,
    stripe_len: usize,
    classifier: C,
    block: usize,
) -> Vec<Stripe<K>> {
    if v.len() <= stripe_len {
        return vec![classify(v, first / block, classifier, block)];
    }
    let stripes = v.len().div_ceil(stripe_len);
    let mid = stripes / 2 * stripe_len;
    let (low, high) = v.split_at_mut(mid);
    let (mut low, mut high) = crate::join(
        || classify_stripes(low, first, stripe_len, classifier, block),
        || classify_stripes(high, first + mid, stripe_len, classifier, block),
    );
    low.append(&mut high);
    low
}

/// Step 1 on one stripe (see the module documentation).
fn classify<K: RadixKey, C: Classifier<K>>(
    stripe: &mut [K],
    first_slot: usize,
    classifier: C,
    block: usize,
) -> Stripe<K> {
    share_with_sleepers();
    let buckets = classifier.buckets();
    let mut buffer = vec![MaybeUninit::<K>::uninit(); buckets * block];
    let mut partial = vec![0usize; buckets];
    let mut full = vec![0usize; buckets];
    let (mut or, mut and) = (0, u64::MAX);
    let mut written = 0;
    for i in 0..stripe.len() {
        let key = stripe[i];
        or |= key.bits();
        and &= key.bits();
        let d = classifier.of(key);
        let filled = partial[d];
        buffer[d * block + filled].write(key);
        if filled + 1 < block {
            partial[d] = filled + 1;
            continue;
        }
        // Keys written never outnumber keys read: `written + block <= i + 1`.
        let keys = &buffer[d * block..(d + 1) * block];
        // SAFETY: all `block` slots of bucket `d`'s block are written (this one just now,
        // the others since it was last emptied).
        let keys = unsafe { &*(keys as *const [MaybeUninit<K>] as *const [K]) };
        stripe[written..written + block].copy_from_slice(keys);
        written += block;
        full[d] += 1;
        partial[d] = 0;
    }
    Stripe {
        first_slot,
        blocks: written / block,
        full,
        partial,
        buffer,
        or,
        and,
    }
}

/// Step 2 for the region of slots `first..end`: moves the full blocks in it to its front and
/// returns how many there are. Slot `s` is full if it lies among the first `blocks` slots of
/// its stripe (stripes are `stripe_len` keys long).
fn gather_region<K: RadixKey>(
    v: &mut [K],
    first: usize,
    end: usize,
    stripes: &[Stripe<K>],
    stripe_len: usize,
    block: usize,
) -> usize {
    let stripe_slots = stripe_len / block;
    let is_full = |slot: usize| {
        let stripe = &stripes[(slot / stripe_slots).min(stripes.len() - 1)];
        slot - stripe.first_slot < stripe.blocks
    };
    let filled = (first..end).filter(|&slot| is_full(slot)).count();
    // Fill the empty slots of `first..first + filled` from the full ones after it. Each slot
    // is visited once, so `is_full`, which describes the slots as classification left them,
    // stays true of every slot not yet visited.
    let (mut hole, mut from) = (first, end);
    loop {
        while hole < first + filled && is_full(hole) {
            hole += 1;
        }
        if hole == first + filled {
            return filled;
        }
        from -= 1;
        while !is_full(from) {
            from -= 1;
        }
        v.copy_within(from * block..(from + 1) * block, hole * block);
        hole += 1;
    }
}

/// A bucket's slots in the block permutation: before `write` its own blocks, from `write` to
/// `read` unsorted full blocks, from `read` to its region's end empty slots.
struct Pointers {
    write: usize,
    read: usize,
}

/// The state step 3 shares between threads.
struct Permutation<'a, K, C> {
    /// The pass's input.
    keys: SyncPtr<'a, K>,
    block: usize,
    /// Per bucket; a slot is read or written only by a thread holding its bucket's lock.
    pointers: Vec<CachePadded<Mutex<Pointers>>>,
    /// The slot that reaches past the input's end, if a block goes there (at most one
    /// slot does, and it is written at most once).
    overflow: Mutex<Vec<K>>,
    classifier: C,
}

impl<K: RadixKey, C: Classifier<K>> Permutation<'_, K, C> {
    fn lock(&self, bucket: usize) -> MutexGuard<'_, Pointers> {
        // Nothing can panic while a lock is held (copies and arithmetic on checked slots).
        self.pointers[bucket]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Copies slot `slot` into `to`.
    ///
    /// # Safety
    ///
    /// The caller holds the lock of the bucket whose region holds `slot`, and `slot` lies
    /// within the input.
    unsafe fn read(&self, slot: usize, to: &mut [K]) {
        debug_assert!((slot + 1) * self.block <= self.keys.len());
        // SAFETY: in bounds (the caller's promise); no one else touches this slot while the
        // caller holds its bucket's lock; `to` is a buffer of this thread's.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.keys.get(slot * self.block),
                to.as_mut_ptr(),
                self.block,
            )
        };
    }

    /// Copies `from` to slot `slot` (or aside, for the slot past the input's end).
    ///
    /// # Safety
    ///
    /// The caller holds the lock of the bucket whose region holds `slot`.
    unsafe fn write(&self, slot: usize, from: &[K]) {
        if (slot + 1) * self.block > self.keys.len() {
            let mut overflow = self
                .overflow
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            assert!(
                overflow.is_empty(),
                "in-place radix pass wrote a slot twice"
            );
            overflow.extend_from_slice(from);
            return;
        }
        // SAFETY: in bounds (checked above); exclusive as in `read`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                from.as_ptr(),
                self.keys.get(slot * self.block),
                self.block,
            )
        };
    }

    /// The bucket of the block in slot `slot`: that of its first key.
    ///
    /// # Safety
    ///
    /// As for `read`.
    unsafe fn bucket_of(&self, slot: usize) -> usize {
        // SAFETY: as in `read`.
        self.classifier
            .of(unsafe { self.keys.get(slot * self.block).read() })
    }
}

/// Step 3 by `threads` tasks, numbered from `first`; `filler` is any key (the initial
/// contents of the carried blocks).
fn par_permute<K: RadixKey, C: Classifier<K>>(
    permutation: &Permutation<'_, K, C>,
    first: usize,
    threads: usize,
    filler: K,
) {
    if threads > 1 {
        let half = threads / 2;
        crate::join(
            || par_permute(permutation, first, half, filler),
            || par_permute(permutation, first + half, threads - half, filler),
        );
        return;
    }
    share_with_sleepers();
    let buckets = permutation.classifier.buckets();
    let total = crate::current_num_threads().max(1);
    let start = first * buckets / total;
    let mut carried = vec![filler; permutation.block];
    let mut swapped = vec![filler; permutation.block];
    for bucket in (start..buckets).chain(0..start) {
        loop {
            {
                let mut from = permutation.lock(bucket);
                if from.read <= from.write {
                    break;
                }
                from.read -= 1;
                // SAFETY: the slot lies in this bucket's region (below `read`, an unsorted
                // full block, hence within the input), whose lock we hold.
                unsafe { permutation.read(from.read, &mut carried) };
            }
            loop {
                let destination = permutation.classifier.of(carried[0]);
                let mut to = permutation.lock(destination);
                // Blocks already in their bucket's region stay where they are.
                while to.write < to.read {
                    // SAFETY: `write < read`: an unsorted full block in this bucket's region,
                    // whose lock we hold.
                    if unsafe { permutation.bucket_of(to.write) } != destination {
                        break;
                    }
                    to.write += 1;
                }
                let slot = to.write;
                to.write += 1;
                if slot < to.read {
                    // SAFETY: an unsorted full block of this region, whose lock we hold.
                    unsafe {
                        permutation.read(slot, &mut swapped);
                        permutation.write(slot, &carried);
                    }
                    drop(to);
                    mem::swap(&mut carried, &mut swapped);
                } else {
                    // SAFETY: an empty slot of this region, whose lock we hold.
                    unsafe { permutation.write(slot, &carried) };
                    break;
                }
            }
        }
    }
}

/// What step 4 needs of a pass.
struct Cleanup<'a, K> {
    /// Bucket `d` is `starts[d]..starts[d + 1]` of the pass's input.
    starts: &'a [usize],
    /// Full blocks per bucket, now at the front of its region.
    full: &'a [usize],
    block: usize,
    stripes: &'a [Stripe<K>],
    /// The saved last blocks; bucket `d`'s at `saved_at[d]`, if it has one.
    saved: &'a [K],
    saved_at: &'a [usize],
}

impl<K: RadixKey> Cleanup<'_, K> {
    /// Step 4 for bucket `d`, whose range of the pass's input is `keys`: fills its slots
    /// outside its full blocks with its partial and saved keys.
    fn fill(&self, d: usize, keys: &mut [K]) {
        let (start, end) = (self.starts[d], self.starts[d + 1]);
        debug_assert_eq!(keys.len(), end - start);
        let region = start.div_ceil(self.block) * self.block;
        let saved = self.saved_at[d] != usize::MAX;
        let mut kept_end = region + self.full[d] * self.block;
        if saved {
            kept_end -= self.block;
        }
        // The free positions, relative to `start`: before the region and after the blocks
        // kept in place.
        let head = 0..region.min(end) - start;
        let tail = kept_end.max(region).min(end) - start..end - start;
        let mut free = head.chain(tail);
        let saved_keys = if saved {
            &self.saved[self.saved_at[d]..self.saved_at[d] + self.block]
        } else {
            &[]
        };
        let sources = self
            .stripes
            .iter()
            .map(|stripe| stripe.partial_keys(d, self.block))
            .chain([saved_keys]);
        for source in sources {
            for &key in source {
                let at = free.next().expect("in-place radix cleanup: too many keys");
                keys[at] = key;
            }
        }
        assert!(
            free.next().is_none(),
            "in-place radix cleanup: too few keys"
        );
    }
}

/// Step 4 and the sorts of buckets `first..end` (`v` is their range of the pass's input), in
/// parallel. `differing`: as for `sort`.
fn par_finish<K: RadixKey>(
    v: &mut [K],
    first: usize,
    end: usize,
    cleanup: &Cleanup<'_, K>,
    differing: Option<u64>,
    tuning: &Tuning,
) {
    let base = cleanup.starts[first];
    if end - first == 1 || v.len() <= tuning.radix_parallel_below {
        // Bucket sorts of this group that need a buffer share one.
        let largest = (first..end)
            .map(|d| cleanup.starts[d + 1] - cleanup.starts[d])
            .filter(|&len| len <= tuning.radix_leaf_max)
            .max()
            .unwrap_or(0);
        let mut scratch = Scratch::<K>::initialized(largest);
        // SAFETY: from `initialized`; any initialised bits are a valid `RadixKey` and keys
        // are `Copy`.
        let scratch = unsafe { scratch.as_init() };
        for d in first..end {
            let range = cleanup.starts[d] - base..cleanup.starts[d + 1] - base;
            let keys = &mut v[range];
            poll_scheduler();
            cleanup.fill(d, keys);
            if keys.len() <= tuning.radix_leaf_max {
                sequential_radix(keys, &mut scratch[..keys.len()], false, tuning);
            } else {
                sort(keys, differing, tuning);
            }
        }
        return;
    }
    // Split where the keys, not the buckets, halve.
    let half = base + v.len() / 2;
    let mid =
        (first + 1 + cleanup.starts[first + 1..end].partition_point(|&s| s < half)).min(end - 1);
    let (low, high) = v.split_at_mut(cleanup.starts[mid] - base);
    crate::join(
        || par_finish(low, first, mid, cleanup, differing, tuning),
        || par_finish(high, mid, end, cleanup, differing, tuning),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(block_bytes: usize, leaf: usize) -> Tuning {
        Tuning {
            radix_parallel_below: 64,
            radix_small: 3,
            radix_leaf_max: leaf,
            radix_in_place_block_bytes: block_bytes,
            ..Tuning::DEFAULT
        }
    }

    fn check<K: RadixKey + Ord + std::fmt::Debug>(keys: Vec<K>, tuning: &Tuning) {
        let mut expected = keys.clone();
        expected.sort_unstable();
        let mut sorted = keys;
        in_place_radix_sort(&mut sorted, tuning);
        assert_eq!(sorted, expected);
    }

    /// `len` signed keys of 24 bits, about half of them negative.
    fn signed_around_zero(len: usize, next: &mut impl FnMut() -> u64) -> Vec<i64> {
        (0..len).map(|_| (next() as i64) >> 40).collect()
    }

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed | 1;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn sorts_at_every_length_and_block() {
        let mut next = xorshift(1);
        // (Under Miri: a block of one key, and one of a few, over lengths that need one pass
        // and several.)
        let (lens, blocks): (&[usize], &[usize]) = if cfg!(miri) {
            (&[0, 1, 17, 100, 700], &[8, 64])
        } else {
            (
                &[0, 1, 2, 17, 100, 257, 1000, 4097, 20_000, 100_003],
                &[8, 24, 64, 1024],
            )
        };
        for &len in lens {
            let keys: Vec<u64> = (0..len).map(|_| next()).collect();
            for &block_bytes in blocks {
                check(keys.clone(), &tiny(block_bytes, 16));
            }
        }
    }

    #[test]
    fn first_pass_by_a_sample_sorts_and_progresses_when_the_sample_misses() {
        let tuning = tiny(64, 16);
        let len = if cfg!(miri) { 2_000 } else { 100_000 };
        // All keys equal but three, none where the sample looks: the sample's range is one
        // value; the keys that differ must still be found and split.
        let sampled: std::collections::HashSet<usize> =
            super::super::radix_parts::sample_positions(len, 1024).collect();
        let unseen: Vec<usize> = (0..len)
            .filter(|i| !sampled.contains(i))
            .step_by(97)
            .collect();
        let mut keys = vec![7u64; len];
        keys[unseen[0]] = u64::MAX;
        keys[unseen[1]] = 0;
        keys[unseen[2]] = 8;
        check(keys, &tuning);
        // Signed keys on both sides of zero, and keys whose high bits never differ (shorter
        // under Miri: the sample sees every key of those, which changes nothing here).
        let len = if cfg!(miri) { 400 } else { len };
        let mut next = xorshift(5);
        check(signed_around_zero(len, &mut next), &tuning);
        check(
            (0..len)
                .map(|_| (1 << 40) + (next() >> 44))
                .collect::<Vec<u64>>(),
            &tuning,
        );
    }

    #[test]
    fn sorts_skewed_equal_and_narrow_keys() {
        // Under Miri, 300 keys: 75 blocks of 32 bytes for the `u64` keys (hundreds of block
        // moves each pass), and below the sample's 1,024 as 600 was.
        let len = if cfg!(miri) { 300 } else { 50_000 };
        let mut next = xorshift(2);
        let tuning = tiny(32, 16);
        // All equal; all equal but a few the sample does not see; a few distinct values.
        check(vec![5u32; len], &tuning);
        let mut few = vec![7u64; len];
        few[len / 3 + 1] = 0;
        few[len - 2] = u64::MAX;
        check(few, &tuning);
        check((0..len).map(|_| next() % 3).collect::<Vec<u64>>(), &tuning);
        // Most keys in one bucket, the rest spread.
        check(
            (0..len)
                .map(|i| if i % 10 == 0 { next() } else { 1 << 40 })
                .collect::<Vec<u64>>(),
            &tuning,
        );
        // Signed keys around zero, narrow ranges, small types.
        check(signed_around_zero(len, &mut next), &tuning);
        check(
            (0..len).map(|_| next() as u16).collect::<Vec<u16>>(),
            &tuning,
        );
        check((0..len).map(|_| next() as i8).collect::<Vec<i8>>(), &tuning);
        // Sorted and reversed (blocks already in their regions).
        check((0..len as u64).collect::<Vec<u64>>(), &tuning);
        check((0..len as u64).rev().collect::<Vec<u64>>(), &tuning);
    }

    #[test]
    fn sorts_floats_by_total_order() {
        let len = if cfg!(miri) { 500 } else { 30_000 };
        let mut next = xorshift(3);
        let mut keys: Vec<f64> = (0..len)
            .map(|_| (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
            .collect();
        keys[3] = f64::NAN;
        keys[7] = -0.0;
        keys[9] = f64::NEG_INFINITY;
        let mut expected = keys.clone();
        expected.sort_unstable_by(f64::total_cmp);
        in_place_radix_sort(&mut keys, &tiny(64, 16));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&keys), bits(&expected));
    }

    #[test]
    fn sorts_with_many_threads_on_short_stripes() {
        let len = if cfg!(miri) { 700 } else { 60_000 };
        let mut next = xorshift(4);
        let keys: Vec<u64> = (0..len).map(|_| next() >> 3).collect();
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(if cfg!(miri) { 3 } else { 7 })
            .build()
            .unwrap();
        pool.install(|| check(keys, &tiny(16, 8)));
    }
}
