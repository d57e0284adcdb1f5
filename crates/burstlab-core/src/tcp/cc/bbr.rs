//! BBR v1 for the `rfc` profile, as ns-3.44's `TcpBbr` behaves
//! (draft-cardwell-iccrg-bbr-congestion-control-00, cited as "BBR §").
//!
//! Read first: [`Bbr::on_rate_sample`], called by the sender on every ACK that yields a
//! delivery-rate sample (`rate.rs`). It updates the model — BtlBw, the windowed maximum
//! of the delivery rate over 10 rounds (§4.1.1), and RTprop, the least RTT of the last
//! 10 s (§4.1.2) — then the mode (STARTUP, DRAIN, PROBE_BW, PROBE_RTT; §4.3), and sets
//! the pacing rate `pacing_gain · BtlBw` (§4.2.1) and cwnd `cwnd_gain · BDP + 3`
//! segments (§4.2.3, the +3 being ns-3's quantization budget of three send quanta of
//! one segment each).
//!
//! Units: rates in segments per second, times in seconds as `f64`, windows in segments.
//! Differences from ns-3's TcpBbr, named: PROBE_BW's first gain-cycle phase is not drawn
//! at random but fixed at index 2 (the first 1.0 phase after 3/4), so runs need no
//! random substream. Loss recovery follows ns-3's `TcpBbr` (its `CongestionStateSet`,
//! `SetCwnd` and `ModulateCwndForRecovery`): entering fast recovery saves cwnd and sets
//! it to the segments in the network plus one (packet conservation, BBR §4.2.3.4),
//! which holds until the next round starts; the model's cwnd rule then applies on
//! every rate sample in recovery and after a timeout as outside them (in recovery
//! after taking out the segments newly marked lost since the last sample), and leaving
//! recovery restores the saved cwnd (at the next rate sample).

use super::CongestionControl;
use crate::tcp::rate::RateSample;
use crate::tcp::tcb::{Phase, Tcb};
use crate::units::SimTime;

/// 2/ln 2 (BBR §4.3.1.1): the smallest gain that doubles the delivery rate per round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
/// PROBE_BW's pacing-gain cycle (BBR §4.3.3).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// BtlBw filter window, rounds (BBR §4.1.1.4).
pub const BTLBW_ROUNDS: u64 = 10;
/// RTprop filter window (BBR §4.1.2.3).
pub const RTPROP_WINDOW_S: f64 = 10.0;
/// Time spent in PROBE_RTT (BBR §4.3.4).
pub const PROBE_RTT_S: f64 = 0.2;
/// Minimum cwnd, segments (BBR §4.2.3.1).
pub const MIN_CWND: f64 = 4.0;
/// PROBE_BW's cycle index after DRAIN (ns-3 draws it uniformly; see the module doc).
pub const FIRST_CYCLE_INDEX: usize = 2;

/// BBR's operating mode (BBR §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// BBR's state.
#[derive(Clone, Debug)]
pub struct Bbr {
    pub mode: Mode,
    /// BtlBw: windowed max of the delivery rate, segments/s (0 before the first sample).
    pub btlbw_sps: f64,
    /// The max filter's samples (round, rate), best first (Linux/ns-3 minmax of three).
    filt: [(u64, f64); 3],
    /// RTprop, seconds (infinite before the first sample).
    pub min_rtt_s: f64,
    min_rtt_stamp_s: f64,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// Current pacing rate, segments/s.
    pub pacing_rate_sps: f64,
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    filled_pipe: bool,
    full_bw_sps: f64,
    full_bw_count: u32,
    pub cycle_index: usize,
    cycle_stamp_s: f64,
    probe_rtt_done_s: Option<f64>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    /// Segments delivered so far (from the rate estimator).
    delivered: u64,
    init_cwnd: f64,
    /// In the first round of fast recovery: cwnd only keeps what is in the network
    /// plus what was acked (BBR §4.2.3.4).
    packet_conservation: bool,
    /// Fast recovery ended: restore `prior_cwnd` at the next rate sample (ns-3
    /// `CA_EVENT_COMPLETE_CWR` → `RestoreCwnd`).
    restore_pending: bool,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr {
            mode: Mode::Startup,
            btlbw_sps: 0.0,
            filt: [(0, 0.0); 3],
            min_rtt_s: f64::INFINITY,
            min_rtt_stamp_s: 0.0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate_sps: 0.0,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw_sps: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp_s: 0.0,
            probe_rtt_done_s: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            delivered: 0,
            init_cwnd: 0.0,
            packet_conservation: false,
            restore_pending: false,
        }
    }
}

impl Bbr {
    /// BDP at `gain`, segments (BBR §4.2.3.2); the initial cwnd before any estimate.
    fn inflight(&self, gain: f64) -> f64 {
        if !self.min_rtt_s.is_finite() || self.btlbw_sps == 0.0 {
            return self.init_cwnd;
        }
        gain * self.btlbw_sps * self.min_rtt_s
    }

    /// Windowed max filter over `BTLBW_ROUNDS` rounds (Kathleen Nichols' algorithm as
    /// Linux's lib/minmax.c and ns-3's windowed-filter.h run it).
    fn filter_update(&mut self, round: u64, v: f64) {
        let f = &mut self.filt;
        if v >= f[0].1 || round - f[2].0 > BTLBW_ROUNDS {
            *f = [(round, v); 3];
        } else {
            if v >= f[1].1 {
                f[1] = (round, v);
                f[2] = (round, v);
            } else if v >= f[2].1 {
                f[2] = (round, v);
            }
            let dt = round - f[0].0;
            if dt > BTLBW_ROUNDS {
                f[0] = f[1];
                f[1] = f[2];
                f[2] = (round, v);
                if round - f[0].0 > BTLBW_ROUNDS {
                    f[0] = f[1];
                    f[1] = f[2];
                }
            } else if f[1].0 == f[0].0 && dt > BTLBW_ROUNDS / 4 {
                f[1] = (round, v);
                f[2] = (round, v);
            } else if f[2].0 == f[1].0 && dt > BTLBW_ROUNDS / 2 {
                f[2] = (round, v);
            }
        }
        self.btlbw_sps = self.filt[0].1;
    }

    fn enter_probe_bw(&mut self, now_s: f64) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        self.cycle_index = FIRST_CYCLE_INDEX;
        self.cycle_stamp_s = now_s;
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    fn set_pacing(&mut self, tcb: &mut Tcb, gain: f64) {
        let rate = gain * self.btlbw_sps;
        // BBR §4.2.1: before the pipe is full the pacing rate only grows.
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate_sps) {
            self.pacing_rate_sps = rate;
            tcb.pacer.set_rate_sps(rate);
        }
    }

    /// The sender's hook: one delivery-rate sample at `now`.
    fn rate_sample(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample, delivered: u64) {
        let now_s = now.as_secs_f64();
        self.delivered = delivered;
        // Segments in the network (RFC 6675 pipe for SACK), as ns-3's bytesInFlight.
        let inflight = tcb.pipe as f64;
        if self.restore_pending {
            self.restore_pending = false;
            tcb.set_cwnd(tcb.cwnd().max(self.prior_cwnd));
        }
        // Round counting (BBR §4.1.1.3).
        self.round_start = false;
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = delivered;
            self.round_count += 1;
            self.round_start = true;
            self.probe_rtt_round_done = true;
            self.packet_conservation = false;
        }
        // BtlBw (§4.1.1.5); burstlab's infinite sources are never application limited.
        self.filter_update(self.round_count, rs.rate_sps);
        // PROBE_BW gain cycling (§4.3.3.5).
        if self.mode == Mode::ProbeBw {
            let elapsed = now_s - self.cycle_stamp_s > self.min_rtt_s;
            let g = self.pacing_gain;
            let next = if g > 1.0 {
                elapsed && inflight >= self.inflight(g)
            } else if g < 1.0 {
                elapsed || inflight <= self.inflight(1.0)
            } else {
                elapsed
            };
            if next {
                self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
                self.cycle_stamp_s = now_s;
                self.pacing_gain = GAIN_CYCLE[self.cycle_index];
            }
        }
        // Full pipe (§4.3.2.2): three rounds without 25 % growth.
        if !self.filled_pipe && self.round_start {
            if self.btlbw_sps >= self.full_bw_sps * 1.25 {
                self.full_bw_sps = self.btlbw_sps;
                self.full_bw_count = 0;
            } else {
                self.full_bw_count += 1;
                if self.full_bw_count >= 3 {
                    self.filled_pipe = true;
                }
            }
        }
        // STARTUP → DRAIN → PROBE_BW (§4.3.2.3, §4.3.3).
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && inflight <= self.inflight(1.0) {
            self.enter_probe_bw(now_s);
        }
        // RTprop (§4.1.2.3) and PROBE_RTT (§4.3.4).
        let expired = now_s > self.min_rtt_stamp_s + RTPROP_WINDOW_S;
        if let Some(r) = rs.rtt {
            let r = r.as_secs_f64();
            if r <= self.min_rtt_s || expired {
                self.min_rtt_s = r;
                self.min_rtt_stamp_s = now_s;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(tcb);
            self.probe_rtt_done_s = None;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done_s {
                None if inflight <= MIN_CWND => {
                    self.probe_rtt_done_s = Some(now_s + PROBE_RTT_S);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = delivered;
                }
                Some(done) if self.probe_rtt_round_done && now_s > done => {
                    self.min_rtt_stamp_s = now_s;
                    tcb.set_cwnd(tcb.cwnd().max(self.prior_cwnd));
                    if self.filled_pipe {
                        self.enter_probe_bw(now_s);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
                _ => {}
            }
        }
        self.set_pacing(tcb, self.pacing_gain);
        // cwnd (§4.2.3), on every sample: in the first round of fast recovery packet
        // conservation (§4.2.3.4), otherwise the model's rule, also in recovery and
        // after a timeout (ns-3 TcpBbr::SetCwnd).
        let in_recovery = tcb.phase() == Phase::FastRecovery;
        if in_recovery && tcb.lost_since_sample > 0 {
            // Segments newly marked lost leave cwnd (ns-3 ModulateCwndForRecovery,
            // Linux bbr_set_cwnd_to_recover_or_restore).
            tcb.set_cwnd((tcb.cwnd() - tcb.lost_since_sample as f64).max(1.0));
        }
        let conserve = self.packet_conservation && in_recovery;
        if conserve {
            let c = tcb.cwnd().max(inflight + rs.acked as f64);
            tcb.set_cwnd(if self.mode == Mode::ProbeRtt {
                c.min(MIN_CWND)
            } else {
                c
            });
        } else {
            let target = self.inflight(self.cwnd_gain) + 3.0;
            let w = tcb.cwnd();
            let acked = rs.acked as f64;
            let mut c = if self.filled_pipe {
                (w + acked).min(target)
            } else if w < target || (delivered as f64) < self.init_cwnd {
                w + acked
            } else {
                w
            };
            c = c.max(MIN_CWND);
            if self.mode == Mode::ProbeRtt {
                c = c.min(MIN_CWND);
            }
            tcb.set_cwnd(c);
        }
    }

    /// ns-3 `SaveCwnd`: outside recovery and PROBE_RTT the current cwnd, otherwise the
    /// larger of it and the one saved.
    fn save_cwnd(&mut self, tcb: &Tcb) {
        let open = matches!(tcb.phase(), Phase::SlowStart | Phase::CongestionAvoidance);
        self.prior_cwnd = if open && self.mode != Mode::ProbeRtt {
            tcb.cwnd()
        } else {
            self.prior_cwnd.max(tcb.cwnd())
        };
    }

    /// The initial pacing rate (BBR §4.2.1: high_gain · initial cwnd / RTT, with a
    /// 1 ms RTT before any sample, as Linux and ns-3 assume).
    fn start(&mut self, tcb: &mut Tcb) {
        self.init_cwnd = tcb.cwnd();
        let rate = HIGH_GAIN * self.init_cwnd / 0.001;
        self.pacing_rate_sps = rate;
        tcb.pacer.set_rate_sps(rate);
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, _tcb: &mut Tcb, _now: SimTime, _acked_segs: u64) {
        // BBR sets cwnd from its model in `on_rate_sample`.
    }
    fn on_rate_sample(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample, delivered: u64) {
        self.rate_sample(tcb, now, rs, delivered);
    }
    fn on_start(&mut self, tcb: &mut Tcb) {
        self.start(tcb);
    }
    fn on_loss(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // Entering fast recovery (ns-3 CongestionStateSet(CA_RECOVERY)): save cwnd, and
        // the recovery strategy sets cwnd = ssthresh = segments in the network + 1
        // (packet conservation, BBR §4.2.3.4).
        self.save_cwnd(tcb);
        self.packet_conservation = true;
        (tcb.pipe + 1).min(u32::MAX as u64) as u32
    }
    fn on_timeout(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        // ns-3 CongestionStateSet(CA_LOSS): save cwnd. The sender then sets cwnd = 1 and
        // the model's rule regrows it; ssthresh is kept out of its way.
        self.save_cwnd(tcb);
        (tcb.wm.min(u32::MAX as u64)) as u32
    }
    fn on_phase_change(&mut self, _tcb: &Tcb, _now: SimTime, from: Phase, to: Phase) {
        if from == Phase::FastRecovery
            && matches!(to, Phase::SlowStart | Phase::CongestionAvoidance)
        {
            self.packet_conservation = false;
            self.restore_pending = true;
        }
    }
    fn name(&self) -> &'static str {
        "bbr"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{Profile, TcpConfig, Variant};

    fn sample(rate: f64, prior: u64, rtt_ms: u64) -> RateSample {
        RateSample {
            delivered: 10,
            interval: SimTime::from_ms(10),
            rate_sps: rate,
            prior_delivered: prior,
            rtt: Some(SimTime::from_ms(rtt_ms)),
            acked: 1,
        }
    }

    #[test]
    fn test_max_filter_keeps_best_of_ten_rounds() {
        let mut b = Bbr::default();
        b.filter_update(1, 100.0);
        b.filter_update(2, 50.0);
        assert_eq!(b.btlbw_sps, 100.0);
        for r in 3..=11 {
            b.filter_update(r, 60.0);
        }
        assert_eq!(b.btlbw_sps, 100.0);
        b.filter_update(12, 60.0); // round 1's sample is older than 10 rounds
        assert_eq!(b.btlbw_sps, 60.0);
    }

    #[test]
    fn test_startup_drain_probe_bw_on_a_flat_rate() {
        let mut cfg = TcpConfig::defaults(Variant::Sack, Profile::Rfc);
        cfg.wm = 1000;
        cfg.init_ssthresh = 1000;
        let mut t = Tcb::new(&cfg, SimTime::ZERO);
        let mut b = Bbr::default();
        b.on_start(&mut t);
        assert_eq!(b.mode, Mode::Startup);
        // Rounds at a constant 1000 seg/s: three rounds without growth fill the pipe.
        let mut delivered = 0;
        for round in 0..5u64 {
            delivered += 10;
            t.snd_una = delivered;
            t.snd_max = delivered + 100;
            t.pipe = 100;
            b.on_rate_sample(
                &mut t,
                SimTime::from_ms(100 * (round + 1)),
                &sample(1000.0, delivered - 10, 50),
                delivered,
            );
        }
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_rate_sps - 1000.0 / HIGH_GAIN).abs() < 1e-9);
        // In flight falls to the BDP (1000 seg/s · 50 ms = 50): PROBE_BW at cycle 2.
        t.snd_max = t.snd_una + 50;
        t.pipe = 50;
        delivered += 10;
        b.on_rate_sample(
            &mut t,
            SimTime::from_ms(700),
            &sample(1000.0, delivered - 10, 50),
            delivered,
        );
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.cycle_index, FIRST_CYCLE_INDEX);
        assert_eq!(b.pacing_rate_sps, 1000.0);
        // cwnd is capped at cwnd_gain · BDP + 3 = 103.
        assert!(t.cwnd() <= 103.0);
    }

    #[test]
    fn test_probe_rtt_after_ten_seconds() {
        let mut cfg = TcpConfig::defaults(Variant::Sack, Profile::Rfc);
        cfg.wm = 1000;
        let mut t = Tcb::new(&cfg, SimTime::ZERO);
        let mut b = Bbr::default();
        b.on_start(&mut t);
        t.snd_max = 100;
        t.pipe = 100;
        b.on_rate_sample(&mut t, SimTime::from_ms(50), &sample(1000.0, 0, 50), 10);
        // Later samples all have a larger RTT: RTprop expires after 10 s.
        b.on_rate_sample(&mut t, SimTime::from_secs(11), &sample(1000.0, 10, 80), 20);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert!(t.cwnd() <= MIN_CWND);
        assert!((b.min_rtt_s - 0.08).abs() < 1e-12);
    }
}
