//! Hosts and their transport agents: one TCP sender/receiver pair or one UDP source
//! per flow. The only place that calls the TCP API (`TcpSender`, `TcpReceiver`).
//!
//! Read first: [`HostAct`] (what a host asks the world to do) and [`Emit`] (the
//! segments a TCP sender call produced, which the world turns into packets with
//! [`Hosts::seg`] before it carries out the actions), then the handlers
//! [`Hosts::start`], [`Hosts::on_data`], [`Hosts::on_ack`], [`Hosts::rto`].
//!
//! TCP timers are lazily cancelled (engine docs): a flow keeps the time of its one
//! pending timer event; when it pops, the handler re-reads the sender's real deadline
//! and either fires, re-arms, or ignores it.
//!
//! Sender marks (`Packet::mark`, for window-based assembly, ozsarac §2.1: "the last
//! packet of the current cwnd is marked"). The sender counts the segments it sends
//! since its last mark and marks the one that brings the count to its window `W`, read
//! right after the sender call that sends it — §2.1's ingress rule "number of packets
//! in assembler ≥ cwnd", evaluated where cwnd is known exactly. Then:
//! - **The SYN round** (ns2 profile, `syn`, ns-2's default): the SYN (segment 0) is
//!   sent with cwnd = 1 (ns-2 `set_initial_window`), so it is marked and leaves as a
//!   burst of its own — nothing else can be sent before its ACK, and holding it would
//!   stall the connection until the SYN timed out. Its ACK sets cwnd to `windowInit_`
//!   without opening it (ns-2 `recv`: `last_ack_ == 0 && delay_growth_`), and the
//!   initial window's last segment is marked: bursts 1, W₀, 2W₀, … Without the SYN the
//!   ACK of segment 0 likewise leaves cwnd at the initial window, so the first rounds
//!   are W₀, W₀ + 1, 2(W₀ + 1), … — still one burst per round. A retransmitted SYN
//!   (cwnd 1) is marked like any timeout retransmission.
//! - **Loss-free**: in slow start a round of `W` ACKs releases `2W` segments and
//!   leaves cwnd at `2W`, so the mark falls on the round's last segment (one burst per
//!   round); in congestion avoidance every `⌊cwnd⌋` segments.
//! - **After a timeout**: cwnd is 1, so the retransmission is marked (count ≥ 1) and
//!   closes a burst at once, taking with it any unmarked segments of the old window
//!   still queued at the ingress; go-back-N slow start then marks rounds as above.
//! - **In fast recovery** (Reno, NewReno, SACK; phase `FastRecovery`): the window is
//!   `min(send window, ssthresh)` — the window the sender holds when recovery ends
//!   (RFC 5681 §3.2 step 6), not the send window inflated by duplicate ACKs, which
//!   counts segments that left the network. With the inflated window no segment sent
//!   during recovery would ever complete a window (count and inflation grow together),
//!   and the segments sent in recovery would wait at the ingress for a mark that comes
//!   only after a retransmission timeout.
//! - Retransmissions count like new segments (they are in the window).
//!
//! Computed from the sender's public state, and only when an assembler reads marks;
//! TCP itself never reads them.

use super::packet::{Packet, PktHdr, PktKind};
use super::Ev;
use crate::rng::RngStream;
use crate::scenario::{Resolved, ResolvedFlowKind};
use crate::stats::{CcSample, CwndSample, FlowRow};
use crate::tcp::ns2::boot_phase;
use crate::tcp::tcb::Phase;
use crate::tcp::{AckSeg, Profile, TcpConfig, TcpOutput, TcpReceiver, TcpSender};
use crate::units::{BitRate, SimTime};
use crate::workload::SelfSimilar;

/// A new data segment or UDP packet (a [`Packet`] without ACK fields, hop 0).
#[derive(Clone, Copy, Debug)]
pub struct Seg {
    pub kind: PktKind,
    pub flow: u32,
    pub seq: u64,
    pub bytes: u32,
    pub retransmit: bool,
    pub mark: bool,
    pub route: u32,
}

impl Seg {
    /// The record to put in the pool.
    #[inline]
    pub fn hdr(&self) -> PktHdr {
        PktHdr::new_seg(
            self.kind,
            self.flow,
            self.seq,
            self.bytes,
            self.retransmit,
            self.mark,
            self.route,
        )
    }
}

/// What a host handler asks the world to do, in order.
#[derive(Clone, Copy, Debug)]
pub enum HostAct {
    /// Send a new packet along its route (`injected`: drop it at once, the
    /// deterministic loss injector).
    Send { seg: Seg, injected: bool },
    /// Schedule an event.
    At(SimTime, Ev),
    /// The flow's cwnd or ssthresh changed (only when cwnd tracing is on).
    Cwnd(CwndSample),
    /// The flow's controller state changed (only when `sim.trace.cc` is on).
    Cc(CcSample),
    /// Generated flow `0` has all its data acknowledged: its `fct` row is due.
    Finished(u32),
    /// Generated flow `0` is finished and none of its packets is in flight: its slot
    /// may take a new flow.
    Release(u32),
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

/// Fields in the order a packet of the flow reads them (`#[repr(C)]` keeps it; see
/// [`Hosts::prefetch`]): the first line holds what every ACK's handling reads around
/// the sender call, the sender's own state (`snd`) starts with its `ns2` pointer on the
/// second, and the receiver starts on a line of its own.
#[repr(C, align(64))]
struct TcpAgent {
    // --- line 0
    rto_pending: Option<SimTime>,
    delack_pending: Option<SimTime>,
    /// Deterministic loss injection: inclusive segment ranges dropped on first send.
    drops: Box<[(u64, u64)]>,
    /// Wire bytes of a data segment and of segment 0 (ns-2's SYN carries headers only;
    /// without the SYN, segment 0 carries no header), from the sender's configuration.
    seg_bytes: u32,
    seq0_bytes: u32,
    /// Segments sent since the last sender mark.
    since_mark: u64,
    // --- line 1 on
    snd: TcpSender,
    rcv: TcpReceiver,
    // --- cold
    last_cwnd: f64,
    last_ssthresh: u32,
    /// The controller state last traced (`sim.trace.cc`).
    last_cc: crate::tcp::cc::CcTrace,
    /// Sum and count of the (un-backed-off) RTO at the first timeout of each timeout
    /// sequence: PFTK's T0.
    rto_sum_s: f64,
    rto_n: u64,
    /// Pacing timer (BBR, `tcp/rate.rs`): when the armed pacing event fires.
    pace_pending: Option<SimTime>,
    /// A finite flow's completion (docs/guide/completion-times.md): the instant the
    /// ACK of its last data segment reached the sender (its sender's `done()` turned
    /// true), and the sender's cwnd integral then; `None` while it runs (and for an
    /// infinite flow, always).
    end: Option<(SimTime, f64)>,
    /// Data segments of a finite flow (`flow.segments`); `None` for an infinite one.
    size: Option<u64>,
}

struct UdpAgent {
    rate: BitRate,
    size: u32,
    onoff: Option<(f64, f64, RngStream)>,
    /// `type = "poisson"`: exponential gaps and sizes drawn from this stream.
    poisson: Option<RngStream>,
    /// `type = "self_similar"` / `"pareto_onoff"` (the name): the superposition of
    /// Pareto on/off sources whose packet instants this agent sends at
    /// (`workload/onoff.rs`; no allocation per packet).
    ss: Option<(SelfSimilar, &'static str)>,
    on: bool,
    next_seq: u64,
    recv: u64,
    pending_send: bool,
}

/// Both kinds boxed: the enum stays two words, so a flow's hot fields share a line.
enum Agent {
    Tcp(Box<TcpAgent>),
    Udp(Box<UdpAgent>),
}

/// One flow. The first line holds everything a packet of the flow reads here
/// (`#[repr(C)]` keeps the order); the rest is read at set-up and at the end.
#[repr(C, align(64))]
struct Flow {
    // --- line 0
    agent: Agent,
    fwd: u32,
    rev: u32,
    /// Data packets created and dropped (conservation check).
    data_created: u64,
    data_dropped: u64,
    /// ACKs created by the receiver and arrived at the sender, counted modulo 2^32 (a
    /// generated flow's slot is freed once none is in flight: `Hosts::quiet`).
    acks_out: u32,
    acks_in: u32,
    stopped: bool,
    // --- cold
    /// Generated by a `[[workload]]`: its slot is freed when it completes and is quiet.
    generated: bool,
    /// ACKs dropped on the way (with `acks_in`, the ACKs no longer in flight).
    acks_dropped: u32,
    name: String,
    src: u32,
    dst: u32,
    start: SimTime,
    stop: Option<SimTime>,
    snap: Snapshot,
}

/// Lines [`Hosts::prefetch`] asks for: of the flow's receiver for a data segment; of
/// the agent's header and of the ns-2 sender's state for an ACK.
const PF_RCV: usize = 2;
const PF_AGENT: usize = 2;
const PF_NS2: usize = 7;
// The hot lines of the receiver, the agent and the ns-2 state (their layout tests).
const _: () = assert!(PF_RCV >= 2 && PF_AGENT >= 2 && PF_NS2 >= 7);

/// Where a flow's hot state lives, for cache hints only (0: nothing to hint).
#[derive(Clone, Copy, Default)]
struct HintAt {
    agent: usize,
    ns2: usize,
}

/// Every flow's sending and receiving host agents.
pub struct Hosts {
    flows: Vec<Flow>,
    out: TcpOutput,
    trace_cwnd: bool,
    /// `sim.trace.cc`: trace the controller state of flows with a modern controller.
    trace_cc: bool,
    /// Whether sender marks are computed (only when an assembler reads them).
    marks: bool,
    /// Segments the last handler's sender call asked to send (in `out`), not yet sent.
    pending: Option<Emit>,
    /// Each flow's TCP agent's and ns-2 sender state's addresses, for cache hints
    /// only: read without touching the flow's own line.
    hint_at: Vec<HintAt>,
    /// The flows listed in the scenario: slots `0..listed`; generated flows take the
    /// slots after them.
    listed: usize,
}

/// Segments a sender call asked to send: flow, how many (in `Hosts::out`), and what
/// turns each into a packet.
#[derive(Clone, Copy, Debug)]
pub struct Emit {
    fi: usize,
    pub n: usize,
    bytes: u32,
    seq0_bytes: u32,
    wnd: u64,
}

impl Hosts {
    /// Bytes of the TCP agents' rings sized by their flights (`RING_START_SEGMENTS` in
    /// `tcp/mod.rs`) and of the sender output buffer (for the memory guard: O(flows),
    /// looked at every `MEMORY_CHECK_EVERY` events).
    pub fn mem_bytes(&self) -> usize {
        let out = self.out.sends.capacity() * std::mem::size_of::<crate::tcp::SendReq>();
        out + self
            .flows
            .iter()
            .map(|f| match &f.agent {
                Agent::Tcp(a) => a.snd.mem_bytes() + a.rcv.mem_bytes(),
                Agent::Udp(u) => u.ss.as_ref().map_or(0, |s| s.0.mem_bytes()),
            })
            .sum::<usize>()
    }

    /// Builds the agents; flow `i` uses routes `2i` (forward) and `2i + 1` (reverse).
    pub fn new(r: &Resolved) -> Hosts {
        let mut flows = Vec::with_capacity(r.flows.len());
        for (fi, f) in r.flows.iter().enumerate() {
            let udp = |rate: BitRate, size: u32, onoff: Option<(f64, f64, RngStream)>| {
                Agent::Udp(Box::new(UdpAgent {
                    rate,
                    size,
                    on: onoff.is_none(),
                    onoff,
                    poisson: None,
                    ss: None,
                    next_seq: 0,
                    recv: 0,
                    pending_send: false,
                }))
            };
            let agent = match &f.kind {
                ResolvedFlowKind::Tcp {
                    cfg,
                    segments,
                    drop_segments,
                } => {
                    let mut cfg = cfg.clone();
                    if cfg.profile == Profile::Ns2 && cfg.clock_phase.is_none() {
                        // ns-2 draws each agent's boot_time_ at random (see ns2.rs).
                        cfg.clock_phase = Some(boot_phase(
                            r.seed,
                            r.replication,
                            fi as u32,
                            cfg.clock_granularity,
                        ));
                    }
                    tcp_agent(&cfg, *segments, drop_segments, f.start)
                }
                ResolvedFlowKind::Cbr { rate, packet_size } => udp(*rate, *packet_size, None),
                ResolvedFlowKind::Poisson { rate, packet_size } => {
                    let mut a = udp(*rate, *packet_size, None);
                    if let Agent::Udp(u) = &mut a {
                        u.poisson = Some(RngStream::derive(
                            r.seed,
                            r.replication,
                            &format!("flow/{fi}/poisson"),
                        ));
                    }
                    a
                }
                ResolvedFlowKind::SelfSimilar {
                    rate,
                    packet_size,
                    params,
                    single,
                } => {
                    let mut a = udp(*rate, *packet_size, None);
                    if let Agent::Udp(u) = &mut a {
                        // Source k draws from `flow/<i>/self_similar/<k>`, all in their
                        // stationary state at the flow's start.
                        let ss = SelfSimilar::new(
                            *params,
                            r.seed,
                            r.replication,
                            &format!("flow/{fi}/self_similar"),
                            f.start,
                            &format!("flow[{fi}]"),
                        )
                        .expect("checked when the scenario was resolved (scenario/flows.rs)");
                        let name = if *single {
                            "pareto_onoff"
                        } else {
                            "self_similar"
                        };
                        u.ss = Some((ss, name));
                    }
                    a
                }
                ResolvedFlowKind::OnOff {
                    rate,
                    packet_size,
                    mean_on,
                    mean_off,
                } => udp(
                    *rate,
                    *packet_size,
                    Some((
                        mean_on.as_secs_f64(),
                        mean_off.as_secs_f64(),
                        RngStream::derive(r.seed, r.replication, &format!("flow/{fi}/onoff")),
                    )),
                ),
            };
            flows.push(Flow {
                name: f.name.clone(),
                src: f.src,
                dst: f.dst,
                fwd: (2 * fi) as u32,
                rev: (2 * fi + 1) as u32,
                stopped: false,
                start: f.start,
                stop: f.stop,
                agent,
                snap: Snapshot::default(),
                data_created: 0,
                data_dropped: 0,
                acks_out: 0,
                acks_in: 0,
                generated: false,
                acks_dropped: 0,
            });
        }
        let hint_at = flows
            .iter()
            .map(|f| match &f.agent {
                Agent::Tcp(t) => HintAt {
                    agent: &**t as *const TcpAgent as usize,
                    ns2: t.snd.ns2_state_addr().unwrap_or(0),
                },
                Agent::Udp(_) => HintAt::default(),
            })
            .collect();
        Hosts {
            hint_at,
            listed: flows.len(),
            flows,
            out: TcpOutput {
                sends: Vec::with_capacity(64),
            },
            trace_cwnd: r.trace.cwnd,
            trace_cc: r.trace.cc,
            marks: false,
            pending: None,
        }
    }

    /// Hints the CPU to fetch what a packet of `kind` arriving for `flow` will read: the
    /// flow's first line and the hot lines of its receiver (data) or of its agent and
    /// ns-2 sender state (ACK). At hundreds of flows a flow's state has left the caches
    /// between two of its packets. The addresses come from `hint_at`, so the hint itself
    /// reads no cold line.
    #[inline]
    pub fn prefetch(&self, flow: u32, kind: PktKind) {
        super::hint::prefetch(self.flows.as_ptr().wrapping_add(flow as usize));
        let Some(&at) = self.hint_at.get(flow as usize) else {
            return;
        };
        if at.agent == 0 {
            return;
        }
        let lines = |base: usize, n: usize| {
            for k in 0..n {
                super::hint::prefetch((base + 64 * k) as *const u8);
            }
        };
        match kind {
            PktKind::Data => lines(at.agent + std::mem::offset_of!(TcpAgent, rcv), PF_RCV),
            PktKind::Ack => {
                lines(at.agent, PF_AGENT);
                if at.ns2 != 0 {
                    lines(at.ns2, PF_NS2);
                }
            }
            _ => {}
        }
    }

    /// Computes sender marks from now on (an assembler reads them).
    pub fn enable_marks(&mut self) {
        self.marks = true;
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }
    pub fn name(&self, fi: usize) -> &str {
        &self.flows[fi].name
    }
    /// Forward and reverse route indices of flow `fi`.
    pub fn routes(&self, fi: usize) -> (u32, u32) {
        (self.flows[fi].fwd, self.flows[fi].rev)
    }
    /// TCP flow `fi`'s configuration (`None` for a UDP source).
    pub fn tcp_config(&self, fi: usize) -> Option<&TcpConfig> {
        match &self.flows[fi].agent {
            Agent::Tcp(t) => Some(t.snd.config()),
            Agent::Udp(_) => None,
        }
    }
    /// Start time and optional stop time of flow `fi`.
    pub fn schedule(&self, fi: usize) -> (SimTime, Option<SimTime>) {
        (self.flows[fi].start, self.flows[fi].stop)
    }

    /// The flow's true congestion window (segments): an oracle an ingress could not
    /// know, for diagnostics and oracle assemblers. `None` for UDP flows.
    pub fn cwnd_oracle(&self, fi: u32) -> Option<f64> {
        match &self.flows[fi as usize].agent {
            Agent::Tcp(t) => Some(t.snd.cwnd()),
            Agent::Udp(_) => None,
        }
    }

    /// A data packet of flow `flow` was dropped somewhere; `true` if that leaves a
    /// finished generated flow with nothing in flight (its slot may be freed).
    pub fn on_dropped(&mut self, flow: u32) -> bool {
        let f = &mut self.flows[flow as usize];
        f.data_dropped += 1;
        f.stopped && f.generated && self.quiet(flow)
    }

    /// An ACK of flow `flow` was dropped somewhere; `true` as for [`Hosts::on_dropped`].
    pub fn on_ack_dropped(&mut self, flow: u32) -> bool {
        let f = &mut self.flows[flow as usize];
        f.acks_dropped = f.acks_dropped.wrapping_add(1);
        f.stopped && f.generated && self.quiet(flow)
    }

    // ------------------------------------------------------------------ generated flows

    /// Flows listed in the scenario (slots `0..listed()`).
    pub fn listed(&self) -> usize {
        self.listed
    }

    /// Whether no packet of flow `fi` is in flight and its receiver owes no delayed
    /// ACK: every data segment created was received or dropped, every ACK created
    /// arrived or was dropped.
    pub fn quiet(&self, fi: u32) -> bool {
        let f = &self.flows[fi as usize];
        let Agent::Tcp(t) = &f.agent else {
            return true;
        };
        f.data_created == t.rcv.received() + f.data_dropped
            && f.acks_out == f.acks_in.wrapping_add(f.acks_dropped)
            && t.rcv.delack_deadline().is_none()
    }

    /// Starts a generated TCP flow of `segments` segments from `src` to `dst` on routes
    /// `(fwd, rev)` in slot `slot` (a freed one, or `None`: a new slot at the end);
    /// returns the slot. `cfg` carries the flow's clock phase.
    #[allow(clippy::too_many_arguments)]
    pub fn add_generated(
        &mut self,
        slot: Option<u32>,
        cfg: &TcpConfig,
        segments: u64,
        (src, dst): (u32, u32),
        (fwd, rev): (u32, u32),
        now: SimTime,
    ) -> u32 {
        let flow = Flow {
            agent: tcp_agent(cfg, Some(segments), &[], now),
            fwd,
            rev,
            data_created: 0,
            data_dropped: 0,
            acks_out: 0,
            acks_in: 0,
            stopped: false,
            generated: true,
            acks_dropped: 0,
            name: String::new(),
            src,
            dst,
            start: now,
            stop: None,
            snap: Snapshot::default(),
        };
        let hint = match &flow.agent {
            Agent::Tcp(t) => HintAt {
                agent: &**t as *const TcpAgent as usize,
                ns2: t.snd.ns2_state_addr().unwrap_or(0),
            },
            Agent::Udp(_) => HintAt::default(),
        };
        match slot {
            Some(i) => {
                self.flows[i as usize] = flow;
                self.hint_at[i as usize] = hint;
                i
            }
            None => {
                self.flows.push(flow);
                self.hint_at.push(hint);
                (self.flows.len() - 1) as u32
            }
        }
    }

    /// A finished generated flow stops taking ACKs (its late packets are counted until
    /// it is quiet).
    pub fn retire(&mut self, fi: u32) {
        self.flows[fi as usize].stopped = true;
    }

    /// A generated flow's facts for its `fct` row: (segments, start, end if completed,
    /// segments delivered, retransmits, TD events, TO events).
    pub fn gen_facts(
        &self,
        fi: u32,
        now: SimTime,
    ) -> (u64, SimTime, Option<SimTime>, u64, u64, u64, u64) {
        let f = &self.flows[fi as usize];
        let Agent::Tcp(t) = &f.agent else {
            unreachable!("generated flows are TCP")
        };
        let s = t.snd.stats(now);
        (
            t.size.unwrap_or(0),
            f.start,
            t.end.map(|e| e.0),
            t.rcv.delivered(),
            s.retransmits,
            s.td_events,
            s.to_events,
        )
    }

    // ------------------------------------------------------------------ TCP

    /// After a sender call: if it asked to send segments, notes what the world needs
    /// to turn them into packets ([`Hosts::take_emit`], then [`Hosts::seg`] for each).
    /// The segments are sent before the call's actions are carried out (the order of
    /// a handler: its sends, then its timer and cwnd actions).
    #[inline]
    fn emit(&mut self, fi: usize, _acts: &mut Vec<HostAct>) {
        if self.out.sends.is_empty() {
            return;
        }
        let f = &self.flows[fi];
        let Agent::Tcp(t) = &f.agent else {
            unreachable!("TCP output for a UDP flow")
        };
        // Sender mark: the segment that completes the window (see the module docs).
        let wnd = if self.marks {
            let tcb = t.snd.tcb();
            let w = match tcb.phase() {
                Phase::FastRecovery => tcb.send_window().min(tcb.ssthresh() as u64),
                _ => tcb.send_window(),
            };
            w.max(1)
        } else {
            u64::MAX
        };
        self.pending = Some(Emit {
            fi,
            n: self.out.sends.len(),
            bytes: t.seg_bytes,
            seq0_bytes: t.seq0_bytes,
            wnd,
        });
    }

    /// The segments the last handler asked to send, if any (see `Hosts::emit`).
    #[inline]
    pub fn take_emit(&mut self) -> Option<Emit> {
        self.pending.take()
    }

    /// Segment `i` of `e` as a packet to send, and whether the deterministic loss
    /// injector drops it. Called for `i = 0, 1, …` in order (it counts marks).
    #[inline(always)]
    pub fn seg(&mut self, e: &Emit, i: usize) -> (Seg, bool) {
        let s = self.out.sends[i];
        let f = &mut self.flows[e.fi];
        let Agent::Tcp(t) = &mut f.agent else {
            unreachable!("TCP output for a UDP flow")
        };
        f.data_created += 1;
        // Deterministic loss injection: the first transmission of listed segments.
        let injected = !s.retransmit
            && !t.drops.is_empty()
            && t.drops.iter().any(|&(a, b)| a <= s.seq && s.seq <= b);
        let mark = self.marks && {
            t.since_mark += 1;
            t.since_mark >= e.wnd
        };
        if mark {
            t.since_mark = 0;
        }
        let seg = Seg {
            kind: PktKind::Data,
            flow: e.fi as u32,
            seq: s.seq,
            bytes: if s.seq == 0 { e.seq0_bytes } else { e.bytes },
            retransmit: s.retransmit,
            mark,
            route: f.fwd,
        };
        (seg, injected)
    }

    /// The world has sent every segment of the last [`Emit`].
    #[inline]
    pub fn end_emit(&mut self) {
        self.out.clear();
    }

    /// After any sender call: arm the retransmission timer, report cwnd changes.
    fn after_sender_call(&mut self, now: SimTime, fi: usize, acts: &mut Vec<HostAct>) {
        let Agent::Tcp(t) = &mut self.flows[fi].agent else {
            return;
        };
        if let Some(at) = arm_timer(&mut t.rto_pending, t.snd.rto_deadline(), now) {
            acts.push(HostAct::At(at, Ev::Rto(fi as u32)));
        }
        if let Some(at) = arm_timer(&mut t.pace_pending, t.snd.pace_deadline(), now) {
            acts.push(HostAct::At(at, Ev::Pace(fi as u32)));
        }
        if self.trace_cwnd {
            let (c, s) = (t.snd.cwnd(), t.snd.ssthresh());
            if c != t.last_cwnd || s != t.last_ssthresh {
                t.last_cwnd = c;
                t.last_ssthresh = s;
                acts.push(HostAct::Cwnd(CwndSample {
                    time: now,
                    flow: fi as u32,
                    cwnd: c,
                    ssthresh: s,
                }));
            }
        }
        if self.trace_cc {
            let kind = t.snd.config().cc;
            if kind != crate::tcp::CcKind::Aimd {
                let st = t.snd.cc_trace();
                if !st.same_as(&t.last_cc) {
                    t.last_cc = st;
                    acts.push(HostAct::Cc(CcSample {
                        time: now,
                        flow: fi as u32,
                        cc: kind.name(),
                        cwnd: t.snd.cwnd(),
                        state: st,
                    }));
                }
            }
        }
    }

    /// Pacing timer event of flow `fi`: the sender may transmit again.
    pub fn pace(&mut self, now: SimTime, fi: u32, acts: &mut Vec<HostAct>) {
        let fiu = fi as usize;
        let f = &mut self.flows[fiu];
        let Agent::Tcp(t) = &mut f.agent else { return };
        if t.pace_pending != Some(now) {
            return; // stale
        }
        t.pace_pending = None;
        if f.stopped {
            return;
        }
        self.out.clear();
        t.snd.poll_send(now, &mut self.out);
        self.emit(fiu, acts);
        self.after_sender_call(now, fiu, acts);
    }

    /// Retransmission timer event of flow `fi`.
    pub fn rto(&mut self, now: SimTime, fi: u32, acts: &mut Vec<HostAct>) {
        let fiu = fi as usize;
        let f = &mut self.flows[fiu];
        let Agent::Tcp(t) = &mut f.agent else { return };
        if t.rto_pending != Some(now) {
            return; // stale
        }
        t.rto_pending = None;
        if f.stopped {
            return;
        }
        if t.snd.rto_deadline().is_some_and(|d| d <= now) {
            let (rto, backoff) = t.snd.rto_and_backoff();
            if backoff == 1 {
                t.rto_sum_s += rto.as_secs_f64();
                t.rto_n += 1;
            }
            self.out.clear();
            t.snd.on_rto(now, &mut self.out);
            self.emit(fiu, acts);
        }
        self.after_sender_call(now, fiu, acts);
    }

    /// A data segment reached the receiver of flow `p.flow`; returns the ACK to send
    /// back (the world reuses the segment's slot for it).
    pub fn on_data(&mut self, now: SimTime, flow: u32, seq: u64) -> Option<Packet> {
        let f = &mut self.flows[flow as usize];
        let Agent::Tcp(t) = &mut f.agent else {
            unreachable!("data packet for a UDP flow")
        };
        let a = t.rcv.on_segment(now, seq)?;
        f.acks_out = f.acks_out.wrapping_add(1);
        Some(Packet {
            kind: PktKind::Ack,
            flow,
            seq: a.cum,
            bytes: t.rcv.ack_size(&a),
            retransmit: false,
            mark: false,
            route: f.rev,
            hop: 0,
            ack: a,
        })
    }

    /// Arms the delayed-ACK timer of flow `fi`'s receiver if it needs one.
    pub fn arm_delack(&mut self, now: SimTime, fi: usize, acts: &mut Vec<HostAct>) {
        let Agent::Tcp(t) = &mut self.flows[fi].agent else {
            return;
        };
        if let Some(at) = arm_timer(&mut t.delack_pending, t.rcv.delack_deadline(), now) {
            acts.push(HostAct::At(at, Ev::DelAck(fi as u32)));
        }
    }

    /// Delayed-ACK timer event of flow `fi`'s receiver: `None` if the event is stale;
    /// otherwise the ACK to send, if any, after which the world calls
    /// [`Hosts::arm_delack`].
    pub fn delack(&mut self, now: SimTime, fi: u32) -> Option<Option<Packet>> {
        let f = &mut self.flows[fi as usize];
        let Agent::Tcp(t) = &mut f.agent else {
            return None;
        };
        if t.delack_pending != Some(now) {
            return None;
        }
        t.delack_pending = None;
        if t.rcv.delack_deadline().is_none_or(|d| d > now) {
            return Some(None);
        }
        let Some(a) = t.rcv.on_delack_timer(now) else {
            return Some(None);
        };
        f.acks_out = f.acks_out.wrapping_add(1);
        Some(Some(Packet {
            kind: PktKind::Ack,
            flow: fi,
            seq: a.cum,
            bytes: t.rcv.ack_size(&a),
            retransmit: false,
            mark: false,
            route: f.rev,
            hop: 0,
            ack: a,
        }))
    }

    /// An ACK reached the sender of flow `fi`.
    pub fn on_ack(&mut self, now: SimTime, fi: u32, ack: &AckSeg, acts: &mut Vec<HostAct>) {
        let fiu = fi as usize;
        let f = &mut self.flows[fiu];
        f.acks_in = f.acks_in.wrapping_add(1);
        if f.stopped {
            if f.generated && self.quiet(fi) {
                acts.push(HostAct::Release(fi));
            }
            return;
        }
        let Agent::Tcp(t) = &mut f.agent else {
            unreachable!("ACK for a UDP flow")
        };
        self.out.clear();
        t.snd.on_ack(now, ack, &mut self.out);
        // Completion of a finite flow: one comparison per ACK (`snd_una >= limit`,
        // never true for an infinite flow); the rest runs once per flow.
        if t.snd.done() && t.end.is_none() {
            t.end = Some((now, t.snd.stats(now).cwnd_integral));
            if f.generated {
                acts.push(HostAct::Finished(fi));
            }
        }
        self.emit(fiu, acts);
        self.after_sender_call(now, fiu, acts);
    }

    // ------------------------------------------------------------------ sources

    pub fn start(&mut self, now: SimTime, fi: u32, acts: &mut Vec<HostAct>) {
        let fiu = fi as usize;
        match &mut self.flows[fiu].agent {
            Agent::Tcp(t) => {
                self.out.clear();
                t.snd.start(now, &mut self.out);
                self.emit(fiu, acts);
                self.after_sender_call(now, fiu, acts);
            }
            Agent::Udp(u) => {
                if let Some((mean_on, _, rng)) = &mut u.onoff {
                    // Start in the on state; exponential period.
                    u.on = true;
                    let d =
                        SimTime::from_secs_f64(rng.exponential(*mean_on)).unwrap_or(SimTime::ZERO);
                    acts.push(HostAct::At(now + d, Ev::OnOffToggle(fi)));
                }
                u.pending_send = true;
                // A Pareto superposition's first packet is its first instant (at or
                // after its start); the other sources send from `now`.
                let at = u.ss.as_mut().map_or(now, |s| s.0.next_send().0);
                acts.push(HostAct::At(at, Ev::UdpSend(fi)));
            }
        }
    }

    pub fn stop(&mut self, fi: u32) {
        let f = &mut self.flows[fi as usize];
        f.stopped = true;
        if let Agent::Udp(u) = &mut f.agent {
            u.on = false;
        }
    }

    pub fn udp_send(&mut self, now: SimTime, fi: u32, acts: &mut Vec<HostAct>) {
        let f = &mut self.flows[fi as usize];
        let Agent::Udp(u) = &mut f.agent else { return };
        u.pending_send = false;
        if !u.on || f.stopped {
            return;
        }
        let seq = u.next_seq;
        u.next_seq += 1;
        u.pending_send = true;
        let (bytes, gap) = match &mut u.poisson {
            // The next packet of a Pareto superposition is at its next instant
            // (never before now: the generator's instants do not decrease).
            None if u.ss.is_some() => {
                let next = u.ss.as_mut().map_or(now, |s| s.0.next_send().0);
                (u.size, next - now)
            }
            None => (u.size, u.rate.tx_time(u.size.into())),
            Some(rng) => {
                // Exponential size of mean `size`, in whole bytes (rounded up, so at
                // least 1; capped at 1 GiB, the largest packet a scenario may state),
                // and an exponential gap of mean `size` bits over `rate`: a Poisson
                // process of mean rate `rate`.
                let b = rng
                    .exponential(f64::from(u.size))
                    .ceil()
                    .clamp(1.0, (1u32 << 30) as f64);
                let mean_gap = f64::from(u.size) * 8.0 / u.rate.bps() as f64;
                let gap = SimTime::from_secs_f64(rng.exponential(mean_gap)).unwrap_or(SimTime::MAX);
                (b as u32, gap)
            }
        };
        acts.push(HostAct::At(
            now.checked_add(gap).unwrap_or(SimTime::MAX),
            Ev::UdpSend(fi),
        ));
        acts.push(HostAct::Send {
            seg: Seg {
                kind: PktKind::Udp,
                flow: fi,
                seq,
                bytes,
                retransmit: false,
                mark: false,
                route: f.fwd,
            },
            injected: false,
        });
    }

    pub fn onoff_toggle(&mut self, now: SimTime, fi: u32, acts: &mut Vec<HostAct>) {
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
        acts.push(HostAct::At(now + d, Ev::OnOffToggle(fi)));
        if u.on && !u.pending_send {
            u.pending_send = true;
            acts.push(HostAct::At(now, Ev::UdpSend(fi)));
        }
    }

    /// A UDP packet reached the receiver of flow `fi`.
    pub fn on_udp(&mut self, fi: u32) {
        if let Agent::Udp(u) = &mut self.flows[fi as usize].agent {
            u.recv += 1;
        }
    }

    // ------------------------------------------------------------------ statistics

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

    /// In-order segments delivered so far by TCP flow `fi`'s receiver (None for UDP).
    pub fn tcp_delivered(&self, fi: usize) -> Option<u64> {
        match &self.flows[fi].agent {
            Agent::Tcp(t) => Some(t.rcv.delivered()),
            Agent::Udp(_) => None,
        }
    }

    /// End of warm-up: counters are snapshotted and later subtracted.
    pub fn warmup(&mut self, now: SimTime) {
        for fi in 0..self.listed {
            self.flows[fi].snap = self.counters(now, fi);
        }
    }

    /// Data segments of flow `fi`: (created, received at the receiver, dropped).
    pub fn conservation(&self, fi: usize) -> (u64, u64, u64) {
        let f = &self.flows[fi];
        let received = match &f.agent {
            Agent::Tcp(t) => t.rcv.received(),
            Agent::Udp(_) => 0,
        };
        (f.data_created, received, f.data_dropped)
    }

    /// One row per flow, measured over the flow's active time within `[warmup, now)`.
    pub fn rows(&self, now: SimTime, warmup: SimTime, names: &[String]) -> Vec<FlowRow> {
        let mut flows = Vec::with_capacity(self.listed);
        // Generated flows have no row here: the `fct` table has one per arrival.
        for fi in 0..self.listed {
            let f = &self.flows[fi];
            let c = self.counters(now, fi);
            let s = f.snap;
            let t0 = if f.start > warmup { f.start } else { warmup };
            let t1 = match f.stop {
                Some(st) if st < now => st,
                _ => now,
            };
            // A finite flow that completed is measured over its own life: up to its
            // completion, not to the end of the run (issue 52 item 7).
            let (size, end) = match &f.agent {
                Agent::Tcp(t) => (t.size, t.end),
                Agent::Udp(_) => (None, None),
            };
            let t1 = match end {
                Some((e, _)) if e < t1 => e,
                _ => t1,
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
                    if let Some((_, name)) = &u.ss {
                        *name
                    } else if u.onoff.is_some() {
                        "onoff"
                    } else if u.poisson.is_some() {
                        "poisson"
                    } else {
                        "cbr"
                    },
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
            let tcp = kind == "tcp";
            let delivered = c.delivered - s.delivered;
            let received = c.received - s.received;
            let rtt_n = c.rtt_n - s.rtt_n;
            let rtt_span = t1.saturating_sub(t0).as_secs_f64();
            // (A flow that completed before the warm-up ended has nothing to measure.)
            let cwnd_int = match end {
                Some((e, int)) if e < now => int.max(s.cwnd_int),
                _ => c.cwnd_int,
            };
            let cwnd_window = (cwnd_int - s.cwnd_int) / if rtt_span > 0.0 { rtt_span } else { 1.0 };
            let (udp_sent, udp_recv) = (c.udp_sent - s.udp_sent, c.udp_recv - s.udp_recv);
            let good = if tcp { delivered } else { udp_recv };
            let thr = if tcp { received } else { udp_recv };
            flows.push(FlowRow {
                flow: fi as u32,
                name: f.name.clone(),
                kind: kind.into(),
                variant: variant.into(),
                cc: cc.into(),
                profile,
                src: names[f.src as usize].clone(),
                dst: names[f.dst as usize].clone(),
                mss_bytes: mss,
                wm_segments: wm,
                b,
                measured_s: elapsed,
                segments_delivered: good,
                segments_received: thr,
                segments_sent: if tcp { c.sent - s.sent } else { udp_sent },
                retransmits: c.retx - s.retx,
                td_events: c.td - s.td,
                to_events: c.to - s.to,
                goodput_segps: per(good),
                throughput_segps: per(thr),
                goodput_bps: per(good) * mss as f64 * 8.0,
                throughput_bps: per(thr) * mss as f64 * 8.0,
                mean_rtt_s: if rtt_n > 0 {
                    (c.rtt_sum - s.rtt_sum) / rtt_n as f64
                } else {
                    f64::NAN
                },
                mean_cwnd_segments: if tcp { cwnd_window } else { f64::NAN },
                mean_rto_s: if c.rto_n > s.rto_n {
                    (c.rto_sum - s.rto_sum) / (c.rto_n - s.rto_n) as f64
                } else {
                    f64::NAN
                },
                size_segments: size,
                start_s: f.start.as_secs_f64(),
                end_s: end.map_or(f64::NAN, |(e, _)| e.as_secs_f64()),
                completed: end.is_some(),
                // Filled in from the collector's one-way delays (`world/collector.rs`).
                delay_mean_s: f64::NAN,
                jitter_s: f64::NAN,
            });
        }
        flows
    }
}

/// A TCP agent of `cfg` (its clock phase drawn) starting at `start`: a finite transfer
/// of `segments` if given, dropping the first transmission of `drops`.
fn tcp_agent(
    cfg: &TcpConfig,
    segments: Option<u64>,
    drops: &[(u64, u64)],
    start: SimTime,
) -> Agent {
    let mut snd = TcpSender::new(cfg.clone(), start);
    snd.set_data_limit(segments);
    let rcv = TcpReceiver::new(cfg);
    // Segment 0 under the ns2 profile: ns-2's SYN carries headers only; without the
    // SYN, ns-2's `output` adds no header to segment 0.
    let seq0_bytes = match (cfg.profile, cfg.syn) {
        (Profile::Ns2, true) => cfg.header_bytes,
        (Profile::Ns2, false) => cfg.mss,
        (Profile::Rfc, _) => cfg.seg_bytes(),
    };
    Agent::Tcp(Box::new(TcpAgent {
        seg_bytes: cfg.seg_bytes(),
        seq0_bytes,
        last_cwnd: snd.cwnd(),
        last_ssthresh: snd.ssthresh(),
        last_cc: crate::tcp::cc::CcTrace::default(),
        snd,
        rcv,
        rto_pending: None,
        delack_pending: None,
        drops: drops.to_vec().into_boxed_slice(),
        since_mark: 0,
        rto_sum_s: 0.0,
        rto_n: 0,
        pace_pending: None,
        end: None,
        size: segments,
    }))
}

/// Lazily cancelled timers: a flow keeps the time of its one pending timer event. A new
/// event is needed only when the real `deadline` comes before the pending one (a later
/// deadline is found when the pending event pops and re-reads it); it is never scheduled
/// in the past. Returns the time of the event to schedule, if any.
fn arm_timer(
    pending: &mut Option<SimTime>,
    deadline: Option<SimTime>,
    now: SimTime,
) -> Option<SimTime> {
    let d = deadline?;
    if pending.is_some_and(|p| p <= d) {
        return None;
    }
    let at = if d < now { now } else { d };
    *pending = Some(at);
    Some(at)
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{align_of, offset_of};

    /// The lines `Hosts::prefetch` asks for hold what they are asked for: a flow's
    /// packet fields on its line 0, an agent's per-ACK fields on line 0 and the sender's
    /// `ns2` pointer at the start of line 1, the receiver on a line of its own.
    #[test]
    fn hinted_lines_hold_the_hot_fields() {
        assert_eq!(align_of::<Flow>(), 64);
        assert!(offset_of!(Flow, stopped) < 64);
        assert!(offset_of!(Flow, data_dropped) + 8 <= 64);
        assert_eq!(align_of::<TcpAgent>(), 64);
        assert_eq!(offset_of!(TcpAgent, since_mark) + 8, 64);
        assert_eq!(offset_of!(TcpAgent, snd), 64);
        assert_eq!(offset_of!(TcpAgent, rcv) % 64, 0);
    }
}
