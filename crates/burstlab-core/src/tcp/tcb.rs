//! The TCP control block [`Tcb`]: the one state shared by the sender, the congestion
//! controller (`cc/`) and the loss-recovery strategy (`recovery.rs`), with the
//! congestion [`Phase`] and its one setter.
//!
//! Read first: [`Tcb`] (every field states its invariant), then [`Tcb::set_phase`].
//!
//! Layering (no import cycle): this module depends only on the shared types of
//! `tcp/mod.rs` and on `rtt.rs`. `cc/` and `recovery.rs` import this module and never
//! the sender or each other; `sender.rs` imports all three and is the only caller of the
//! congestion controller. Phase changes made here are queued and handed to the controller
//! by the sender ([`Tcb::pending_phase_changes`]).

use super::rtt::RttEstimator;
use super::{SendReq, SenderStats, TcpConfig, TcpOutput};
use crate::units::SimTime;

/// Congestion phase. Changed only through [`Tcb::set_phase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// cwnd < ssthresh, no loss being repaired.
    SlowStart,
    /// cwnd ≥ ssthresh, no loss being repaired.
    CongestionAvoidance,
    /// Fast retransmit/fast recovery after duplicate ACKs (Reno, NewReno, SACK), until
    /// the strategy's exit condition.
    FastRecovery,
    /// After a retransmission timeout (or Tahoe's fast retransmit): slow start from
    /// cwnd = 1 with go-back-N, until `snd_una ≥ recover`. Duplicate ACKs do not trigger
    /// fast retransmit in this phase (ns-2 `bugFix_`, RFC 6582 §3.2 step 1 "recover").
    Loss,
}

/// One phase transition, queued by [`Tcb::set_phase`] for the congestion controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseChange {
    pub t: SimTime,
    pub from: Phase,
    pub to: Phase,
}

/// One observation, recorded only when tracing was enabled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceEvent {
    /// (cwnd, ssthresh, phase) after a change.
    State {
        t: SimTime,
        cwnd: f64,
        ssthresh: u32,
        phase: Phase,
    },
    Send {
        t: SimTime,
        seq: u64,
        retransmit: bool,
    },
    /// A fast-retransmit (triple-duplicate) episode started.
    Td { t: SimTime, seq: u64 },
    /// A retransmission timeout fired.
    To { t: SimTime, seq: u64 },
}

/// The TCP control block shared by the sender and its strategies.
///
/// Fields most read and written per ACK first (`#[repr(C)]` keeps the order): under the
/// ns2 profile every ACK rewrites the fields of lines 0–2 (`Ns2Sender::sync`), and with
/// hundreds of flows each line they spread over is one more cache miss.
#[derive(Debug)]
#[repr(C)]
pub struct Tcb {
    // --- line 0
    cwnd: f64,
    /// Maximum window `Wm`, segments (≥ 1), from `TcpConfig::wm`.
    pub wm: u64,
    /// Time up to which `stats.cwnd_integral` has been accumulated.
    integ_t: SimTime,
    /// First unacknowledged segment. Invariant: `snd_una ≤ t_seqno` and `snd_una ≤ snd_max`.
    pub snd_una: u64,
    /// One past the highest segment ever sent (HighData + 1).
    pub snd_max: u64,
    /// Next segment of the in-order window loop (ns-2 `t_seqno_`).
    pub t_seqno: u64,
    /// Window inflation in segments during Reno/NewReno fast recovery (ns-2 `dupwnd_`);
    /// 0 outside fast recovery.
    pub dupwnd: u64,
    /// Recovery point: `snd_max` when the current fast recovery or loss phase began.
    pub recover: u64,
    // --- line 1
    /// Retransmission timer deadline (one per flow).
    pub rto_deadline: Option<SimTime>,
    /// Duplicate ACKs received in a row (reset by any ACK of new data).
    pub dupacks: u32,
    ssthresh: u32,
    phase: Phase,
    /// Transitions not yet handed to the congestion controller (in order; the sender
    /// drains it after every strategy call, so it holds at most a couple of entries and
    /// never reallocates after construction).
    phase_changes: Vec<PhaseChange>,
    /// Duplicate-ACK threshold (DupThresh), from `TcpConfig::dupack_thresh` (≥ 1).
    pub dupthresh: u32,
    // --- line 2
    trace: Option<Vec<TraceEvent>>,
    pub stats: SenderStats,
    // --- colder
    /// Segments `≥ limit` are never sent (`u64::MAX`: infinite source).
    pub limit: u64,
    /// Duplicate ACKs still expected from go-back-N retransmissions of segments the
    /// receiver already held; they are not counted as duplicates (otherwise they
    /// trigger a spurious fast retransmit right after an RTO, cf. RFC 6582 §4).
    pub expected_dups: u64,
    /// RTT estimator and backoff.
    pub rtt: RttEstimator,
    /// The segment being timed and when it was sent (Karn: never a retransmission).
    pub timed: Option<(u64, SimTime)>,
    /// Pacing (`rate.rs`); off (zero interval) unless the controller sets a rate.
    pub pacer: super::rate::Pacer,
    /// Delivery-rate state (`rate.rs`), present only for controllers that use it (BBR).
    pub rate: Option<Box<super::rate::RateEstimator>>,
    /// The last send loop stopped because pacing held a segment the window allowed.
    pub pace_blocked: bool,
    /// Segments in the network as the loss-recovery strategy counts them (RFC 6675
    /// `pipe` for SACK: outstanding − SACKed − lost + retransmitted; FlightSize
    /// otherwise), refreshed by the sender before each delivery-rate sample and loss
    /// report of a flow with a rate estimator (BBR's "inflight", as ns-3's
    /// `m_bytesInFlight`). Not maintained for other flows.
    pub pipe: u64,
    /// Segments newly marked lost since the last delivery-rate sample (Linux's
    /// `rs->losses`), counted by the sender for flows with a rate estimator only.
    pub lost_since_sample: u64,
    last_state: (f64, u32, Phase),
}

impl Tcb {
    pub fn new(cfg: &TcpConfig, now: SimTime) -> Self {
        let wm = cfg.wm.max(1) as u64;
        let cwnd = (cfg.init_cwnd.max(1) as f64).min(wm as f64);
        let ssthresh = cfg.init_ssthresh.max(2);
        let phase = if cwnd < ssthresh as f64 {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        Tcb {
            dupthresh: cfg.dupack_thresh.max(1),
            wm,
            snd_una: 0,
            snd_max: 0,
            t_seqno: 0,
            limit: u64::MAX,
            dupacks: 0,
            dupwnd: 0,
            recover: 0,
            expected_dups: 0,
            rtt: RttEstimator::new(
                cfg.init_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
                cfg.max_backoff,
            ),
            rto_deadline: None,
            timed: None,
            pacer: super::rate::Pacer::default(),
            pace_blocked: false,
            pipe: 0,
            lost_since_sample: 0,
            rate: (cfg.cc == super::CcKind::Bbr)
                .then(|| Box::new(super::rate::RateEstimator::new(wm, now))),
            stats: SenderStats::default(),
            cwnd,
            ssthresh,
            phase,
            phase_changes: Vec::with_capacity(4),
            integ_t: now,
            trace: None,
            last_state: (cwnd, ssthresh, phase),
        }
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u32 {
        self.ssthresh
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Sets cwnd, clamped to `[1, wm]`.
    pub fn set_cwnd(&mut self, w: f64) {
        self.cwnd = w.clamp(1.0, self.wm as f64);
    }
    pub fn set_ssthresh(&mut self, s: u32) {
        self.ssthresh = s.max(2);
    }
    /// The one setter of the congestion phase; records the change when tracing and
    /// queues it for the congestion controller.
    pub fn set_phase(&mut self, p: Phase, now: SimTime) {
        if p != self.phase {
            self.phase_changes.push(PhaseChange {
                t: now,
                from: self.phase,
                to: p,
            });
            self.phase = p;
            self.observe(now);
        }
    }
    /// Returns to SlowStart or CongestionAvoidance according to cwnd vs ssthresh.
    pub fn set_open_phase(&mut self, now: SimTime) {
        let p = if self.cwnd < self.ssthresh as f64 {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        self.set_phase(p, now);
    }
    /// Phase changes not yet handed to the congestion controller, oldest first.
    #[inline]
    pub fn pending_phase_changes(&self) -> &[PhaseChange] {
        &self.phase_changes
    }
    /// Forgets the pending phase changes (the sender has delivered them).
    #[inline]
    pub fn clear_phase_changes(&mut self) {
        self.phase_changes.clear();
    }
    /// ns-2 `window()`: min(⌊cwnd⌋, wm), the window a loss response halves.
    pub fn loss_window(&self) -> u64 {
        (self.cwnd as u64).min(self.wm)
    }
    /// Segments outstanding (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Send window: min(⌊cwnd⌋ + dupwnd, wm) (ns-2 `RenoTcpAgent::window()`).
    pub fn send_window(&self) -> u64 {
        (self.cwnd as u64 + self.dupwnd).min(self.wm)
    }

    /// Accumulates the cwnd integral up to `now` (call before changing cwnd).
    pub fn advance_clock(&mut self, now: SimTime) {
        if now > self.integ_t {
            self.stats.cwnd_integral += self.cwnd * (now - self.integ_t).as_secs_f64();
            self.integ_t = now;
        }
    }
    pub fn integral_until(&self, now: SimTime) -> f64 {
        self.stats.cwnd_integral + self.cwnd * now.saturating_sub(self.integ_t).as_secs_f64()
    }

    /// Hands segment `seq` to the network: stats, Karn bookkeeping, RFC 6298 (5.1).
    pub fn transmit(&mut self, now: SimTime, seq: u64, out: &mut TcpOutput) {
        let retransmit = seq < self.snd_max;
        if let Some(r) = self.rate.as_mut() {
            r.on_send(
                seq,
                self.snd_una,
                now,
                retransmit,
                self.snd_una >= self.snd_max,
            );
        }
        self.pacer.on_send(now);
        self.stats.segs_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn: an ACK after a retransmission is ambiguous; stop timing.
            self.timed = None;
        } else {
            self.snd_max = seq + 1;
            if self.timed.is_none() {
                self.timed = Some((seq, now));
            }
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 (5.1).
            self.restart_timer(now);
        }
        out.sends.push(SendReq { seq, retransmit });
        if let Some(tr) = self.trace.as_mut() {
            tr.push(TraceEvent::Send {
                t: now,
                seq,
                retransmit,
            });
        }
    }
    /// When a paced sender may send again, if the window has room but pacing holds it.
    pub fn pace_deadline(&self) -> Option<SimTime> {
        self.pace_blocked.then_some(self.pacer.next_send)
    }
    pub fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.timeout());
    }
    /// Records a TD event (the sender calls this when a strategy reports that fast
    /// retransmit starts).
    pub fn note_td(&mut self, now: SimTime) {
        self.stats.td_events += 1;
        let seq = self.snd_una;
        if let Some(tr) = self.trace.as_mut() {
            tr.push(TraceEvent::Td { t: now, seq });
        }
    }
    /// Records a TO event (the sender calls this when the retransmission timer fires).
    pub fn note_to(&mut self, now: SimTime) {
        self.stats.to_events += 1;
        let seq = self.snd_una;
        if let Some(tr) = self.trace.as_mut() {
            tr.push(TraceEvent::To { t: now, seq });
        }
    }

    /// The in-order window loop: sends `t_seqno…` while the send window allows.
    pub fn send_window_loop(&mut self, now: SimTime, out: &mut TcpOutput) {
        let win = self.send_window();
        self.pace_blocked = false;
        while self.t_seqno < self.limit && self.t_seqno < self.snd_una + win {
            if self.pacer.blocked(now) {
                self.pace_blocked = true;
                break;
            }
            let s = self.t_seqno;
            self.t_seqno += 1;
            self.transmit(now, s, out);
        }
    }

    /// Records one event if tracing is on (for senders that keep their own state, the
    /// ns-2 profile's `ns2.rs`).
    #[inline]
    pub fn record(&mut self, ev: TraceEvent) {
        if let Some(tr) = self.trace.as_mut() {
            tr.push(ev);
        }
    }

    /// Starts recording [`TraceEvent`]s (allocates; off by default, costs nothing when off).
    pub fn enable_trace(&mut self) {
        if self.trace.is_none() {
            self.trace = Some(Vec::new());
            self.last_state = (f64::NAN, 0, self.phase);
        }
    }
    /// The events recorded since the last call.
    pub fn take_trace(&mut self) -> Vec<TraceEvent> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Records (cwnd, ssthresh, phase) if tracing and it changed.
    pub fn observe(&mut self, now: SimTime) {
        if let Some(tr) = self.trace.as_mut() {
            let st = (self.cwnd, self.ssthresh, self.phase);
            if st != self.last_state {
                self.last_state = st;
                tr.push(TraceEvent::State {
                    t: now,
                    cwnd: st.0,
                    ssthresh: st.1,
                    phase: st.2,
                });
            }
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The fields `Ns2Sender::sync` writes on every ACK lie in the first three lines.
    #[test]
    fn per_ack_fields_fill_three_lines() {
        for (name, off, len) in [
            ("cwnd", offset_of!(Tcb, cwnd), 8),
            ("recover", offset_of!(Tcb, recover), 8),
            ("rto_deadline", offset_of!(Tcb, rto_deadline), 16),
            ("phase_changes", offset_of!(Tcb, phase_changes), 24),
            ("trace", offset_of!(Tcb, trace), 24),
            (
                "stats.segs_sent",
                offset_of!(Tcb, stats) + offset_of!(SenderStats, segs_sent),
                8,
            ),
            (
                "stats.cwnd_integral",
                offset_of!(Tcb, stats) + offset_of!(SenderStats, cwnd_integral),
                8,
            ),
        ] {
            assert!(off + len <= 192, "{name} ends at byte {}", off + len);
            assert_eq!(off / 64, (off + len - 1) / 64, "{name} straddles two lines");
        }
        assert!(size_of::<Tcb>() > 192, "cold fields follow the hot ones");
    }
}
