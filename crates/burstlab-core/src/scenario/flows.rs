//! The `[[flow]]` entries: end points, times, routes, the traffic source (TCP settings
//! in `tcp.rs`; UDP rate and sizes here) and the flow's OBS class and assembly policy.

use super::error::{e, ScenarioError};
use super::quantity::Size;
use super::resolved::RouteChoice;
use super::resolved::{ResolvedFibre, ResolvedFlow, ResolvedFlowKind, ResolvedLink, ResolvedObs};
use super::route_plan::{Planner, Settings};
use super::routing::{explicit_route, Names};
use super::spec::{
    Classifier, FlowSpec, FlowType, NodeKind, RoutePolicy, ScenarioSpec, MAX_PKTS_PER_SEC,
};
use super::tcp::tcp_config;
use crate::obs::AssemblerConfig;
use crate::units::SimTime;
use crate::workload::{alpha_for_hurst, SelfSimilarParams};

impl ScenarioSpec {
    /// Resolves every flow, in `[[flow]]` order; `adj` is the network's adjacency
    /// (`routing::adjacency`) of `links` and `fibres`, `obs` the resolved `[obs]`
    /// section if any, `run` the (seed, replication) of the `routing` substream.
    pub(super) fn resolve_flows(
        &self,
        names: &Names,
        (adj, links, fibres): (&[Vec<u32>], &[ResolvedLink], &[ResolvedFibre]),
        obs: Option<&ResolvedObs>,
        max_pkts_per_burst: u32,
        run: (u64, u64),
    ) -> Result<Vec<ResolvedFlow>, ScenarioError> {
        let classifier = self.obs.as_ref().map(|o| o.classifier);
        let global = Settings::merge(Settings::DEFAULT, self.routing.as_ref(), "routing")?;
        let least_loaded = global.policy == RoutePolicy::LeastLoaded
            || self.flows.iter().any(|f| {
                f.routing.as_ref().and_then(|r| r.policy) == Some(RoutePolicy::LeastLoaded)
            });
        let mut planner = Planner::new(adj, links, fibres, run, least_loaded);
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let fld = |s: &str| format!("flow[{i}].{s}");
            if let Some(m) = f.misplaced() {
                return Err(e(
                    fld(m),
                    format!("does not apply to a flow of type \"{}\"", f.kind.name()),
                ));
            }
            let (s, d) = endpoints(f, names, &fld)?;
            let (start, stop) = times(f, &fld)?;
            let (route, reverse_route, routing) =
                routes(f, (s, d), names, adj, &mut planner, global, &fld)?;
            let kind = flow_kind(f, &fld)?;
            for (r, rf) in [(&route, "route"), (&reverse_route, "reverse_route")] {
                check_obs_segments(r, &names.nodes, &fld(rf))?;
            }
            let class = flow_class(f, classifier, obs, &fld)?;
            let assembly = flow_assembly(f, classifier, max_pkts_per_burst, &fld)?;
            flows.push(ResolvedFlow {
                class,
                assembly,
                name: f.name.clone().unwrap_or_else(|| format!("flow{i}")),
                src: s,
                dst: d,
                start,
                stop,
                route,
                reverse_route,
                kind,
                routing,
            });
        }
        Ok(flows)
    }
}

impl FlowType {
    /// The value of `type` that selects it.
    pub fn name(self) -> &'static str {
        match self {
            FlowType::Tcp => "tcp",
            FlowType::Cbr => "cbr",
            FlowType::Onoff => "onoff",
            FlowType::Poisson => "poisson",
            FlowType::SelfSimilar => "self_similar",
            FlowType::ParetoOnoff => "pareto_onoff",
        }
    }
}

impl FlowSpec {
    /// Fields that were given but do not apply to this flow type.
    pub(crate) fn misplaced(&self) -> Option<&'static str> {
        let tcp_only = [
            ("variant", self.variant.is_some()),
            ("cc", self.cc.is_some()),
            ("recovery", self.recovery.is_some()),
            ("cubic_ssthresh", self.cubic_ssthresh.is_some()),
            ("profile", self.profile.is_some()),
            ("ns2_version", self.ns2_version.is_some()),
            ("segments", self.segments.is_some()),
            ("drop_segments", self.drop_segments.is_some()),
            ("mss", self.mss.is_some()),
            ("header_bytes", self.header_bytes.is_some()),
            ("ack_bytes", self.ack_bytes.is_some()),
            ("wm", self.wm.is_some()),
            ("init_cwnd", self.init_cwnd.is_some()),
            ("init_ssthresh", self.init_ssthresh.is_some()),
            ("dupack_thresh", self.dupack_thresh.is_some()),
            ("b", self.b.is_some()),
            ("delack_timeout", self.delack_timeout.is_some()),
            ("min_rto", self.min_rto.is_some()),
            ("max_rto", self.max_rto.is_some()),
            ("init_rto", self.init_rto.is_some()),
            ("clock_granularity", self.clock_granularity.is_some()),
            ("max_backoff", self.max_backoff.is_some()),
            ("sack_blocks", self.sack_blocks.is_some()),
            ("syn", self.syn.is_some()),
            ("limited_transmit", self.limited_transmit.is_some()),
            ("precision_reduce", self.precision_reduce.is_some()),
            ("bug_fix", self.bug_fix.is_some()),
            ("newreno_changes1", self.newreno_changes1.is_some()),
            (
                "partial_window_deflation",
                self.partial_window_deflation.is_some(),
            ),
            ("sack_partial_ack", self.sack_partial_ack.is_some()),
            ("clock_phase", self.clock_phase.is_some()),
            ("reverse_route", self.reverse_route.is_some()),
        ];
        let udp_only = [
            ("rate", self.rate.is_some()),
            ("packet_size", self.packet_size.is_some()),
        ];
        let onoff_only = [
            ("mean_on", self.mean_on.is_some()),
            ("mean_off", self.mean_off.is_some()),
        ];
        let pareto_only = [("alpha", self.alpha.is_some())];
        let self_similar_only = [
            ("hurst", self.hurst.is_some()),
            ("sources", self.sources.is_some()),
        ];
        let (tcp, udp, onoff, pareto, ss) = (
            &tcp_only[..],
            &udp_only[..],
            &onoff_only[..],
            &pareto_only[..],
            &self_similar_only[..],
        );
        let not_for: &[&[(&'static str, bool)]] = match self.kind {
            FlowType::Tcp => &[udp, onoff, pareto, ss],
            FlowType::Cbr | FlowType::Poisson => &[tcp, onoff, pareto, ss],
            FlowType::Onoff => &[tcp, pareto, ss],
            FlowType::ParetoOnoff => &[tcp, ss],
            FlowType::SelfSimilar => &[tcp],
        };
        not_for
            .iter()
            .flat_map(|g| g.iter())
            .find(|x| x.1)
            .map(|x| x.0)
    }
}

/// Names a flow's key in errors (`flow[3].dst`).
type Fld<'a> = &'a dyn Fn(&str) -> String;

/// The source and destination hosts.
fn endpoints(f: &FlowSpec, names: &Names, fld: Fld) -> Result<(u32, u32), ScenarioError> {
    let s = names.lookup(fld("src"), &f.src)?;
    let d = names.lookup(fld("dst"), &f.dst)?;
    if s == d {
        return Err(e(fld("dst"), "source and destination must differ"));
    }
    for (nm, ix) in [("src", s), ("dst", d)] {
        if names.nodes[ix as usize].1 != NodeKind::Host {
            return Err(e(
                fld(nm),
                format!(
                    "node '{}' is {}; flows start and end at hosts",
                    names.nodes[ix as usize].0,
                    match names.nodes[ix as usize].1 {
                        NodeKind::Edge => "an OBS edge node",
                        NodeKind::Core => "an OBS core node",
                        _ => "a router",
                    }
                ),
            ));
        }
    }
    Ok((s, d))
}

/// `start` (default 0) and `stop` (default: the end of the run).
fn times(f: &FlowSpec, fld: Fld) -> Result<(SimTime, Option<SimTime>), ScenarioError> {
    let start = f.start.map(|x| x.0).unwrap_or(SimTime::ZERO);
    let stop = f.stop.map(|x| x.0);
    if let Some(st) = stop {
        if st <= start {
            return Err(e(
                fld("stop"),
                format!(
                    "must be later than start ({} s, got {} s)",
                    start.as_secs_f64(),
                    st.as_secs_f64()
                ),
            ));
        }
    }
    Ok((start, stop))
}

/// The route and the reverse route: given as node names, or chosen by `planner` under
/// the flow's routing settings (`route_plan.rs`).
fn routes(
    f: &FlowSpec,
    (s, d): (u32, u32),
    names: &Names,
    adj: &[Vec<u32>],
    planner: &mut Planner,
    global: Settings,
    fld: Fld,
) -> Result<(Vec<u32>, Vec<u32>, RouteChoice), ScenarioError> {
    let (src, dst) = (&f.src, &f.dst);
    let lookup = |field: String, name: &str| names.lookup(field, name);
    let st = Settings::merge(global, f.routing.as_ref(), &fld("routing"))?;
    let given = |r: &Option<Vec<String>>, key: &str, a, b| {
        r.as_ref()
            .map(|r| explicit_route(&fld(key), r, a, b, &lookup, adj))
            .transpose()
    };
    let fwd = given(&f.route, "route", s, d)?;
    let rev = given(&f.reverse_route, "reverse_route", d, s)?;
    let unreachable = |reverse: bool| {
        if reverse {
            e(
                fld("src"),
                format!("unreachable: no return path from '{dst}' to '{src}'"),
            )
        } else {
            e(
                fld("dst"),
                format!("unreachable: no path from '{src}' to '{dst}'"),
            )
        }
    };
    let metric_field = if f.routing.as_ref().is_some_and(|r| r.metric.is_some()) {
        fld("routing.metric")
    } else {
        "routing.metric".to_string()
    };
    planner.plan(st, (s, d), (fwd, rev), &metric_field, &unreachable)
}

/// The traffic source: a TCP sender's settings, or a UDP source's rate and sizes.
fn flow_kind(f: &FlowSpec, fld: Fld) -> Result<ResolvedFlowKind, ScenarioError> {
    Ok(match f.kind {
        FlowType::Tcp => ResolvedFlowKind::Tcp {
            cfg: tcp_config(f, fld)?,
            segments: f.segments,
            drop_segments: drop_ranges(f, fld)?,
        },
        FlowType::Cbr | FlowType::Onoff | FlowType::Poisson => udp_kind(f, fld)?,
        FlowType::SelfSimilar | FlowType::ParetoOnoff => pareto_kind(f, fld)?,
    })
}

/// A superposition of Pareto on/off sources (`self_similar`), or one (`pareto_onoff`):
/// `workload/onoff.rs`. Every parameter is checked here, naming its key, so that the
/// world builds the generator without errors.
fn pareto_kind(f: &FlowSpec, fld: Fld) -> Result<ResolvedFlowKind, ScenarioError> {
    let ResolvedFlowKind::Cbr { rate, packet_size } = udp_kind(
        &FlowSpec {
            kind: FlowType::Cbr,
            ..f.clone()
        },
        fld,
    )?
    else {
        unreachable!("a cbr flow resolves to Cbr")
    };
    let single = f.kind == FlowType::ParetoOnoff;
    let what = f.kind.name();
    let alpha = if single {
        f.alpha.unwrap_or(1.5)
    } else {
        match (f.hurst, f.alpha) {
            (Some(_), Some(_)) => return Err(e(fld("alpha"), "give hurst or alpha, not both")),
            (None, None) => {
                return Err(e(
                    fld("hurst"),
                    "required for `self_similar` (or alpha): the target Hurst parameter",
                ))
            }
            (Some(h), None) => {
                if !(h > 0.5 && h < 1.0) {
                    return Err(e(
                        fld("hurst"),
                        format!(
                            "the Hurst parameter of a superposition of Pareto on/off sources \
                             lies strictly between 0.5 and 1, got {h}"
                        ),
                    ));
                }
                alpha_for_hurst(h)
            }
            (None, Some(a)) => {
                if !(a > 1.0 && a < 2.0) {
                    return Err(e(
                        fld("alpha"),
                        format!(
                            "a self-similar superposition needs a period shape strictly \
                             between 1 and 2 (H = (3 - alpha)/2 between 0.5 and 1), got {a}"
                        ),
                    ));
                }
                a
            }
        }
    };
    let period = |d: Option<super::quantity::Dur>, key: &str| {
        d.map(|x| x.0)
            .ok_or_else(|| e(fld(key), format!("required for a {what} flow")))
    };
    let sources = if single {
        1
    } else {
        f.sources
            .ok_or_else(|| e(fld("sources"), "required for a self_similar flow"))?
    };
    let params = SelfSimilarParams {
        sources,
        alpha,
        mean_on_s: period(f.mean_on, "mean_on")?.as_secs_f64(),
        mean_off_s: period(f.mean_off, "mean_off")?.as_secs_f64(),
        gap: rate.tx_time(packet_size.into()),
    };
    // Checks sources, alpha, the periods and the gap; the prefix makes the keys
    // `flow[i].sources` etc.
    params.periods(fld("").trim_end_matches('.'))?;
    // All sources on at once send `sources` times the peak rate, one event a packet.
    let peak = sources as f64 / params.gap.as_secs_f64();
    if peak > MAX_PKTS_PER_SEC {
        return Err(e(
            fld(if single { "rate" } else { "sources" }),
            format!(
                "{sources} sources at {:.3e} packets per second each may send {peak:.3e} \
                 packets per second at once; a UDP source may send at most 1e9",
                1.0 / params.gap.as_secs_f64()
            ),
        ));
    }
    Ok(ResolvedFlowKind::SelfSimilar {
        rate,
        packet_size,
        params,
        single,
    })
}

/// A UDP source (`cbr`, `onoff`, `poisson`).
fn udp_kind(f: &FlowSpec, fld: Fld) -> Result<ResolvedFlowKind, ScenarioError> {
    let rate = f
        .rate
        .ok_or_else(|| e(fld("rate"), "required for a UDP flow"))?
        .0;
    let packet_size = pkt_size(f.packet_size.unwrap_or(Size(1000)), &fld("packet_size"))?;
    // Each packet is one event at the source: bound the event rate.
    let pps = rate.bps() as f64 / (8.0 * packet_size as f64);
    if pps > MAX_PKTS_PER_SEC {
        return Err(e(
            fld("rate"),
            format!(
                "{pps:.3e} packets per second of {packet_size} B; a UDP source \
                 may send at most 1e9 packets per second"
            ),
        ));
    }
    Ok(if f.kind == FlowType::Cbr {
        ResolvedFlowKind::Cbr { rate, packet_size }
    } else if f.kind == FlowType::Poisson {
        ResolvedFlowKind::Poisson { rate, packet_size }
    } else {
        let mean_on = f
            .mean_on
            .ok_or_else(|| e(fld("mean_on"), "required for an on-off flow"))?
            .0;
        let mean_off = f
            .mean_off
            .ok_or_else(|| e(fld("mean_off"), "required for an on-off flow"))?
            .0;
        if mean_on == SimTime::ZERO {
            return Err(e(fld("mean_on"), "must be positive"));
        }
        if mean_off == SimTime::ZERO {
            return Err(e(fld("mean_off"), "must be positive"));
        }
        ResolvedFlowKind::OnOff {
            rate,
            packet_size,
            mean_on,
            mean_off,
        }
    })
}

/// The flow's OBS class (`obs.class` index, default 0).
pub(super) fn flow_class(
    f: &FlowSpec,
    classifier: Option<Classifier>,
    obs: Option<&ResolvedObs>,
    fld: Fld,
) -> Result<u32, ScenarioError> {
    // A per_egress queue mixes every flow towards its egress: a flow's class
    // would select nothing there (the queue follows class 0's path policy).
    if f.class.is_some() && classifier == Some(Classifier::PerEgress) {
        return Err(e(
            fld("class"),
            "a flow's class needs obs.classifier = \"per_class\" or \"per_flow\"; \
             with \"per_egress\" flows towards one egress share one queue and the \
             class would be ignored",
        ));
    }
    let nclasses = obs.map_or(0, |o| o.classes.len()).max(1);
    let class = f.class.unwrap_or(0);
    if class as usize >= nclasses {
        return Err(e(
            fld("class"),
            format!("no class {class} (obs.class has {nclasses} entries)"),
        ));
    }
    Ok(class)
}

/// The flow's own assembly policy (`per_flow` classifier only).
fn flow_assembly(
    f: &FlowSpec,
    classifier: Option<Classifier>,
    max_pkts_per_burst: u32,
    fld: Fld,
) -> Result<Option<AssemblerConfig>, ScenarioError> {
    if f.assembly.is_some() {
        if let Some(c) = classifier.filter(|&c| c != Classifier::PerFlow) {
            return Err(e(
                fld("assembly"),
                format!(
                    "a flow's own assembly needs obs.classifier = \"per_flow\"; \
                     with {} the flow shares its queue: set the policy in [obs] \
                     (or per class / per edge node)",
                    if c == Classifier::PerEgress {
                        "\"per_egress\""
                    } else {
                        "\"per_class\""
                    }
                ),
            ));
        }
    }
    Ok(match &f.assembly {
        Some(a) => Some(a.resolve(&fld("assembly"), max_pkts_per_burst)?),
        None => None,
    })
}

/// Checks that every run of fibre hops in a route starts and ends at an edge node.
pub(super) fn check_obs_segments(
    route: &[u32],
    nodes: &[(String, NodeKind)],
    field: &str,
) -> Result<(), ScenarioError> {
    let obs = |k: usize| nodes[route[k] as usize].1.is_obs();
    let mut k = 0;
    while k + 1 < route.len() {
        if obs(k) && obs(k + 1) {
            let start = k;
            while k + 1 < route.len() && obs(k) && obs(k + 1) {
                k += 1;
            }
            for (at, what) in [(start, "enters"), (k, "leaves")] {
                let (nm, kind) = &nodes[route[at] as usize];
                if *kind != NodeKind::Edge {
                    return Err(ScenarioError::new(
                        format!("{field}[{at}]"),
                        format!(
                            "the route {what} the OBS network at '{nm}', which is not an edge node"
                        ),
                    ));
                }
            }
        } else {
            k += 1;
        }
    }
    Ok(())
}
fn pkt_size(s: Size, field: &str) -> Result<u32, ScenarioError> {
    if s.0 == 0 || s.0 > 1 << 30 {
        return Err(ScenarioError::new(
            field,
            format!("must be between 1 B and 1 GiB, got {}", s.0),
        ));
    }
    Ok(s.0 as u32)
}

fn drop_ranges(
    t: &FlowSpec,
    fld: &dyn Fn(&str) -> String,
) -> Result<Vec<(u64, u64)>, ScenarioError> {
    let mut v = Vec::new();
    for (k, r) in t.drop_segments.iter().flatten().enumerate() {
        if r[1] < r[0] {
            return Err(ScenarioError::new(
                fld(&format!("drop_segments[{k}]")),
                format!(
                    "range must be [first, last] with first <= last (got [{}, {}])",
                    r[0], r[1]
                ),
            ));
        }
        // A finite transfer sends segments 0 .. segments - 1 (1 .. segments with syn).
        if let Some(n) = t.segments {
            if r[0] > n {
                return Err(ScenarioError::new(
                    fld(&format!("drop_segments[{k}]")),
                    format!(
                        "the range starts at segment {} but the transfer has only \
                         segments = {n}: it would drop nothing",
                        r[0]
                    ),
                ));
            }
        }
        v.push((r[0], r[1]));
    }
    v.sort_unstable();
    Ok(v)
}
