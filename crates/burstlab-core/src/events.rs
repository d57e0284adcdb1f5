//! Events a scenario will need, estimated before it runs: the time a run takes grows
//! with the events it handles, so [`check`] refuses a scenario whose estimate exceeds
//! `sim.max_events`, naming the flow (or setting) that contributes most and the figure;
//! `burstlab validate` prints the estimate ([`EventEstimate::lines`]). The run-time
//! guard (`World`, looked at with the memory guard every 16384 events) stops a run that
//! handles more than `sim.max_events` whatever the estimate foresaw, so that no run
//! hangs, even one whose events pile up at a single instant.
//!
//! Upper bounds over each flow's active time `t` (its start/stop within
//! `sim.duration`; every event of the loop in `world/mod.rs` is counted):
//! - a TCP flow sends at most `R` data segments per second, `R` as in
//!   [`crate::memory`] (the slowest link on its route / a full segment's wire size, and
//!   at most twice its window per round-trip propagation delay). Each segment is one
//!   arrival event per hop of its route, its ACK one per hop of the reverse route, plus
//!   at most one retransmission-timer and one delayed-ACK event: `R t (h_f + h_r + 2)`.
//!   Timeouts add at most one per `max(min_rto, 1 µs)` (`init_rto` is at least 1 µs);
//! - a UDP source sends `rate / packet_size` packets per second, one send event each,
//!   and each hop's arrivals are capped by the slowest link before it. An on-off
//!   source sends at that rate while on, `mean_on / (mean_on + mean_off)` of the time,
//!   toggles `2 / (mean_on + mean_off)` times per second and each on period adds one
//!   packet and one stale send event: for it the figure is the mean over its random
//!   periods, not a bound (a run may exceed it by the periods' fluctuation). A
//!   `self_similar` or `pareto_onoff` source draws its periods without events: its
//!   figure is its mean packet rate (sources × duty × peak rate), likewise a mean;
//! - a burst holds at least one packet, so an OBS network forms at most as many bursts
//!   as packets enter it (TCP data and ACKs, UDP), and at most `1 / tb` per second
//!   per flow and direction when every assembly policy of the scenario is a timer
//!   without jitter; each burst is one assembly-timer event and, per fibre hop of its
//!   path, one control-packet and one arrival event;
//! - flow starts, stops, the warm-up and the end: one each;
//! - a `[[workload]]` (`world/workloads.rs`): its expected arrivals (rate × its window,
//!   at most `max_flows`) times the events of one flow of the mean size in segments on
//!   its longest path (each segment and its ACK one event per hop, a timer event each,
//!   and as many bursts as packets where the path crosses the OBS network), plus the
//!   arrival and the start: a mean, not a bound, since arrivals and sizes are drawn.

use crate::obs::{AckRatioBase, AssemblerConfig};
use crate::scenario::{NodeKind, Resolved, ResolvedFlowKind, ScenarioError};
use std::collections::HashMap;

/// The limits of `sim.max_events` live with the scenario that validates them (so that
/// the scenario does not import this module, which estimates a resolved scenario).
pub use crate::scenario::{DEFAULT_MAX_EVENTS, MIN_MAX_EVENTS};

/// The share of one flow in the estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowEvents {
    /// Index of its `[[flow]]` entry.
    pub index: usize,
    pub name: String,
    /// Events of its packets (sends, hops, timers).
    pub packet_events: f64,
    /// On-off transitions.
    pub toggles: f64,
    /// Events the transitions cause: their own and the packet each on period begins
    /// with.
    pub toggle_events: f64,
    /// Events of the bursts carrying its packets.
    pub burst_events: f64,
}

impl FlowEvents {
    pub fn total(&self) -> f64 {
        self.packet_events + self.toggle_events + self.burst_events
    }
}

/// Everything [`estimate`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct EventEstimate {
    pub max_events: u64,
    pub duration_s: f64,
    /// Upper bound of the events of the whole run.
    pub events: f64,
    pub flows: Vec<FlowEvents>,
    /// One entry per `[[workload]]` (`index`: its position; `packet_events`: its flows'
    /// packets and the arrivals, `burst_events`: their bursts).
    pub workloads: Vec<FlowEvents>,
}

impl EventEstimate {
    /// The flow contributing most (None without flows).
    pub fn largest(&self) -> Option<&FlowEvents> {
        self.flows
            .iter()
            .max_by(|a, b| a.total().total_cmp(&b.total()))
    }

    /// The estimate as text (what `burstlab validate` prints).
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![format!(
            "event estimate (upper bound from link and source rates) for {} s: at most \
             {:.3e} events against sim.max_events = {:.3e}",
            self.duration_s, self.events, self.max_events as f64
        )];
        if let Some(f) = self.largest() {
            v.push(format!(
                "  largest: flow[{}] ({}): {:.3e} events ({:.3e} packet, {:.3e} on-off, \
                 {:.3e} burst)",
                f.index,
                f.name,
                f.total(),
                f.packet_events,
                f.toggle_events,
                f.burst_events
            ));
        }
        v
    }
}

/// The shortest period after which every assembly policy of the scenario forms a burst
/// (a timer without jitter), or None when some policy may form bursts faster (length
/// triggers, jitter, windows): then bursts are bounded by packets only.
fn timer_period_s(r: &Resolved) -> Option<f64> {
    let o = r.obs.as_ref()?;
    let period = |c: &AssemblerConfig| -> Option<f64> {
        match c {
            AssemblerConfig::Timer { tb, jitter_sd_frac } if *jitter_sd_frac == 0.0 => {
                Some(tb.as_secs_f64())
            }
            AssemblerConfig::AckRatio {
                base: AckRatioBase::Timer { tb, jitter_sd_frac },
                ..
            } if *jitter_sd_frac == 0.0 => Some(tb.as_secs_f64()),
            _ => None,
        }
    };
    let mut all = vec![&o.assembly];
    all.extend(o.classes.iter().filter_map(|c| c.assembly.as_ref()));
    all.extend(r.node_assembly.iter().flatten());
    all.extend(r.flows.iter().filter_map(|f| f.assembly.as_ref()));
    let mut t = f64::INFINITY;
    for c in all {
        t = t.min(period(c)?);
    }
    (t > 0.0 && t.is_finite()).then_some(t)
}

/// Estimates the events of a resolved scenario. Linear in flows × route length.
pub fn estimate(r: &Resolved) -> EventEstimate {
    let dur = r.duration.as_secs_f64();
    // Capacity (bit/s) and delay of each hop a -> b, as in `memory::estimate`.
    let mut hops: HashMap<(u32, u32), (f64, f64)> = HashMap::with_capacity(r.links.len());
    for f in &r.fibres {
        let h = hops.entry((f.from, f.to)).or_insert((0.0, f64::INFINITY));
        h.0 += f.rate.bps() as f64 * f.wavelengths as f64;
        h.1 = h.1.min(f.delay.as_secs_f64());
    }
    let mut seen = std::collections::HashSet::with_capacity(r.links.len());
    for l in &r.links {
        if seen.insert((l.from, l.to)) {
            hops.insert((l.from, l.to), (l.rate.bps() as f64, l.delay.as_secs_f64()));
        }
    }
    let hop = |a: u32, b: u32| hops.get(&(a, b)).copied().unwrap_or((f64::INFINITY, 0.0));
    let is_obs = |n: u32| r.nodes[n as usize].1.is_obs();
    let fibre_hops = |route: &[u32]| {
        route
            .windows(2)
            .filter(|w| is_obs(w[0]) && is_obs(w[1]))
            .count() as f64
    };
    let crosses_obs = |route: &[u32]| {
        route
            .iter()
            .any(|&n| r.nodes[n as usize].1 == NodeKind::Edge)
    };
    let period = timer_period_s(r);
    // Bursts per second carrying `pps` packets per second of one flow and direction.
    let bursts = |pps: f64| period.map_or(pps, |t| pps.min(1.0 / t));
    let mut flows = Vec::with_capacity(r.flows.len());
    let mut total = 2.0 + r.flows.len() as f64 * 2.0; // warm-up, end, starts, stops
    for (fi, f) in r.flows.iter().enumerate() {
        let stop = f.stop.map_or(dur, |s| s.as_secs_f64().min(dur));
        let active = (stop - f.start.as_secs_f64()).max(0.0);
        let mut fe = FlowEvents {
            index: fi,
            name: f.name.clone(),
            packet_events: 0.0,
            toggles: 0.0,
            toggle_events: 0.0,
            burst_events: 0.0,
        };
        if active > 0.0 {
            let fwd: Vec<(f64, f64)> = f.route.windows(2).map(|w| hop(w[0], w[1])).collect();
            let rev: Vec<(f64, f64)> = f
                .reverse_route
                .windows(2)
                .map(|w| hop(w[0], w[1]))
                .collect();
            match &f.kind {
                ResolvedFlowKind::Tcp { cfg, .. } => {
                    let wire = (cfg.mss + cfg.header_bytes).max(1) as f64 * 8.0;
                    let bottleneck = fwd.iter().map(|h| h.0).fold(f64::INFINITY, f64::min);
                    let mut seg_rate = bottleneck / wire;
                    let rtt: f64 = fwd.iter().chain(&rev).map(|h| h.1).sum();
                    if rtt > 0.0 {
                        seg_rate = seg_rate.min(2.0 * cfg.wm as f64 / rtt);
                    }
                    if !seg_rate.is_finite() {
                        seg_rate = 0.0;
                    }
                    let segs = seg_rate * active + cfg.wm as f64;
                    let rto = cfg.min_rto.as_secs_f64().max(1e-6);
                    fe.packet_events =
                        segs * (fwd.len() + rev.len() + 2) as f64 + active / rto + 1.0;
                    for (route, pkts) in [(&f.route, segs), (&f.reverse_route, segs)] {
                        if crosses_obs(route) {
                            let b = (bursts(pkts / active) * active).min(pkts) + 1.0;
                            fe.burst_events += b * (1.0 + 2.0 * fibre_hops(route));
                        }
                    }
                }
                udp => {
                    // Mean rates; a Pareto superposition (`self_similar`) draws its
                    // periods without events: one send event per packet.
                    let (bps, packet_size) = udp.udp_mean().expect("a UDP source");
                    let bits = packet_size as f64 * 8.0;
                    if let ResolvedFlowKind::OnOff {
                        mean_on, mean_off, ..
                    } = &f.kind
                    {
                        let (on, off) = (mean_on.as_secs_f64(), mean_off.as_secs_f64());
                        // Each period (on or off) ends in one toggle; a period drawn
                        // shorter than a picosecond still takes one event.
                        fe.toggles = 2.0 * active / (on + off) + 2.0;
                        fe.toggle_events = fe.toggles;
                    }
                    // Each on period starts with a packet (one more than its share
                    // of the mean rate, with its hops) and leaves one stale send event
                    // behind: counted with the toggles that cause them.
                    let cycles = fe.toggles / 2.0;
                    fe.toggle_events += cycles * (2 + fwd.len()) as f64;
                    let sent = bps / bits * active + 1.0;
                    let mut ev = sent;
                    let mut cap = f64::INFINITY;
                    for h in &fwd {
                        cap = cap.min(h.0);
                        ev += (cap / bits * active + 1.0).min(sent);
                    }
                    fe.packet_events = ev;
                    if crosses_obs(&f.route) {
                        let b = (bursts(sent / active) * active).min(sent) + 1.0;
                        fe.burst_events = b * (1.0 + 2.0 * fibre_hops(&f.route));
                    }
                }
            }
        }
        total += fe.total();
        flows.push(fe);
    }
    let mut workloads = Vec::with_capacity(r.workloads.len());
    for (i, w) in r.workloads.iter().enumerate() {
        let arrivals = w.expected_arrivals(r.duration);
        let segs = w.mean_segments() + 1.0; // and a SYN
        let (mut hops, mut fibres) = (0usize, 0.0f64);
        for (f, b) in w.routes.iter().flat_map(|p| &p.paths) {
            hops = hops.max(f.len() + b.len());
            fibres = fibres.max(fibre_hops(f) + fibre_hops(b));
        }
        let per_flow = segs * hops as f64 + 4.0;
        let burst = if fibres > 0.0 {
            segs * 2.0 * (1.0 + fibres)
        } else {
            0.0
        };
        let fe = FlowEvents {
            index: i,
            name: w.name.clone(),
            packet_events: arrivals * per_flow,
            toggles: 0.0,
            toggle_events: 0.0,
            burst_events: arrivals * burst,
        };
        total += fe.total();
        workloads.push(fe);
    }
    EventEstimate {
        max_events: r.max_events,
        duration_s: dur,
        events: total,
        flows,
        workloads,
    }
}

/// Refuses a scenario whose estimate exceeds `sim.max_events`: the error names the
/// largest contributor, the figure and what to change.
pub fn check(r: &Resolved) -> Result<EventEstimate, ScenarioError> {
    let est = estimate(r);
    if est.events <= r.max_events as f64 {
        return Ok(est);
    }
    let mut why = format!(
        "the run needs up to {:.3e} events for {} s of simulated time, more than \
         sim.max_events = {:.3e}",
        est.events, est.duration_s, r.max_events as f64
    );
    if let Some(w) = est
        .workloads
        .iter()
        .max_by(|a, b| a.total().total_cmp(&b.total()))
        .filter(|w| est.largest().is_none_or(|f| w.total() >= f.total()))
    {
        why += &format!(
            " (workload[{}] '{}' alone accounts for about {:.3e}: {:.3e} arrivals expected); \
             lower its rate, give it stop or max_flows, shorten sim.duration or raise \
             sim.max_events",
            w.index,
            w.name,
            w.total(),
            r.workloads[w.index].expected_arrivals(r.duration)
        );
        return Err(ScenarioError::new(
            format!("workload[{}].rate", w.index),
            why,
        ));
    }
    let field = match est.largest() {
        Some(f) if f.toggle_events >= f.packet_events.max(f.burst_events) => {
            why += &format!(
                " (flow[{}] '{}' alone toggles on and off {:.3e} times: its mean_on + \
                 mean_off is {} s); lengthen its periods, shorten sim.duration or raise \
                 sim.max_events",
                f.index,
                f.name,
                f.toggles,
                {
                    match &r.flows[f.index].kind {
                        ResolvedFlowKind::OnOff {
                            mean_on, mean_off, ..
                        } => mean_on.as_secs_f64() + mean_off.as_secs_f64(),
                        _ => 0.0,
                    }
                }
            );
            format!("flow[{}].mean_on", f.index)
        }
        Some(f) => {
            why += &format!(
                " (flow[{}] '{}' alone accounts for {:.3e}: its packets' sends, hops and \
                 timers{}); shorten sim.duration, lower its rate or raise sim.max_events",
                f.index,
                f.name,
                f.total(),
                if f.burst_events > 0.0 {
                    " and the bursts carrying them"
                } else {
                    ""
                }
            );
            "sim.max_events".to_string()
        }
        None => {
            why += "; shorten sim.duration or raise sim.max_events";
            "sim.max_events".to_string()
        }
    };
    Err(ScenarioError::new(field, why))
}
