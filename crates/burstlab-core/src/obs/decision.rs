//! What an assembly policy sees and answers: the packet ([`PktMeta`]), the queue
//! ([`QueueState`]) and the node's instructions ([`Decision`]: bursts to form and the
//! timer command). Shared by the built-in policies (`assembler.rs`) and the external
//! ones (`external.rs`); the conventions are in `assembler.rs`'s module docs.

use crate::units::SimTime;

/// What kind of packet entered the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PktKind {
    /// A TCP data segment.
    Data,
    /// A pure TCP acknowledgement.
    Ack,
    /// Any non-TCP packet (e.g. ozsarac's real-time UDP traffic).
    Udp,
}

/// What the assembler may know about a packet (copied, never the packet itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PktMeta {
    /// Size on the wire, including headers.
    pub bytes: u32,
    /// Flow identifier (per-flow assemblers key their state on it).
    pub flow: u32,
    pub kind: PktKind,
    /// Segment sequence number for `Data`, cumulative ACK for `Ack`, 0 otherwise.
    pub seq: u64,
    /// The sender's mark: this data segment filled the sender's window (see
    /// `world::hosts`). Something an ingress may legitimately read off a packet.
    pub mark: bool,
}

/// The node's assembly queue, *after* the current packet was appended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueueState {
    pub pkts: u32,
    pub bytes: u64,
    /// Arrival time of the head packet (meaningless if `pkts == 0`).
    pub oldest_arrival: SimTime,
}

/// One burst to form: the first `pkts` packets of the queue (or, with `only`, the first
/// `pkts` packets of that kind, the others staying queued in order), plus `pad_bytes`
/// of padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Emit {
    pub pkts: u32,
    pub pad_bytes: u64,
    pub only: Option<PktKind>,
}

/// What to do with the queue's timer event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerCmd {
    /// Nothing changes.
    Keep,
    /// Schedule a timer event at `deadline` carrying `gen`; any earlier pending event
    /// of this queue is now stale.
    Arm { deadline: SimTime, gen: u64 },
    /// No timer is pending any more: the pending event (if any) is now stale and the
    /// node may forget it. Also returned by `on_timer` when the fired event leaves no
    /// successor.
    Cancel,
}

/// The assembler's answer to one call. Apply `emit`, then `then` (each counted from the
/// head of the queue as it is after the previous one was removed), then `timer`.
/// `then` is only used when a packet arrives at (or after) an expired deadline and by
/// itself also completes a burst (a packet of `≥ Lmax` bytes, or `max_pkts_per_burst =
/// 1`); `then.is_some()` implies `emit.is_some()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decision {
    pub emit: Option<Emit>,
    pub then: Option<Emit>,
    pub timer: TimerCmd,
}

impl Decision {
    /// No burst, no timer change.
    pub const NONE: Decision = Decision {
        emit: None,
        then: None,
        timer: TimerCmd::Keep,
    };

    /// The bursts to form, in order.
    pub fn bursts(&self) -> impl Iterator<Item = Emit> {
        self.emit.into_iter().chain(self.then)
    }

    pub(super) fn push(&mut self, e: Emit) {
        if self.emit.is_none() {
            self.emit = Some(e);
        } else {
            debug_assert!(self.then.is_none(), "at most two bursts per call");
            self.then = Some(e);
        }
    }
}
