//! Scripted-conversation harness: one sender and one receiver over a pipe with a fixed
//! one-way delay (and optionally a bottleneck rate on the data direction), a
//! deterministic loss injector, and an observer of every state change and transmission.
//!
//! Read first: [`Harness::new`], [`Drop`], [`Harness::run_until`].

use super::sender::{Phase, TraceEvent};
use super::*;
use crate::engine::EventQueue;
use crate::units::BitRate;

#[derive(Clone, Copy, Debug)]
enum Ev {
    Data(u64),
    Ack(AckSeg),
    Rto,
    DelAck,
}
crate::plain_event!(Ev);

/// Deterministic loss injection on the data direction.
#[derive(Clone, Debug)]
pub enum Drop {
    /// Drop the first transmission of each segment in `[a, b]`.
    FirstTx(u64, u64),
    /// Drop the first transmissions of `len` consecutive new segments, starting with the
    /// first new segment sent once cwnd ≥ `min_cwnd` (a burst lost "at W").
    RunAtCwnd { min_cwnd: f64, len: u64 },
    /// Drop the `n`-th transmission (1-based) of segment `seq`.
    NthTx { seq: u64, n: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SendRec {
    pub t: SimTime,
    pub seq: u64,
    pub retransmit: bool,
    pub dropped: bool,
}

pub struct Harness {
    pub snd: TcpSender,
    pub rcv: TcpReceiver,
    q: EventQueue<Ev>,
    delay: SimTime,
    rate: Option<BitRate>,
    seg_bytes: u32,
    link_free: SimTime,
    drops: Vec<Drop>,
    /// Resolved [a, b] range of a `RunAtCwnd` drop, once triggered.
    run: Option<(u64, u64)>,
    tx_count: Vec<u32>,
    out: TcpOutput,
    rto_sched: Option<SimTime>,
    delack_sched: Option<SimTime>,
    pub sends: Vec<SendRec>,
    pub trace: Vec<TraceEvent>,
    /// (time, cum) whenever the receiver's cumulative point advanced.
    pub delivered: Vec<(SimTime, u64)>,
}

impl Harness {
    pub fn new(cfg: TcpConfig, one_way: SimTime, rate: Option<BitRate>, drops: Vec<Drop>) -> Self {
        let snd = TcpSender::new(cfg.clone(), SimTime::ZERO);
        Self::with_sender(snd, &cfg, one_way, rate, drops)
    }

    /// A harness around a given sender (e.g. one with a test controller); `cfg`
    /// configures the receiver and the segment size.
    pub fn with_sender(
        mut snd: TcpSender,
        cfg: &TcpConfig,
        one_way: SimTime,
        rate: Option<BitRate>,
        drops: Vec<Drop>,
    ) -> Self {
        let seg_bytes = cfg.seg_bytes();
        let rcv = TcpReceiver::new(cfg);
        snd.enable_trace();
        Harness {
            snd,
            rcv,
            q: EventQueue::new(),
            delay: one_way,
            rate,
            seg_bytes,
            link_free: SimTime::ZERO,
            drops,
            run: None,
            tx_count: Vec::new(),
            out: TcpOutput::default(),
            rto_sched: None,
            delack_sched: None,
            sends: Vec::new(),
            trace: Vec::new(),
            delivered: Vec::new(),
        }
    }

    fn dropped(&mut self, seq: u64, n: u32) -> bool {
        let cwnd = self.snd.cwnd();
        for d in &self.drops {
            match *d {
                Drop::FirstTx(a, b) if n == 1 && (a..=b).contains(&seq) => return true,
                Drop::NthTx { seq: s, n: k } if s == seq && k == n => return true,
                Drop::RunAtCwnd { min_cwnd, len } if n == 1 => {
                    if self.run.is_none() && cwnd >= min_cwnd {
                        self.run = Some((seq, seq + len - 1));
                    }
                    if let Some((a, b)) = self.run {
                        if (a..=b).contains(&seq) {
                            return true;
                        }
                    }
                }
                _ => {}
            }
        }
        false
    }

    fn flush(&mut self, now: SimTime) {
        let sends = std::mem::take(&mut self.out.sends);
        for s in &sends {
            let i = s.seq as usize;
            if self.tx_count.len() <= i {
                self.tx_count.resize(i + 1, 0);
            }
            self.tx_count[i] += 1;
            let n = self.tx_count[i];
            let dropped = self.dropped(s.seq, n);
            self.sends.push(SendRec {
                t: now,
                seq: s.seq,
                retransmit: s.retransmit,
                dropped,
            });
            // Bottleneck: serialise, then propagate.
            let depart = match self.rate {
                Some(r) => {
                    let start = self.link_free.max(now);
                    self.link_free = start + r.tx_time(self.seg_bytes.into());
                    self.link_free
                }
                None => now,
            };
            if !dropped {
                self.q.push(depart + self.delay, Ev::Data(s.seq));
            }
        }
        self.out.sends = sends;
        self.out.clear();
        self.trace.extend(self.snd.take_trace());
        // One pending timer event per flow, stale ones ignored when they pop.
        let d = self.snd.rto_deadline();
        if let Some(t) = d.filter(|_| d != self.rto_sched) {
            self.q.push(t, Ev::Rto);
            self.rto_sched = d;
        }
        let d = self.rcv.delack_deadline();
        if let Some(t) = d.filter(|_| d != self.delack_sched) {
            self.q.push(t, Ev::DelAck);
            self.delack_sched = d;
        }
    }

    fn send_ack(&mut self, now: SimTime, a: Option<AckSeg>) {
        if let Some(a) = a {
            if self.delivered.last().map(|x| x.1) != Some(self.rcv.delivered()) {
                self.delivered.push((now, self.rcv.delivered()));
            }
            self.q.push(now + self.delay, Ev::Ack(a));
        }
    }

    pub fn start(&mut self) {
        self.snd.start(SimTime::ZERO, &mut self.out);
        self.flush(SimTime::ZERO);
    }

    /// Runs events up to time `end` (inclusive) or until `stop` holds.
    pub fn run_until(&mut self, end: SimTime, stop: impl Fn(&Harness) -> bool) {
        while let Some(t) = self.q.peek_time() {
            if t > end || stop(self) {
                break;
            }
            let (now, ev) = self.q.pop().unwrap();
            match ev {
                Ev::Data(seq) => {
                    let a = self.rcv.on_segment(now, seq);
                    self.send_ack(now, a);
                }
                Ev::Ack(a) => self.snd.on_ack(now, &a, &mut self.out),
                Ev::Rto => {
                    if self.snd.rto_deadline() == Some(now) {
                        self.rto_sched = None;
                        self.snd.on_rto(now, &mut self.out);
                    }
                }
                Ev::DelAck => {
                    if self.rcv.delack_deadline() == Some(now) {
                        self.delack_sched = None;
                        let a = self.rcv.on_delack_timer(now);
                        self.send_ack(now, a);
                    }
                }
            }
            self.flush(now);
        }
    }

    // ---- observer queries ----

    pub fn td_times(&self) -> Vec<SimTime> {
        self.trace
            .iter()
            .filter_map(|e| {
                if let TraceEvent::Td { t, .. } = e {
                    Some(*t)
                } else {
                    None
                }
            })
            .collect()
    }
    pub fn to_times(&self) -> Vec<SimTime> {
        self.trace
            .iter()
            .filter_map(|e| {
                if let TraceEvent::To { t, .. } = e {
                    Some(*t)
                } else {
                    None
                }
            })
            .collect()
    }
    /// (cwnd, ssthresh, phase) after every change.
    pub fn states(&self) -> Vec<(f64, u32, Phase)> {
        self.trace
            .iter()
            .filter_map(|e| {
                if let TraceEvent::State {
                    cwnd,
                    ssthresh,
                    phase,
                    ..
                } = e
                {
                    Some((*cwnd, *ssthresh, *phase))
                } else {
                    None
                }
            })
            .collect()
    }
    /// Retransmitted segments in order.
    pub fn retransmitted(&self) -> Vec<u64> {
        self.sends
            .iter()
            .filter(|s| s.retransmit)
            .map(|s| s.seq)
            .collect()
    }
    /// Time at which the receiver's cumulative point first reached `cum`.
    pub fn time_delivered(&self, cum: u64) -> Option<SimTime> {
        self.delivered.iter().find(|d| d.1 >= cum).map(|d| d.0)
    }
    /// The sender's phase now.
    pub fn tail_phase(&self) -> Phase {
        self.snd.phase()
    }
    /// The range dropped by a `RunAtCwnd` rule, once triggered.
    pub fn run_dropped(&self) -> Option<(u64, u64)> {
        self.run
    }
}
