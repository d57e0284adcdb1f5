//! Results of a run: per-flow and per-link rows, and the opt-in traces.
//!
//! Counters are streaming (constant memory); only the traces grow with simulated time,
//! and only when asked for.

use crate::units::SimTime;
use serde::Serialize;

/// One row per flow. Rates are measured over the flow's active time after warm-up.
#[derive(Clone, Debug, Serialize)]
pub struct FlowRow {
    pub flow: u32,
    pub name: String,
    /// `tcp`, `cbr` or `onoff`.
    pub kind: String,
    pub variant: String,
    pub profile: String,
    pub src: String,
    pub dst: String,
    pub mss_bytes: u32,
    pub wm_segments: u32,
    /// Segments acknowledged per ACK (1, or 2 with delayed ACKs).
    pub b: u32,
    /// Length of the measurement window in seconds.
    pub measured_s: f64,
    /// In-order segments delivered to the receiving application.
    pub segments_delivered: u64,
    /// Data segments that reached the receiver, duplicates included.
    pub segments_received: u64,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub retransmits: u64,
    /// Loss events detected by duplicate ACKs / SACK (triple-duplicate, TD).
    pub td_events: u64,
    /// Retransmission timeouts (TO).
    pub to_events: u64,
    pub goodput_segps: f64,
    pub throughput_segps: f64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub mean_rtt_s: f64,
    pub mean_cwnd_segments: f64,
    /// Mean RTO (without backoff) at the first timeout of each timeout sequence: the
    /// `T0` of the PFTK model. NaN when no timeout occurred.
    pub mean_rto_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkRow {
    /// Index of the link direction.
    pub link: u32,
    /// Index of the `[[link]]` entry in the scenario.
    pub spec_index: u32,
    pub from: String,
    pub to: String,
    pub pkts_offered: u64,
    pub pkts_delivered: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Fraction of the run the transmitter was busy.
    pub utilisation: f64,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct CwndSample {
    pub time: SimTime,
    pub flow: u32,
    pub cwnd: f64,
    pub ssthresh: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PacketEvent {
    Sent,
    Received,
    Dropped,
}

impl PacketEvent {
    pub fn name(self) -> &'static str {
        match self {
            PacketEvent::Sent => "sent",
            PacketEvent::Received => "received",
            PacketEvent::Dropped => "dropped",
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct PacketSample {
    pub time: SimTime,
    pub flow: u32,
    pub seq: u64,
    pub event: PacketEvent,
    pub retransmit: bool,
}

/// Everything a run produces.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub scenario: String,
    pub seed: u64,
    pub replication: u64,
    pub version: String,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Events processed (a measure of work, not of behaviour).
    pub events: u64,
    pub flows: Vec<FlowRow>,
    pub links: Vec<LinkRow>,
    pub cwnd_trace: Vec<CwndSample>,
    pub packet_trace: Vec<PacketSample>,
}
