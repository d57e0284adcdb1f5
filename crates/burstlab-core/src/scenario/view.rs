//! The resolved scenario as plain data ([`ScenarioView`], built by [`Resolved::view`]),
//! for what works from the scenario outside the simulator: the exporters to ns-2 and
//! nOBS, tools, the Python side (`burstlab._core.resolve_scenario` returns it as
//! JSON). It holds what [`ScenarioSpec::resolve`](super::ScenarioSpec::resolve)
//! computes, every default applied and every route found, so that nothing outside the
//! core computes a default or a route a second time.
//!
//! Conventions: nodes are named (not numbered); durations are seconds (`*_s`, floats of
//! the picosecond clock), rates bits per second (`*_bps`), sizes bytes; an absent
//! optional setting is `null`. An assembly policy is written as the scenario's own
//! `assembly` table ([`AssemblyView`]), so it can be pasted back into a scenario.

use super::resolved::{Resolved, ResolvedFlow, ResolvedFlowKind, ResolvedObs};
use super::spec::{
    AckMode, Classifier, ConverterScope, FdlCapacity, LossAppliesTo, LossScope, NodeKind,
    Preemption, Segmentation, Signalling,
};
use crate::obs::{AckRatioBase, AssemblerConfig, SchedulerKind, WindowSource};
use crate::tcp::{Profile, TcpConfig};
use crate::units::SimTime;
use serde::Serialize;

/// The whole resolved scenario.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioView {
    /// `name` (default `"scenario"`).
    pub name: String,
    pub duration_s: f64,
    /// `sim.warmup` (0 by default).
    pub warmup_s: f64,
    /// The seed and replication the run uses (overrides applied).
    pub seed: u64,
    pub replication: u64,
    /// `sim.max_memory` in bytes and `sim.max_events`, defaults applied.
    pub max_memory: u64,
    pub max_events: u64,
    /// In `[[node]]` order.
    pub nodes: Vec<NodeView>,
    /// One entry per direction of each `[[link]]`.
    pub links: Vec<LinkView>,
    /// One entry per direction of each `[[fibre]]`.
    pub fibres: Vec<FibreView>,
    /// The `[obs]` settings with their defaults; `null` without fibres or `[obs]`.
    pub obs: Option<ObsView>,
    /// In `[[flow]]` order.
    pub flows: Vec<FlowView>,
}

/// One node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeView {
    pub name: String,
    /// `host`, `router`, `edge` or `core`.
    pub kind: &'static str,
    /// Edge and core nodes: the switch set-up time (`node.switch_setup`, else
    /// `obs.switch_setup`, else 5 µs); `null` for hosts and routers.
    pub switch_setup_s: Option<f64>,
    /// Edge nodes: the node's own `assembly` (`null`: it uses `obs.assembly` where no
    /// flow or class sets one; see [`FlowView::obs_segments`]).
    pub assembly: Option<AssemblyView>,
    /// Edge and core nodes: their switching fabrics (one named `default` when none is
    /// declared); empty for hosts and routers.
    pub fabrics: Vec<FabricView>,
}

/// One switching fabric of an OBS node, the `[obs]` values filled in.
#[derive(Debug, Clone, Serialize)]
pub struct FabricView {
    pub name: String,
    /// `false` for the implicit `default` fabric.
    pub declared: bool,
    pub setup_s: f64,
    pub bcp_processing_s: f64,
    /// The line rate of fibres that give none (`null`: each fibre gives its own).
    pub rate_bps: Option<u64>,
    /// `jet` or `jit`.
    pub signalling: &'static str,
    /// `ffuc`, `lauc` or `laucvf`.
    pub scheduler: &'static str,
    pub conversion: bool,
}

/// One direction of a `[[link]]`.
#[derive(Debug, Clone, Serialize)]
pub struct LinkView {
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Drop-tail limits (`null`: unlimited).
    pub queue_pkts: Option<u64>,
    pub queue_bytes: Option<u64>,
    /// Per-packet loss probability of this direction.
    pub loss: f64,
    /// Index of the `[[link]]` entry.
    pub spec_index: usize,
}

/// One direction of a `[[fibre]]`.
#[derive(Debug, Clone, Serialize)]
pub struct FibreView {
    pub from: String,
    pub to: String,
    /// Per data wavelength (the fibre's `rate`, else its sending fabric's).
    pub rate_bps: u64,
    /// `delay`, or `length_km` × 5 µs.
    pub delay_s: f64,
    pub wavelengths: u32,
    /// Per-burst loss probability of this direction (`per_link` scope).
    pub loss: f64,
    /// Index of the `[[fibre]]` entry.
    pub spec_index: usize,
    /// The fabrics at the `from` and `to` ends.
    pub fabric_from: String,
    pub fabric_to: String,
}

/// An assembly policy as a scenario `assembly` table: `type` and the keys of that type,
/// durations in seconds, sizes in bytes. CWBA-like policies are all `type = "cwba"`
/// with their `window` source (`reno_fsm` for ECWBA, `mark` for MCWBA) and `tmax`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssemblyView {
    /// `timer`, `length`, `hybrid`, `cwba` or `python`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tb: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_pkts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmax: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lmax: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lmin: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<&'static str>,
    /// ACK-ratio assembly (zhou §3) over the type's trigger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_ratio_max: Option<f64>,
    /// `python` (`obs/external.rs`): the object, `module:Class`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `python`: its `params` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<serde_json::Value>,
}

/// `[obs]` with its defaults.
#[derive(Debug, Clone, Serialize)]
pub struct ObsView {
    /// `obs.assembly` (default: timer, `tb` = 1 ms, no jitter).
    pub assembly: AssemblyView,
    /// `per_flow`, `per_egress` or `per_class`.
    pub classifier: &'static str,
    /// `assemble` or `bypass`.
    pub ack_mode: &'static str,
    pub scheduler: &'static str,
    pub conversion: bool,
    pub signalling: &'static str,
    /// δ (default 10 µs) and the switch set-up time (default 5 µs).
    pub bcp_processing_s: f64,
    pub switch_setup_s: f64,
    pub extra_offset_s: f64,
    /// A fixed offset replacing the computed one (`null`: computed per path).
    pub offset_s: Option<f64>,
    pub safe_offset: bool,
    /// `null`: no cap.
    pub max_pkts_per_burst: Option<u32>,
    pub queue_limit: Option<u64>,
    /// `obs.loss`: `p`, `scope` (`per_link` | `per_path`), `applies_to` (`data` | `all`).
    pub loss_p: f64,
    pub loss_scope: &'static str,
    pub loss_applies_to: &'static str,
    pub drop_bursts: Vec<DropBurstView>,
    /// `obs.class` as given (empty when none is: every flow is then in class 0, which
    /// has no settings of its own).
    pub classes: Vec<ClassView>,
    pub ingress: Option<IngressView>,
    /// `obs.control.loss` (0: none).
    pub control_loss: f64,
    /// One BCP's serialisation time on the control channel (`null`: no queueing).
    pub control_tx_s: Option<f64>,
    pub retransmit: Option<RetransmitView>,
    pub contention: ContentionView,
}

#[derive(Debug, Clone, Serialize)]
pub struct DropBurstView {
    pub edge: String,
    pub queue: String,
    /// Sorted, without repeats.
    pub bursts: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassView {
    /// Default `class<i>`.
    pub name: String,
    pub assembly: Option<AssemblyView>,
    pub extra_offset_s: f64,
    pub fabric: Option<String>,
    pub offset_s: Option<f64>,
    pub priority: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct IngressView {
    pub max_wait_s: f64,
    pub max_bursts: Option<u64>,
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RetransmitView {
    pub max: u32,
    pub hold_s: f64,
}

/// `[obs.contention]`, all off by default.
#[derive(Debug, Clone, Serialize)]
pub struct ContentionView {
    pub fdl_s: Vec<f64>,
    /// `one` or `many`.
    pub fdl_capacity: &'static str,
    /// 0: no converter pool.
    pub converters: u32,
    /// `node` or `fibre`.
    pub converter_scope: &'static str,
    /// `head`, `tail` or `null`.
    pub segmentation: Option<&'static str>,
    /// `none`, `full` or `segment`.
    pub preemption: &'static str,
    pub per_wavelength: bool,
    pub deflection: Vec<DeflectionView>,
    pub max_deflections: u32,
    pub deflection_offset_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeflectionView {
    pub node: String,
    /// The neighbours tried, in order.
    pub via: Vec<String>,
}

/// One flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowView {
    /// `name` (default `flow<i>`).
    pub name: String,
    /// `tcp`, `cbr`, `onoff` or `poisson`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    pub start_s: f64,
    /// `null`: until the end of the run.
    pub stop_s: Option<f64>,
    /// The routes the core uses (given, or fewest hops), as node names.
    pub route: Vec<String>,
    pub reverse_route: Vec<String>,
    /// `class` (default 0).
    pub class: u32,
    /// The flow's own `assembly` (`per_flow` classifier).
    pub assembly: Option<AssemblyView>,
    /// Each crossing of the OBS network by `route`, then by `reverse_route`, with the
    /// assembly policy of its queue at the ingress.
    pub obs_segments: Vec<SegmentView>,
    /// TCP flows: the sender's settings, profile and ns-2 preset applied.
    pub tcp: Option<TcpView>,
    /// TCP flows: `segments` (`null`: infinite) and `drop_segments` as sorted
    /// `[first, last]` ranges.
    pub segments: Option<u64>,
    pub drop_segments: Vec<[u64; 2]>,
    /// UDP flows: `rate` and `packet_size` (mean size for `poisson`).
    pub rate_bps: Option<u64>,
    pub packet_size: Option<u32>,
    /// On-off flows: mean on and off periods.
    pub mean_on_s: Option<f64>,
    pub mean_off_s: Option<f64>,
    /// `pareto_onoff`, `self_similar`: the periods' Pareto shape, the sources
    /// superposed and the Hurst parameter of their limit (null for a shape of 2 or
    /// more, which is not long-range dependent).
    pub alpha: Option<f64>,
    pub sources: Option<u32>,
    pub hurst: Option<f64>,
}

/// One crossing of the OBS network by a route: from `ingress` to `egress` (edge
/// nodes) along `path`.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentView {
    /// `forward` (the flow's route) or `reverse`.
    pub direction: &'static str,
    pub ingress: String,
    pub egress: String,
    /// The nodes from `ingress` to `egress`.
    pub path: Vec<String>,
    /// The policy of the flow's queue at `ingress`.
    pub assembly: AssemblyView,
    /// The key it comes from: `flow[i].assembly`, `obs.class[c].assembly`,
    /// `node[n].assembly` or `obs.assembly`.
    pub assembly_from: String,
}

/// A TCP sender's settings (`tcp::TcpConfig`), keys as in a `[[flow]]`.
#[derive(Debug, Clone, Serialize)]
pub struct TcpView {
    pub variant: &'static str,
    pub cc: &'static str,
    pub recovery: &'static str,
    pub cubic_ssthresh: &'static str,
    /// `ns2` or `rfc`.
    pub profile: &'static str,
    pub mss: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub wm: u32,
    pub init_cwnd: u32,
    /// `u32::MAX` (4294967295): unbounded.
    pub init_ssthresh: u32,
    pub dupack_thresh: u32,
    /// Segments per ACK, 1 or 2.
    pub b: u32,
    pub delack_timeout_s: f64,
    pub min_rto_s: f64,
    pub max_rto_s: f64,
    pub init_rto_s: f64,
    pub clock_granularity_s: f64,
    pub max_backoff: u32,
    pub sack_blocks: u8,
    pub syn: bool,
    pub limited_transmit: bool,
    pub precision_reduce: bool,
    pub bug_fix: bool,
    pub newreno_changes1: bool,
    pub partial_window_deflation: bool,
    pub sack_partial_ack: bool,
    pub clock_phase_s: Option<f64>,
}

fn s(t: SimTime) -> f64 {
    t.as_secs_f64()
}

impl Resolved {
    /// This scenario as plain data (see [`ScenarioView`]).
    pub fn view(&self) -> ScenarioView {
        let name = |i: u32| self.nodes[i as usize].0.clone();
        let names = |r: &[u32]| r.iter().map(|&i| name(i)).collect::<Vec<_>>();
        let fabric = |i: u32| self.fabrics[i as usize].name.clone();
        ScenarioView {
            name: self.name.clone(),
            duration_s: s(self.duration),
            warmup_s: s(self.warmup),
            seed: self.seed,
            replication: self.replication,
            max_memory: self.max_memory,
            max_events: self.max_events,
            nodes: (0..self.nodes.len()).map(|i| self.node_view(i)).collect(),
            links: self
                .links
                .iter()
                .map(|l| LinkView {
                    from: name(l.from),
                    to: name(l.to),
                    rate_bps: l.rate.bps(),
                    delay_s: s(l.delay),
                    queue_pkts: l.queue_pkts,
                    queue_bytes: l.queue_bytes,
                    loss: l.loss,
                    spec_index: l.spec_index,
                })
                .collect(),
            fibres: self
                .fibres
                .iter()
                .map(|f| FibreView {
                    from: name(f.from),
                    to: name(f.to),
                    rate_bps: f.rate.bps(),
                    delay_s: s(f.delay),
                    wavelengths: f.wavelengths,
                    loss: f.loss,
                    spec_index: f.spec_index,
                    fabric_from: fabric(f.fabric_a),
                    fabric_to: fabric(f.fabric_b),
                })
                .collect(),
            obs: self.obs.as_ref().map(|o| obs_view(o, &name)),
            flows: self
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| self.flow_view(i, f, &names))
                .collect(),
        }
    }

    fn node_view(&self, i: usize) -> NodeView {
        let (name, kind) = &self.nodes[i];
        NodeView {
            name: name.clone(),
            kind: match kind {
                NodeKind::Host => "host",
                NodeKind::Router => "router",
                NodeKind::Edge => "edge",
                NodeKind::Core => "core",
            },
            switch_setup_s: kind.is_obs().then(|| s(self.node_setup[i])),
            assembly: self.node_assembly[i].as_ref().map(assembly_view),
            fabrics: self.node_fabrics[i]
                .iter()
                .map(|&x| {
                    let f = &self.fabrics[x as usize];
                    FabricView {
                        name: f.name.clone(),
                        declared: f.declared,
                        setup_s: s(f.setup),
                        bcp_processing_s: s(f.bcp_processing),
                        rate_bps: f.rate.map(|r| r.bps()),
                        signalling: signalling(f.signalling),
                        scheduler: scheduler(f.scheduler),
                        conversion: f.conversion,
                    }
                })
                .collect(),
        }
    }

    fn flow_view(
        &self,
        i: usize,
        f: &ResolvedFlow,
        names: &dyn Fn(&[u32]) -> Vec<String>,
    ) -> FlowView {
        let mut v = FlowView {
            name: f.name.clone(),
            kind: "tcp",
            src: self.nodes[f.src as usize].0.clone(),
            dst: self.nodes[f.dst as usize].0.clone(),
            start_s: s(f.start),
            stop_s: f.stop.map(s),
            route: names(&f.route),
            reverse_route: names(&f.reverse_route),
            class: f.class,
            assembly: f.assembly.as_ref().map(assembly_view),
            obs_segments: Vec::new(),
            tcp: None,
            segments: None,
            drop_segments: Vec::new(),
            rate_bps: None,
            packet_size: None,
            mean_on_s: None,
            mean_off_s: None,
            alpha: None,
            sources: None,
            hurst: None,
        };
        for (direction, route) in [("forward", &f.route), ("reverse", &f.reverse_route)] {
            for (a, b) in self.obs_segments(route) {
                let Some((cfg, from)) = self.assembly_at(i, route[a]) else {
                    continue;
                };
                v.obs_segments.push(SegmentView {
                    direction,
                    ingress: self.nodes[route[a] as usize].0.clone(),
                    egress: self.nodes[route[b] as usize].0.clone(),
                    path: names(&route[a..=b]),
                    assembly: assembly_view(&cfg),
                    assembly_from: from,
                });
            }
        }
        match &f.kind {
            ResolvedFlowKind::Tcp {
                cfg,
                segments,
                drop_segments,
            } => {
                v.tcp = Some(tcp_view(cfg));
                v.segments = *segments;
                v.drop_segments = drop_segments.iter().map(|&(a, b)| [a, b]).collect();
            }
            ResolvedFlowKind::Cbr { rate, packet_size } => {
                (v.kind, v.rate_bps, v.packet_size) = ("cbr", Some(rate.bps()), Some(*packet_size));
            }
            ResolvedFlowKind::Poisson { rate, packet_size } => {
                (v.kind, v.rate_bps) = ("poisson", Some(rate.bps()));
                v.packet_size = Some(*packet_size);
            }
            ResolvedFlowKind::OnOff {
                rate,
                packet_size,
                mean_on,
                mean_off,
            } => {
                (v.kind, v.rate_bps) = ("onoff", Some(rate.bps()));
                v.packet_size = Some(*packet_size);
                (v.mean_on_s, v.mean_off_s) = (Some(s(*mean_on)), Some(s(*mean_off)));
            }
            ResolvedFlowKind::SelfSimilar {
                rate,
                packet_size,
                params,
                single,
            } => {
                v.kind = if *single {
                    "pareto_onoff"
                } else {
                    "self_similar"
                };
                (v.rate_bps, v.packet_size) = (Some(rate.bps()), Some(*packet_size));
                (v.mean_on_s, v.mean_off_s) = (Some(params.mean_on_s), Some(params.mean_off_s));
                (v.alpha, v.sources, v.hurst) =
                    (Some(params.alpha), Some(params.sources), params.hurst());
            }
        }
        v
    }

    /// The runs of consecutive OBS nodes of `route`, as (first, last) positions: each
    /// enters the OBS network at an edge node and leaves it at one (validation checks
    /// it).
    pub fn obs_segments(&self, route: &[u32]) -> Vec<(usize, usize)> {
        let obs = |k: usize| self.nodes[route[k] as usize].1.is_obs();
        let mut out = Vec::new();
        let mut k = 0;
        while k + 1 < route.len() {
            if obs(k) && obs(k + 1) {
                let start = k;
                while k + 1 < route.len() && obs(k + 1) {
                    k += 1;
                }
                out.push((start, k));
            } else {
                k += 1;
            }
        }
        out
    }

    /// The assembly policy of flow `flow`'s queue at ingress edge `ingress`, and the
    /// key it comes from. Precedence: under `per_flow` the flow's own `assembly`, then
    /// its class's; under `per_class` its class's; then the ingress node's own, then
    /// `obs.assembly` (the rule `world/wiring.rs` applies when it builds the queues).
    /// `None` without `[obs]` (no route then crosses an OBS network).
    pub fn assembly_at(&self, flow: usize, ingress: u32) -> Option<(AssemblerConfig, String)> {
        let o = self.obs.as_ref()?;
        let f = &self.flows[flow];
        let class = o
            .classes
            .get(f.class as usize)
            .and_then(|c| c.assembly.clone());
        let own = match o.classifier {
            Classifier::PerFlow => f
                .assembly
                .clone()
                .map(|a| (a, format!("flow[{flow}].assembly")))
                .or(class.map(|a| (a, format!("obs.class[{}].assembly", f.class)))),
            Classifier::PerClass => class.map(|a| (a, format!("obs.class[{}].assembly", f.class))),
            Classifier::PerEgress => None,
        };
        let node = self.node_assembly[ingress as usize].clone();
        let node = node.map(|a| (a, format!("node[{ingress}].assembly")));
        Some(
            own.or(node)
                .unwrap_or((o.assembly.clone(), "obs.assembly".into())),
        )
    }
}

fn obs_view(o: &ResolvedObs, name: &dyn Fn(u32) -> String) -> ObsView {
    let c = &o.contention;
    ObsView {
        assembly: assembly_view(&o.assembly),
        classifier: match o.classifier {
            Classifier::PerFlow => "per_flow",
            Classifier::PerEgress => "per_egress",
            Classifier::PerClass => "per_class",
        },
        ack_mode: match o.ack_mode {
            AckMode::Assemble => "assemble",
            AckMode::Bypass => "bypass",
        },
        scheduler: scheduler(o.scheduler),
        conversion: o.conversion,
        signalling: signalling(o.signalling),
        bcp_processing_s: s(o.bcp_processing),
        switch_setup_s: s(o.switch_setup),
        extra_offset_s: s(o.extra_offset),
        offset_s: o.offset.map(s),
        safe_offset: o.safe_offset,
        max_pkts_per_burst: (o.max_pkts_per_burst != u32::MAX).then_some(o.max_pkts_per_burst),
        queue_limit: o.queue_limit,
        loss_p: o.loss_p,
        loss_scope: match o.loss_scope {
            LossScope::PerLink => "per_link",
            LossScope::PerPath => "per_path",
        },
        loss_applies_to: match o.loss_applies_to {
            LossAppliesTo::Data => "data",
            LossAppliesTo::All => "all",
        },
        drop_bursts: o
            .drop_bursts
            .iter()
            .map(|(n, q, b)| DropBurstView {
                edge: name(*n),
                queue: q.clone(),
                bursts: b.clone(),
            })
            .collect(),
        classes: o
            .classes
            .iter()
            .map(|c| ClassView {
                name: c.name.clone(),
                assembly: c.assembly.as_ref().map(assembly_view),
                extra_offset_s: s(c.extra_offset),
                fabric: c.fabric.clone(),
                offset_s: c.offset.map(s),
                priority: c.priority,
            })
            .collect(),
        ingress: o.ingress.map(|g| IngressView {
            max_wait_s: s(g.max_wait),
            max_bursts: g.max_bursts,
            max_bytes: g.max_bytes,
        }),
        control_loss: o.control_loss,
        control_tx_s: o.control_tx.map(s),
        retransmit: o.retransmit.map(|(max, hold)| RetransmitView {
            max,
            hold_s: s(hold),
        }),
        contention: ContentionView {
            fdl_s: c.fdl.iter().map(|&d| s(d)).collect(),
            fdl_capacity: match c.fdl_capacity {
                FdlCapacity::One => "one",
                FdlCapacity::Many => "many",
            },
            converters: c.converters,
            converter_scope: match c.converter_scope {
                ConverterScope::Node => "node",
                ConverterScope::Fibre => "fibre",
            },
            segmentation: c.segmentation.map(|x| match x {
                Segmentation::Head => "head",
                Segmentation::Tail => "tail",
            }),
            preemption: match c.preemption {
                Preemption::None => "none",
                Preemption::Full => "full",
                Preemption::Segment => "segment",
            },
            per_wavelength: c.per_wavelength,
            deflection: c
                .deflection
                .iter()
                .map(|(n, via)| DeflectionView {
                    node: name(*n),
                    via: via.iter().map(|&v| name(v)).collect(),
                })
                .collect(),
            max_deflections: c.max_deflections,
            deflection_offset_s: s(c.deflection_offset),
        },
    }
}

/// An [`AssemblerConfig`] as a scenario `assembly` table.
pub fn assembly_view(c: &AssemblerConfig) -> AssemblyView {
    let mut v = AssemblyView {
        kind: "timer",
        tb: None,
        jitter: None,
        max_bytes: None,
        max_pkts: None,
        tmax: None,
        lmax: None,
        lmin: None,
        window: None,
        ack_ratio_max: None,
        object: None,
        params: None,
    };
    match *c {
        AssemblerConfig::External(ref x) => {
            v.kind = "python";
            v.object = Some(x.object.clone());
            v.params = serde_json::from_str(&x.params_json).ok();
        }
        AssemblerConfig::Timer { tb, jitter_sd_frac } => {
            (v.tb, v.jitter) = (Some(s(tb)), Some(jitter_sd_frac));
        }
        AssemblerConfig::Length {
            max_bytes,
            max_pkts,
        } => (v.kind, v.max_bytes, v.max_pkts) = ("length", max_bytes, max_pkts),
        AssemblerConfig::Hybrid {
            tmax,
            lmax_bytes,
            lmin_bytes,
        } => {
            (v.kind, v.tmax) = ("hybrid", Some(s(tmax)));
            (v.lmax, v.lmin) = (Some(lmax_bytes), lmin_bytes);
        }
        AssemblerConfig::Window { window, tmax } => {
            v.kind = "cwba";
            v.window = Some(match window {
                WindowSource::Mark => "mark",
                WindowSource::Oracle => "oracle",
                WindowSource::Estimator => "estimator",
                WindowSource::RenoFsm => "reno_fsm",
            });
            v.tmax = tmax.map(s);
        }
        AssemblerConfig::AckRatio { base, r_max } => {
            let mut b = assembly_view(&AckRatioBase::config(base));
            b.ack_ratio_max = Some(r_max);
            return b;
        }
    }
    v
}

fn signalling(x: Signalling) -> &'static str {
    match x {
        Signalling::Jet => "jet",
        Signalling::Jit => "jit",
    }
}

fn scheduler(x: SchedulerKind) -> &'static str {
    match x {
        SchedulerKind::Ffuc => "ffuc",
        SchedulerKind::Lauc => "lauc",
        SchedulerKind::LaucVf => "laucvf",
    }
}

fn tcp_view(c: &TcpConfig) -> TcpView {
    TcpView {
        variant: c.variant.name(),
        cc: c.cc.name(),
        recovery: c.recovery.name(),
        cubic_ssthresh: c.cubic_ssthresh.name(),
        profile: match c.profile {
            Profile::Ns2 => "ns2",
            Profile::Rfc => "rfc",
        },
        mss: c.mss,
        header_bytes: c.header_bytes,
        ack_bytes: c.ack_bytes,
        wm: c.wm,
        init_cwnd: c.init_cwnd,
        init_ssthresh: c.init_ssthresh,
        dupack_thresh: c.dupack_thresh,
        b: if c.delayed_ack { 2 } else { 1 },
        delack_timeout_s: s(c.delack_timeout),
        min_rto_s: s(c.min_rto),
        max_rto_s: s(c.max_rto),
        init_rto_s: s(c.init_rto),
        clock_granularity_s: s(c.clock_granularity),
        max_backoff: c.max_backoff,
        sack_blocks: c.sack_blocks,
        syn: c.syn,
        limited_transmit: c.limited_transmit,
        precision_reduce: c.precision_reduce,
        bug_fix: c.bug_fix,
        newreno_changes1: c.newreno_changes1,
        partial_window_deflation: c.partial_window_deflation,
        sack_partial_ack: c.sack_partial_ack,
        clock_phase_s: c.clock_phase,
    }
}
