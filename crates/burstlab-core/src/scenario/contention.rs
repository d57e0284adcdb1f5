//! Validation of `[obs.contention]` (docs/topics/contention.md; its serde structs are
//! in `spec.rs`, what it resolves to, [`ResolvedContention`], in `resolved.rs` and is
//! read by `world/core_node.rs`).

use super::error::{e, ScenarioError};
use super::resolved::{
    ResolvedClass, ResolvedContention, ResolvedFabric, ResolvedFibre, ResolvedFlow, ResolvedObs,
};
use super::routing::Names;
use super::spec::{Classifier, ContentionSpec, NodeKind, Preemption, Signalling};
use crate::units::SimTime;
use std::collections::HashMap;

/// Resolves `[obs.contention]` (`c`) into `o.contention`: its settings against the
/// fabrics (`fabrics`), the deflection table against the nodes and `fibres`, and
/// preemption against the classes' priorities.
pub(super) fn resolve_contention(
    c: &ContentionSpec,
    o: &mut ResolvedObs,
    fabrics: &[ResolvedFabric],
    names: &Names,
    fibres: &[ResolvedFibre],
) -> Result<(), ScenarioError> {
    o.contention = c.resolve(
        fabrics.iter().any(|f| !f.conversion),
        fabrics.iter().all(|f| f.signalling == Signalling::Jit),
    )?;
    c.resolve_deflection(&mut o.contention, &names.nodes, &names.by_name, fibres)?;
    let prio = |c: &ResolvedClass| c.priority;
    if o.contention.preemption != Preemption::None
        && o.classes.iter().map(prio).min() == o.classes.iter().map(prio).max()
    {
        return Err(e(
            "obs.contention.preemption",
            "has no effect: every burst has the same priority (set obs.class[i].priority on two classes differently)",
        ));
    }
    Ok(())
}

/// Preemption acts only between bursts of different priorities, and a burst's class is
/// its assembly queue's (`world/wiring.rs`): class 0 for every queue under `per_egress`,
/// the flow's class otherwise. Refuses preemption when every burst the flows can form
/// has the same priority (the classes' priorities may differ while the classifier or
/// the flows use only one of them). `nodes` are the scenario's nodes.
pub(super) fn check_preemption_classes(
    o: &ResolvedObs,
    flows: &[ResolvedFlow],
    nodes: &[(String, NodeKind)],
) -> Result<(), ScenarioError> {
    if o.contention.preemption == Preemption::None {
        return Ok(());
    }
    let prio = |c: u32| o.classes.get(c as usize).map_or(0, |c| c.priority);
    let obs = |n: u32| nodes[n as usize].1.is_obs();
    let crosses = |r: &[u32]| r.windows(2).any(|w| obs(w[0]) && obs(w[1]));
    let mut seen: Option<(u32, usize)> = None; // (priority, first flow with it)
    for (fi, f) in flows.iter().enumerate() {
        if !(crosses(&f.route) || crosses(&f.reverse_route)) {
            continue;
        }
        let class = if o.classifier == Classifier::PerEgress {
            0
        } else {
            f.class
        };
        match seen {
            None => seen = Some((prio(class), fi)),
            Some((p, _)) if p != prio(class) => return Ok(()),
            Some(_) => {}
        }
    }
    let Some((p, _)) = seen else {
        return Ok(());
    };
    let why = if o.classifier == Classifier::PerEgress {
        format!(
            "has no effect: with obs.classifier = \"per_egress\" every burst is in class 0 \
             (priority {p}), so no burst can preempt another (use obs.classifier = \"per_class\" \
             or \"per_flow\" and give flows classes of different priorities)"
        )
    } else {
        format!(
            "has no effect: every flow crossing the OBS network is in a class of priority {p}, \
             so every burst has the same priority and none can preempt another (give some \
             flows, flow[i].class, a class of a different obs.class[i].priority)"
        )
    };
    Err(e("obs.contention.preemption", why))
}

impl ContentionSpec {
    /// Validates into a [`ResolvedContention`]; `any_continuity` says whether some
    /// fabric enforces wavelength continuity (converters are useless otherwise).
    pub fn resolve(
        &self,
        any_continuity: bool,
        all_jit: bool,
    ) -> Result<ResolvedContention, ScenarioError> {
        if self.preemption == Some(Preemption::Segment) && all_jit {
            return Err(e(
                "obs.contention.preemption",
                "\"segment\" needs JET signalling somewhere (JIT reserves from BCP processing, so no segment can be cut)",
            ));
        }
        if self.segmentation.is_some() && all_jit {
            return Err(e(
                "obs.contention.segmentation",
                "needs JET signalling somewhere (JIT reserves from BCP processing, so no segment can be cut)",
            ));
        }
        let f = |s: &str| format!("obs.contention.{s}");
        let mut fdl = Vec::with_capacity(self.fdl.len());
        for (i, d) in self.fdl.iter().enumerate() {
            if d.0 == SimTime::ZERO {
                return Err(e(
                    f(&format!("fdl[{i}]")),
                    "a fibre delay line must be longer than 0",
                ));
            }
            fdl.push(d.0);
        }
        if fdl.len() > 64 {
            return Err(e(
                f("fdl"),
                format!("at most 64 delay lines per node (got {})", fdl.len()),
            ));
        }
        if self.fdl_capacity.is_some() && fdl.is_empty() {
            return Err(e(
                f("fdl_capacity"),
                "needs delay lines (obs.contention.fdl)",
            ));
        }
        let converters = self.converters.unwrap_or(0);
        if self.converters == Some(0) {
            return Err(e(
                f("converters"),
                "must be at least 1 (leave it out for none)",
            ));
        }
        if converters > 4096 {
            return Err(e(
                f("converters"),
                format!("at most 4096 per pool (got {converters})"),
            ));
        }
        if converters > 0 && !any_continuity {
            return Err(e(
                f("converters"),
                "has no effect: every node converts fully (set obs.conversion = false or a fabric's conversion = false)",
            ));
        }
        if self.converter_scope.is_some() && converters == 0 {
            return Err(e(f("converter_scope"), "needs obs.contention.converters"));
        }
        Ok(ResolvedContention {
            fdl,
            fdl_capacity: self.fdl_capacity.unwrap_or_default(),
            converters,
            converter_scope: self.converter_scope.unwrap_or_default(),
            segmentation: self.segmentation,
            preemption: self.preemption.unwrap_or_default(),
            per_wavelength: self.per_wavelength,
            deflection: Vec::new(),
            max_deflections: 0,
            deflection_offset: SimTime::ZERO,
        })
    }

    /// Validates the deflection settings into `out` (node names against `by_name`,
    /// every `via` a neighbour reached by a fibre from the node).
    pub fn resolve_deflection(
        &self,
        out: &mut ResolvedContention,
        nodes: &[(String, NodeKind)],
        by_name: &HashMap<&str, u32>,
        fibres: &[ResolvedFibre],
    ) -> Result<(), ScenarioError> {
        let f = |s: &str| format!("obs.contention.{s}");
        if self.deflection.is_empty() {
            if self.max_deflections.is_some() {
                return Err(e(f("max_deflections"), "needs obs.contention.deflection"));
            }
            if self.deflection_offset.is_some() {
                return Err(e(f("deflection_offset"), "needs obs.contention.deflection"));
            }
            return Ok(());
        }
        let max = self.max_deflections.unwrap_or(1);
        if max == 0 {
            return Err(e(
                f("max_deflections"),
                "must be at least 1 (leave out obs.contention.deflection for none)",
            ));
        }
        if max > 64 {
            return Err(e(f("max_deflections"), format!("at most 64 (got {max})")));
        }
        let mut table: Vec<(u32, Vec<u32>)> = Vec::with_capacity(self.deflection.len());
        for (i, d) in self.deflection.iter().enumerate() {
            let fld = |s: &str| format!("obs.contention.deflection[{i}].{s}");
            let Some(&n) = by_name.get(d.node.as_str()) else {
                return Err(e(fld("node"), format!("no node named '{}'", d.node)));
            };
            if !nodes[n as usize].1.is_obs() {
                return Err(e(
                    fld("node"),
                    format!("'{}' is not an OBS node (edge or core)", d.node),
                ));
            }
            if let Some(j) = table.iter().position(|(m, _)| *m == n) {
                return Err(e(
                    fld("node"),
                    format!(
                        "'{}' already has a deflection entry (deflection[{j}])",
                        d.node
                    ),
                ));
            }
            if d.via.is_empty() {
                return Err(e(fld("via"), "must list at least one neighbour"));
            }
            let mut via = Vec::with_capacity(d.via.len());
            for (k, name) in d.via.iter().enumerate() {
                let fv = format!("obs.contention.deflection[{i}].via[{k}]");
                let Some(&v) = by_name.get(name.as_str()) else {
                    return Err(e(fv, format!("no node named '{name}'")));
                };
                if v == n {
                    return Err(e(fv, "a node cannot deflect to itself"));
                }
                if via.contains(&v) {
                    return Err(e(fv, format!("'{name}' is listed twice")));
                }
                if !fibres.iter().any(|x| x.from == n && x.to == v) {
                    return Err(e(fv, format!("no fibre from '{}' to '{name}'", d.node)));
                }
                via.push(v);
            }
            table.push((n, via));
        }
        out.deflection = table;
        out.max_deflections = max;
        out.deflection_offset = self.deflection_offset.map_or(SimTime::ZERO, |d| d.0);
        Ok(())
    }
}
