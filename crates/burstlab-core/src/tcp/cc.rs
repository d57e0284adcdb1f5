//! Congestion control: how cwnd grows on new ACKs and how far it is cut on a loss.
//!
//! Read first: [`CongestionControl`]. Loss *recovery* (which segments to retransmit, when
//! recovery ends) is a separate concern, see `recovery.rs`; a new controller (CUBIC,
//! HighSpeed, …) is one new file with a struct implementing [`CongestionControl`], one
//! variant of [`Cc`] (dispatched statically by `match`) and one of
//! [`CcKind`] (the scenario key `cc`).
//!
//! Only the sender calls a controller, on these events, each with the time:
//! - `on_ack`: an ACK of new data outside fast recovery, with the number of segments
//!   it acknowledged; the controller grows cwnd;
//! - `on_rtt_sample`: a valid (Karn) RTT measurement, after the RFC 6298 estimator took it;
//! - `on_loss`: a loss detected by duplicate ACKs (TD), before recovery changes cwnd;
//!   returns ssthresh;
//! - `on_timeout`: a retransmission timeout, before cwnd is reset to 1; returns ssthresh;
//! - `on_phase_change`: every change of [`Phase`], in order (after `on_loss` or
//!   `on_timeout` for the change they cause).
//!
//! A controller reads the control block; it may change cwnd only in `on_ack` (the loss
//! response sets cwnd from the returned ssthresh in the recovery strategy, and cwnd = 1
//! after a timeout in the sender).
//!
//! cwnd is an `f64` counted in segments and updated with ns-2's rules (`opencwnd`,
//! `windowOption_` 1): +1 per new ACK in slow start, +1/cwnd per new ACK in congestion
//! avoidance. IEEE-754 arithmetic without fast-math is deterministic, so runs are
//! bit-identical.

use super::tcb::{Phase, Tcb};
use super::CcKind;
use crate::units::SimTime;

/// A congestion controller working on the shared control block.
pub trait CongestionControl {
    /// Window growth on an ACK that acknowledges `acked_segs` new segments outside loss
    /// recovery (called once per ACK, not per acknowledged segment, as ns-2 and yu's `b`
    /// model).
    fn on_ack(&mut self, tcb: &mut Tcb, now: SimTime, acked_segs: u64);
    /// A valid RTT sample (Karn's rule applied; `tcb.rtt` already updated).
    fn on_rtt_sample(&mut self, _tcb: &Tcb, _now: SimTime, _rtt: SimTime) {}
    /// A delivery-rate sample (`rate.rs`; only for controllers the control block keeps
    /// rate state for), before loss recovery sees the ACK; `delivered` is the
    /// connection's delivered count.
    fn on_rate_sample(
        &mut self,
        _tcb: &mut Tcb,
        _now: SimTime,
        _rs: &super::rate::RateSample,
        _delivered: u64,
    ) {
    }
    /// The connection starts (before the initial window is sent).
    fn on_start(&mut self, _tcb: &mut Tcb) {}
    /// A loss detected by duplicate ACKs (TD). Returns the new ssthresh; `tcb` still holds
    /// the window the loss was detected at.
    fn on_loss(&mut self, tcb: &Tcb, now: SimTime) -> u32;
    /// A retransmission timeout (TO). Returns the new ssthresh; `tcb` still holds the
    /// window at the timeout.
    fn on_timeout(&mut self, tcb: &Tcb, now: SimTime) -> u32;
    /// The congestion phase changed from `from` to `to` at `now`.
    fn on_phase_change(&mut self, _tcb: &Tcb, _now: SimTime, _from: Phase, _to: Phase) {}
    fn name(&self) -> &'static str;
}

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

/// A controller's state as the cwnd trace shows it (`NaN` where it does not apply).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CcTrace {
    /// CUBIC's W_max (Linux: `last_max_cwnd`), segments.
    pub w_max_segments: f64,
    /// Start of CUBIC's current epoch, seconds (NaN outside an epoch).
    pub epoch_start_s: f64,
    /// CUBIC's K (RFC 9438 eq. 2): time from the epoch's start to W_max, seconds.
    pub k_s: f64,
    /// Vegas's base RTT, seconds.
    pub base_rtt_s: f64,
    /// Vegas's last diff: segments it estimates queued in the network.
    pub vegas_diff_segments: f64,
    /// BBR's mode: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT (NaN for others).
    pub bbr_mode: f64,
    /// BBR's pacing rate, segments per second.
    pub pacing_rate_sps: f64,
    /// BBR's bottleneck-bandwidth estimate, segments per second.
    pub btlbw_sps: f64,
    /// BBR's RTprop estimate, seconds.
    pub min_rtt_s: f64,
}

impl CcTrace {
    fn fields(&self) -> [f64; 9] {
        [
            self.w_max_segments,
            self.epoch_start_s,
            self.k_s,
            self.base_rtt_s,
            self.vegas_diff_segments,
            self.bbr_mode,
            self.pacing_rate_sps,
            self.btlbw_sps,
            self.min_rtt_s,
        ]
    }
    /// Bit-for-bit equality (NaN equals NaN): whether the trace needs a new row.
    pub fn same_as(&self, o: &CcTrace) -> bool {
        self.fields()
            .iter()
            .zip(o.fields().iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Default for CcTrace {
    fn default() -> Self {
        CcTrace {
            w_max_segments: f64::NAN,
            epoch_start_s: f64::NAN,
            k_s: f64::NAN,
            base_rtt_s: f64::NAN,
            vegas_diff_segments: f64::NAN,
            bbr_mode: f64::NAN,
            pacing_rate_sps: f64::NAN,
            btlbw_sps: f64::NAN,
            min_rtt_s: f64::NAN,
        }
    }
}

/// Statically dispatched congestion controller.
#[derive(Clone, Debug)]
pub enum Cc {
    Aimd(Aimd),
    Cubic(super::cc_cubic::Cubic),
    HighSpeed(super::cc_highspeed::HighSpeed),
    Vegas(super::cc_vegas::Vegas),
    Bbr(super::cc_bbr::Bbr),
    /// Test-only controller with memory (`cc_probe.rs`).
    #[cfg(test)]
    Probe(super::cc_probe::Probe),
}

impl Cc {
    /// The controller a scenario's `cc` setting selects, with its default parameters.
    pub fn new(kind: CcKind) -> Self {
        match kind {
            CcKind::Aimd => Cc::Aimd(Aimd),
            CcKind::Cubic => Cc::Cubic(super::cc_cubic::Cubic::default()),
            CcKind::HighSpeed => Cc::HighSpeed(super::cc_highspeed::HighSpeed),
            CcKind::Vegas => Cc::Vegas(super::cc_vegas::Vegas::default()),
            CcKind::Bbr => Cc::Bbr(super::cc_bbr::Bbr::default()),
        }
    }
}

impl Cc {
    /// The controller's state for the cwnd trace.
    pub fn trace_state(&self) -> CcTrace {
        let mut t = CcTrace::default();
        match self {
            Cc::Cubic(c) => {
                t.w_max_segments = c.w_max;
                t.epoch_start_s = c.t_epoch.map_or(f64::NAN, |e| e.as_secs_f64());
                if c.t_epoch.is_some() {
                    t.k_s = c.k;
                }
            }
            Cc::Vegas(v) => {
                if v.base_rtt.is_finite() {
                    t.base_rtt_s = v.base_rtt;
                }
                t.vegas_diff_segments = v.diff;
            }
            Cc::Bbr(b) => {
                t.bbr_mode = b.mode as u8 as f64;
                t.pacing_rate_sps = b.pacing_rate_sps;
                t.btlbw_sps = b.btlbw_sps;
                t.min_rtt_s = if b.min_rtt_s.is_finite() {
                    b.min_rtt_s
                } else {
                    f64::NAN
                };
            }
            _ => {}
        }
        t
    }
}

impl Default for Cc {
    fn default() -> Self {
        Cc::Aimd(Aimd)
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, tcb: &mut Tcb, now: SimTime, n: u64) {
        match self {
            Cc::Aimd(c) => c.on_ack(tcb, now, n),
            Cc::Cubic(c) => c.on_ack(tcb, now, n),
            Cc::HighSpeed(c) => c.on_ack(tcb, now, n),
            Cc::Vegas(c) => c.on_ack(tcb, now, n),
            Cc::Bbr(c) => c.on_ack(tcb, now, n),
            #[cfg(test)]
            Cc::Probe(c) => c.on_ack(tcb, now, n),
        }
    }
    #[inline]
    fn on_rtt_sample(&mut self, tcb: &Tcb, now: SimTime, rtt: SimTime) {
        match self {
            Cc::Aimd(c) => c.on_rtt_sample(tcb, now, rtt),
            Cc::Cubic(c) => c.on_rtt_sample(tcb, now, rtt),
            Cc::HighSpeed(c) => c.on_rtt_sample(tcb, now, rtt),
            Cc::Vegas(c) => c.on_rtt_sample(tcb, now, rtt),
            Cc::Bbr(c) => c.on_rtt_sample(tcb, now, rtt),
            #[cfg(test)]
            Cc::Probe(c) => c.on_rtt_sample(tcb, now, rtt),
        }
    }
    #[inline]
    fn on_rate_sample(
        &mut self,
        tcb: &mut Tcb,
        now: SimTime,
        rs: &super::rate::RateSample,
        delivered: u64,
    ) {
        if let Cc::Bbr(c) = self {
            c.on_rate_sample(tcb, now, rs, delivered);
        }
    }
    fn on_start(&mut self, tcb: &mut Tcb) {
        if let Cc::Bbr(c) = self {
            c.on_start(tcb);
        }
    }
    #[inline]
    fn on_loss(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        match self {
            Cc::Aimd(c) => c.on_loss(tcb, now),
            Cc::Cubic(c) => c.on_loss(tcb, now),
            Cc::HighSpeed(c) => c.on_loss(tcb, now),
            Cc::Vegas(c) => c.on_loss(tcb, now),
            Cc::Bbr(c) => c.on_loss(tcb, now),
            #[cfg(test)]
            Cc::Probe(c) => c.on_loss(tcb, now),
        }
    }
    #[inline]
    fn on_timeout(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        match self {
            Cc::Aimd(c) => c.on_timeout(tcb, now),
            Cc::Cubic(c) => c.on_timeout(tcb, now),
            Cc::HighSpeed(c) => c.on_timeout(tcb, now),
            Cc::Vegas(c) => c.on_timeout(tcb, now),
            Cc::Bbr(c) => c.on_timeout(tcb, now),
            #[cfg(test)]
            Cc::Probe(c) => c.on_timeout(tcb, now),
        }
    }
    #[inline]
    fn on_phase_change(&mut self, tcb: &Tcb, now: SimTime, from: Phase, to: Phase) {
        match self {
            Cc::Aimd(c) => c.on_phase_change(tcb, now, from, to),
            Cc::Cubic(c) => c.on_phase_change(tcb, now, from, to),
            Cc::HighSpeed(c) => c.on_phase_change(tcb, now, from, to),
            Cc::Vegas(c) => c.on_phase_change(tcb, now, from, to),
            Cc::Bbr(c) => c.on_phase_change(tcb, now, from, to),
            #[cfg(test)]
            Cc::Probe(c) => c.on_phase_change(tcb, now, from, to),
        }
    }
    fn name(&self) -> &'static str {
        match self {
            Cc::Aimd(c) => c.name(),
            Cc::Cubic(c) => c.name(),
            Cc::HighSpeed(c) => c.name(),
            Cc::Vegas(c) => c.name(),
            Cc::Bbr(c) => c.name(),
            #[cfg(test)]
            Cc::Probe(c) => c.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
