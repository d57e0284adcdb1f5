//! The declarative scenario: what a user writes (TOML, or JSON / a Python dict), parsed
//! with serde and validated here — the one source of truth for the schema.
//!
//! Every error names the field it is about, e.g. `link[2].rate: a rate must be positive`.
//! Parsing goes through `serde_path_to_error` so that type errors carry their path too.
//!
//! Quantities accept readable strings: durations `"10ms"`, rates `"10Gb/s"` / `"125MB/s"`,
//! sizes `"1000B"`; bare numbers mean seconds, bits per second and bytes respectively.

use crate::obs::AssemblerConfig;
use crate::tcp::{CcKind, CubicSsthresh, Ns2Version, Profile, RecoveryKind, TcpConfig, Variant};
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
    /// Optical fibres between OBS nodes (`edge`, `core`).
    #[serde(default, alias = "fibre", alias = "fiber", alias = "fibers")]
    pub fibres: Vec<FibreSpec>,
    /// OBS settings shared by all edge and core nodes (see [`ObsSpec`]).
    #[serde(default)]
    pub obs: Option<ObsSpec>,
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
    /// Memory the run may use for packets, events and traces (default 4 GiB). A run
    /// that needs more stops with an error naming the likely cause (an unlimited queue
    /// under overload, a long trace) instead of exhausting the machine.
    #[serde(default)]
    pub max_memory: Option<Size>,
    /// Events the run may handle (default 10^12; see `events`): a scenario whose
    /// estimate exceeds it is refused before it runs, and a run that reaches it stops
    /// with an error, so that no run takes far too long or hangs.
    #[serde(default)]
    pub max_events: Option<Count>,
}

/// A count given as an integer or a number such as `1e9` (rounded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        if !(0.0..1.8e19).contains(&x) {
            return Err(de::Error::custom(format!(
                "a count must be a non-negative number below 2^64, got {x}"
            )));
        }
        Ok(Count(x.round() as u64))
    }
}

/// The fastest a UDP source may send (packets per second; one event each).
pub const MAX_PKTS_PER_SEC: f64 = 1e9;

/// Default of `sim.max_memory`.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

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
    /// Record every burst formed, lost and delivered (OBS scenarios).
    #[serde(default)]
    pub bursts: bool,
    /// Record the congestion controller's state (CUBIC's W_max, epoch and K, Vegas's
    /// base RTT and diff, BBR's mode, pacing rate, BtlBw and RTprop) of every flow with
    /// a modern controller (`cc` other than `aimd`) whenever a sender call changes it.
    #[serde(default)]
    pub cc: bool,
    /// Sample every TCP flow's in-order delivered segments (cumulative from the start)
    /// at this interval: a goodput time series for warm-up detection and batch means.
    #[serde(default)]
    pub goodput: Option<Dur>,
    /// Stream the traces to `<dir>/<table>.csv` while the run goes, in bounded memory,
    /// instead of holding them (a relative path is taken from the working directory).
    /// The files are what `burstlab run --out` writes for the in-memory tables, byte
    /// for byte.
    #[serde(default)]
    pub dir: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Host,
    Router,
    /// OBS edge node: ingress (assembly) and egress (disassembly) between packet links
    /// and fibres.
    Edge,
    /// Bufferless OBS core switch: fibres only.
    Core,
}

impl NodeKind {
    /// Edge and core nodes are optical (joined by fibres, not packet links).
    pub fn is_obs(self) -> bool {
        matches!(self, NodeKind::Edge | NodeKind::Core)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default = "default_node_kind")]
    pub kind: NodeKind,
    /// Edge/core only: this node's switch set-up time (overrides `obs.switch_setup`;
    /// e.g. a slow MEMS fabric, hybrid §II).
    #[serde(default)]
    pub switch_setup: Option<Dur>,
    /// Edge only: assembly policy of this ingress (overrides `obs.assembly`; a flow's or
    /// class's own `assembly` wins over it).
    #[serde(default)]
    pub assembly: Option<AssemblySpec>,
    /// Edge/core only: the node's switching fabrics (`[[node.fabric]]`; hybrid §II's
    /// MEMS and SOA fabrics side by side). Without any, the node has one fabric named
    /// `default` with the global `[obs]` settings and `switch_setup`.
    #[serde(default, alias = "fabrics")]
    pub fabric: Vec<FabricSpec>,
}

/// One switching fabric of an OBS node. Unset fields take the `[obs]` values (and
/// `setup` the node's `switch_setup`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSpec {
    pub name: String,
    /// Switch set-up time.
    #[serde(default)]
    pub setup: Option<Dur>,
    /// BCP processing time δ of this fabric.
    #[serde(default)]
    pub bcp_processing: Option<Dur>,
    /// Line rate per wavelength of the fibres that leave the node through this fabric
    /// (used when a fibre gives no `rate`).
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub signalling: Option<Signalling>,
    #[serde(default)]
    pub scheduler: Option<SchedulerName>,
    #[serde(default)]
    pub conversion: Option<bool>,
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
    /// UDP with Poisson packet arrivals (exponential gaps) and exponentially distributed
    /// packet sizes of mean `packet_size`, at mean `rate`: with one packet per burst,
    /// Poisson bursts of exponential length (the Erlang B set-up,
    /// docs/topics/contention.md).
    Poisson,
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
    /// Loss-recovery variant (default `reno`).
    #[serde(default)]
    pub variant: Option<Variant>,
    /// Congestion controller, independent of the variant (default `aimd`).
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// cwnd during SACK fast recovery under the `rfc` profile: `"rfc6675"` (default,
    /// cwnd = ssthresh at once) or `"prr"` (Proportional Rate Reduction, RFC 6937).
    #[serde(default)]
    pub recovery: Option<RecoveryKind>,
    /// CUBIC under the `rfc` profile: ssthresh = β_cubic · `"flight_size"` (default, RFC
    /// 9438 §4.6) or · `"cwnd"` (Linux's and ns-3's).
    #[serde(default)]
    pub cubic_ssthresh: Option<CubicSsthresh>,
    #[serde(default)]
    pub profile: Option<Profile>,
    /// ns-2 release whose `Agent/TCP` defaults the `ns2` profile starts from (default
    /// `"2.35"`); explicit settings such as `min_rto` override the preset.
    #[serde(default)]
    pub ns2_version: Option<Ns2Version>,
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
    // --- ns-2.35 behaviour switches (`profile = "ns2"` only; `tcp/ns2.rs`).
    /// ns-2 `syn_`: a header-only SYN (segment 0) before data.
    #[serde(default)]
    pub syn: Option<bool>,
    /// ns-2 `singledup_`: Limited Transmit.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// ns-2 `precisionReduce_`: halve the window as a real number.
    #[serde(default)]
    pub precision_reduce: Option<bool>,
    /// ns-2 `bugFix_`: one fast retransmit per window of data.
    #[serde(default)]
    pub bug_fix: Option<bool>,
    /// ns-2 Newreno `newreno_changes1_`: reset the timer on the first partial ACK only.
    #[serde(default)]
    pub newreno_changes1: Option<bool>,
    /// ns-2 Newreno `partial_window_deflation_`.
    #[serde(default)]
    pub partial_window_deflation: Option<bool>,
    /// ns-2 Sack1 `partial_ack_`.
    #[serde(default)]
    pub sack_partial_ack: Option<bool>,
    /// ns-2 `boot_time_`: phase of the coarse RTT clock in `[0, clock_granularity)`.
    #[serde(default)]
    pub clock_phase: Option<Dur>,
    // --- UDP (cbr, onoff)
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub packet_size: Option<Size>,
    #[serde(default)]
    pub mean_on: Option<Dur>,
    #[serde(default)]
    pub mean_off: Option<Dur>,
    // --- OBS
    /// Class (index into `obs.class`, default 0): under `per_class` it picks the
    /// flow's queue; under `per_flow` it sets the flow's offset, fabric and default
    /// assembly; `per_egress` rejects it (its queues mix classes).
    #[serde(default)]
    pub class: Option<u32>,
    /// Assembly policy of this flow's queues (`per_flow` classifier only).
    #[serde(default)]
    pub assembly: Option<AssemblySpec>,
}

fn default_flow_type() -> FlowType {
    FlowType::Tcp
}

impl FlowSpec {
    /// Fields that were given but do not apply to this flow type.
    fn misplaced(&self) -> Option<&'static str> {
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
        let bad = match self.kind {
            FlowType::Tcp => udp_only.iter().chain(onoff_only.iter()).find(|x| x.1),
            FlowType::Cbr => tcp_only.iter().chain(onoff_only.iter()).find(|x| x.1),
            FlowType::Onoff => tcp_only.iter().find(|x| x.1),
            FlowType::Poisson => tcp_only.iter().chain(onoff_only.iter()).find(|x| x.1),
        };
        bad.map(|x| x.0)
    }
}

// ---------------------------------------------------------------------------------------
// Optical burst switching.

/// One `[[fibre]]`: a fibre between two OBS nodes with `wavelengths` data channels (plus
/// a control channel that carries the burst control packets and is never congested).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FibreSpec {
    pub a: String,
    pub b: String,
    /// Line rate of each data wavelength (default: the `rate` of the fabric at the
    /// sending end).
    #[serde(default)]
    pub rate: Option<Rate>,
    /// The fabric the fibre attaches to at node `a` / `b` (default: the node's first).
    #[serde(default)]
    pub fabric_a: Option<String>,
    #[serde(default)]
    pub fabric_b: Option<String>,
    /// Propagation delay; give either `delay` or `length_km` (5 µs per km).
    #[serde(default)]
    pub delay: Option<Dur>,
    #[serde(default)]
    pub length_km: Option<f64>,
    /// Data wavelengths `k` per direction (default 1).
    #[serde(default = "default_wavelengths")]
    pub wavelengths: u32,
    /// Per-burst loss probability on this fibre (overrides `obs.loss.p`; `per_link`
    /// scope only).
    #[serde(default)]
    pub loss: Option<f64>,
    #[serde(default = "default_true")]
    pub duplex: bool,
}

fn default_wavelengths() -> u32 {
    1
}

/// An assembly policy. A flat record with a `type` (not an internally tagged enum, so
/// errors keep their field path); fields that do not apply to the type are rejected.
///
/// - `type = "timer"`: `tb` (required), `jitter` (sd as a fraction of `tb`, ozsarac §3.3);
/// - `type = "length"`: `max_bytes` and/or `max_pkts`;
/// - `type = "hybrid"`: `tmax`, `lmax` (bytes) required, `lmin` (padding) optional;
/// - `type = "cwba"` (ozsarac §2.1): `window` required (`mark` | `oracle` | `estimator`
///   | `reno_fsm`), `tmax` optional (then it is MCWBA);
/// - `type = "mcwba"` (ozsarac §2.2): `tmax` required, `window` optional (`mark`);
/// - `type = "ecwba"` (ozsarac §2.3): CWBA on the ingress's Reno state-machine
///   estimate; `tmax` optional.
///
/// Window-based types need the `per_flow` classifier and a TCP flow.
///
/// `ack_ratio_max` (timer, length and hybrid): ACK-ratio assembly (zhou §3) with that
/// `R_MAX` in [0, 1] — the type's trigger forms the bursts, at most that share of each
/// burst's packets are ACKs, surplus ACKs wait in an extra queue with priority
/// (`obs::AckRatioBase`). Needs `obs.ack_mode = "assemble"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssemblySpec {
    #[serde(rename = "type")]
    pub kind: AssemblyType,
    #[serde(default)]
    pub tb: Option<Dur>,
    #[serde(default)]
    pub jitter: Option<f64>,
    #[serde(default)]
    pub max_bytes: Option<Size>,
    #[serde(default)]
    pub max_pkts: Option<u32>,
    #[serde(default)]
    pub tmax: Option<Dur>,
    #[serde(default)]
    pub lmax: Option<Size>,
    #[serde(default)]
    pub lmin: Option<Size>,
    /// `cwba`: where the window comes from (`mark` | `oracle` | `estimator`).
    #[serde(default)]
    pub window: Option<WindowName>,
    /// ACK-ratio assembly (zhou §3): the largest share of ACKs in a burst, `R_MAX`.
    #[serde(default)]
    pub ack_ratio_max: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssemblyType {
    Timer,
    Length,
    Hybrid,
    /// Window-based (ozsarac §2.1 CWBA), with an optional `tmax` cap (§2.2 MCWBA).
    Cwba,
    /// CWBA with a required `tmax` cap (ozsarac §2.2).
    Mcwba,
    /// CWBA driven by the ingress's Reno state-machine estimate (ozsarac §2.3).
    Ecwba,
}

/// The window source of `cwba` assembly (see `obs::WindowSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowName {
    /// The sender's mark on the segment that fills its window.
    Mark,
    /// The flow's true cwnd (a diagnostic oracle).
    Oracle,
    /// The edge's passive flight estimate.
    Estimator,
    /// The ingress's replica of the sender's Reno state machine (ozsarac §2.3).
    #[serde(rename = "reno_fsm")]
    RenoFsm,
}

/// Which assembly queue an arriving packet joins at the ingress edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Classifier {
    /// One queue per (flow, OBS route): yu §II's per-flow assembly.
    #[default]
    PerFlow,
    /// One queue per (egress, OBS route), shared by all flows: mixed-flow assembly.
    PerEgress,
    /// One queue per (egress, OBS route, flow class).
    PerClass,
}

/// What happens to TCP ACKs crossing the OBS network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AckMode {
    /// ACKs are assembled and switched like data (yu: RTT = RTT0 + 2·Tb).
    #[default]
    Assemble,
    /// ACKs cross the core as packets, never assembled or lost (ozsarac §3).
    Bypass,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerName {
    Ffuc,
    Lauc,
    #[default]
    Laucvf,
}

impl SchedulerName {
    pub fn kind(self) -> crate::obs::SchedulerKind {
        match self {
            SchedulerName::Ffuc => crate::obs::SchedulerKind::Ffuc,
            SchedulerName::Lauc => crate::obs::SchedulerKind::Lauc,
            SchedulerName::Laucvf => crate::obs::SchedulerKind::LaucVf,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Signalling {
    /// Just-enough-time: reserve `[burst arrival, burst end)` at each hop.
    #[default]
    Jet,
    /// Just-in-time: reserve from the end of BCP processing until the burst end.
    Jit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LossScope {
    /// Each fibre hop drops a burst independently with probability `p`.
    #[default]
    PerLink,
    /// A burst is lost once per path with probability `p` (whatever the hop count).
    PerPath,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LossAppliesTo {
    /// Only bursts carrying at least one data (or UDP) packet (yu §III).
    #[default]
    Data,
    /// Every burst, pure-ACK bursts included.
    All,
}

/// Independent random burst loss (the models' assumption, yu §III).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    #[serde(default)]
    pub p: f64,
    #[serde(default)]
    pub scope: LossScope,
    #[serde(default)]
    pub applies_to: LossAppliesTo,
}

/// Deterministic burst dropping (yu figs 8, 9): the bursts with these 0-based indices,
/// in emission order, of the queue `queue` at ingress `edge` are lost.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropBurstSpec {
    pub edge: String,
    /// The queue's key: the flow name (`per_flow`), the egress node name
    /// (`per_egress`) or `"<egress>/<class>"` (`per_class`).
    pub queue: String,
    pub bursts: Vec<u64>,
}

/// Per-class overrides for the `per_class` classifier.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// The class's assembly policy: its queues' under `per_class`, the default of its
    /// flows (those without their own) under `per_flow`; `per_egress` rejects it.
    #[serde(default)]
    pub assembly: Option<AssemblySpec>,
    /// Added to the base offset of this class's bursts (e.g. MEMS set-up, hybrid §II).
    #[serde(default)]
    pub extra_offset: Option<Dur>,
    /// Path policy: this class's bursts cross only fibres attached to the fabric of this
    /// name at both ends (nodes without declared fabrics serve every class).
    #[serde(default)]
    pub fabric: Option<String>,
    /// Fixed offset of this class's bursts, replacing the computed one and `obs.offset`
    /// (hybrid §II: the offset depends on the path's switching technology).
    #[serde(default)]
    pub offset: Option<Dur>,
    /// Priority of this class's bursts (default 0; higher wins): with
    /// `obs.contention.preemption` a burst may take the reservation of a burst of a
    /// lower priority.
    #[serde(default)]
    pub priority: Option<u32>,
}

/// The `[obs]` section. Every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObsSpec {
    #[serde(default)]
    pub assembly: Option<AssemblySpec>,
    #[serde(default)]
    pub classifier: Classifier,
    #[serde(default)]
    pub ack_mode: AckMode,
    #[serde(default)]
    pub scheduler: SchedulerName,
    /// Full wavelength conversion at every node; `false` enforces wavelength continuity.
    #[serde(default = "default_true")]
    pub conversion: bool,
    #[serde(default)]
    pub signalling: Signalling,
    /// BCP processing time per node (δ).
    #[serde(default)]
    pub bcp_processing: Option<Dur>,
    /// Switch set-up time (default for all OBS nodes).
    #[serde(default)]
    pub switch_setup: Option<Dur>,
    /// Added to the base offset `hops·δ + setup`.
    #[serde(default)]
    pub extra_offset: Option<Dur>,
    /// Fixed offset replacing `hops·δ + setup + extra_offset` (may be too short: such
    /// bursts are lost where the offset runs out).
    #[serde(default)]
    pub offset: Option<Dur>,
    /// Reject a fixed offset (`obs.offset`, `obs.class[i].offset`) shorter than its
    /// path needs (some node's `Σδ + set-up`) instead of losing its bursts.
    #[serde(default)]
    pub safe_offset: bool,
    /// Cap on packets per burst (ozsarac: 10 000).
    #[serde(default)]
    pub max_pkts_per_burst: Option<u32>,
    /// Assembly-queue limit in packets (ozsarac: 100 000); arrivals beyond it are dropped.
    #[serde(default)]
    pub queue_limit: Option<u64>,
    #[serde(default)]
    pub loss: Option<LossSpec>,
    #[serde(default, alias = "drop_burst")]
    pub drop_bursts: Vec<DropBurstSpec>,
    #[serde(default, alias = "class")]
    pub classes: Vec<ClassSpec>,
    // --- ingress edge and control plane (docs/topics/control-plane.md)
    /// Ingress electronic buffer: a burst that finds no wavelength on its first fibre
    /// waits for the earliest feasible reservation instead of being lost.
    #[serde(default)]
    pub ingress: Option<IngressSpec>,
    /// The control channel: loss of burst control packets.
    #[serde(default)]
    pub control: Option<ControlSpec>,
    // --- contention resolution at core nodes (docs/topics/contention.md) ---
    /// Contention resolution inside the OBS network (`[obs.contention]`): fibre delay
    /// lines, limited wavelength converters, per-wavelength statistics. All off by
    /// default.
    #[serde(default)]
    pub contention: Option<ContentionSpec>,
    /// Burst retransmission by the ingress after a NACK.
    #[serde(default)]
    pub retransmit: Option<RetransmitSpec>,
}

/// The `[obs.retransmit]` table: the ingress keeps a copy of each burst for `hold`
/// and sends it again, up to `max` times, when a NACK reports it lost in the core.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetransmitSpec {
    /// Most retransmissions per burst (R).
    pub max: u32,
    /// How long the copy is kept from the burst's formation: a NACK back later finds
    /// no copy and the loss is final.
    pub hold: Dur,
}

/// The `[obs.control]` table: the control channel that carries burst control packets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    /// Probability that a BCP is lost on each fibre it crosses (independently); its
    /// burst is then lost at the next node (`control_lost`). Default 0.
    #[serde(default)]
    pub loss: Option<f64>,
    /// Rate of the control wavelength of every fibre: BCPs are serialised on it (FIFO,
    /// `bcp_size` each) and processed one at a time at each node (FIFO, δ each).
    /// Absent: BCPs take no time on the channel and never queue.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Size of a BCP on the control wavelength (default 100 B; needs `rate`).
    #[serde(default)]
    pub bcp_size: Option<Size>,
}

/// The `[obs.ingress]` table: delayed first reservation at the ingress edge (nOBS
/// `op-schedule.cc`, its `MAX_DELAYED_BURST`). Absent: a burst that finds no wavelength
/// on its first fibre is lost (`contention`), as in a bufferless ingress.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngressSpec {
    /// Longest electronic wait of a burst: its BCP leaves at most this long after the
    /// burst is formed (the burst follows one offset later).
    pub max_wait: Dur,
    /// Most bursts waiting per first fibre (FIFO); a burst beyond it is lost.
    #[serde(default)]
    pub max_bursts: Option<u64>,
    /// Most bytes waiting per first fibre; a burst beyond it is lost.
    #[serde(default)]
    pub max_bytes: Option<Size>,
}

// --- contention resolution at core nodes (docs/topics/contention.md) ---

/// Whether a fibre delay line holds one burst at a time or any number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FdlCapacity {
    /// One burst at a time: the line is busy from the burst's head entering until its
    /// tail leaves, `[a, a + D + L)` (nOBS `FDLBURSTCAP = 1`).
    #[default]
    One,
    /// Any number of bursts inside; only their entries must not overlap, `[a, a + L)`
    /// (nOBS `FDLBURSTCAP = 0`).
    Many,
}

/// Which segment of a contending burst is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Segmentation {
    /// Head-dropping: the contending burst loses its head up to the end of the
    /// reservation it overlaps (the earlier, scheduled burst is untouched).
    Head,
    /// Tail-dropping: the scheduled burst whose reservation the contending burst's
    /// head falls into loses its tail from that instant; the contending burst passes
    /// whole.
    Tail,
}

/// What a higher-priority burst may take from a lower-priority one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Preemption {
    /// Never (default).
    #[default]
    None,
    /// The lower-priority burst's reservation, whole: that burst is lost.
    Full,
    /// Only the lower-priority burst's tail from the contending burst's arrival (the
    /// whole reservation if it starts later).
    Segment,
}

/// Where a pool of wavelength converters sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ConverterScope {
    /// One pool per node, shared by all its output fibres (nOBS `converternumber_`).
    #[default]
    Node,
    /// One pool per output fibre.
    Fibre,
}

/// `[obs.contention]`: contention resolution applied where a burst arrives on a fibre
/// (every OBS node after the ingress; the ingress still drops, as before).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ContentionSpec {
    /// Fibre delay line lengths, tried in this order when no wavelength is free at a
    /// burst's arrival (one set of lines per node, shared by its output fibres).
    #[serde(default)]
    pub fdl: Vec<Dur>,
    /// Capacity of every delay line: `one` burst at a time or `many`.
    #[serde(default)]
    pub fdl_capacity: Option<FdlCapacity>,
    /// Wavelength converters per pool, used when wavelength continuity (`conversion =
    /// false`) finds the burst's wavelength busy.
    #[serde(default)]
    pub converters: Option<u32>,
    /// Pools per `node` or per output `fibre`.
    #[serde(default)]
    pub converter_scope: Option<ConverterScope>,
    /// Burst segmentation: on contention, drop only the overlapping segment, the head of
    /// the contending burst (`head`) or the tail of the scheduled one (`tail`),
    /// delivering the rest.
    #[serde(default)]
    pub segmentation: Option<Segmentation>,
    /// Priority preemption: after every other mechanism, a burst may take the one
    /// reservation it overlaps if that burst's class has a lower `priority`.
    #[serde(default)]
    pub preemption: Option<Preemption>,
    /// Adds the `obs_channels` table: per fibre and wavelength, bursts scheduled, busy
    /// time, bursts lost waiting for it, FDL and converter use.
    #[serde(default)]
    pub per_wavelength: bool,
    /// Deflection routing: per node, the neighbours a burst that finds no wavelength
    /// on its output fibre may be sent to instead (`[[obs.contention.deflection]]`),
    /// continuing from there on the shortest path to its egress.
    #[serde(default)]
    pub deflection: Vec<DeflectionSpec>,
    /// How often one burst may be deflected on its way (default 1).
    #[serde(default)]
    pub max_deflections: Option<u32>,
    /// Extra offset every burst gets at its ingress so that a deflected (longer) path
    /// still leaves time for its BCP processing (default 0).
    #[serde(default)]
    pub deflection_offset: Option<Dur>,
}

/// One `[[obs.contention.deflection]]` entry: at `node`, try the fibres to `via` in
/// this order when the burst's own output fibre has no wavelength.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeflectionSpec {
    pub node: String,
    pub via: Vec<String>,
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

impl Default for ObsSpec {
    fn default() -> Self {
        ObsSpec {
            assembly: None,
            classifier: Classifier::default(),
            ack_mode: AckMode::default(),
            scheduler: SchedulerName::default(),
            conversion: true,
            signalling: Signalling::default(),
            bcp_processing: None,
            switch_setup: None,
            extra_offset: None,
            offset: None,
            safe_offset: false,
            max_pkts_per_burst: None,
            queue_limit: None,
            loss: None,
            drop_bursts: Vec::new(),
            classes: Vec::new(),
            ingress: None,
            control: None,
            contention: None,
            retransmit: None,
        }
    }
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
        ];
        let allowed: &[&str] = match self.kind {
            AssemblyType::Timer => &["tb", "jitter", "ack_ratio_max"],
            AssemblyType::Length => &["max_bytes", "max_pkts", "ack_ratio_max"],
            AssemblyType::Hybrid => &["tmax", "lmax", "lmin", "ack_ratio_max"],
            AssemblyType::Cwba | AssemblyType::Mcwba => &["window", "tmax"],
            AssemblyType::Ecwba => &["tmax"],
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
        };
        // zhou §3: the type's policy becomes the trigger of ACK-ratio assembly.
        let cfg = match (self.ack_ratio_max, crate::obs::AckRatioBase::of(cfg)) {
            (Some(r_max), Some(base)) => AssemblerConfig::AckRatio { base, r_max },
            _ => cfg,
        };
        crate::obs::validate_assembler_at(path, &cfg, max_pkts).map_err(split_field)?;
        Ok(cfg)
    }
}

/// ACK-ratio assembly (zhou §3) limits the ACKs *in bursts*: it is an error when ACKs
/// bypass the core (`obs.ack_mode = "bypass"`), named at the assembly that asks for it.
fn check_ack_ratio(
    o: &ResolvedObs,
    node_assembly: &[Option<AssemblerConfig>],
    flows: &[ResolvedFlow],
) -> Result<(), ScenarioError> {
    if o.ack_mode != AckMode::Bypass {
        return Ok(());
    }
    let ratio = |c: &Option<AssemblerConfig>| matches!(c, Some(AssemblerConfig::AckRatio { .. }));
    let mut at = None;
    if ratio(&Some(o.assembly)) {
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

/// Turns an `obs` validator message `"field.path: reason"` into a [`ScenarioError`].
fn split_field(msg: String) -> ScenarioError {
    match msg.split_once(": ") {
        Some((f, r)) => ScenarioError::new(f, r),
        None => ScenarioError::new("", msg),
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
            let inner = e.inner();
            let mut msg = inner.to_string();
            // serde_json appends " at line L column C". For a data error the field path
            // says where (and the JSON is often generated from a Python dict), so the
            // position is dropped; syntax errors keep it.
            if inner.is_data() {
                if let Some(i) = msg.rfind(" at line ") {
                    msg.truncate(i);
                }
            }
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
            .replace("fibres[", "fibre[")
            .replace("fibers[", "fibre[")
            .replace("fiber[", "fibre[")
            .replace("drop_bursts[", "drop_burst[")
            .replace("classes[", "class[")
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
        let max_events = self
            .sim
            .max_events
            .map_or(crate::events::DEFAULT_MAX_EVENTS, |m| m.0);
        if max_events < crate::events::MIN_MAX_EVENTS {
            return Err(e(
                "sim.max_events",
                format!(
                    "must be at least {} (got {max_events})",
                    crate::events::MIN_MAX_EVENTS
                ),
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
        // ---- OBS settings (defaults when the section is absent).
        let obs_spec = self.obs.clone().unwrap_or_default();
        let obs_spec_classifier = self.obs.as_ref().map(|o| o.classifier);
        let max_pkts_per_burst = obs_spec.max_pkts_per_burst.unwrap_or(u32::MAX);
        if max_pkts_per_burst == 0 {
            return Err(e("obs.max_pkts_per_burst", "must be at least 1 (got 0)"));
        }
        let default_setup = obs_spec
            .switch_setup
            .map(|d| d.0)
            .unwrap_or(SimTime::from_us(5));
        let mut node_setup = Vec::with_capacity(nodes.len());
        let mut node_assembly = Vec::with_capacity(nodes.len());
        let mut fabrics: Vec<ResolvedFabric> = Vec::new();
        let mut node_fabrics: Vec<Vec<u32>> = Vec::with_capacity(nodes.len());
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
            let mut mine = Vec::new();
            if n.kind.is_obs() {
                let base = ResolvedFabric {
                    node: i as u32,
                    name: "default".into(),
                    declared: false,
                    setup: node_setup[i],
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
            }
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
        // ---- Fibres.
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
        let obs = if fibres.is_empty() && self.obs.is_none() {
            None
        } else {
            let mut o = self.resolve_obs(&obs_spec, max_pkts_per_burst, &nodes, &by_name)?;
            // --- contention resolution at core nodes ---
            if let Some(c) = &obs_spec.contention {
                o.contention = c.resolve(
                    fabrics.iter().any(|f| !f.conversion),
                    fabrics.iter().all(|f| f.signalling == Signalling::Jit),
                )?;
                c.resolve_deflection(&mut o.contention, &nodes, &by_name, &fibres)?;
                let prio = |c: &ResolvedClass| c.priority;
                if o.contention.preemption != Preemption::None
                    && o.classes.iter().map(prio).min() == o.classes.iter().map(prio).max()
                {
                    return Err(e(
                        "obs.contention.preemption",
                        "has no effect: every burst has the same priority (set obs.class[i].priority on two classes differently)",
                    ));
                }
            }
            Some(o)
        };
        // Adjacency (directed) for routing and route checks: links and fibres.
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        for l in &links {
            adj[l.from as usize].push(l.to);
        }
        for f in &fibres {
            adj[f.from as usize].push(f.to);
        }
        for v in adj.iter_mut() {
            v.sort_unstable();
            v.dedup();
        }
        let mut router = Router::new(&adj);
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
                            "node '{}' is {}; flows start and end at hosts",
                            nodes[ix as usize].0,
                            match nodes[ix as usize].1 {
                                NodeKind::Edge => "an OBS edge node",
                                NodeKind::Core => "an OBS core node",
                                _ => "a router",
                            }
                        ),
                    ));
                }
            }
            let start = start.map(|x| x.0).unwrap_or(SimTime::ZERO);
            let stop = stop.map(|x| x.0);
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
            let route = match route {
                Some(r) => explicit_route(&fld("route"), r, s, d, &lookup, &adj)?,
                None => router.route(s, d).ok_or_else(|| {
                    e(
                        fld("dst"),
                        format!("unreachable: no path from '{src}' to '{dst}'"),
                    )
                })?,
            };
            let reverse_route = match rroute {
                Some(r) => explicit_route(&fld("reverse_route"), r, d, s, &lookup, &adj)?,
                None => router.route(d, s).ok_or_else(|| {
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
                FlowType::Cbr | FlowType::Onoff | FlowType::Poisson => {
                    let rate = f
                        .rate
                        .ok_or_else(|| e(fld("rate"), "required for a UDP flow"))?
                        .0;
                    let packet_size =
                        pkt_size(f.packet_size.unwrap_or(Size(1000)), &fld("packet_size"))?;
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
                    if f.kind == FlowType::Cbr {
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
                    }
                }
            };
            for (r, rf) in [(&route, "route"), (&reverse_route, "reverse_route")] {
                check_obs_segments(r, &nodes, &fld(rf))?;
            }
            // A per_egress queue mixes every flow towards its egress: a flow's class
            // would select nothing there (the queue follows class 0's path policy).
            if f.class.is_some() && obs_spec_classifier == Some(Classifier::PerEgress) {
                return Err(e(
                    fld("class"),
                    "a flow's class needs obs.classifier = \"per_class\" or \"per_flow\"; \
                     with \"per_egress\" flows towards one egress share one queue and the \
                     class would be ignored",
                ));
            }
            let nclasses = obs.as_ref().map_or(0, |o| o.classes.len()).max(1);
            let class = f.class.unwrap_or(0);
            if class as usize >= nclasses {
                return Err(e(
                    fld("class"),
                    format!("no class {class} (obs.class has {nclasses} entries)"),
                ));
            }
            if f.assembly.is_some() {
                if let Some(c) = obs_spec_classifier.filter(|&c| c != Classifier::PerFlow) {
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
            let assembly = match &f.assembly {
                Some(a) => Some(a.resolve(&fld("assembly"), max_pkts_per_burst)?),
                None => None,
            };
            flows.push(ResolvedFlow {
                class,
                assembly,
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
        if let Some(o) = &obs {
            check_ack_ratio(o, &node_assembly, &flows)?;
        }
        Ok(Resolved {
            name: self.name.clone().unwrap_or_else(|| "scenario".into()),
            duration: self.sim.duration.0,
            max_memory,
            max_events,
            warmup,
            seed: seed.unwrap_or(self.sim.seed),
            replication: replication.unwrap_or(self.sim.replication),
            trace: self.sim.trace.clone(),
            nodes,
            links,
            flows,
            fibres,
            obs,
            node_setup,
            node_assembly,
            fabrics,
            node_fabrics,
        })
    }

    fn resolve_obs(
        &self,
        o: &ObsSpec,
        max_pkts_per_burst: u32,
        nodes: &[(String, NodeKind)],
        by_name: &HashMap<&str, u32>,
    ) -> Result<ResolvedObs, ScenarioError> {
        let assembly = match &o.assembly {
            Some(a) => a.resolve("obs.assembly", max_pkts_per_burst)?,
            None => AssemblerConfig::Timer {
                tb: SimTime::from_ms(1),
                jitter_sd_frac: 0.0,
            },
        };
        let (loss_p, loss_scope, loss_applies_to) = match &o.loss {
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
        };
        if o.queue_limit == Some(0) {
            return Err(e("obs.queue_limit", "must be at least 1 packet (got 0)"));
        }
        let mut drop_bursts = Vec::new();
        for (i, d) in o.drop_bursts.iter().enumerate() {
            let fld = |s: &str| format!("obs.drop_burst[{i}].{s}");
            let n = *by_name
                .get(d.edge.as_str())
                .ok_or_else(|| e(fld("edge"), format!("unknown node '{}'", d.edge)))?;
            if nodes[n as usize].1 != NodeKind::Edge {
                return Err(e(fld("edge"), format!("'{}' is not an edge node", d.edge)));
            }
            let mut b = d.bursts.clone();
            b.sort_unstable();
            b.dedup();
            drop_bursts.push((n, d.queue.clone(), b));
        }
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
        Ok(ResolvedObs {
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
            control_tx: match o.control.as_ref() {
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
            },
            retransmit: match &o.retransmit {
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
            },
            control_loss: match o.control.as_ref().and_then(|c| c.loss) {
                None => 0.0,
                Some(p) if (0.0..=1.0).contains(&p) => p,
                Some(p) => {
                    return Err(e(
                        "obs.control.loss",
                        format!("a probability must lie in [0, 1], got {p}"),
                    ))
                }
            },
            ingress: match &o.ingress {
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
            },
            contention: ResolvedContention::default(),
        })
    }
}

/// Checks that every run of fibre hops in a route starts and ends at an edge node.
fn check_obs_segments(
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

fn tcp_config(t: &FlowSpec, fld: &dyn Fn(&str) -> String) -> Result<TcpConfig, ScenarioError> {
    let e = |f: &str, r: String| ScenarioError::new(fld(f), r);
    let mut c = TcpConfig::defaults(
        t.variant.unwrap_or(Variant::Reno),
        t.profile.unwrap_or(Profile::Ns2),
    );
    if let Some(v) = t.ns2_version {
        if c.profile != Profile::Ns2 {
            return Err(e(
                "ns2_version",
                "selects ns-2's Agent/TCP defaults; it needs profile = \"ns2\"".into(),
            ));
        }
        if v != Ns2Version::V2_35 && t.cc.is_some_and(|k| k != CcKind::Aimd) {
            return Err(e(
                "ns2_version",
                format!(
                    "cc = \"{}\" is ns-2's Agent/TCP/Linux, which ns-2 {} did not have \
                     (it is ns-2.35's): use ns2_version = \"2.35\" or cc = \"aimd\"",
                    t.cc.map_or("", |k| k.name()),
                    v.name()
                ),
            ));
        }
        v.apply(&mut c);
    }
    if let Some(k) = t.cc {
        c.cc = k;
        if c.profile == Profile::Ns2 && k != CcKind::Aimd {
            // ns-2.35's Agent/TCP/Linux: maxrto_ 120 (ns-default.tcl) and, once a Linux
            // module is selected, tcp_tick_ = 1/JIFFY_RATIO = 1 ms (tcp-linux.cc).
            c.max_rto = SimTime::from_secs(120);
            c.clock_granularity = SimTime::from_ms(1);
        }
    }
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
        if h.0 > 65_535 {
            return Err(e(
                "header_bytes",
                format!("at most 65535 B of headers per packet (got {})", h.0),
            ));
        }
        c.header_bytes = h.0 as u32;
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
        // Below 1 µs a timer backed off to its cap would fire every few picoseconds
        // on a path that loses everything: billions of events per simulated second.
        if d.0 < SimTime::from_us(1) {
            return Err(e(
                "init_rto",
                format!("must be at least 1 µs (got {})", d.0),
            ));
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
        return Err(e(
            "max_rto",
            format!(
                "must not be below min_rto ({} s, got {} s)",
                c.min_rto.as_secs_f64(),
                c.max_rto.as_secs_f64()
            ),
        ));
    }
    if t.init_rto.is_some() && c.init_rto > c.max_rto {
        return Err(e(
            "init_rto",
            format!(
                "must not exceed max_rto ({} s, got {} s)",
                c.max_rto.as_secs_f64(),
                c.init_rto.as_secs_f64()
            ),
        ));
    }
    if t.init_cwnd.is_some() && t.wm.is_some() && c.init_cwnd > c.wm {
        return Err(e(
            "init_cwnd",
            format!(
                "must not exceed the maximum window wm = {} segments (got {})",
                c.wm, c.init_cwnd
            ),
        ));
    }
    // ns-2.35 behaviour switches: meaningful only for the ns2 profile's agents.
    let switches = [
        ("syn", t.syn, &mut c.syn),
        (
            "limited_transmit",
            t.limited_transmit,
            &mut c.limited_transmit,
        ),
        (
            "precision_reduce",
            t.precision_reduce,
            &mut c.precision_reduce,
        ),
        ("bug_fix", t.bug_fix, &mut c.bug_fix),
        (
            "newreno_changes1",
            t.newreno_changes1,
            &mut c.newreno_changes1,
        ),
        (
            "partial_window_deflation",
            t.partial_window_deflation,
            &mut c.partial_window_deflation,
        ),
        (
            "sack_partial_ack",
            t.sack_partial_ack,
            &mut c.sack_partial_ack,
        ),
    ];
    let ns2 = c.profile == Profile::Ns2;
    for (name, v, slot) in switches {
        if let Some(v) = v {
            if !ns2 {
                return Err(e(
                    name,
                    "is an ns-2.35 agent setting; it needs profile = \"ns2\"".into(),
                ));
            }
            *slot = v;
        }
    }
    if let Some(p) = t.clock_phase {
        if !ns2 {
            return Err(e(
                "clock_phase",
                "is an ns-2.35 agent setting; it needs profile = \"ns2\"".into(),
            ));
        }
        if c.clock_granularity > SimTime::ZERO && p.0 >= c.clock_granularity {
            return Err(e(
                "clock_phase",
                format!(
                    "must be below clock_granularity ({} s), got {} s",
                    c.clock_granularity.as_secs_f64(),
                    p.0.as_secs_f64()
                ),
            ));
        }
        c.clock_phase = Some(p.0.as_secs_f64());
    }
    if ns2 && c.clock_granularity == SimTime::ZERO {
        return Err(e(
            "clock_granularity",
            "the ns2 profile's RTT clock needs a positive tick".into(),
        ));
    }
    if let Some(r) = t.recovery {
        if r != RecoveryKind::Rfc6675 {
            if ns2 {
                return Err(e(
                    "recovery",
                    format!(
                        "\"{}\" is the rfc profile's SACK recovery; the ns2 profile runs \
                         ns-2's own agents: set profile = \"rfc\"",
                        r.name()
                    ),
                ));
            }
            if c.variant != Variant::Sack {
                return Err(e(
                    "recovery",
                    format!(
                        "\"{}\" sets cwnd from RFC 6675's pipe: it needs variant = \"sack\" \
                         (got \"{}\")",
                        r.name(),
                        c.variant.name()
                    ),
                ));
            }
            if c.cc == CcKind::Bbr {
                return Err(e(
                    "recovery",
                    format!(
                        "cc = \"bbr\" sets cwnd itself during recovery (as ns-3's TcpBbr, \
                         which bypasses the recovery algorithm); leave recovery unset \
                         (got \"{}\")",
                        r.name()
                    ),
                ));
            }
        }
        c.recovery = r;
    }
    if let Some(b) = t.cubic_ssthresh {
        if b != CubicSsthresh::FlightSize && (ns2 || c.cc != CcKind::Cubic) {
            return Err(e(
                "cubic_ssthresh",
                format!(
                    "\"{}\" applies to cc = \"cubic\" under profile = \"rfc\" (got cc = \
                     \"{}\", profile = \"{}\"; under ns2, Linux's cubic module uses cwnd)",
                    b.name(),
                    c.cc.name(),
                    if ns2 { "ns2" } else { "rfc" }
                ),
            ));
        }
        c.cubic_ssthresh = b;
    }
    if ns2 && c.cc == CcKind::Bbr {
        // ns-2.35 has no BBR (its Agent/TCP/Linux modules are Linux 2.6.22's).
        return Err(e(
            "cc",
            "\"bbr\" runs only under profile = \"rfc\" (ns-2.35 has no BBR; burstlab's \
             BBR follows ns-3's TcpBbr)"
                .into(),
        ));
    }
    if ns2 && c.cc != CcKind::Aimd {
        // Under the ns2 profile a modern controller is ns-2.35's Agent/TCP/Linux, a SACK
        // sender whose RTT clock ticks in 1 ms jiffies.
        if c.variant != Variant::Sack {
            return Err(e(
                "variant",
                format!(
                    "cc = \"{}\" under the ns2 profile is ns-2's Agent/TCP/Linux, a SACK \
                     sender: set variant = \"sack\" (got \"{}\")",
                    c.cc.name(),
                    c.variant.name()
                ),
            ));
        }
        if c.clock_granularity != SimTime::from_ms(1) {
            return Err(e(
                "clock_granularity",
                "ns-2's Agent/TCP/Linux ticks its RTT clock in 1 ms jiffies; leave it unset \
                 or set 1ms"
                    .into(),
            ));
        }
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
    for (k, n) in r.iter().enumerate() {
        if let Some(j) = r[..k].iter().position(|m| m == n) {
            return Err(ScenarioError::new(
                format!("{field}[{k}]"),
                format!(
                    "the route visits '{}' twice (also at [{j}]): a route must not loop",
                    names[k]
                ),
            ));
        }
    }
    for (k, w) in r.windows(2).enumerate() {
        if adj[w[0] as usize].binary_search(&w[1]).is_err() {
            return Err(ScenarioError::new(
                format!("{field}[{}]", k + 1),
                format!("no link or fibre from '{}' to '{}'", names[k], names[k + 1]),
            ));
        }
    }
    Ok(r)
}

/// The routes of [`shortest_route`] for many flows, in time linear in the flows and
/// the network (a breadth-first search per flow would be quadratic at 10^4 flows).
///
/// A host that reaches the network through one node `x` only (its sole out-neighbour)
/// has the route `[s] + route(x, d)`: the search from `s` visits `x` next and then
/// proceeds exactly as the search from `x` (`s` itself leads nowhere else). Likewise a
/// destination `d` entered from one node `y` only has `prev[d] = y` in every search,
/// and the search reaches `y` before `d` is queued, so the route is `route(s, y) + [d]`.
/// What remains is a search from `x`, kept (its `prev` tree) for the next flows from
/// `x` while the kept trees stay small.
pub struct Router<'a> {
    adj: &'a [Vec<u32>],
    /// Per node: its only in-neighbour, or `u32::MAX` (none or several).
    sole_in: Vec<u32>,
    trees: HashMap<u32, Vec<u32>>,
    kept: usize,
}

/// The most `prev` entries [`Router`] keeps (4 bytes each).
const ROUTER_KEEP: usize = 1 << 25;

impl<'a> Router<'a> {
    pub fn new(adj: &'a [Vec<u32>]) -> Self {
        let mut sole_in = vec![u32::MAX; adj.len()];
        let mut n_in = vec![0u32; adj.len()];
        for (u, vs) in adj.iter().enumerate() {
            for &v in vs {
                n_in[v as usize] += 1;
                sole_in[v as usize] = u as u32;
            }
        }
        for (x, &n) in sole_in.iter_mut().zip(&n_in) {
            if n != 1 {
                *x = u32::MAX;
            }
        }
        Router {
            adj,
            sole_in,
            trees: HashMap::new(),
            kept: 0,
        }
    }

    /// The same route as `shortest_route(adj, s, d)`.
    pub fn route(&mut self, s: u32, d: u32) -> Option<Vec<u32>> {
        if s == d {
            return Some(vec![s]);
        }
        let mut head = Vec::new();
        let mut from = s;
        if let [x] = self.adj[s as usize][..] {
            head.push(s);
            from = x;
        }
        let mut tail = None;
        let mut to = d;
        let y = self.sole_in[d as usize];
        if y != u32::MAX && from != d {
            tail = Some(d);
            to = y;
        }
        let mid = if from == to {
            vec![from]
        } else if let Some(prev) = self.trees.get(&from) {
            path_from(prev, from, to)?
        } else {
            let prev = bfs_prev(self.adj, from, None);
            let p = path_from(&prev, from, to)?;
            if self.kept + prev.len() <= ROUTER_KEEP {
                self.kept += prev.len();
                self.trees.insert(from, prev);
            }
            p
        };
        head.extend(mid);
        head.extend(tail);
        Some(head)
    }
}

/// The breadth-first search tree from `s` (`prev[v]`: `v`'s parent; `u32::MAX`: not
/// reached; `prev[s] = s`), stopping when `stop` is found.
fn bfs_prev(adj: &[Vec<u32>], s: u32, stop: Option<u32>) -> Vec<u32> {
    let mut prev = vec![u32::MAX; adj.len()];
    let mut q = std::collections::VecDeque::new();
    prev[s as usize] = s;
    q.push_back(s);
    while let Some(u) = q.pop_front() {
        if Some(u) == stop {
            break;
        }
        for &v in &adj[u as usize] {
            if prev[v as usize] == u32::MAX {
                prev[v as usize] = u;
                q.push_back(v);
            }
        }
    }
    prev
}

fn path_from(prev: &[u32], s: u32, d: u32) -> Option<Vec<u32>> {
    if prev[d as usize] == u32::MAX {
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

#[cfg(test)]
mod ns2_version_tests {
    use super::*;

    fn flow(extra: &str) -> FlowSpec {
        toml::from_str(&format!("src = \"a\"\ndst = \"b\"\n{extra}")).expect("a flow")
    }

    fn cfg(extra: &str) -> Result<TcpConfig, ScenarioError> {
        tcp_config(&flow(extra), &|f: &str| format!("flow[0].{f}"))
    }

    #[test]
    fn the_default_preset_is_ns2_35() {
        let d = cfg("").unwrap();
        assert_eq!(cfg("ns2_version = \"2.35\"").unwrap(), d);
        assert_eq!(d.min_rto, SimTime::from_ms(200));
        assert_eq!(d.max_rto, SimTime::from_secs(60));
    }

    #[test]
    fn old_presets_set_their_release_defaults_and_overrides_win() {
        for v in ["2.1b9", "2.26"] {
            let c = cfg(&format!("variant = \"newreno\"\nns2_version = \"{v}\"")).unwrap();
            assert_eq!(c.min_rto, SimTime::from_secs(1), "{v}");
            assert_eq!(c.max_rto, SimTime::from_secs(100_000), "{v}");
            assert_eq!(c.init_rto, SimTime::from_secs(6), "{v}");
            assert!(!c.precision_reduce && !c.newreno_changes1 && !c.partial_window_deflation);
            assert_eq!(c.clock_granularity, SimTime::from_ms(10));
        }
        let c = cfg("ns2_version = \"2.27\"").unwrap();
        assert!(c.newreno_changes1 && c.partial_window_deflation && !c.precision_reduce);
        let c = cfg("ns2_version = \"2.26\"\nmin_rto = \"0.2s\"\nprecision_reduce = true").unwrap();
        assert_eq!(c.min_rto, SimTime::from_ms(200));
        assert!(c.precision_reduce);
        assert_eq!(c.init_rto, SimTime::from_secs(6));
    }

    #[test]
    fn a_preset_outside_the_ns2_profile_or_with_linux_is_refused() {
        let e = cfg("profile = \"rfc\"\nns2_version = \"2.26\"").unwrap_err();
        assert!(e.to_string().starts_with("flow[0].ns2_version"), "{e}");
        let e = cfg("variant = \"sack\"\ncc = \"cubic\"\nns2_version = \"2.26\"").unwrap_err();
        assert!(e.to_string().contains("Agent/TCP/Linux"), "{e}");
        assert!(cfg("variant = \"sack\"\ncc = \"cubic\"\nns2_version = \"2.35\"").is_ok());
    }
}
