//! Congestion control: how cwnd grows on new ACKs and how far it is cut on a loss.
//!
//! Read first: [`CongestionControl`]. Loss *recovery* (which segments to retransmit, when
//! recovery ends) is a separate concern, see `recovery.rs`. One controller per file, each
//! importing only this file's trait (never another controller, never the sender):
//!
//! | file | controller (`rfc` profile) |
//! |---|---|
//! | `aimd.rs` | RFC 5681 §3.1 AIMD |
//! | `cubic.rs` | CUBIC, RFC 9438 (the `ns2` profile's is Linux 2.6's, `ns2/linux/cubic.rs`) |
//! | `highspeed.rs` | HighSpeed TCP, RFC 3649 |
//! | `vegas.rs` | Vegas, Linux's rounds |
//! | `bbr.rs` | BBR v1 as ns-3.44's TcpBbr |
//! | `probe.rs` | test only: AIMD with a log of every hook call |
//!
//! A new controller is one new file here with a struct implementing
//! [`CongestionControl`], one variant of [`Cc`] (dispatched statically by `match`) and
//! one of [`CcKind`] (the scenario key `cc`).
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

pub mod aimd;
pub mod bbr;
pub mod cubic;
pub mod highspeed;
#[cfg(test)]
pub mod probe;
pub mod vegas;

pub use aimd::Aimd;

use crate::tcp::tcb::{Phase, Tcb};
use crate::tcp::CcKind;
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
        _rs: &crate::tcp::rate::RateSample,
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
    Cubic(cubic::Cubic),
    HighSpeed(highspeed::HighSpeed),
    Vegas(vegas::Vegas),
    Bbr(bbr::Bbr),
    /// Test-only controller with memory (`probe.rs`).
    #[cfg(test)]
    Probe(probe::Probe),
}

impl Cc {
    /// The controller a scenario's `cc` setting selects, with its default parameters.
    pub fn new(kind: CcKind) -> Self {
        match kind {
            CcKind::Aimd => Cc::Aimd(Aimd),
            CcKind::Cubic => Cc::Cubic(cubic::Cubic::default()),
            CcKind::HighSpeed => Cc::HighSpeed(highspeed::HighSpeed),
            CcKind::Vegas => Cc::Vegas(vegas::Vegas::default()),
            CcKind::Bbr => Cc::Bbr(bbr::Bbr::default()),
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
        rs: &crate::tcp::rate::RateSample,
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
