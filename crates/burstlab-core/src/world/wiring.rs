//! Wiring a validated scenario into components: packet links, fabrics and fibres,
//! assembly queues, and every flow's precomputed route.
//!
//! Read first: [`build`]. A flow's route is a node sequence; each maximal run of fibre
//! hops (edge → core… → edge) becomes ONE route entry [`Hop::Obs`]: the assembly queue
//! the packet joins at the ingress, chosen by `obs.classifier`. In `ack_mode =
//! "bypass"` the reverse route of a TCP flow instead crosses the OBS network on a
//! hidden packet link (rate of the slowest fibre, delay = sum of the fibre delays, no
//! queue limit, no loss): ACKs are neither assembled nor lost (ozsarac §3). Hidden
//! links are not reported.

use super::core_node::{Core, Fabric, FibreParams, LossModel};
use super::edge::{Edges, QueueSpec};
use super::links::{LinkParams, Links};
use super::packet::Hop;
use crate::obs::{Assembler, AssemblerConfig, ExternalFactory, ExternalState, QueueInfo};
use crate::rng::RngStream;
use crate::scenario::{
    AckMode, Classifier, LossAppliesTo, LossScope, NodeKind, Resolved, ResolvedFlow,
    ResolvedFlowKind, ScenarioError, Signalling,
};
use crate::units::SimTime;
use std::collections::HashMap;

/// The components a scenario wires up.
pub struct Wired {
    pub links: Links,
    pub core: Option<Core>,
    pub edges: Edges,
    /// Route `2i` is flow `i`'s forward route, `2i + 1` its reverse route; after the
    /// listed flows', the workloads' route templates' (`templates`).
    pub routes: Vec<Vec<Hop>>,
}

/// The core's fabric table from the resolved fabrics (the global `[obs]` settings for
/// nodes without `[[node.fabric]]`).
fn fabrics(r: &Resolved) -> Vec<Fabric> {
    r.fabrics
        .iter()
        .map(|f| Fabric {
            name: f.name.clone(),
            node: f.node,
            setup: f.setup,
            bcp_processing: f.bcp_processing,
            jit: f.signalling == Signalling::Jit,
            scheduler: f.scheduler,
            conversion: f.conversion,
        })
        .collect()
}

/// Path policy: the fibre from `a` to `b` a burst takes — the first in scenario order
/// that attaches, at `a`, to the fabric the burst arrived on (`prev`, none at the
/// ingress) and, at both ends, to the class's fabric `want` (nodes without declared
/// fabrics serve every class). Parallel fibres with the same fabrics are tried by the
/// core at reservation time (first fit).
fn choose_fibre(
    r: &Resolved,
    a: u32,
    b: u32,
    prev: Option<u32>,
    want: Option<&str>,
) -> Option<u32> {
    let serves = |fab: u32| {
        let f = &r.fabrics[fab as usize];
        want.is_none_or(|w| !f.declared || f.name == w)
    };
    r.fibres
        .iter()
        .position(|f| {
            f.from == a
                && f.to == b
                && prev.is_none_or(|p| p == f.fabric_a)
                && serves(f.fabric_a)
                && serves(f.fabric_b)
        })
        .map(|i| i as u32)
}

/// `'E1' → 'C1' → 'E2'` for a fibre path (error messages).
fn path_names(r: &Resolved, path: &[u32]) -> String {
    let mut s = String::new();
    for (i, &f) in path.iter().enumerate() {
        let fb = &r.fibres[f as usize];
        if i == 0 {
            s += &format!("'{}'", r.nodes[fb.from as usize].0);
        }
        s += &format!(" → '{}'", r.nodes[fb.to as usize].0);
    }
    s
}

/// The route templates of the workloads: per workload, pair and path (in that order), a
/// TCP flow on that path in the workload's class, wired like a listed flow (its routes
/// and assembly queues); generated flows then take its routes (`workloads.rs`).
fn templates(r: &Resolved) -> Vec<ResolvedFlow> {
    let mut v = Vec::new();
    for w in &r.workloads {
        for p in &w.routes {
            for (fwd, rev) in &p.paths {
                v.push(ResolvedFlow {
                    name: w.name.clone(),
                    src: p.src,
                    dst: p.dst,
                    start: SimTime::ZERO,
                    stop: None,
                    route: fwd.clone(),
                    reverse_route: rev.clone(),
                    kind: ResolvedFlowKind::Tcp {
                        cfg: w.cfg.clone(),
                        segments: None,
                        drop_segments: Vec::new(),
                    },
                    class: w.class,
                    assembly: None,
                    routing: w.routing,
                });
            }
        }
    }
    v
}

/// Builds the wiring; `ext` builds the queues of `type = "python"` assemblies
/// (`obs/external.rs`), which are refused without it.
pub fn build(
    r: &Resolved,
    mut ext: Option<&mut dyn ExternalFactory>,
) -> Result<Wired, ScenarioError> {
    let mut links = Links::new(r.warmup, r.duration);
    for (i, l) in r.links.iter().enumerate() {
        links.add(LinkParams {
            rate: l.rate,
            delay: l.delay,
            qlimit_pkts: l.queue_pkts,
            qlimit_bytes: l.queue_bytes,
            loss: l.loss,
            rng: RngStream::derive(r.seed, r.replication, &format!("link/{i}/loss")),
            report: Some((l.spec_index, l.from, l.to)),
            to: l.to,
            to_host: r.nodes[l.to as usize].1 == NodeKind::Host,
        });
    }
    let oc = r.obs.as_ref();
    let core = oc.map(|o| {
        let per_path = o.loss_scope == LossScope::PerPath;
        let fibres = r
            .fibres
            .iter()
            .enumerate()
            .map(|(i, f)| FibreParams {
                from: f.from,
                to: f.to,
                rate: f.rate,
                delay: f.delay,
                wavelengths: f.wavelengths,
                loss: if per_path { 0.0 } else { f.loss },
                spec_index: f.spec_index,
                fabric_a: f.fabric_a,
                fabric_b: f.fabric_b,
                rng: RngStream::derive(r.seed, r.replication, &format!("fibre/{i}/loss")),
            })
            .collect();
        Core::new(
            fabrics(r),
            fibres,
            LossModel {
                per_path,
                applies_to_all: o.loss_applies_to == LossAppliesTo::All,
                path_p: o.loss_p,
                path_rng: RngStream::derive(r.seed, r.replication, "obs/path/loss"),
            },
        )
        .with_contention(&o.contention)
    });
    let listed = r.flows.len();
    let templates = templates(r);
    let mut edges = Edges::new(listed);
    // Parallel links (several link directions from `a` to `b`) are distinct resources:
    // flow `fi` takes the `(fi mod k)`-th of the `k` parallel directions, in scenario
    // order, in each direction of its route (a deterministic per-flow spread, as ECMP
    // hashing on the flow would give).
    // Link directions by their ends, in scenario order (one pass: set-up stays linear
    // in flows × hops, not flows × hops × links).
    let mut by_ends: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for (i, l) in r.links.iter().enumerate() {
        by_ends.entry((l.from, l.to)).or_default().push(i as u32);
    }
    let find_link = |a: u32, b: u32, fi: usize| -> Option<u32> {
        let v = by_ends.get(&(a, b))?;
        Some(v[fi % v.len()])
    };
    let is_obs = |n: u32| r.nodes[n as usize].1.is_obs();
    // (edge, path, flow, class) -> queue
    let mut qmap: HashMap<(u32, Vec<u32>, Option<u32>, u32), u32> = HashMap::new();
    let mut bypass: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut routes = Vec::with_capacity(2 * (listed + templates.len()));
    // The listed flows, then one route template per path of each pair a workload can
    // draw (`workloads.rs`): routes `2i`, `2i + 1` for the i-th.
    for (fi, f) in r.flows.iter().chain(&templates).enumerate() {
        for (dir, nodes) in [(0, &f.route), (1, &f.reverse_route)] {
            let mut hops = Vec::new();
            let mut k = 0;
            while k + 1 < nodes.len() {
                let (a, b) = (nodes[k], nodes[k + 1]);
                if !(is_obs(a) && is_obs(b)) {
                    hops.push(Hop::Link(find_link(a, b, fi).expect("validated route")));
                    k += 1;
                    continue;
                }
                let ingress = a;
                let o = oc.expect("fibres imply obs settings");
                // The class whose path policy applies (per_egress queues mix classes:
                // class 0's).
                let pclass = match o.classifier {
                    Classifier::PerEgress => 0,
                    _ => f.class,
                };
                let want = o
                    .classes
                    .get(pclass as usize)
                    .and_then(|c| c.fabric.as_deref());
                let mut path: Vec<u32> = Vec::new();
                while k + 1 < nodes.len() && is_obs(nodes[k]) && is_obs(nodes[k + 1]) {
                    let (x, y) = (nodes[k], nodes[k + 1]);
                    let prev = path.last().map(|&p| r.fibres[p as usize].fabric_b);
                    let Some(fib) = choose_fibre(r, x, y, prev, want) else {
                        let (xn, yn) = (&r.nodes[x as usize].0, &r.nodes[y as usize].0);
                        let field = if want.is_some() {
                            format!("obs.class[{pclass}].fabric")
                        } else {
                            format!("flow[{fi}].route")
                        };
                        let why = match (want, prev) {
                            (Some(w), _) => format!(
                                "flow '{}' needs a fibre from '{xn}' to '{yn}' attached to fabric '{w}' at both ends{}",
                                f.name,
                                prev.map_or(String::new(), |p| format!(
                                    " and to fabric '{}' at '{xn}'",
                                    r.fabrics[p as usize].name
                                ))
                            ),
                            (None, Some(p)) => format!(
                                "flow '{}' arrives at '{xn}' on fabric '{}' but no fibre from '{xn}' to '{yn}' leaves through it",
                                f.name, r.fabrics[p as usize].name
                            ),
                            (None, None) => format!("no fibre from '{xn}' to '{yn}'"),
                        };
                        return Err(ScenarioError::new(field, why));
                    };
                    path.push(fib);
                    k += 1;
                }
                let egress = nodes[k];
                if dir == 0 && fi < listed {
                    edges.set_ingress(fi as u32, ingress);
                    if let ResolvedFlowKind::Tcp { cfg, .. } = &f.kind {
                        edges.set_awnd(fi as u32, cfg.wm);
                        let ns2 = cfg.profile == crate::tcp::Profile::Ns2;
                        edges.set_opening(fi as u32, ns2 && cfg.syn, ns2);
                    }
                }
                let tcp = matches!(f.kind, ResolvedFlowKind::Tcp { .. });
                if dir == 1 && !tcp {
                    // UDP flows send nothing back: no queue for their reverse route.
                    hops.push(Hop::Unused);
                    continue;
                }
                if dir == 1 && tcp && o.ack_mode == AckMode::Bypass {
                    let li = *bypass.entry(path.clone()).or_insert_with(|| {
                        let rate = path
                            .iter()
                            .map(|&x| r.fibres[x as usize].rate)
                            .min()
                            .expect("non-empty path");
                        let delay = path
                            .iter()
                            .fold(SimTime::ZERO, |acc, &x| acc + r.fibres[x as usize].delay);
                        links.add(LinkParams {
                            rate,
                            delay,
                            qlimit_pkts: None,
                            qlimit_bytes: None,
                            loss: 0.0,
                            rng: RngStream::derive(r.seed, r.replication, "bypass"),
                            report: None,
                            to: egress,
                            to_host: false,
                        })
                    });
                    hops.push(Hop::Link(li));
                    continue;
                }
                let (flow_key, class) = match o.classifier {
                    // The flow's class sets its queue's offset (obs.class[i].offset,
                    // extra_offset) and its fallback assembly, as for its path policy.
                    Classifier::PerFlow => (Some(fi as u32), f.class),
                    Classifier::PerEgress => (None, 0),
                    Classifier::PerClass => (None, f.class),
                };
                let key = (ingress, path.clone(), flow_key, class);
                if let Some(&q) = qmap.get(&key) {
                    hops.push(Hop::Obs(q));
                    continue;
                }
                let next_q = qmap.len();
                let cfg: AssemblerConfig = match o.classifier {
                    Classifier::PerFlow => f.assembly.clone().or_else(|| {
                        o.classes
                            .get(class as usize)
                            .and_then(|c| c.assembly.clone())
                    }),
                    Classifier::PerClass => o
                        .classes
                        .get(class as usize)
                        .and_then(|c| c.assembly.clone()),
                    Classifier::PerEgress => None,
                }
                .or_else(|| r.node_assembly[ingress as usize].clone())
                .unwrap_or_else(|| o.assembly.clone());
                // ozsarac §2: a window-based assembler follows one TCP sender.
                let asm_path = match (o.classifier, &f.assembly, o.classes.get(class as usize)) {
                    (Classifier::PerFlow, Some(_), _) => format!("flow[{fi}].assembly"),
                    (Classifier::PerClass | Classifier::PerFlow, _, Some(c))
                        if c.assembly.is_some() =>
                    {
                        format!("obs.class[{class}].assembly")
                    }
                    _ if r.node_assembly[ingress as usize].is_some() => {
                        format!("node[{ingress}].assembly")
                    }
                    _ => "obs.assembly".to_string(),
                };
                crate::obs::validate_window_queue(
                    &asm_path,
                    &cfg,
                    &f.name,
                    tcp,
                    o.classifier == Classifier::PerFlow,
                )
                .map_err(|m| match m.split_once(": ") {
                    Some((fld, why)) => ScenarioError::new(fld, why),
                    None => ScenarioError::new(asm_path.clone(), m),
                })?;

                let class_spec = o.classes.get(class as usize);
                let fixed = match class_spec.and_then(|c| c.offset) {
                    Some(t) => Some((t, format!("obs.class[{class}].offset"))),
                    None => o.offset.map(|t| (t, "obs.offset".to_string())),
                };
                let offset = match fixed {
                    Some((t, field)) => {
                        // hybrid §II: the offset must cover the set-up of the slowest
                        // fabric on the path; `safe_offset` makes a shortfall an error.
                        let need = core
                            .as_ref()
                            .and_then(|c| c.min_safe_offset(&path))
                            .unwrap_or(SimTime::ZERO);
                        if o.safe_offset && t < need {
                            return Err(ScenarioError::new(
                                field,
                                format!(
                                    "offset {t} is shorter than the {need} that path {} needs (BCP processing + switch set-up; obs.safe_offset is set)",
                                    path_names(r, &path)
                                ),
                            ));
                        }
                        t
                    }
                    None => core
                        .as_ref()
                        .and_then(|c| c.base_offset(&path))
                        .and_then(|b| b.checked_add(o.extra_offset))
                        .and_then(|b| {
                            b.checked_add(class_spec.map_or(SimTime::ZERO, |c| c.extra_offset))
                        })
                        .ok_or_else(|| {
                            ScenarioError::new("obs.extra_offset", "the offset time overflows")
                        })?,
                };
                // Deflection routing (obs.contention.deflection_offset): room for the
                // BCP processing of a longer, deflected path.
                let offset = offset
                    .checked_add(o.contention.deflection_offset)
                    .ok_or_else(|| {
                        ScenarioError::new(
                            "obs.contention.deflection_offset",
                            "the offset time overflows",
                        )
                    })?;
                let egress_name = &r.nodes[egress as usize].0;
                let keystr = match o.classifier {
                    Classifier::PerFlow => f.name.clone(),
                    Classifier::PerEgress => egress_name.clone(),
                    Classifier::PerClass => format!("{egress_name}/{class}"),
                };
                let rng = RngStream::derive(
                    r.seed,
                    r.replication,
                    &format!("edge/{ingress}/asm/{next_q}"),
                );
                let asm = match (&cfg, ext.as_deref_mut()) {
                    (AssemblerConfig::External(x), Some(fac)) => {
                        let edge_name = &r.nodes[ingress as usize].0;
                        let mut rng = rng;
                        let info = QueueInfo {
                            queue: next_q as u32,
                            edge: ingress,
                            edge_name,
                            egress_name,
                            key: &keystr,
                            max_pkts_per_burst: o.max_pkts_per_burst,
                            seed: rng.next_u64(),
                        };
                        let hook = fac
                            .make(x, &info)
                            .map_err(|m| ScenarioError::new(format!("{}.object", x.path), m))?;
                        let label = format!(
                            "{} ({}), queue '{keystr}' at edge '{edge_name}'",
                            x.path, x.object
                        );
                        Assembler::External(Box::new(ExternalState::new(hook, label)))
                    }
                    _ => Assembler::new(&cfg, o.max_pkts_per_burst, rng).map_err(|m| {
                        match m.split_once(": ") {
                            Some((fld, why)) if fld.ends_with(".type") => {
                                ScenarioError::new(fld, why)
                            }
                            _ => ScenarioError::new("obs.assembly", m),
                        }
                    })?,
                };
                let qi = edges.add_queue(QueueSpec {
                    edge: ingress,
                    egress,
                    key: keystr,
                    flow: flow_key,
                    class,
                    path,
                    offset,
                    asm,
                    limit: o.queue_limit,
                });
                qmap.insert(key, qi);
                hops.push(Hop::Obs(qi));
            }
            routes.push(hops);
        }
    }
    if let Some(o) = oc {
        for (i, (edge, key, bursts)) in o.drop_bursts.iter().enumerate() {
            if let Err(have) = edges.add_drops(*edge, key, bursts) {
                return Err(ScenarioError::new(
                    format!("obs.drop_burst[{i}].queue"),
                    format!(
                        "no assembly queue '{key}' at edge '{}' (its queues: {have:?})",
                        r.nodes[*edge as usize].0
                    ),
                ));
            }
        }
    }
    Ok(Wired {
        links,
        core,
        edges,
        routes,
    })
}
