//! Loss recovery strategies: Tahoe, Reno, NewReno (RFC 6582) and SACK (RFC 6675).
//!
//! Read first: [`LossRecovery`] — its hooks (`on_dupack` = loss detection / duplicate
//! ACK, `enter_recovery`, `on_new_ack` = partial or full ACK and exit, `on_timeout`,
//! `on_sack_info`, `send`). Strategies act on the shared [`Tcb`] only and never call the
//! congestion controller: they report what happened ([`DupAckVerdict`], [`AckVerdict`])
//! and the sender calls the controller. In particular the sender sets ssthresh from the
//! controller's `on_loss` between `on_dupack` reporting a loss and `enter_recovery`.
//!
//! Behaviour the papers depend on (yu §II.B, §III):
//! - **Tahoe**: fast retransmit, then slow start from cwnd = 1 with go-back-N.
//! - **Reno**: halves once per 3-dupack episode and leaves fast recovery on the first ACK
//!   of new data, even a partial one. Several losses in one window therefore cause
//!   repeated halvings, and a timeout once too few duplicates can come back (yu §III.C).
//!   Unlike ns-2.35 with `bugFix_ true`, a new fast retransmit in the same window is *not*
//!   suppressed: that is the Reno behaviour yu describes and models (eq. 35–37).
//! - **NewReno**: stays in fast recovery until `recover` is acknowledged and retransmits
//!   one segment per partial ACK (RFC 6582 §3.2 step 5), restarting the timer on each
//!   partial ACK (RFC 6582 §4 "Slow-but-Steady"), so S losses take ≈ S RTTs. (ns-2.35's
//!   `Agent/TCP/Newreno` restarts it on the first partial ACK only, `newreno_changes1_`;
//!   that is the ns2 profile's agent in `ns2.rs`.)
//! - **SACK**: RFC 6675 scoreboard, `pipe` and `NextSeg`; all holes of a burst are
//!   retransmitted within about one RTT. cwnd in recovery is RFC 6675's (ssthresh at
//!   once) or, with `recovery = "prr"`, Proportional Rate Reduction ([`Prr`], RFC 6937).

use super::scoreboard::Scoreboard;
#[cfg(debug_assertions)]
use super::scoreboard::{check_against, RefScoreboard};
use super::tcb::{Phase, Tcb};
use super::{AckSeg, RecoveryKind, TcpOutput, Variant};
use crate::units::SimTime;

/// What a duplicate ACK meant to the strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckVerdict {
    /// Nothing for the controller (below the threshold, already in recovery, or the
    /// window was inflated by one segment).
    Nothing,
    /// A loss detected by duplicate ACKs (TD; RFC 5681 §3.2 step 2, RFC 6675 §5 (4)).
    /// The sender counts it, sets ssthresh from the controller and the recovery point
    /// (`recover = snd_max`), then calls [`LossRecovery::enter_recovery`].
    LossDetected,
}

/// What an ACK of new data meant to the strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckVerdict {
    /// Not in fast recovery: the controller grows cwnd.
    Grow,
    /// A partial ACK inside fast recovery (RFC 6582 §3.2 step 5, RFC 6675 §5 (C)).
    PartialAck,
    /// Fast recovery ended on this ACK (the strategy set cwnd and the open phase).
    RecoveryExit,
}

/// Tahoe: fast retransmit, then slow start from 1 (4.3BSD-Tahoe, ns-2 `Agent/TCP`).
#[derive(Clone, Debug, Default)]
pub struct Tahoe;

/// Reno (RFC 5681 §3.2 fast retransmit / fast recovery).
#[derive(Clone, Debug, Default)]
pub struct Reno;

/// NewReno (RFC 6582).
#[derive(Clone, Debug, Default)]
pub struct NewReno;

/// Proportional Rate Reduction (RFC 6937 §3), in segments: during fast recovery cwnd
/// is recomputed on every ACK so that the segments sent since recovery began track
/// `ssthresh / RecoverFS` of those delivered (while `pipe` > ssthresh), then rise
/// towards ssthresh no faster than slow start (PRR-SSRB, the RFC's recommended bound).
#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    /// prr_delivered: segments delivered since recovery began.
    delivered: u64,
    /// prr_out: segments sent since recovery began.
    out: u64,
    /// RecoverFS: FlightSize when recovery began.
    recover_fs: u64,
    /// DeliveredData of the last ACK: change in snd.una plus change in SACKed segments.
    last_delivered: u64,
    /// An ACK arrived whose cwnd has not been computed yet.
    ack_pending: bool,
}

impl Prr {
    /// RFC 6937 §3 "On every ACK starting or during fast recovery": cwnd = pipe + sndcnt.
    fn cwnd(&mut self, pipe: u64, ssthresh: u64) -> u64 {
        self.delivered += self.last_delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction: CEIL(prr_delivered · ssthresh / RecoverFS)
            // − prr_out.
            let num = self.delivered.checked_mul(ssthresh).expect("PRR overflow");
            num.div_ceil(self.recover_fs.max(1))
                .saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + 1 segment;
            // sndcnt = MIN(ssthresh − pipe, limit).
            let limit = self
                .delivered
                .saturating_sub(self.out)
                .max(self.last_delivered)
                + 1;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }
}

/// SACK-based recovery (RFC 6675).
#[derive(Clone, Debug)]
pub struct Sack {
    pub sb: Scoreboard,
    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    pub high_rxt: u64,
    /// Segments below this have been counted by [`LossRecovery::take_newly_lost`].
    lost_mark: u64,
    /// PRR's state (`recovery = "prr"`); `None`: RFC 6675's cwnd = ssthresh.
    pub prr: Option<Prr>,
    #[cfg(debug_assertions)]
    reference: RefScoreboard,
}

impl Sack {
    pub fn new(wm: u64) -> Self {
        Sack {
            // Grows with the flight (`Scoreboard::mark`), from at most RING_START_SEGMENTS.
            sb: Scoreboard::new(wm.min(super::RING_START_SEGMENTS)),
            high_rxt: 0,
            lost_mark: 0,
            prr: None,
            #[cfg(debug_assertions)]
            reference: RefScoreboard::default(),
        }
    }
    fn pipe(&self, tcb: &Tcb) -> u64 {
        self.sb.pipe(tcb.snd_max, self.high_rxt, tcb.dupthresh)
    }
    #[cfg(debug_assertions)]
    fn check(&self, tcb: &Tcb) {
        // Fast structure vs RFC-literal reference (docs/design.md, "slow reference"); skipped for huge windows.
        if tcb.snd_max - tcb.snd_una <= 512 {
            if let Err(e) = check_against(
                &self.sb,
                &self.reference,
                tcb.snd_max,
                self.high_rxt,
                tcb.dupthresh,
            ) {
                panic!("SACK scoreboard diverged from RFC 6675 reference: {e}");
            }
        }
    }
}

/// Statically dispatched loss-recovery strategy.
#[derive(Clone, Debug)]
pub enum LossRecovery {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
}

impl LossRecovery {
    /// The strategy of `v`; `recovery` chooses a SACK sender's cwnd rule (the scenario
    /// accepts `prr` only with `variant = "sack"`).
    pub fn new(v: Variant, recovery: RecoveryKind, wm: u64) -> Self {
        match v {
            Variant::Tahoe => LossRecovery::Tahoe(Tahoe),
            Variant::Reno => LossRecovery::Reno(Reno),
            Variant::NewReno => LossRecovery::NewReno(NewReno),
            Variant::Sack => {
                let mut s = Sack::new(wm);
                s.prr = (recovery == RecoveryKind::Prr).then(Prr::default);
                LossRecovery::Sack(s)
            }
        }
    }

    /// Every ACK, before anything else: SACK blocks update the scoreboard.
    pub fn on_sack_info(&mut self, tcb: &mut Tcb, cum: u64, ack: &AckSeg) {
        if let LossRecovery::Sack(s) = self {
            let sacked_before = s.sb.sacked_count();
            s.sb.advance(cum);
            #[cfg(debug_assertions)]
            s.reference.advance(cum);
            for b in &ack.sack[..(ack.nsack as usize).min(4)] {
                let end = b.end.min(tcb.snd_max);
                s.sb.mark(b.start, end);
                #[cfg(debug_assertions)]
                s.reference.mark(b.start, end);
            }
            s.high_rxt = s.high_rxt.max(cum);
            if let Some(p) = s.prr.as_mut() {
                // RFC 6937 §3: DeliveredData = change_in(snd.una) + change_in(SACKd).
                let acked = cum.saturating_sub(tcb.snd_una);
                p.last_delivered = (acked + s.sb.sacked_count()).saturating_sub(sacked_before);
                p.ack_pending = true;
            }
            #[cfg(debug_assertions)]
            s.check(tcb);
        }
    }

    /// Segments in the network: RFC 6675 `pipe` for SACK (§4 SetPipe), FlightSize for
    /// the others.
    pub fn pipe(&self, tcb: &Tcb) -> u64 {
        match self {
            LossRecovery::Sack(s) => s.pipe(tcb),
            _ => tcb.flight_size(),
        }
    }

    /// Segments that became lost (RFC 6675 `IsLost`) since the last call: the un-SACKed
    /// segments between the last lost bound counted and the current one (Linux's
    /// `rs->losses`, each segment counted once). Zero for non-SACK strategies.
    pub fn take_newly_lost(&mut self, tcb: &Tcb) -> u64 {
        match self {
            LossRecovery::Sack(s) => {
                let l = s.sb.lost_bound(tcb.dupthresh).min(tcb.snd_max);
                let from = s.lost_mark.max(s.sb.una());
                s.lost_mark = s.lost_mark.max(l);
                if l > from {
                    (l - from) - s.sb.count_range(from, l)
                } else {
                    0
                }
            }
            _ => 0,
        }
    }

    /// A duplicate ACK (`tcb.dupacks` already incremented): detect a loss, or inflate.
    /// Changes nothing but Reno/NewReno's window inflation.
    pub fn on_dupack(&mut self, tcb: &mut Tcb, _now: SimTime) -> DupAckVerdict {
        let thresh = tcb.dupacks == tcb.dupthresh;
        let loss = match self {
            LossRecovery::Tahoe(_) => thresh && tcb.phase() != Phase::Loss,
            LossRecovery::Reno(_) | LossRecovery::NewReno(_) => match tcb.phase() {
                Phase::FastRecovery => {
                    // RFC 5681 §3.2 step 4: inflate by one segment per further duplicate.
                    tcb.dupwnd += 1;
                    false
                }
                Phase::Loss => false,
                _ => thresh,
            },
            LossRecovery::Sack(s) => {
                let open = matches!(tcb.phase(), Phase::SlowStart | Phase::CongestionAvoidance);
                // RFC 6675 §5 (4): DupAcks ≥ DupThresh, or IsLost(HighACK + 1).
                open && (tcb.dupacks >= tcb.dupthresh || s.sb.is_lost(tcb.snd_una, tcb.dupthresh))
            }
        };
        if loss {
            DupAckVerdict::LossDetected
        } else {
            DupAckVerdict::Nothing
        }
    }

    /// Enters loss recovery after [`DupAckVerdict::LossDetected`], once the sender has set
    /// ssthresh (from the controller) and `recover`.
    pub fn enter_recovery(&mut self, tcb: &mut Tcb, now: SimTime, out: &mut TcpOutput) {
        match self {
            LossRecovery::Tahoe(_) => {
                // ns-2 Tahoe `dupack_action`: slowdown(CLOSE_SSTHRESH_HALF |
                // CLOSE_CWND_RESTART), reset_rtx_timer(0,0): cwnd = 1, go-back-N.
                tcb.set_cwnd(1.0);
                tcb.t_seqno = tcb.snd_una;
                tcb.timed = None;
                tcb.restart_timer(now);
                tcb.set_phase(Phase::Loss, now);
            }
            LossRecovery::Reno(_) | LossRecovery::NewReno(_) => {
                // RFC 5681 §3.2 step 3: retransmit, cwnd = ssthresh + 3 (the +3 is
                // kept in dupwnd so cwnd() reports the deflated value, as ns-2).
                tcb.set_cwnd(tcb.ssthresh() as f64);
                tcb.dupwnd = tcb.dupthresh as u64;
                tcb.set_phase(Phase::FastRecovery, now);
                let s = tcb.snd_una;
                tcb.transmit(now, s, out);
                // ns-2 reset_rtx_timer(1, 0).
                tcb.restart_timer(now);
            }
            LossRecovery::Sack(s) => {
                if let Some(p) = s.prr.as_mut() {
                    // RFC 6937 §3 "Initialization on entering recovery": prr_delivered
                    // = prr_out = 0, RecoverFS = snd.nxt − snd.una; cwnd is set by `send`
                    // on this ACK (its DeliveredData counts).
                    p.delivered = 0;
                    p.out = 1; // the retransmission (4.3) below
                    p.recover_fs = tcb.snd_max - tcb.snd_una;
                } else {
                    // RFC 6675 §5 (4.2) cwnd = ssthresh.
                    tcb.set_cwnd(tcb.ssthresh() as f64);
                }
                tcb.set_phase(Phase::FastRecovery, now);
                // (4.3) retransmit the first segment presumed dropped (with PRR counted
                // in prr_out; Linux's `tcp_cwnd_reduction` also always allows it).
                let una = tcb.snd_una;
                s.high_rxt = una + 1;
                tcb.transmit(now, una, out);
                tcb.restart_timer(now);
                // (4.4) the rest is sent by `send` via (C).
            }
        }
    }

    /// An ACK of new data (`tcb.snd_una` already advanced by `newly`). Tells the sender
    /// whether the congestion controller may grow cwnd on this ACK.
    pub fn on_new_ack(
        &mut self,
        tcb: &mut Tcb,
        now: SimTime,
        newly: u64,
        out: &mut TcpOutput,
    ) -> AckVerdict {
        if tcb.phase() != Phase::FastRecovery {
            return AckVerdict::Grow;
        }
        match self {
            LossRecovery::Tahoe(_) => AckVerdict::Grow,
            LossRecovery::Reno(_) => {
                // RFC 5681 §3.2 step 6: the first ACK of new data ends fast recovery,
                // partial or not; cwnd = ssthresh (deflate).
                tcb.dupwnd = 0;
                tcb.set_cwnd(tcb.ssthresh() as f64);
                tcb.set_open_phase(now);
                AckVerdict::RecoveryExit
            }
            LossRecovery::NewReno(_) => {
                if tcb.snd_una >= tcb.recover {
                    // RFC 6582 §3.2 step 6 (full ACK), option (2): cwnd = ssthresh.
                    tcb.dupwnd = 0;
                    tcb.set_cwnd(tcb.ssthresh() as f64);
                    tcb.set_open_phase(now);
                    AckVerdict::RecoveryExit
                } else {
                    // RFC 6582 §3.2 step 5 (partial ACK): retransmit the first
                    // unacknowledged segment, deflate the window by the amount acked and
                    // add back one segment (ns-2 partial_window_deflation_ 1).
                    let una = tcb.snd_una;
                    tcb.transmit(now, una, out);
                    let deflate = newly - 1;
                    if tcb.dupwnd >= deflate {
                        tcb.dupwnd -= deflate;
                    } else {
                        let rest = (deflate - tcb.dupwnd) as f64;
                        tcb.dupwnd = 0;
                        tcb.set_cwnd(tcb.cwnd() - rest);
                    }
                    // Timer: restarted on every partial ACK by the sender (RFC 6298 (5.3));
                    // this is the "Slow-but-Steady" variant (RFC 6582 §4 discussion).
                    AckVerdict::PartialAck
                }
            }
            LossRecovery::Sack(s) => {
                if tcb.snd_una >= tcb.recover {
                    // RFC 6675 §5 (B.?)/(3): recovery ends when RecoveryPoint is acked;
                    // cwnd stays at ssthresh. PRR's cwnd may be below it: recovery ends
                    // with cwnd = ssthresh (RFC 6937 §3, the ACK that concludes the
                    // episode is not counted; as Linux's `tcp_end_cwnd_reduction`).
                    if s.prr.is_some() {
                        tcb.set_cwnd(tcb.ssthresh() as f64);
                    }
                    s.high_rxt = tcb.snd_una;
                    tcb.set_open_phase(now);
                    AckVerdict::RecoveryExit
                } else {
                    AckVerdict::PartialAck
                }
            }
        }
    }

    /// A retransmission timeout (the sender already reset cwnd, ssthresh, t_seqno).
    pub fn on_timeout(&mut self, tcb: &mut Tcb) {
        if let LossRecovery::Sack(s) = self {
            // RFC 2018 §8 / RFC 6675 §5.1: forget SACK information after an RTO.
            s.sb.clear();
            #[cfg(debug_assertions)]
            s.reference.clear();
            s.high_rxt = tcb.snd_una;
            s.lost_mark = tcb.snd_una;
        }
    }

    /// Sends what the window (or, for SACK in recovery, `pipe`) allows.
    pub fn send(&mut self, tcb: &mut Tcb, now: SimTime, out: &mut TcpOutput) {
        match self {
            LossRecovery::Sack(s) if tcb.phase() == Phase::FastRecovery => {
                // RFC 6675 §5 (C): while cwnd − pipe ≥ 1 segment, send NextSeg().
                let mut pipe = s.pipe(tcb);
                if let Some(p) = s.prr.as_mut().filter(|p| p.ack_pending) {
                    p.ack_pending = false;
                    let w = p.cwnd(pipe, tcb.ssthresh() as u64);
                    tcb.set_cwnd(w as f64);
                }
                let cwnd = tcb.cwnd() as u64;
                tcb.pace_blocked = false;
                while cwnd > pipe {
                    if tcb.pacer.blocked(now) {
                        tcb.pace_blocked = true;
                        break;
                    }
                    let (r1, r3) = s.sb.next_rexmit(tcb.snd_max, s.high_rxt, tcb.dupthresh);
                    let seg = if let Some(x) = r1 {
                        // NextSeg (1): a lost segment above HighRxt.
                        s.high_rxt = x + 1;
                        x
                    } else if tcb.snd_max < tcb.limit && tcb.snd_max < tcb.snd_una + tcb.wm {
                        // NextSeg (2): new data within the receiver window.
                        tcb.t_seqno = tcb.snd_max + 1;
                        tcb.snd_max
                    } else if let Some(x) = r3 {
                        // NextSeg (3): an un-SACKed segment below the highest SACK.
                        s.high_rxt = x + 1;
                        x
                    } else {
                        break;
                    };
                    tcb.transmit(now, seg, out);
                    pipe += 1; // (C.4)
                    if let Some(p) = s.prr.as_mut() {
                        p.out += 1; // RFC 6937 §3 "On any data transmission or retransmission"
                    }
                }
            }
            _ => tcb.send_window_loop(now, out),
        }
    }
}
