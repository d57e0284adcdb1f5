//! The simulated world: components that own their state and their handlers, and the
//! event loop that dispatches to them (htsim's model, statically dispatched).
//!
//! Read first: [`Ev`] (every event kind and the component it goes to), then
//! [`World::run_until_end`]. Components, one file each:
//! - `links` — packet link directions (FIFO transmitter, drop-tail, pipe, loss);
//! - `hosts` — each flow's TCP sender/receiver or UDP source (the only TCP caller);
//! - `edge` — OBS ingress edges: assembly queues, assemblers, per-flow OBS state;
//! - `core_node` — OBS fabrics and fibres: BCP processing, wavelength reservation;
//! - `route` — where a burst is on its path (its part of the BCP timeline);
//! - `fibre` — one fibre direction: its wavelengths, counters, reservation holders;
//! - `contention` — contention resolution, one stage per resource (delay lines,
//!   converters, segmentation, preemption, deflection);
//! - `collector` — run metadata and opt-in traces;
//! - `workloads` — flows generated during the run (`[[workload]]`): arrivals, reused
//!   flow slots, their `fct` rows;
//! - `wiring` — builds the components and the precomputed routes from a scenario;
//! - `packet` — packets, their pool, route hops.
//!
//! Each handler returns what it wants done (a [`HostAct`] or a TCP
//! sender's [`Emit`](hosts::Emit), a link
//! [`Offer`], an assembler [`Decision`], a core [`Step`]); this module
//! carries the actions out. No component reads another's fields; packets and bursts
//! live in pools owned here and are passed by index.
//!
//! Design (htsim-style; docs/design.md): packets and bursts are pooled by index and keep
//! their buffers across reuse, so the hot loop allocates nothing per packet once the
//! pools have reached their working size; a link direction holds at most one pending
//! event; routes are precomputed lists of hops; timers are lazily cancelled.

pub mod collector;
mod contention;
pub mod control;
pub mod core_node;
pub mod edge;
pub mod fct;
mod fibre;
mod hint;
pub mod hosts;
pub mod ingress;
pub mod links;
pub mod monitor;
pub mod packet;
pub mod probe;
mod ring;
pub mod route;
pub mod route_table;
pub mod wiring;
pub mod workloads;

use crate::engine::{Event, EventQueue};
use crate::obs::{Decision, PktMeta, TimerCmd};
use crate::scenario::{NodeKind, Resolved, ResolvedFlowKind, ScenarioError};
use crate::stats::{BurstEvent, BurstLoss, BurstSample, PacketEvent, RunResult};
use crate::units::SimTime;
use collector::Collector;
use core_node::{Core, Step};
use edge::{Edges, Enqueued};
use hosts::{HostAct, Hosts, Seg};
use links::{Due, Feeds, Links, Offer, Pos, NO_LINK};
use packet::{Hop, PacketPool, PktHdr, PktKind};
use route::BurstRoute;

/// Adds the time since `$t` to phase `$p` of the probe and restarts `$t`, in a build with
/// the probe (`world::probe`); nothing at all otherwise, so that the plain build's code
/// is exactly what it was without the probe (a call that did nothing still changed what
/// was inlined into the event loop: +3.5 % instructions per segment).
macro_rules! lap {
    ($t:ident, $p:expr) => {
        #[cfg(feature = "probe")]
        #[allow(unused_assignments)] // the last lap of a function
        {
            $t = probe::lap($p, $t);
        }
    };
}

/// "No packet" in [`Ev::LinkArrive`]'s hint (a sentinel, not an `Option`: with
/// `Option<u32>` the event loop ran 0.5–0.9 % more instructions per segment).
pub const NO_PACKET: u32 = u32::MAX;

/// Event kinds, each addressed to one component by index. All payloads are 32-bit
/// indices, so an event packs into one 64-bit word in the event queue ([`Event`]).
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Links: the head packet of link `0`'s pipe reaches the far end. If the event may
    /// deliver it (the far end is a host, or it may pass on to one that takes it early:
    /// `Links::set_names`) or the far end is an OBS ingress edge (which reads its record
    /// to queue it for assembly), `1` is that packet's id (else [`NO_PACKET`]): a hint
    /// only, for fetching its record into the cache one event ahead (see
    /// [`World::run_until_end`]).
    LinkArrive(u32, u32),
    /// Hosts: flow `0` starts / stops.
    FlowStart(u32),
    FlowStop(u32),
    /// Hosts: retransmission timer of TCP flow `0` (lazily cancelled).
    Rto(u32),
    /// Hosts: pacing timer of TCP flow `0` (lazily cancelled).
    Pace(u32),
    /// Hosts: delayed-ACK timer of TCP flow `0`'s receiver (lazily cancelled).
    DelAck(u32),
    /// Hosts: next packet of a CBR / on-off source.
    UdpSend(u32),
    /// Hosts: on-off source switches state.
    OnOffToggle(u32),
    /// Edge: assembly timer of queue `0` (lazily cancelled: only the one whose sequence
    /// number is in `World::timers` is current).
    AsmTimer(u32),
    /// Core: the burst control packet of burst `0` has been processed at its next node.
    Bcp(u32),
    /// Edge (egress): the tail of burst `0` reaches its egress edge node.
    BurstArrive(u32),
    /// Edge (ingress): the NACK of burst `0` is back; the ingress sends it again
    /// (`obs.retransmit`).
    Retransmit(u32),
    /// Control channel (`obs.control.rate`): the BCP of burst `0` reaches its next
    /// node and joins the node's processing queue.
    BcpArrive(u32),
    /// Collector: end of warm-up, statistics restart.
    Warmup,
    /// Collector: goodput samples of the TCP flows (`sim.trace.goodput`).
    Sample,
    /// Workloads: the next flow of workload `0` arrives (`workloads.rs`).
    Arrival(u32),
    /// End of the run.
    End,
}

/// Ev packed into one word (see [`Event`]). Bit 63 clear: a link arrival, the link in
/// bits 32–62 (links are fewer than 2^31, checked in [`World::new`]) and the packet in
/// bits 0–31. Bit 63 set: the kind in bits 32–39 and the index in bits 0–31.
impl Event for Ev {
    type Stored = u64;
    #[inline(always)]
    fn store(self) -> u64 {
        const K: u32 = 32;
        const OTHER: u64 = 1 << 63;
        match self {
            Ev::LinkArrive(l, p) => ((l as u64) << K) | p as u64,
            Ev::FlowStart(f) => OTHER | (1 << K) | f as u64,
            Ev::FlowStop(f) => OTHER | (2 << K) | f as u64,
            Ev::Rto(f) => OTHER | (3 << K) | f as u64,
            Ev::DelAck(f) => OTHER | (4 << K) | f as u64,
            Ev::UdpSend(f) => OTHER | (5 << K) | f as u64,
            Ev::OnOffToggle(f) => OTHER | (6 << K) | f as u64,
            Ev::AsmTimer(q) => OTHER | (7 << K) | q as u64,
            Ev::Bcp(b) => OTHER | (8 << K) | b as u64,
            Ev::BurstArrive(b) => OTHER | (9 << K) | b as u64,
            Ev::Warmup => OTHER | (10 << K),
            Ev::End => OTHER | (11 << K),
            Ev::Sample => OTHER | (12 << K),
            Ev::Retransmit(b) => OTHER | (13 << K) | b as u64,
            Ev::BcpArrive(b) => OTHER | (14 << K) | b as u64,
            Ev::Pace(f) => OTHER | (15 << K) | f as u64,
            Ev::Arrival(w) => OTHER | (16 << K) | w as u64,
        }
    }
    #[inline(always)]
    fn is_timer(&self) -> bool {
        matches!(
            self,
            Ev::Rto(_) | Ev::Pace(_) | Ev::DelAck(_) | Ev::AsmTimer(_)
        )
    }
    #[inline(always)]
    fn load(w: u64) -> Ev {
        let lo = w as u32;
        if w >> 63 == 0 {
            return Ev::LinkArrive((w >> 32) as u32, lo);
        }
        match (w >> 32) as u8 {
            1 => Ev::FlowStart(lo),
            2 => Ev::FlowStop(lo),
            3 => Ev::Rto(lo),
            4 => Ev::DelAck(lo),
            5 => Ev::UdpSend(lo),
            6 => Ev::OnOffToggle(lo),
            7 => Ev::AsmTimer(lo),
            8 => Ev::Bcp(lo),
            9 => Ev::BurstArrive(lo),
            10 => Ev::Warmup,
            12 => Ev::Sample,
            13 => Ev::Retransmit(lo),
            14 => Ev::BcpArrive(lo),
            15 => Ev::Pace(lo),
            16 => Ev::Arrival(lo),
            _ => Ev::End,
        }
    }
}

/// A burst in the pool: its packets, its queue, and where it is on its path.
#[derive(Clone, Debug, Default)]
struct Burst {
    queue: u32,
    index: u64,
    pkts: Vec<u32>,
    route: BurstRoute,
    /// `obs.retransmit`: when the burst was formed, and how often it was sent again.
    formed: SimTime,
    tries: u32,
}

/// The world.
pub struct World {
    q: EventQueue<Ev>,
    node_names: Vec<String>,
    node_kind: Vec<NodeKind>,
    /// The `routes` result table (known once the scenario is resolved).
    route_rows: Vec<crate::stats::RouteRow>,
    routes: Vec<Vec<Hop>>,
    /// Every route's hops one after another, each closed by [`Hop::Deliver`];
    /// `route_at[r]`: where route `r` starts. A packet's [`Pos`] indexes this table.
    hops: Vec<Hop>,
    route_at: Vec<u32>,
    /// `through[k]`: the link of hop `k` if a packet can be passed into it ahead of the
    /// clock from the previous hop's link ([`Links::pass_through`]), [`EARLY_DELIVERY`]
    /// at a `Deliver` hop whose host takes packets early, else [`NO_LINK`]. That needs a
    /// link every route enters from one and the same link, which never drops a packet,
    /// and no edge hook (it observes packets as they reach each node).
    through: Vec<u32>,
    /// Whether packets may pass through links at all ([`World::set_pass_through`]).
    pass_through: bool,
    /// Whether hosts that only receive take packets early ([`World::set_early_delivery`]).
    early_delivery: bool,
    /// Per route: the node it ends at (route `2f` is flow `f`'s data route, ending at its
    /// receiver; route `2f + 1` its ACK route, ending at its sender).
    route_end: Vec<u32>,
    /// Per node: a host that only receives, which may take its packets ahead of the
    /// clock ([`EARLY_DELIVERY`]): the source of no flow, whose TCP flows acknowledge
    /// every segment at once (no delayed ACK), in a run that traces no packets.
    only_receives: Vec<bool>,
    /// Per flow: its receiver's first link out if the receiver takes packets early
    /// ([`EARLY_DELIVERY`]), else [`NO_LINK`]: the look-ahead asks for its line.
    early_out: Vec<u32>,
    pkts: PacketPool,
    links: Links,
    hosts: Hosts,
    edges: Edges,
    /// Per assembly queue: the sequence number of its last armed timer event and the
    /// assembler's generation for it. An earlier timer event of the queue is stale.
    timers: Vec<(u64, u64)>,
    /// The OBS core (`None` without an `[obs]` section).
    core: Option<Core>,
    obs_enabled: bool,
    bursts: Vec<Burst>,
    free_bursts: Vec<u32>,
    collector: Collector,
    /// Reused action buffer of the hosts.
    acts: Vec<HostAct>,
    /// Whether the edge hook runs (an assembler reads the flight estimate, or a test
    /// asked for it); `is_edge[n]`: node `n` is an OBS edge node.
    hook_on: bool,
    is_edge: Vec<bool>,
    /// `sim.max_memory`, and why the run stopped early if it outgrew it (or could not
    /// write a streamed trace).
    max_memory: u64,
    /// `sim.max_events`: the run stops with an error once it has handled more events
    /// (looked at with the memory guard, so it costs the loop nothing per event).
    max_events: u64,
    stopped: Option<ScenarioError>,
    /// Some queue's assembler is external (`obs/external.rs`): its failures are
    /// looked for when the memory guard looks and at the end.
    external: bool,
    /// `obs.ingress`: the ingress electronic buffer (`None`: bufferless ingress).
    ingress: Option<ingress::IngressBuffer>,
    /// `obs.control.loss`: each BCP is lost on each fibre it crosses with this
    /// probability, drawn from the `obs/control/loss` substream.
    control_loss: Option<(f64, crate::rng::RngStream)>,
    /// `obs.retransmit`: (most retransmissions per burst, how long the ingress keeps a
    /// copy from the burst's formation).
    retransmit: Option<(u32, SimTime)>,
    /// `obs.class[i].priority` by class (empty: every burst has priority 0), for
    /// `obs.contention.preemption`.
    class_priority: Vec<u32>,
    /// `obs.control.rate`: the control channel's queues (`None`: BCPs never queue).
    control_chan: Option<control::ControlChannel>,
    /// Without a control channel: the BCPs crossing each fibre, one event per fibre
    /// ([`control::BcpLanes`]).
    bcp_lanes: control::BcpLanes,
    /// The world's data have outgrown the caches: the event loop fetches the next
    /// event's link and packet one event ahead. Set by the memory guard's periodic look
    /// when [`World::mem_bytes`] exceeds `lookahead_above` ([`LOOKAHEAD_ABOVE_BYTES`]).
    lookahead: bool,
    lookahead_above: u64,
    /// The `[[workload]]` tables: their arrivals, the slots of their flows, their rows.
    gen: workloads::Generated,
    /// Called with the memory guard's look ([`World::set_monitor`]).
    monitor: Option<monitor::Monitor>,
}

/// The memory guard looks at the world's size once every this many events (a power of
/// two): often enough that no run can outgrow its budget by much between two looks.
const MEMORY_CHECK_EVERY: u64 = 1 << 14;

/// How many packets ahead [`World::burst_arrive`] asks for a packet's record.
const BURST_RECORDS_AHEAD: usize = 4;
/// How many packets ahead it asks for what the packet's next link or its delivery reads
/// (found from the record, asked for two packets earlier).
const BURST_STATE_AHEAD: usize = 2;

/// Above this estimate of the world's memory (packet pool, link pipes and lines, event
/// heap: [`World::mem_bytes`], looked at with the memory guard), the event loop fetches
/// the next event's data one event ahead. Below it they stay cached and the look-ahead
/// costs instructions (+2 to +5 % per segment on the one-flow benchmarks) for nothing.
/// Set at twice the L2 cache of the machine it was tuned on (1 MiB): the one-flow
/// benchmarks (0.1 MB) and the 10-flow dumbbell (1 MB) stay below it. A hint only: no
/// result depends on it.
pub const LOOKAHEAD_ABOVE_BYTES: u64 = 2 << 20;

/// In the world's `through` table at a route's [`Hop::Deliver`]: the packet is
/// delivered when its last link takes it, at its arrival time, ahead of the clock
/// ("early delivery"), and that link needs no arrival event for it. On the dumbbells a
/// segment and its ACK then take three events instead of four, on the 5-hop path 2.45
/// instead of 3.45.
///
/// The host only receives (it sends no flow, acknowledges every segment at once, and no
/// packet trace records the delivery), every packet reaching it comes over one same
/// link, itself fed by one same link in every route, and that last link hands a packet
/// over early only when its pipe is empty, the packet arrives inside its measurement
/// period (the warm-up instant and the end bound it, as they bound passing through:
/// [`Links::pass_through`]) and it waited there less than [`links::HOST_WAIT_MAX`]. So
/// the host takes its packets in their order of arrival, each at its own arrival time,
/// and nothing else changes its state or reads it meanwhile (it has no timer). Its ACKs
/// are offered to their first link at those same times, in that order; that link never
/// drops (no queue limit to count, no loss to draw), so an offer ahead of the clock
/// books the same transmission as one on time.
///
/// What can change is the order in which events of one same instant are handled, since
/// an ACK's arrival event may be scheduled at another moment than it would have been.
/// Where a host's last link is fed by an OBS segment, that order is decisive: a burst
/// hands its packets to several hosts' links at one instant, their ACKs meet at the
/// edge at one instant too, and a 10-flow OBS network delivered 0.3 % fewer segments
/// when such hosts took packets early. So they do not; `tests/pass_through.rs` runs
/// every golden scenario, example and benchmark scenario with early delivery on and
/// off. A run stopped by the memory guard may have counted deliveries due after the
/// instant it stopped.
pub const EARLY_DELIVERY: u32 = NO_LINK - 1;

/// Per node: whether it is a host that only receives (see [`EARLY_DELIVERY`]; the world
/// also checks the links in and out).
fn only_receives(r: &Resolved) -> Vec<bool> {
    let mut ok: Vec<bool> = r
        .nodes
        .iter()
        .map(|n| n.1 == NodeKind::Host && !r.trace.packets)
        .collect();
    for f in &r.flows {
        ok[f.src as usize] = false;
        if let ResolvedFlowKind::Tcp { cfg, .. } = &f.kind {
            if cfg.delayed_ack {
                ok[f.dst as usize] = false;
            }
        }
    }
    ok
}

impl World {
    /// Builds the world from a validated scenario.
    pub fn new(r: &Resolved) -> Result<World, ScenarioError> {
        Self::with_externals(r, None)
    }

    /// [`World::new`] with a factory for the queues of `type = "python"` assemblies
    /// (`obs/external.rs`; the Python binding gives one). Without it they are refused.
    pub fn with_externals(
        r: &Resolved,
        ext: Option<&mut dyn crate::obs::ExternalFactory>,
    ) -> Result<World, ScenarioError> {
        let w = wiring::build(r, ext)?;
        if w.links.len() >= 1 << 31 {
            // A link arrival packs the link into 31 bits of its event word (`Ev`).
            return Err(ScenarioError::new(
                "link",
                format!(
                    "{} links in all; at most 2^31 - 1 are supported",
                    w.links.len()
                ),
            ));
        }
        let (hops, route_at) = flatten(&w.routes)?;
        let fibre_dirs = w.core.as_ref().map_or(0, |c| c.fibre_count());
        let mut world = World {
            q: EventQueue::new(),
            node_names: r.nodes.iter().map(|n| n.0.clone()).collect(),
            node_kind: r.nodes.iter().map(|n| n.1).collect(),
            route_rows: route_table::rows(r),
            gen: workloads::Generated::new(r)?,
            routes: w.routes,
            hops,
            route_at,
            through: Vec::new(),
            // Passing through links and early delivery are worked out per route and
            // host from the flows known at set-up; generated flows come later.
            pass_through: r.workloads.is_empty(),
            early_delivery: r.workloads.is_empty(),
            route_end: r.flows.iter().flat_map(|f| [f.dst, f.src]).collect(),
            early_out: Vec::new(),
            only_receives: only_receives(r),
            pkts: PacketPool::with_capacity(1024),
            links: w.links,
            hosts: Hosts::new(r),
            timers: vec![(u64::MAX, 0); w.edges.queue_count()],
            edges: w.edges,
            obs_enabled: w.core.is_some() && !r.fibres.is_empty(),
            core: w.core,
            bursts: Vec::new(),
            free_bursts: Vec::new(),
            collector: Collector::new(r)?,
            acts: Vec::with_capacity(64),
            hook_on: false,
            lookahead: false,
            lookahead_above: LOOKAHEAD_ABOVE_BYTES,
            monitor: None,
            is_edge: r.nodes.iter().map(|n| n.1 == NodeKind::Edge).collect(),
            max_memory: r.max_memory,
            max_events: r.max_events,
            stopped: None,
            external: false,
            ingress: r
                .obs
                .as_ref()
                .and_then(|o| o.ingress)
                .map(ingress::IngressBuffer::new),
            retransmit: r.obs.as_ref().and_then(|o| o.retransmit),
            class_priority: r
                .obs
                .as_ref()
                .filter(|o| o.contention.preemption != crate::scenario::Preemption::None)
                .map(|o| o.classes.iter().map(|c| c.priority).collect())
                .unwrap_or_default(),
            bcp_lanes: control::BcpLanes::new(fibre_dirs),
            control_chan: r
                .obs
                .as_ref()
                .and_then(|o| o.control_tx)
                .map(control::ControlChannel::new),
            control_loss: r
                .obs
                .as_ref()
                .map(|o| o.control_loss)
                .filter(|&p| p > 0.0)
                .map(|p| {
                    (
                        p,
                        crate::rng::RngStream::derive(r.seed, r.replication, "obs/control/loss"),
                    )
                }),
        };
        world.hook_on = world.edges.needs_hook();
        world.external = world.edges.has_external();
        world.set_through();
        world.set_replies(r);
        if world.edges.needs_marks() {
            world.hosts.enable_marks();
        }
        let duration = r.duration;
        for i in 0..world.hosts.len() {
            let (start, stop) = world.hosts.schedule(i);
            if start < duration {
                world.q.push(start, Ev::FlowStart(i as u32));
            }
            if let Some(st) = stop {
                if st < duration {
                    world.q.push(st, Ev::FlowStop(i as u32));
                }
            }
        }
        world.start_workloads();
        if r.warmup > SimTime::ZERO {
            world.q.push(r.warmup, Ev::Warmup);
        }
        if let Some(every) = r.trace.goodput.map(|d| d.0) {
            if every < duration {
                world.q.push(every, Ev::Sample);
            }
        }
        world.q.push(duration, Ev::End);
        Ok(world)
    }

    /// Runs to the end and returns the results. If the run outgrew `sim.max_memory` it
    /// stopped early and the results cover only the time simulated (see
    /// [`World::try_run`], which reports that as an error).
    pub fn run(mut self) -> RunResult {
        self.run_until_end();
        self.finish()
    }

    /// Runs to the end; a run that outgrew `sim.max_memory` is an error naming the
    /// setting, the instant and the likely cause.
    /// A streamed trace that could not be written (`sim.trace.dir`) is an error too.
    pub fn try_run(mut self) -> Result<RunResult, ScenarioError> {
        self.run_until_end();
        if let Some(e) = self.stopped.take() {
            return Err(e);
        }
        let traces = self.collector.take_traces();
        let streamed = traces.streamed.clone()?;
        let (mut r, fct_error) = self.finish_with(traces);
        if let Some(e) = fct_error {
            return Err(e);
        }
        r.streamed.splice(0..0, streamed);
        Ok(r)
    }

    /// Most trace records held at once so far by any one trace (a streamed trace holds
    /// at most [`crate::tracefile::CHUNK_ROWS`]).
    pub fn trace_rows_peak(&self) -> usize {
        self.collector.peak_rows_held()
    }

    /// Bytes held by the packet and burst pools, the event queue, the links, the TCP
    /// agents' rings, the deflection tables and the traces (an estimate: the
    /// containers' capacities times their element sizes).
    pub fn mem_bytes(&self) -> usize {
        self.pkts.mem_bytes()
            + self.q.mem_bytes()
            + self.links.mem_bytes()
            + self.collector.mem_bytes()
            + self.gen.mem_bytes()
            + self.hosts.mem_bytes()
            + self.core.as_ref().map_or(0, |c| c.tables_bytes())
            + self.bcp_lanes.mem_bytes()
            + self
                .bursts
                .iter()
                .map(|b| b.pkts.capacity() * 4 + 64)
                .sum::<usize>()
    }

    /// The memory guard: `Some(reason)` when the world has outgrown `sim.max_memory`.
    /// A streamed trace that could not be written stops the run too.
    #[cold]
    fn over_budget(&self, now: SimTime, used: u64) -> Option<ScenarioError> {
        if let Some(e) = self.collector.write_error() {
            return Some(e.clone());
        }
        let events = self.q.events_processed();
        if events > self.max_events {
            return Some(ScenarioError::new(
                "sim.max_events",
                format!(
                    "the run handled {events} events by t = {now}, more than \
                     sim.max_events = {:.3e} (the estimate before the run cannot foresee \
                     everything: e.g. periods drawn shorter than a picosecond, timers \
                     backed off to a tiny min_rto); shorten sim.duration, lengthen the \
                     periods or raise sim.max_events",
                    self.max_events as f64
                ),
            ));
        }
        if used <= self.max_memory {
            return None;
        }
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let mut why = format!(
            "the run needs more than {:.2} GiB at t = {} ({} packets alive, {:.2} GiB of traces)",
            gib(self.max_memory),
            now,
            self.pkts.live(),
            gib(self.collector.mem_bytes() as u64),
        );
        if let Some((from, to, n, limited)) = self.links.fullest() {
            if n > 1000 && !limited {
                why += &format!(
                    "; link {}->{} holds {n} packets and its queue has no limit: give it \
                     queue_pkts or queue_bytes",
                    self.node_names[from as usize], self.node_names[to as usize]
                );
            }
        }
        why += "; or raise sim.max_memory, shorten sim.duration or narrow [sim.trace] \
                 (or stream it to disk with sim.trace.dir)";
        Some(ScenarioError::new("sim.max_memory", why))
    }

    /// The results of a world already run with [`World::run_until_end`].
    pub fn into_result(self) -> RunResult {
        self.finish()
    }

    /// Processes events until the end event (exposed for tests that inspect the world).
    pub fn run_until_end(&mut self) {
        #[cfg(feature = "probe")]
        let mut t = probe::now();
        while let Some((now, ev)) = self.q.pop() {
            lap!(t, probe::Phase::Pop);
            // Software pipelining by one event: the next event (the heap's new root,
            // unless this one schedules an earlier one) is most often a link's arrival.
            // Its link's line and, at a host, its packet's record were last touched
            // long ago at hundreds of flows; fetch them while this event runs.
            if self.lookahead {
                if let Some(Ev::LinkArrive(l, next)) = self.q.peek() {
                    self.links.prefetch(l);
                    if next != NO_PACKET {
                        self.pkts.prefetch(next);
                        self.links.prefetch_reply(l);
                    }
                }
            }
            if self.q.events_processed().is_multiple_of(MEMORY_CHECK_EVERY) {
                let used = self.mem_bytes() as u64;
                self.lookahead = used > self.lookahead_above;
                if let Some(why) = self.over_budget(now, used) {
                    self.stopped = Some(why);
                    break;
                }
                if self.external && self.hook_failed() {
                    break;
                }
                if let Some(m) = &mut self.monitor {
                    let events = self.q.events_processed();
                    if m(monitor::Progress { now, events }) == monitor::Verdict::Stop {
                        self.stopped = Some(ScenarioError::new(
                            monitor::STOPPED_FIELD,
                            format!("stopped at t = {now} after {events} events"),
                        ));
                        break;
                    }
                }
            }
            lap!(t, probe::Phase::LookAheadFirst);
            #[cfg(feature = "probe")]
            let phase = match ev {
                Ev::LinkArrive(_, NO_PACKET) => probe::Phase::LinkUnnamed,
                Ev::LinkArrive(..) => probe::Phase::LinkNamed,
                _ => probe::Phase::OtherEvent,
            };
            match ev {
                Ev::LinkArrive(l, next) => self.link_arrive(now, l, next),
                Ev::Rto(f) => self.host(now, |h, a| h.rto(now, f, a)),
                Ev::Pace(f) => self.host(now, |h, a| h.pace(now, f, a)),
                Ev::DelAck(f) => self.delack(now, f),
                Ev::UdpSend(f) => self.host(now, |h, a| h.udp_send(now, f, a)),
                Ev::OnOffToggle(f) => self.host(now, |h, a| h.onoff_toggle(now, f, a)),
                Ev::FlowStart(f) => self.host(now, |h, a| h.start(now, f, a)),
                Ev::FlowStop(f) => self.hosts.stop(f),
                Ev::AsmTimer(qi) => {
                    // Lazy cancellation: only the queue's last armed timer is current.
                    let (seq, gen) = self.timers[qi as usize];
                    if seq == self.q.popped_seq() {
                        if let Some(d) = self.edges.timer(now, qi, gen) {
                            self.apply_decision(now, qi, d);
                        }
                    }
                }
                Ev::Bcp(b) => self.bcp(now, b),
                Ev::BurstArrive(b) => self.burst_arrive(now, b),
                Ev::Retransmit(b) => self.retransmit(now, b),
                Ev::BcpArrive(b) => self.bcp_arrive(now, b),
                Ev::Warmup => {
                    self.hosts.warmup(now);
                    self.links.warmup();
                    self.edges.warmup();
                    if let Some(c) = &mut self.core {
                        c.warmup();
                    }
                }
                Ev::Sample => self.goodput_sample(now),
                Ev::Arrival(w) => self.arrival(now, w),
                Ev::End => break,
            }
            lap!(t, phase);
            // A second stage of the pipelining above: the next event's link line and
            // packet record were asked for when this event began and have most likely
            // arrived by now, so the head of the link's pipe and the packet's flow are
            // known; the pipe's head entry and that flow's state are asked for while the
            // next pop runs. Paired CPU at 160–320 flows: 0.93–0.97 (dumbbell), 0.92
            // (OBS mixed); the pipe's head entry (a profile at 320 flows put 8 % of the
            // run on reading it) another 0.95 (dumbbell), 0.99 (OBS mixed). A packet
            // delivered to a host makes it send on its link out: that link's line was
            // asked for in the first stage, the pipe slot the host will write is asked
            // for here (0.97–0.98 at 160–320 flows on the dumbbell).
            if self.lookahead {
                if let Some(Ev::LinkArrive(l, next)) = self.q.peek() {
                    self.links.prefetch_head(l);
                    if next != NO_PACKET {
                        self.links.prefetch_reply_slot(l);
                        self.prefetch_receiving_host(&self.pkts.hdr(next));
                    }
                }
            }
            lap!(t, probe::Phase::LookAheadSecond);
        }
        if self.external && self.stopped.is_none() {
            self.hook_failed();
        }
    }

    /// Whether an external assembler failed; its error becomes the run's `stopped`.
    fn hook_failed(&mut self) -> bool {
        match self.edges.take_hook_error() {
            Some(m) => {
                self.stopped = Some(ScenarioError::new("", m));
                true
            }
            None => false,
        }
    }

    /// Sets the run's monitor ([`monitor`]): called every few thousand events with the
    /// run's progress; when it answers [`monitor::Verdict::Stop`] the run stops and
    /// [`World::try_run`] returns an error naming [`monitor::STOPPED_FIELD`].
    pub fn set_monitor(&mut self, m: monitor::Monitor) {
        self.monitor = Some(m);
    }

    /// Sets the memory estimate above which the event loop looks one event ahead
    /// ([`LOOKAHEAD_ABOVE_BYTES`] by default; 0: always, after the first look of the
    /// memory guard; `u64::MAX`: never). It changes speed only, never a result.
    pub fn set_lookahead_above(&mut self, bytes: u64) {
        self.lookahead_above = bytes;
    }

    /// Whether the event loop is looking one event ahead.
    pub fn looks_ahead(&self) -> bool {
        self.lookahead
    }

    pub fn events_processed(&self) -> u64 {
        self.q.events_processed()
    }

    /// Packets currently alive (in queues, propagating or riding bursts).
    pub fn live_packets(&self) -> usize {
        self.pkts.live()
    }

    /// Runs the edge hook even if no assembler needs it (to observe it in tests).
    pub fn enable_edge_hook(&mut self) {
        self.hook_on = true;
        self.set_through();
    }

    /// Whether the BCPs crossing a fibre wait in its lane, one event per fibre
    /// ([`control::BcpLanes`]; on by default). It changes speed only, never a result:
    /// `tests/bcp_lanes.rs` runs scenarios both ways.
    pub fn set_bcp_lanes(&mut self, on: bool) {
        self.bcp_lanes.set(on);
    }

    /// Whether packets may skip the pipes and arrival events of the links they pass
    /// through ([`Links::pass_through`]; on by default). It changes speed only, never a
    /// result: `tests/pass_through.rs` runs scenarios both ways.
    pub fn set_pass_through(&mut self, on: bool) {
        // Never with workloads: worked out from the flows known at set-up.
        self.pass_through = on && self.gen.is_empty();
        self.set_through();
    }

    /// Whether a host that only receives takes its packets ahead of the clock, when its
    /// last link takes them ([`EARLY_DELIVERY`]; on by default, and off whenever passing
    /// through is off). It changes speed only, never a result: `tests/pass_through.rs`
    /// runs scenarios both ways.
    pub fn set_early_delivery(&mut self, on: bool) {
        self.early_delivery = on && self.gen.is_empty();
        self.set_through();
    }

    /// The first link out of flow `flow`'s receiver, if the receiver takes packets early
    /// (the field `early_out`, filled by `set_through`; `None` also for a flow out of
    /// range: the callers are hints).
    #[inline(always)]
    fn early_out(&self, flow: u32) -> Option<u32> {
        match self.early_out.get(flow as usize) {
            Some(&o) if o != NO_LINK => Some(o),
            _ => None,
        }
    }

    /// `(from, to)` nodes (in scenario order) of the link directions whose arrival events
    /// name the arriving packet for the look-ahead (a cache hint only): the links into
    /// hosts, and those from which a packet may pass on at once to a host that takes it
    /// early. For tests.
    pub fn packet_naming_links(&self) -> Vec<(u32, u32)> {
        self.links.naming()
    }

    /// Fills [`World::through`]: hop `k` on link `n` qualifies if `n` never drops a
    /// packet and every hop on `n`, in every route, follows a hop on one same link (not
    /// a host, not an OBS segment). A route's `Deliver` hop is [`EARLY_DELIVERY`] where
    /// its host takes packets early. None qualifies while the edge hook runs.
    fn set_through(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Feeder {
            Unseen,
            Only(u32),
            Several,
        }
        impl Feeder {
            /// After one more sighting: `Only(l)` while every sighting is link `l`.
            fn see(self, link: Option<u32>) -> Feeder {
                match (self, link) {
                    (Feeder::Unseen, Some(l)) => Feeder::Only(l),
                    (Feeder::Only(m), Some(l)) if m == l => Feeder::Only(l),
                    _ => Feeder::Several,
                }
            }
        }
        let n_links = self.links.len();
        let mut feeder = vec![Feeder::Unseen; n_links];
        for (k, h) in self.hops.iter().enumerate() {
            let Hop::Link(n) = *h else { continue };
            // The hop before a route's first is the previous route's `Deliver` (or none).
            let prev = match k.checked_sub(1).map(|j| self.hops[j]) {
                Some(Hop::Link(l)) => Some(l),
                _ => None,
            };
            feeder[n as usize] = feeder[n as usize].see(prev);
        }
        let mut feeds = vec![Feeds::No; n_links];
        self.through = self
            .hops
            .iter()
            .map(|h| match *h {
                Hop::Link(n) if self.pass_through && !self.hook_on => match feeder[n as usize] {
                    Feeder::Only(l) if self.links.never_drops(n) => {
                        feeds[l as usize] = Feeds::Link;
                        n
                    }
                    _ => NO_LINK,
                },
                _ => NO_LINK,
            })
            .collect();
        self.early_out = vec![NO_LINK; self.routes.len() / 2];
        if self.pass_through && self.early_delivery && !self.hook_on {
            // Early delivery ([`EARLY_DELIVERY`]) at a host that only receives, every
            // packet reaching it over one same link, and sending its ACKs on links that
            // never drop (offers ahead of the clock, in time order, as passing needs).
            debug_assert_eq!(self.route_end.len(), self.routes.len());
            let mut ok = self.only_receives.clone();
            // Per node: the one link every packet reaches it by, and the one link that
            // feeds that link (`Feeder::Only` over both).
            let mut into = vec![(Feeder::Unseen, Feeder::Unseen); ok.len()];
            for (r, route) in self.routes.iter().enumerate() {
                let (end, start) = (self.route_end[r] as usize, self.route_end[r ^ 1] as usize);
                let n = route.len();
                let (last, before) = match (n.checked_sub(1), n.checked_sub(2)) {
                    (Some(i), Some(j)) => (route[i], route[j]),
                    _ => (Hop::Unused, Hop::Unused),
                };
                let link = |h: Hop| match h {
                    Hop::Link(l) => Some(l),
                    _ => None,
                };
                let (fl, ff) = into[end];
                into[end] = (fl.see(link(last)), ff.see(link(before)));
                if !matches!(route.first(), Some(&Hop::Link(l)) if self.links.never_drops(l)) {
                    ok[start] = false;
                }
                // A node a route passes through forwards, which is more than receiving.
                for h in route.iter().take(route.len().saturating_sub(1)) {
                    if let Hop::Link(l) = *h {
                        ok[self.links.to(l) as usize] = false;
                    }
                }
            }
            for (r, route) in self.routes.iter().enumerate() {
                let end = self.route_end[r] as usize;
                if let (true, (Feeder::Only(l), Feeder::Only(_))) = (ok[end], into[end]) {
                    let k = self.route_at[r] as usize + route.len();
                    debug_assert!(self.hops[k] == Hop::Deliver);
                    self.through[k] = EARLY_DELIVERY;
                    if let Some(Hop::Link(o)) = self.routes[r ^ 1].first() {
                        self.early_out[r / 2] = *o;
                    }
                    // The link's far end is `end`, a host: it feeds no link (it may
                    // already be marked, for another flow to `end`).
                    debug_assert!(feeds[l as usize] != Feeds::Link);
                    feeds[l as usize] = Feeds::Host;
                }
            }
        }
        // Besides the links into hosts, a link's arrival event may deliver its packet
        // when the next link passes it on (as it does while its pipe is empty) along
        // links passed into to a host that takes packets early: on a dumbbell, the
        // access links' and the bottleneck's events. Such a link names its packets, so
        // that the look-ahead fetches their records (at 320 flows three in five data
        // deliveries waited about 150 ns on the record without). `delivers[k]`: a packet
        // whose next hop is `k` and that may pass there is delivered at once.
        let mut delivers = vec![false; self.hops.len() + 1];
        for k in (0..self.hops.len()).rev() {
            delivers[k] = match self.through[k] {
                EARLY_DELIVERY => true,
                NO_LINK => false,
                _ => delivers[k + 1],
            };
        }
        // A link into an OBS ingress edge names its packets too: the edge reads the
        // record (size, flow, sequence number) to put the packet into an assembly queue.
        let mut names = vec![false; n_links];
        for (j, w) in self.hops.windows(2).enumerate() {
            match *w {
                [Hop::Link(l), Hop::Link(_)] => names[l as usize] |= delivers[j + 2],
                [Hop::Link(l), Hop::Obs(_)] => names[l as usize] = true,
                _ => {}
            }
        }
        for (l, (f, n)) in feeds.into_iter().zip(names).enumerate() {
            self.links.set_feeds(l as u32, f);
            self.links.set_names(l as u32, n);
        }
    }

    /// Tells the links, for each link into a host with exactly one link out, that link
    /// out: a packet the host receives makes it send there (the look-ahead's hints,
    /// [`Links::prefetch_reply`]). Scenario links are the first links, in order.
    fn set_replies(&mut self, r: &Resolved) {
        let mut out = vec![None; r.nodes.len()];
        for (i, l) in r.links.iter().enumerate() {
            let o = &mut out[l.from as usize];
            *o = match *o {
                None => Some(i as u32),
                Some(_) => Some(NO_LINK),
            };
        }
        for (i, l) in r.links.iter().enumerate() {
            if r.nodes[l.to as usize].1 == NodeKind::Host {
                if let Some(o) = out[l.to as usize] {
                    self.links.set_reply(i as u32, o);
                }
            }
        }
    }

    /// The passive window estimator of flow `flow` at its ingress edge.
    pub fn edge_estimator(&self, flow: u32) -> edge::FlightEstimator {
        *self.edges.estimator(flow)
    }

    /// The node kind table (for tests).
    pub fn node_kinds(&self) -> &[NodeKind] {
        &self.node_kind
    }

    // ---------------------------------------------------------------- hosts

    /// Runs a host handler and carries out its actions in order.
    #[inline]
    fn host(&mut self, now: SimTime, f: impl FnOnce(&mut Hosts, &mut Vec<HostAct>)) {
        #[cfg(feature = "probe")]
        let mut t = probe::now();
        f(&mut self.hosts, &mut self.acts);
        lap!(t, probe::Phase::HostHandler);
        if let Some(e) = self.hosts.take_emit() {
            // A TCP sender's segments go straight into the pool and onto the route.
            for i in 0..e.n {
                let (seg, injected) = self.hosts.seg(&e, i);
                self.send(now, seg, injected);
            }
            self.hosts.end_emit();
        }
        if !self.acts.is_empty() {
            let mut acts = std::mem::take(&mut self.acts);
            self.carry_out(now, &mut acts);
            self.acts = acts;
        }
        lap!(t, probe::Phase::HostSends);
    }

    #[inline]
    fn carry_out(&mut self, now: SimTime, acts: &mut Vec<HostAct>) {
        for a in acts.drain(..) {
            match a {
                HostAct::Send { seg, injected } => self.send(now, seg, injected),
                HostAct::At(t, ev) => self.q.push(t, ev),
                HostAct::Cwnd(s) => self.collector.cwnd(s),
                HostAct::Cc(s) => self.collector.cc(s),
                HostAct::Finished(f) => self.finished(now, f),
                HostAct::Release(f) => self.release(f),
            }
        }
    }

    /// A host sends a new packet (`injected`: the loss injector drops it at once).
    #[inline]
    fn send(&mut self, now: SimTime, seg: Seg, injected: bool) {
        if seg.kind == PktKind::Data {
            self.collector
                .packet(now, seg.flow, seg.seq, PacketEvent::Sent, seg.retransmit);
        }
        let id = self.pkts.alloc_hdr(seg.hdr());
        self.pkts.set_sent(id, now);
        if injected {
            self.drop_packet(now, id);
        } else {
            self.forward(now, id);
        }
    }

    /// Delayed-ACK timer of flow `fi`: send the ACK, then re-arm.
    fn delack(&mut self, now: SimTime, fi: u32) {
        let Some(ack) = self.hosts.delack(now, fi) else {
            return; // stale
        };
        if let Some(ack) = ack {
            let id = self.pkts.alloc(ack);
            self.forward(now, id);
        }
        self.host(now, |h, a| h.arm_delack(now, fi as usize, a));
    }

    /// Packet `id` reached the last node of its route.
    fn deliver(&mut self, now: SimTime, id: u32) {
        let p = self.pkts.hdr(id);
        match p.kind {
            PktKind::Data => {
                if self.lookahead {
                    // The line of the link the ACK will leave on was asked for one event
                    // ahead (`run_until_end`); the slot it will be written to now.
                    if let Some(o) = self.early_out(p.flow) {
                        self.links.prefetch_slot(o);
                    }
                }
                self.collector
                    .packet(now, p.flow, p.seq, PacketEvent::Received, p.retransmit());
                self.collector.delay(now, p.flow, self.pkts.sent(id));
                #[cfg(feature = "probe")]
                let mut t = probe::now();
                let ack = self.hosts.on_data(now, p.flow, p.seq);
                lap!(t, probe::Phase::ReceiverData);
                match ack {
                    Some(ack) => {
                        // Reuse the slot: the data packet becomes the ACK.
                        self.pkts.set(id, &ack);
                        self.forward(now, id);
                    }
                    None => self.pkts.release(id),
                }
                lap!(t, probe::Phase::ReceiverAck);
                self.host(now, |h, a| h.arm_delack(now, p.flow as usize, a));
            }
            PktKind::Ack => {
                let ack = self.pkts.ack(&p);
                self.pkts.release(id);
                self.host(now, |h, a| h.on_ack(now, p.flow, &ack, a));
            }
            PktKind::Udp => {
                self.collector.delay(now, p.flow, self.pkts.sent(id));
                self.pkts.release(id);
                self.hosts.on_udp(p.flow);
            }
        }
    }

    fn drop_packet(&mut self, now: SimTime, id: u32) {
        let p = self.pkts.hdr(id);
        // A finished generated flow whose last packet in flight this was is freed.
        let quiet = match p.kind {
            PktKind::Data => {
                self.collector
                    .packet(now, p.flow, p.seq, PacketEvent::Dropped, p.retransmit());
                self.hosts.on_dropped(p.flow)
            }
            PktKind::Ack => self.hosts.on_ack_dropped(p.flow),
            PktKind::Udp => false,
        };
        self.pkts.release(id);
        if quiet {
            self.release(p.flow);
        }
    }

    // ---------------------------------------------------------------- links

    /// Packet `id`'s position on its route, read from its record.
    #[inline]
    fn pos_of(&self, id: u32) -> Pos {
        let h = self.pkts.hdr(id);
        Pos {
            at: self.route_at[h.route as usize] + h.hop,
            bytes: h.bytes,
        }
    }

    /// Hands packet `id` to the next hop of its route at time `now` (reading its
    /// position from its record).
    #[inline]
    fn forward(&mut self, now: SimTime, id: u32) {
        self.forward_at(now, id, self.pos_of(id));
    }

    /// Hands packet `id`, at position `pos` of its route, to its next hop. Its record in
    /// the pool is not touched unless the packet leaves the packet links here (see
    /// [`Pos`]).
    #[inline]
    fn forward_at(&mut self, now: SimTime, id: u32, mut pos: Pos) {
        let hop = self.hops[pos.at as usize];
        pos.at += 1;
        match hop {
            Hop::Link(li) => self.offer(now, li, id, pos),
            Hop::Obs(qi) => self.obs_enter(now, id, qi, pos),
            Hop::Unused => unreachable!("a packet took an unused OBS segment"),
            Hop::Deliver => unreachable!("forwarding past the end of a route"),
        }
    }

    /// Offers packet `id`, whose next hop is now `pos`, to link `li`.
    #[inline(always)]
    fn offer(&mut self, now: SimTime, li: u32, id: u32, pos: Pos) {
        match self.links.offer(now, li, id, pos) {
            Offer::Sent(Some((t, deliver))) => self.schedule_arrival(li, t, deliver),
            Offer::Sent(None) => {}
            Offer::Passable(t, deliver) => self.offer_passable(li, id, pos, t, deliver),
            Offer::QueueFull | Offer::Lost => self.drop_packet(now, id),
        }
    }

    /// Packet `id` may pass through link `li`, at whose far end it arrives at `t`
    /// ([`Offer::Passable`]): it passes into its next link if [`World::through`] allows,
    /// and on along the links it may pass through; else it enters the pipe.
    #[inline(never)]
    fn offer_passable(
        &mut self,
        mut li: u32,
        id: u32,
        mut pos: Pos,
        mut t: SimTime,
        mut deliver: Option<u32>,
    ) {
        loop {
            let next = self.through[pos.at as usize];
            if next == NO_LINK {
                // Passable means the pipe was empty: the link needs its one event.
                self.links.enter(li, t, id, pos);
                return self.schedule_arrival(li, t, deliver);
            }
            self.links.pass_through(li);
            if next == EARLY_DELIVERY {
                return self.deliver(t, id);
            }
            li = next;
            pos.at += 1;
            match self.links.offer(t, li, id, pos) {
                Offer::Sent(Some((at, d))) => return self.schedule_arrival(li, at, d),
                Offer::Sent(None) => return,
                Offer::Passable(at, d) => {
                    t = at;
                    deliver = d;
                }
                Offer::QueueFull | Offer::Lost => {
                    // A link passed into never drops (see `set_through`).
                    debug_assert!(false, "link {li} was passed into and dropped a packet");
                    return self.drop_packet(t, id);
                }
            }
        }
    }

    /// Passes the packets left in link `li`'s pipe through it, in order, while they are
    /// bound for the link it feeds ([`Due::Flush`]); schedules the link's event for
    /// the first one that is not, if any. Each goes on exactly as a packet that passes
    /// at its offer: it arrives inside the measurement period, every packet ahead of it
    /// has entered the fed link, and none can enter it from elsewhere.
    #[inline(never)]
    fn flush(&mut self, li: u32) {
        while let Some((t, id, pos)) = self.links.front(li) {
            if self.through[pos.at as usize] == NO_LINK {
                // A packet that does not pass ends at a router (a host a link feeds
                // takes every packet early): no host packet to name.
                return self.schedule_arrival(li, t, None);
            }
            self.links.take_front(li);
            self.offer_passable(li, id, pos, t, None);
        }
    }

    /// Packet `id` joins assembly queue `qi`; its record learns its position on its
    /// route (the links carried it so far), `pos` being its next hop after the OBS
    /// segment.
    fn obs_enter(&mut self, now: SimTime, id: u32, qi: u32, pos: Pos) {
        let start = self.route_at[self.pkts.hdr(id).route as usize];
        self.pkts.set_hop(id, pos.at - start);
        self.obs_enqueue(now, id, qi)
    }

    /// Schedules link `li`'s one event at `t`; `deliver` names the arriving packet when
    /// the event may deliver it (the event's hint, [`Ev::LinkArrive`]).
    #[inline(always)]
    fn schedule_arrival(&mut self, li: u32, t: SimTime, deliver: Option<u32>) {
        self.q
            .push(t, Ev::LinkArrive(li, deliver.unwrap_or(NO_PACKET)));
    }

    /// The one event of link `li`; `next` is its hint ([`Ev::LinkArrive`]).
    fn link_arrive(&mut self, now: SimTime, li: u32, next: u32) {
        let mut first = true;
        loop {
            match self.links.pop_due(now, li) {
                Due::Packet(id, mut pos) => {
                    // A link has one pending event, and only it takes packets out of the
                    // pipe: the head named when it was scheduled is the one that arrives.
                    debug_assert!(!first || next == NO_PACKET || next == id);
                    first = false;
                    if self.hook_on {
                        self.hook(self.links.to(li), id);
                    }
                    // The common case inline: a router passes the packet to its next
                    // link (no call per hop).
                    match self.hops[pos.at as usize] {
                        Hop::Link(next) => {
                            pos.at += 1;
                            self.offer(now, next, id, pos);
                        }
                        _ => self.node_receive_at(now, id, pos),
                    }
                }
                Due::Later(t, deliver) => {
                    // Fetched now, and again one event ahead when the look-ahead is on:
                    // at 160–320 flows dropping this early fetch cost 2–6 % CPU.
                    if let Some(id) = deliver {
                        self.pkts.prefetch(id);
                    }
                    self.schedule_arrival(li, t, deliver);
                    return;
                }
                Due::Idle => return,
                Due::Flush => return self.flush(li),
            }
        }
    }

    /// The edge hook: packet `id` is at node `node`.
    fn hook(&mut self, node: u32, id: u32) {
        if self.is_edge[node as usize] {
            let m = Self::meta(&self.pkts.hdr(id));
            self.edges.observe(node, &m);
        }
    }

    #[inline]
    fn meta(p: &PktHdr) -> PktMeta {
        PktMeta {
            bytes: p.bytes,
            flow: p.flow,
            kind: p.kind,
            seq: p.seq,
            mark: p.mark(),
        }
    }

    #[inline]
    fn node_receive(&mut self, now: SimTime, id: u32) {
        self.node_receive_at(now, id, self.pos_of(id));
    }

    /// Packet `id`, at position `pos` of its route, has reached a node: it goes on to
    /// its next hop, or is delivered at the end of its route.
    #[inline]
    fn node_receive_at(&mut self, now: SimTime, id: u32, pos: Pos) {
        if self.hops[pos.at as usize] == Hop::Deliver {
            self.deliver(now, id);
        } else {
            self.forward_at(now, id, pos);
        }
    }

    // ---------------------------------------------------------------- OBS edge

    #[inline]
    fn obs_enqueue(&mut self, now: SimTime, id: u32, qi: u32) {
        let meta = Self::meta(&self.pkts.hdr(id));
        let hosts = &self.hosts;
        match self
            .edges
            .enqueue(now, qi, id, meta, |f| hosts.cwnd_oracle(f))
        {
            Enqueued::Full => self.drop_packet(now, id),
            Enqueued::Queued(d) => self.apply_decision(now, qi, d),
        }
    }

    fn apply_decision(&mut self, now: SimTime, qi: u32, d: Decision) {
        // `d.bursts()`, unrolled: most packets complete no burst.
        if let Some(e) = d.emit {
            self.form_burst(now, qi, e);
            if let Some(e) = d.then {
                self.form_burst(now, qi, e);
            }
        }
        if let TimerCmd::Arm { deadline, gen } = d.timer {
            self.timers[qi as usize] = (self.q.next_seq(), gen);
            self.q.push(deadline, Ev::AsmTimer(qi));
        }
    }

    fn alloc_burst(&mut self) -> u32 {
        match self.free_bursts.pop() {
            Some(b) => b,
            None => {
                self.bursts.push(Burst::default());
                (self.bursts.len() - 1) as u32
            }
        }
    }

    /// Takes a burst from queue `qi` and launches it: ingress reservation on the first
    /// fibre, then the BCP.
    fn form_burst(&mut self, now: SimTime, qi: u32, e: crate::obs::Emit) {
        let b = self.alloc_burst();
        let bu = &mut self.bursts[b as usize];
        let formed = self
            .edges
            .take_burst(now, qi, e, &mut bu.pkts, &mut bu.route.path);
        if formed.pkts == 0 {
            // ACK-ratio assembly (zhou §3.1) held every candidate ACK back: no burst.
            self.free_bursts.push(b);
            return;
        }
        bu.queue = qi;
        bu.index = formed.index;
        bu.route.bytes = formed.bytes;
        bu.route.has_data = formed.has_data;
        bu.route.offset = formed.offset;
        bu.route.slot = b;
        bu.route.priority = match self.class_priority.get(self.edges.class(qi) as usize) {
            Some(&p) => p,
            None => 0,
        };
        bu.formed = now;
        bu.tries = 0;
        self.burst_trace(now, b, BurstEvent::Formed, None, None);
        if formed.injected {
            self.lose_burst(now, b, BurstLoss::Injected, None);
            return;
        }
        self.leave_ingress(now, b);
    }

    /// Burst `b` leaves its ingress: a reservation on its first fibre and its BCP, at
    /// once or through the ingress buffer if there is one (`obs.ingress`).
    fn leave_ingress(&mut self, now: SimTime, b: u32) {
        let core = self.core.as_mut().expect("a burst implies an OBS core");
        let route = &mut self.bursts[b as usize].route;
        let step = match self.ingress.as_mut() {
            None => core.depart(now, route),
            Some(buf) => buf.depart(now, core, route),
        };
        self.after_step(now, b, step);
    }

    // ---------------------------------------------------------------- OBS core

    fn bcp(&mut self, now: SimTime, b: u32) {
        // The next BCP held behind this one on the fibre it crossed, if any, pops next
        // from that fibre (`control::BcpLanes`).
        let r = &self.bursts[b as usize].route;
        let crossed = r.path[r.hop as usize - 1];
        if let Some(h) = self.bcp_lanes.popped(crossed, self.q.popped_seq()) {
            self.q.push_seq(h.at, h.seq, Ev::Bcp(h.burst));
        }
        if let Some(f) = self.bursts[b as usize].route.preempted {
            // A higher-priority burst took its reservation (the core charged `f`).
            self.lose_burst(now, b, BurstLoss::Preempted, Some(f));
            return;
        }
        let core = self.core.as_mut().expect("a burst implies an OBS core");
        if let Some((p, rng)) = self.control_loss.as_mut() {
            // The BCP crossed one fibre to get here: lost on it with `obs.control.loss`.
            if rng.bernoulli(*p) {
                let step = core.control_lost(&self.bursts[b as usize].route);
                self.after_step(now, b, step);
                return;
            }
        }
        let step = core.bcp(now, &mut self.bursts[b as usize].route);
        // Tail-dropping segmentation: this burst's reservation cut the tail of another.
        let cuts = core.tail_cuts();
        if !cuts.is_empty() {
            for c in cuts.drain(..) {
                let r = &mut self.bursts[c.slot as usize].route;
                if r.serial == c.serial {
                    if c.lost {
                        r.preempted = Some(c.fibre);
                    } else {
                        r.keep = r.keep.min(c.keep);
                    }
                }
            }
        }
        self.after_step(now, b, step);
    }

    fn after_step(&mut self, now: SimTime, b: u32, step: Step) {
        match step {
            Step::Bcp(t) => match self.control_chan.as_mut() {
                None => {
                    let r = &self.bursts[b as usize].route;
                    let f = r.path[r.hop as usize - 1];
                    let seq = self.q.take_seq();
                    let held = control::Held {
                        at: t,
                        seq,
                        burst: b,
                    };
                    if self.bcp_lanes.send(f, held) {
                        self.q.push_seq(t, seq, Ev::Bcp(b));
                    }
                }
                Some(cc) => {
                    // The core's timeline gives `left + d + δ`: send on the control
                    // wavelength at `left` instead, queueing behind earlier BCPs.
                    let r = &self.bursts[b as usize].route;
                    let f = r.path[r.hop as usize - 1];
                    let core = self.core.as_ref().expect("a burst implies an OBS core");
                    let (d, delta, _) = core.hop_info(f);
                    let arrive = cc.send(f, t - d - delta, d);
                    self.q.push(arrive, Ev::BcpArrive(b));
                }
            },
            Step::Egress(t) => self.q.push(t, Ev::BurstArrive(b)),
            Step::Lost(why, fibre) => self.lose_burst(now, b, why, Some(fibre)),
        }
    }

    // ---------------------------------------------------------------- OBS egress

    /// Burst `b`'s tail has reached the egress: its packets continue on their routes.
    ///
    /// In a burst that mixes many flows, each packet goes on to a different link and
    /// receiver, whose lines (and the packet's record, written when it was sent) have
    /// left the caches at hundreds of flows; the event loop's look-ahead fetches only
    /// the event's first reads. So while the look-ahead is on, the loop over the
    /// packets is pipelined: the record [`BURST_RECORDS_AHEAD`] packets ahead, and
    /// [`BURST_STATE_AHEAD`] ahead what the record says the packet will need.
    fn burst_arrive(&mut self, now: SimTime, b: u32) {
        if let Some(f) = self.bursts[b as usize].route.preempted {
            self.lose_burst(now, b, BurstLoss::Preempted, Some(f));
            return;
        }
        self.burst_trace(now, b, BurstEvent::Delivered, None, None);
        let mut list = std::mem::take(&mut self.bursts[b as usize].pkts);
        let qi = self.bursts[b as usize].queue;
        self.edges.burst_delivered(qi, list.len());
        let egress = self.edges.egress(qi);
        if self.lookahead {
            for &id in list.iter().take(BURST_RECORDS_AHEAD) {
                self.pkts.prefetch(id);
            }
        }
        // Segmentation (obs.contention.segmentation, docs/topics/contention.md): the
        // packets that start within the bytes cut from the head are lost.
        // With a tail cut, the packets that end after the bytes kept are lost.
        let cut = self.bursts[b as usize].route.cut_bytes;
        let keep = self.bursts[b as usize].route.keep;
        let mut at = 0u64;
        let (mut lost_head, mut lost_tail) = (0u64, 0u64);
        for (i, &id) in list.iter().enumerate() {
            if cut > 0 || keep != u64::MAX {
                let start = at;
                at += u64::from(self.pkts.hdr(id).bytes);
                if start < cut {
                    lost_head += 1;
                    self.drop_packet(now, id);
                    continue;
                }
                if at > keep {
                    lost_tail += 1;
                    self.drop_packet(now, id);
                    continue;
                }
            }
            if self.lookahead {
                if let Some(&ahead) = list.get(i + BURST_RECORDS_AHEAD) {
                    self.pkts.prefetch(ahead);
                }
                if let Some(&ahead) = list.get(i + BURST_STATE_AHEAD) {
                    self.prefetch_leaving_burst(ahead);
                }
            }
            if self.hook_on {
                self.hook(egress, id);
            }
            self.node_receive(now, id);
        }
        if lost_head + lost_tail > 0 {
            self.edges.pkts_cut(qi, lost_head, lost_tail);
        }
        list.clear();
        self.bursts[b as usize].pkts = list;
        self.free_bursts.push(b);
    }

    /// Second stage of the hints for packet `id` leaving a burst at its egress edge (its
    /// record was asked for earlier): asks for the line of the link it goes on to and
    /// for what the host that may take it early reads ([`World::prefetch_receiving_host`]).
    #[inline(always)]
    fn prefetch_leaving_burst(&self, id: u32) {
        if let Some(Hop::Link(li)) = self.hops.get(self.pos_of(id).at as usize) {
            self.links.prefetch(*li);
        }
        self.prefetch_receiving_host(&self.pkts.hdr(id));
    }

    /// Hints for a packet `h` that a host is about to take (its record has most likely
    /// arrived): the flow's state at that host and what its answer writes.
    ///
    /// A segment a host takes early is answered on the receiver's link out, which no
    /// link's reply names (the link that hands the segment over feeds many hosts): ask
    /// for that link's line (its slot follows in `deliver`), and for the SACK-block slot
    /// the ACK will take if it carries blocks (at 320 flows one ACK in nine does, and
    /// writing its blocks took 292 TSC cycles on average, against 73 at 10 flows). An
    /// ACK's SACK blocks lie in a store of their own. The link and the blocks: 0.967
    /// (0.958–0.987) of the CPU at 320 flows on the dumbbell; the SACK-block slot another
    /// 0.967 (0.952–0.986).
    #[inline(always)]
    fn prefetch_receiving_host(&self, h: &PktHdr) {
        self.hosts.prefetch(h.flow, h.kind);
        match h.kind {
            PktKind::Data => {
                if let Some(o) = self.early_out(h.flow) {
                    self.links.prefetch(o);
                }
                self.pkts.prefetch_next_sacks();
            }
            PktKind::Ack => self.pkts.prefetch_sacks(h),
            PktKind::Udp => {}
        }
    }

    /// Burst `b` is lost (the core has already charged `fibre`).
    fn lose_burst(&mut self, now: SimTime, b: u32, why: BurstLoss, fibre: Option<u32>) {
        if self.retransmit.is_some() && self.nack(now, b, why, fibre) {
            return;
        }
        self.burst_trace(now, b, BurstEvent::Lost, Some(why), fibre);
        let mut list = std::mem::take(&mut self.bursts[b as usize].pkts);
        let pkts = &self.pkts;
        self.edges.burst_lost(
            self.bursts[b as usize].queue,
            why,
            list.iter().map(|&id| {
                let h = pkts.hdr(id);
                (h.flow, h.kind)
            }),
        );
        for &id in &list {
            self.drop_packet(now, id);
        }
        list.clear();
        self.bursts[b as usize].pkts = list;
        self.free_bursts.push(b);
    }

    // ------------------------------------------- burst retransmission (obs.retransmit)

    /// Burst `b` was lost in the core at `now`: if the ingress may send it again (fewer
    /// than `max` retransmissions so far, and the NACK back before the copy's `hold`
    /// runs out), traces the loss, keeps the packets and schedules the retransmission
    /// at the NACK's arrival; returns whether it did. The NACK travels back on the
    /// control channel: the fibres' delays and BCP processing at the nodes between.
    /// Losses at the ingress itself (no BCP sent) and injected ones are final.
    fn nack(&mut self, now: SimTime, b: u32, why: BurstLoss, fibre: Option<u32>) -> bool {
        let (max, hold) = self.retransmit.expect("checked by the caller");
        let bu = &self.bursts[b as usize];
        if why == BurstLoss::Injected || bu.route.hop == 0 || bu.tries >= max {
            return false;
        }
        let core = self.core.as_ref().expect("a burst implies an OBS core");
        let back = now + core.nack_delay(&bu.route);
        if back > bu.formed.checked_add(hold).unwrap_or(SimTime(u64::MAX)) {
            return false;
        }
        self.burst_trace(now, b, BurstEvent::Lost, Some(why), fibre);
        self.q.push(back, Ev::Retransmit(b));
        true
    }

    /// The BCP of burst `b` reaches its next node on the control channel: it waits for
    /// the BCPs the node is processing, then takes δ.
    fn bcp_arrive(&mut self, now: SimTime, b: u32) {
        let r = &self.bursts[b as usize].route;
        let f = r.path[r.hop as usize - 1];
        let core = self.core.as_ref().expect("a burst implies an OBS core");
        let (_, delta, node) = core.hop_info(f);
        let cc = self
            .control_chan
            .as_mut()
            .expect("BcpArrive implies a channel");
        let done = cc.process(node, now, delta);
        self.q.push(done, Ev::Bcp(b));
    }

    /// The NACK of burst `b` is back at its ingress: the burst leaves again (new
    /// reservation, new BCP), through the ingress buffer if there is one.
    fn retransmit(&mut self, now: SimTime, b: u32) {
        self.bursts[b as usize].tries += 1;
        self.leave_ingress(now, b);
    }

    #[inline]
    /// `sim.trace.goodput`: one sample per TCP flow, and the next sampling event.
    #[cold]
    fn goodput_sample(&mut self, now: SimTime) {
        for fi in 0..self.hosts.listed() {
            if let Some(d) = self.hosts.tcp_delivered(fi) {
                self.collector.goodput(now, fi as u32, d);
            }
        }
        if let Some(every) = self.collector.goodput_every {
            let next = now + every;
            if next < self.collector.duration {
                self.q.push(next, Ev::Sample);
            }
        }
    }

    fn burst_trace(
        &mut self,
        now: SimTime,
        b: u32,
        event: BurstEvent,
        reason: Option<BurstLoss>,
        fibre: Option<u32>,
    ) {
        if !self.collector.bursts_on() {
            return;
        }
        let bu = &self.bursts[b as usize];
        self.collector.burst(BurstSample {
            time: now,
            queue: bu.queue,
            burst: bu.index,
            event,
            pkts: bu.pkts.len() as u32,
            bytes: bu.route.bytes,
            reason,
            fibre,
        });
    }

    // ---------------------------------------------------------------- checks

    /// Conservation check for data segments of TCP flow `fi`: created = received at the
    /// receiver + dropped + in flight. Returns (created, received, dropped, in_flight).
    pub fn conservation(&self, fi: usize) -> (u64, u64, u64, u64) {
        let (created, received, dropped) = self.hosts.conservation(fi);
        let live = self
            .pkts
            .count_live(|p| p.kind == PktKind::Data && p.flow as usize == fi);
        (created, received, dropped, live)
    }

    /// OBS conservation: (packets into ingress queues, packets out of egresses,
    /// packets dropped in the OBS network — queue full or in lost bursts — and packets
    /// in flight — waiting in queues or riding bursts).
    pub fn obs_conservation(&self) -> (u64, u64, u64, u64) {
        let (inn, out, dropped, queued) = self.edges.conservation();
        let mut free = vec![false; self.bursts.len()];
        for &b in &self.free_bursts {
            free[b as usize] = true;
        }
        let riding: u64 = self
            .bursts
            .iter()
            .enumerate()
            .filter(|(i, _)| !free[*i])
            .map(|(_, b)| b.pkts.len() as u64)
            .sum();
        (inn, out, dropped, queued + riding)
    }

    /// Reservations currently stored over all fibres (memory check).
    pub fn obs_stored_reservations(&self) -> usize {
        self.core.as_ref().map_or(0, |c| c.stored_reservations())
    }

    /// Bursts ever allocated in the pool (memory check).
    pub fn obs_burst_pool(&self) -> usize {
        self.bursts.len()
    }

    // ---------------------------------------------------------------- results

    /// The results; streamed traces are closed, and an error writing them is ignored
    /// here (see [`World::try_run`], which reports it).
    fn finish(mut self) -> RunResult {
        let traces = self.collector.take_traces();
        let streamed = traces.streamed.clone().unwrap_or_default();
        let (mut r, _) = self.finish_with(traces);
        r.streamed.splice(0..0, streamed);
        r
    }

    /// The results, and the error writing a streamed `fct` table if any
    /// (`workloads.rs`).
    fn finish_with(mut self, traces: collector::TraceOutput) -> (RunResult, Option<ScenarioError>) {
        let (now, warmup) = (self.collector.duration, self.collector.warmup);
        // (A copy: the streamed `fct` table below needs the world mutably.)
        let names = &self.node_names.clone();
        let mut flows = self.hosts.rows(now, warmup, names);
        self.collector.fill_delays(&mut flows);
        let obs_span = now.saturating_sub(warmup).as_secs_f64();
        let links = self.links.rows(names);
        let (bursts, burst_hist) = self.edges.queue_rows(names);
        let obs_links = self
            .core
            .as_ref()
            .map_or_else(Vec::new, |core| core.rows(names, obs_span));
        let obs_channels = self
            .core
            .as_ref()
            .map_or_else(Vec::new, |core| core.channel_rows(names, obs_span));
        let obs_flows = if self.obs_enabled {
            let crosses: Vec<bool> = (0..self.hosts.listed())
                .map(|fi| {
                    let (fwd, rev) = self.hosts.routes(fi);
                    self.routes[fwd as usize]
                        .iter()
                        .chain(&self.routes[rev as usize])
                        .any(|h| matches!(h, Hop::Obs(_) | Hop::Unused))
                })
                .collect();
            self.edges.flow_rows(&crosses, |fi| self.hosts.name(fi))
        } else {
            Vec::new()
        };
        let listed_fct = self.fct_rows(&flows, &obs_flows);
        let (fct, fct_file) = self.fct_table(listed_fct, now);
        let fct_error = self.gen.write_error().cloned();
        let c = self.collector;
        let r = RunResult {
            scenario: c.name,
            seed: c.seed,
            replication: c.replication,
            version: crate::VERSION.into(),
            duration_s: c.duration.as_secs_f64(),
            warmup_s: c.warmup.as_secs_f64(),
            events: self.q.events_processed(),
            flows,
            links,
            routes: self.route_rows,
            cwnd_trace: traces.cwnd,
            packet_trace: traces.packets,
            bursts,
            obs_links,
            obs_flows,
            obs_channels,
            burst_hist,
            burst_trace: traces.bursts,
            goodput_trace: traces.goodput,
            cc_trace: traces.cc,
            cwnd_estimates: self.edges.cwnd_est_rows(|fi| self.hosts.name(fi)),
            fct,
            streamed: fct_file.into_iter().collect(),
        };
        (r, fct_error)
    }
}

/// The flat hop table of `routes` (each closed by [`Hop::Deliver`]) and where each route
/// starts in it.
fn flatten(routes: &[Vec<Hop>]) -> Result<(Vec<Hop>, Vec<u32>), ScenarioError> {
    let total: usize = routes.iter().map(|r| r.len() + 1).sum();
    if u32::try_from(total).is_err() {
        return Err(ScenarioError::new(
            "flow",
            format!("the routes have {total} hops in all; at most 2^32 - 1 are supported"),
        ));
    }
    let mut hops = Vec::with_capacity(total);
    let mut route_at = Vec::with_capacity(routes.len());
    for r in routes {
        route_at.push(hops.len() as u32);
        hops.extend_from_slice(r);
        hops.push(Hop::Deliver);
    }
    Ok((hops, route_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_its_word() {
        let top = (1u32 << 31) - 1;
        let mut evs = vec![Ev::Warmup, Ev::End, Ev::Sample];
        for x in [0, 1, 0x8000_0000, u32::MAX] {
            evs.extend([
                Ev::FlowStart(x),
                Ev::FlowStop(x),
                Ev::Rto(x),
                Ev::DelAck(x),
                Ev::UdpSend(x),
                Ev::OnOffToggle(x),
                Ev::AsmTimer(x),
                Ev::Bcp(x),
                Ev::BurstArrive(x),
                Ev::Retransmit(x),
                Ev::BcpArrive(x),
                Ev::Arrival(x),
            ]);
            for l in [0, 1, top] {
                evs.push(Ev::LinkArrive(l, x));
            }
        }
        for e in evs {
            let back = Ev::load(e.store());
            assert_eq!(format!("{back:?}"), format!("{e:?}"));
        }
    }
}
