//! Results of a run: per-flow and per-link rows, and the opt-in traces.
//!
//! Counters are streaming (constant memory); only the traces grow with simulated time,
//! and only when asked for.

use crate::units::SimTime;
use serde::Serialize;

/// One row per flow. Rates are measured over the flow's active time after warm-up: from
/// its start (or the warm-up) to its stop, its completion (a finite TCP flow whose last
/// segment was acknowledged) or the end of the run, whichever comes first.
#[derive(Clone, Debug, Serialize)]
pub struct FlowRow {
    pub flow: u32,
    pub name: String,
    /// The flow's `type`: `tcp`, `cbr`, `onoff`, `poisson`, `self_similar` or
    /// `pareto_onoff`.
    pub kind: String,
    /// Loss-recovery variant (`tahoe`, `reno`, `newreno`, `sack`; empty for UDP).
    pub variant: String,
    /// Congestion controller (`aimd`; empty for UDP).
    pub cc: String,
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
    /// Data segments of a finite TCP flow (`flow.segments`); null for an infinite flow
    /// or a UDP source.
    pub size_segments: Option<u64>,
    /// When the flow starts (`flow.start`).
    pub start_s: f64,
    /// A finite TCP flow's completion: the instant the cumulative ACK of its last data
    /// segment reached its sender (docs/guide/completion-times.md). NaN unless
    /// `completed`.
    pub end_s: f64,
    /// Whether a finite TCP flow completed within the run (always false for an infinite
    /// flow or a UDP source).
    pub completed: bool,
    /// Mean one-way delay of the data segments (UDP: packets) that reached the receiver
    /// in `[warmup, end)`, duplicates included: from the instant the sending host handed
    /// the segment to its first link to its arrival (queueing, transmission,
    /// propagation, burst assembly). NaN when none arrived. `world/collector.rs`.
    pub delay_mean_s: f64,
    /// Jitter: the standard deviation (population) of those one-way delays, as
    /// ns-3's FlowMonitor reports delay spread. NaN when none arrived.
    pub jitter_s: f64,
}

/// One row per finite TCP flow (`res.fct`; docs/guide/completion-times.md). Event and
/// burst counts cover `[warmup, end)` like the `flows` and `obs_flows` tables.
#[derive(Clone, Debug, Serialize)]
pub struct FctRow {
    pub flow: u32,
    pub name: String,
    /// The workload that generated the flow; empty for a flow listed in the scenario.
    pub workload: String,
    pub src: String,
    pub dst: String,
    pub size_segments: u64,
    /// Payload bytes: `size_segments × mss`.
    pub size_bytes: u64,
    pub start_s: f64,
    /// When the cumulative ACK of the flow's last data segment reached its sender; NaN
    /// unless `completed`.
    pub end_s: f64,
    /// `end_s − start_s`; NaN unless `completed`.
    pub fct_s: f64,
    /// The flow's completion time alone on its path, without loss (`world/fct.rs`); NaN
    /// where the path has no closed form.
    pub ideal_fct_s: f64,
    /// `fct_s / ideal_fct_s`.
    pub slowdown: f64,
    /// Whether the flow completed within the run.
    pub completed: bool,
    pub segments_delivered: u64,
    pub retransmits: u64,
    pub td_events: u64,
    pub to_events: u64,
    /// The flow's data and ACK bursts lost (0 for a flow that crosses no OBS network).
    pub bursts_lost: u64,
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
    /// Fraction of the measurement window `[warmup, end)` the transmitter was busy.
    pub utilisation: f64,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct CwndSample {
    pub time: SimTime,
    pub flow: u32,
    pub cwnd: f64,
    pub ssthresh: u32,
}

/// The congestion controller's state after a sender call that changed it
/// (`sim.trace.cc`; flows with a modern controller, `cc` other than `aimd`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CcSample {
    pub time: SimTime,
    pub flow: u32,
    /// The controller's name (`cubic`, `highspeed`, `vegas`, `bbr`).
    pub cc: &'static str,
    pub cwnd: f64,
    pub state: crate::tcp::cc::CcTrace,
}

/// A goodput sample (`sim.trace.goodput`): a TCP flow's in-order delivered segments,
/// cumulative from the start of the run (not reset by the warm-up).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GoodputSample {
    pub time: SimTime,
    pub flow: u32,
    pub delivered: u64,
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
    /// OBS: one row per assembly queue (empty without an OBS network).
    pub bursts: Vec<BurstRow>,
    /// OBS: one row per fibre direction.
    pub obs_links: Vec<ObsLinkRow>,
    /// OBS: one row per flow crossing an OBS network.
    pub obs_flows: Vec<ObsFlowRow>,
    /// One row per flow: the route it took and how it was chosen. Left out of the
    /// serialised result (it follows from the scenario; the front ends get it through
    /// [`RunResult::tables`]).
    #[serde(skip)]
    pub routes: Vec<RouteRow>,
    /// OBS: one row per fibre direction and wavelength (`obs.contention.per_wavelength`;
    /// absent from the serialised result when off).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub obs_channels: Vec<ObsChannelRow>,
    /// OBS: packets-per-burst histogram per queue (non-empty bins).
    pub burst_hist: Vec<BurstHistRow>,
    /// OBS: opt-in burst trace.
    pub burst_trace: Vec<BurstSample>,
    /// Opt-in goodput samples (`sim.trace.goodput`; absent from the serialised result
    /// when off, so results without it are unchanged).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub goodput_trace: Vec<GoodputSample>,
    /// Controller state trace (`sim.trace.cc`; absent from the serialised result when
    /// empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cc_trace: Vec<CcSample>,
    /// OBS: ECWBA's cwnd estimation error per flow (only when an `ecwba` assembler runs;
    /// absent from the serialised result otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cwnd_estimates: Vec<CwndEstRow>,
    /// One row per finite TCP flow: its completion time against the ideal (absent from
    /// the serialised result without finite flows).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fct: Vec<FctRow>,
    /// Traces streamed to CSV files under `sim.trace.dir` instead of being held here
    /// (their tables above are then empty); absent from the serialised result otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streamed: Vec<StreamedTrace>,
}

/// One row per flow of the `routes` table (`res.routes`), then one per path of each
/// pair a `[[workload]]` can draw: its route and how it was chosen (`[routing]`,
/// docs/guide/networks.md).
#[derive(Clone, Debug, Serialize)]
pub struct RouteRow {
    /// The `[[flow]]` index; on a workload's rows, the pair's index in the workload.
    pub flow: u32,
    /// The flow's name; on a workload's rows `<workload>:<src>><dst>`.
    pub name: String,
    /// The `[[workload]]` whose generated flows take this route; empty for a listed
    /// flow.
    pub workload: String,
    pub src: String,
    pub dst: String,
    /// Node names from source to destination, joined by `>`.
    pub route: String,
    /// Node names from destination back to source (the ACKs' route), joined by `>`.
    pub reverse_route: String,
    /// Hops of `route`.
    pub hops: u32,
    /// Fibre length along `route` (packet links count 0 km); NaN if a fibre on it gives
    /// only its delay.
    pub km: f64,
    /// Propagation delay along `route` (of parallel links, the shortest).
    pub delay_s: f64,
    /// `routing.metric`: `hops`, `km` or `delay`.
    pub metric: &'static str,
    /// `routing.k`.
    pub k: u32,
    /// `routing.policy`, or `explicit` when the flow gives its `route`.
    pub policy: &'static str,
    /// Index of `route` among the pair's paths, least first; null when explicit (a
    /// workload's pair has one row per path).
    pub path: Option<u32>,
    /// Paths found for the pair (at most `k`; 0 when explicit).
    pub paths: u32,
}

/// A trace written to disk while the run went (`sim.trace.dir`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamedTrace {
    /// The table's name (`cwnd_trace`, `packet_trace`, `burst_trace`).
    pub table: &'static str,
    /// The CSV file (removed again when the trace had no rows, like an empty optional
    /// table that is not written).
    pub path: std::path::PathBuf,
    pub rows: u64,
}

// ---------------------------------------------------------------------------------------
// Optical burst switching.

/// Why a burst was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstLoss {
    /// No data wavelength free on the output fibre (bufferless contention).
    Contention,
    /// Wavelength continuity: conversion is off and the burst's wavelength was busy
    /// (or does not exist) on the output fibre.
    NoWavelength,
    /// The remaining offset at a node was shorter than its switch set-up time.
    OffsetTooShort,
    /// Independent random loss with probability `p` (yu §III).
    Random,
    /// Deterministic injection (`obs.drop_burst`).
    Injected,
    /// Its burst control packet was lost on a fibre (`obs.control.loss`): the next
    /// node never reserved a wavelength for it.
    Control,
    /// Its reservation was taken by a burst of a higher-priority class
    /// (`obs.contention.preemption`).
    Preempted,
    /// Deflection routing: its output fibre had no wavelength and neither had the
    /// fibre to any neighbour of the node's deflection table.
    DeflectionFailed,
    /// Deflection routing: its output fibre had no wavelength and its remaining offset
    /// was too short for the BCP processing of every deflected path.
    DeflectionOffset,
}

impl BurstLoss {
    pub const ALL: [BurstLoss; 9] = [
        BurstLoss::Contention,
        BurstLoss::NoWavelength,
        BurstLoss::OffsetTooShort,
        BurstLoss::Random,
        BurstLoss::Injected,
        BurstLoss::Control,
        BurstLoss::Preempted,
        BurstLoss::DeflectionFailed,
        BurstLoss::DeflectionOffset,
    ];
    pub fn name(self) -> &'static str {
        match self {
            BurstLoss::Contention => "contention",
            BurstLoss::NoWavelength => "no_wavelength",
            BurstLoss::OffsetTooShort => "offset_too_short",
            BurstLoss::Random => "random",
            BurstLoss::Injected => "injected",
            BurstLoss::Control => "control_lost",
            BurstLoss::Preempted => "preempted",
            BurstLoss::DeflectionFailed => "deflection_failed",
            BurstLoss::DeflectionOffset => "deflection_offset",
        }
    }
}

/// Burst counts per loss reason, indexed by [`BurstLoss`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossCounts([u64; BurstLoss::ALL.len()]);

impl LossCounts {
    /// Bursts lost for any reason.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// (reason, count) for every reason, in [`BurstLoss::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (BurstLoss, u64)> + '_ {
        BurstLoss::ALL.iter().map(|&r| (r, self[r]))
    }
}

impl std::ops::Index<BurstLoss> for LossCounts {
    type Output = u64;
    fn index(&self, r: BurstLoss) -> &u64 {
        &self.0[r as usize]
    }
}

impl std::ops::IndexMut<BurstLoss> for LossCounts {
    fn index_mut(&mut self, r: BurstLoss) -> &mut u64 {
        &mut self.0[r as usize]
    }
}

/// One row per assembly queue of an ingress edge node. Counters cover `[warmup, end)`.
/// "Segments" counts data packets (TCP segments or UDP packets); yu's `S` for a
/// per-flow queue is `mean_data_pkts`.
#[derive(Clone, Debug, Serialize)]
pub struct BurstRow {
    pub queue: u32,
    /// Ingress edge node.
    pub edge: String,
    /// Egress edge node.
    pub egress: String,
    /// The queue's key: flow name (`per_flow`), egress name (`per_egress`) or
    /// `egress/class` (`per_class`); what `obs.drop_burst.queue` refers to.
    pub key: String,
    /// Flow index for a per-flow queue, -1 otherwise.
    pub flow: i64,
    pub class: u32,
    /// Fibre hops from ingress to egress.
    pub hops: u32,
    /// Offset time between each BCP and its burst.
    pub offset_s: f64,
    pub pkts_in: u64,
    /// Packets refused because the assembly queue was full.
    pub pkts_dropped_queue: u64,
    pub bursts_sent: u64,
    /// Bursts with at least one data (or UDP) packet.
    pub data_bursts: u64,
    /// Bursts of ACKs only.
    pub ack_bursts: u64,
    pub bursts_delivered: u64,
    pub bursts_lost: u64,
    pub lost_contention: u64,
    pub lost_no_wavelength: u64,
    pub lost_offset_too_short: u64,
    pub lost_random: u64,
    pub lost_injected: u64,
    /// Lost with their control packet (`obs.control.loss`).
    pub lost_control: u64,
    /// Lost to a higher-priority burst (`obs.contention.preemption`).
    pub lost_preempted: u64,
    /// Deflection routing (`obs.contention.deflection`): lost because no neighbour of
    /// the deflection table had a wavelength, or because the remaining offset was too
    /// short for every deflected path.
    pub lost_deflection_failed: u64,
    pub lost_deflection_offset: u64,
    /// Packets of delivered bursts lost to segmentation: in a head cut from the burst
    /// (`segmentation = "head"`) or in a tail cut from it (`"tail"`).
    pub pkts_lost_head_cut: u64,
    pub pkts_lost_tail_cut: u64,
    /// bursts_lost / bursts_sent (NaN if none sent).
    pub loss_prob: f64,
    pub mean_bytes: f64,
    pub min_bytes: u64,
    pub max_bytes: u64,
    /// Mean packets per burst (all kinds).
    pub mean_pkts: f64,
    /// Mean data packets per burst over data bursts (yu's S for a per-flow queue).
    pub mean_data_pkts: f64,
    /// Mean ACKs per burst over bursts carrying ACKs.
    pub mean_ack_pkts: f64,
    /// Quantiles of packets per burst (exact up to 128, within 1/16 above).
    pub pkts_p10: u64,
    pub pkts_p50: u64,
    pub pkts_p90: u64,
    pub pkts_p99: u64,
    pub pkts_max: u64,
    /// Mean time a packet waited in the assembly queue.
    pub mean_assembly_delay_s: f64,
    /// Mean time from a burst's first packet to its formation.
    pub mean_burst_assembly_s: f64,
}

/// One row per fibre direction. Losses are charged to the fibre a burst was to be
/// switched onto (contention, no wavelength), was travelling on (offset too short at the
/// downstream node), or was lost on (random; per-path random loss is charged to the
/// path's last fibre).
/// One row per fibre direction and wavelength (`obs.contention.per_wavelength`).
/// Counters cover `[warmup, end)`.
#[derive(Clone, Debug, Serialize)]
pub struct ObsChannelRow {
    pub fibre: u32,
    pub from: String,
    pub to: String,
    /// Wavelength (data channel) index on the fibre.
    pub channel: u32,
    pub bursts_scheduled: u64,
    /// Time reserved on this wavelength (JET: the bursts' passages; JIT: from BCP
    /// processing).
    pub busy_s: f64,
    /// busy_s / measured span.
    pub utilisation: f64,
    /// Bursts lost under wavelength continuity because this wavelength was busy (their
    /// `no_wavelength` losses, charged to the fibre).
    pub bursts_lost_no_wavelength: u64,
    /// Bursts scheduled here after a fibre delay line.
    pub bursts_via_fdl: u64,
    /// Bursts scheduled here through a converter of a limited pool.
    pub bursts_converted: u64,
    /// Bursts scheduled here with their head cut (`obs.contention.segmentation`).
    pub bursts_segmented: u64,
    /// Bytes cut from the heads of those bursts here.
    pub bytes_cut: u64,
    /// Scheduled bursts whose tail was cut here (`segmentation = "tail"`).
    pub bursts_tail_cut: u64,
    /// Bytes cut from the tails of those bursts here.
    pub tail_bytes_cut: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ObsLinkRow {
    pub fibre: u32,
    /// Index of the `[[fibre]]` entry.
    pub spec_index: u32,
    pub from: String,
    pub to: String,
    pub wavelengths: u32,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Bursts whose reservation was attempted on this fibre.
    pub bursts_offered: u64,
    pub bursts_scheduled: u64,
    pub lost_contention: u64,
    pub lost_no_wavelength: u64,
    pub lost_offset_too_short: u64,
    pub lost_random: u64,
    /// Bursts whose control packet was lost on this fibre (`obs.control.loss`).
    pub lost_control: u64,
    /// Bursts whose reservation on this fibre a higher-priority burst took
    /// (`obs.contention.preemption`).
    pub lost_preempted: u64,
    /// Deflection routing (`obs.contention.deflection`): bursts that wanted this fibre
    /// and were lost because every deflection failed (`deflection_failed`) or their
    /// remaining offset was too short for every deflected path (`deflection_offset`),
    /// and bursts deflected onto this fibre (`bursts_deflected`, counted in
    /// `bursts_scheduled` too).
    pub lost_deflection_failed: u64,
    pub lost_deflection_offset: u64,
    pub bursts_deflected: u64,
    /// Segmentation (`obs.contention.segmentation`): bursts scheduled here with their
    /// head cut (`head`), and scheduled bursts whose tail a contending burst cut here
    /// (`tail`). Neither counts as a loss: their other packets are delivered.
    pub bursts_head_cut: u64,
    pub bursts_tail_cut: u64,
    /// All losses charged here / bursts_offered.
    pub loss_prob: f64,
    /// Reserved wavelength time / (wavelengths × measured time).
    pub utilisation: f64,
    pub mean_burst_bytes: f64,
}

/// Per-flow view of assembly (one row per flow that crosses an OBS network).
#[derive(Clone, Debug, Serialize)]
pub struct ObsFlowRow {
    pub flow: u32,
    pub name: String,
    /// Bursts that carried at least one of the flow's data packets.
    pub data_bursts: u64,
    pub segments_in_bursts: u64,
    /// yu's `S`: mean data segments of this flow per burst carrying any.
    pub mean_segments_per_burst: f64,
    /// Bursts that carried at least one of the flow's ACKs.
    pub ack_bursts: u64,
    pub acks_in_bursts: u64,
    pub mean_acks_per_burst: f64,
    pub data_bursts_lost: u64,
    pub segments_lost_in_bursts: u64,
    /// data_bursts_lost / data_bursts.
    pub burst_loss_prob: f64,
    pub ack_bursts_lost: u64,
    pub pkts_dropped_queue: u64,
    /// Mean wait of the flow's packets in assembly queues.
    pub mean_assembly_delay_s: f64,
}

/// ECWBA's passive cwnd estimate (ozsarac §2.3) against the sender's true cwnd, one
/// row per flow, sampled at each of the flow's data segments entering its assembly
/// queue after warm-up. Relative error is `|est − true| / max(true, 1)`.
#[derive(Clone, Debug, Serialize)]
pub struct CwndEstRow {
    pub flow: u32,
    pub name: String,
    pub estimator: String,
    pub samples: u64,
    pub mean_true_cwnd_segments: f64,
    pub mean_est_cwnd_segments: f64,
    pub mean_abs_err_segments: f64,
    pub mean_rel_err: f64,
    /// Over the whole run (warm-up included): timeouts and fast recoveries the replica
    /// inferred.
    pub timeouts_detected: u64,
    pub fast_recoveries_detected: u64,
}

/// Histogram of packets per burst: `count` bursts of queue `queue` had between `pkts_lo`
/// and `pkts_hi` packets (inclusive). Only non-empty bins are listed.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BurstHistRow {
    pub queue: u32,
    pub pkts_lo: u64,
    pub pkts_hi: u64,
    pub count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstEvent {
    Formed,
    Lost,
    Delivered,
}

impl BurstEvent {
    pub fn name(self) -> &'static str {
        match self {
            BurstEvent::Formed => "formed",
            BurstEvent::Lost => "lost",
            BurstEvent::Delivered => "delivered",
        }
    }
}

/// One record of the opt-in burst trace (`sim.trace.bursts`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BurstSample {
    pub time: SimTime,
    pub queue: u32,
    /// 0-based index of the burst in its queue (what `obs.drop_burst.bursts` counts).
    pub burst: u64,
    pub event: BurstEvent,
    pub pkts: u32,
    pub bytes: u64,
    /// Loss reason (`lost` only).
    pub reason: Option<BurstLoss>,
    /// Fibre charged with the loss (`lost` only).
    pub fibre: Option<u32>,
}

/// Fixed-size histogram of small positive integers: exact below 128, then 16 bins per
/// power of two. Constant memory whatever the run length.
#[derive(Clone, Debug)]
pub struct SizeHist {
    bins: Vec<u64>,
    n: u64,
    max: u64,
}

impl Default for SizeHist {
    fn default() -> Self {
        SizeHist {
            bins: vec![0; 128 + 16 * 57],
            n: 0,
            max: 0,
        }
    }
}

impl SizeHist {
    fn bin(x: u64) -> usize {
        if x < 128 {
            x as usize
        } else {
            let e = 63 - x.leading_zeros() as usize; // >= 7
            let sub = ((x >> (e - 4)) & 15) as usize;
            128 + (e - 7) * 16 + sub
        }
    }
    /// Inclusive value range of bin `b`.
    fn range(b: usize) -> (u64, u64) {
        if b < 128 {
            (b as u64, b as u64)
        } else {
            let e = (b - 128) / 16 + 7;
            let sub = ((b - 128) % 16) as u64;
            let lo = (16 + sub) << (e - 4);
            (lo, lo + ((1u64 << (e - 4)) - 1))
        }
    }
    pub fn add(&mut self, x: u64) {
        self.bins[Self::bin(x)] += 1;
        self.n += 1;
        self.max = self.max.max(x);
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    /// The `q`-quantile (lower end of its bin, capped at the maximum); 0 if empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let target = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut acc = 0;
        for (b, &c) in self.bins.iter().enumerate() {
            acc += c;
            if acc >= target {
                return Self::range(b).0.min(self.max);
            }
        }
        self.max
    }
    /// Non-empty bins as (lo, hi, count).
    pub fn nonempty(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.bins
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(b, &c)| {
                let (lo, hi) = Self::range(b);
                (lo, hi, c)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_hist_bins_cover_and_quantiles() {
        let mut prev_hi = None;
        for b in 0..(128 + 16 * 57) {
            let (lo, hi) = SizeHist::range(b);
            assert!(lo <= hi);
            assert_eq!(SizeHist::bin(lo), b);
            assert_eq!(SizeHist::bin(hi), b);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1);
            }
            prev_hi = Some(hi);
        }
        let mut h = SizeHist::default();
        for x in 1..=100 {
            h.add(x);
        }
        assert_eq!(h.quantile(0.5), 50);
        assert_eq!(h.quantile(0.99), 99);
        assert_eq!(h.quantile(1.0), 100);
        h.add(1000);
        assert!(h.quantile(1.0) <= 1000 && h.quantile(1.0) >= 960);
    }
}

// ---------------------------------------------------------------------------------------
// The result tables, listed once.

/// One column of a trace table (traces travel as columns: they can be long).
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    Str(Vec<&'static str>),
}

/// A result table as a front end receives it: JSON rows (one object per row; NaN as
/// `null`) or named columns.
#[derive(Clone, Debug, PartialEq)]
pub enum TableData {
    Rows(String),
    Columns(Vec<(&'static str, Column)>),
}

/// One result table of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The table's name: the file stem of its CSV and its key in a front end.
    pub name: &'static str,
    /// Present only in some runs (OBS networks, traces, ECWBA): a front end skips it
    /// when it is empty.
    pub optional: bool,
    pub data: TableData,
}

/// A record of a trace: a row of a table that grows with simulated time. Its columns
/// are defined once here, for the in-memory table ([`RunResult::tables`]) and for the
/// CSV file it is streamed to (`sim.trace.dir`); a new trace kind implements this and
/// both come with it.
pub trait TraceRow: Sized {
    /// The table's name (the file stem of its CSV).
    const TABLE: &'static str;
    /// The scenario setting that turns the trace on (named by the memory estimate).
    const SETTING: &'static str;
    /// `rows` as named columns (with their units in the names).
    fn columns(rows: &[Self]) -> Vec<(&'static str, Column)>;
}

impl TraceRow for CwndSample {
    const TABLE: &'static str = "cwnd_trace";
    const SETTING: &'static str = "sim.trace.cwnd";
    fn columns(cw: &[Self]) -> Vec<(&'static str, Column)> {
        vec![
            ("time_s", Column::F64(col(cw, |s| s.time.as_secs_f64()))),
            ("flow", Column::U64(col(cw, |s| s.flow as u64))),
            ("cwnd_segments", Column::F64(col(cw, |s| s.cwnd))),
            (
                "ssthresh_segments",
                Column::U64(col(cw, |s| s.ssthresh as u64)),
            ),
        ]
    }
}

impl TraceRow for CcSample {
    const TABLE: &'static str = "cc_trace";
    const SETTING: &'static str = "sim.trace.cc";
    fn columns(c: &[Self]) -> Vec<(&'static str, Column)> {
        let f = |g: fn(&crate::tcp::cc::CcTrace) -> f64| Column::F64(col(c, |s| g(&s.state)));
        vec![
            ("time_s", Column::F64(col(c, |s| s.time.as_secs_f64()))),
            ("flow", Column::U64(col(c, |s| s.flow as u64))),
            ("cc", Column::Str(col(c, |s| s.cc))),
            ("cwnd_segments", Column::F64(col(c, |s| s.cwnd))),
            ("cubic_w_max_segments", f(|t| t.w_max_segments)),
            ("cubic_epoch_start_s", f(|t| t.epoch_start_s)),
            ("cubic_k_s", f(|t| t.k_s)),
            ("vegas_base_rtt_s", f(|t| t.base_rtt_s)),
            ("vegas_diff_segments", f(|t| t.vegas_diff_segments)),
            ("bbr_mode", f(|t| t.bbr_mode)),
            ("bbr_pacing_rate_segps", f(|t| t.pacing_rate_sps)),
            ("bbr_btlbw_segps", f(|t| t.btlbw_sps)),
            ("bbr_min_rtt_s", f(|t| t.min_rtt_s)),
        ]
    }
}

impl TraceRow for GoodputSample {
    const TABLE: &'static str = "goodput_trace";
    const SETTING: &'static str = "sim.trace.goodput";
    fn columns(g: &[Self]) -> Vec<(&'static str, Column)> {
        vec![
            ("time_s", Column::F64(col(g, |s| s.time.as_secs_f64()))),
            ("flow", Column::U64(col(g, |s| s.flow as u64))),
            ("delivered_segments", Column::U64(col(g, |s| s.delivered))),
        ]
    }
}

impl TraceRow for PacketSample {
    const TABLE: &'static str = "packet_trace";
    const SETTING: &'static str = "sim.trace.packets";
    fn columns(pk: &[Self]) -> Vec<(&'static str, Column)> {
        vec![
            ("time_s", Column::F64(col(pk, |s| s.time.as_secs_f64()))),
            ("flow", Column::U64(col(pk, |s| s.flow as u64))),
            ("seq", Column::U64(col(pk, |s| s.seq))),
            ("event", Column::Str(col(pk, |s| s.event.name()))),
            ("retransmit", Column::Bool(col(pk, |s| s.retransmit))),
        ]
    }
}

impl TraceRow for BurstSample {
    const TABLE: &'static str = "burst_trace";
    const SETTING: &'static str = "sim.trace.bursts";
    fn columns(bt: &[Self]) -> Vec<(&'static str, Column)> {
        vec![
            ("time_s", Column::F64(col(bt, |s| s.time.as_secs_f64()))),
            ("queue", Column::U64(col(bt, |s| s.queue as u64))),
            ("burst", Column::U64(col(bt, |s| s.burst))),
            ("event", Column::Str(col(bt, |s| s.event.name()))),
            ("pkts", Column::U64(col(bt, |s| s.pkts as u64))),
            ("bytes", Column::U64(col(bt, |s| s.bytes))),
            (
                "reason",
                Column::Str(col(bt, |s| s.reason.map_or("", |x| x.name()))),
            ),
            (
                "fibre",
                Column::I64(col(bt, |s| s.fibre.map_or(-1, |f| f as i64))),
            ),
        ]
    }
}

impl Column {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn rows<T: Serialize>(v: &[T]) -> TableData {
    // Serialising plain structs of numbers and strings cannot fail.
    TableData::Rows(serde_json::to_string(v).unwrap_or_else(|_| "[]".into()))
}

fn col<T, U>(v: &[T], f: impl Fn(&T) -> U) -> Vec<U> {
    v.iter().map(f).collect()
}

impl RunResult {
    /// Every result table of the run, in order. This is the one list of the tables:
    /// the Python binding hands exactly these over, and the Python `Result` exposes
    /// exactly these (`cwnd_trace` as `cwnd`, `packet_trace` as `packets`).
    pub fn tables(&self) -> Vec<Table> {
        let t = |name, optional, data| Table {
            name,
            optional,
            data,
        };
        vec![
            t("flows", false, rows(&self.flows)),
            t("links", false, rows(&self.links)),
            t(
                CwndSample::TABLE,
                true,
                TableData::Columns(CwndSample::columns(&self.cwnd_trace)),
            ),
            t(
                PacketSample::TABLE,
                true,
                TableData::Columns(PacketSample::columns(&self.packet_trace)),
            ),
            t("bursts", true, rows(&self.bursts)),
            t("obs_links", true, rows(&self.obs_links)),
            t("obs_flows", true, rows(&self.obs_flows)),
            t("obs_channels", true, rows(&self.obs_channels)),
            t("burst_hist", true, rows(&self.burst_hist)),
            t("cwnd_estimates", true, rows(&self.cwnd_estimates)),
            t("fct", true, rows(&self.fct)),
            t(
                BurstSample::TABLE,
                true,
                TableData::Columns(BurstSample::columns(&self.burst_trace)),
            ),
            t(
                GoodputSample::TABLE,
                true,
                TableData::Columns(GoodputSample::columns(&self.goodput_trace)),
            ),
            t(
                CcSample::TABLE,
                true,
                TableData::Columns(CcSample::columns(&self.cc_trace)),
            ),
            t("routes", true, rows(&self.routes)),
        ]
    }
}
