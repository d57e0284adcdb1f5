//! A test-only congestion controller with memory. The scripted conversations that show
//! the sender driving it (the hooks arrive with the right time and window, in order) are
//! `probe_conversations` in `tcp/tests.rs`, beside the harness they run on (here they
//! would make the controllers depend on the sender).
//!
//! Read first: [`Probe`]. It behaves exactly as AIMD (so a conversation is the same with
//! or without it) and remembers, as CUBIC would, the window at the last loss (`w_max`) and
//! when the current epoch started, plus a log of every hook call.

use super::{Aimd, CongestionControl};
use crate::tcp::tcb::{Phase, Tcb};
use crate::units::SimTime;

/// One hook call as the controller saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seen {
    /// `on_loss`: the time, cwnd and outstanding segments at detection, and the ssthresh
    /// returned.
    Loss {
        t: SimTime,
        cwnd: f64,
        flight: u64,
        ssthresh: u32,
    },
    /// `on_timeout`, likewise.
    Timeout {
        t: SimTime,
        cwnd: f64,
        flight: u64,
        ssthresh: u32,
    },
    Phase {
        t: SimTime,
        from: Phase,
        to: Phase,
    },
}

/// AIMD with memory: W_max and epoch start, updated on loss and timeout.
#[derive(Clone, Debug, Default)]
pub struct Probe {
    aimd: Aimd,
    /// cwnd when the last loss (TD or TO) was reported.
    pub w_max: f64,
    /// When the current congestion-avoidance epoch started (the last loss), if any.
    pub epoch_start: Option<SimTime>,
    /// Loss, timeout and phase-change calls, in order.
    pub log: Vec<Seen>,
    /// RTT samples (time, rtt).
    pub rtts: Vec<(SimTime, SimTime)>,
    /// Calls of `on_ack` and the segments they acknowledged in total.
    pub acks: u64,
    pub acked_segs: u64,
    /// The time of the last `on_ack` call (hooks must arrive in time order).
    pub last_ack_t: SimTime,
}

impl CongestionControl for Probe {
    fn on_ack(&mut self, tcb: &mut Tcb, now: SimTime, acked_segs: u64) {
        assert!(now >= self.last_ack_t, "on_ack out of time order");
        assert!(
            matches!(
                tcb.phase(),
                Phase::SlowStart | Phase::CongestionAvoidance | Phase::Loss
            ),
            "on_ack during fast recovery"
        );
        self.last_ack_t = now;
        self.acks += 1;
        self.acked_segs += acked_segs;
        self.aimd.on_ack(tcb, now, acked_segs);
    }
    fn on_rtt_sample(&mut self, tcb: &Tcb, now: SimTime, rtt: SimTime) {
        assert!(
            tcb.rtt.srtt().is_some(),
            "estimator updated before the hook"
        );
        self.rtts.push((now, rtt));
    }
    fn on_loss(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        let ssthresh = self.aimd.on_loss(tcb, now);
        self.w_max = tcb.cwnd();
        self.epoch_start = Some(now);
        self.log.push(Seen::Loss {
            t: now,
            cwnd: tcb.cwnd(),
            flight: tcb.flight_size(),
            ssthresh,
        });
        ssthresh
    }
    fn on_timeout(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        let ssthresh = self.aimd.on_timeout(tcb, now);
        self.w_max = tcb.cwnd();
        self.epoch_start = Some(now);
        self.log.push(Seen::Timeout {
            t: now,
            cwnd: tcb.cwnd(),
            flight: tcb.flight_size(),
            ssthresh,
        });
        ssthresh
    }
    fn on_phase_change(&mut self, tcb: &Tcb, now: SimTime, from: Phase, to: Phase) {
        assert_eq!(tcb.phase(), to, "phase change delivered late");
        self.log.push(Seen::Phase { t: now, from, to });
    }
    fn name(&self) -> &'static str {
        "probe"
    }
}
