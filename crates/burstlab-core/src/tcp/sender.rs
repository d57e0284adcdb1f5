//! The TCP sender: the event entry points of [`TcpSender`] (`start`, `on_ack`, `on_rto`)
//! over the shared control block [`Tcb`] (`tcb.rs`).
//!
//! Read first: [`TcpSender::on_ack`], which drives the two strategy objects: loss recovery
//! (`recovery.rs`) and congestion control (`cc/`). No strategy sees the sender or the
//! other strategy; they read and update the `Tcb` only. The sender is the only caller of
//! the congestion controller: a recovery strategy *reports* a loss detected by duplicate
//! ACKs, a partial ACK or the end of recovery, and the sender calls the matching
//! controller hook (`on_loss`, `on_ack`, …) with the time; phase changes queued by
//! [`Tcb::set_phase`] are delivered to `on_phase_change` before the next hook and at the
//! end of every entry point, in order.
//!
//! Semantics (segment granularity, like ns-2's one-way `Agent/TCP`):
//! - `snd_una` = first unacknowledged segment, `snd_max` = one past the highest segment
//!   ever sent (RFC 6675 HighData + 1), `t_seqno` = next segment the window loop sends
//!   (ns-2 `t_seqno_`; a timeout or Tahoe's fast retransmit resets it to `snd_una`:
//!   go-back-N).
//! - Effective window = min(cwnd, wm) (+ duplicate-ACK inflation during Reno/NewReno fast
//!   recovery); segments `t_seqno < snd_una + window` may be sent.
//! - cwnd is `f64` segments, clamped to `[1, wm]` (ns-2 `maxcwnd_` = `window_`; ns-2 lets
//!   cwnd exceed `window_` but never sends or halves beyond `window_`, so behaviour is the
//!   same and the cwnd integral stays meaningful).
//! - RTO per RFC 6298 (`rtt.rs`), timer restarted on every ACK of new data (5.3), stopped
//!   when nothing is outstanding (5.2). Karn: one timed segment at a time, timing is
//!   abandoned whenever anything is retransmitted (ns-2 `reset_rtx_timer` clears
//!   `rtt_active_`), and the backoff is kept until a valid sample is taken.

use super::cc::{Cc, CongestionControl};
use super::ns2::Ns2Sender;
use super::recovery::{AckVerdict, DupAckVerdict, LossRecovery};
use super::{AckSeg, SenderStats, TcpConfig, TcpOutput};
use crate::units::SimTime;

pub use super::tcb::{Phase, PhaseChange, Tcb, TraceEvent};

/// Hands the phase changes queued in the control block to the controller, oldest first.
#[inline]
fn deliver_phase_changes(cc: &mut Cc, tcb: &mut Tcb) {
    if !tcb.pending_phase_changes().is_empty() {
        for c in tcb.pending_phase_changes() {
            cc.on_phase_change(tcb, c.t, c.from, c.to);
        }
        tcb.clear_phase_changes();
    }
}

/// A segment-granularity TCP sender (one flow). Under [`Profile::Ns2`](super::Profile)
/// every entry point goes to ns-2.35's agent (`ns2.rs`); the RFC profile uses the
/// control block, controller and recovery strategy below.
#[repr(C)]
pub struct TcpSender {
    /// First (`#[repr(C)]`): the only field an ACK reads under the ns2 profile.
    ns2: Option<Box<Ns2Sender>>,
    cfg: TcpConfig,
    tcb: Tcb,
    cc: Cc,
    rec: LossRecovery,
}

impl TcpSender {
    /// A sender with the controller `cfg.cc` and the recovery strategy `cfg.variant`.
    pub fn new(cfg: TcpConfig, now: SimTime) -> Self {
        let mut cc = Cc::new(cfg.cc);
        if let Cc::Cubic(c) = &mut cc {
            c.ssthresh_from_cwnd = cfg.cubic_ssthresh == super::CubicSsthresh::Cwnd;
        }
        Self::with_cc(cfg, now, cc)
    }
    /// A sender with a given controller instance (e.g. one with non-default parameters);
    /// `cfg.cc` is not consulted.
    pub fn with_cc(cfg: TcpConfig, now: SimTime, cc: Cc) -> Self {
        let tcb = Tcb::new(&cfg, now);
        let rec = LossRecovery::new(cfg.variant, cfg.recovery, tcb.wm);
        let ns2 = (cfg.profile == super::Profile::Ns2).then(|| Box::new(Ns2Sender::new(&cfg, now)));
        TcpSender {
            cfg,
            tcb,
            cc,
            rec,
            ns2,
        }
    }
    /// Bytes of the flow's rings sized by its flight (`RING_START_SEGMENTS` in
    /// `tcp/mod.rs`): the delivery-rate slots, the SACK scoreboard, ns-2's agent's.
    pub fn mem_bytes(&self) -> usize {
        self.tcb.rate.as_ref().map_or(0, |r| r.mem_bytes())
            + match &self.rec {
                LossRecovery::Sack(s) => s.sb.mem_bytes(),
                _ => 0,
            }
            + self.ns2.as_ref().map_or(0, |n| n.mem_bytes())
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// The congestion controller (read-only).
    pub fn cc(&self) -> &Cc {
        &self.cc
    }
    /// Opens the connection (no handshake) and sends the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut TcpOutput) {
        if let Some(a) = self.ns2.as_mut() {
            return a.start(now, out);
        }
        self.tcb.advance_clock(now);
        self.cc.on_start(&mut self.tcb);
        self.tcb.observe(now);
        self.rec.send(&mut self.tcb, now, out);
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &AckSeg, out: &mut TcpOutput) {
        if let Some(a) = self.ns2.as_mut() {
            return a.on_ack(now, ack, out);
        }
        let tcb = &mut self.tcb;
        let cc = &mut self.cc;
        tcb.advance_clock(now);
        let cum = ack.cum.min(tcb.snd_max);
        self.rec.on_sack_info(tcb, cum, ack);
        if tcb.rate.is_some() {
            tcb.lost_since_sample += self.rec.take_newly_lost(tcb);
        }
        if cum > tcb.snd_una {
            let newly = cum - tcb.snd_una;
            // Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3).
            if let Some(r) = tcb.rate.as_mut() {
                let rs = r.on_ack(tcb.snd_una, cum, now);
                let delivered = r.delivered;
                if let Some(rs) = rs {
                    let una = tcb.snd_una;
                    tcb.snd_una = cum;
                    tcb.pipe = self.rec.pipe(tcb);
                    cc.on_rate_sample(tcb, now, &rs, delivered);
                    tcb.lost_since_sample = 0;
                    tcb.snd_una = una;
                }
            }
            if tcb.t_seqno < cum {
                // The ACK jumped over go-back-N retransmissions still in flight
                // ([snd_una + 1, t_seqno)); each will come back as a duplicate.
                tcb.expected_dups += tcb.t_seqno.saturating_sub(tcb.snd_una + 1);
                tcb.t_seqno = cum;
            }
            tcb.snd_una = cum;
            tcb.dupacks = 0;
            // Karn / RFC 6298 §3: sample only the timed, never-retransmitted segment.
            if let Some((s, t0)) = tcb.timed {
                if cum > s {
                    let r = now - t0;
                    tcb.rtt.sample(r);
                    tcb.stats.rtt_sum_s += r.as_secs_f64();
                    tcb.stats.rtt_samples += 1;
                    tcb.timed = None;
                    cc.on_rtt_sample(tcb, now, r);
                }
            }
            // RFC 6298 (5.2)/(5.3).
            if tcb.snd_una >= tcb.snd_max {
                tcb.rto_deadline = None;
            } else {
                tcb.restart_timer(now);
            }
            match self.rec.on_new_ack(tcb, now, newly, out) {
                // Outside loss recovery the controller grows cwnd (once per ACK).
                AckVerdict::Grow => {
                    deliver_phase_changes(cc, tcb);
                    cc.on_ack(tcb, now, newly);
                }
                // Inside recovery the strategy has set cwnd itself; an exit reaches the
                // controller as the phase change the strategy made.
                AckVerdict::PartialAck | AckVerdict::RecoveryExit => {}
            }
            let open = matches!(tcb.phase(), Phase::SlowStart | Phase::CongestionAvoidance);
            if open || (tcb.phase() == Phase::Loss && tcb.snd_una >= tcb.recover) {
                tcb.set_open_phase(now);
            }
        } else if cum == tcb.snd_una && tcb.snd_una < tcb.snd_max {
            if tcb.expected_dups > 0 && ack.nsack == 0 {
                tcb.expected_dups -= 1;
                self.rec.send(tcb, now, out);
                tcb.observe(now);
                deliver_phase_changes(cc, tcb);
                return;
            }
            tcb.dupacks += 1;
            if let Some(r) = tcb.rate.as_mut() {
                r.on_dupack(now);
            }
            if self.rec.on_dupack(tcb, now) == DupAckVerdict::LossDetected {
                // A loss detected by duplicate ACKs (TD): count it, let the controller
                // set ssthresh (RFC 5681 §3.2 step 2), fix the recovery point (RFC 6582
                // §3.2 step 2: recover = HighData), then the strategy enters recovery.
                tcb.note_td(now);
                deliver_phase_changes(cc, tcb);
                if tcb.rate.is_some() {
                    tcb.pipe = self.rec.pipe(tcb);
                    // Entering recovery sets cwnd from the segments in the network,
                    // which already leaves the lost ones out.
                    tcb.lost_since_sample = 0;
                }
                let ss = cc.on_loss(tcb, now);
                tcb.set_ssthresh(ss);
                tcb.recover = tcb.snd_max;
                self.rec.enter_recovery(tcb, now, out);
            }
        }
        self.rec.send(tcb, now, out);
        tcb.observe(now);
        deliver_phase_changes(cc, tcb);
    }

    /// Called when the retransmission timer deadline has been reached.
    pub fn on_rto(&mut self, now: SimTime, out: &mut TcpOutput) {
        if let Some(a) = self.ns2.as_mut() {
            return a.on_rto(now, out);
        }
        let tcb = &mut self.tcb;
        let cc = &mut self.cc;
        match tcb.rto_deadline {
            Some(d) if d <= now => {}
            _ => return, // stale timer event (lazy cancellation)
        }
        tcb.advance_clock(now);
        if tcb.snd_una >= tcb.snd_max {
            tcb.rto_deadline = None;
            return;
        }
        tcb.note_to(now);
        deliver_phase_changes(cc, tcb);
        // RFC 5681 §3.1 eq. (4) (the controller's ssthresh) and "cwnd = LW = 1 SMSS".
        let ss = cc.on_timeout(tcb, now);
        tcb.set_ssthresh(ss);
        tcb.set_cwnd(1.0);
        tcb.dupacks = 0;
        tcb.dupwnd = 0;
        tcb.recover = tcb.snd_max;
        tcb.expected_dups = 0;
        // Go-back-N from snd_una (ns-2 `reset_rtx_timer(0, 1)`: t_seqno_ = highest_ack_+1).
        tcb.t_seqno = tcb.snd_una;
        tcb.timed = None;
        self.rec.on_timeout(tcb);
        tcb.set_phase(Phase::Loss, now);
        // RFC 6298 (5.5) back off, (5.6) restart, (5.4) retransmit the earliest segment.
        tcb.rtt.back_off();
        tcb.restart_timer(now);
        self.rec.send(tcb, now, out);
        tcb.observe(now);
        deliver_phase_changes(cc, tcb);
    }

    /// Where the ns-2 agent's state lives (`None` under the RFC profile), for cache
    /// hints: the address is stable for the sender's life.
    pub fn ns2_state_addr(&self) -> Option<usize> {
        self.ns2.as_deref().map(|a| a as *const Ns2Sender as usize)
    }

    /// When pacing next lets this sender transmit (`None`: not paced, or nothing to send;
    /// always `None` under the ns2 profile).
    pub fn pace_deadline(&self) -> Option<SimTime> {
        match &self.ns2 {
            Some(_) => None,
            None => self.tcb.pace_deadline(),
        }
    }
    pub fn rto_deadline(&self) -> Option<SimTime> {
        match &self.ns2 {
            Some(a) => a.rto_deadline(),
            None => self.tcb.rto_deadline,
        }
    }
    /// The current retransmission timeout without backoff, and the backoff multiplier.
    pub fn rto_and_backoff(&self) -> (SimTime, u32) {
        match &self.ns2 {
            Some(a) => (a.base_timeout(), a.backoff()),
            None => (self.tcb.rtt.rto(), self.tcb.rtt.backoff()),
        }
    }
    /// Stops sending data segments beyond the first `limit` (None: infinite source).
    /// Under the ns2 profile with the SYN, data segments are `1..=limit`.
    pub fn set_data_limit(&mut self, limit: Option<u64>) {
        if let Some(a) = self.ns2.as_mut() {
            return a.set_data_limit(limit);
        }
        self.tcb.limit = limit.unwrap_or(u64::MAX);
    }
    /// Sends whatever the window allows now (e.g. after raising the data limit).
    pub fn poll_send(&mut self, now: SimTime, out: &mut TcpOutput) {
        if let Some(a) = self.ns2.as_mut() {
            return a.poll_send(now, out);
        }
        self.tcb.advance_clock(now);
        self.rec.send(&mut self.tcb, now, out);
        self.tcb.observe(now);
    }
    pub fn cwnd(&self) -> f64 {
        self.tcb().cwnd()
    }
    /// The congestion controller's state for the cwnd trace (CUBIC's W_max and epoch,
    /// Vegas's base RTT; NaN where it does not apply).
    pub fn cc_trace(&self) -> super::cc::CcTrace {
        match &self.ns2 {
            Some(a) => a.cc_trace(),
            None => self.cc.trace_state(),
        }
    }
    pub fn ssthresh(&self) -> u32 {
        self.tcb().ssthresh()
    }
    pub fn phase(&self) -> Phase {
        self.tcb().phase()
    }
    /// The control block (read-only). Under the ns2 profile, a mirror of the ns-2
    /// agent's state.
    pub fn tcb(&self) -> &Tcb {
        match &self.ns2 {
            Some(a) => a.tcb(),
            None => &self.tcb,
        }
    }
    /// All segments `< limit` acknowledged.
    pub fn done(&self) -> bool {
        let t = self.tcb();
        t.snd_una >= t.limit
    }
    pub fn stats(&self, now: SimTime) -> SenderStats {
        if let Some(a) = &self.ns2 {
            return a.stats(now);
        }
        let mut s = self.tcb.stats;
        s.cwnd_integral = self.tcb.integral_until(now);
        s
    }
    /// Starts recording [`TraceEvent`]s (allocates; off by default, costs nothing when off).
    pub fn enable_trace(&mut self) {
        match self.ns2.as_mut() {
            Some(a) => a.tcb_mut().enable_trace(),
            None => self.tcb.enable_trace(),
        }
    }
    pub fn take_trace(&mut self) -> Vec<TraceEvent> {
        match self.ns2.as_mut() {
            Some(a) => a.tcb_mut().take_trace(),
            None => self.tcb.take_trace(),
        }
    }
}
