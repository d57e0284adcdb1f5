//! The results collector: run metadata, the measurement window, and the opt-in traces
//! (cwnd, packets, bursts). Observation never changes behaviour and costs one branch
//! when off (STYLE.md §11).
//!
//! Read first: [`Collector::packet`]; the tables it assembles are in `stats`.

use crate::scenario::Resolved;
use crate::stats::{BurstSample, CwndSample, PacketEvent, PacketSample};
use crate::units::SimTime;

pub struct Collector {
    pub name: String,
    pub seed: u64,
    pub replication: u64,
    pub duration: SimTime,
    pub warmup: SimTime,
    trace_pkts: bool,
    trace_bursts: bool,
    trace_flows: Option<Vec<bool>>,
    trace_start: SimTime,
    trace_end: SimTime,
    pub cwnd_trace: Vec<CwndSample>,
    pub pkt_trace: Vec<PacketSample>,
    pub burst_trace: Vec<BurstSample>,
}

impl Collector {
    pub fn new(r: &Resolved) -> Collector {
        let trace_flows = r.trace.flows.as_ref().map(|fl| {
            let mut v = vec![false; r.flows.len()];
            for &f in fl {
                v[f as usize] = true;
            }
            v
        });
        Collector {
            name: r.name.clone(),
            seed: r.seed,
            replication: r.replication,
            duration: r.duration,
            warmup: r.warmup,
            trace_pkts: r.trace.packets,
            trace_bursts: r.trace.bursts,
            trace_flows,
            trace_start: r.trace.start.map(|d| d.0).unwrap_or(SimTime::ZERO),
            trace_end: r.trace.end.map(|d| d.0).unwrap_or(SimTime::MAX),
            cwnd_trace: Vec::new(),
            pkt_trace: Vec::new(),
            burst_trace: Vec::new(),
        }
    }

    fn window(&self, now: SimTime) -> bool {
        now >= self.trace_start && now <= self.trace_end
    }

    fn flow_on(&self, flow: u32, now: SimTime) -> bool {
        self.window(now) && self.trace_flows.as_ref().is_none_or(|v| v[flow as usize])
    }

    /// Whether packet events are traced at all (so callers can skip building them).
    #[inline]
    /// Bytes held by the traces (for the memory guard).
    pub fn mem_bytes(&self) -> usize {
        use std::mem::size_of;
        self.cwnd_trace.capacity() * size_of::<CwndSample>()
            + self.pkt_trace.capacity() * size_of::<PacketSample>()
            + self.burst_trace.capacity() * size_of::<BurstSample>()
    }

    pub fn packets_on(&self) -> bool {
        self.trace_pkts
    }

    /// Whether burst events are traced at all.
    #[inline]
    pub fn bursts_on(&self) -> bool {
        self.trace_bursts
    }

    #[inline]
    pub fn packet(&mut self, now: SimTime, flow: u32, seq: u64, ev: PacketEvent, retx: bool) {
        if self.trace_pkts && self.flow_on(flow, now) {
            self.pkt_trace.push(PacketSample {
                time: now,
                flow,
                seq,
                event: ev,
                retransmit: retx,
            });
        }
    }

    pub fn cwnd(&mut self, s: CwndSample) {
        if self.flow_on(s.flow, s.time) {
            self.cwnd_trace.push(s);
        }
    }

    pub fn burst(&mut self, s: BurstSample) {
        if self.trace_bursts && self.window(s.time) {
            self.burst_trace.push(s);
        }
    }
}
