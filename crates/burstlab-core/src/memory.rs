//! Memory a scenario will need, estimated before it runs from its link rates: how many
//! records each enabled trace can gather, and how fast a queue without a limit can grow
//! under UDP overload. [`check`] refuses a scenario whose estimate exceeds
//! `sim.max_memory`, naming the setting to change; `burstlab validate` prints the
//! estimate ([`MemoryEstimate::lines`]). The run-time guard (`World`, every 16384
//! events) still stops whatever the estimate cannot foresee.
//!
//! The bounds, per traced TCP flow over its traced active time `t` (flow start/stop
//! within `sim.trace.start`/`end`):
//! - data segments per second `R` ≤ the slowest packet link (or fibre: rate ×
//!   wavelengths) on its forward route / a full segment's wire size, and ≤ twice its
//!   window `wm` per round-trip propagation delay (the sum of the route's delays both
//!   ways; skipped when that is zero);
//! - `sim.trace.cwnd`: one sample per ACK at most (ACKs ≤ data segments received) plus
//!   one per timeout (at most one per `min_rto`): ≤ `R t + t / min_rto + 2`;
//! - `sim.trace.cc`: for flows with a modern controller, one sample per sender call at
//!   most: ACKs, timeouts and pacing events (at most one per segment sent):
//!   ≤ `2 R t + t / min_rto + 2`;
//! - `sim.trace.packets`: each data segment sent is received or dropped (or still in
//!   flight): ≤ `2 (R t + wm)`;
//! - `sim.trace.bursts`: a burst holds at least one packet and is formed, then lost or
//!   delivered: ≤ 2 × the packets entering the OBS network, which is ≤ `2 (R t + wm)`
//!   per TCP flow crossing it (data and ACKs) plus each UDP source's packet rate × `t`.
//!
//! Memory is the records × the in-memory size of one (the core's copy; a Python
//! `Result` holds the table again as lists); CSV bytes are a typical line length.
//! A queue without `queue_pkts`/`queue_bytes` grows only when the UDP sources crossing
//! it (on-off at their mean rate, each capped by the links before it) offer more than
//! its rate; TCP flows alone fill it only up to their flights. Assembly queues at OBS
//! edges without `obs.queue_limit` are not estimated for UDP.
//!
//! TCP flights ([`WindowEstimate`]): a flow has at most
//! `W = min(wm, segments, init_cwnd + 2 R t)` segments in flight at once over its
//! active time `t` (cwnd grows by at most two segments per segment delivered, RFC 3465
//! with L = 2, and deliveries are at most `R t`); all of them can be sent in one event
//! (the initial window at the start, a window opened by one ACK). Its rings indexed by
//! segment number grow with the flight (`RING_START_SEGMENTS` in `tcp/mod.rs`): at most
//! a power of two above it, so twice `W` times their bytes per segment, plus the sender
//! output buffer (shared, counted once for the largest `W`). When a route (data or
//! ACKs) crosses a link without a queue limit or the OBS network, all of `W`'s data
//! segments and as many ACKs can wait there; when every link on both routes has a limit,
//! the packets the routes hold `H` (queue limits and what the pipes carry, in ACK-sized
//! packets) stop the growth: a loss one round trip after the flight passes `H` halves
//! it, so `W` is taken as at most `init_cwnd + 4 H` (an estimate, not a bound: the
//! run-time guard counts the rings too).

use crate::scenario::{NodeKind, Resolved, ResolvedFlowKind, ScenarioError};
use crate::stats::{BurstSample, CcSample, CwndSample, GoodputSample, PacketSample, TraceRow};
use crate::units::SimTime;
use std::collections::{HashMap, HashSet};

/// The estimate of one enabled trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEstimate {
    /// The setting that turns it on (`sim.trace.packets`).
    pub setting: &'static str,
    pub table: &'static str,
    /// Upper bound of its records.
    pub rows: f64,
    /// Bytes the records take in memory.
    pub bytes: f64,
    /// About the bytes of its CSV file.
    pub csv_bytes: f64,
}

/// A link direction without a queue limit.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEstimate {
    /// Index of its `[[link]]` entry.
    pub spec_index: usize,
    /// `a->b`.
    pub link: String,
    /// UDP load offered to it and its rate, bits per second.
    pub offered_bps: f64,
    pub rate_bps: f64,
    /// Growth under that overload in bytes per simulated second (0 if none), and the
    /// bytes it reaches by the end of the run.
    pub growth_bytes_per_s: f64,
    pub bytes: f64,
    /// The most data segments the TCP flows crossing it can put in it (their windows).
    pub tcp_window_pkts: u64,
}

/// The flight of one TCP flow (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct WindowEstimate {
    /// Index of its `[[flow]]` entry, and its name.
    pub flow: usize,
    pub name: String,
    /// Segments it can have in flight at once.
    pub segments: f64,
    /// Its `wm` and `init_cwnd` (at most `wm`).
    pub wm: u64,
    pub init_cwnd: u64,
    /// `segments` is capped by what its routes' limited queues hold (an estimate).
    pub capped: bool,
    /// Bytes of its rings (sender and receiver) and, for the largest flight, of the
    /// sender output buffer.
    pub state_bytes: f64,
    /// Bytes of its data segments and ACKs waiting in queues without a limit (0 when
    /// every link on its routes has one and it crosses no OBS network).
    pub queue_bytes: f64,
}

impl WindowEstimate {
    pub fn bytes(&self) -> f64 {
        self.state_bytes + self.queue_bytes
    }
    /// Whether the initial window is most of the flight (the field to name).
    pub fn initial(&self) -> bool {
        2 * self.init_cwnd >= self.wm || 2.0 * self.init_cwnd as f64 >= self.segments
    }
}

/// Everything [`estimate`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryEstimate {
    pub max_memory: u64,
    pub duration_s: f64,
    /// Traces go to files (`sim.trace.dir`): they hold a bounded chunk in memory.
    pub streamed: bool,
    pub traces: Vec<TraceEstimate>,
    pub queues: Vec<QueueEstimate>,
    /// The `fct` rows of each `[[workload]]`: one per arrival expected.
    pub workloads: Vec<WorkloadEstimate>,
    /// One per TCP flow that starts.
    pub windows: Vec<WindowEstimate>,
    /// Bytes of the deflection tables (`obs.contention.deflection`): per fibre of the
    /// tables, one entry per node and one search-tree slot per fibre
    /// (`world/contention/deflection.rs`).
    pub deflection_bytes: f64,
    /// (flow, bytes) of each `self_similar` / `pareto_onoff` flow's generator: its
    /// sources' state and heap (`workload/onoff.rs`), built when the run starts.
    pub generators: Vec<(usize, f64)>,
}

/// The memory of one `[[workload]]`'s `fct` rows (`world/workloads.rs`): a compact row
/// per flow done while the run goes, the table's rows at the end; none when the table
/// is streamed to `sim.trace.dir`. (The flows alive take
/// slots reused by index: not estimated, they follow the load, not the arrivals.)
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadEstimate {
    pub index: usize,
    pub name: String,
    /// Arrivals expected (the mean for random arrivals).
    pub arrivals: f64,
    pub bytes: f64,
}

/// Bytes per generated flow's `fct` row: the compact row and the table's row with its
/// strings (name, workload, src, dst: about 16 bytes each).
fn workload_row_bytes() -> f64 {
    (std::mem::size_of::<crate::world::workloads::GenRow>()
        + std::mem::size_of::<crate::stats::FctRow>()
        + 4 * 16) as f64
}

/// Memory of one packet waiting in a link queue: its record in the pool and its entry
/// in the queue.
fn queued_packet_bytes() -> f64 {
    (std::mem::size_of::<crate::world::packet::Packet>()
        + std::mem::size_of::<(SimTime, SimTime, u32)>()) as f64
}

fn gib(b: f64) -> String {
    const K: f64 = 1024.0;
    if b >= K * K * K {
        format!("{:.1} GiB", b / (K * K * K))
    } else if b >= K * K {
        format!("{:.1} MiB", b / (K * K))
    } else if b >= K {
        format!("{:.1} KiB", b / K)
    } else {
        format!("{b:.0} B")
    }
}

fn rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3} Gb/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mb/s", bps / 1e6)
    } else {
        format!("{:.3} kb/s", bps / 1e3)
    }
}

impl MemoryEstimate {
    /// Bytes the traces held in memory would take (0 when streamed).
    pub fn trace_bytes(&self) -> f64 {
        if self.streamed {
            0.0
        } else {
            self.traces.iter().map(|t| t.bytes).sum()
        }
    }

    /// Bytes the queues without a limit reach under UDP overload.
    pub fn queue_bytes(&self) -> f64 {
        self.queues.iter().map(|q| q.bytes).sum()
    }

    /// Bytes the TCP flights take: rings and packets in queues without a limit.
    pub fn window_bytes(&self) -> f64 {
        self.windows.iter().map(|w| w.bytes()).sum()
    }

    /// Everything counted: traces held in memory, UDP queue growth, TCP flights.
    pub fn total_bytes(&self) -> f64 {
        self.trace_bytes()
            + self.queue_bytes()
            + self.window_bytes()
            + self.deflection_bytes
            + self.workload_bytes()
            + self.generator_bytes()
    }

    /// Bytes of the Pareto on/off generators (`self_similar` flows).
    pub fn generator_bytes(&self) -> f64 {
        self.generators.iter().map(|g| g.1).sum()
    }

    /// Bytes of the `[[workload]]` tables' `fct` rows.
    pub fn workload_bytes(&self) -> f64 {
        self.workloads.iter().map(|w| w.bytes).sum()
    }

    /// The estimate as text, one line per item (what `burstlab validate` prints).
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![format!(
            "memory estimate (upper bounds from link rates) for {} s against sim.max_memory = {}:",
            self.duration_s,
            gib(self.max_memory as f64)
        )];
        for t in &self.traces {
            let held = if self.streamed {
                "streamed to sim.trace.dir".to_string()
            } else {
                format!("{} in memory", gib(t.bytes))
            };
            v.push(format!(
                "  {}: at most {:.3e} rows, {held}, about {} as CSV",
                t.setting,
                t.rows,
                gib(t.csv_bytes)
            ));
        }
        for q in &self.queues {
            if q.growth_bytes_per_s > 0.0 {
                v.push(format!(
                    "  link[{}] {}: no queue limit and UDP offers {} to {}: grows {} per \
                     simulated second, {} by the end",
                    q.spec_index,
                    q.link,
                    rate(q.offered_bps),
                    rate(q.rate_bps),
                    gib(q.growth_bytes_per_s),
                    gib(q.bytes)
                ));
            } else if q.offered_bps > 0.0 {
                v.push(format!(
                    "  link[{}] {}: no queue limit, UDP offers {} of its {}: no growth",
                    q.spec_index,
                    q.link,
                    rate(q.offered_bps),
                    rate(q.rate_bps),
                ));
            }
        }
        if self.traces.is_empty() && self.queues.iter().all(|q| q.bytes == 0.0) {
            v.push("  no traces and no overloaded queue without a limit".into());
        }
        if let Some(big) = self
            .windows
            .iter()
            .max_by(|a, b| a.bytes().total_cmp(&b.bytes()))
        {
            let segs: f64 = self.windows.iter().map(|w| w.segments).sum();
            let state: f64 = self.windows.iter().map(|w| w.state_bytes).sum();
            let queued: f64 = self.windows.iter().map(|w| w.queue_bytes).sum();
            let capped = self.windows.iter().filter(|w| w.capped).count();
            v.push(format!(
                "  TCP flights: at most {segs:.3e} segments in flight in {} flow(s): {} of \
                 sender and receiver state, {} of packets in queues without a limit{}; \
                 largest flow[{}] ({}): {:.3e} segments, {}",
                self.windows.len(),
                gib(state),
                gib(queued),
                if capped > 0 {
                    format!(" ({capped} flow(s) estimated from their routes' queue limits)")
                } else {
                    String::new()
                },
                big.flow,
                big.name,
                big.segments,
                gib(big.bytes())
            ));
        }
        if self.deflection_bytes > 0.0 {
            v.push(format!(
                "  obs.contention.deflection: {} of tables",
                gib(self.deflection_bytes)
            ));
        }
        for &(fi, b) in &self.generators {
            v.push(format!(
                "  flow[{fi}]: {} of Pareto on/off sources' state",
                gib(b)
            ));
        }
        for w in &self.workloads {
            v.push(format!(
                "  workload[{}] '{}': about {:.3e} arrivals, their fct rows {}",
                w.index,
                w.name,
                w.arrivals,
                gib(w.bytes)
            ));
        }
        v.push(format!(
            "  total: about {} (assembly queues without obs.queue_limit are not estimated \
             for UDP)",
            gib(self.total_bytes())
        ));
        v
    }
}

/// Estimates the memory of a resolved scenario.
pub fn estimate(r: &Resolved) -> MemoryEstimate {
    let dur = r.duration.as_secs_f64();
    let t0 = r.trace.start.map_or(0.0, |d| d.0.as_secs_f64());
    let t1 = r.trace.end.map_or(dur, |d| d.0.as_secs_f64().min(dur));
    // Which flows are traced, looked up in constant time (10^4 flows may list 10^4).
    let mut listed = vec![r.trace.flows.is_none(); r.flows.len()];
    for &f in r.trace.flows.iter().flatten() {
        if let Some(x) = listed.get_mut(f as usize) {
            *x = true;
        }
    }
    let traced = |fi: usize| listed[fi];
    // Capacity (bit/s) and delay of each hop a -> b: its first packet link in scenario
    // order, else its fibres together (capacity summed, shortest delay). Built in one
    // pass so that the estimate stays linear in flows × hops.
    let mut hops: HashMap<(u32, u32), (f64, f64)> = HashMap::new();
    for f in &r.fibres {
        let h = hops.entry((f.from, f.to)).or_insert((0.0, f64::INFINITY));
        h.0 += f.rate.bps() as f64 * f.wavelengths as f64;
        h.1 = h.1.min(f.delay.as_secs_f64());
    }
    let mut seen_link: HashSet<(u32, u32)> = HashSet::new();
    for l in &r.links {
        if seen_link.insert((l.from, l.to)) {
            hops.insert((l.from, l.to), (l.rate.bps() as f64, l.delay.as_secs_f64()));
        }
    }
    // The packet links a -> b, for what a route holds (TCP flights).
    let mut links_ab: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, l) in r.links.iter().enumerate() {
        links_ab.entry((l.from, l.to)).or_default().push(i);
    }
    let fibre_ab: HashSet<(u32, u32)> = r.fibres.iter().map(|f| (f.from, f.to)).collect();
    // Packets of `ack` wire bytes the hops of `route` hold: each link's queue limit plus
    // what its pipe carries (every parallel link a -> b counted); infinite when a link has
    // no limit or a hop is a fibre (assembly queues, bursts).
    let route_hold = |route: &[u32], ack: f64| -> f64 {
        let mut h = 0.0;
        for w in route.windows(2) {
            if fibre_ab.contains(&(w[0], w[1])) {
                return f64::INFINITY;
            }
            for &li in links_ab.get(&(w[0], w[1])).map_or(&[][..], |v| &v[..]) {
                let l = &r.links[li];
                let q = match (l.queue_pkts, l.queue_bytes) {
                    (Some(p), _) => p as f64,
                    (None, Some(b)) => b as f64 / ack,
                    (None, None) => return f64::INFINITY,
                };
                h += q + l.rate.bps() as f64 * l.delay.as_secs_f64() / (8.0 * ack) + 1.0;
            }
        }
        h
    };
    let mut windows = Vec::new();
    let hop = |a: u32, b: u32| -> Option<(f64, f64)> { hops.get(&(a, b)).copied() };
    let route_hops = |route: &[u32]| -> Vec<(f64, f64)> {
        route.windows(2).filter_map(|w| hop(w[0], w[1])).collect()
    };
    let mut cwnd_rows = 0.0;
    let mut cc_rows = 0.0;
    let mut pkt_rows = 0.0;
    let mut obs_pkts = 0.0;
    let mut generators = Vec::new();
    for (fi, f) in r.flows.iter().enumerate() {
        let stop = f.stop.map_or(dur, |s| s.as_secs_f64().min(dur));
        let start = f.start.as_secs_f64();
        let active = (stop.min(t1) - start.max(t0)).max(0.0);
        let fwd = route_hops(&f.route);
        let bottleneck = fwd.iter().map(|h| h.0).fold(f64::INFINITY, f64::min);
        let crosses_obs = f
            .route
            .iter()
            .chain(&f.reverse_route)
            .any(|&n| r.nodes[n as usize].1 == NodeKind::Edge);
        match &f.kind {
            ResolvedFlowKind::Tcp { cfg, segments, .. } => {
                let wire = (cfg.mss + cfg.header_bytes).max(1) as f64 * 8.0;
                let mut seg_rate = bottleneck / wire;
                let rtt: f64 = fwd.iter().map(|h| h.1).sum::<f64>()
                    + route_hops(&f.reverse_route)
                        .iter()
                        .map(|h| h.1)
                        .sum::<f64>();
                if rtt > 0.0 {
                    seg_rate = seg_rate.min(2.0 * cfg.wm as f64 / rtt);
                }
                if !seg_rate.is_finite() {
                    seg_rate = 0.0;
                }
                let w = flight(
                    r,
                    fi,
                    cfg,
                    *segments,
                    seg_rate * (stop - start),
                    &route_hold,
                );
                let segs = seg_rate * active + w.as_ref().map_or(0.0, |w| w.segments);
                windows.extend(w);
                if active > 0.0 && traced(fi) {
                    let rto = cfg.min_rto.as_secs_f64().max(1e-3);
                    cwnd_rows += seg_rate * active + active / rto + 2.0;
                    if cfg.cc != crate::tcp::CcKind::Aimd {
                        cc_rows += 2.0 * seg_rate * active + active / rto + 2.0;
                    }
                    pkt_rows += 2.0 * segs;
                }
                if crosses_obs && active > 0.0 {
                    obs_pkts += 2.0 * segs;
                }
            }
            ResolvedFlowKind::Cbr { rate, packet_size }
            | ResolvedFlowKind::Poisson { rate, packet_size }
            | ResolvedFlowKind::OnOff {
                rate, packet_size, ..
            } => {
                if crosses_obs && active > 0.0 {
                    let bps = (rate.bps() as f64).min(bottleneck);
                    obs_pkts += bps / (*packet_size as f64 * 8.0) * active + 1.0;
                }
            }
            ResolvedFlowKind::SelfSimilar {
                packet_size,
                params,
                ..
            } => {
                // Its mean rate (its peak is `sources` times each source's rate).
                if crosses_obs && active > 0.0 {
                    let bps = (params.mean_pps() * *packet_size as f64 * 8.0).min(bottleneck);
                    obs_pkts += bps / (*packet_size as f64 * 8.0) * active + 1.0;
                }
                let b = crate::workload::SelfSimilar::state_bytes(params.sources);
                generators.push((fi, b as f64));
            }
        }
    }
    let stamp = r.name.len() + 40; // ",name,seed,replication,version"
    let mut traces = Vec::new();
    let mut add = |on: bool, setting, table, rows: f64, size: usize, line: usize| {
        if on {
            let rows = rows.ceil();
            traces.push(TraceEstimate {
                setting,
                table,
                rows,
                bytes: rows * size as f64,
                csv_bytes: rows * (line + stamp) as f64,
            });
        }
    };
    add(
        r.trace.cwnd,
        CwndSample::SETTING,
        CwndSample::TABLE,
        cwnd_rows,
        std::mem::size_of::<CwndSample>(),
        40,
    );
    add(
        r.trace.packets,
        PacketSample::SETTING,
        PacketSample::TABLE,
        pkt_rows,
        std::mem::size_of::<PacketSample>(),
        46,
    );
    add(
        r.trace.bursts && r.obs.is_some(),
        BurstSample::SETTING,
        BurstSample::TABLE,
        2.0 * obs_pkts,
        std::mem::size_of::<BurstSample>(),
        60,
    );
    add(
        r.trace.cc,
        CcSample::SETTING,
        CcSample::TABLE,
        cc_rows,
        std::mem::size_of::<CcSample>(),
        120,
    );
    let goodput_rows = r.trace.goodput.map_or(0.0, |g| {
        r.flows.len() as f64 * (r.duration.as_secs_f64() / g.0.as_secs_f64()).floor()
    });
    add(
        r.trace.goodput.is_some(),
        GoodputSample::SETTING,
        GoodputSample::TABLE,
        goodput_rows,
        std::mem::size_of::<GoodputSample>(),
        30,
    );

    // Queues without a limit.
    let mut queues = Vec::new();
    // The flows crossing each hop a -> b, in flow order, with the hop's first position
    // on the flow's route (one pass over the routes).
    let mut crossing: HashMap<(u32, u32), Vec<(usize, usize)>> = HashMap::new();
    for (fi, f) in r.flows.iter().enumerate() {
        for (pos, w) in f.route.windows(2).enumerate() {
            let v = crossing.entry((w[0], w[1])).or_default();
            if v.last().is_none_or(|&(g, _)| g != fi) {
                v.push((fi, pos));
            }
        }
    }
    for l in &r.links {
        if l.queue_pkts.is_some() || l.queue_bytes.is_some() {
            continue;
        }
        let mut offered_bps = 0.0;
        let mut offered_pps = 0.0;
        let mut tcp_window_pkts = 0u64;
        for &(fi, pos) in crossing.get(&(l.from, l.to)).map_or(&[][..], |v| &v[..]) {
            let f = &r.flows[fi];
            match &f.kind {
                ResolvedFlowKind::Tcp { cfg, .. } => tcp_window_pkts += cfg.wm as u64,
                udp => {
                    let (bps, packet_size) = udp.udp_mean().expect("a UDP source");
                    let upstream = route_hops(&f.route[..=pos])
                        .iter()
                        .map(|h| h.0)
                        .fold(f64::INFINITY, f64::min);
                    let bps = bps.min(upstream);
                    offered_bps += bps;
                    offered_pps += bps / (packet_size as f64 * 8.0);
                }
            }
        }
        let rate_bps = l.rate.bps() as f64;
        let growth_pps = if offered_bps > rate_bps {
            offered_pps * (1.0 - rate_bps / offered_bps)
        } else {
            0.0
        };
        let growth_bytes_per_s = growth_pps * queued_packet_bytes();
        if offered_bps > 0.0 || tcp_window_pkts > 0 {
            queues.push(QueueEstimate {
                spec_index: l.spec_index,
                link: format!(
                    "{}->{}",
                    r.nodes[l.from as usize].0, r.nodes[l.to as usize].0
                ),
                offered_bps,
                rate_bps,
                growth_bytes_per_s,
                bytes: growth_bytes_per_s * dur,
                tcp_window_pkts,
            });
        }
    }
    // The sender output buffer is one for all flows: it holds the largest flight sent
    // in one event (and a `Vec` doubles, so up to twice that).
    if let Some(w) = windows
        .iter_mut()
        .max_by(|a, b| a.segments.total_cmp(&b.segments))
    {
        w.state_bytes += 2.0 * w.segments * std::mem::size_of::<crate::tcp::SendReq>() as f64;
    }
    MemoryEstimate {
        max_memory: r.max_memory,
        duration_s: dur,
        streamed: r.trace.dir.is_some(),
        traces,
        queues,
        workloads: r
            .workloads
            .iter()
            .enumerate()
            .map(|(index, w)| {
                let arrivals = w.expected_arrivals(r.duration);
                WorkloadEstimate {
                    index,
                    name: w.name.clone(),
                    arrivals,
                    // Streamed to `sim.trace.dir`: a chunk at a time.
                    bytes: if r.trace.dir.is_some() {
                        0.0
                    } else {
                        arrivals * workload_row_bytes()
                    },
                }
            })
            .collect(),
        windows,
        deflection_bytes: deflection_bytes(r),
        generators,
    }
}

/// Bytes of the deflection tables: `G (N · e + E · 4)` for the `G` fibres `n → v` of
/// the tables, `N` nodes, `E` fibres and `e` bytes per entry.
fn deflection_bytes(r: &Resolved) -> f64 {
    let Some(c) = r.obs.as_ref().map(|o| &o.contention) else {
        return 0.0;
    };
    if c.max_deflections == 0 {
        return 0.0;
    }
    let mut per_pair: HashMap<(u32, u32), f64> = HashMap::new();
    for f in &r.fibres {
        *per_pair.entry((f.from, f.to)).or_default() += 1.0;
    }
    let g: f64 = c
        .deflection
        .iter()
        .flat_map(|(n, via)| via.iter().map(move |&v| (*n, v)))
        .map(|p| per_pair.get(&p).copied().unwrap_or(0.0))
        .sum();
    let entry = std::mem::size_of::<Option<(u32, u32, SimTime)>>() as f64;
    g * (r.nodes.len() as f64 * entry + r.fibres.len() as f64 * 4.0)
}

/// The flight of TCP flow `fi` (see the module doc): `delivered` is `R t` over its
/// whole active time, `route_hold` what a route holds in packets of a given size.
/// `None` for a flow that never starts.
fn flight(
    r: &Resolved,
    fi: usize,
    cfg: &crate::tcp::TcpConfig,
    segments: Option<u64>,
    delivered: f64,
    route_hold: &impl Fn(&[u32], f64) -> f64,
) -> Option<WindowEstimate> {
    use crate::tcp::{CcKind, Profile, Variant};
    if delivered.is_nan() || delivered < 0.0 {
        return None;
    }
    let f = &r.flows[fi];
    let wm = cfg.wm.max(1) as u64;
    let init = (cfg.init_cwnd.max(1) as u64).min(wm);
    let mut segs = (wm as f64).min(init as f64 + 2.0 * delivered);
    if let Some(n) = segments {
        segs = segs.min(n as f64);
    }
    let ack = cfg.ack_bytes.max(1) as f64;
    let hold = route_hold(&f.route, ack) + route_hold(&f.reverse_route, ack);
    let capped = hold.is_finite() && init as f64 + 4.0 * hold < segs;
    if capped {
        segs = init as f64 + 4.0 * hold;
    }
    // Bytes per segment in flight of the rings that hold it, each a power of two at
    // most twice the flight: the receiver's bits (two per segment, `receiver.rs`) and
    // what the sender keeps.
    let ns2 = cfg.profile == Profile::Ns2;
    let mut per_seg = 2.0 * 2.0 / 8.0;
    if !ns2 && cfg.variant == Variant::Sack {
        per_seg += 2.0 * 2.0 / 8.0; // the RFC 6675 scoreboard's bits
    }
    if cfg.cc == CcKind::Bbr {
        per_seg += 2.0 * crate::tcp::rate::SLOT_BYTES as f64; // delivery-rate slots
    }
    if ns2 && cfg.cc == CcKind::Vegas {
        per_seg += 2.0 * 2.0 * 8.0; // Agent/TCP/Linux send times: two slots per segment
    }
    if ns2 && cfg.cc != CcKind::Aimd {
        // Agent/TCP/Linux's scoreboard: at most one node per segment.
        per_seg += crate::tcp::ns2::linux::SCOREBOARD_NODE_BYTES as f64;
    } else if ns2 && cfg.variant == Variant::Sack {
        per_seg += 16.0; // Sack1's blocks: at most one per segment, two i64 each
    }
    let queue_bytes = if hold.is_finite() {
        0.0
    } else {
        2.0 * segs * queued_packet_bytes()
    };
    Some(WindowEstimate {
        flow: fi,
        name: f.name.clone(),
        segments: segs,
        wm,
        init_cwnd: init,
        capped,
        state_bytes: per_seg * segs,
        queue_bytes,
    })
}

/// Refuses a scenario whose estimate exceeds `sim.max_memory`: the error names the
/// largest item's setting, the estimate and what to change.
pub fn check(r: &Resolved) -> Result<MemoryEstimate, ScenarioError> {
    let est = estimate(r);
    let budget = r.max_memory as f64;
    let rows = est.workload_bytes();
    let total = est.total_bytes();
    if total <= budget {
        return Ok(est);
    }
    if let Some(w) = est
        .workloads
        .iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
    {
        if rows >= est.trace_bytes() + est.queue_bytes() + est.window_bytes() + est.deflection_bytes
        {
            return Err(ScenarioError::new(
                format!("workload[{}].rate", w.index),
                format!(
                    "workload '{}' is expected to start {:.3e} flows in {} s, whose fct rows \
                     take about {} ({} in all), more than sim.max_memory = {}; stream the \
                     table to disk with sim.trace.dir, lower its rate, give it stop or \
                     max_flows, shorten sim.duration or raise sim.max_memory",
                    w.name,
                    w.arrivals,
                    est.duration_s,
                    gib(w.bytes),
                    gib(total),
                    gib(budget)
                ),
            ));
        }
    }
    let limit = gib(budget);
    let big_trace = (!est.streamed)
        .then(|| est.traces.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)))
        .flatten();
    let big_queue = est.queues.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes));
    let big_window = est
        .windows
        .iter()
        .max_by(|a, b| a.bytes().total_cmp(&b.bytes()));
    let (tb, qb, wb) = (
        big_trace.map_or(0.0, |t| t.bytes),
        big_queue.map_or(0.0, |q| q.bytes),
        big_window.map_or(0.0, |w| w.bytes()),
    );
    let db = est.deflection_bytes;
    if let Some(&(fi, gb)) = est.generators.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        if gb > tb.max(qb).max(wb).max(db) {
            return Err(ScenarioError::new(
                format!("flow[{fi}].sources"),
                format!(
                    "its Pareto on/off sources' state takes about {} ({} in all), more \
                     than sim.max_memory = {}; superpose fewer sources or raise \
                     sim.max_memory",
                    gib(gb),
                    gib(total),
                    gib(budget)
                ),
            ));
        }
    }
    if db > tb.max(qb).max(wb) {
        return Err(ScenarioError::new(
            "obs.contention.deflection",
            format!(
                "the deflection tables take about {} (a shortest path from each fibre of the \
                 tables to every node), more than sim.max_memory = {limit}{}; list fewer \
                 neighbours or nodes, or raise sim.max_memory",
                gib(db),
                if (db - total).abs() > 1.0 {
                    format!(" ({} in all)", gib(total))
                } else {
                    String::new()
                }
            ),
        ));
    }
    let others = if (tb.max(qb).max(wb) - total).abs() > 1.0 {
        format!(" ({} in all)", gib(total))
    } else {
        String::new()
    };
    match (big_trace, big_queue, big_window) {
        (Some(t), _, _) if tb >= qb && tb >= wb => Err(ScenarioError::new(
            t.setting,
            format!(
                "estimated {} of trace ({:.3e} rows) for {} s{others} exceeds \
                 sim.max_memory = {limit}; stream it to disk with sim.trace.dir \
                 (`burstlab run --out DIR` does), shorten sim.duration or narrow the trace \
                 (sim.trace.start, end, flows), or raise sim.max_memory",
                gib(t.bytes),
                t.rows,
                est.duration_s
            ),
        )),
        (_, Some(q), _) if qb >= wb => Err(ScenarioError::new(
            format!("link[{}].queue_pkts", q.spec_index),
            format!(
                "link {} has no queue limit and its UDP sources offer {} to {}: the queue \
                 grows about {} per simulated second, {} by {} s{others}, more than \
                 sim.max_memory = {limit}; give it queue_pkts or queue_bytes, shorten \
                 sim.duration or raise sim.max_memory",
                q.link,
                rate(q.offered_bps),
                rate(q.rate_bps),
                gib(q.growth_bytes_per_s),
                gib(q.bytes),
                est.duration_s
            ),
        )),
        (_, _, Some(w)) => Err(window_error(w, &others, &limit, est.duration_s)),
        _ => Ok(est),
    }
}

/// The refusal of a TCP flight too big for `sim.max_memory`: names `init_cwnd` when
/// the initial window is most of it (sent in one event), else `wm`.
fn window_error(w: &WindowEstimate, others: &str, limit: &str, dur: f64) -> ScenarioError {
    let queued = if w.queue_bytes > 0.0 {
        format!(
            " and {} of packets waiting in queues without a limit (give the links on its \
             route queue_pkts or queue_bytes)",
            gib(w.queue_bytes)
        )
    } else {
        String::new()
    };
    let what = format!(
        "{} of sender and receiver state{queued}{others}, more than sim.max_memory = {limit}",
        gib(w.state_bytes)
    );
    if w.initial() {
        ScenarioError::new(
            format!("flow[{}].init_cwnd", w.flow),
            format!(
                "flow '{}' sends its initial window of {} segments at once, in one event \
                 (its flight can reach {:.3e} segments): {what}; lower init_cwnd (and wm) \
                 or raise sim.max_memory",
                w.name, w.init_cwnd, w.segments
            ),
        )
    } else {
        ScenarioError::new(
            format!("flow[{}].wm", w.flow),
            format!(
                "flow '{}' can have up to {:.3e} segments in flight (its window wm = {}, \
                 or init_cwnd plus twice the segments its route delivers in {dur} s): \
                 {what}; lower wm, shorten sim.duration or raise sim.max_memory",
                w.name, w.segments, w.wm
            ),
        )
    }
}
