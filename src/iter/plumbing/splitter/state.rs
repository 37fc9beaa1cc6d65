//! The six states of the pacer (`policy.rs`), each an enum of its own: what each state
//! means. The table of what moves each one, and what each changes, is on `Pacer`.

#[cfg(doc)]
use crate::tuning::{
    ASKED_SPLIT_NS, EARLY_WAKE_NS, HEARTBEAT_NS, LONG_CHUNK_NS, PROVEN_NS, RAMP_NS,
    SETTLED_MIN_ITEMS, SETTLED_NS,
};

/// Whether a branch has shown that its work is long enough to be worth splitting: some loop
/// of it ran for [`PROVEN_NS`] (or a reading called for an early wake, or the watchman rescued
/// it). Requests for work are honoured only once proven, except in a hot loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proof {
    /// Not yet.
    Unproven,
    /// For good (inherited by the halves).
    Proven,
}

/// Whether the loop asks `scheduler::poll` before its chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Polling {
    /// It asks.
    Asking,
    /// A reading said the rest of the loop is too short to be worth a split (and the loop is
    /// not hot, nor may it turn so); the rest only gets shorter, so the loop never asks again
    /// and folds the rest as one chunk.
    Stopped,
}

/// Where the branch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// On the calling thread outside the scheduler: no split request can reach it, and it
    /// cannot split (a short loop never pays for entering).
    Outside,
    /// Inside `scheduler::enter` (inherited).
    Entered,
}

/// The early wake: two readings in a row that call for one (each: [`EARLY_WAKE_NS`] of work
/// left, or [`HEARTBEAT_NS`] since the drive began with a split's worth left) wake sleepers
/// before any request or beat. One reading alone may time a hold-up of the thread, hence two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EarlyWake {
    /// The last reading did not call for a wake.
    Undecided,
    /// The last reading called for a wake; the next must agree.
    Seen,
    /// Two did: the wake is asked for (`wake_pending`) and never again in this drive.
    Decided,
}

/// Whether the chunk size doubles after each chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Growth {
    /// It does (or grows faster, [`RAMP_NS`]).
    Doubling,
    /// The last reading paused it: chunks take [`SETTLED_NS`] with at least
    /// [`SETTLED_MIN_ITEMS`] items, or [`LONG_CHUNK_NS`]. The next reading may resume it.
    Settled,
}

/// Whether a reading saw a worker awake and looking for work, with at least [`ASKED_SPLIT_NS`] of
/// work left ([`Pacer::note_thief`](super::policy::Pacer::note_thief)): a hot loop enters the
/// scheduler at once and honours requests from awake threads down to that much work left, without
/// waiting for [`PROVEN_NS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Heat {
    /// No reading has seen such a worker.
    Cold,
    /// One just did: split for it at the next `decide` once entered, without waiting for its
    /// request. Still so when `decide` splits for it: that split's join offers its frame
    /// (`scheduler::join_offered`), and its halves are `Hot`.
    Offering,
    /// Hot, its offer made or given up (inherited).
    Hot,
}

impl Heat {
    /// The heat of a half of a split: an offer is made once, by the split itself.
    #[inline(always)]
    pub(super) fn of_half(self) -> Heat {
        match self {
            Heat::Offering => Heat::Hot,
            heat => heat,
        }
    }
}
