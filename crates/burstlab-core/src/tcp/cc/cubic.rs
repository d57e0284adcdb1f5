//! CUBIC (RFC 9438) for the `rfc` profile, in segments and `f64` seconds.
//!
//! Read first: [`Cubic::on_ack`]. The window follows the cubic function of the time since
//! the congestion epoch began, RFC 9438 §4.2 eq. (1)
//! `W_cubic(t) = C·(t − K)³ + W_max` with `K = ∛((W_max − cwnd_epoch)/C)` (eq. 2), and
//! never grows slower than the Reno-friendly estimate `W_est` (§4.3 eq. 4). A loss cuts
//! cwnd to β_cubic·FlightSize (§4.6) and, with fast convergence (§4.7), remembers a
//! lowered `W_max` when the window had not regained the previous one.
//!
//! Slow start is RFC 5681's (+1 segment per ACK, as the AIMD controller), as RFC 9438
//! §4.10 allows; the epoch begins at the first ACK in congestion avoidance after a loss
//! or a timeout (§4.2: "t_epoch … when congestion avoidance starts").
//!
//! **Why there are two CUBICs.** The `ns2` profile's `cc = "cubic"` is a different
//! algorithm, `ns2/linux/cubic.rs`: Linux 2.6's tcp_cubic.c v2.1, which ns-2.35's
//! `Agent/TCP/Linux` runs and which the ns-2 differential tests
//! (`tests/test_ns2_linux_cc.py`) compare against packet by packet. The two must not be
//! merged, because they give different windows on the same ACKs:
//! - β: 0.7 here (RFC 9438 §4.6) against 819/1024 ≈ 0.8 there;
//! - ssthresh: β·FlightSize here (or β·cwnd with `cubic_ssthresh = "cwnd"`), β·cwnd
//!   there, and fast convergence W_max = cwnd·(1 + β)/2 with each one's β;
//! - the curve: `f64` seconds and eq. (1)–(2) here, aimed at W_cubic(t + RTT) (§4.4);
//!   there integer BIC arithmetic (`bic_scale` 41 ≈ C = 0.4 in 2⁻¹⁰ s units, Linux's
//!   table-and-Newton ∛) aimed at W_cubic(t), turned into `cnt` ACKs per +1 segment;
//! - Reno-friendliness: W_est with α = 3(1 − β)/(1 + β) per cwnd of ACKed segments
//!   (§4.3 eq. 4) here; there Linux's `tcp_cwnd` estimate with `beta_scale`, plus the
//!   delayed-ACK ratio estimate, the 1/32 s rate limit on recomputing `cnt`, and `cnt =
//!   50` until the first loss;
//! - windows: an `f64` cwnd grown per ACK here; integer `snd_cwnd` with `snd_cwnd_cnt`,
//!   grown only while the window is full (`tcp_is_cwnd_limited`), there.

use super::CongestionControl;
use crate::tcp::tcb::{Phase, Tcb};
use crate::units::SimTime;

/// RFC 9438 §5 defaults.
pub const C_CUBIC: f64 = 0.4;
pub const BETA_CUBIC: f64 = 0.7;

/// CUBIC's state (all windows in segments).
#[derive(Clone, Debug)]
pub struct Cubic {
    /// Window just before the last reduction (§4.1 W_max; §4.7 fast convergence may
    /// lower it). 0 before the first congestion event.
    pub w_max: f64,
    /// Start of the current congestion-avoidance epoch (`None` outside one).
    pub t_epoch: Option<SimTime>,
    /// cwnd when the epoch began.
    pub cwnd_epoch: f64,
    /// Seconds from the epoch start until W_cubic reaches W_max (eq. 2).
    pub k: f64,
    /// Reno-friendly window estimate (§4.3 eq. 4).
    pub w_est: f64,
    /// ssthresh = cwnd · β_cubic instead of flight_size · β_cubic (§4.6 allows it; Linux
    /// and ns-3's TcpCubic do so). Scenario key `cubic_ssthresh = "cwnd"`.
    pub ssthresh_from_cwnd: bool,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            w_max: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            k: 0.0,
            w_est: 0.0,
            ssthresh_from_cwnd: false,
        }
    }
}

impl Cubic {
    /// RFC 9438 §4.2 eq. (1).
    pub fn w_cubic(&self, t_s: f64) -> f64 {
        let d = t_s - self.k;
        C_CUBIC * d * d * d + self.w_max
    }

    fn begin_epoch(&mut self, cwnd: f64, now: SimTime) {
        self.t_epoch = Some(now);
        self.cwnd_epoch = cwnd;
        self.w_est = cwnd;
        // §4.2 eq. (2); with no earlier congestion event (W_max ≤ cwnd) the curve starts
        // at its plateau: K = 0, origin = cwnd.
        if self.w_max <= cwnd {
            self.k = 0.0;
            self.w_max = cwnd;
        } else {
            self.k = ((self.w_max - cwnd) / C_CUBIC).cbrt();
        }
    }

    /// §4.6/§4.7: remember W_max, return ssthresh (segments, at least 2).
    fn congestion_event(&mut self, tcb: &Tcb) -> u32 {
        let cwnd = tcb.cwnd().min(tcb.wm as f64);
        // §4.7 fast convergence.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA_CUBIC) / 2.0
        } else {
            cwnd
        };
        self.t_epoch = None;
        // §4.6: ssthresh = flight_size · β_cubic (at least 2 segments, RFC 5681 eq. 4),
        // or cwnd · β_cubic ("some implementations … use cwnd instead of flight_size").
        let base = if self.ssthresh_from_cwnd {
            cwnd
        } else {
            tcb.flight_size().max(1) as f64
        };
        ((base * BETA_CUBIC) as u32).max(2)
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, tcb: &mut Tcb, now: SimTime, acked_segs: u64) {
        let cwnd = tcb.cwnd();
        if cwnd < tcb.ssthresh() as f64 {
            // RFC 5681 §3.1 slow start (RFC 9438 §4.10).
            tcb.set_cwnd(cwnd + 1.0);
            return;
        }
        if self.t_epoch.is_none() {
            self.begin_epoch(cwnd, now);
        }
        let t = (now - self.t_epoch.unwrap_or(now)).as_secs_f64();
        // The RTT of §4.2: the smoothed RTT (before the first sample, 0: target = W_cubic(t)).
        let rtt = tcb.rtt.srtt().map_or(0.0, |s| s.as_secs_f64());
        // §4.3 eq. (4): W_est grows by α_cubic per cwnd of acknowledged segments;
        // α = 3(1 − β)/(1 + β), or 1 once W_est has reached W_max.
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC)
        };
        self.w_est += alpha * acked_segs.max(1) as f64 / cwnd;
        if self.w_cubic(t) < self.w_est {
            // §4.3 Reno-friendly region: cwnd = W_est.
            tcb.set_cwnd(self.w_est.max(cwnd));
            return;
        }
        // §4.4/§4.5: target = W_cubic(t + RTT), bounded to [cwnd, 1.5·cwnd]; cwnd grows by
        // (target − cwnd)/cwnd per ACK.
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        tcb.set_cwnd(cwnd + (target - cwnd) / cwnd);
    }
    fn on_loss(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.congestion_event(tcb)
    }
    fn on_timeout(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // §4.8: a timeout is a congestion event too (ssthresh and W_max as above); cwnd
        // restarts at 1 in the sender and the next epoch begins when slow start ends.
        self.congestion_event(tcb)
    }
    fn on_phase_change(&mut self, _tcb: &Tcb, _now: SimTime, _from: Phase, to: Phase) {
        if to != Phase::CongestionAvoidance {
            self.t_epoch = None;
        }
    }
    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{Profile, TcpConfig, Variant};

    fn tcb(wm: u32, cwnd: u32, ssthresh: u32) -> Tcb {
        let mut cfg = TcpConfig::defaults(Variant::Sack, Profile::Rfc);
        cfg.wm = wm;
        cfg.init_cwnd = cwnd;
        cfg.init_ssthresh = ssthresh;
        Tcb::new(&cfg, SimTime::ZERO)
    }

    #[test]
    fn test_trace_state_shows_w_max_and_the_epoch() {
        use crate::tcp::cc::Cc;
        let mut t = tcb(1000, 100, 50);
        t.snd_max = 100;
        let mut c = Cc::Cubic(Cubic::default());
        assert!(c.trace_state().epoch_start_s.is_nan());
        let ss = c.on_loss(&t, SimTime::ZERO);
        t.set_ssthresh(ss);
        t.set_cwnd(ss as f64);
        c.on_ack(&mut t, SimTime::from_ms(250), 1);
        let s = c.trace_state();
        assert_eq!(s.w_max_segments, 100.0);
        assert_eq!(s.epoch_start_s, 0.25);
        assert!(s.base_rtt_s.is_nan());
    }

    #[test]
    fn test_ssthresh_from_flight_size_or_cwnd() {
        // cwnd 100 with 160 segments outstanding (a hole held snd_una while SACKed
        // segments were replaced): §4.6's flight_size gives 112, cwnd gives 70.
        let mut t = tcb(1000, 100, 50);
        t.snd_max = 160;
        assert_eq!(Cubic::default().on_loss(&t, SimTime::ZERO), 112);
        let mut c = Cubic {
            ssthresh_from_cwnd: true,
            ..Cubic::default()
        };
        assert_eq!(c.on_loss(&t, SimTime::ZERO), 70);
    }

    #[test]
    fn test_k_and_plateau_follow_eq_1_and_2() {
        // W_max = 100, cwnd_epoch = 70: K = ∛(30/0.4) = ∛75 s, and W_cubic(K) = W_max.
        let mut c = Cubic {
            w_max: 100.0,
            ..Cubic::default()
        };
        c.begin_epoch(70.0, SimTime::ZERO);
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
    }

    #[test]
    fn test_loss_cuts_to_beta_flight_and_fast_convergence_lowers_w_max() {
        let mut t = tcb(1000, 100, 50);
        t.snd_max = 100;
        let mut c = Cubic::default();
        assert_eq!(c.on_loss(&t, SimTime::ZERO), 70); // 0.7 · 100
        assert_eq!(c.w_max, 100.0);
        // The next loss comes at cwnd 80 < W_max: W_max = 80 · 1.7 / 2 = 68 (§4.7).
        let mut t2 = tcb(1000, 80, 50);
        t2.snd_max = 80;
        assert_eq!(c.on_loss(&t2, SimTime::ZERO), 56);
        assert!((c.w_max - 68.0).abs() < 1e-12);
    }

    #[test]
    fn test_window_is_concave_then_convex_around_w_max() {
        // After a loss at 100 segments, cwnd 70 in congestion avoidance, RTT 0 (no
        // sample, so target = W_cubic(t)): ACKs 10 ms apart approach W_max from below
        // without passing it before t = K (concave region; cwnd chases the curve by
        // (target − cwnd)/cwnd per ACK, so it lags it by a little), then grow beyond it.
        let mut t = tcb(10_000, 70, 70);
        t.snd_max = 100;
        let mut c = Cubic {
            w_max: 100.0,
            ..Cubic::default()
        };
        let k = 75f64.cbrt();
        let mut at_k = 0.0;
        let mut now = SimTime::ZERO;
        for _ in 0..2000 {
            now += SimTime::from_ms(10);
            c.on_ack(&mut t, now, 1);
            if now.as_secs_f64() < k {
                assert!(t.cwnd() <= 100.0, "passed W_max before K: {}", t.cwnd());
            } else if at_k == 0.0 {
                at_k = t.cwnd();
            }
        }
        assert!(at_k > 97.0 && at_k <= 100.0, "cwnd at K = {at_k}");
        assert!(t.cwnd() > 110.0, "convex region after K: {}", t.cwnd());
    }
}
