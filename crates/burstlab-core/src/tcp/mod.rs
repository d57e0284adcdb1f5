//! Segment-granularity TCP, in the style of ns-2's one-way agents (which the papers used).
//!
//! Read first: [`TcpConfig`], then `sender.rs` (the control block and the event entry
//! points), `cc.rs` (congestion control) and `recovery.rs` (loss recovery strategies).
//!
//! Contract with the simulation driver (`sim.rs`):
//! - Sequence numbers count *segments*, starting at 0. A data segment `seq` occupies
//!   `mss + header_bytes` bytes on the wire; an ACK occupies `ack_bytes`.
//! - [`AckSeg::cum`] is the cumulative acknowledgement: the next segment the receiver
//!   expects (all segments `< cum` have arrived).
//! - The sender never touches the event queue. Each entry point appends the segments
//!   to transmit to a caller-owned [`TcpOutput`] (cleared by the caller, so the buffer is
//!   reused and nothing is allocated per packet). After every call the driver reads
//!   [`sender::TcpSender::rto_deadline`] and keeps one pending timer event per flow,
//!   ignoring stale ones (lazy cancellation).
//! - The receiver likewise returns at most one ACK per call and exposes its delayed-ACK
//!   deadline.
//!
//! Semantics chosen (details in each file):
//! - cwnd is an `f64` in segments, updated with ns-2's rules (+1 per new ACK in slow
//!   start, +1/cwnd in congestion avoidance; per ACK, not per acked segment), clamped to
//!   `[1, wm]`. IEEE arithmetic without fast-math is deterministic. RTT/RTO state is
//!   integer picoseconds (`rtt.rs`).
//! - On a triple-duplicate loss, ssthresh = max(⌊min(cwnd, wm)⌋ / 2, 2) (ns-2 `window()`),
//!   cwnd = ssthresh; on a timeout ssthresh = max(FlightSize / 2, 2) (RFC 5681 eq. 4),
//!   cwnd = 1, go-back-N from `snd_una`.
//! - Reno re-enters fast retransmit for every further hole of the same window (yu §II.B),
//!   unlike ns-2.35's `bugFix_ true`; NewReno is RFC 6582 "Slow-but-Steady" (timer reset
//!   on each partial ACK, as ns-2 `Agent/TCP/Newreno`); SACK follows RFC 6675 (pipe,
//!   NextSeg rules 1–3, no rescue retransmission), not ns-2 Sack1's internal bookkeeping.
//! - Sender tracing ([`sender::TcpSender::enable_trace`]) is off by default and never
//!   changes behaviour.

pub mod cc;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

use crate::units::SimTime;
use serde::{Deserialize, Serialize};

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// Loss-recovery variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    Sack,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        }
    }
}

/// Which set of parameter defaults a flow starts from (explicit settings override them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// RFC 5681 / RFC 6298 / RFC 6675 defaults.
    Rfc,
    /// The ns-2.35 `Agent/TCP` defaults of `ns-default.tcl` that the papers ran with.
    Ns2,
}

/// All TCP parameters of one flow (sender and receiver side).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    pub profile: Profile,
    /// Payload bytes per segment.
    pub mss: u32,
    /// TCP/IP header bytes added to every data segment on the wire.
    pub header_bytes: u32,
    /// Wire size of a pure ACK in bytes.
    pub ack_bytes: u32,
    /// Maximum window `Wm` in segments (the receiver's advertised window, ns-2 `window_`).
    pub wm: u32,
    /// Initial congestion window in segments (ns-2 `windowInit_`).
    pub init_cwnd: u32,
    /// Initial slow-start threshold in segments; `u32::MAX` means "infinite".
    pub init_ssthresh: u32,
    /// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_`).
    pub dupack_thresh: u32,
    /// Receiver delays ACKs (acknowledges every second segment: `b` = 2).
    pub delayed_ack: bool,
    /// Delayed-ACK timer (ns-2 `DelAckSink interval_`).
    pub delack_timeout: SimTime,
    /// RFC 6298 (2.4) lower bound on RTO (ns-2 `minrto_`).
    pub min_rto: SimTime,
    /// Upper bound on RTO (ns-2 `maxrto_`).
    pub max_rto: SimTime,
    /// RTO before the first RTT sample (RFC 6298 (2.1); ns-2 `rtxcur_init_`).
    pub init_rto: SimTime,
    /// Clock granularity `G` of RFC 6298 (2.3) (ns-2 `tcpTick_`).
    pub clock_granularity: SimTime,
    /// Exponential backoff multiplier cap (yu eq. 23: 64).
    pub max_backoff: u32,
    /// SACK blocks carried per ACK (most recent first), 3 or 4.
    pub sack_blocks: u8,
}

impl TcpConfig {
    /// Defaults for a variant under a profile. See `sender.rs` for sources of each value.
    pub fn defaults(variant: Variant, profile: Profile) -> Self {
        sender::default_config(variant, profile)
    }
    /// Wire size of a data segment.
    pub fn seg_bytes(&self) -> u32 {
        self.mss + self.header_bytes
    }
}

/// One SACK block `[start, end)` in segment numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// An acknowledgement as carried by an ACK packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckSeg {
    /// Next segment expected by the receiver.
    pub cum: u64,
    /// SACK blocks, most recent first; only the first `nsack` are valid.
    pub sack: [SackBlock; 4],
    pub nsack: u8,
}

/// A transmission requested by the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendReq {
    pub seq: u64,
    pub retransmit: bool,
}

/// Caller-owned output buffer for sender calls.
#[derive(Debug, Default)]
pub struct TcpOutput {
    pub sends: Vec<SendReq>,
}

impl TcpOutput {
    pub fn clear(&mut self) {
        self.sends.clear();
    }
}

/// Per-flow sender counters (all cumulative since the start of the flow).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Data segments handed to the network, including retransmissions.
    pub segs_sent: u64,
    pub retransmits: u64,
    /// Loss events detected by duplicate ACKs (fast retransmit episodes).
    pub td_events: u64,
    /// Retransmission timeouts.
    pub to_events: u64,
    /// Sum and count of RTT samples (seconds), for the mean RTT.
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
    /// Integral of cwnd (segments) over time (seconds): time-average = integral / elapsed.
    pub cwnd_integral: f64,
}
