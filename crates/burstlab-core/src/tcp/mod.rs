//! Segment-granularity TCP, in the style of ns-2's one-way agents (which the papers used).
//!
//! Read first: [`TcpConfig`], then `tcb.rs` (the shared control block and the congestion
//! phase), `sender.rs` (the event entry points, the only caller of the congestion
//! controller), `cc/` (congestion control, one controller per file) and `recovery.rs` (loss recovery strategies).
//!
//! Two profiles, two code paths. [`Profile::Rfc`] runs the strategy engine above (RFC 5681,
//! 6298, 6582, 6675). [`Profile::Ns2`] runs `ns2.rs`, a reimplementation of ns-2.35's
//! one-way agents (`Agent/TCP`, `/Reno`, `/Newreno`, `/Sack1`) and sinks with ns-2's
//! numbering (segment 0 is the SYN), coarse RTT clock and every default of
//! `ns-default.tcl`; it is checked packet by packet against Debian's `ns` binary
//! (`tests/test_export_ns2.py`). The semantics listed below are the RFC engine's.
//!
//! Module layering, bottom up, with no import cycle: this file's shared types and
//! `rtt.rs` → `tcb.rs` → {`cc/`, `recovery.rs` (+ `scoreboard.rs`)} → `sender.rs`;
//! `bitring.rs` (word-level bit ring) sits under `scoreboard.rs` and `receiver.rs`.
//! `cc/` and `recovery.rs` never import each other or the sender: a recovery strategy
//! reports what happened (a loss detected by duplicate ACKs, a partial ACK, the end of
//! recovery) and the sender calls the controller's hooks. The controller (selected by
//! [`TcpConfig::cc`], scenario key `cc`) is chosen independently of the loss-recovery
//! [`Variant`].
//!
//! Contract with the simulation driver (`world/hosts.rs`, the only caller):
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
//! - With the AIMD controller (`cc/aimd.rs`), on a triple-duplicate loss ssthresh =
//!   max(⌊min(cwnd, wm)⌋ / 2, 2) (ns-2 `window()`), and cwnd = ssthresh (Tahoe: 1); on a
//!   timeout ssthresh = max(FlightSize / 2, 2) (RFC 5681 eq. 4), cwnd = 1, go-back-N from
//!   `snd_una`.
//! - Reno re-enters fast retransmit for every further hole of the same window (yu §II.B),
//!   unlike ns-2.35's `bugFix_ true`; NewReno is RFC 6582 "Slow-but-Steady" (timer reset
//!   on every partial ACK; ns-2.35's `Agent/TCP/Newreno` resets it only on the first,
//!   `newreno_changes1_ 1`, which the ns2 profile follows); SACK follows RFC 6675 (pipe,
//!   NextSeg rules 1–3, no rescue retransmission), not ns-2 Sack1's bookkeeping.
//! - Sender tracing ([`sender::TcpSender::enable_trace`]) is off by default and never
//!   changes behaviour.

pub mod bitring;
pub mod cc;
pub mod ns2;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod tcb;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

use crate::units::SimTime;
use serde::{Deserialize, Serialize};

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// The per-flow rings indexed by segment number (the receiver's out-of-order bits, the
/// SACK scoreboard's bits, BBR's delivery-rate slots in `rate.rs`, `Agent/TCP/Linux`'s
/// send times in `ns2/linux/mod.rs`) start with room for this many segments, or the
/// window `wm` if smaller, and double when a flight needs more: their size follows what
/// is in flight, never `wm` itself (a `wm` near 2^32 allocates nothing up front).
/// `memory.rs` counts them against `sim.max_memory`; [`TcpSender::mem_bytes`] and
/// [`TcpReceiver::mem_bytes`] give their size to the run's memory guard.
pub const RING_START_SEGMENTS: u64 = 1024;

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

/// Congestion controller (how cwnd grows and how far a loss cuts it), chosen separately
/// from the loss-recovery [`Variant`]. Scenario key `cc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// Standard additive increase, multiplicative decrease (RFC 5681 §3.1, ns-2 `opencwnd`
    /// and `slowdown`).
    #[default]
    Aimd,
    /// CUBIC: RFC 9438 under the `rfc` profile (`cc/cubic.rs`); under `ns2`, ns-2.35's
    /// Agent/TCP/Linux with Linux's `cubic` module (`ns2/linux/cubic.rs`).
    Cubic,
    /// HighSpeed TCP: RFC 3649 under `rfc` (`cc/highspeed.rs`); under `ns2`, Linux's
    /// `highspeed` module in Agent/TCP/Linux.
    #[serde(rename = "highspeed")]
    HighSpeed,
    /// TCP Vegas: under `rfc`, Linux's Vegas algorithm over the RFC engine
    /// (`cc/vegas.rs`); under `ns2`, Linux's `vegas` module in Agent/TCP/Linux.
    Vegas,
    /// BBR v1 under `rfc`, as ns-3.44's TcpBbr (`cc/bbr.rs`), with pacing and
    /// delivery-rate samples (`rate.rs`). ns-2.35 has no BBR: rejected under `ns2`.
    Bbr,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Aimd => "aimd",
            CcKind::Cubic => "cubic",
            CcKind::HighSpeed => "highspeed",
            CcKind::Vegas => "vegas",
            CcKind::Bbr => "bbr",
        }
    }
}

/// How a SACK sender under the `rfc` profile sets cwnd during fast recovery. Scenario
/// key `recovery`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryKind {
    /// RFC 6675 §5 (4.2): cwnd = ssthresh when recovery begins.
    #[default]
    Rfc6675,
    /// Proportional Rate Reduction (RFC 6937 §3): cwnd falls towards ssthresh in
    /// proportion to the data delivered during recovery (`recovery.rs`, `Prr`).
    Prr,
}

impl RecoveryKind {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::Rfc6675 => "rfc6675",
            RecoveryKind::Prr => "prr",
        }
    }
}

/// What CUBIC's ssthresh is β_cubic times at a congestion event under the `rfc` profile
/// (RFC 9438 §4.6). Scenario key `cubic_ssthresh`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CubicSsthresh {
    /// flight_size, RFC 9438 §4.6's formula.
    #[default]
    FlightSize,
    /// cwnd, as Linux's `bictcp_recalc_ssthresh` and ns-3's TcpCubic (§4.6 allows it).
    Cwnd,
}

impl CubicSsthresh {
    pub fn name(self) -> &'static str {
        match self {
            CubicSsthresh::FlightSize => "flight_size",
            CubicSsthresh::Cwnd => "cwnd",
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

/// The ns-2 release whose `Agent/TCP` defaults a flow under the `ns2` profile starts
/// from (scenario key `ns2_version`, default `"2.35"`). burstlab runs ns-2.35's agents
/// either way; a preset changes only the defaults that `tcl/lib/ns-default.tcl` of that
/// release sets differently and that burstlab models (docs/topics/ns2-versions.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ns2Version {
    /// ns-2.1b9 (2002).
    #[serde(rename = "2.1b9")]
    V2_1b9,
    /// ns-2.26 (2003); its `ns-default.tcl` equals ns-2.1b9's in every value burstlab models.
    #[serde(rename = "2.26")]
    V2_26,
    /// ns-2.27 (2004): Newreno's `newreno_changes1_` and `partial_window_deflation_`
    /// became 1 (changed 5/5/03, "to reflect RFC 2582").
    #[serde(rename = "2.27")]
    V2_27,
    /// ns-2.35 (2011), burstlab's `ns2` profile as it is.
    #[serde(rename = "2.35")]
    V2_35,
}

impl Ns2Version {
    /// Every preset, oldest first.
    pub const ALL: [Ns2Version; 4] = [
        Ns2Version::V2_1b9,
        Ns2Version::V2_26,
        Ns2Version::V2_27,
        Ns2Version::V2_35,
    ];
    /// The scenario spelling (`"2.1b9"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Ns2Version::V2_1b9 => "2.1b9",
            Ns2Version::V2_26 => "2.26",
            Ns2Version::V2_27 => "2.27",
            Ns2Version::V2_35 => "2.35",
        }
    }
    /// Overwrite `c`'s ns-2.35 defaults with this release's. Values from each release's
    /// `tcl/lib/ns-default.tcl` (ns-2.1b9 lines 672–798, ns-2.26 lines 699–844, ns-2.27
    /// lines 770–932; ns-2.35's are in [`default_config`]). Unchanged across all four:
    /// `tcpTick_` 0.01 (since 2002/03/07), `windowInit_` 2, `syn_` true, `singledup_` 1,
    /// `bugFix_` true, `srtt_init_` 0, `rttvar_init_` 12, `T_SRTT_BITS` 3, `window_` 20,
    /// `packetSize_` 1000, `maxSackBlocks_` 3, DelAck `interval_` 100 ms.
    pub fn apply(self, c: &mut TcpConfig) {
        for &(name, value) in self.tcl_overrides() {
            let on = value != 0.0;
            match name {
                "minrto_" => c.min_rto = secs(value),
                "maxrto_" => c.max_rto = secs(value),
                "rtxcur_init_" => c.init_rto = secs(value),
                "precisionReduce_" => c.precision_reduce = on,
                "newreno_changes1_" => c.newreno_changes1 = on,
                "partial_window_deflation_" => c.partial_window_deflation = on,
                _ => unreachable!("ns-2 setting {name} has no TcpConfig field"),
            }
        }
    }

    /// The `Agent/TCP` settings in which this release differs from ns-2.35, by their ns-2
    /// names, as [`Ns2Version::apply`] uses them and `burstlab export ns2` writes them
    /// (`$tcp set NAME VALUE`; booleans as 0 and 1). The last two are
    /// `Agent/TCP/Newreno`'s and apply to NewReno flows only.
    pub fn tcl_overrides(self) -> &'static [(&'static str, f64)] {
        // "Agent/TCP set minrto_ 1 ; # Default set to 1 on 2001/05/14." (0.2 from 2004/10/14)
        // "Agent/TCP set maxrto_ 100000" (60 from 2007/03/28)
        // "Agent/TCP set rtxcur_init_ 6.0" (3.0 from 2006/01/21)
        // "Agent/TCP set precisionReduce_ false" (true from 2006/1/24)
        // "Agent/TCP/Newreno set newreno_changes1_ 0" and "partial_window_deflation_ 0"
        // up to ns-2.26; 1 from ns-2.27 (changed 5/5/03).
        const UP_TO_2_26: [(&str, f64); 6] = [
            ("minrto_", 1.0),
            ("maxrto_", 100_000.0),
            ("rtxcur_init_", 6.0),
            ("precisionReduce_", 0.0),
            ("newreno_changes1_", 0.0),
            ("partial_window_deflation_", 0.0),
        ];
        const V2_27: [(&str, f64); 6] = [
            ("minrto_", 1.0),
            ("maxrto_", 100_000.0),
            ("rtxcur_init_", 6.0),
            ("precisionReduce_", 0.0),
            ("newreno_changes1_", 1.0),
            ("partial_window_deflation_", 1.0),
        ];
        match self {
            Ns2Version::V2_1b9 | Ns2Version::V2_26 => &UP_TO_2_26,
            Ns2Version::V2_27 => &V2_27,
            Ns2Version::V2_35 => &[],
        }
    }
}

/// Whole seconds of an ns-2 time setting (every preset value is one).
fn secs(value: f64) -> SimTime {
    SimTime::from_secs_f64(value).expect("ns-2 preset times are non-negative and finite")
}

/// All TCP parameters of one flow (sender and receiver side).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Loss-recovery variant.
    pub variant: Variant,
    /// Congestion controller.
    pub cc: CcKind,
    /// cwnd during SACK fast recovery under the `rfc` profile (RFC 6675 or PRR).
    pub recovery: RecoveryKind,
    /// CUBIC's ssthresh base under the `rfc` profile (flight_size or cwnd).
    pub cubic_ssthresh: CubicSsthresh,
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
    /// The ns-2.35 behaviour switches below are read only under [`Profile::Ns2`] (see
    /// `ns2.rs`); the RFC profile ignores them.
    ///
    /// ns-2 `syn_`: segment 0 is a header-only SYN and data start once it is acknowledged
    /// (data segments are then numbered from 1, as in ns-2).
    pub syn: bool,
    /// ns-2 `singledup_`: Limited Transmit, one new segment on each of the first
    /// `dupack_thresh − 1` duplicate ACKs.
    pub limited_transmit: bool,
    /// ns-2 `precisionReduce_`: a halved window stays a real number (otherwise ⌊W/2⌋).
    pub precision_reduce: bool,
    /// ns-2 `bugFix_`: no new fast retransmit until the recovery point is passed.
    pub bug_fix: bool,
    /// ns-2 Newreno `newreno_changes1_`: the retransmission timer is reset only on the
    /// first partial ACK of a recovery (otherwise on every partial ACK).
    pub newreno_changes1: bool,
    /// ns-2 Newreno `partial_window_deflation_`.
    pub partial_window_deflation: bool,
    /// ns-2 Sack1 `partial_ack_`: send two segments on each partial ACK.
    pub sack_partial_ack: bool,
    /// ns-2 `boot_time_`: where between two ticks of the coarse RTT clock the sender
    /// booted, seconds in `[0, clock_granularity)`. `None`: drawn per flow as ns-2 does
    /// (see `ns2::boot_phase`).
    pub clock_phase: Option<f64>,
}

impl TcpConfig {
    /// Defaults for a variant under a profile (the controller is AIMD). See
    /// [`default_config`] for the source of each value.
    pub fn defaults(variant: Variant, profile: Profile) -> Self {
        default_config(variant, profile)
    }
    /// Wire size of a data segment.
    pub fn seg_bytes(&self) -> u32 {
        self.mss + self.header_bytes
    }
}

/// RFC 5681 §3.1 initial window in segments for a given SMSS (bytes).
pub fn rfc5681_initial_window(mss: u32) -> u32 {
    if mss > 2190 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}

/// Parameter defaults for a variant under a profile.
pub fn default_config(variant: Variant, profile: Profile) -> TcpConfig {
    match profile {
        // ns-2.35 tcl/lib/ns-default.tcl (read from the public ns-2.35 tree, lines
        // 918–1090). The ns-2 name of each value is given.
        Profile::Ns2 => TcpConfig {
            variant,
            cc: CcKind::Aimd, // ns-2 Agent/TCP: standard Reno-style AIMD
            recovery: RecoveryKind::Rfc6675, // not read under the ns2 profile
            cubic_ssthresh: CubicSsthresh::FlightSize, // not read under the ns2 profile
            profile,
            mss: 1000,          // Agent/TCP packetSize_ 1000 (bytes incl. nothing else)
            header_bytes: 40,   // Agent/TCP tcpip_base_hdr_size_ 40
            ack_bytes: 40,      // Agent/TCPSink packetSize_ 40
            wm: 20,             // Agent/TCP window_ 20
            init_cwnd: 2,       // Agent/TCP windowInit_ 2 (windowInitOption_ 1)
            init_ssthresh: 20,  // TcpAgent::reset(): ssthresh_ = window_ (tcp.cc)
            dupack_thresh: 3,   // Agent/TCP numdupacks_ 3
            delayed_ack: false, // plain Agent/TCPSink acks every segment
            delack_timeout: SimTime::from_ms(100), // Agent/TCPSink/DelAck interval_ 100ms
            min_rto: SimTime::from_ms(200), // Agent/TCP minrto_ 0.2
            max_rto: SimTime::from_secs(60), // Agent/TCP maxrto_ 60
            init_rto: SimTime::from_secs(3), // Agent/TCP rtxcur_init_ 3.0
            clock_granularity: SimTime::from_ms(10), // Agent/TCP tcpTick_ 0.01
            max_backoff: 64,    // tcp.cc rtt_backoff(): t_backoff_ < 64
            sack_blocks: 3,     // Agent/TCPSink maxSackBlocks_ 3
            syn: true,          // Agent/TCP syn_ true
            limited_transmit: true, // Agent/TCP singledup_ 1
            precision_reduce: true, // Agent/TCP precisionReduce_ true
            bug_fix: true,      // Agent/TCP bugFix_ true
            newreno_changes1: true, // Agent/TCP/Newreno newreno_changes1_ 1
            partial_window_deflation: true, // Agent/TCP/Newreno partial_window_deflation_ 1
            sack_partial_ack: false, // Agent/TCP partial_ack_ false
            clock_phase: None,  // TcpAgent::reset(): boot_time_ = Random::uniform(tcpTick_)
        },
        Profile::Rfc => {
            // An RFC-conformant host on Ethernet: SMSS 1460 gives IW = 3 by RFC 5681 §3.1
            // (1095 < SMSS ≤ 2190); with segment-granularity accounting this is the IW a
            // real 1460-byte-MSS stack starts with.
            let mss = 1460;
            TcpConfig {
                variant,
                cc: CcKind::Aimd,                          // RFC 5681 §3.1
                recovery: RecoveryKind::Rfc6675,           // RFC 6675 §5
                cubic_ssthresh: CubicSsthresh::FlightSize, // RFC 9438 §4.6
                profile,
                mss,
                header_bytes: 40,
                ack_bytes: 40,
                wm: 20,
                init_cwnd: rfc5681_initial_window(mss),
                init_ssthresh: u32::MAX, // RFC 5681 §3.1: "arbitrarily high"
                dupack_thresh: 3,        // RFC 5681 §3.2 / RFC 6675 DupThresh
                delayed_ack: true,       // RFC 5681 §4.2 SHOULD, every 2nd full segment
                delack_timeout: SimTime::from_ms(200), // RFC 5681 §4.2: < 500 ms
                min_rto: SimTime::from_secs(1), // RFC 6298 (2.4)
                max_rto: SimTime::from_secs(60), // RFC 6298 (2.5)
                init_rto: SimTime::from_secs(1), // RFC 6298 (2.1)
                clock_granularity: SimTime::from_ms(1), // RFC 6298 G (fine clock)
                max_backoff: 64,         // yu eq. 23
                sack_blocks: 3,          // RFC 2018 §3 (with timestamps)
                // ns-2 switches: not read under the RFC profile.
                syn: false,
                limited_transmit: false,
                precision_reduce: false,
                bug_fix: false,
                newreno_changes1: false,
                partial_window_deflation: false,
                sack_partial_ack: false,
                clock_phase: None,
            }
        }
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
/// `#[repr(C)]`: the two counters every segment and every ACK update come first (they
/// share a cache line with the control block's hot fields, see `Tcb`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct SenderStats {
    /// Data segments handed to the network, including retransmissions.
    pub segs_sent: u64,
    /// Integral of cwnd (segments) over time (seconds): time-average = integral / elapsed.
    pub cwnd_integral: f64,
    pub retransmits: u64,
    /// Loss events detected by duplicate ACKs (fast retransmit episodes).
    pub td_events: u64,
    /// Retransmission timeouts.
    pub to_events: u64,
    /// Sum and count of RTT samples (seconds), for the mean RTT.
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
}
