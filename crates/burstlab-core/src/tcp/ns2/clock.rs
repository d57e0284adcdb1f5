//! ns-2's coarse clock for the `ns2` profile's sender (`tcp/ns2.rs`): the clock's boot
//! phase (`boot_time_`, drawn from ns-2's MRG32k3a `defaultRNG`), and the RTT estimator
//! and retransmission timer routines of tcp.cc (`rtt_update`, `rtt_timeout`,
//! `rtt_backoff`, `set_rtx_timer`, `reset_rtx_timer`), in ticks of `tcpTick_`.
//!
//! Read first: [`Ns2Sender::rtt_update`] (a sample in ticks, the integer SRTT/RTTVAR
//! filter), then `rtt_timeout` and `rtt_backoff`. The module docs of `tcp/ns2.rs` say
//! how this clock differs from the RFC profile's.

use super::Ns2Sender;
use crate::units::SimTime;

/// ns-2's `defaultRNG` after `seed k` (MRG32k3a with all six seeds `k`): its first
/// uniform in `[0, 1)`. ns-2 draws `boot_time_` as `tcpTick_ × U` when an agent is
/// reset; the exported script re-seeds with `k` and resets each agent at time 0, so
/// burstlab computes the same phase.
pub fn mrg32k3a_first_u01(k: u32) -> f64 {
    const M1: f64 = 4_294_967_087.0;
    const M2: f64 = 4_294_944_443.0;
    let norm = 1.0 / (M1 + 1.0);
    let s = k as f64;
    let mut p1 = 1_403_580.0 * s - 810_728.0 * s;
    p1 -= (p1 / M1).trunc() * M1;
    if p1 < 0.0 {
        p1 += M1;
    }
    let mut p2 = 527_612.0 * s - 1_370_589.0 * s;
    p2 -= (p2 / M2).trunc() * M2;
    if p2 < 0.0 {
        p2 += M2;
    }
    if p1 > p2 {
        (p1 - p2) * norm
    } else {
        (p1 - p2 + M1) * norm
    }
}

/// The ns-2 RNG seed burstlab and the exported script use for flow `flow`'s clock phase,
/// from the master seed and replication (the exporter computes the same number).
pub fn boot_seed(seed: u64, replication: u64, flow: u32) -> u32 {
    const M: u128 = 2_147_483_646;
    let base = (seed as u128 * 1_000_003 + replication as u128) % M;
    ((base + 7919 * (flow as u128 + 1)) % M + 1) as u32
}

/// ns-2's `boot_time_` for a flow: `tick × U` (see [`mrg32k3a_first_u01`]).
pub fn boot_phase(seed: u64, replication: u64, flow: u32, tick: SimTime) -> f64 {
    tick.as_secs_f64() * mrg32k3a_first_u01(boot_seed(seed, replication, flow))
}

/// Seconds of ns-2's double clock as burstlab's integer time (saturating).
pub(super) fn secs(s: f64) -> SimTime {
    SimTime::from_secs_f64(s).unwrap_or(SimTime::MAX)
}

impl Ns2Sender {
    /// `reset_rtx_timer(mild, backoff)`.
    pub(super) fn reset_rtx_timer(&mut self, now: SimTime, mild: bool, backoff: bool) {
        if backoff {
            self.rtt_backoff();
        }
        self.set_rtx_timer(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    pub(super) fn set_rtx_timer(&mut self, now: SimTime) {
        // Every new ACK re-arms the timer, but `rtt_timeout()` moves only when its inputs
        // do (a new RTT estimate or a backoff): its conversion to picoseconds (a float
        // multiply, a rounding call, two range checks) is redone only then. The result is
        // the same value `secs(self.rtt_timeout())` gives.
        let key = (self.t_backoff, self.t_rtxcur.to_bits());
        let span = match self.rto_memo {
            Some((k, span)) if k == key => span,
            _ => {
                let span = secs(self.rtt_timeout());
                self.rto_memo = Some((key, span));
                span
            }
        };
        debug_assert_eq!(span, secs(self.rtt_timeout()));
        self.rtx = Some(now + span);
    }

    /// `rtt_timeout()` (rfc2988_ true).
    pub(super) fn rtt_timeout(&self) -> f64 {
        let b = self.t_backoff as f64;
        let mut t = if self.t_rtxcur < self.minrto {
            self.minrto * b
        } else {
            self.t_rtxcur * b
        };
        if t > self.maxrto {
            t = self.maxrto;
        }
        if t < 2.0 * self.tick {
            t = 2.0 * self.tick;
        }
        t
    }

    /// `rtt_update(tao)`: a sample in ticks of the coarse clock, then the integer
    /// SRTT/RTTVAR filter (T_SRTT_BITS 3, T_RTTVAR_BITS 2, rttvar_exp_ 2).
    pub(super) fn rtt_update(&mut self, now: SimTime, tao: f64) {
        let t_rtt = self.rtt_ticks(now, tao);
        if self.t_srtt != 0 {
            let mut delta = self.srtt_step(t_rtt);
            if delta < 0 {
                delta = delta.wrapping_neg();
            }
            let delta = delta.wrapping_sub((self.t_rttvar >> 2) as i16);
            self.t_rttvar = self.t_rttvar.wrapping_add(delta as i32);
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
        self.set_rtxcur();
    }

    /// An RTT sample of `tao` seconds ending `now` in ticks of the coarse clock, at
    /// least one: the ticks of `tcpTick_` crossed since the send, the clock booted at
    /// `boot_time_` (tcp.cc `rtt_update`; `LinuxTcpAgent::rtt_update` takes it too).
    pub(super) fn rtt_ticks(&self, now: SimTime, tao: f64) -> i32 {
        let sendtime = now.as_secs_f64() - tao + self.boot_time;
        let tickoff = sendtime % self.tick;
        (((tao + tickoff) / self.tick) as i32).max(1)
    }

    /// The SRTT half of both filters: SRTT (×8) moves by the sample minus SRTT/8, and
    /// stays at least 1; returns that difference, which ns-2 keeps in a 16-bit `short`.
    pub(super) fn srtt_step(&mut self, t_rtt: i32) -> i16 {
        let delta = (t_rtt - (self.t_srtt >> 3)) as i16;
        self.t_srtt = self.t_srtt.wrapping_add(delta as i32);
        if self.t_srtt <= 0 {
            self.t_srtt = 1;
        }
        delta
    }

    /// `t_rtxcur_` from the filter: (SRTT + 4·RTTVAR) ticks, SRTT kept ×8 and RTTVAR ×4.
    pub(super) fn set_rtxcur(&mut self) {
        let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        self.t_rtxcur = ticks as f64 * self.tick;
    }

    /// `rtt_backoff()`: double while below 64 (`max_backoff`) or while the timeout is
    /// below `max_rto`; beyond 8, fold SRTT into RTTVAR so the next sample restarts it.
    pub(super) fn rtt_backoff(&mut self) {
        if self.t_backoff < self.backoff_cap || self.rtt_timeout() < self.maxrto {
            self.t_backoff = self.t_backoff.saturating_mul(2);
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> 3;
            self.t_srtt = 0;
        }
    }
}
