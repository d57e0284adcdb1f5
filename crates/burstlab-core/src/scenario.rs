//! The declarative scenario: what a user writes (TOML, or JSON / a Python dict), parsed
//! with serde and validated here — the one source of truth for the schema.
//!
//! Every error names the field it is about, e.g. `link[2].rate: a rate must be positive`.
//! Parsing goes through `serde_path_to_error` so that type errors carry their path too.
//!
//! Quantities accept readable strings: durations `"10ms"`, rates `"10Gb/s"` / `"125MB/s"`,
//! sizes `"1000B"`; bare numbers mean seconds, bits per second and bytes respectively.

use crate::tcp::{Profile, TcpConfig, Variant};
use crate::units::{parse_bytes, parse_duration, parse_rate, BitRate, SimTime};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;

/// A scenario error: the field path and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub reason: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}
impl std::error::Error for ScenarioError {}

// ---------------------------------------------------------------------------------------
// Quantity wrappers that deserialise from numbers or unit strings.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dur(pub SimTime);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => SimTime::from_secs_f64(x)
                .map(Dur)
                .map_err(de::Error::custom),
            NumOrStr::Str(s) => parse_duration(&s).map(Dur).map_err(de::Error::custom),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub BitRate);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => {
                if !(x.is_finite() && x >= 1.0) {
                    return Err(de::Error::custom(format!(
                        "a rate must be positive (at least 1 b/s), got {x}"
                    )));
                }
                Ok(Rate(BitRate(x.round() as u64)))
            }
            NumOrStr::Str(s) => parse_rate(&s).map(Rate).map_err(de::Error::custom),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(x) => {
                if !(x.is_finite() && x >= 0.0) {
                    return Err(de::Error::custom(format!(
                        "a size must be a non-negative number of bytes, got {x}"
                    )));
                }
                Ok(Size(x.round() as u64))
            }
            NumOrStr::Str(s) => parse_bytes(&s).map(Size).map_err(de::Error::custom),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrStr {
    Num(f64),
    Str(String),
}

// ---------------------------------------------------------------------------------------
// The file format.

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub sim: SimSpec,
    #[serde(default, alias = "node")]
    pub nodes: Vec<NodeSpec>,
    #[serde(default, alias = "link")]
    pub links: Vec<LinkSpec>,
    #[serde(default, alias = "flow")]
    pub flows: Vec<FlowSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Simulated time to run.
    pub duration: Dur,
    /// Master seed (overridable from the CLI / API).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Replication index: with the seed, selects the random substreams.
    #[serde(default)]
    pub replication: u64,
    /// Statistics ignore everything before this time.
    #[serde(default)]
    pub warmup: Option<Dur>,
    #[serde(default)]
    pub trace: TraceSpec,
}

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Record (time, cwnd, ssthresh) at every change of every TCP flow.
    #[serde(default)]
    pub cwnd: bool,
    /// Record every data segment sent, received and dropped.
    #[serde(default)]
    pub packets: bool,
    /// Only these flow indices (default: all).
    #[serde(default)]
    pub flows: Option<Vec<u32>>,
    #[serde(default)]
    pub start: Option<Dur>,
    #[serde(default)]
    pub end: Option<Dur>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default = "default_node_kind")]
    pub kind: NodeKind,
}

fn default_node_kind() -> NodeKind {
    NodeKind::Router
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// End points (node names). A duplex link (the default) creates both directions.
    pub a: String,
    pub b: String,
    pub rate: Rate,
    pub delay: Dur,
    /// Drop-tail limit in packets waiting (excluding the one being transmitted).
    #[serde(default)]
    pub queue_pkts: Option<u64>,
    /// Drop-tail limit in bytes waiting.
    #[serde(default)]
    pub queue_bytes: Option<Size>,
    /// Independent per-packet loss probability in both directions.
    #[serde(default)]
    pub loss: Option<f64>,
    /// Per-direction loss probabilities (override `loss`).
    #[serde(default)]
    pub loss_ab: Option<f64>,
    #[serde(default)]
    pub loss_ba: Option<f64>,
    #[serde(default = "default_true")]
    pub duplex: bool,
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowType {
    /// A TCP bulk (FTP) transfer, infinite unless `segments` is given.
    Tcp,
    /// Constant-bit-rate UDP.
    Cbr,
    /// UDP with exponentially distributed on and off periods; sends at `rate` while on.
    Onoff,
}

/// One `[[flow]]`. A flat record (rather than an internally tagged enum) so that errors
/// keep their exact field path; fields that do not apply to the flow's `type` are
/// rejected during validation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(rename = "type", default = "default_flow_type")]
    pub kind: FlowType,
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start: Option<Dur>,
    #[serde(default)]
    pub stop: Option<Dur>,
    #[serde(default)]
    pub route: Option<Vec<String>>,
    #[serde(default)]
    pub reverse_route: Option<Vec<String>>,
    // --- TCP
    #[serde(default)]
    pub variant: Option<Variant>,
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Finite transfer of this many segments (default: infinite FTP source).
    #[serde(default)]
    pub segments: Option<u64>,
    /// Deterministic loss injection: drop the first transmission of these segment
    /// ranges (inclusive pairs `[first, last]`).
    #[serde(default)]
    pub drop_segments: Option<Vec<[u64; 2]>>,
    #[serde(default)]
    pub mss: Option<Size>,
    #[serde(default)]
    pub header_bytes: Option<Size>,
    #[serde(default)]
    pub ack_bytes: Option<Size>,
    #[serde(default)]
    pub wm: Option<u32>,
    #[serde(default)]
    pub init_cwnd: Option<u32>,
    #[serde(default)]
    pub init_ssthresh: Option<u32>,
    #[serde(default)]
    pub dupack_thresh: Option<u32>,
    /// Segments acknowledged per ACK, `b` of the models: 1 or 2 (delayed ACK).
    #[serde(default)]
    pub b: Option<u32>,
    #[serde(default)]
    pub delack_timeout: Option<Dur>,
    #[serde(default)]
    pub min_rto: Option<Dur>,
    #[serde(default)]
    pub max_rto: Option<Dur>,
    #[serde(default)]
    pub init_rto: Option<Dur>,
    #[serde(default)]
    pub clock_granularity: Option<Dur>,
    #[serde(default)]
    pub max_backoff: Option<u32>,
    #[serde(default)]
    pub sack_blocks: Option<u8>,
    // --- UDP (cbr, onoff)
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub packet_size: Option<Size>,
    #[serde(default)]
    pub mean_on: Option<Dur>,
    #[serde(default)]
    pub mean_off: Option<Dur>,
}

fn default_flow_type() -> FlowType {
    FlowType::Tcp
}

impl FlowSpec {
    /// Fields that were given but do not apply to this flow type.
    fn misplaced(&self) -> Option<&'static str> {
        let tcp_only = [
            ("variant", self.variant.is_some()),
            ("profile", self.profile.is_some()),
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
        let bad = match self.kind {
            FlowType::Tcp => udp_only.iter().chain(onoff_only.iter()).find(|x| x.1),
            FlowType::Cbr => tcp_only.iter().chain(onoff_only.iter()).find(|x| x.1),
            FlowType::Onoff => tcp_only.iter().find(|x| x.1),
        };
        bad.map(|x| x.0)
    }
}

// ---------------------------------------------------------------------------------------
// Parsing entry points.

impl ScenarioSpec {
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::parse(text)
            .map_err(|e| ScenarioError::new("", format!("malformed TOML: {}", e.message())))?;
        serde_path_to_error::deserialize(de)
            .map_err(|e| path_error(e.path().to_string(), e.inner().message().to_string()))
    }

    pub fn from_json_str(text: &str) -> Result<Self, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let msg = e.inner().to_string();
            // serde_json appends " at line L column C"; keep it only for syntax errors.
            path_error(e.path().to_string(), msg)
        })
    }
}

fn path_error(path: String, msg: String) -> ScenarioError {
    // serde_path_to_error renders sequence indices as `links[2].rate`; our docs use the
    // same form. The root path is ".".
    let field = if path == "." {
        String::new()
    } else {
        path.replace("nodes[", "node[")
            .replace("links[", "link[")
            .replace("flows[", "flow[")
    };
    ScenarioError::new(field, msg)
}

// ---------------------------------------------------------------------------------------
// Validation into a resolved model the simulator builds from.

/// A validated scenario with names resolved to indices and defaults filled in.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub name: String,
    pub duration: SimTime,
    pub warmup: SimTime,
    pub seed: u64,
    pub replication: u64,
    pub trace: TraceSpec,
    pub nodes: Vec<(String, NodeKind)>,
    /// One entry per direction.
    pub links: Vec<ResolvedLink>,
    pub flows: Vec<ResolvedFlow>,
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
}

impl ScenarioSpec {
    /// Validates and resolves. `seed` / `replication` override the file's values.
    pub fn resolve(
        &self,
        seed: Option<u64>,
        replication: Option<u64>,
    ) -> Result<Resolved, ScenarioError> {
        if self.sim.duration.0 == SimTime::ZERO {
            return Err(e("sim.duration", "must be positive"));
        }
        let warmup = self.sim.warmup.map(|d| d.0).unwrap_or(SimTime::ZERO);
        if warmup >= self.sim.duration.0 {
            return Err(e("sim.warmup", "must be shorter than sim.duration"));
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
        let lookup = |field: String, name: &str| -> Result<u32, ScenarioError> {
            by_name
                .get(name)
                .copied()
                .ok_or_else(|| ScenarioError::new(field, format!("unknown node '{name}'")))
        };
        let mut links = Vec::new();
        for (i, l) in self.links.iter().enumerate() {
            let a = lookup(format!("link[{i}].a"), &l.a)?;
            let b = lookup(format!("link[{i}].b"), &l.b)?;
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
        // Adjacency (directed) for routing and route checks.
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        for l in &links {
            adj[l.from as usize].push(l.to);
        }
        for v in adj.iter_mut() {
            v.sort_unstable();
            v.dedup();
        }
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let fld = |s: &str| format!("flow[{i}].{s}");
            if let Some(m) = f.misplaced() {
                return Err(e(
                    fld(m),
                    format!("does not apply to a flow of type {:?}", f.kind).to_lowercase(),
                ));
            }
            let (name, src, dst, start, stop, route, rroute) = (
                &f.name,
                &f.src,
                &f.dst,
                f.start,
                f.stop,
                &f.route,
                &f.reverse_route,
            );
            let s = lookup(fld("src"), src)?;
            let d = lookup(fld("dst"), dst)?;
            if s == d {
                return Err(e(fld("dst"), "source and destination must differ"));
            }
            for (nm, ix) in [("src", s), ("dst", d)] {
                if nodes[ix as usize].1 != NodeKind::Host {
                    return Err(e(
                        fld(nm),
                        format!(
                            "node '{}' is a router; flows start and end at hosts",
                            nodes[ix as usize].0
                        ),
                    ));
                }
            }
            let start = start.map(|x| x.0).unwrap_or(SimTime::ZERO);
            let stop = stop.map(|x| x.0);
            if let Some(st) = stop {
                if st <= start {
                    return Err(e(fld("stop"), "must be later than start"));
                }
            }
            let route = match route {
                Some(r) => explicit_route(&fld("route"), r, s, d, &lookup, &adj)?,
                None => shortest_route(&adj, s, d).ok_or_else(|| {
                    e(
                        fld("dst"),
                        format!("unreachable: no path from '{src}' to '{dst}'"),
                    )
                })?,
            };
            let reverse_route = match rroute {
                Some(r) => explicit_route(&fld("reverse_route"), r, d, s, &lookup, &adj)?,
                None => shortest_route(&adj, d, s).ok_or_else(|| {
                    e(
                        fld("src"),
                        format!("unreachable: no return path from '{dst}' to '{src}'"),
                    )
                })?,
            };
            let kind = match f.kind {
                FlowType::Tcp => ResolvedFlowKind::Tcp {
                    cfg: tcp_config(f, &fld)?,
                    segments: f.segments,
                    drop_segments: drop_ranges(f, &fld)?,
                },
                FlowType::Cbr | FlowType::Onoff => {
                    let rate = f
                        .rate
                        .ok_or_else(|| e(fld("rate"), "required for a UDP flow"))?
                        .0;
                    let packet_size =
                        pkt_size(f.packet_size.unwrap_or(Size(1000)), &fld("packet_size"))?;
                    if f.kind == FlowType::Cbr {
                        ResolvedFlowKind::Cbr { rate, packet_size }
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
                    }
                }
            };
            flows.push(ResolvedFlow {
                name: name.clone().unwrap_or_else(|| format!("flow{i}")),
                src: s,
                dst: d,
                start,
                stop,
                route,
                reverse_route,
                kind,
            });
        }
        Ok(Resolved {
            name: self.name.clone().unwrap_or_else(|| "scenario".into()),
            duration: self.sim.duration.0,
            warmup,
            seed: seed.unwrap_or(self.sim.seed),
            replication: replication.unwrap_or(self.sim.replication),
            trace: self.sim.trace.clone(),
            nodes,
            links,
            flows,
        })
    }
}

fn e(field: impl Into<String>, reason: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, reason)
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
                "range must be [first, last] with first <= last",
            ));
        }
        v.push((r[0], r[1]));
    }
    v.sort_unstable();
    Ok(v)
}

fn tcp_config(t: &FlowSpec, fld: &dyn Fn(&str) -> String) -> Result<TcpConfig, ScenarioError> {
    let e = |f: &str, r: String| ScenarioError::new(fld(f), r);
    let mut c = TcpConfig::defaults(
        t.variant.unwrap_or(Variant::Reno),
        t.profile.unwrap_or(Profile::Ns2),
    );
    if let Some(m) = t.mss {
        if m.0 == 0 || m.0 > 1 << 24 {
            return Err(e(
                "mss",
                format!("must be between 1 B and 16 MiB, got {} B", m.0),
            ));
        }
        c.mss = m.0 as u32;
    }
    if let Some(h) = t.header_bytes {
        c.header_bytes = u32::try_from(h.0).map_err(|_| e("header_bytes", "too large".into()))?;
    }
    if let Some(a) = t.ack_bytes {
        if a.0 == 0 || a.0 > 1 << 20 {
            return Err(e(
                "ack_bytes",
                format!("must be between 1 B and 1 MiB, got {}", a.0),
            ));
        }
        c.ack_bytes = a.0 as u32;
    }
    if let Some(w) = t.wm {
        if w == 0 {
            return Err(e(
                "wm",
                "the maximum window must be at least 1 segment".into(),
            ));
        }
        c.wm = w;
        // ns-2's TcpAgent::reset() starts ssthresh_ at window_ (the maximum window).
        if c.profile == Profile::Ns2 {
            c.init_ssthresh = w.max(2);
        }
    }
    if let Some(w) = t.init_cwnd {
        if w == 0 {
            return Err(e("init_cwnd", "must be at least 1 segment".into()));
        }
        c.init_cwnd = w;
    }
    if let Some(s) = t.init_ssthresh {
        if s < 2 {
            return Err(e("init_ssthresh", "must be at least 2 segments".into()));
        }
        c.init_ssthresh = s;
    }
    if let Some(d) = t.dupack_thresh {
        if d == 0 {
            return Err(e("dupack_thresh", "must be at least 1".into()));
        }
        c.dupack_thresh = d;
    }
    if let Some(b) = t.b {
        c.delayed_ack = match b {
            1 => false,
            2 => true,
            _ => return Err(e("b", format!("segments per ACK must be 1 or 2, got {b}"))),
        };
    }
    if let Some(d) = t.delack_timeout {
        if d.0 == SimTime::ZERO {
            return Err(e("delack_timeout", "must be positive".into()));
        }
        c.delack_timeout = d.0;
    }
    if let Some(d) = t.min_rto {
        c.min_rto = d.0;
    }
    if let Some(d) = t.max_rto {
        c.max_rto = d.0;
    }
    if let Some(d) = t.init_rto {
        if d.0 == SimTime::ZERO {
            return Err(e("init_rto", "must be positive".into()));
        }
        c.init_rto = d.0;
    }
    if let Some(d) = t.clock_granularity {
        c.clock_granularity = d.0;
    }
    if let Some(b) = t.max_backoff {
        if b == 0 {
            return Err(e("max_backoff", "must be at least 1".into()));
        }
        c.max_backoff = b;
    }
    if let Some(s) = t.sack_blocks {
        if !(1..=4).contains(&s) {
            return Err(e("sack_blocks", format!("must be 1 to 4, got {s}")));
        }
        c.sack_blocks = s;
    }
    if c.max_rto < c.min_rto {
        return Err(e("max_rto", "must not be below min_rto".into()));
    }
    Ok(c)
}

fn explicit_route(
    field: &str,
    names: &[String],
    s: u32,
    d: u32,
    lookup: &dyn Fn(String, &str) -> Result<u32, ScenarioError>,
    adj: &[Vec<u32>],
) -> Result<Vec<u32>, ScenarioError> {
    let mut r = Vec::new();
    for (k, n) in names.iter().enumerate() {
        r.push(lookup(format!("{field}[{k}]"), n)?);
    }
    if r.first() != Some(&s) || r.last() != Some(&d) {
        return Err(ScenarioError::new(
            field,
            "must start at the flow's source and end at its destination",
        ));
    }
    for (k, w) in r.windows(2).enumerate() {
        if adj[w[0] as usize].binary_search(&w[1]).is_err() {
            return Err(ScenarioError::new(
                format!("{field}[{}]", k + 1),
                format!("no link from '{}' to '{}'", names[k], names[k + 1]),
            ));
        }
    }
    Ok(r)
}

/// Fewest-hops path by breadth-first search; ties go to the lower-numbered neighbour,
/// so routes are deterministic.
pub fn shortest_route(adj: &[Vec<u32>], s: u32, d: u32) -> Option<Vec<u32>> {
    let n = adj.len();
    let mut prev = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    let mut q = std::collections::VecDeque::new();
    seen[s as usize] = true;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        if u == d {
            break;
        }
        for &v in &adj[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = u;
                q.push_back(v);
            }
        }
    }
    if !seen[d as usize] {
        return None;
    }
    let mut path = vec![d];
    let mut cur = d;
    while cur != s {
        cur = prev[cur as usize];
        path.push(cur);
    }
    path.reverse();
    Some(path)
}
