//! Congestion control: how cwnd grows on new ACKs and how far it is cut on a loss.
//!
//! Read first: [`CongestionControl`]. Loss *recovery* (which segments to retransmit, when
//! recovery ends) is a separate concern, see `recovery.rs`; a new controller (CUBIC,
//! HighSpeed, …) is one new variant of [`Cc`], dispatched statically by `match`.
//!
//! cwnd is an `f64` counted in segments and updated with ns-2's rules (`opencwnd`,
//! `windowOption_` 1): +1 per new ACK in slow start, +1/cwnd per new ACK in congestion
//! avoidance. IEEE-754 arithmetic without fast-math is deterministic, so runs are
//! bit-identical.

use super::sender::Tcb;

/// A congestion controller working on the shared control block.
pub trait CongestionControl {
    /// Window growth on an ACK that acknowledges new data outside loss recovery
    /// (called once per ACK, not per acknowledged segment, as ns-2 and yu's `b` model).
    fn on_ack(&mut self, tcb: &mut Tcb, newly_acked: u64);
    /// ssthresh after a loss detected by duplicate ACKs (TD).
    fn ssthresh_on_td(&self, tcb: &Tcb) -> u32;
    /// ssthresh after a retransmission timeout (TO).
    fn ssthresh_on_to(&self, tcb: &Tcb) -> u32;
    fn name(&self) -> &'static str;
}

/// Standard AIMD (RFC 5681 §3.1).
#[derive(Clone, Debug, Default)]
pub struct Aimd;

impl CongestionControl for Aimd {
    fn on_ack(&mut self, tcb: &mut Tcb, _newly_acked: u64) {
        let w = tcb.cwnd();
        if w < tcb.ssthresh() as f64 {
            // RFC 5681 §3.1 (2): slow start, cwnd += SMSS per ACK.
            tcb.set_cwnd(w + 1.0);
        } else {
            // RFC 5681 §3.1 (3): congestion avoidance, cwnd += SMSS·SMSS/cwnd per ACK
            // (ns-2 `opencwnd`, increase_num_ = 1).
            tcb.set_cwnd(w + 1.0 / w);
        }
    }
    fn ssthresh_on_td(&self, tcb: &Tcb) -> u32 {
        // RFC 5681 §3.2 step 2, eq. (4) ssthresh = max(FlightSize/2, 2·SMSS), with
        // FlightSize measured as ns-2's `window()` = min(cwnd, wnd) (`slowdown`,
        // CLOSE_SSTHRESH_HALF). This is what makes Reno halve W, W/2, W/4… on repeated
        // fast retransmits in one window (yu §III.C, eq. 36).
        (tcb.loss_window() / 2).max(2) as u32
    }
    fn ssthresh_on_to(&self, tcb: &Tcb) -> u32 {
        // RFC 5681 §3.1 eq. (4) with FlightSize = segments outstanding (snd_max − snd_una).
        (tcb.flight_size() / 2).max(2) as u32
    }
    fn name(&self) -> &'static str {
        "aimd"
    }
}

/// Statically dispatched congestion controller.
#[derive(Clone, Debug)]
pub enum Cc {
    Aimd(Aimd),
}

impl Default for Cc {
    fn default() -> Self {
        Cc::Aimd(Aimd)
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, tcb: &mut Tcb, n: u64) {
        match self {
            Cc::Aimd(c) => c.on_ack(tcb, n),
        }
    }
    #[inline]
    fn ssthresh_on_td(&self, tcb: &Tcb) -> u32 {
        match self {
            Cc::Aimd(c) => c.ssthresh_on_td(tcb),
        }
    }
    #[inline]
    fn ssthresh_on_to(&self, tcb: &Tcb) -> u32 {
        match self {
            Cc::Aimd(c) => c.ssthresh_on_to(tcb),
        }
    }
    fn name(&self) -> &'static str {
        match self {
            Cc::Aimd(c) => c.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{Profile, TcpConfig, Variant};
    use crate::units::SimTime;

    #[test]
    fn test_aimd_slow_start_then_avoidance() {
        let mut cfg = TcpConfig::defaults(Variant::Reno, Profile::Ns2);
        cfg.init_cwnd = 1;
        cfg.init_ssthresh = 4;
        cfg.wm = 100;
        let mut tcb = Tcb::new(&cfg, SimTime::ZERO);
        let mut cc = Cc::default();
        let mut seen = vec![];
        for _ in 0..5 {
            cc.on_ack(&mut tcb, 1);
            seen.push(tcb.cwnd());
        }
        assert_eq!(&seen[..3], &[2.0, 3.0, 4.0]);
        assert_eq!(seen[3], 4.25);
        assert_eq!(seen[4], 4.25 + 1.0 / 4.25);
    }

    #[test]
    fn test_aimd_cwnd_clamped_to_wm() {
        let mut cfg = TcpConfig::defaults(Variant::Reno, Profile::Ns2);
        cfg.wm = 3;
        let mut tcb = Tcb::new(&cfg, SimTime::ZERO);
        let mut cc = Cc::default();
        for _ in 0..10 {
            cc.on_ack(&mut tcb, 1);
        }
        assert_eq!(tcb.cwnd(), 3.0);
    }
}
