//! OBS ingress edge nodes: the classifier's assembly queues, their assemblers, the
//! per-flow OBS statistics, and the disassembly counters of the egress.
//!
//! Read first: [`Edges::enqueue`] and [`Edges::take_burst`]; the assembly policies are
//! in `obs::assembler`. The queue a packet joins is chosen once per route when the
//! world is wired (`obs.classifier`: per (flow, OBS path), per (egress, OBS path) or
//! per (egress, OBS path, class)); the edge never sees the packet pool: each queued
//! packet carries a copy of what the ingress may know about it ([`PktMeta`]).
//!
//! Assembler context ([`AsmCtx`]): besides the packet (with the sender's mark) and the
//! queue, an assembler may read the flow's true cwnd (an oracle, supplied by the world
//! from the host only for policies that ask for it) and the state of a passive
//! [`FlightEstimator`] fed by [`Edges::observe`], the edge hook, which the world calls
//! for every packet and ACK at an edge node, in either direction, whether the ACKs
//! are assembled or bypass the core.

use crate::obs::{AsmCtx, Assembler, Decision, Emit, PktKind, PktMeta, QueueState, WindowSource};
use crate::stats::{
    BurstHistRow, BurstLoss, BurstRow, CwndEstRow, LossCounts, ObsFlowRow, SizeHist,
};
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
    /// Packets of delivered bursts lost in a head or a tail segment cut off.
    cut_head: u64,
    cut_tail: u64,
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
    /// ACK-ratio assembly (zhou §3.1): the extra queue, the first `held` packets of
    /// `pkts` (all ACKs, `held_bytes` bytes) that earlier bursts could not take. Always
    /// 0 for other policies.
    held: u32,
    held_bytes: u64,
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

/// A passive estimate of a flow's window at its ingress edge, from what the edge hook
/// sees: the flight (`(highest data segment + 1) − highest cumulative ACK`, RFC 5681
/// §2's FlightSize observed from the path) peaks at the window once per round trip, so
/// the estimate is the largest flight of the last complete round; a round ends when an
/// ACK covers all data seen when it began. (A simple passive estimator in the spirit of
/// ozsarac §2.3's ECWBA, not its state machine.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlightEstimator {
    /// The edge node where the flow's data enters the OBS network.
    pub ingress: Option<u32>,
    pub high_data: u64,
    pub high_ack: u64,
    /// Largest flight in the current round, and the round's end (`high_data` when it
    /// began).
    pub round_max: u64,
    pub round_end: u64,
    /// The estimate: the largest flight of the last complete round (0: none yet).
    pub window: u64,
    /// Packets the hook saw at the ingress: data segments and ACKs.
    pub data_seen: u64,
    pub acks_seen: u64,
}

impl FlightEstimator {
    /// The current estimate (segments), once a round has completed.
    pub fn estimate(&self) -> Option<u64> {
        (self.window > 0).then_some(self.window)
    }

    fn flight(&self) -> u64 {
        self.high_data.saturating_sub(self.high_ack)
    }

    fn on_data(&mut self, seq: u64) {
        self.data_seen += 1;
        self.high_data = self.high_data.max(seq + 1);
        self.round_max = self.round_max.max(self.flight());
    }

    fn on_ack(&mut self, cum: u64) {
        self.acks_seen += 1;
        self.high_ack = self.high_ack.max(cum);
        if self.high_ack >= self.round_end && self.round_max > 0 {
            self.window = self.round_max;
            self.round_max = self.flight();
            self.round_end = self.high_data;
        }
    }
}

/// The phase of the ingress's Reno replica (ozsarac §2.3: "Default" and
/// "FastRecovery").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FsmState {
    /// No ACK seen yet: cwnd is 1 while the SYN is out, or, without the SYN, the count
    /// of data segments seen (the first flight).
    #[default]
    Start,
    Default,
    FastRecovery,
}

/// ECWBA's passive cwnd estimator (ozsarac §2.3, after Jaiswal et al.): a replica of a
/// Reno sender's state machine at the ingress, driven only by what the edge hook sees
/// there — the flow's data segments on their way in and its ACKs on their way back
/// (whether the ACKs ride bursts or bypass assembly).
///
/// The state machine is §2.3's, line by line:
/// - ACK, Default: a new cumulative ACK opens cwnd (`cwnd += 1` below ssthresh, else
///   `cwnd += 1/cwnd`); a duplicate counts, and the third gives
///   `ssthresh = max(min(awnd, cwnd)/2, 2)`, `cwnd = cwnd/2 + 3`, FastRecovery.
/// - ACK, FastRecovery: a new ACK gives `cwnd = ssthresh`, `dupACKnum = 0`, Default; a
///   duplicate inflates cwnd by one.
/// - Data, either state: an "RTO packet" gives `ssthresh = max(min(awnd, cwnd)/2, 2)`,
///   `cwnd = 1` (and, from FastRecovery, `dupACKnum = 0`, Default).
///
/// What §2.3 leaves open, settled here:
/// - **Initial state** ("Initialize cwnd, ssthresh, …"), ssthresh unbounded, and the
///   opening as ns-2.35 performs it (tcp.cc; [`Edges::set_opening`] tells the replica
///   which opening the flow uses, as the SYN flag in segment 0's header would):
///   - **With the SYN** (`syn`, ns-2 `syn_ true`, the ns2 profile's default): segment 0
///     is the SYN, sent alone with cwnd = 1 (`set_initial_window`: `syn_ &&
///     delay_growth_`), so the replica's cwnd is 1 until the SYN is acknowledged. The
///     ACK of the SYN does not open the window: ns-2's `recv` runs `opencwnd` and then
///     `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window()`, so cwnd becomes
///     `windowInit_`. The replica sets `init_cwnd` (2: ns-2's and RFC 2581's
///     `windowInit_`), raised to the count of data segments seen before the next ACK
///     (the initial window as Jaiswal et al. infer it, for a flow configured with a
///     larger one).
///   - **Without the SYN**: before the first ACK cwnd is the larger of `init_cwnd` and
///     the number of data segments seen (the first flight; the assumption lets the
///     first burst leave before any ACK can exist). Under ns-2 (`delay_growth`) the ACK
///     of segment 0 sets cwnd to the initial window (the same `recv` rule), so it does
///     not grow; elsewhere it opens cwnd like any new ACK.
///   - **A retransmission before any ACK** (the SYN, or the first segment, timed out) is
///     a timeout like any other, and under ns-2 the initial window becomes one segment
///     (`timeout`: `highest_ack_ == -1 && wnd_init_ > 1 && bugfix_ss_`).
///
///   `awnd` is the receiver's advertised window, which every ACK header carries:
///   burstlab's ACK records do not, so the world gives the replica the flow's
///   configured receive window ([`Edges::set_awnd`]; unbounded if not given).
/// - **The window used** is `min(cwnd, awnd)`, the window a sender may fill (RFC 5681
///   §2: the send window), and the replica's cwnd stops growing at `awnd` as burstlab's
///   sender's does; without this a receive-window-limited flow (ozsarac's 10 000
///   segments) would see its estimate grow without bound.
/// - **Duplicate ACKs** are counted consecutively: a new ACK in Default resets the count
///   (TCP's own rule; the printed pseudocode resets it only when leaving FastRecovery).
///   A duplicate is an ACK repeating the highest cumulative ACK while data above it is
///   outstanding; ACKs below it (reordered) are ignored.
/// - **"RTO packet"**: a data segment below the replica's next sequence number (the
///   sender went back) that is not the fast retransmission. The fast retransmission is
///   the first segment at the cumulative ACK after the third duplicate; after an RTO
///   the sender goes back N, so the replica's next sequence follows the retransmission
///   and the rest of the go-back-N series is in sequence (one RTO, one reaction).
/// - **ssthresh after an RTO** is halved in whole segments, `max(⌊min(awnd, cwnd)/2⌋,
///   2)`: ns-2's `ssthresh_` is an integer (`slowdown`: `ssthresh_ = (int) halfwin`),
///   and a fractional threshold would let the replica's slow start run one step past
///   the sender's. At the third duplicate the half stays fractional, as ns-2's
///   `precisionReduce_` keeps cwnd = halfwin and §2.3 restores cwnd = ssthresh when
///   recovery ends.
///
/// Accuracy against ns-2.35's Reno (tests/ozsarac.rs, ⌊estimate⌋ against the send
/// window at every sender event): exact without loss and through timeouts; within one
/// segment after a fast recovery (ns-2 also opens cwnd by 1/cwnd on the ACK that ends
/// recovery, which §2.3's `cwnd = ssthresh` does not; mean 0.003 segments).
///
/// Supported variants: **Reno** (the state machine above is Reno's). Tahoe would need
/// `cwnd = 1` on the third duplicate; NewReno and SACK stay in recovery over partial
/// ACKs, while this replica leaves FastRecovery at the first new ACK — so for them the
/// estimate is exact outside recovery and approximate after multi-loss recovery
/// episodes. (Under CWBA a lost burst is a whole window, recovery ends in an RTO, and
/// the three variants behave alike, ozsarac §2.1.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenoFsmEstimator {
    /// The initial window assumed before the first ACK (segments).
    pub init_cwnd: f64,
    /// Segment 0 is a SYN (ns-2 `syn_`): cwnd is 1 until it is acknowledged.
    pub syn: bool,
    /// ns-2's `delay_growth_`: the ACK of segment 0 sets cwnd to the initial window
    /// instead of opening it.
    pub delay_growth: bool,
    /// Between the ACK of the SYN and the next ACK: the data segments seen are the
    /// initial window, and cwnd is at least their count.
    pub first_window: bool,
    pub state: FsmState,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub awnd: f64,
    pub dup_acks: u32,
    /// Highest cumulative ACK seen.
    pub high_ack: u64,
    /// The replica's next sequence number: one past the last data segment in sequence.
    pub snd_nxt: u64,
    /// Highest data segment seen + 1.
    pub high_data: u64,
    /// Set on entering FastRecovery until the fast retransmission passes.
    pub awaiting_fast_rtx: bool,
    /// How often the replica saw a timeout or entered fast recovery.
    pub timeouts: u64,
    pub fast_recoveries: u64,
}

impl Default for RenoFsmEstimator {
    fn default() -> Self {
        RenoFsmEstimator {
            init_cwnd: 2.0,
            syn: false,
            delay_growth: false,
            first_window: false,
            state: FsmState::Start,
            cwnd: 0.0,
            ssthresh: f64::INFINITY,
            awnd: f64::INFINITY,
            dup_acks: 0,
            high_ack: 0,
            snd_nxt: 0,
            high_data: 0,
            awaiting_fast_rtx: false,
            timeouts: 0,
            fast_recoveries: 0,
        }
    }
}

impl RenoFsmEstimator {
    /// The current estimate (segments), once a data segment was seen: the window the
    /// sender may fill, `min(cwnd, awnd)`.
    pub fn estimate(&self) -> Option<f64> {
        (self.cwnd > 0.0).then_some(self.cwnd.min(self.awnd))
    }

    /// ozsarac §2.3 "TCP Packet Arrival Event".
    pub fn on_data(&mut self, seq: u64) {
        let again = seq < self.high_data;
        self.high_data = self.high_data.max(seq + 1);
        if self.state == FsmState::Start {
            if again {
                // Before any ACK a segment sent again timed out (cwnd is 1: only the
                // SYN or segment 0 goes again); ns-2 then shrinks the initial window to
                // one segment (bugfix_ss_, type docs).
                self.timeout();
                self.state = FsmState::Start;
                if self.delay_growth {
                    self.init_cwnd = 1.0;
                }
            } else if self.timeouts == 0 {
                // The SYN round (cwnd 1), or the first flight passing.
                self.cwnd = if self.syn {
                    1.0
                } else {
                    (self.high_data as f64).max(self.init_cwnd)
                };
            }
            self.snd_nxt = self.high_data;
            return;
        }
        if seq >= self.snd_nxt {
            self.snd_nxt = seq + 1;
            if self.first_window {
                // Data segments 1, 2, …: the initial window's count so far.
                self.cwnd = self.cwnd.max((self.high_data - 1) as f64);
            }
            return;
        }
        if self.awaiting_fast_rtx && seq == self.high_ack {
            // The fast retransmission: Reno then goes on with new data.
            self.awaiting_fast_rtx = false;
            return;
        }
        self.timeout();
        // The sender went back N: what follows this segment is in sequence.
        self.snd_nxt = seq + 1;
    }

    /// "if (RTO packet) then ssthresh = max(min(awnd,cwnd)/2, 2); cwnd = 1", with the
    /// half in whole segments: ns-2's `ssthresh_` is an integer (`slowdown`:
    /// `ssthresh_ = (int) halfwin`), and with cwnd restarting at 1 nothing else keeps the
    /// fraction (type docs).
    fn timeout(&mut self) {
        self.timeouts += 1;
        self.ssthresh = (self.awnd.min(self.cwnd) / 2.0).floor().max(2.0);
        self.cwnd = 1.0;
        self.dup_acks = 0;
        self.state = FsmState::Default;
        self.awaiting_fast_rtx = false;
        self.first_window = false;
    }

    /// ozsarac §2.3 "ACK Packet Arrival Event" (`cum`: the next segment expected).
    pub fn on_ack(&mut self, cum: u64) {
        if self.state == FsmState::Start {
            self.state = FsmState::Default;
            self.cwnd = self.cwnd.max(1.0);
        }
        // The initial window is known once a second ACK comes (type docs).
        self.first_window = false;
        if cum > self.high_ack && cum == 1 && self.delay_growth {
            // ns-2 `recv`: "if (last_ack_ == 0 && delay_growth_) cwnd_ =
            // initial_window()" — the ACK of segment 0 (the SYN, or the first data
            // segment) sets the initial window; it does not open cwnd.
            self.high_ack = cum;
            self.dup_acks = 0;
            self.state = FsmState::Default;
            self.awaiting_fast_rtx = false;
            if self.syn || self.timeouts > 0 {
                // After the SYN: `windowInit_`, or 1 if the SYN timed out; the count
                // of the data that follow raises it (`first_window`).
                self.cwnd = self.init_cwnd;
                self.first_window = self.syn;
            }
            // (Without the SYN and without loss cwnd already is the first flight.)
            return;
        }
        if cum > self.high_ack {
            self.high_ack = cum;
            // (`snd_nxt` does not follow a cumulative ACK that jumps ahead: a sender in
            // go-back-N may go on retransmitting below it, in sequence; one that skips
            // ahead sends above `snd_nxt`, which is in sequence too.)
            match self.state {
                FsmState::FastRecovery => {
                    self.cwnd = self.ssthresh;
                    self.dup_acks = 0;
                    self.state = FsmState::Default;
                    self.awaiting_fast_rtx = false;
                }
                _ => {
                    self.dup_acks = 0;
                    if self.cwnd < self.ssthresh {
                        self.cwnd += 1.0;
                    } else {
                        self.cwnd += 1.0 / self.cwnd;
                    }
                    // The sender's cwnd stops at the receive window (type docs).
                    self.cwnd = self.cwnd.min(self.awnd.max(1.0));
                }
            }
        } else if cum == self.high_ack && self.high_data > cum {
            self.dup_acks += 1;
            match self.state {
                FsmState::FastRecovery => self.cwnd += 1.0,
                _ => {
                    if self.dup_acks == 3 {
                        self.fast_recoveries += 1;
                        self.ssthresh = (self.awnd.min(self.cwnd) / 2.0).max(2.0);
                        self.cwnd = self.cwnd / 2.0 + 3.0;
                        self.state = FsmState::FastRecovery;
                        self.awaiting_fast_rtx = true;
                    }
                }
            }
        }
    }
}

/// Estimation error of a flow's ECWBA estimator against its true cwnd, sampled at each
/// of the flow's data segments entering its assembly queue.
#[derive(Clone, Copy, Debug, Default)]
struct EstErr {
    n: u64,
    sum_true: f64,
    sum_est: f64,
    sum_abs: f64,
    sum_rel: f64,
}

/// A burst taken from a queue by [`Edges::take_burst`].
#[derive(Clone, Copy, Debug)]
pub struct Formed {
    /// 0-based index of the burst among its queue's bursts.
    pub index: u64,
    /// Packets in the burst (0: ACK-ratio assembly formed no burst; drop it).
    pub pkts: u32,
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
    /// Per flow: the passive window estimator at its ingress.
    est: Vec<FlightEstimator>,
    /// Per flow: ECWBA's Reno state-machine replica at its ingress, and its error.
    fsm: Vec<RenoFsmEstimator>,
    fsm_err: Vec<EstErr>,
    /// Reused buffer for bursts of chosen packets.
    scratch: VecDeque<Queued>,
}

impl Edges {
    pub fn new(n_flows: usize) -> Edges {
        Edges {
            flows: vec![FlowObs::default(); n_flows],
            est: vec![FlightEstimator::default(); n_flows],
            fsm: vec![RenoFsmEstimator::default(); n_flows],
            fsm_err: vec![EstErr::default(); n_flows],
            serial: 1,
            ..Default::default()
        }
    }

    /// Makes room for flow slots `0..n`: flows generated during the run
    /// (`[[workload]]`) take slots after the listed flows'.
    pub fn ensure_flows(&mut self, n: usize) {
        if self.flows.len() < n {
            self.flows.resize(n, FlowObs::default());
            self.est.resize(n, FlightEstimator::default());
            self.fsm.resize(n, RenoFsmEstimator::default());
            self.fsm_err.resize(n, EstErr::default());
        }
    }

    /// Flow slot `fi` is taken by a new generated flow: its counts start from zero.
    pub fn reset_flow(&mut self, fi: u32) {
        let i = fi as usize;
        self.flows[i] = FlowObs::default();
        self.est[i] = FlightEstimator::default();
        self.fsm[i] = RenoFsmEstimator::default();
        self.fsm_err[i] = EstErr::default();
    }

    /// Data and ACK bursts of flow `fi` lost so far (0 for a slot never used).
    pub fn flow_bursts_lost(&self, fi: u32) -> u64 {
        self.flows
            .get(fi as usize)
            .map_or(0, |f| f.data_lost + f.acks_lost_bursts)
    }

    /// Records the edge node where flow `flow`'s data enters the OBS network.
    pub fn set_ingress(&mut self, flow: u32, node: u32) {
        self.est[flow as usize].ingress.get_or_insert(node);
    }

    /// Tells flow `flow`'s ECWBA replica how the sender opens (what the SYN flag of
    /// segment 0 and the TCP implementation show): `syn`, segment 0 is a SYN sent with
    /// cwnd = 1; `delay_growth`, ns-2's rule that the ACK of segment 0 sets cwnd to the
    /// initial window (see [`RenoFsmEstimator`]).
    pub fn set_opening(&mut self, flow: u32, syn: bool, delay_growth: bool) {
        let f = &mut self.fsm[flow as usize];
        f.syn = syn;
        f.delay_growth = delay_growth;
    }

    /// Gives flow `flow`'s ECWBA replica the receiver's advertised window (segments), as
    /// carried in the flow's ACK headers.
    pub fn set_awnd(&mut self, flow: u32, awnd: u32) {
        self.fsm[flow as usize].awnd = awnd as f64;
    }

    /// Whether any queue's assembler reads sender marks (an external one may).
    pub fn needs_marks(&self) -> bool {
        self.queues.iter().any(|q| {
            matches!(
                q.spec.asm,
                Assembler::Window {
                    window: WindowSource::Mark,
                    ..
                } | Assembler::External(_)
            )
        })
    }

    /// Whether any queue's assembler lives outside the core (`obs/external.rs`).
    pub fn has_external(&self) -> bool {
        self.queues
            .iter()
            .any(|q| matches!(q.spec.asm, Assembler::External(_)))
    }

    /// The first failure of an external assembler (a hook's error or an invalid
    /// answer), taken; the world stops the run with it.
    pub fn take_hook_error(&mut self) -> Option<String> {
        self.queues.iter_mut().find_map(|q| match &mut q.spec.asm {
            Assembler::External(x) => x.take_error(),
            _ => None,
        })
    }

    /// Whether any queue's assembler reads the flight estimate (the hook must run).
    pub fn needs_hook(&self) -> bool {
        self.queues.iter().any(|q| q.spec.asm.uses_estimator())
    }

    /// The edge hook: packet `m` is at edge node `node` (arriving from a host or from
    /// the OBS network, in either direction).
    #[inline]
    pub fn observe(&mut self, node: u32, m: &PktMeta) {
        let fi = m.flow as usize;
        let e = &mut self.est[fi];
        if e.ingress != Some(node) {
            return;
        }
        let f = &mut self.fsm[fi];
        match m.kind {
            PktKind::Data => {
                e.on_data(m.seq);
                f.on_data(m.seq);
            }
            PktKind::Ack => {
                e.on_ack(m.seq);
                f.on_ack(m.seq);
            }
            PktKind::Udp => {}
        }
    }

    /// The Reno state-machine replica (ECWBA, ozsarac §2.3) of flow `flow`.
    pub fn fsm_estimator(&self, flow: u32) -> &RenoFsmEstimator {
        &self.fsm[flow as usize]
    }

    /// The estimator state of flow `flow`.
    pub fn estimator(&self, flow: u32) -> &FlightEstimator {
        &self.est[flow as usize]
    }

    /// The egress node of queue `qi`.
    pub fn egress(&self, qi: u32) -> u32 {
        self.queues[qi as usize].spec.egress
    }

    /// The class of queue `qi`'s bursts (`obs.class` index).
    pub fn class(&self, qi: u32) -> u32 {
        self.queues[qi as usize].spec.class
    }

    /// Adds a queue; returns its index.
    /// The number of assembly queues (all edges).
    pub fn queue_count(&self) -> usize {
        self.queues.len()
    }

    pub fn add_queue(&mut self, spec: QueueSpec) -> u32 {
        self.queues.push(AsmQueue {
            spec,
            pkts: VecDeque::new(),
            bytes: 0,
            emitted: 0,
            drops: Vec::new(),
            drop_cursor: 0,
            held: 0,
            held_bytes: 0,
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

    /// What the wiring decided about queue `qi` (its path, offset and assembler).
    pub fn spec(&self, qi: u32) -> &QueueSpec {
        &self.queues[qi as usize].spec
    }

    /// The path (fibres) and offset of queue `qi`.
    pub fn path(&self, qi: u32) -> &[u32] {
        &self.queues[qi as usize].spec.path
    }

    /// The input queue as the assembler sees it: under ACK-ratio assembly the extra
    /// queue at the head is not part of it (zhou §3.1; see `obs::AckRatioBase`).
    fn state(q: &AsmQueue, now: SimTime) -> QueueState {
        QueueState {
            pkts: q.pkts.len() as u32 - q.held,
            bytes: q.bytes - q.held_bytes,
            oldest_arrival: q.pkts.get(q.held as usize).map_or(now, |x| x.arrival),
        }
    }

    /// Packet `id` reaches the ingress of queue `qi`; `cwnd_oracle` is asked for the
    /// flow's true cwnd only if the queue's assembler reads it.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        qi: u32,
        id: u32,
        meta: PktMeta,
        cwnd_oracle: impl FnOnce(u32) -> Option<f64>,
    ) -> Enqueued {
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
        let ctx = match &q.spec.asm {
            Assembler::Window { window, .. } => {
                let fi = meta.flow as usize;
                let fsm_estimate = self.fsm[fi].estimate();
                let want = matches!(window, WindowSource::Oracle | WindowSource::RenoFsm);
                let oracle = want.then(|| cwnd_oracle(meta.flow)).flatten();
                if let (WindowSource::RenoFsm, PktKind::Data, Some(t), Some(est)) =
                    (window, meta.kind, oracle, fsm_estimate)
                {
                    // The estimate against the sender's true cwnd at this instant.
                    let e = &mut self.fsm_err[fi];
                    e.n += 1;
                    e.sum_true += t;
                    e.sum_est += est;
                    e.sum_abs += (est - t).abs();
                    e.sum_rel += (est - t).abs() / t.max(1.0);
                }
                AsmCtx {
                    cwnd_oracle: oracle,
                    flight_estimate: self.est[fi].estimate(),
                    fsm_estimate,
                }
            }
            _ => AsmCtx::default(),
        };
        Enqueued::Queued(q.spec.asm.on_packet_ctx(now, &meta, st, &ctx))
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
    ///
    /// Under ACK-ratio assembly (zhou §3.1) `e.pkts` counts input packets: the burst is
    /// chosen from the extra queue's ACKs followed by them, by `obs::ack_ratio_allowed`,
    /// and may be empty (`Formed::pkts == 0`: nothing to send, no burst counted).
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
        let mut take = e.pkts;
        let mut chosen = e.only.is_some();
        if let Some(r_max) = q.spec.asm.ack_ratio_max() {
            // zhou §3.1, the R-control rule: the candidate is the extra queue's ACKs and
            // the first `e.pkts` input packets; it keeps every non-ACK packet and the
            // oldest ACKs allowed (extra-queue ACKs first: their priority); the other
            // ACKs become the new extra queue, in order, at the head of the FIFO.
            let cand = (q.held + e.pkts).min(q.pkts.len() as u32);
            let (mut others, mut acks) = (0u32, 0u32);
            for m in q.pkts.iter().take(cand as usize) {
                if m.kind == PktKind::Ack {
                    acks += 1;
                } else {
                    others += 1;
                }
            }
            let allowed = crate::obs::ack_ratio_allowed(r_max, others, acks);
            take = others + allowed;
            let (mut i, mut a, mut held_bytes) = (0u32, 0u32, 0u64);
            if allowed < acks {
                self.scratch.clear();
                q.pkts.retain(|m| {
                    i += 1;
                    if i > cand {
                        return true;
                    }
                    if m.kind == PktKind::Ack {
                        a += 1;
                        if a > allowed {
                            held_bytes += m.bytes as u64;
                            return true;
                        }
                    }
                    self.scratch.push_back(*m);
                    false
                });
                std::mem::swap(&mut q.pkts, &mut self.scratch);
                chosen = true;
            }
            q.held = acks - allowed;
            q.held_bytes = held_bytes;
            if take == 0 {
                // Only ACKs and R_MAX < 1: no burst; they all wait (zhou §3.2, R_MAX = 0).
                if chosen {
                    std::mem::swap(&mut q.pkts, &mut self.scratch);
                }
                return Formed {
                    index: q.emitted,
                    pkts: 0,
                    bytes: 0,
                    has_data: false,
                    injected: false,
                    offset: q.spec.offset,
                };
            }
        } else if let Some(kind) = e.only {
            // A burst of chosen packets: the first `e.pkts` of `kind`, the rest stay
            // queued in order (e.g. zhou §3's ACKs held back by ACK-ratio assembly).
            let mut left = e.pkts;
            self.scratch.clear();
            q.pkts.retain(|m| {
                if left > 0 && m.kind == kind {
                    left -= 1;
                    self.scratch.push_back(*m);
                    false
                } else {
                    true
                }
            });
            debug_assert_eq!(left, 0, "assembler emits queued packets");
            std::mem::swap(&mut q.pkts, &mut self.scratch);
        }
        let first_wait = q.pkts.front().map_or(0, |x| (now - x.arrival).0);
        let n_take = take.min(q.pkts.len() as u32);
        for _ in 0..n_take {
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
        if chosen {
            // The chosen packets are taken: the queue is what was left.
            debug_assert!(q.pkts.is_empty());
            std::mem::swap(&mut q.pkts, &mut self.scratch);
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
        s.pkts_sum += take as u64;
        s.bytes_sum += bytes;
        s.bytes_min = if s.bursts == 1 {
            bytes
        } else {
            s.bytes_min.min(bytes)
        };
        s.bytes_max = s.bytes_max.max(bytes);
        s.first_wait_ps += first_wait as u128;
        s.hist.add(take as u64);
        let injected = q.drop_cursor < q.drops.len() && q.drops[q.drop_cursor] == index;
        if injected {
            q.drop_cursor += 1;
        }
        Formed {
            index,
            pkts: n_take,
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

    /// Burst of queue `qi`, delivered, lost `head` packets in its cut head and `tail`
    /// in its cut tail (segmentation).
    pub fn pkts_cut(&mut self, qi: u32, head: u64, tail: u64) {
        let s = &mut self.queues[qi as usize].s;
        s.cut_head += head;
        s.cut_tail += tail;
    }

    /// Zeroes the statistics at the end of warm-up (conservation counters are kept).
    pub fn warmup(&mut self) {
        for q in &mut self.queues {
            q.s = QueueStats::default();
        }
        self.fsm_err.fill(EstErr::default());
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
                lost_control: s.lost[BurstLoss::Control],
                lost_preempted: s.lost[BurstLoss::Preempted],
                lost_deflection_failed: s.lost[BurstLoss::DeflectionFailed],
                lost_deflection_offset: s.lost[BurstLoss::DeflectionOffset],
                pkts_lost_head_cut: s.cut_head,
                pkts_lost_tail_cut: s.cut_tail,
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

    /// The `cwnd_estimates` rows: one per flow whose ECWBA estimator was sampled.
    pub fn cwnd_est_rows<'a>(&self, flow_name: impl Fn(usize) -> &'a str) -> Vec<CwndEstRow> {
        let mut rows = Vec::new();
        for (fi, e) in self.fsm_err.iter().enumerate() {
            if e.n == 0 {
                continue;
            }
            let n = e.n as f64;
            let f = &self.fsm[fi];
            rows.push(CwndEstRow {
                flow: fi as u32,
                name: flow_name(fi).to_string(),
                estimator: "reno_fsm".into(),
                samples: e.n,
                mean_true_cwnd_segments: e.sum_true / n,
                mean_est_cwnd_segments: e.sum_est / n,
                mean_abs_err_segments: e.sum_abs / n,
                mean_rel_err: e.sum_rel / n,
                timeouts_detected: f.timeouts,
                fast_recoveries_detected: f.fast_recoveries,
            });
        }
        rows
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
            // Slots past `crosses` are generated flows' (`[[workload]]`): no row.
            if crosses.get(fi) != Some(&true) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::obs::AssemblerConfig;
    use crate::rng::RngStream;

    fn meta(flow: u32, kind: PktKind, seq: u64) -> PktMeta {
        PktMeta {
            bytes: 100,
            flow,
            kind,
            seq,
            mark: false,
        }
    }

    /// A decision may take chosen packets (here: the ACKs) instead of a prefix; the
    /// others stay queued in their order (zhou §3 holds ACKs back this way).
    #[test]
    fn a_burst_of_chosen_packets_leaves_the_rest_in_order() {
        let mut e = Edges::new(1);
        let cfg = AssemblerConfig::Length {
            max_bytes: None,
            max_pkts: Some(100),
        };
        let qi = e.add_queue(QueueSpec {
            edge: 0,
            egress: 1,
            key: "q".into(),
            flow: Some(0),
            class: 0,
            path: vec![0],
            offset: SimTime::ZERO,
            asm: Assembler::new(&cfg, 100, RngStream::derive(1, 0, "t")).unwrap(),
            limit: None,
        });
        let kinds = [PktKind::Data, PktKind::Ack, PktKind::Data, PktKind::Ack];
        for (id, k) in kinds.iter().enumerate() {
            let now = SimTime(id as u64);
            let r = e.enqueue(now, qi, id as u32, meta(0, *k, id as u64), |_| None);
            assert!(matches!(r, Enqueued::Queued(d) if d.emit.is_none()));
        }
        let (mut list, mut path) = (Vec::new(), Vec::new());
        let only_acks = Emit {
            pkts: 2,
            pad_bytes: 0,
            only: Some(PktKind::Ack),
        };
        let f = e.take_burst(SimTime(10), qi, only_acks, &mut list, &mut path);
        assert_eq!(list, vec![1, 3]);
        assert_eq!((f.bytes, f.has_data, path.clone()), (200, false, vec![0]));
        assert_eq!(e.conservation().3, 2);
        let prefix = Emit {
            pkts: 2,
            pad_bytes: 0,
            only: None,
        };
        let f = e.take_burst(SimTime(11), qi, prefix, &mut list, &mut path);
        assert_eq!(list, vec![0, 2]);
        assert!(f.has_data);
        assert_eq!(e.conservation().3, 0);
    }
}
