//! The OBS parts of a scenario: assembly policies, the nodes' switching fabrics, the
//! fibres and the `[obs]` section (its `[obs.contention]` in `contention.rs`), with the
//! checks that span them.

use super::contention::resolve_contention;
use super::error::{e, split_field, ScenarioError};
use super::quantity::Dur;
use super::resolved::{
    ResolvedClass, ResolvedContention, ResolvedFabric, ResolvedFibre, ResolvedFlow,
    ResolvedIngress, ResolvedObs,
};
use super::routing::Names;
use super::spec::{
    AckMode, AssemblySpec, AssemblyType, Classifier, LossAppliesTo, LossScope, NodeKind, NodeSpec,
    ObsSpec, ScenarioSpec, WindowName,
};
use crate::obs::AssemblerConfig;
use crate::units::SimTime;

/// The OBS settings of every node, in `[[node]]` order.
pub(super) struct NodeObs {
    /// Switch set-up time (OBS nodes; `obs.switch_setup` unless overridden).
    pub node_setup: Vec<SimTime>,
    /// The node's own assembly policy (edge nodes with `assembly`).
    pub node_assembly: Vec<Option<AssemblerConfig>>,
    /// Every switching fabric of every OBS node.
    pub fabrics: Vec<ResolvedFabric>,
    /// Indices into `fabrics` (at least one for an OBS node, none otherwise).
    pub node_fabrics: Vec<Vec<u32>>,
}

impl ScenarioSpec {
    /// Per node: switch set-up time, switching fabrics and own assembly policy
    /// (`obs_spec`: the `[obs]` section or its defaults).
    pub(super) fn resolve_node_obs(
        &self,
        obs_spec: &ObsSpec,
        max_pkts_per_burst: u32,
    ) -> Result<NodeObs, ScenarioError> {
        let default_setup = obs_spec
            .switch_setup
            .map(|d| d.0)
            .unwrap_or(SimTime::from_us(5));
        let mut node_setup = Vec::with_capacity(self.nodes.len());
        let mut node_assembly = Vec::with_capacity(self.nodes.len());
        let mut fabrics: Vec<ResolvedFabric> = Vec::new();
        let mut node_fabrics: Vec<Vec<u32>> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            if n.switch_setup.is_some() && !n.kind.is_obs() {
                return Err(e(
                    format!("node[{i}].switch_setup"),
                    "applies to edge and core nodes only",
                ));
            }
            node_setup.push(n.switch_setup.map(|d| d.0).unwrap_or(default_setup));
            if !n.fabric.is_empty() && !n.kind.is_obs() {
                return Err(e(
                    format!("node[{i}].fabric"),
                    "applies to edge and core nodes only",
                ));
            }
            let mine = if n.kind.is_obs() {
                fabrics_of_node(i, n, node_setup[i], obs_spec, &mut fabrics)?
            } else {
                Vec::new()
            };
            node_fabrics.push(mine);
            node_assembly.push(match &n.assembly {
                Some(a) if n.kind == NodeKind::Edge => {
                    Some(a.resolve(&format!("node[{i}].assembly"), max_pkts_per_burst)?)
                }
                Some(_) => {
                    return Err(e(
                        format!("node[{i}].assembly"),
                        "applies to edge nodes only",
                    ))
                }
                None => None,
            });
        }
        Ok(NodeObs {
            node_setup,
            node_assembly,
            fabrics,
            node_fabrics,
        })
    }

    /// The `[[fibre]]` entries, one [`ResolvedFibre`] per direction.
    pub(super) fn resolve_fibres(
        &self,
        obs_spec: &ObsSpec,
        names: &Names,
        node_obs: &NodeObs,
    ) -> Result<Vec<ResolvedFibre>, ScenarioError> {
        let (nodes, fabrics, node_fabrics) =
            (&names.nodes, &node_obs.fabrics, &node_obs.node_fabrics);
        let lookup = |field: String, name: &str| names.lookup(field, name);
        let mut fibres = Vec::new();
        for (i, f) in self.fibres.iter().enumerate() {
            let fld = |s: &str| format!("fibre[{i}].{s}");
            let a = lookup(fld("a"), &f.a)?;
            let b = lookup(fld("b"), &f.b)?;
            for (nm, x) in [("a", a), ("b", b)] {
                if !nodes[x as usize].1.is_obs() {
                    return Err(e(
                        fld(nm),
                        format!(
                            "'{}' is not an OBS node; fibres join nodes of kind edge or core",
                            nodes[x as usize].0
                        ),
                    ));
                }
            }
            if a == b {
                return Err(e(fld("b"), "a fibre must join two different nodes"));
            }
            crate::obs::validate_wavelengths(f.wavelengths as usize).map_err(|m| {
                e(
                    fld("wavelengths"),
                    m.split_once(": ").map_or(m.clone(), |x| x.1.to_string()),
                )
            })?;
            let delay = match (f.delay, f.length_km) {
                (Some(d), None) => d.0,
                (None, Some(km)) => {
                    if !(km.is_finite() && km >= 0.0) {
                        return Err(e(
                            fld("length_km"),
                            format!("must be a non-negative length, got {km}"),
                        ));
                    }
                    // Light in fibre: about 5 µs per km.
                    SimTime::from_secs_f64(km * 5e-6).map_err(|m| e(fld("length_km"), m))?
                }
                (Some(_), Some(_)) => {
                    return Err(e(
                        fld("length_km"),
                        "give either delay or length_km, not both",
                    ))
                }
                (None, None) => return Err(e(fld("delay"), "required (or length_km)")),
            };
            if f.loss.is_some()
                && obs_spec.loss.as_ref().map(|l| l.scope) == Some(LossScope::PerPath)
            {
                return Err(e(
                    fld("loss"),
                    "a fibre's own loss applies only with obs.loss.scope = \"per_link\"; \
                     with \"per_path\" each burst is lost at most once per path with \
                     probability obs.loss.p",
                ));
            }
            let loss = match f.loss {
                None => None,
                Some(p) if (0.0..=1.0).contains(&p) => Some(p),
                Some(p) => {
                    return Err(e(
                        fld("loss"),
                        format!("a probability must lie in [0, 1], got {p}"),
                    ))
                }
            };
            let base_p = obs_spec.loss.as_ref().map_or(0.0, |l| l.p);
            let fabric_of = |end: &str, node: u32, name: &Option<String>| match name {
                None => Ok(node_fabrics[node as usize][0]),
                Some(nm) => node_fabrics[node as usize]
                    .iter()
                    .copied()
                    .find(|&x| fabrics[x as usize].declared && fabrics[x as usize].name == *nm)
                    .ok_or_else(|| {
                        let have: Vec<&str> = node_fabrics[node as usize]
                            .iter()
                            .map(|&x| fabrics[x as usize].name.as_str())
                            .collect();
                        e(
                            fld(end),
                            format!(
                                "node '{}' has no fabric '{nm}' (its fabrics: {have:?})",
                                nodes[node as usize].0
                            ),
                        )
                    }),
            };
            let fa = fabric_of("fabric_a", a, &f.fabric_a)?;
            let fb = fabric_of("fabric_b", b, &f.fabric_b)?;
            let rate_from = |fab: u32| {
                f.rate
                    .map(|r| r.0)
                    .or(fabrics[fab as usize].rate)
                    .ok_or_else(|| {
                        e(
                            fld("rate"),
                            "required (or a rate on the fabric at the sending end)",
                        )
                    })
            };
            let mk = |from, to, fabric_a, fabric_b, rate| ResolvedFibre {
                from,
                to,
                rate,
                delay,
                length_km: f.length_km,
                wavelengths: f.wavelengths,
                loss: loss.unwrap_or(base_p),
                spec_index: i,
                fabric_a,
                fabric_b,
            };
            fibres.push(mk(a, b, fa, fb, rate_from(fa)?));
            if f.duplex {
                fibres.push(mk(b, a, fb, fa, rate_from(fb)?));
            }
        }
        Ok(fibres)
    }

    /// The `[obs]` section (`o`: the file's, or its defaults) with its contention
    /// resolution.
    pub(super) fn resolve_obs(
        &self,
        o: &ObsSpec,
        max_pkts_per_burst: u32,
        names: &Names,
        fabrics: &[ResolvedFabric],
        fibres: &[ResolvedFibre],
    ) -> Result<ResolvedObs, ScenarioError> {
        let assembly = match &o.assembly {
            Some(a) => a.resolve("obs.assembly", max_pkts_per_burst)?,
            None => AssemblerConfig::Timer {
                tb: SimTime::from_ms(1),
                jitter_sd_frac: 0.0,
            },
        };
        let (loss_p, loss_scope, loss_applies_to) = obs_loss(o)?;
        if o.queue_limit == Some(0) {
            return Err(e("obs.queue_limit", "must be at least 1 packet (got 0)"));
        }
        let drop_bursts = drop_bursts(o, names)?;
        let classes = classes(o, max_pkts_per_burst)?;
        let control_tx = control_tx(o)?;
        let retransmit = retransmit(o)?;
        let control_loss = control_loss(o)?;
        let ingress = ingress(o)?;
        let mut r = ResolvedObs {
            assembly,
            classifier: o.classifier,
            ack_mode: o.ack_mode,
            scheduler: o.scheduler.kind(),
            conversion: o.conversion,
            signalling: o.signalling,
            bcp_processing: o.bcp_processing.map_or(SimTime::from_us(10), |d| d.0),
            switch_setup: o.switch_setup.map_or(SimTime::from_us(5), |d| d.0),
            extra_offset: o.extra_offset.map_or(SimTime::ZERO, |d| d.0),
            offset: o.offset.map(|d| d.0),
            safe_offset: o.safe_offset,
            max_pkts_per_burst,
            queue_limit: o.queue_limit,
            loss_p,
            loss_scope,
            loss_applies_to,
            drop_bursts,
            classes,
            control_tx,
            retransmit,
            control_loss,
            ingress,
            contention: ResolvedContention::default(),
        };
        if let Some(c) = &o.contention {
            resolve_contention(c, &mut r, fabrics, names, fibres)?;
        }
        Ok(r)
    }
}

/// The fabrics of OBS node `i` (`n`): its `[[node.fabric]]` entries, or one fabric
/// named `default` with the `[obs]` settings. Returns their indices into `fabrics`.
fn fabrics_of_node(
    i: usize,
    n: &NodeSpec,
    setup: SimTime,
    obs_spec: &ObsSpec,
    fabrics: &mut Vec<ResolvedFabric>,
) -> Result<Vec<u32>, ScenarioError> {
    let mut mine = Vec::new();
    let base = ResolvedFabric {
        node: i as u32,
        name: "default".into(),
        declared: false,
        setup,
        bcp_processing: obs_spec
            .bcp_processing
            .map_or(SimTime::from_us(10), |d| d.0),
        rate: None,
        signalling: obs_spec.signalling,
        scheduler: obs_spec.scheduler.kind(),
        conversion: obs_spec.conversion,
    };
    if n.fabric.is_empty() {
        mine.push(fabrics.len() as u32);
        fabrics.push(base.clone());
    }
    for (j, fs) in n.fabric.iter().enumerate() {
        let fld = |s: &str| format!("node[{i}].fabric[{j}].{s}");
        if fs.name.is_empty() {
            return Err(e(fld("name"), "must not be empty"));
        }
        if n.fabric[..j].iter().any(|o| o.name == fs.name) {
            return Err(e(
                fld("name"),
                format!("duplicate fabric name '{}' at node '{}'", fs.name, n.name),
            ));
        }
        mine.push(fabrics.len() as u32);
        fabrics.push(ResolvedFabric {
            name: fs.name.clone(),
            declared: true,
            setup: fs.setup.map_or(base.setup, |d| d.0),
            bcp_processing: fs.bcp_processing.map_or(base.bcp_processing, |d| d.0),
            rate: fs.rate.map(|r| r.0),
            signalling: fs.signalling.unwrap_or(base.signalling),
            scheduler: fs.scheduler.map_or(base.scheduler, |k| k.kind()),
            conversion: fs.conversion.unwrap_or(base.conversion),
            ..base.clone()
        });
    }
    Ok(mine)
}

/// `obs.loss`: (p, scope, applies_to).
fn obs_loss(o: &ObsSpec) -> Result<(f64, LossScope, LossAppliesTo), ScenarioError> {
    Ok(match &o.loss {
        Some(l) => {
            if !(0.0..=1.0).contains(&l.p) {
                return Err(e(
                    "obs.loss.p",
                    format!("a probability must lie in [0, 1], got {}", l.p),
                ));
            }
            (l.p, l.scope, l.applies_to)
        }
        None => (0.0, LossScope::PerLink, LossAppliesTo::Data),
    })
}

/// `obs.drop_burst`: (edge node, queue key, sorted burst indices), in spec order.
fn drop_bursts(o: &ObsSpec, names: &Names) -> Result<Vec<(u32, String, Vec<u64>)>, ScenarioError> {
    let mut drop_bursts = Vec::new();
    for (i, d) in o.drop_bursts.iter().enumerate() {
        let fld = |s: &str| format!("obs.drop_burst[{i}].{s}");
        let n = *names
            .by_name
            .get(d.edge.as_str())
            .ok_or_else(|| e(fld("edge"), format!("unknown node '{}'", d.edge)))?;
        if names.nodes[n as usize].1 != NodeKind::Edge {
            return Err(e(fld("edge"), format!("'{}' is not an edge node", d.edge)));
        }
        let mut b = d.bursts.clone();
        b.sort_unstable();
        b.dedup();
        drop_bursts.push((n, d.queue.clone(), b));
    }
    Ok(drop_bursts)
}

/// `obs.class`.
fn classes(o: &ObsSpec, max_pkts_per_burst: u32) -> Result<Vec<ResolvedClass>, ScenarioError> {
    let mut classes = Vec::new();
    for (i, c) in o.classes.iter().enumerate() {
        if c.assembly.is_some() && o.classifier == Classifier::PerEgress {
            return Err(ScenarioError::new(
                format!("obs.class[{i}].assembly"),
                "a class's assembly needs obs.classifier = \"per_class\" (or \"per_flow\", \
                 where it is the default of the class's flows); with \"per_egress\" \
                 the queues mix classes: set the policy in [obs] or per edge node",
            ));
        }
        classes.push(ResolvedClass {
            name: c.name.clone().unwrap_or_else(|| format!("class{i}")),
            assembly: match &c.assembly {
                Some(a) => {
                    Some(a.resolve(&format!("obs.class[{i}].assembly"), max_pkts_per_burst)?)
                }
                None => None,
            },
            extra_offset: c.extra_offset.map_or(SimTime::ZERO, |d| d.0),
            fabric: c.fabric.clone(),
            offset: c.offset.map(|d| d.0),
            priority: c.priority.unwrap_or(0),
        });
    }
    Ok(classes)
}

/// `obs.control.rate` and `bcp_size`: one BCP's time on the control channel.
fn control_tx(o: &ObsSpec) -> Result<Option<SimTime>, ScenarioError> {
    Ok(match o.control.as_ref() {
        Some(c) if c.rate.is_some() => {
            let rate = c.rate.as_ref().expect("matched").0;
            if rate.bps() == 0 {
                return Err(e("obs.control.rate", "must be positive"));
            }
            let size = c.bcp_size.as_ref().map_or(100, |s| s.0);
            if size == 0 {
                return Err(e("obs.control.bcp_size", "must be positive"));
            }
            Some(rate.tx_time(size))
        }
        Some(c) if c.bcp_size.is_some() => {
            return Err(e(
                "obs.control.bcp_size",
                "needs obs.control.rate (without it BCPs take no time on the channel)",
            ))
        }
        _ => None,
    })
}

/// `obs.retransmit`: (max, hold).
fn retransmit(o: &ObsSpec) -> Result<Option<(u32, SimTime)>, ScenarioError> {
    Ok(match &o.retransmit {
        None => None,
        Some(t) if t.max == 0 => {
            return Err(e(
                "obs.retransmit.max",
                "must be at least 1 (leave out [obs.retransmit] for none)",
            ))
        }
        Some(t) if t.hold.0 == SimTime::ZERO => {
            return Err(e("obs.retransmit.hold", "must be positive"))
        }
        Some(t) => Some((t.max, t.hold.0)),
    })
}

/// `obs.control.loss` (0 when unset).
fn control_loss(o: &ObsSpec) -> Result<f64, ScenarioError> {
    Ok(match o.control.as_ref().and_then(|c| c.loss) {
        None => 0.0,
        Some(p) if (0.0..=1.0).contains(&p) => p,
        Some(p) => {
            return Err(e(
                "obs.control.loss",
                format!("a probability must lie in [0, 1], got {p}"),
            ))
        }
    })
}

/// `obs.ingress`: the ingress electronic buffer.
fn ingress(o: &ObsSpec) -> Result<Option<ResolvedIngress>, ScenarioError> {
    Ok(match &o.ingress {
        None => None,
        Some(g) => {
            if g.max_bursts == Some(0) {
                return Err(e(
                    "obs.ingress.max_bursts",
                    "must be at least 1 (leave out [obs.ingress] for no buffer)",
                ));
            }
            if g.max_bytes.is_some_and(|b| b.0 == 0) {
                return Err(e(
                    "obs.ingress.max_bytes",
                    "must be positive (leave out [obs.ingress] for no buffer)",
                ));
            }
            Some(ResolvedIngress {
                max_wait: g.max_wait.0,
                max_bursts: g.max_bursts,
                max_bytes: g.max_bytes.map(|b| b.0),
            })
        }
    })
}

impl AssemblySpec {
    /// Validates into an [`AssemblerConfig`]; `path` names this table in errors.
    pub fn resolve(&self, path: &str, max_pkts: u32) -> Result<AssemblerConfig, ScenarioError> {
        let given = [
            ("tb", self.tb.is_some()),
            ("jitter", self.jitter.is_some()),
            ("max_bytes", self.max_bytes.is_some()),
            ("max_pkts", self.max_pkts.is_some()),
            ("tmax", self.tmax.is_some()),
            ("lmax", self.lmax.is_some()),
            ("lmin", self.lmin.is_some()),
            ("window", self.window.is_some()),
            ("ack_ratio_max", self.ack_ratio_max.is_some()),
            ("object", self.object.is_some()),
            ("params", self.params.is_some()),
        ];
        let allowed: &[&str] = match self.kind {
            AssemblyType::Timer => &["tb", "jitter", "ack_ratio_max"],
            AssemblyType::Length => &["max_bytes", "max_pkts", "ack_ratio_max"],
            AssemblyType::Hybrid => &["tmax", "lmax", "lmin", "ack_ratio_max"],
            AssemblyType::Cwba | AssemblyType::Mcwba => &["window", "tmax"],
            AssemblyType::Ecwba => &["tmax"],
            AssemblyType::Python => &["object", "params"],
        };
        if let Some((f, _)) = given.iter().find(|(f, g)| *g && !allowed.contains(f)) {
            return Err(e(
                format!("{path}.{f}"),
                format!("does not apply to {:?} assembly", self.kind).to_lowercase(),
            ));
        }
        let need = |f: &str, v: Option<Dur>| {
            v.map(|d| d.0)
                .ok_or_else(|| e(format!("{path}.{f}"), "required"))
        };
        let cfg = match self.kind {
            AssemblyType::Timer => AssemblerConfig::Timer {
                tb: need("tb", self.tb)?,
                jitter_sd_frac: match self.jitter {
                    Some(j) if !(j.is_finite() && (0.0..=10.0).contains(&j)) => {
                        return Err(e(
                            format!("{path}.jitter"),
                            format!(
                                "the standard deviation of the period as a fraction of tb \
                                 must lie in [0, 10] (got {j})"
                            ),
                        ))
                    }
                    j => j.unwrap_or(0.0),
                },
            },
            AssemblyType::Length => AssemblerConfig::Length {
                max_bytes: self.max_bytes.map(|s| s.0),
                max_pkts: self.max_pkts,
            },
            AssemblyType::Hybrid => AssemblerConfig::Hybrid {
                tmax: need("tmax", self.tmax)?,
                lmax_bytes: self
                    .lmax
                    .ok_or_else(|| e(format!("{path}.lmax"), "required"))?
                    .0,
                lmin_bytes: self.lmin.map(|s| s.0),
            },
            AssemblyType::Cwba | AssemblyType::Mcwba | AssemblyType::Ecwba => {
                use crate::obs::WindowSource as W;
                let window = match (self.kind, self.window) {
                    (AssemblyType::Ecwba, _) => W::RenoFsm,
                    (_, Some(WindowName::Mark)) => W::Mark,
                    (_, Some(WindowName::Oracle)) => W::Oracle,
                    (_, Some(WindowName::Estimator)) => W::Estimator,
                    (_, Some(WindowName::RenoFsm)) => W::RenoFsm,
                    (AssemblyType::Mcwba, None) => W::Mark,
                    (_, None) => return Err(e(format!("{path}.window"), "required")),
                };
                let tmax = match self.kind {
                    // MCWBA is CWBA *or timer expiry* (ozsarac §2.2): no timer, no MCWBA.
                    AssemblyType::Mcwba => Some(need("tmax", self.tmax)?),
                    _ => self.tmax.map(|d| d.0),
                };
                AssemblerConfig::Window { window, tmax }
            }
            AssemblyType::Python => {
                let object = self
                    .object
                    .clone()
                    .ok_or_else(|| e(format!("{path}.object"), "required (\"module:Class\")"))?;
                let ok = object
                    .split_once(':')
                    .is_some_and(|(m, c)| !m.trim().is_empty() && !c.trim().is_empty());
                if !ok {
                    return Err(e(
                        format!("{path}.object"),
                        format!("must be \"module:Class\", got {object:?}"),
                    ));
                }
                let params = self.params.clone().unwrap_or_default();
                AssemblerConfig::External(std::sync::Arc::new(crate::obs::ExternalSpec {
                    object,
                    params_json: serde_json::Value::Object(params).to_string(),
                    path: path.to_string(),
                }))
            }
        };
        // zhou §3: the type's policy becomes the trigger of ACK-ratio assembly.
        let cfg = match (
            self.ack_ratio_max,
            crate::obs::AckRatioBase::of(cfg.clone()),
        ) {
            (Some(r_max), Some(base)) => AssemblerConfig::AckRatio { base, r_max },
            _ => cfg,
        };
        crate::obs::validate_assembler_at(path, &cfg, max_pkts).map_err(split_field)?;
        Ok(cfg)
    }
}

/// ACK-ratio assembly (zhou §3) limits the ACKs *in bursts*: it is an error when ACKs
/// bypass the core (`obs.ack_mode = "bypass"`), named at the assembly that asks for it.
pub(super) fn check_ack_ratio(
    o: &ResolvedObs,
    node_assembly: &[Option<AssemblerConfig>],
    flows: &[ResolvedFlow],
) -> Result<(), ScenarioError> {
    if o.ack_mode != AckMode::Bypass {
        return Ok(());
    }
    let ratio = |c: &Option<AssemblerConfig>| matches!(c, Some(AssemblerConfig::AckRatio { .. }));
    let mut at = None;
    if ratio(&Some(o.assembly.clone())) {
        at = Some("obs.assembly".to_string());
    }
    for (i, c) in o.classes.iter().enumerate() {
        if at.is_none() && ratio(&c.assembly) {
            at = Some(format!("obs.class[{i}].assembly"));
        }
    }
    for (i, a) in node_assembly.iter().enumerate() {
        if at.is_none() && ratio(a) {
            at = Some(format!("node[{i}].assembly"));
        }
    }
    for (i, f) in flows.iter().enumerate() {
        if at.is_none() && ratio(&f.assembly) {
            at = Some(format!("flow[{i}].assembly"));
        }
    }
    match at {
        Some(path) => Err(e(
            format!("{path}.ack_ratio_max"),
            "ACK-ratio assembly limits the ACKs in bursts, but obs.ack_mode = \"bypass\" sends ACKs around the core; use ack_mode = \"assemble\"",
        )),
        None => Ok(()),
    }
}
