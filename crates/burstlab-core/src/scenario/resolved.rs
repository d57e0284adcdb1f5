//! What validation produces: the scenario with names resolved to indices and every
//! default filled in, the input the simulator (`world/`) and the estimates (`memory`,
//! `events`) build from.

use super::spec::{
    AckMode, Classifier, ConverterScope, FdlCapacity, LossAppliesTo, LossScope, NodeKind,
    Preemption, RouteMetric, RoutePolicy, Segmentation, Signalling, TraceSpec,
};
use crate::obs::AssemblerConfig;
use crate::tcp::TcpConfig;
use crate::units::{BitRate, SimTime};
use crate::workload::{Arrivals, Pairs, SelfSimilarParams, SizeDist};

/// A validated scenario with names resolved to indices and defaults filled in.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub name: String,
    pub duration: SimTime,
    /// `sim.max_memory` in bytes.
    pub max_memory: u64,
    /// `sim.max_events`.
    pub max_events: u64,
    pub warmup: SimTime,
    pub seed: u64,
    pub replication: u64,
    pub trace: TraceSpec,
    pub nodes: Vec<(String, NodeKind)>,
    /// One entry per direction.
    pub links: Vec<ResolvedLink>,
    pub flows: Vec<ResolvedFlow>,
    /// One entry per fibre direction.
    pub fibres: Vec<ResolvedFibre>,
    /// OBS settings (defaults filled in); present whenever the scenario has fibres.
    pub obs: Option<ResolvedObs>,
    /// Per node: switch set-up time (OBS nodes; `obs.switch_setup` unless overridden).
    pub node_setup: Vec<SimTime>,
    /// Per node: its own assembly policy (edge nodes with `assembly`).
    pub node_assembly: Vec<Option<AssemblerConfig>>,
    /// Every switching fabric of every OBS node.
    pub fabrics: Vec<ResolvedFabric>,
    /// Per node: indices into `fabrics` (at least one for an OBS node, none otherwise).
    pub node_fabrics: Vec<Vec<u32>>,
    /// The `[[workload]]` tables, in order (`workload.rs`).
    pub workloads: Vec<ResolvedWorkload>,
}

/// A `[[workload]]`, validated: its generators (not yet seeded: the world gives each
/// its substream, `workload::Workload`), its flows' TCP settings, and the routes of
/// every pair it can draw.
#[derive(Debug, Clone)]
pub struct ResolvedWorkload {
    pub name: String,
    pub arrivals: Arrivals,
    pub sizes: SizeDist,
    pub pairs: Pairs,
    /// No arrival at or after this instant.
    pub stop: Option<SimTime>,
    /// At most this many arrivals.
    pub max_flows: Option<u64>,
    pub cfg: TcpConfig,
    /// OBS class of the generated flows.
    pub class: u32,
    /// Metric, k and policy of the generated flows (`index`, `paths` unused).
    pub routing: RouteChoice,
    /// Every pair the workload can draw, in the order first met (src × dst row by row,
    /// the matrix's non-zero entries, or the trace's rows).
    pub routes: Vec<WorkloadPair>,
}

impl ResolvedWorkload {
    /// The arrivals expected in a run of `duration` (its mean for Poisson arrivals: the
    /// rate times the window from `start` to `stop`; a trace's rows in the window),
    /// capped by `max_flows`.
    pub fn expected_arrivals(&self, duration: SimTime) -> f64 {
        let end = self.stop.map_or(duration, |s| s.min(duration));
        let n = match &self.arrivals {
            Arrivals::Trace { rows, .. } => rows.iter().filter(|x| x.start < end).count() as f64,
            Arrivals::Poisson { next, .. } | Arrivals::Fixed { next, .. } => {
                end.saturating_sub(*next).as_secs_f64() * self.arrivals.rate_per_s()
            }
        };
        n.min(self.max_flows.map_or(f64::INFINITY, |m| m as f64))
    }

    /// The mean size of a flow in segments (`ceil(size / mss)`, at most one more than
    /// the mean size over mss).
    pub fn mean_segments(&self) -> f64 {
        let mss = self.cfg.mss.max(1) as f64;
        match &self.arrivals {
            Arrivals::Trace { rows, .. } => {
                rows.iter()
                    .map(|x| (x.size as f64 / mss).ceil())
                    .sum::<f64>()
                    / rows.len().max(1) as f64
            }
            _ => self.sizes.mean() / mss + 1.0,
        }
    }
}

/// A pair a workload can draw and its paths (forward, reverse), least cost first; path
/// `j` returns on the reverse's path `min(j, reverse paths − 1)`.
#[derive(Debug, Clone)]
pub struct WorkloadPair {
    pub src: u32,
    pub dst: u32,
    pub paths: Vec<(Vec<u32>, Vec<u32>)>,
}

#[derive(Debug, Clone)]
pub struct ResolvedFabric {
    pub node: u32,
    pub name: String,
    /// `false` for the implicit `default` fabric of a node without `[[node.fabric]]`.
    pub declared: bool,
    pub setup: SimTime,
    pub bcp_processing: SimTime,
    pub rate: Option<BitRate>,
    pub signalling: Signalling,
    pub scheduler: crate::obs::SchedulerKind,
    pub conversion: bool,
}

#[derive(Debug, Clone)]
pub struct ResolvedFibre {
    pub from: u32,
    pub to: u32,
    pub rate: BitRate,
    pub delay: SimTime,
    /// `length_km` of its `[[fibre]]` entry, if given (the `km` routing metric).
    pub length_km: Option<f64>,
    pub wavelengths: u32,
    /// Per-burst loss probability of this direction (`per_link` scope).
    pub loss: f64,
    /// Index of the `[[fibre]]` entry it came from.
    pub spec_index: usize,
    /// Fabrics (indices into `Resolved::fabrics`) at the `from` and `to` ends.
    pub fabric_a: u32,
    pub fabric_b: u32,
}

#[derive(Debug, Clone)]
pub struct ResolvedClass {
    pub name: String,
    pub assembly: Option<AssemblerConfig>,
    pub extra_offset: SimTime,
    /// Path policy: the fabric this class's bursts use.
    pub fabric: Option<String>,
    /// Fixed offset of this class (wins over `ResolvedObs::offset`).
    pub offset: Option<SimTime>,
    /// `obs.class[i].priority` (0 if unset).
    pub priority: u32,
}

#[derive(Debug, Clone)]
pub struct ResolvedObs {
    pub assembly: AssemblerConfig,
    pub classifier: Classifier,
    pub ack_mode: AckMode,
    pub scheduler: crate::obs::SchedulerKind,
    pub conversion: bool,
    pub signalling: Signalling,
    pub bcp_processing: SimTime,
    pub switch_setup: SimTime,
    pub extra_offset: SimTime,
    pub offset: Option<SimTime>,
    /// Fixed offsets shorter than their path needs are errors (`obs.safe_offset`).
    pub safe_offset: bool,
    pub max_pkts_per_burst: u32,
    pub queue_limit: Option<u64>,
    pub loss_p: f64,
    pub loss_scope: LossScope,
    pub loss_applies_to: LossAppliesTo,
    /// (edge node, queue key, sorted burst indices), in spec order.
    pub drop_bursts: Vec<(u32, String, Vec<u64>)>,
    pub classes: Vec<ResolvedClass>,
    /// `obs.ingress`: the ingress electronic buffer (`None`: bufferless ingress).
    pub ingress: Option<ResolvedIngress>,
    /// `obs.control.loss` (0: no control-packet loss).
    pub control_loss: f64,
    /// `[obs.contention]` (all off when absent).
    pub contention: ResolvedContention,
    /// `obs.retransmit`: (max, hold).
    pub retransmit: Option<(u32, SimTime)>,
    /// `obs.control.rate` and `bcp_size`: the control channel's serialisation time of
    /// one BCP (`None`: no control-channel queueing).
    pub control_tx: Option<SimTime>,
}

/// `obs.ingress`, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedIngress {
    pub max_wait: SimTime,
    pub max_bursts: Option<u64>,
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct ResolvedLink {
    pub from: u32,
    pub to: u32,
    pub rate: BitRate,
    pub delay: SimTime,
    pub queue_pkts: Option<u64>,
    pub queue_bytes: Option<u64>,
    pub loss: f64,
    /// Index of the `[[link]]` entry it came from.
    pub spec_index: usize,
}

#[derive(Debug, Clone)]
pub struct ResolvedFlow {
    pub name: String,
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// Node sequences, src..dst and dst..src.
    pub route: Vec<u32>,
    pub reverse_route: Vec<u32>,
    pub kind: ResolvedFlowKind,
    /// OBS class (`per_class` classifier).
    pub class: u32,
    /// The flow's own assembly policy (`per_flow` classifier).
    pub assembly: Option<AssemblerConfig>,
    /// How `route` was chosen (the `routes` result table).
    pub routing: RouteChoice,
}

/// How a flow's route was chosen (`[routing]` and the flow's `routing`, resolved).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RouteChoice {
    pub metric: RouteMetric,
    /// Paths kept per pair (`routing.k`).
    pub k: u32,
    pub policy: RoutePolicy,
    /// Index of `route` among the pair's paths (0 = the least); `None` when the route
    /// was given explicitly.
    pub index: Option<u32>,
    /// Paths found for the pair (at most `k`; 0 when the route was explicit).
    pub paths: u32,
}

#[derive(Debug, Clone)]
pub enum ResolvedFlowKind {
    Tcp {
        cfg: TcpConfig,
        segments: Option<u64>,
        drop_segments: Vec<(u64, u64)>,
    },
    Cbr {
        rate: BitRate,
        packet_size: u32,
    },
    OnOff {
        rate: BitRate,
        packet_size: u32,
        mean_on: SimTime,
        mean_off: SimTime,
    },
    /// Mean `rate`, exponential gaps, exponential sizes of mean `packet_size`.
    Poisson {
        rate: BitRate,
        packet_size: u32,
    },
    /// `self_similar` (`single`: `pareto_onoff`): `params.sources` Pareto on/off
    /// sources, each sending `packet_size` bytes every `params.gap` (at `rate`) while
    /// on (`workload/onoff.rs`).
    SelfSimilar {
        rate: BitRate,
        packet_size: u32,
        params: SelfSimilarParams,
        single: bool,
    },
}

impl ResolvedFlowKind {
    /// A UDP source's long-run mean rate in bit/s and its (mean) packet size; None for
    /// TCP. On-off sources count their duty cycle.
    pub fn udp_mean(&self) -> Option<(f64, u32)> {
        match self {
            ResolvedFlowKind::Tcp { .. } => None,
            ResolvedFlowKind::Cbr { rate, packet_size }
            | ResolvedFlowKind::Poisson { rate, packet_size } => {
                Some((rate.bps() as f64, *packet_size))
            }
            ResolvedFlowKind::OnOff {
                rate,
                packet_size,
                mean_on,
                mean_off,
            } => {
                let (on, off) = (mean_on.as_secs_f64(), mean_off.as_secs_f64());
                let duty = if on + off > 0.0 { on / (on + off) } else { 1.0 };
                Some((rate.bps() as f64 * duty, *packet_size))
            }
            ResolvedFlowKind::SelfSimilar {
                packet_size,
                params,
                ..
            } => Some((params.mean_pps() * *packet_size as f64 * 8.0, *packet_size)),
        }
    }
}

/// Resolved `[obs.contention]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResolvedContention {
    pub fdl: Vec<SimTime>,
    pub fdl_capacity: FdlCapacity,
    /// 0 = no converter pool.
    pub converters: u32,
    pub converter_scope: ConverterScope,
    pub segmentation: Option<Segmentation>,
    pub preemption: Preemption,
    pub per_wavelength: bool,
    /// Deflection table: (node, neighbours in the order tried); empty = off.
    pub deflection: Vec<(u32, Vec<u32>)>,
    /// Deflections allowed per burst (0 when deflection is off).
    pub max_deflections: u32,
    /// Added to every burst's offset at its ingress.
    pub deflection_offset: SimTime,
}
