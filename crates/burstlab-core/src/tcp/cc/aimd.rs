//! Standard AIMD (RFC 5681 §3.1): the `rfc` profile's controller by default, and
//! ns-2's `opencwnd` / `slowdown` rules on the strategy engine.

use super::CongestionControl;
use crate::tcp::tcb::Tcb;
use crate::units::SimTime;

/// Standard AIMD (RFC 5681 §3.1). Memoryless: everything it needs is in the `Tcb`.
#[derive(Clone, Debug, Default)]
pub struct Aimd;

impl CongestionControl for Aimd {
    #[inline]
    fn on_ack(&mut self, tcb: &mut Tcb, _now: SimTime, _acked_segs: u64) {
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
    fn on_loss(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // RFC 5681 §3.2 step 2, eq. (4) ssthresh = max(FlightSize/2, 2·SMSS), with
        // FlightSize measured as ns-2's `window()` = min(cwnd, wnd) (`slowdown`,
        // CLOSE_SSTHRESH_HALF). This is what makes Reno halve W, W/2, W/4… on repeated
        // fast retransmits in one window (yu §III.C, eq. 36).
        (tcb.loss_window() / 2).max(2) as u32
    }
    fn on_timeout(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // RFC 5681 §3.1 eq. (4) with FlightSize = segments outstanding (snd_max − snd_una).
        (tcb.flight_size() / 2).max(2) as u32
    }
    fn name(&self) -> &'static str {
        "aimd"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::Cc;
    use crate::tcp::{Profile, TcpConfig, Variant};

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
            cc.on_ack(&mut tcb, SimTime::ZERO, 1);
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
            cc.on_ack(&mut tcb, SimTime::ZERO, 1);
        }
        assert_eq!(tcb.cwnd(), 3.0);
    }
}
