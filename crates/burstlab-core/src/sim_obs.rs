//! The OBS network inside the simulated world: ingress edges (classifier → assembly
//! queues → bursts + burst control packets), the bufferless core (per-hop BCP
//! processing, switch set-up, wavelength scheduling, burst loss) and egress disassembly.
//!
//! Read first: the timeline below, then [`Sim::obs_enqueue`], [`Sim::form_burst`] and
//! [`Sim::bcp_at_node`]. A child module of `sim`, so it works on the world directly.
//!
//! Wiring. A flow's route is a node sequence; each maximal run of fibre hops (edge →
//! core… → edge) becomes ONE route entry `OBS_BIT | queue`: the assembly queue the
//! packet joins at the ingress. The classifier (`obs.classifier`) decides the queue:
//! per (flow, OBS path), per (egress, OBS path) or per (egress, OBS path, class). In
//! `ack_mode = "bypass"` the reverse route of a TCP flow instead crosses the OBS
//! network on a hidden packet link (rate of the slowest fibre, delay = sum of the
//! fibre delays, no queue limit, no loss): ACKs are neither assembled nor lost
//! (ozsarac §3). Hidden links are not reported in `links`.
//!
//! Timeline of a burst on a path `n0 (ingress) –f0→ n1 –f1→ … –f(h−1)→ nh (egress)`
//! with per-hop BCP processing δ, fibre delays `d_j`, offset `T`:
//! - at `t0` the assembler emits the burst; the ingress (no processing) reserves a
//!   wavelength of `f0` and sends the BCP on the control channel; the burst leaves at
//!   `t0 + T`. Base offset `T = h·δ + max setup(n1..nh) + extra` (or `obs.offset`).
//! - the BCP reaches `n_i` at `t0 + Σ_{j<i} d_j + (i−1)·δ` and is processed by
//!   `t_i = t0 + Σ_{j<i} d_j + i·δ` (one event per burst per node); the burst's head
//!   arrives at `a_i = t0 + T + Σ_{j<i} d_j`, so the remaining offset is `T − i·δ`. If
//!   `a_i < t_i + setup(n_i)` the switch cannot be ready: the burst is lost
//!   (`offset_too_short`, charged to the incoming fibre). Otherwise a core node reserves
//!   `f_i`: JET `[a_i, a_i + L/R_i)`, JIT `[t_i, a_i + L/R_i)`, with the scheduler of
//!   `obs.scheduler`; with `conversion = false` only the wavelength used on `f0`.
//!   No wavelength → `contention` / `no_wavelength` (charged to `f_i`). BCPs are not
//!   serialised on the control channel (its capacity is assumed ample).
//! - the egress checks its set-up like a core node, then the burst's tail arrives at
//!   `a_h + L/R_(h−1)`: the packets are disassembled at that instant and continue on
//!   their routes (normal packet links toward the receiver).
//! - random loss: `per_link` — after a successful reservation of `f_i` the burst is lost
//!   with that fibre's `p`; `per_path` — once, at the egress, with `obs.loss.p`. Either
//!   applies to bursts with data only (`applies_to = "data"`) or to all bursts.
//!   A burst lost anywhere stops there (its BCP goes no further); wavelengths already
//!   reserved upstream stay reserved (the burst occupied them).
//!
//! Memory and speed: bursts live in a pool addressed by index; each keeps its packet
//! Vec across reuse. A burst in flight holds one pending event; an assembly queue one
//! timer event (lazy cancellation by generation, see `obs::assembler`). ChannelSets
//! forget reservations that ended before the current time.

use super::*;
use crate::obs::{Assembler, AssemblerConfig, ChannelSet, Emit, PktMeta, QueueState, TimerCmd};
use crate::scenario::{AckMode, Classifier, LossAppliesTo, LossScope, Signalling};
use crate::stats::{
    BurstEvent, BurstHistRow, BurstLoss, BurstRow, BurstSample, ObsFlowRow, ObsLinkRow, SizeHist,
};
use std::collections::HashMap;

/// Marks a route entry as "join assembly queue `entry & !OBS_BIT`".
pub(super) const OBS_BIT: u32 = 1 << 31;
/// Route entry of an OBS segment that no packet ever takes (a UDP flow's reverse route).
const UNUSED_QUEUE: u32 = OBS_BIT - 1;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FibreCounters {
    offered: u64,
    scheduled: u64,
    lost: [u64; 5],
    bytes: u64,
    reserved_ps: u128,
}

pub(super) struct Fibre {
    from: u32,
    to: u32,
    rate: BitRate,
    delay: SimTime,
    loss: f64,
    spec_index: usize,
    cs: ChannelSet,
    rng: RngStream,
    c: FibreCounters,
}

#[derive(Clone, Debug, Default)]
pub(super) struct QueueStats {
    pkts_in: u64,
    dropped_full: u64,
    bursts: u64,
    data_bursts: u64,
    ack_bursts: u64,
    delivered: u64,
    lost: [u64; 5],
    bytes_sum: u64,
    bytes_min: u64,
    bytes_max: u64,
    pkts_sum: u64,
    data_sum: u64,
    ack_sum: u64,
    bursts_with_acks: u64,
    wait_ps: u128,
    first_wait_ps: u128,
    hist: SizeHist,
}

pub(super) struct AsmQueue {
    edge: u32,
    egress: u32,
    key: String,
    flow: Option<u32>,
    class: u32,
    /// Fibre indices from the ingress to the egress.
    path: Vec<u32>,
    offset: SimTime,
    asm: Assembler,
    /// (arrival time, packet id), oldest first.
    pkts: VecDeque<(SimTime, u32)>,
    bytes: u64,
    limit: Option<u64>,
    /// Bursts emitted so far (the index of the next one).
    emitted: u64,
    /// Sorted 0-based indices of bursts to drop, and how many were passed.
    drops: Vec<u64>,
    drop_cursor: usize,
    s: QueueStats,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Burst {
    queue: u32,
    index: u64,
    pkts: Vec<u32>,
    bytes: u64,
    /// Next node on the path (`n_hop`) whose BCP processing is pending.
    hop: u32,
    /// Arrival time of the burst's head at node `n_hop`.
    arrive: SimTime,
    channel: u32,
    has_data: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FlowObs {
    data_bursts: u64,
    segs: u64,
    ack_bursts: u64,
    acks: u64,
    data_lost: u64,
    segs_lost: u64,
    acks_lost_bursts: u64,
    dropped_full: u64,
    wait_ps: u128,
    waited: u64,
    /// Serial of the last burst counted for data / ACKs (no double counting).
    mark_data: u64,
    mark_ack: u64,
}

/// All OBS state of the world (empty when the scenario has no fibres).
#[derive(Default)]
pub(super) struct Obs {
    pub(super) enabled: bool,
    fibres: Vec<Fibre>,
    queues: Vec<AsmQueue>,
    bursts: Vec<Burst>,
    free: Vec<u32>,
    flows: Vec<FlowObs>,
    /// Global burst serial (for the per-flow marks; starts at 1).
    serial: u64,
    node_setup: Vec<SimTime>,
    delta: SimTime,
    jit: bool,
    conversion: bool,
    loss_per_path: bool,
    loss_all: bool,
    path_p: f64,
    path_rng: Option<RngStream>,
    trace_on: bool,
    trace: Vec<BurstSample>,
    /// Conservation counters (never reset at warm-up).
    pub(super) cons_in: u64,
    pub(super) cons_out: u64,
    pub(super) cons_dropped: u64,
}

/// Builds the OBS state and converts every flow's node routes into route entries
/// (link indices, or `OBS_BIT | queue`). May append hidden bypass links to `links`.
pub(super) fn build(
    r: &Resolved,
    links: &mut Vec<Link>,
) -> Result<(Obs, Vec<Vec<u32>>), ScenarioError> {
    let mut obs = Obs {
        node_setup: r.node_setup.clone(),
        trace_on: r.trace.bursts,
        serial: 1,
        flows: vec![FlowObs::default(); r.flows.len()],
        ..Default::default()
    };
    let oc = r.obs.as_ref();
    if let Some(o) = oc {
        obs.enabled = !r.fibres.is_empty();
        obs.delta = o.bcp_processing;
        obs.jit = o.signalling == Signalling::Jit;
        obs.conversion = o.conversion;
        obs.loss_per_path = o.loss_scope == LossScope::PerPath;
        obs.loss_all = o.loss_applies_to == LossAppliesTo::All;
        obs.path_p = o.loss_p;
        obs.path_rng = Some(RngStream::derive(r.seed, r.replication, "obs/path/loss"));
        for (i, f) in r.fibres.iter().enumerate() {
            obs.fibres.push(Fibre {
                from: f.from,
                to: f.to,
                rate: f.rate,
                delay: f.delay,
                loss: if obs.loss_per_path { 0.0 } else { f.loss },
                spec_index: f.spec_index,
                cs: ChannelSet::new(f.wavelengths as usize, o.scheduler),
                rng: RngStream::derive(r.seed, r.replication, &format!("fibre/{i}/loss")),
                c: FibreCounters::default(),
            });
        }
    }
    let find_link = |a: u32, b: u32| -> Option<u32> {
        r.links
            .iter()
            .position(|l| l.from == a && l.to == b)
            .map(|i| i as u32)
    };
    let find_fibre = |a: u32, b: u32| -> Option<u32> {
        r.fibres
            .iter()
            .position(|f| f.from == a && f.to == b)
            .map(|i| i as u32)
    };
    let is_obs = |n: u32| r.nodes[n as usize].1.is_obs();
    // (edge, path, flow, class) -> queue
    let mut qmap: HashMap<(u32, Vec<u32>, Option<u32>, u32), u32> = HashMap::new();
    let mut bypass: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut routes = Vec::with_capacity(2 * r.flows.len());
    for (fi, f) in r.flows.iter().enumerate() {
        for (dir, nodes) in [(0, &f.route), (1, &f.reverse_route)] {
            let mut hops = Vec::new();
            let mut k = 0;
            while k + 1 < nodes.len() {
                let (a, b) = (nodes[k], nodes[k + 1]);
                if !(is_obs(a) && is_obs(b)) {
                    hops.push(find_link(a, b).expect("validated route"));
                    k += 1;
                    continue;
                }
                let ingress = a;
                let mut path = Vec::new();
                while k + 1 < nodes.len() && is_obs(nodes[k]) && is_obs(nodes[k + 1]) {
                    path.push(find_fibre(nodes[k], nodes[k + 1]).expect("validated route"));
                    k += 1;
                }
                let egress = nodes[k];
                let o = oc.expect("fibres imply obs settings");
                let tcp = matches!(f.kind, ResolvedFlowKind::Tcp { .. });
                if dir == 1 && !tcp {
                    // UDP flows send nothing back: no queue for their reverse route.
                    hops.push(OBS_BIT | UNUSED_QUEUE);
                    continue;
                }
                if dir == 1 && tcp && o.ack_mode == AckMode::Bypass {
                    let li = *bypass.entry(path.clone()).or_insert_with(|| {
                        let rate = path
                            .iter()
                            .map(|&x| r.fibres[x as usize].rate)
                            .min()
                            .expect("non-empty path");
                        let delay = path
                            .iter()
                            .fold(SimTime::ZERO, |acc, &x| acc + r.fibres[x as usize].delay);
                        links.push(Link {
                            rate,
                            delay,
                            qlimit_pkts: None,
                            qlimit_bytes: None,
                            loss: 0.0,
                            rng: RngStream::derive(r.seed, r.replication, "bypass"),
                            busy_until: SimTime::ZERO,
                            backlog: VecDeque::new(),
                            backlog_bytes: 0,
                            pipe: VecDeque::new(),
                            c: LinkCounters::default(),
                        });
                        (links.len() - 1) as u32
                    });
                    hops.push(li);
                    continue;
                }
                let (flow_key, class) = match o.classifier {
                    Classifier::PerFlow => (Some(fi as u32), 0),
                    Classifier::PerEgress => (None, 0),
                    Classifier::PerClass => (None, f.class),
                };
                let key = (ingress, path.clone(), flow_key, class);
                let qi = match qmap.get(&key) {
                    Some(&q) => q,
                    None => {
                        let qi = obs.queues.len() as u32;
                        let cfg: AssemblerConfig = match o.classifier {
                            Classifier::PerFlow => f.assembly,
                            Classifier::PerClass => {
                                o.classes.get(class as usize).and_then(|c| c.assembly)
                            }
                            Classifier::PerEgress => None,
                        }
                        .or(r.node_assembly[ingress as usize])
                        .unwrap_or(o.assembly);
                        let asm = Assembler::new(
                            &cfg,
                            o.max_pkts_per_burst,
                            RngStream::derive(
                                r.seed,
                                r.replication,
                                &format!("edge/{ingress}/asm/{qi}"),
                            ),
                        )
                        .map_err(|m| ScenarioError::new("obs.assembly", m))?;
                        let h = path.len() as u64;
                        let max_setup = path
                            .iter()
                            .map(|&x| r.node_setup[r.fibres[x as usize].to as usize])
                            .max()
                            .unwrap_or(SimTime::ZERO);
                        let class_extra = o
                            .classes
                            .get(class as usize)
                            .map_or(SimTime::ZERO, |c| c.extra_offset);
                        let offset = o.offset.unwrap_or(
                            o.bcp_processing.saturating_mul(h)
                                + max_setup
                                + o.extra_offset
                                + class_extra,
                        );
                        let egress_name = &r.nodes[egress as usize].0;
                        let keystr = match o.classifier {
                            Classifier::PerFlow => f.name.clone(),
                            Classifier::PerEgress => egress_name.clone(),
                            Classifier::PerClass => format!("{egress_name}/{class}"),
                        };
                        obs.queues.push(AsmQueue {
                            edge: ingress,
                            egress,
                            key: keystr,
                            flow: flow_key,
                            class,
                            path: path.clone(),
                            offset,
                            asm,
                            pkts: VecDeque::new(),
                            bytes: 0,
                            limit: o.queue_limit,
                            emitted: 0,
                            drops: Vec::new(),
                            drop_cursor: 0,
                            s: QueueStats::default(),
                        });
                        qmap.insert(key, qi);
                        qi
                    }
                };
                hops.push(OBS_BIT | qi);
            }
            routes.push(hops);
        }
    }
    if let Some(o) = oc {
        for (i, (edge, key, bursts)) in o.drop_bursts.iter().enumerate() {
            let q = obs
                .queues
                .iter_mut()
                .find(|q| q.edge == *edge && q.key == *key);
            match q {
                Some(q) => {
                    q.drops.extend_from_slice(bursts);
                    q.drops.sort_unstable();
                    q.drops.dedup();
                }
                None => {
                    let have: Vec<&str> = obs
                        .queues
                        .iter()
                        .filter(|q| q.edge == *edge)
                        .map(|q| q.key.as_str())
                        .collect();
                    return Err(ScenarioError::new(
                        format!("obs.drop_burst[{i}].queue"),
                        format!(
                            "no assembly queue '{key}' at edge '{}' (its queues: {have:?})",
                            r.nodes[*edge as usize].0
                        ),
                    ));
                }
            }
        }
    }
    Ok((obs, routes))
}

/// The OBS result tables of a run.
pub(super) struct ObsTables {
    pub(super) bursts: Vec<BurstRow>,
    pub(super) links: Vec<ObsLinkRow>,
    pub(super) flows: Vec<ObsFlowRow>,
    pub(super) hist: Vec<BurstHistRow>,
    pub(super) trace: Vec<BurstSample>,
}

/// Transmission time of a burst of `bytes` at `rate` (at least 1 ps, so that even an
/// empty burst occupies its wavelength for a non-empty interval).
fn burst_time(rate: BitRate, bytes: u64) -> SimTime {
    rate.tx_time(bytes).max(SimTime(1))
}

impl Sim {
    // ------------------------------------------------------------------ ingress

    /// Packet `id` reaches the ingress edge of queue `qi`.
    pub(super) fn obs_enqueue(&mut self, now: SimTime, id: u32, qi: u32) {
        let p = self.pkts[id as usize];
        self.obs.cons_in += 1;
        let q = &mut self.obs.queues[qi as usize];
        q.s.pkts_in += 1;
        if q.limit.is_some_and(|l| q.pkts.len() as u64 >= l) {
            q.s.dropped_full += 1;
            self.obs.flows[p.flow as usize].dropped_full += 1;
            self.obs.cons_dropped += 1;
            self.drop_packet(now, id);
            return;
        }
        q.pkts.push_back((now, id));
        q.bytes += p.bytes as u64;
        let meta = PktMeta {
            bytes: p.bytes,
            flow: p.flow,
            kind: match p.kind {
                PktKind::Data => crate::obs::PktKind::Data,
                PktKind::Ack => crate::obs::PktKind::Ack,
                PktKind::Udp => crate::obs::PktKind::Udp,
            },
            seq: p.seq,
        };
        let st = QueueState {
            pkts: q.pkts.len() as u32,
            bytes: q.bytes,
            oldest_arrival: q.pkts.front().map_or(now, |x| x.0),
        };
        let d = q.asm.on_packet(now, &meta, st);
        self.apply_decision(now, qi, d);
    }

    /// Assembly timer `gen` of queue `qi` fires.
    pub(super) fn asm_timer(&mut self, now: SimTime, qi: u32, gen: u64) {
        let q = &mut self.obs.queues[qi as usize];
        if !q.asm.is_current(gen) {
            return;
        }
        let st = QueueState {
            pkts: q.pkts.len() as u32,
            bytes: q.bytes,
            oldest_arrival: q.pkts.front().map_or(now, |x| x.0),
        };
        let d = q.asm.on_timer(now, gen, st);
        self.apply_decision(now, qi, d);
    }

    fn apply_decision(&mut self, now: SimTime, qi: u32, d: crate::obs::Decision) {
        for e in d.bursts() {
            self.form_burst(now, qi, e);
        }
        if let TimerCmd::Arm { deadline, gen } = d.timer {
            self.q.push(deadline, Ev::AsmTimer(qi, gen));
        }
    }

    fn alloc_burst(&mut self) -> u32 {
        match self.obs.free.pop() {
            Some(b) => b,
            None => {
                self.obs.bursts.push(Burst::default());
                (self.obs.bursts.len() - 1) as u32
            }
        }
    }

    /// Takes `e.pkts` packets from the head of queue `qi` into a new burst and launches
    /// it: ingress reservation on the first fibre, then the BCP.
    fn form_burst(&mut self, now: SimTime, qi: u32, e: Emit) {
        let b = self.alloc_burst();
        let serial = self.obs.serial;
        self.obs.serial += 1;
        let mut list = std::mem::take(&mut self.obs.bursts[b as usize].pkts);
        list.clear();
        let q = &mut self.obs.queues[qi as usize];
        let (mut bytes, mut ndata, mut nack) = (e.pad_bytes, 0u64, 0u64);
        let first_wait = q.pkts.front().map_or(0, |x| (now - x.0).0);
        for _ in 0..e.pkts {
            let (t, id) = q.pkts.pop_front().expect("assembler emits queued packets");
            let p = &self.pkts[id as usize];
            q.bytes -= p.bytes as u64;
            bytes += p.bytes as u64;
            let wait = (now - t).0 as u128;
            q.s.wait_ps += wait;
            let fo = &mut self.obs.flows[p.flow as usize];
            fo.wait_ps += wait;
            fo.waited += 1;
            if p.kind == PktKind::Ack {
                nack += 1;
                fo.acks += 1;
                if fo.mark_ack != serial {
                    fo.mark_ack = serial;
                    fo.ack_bursts += 1;
                }
            } else {
                ndata += 1;
                fo.segs += 1;
                if fo.mark_data != serial {
                    fo.mark_data = serial;
                    fo.data_bursts += 1;
                }
            }
            list.push(id);
        }
        let index = q.emitted;
        q.emitted += 1;
        let s = &mut q.s;
        s.bursts += 1;
        if ndata > 0 {
            s.data_bursts += 1;
        } else {
            s.ack_bursts += 1;
        }
        if nack > 0 {
            s.bursts_with_acks += 1;
        }
        s.data_sum += ndata;
        s.ack_sum += nack;
        s.pkts_sum += e.pkts as u64;
        s.bytes_sum += bytes;
        s.bytes_min = if s.bursts == 1 {
            bytes
        } else {
            s.bytes_min.min(bytes)
        };
        s.bytes_max = s.bytes_max.max(bytes);
        s.first_wait_ps += first_wait as u128;
        s.hist.add(e.pkts as u64);
        let injected = q.drop_cursor < q.drops.len() && q.drops[q.drop_cursor] == index;
        if injected {
            q.drop_cursor += 1;
        }
        let offset = q.offset;
        let f0 = q.path[0];
        let bu = &mut self.obs.bursts[b as usize];
        *bu = Burst {
            queue: qi,
            index,
            pkts: list,
            bytes,
            hop: 0,
            arrive: now + offset,
            channel: 0,
            has_data: ndata > 0,
        };
        if self.obs.trace_on {
            self.burst_trace(now, b, BurstEvent::Formed, None, None);
        }
        if injected {
            self.lose_burst(now, b, BurstLoss::Injected, None);
            return;
        }
        // The ingress schedules the first fibre at once (no BCP processing there).
        if self.reserve_hop(now, b, 0) {
            let d = self.obs.fibres[f0 as usize].delay;
            let bu = &mut self.obs.bursts[b as usize];
            bu.hop = 1;
            bu.arrive += d;
            self.q.push(now + d + self.obs.delta, Ev::Bcp(b));
        }
    }

    /// Reserves path fibre `i` for burst `b` at BCP-processing time `now`; on failure
    /// or random loss the burst is lost and `false` returned.
    fn reserve_hop(&mut self, now: SimTime, b: u32, i: usize) -> bool {
        let bu = &self.obs.bursts[b as usize];
        let fi = self.obs.queues[bu.queue as usize].path[i] as usize;
        let (arrive, bytes, channel, has_data) = (bu.arrive, bu.bytes, bu.channel, bu.has_data);
        let (jit, conversion, loss_all) = (self.obs.jit, self.obs.conversion, self.obs.loss_all);
        let f = &mut self.obs.fibres[fi];
        f.c.offered += 1;
        let end = arrive + burst_time(f.rate, bytes);
        let start = if jit { now } else { arrive };
        f.cs.release_before(now);
        let got = if conversion || i == 0 {
            f.cs.reserve(start, end).map(|c| c as u32)
        } else if (channel as usize) < f.cs.k() && f.cs.reserve_on(channel as usize, start, end) {
            Some(channel)
        } else {
            None
        };
        let Some(c) = got else {
            let why = if conversion || i == 0 {
                BurstLoss::Contention
            } else {
                BurstLoss::NoWavelength
            };
            self.lose_burst(now, b, why, Some(fi as u32));
            return false;
        };
        f.c.scheduled += 1;
        f.c.bytes += bytes;
        f.c.reserved_ps += (end - start).0 as u128;
        if f.loss > 0.0 && (has_data || loss_all) && f.rng.bernoulli(f.loss) {
            self.lose_burst(now, b, BurstLoss::Random, Some(fi as u32));
            return false;
        }
        self.obs.bursts[b as usize].channel = c;
        true
    }

    /// The BCP of burst `b` has been processed at node `n_hop`.
    pub(super) fn bcp_at_node(&mut self, now: SimTime, b: u32) {
        let bu = &self.obs.bursts[b as usize];
        let (hop, arrive, qi) = (bu.hop as usize, bu.arrive, bu.queue as usize);
        let q = &self.obs.queues[qi];
        let h = q.path.len();
        let incoming = q.path[hop - 1];
        let node = self.obs.fibres[incoming as usize].to;
        let setup = self.obs.node_setup[node as usize];
        if arrive < now + setup {
            self.lose_burst(now, b, BurstLoss::OffsetTooShort, Some(incoming));
            return;
        }
        if hop == h {
            // Egress.
            if self.obs.loss_per_path {
                let has_data = self.obs.bursts[b as usize].has_data;
                let p = self.obs.path_p;
                if (has_data || self.obs.loss_all)
                    && self.obs.path_rng.as_mut().is_some_and(|r| r.bernoulli(p))
                {
                    self.lose_burst(now, b, BurstLoss::Random, Some(incoming));
                    return;
                }
            }
            let f = &self.obs.fibres[incoming as usize];
            let bytes = self.obs.bursts[b as usize].bytes;
            let tail = arrive + burst_time(f.rate, bytes);
            self.q.push(tail, Ev::BurstArrive(b));
            return;
        }
        if self.reserve_hop(now, b, hop) {
            let fi = self.obs.queues[qi].path[hop];
            let d = self.obs.fibres[fi as usize].delay;
            let bu = &mut self.obs.bursts[b as usize];
            bu.hop += 1;
            bu.arrive += d;
            self.q.push(now + d + self.obs.delta, Ev::Bcp(b));
        }
    }

    // ------------------------------------------------------------------ egress

    /// Burst `b`'s tail has reached the egress: its packets continue on their routes.
    pub(super) fn burst_arrive(&mut self, now: SimTime, b: u32) {
        if self.obs.trace_on {
            self.burst_trace(now, b, BurstEvent::Delivered, None, None);
        }
        let qi = self.obs.bursts[b as usize].queue as usize;
        self.obs.queues[qi].s.delivered += 1;
        let mut list = std::mem::take(&mut self.obs.bursts[b as usize].pkts);
        self.obs.cons_out += list.len() as u64;
        for &id in &list {
            self.node_receive(now, id);
        }
        list.clear();
        self.obs.bursts[b as usize].pkts = list;
        self.obs.free.push(b);
    }

    fn lose_burst(&mut self, now: SimTime, b: u32, why: BurstLoss, fibre: Option<u32>) {
        if self.obs.trace_on {
            self.burst_trace(now, b, BurstEvent::Lost, Some(why), fibre);
        }
        let r = why as usize;
        let qi = self.obs.bursts[b as usize].queue as usize;
        self.obs.queues[qi].s.lost[r] += 1;
        if let Some(f) = fibre {
            self.obs.fibres[f as usize].c.lost[r] += 1;
        }
        let serial = self.obs.serial;
        self.obs.serial += 1;
        let mut list = std::mem::take(&mut self.obs.bursts[b as usize].pkts);
        self.obs.cons_dropped += list.len() as u64;
        for &id in &list {
            let p = self.pkts[id as usize];
            let fo = &mut self.obs.flows[p.flow as usize];
            if p.kind == PktKind::Ack {
                if fo.mark_ack != serial {
                    fo.mark_ack = serial;
                    fo.acks_lost_bursts += 1;
                }
            } else {
                fo.segs_lost += 1;
                if fo.mark_data != serial {
                    fo.mark_data = serial;
                    fo.data_lost += 1;
                }
            }
            self.drop_packet(now, id);
        }
        list.clear();
        self.obs.bursts[b as usize].pkts = list;
        self.obs.free.push(b);
    }

    fn burst_trace(
        &mut self,
        now: SimTime,
        b: u32,
        event: BurstEvent,
        reason: Option<BurstLoss>,
        fibre: Option<u32>,
    ) {
        if now < self.trace_start || now > self.trace_end {
            return;
        }
        let bu = &self.obs.bursts[b as usize];
        self.obs.trace.push(BurstSample {
            time: now,
            queue: bu.queue,
            burst: bu.index,
            event,
            pkts: bu.pkts.len() as u32,
            bytes: bu.bytes,
            reason,
            fibre,
        });
    }

    // ------------------------------------------------------------------ statistics

    /// Zeroes the OBS statistics at the end of warm-up (conservation counters are kept).
    pub(super) fn obs_warmup(&mut self) {
        for q in &mut self.obs.queues {
            q.s = QueueStats::default();
        }
        for f in &mut self.obs.fibres {
            f.c = FibreCounters::default();
        }
        for fo in &mut self.obs.flows {
            *fo = FlowObs {
                mark_data: fo.mark_data,
                mark_ack: fo.mark_ack,
                ..FlowObs::default()
            };
        }
    }

    /// OBS conservation: (packets into ingress queues, packets out of egresses,
    /// packets dropped in the OBS network — queue full or in lost bursts — and packets
    /// in flight — waiting in queues or riding bursts).
    pub fn obs_conservation(&self) -> (u64, u64, u64, u64) {
        let queued: u64 = self.obs.queues.iter().map(|q| q.pkts.len() as u64).sum();
        let mut free = vec![false; self.obs.bursts.len()];
        for &b in &self.obs.free {
            free[b as usize] = true;
        }
        let riding: u64 = self
            .obs
            .bursts
            .iter()
            .enumerate()
            .filter(|(i, _)| !free[*i])
            .map(|(_, b)| b.pkts.len() as u64)
            .sum();
        (
            self.obs.cons_in,
            self.obs.cons_out,
            self.obs.cons_dropped,
            queued + riding,
        )
    }

    /// Reservations currently stored over all fibres (memory check).
    pub fn obs_stored_reservations(&self) -> usize {
        self.obs.fibres.iter().map(|f| f.cs.stored()).sum()
    }

    /// Bursts ever allocated in the pool (memory check).
    pub fn obs_burst_pool(&self) -> usize {
        self.obs.bursts.len()
    }

    pub(super) fn obs_rows(&mut self, span_s: f64) -> ObsTables {
        let name = |n: u32| self.node_names[n as usize].clone();
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { f64::NAN };
        let mut rows = Vec::new();
        let mut hist = Vec::new();
        for (i, q) in self.obs.queues.iter().enumerate() {
            let s = &q.s;
            let lost: u64 = s.lost.iter().sum();
            for (lo, hi, count) in s.hist.nonempty() {
                hist.push(BurstHistRow {
                    queue: i as u32,
                    pkts_lo: lo,
                    pkts_hi: hi,
                    count,
                });
            }
            rows.push(BurstRow {
                queue: i as u32,
                edge: name(q.edge),
                egress: name(q.egress),
                key: q.key.clone(),
                flow: q.flow.map_or(-1, |f| f as i64),
                class: q.class,
                hops: q.path.len() as u32,
                offset_s: q.offset.as_secs_f64(),
                pkts_in: s.pkts_in,
                pkts_dropped_queue: s.dropped_full,
                bursts_sent: s.bursts,
                data_bursts: s.data_bursts,
                ack_bursts: s.ack_bursts,
                bursts_delivered: s.delivered,
                bursts_lost: lost,
                lost_contention: s.lost[BurstLoss::Contention as usize],
                lost_no_wavelength: s.lost[BurstLoss::NoWavelength as usize],
                lost_offset_too_short: s.lost[BurstLoss::OffsetTooShort as usize],
                lost_random: s.lost[BurstLoss::Random as usize],
                lost_injected: s.lost[BurstLoss::Injected as usize],
                loss_prob: ratio(lost, s.bursts),
                mean_bytes: ratio(s.bytes_sum, s.bursts),
                min_bytes: s.bytes_min,
                max_bytes: s.bytes_max,
                mean_pkts: ratio(s.pkts_sum, s.bursts),
                mean_data_pkts: ratio(s.data_sum, s.data_bursts),
                mean_ack_pkts: ratio(s.ack_sum, s.bursts_with_acks),
                pkts_p10: s.hist.quantile(0.1),
                pkts_p50: s.hist.quantile(0.5),
                pkts_p90: s.hist.quantile(0.9),
                pkts_p99: s.hist.quantile(0.99),
                pkts_max: s.hist.max(),
                mean_assembly_delay_s: if s.pkts_sum > 0 {
                    s.wait_ps as f64 / 1e12 / s.pkts_sum as f64
                } else {
                    f64::NAN
                },
                mean_burst_assembly_s: if s.bursts > 0 {
                    s.first_wait_ps as f64 / 1e12 / s.bursts as f64
                } else {
                    f64::NAN
                },
            });
        }
        let links = self
            .obs
            .fibres
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let lost: u64 = f.c.lost.iter().sum();
                ObsLinkRow {
                    fibre: i as u32,
                    spec_index: f.spec_index as u32,
                    from: name(f.from),
                    to: name(f.to),
                    wavelengths: f.cs.k() as u32,
                    rate_bps: f.rate.bps(),
                    delay_s: f.delay.as_secs_f64(),
                    bursts_offered: f.c.offered,
                    bursts_scheduled: f.c.scheduled,
                    lost_contention: f.c.lost[BurstLoss::Contention as usize],
                    lost_no_wavelength: f.c.lost[BurstLoss::NoWavelength as usize],
                    lost_offset_too_short: f.c.lost[BurstLoss::OffsetTooShort as usize],
                    lost_random: f.c.lost[BurstLoss::Random as usize],
                    loss_prob: ratio(lost, f.c.offered),
                    utilisation: if span_s > 0.0 {
                        f.c.reserved_ps as f64 / 1e12 / (span_s * f.cs.k() as f64)
                    } else {
                        f64::NAN
                    },
                    mean_burst_bytes: ratio(f.c.bytes, f.c.scheduled),
                }
            })
            .collect();
        let mut flows = Vec::new();
        if self.obs.enabled {
            for (fi, fo) in self.obs.flows.iter().enumerate() {
                let crosses = self.routes[self.flows[fi].fwd as usize]
                    .iter()
                    .chain(&self.routes[self.flows[fi].rev as usize])
                    .any(|&h| h & OBS_BIT != 0);
                if !crosses {
                    continue;
                }
                flows.push(ObsFlowRow {
                    flow: fi as u32,
                    name: self.flows[fi].name.clone(),
                    data_bursts: fo.data_bursts,
                    segments_in_bursts: fo.segs,
                    mean_segments_per_burst: ratio(fo.segs, fo.data_bursts),
                    ack_bursts: fo.ack_bursts,
                    acks_in_bursts: fo.acks,
                    mean_acks_per_burst: ratio(fo.acks, fo.ack_bursts),
                    data_bursts_lost: fo.data_lost,
                    segments_lost_in_bursts: fo.segs_lost,
                    burst_loss_prob: ratio(fo.data_lost, fo.data_bursts),
                    ack_bursts_lost: fo.acks_lost_bursts,
                    pkts_dropped_queue: fo.dropped_full,
                    mean_assembly_delay_s: if fo.waited > 0 {
                        fo.wait_ps as f64 / 1e12 / fo.waited as f64
                    } else {
                        f64::NAN
                    },
                });
            }
        }
        let trace = std::mem::take(&mut self.obs.trace);
        ObsTables {
            bursts: rows,
            links,
            flows,
            hist,
            trace,
        }
    }
}
