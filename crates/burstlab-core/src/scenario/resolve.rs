//! [`ScenarioSpec::resolve`]: a parsed scenario validated into a [`Resolved`] one by
//! one resolver per section, called in a fixed order (the first error found is the one
//! reported, so the order is part of the behaviour): `[sim]`, the nodes, the nodes' OBS
//! settings, links, fibres, `[obs]`, the flows, then the checks across sections.

use super::contention::check_preemption_classes;
use super::error::{e, ScenarioError};
use super::obs::check_ack_ratio;
use super::resolved::{Resolved, ResolvedLink};
use super::routing::{adjacency, Names};
use super::spec::{NodeKind, ScenarioSpec, DEFAULT_MAX_EVENTS, DEFAULT_MAX_MEMORY, MIN_MAX_EVENTS};
use crate::units::SimTime;
use std::collections::HashMap;

/// `[sim]`'s limits, resolved.
struct SimLimits {
    max_memory: u64,
    max_events: u64,
    warmup: SimTime,
}

impl ScenarioSpec {
    /// Validates and resolves. `seed` / `replication` override the file's values.
    pub fn resolve(
        &self,
        seed: Option<u64>,
        replication: Option<u64>,
    ) -> Result<Resolved, ScenarioError> {
        let sim = self.resolve_sim()?;
        let names = self.resolve_nodes()?;
        // OBS settings (defaults when the section is absent).
        let obs_spec = self.obs.clone().unwrap_or_default();
        let max_pkts_per_burst = obs_spec.max_pkts_per_burst.unwrap_or(u32::MAX);
        if max_pkts_per_burst == 0 {
            return Err(e("obs.max_pkts_per_burst", "must be at least 1 (got 0)"));
        }
        let node_obs = self.resolve_node_obs(&obs_spec, max_pkts_per_burst)?;
        let links = self.resolve_links(&names)?;
        let fibres = self.resolve_fibres(&obs_spec, &names, &node_obs)?;
        let obs = if fibres.is_empty() && self.obs.is_none() {
            None
        } else {
            let fabrics = &node_obs.fabrics;
            Some(self.resolve_obs(&obs_spec, max_pkts_per_burst, &names, fabrics, &fibres)?)
        };
        let adj = adjacency(names.nodes.len(), &links, &fibres);
        let run = (
            seed.unwrap_or(self.sim.seed),
            replication.unwrap_or(self.sim.replication),
        );
        let net = (&adj[..], &links[..], &fibres[..]);
        let flows = self.resolve_flows(&names, net, obs.as_ref(), max_pkts_per_burst, run)?;
        if let Some(o) = &obs {
            check_ack_ratio(o, &node_obs.node_assembly, &flows)?;
            check_preemption_classes(o, &flows, &names.nodes)?;
        }
        let workloads = self.resolve_workloads(&names, net, obs.as_ref(), run)?;
        Ok(Resolved {
            name: self.name.clone().unwrap_or_else(|| "scenario".into()),
            duration: self.sim.duration.0,
            max_memory: sim.max_memory,
            max_events: sim.max_events,
            warmup: sim.warmup,
            seed: seed.unwrap_or(self.sim.seed),
            replication: replication.unwrap_or(self.sim.replication),
            trace: self.sim.trace.clone(),
            nodes: names.nodes,
            links,
            flows,
            fibres,
            obs,
            node_setup: node_obs.node_setup,
            node_assembly: node_obs.node_assembly,
            fabrics: node_obs.fabrics,
            node_fabrics: node_obs.node_fabrics,
            workloads,
        })
    }

    /// `[sim]`: duration, limits, warm-up and the trace window.
    fn resolve_sim(&self) -> Result<SimLimits, ScenarioError> {
        if self.sim.duration.0 == SimTime::ZERO {
            return Err(e("sim.duration", "must be positive"));
        }
        if self.sim.duration.0 > crate::units::MAX_DURATION {
            return Err(e(
                "sim.duration",
                "must be at most 10000000 s (about 116 days): the clock counts picoseconds in 64 bits",
            ));
        }
        let max_memory = self.sim.max_memory.map_or(DEFAULT_MAX_MEMORY, |m| m.0);
        if max_memory < 1 << 20 {
            return Err(e("sim.max_memory", "must be at least 1 MiB"));
        }
        let max_events = self.sim.max_events.map_or(DEFAULT_MAX_EVENTS, |m| m.0);
        if max_events < MIN_MAX_EVENTS {
            return Err(e(
                "sim.max_events",
                format!("must be at least {} (got {max_events})", MIN_MAX_EVENTS),
            ));
        }
        let warmup = self.sim.warmup.map(|d| d.0).unwrap_or(SimTime::ZERO);
        if warmup >= self.sim.duration.0 {
            return Err(e("sim.warmup", "must be shorter than sim.duration"));
        }
        if let Some(g) = self.sim.trace.goodput {
            if g.0 == SimTime::ZERO {
                return Err(e("sim.trace.goodput", "must be a positive interval"));
            }
        }
        // The trace window [start, end) lies inside [0, sim.duration) and is not empty.
        let secs = |d: SimTime| d.as_secs_f64();
        let (t_start, t_end) = (self.sim.trace.start, self.sim.trace.end);
        if let Some(s) = t_start {
            if s.0 >= self.sim.duration.0 {
                return Err(e(
                    "sim.trace.start",
                    format!(
                        "must be before sim.duration = {} s (got {} s): the trace would be empty",
                        secs(self.sim.duration.0),
                        secs(s.0)
                    ),
                ));
            }
        }
        if let Some(t) = t_end {
            let from = t_start.map_or(SimTime::ZERO, |s| s.0);
            if t.0 <= from {
                return Err(e(
                    "sim.trace.end",
                    format!(
                        "must be later than sim.trace.start = {} s (got {} s): the trace \
                         window would be empty",
                        secs(from),
                        secs(t.0)
                    ),
                ));
            }
        }
        if let Some(fl) = &self.sim.trace.flows {
            for (i, &f) in fl.iter().enumerate() {
                if f as usize >= self.flows.len() {
                    return Err(e(
                        format!("sim.trace.flows[{i}]"),
                        format!("no flow with index {f} (there are {})", self.flows.len()),
                    ));
                }
            }
        }
        Ok(SimLimits {
            max_memory,
            max_events,
            warmup,
        })
    }

    /// The node names (unique, not empty) and kinds.
    fn resolve_nodes(&self) -> Result<Names<'_>, ScenarioError> {
        if self.nodes.is_empty() {
            return Err(e("node", "a scenario needs at least two nodes"));
        }
        let mut by_name: HashMap<&str, u32> = HashMap::new();
        let mut nodes = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.name.is_empty() {
                return Err(e(format!("node[{i}].name"), "must not be empty"));
            }
            if by_name.insert(n.name.as_str(), i as u32).is_some() {
                return Err(e(
                    format!("node[{i}].name"),
                    format!("duplicate node name '{}'", n.name),
                ));
            }
            nodes.push((n.name.clone(), n.kind));
        }
        Ok(Names { nodes, by_name })
    }

    /// The `[[link]]` entries, one [`ResolvedLink`] per direction.
    fn resolve_links(&self, names: &Names) -> Result<Vec<ResolvedLink>, ScenarioError> {
        let nodes = &names.nodes;
        let lookup = |field: String, name: &str| names.lookup(field, name);
        let mut links = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            let a = lookup(format!("link[{i}].a"), &l.a)?;
            let b = lookup(format!("link[{i}].b"), &l.b)?;
            for (f, x) in [("a", a), ("b", b)] {
                if nodes[x as usize].1 == NodeKind::Core {
                    return Err(e(
                        format!("link[{i}].{f}"),
                        format!(
                            "'{}' is a core node; core nodes connect by [[fibre]] only",
                            nodes[x as usize].0
                        ),
                    ));
                }
            }
            if nodes[a as usize].1.is_obs() && nodes[b as usize].1.is_obs() {
                return Err(e(
                    format!("link[{i}]"),
                    "two OBS nodes are joined by a [[fibre]], not a [[link]]",
                ));
            }
            if a == b {
                return Err(e(
                    format!("link[{i}].b"),
                    "a link must join two different nodes",
                ));
            }
            let check_p = |f: &str, p: Option<f64>| -> Result<f64, ScenarioError> {
                match p {
                    None => Ok(0.0),
                    Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
                    Some(p) => Err(ScenarioError::new(
                        format!("link[{i}].{f}"),
                        format!("a probability must lie in [0, 1], got {p}"),
                    )),
                }
            };
            let base = check_p("loss", l.loss)?;
            let lab = if l.loss_ab.is_some() {
                check_p("loss_ab", l.loss_ab)?
            } else {
                base
            };
            let lba = if l.loss_ba.is_some() {
                check_p("loss_ba", l.loss_ba)?
            } else {
                base
            };
            let mk = |from, to, loss| ResolvedLink {
                from,
                to,
                rate: l.rate.0,
                delay: l.delay.0,
                queue_pkts: l.queue_pkts,
                queue_bytes: l.queue_bytes.map(|s| s.0),
                loss,
                spec_index: i,
            };
            links.push(mk(a, b, lab));
            if l.duplex {
                links.push(mk(b, a, lba));
            }
        }
        Ok(links)
    }
}
