//! The file format: the serde structs a scenario deserialises into, and the parsing
//! entry points. Each field's doc comment is its description in the generated scenario
//! reference (`docs/_ext/burstlab_docs.py` reads this folder); a table whose every key
//! is optional takes its defaults at the container (`#[serde(default)]` on the struct).
//! `[obs.contention]`'s structs live in `contention.rs`.

use super::error::ScenarioError;
use super::quantity::{Count, Dur, MatrixSpec, PerSec, Rate, Size, SizeSpec};

use crate::tcp::{CcKind, CubicSsthresh, Ns2Version, Profile, RecoveryKind, Variant};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    /// The scenario's name, written into every output (default `scenario`).
    pub name: Option<String>,
    #[serde(default)]
    /// Free text about the scenario; the simulator does not read it (default: none).
    pub description: Option<String>,
    /// How long to run, the seed and the traces (`[sim]`).
    pub sim: SimSpec,
    #[serde(default, alias = "node")]
    /// The nodes (`[[node]]`): hosts, routers, OBS edge and core nodes.
    pub nodes: Vec<NodeSpec>,
    #[serde(default, alias = "link")]
    /// The packet links between nodes (`[[link]]`).
    pub links: Vec<LinkSpec>,
    #[serde(default, alias = "flow")]
    /// The flows (`[[flow]]`): TCP transfers and UDP sources.
    pub flows: Vec<FlowSpec>,
    /// Optical fibres between OBS nodes (`edge`, `core`).
    #[serde(default, alias = "fibre", alias = "fiber", alias = "fibers")]
    pub fibres: Vec<FibreSpec>,
    /// OBS settings shared by all edge and core nodes (see [`ObsSpec`]).
    #[serde(default)]
    /// (default: no OBS network)
    pub obs: Option<ObsSpec>,
    /// How the simulator chooses the route of a flow without an explicit `route`
    /// (see [`RoutingSpec`]; a flow's own `routing` overrides it key by key).
    #[serde(default)]
    /// (default: `metric = hops`, `k = 1`, `policy = first`)
    pub routing: Option<RoutingSpec>,
    /// Flows generated during the run, one per arrival (see [`WorkloadSpec`]).
    #[serde(default, alias = "workload")]
    pub workloads: Vec<WorkloadSpec>,
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
    /// (default 0: statistics cover the whole run)
    pub warmup: Option<Dur>,
    #[serde(default)]
    /// Opt-in traces (`[sim.trace]`; default: none).
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

/// The fastest a UDP source may send (packets per second; one event each).
pub const MAX_PKTS_PER_SEC: f64 = 1e9;

/// Default of `sim.max_memory`.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// Default of `sim.max_events`: 10^12 events, a day or more of CPU at the 3–30 million
/// events per second `docs/performance.md` measures. The estimate (`events.rs`) is an
/// upper bound and TCP over a lossy network handles far fewer events than its links
/// allow: the largest estimate among the papers' reproductions (ozsarac's mesh, 10^4
/// s) is 1.1·10^11 and runs in minutes, so the default sits above it.
pub const DEFAULT_MAX_EVENTS: u64 = 1_000_000_000_000;

/// The smallest `sim.max_events` accepted.
pub const MIN_MAX_EVENTS: u64 = 1_000;

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraceSpec {
    /// Record (time, cwnd, ssthresh) at every change of every TCP flow.
    pub cwnd: bool,
    /// Record every data segment sent, received and dropped.
    pub packets: bool,
    /// Only these flow indices (default: all).
    pub flows: Option<Vec<u32>>,
    /// Trace records before this time are left out (default 0).
    pub start: Option<Dur>,
    /// Trace records after this time are left out (default: the end of the run).
    pub end: Option<Dur>,
    /// Record every burst formed, lost and delivered (OBS scenarios).
    pub bursts: bool,
    /// Record the congestion controller's state (CUBIC's W_max, epoch and K, Vegas's
    /// base RTT and diff, BBR's mode, pacing rate, BtlBw and RTprop) of every flow with
    /// a modern controller (`cc` other than `aimd`) whenever a sender call changes it.
    pub cc: bool,
    /// Sample every TCP flow's in-order delivered segments (cumulative from the start)
    /// at this interval: a goodput time series for warm-up detection and batch means.
    /// (default: off)
    pub goodput: Option<Dur>,
    /// Stream the traces to `<dir>/<table>.csv` while the run goes, in bounded memory,
    /// instead of holding them (a relative path is taken from the working directory).
    /// The files are what `burstlab run --out` writes for the in-memory tables, byte
    /// for byte.
    /// (default: traces held in memory)
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
    /// The node's name, unique; links, fibres, flows and routes name it.
    pub name: String,
    #[serde(default = "default_node_kind")]
    /// What the node is: a `host` ends flows, a `router` forwards packets, an OBS `edge`
    /// assembles and disassembles bursts, an OBS `core` switches them.
    pub kind: NodeKind,
    /// Edge/core only: this node's switch set-up time (overrides `obs.switch_setup`;
    /// e.g. a slow MEMS fabric, hybrid §II).
    #[serde(default)]
    /// (default: `obs.switch_setup`)
    pub switch_setup: Option<Dur>,
    /// Edge only: assembly policy of this ingress (overrides `obs.assembly`; a flow's or
    /// class's own `assembly` wins over it).
    #[serde(default)]
    /// (default: `obs.assembly`)
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
    /// The fabric's name, unique within its node; fibres attach to it by `fabric_a` /
    /// `fabric_b`.
    pub name: String,
    /// Switch set-up time.
    #[serde(default)]
    /// (default: the node's `switch_setup`)
    pub setup: Option<Dur>,
    /// BCP processing time δ of this fabric.
    #[serde(default)]
    /// (default: `obs.bcp_processing`)
    pub bcp_processing: Option<Dur>,
    /// Line rate per wavelength of the fibres that leave the node through this fabric
    /// (used when a fibre gives no `rate`; default: none, then each fibre gives its own).
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    /// Signalling protocol of this fabric (default: `obs.signalling`).
    pub signalling: Option<Signalling>,
    #[serde(default)]
    /// Wavelength scheduler of this fabric (default: `obs.scheduler`).
    pub scheduler: Option<SchedulerName>,
    #[serde(default)]
    /// Whether this fabric converts wavelengths (`false`: wavelength continuity; default:
    /// `obs.conversion`).
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
    /// The other end (node name); `a` → `b` is the direction `loss_ab` applies to.
    pub b: String,
    /// Transmission rate of each direction.
    pub rate: Rate,
    /// Propagation delay of each direction.
    pub delay: Dur,
    /// Drop-tail limit in packets waiting (excluding the one being transmitted).
    #[serde(default)]
    /// (default: no limit)
    pub queue_pkts: Option<u64>,
    /// Drop-tail limit in bytes waiting.
    #[serde(default)]
    /// (default: no limit)
    pub queue_bytes: Option<Size>,
    /// Independent per-packet loss probability in both directions.
    #[serde(default)]
    /// (default 0)
    pub loss: Option<f64>,
    /// Per-direction loss probabilities (override `loss`).
    #[serde(default)]
    /// `loss_ab`: direction `a` → `b` (default: `loss`).
    pub loss_ab: Option<f64>,
    #[serde(default)]
    /// Loss probability of the direction `b` → `a` (overrides `loss`; default: `loss`).
    pub loss_ba: Option<f64>,
    #[serde(default = "default_true")]
    /// Whether the link carries both directions (`false`: only `a` → `b`).
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
    /// A superposition of `sources` Pareto on/off UDP sources, long-range dependent
    /// with Hurst parameter `hurst` (docs/guide/workloads.md, `workload/onoff.rs`).
    #[serde(rename = "self_similar")]
    SelfSimilar,
    /// One Pareto on/off UDP source: Pareto on and off periods of shape `alpha`,
    /// `rate` while on (ns-2's `Application/Traffic/Pareto`, started stationary).
    #[serde(rename = "pareto_onoff")]
    ParetoOnoff,
}

/// One `[[flow]]`. A flat record (rather than an internally tagged enum) so that errors
/// keep their exact field path; fields that do not apply to the flow's `type` are
/// rejected during validation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(rename = "type", default = "default_flow_type")]
    /// What the flow is: a TCP transfer or a UDP source (`cbr`, `onoff`, …).
    pub kind: FlowType,
    #[serde(default)]
    /// The flow's name in the result tables (default `flow<i>`, `i` its index).
    pub name: Option<String>,
    /// The sending host (node name).
    pub src: String,
    /// The receiving host (node name).
    pub dst: String,
    #[serde(default)]
    /// When the flow starts sending (default 0).
    pub start: Option<Dur>,
    #[serde(default)]
    /// When the flow stops sending (default: it sends until the end of the run).
    pub stop: Option<Dur>,
    #[serde(default)]
    /// Explicit route: node names from `src` to `dst` (default: chosen by `[routing]`).
    pub route: Option<Vec<String>>,
    #[serde(default)]
    /// Explicit route of the return traffic (ACKs), node names from `dst` to `src`
    /// (default: chosen by `[routing]`).
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
    /// Where the TCP keys' defaults come from: `ns2` (ns-2's `Agent/TCP`) or `rfc` (the
    /// RFCs).
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
    /// (default: none)
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
    // --- UDP (cbr, onoff, poisson, self_similar, pareto_onoff)
    #[serde(default)]
    /// UDP sources: the sending rate (the mean rate of a Poisson source, the rate while on
    /// of `onoff`, of `pareto_onoff` and of each source of `self_similar`); required
    /// for UDP sources.
    pub rate: Option<Rate>,
    #[serde(default)]
    /// UDP sources: the packet size, the mean size of a Poisson source (default 1000 B).
    pub packet_size: Option<Size>,
    #[serde(default)]
    /// Mean length of an on period (exponentially distributed for `onoff`, Pareto for
    /// `pareto_onoff` and `self_similar`); required for `onoff`, `pareto_onoff` and
    /// `self_similar`.
    pub mean_on: Option<Dur>,
    #[serde(default)]
    /// Mean length of an off period (as `mean_on`); required for `onoff`,
    /// `pareto_onoff` and `self_similar`.
    pub mean_off: Option<Dur>,
    #[serde(default)]
    /// `self_similar`: the target Hurst parameter H, 0.5 < H < 1; the periods' shape is
    /// α = 3 − 2H (give it or `alpha`).
    pub hurst: Option<f64>,
    #[serde(default)]
    /// `pareto_onoff`, `self_similar`: the Pareto shape α of the on and off periods,
    /// above 1 for `pareto_onoff`, 1 < α < 2 for `self_similar` (default 1.5 for
    /// `pareto_onoff`, ns-2's `shape_`; for `self_similar` give it or `hurst`).
    pub alpha: Option<f64>,
    #[serde(default)]
    /// `self_similar`: the number of on/off sources superposed, 1 to 10^6; required
    /// for `self_similar`.
    pub sources: Option<u32>,
    // --- OBS
    /// Class (index into `obs.class`, default 0): under `per_class` it picks the
    /// flow's queue; under `per_flow` it sets the flow's offset, fabric and default
    /// assembly; `per_egress` rejects it (its queues mix classes).
    #[serde(default)]
    pub class: Option<u32>,
    /// Assembly policy of this flow's queues (`per_flow` classifier only).
    #[serde(default)]
    /// (default: its class's, its ingress node's, else `obs.assembly`)
    pub assembly: Option<AssemblySpec>,
    /// This flow's routing keys (`metric`, `k`, `policy`), overriding `[routing]` key by
    /// key; an explicit `route` / `reverse_route` still wins.
    #[serde(default)]
    /// (default: `[routing]`)
    pub routing: Option<RoutingSpec>,
}

fn default_flow_type() -> FlowType {
    FlowType::Tcp
}

// ---------------------------------------------------------------------------------------
// Workloads (docs/guide/workloads.md; resolved in `workload.rs`).

/// One `[[workload]]`: TCP flows that arrive (Poisson, at a fixed period or from a
/// trace), each between a drawn pair of hosts and of a drawn size, each a TCP flow
/// with the workload's TCP keys (those of `[[flow]]`). A flow that has acknowledged
/// all its data leaves the `fct` table a row and frees its state.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The workload's name: its flows are `<name>#<n>` (n = 0, 1, … in arrival order),
    /// its random substreams `workload/<name>/arrivals`, `/sizes`, `/pairs`, `/routing`.
    pub name: String,
    /// Hosts the flows leave from, drawn uniformly (with `dst`): give it or `matrix`.
    #[serde(default)]
    pub src: Option<Vec<String>>,
    /// Hosts the flows go to, drawn uniformly; a pair with src = dst is drawn again:
    /// give it or `matrix`.
    #[serde(default)]
    pub dst: Option<Vec<String>>,
    /// An origin–destination matrix instead of `src`/`dst`: a CSV file (relative paths
    /// from the working directory; a header row of host names, or plain numbers with
    /// `hosts`) or an inline array of rows. Entry (i, j) weighs the pair (host i, host
    /// j); without `rate` or `load` the entries are arrival rates per second; give it or
    /// `src`.
    #[serde(default)]
    pub matrix: Option<MatrixSpec>,
    /// The hosts of the matrix's rows and columns, in order (default: the CSV header's
    /// names).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// When flows arrive: `poisson` (exponential gaps of mean 1/`rate`), `fixed` (one
    /// every 1/`rate`, the first at `start`) or `trace` (the rows of the CSV file
    /// `trace`).
    #[serde(default)]
    pub arrivals: ArrivalKind,
    /// Flow arrivals per second: `"50/s"`, `"3000/min"`, or a number per second (default:
    /// none; `load`, the matrix's entries or the trace's rows give the arrivals then).
    #[serde(default)]
    pub rate: Option<PerSec>,
    /// Offered load instead of `rate`: rate = load / (8 × mean size) (default: none).
    #[serde(default)]
    pub load: Option<Rate>,
    /// `arrivals = "trace"`: a CSV file of `start, src, dst, size` rows sorted by start
    /// (relative paths from the working directory); required for `arrivals = "trace"`.
    #[serde(default)]
    pub trace: Option<String>,
    /// Flow size: a size (`"100KB"`), or a distribution table with a `type`
    /// (`exponential`: `mean`; `pareto`: `shape`, `lower`, `upper`; `lognormal`: `mu`
    /// and `sigma`, or `mean` and `median`; `empirical`: `cdf` points or a `file`,
    /// `interpolate`). A flow sends ceil(size / mss) segments. (default: none; a trace's
    /// rows carry their own sizes)
    #[serde(default)]
    pub size: Option<SizeSpec>,
    /// The first arrival: at `start` (fixed) or one gap after it (Poisson). Default 0.
    #[serde(default)]
    pub start: Option<Dur>,
    /// No arrival at or after this instant (default: the end of the run); flows already
    /// started run on.
    #[serde(default)]
    pub stop: Option<Dur>,
    /// At most this many arrivals (default: no cap).
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// OBS class of the generated flows (index into `obs.class`, default 0).
    #[serde(default)]
    pub class: Option<u32>,
    /// The generated flows' routing keys (`metric`, `k`, `policy`), overriding
    /// `[routing]` key by key; `least_loaded` is not available to generated flows
    /// (default: the `[routing]` table's keys).
    #[serde(default)]
    pub routing: Option<RoutingSpec>,
    // --- TCP: the keys of a `[[flow]]` of type "tcp", with their defaults.
    #[serde(default)]
    pub variant: Option<Variant>,
    #[serde(default)]
    pub cc: Option<CcKind>,
    #[serde(default)]
    pub recovery: Option<RecoveryKind>,
    #[serde(default)]
    pub cubic_ssthresh: Option<CubicSsthresh>,
    /// Where the TCP keys' defaults come from: `ns2` (ns-2's `Agent/TCP`) or `rfc` (the
    /// RFCs).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// ns-2 release whose `Agent/TCP` defaults the `ns2` profile starts from (default
    /// `"2.35"`); explicit settings such as `min_rto` override the preset.
    #[serde(default)]
    pub ns2_version: Option<Ns2Version>,
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
    #[serde(default)]
    pub syn: Option<bool>,
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    #[serde(default)]
    pub precision_reduce: Option<bool>,
    #[serde(default)]
    pub bug_fix: Option<bool>,
    #[serde(default)]
    pub newreno_changes1: Option<bool>,
    #[serde(default)]
    pub partial_window_deflation: Option<bool>,
    #[serde(default)]
    pub sack_partial_ack: Option<bool>,
    #[serde(default)]
    pub clock_phase: Option<Dur>,
}

/// `workload.arrivals`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalKind {
    /// Exponential gaps of mean 1/`rate`.
    #[default]
    Poisson,
    /// One arrival every 1/`rate`, the first at `start`.
    Fixed,
    /// The rows of the CSV file `trace`.
    Trace,
}

// ---------------------------------------------------------------------------------------
// Routing (docs/guide/networks.md, "Routing"; `routing.rs`, `ksp.rs`).

/// The `[routing]` table (and a flow's `routing`): the cost a route minimises, how many
/// loop-free paths are kept per source–destination pair, and which of them a flow takes.
/// The defaults (fewest hops, one path) give every scenario the routes it had before
/// these keys existed. Among paths of equal cost the one with fewer hops wins, then the
/// lexicographically smallest sequence of node indices (`[[node]]` order).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoutingSpec {
    /// What a route minimises: `hops`, fibre `km` (packet links count 0 km; every fibre
    /// a route may cross needs `length_km`) or propagation `delay` (links and fibres).
    /// Default `hops`.
    pub metric: Option<RouteMetric>,
    /// Loop-free paths kept per pair, in order of cost (Yen's k shortest paths); the
    /// policy picks one per flow. Default 1.
    pub k: Option<u32>,
    /// Which of the `k` paths a flow takes: `first`, `random` (uniform, from the
    /// `routing` substream of the seed), `round_robin` (the n-th flow of a pair takes
    /// path n mod k) or `least_loaded` (fewest flows already routed over its busiest
    /// hop). Default `first`.
    pub policy: Option<RoutePolicy>,
}

/// The cost a route minimises (`routing.metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RouteMetric {
    /// Number of hops (links and fibres).
    #[default]
    Hops,
    /// Fibre length (`fibre.length_km`); packet links count 0 km.
    Km,
    /// Propagation delay of links and fibres.
    Delay,
}

/// Which of a pair's `k` paths a flow takes (`routing.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutePolicy {
    /// The cheapest path.
    #[default]
    First,
    /// A path drawn uniformly, one draw per flow from the `routing` substream.
    Random,
    /// The n-th flow (in `[[flow]]` order) of a source–destination pair takes path
    /// n mod (paths found).
    RoundRobin,
    /// The path whose busiest hop carries the fewest flows routed before this one (in
    /// `[[flow]]` order, forward routes counted); ties to the smaller total, then the
    /// cheaper path. Counted in flows at set-up, not in measured traffic.
    LeastLoaded,
}

// ---------------------------------------------------------------------------------------
// Optical burst switching.

/// One `[[fibre]]`: a fibre between two OBS nodes with `wavelengths` data channels (plus
/// a control channel that carries the burst control packets and is never congested).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FibreSpec {
    /// One end (an OBS node name).
    pub a: String,
    /// The other end (an OBS node name); `a` → `b` is the fibre's first direction.
    pub b: String,
    /// Line rate of each data wavelength (default: the `rate` of the fabric at the
    /// sending end).
    #[serde(default)]
    pub rate: Option<Rate>,
    /// The fabric the fibre attaches to at node `a` / `b` (default: the node's first).
    #[serde(default)]
    pub fabric_a: Option<String>,
    #[serde(default)]
    /// The fabric the fibre attaches to at node `b` (default: the node's first).
    pub fabric_b: Option<String>,
    /// Propagation delay; give either `delay` or `length_km` (5 µs per km).
    #[serde(default)]
    pub delay: Option<Dur>,
    #[serde(default)]
    /// Length in km; the delay is then 5 µs per km (give it or `delay`).
    pub length_km: Option<f64>,
    /// Data wavelengths `k` per direction (default 1).
    #[serde(default = "default_wavelengths")]
    pub wavelengths: u32,
    /// Per-burst loss probability on this fibre (overrides `obs.loss.p`; `per_link`
    /// scope only).
    #[serde(default)]
    /// (default: `obs.loss.p`)
    pub loss: Option<f64>,
    #[serde(default = "default_true")]
    /// Whether the fibre carries both directions (`false`: only `a` → `b`).
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
    /// The assembly policy; each policy reads only the keys below that name it.
    pub kind: AssemblyType,
    #[serde(default)]
    /// `timer`: the assembly period (yu's T_b); required for `timer`.
    pub tb: Option<Dur>,
    #[serde(default)]
    /// `timer`: random jitter of each period, as a fraction of `tb` (default 0: fixed
    /// periods).
    pub jitter: Option<f64>,
    #[serde(default)]
    /// `length`: a burst leaves once its queue holds this many bytes (give it or
    /// `max_pkts`; default: no byte limit).
    pub max_bytes: Option<Size>,
    #[serde(default)]
    /// `length`: a burst leaves once its queue holds this many packets (give it or
    /// `max_bytes`; default: no packet limit).
    pub max_pkts: Option<u32>,
    #[serde(default)]
    /// `hybrid`: a burst leaves at the latest this long after its queue opened it; the
    /// timer cap of `cwba` (optional) and `mcwba`; required for `hybrid` and `mcwba`.
    pub tmax: Option<Dur>,
    #[serde(default)]
    /// `hybrid`: a burst leaves once it holds this many bytes; required for `hybrid`.
    pub lmax: Option<Size>,
    #[serde(default)]
    /// `hybrid`: the smallest burst: a shorter one is padded up to this size (default: no
    /// padding).
    pub lmin: Option<Size>,
    /// `cwba`: where the window comes from (`mark` | `oracle` | `estimator`).
    #[serde(default)]
    /// (default: `mark` for `mcwba`; required for `cwba`; `ecwba` uses its estimate)
    pub window: Option<WindowName>,
    /// ACK-ratio assembly (zhou §3): the largest share of ACKs in a burst, `R_MAX`.
    #[serde(default)]
    /// (default: no ACK-ratio rule)
    pub ack_ratio_max: Option<f64>,
    /// `python`: the assembler to instantiate once per queue, `"module:Class"` (the
    /// module found beside the scenario file or on `sys.path`); required for `python`.
    #[serde(default)]
    pub object: Option<String>,
    /// `python`: keyword arguments of the class, passed as given (see
    /// docs/topics/python-hooks.md). (default: none)
    #[serde(default)]
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
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
    /// An assembler written in Python (`object`, `params`; `obs/external.rs`); runs only
    /// from the Python package.
    Python,
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
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct LossSpec {
    /// Probability that a burst is lost: on each fibre (`scope = per_link`) or once per
    /// path (`per_path`).
    pub p: f64,
    /// Where `p` applies: on each fibre hop or once per path.
    pub scope: LossScope,
    /// Which bursts may be lost: those carrying data, or every burst, pure-ACK bursts
    /// included.
    pub applies_to: LossAppliesTo,
}

/// Deterministic burst dropping (yu figs 8, 9): the bursts with these 0-based indices,
/// in emission order, of the queue `queue` at ingress `edge` are lost.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropBurstSpec {
    /// The ingress edge node (name) whose bursts are dropped.
    pub edge: String,
    /// The queue's key: the flow name (`per_flow`), the egress node name
    /// (`per_egress`) or `"<egress>/<class>"` (`per_class`).
    pub queue: String,
    /// Which of the queue's bursts to drop, by their number in the order they leave.
    pub bursts: Vec<u64>,
}

/// Per-class overrides for the `per_class` classifier.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct ClassSpec {
    /// The class's name (default `class<i>`, `i` its index).
    pub name: Option<String>,
    /// The class's assembly policy: its queues' under `per_class`, the default of its
    /// flows (those without their own) under `per_flow`; `per_egress` rejects it.
    /// (default: `obs.assembly`)
    pub assembly: Option<AssemblySpec>,
    /// Added to the base offset of this class's bursts (e.g. MEMS set-up, hybrid §II).
    /// (default 0)
    pub extra_offset: Option<Dur>,
    /// Path policy: this class's bursts cross only fibres attached to the fabric of this
    /// name at both ends (nodes without declared fabrics serve every class).
    /// (default: any fabric)
    pub fabric: Option<String>,
    /// Fixed offset of this class's bursts, replacing the computed one and `obs.offset`
    /// (hybrid §II: the offset depends on the path's switching technology).
    /// (default: computed)
    pub offset: Option<Dur>,
    /// Priority of this class's bursts (default 0; higher wins): with
    /// `obs.contention.preemption` a burst may take the reservation of a burst of a
    /// lower priority.
    pub priority: Option<u32>,
}

/// The `[obs]` section. Every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ObsSpec {
    /// The assembly policy of every ingress queue (`[obs.assembly]`) unless a node, class
    /// or flow gives its own; required with `[obs]`.
    pub assembly: Option<AssemblySpec>,
    /// How an ingress sorts packets into assembly queues.
    pub classifier: Classifier,
    /// What happens to TCP ACKs crossing the OBS network.
    pub ack_mode: AckMode,
    /// The wavelength scheduler of every OBS node (`laucvf`: latest available unused
    /// channel with void filling).
    pub scheduler: SchedulerName,
    /// Full wavelength conversion at every node; `false` enforces wavelength continuity.
    #[serde(default = "default_true")]
    pub conversion: bool,
    /// The signalling protocol: `jet` reserves a wavelength from the burst's arrival, `jit`
    /// from the end of BCP processing.
    pub signalling: Signalling,
    /// BCP processing time per node (δ).
    /// (default 10 us)
    pub bcp_processing: Option<Dur>,
    /// Switch set-up time of every OBS node (default 5 us; a node's `switch_setup`
    /// overrides it).
    pub switch_setup: Option<Dur>,
    /// Added to the base offset `hops·δ + setup`.
    /// (default 0)
    pub extra_offset: Option<Dur>,
    /// Fixed offset replacing `hops·δ + setup + extra_offset` (may be too short: such
    /// bursts are lost where the offset runs out).
    /// (default: computed)
    pub offset: Option<Dur>,
    /// Reject a fixed offset (`obs.offset`, `obs.class[i].offset`) shorter than its
    /// path needs (some node's `Σδ + set-up`) instead of losing its bursts.
    pub safe_offset: bool,
    /// Cap on packets per burst (ozsarac: 10 000).
    /// (default: no cap)
    pub max_pkts_per_burst: Option<u32>,
    /// Assembly-queue limit in packets (ozsarac: 100 000); arrivals beyond it are dropped.
    /// (default: no limit)
    pub queue_limit: Option<u64>,
    /// Independent random burst loss (`[obs.loss]`; default: none).
    pub loss: Option<LossSpec>,
    #[serde(alias = "drop_burst")]
    /// Deterministic burst drops (`[[obs.drop_burst]]`), for tests and reproductions
    /// (default: none).
    pub drop_bursts: Vec<DropBurstSpec>,
    #[serde(alias = "class")]
    /// Burst classes (`[[obs.class]]`) for the `per_class` classifier, class offsets and
    /// priorities (default: none).
    pub classes: Vec<ClassSpec>,
    // --- ingress edge and control plane (docs/topics/control-plane.md)
    /// Ingress electronic buffer: a burst that finds no wavelength on its first fibre
    /// waits for the earliest feasible reservation instead of being lost.
    /// (default: a bufferless ingress)
    pub ingress: Option<IngressSpec>,
    /// The control channel: loss of burst control packets.
    /// (default: BCPs never lost and never queued)
    pub control: Option<ControlSpec>,
    // --- contention resolution at core nodes (docs/topics/contention.md) ---
    /// Contention resolution inside the OBS network (`[obs.contention]`): fibre delay
    /// lines, limited wavelength converters, per-wavelength statistics. All off by
    /// default.
    /// (default: no contention resolution)
    pub contention: Option<ContentionSpec>,
    /// Burst retransmission by the ingress after a NACK.
    /// (default: no retransmission)
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
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct ControlSpec {
    /// Probability that a BCP is lost on each fibre it crosses (independently); its
    /// burst is then lost at the next node (`control_lost`). Default 0.
    /// (default 0)
    pub loss: Option<f64>,
    /// Rate of the control wavelength of every fibre: BCPs are serialised on it (FIFO,
    /// `bcp_size` each) and processed one at a time at each node (FIFO, δ each).
    /// Absent: BCPs take no time on the channel and never queue.
    /// (default: BCPs never queue)
    pub rate: Option<Rate>,
    /// Size of a BCP on the control wavelength (default 100 B; needs `rate`).
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
    /// (default: no limit)
    pub max_bursts: Option<u64>,
    /// Most bytes waiting per first fibre; a burst beyond it is lost.
    #[serde(default)]
    /// (default: no limit)
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
#[serde(default, deny_unknown_fields)]
pub struct ContentionSpec {
    /// Fibre delay line lengths, tried in this order when no wavelength is free at a
    /// burst's arrival (one set of lines per node, shared by its output fibres).
    pub fdl: Vec<Dur>,
    /// Capacity of every delay line: `one` burst at a time or `many`.
    pub fdl_capacity: Option<FdlCapacity>,
    /// Wavelength converters per pool, used when wavelength continuity (`conversion =
    /// false`) finds the burst's wavelength busy.
    /// (default 0)
    pub converters: Option<u32>,
    /// Pools per `node` or per output `fibre`.
    pub converter_scope: Option<ConverterScope>,
    /// Burst segmentation: on contention, drop only the overlapping segment, the head of
    /// the contending burst (`head`) or the tail of the scheduled one (`tail`),
    /// delivering the rest (default: off, the contending burst is lost whole).
    pub segmentation: Option<Segmentation>,
    /// Priority preemption: after every other mechanism, a burst may take the one
    /// reservation it overlaps if that burst's class has a lower `priority`.
    pub preemption: Option<Preemption>,
    /// Adds the `obs_channels` table: per fibre and wavelength, bursts scheduled, busy
    /// time, bursts lost waiting for it, FDL and converter use.
    pub per_wavelength: bool,
    /// Deflection routing: per node, the neighbours a burst that finds no wavelength
    /// on its output fibre may be sent to instead (`[[obs.contention.deflection]]`),
    /// continuing from there on the shortest path to its egress.
    pub deflection: Vec<DeflectionSpec>,
    /// How often one burst may be deflected on its way (default 1).
    pub max_deflections: Option<u32>,
    /// Extra offset every burst gets at its ingress so that a deflected (longer) path
    /// still leaves time for its BCP processing (default 0).
    /// (default 0)
    pub deflection_offset: Option<Dur>,
}

/// One `[[obs.contention.deflection]]` entry: at `node`, try the fibres to `via` in
/// this order when the burst's own output fibre has no wavelength.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeflectionSpec {
    /// The node (name) whose contending bursts may be deflected.
    pub node: String,
    /// The neighbours (node names) it may deflect them to, in order of preference.
    pub via: Vec<String>,
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
// ---------------------------------------------------------------------------------------
// Parsing entry points.

/// The 1-based line and column (in characters) of byte `at` of `text`, for syntax errors.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..text.floor_char_boundary(at.min(text.len()))];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl ScenarioSpec {
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::parse(text).map_err(|e| {
            let at = e.span().map(|s| line_column(text, s.start));
            let at = at.map(|(l, c)| format!(" (at line {l}, column {c})"));
            ScenarioError::new(
                "",
                format!("malformed TOML: {}{}", e.message(), at.unwrap_or_default()),
            )
        })?;
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
            .replace("workloads[", "workload[")
    };
    ScenarioError::new(field, msg)
}
