//! The simulated world and its event loop.
//!
//! Read first: [`Ev`] (every event kind), then [`Sim::run`].
//!
//! Design (htsim-style, STYLE.md §7):
//! - Packets live in a pool addressed by index; the hot loop reuses slots and allocates
//!   nothing per packet once the pool and the per-link FIFOs have reached their working size.
//! - A link direction holds at most ONE pending event: the arrival of the head of its
//!   in-flight FIFO at the far end. The transmitter needs no event: since a link is FIFO,
//!   each packet's transmission start is `max(now, busy_until)`, and the drop-tail queue
//!   occupancy at any instant is the number of packets whose transmission has not yet
//!   started. So the event count grows with busy links, not with packets waiting.
//! - TCP timers are lazily cancelled: a flow keeps the time of its one pending timer event;
//!   when it pops, the handler re-reads the sender's real deadline and either fires,
//!   re-arms, or ignores it.
//! - Routes are precomputed lists of link indices.
//! - Observation (traces) never changes behaviour and costs one branch when off.

use crate::engine::EventQueue;
use crate::rng::RngStream;
use crate::scenario::{NodeKind, Resolved, ResolvedFlowKind, ScenarioError};
use crate::stats::{CwndSample, FlowRow, LinkRow, PacketEvent, PacketSample, RunResult};
use crate::tcp::{AckSeg, TcpConfig, TcpOutput, TcpReceiver, TcpSender};
use crate::units::{BitRate, SimTime};
use std::collections::VecDeque;

#[path = "sim_obs.rs"]
mod obs_net;
use obs_net::OBS_BIT;

/// Event kinds. All payloads are indices, so an event is 16 bytes.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The head packet of link `0`'s in-flight FIFO reaches the far end.
    LinkArrive(u32),
    FlowStart(u32),
    FlowStop(u32),
    /// Retransmission timer of TCP flow `0` (lazily cancelled).
    Rto(u32),
    /// Delayed-ACK timer of TCP flow `0`'s receiver (lazily cancelled).
    DelAck(u32),
    /// Next packet of a CBR / on-off source.
    UdpSend(u32),
    /// On-off source switches state.
    OnOffToggle(u32),
    /// Assembly timer of OBS queue `0` with generation `1` (lazily cancelled).
    AsmTimer(u32, u64),
    /// The burst control packet of burst `0` has been processed at its next node.
    Bcp(u32),
    /// The tail of burst `0` reaches its egress edge node.
    BurstArrive(u32),
    /// End of warm-up: statistics are snapshotted.
    Warmup,
    /// End of the run.
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    Data,
    Ack,
    Udp,
}

/// A packet in the pool.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PktKind,
    pub flow: u32,
    /// Data: segment number. UDP: packet number.
    pub seq: u64,
    pub bytes: u32,
    pub retransmit: bool,
    /// Route (index into `Sim::routes`) and the index of the next link on it.
    pub route: u32,
    pub hop: u32,
    pub ack: AckSeg,
}

impl Default for Packet {
    fn default() -> Self {
        Packet {
            kind: PktKind::Data,
            flow: 0,
            seq: 0,
            bytes: 0,
            retransmit: false,
            route: 0,
            hop: 0,
            ack: AckSeg::default(),
        }
    }
}

/// Counters of a link direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub pkts_offered: u64,
    pub pkts_delivered: u64,
    pub bytes_delivered: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Integral of busy time (ps), for utilisation.
    pub busy_ps: u128,
}

struct Link {
    rate: BitRate,
    delay: SimTime,
    qlimit_pkts: Option<u64>,
    qlimit_bytes: Option<u64>,
    loss: f64,
    rng: RngStream,
    busy_until: SimTime,
    /// Transmission start times and sizes of packets whose transmission has not started
    /// yet or is under way (front = oldest). Entries whose transmission ended are purged
    /// lazily on the next enqueue.
    backlog: VecDeque<(SimTime, SimTime, u32)>,
    backlog_bytes: u64,
    /// Packets propagating: (arrival time at the far end, packet).
    pipe: VecDeque<(SimTime, u32)>,
    c: LinkCounters,
}

#[derive(Clone, Copy, Debug, Default)]
struct Snapshot {
    delivered: u64,
    received: u64,
    sent: u64,
    retx: u64,
    td: u64,
    to: u64,
    rtt_sum: f64,
    rtt_n: u64,
    cwnd_int: f64,
    udp_sent: u64,
    udp_recv: u64,
    rto_sum: f64,
    rto_n: u64,
}

struct TcpAgent {
    snd: TcpSender,
    rcv: TcpReceiver,
    rto_pending: Option<SimTime>,
    delack_pending: Option<SimTime>,
    drops: Vec<(u64, u64)>,
    /// Segments already dropped by the injector (first transmissions only).
    injected: u64,
    last_cwnd: f64,
    last_ssthresh: u32,
    /// Sum and count of the (un-backed-off) RTO at the first timeout of each timeout
    /// sequence: PFTK's T0.
    rto_sum_s: f64,
    rto_n: u64,
}

struct UdpAgent {
    rate: BitRate,
    size: u32,
    onoff: Option<(f64, f64, RngStream)>,
    on: bool,
    next_seq: u64,
    recv: u64,
    pending_send: bool,
}

enum Agent {
    Tcp(Box<TcpAgent>),
    Udp(UdpAgent),
}

struct Flow {
    name: String,
    src: u32,
    dst: u32,
    fwd: u32,
    rev: u32,
    active: bool,
    stopped: bool,
    start: SimTime,
    stop: Option<SimTime>,
    agent: Agent,
    snap: Snapshot,
    /// Data packets created and not yet received or dropped (conservation check).
    data_created: u64,
    data_dropped: u64,
}

/// The world.
pub struct Sim {
    q: EventQueue<Ev>,
    node_names: Vec<String>,
    node_kind: Vec<NodeKind>,
    links: Vec<Link>,
    link_spec: Vec<(usize, u32, u32)>,
    routes: Vec<Vec<u32>>,
    flows: Vec<Flow>,
    pkts: Vec<Packet>,
    free: Vec<u32>,
    out: TcpOutput,
    duration: SimTime,
    warmup: SimTime,
    seed: u64,
    replication: u64,
    name: String,
    // tracing
    trace_cwnd: bool,
    trace_pkts: bool,
    trace_flows: Option<Vec<bool>>,
    trace_start: SimTime,
    trace_end: SimTime,
    cwnd_trace: Vec<CwndSample>,
    pkt_trace: Vec<PacketSample>,
    /// The OBS network (empty without fibres).
    obs: obs_net::Obs,
}

impl Sim {
    /// Builds the world from a validated scenario.
    pub fn new(r: &Resolved) -> Result<Sim, ScenarioError> {
        let mut links = Vec::with_capacity(r.links.len());
        let mut link_spec = Vec::new();
        for (i, l) in r.links.iter().enumerate() {
            links.push(Link {
                rate: l.rate,
                delay: l.delay,
                qlimit_pkts: l.queue_pkts,
                qlimit_bytes: l.queue_bytes,
                loss: l.loss,
                rng: RngStream::derive(r.seed, r.replication, &format!("link/{i}/loss")),
                busy_until: SimTime::ZERO,
                backlog: VecDeque::new(),
                backlog_bytes: 0,
                pipe: VecDeque::new(),
                c: LinkCounters::default(),
            });
            link_spec.push((l.spec_index, l.from, l.to));
        }
        // Routes: link indices, and OBS segments as assembly-queue entries.
        let (obs, routes) = obs_net::build(r, &mut links)?;
        let mut flows = Vec::new();
        for (fi, f) in r.flows.iter().enumerate() {
            let agent = match &f.kind {
                ResolvedFlowKind::Tcp {
                    cfg,
                    segments,
                    drop_segments,
                } => {
                    let mut snd = TcpSender::new(cfg.clone(), f.start);
                    snd.set_data_limit(*segments);
                    let rcv = TcpReceiver::new(cfg);
                    Agent::Tcp(Box::new(TcpAgent {
                        last_cwnd: snd.cwnd(),
                        last_ssthresh: snd.ssthresh(),
                        snd,
                        rcv,
                        rto_pending: None,
                        delack_pending: None,
                        drops: drop_segments.clone(),
                        injected: 0,
                        rto_sum_s: 0.0,
                        rto_n: 0,
                    }))
                }
                ResolvedFlowKind::Cbr { rate, packet_size } => Agent::Udp(UdpAgent {
                    rate: *rate,
                    size: *packet_size,
                    onoff: None,
                    on: true,
                    next_seq: 0,
                    recv: 0,
                    pending_send: false,
                }),
                ResolvedFlowKind::OnOff {
                    rate,
                    packet_size,
                    mean_on,
                    mean_off,
                } => Agent::Udp(UdpAgent {
                    rate: *rate,
                    size: *packet_size,
                    onoff: Some((
                        mean_on.as_secs_f64(),
                        mean_off.as_secs_f64(),
                        RngStream::derive(r.seed, r.replication, &format!("flow/{fi}/onoff")),
                    )),
                    on: false,
                    next_seq: 0,
                    recv: 0,
                    pending_send: false,
                }),
            };
            flows.push(Flow {
                name: f.name.clone(),
                src: f.src,
                dst: f.dst,
                fwd: (2 * fi) as u32,
                rev: (2 * fi + 1) as u32,
                active: false,
                stopped: false,
                start: f.start,
                stop: f.stop,
                agent,
                snap: Snapshot::default(),
                data_created: 0,
                data_dropped: 0,
            });
        }
        let trace_flows = r.trace.flows.as_ref().map(|fl| {
            let mut v = vec![false; r.flows.len()];
            for &f in fl {
                v[f as usize] = true;
            }
            v
        });
        let mut sim = Sim {
            q: EventQueue::new(),
            node_names: r.nodes.iter().map(|n| n.0.clone()).collect(),
            node_kind: r.nodes.iter().map(|n| n.1).collect(),
            links,
            link_spec,
            routes,
            flows,
            pkts: Vec::with_capacity(1024),
            free: Vec::with_capacity(1024),
            out: TcpOutput {
                sends: Vec::with_capacity(64),
            },
            duration: r.duration,
            warmup: r.warmup,
            seed: r.seed,
            replication: r.replication,
            name: r.name.clone(),
            trace_cwnd: r.trace.cwnd,
            trace_pkts: r.trace.packets,
            trace_flows,
            trace_start: r.trace.start.map(|d| d.0).unwrap_or(SimTime::ZERO),
            trace_end: r.trace.end.map(|d| d.0).unwrap_or(SimTime::MAX),
            cwnd_trace: Vec::new(),
            pkt_trace: Vec::new(),
            obs,
        };
        for (i, f) in sim.flows.iter().enumerate() {
            if f.start < sim.duration {
                sim.q.push(f.start, Ev::FlowStart(i as u32));
            }
            if let Some(st) = f.stop {
                if st < sim.duration {
                    sim.q.push(st, Ev::FlowStop(i as u32));
                }
            }
        }
        if sim.warmup > SimTime::ZERO {
            sim.q.push(sim.warmup, Ev::Warmup);
        }
        sim.q.push(sim.duration, Ev::End);
        Ok(sim)
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> RunResult {
        self.run_until_end();
        self.finish()
    }

    /// The results of a world already run with [`Sim::run_until_end`].
    pub fn into_result(self) -> RunResult {
        self.finish()
    }

    /// Processes events until the end event (exposed for tests that inspect the world).
    pub fn run_until_end(&mut self) {
        while let Some((now, ev)) = self.q.pop() {
            match ev {
                Ev::LinkArrive(l) => self.link_arrive(now, l),
                Ev::Rto(f) => self.rto_event(now, f),
                Ev::DelAck(f) => self.delack_event(now, f),
                Ev::UdpSend(f) => self.udp_send(now, f),
                Ev::OnOffToggle(f) => self.onoff_toggle(now, f),
                Ev::FlowStart(f) => self.flow_start(now, f),
                Ev::FlowStop(f) => self.flow_stop(f),
                Ev::AsmTimer(qi, gen) => self.asm_timer(now, qi, gen),
                Ev::Bcp(b) => self.bcp_at_node(now, b),
                Ev::BurstArrive(b) => self.burst_arrive(now, b),
                Ev::Warmup => {
                    self.snapshot_all(now);
                    self.obs_warmup();
                }
                Ev::End => break,
            }
        }
    }

    pub fn events_processed(&self) -> u64 {
        self.q.events_processed()
    }

    // ---------------------------------------------------------------- packet pool

    #[inline]
    fn alloc(&mut self, p: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            i
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as u32
        }
    }

    #[inline]
    fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    /// Packets currently alive (in queues or propagating).
    pub fn live_packets(&self) -> usize {
        self.pkts.len() - self.free.len()
    }

    // ---------------------------------------------------------------- links

    /// Hands packet `id` to the next link of its route at time `now`.
    #[inline]
    fn forward(&mut self, now: SimTime, id: u32) {
        let p = &mut self.pkts[id as usize];
        let li = self.routes[p.route as usize][p.hop as usize];
        p.hop += 1;
        if li & OBS_BIT != 0 {
            self.obs_enqueue(now, id, li & !OBS_BIT);
            return;
        }
        let bytes = p.bytes;
        let link = &mut self.links[li as usize];
        link.c.pkts_offered += 1;
        // Drop-tail: count packets waiting (transmission not started), not the one on the
        // wire. Links without a limit keep no backlog at all.
        let limited = link.qlimit_pkts.is_some() || link.qlimit_bytes.is_some();
        if limited {
            // Purge packets whose transmission has finished by now.
            while let Some(&(_, end, b)) = link.backlog.front() {
                if end <= now {
                    link.backlog.pop_front();
                    link.backlog_bytes -= b as u64;
                } else {
                    break;
                }
            }
            let (mut waiting, mut wbytes) = (link.backlog.len() as u64, link.backlog_bytes);
            if let Some(&(start, _, b)) = link.backlog.front() {
                if start <= now {
                    waiting -= 1;
                    wbytes -= b as u64;
                }
            }
            let over_p = link.qlimit_pkts.is_some_and(|lim| waiting >= lim);
            let over_b = link
                .qlimit_bytes
                .is_some_and(|lim| wbytes + bytes as u64 > lim);
            if over_p || over_b {
                link.c.drops_queue += 1;
                self.drop_packet(now, id);
                return;
            }
        }
        let start = if link.busy_until > now {
            link.busy_until
        } else {
            now
        };
        let tx = link.rate.tx_time(bytes.into());
        let end = start + tx;
        link.busy_until = end;
        link.c.busy_ps += tx.0 as u128;
        if limited {
            link.backlog.push_back((start, end, bytes));
            link.backlog_bytes += bytes as u64;
        }
        if link.loss > 0.0 && link.rng.bernoulli(link.loss) {
            // Lost on the link after occupying the transmitter.
            link.c.drops_loss += 1;
            self.drop_packet(now, id);
            return;
        }
        let arrive = end + link.delay;
        let was_empty = link.pipe.is_empty();
        link.pipe.push_back((arrive, id));
        if was_empty {
            self.q.push(arrive, Ev::LinkArrive(li));
        }
    }

    fn link_arrive(&mut self, now: SimTime, li: u32) {
        loop {
            let link = &mut self.links[li as usize];
            match link.pipe.front() {
                Some(&(t, id)) if t <= now => {
                    link.pipe.pop_front();
                    link.c.pkts_delivered += 1;
                    link.c.bytes_delivered += self.pkts[id as usize].bytes as u64;
                    self.node_receive(now, id);
                }
                Some(&(t, _)) => {
                    self.q.push(t, Ev::LinkArrive(li));
                    return;
                }
                None => return,
            }
        }
    }

    #[inline]
    fn node_receive(&mut self, now: SimTime, id: u32) {
        let p = &self.pkts[id as usize];
        if (p.hop as usize) < self.routes[p.route as usize].len() {
            self.forward(now, id);
        } else {
            self.deliver(now, id);
        }
    }

    fn drop_packet(&mut self, now: SimTime, id: u32) {
        let p = self.pkts[id as usize];
        if p.kind == PktKind::Data {
            let f = &mut self.flows[p.flow as usize];
            f.data_dropped += 1;
            if self.trace_pkts {
                self.trace_packet(now, p.flow, p.seq, PacketEvent::Dropped, p.retransmit);
            }
        }
        self.release(id);
    }

    // ---------------------------------------------------------------- end hosts

    fn deliver(&mut self, now: SimTime, id: u32) {
        let p = self.pkts[id as usize];
        let fi = p.flow as usize;
        match p.kind {
            PktKind::Data => {
                if self.trace_pkts {
                    self.trace_packet(now, p.flow, p.seq, PacketEvent::Received, p.retransmit);
                }
                let Agent::Tcp(t) = &mut self.flows[fi].agent else {
                    unreachable!("data packet for a UDP flow")
                };
                let ack = t.rcv.on_segment(now, p.seq);
                let ack_bytes = t.snd.config().ack_bytes;
                match ack {
                    Some(a) => {
                        // Reuse the slot: the data packet becomes the ACK.
                        let rev = self.flows[fi].rev;
                        let q = &mut self.pkts[id as usize];
                        *q = Packet {
                            kind: PktKind::Ack,
                            flow: p.flow,
                            seq: a.cum,
                            bytes: ack_bytes,
                            retransmit: false,
                            route: rev,
                            hop: 0,
                            ack: a,
                        };
                        self.forward(now, id);
                    }
                    None => self.release(id),
                }
                self.arm_delack(now, fi);
            }
            PktKind::Ack => {
                self.release(id);
                let f = &mut self.flows[fi];
                if f.stopped {
                    return;
                }
                let Agent::Tcp(t) = &mut f.agent else {
                    unreachable!()
                };
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                t.snd.on_ack(now, &p.ack, &mut out);
                self.emit(now, fi, &out);
                self.out = out;
                self.after_sender_call(now, fi);
            }
            PktKind::Udp => {
                self.release(id);
                if let Agent::Udp(u) = &mut self.flows[fi].agent {
                    u.recv += 1;
                }
            }
        }
    }

    /// Sends the segments the TCP sender asked for.
    fn emit(&mut self, now: SimTime, fi: usize, out: &TcpOutput) {
        for s in &out.sends {
            let f = &mut self.flows[fi];
            let Agent::Tcp(t) = &mut f.agent else {
                unreachable!()
            };
            let bytes = t.snd.config().seg_bytes();
            f.data_created += 1;
            let fwd = f.fwd;
            // Deterministic loss injection: the first transmission of listed segments.
            let injected = !s.retransmit
                && !t.drops.is_empty()
                && t.drops.iter().any(|&(a, b)| a <= s.seq && s.seq <= b);
            if self.trace_pkts {
                self.trace_packet(now, fi as u32, s.seq, PacketEvent::Sent, s.retransmit);
            }
            let id = self.alloc(Packet {
                kind: PktKind::Data,
                flow: fi as u32,
                seq: s.seq,
                bytes,
                retransmit: s.retransmit,
                route: fwd,
                hop: 0,
                ack: AckSeg::default(),
            });
            if injected {
                if let Agent::Tcp(t) = &mut self.flows[fi].agent {
                    t.injected += 1;
                }
                self.drop_packet(now, id);
            } else {
                self.forward(now, id);
            }
        }
    }

    fn after_sender_call(&mut self, now: SimTime, fi: usize) {
        let f = &mut self.flows[fi];
        let Agent::Tcp(t) = &mut f.agent else { return };
        if let Some(d) = t.snd.rto_deadline() {
            if t.rto_pending.is_none_or(|p| d < p) {
                let at = if d < now { now } else { d };
                t.rto_pending = Some(at);
                self.q.push(at, Ev::Rto(fi as u32));
            }
        }
        if self.trace_cwnd {
            let (c, s) = (t.snd.cwnd(), t.snd.ssthresh());
            if c != t.last_cwnd || s != t.last_ssthresh {
                t.last_cwnd = c;
                t.last_ssthresh = s;
                if self.trace_on(fi as u32, now) {
                    self.cwnd_trace.push(CwndSample {
                        time: now,
                        flow: fi as u32,
                        cwnd: c,
                        ssthresh: s,
                    });
                }
            }
        }
    }

    fn rto_event(&mut self, now: SimTime, fi: u32) {
        let f = &mut self.flows[fi as usize];
        let Agent::Tcp(t) = &mut f.agent else { return };
        if t.rto_pending != Some(now) {
            return; // stale
        }
        t.rto_pending = None;
        if f.stopped {
            return;
        }
        match t.snd.rto_deadline() {
            Some(d) if d <= now => {
                let rtt = &t.snd.tcb().rtt;
                if rtt.backoff() == 1 {
                    t.rto_sum_s += rtt.rto().as_secs_f64();
                    t.rto_n += 1;
                }
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                t.snd.on_rto(now, &mut out);
                self.emit(now, fi as usize, &out);
                self.out = out;
            }
            _ => {}
        }
        self.after_sender_call(now, fi as usize);
    }

    fn arm_delack(&mut self, now: SimTime, fi: usize) {
        let Agent::Tcp(t) = &mut self.flows[fi].agent else {
            return;
        };
        if let Some(d) = t.rcv.delack_deadline() {
            if t.delack_pending.is_none_or(|p| d < p) {
                let at = if d < now { now } else { d };
                t.delack_pending = Some(at);
                self.q.push(at, Ev::DelAck(fi as u32));
            }
        }
    }

    fn delack_event(&mut self, now: SimTime, fi: u32) {
        let fiu = fi as usize;
        let Agent::Tcp(t) = &mut self.flows[fiu].agent else {
            return;
        };
        if t.delack_pending != Some(now) {
            return;
        }
        t.delack_pending = None;
        match t.rcv.delack_deadline() {
            Some(d) if d <= now => {
                if let Some(a) = t.rcv.on_delack_timer(now) {
                    let bytes = t.snd.config().ack_bytes;
                    let rev = self.flows[fiu].rev;
                    let id = self.alloc(Packet {
                        kind: PktKind::Ack,
                        flow: fi,
                        seq: a.cum,
                        bytes,
                        retransmit: false,
                        route: rev,
                        hop: 0,
                        ack: a,
                    });
                    self.forward(now, id);
                }
            }
            _ => {}
        }
        self.arm_delack(now, fiu);
    }

    // ---------------------------------------------------------------- sources

    fn flow_start(&mut self, now: SimTime, fi: u32) {
        let fiu = fi as usize;
        let f = &mut self.flows[fiu];
        f.active = true;
        match &mut f.agent {
            Agent::Tcp(t) => {
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                t.snd.start(now, &mut out);
                self.emit(now, fiu, &out);
                self.out = out;
                self.after_sender_call(now, fiu);
            }
            Agent::Udp(u) => {
                if let Some((mean_on, _, rng)) = &mut u.onoff {
                    // Start in the on state; exponential period.
                    u.on = true;
                    let d =
                        SimTime::from_secs_f64(rng.exponential(*mean_on)).unwrap_or(SimTime::ZERO);
                    self.q.push(now + d, Ev::OnOffToggle(fi));
                }
                u.pending_send = true;
                self.q.push(now, Ev::UdpSend(fi));
            }
        }
    }

    fn flow_stop(&mut self, fi: u32) {
        let f = &mut self.flows[fi as usize];
        f.stopped = true;
        if let Agent::Udp(u) = &mut f.agent {
            u.on = false;
        }
    }

    fn udp_send(&mut self, now: SimTime, fi: u32) {
        let fiu = fi as usize;
        let f = &mut self.flows[fiu];
        let Agent::Udp(u) = &mut f.agent else { return };
        u.pending_send = false;
        if !u.on || f.stopped {
            return;
        }
        let seq = u.next_seq;
        u.next_seq += 1;
        let size = u.size;
        let gap = u.rate.tx_time(size.into());
        u.pending_send = true;
        let fwd = f.fwd;
        self.q.push(now + gap, Ev::UdpSend(fi));
        let id = self.alloc(Packet {
            kind: PktKind::Udp,
            flow: fi,
            seq,
            bytes: size,
            retransmit: false,
            route: fwd,
            hop: 0,
            ack: AckSeg::default(),
        });
        self.forward(now, id);
    }

    fn onoff_toggle(&mut self, now: SimTime, fi: u32) {
        let f = &mut self.flows[fi as usize];
        if f.stopped {
            return;
        }
        let Agent::Udp(u) = &mut f.agent else { return };
        let Some((mean_on, mean_off, rng)) = &mut u.onoff else {
            return;
        };
        u.on = !u.on;
        let mean = if u.on { *mean_on } else { *mean_off };
        let d = SimTime::from_secs_f64(rng.exponential(mean)).unwrap_or(SimTime::ZERO);
        self.q.push(now + d, Ev::OnOffToggle(fi));
        if u.on && !u.pending_send {
            u.pending_send = true;
            self.q.push(now, Ev::UdpSend(fi));
        }
    }

    // ---------------------------------------------------------------- statistics

    fn trace_on(&self, flow: u32, now: SimTime) -> bool {
        now >= self.trace_start
            && now <= self.trace_end
            && self.trace_flows.as_ref().is_none_or(|v| v[flow as usize])
    }

    fn trace_packet(
        &mut self,
        now: SimTime,
        flow: u32,
        seq: u64,
        ev: PacketEvent,
        retransmit: bool,
    ) {
        if self.trace_on(flow, now) {
            self.pkt_trace.push(PacketSample {
                time: now,
                flow,
                seq,
                event: ev,
                retransmit,
            });
        }
    }

    fn counters(&self, now: SimTime, fi: usize) -> Snapshot {
        match &self.flows[fi].agent {
            Agent::Tcp(t) => {
                let s = t.snd.stats(now);
                Snapshot {
                    delivered: t.rcv.delivered(),
                    received: t.rcv.received(),
                    sent: s.segs_sent,
                    retx: s.retransmits,
                    td: s.td_events,
                    to: s.to_events,
                    rtt_sum: s.rtt_sum_s,
                    rtt_n: s.rtt_samples,
                    cwnd_int: s.cwnd_integral,
                    udp_sent: 0,
                    udp_recv: 0,
                    rto_sum: t.rto_sum_s,
                    rto_n: t.rto_n,
                }
            }
            Agent::Udp(u) => Snapshot {
                udp_sent: u.next_seq,
                udp_recv: u.recv,
                ..Default::default()
            },
        }
    }

    fn snapshot_all(&mut self, now: SimTime) {
        for fi in 0..self.flows.len() {
            self.flows[fi].snap = self.counters(now, fi);
        }
    }

    /// Conservation check for data segments of TCP flow `fi`: created = received at the
    /// receiver + dropped + in flight. Returns (created, received, dropped, in_flight).
    pub fn conservation(&self, fi: usize) -> (u64, u64, u64, u64) {
        let f = &self.flows[fi];
        let received = match &f.agent {
            Agent::Tcp(t) => t.rcv.received(),
            Agent::Udp(_) => 0,
        };
        let live: u64 = {
            let mut dead = vec![false; self.pkts.len()];
            for &i in &self.free {
                dead[i as usize] = true;
            }
            self.pkts
                .iter()
                .enumerate()
                .filter(|(i, p)| !dead[*i] && p.kind == PktKind::Data && p.flow as usize == fi)
                .count() as u64
        };
        (f.data_created, received, f.data_dropped, live)
    }

    fn finish(mut self) -> RunResult {
        let now = self.duration;
        let mut flows = Vec::new();
        for fi in 0..self.flows.len() {
            let f = &self.flows[fi];
            let c = self.counters(now, fi);
            let s = f.snap;
            let t0 = if f.start > self.warmup {
                f.start
            } else {
                self.warmup
            };
            let t1 = match f.stop {
                Some(st) if st < now => st,
                _ => now,
            };
            let elapsed = t1.saturating_sub(t0).as_secs_f64();
            let (kind, variant, cc, profile, mss, wm, b) = match &f.agent {
                Agent::Tcp(t) => {
                    let cfg: &TcpConfig = t.snd.config();
                    (
                        "tcp",
                        cfg.variant.name(),
                        cfg.cc.name(),
                        format!("{:?}", cfg.profile).to_lowercase(),
                        cfg.mss,
                        cfg.wm,
                        if cfg.delayed_ack { 2 } else { 1 },
                    )
                }
                Agent::Udp(u) => (
                    if u.onoff.is_some() { "onoff" } else { "cbr" },
                    "",
                    "",
                    String::new(),
                    u.size,
                    0,
                    0,
                ),
            };
            let per = |x: u64| {
                if elapsed > 0.0 {
                    x as f64 / elapsed
                } else {
                    0.0
                }
            };
            let delivered = c.delivered - s.delivered;
            let received = c.received - s.received;
            let rtt_n = c.rtt_n - s.rtt_n;
            let rtt_span = t1.saturating_sub(t0).as_secs_f64();
            let cwnd_window =
                (c.cwnd_int - s.cwnd_int) / if rtt_span > 0.0 { rtt_span } else { 1.0 };
            let (udp_sent, udp_recv) = (c.udp_sent - s.udp_sent, c.udp_recv - s.udp_recv);
            flows.push(FlowRow {
                flow: fi as u32,
                name: f.name.clone(),
                kind: kind.into(),
                variant: variant.into(),
                cc: cc.into(),
                profile,
                src: self.node_names[f.src as usize].clone(),
                dst: self.node_names[f.dst as usize].clone(),
                mss_bytes: mss,
                wm_segments: wm,
                b,
                measured_s: elapsed,
                segments_delivered: if kind == "tcp" { delivered } else { udp_recv },
                segments_received: if kind == "tcp" { received } else { udp_recv },
                segments_sent: if kind == "tcp" {
                    c.sent - s.sent
                } else {
                    udp_sent
                },
                retransmits: c.retx - s.retx,
                td_events: c.td - s.td,
                to_events: c.to - s.to,
                goodput_segps: per(if kind == "tcp" { delivered } else { udp_recv }),
                throughput_segps: per(if kind == "tcp" { received } else { udp_recv }),
                goodput_bps: per(if kind == "tcp" { delivered } else { udp_recv })
                    * mss as f64
                    * 8.0,
                throughput_bps: per(if kind == "tcp" { received } else { udp_recv })
                    * mss as f64
                    * 8.0,
                mean_rtt_s: if rtt_n > 0 {
                    (c.rtt_sum - s.rtt_sum) / rtt_n as f64
                } else {
                    f64::NAN
                },
                mean_cwnd_segments: if kind == "tcp" { cwnd_window } else { f64::NAN },
                mean_rto_s: if c.rto_n > s.rto_n {
                    (c.rto_sum - s.rto_sum) / (c.rto_n - s.rto_n) as f64
                } else {
                    f64::NAN
                },
            });
        }
        let span = self.duration.as_secs_f64();
        let obs_span = self.duration.saturating_sub(self.warmup).as_secs_f64();
        let obs_tables = self.obs_rows(obs_span);
        let links = self
            .links
            .iter()
            .take(self.link_spec.len()) // hidden OBS bypass links are not reported
            .enumerate()
            .map(|(i, l)| {
                let (spec, from, to) = self.link_spec[i];
                LinkRow {
                    link: i as u32,
                    spec_index: spec as u32,
                    from: self.node_names[from as usize].clone(),
                    to: self.node_names[to as usize].clone(),
                    pkts_offered: l.c.pkts_offered,
                    pkts_delivered: l.c.pkts_delivered,
                    drops_queue: l.c.drops_queue,
                    drops_loss: l.c.drops_loss,
                    utilisation: (l.c.busy_ps as f64 / 1e12) / span,
                }
            })
            .collect();
        RunResult {
            scenario: self.name.clone(),
            seed: self.seed,
            replication: self.replication,
            version: crate::VERSION.into(),
            duration_s: self.duration.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            events: self.q.events_processed(),
            flows,
            links,
            cwnd_trace: self.cwnd_trace,
            packet_trace: self.pkt_trace,
            bursts: obs_tables.bursts,
            obs_links: obs_tables.links,
            obs_flows: obs_tables.flows,
            burst_hist: obs_tables.hist,
            burst_trace: obs_tables.trace,
        }
    }

    /// The node kind table (for tests).
    pub fn node_kinds(&self) -> &[NodeKind] {
        &self.node_kind
    }
}
