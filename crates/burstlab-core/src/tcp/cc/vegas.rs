//! TCP Vegas for the `rfc` profile (no RFC specifies it): Linux's algorithm
//! (tcp_vegas.c) over burstlab's RFC engine, in segments and `f64`.
//!
//! Read first: [`Vegas::on_ack`]. Once per round trip (when the cumulative ACK passes
//! the highest segment sent when the round began) Vegas compares the window the path
//! would carry at the base RTT with the one it carried:
//! `diff = W·(1 − baseRTT/minRTT)`, the segments queued in the network, with `baseRTT`
//! the least RTT ever seen and `minRTT` the least of this round. In congestion
//! avoidance it grows cwnd by one when diff < α = 2, shrinks it by one when diff > β =
//! 4; in slow start it leaves slow start (ssthresh = 2, cwnd ≤ target + 1) once
//! diff > γ = 1. With fewer than three RTT samples in a round it grows like Reno. A
//! loss halves the window as AIMD does (Linux: `tcp_reno_ssthresh`).
//!
//! OBS makes Vegas read the burst-assembly delay as queueing: `minRTT` includes the
//! assembly wait of the round's bursts while `baseRTT` may not, so diff rises without
//! any queue.

use super::CongestionControl;
use crate::tcp::tcb::{Phase, Tcb};
use crate::units::SimTime;

pub const ALPHA: f64 = 2.0;
pub const BETA: f64 = 4.0;
pub const GAMMA: f64 = 1.0;

/// Vegas's state.
#[derive(Clone, Debug)]
pub struct Vegas {
    /// Least RTT ever sampled (seconds; infinite before the first sample).
    pub base_rtt: f64,
    /// Least RTT of the current round.
    pub min_rtt: f64,
    /// RTT samples in the current round.
    pub cnt_rtt: u32,
    /// The round ends when snd_una passes this segment.
    pub beg_snd_nxt: u64,
    /// Vegas runs only outside loss recovery (Linux `doing_vegas_now`).
    pub enabled: bool,
    /// Queued segments estimated at the end of the last round (for traces).
    pub diff: f64,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas {
            base_rtt: f64::INFINITY,
            min_rtt: f64::INFINITY,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            enabled: true,
            diff: 0.0,
        }
    }
}

impl Vegas {
    fn new_round(&mut self, tcb: &Tcb) {
        self.beg_snd_nxt = tcb.snd_max;
        self.cnt_rtt = 0;
        self.min_rtt = f64::INFINITY;
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, tcb: &mut Tcb, _now: SimTime, _acked_segs: u64) {
        let w = tcb.cwnd();
        let slow = w < tcb.ssthresh() as f64;
        if !self.enabled {
            // Reno (RFC 5681 §3.1).
            tcb.set_cwnd(if slow { w + 1.0 } else { w + 1.0 / w });
            return;
        }
        if tcb.snd_una <= self.beg_snd_nxt {
            if slow {
                tcb.set_cwnd(w + 1.0);
            }
            return;
        }
        // A round ended.
        let samples = self.cnt_rtt;
        let (base, min) = (self.base_rtt, self.min_rtt);
        self.new_round(tcb);
        if samples <= 2 {
            tcb.set_cwnd(if slow { w + 1.0 } else { w + 1.0 / w });
            return;
        }
        let target = w * base / min;
        self.diff = w - target;
        if slow {
            if self.diff > GAMMA {
                tcb.set_ssthresh(2);
                tcb.set_cwnd(w.min(target.floor() + 1.0));
            } else {
                tcb.set_cwnd(w + 1.0);
            }
        } else if self.diff < ALPHA {
            tcb.set_cwnd(w + 1.0);
        } else if self.diff > BETA {
            tcb.set_cwnd((w - 1.0).max(2.0));
        }
    }
    fn on_rtt_sample(&mut self, _tcb: &Tcb, _now: SimTime, rtt: SimTime) {
        let r = rtt.as_secs_f64();
        self.base_rtt = self.base_rtt.min(r);
        self.min_rtt = self.min_rtt.min(r);
        self.cnt_rtt += 1;
    }
    fn on_loss(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        (tcb.loss_window() / 2).max(2) as u32
    }
    fn on_timeout(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        (tcb.flight_size() / 2).max(2) as u32
    }
    fn on_phase_change(&mut self, tcb: &Tcb, _now: SimTime, _from: Phase, to: Phase) {
        // Linux tcp_vegas_state: enabled again (a new round) on return to the open
        // state, disabled in recovery and after a timeout.
        match to {
            Phase::SlowStart | Phase::CongestionAvoidance => {
                if !self.enabled {
                    self.enabled = true;
                    self.new_round(tcb);
                }
            }
            _ => self.enabled = false,
        }
    }
    fn name(&self) -> &'static str {
        "vegas"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{Profile, TcpConfig, Variant};

    fn tcb(cwnd: u32, ssthresh: u32) -> Tcb {
        let mut cfg = TcpConfig::defaults(Variant::Sack, Profile::Rfc);
        cfg.wm = 1000;
        cfg.init_cwnd = cwnd;
        cfg.init_ssthresh = ssthresh;
        Tcb::new(&cfg, SimTime::ZERO)
    }

    /// One round of `n` samples of `rtt_ms`, then an ACK past the round's end.
    fn round(v: &mut Vegas, t: &mut Tcb, rtt_ms: u64) {
        for _ in 0..3 {
            v.on_rtt_sample(t, SimTime::ZERO, SimTime::from_ms(rtt_ms));
        }
        t.snd_una = v.beg_snd_nxt + 1;
        t.snd_max = t.snd_una + t.cwnd() as u64;
        v.on_ack(t, SimTime::ZERO, 1);
    }

    #[test]
    fn test_grows_below_alpha_holds_between_and_shrinks_above_beta() {
        let mut t = tcb(20, 10);
        let mut v = Vegas::default();
        round(&mut v, &mut t, 100); // base RTT 100 ms: diff 0 < α, +1
        assert_eq!(t.cwnd(), 21.0);
        round(&mut v, &mut t, 115); // diff = 21·(1 − 100/115) ≈ 2.74: hold
        assert_eq!(t.cwnd(), 21.0);
        round(&mut v, &mut t, 150); // diff = 7 > β: −1
        assert_eq!(t.cwnd(), 20.0);
    }

    #[test]
    fn test_slow_start_ends_when_segments_queue() {
        let mut t = tcb(16, 1000);
        let mut v = Vegas::default();
        round(&mut v, &mut t, 100);
        assert_eq!(t.cwnd(), 17.0);
        round(&mut v, &mut t, 125); // diff = 17·0.2 = 3.4 > γ: leave slow start
        assert_eq!(t.ssthresh(), 2);
        assert_eq!(t.cwnd(), 14.0); // ⌊17·100/125⌋ + 1
    }
}
