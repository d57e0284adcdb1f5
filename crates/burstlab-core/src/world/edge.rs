//! OBS ingress edge nodes: the classifier's assembly queues, their assemblers, the
//! per-flow OBS statistics, and the disassembly counters of the egress.
//!
//! Read first: [`Edges::enqueue`] and [`Edges::take_burst`]; the assembly policies are
//! in `obs::assembler`. The queue a packet joins is chosen once per route when the
//! world is wired (`obs.classifier`: per (flow, OBS path), per (egress, OBS path) or
//! per (egress, OBS path, class)); the edge never sees the packet pool: each queued
//! packet carries a copy of what the ingress may know about it ([`PktMeta`]).

use crate::obs::{Assembler, Decision, Emit, PktKind, PktMeta, QueueState};
use crate::stats::{BurstHistRow, BurstLoss, BurstRow, LossCounts, ObsFlowRow, SizeHist};
use crate::units::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
struct QueueStats {
    pkts_in: u64,
    dropped_full: u64,
    bursts: u64,
    data_bursts: u64,
    ack_bursts: u64,
    delivered: u64,
    lost: LossCounts,
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

/// What the wiring decides about an assembly queue.
pub struct QueueSpec {
    pub edge: u32,
    pub egress: u32,
    pub key: String,
    pub flow: Option<u32>,
    pub class: u32,
    /// Fibre indices from the ingress to the egress (the path policy's choice).
    pub path: Vec<u32>,
    pub offset: SimTime,
    pub asm: Assembler,
    pub limit: Option<u64>,
}

struct AsmQueue {
    spec: QueueSpec,
    /// Queued packets, oldest first.
    pkts: VecDeque<Queued>,
    bytes: u64,
    /// Bursts emitted so far (the index of the next one).
    emitted: u64,
    /// Sorted 0-based indices of bursts to drop, and how many were passed.
    drops: Vec<u64>,
    drop_cursor: usize,
    s: QueueStats,
}

/// A packet waiting in an assembly queue: its id and what the edge counts of it.
#[derive(Clone, Copy, Debug)]
struct Queued {
    arrival: SimTime,
    id: u32,
    bytes: u32,
    flow: u32,
    kind: PktKind,
}

#[derive(Clone, Copy, Debug, Default)]
struct FlowObs {
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

/// A burst taken from a queue by [`Edges::take_burst`].
#[derive(Clone, Copy, Debug)]
pub struct Formed {
    /// 0-based index of the burst among its queue's bursts.
    pub index: u64,
    pub bytes: u64,
    pub has_data: bool,
    /// The deterministic injector (`obs.drop_burst`) drops this burst.
    pub injected: bool,
    pub offset: SimTime,
}

/// What became of a packet offered to an assembly queue.
pub enum Enqueued {
    /// The queue was full: the packet is dropped.
    Full,
    /// Queued; apply the assembler's decision.
    Queued(Decision),
}

/// Every assembly queue of every ingress edge node, and the per-flow OBS state.
#[derive(Default)]
pub struct Edges {
    queues: Vec<AsmQueue>,
    flows: Vec<FlowObs>,
    /// Global burst serial (for the per-flow marks; starts at 1).
    serial: u64,
    /// Conservation counters (never reset at warm-up).
    cons_in: u64,
    cons_out: u64,
    cons_dropped: u64,
}

impl Edges {
    pub fn new(n_flows: usize) -> Edges {
        Edges {
            flows: vec![FlowObs::default(); n_flows],
            serial: 1,
            ..Default::default()
        }
    }

    /// Adds a queue; returns its index.
    pub fn add_queue(&mut self, spec: QueueSpec) -> u32 {
        self.queues.push(AsmQueue {
            spec,
            pkts: VecDeque::new(),
            bytes: 0,
            emitted: 0,
            drops: Vec::new(),
            drop_cursor: 0,
            s: QueueStats::default(),
        });
        (self.queues.len() - 1) as u32
    }

    /// Registers the bursts to drop of queue `key` at edge `edge`; `Err` lists the keys
    /// of that edge's queues when there is no such queue.
    pub fn add_drops(&mut self, edge: u32, key: &str, bursts: &[u64]) -> Result<(), Vec<String>> {
        match self
            .queues
            .iter_mut()
            .find(|q| q.spec.edge == edge && q.spec.key == key)
        {
            Some(q) => {
                q.drops.extend_from_slice(bursts);
                q.drops.sort_unstable();
                q.drops.dedup();
                Ok(())
            }
            None => Err(self
                .queues
                .iter()
                .filter(|q| q.spec.edge == edge)
                .map(|q| q.spec.key.clone())
                .collect()),
        }
    }

    /// The path (fibres) and offset of queue `qi`.
    pub fn path(&self, qi: u32) -> &[u32] {
        &self.queues[qi as usize].spec.path
    }

    fn state(q: &AsmQueue, now: SimTime) -> QueueState {
        QueueState {
            pkts: q.pkts.len() as u32,
            bytes: q.bytes,
            oldest_arrival: q.pkts.front().map_or(now, |x| x.arrival),
        }
    }

    /// Packet `id` reaches the ingress of queue `qi`.
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, qi: u32, id: u32, meta: PktMeta) -> Enqueued {
        self.cons_in += 1;
        let q = &mut self.queues[qi as usize];
        q.s.pkts_in += 1;
        if q.spec.limit.is_some_and(|l| q.pkts.len() as u64 >= l) {
            q.s.dropped_full += 1;
            self.flows[meta.flow as usize].dropped_full += 1;
            self.cons_dropped += 1;
            return Enqueued::Full;
        }
        q.pkts.push_back(Queued {
            arrival: now,
            id,
            bytes: meta.bytes,
            flow: meta.flow,
            kind: meta.kind,
        });
        q.bytes += meta.bytes as u64;
        let st = Self::state(q, now);
        Enqueued::Queued(q.spec.asm.on_packet(now, &meta, st))
    }

    /// Assembly timer `gen` of queue `qi` fires; `None` if it is stale.
    pub fn timer(&mut self, now: SimTime, qi: u32, gen: u64) -> Option<Decision> {
        let q = &mut self.queues[qi as usize];
        if !q.spec.asm.is_current(gen) {
            return None;
        }
        let st = Self::state(q, now);
        Some(q.spec.asm.on_timer(now, gen, st))
    }

    /// Takes the `e.pkts` head packets of queue `qi` into `list` (cleared first) and
    /// `path` (the queue's fibres), updating the queue and per-flow statistics.
    pub fn take_burst(
        &mut self,
        now: SimTime,
        qi: u32,
        e: Emit,
        list: &mut Vec<u32>,
        path: &mut Vec<u32>,
    ) -> Formed {
        list.clear();
        path.clear();
        let serial = self.serial;
        self.serial += 1;
        let q = &mut self.queues[qi as usize];
        path.extend_from_slice(&q.spec.path);
        let (mut bytes, mut ndata, mut nack) = (e.pad_bytes, 0u64, 0u64);
        let first_wait = q.pkts.front().map_or(0, |x| (now - x.arrival).0);
        for _ in 0..e.pkts {
            let m = q.pkts.pop_front().expect("assembler emits queued packets");
            let (t, id) = (m.arrival, m.id);
            q.bytes -= m.bytes as u64;
            bytes += m.bytes as u64;
            let wait = (now - t).0 as u128;
            q.s.wait_ps += wait;
            let fo = &mut self.flows[m.flow as usize];
            fo.wait_ps += wait;
            fo.waited += 1;
            if m.kind == PktKind::Ack {
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
        Formed {
            index,
            bytes,
            has_data: ndata > 0,
            injected,
            offset: q.spec.offset,
        }
    }

    /// A burst of queue `qi` carrying the packets `kinds` (flow, kind) was lost.
    pub fn burst_lost(
        &mut self,
        qi: u32,
        why: BurstLoss,
        kinds: impl ExactSizeIterator<Item = (u32, PktKind)>,
    ) {
        self.queues[qi as usize].s.lost[why] += 1;
        let serial = self.serial;
        self.serial += 1;
        self.cons_dropped += kinds.len() as u64;
        for (flow, kind) in kinds {
            let fo = &mut self.flows[flow as usize];
            if kind == PktKind::Ack {
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
        }
    }

    /// A burst of queue `qi` with `pkts` packets reached its egress.
    pub fn burst_delivered(&mut self, qi: u32, pkts: usize) {
        self.queues[qi as usize].s.delivered += 1;
        self.cons_out += pkts as u64;
    }

    /// Zeroes the statistics at the end of warm-up (conservation counters are kept).
    pub fn warmup(&mut self) {
        for q in &mut self.queues {
            q.s = QueueStats::default();
        }
        for fo in &mut self.flows {
            *fo = FlowObs {
                mark_data: fo.mark_data,
                mark_ack: fo.mark_ack,
                ..FlowObs::default()
            };
        }
    }

    /// (packets into queues, packets out of egresses, packets dropped at queues or in
    /// lost bursts, packets waiting in queues).
    pub fn conservation(&self) -> (u64, u64, u64, u64) {
        let queued = self.queues.iter().map(|q| q.pkts.len() as u64).sum();
        (self.cons_in, self.cons_out, self.cons_dropped, queued)
    }

    /// The `bursts` and `burst_hist` rows.
    pub fn queue_rows(&self, names: &[String]) -> (Vec<BurstRow>, Vec<BurstHistRow>) {
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { f64::NAN };
        let mut rows = Vec::new();
        let mut hist = Vec::new();
        for (i, q) in self.queues.iter().enumerate() {
            let s = &q.s;
            let lost = s.lost.total();
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
                edge: names[q.spec.edge as usize].clone(),
                egress: names[q.spec.egress as usize].clone(),
                key: q.spec.key.clone(),
                flow: q.spec.flow.map_or(-1, |f| f as i64),
                class: q.spec.class,
                hops: q.spec.path.len() as u32,
                offset_s: q.spec.offset.as_secs_f64(),
                pkts_in: s.pkts_in,
                pkts_dropped_queue: s.dropped_full,
                bursts_sent: s.bursts,
                data_bursts: s.data_bursts,
                ack_bursts: s.ack_bursts,
                bursts_delivered: s.delivered,
                bursts_lost: lost,
                lost_contention: s.lost[BurstLoss::Contention],
                lost_no_wavelength: s.lost[BurstLoss::NoWavelength],
                lost_offset_too_short: s.lost[BurstLoss::OffsetTooShort],
                lost_random: s.lost[BurstLoss::Random],
                lost_injected: s.lost[BurstLoss::Injected],
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
        (rows, hist)
    }

    /// The `obs_flows` rows of the flows whose routes cross the OBS network
    /// (`crosses[fi]`), named by `flow_name`.
    pub fn flow_rows<'a>(
        &self,
        crosses: &[bool],
        flow_name: impl Fn(usize) -> &'a str,
    ) -> Vec<ObsFlowRow> {
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { f64::NAN };
        let mut flows = Vec::new();
        for (fi, fo) in self.flows.iter().enumerate() {
            if !crosses[fi] {
                continue;
            }
            flows.push(ObsFlowRow {
                flow: fi as u32,
                name: flow_name(fi).to_string(),
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
        flows
    }
}
