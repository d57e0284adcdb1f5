//! Linux 2.6's CUBIC module (tcp_cubic.c v2.1 as ns-2.35 ships it) for
//! `Agent/TCP/Linux`: the `ns2` profile's `cc = "cubic"`.
//!
//! **Why there are two CUBICs.** The `rfc` profile's `cc = "cubic"` is `cc/cubic.rs`,
//! RFC 9438 in `f64`. This one reproduces what ns-2.35 runs, integer for integer, so that
//! `tests/test_ns2_linux_cc.py` can compare it with Debian's `ns` event by event; it
//! differs from RFC 9438 on the same ACKs: β = 819/1024 (not 0.7) applied to cwnd (not
//! FlightSize), the curve aimed at W(t) (not W(t + RTT)) in BIC's integer units with
//! Linux's ∛, its own TCP-friendly estimate (`beta_scale`), the delayed-ACK ratio, the
//! 1/32 s limit on recomputing `cnt`, `cnt = 50` before the first loss, and integer
//! `snd_cwnd` growth only while the window is full. `cc/cubic.rs`'s header lists the
//! same differences from its side.

use super::tp::{CaState, LinuxTp};
use crate::tcp::cc::CcTrace;

/// Linux 2.6 CUBIC v2.1 as ns-2.35 ships it (tcp/linux/src/tcp_cubic.c): BIC's integer
/// cubic with `bic_scale` 41 (C = 0.4), β = 819/1024, fast convergence, TCP
/// friendliness and the delayed-ACK ratio estimate. Without TCP timestamps (ns-2's
/// default) `delay_min` stays 0.
#[derive(Clone, Debug, Default)]
pub struct LinuxCubic {
    pub cnt: u32,
    pub last_max_cwnd: u32,
    pub loss_cwnd: u32,
    pub last_cwnd: u32,
    pub last_time: u32,
    pub bic_origin_point: u32,
    pub bic_k: u32,
    pub delay_min: u32,
    pub epoch_start: u32,
    pub ack_cnt: u32,
    pub tcp_cwnd: u32,
    pub delayed_ack: u32,
}

const BICTCP_BETA_SCALE: u32 = 1024;
const BICTCP_HZ: u32 = 10;
const CUBIC_BETA: u32 = 819;
const BIC_SCALE: u32 = 41;
const MAX_INCREMENT: u32 = 16;
const ACK_RATIO_SHIFT: u32 = 4;
const HZ: u32 = 1000;
/// `beta_scale = 8·(1024 + β)/3/(1024 − β)` (cubictcp_register).
const BETA_SCALE: u32 = 8 * (BICTCP_BETA_SCALE + CUBIC_BETA) / 3 / (BICTCP_BETA_SCALE - CUBIC_BETA);
/// `cube_rtt_scale = bic_scale · 10`.
const CUBE_RTT_SCALE: u32 = BIC_SCALE * 10;
/// `cube_factor = 2^(10 + 3·BICTCP_HZ) / (bic_scale · 10)`.
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE as u64 * 10);

/// Index of the most significant set bit, 1-based (`fls64`).
fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `div64_64` of ns-linux-c.c: a 64-by-64 division through a 32-bit divisor.
fn div64_64(mut dividend: u64, divisor: u64) -> u64 {
    let high = (divisor >> 32) as u32;
    let d = if high != 0 {
        let shift = 32 - high.leading_zeros();
        dividend >>= shift;
        (divisor >> shift) as u32
    } else {
        divisor as u32
    };
    dividend / d as u64
}

/// `cubic_root`: a table lookup and one Newton–Raphson step (Linux's integer ∛).
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = fls64(a);
    if b < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let mut x = ((V[shift] as u32 + 10) << b) >> 6;
    x = (2u32.wrapping_mul(x))
        .wrapping_add(div64_64(a, x as u64 * (x.wrapping_sub(1)) as u64) as u32);
    ((x as u64 * 341) >> 10) as u32
}

impl LinuxCubic {
    /// `bictcp_reset` (also `init`).
    pub(super) fn reset(&mut self) {
        *self = LinuxCubic {
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            ..LinuxCubic::default()
        };
    }

    /// `bictcp_update`: the ACK count per increment, `cnt`.
    pub(super) fn update(&mut self, cwnd: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(1);
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.bic_k = 0;
                self.bic_origin_point = cwnd;
            } else {
                self.bic_k = cubic_root(CUBE_FACTOR * (self.last_max_cwnd - cwnd) as u64);
                self.bic_origin_point = self.last_max_cwnd;
            }
        }
        // t in units of 2^-10 s since the epoch began.
        let t = ((now
            .wrapping_add(self.delay_min >> 3)
            .wrapping_sub(self.epoch_start) as u64)
            << BICTCP_HZ)
            / HZ as u64;
        let t = t as u32;
        let offs = if t < self.bic_k {
            (self.bic_k - t) as u64
        } else {
            (t - self.bic_k) as u64
        };
        let delta = ((CUBE_RTT_SCALE as u64)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        let bic_target = if t < self.bic_k {
            self.bic_origin_point.wrapping_sub(delta)
        } else {
            self.bic_origin_point.wrapping_add(delta)
        };
        self.cnt = if bic_target > cwnd {
            cwnd / (bic_target - cwnd)
        } else {
            cwnd.wrapping_mul(100)
        };
        if self.delay_min > 0 {
            let min_cnt = (cwnd * HZ * 8) / (10 * MAX_INCREMENT * self.delay_min);
            if self.cnt < min_cnt && t >= self.bic_k {
                self.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        // TCP friendliness.
        let d = (cwnd * BETA_SCALE) >> 3;
        while d > 0 && self.ack_cnt > d {
            self.ack_cnt -= d;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            if self.cnt > max_cnt {
                self.cnt = max_cnt;
            }
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1);
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }

    /// `bictcp_cong_avoid`.
    pub(super) fn cong_avoid(&mut self, tp: &mut LinuxTp, in_flight: u32) {
        if in_flight < tp.snd_cwnd {
            return; // !tcp_is_cwnd_limited
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            tp.slow_start();
        } else {
            self.update(tp.snd_cwnd, tp.jiffies);
            if tp.snd_cwnd_cnt >= self.cnt {
                if tp.snd_cwnd < tp.snd_cwnd_clamp {
                    tp.snd_cwnd += 1;
                }
                tp.snd_cwnd_cnt = 0;
            } else {
                tp.snd_cwnd_cnt += 1;
            }
        }
    }

    /// `bictcp_recalc_ssthresh`.
    pub(super) fn ssthresh(&mut self, tp: &LinuxTp) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if tp.snd_cwnd < self.last_max_cwnd {
            (tp.snd_cwnd * (BICTCP_BETA_SCALE + CUBIC_BETA)) / (2 * BICTCP_BETA_SCALE)
        } else {
            tp.snd_cwnd
        };
        self.loss_cwnd = tp.snd_cwnd;
        ((tp.snd_cwnd * CUBIC_BETA) / BICTCP_BETA_SCALE).max(2)
    }

    /// The module's state for the cwnd trace.
    pub(super) fn trace(&self, t: &mut CcTrace) {
        t.w_max_segments = self.last_max_cwnd as f64;
        if self.epoch_start != 0 {
            t.epoch_start_s = self.epoch_start as f64 / HZ as f64;
            // bic_K is in units of 2^-BICTCP_HZ s (tcp_cubic.c bictcp_update).
            t.k_s = self.bic_k as f64 / (1u32 << BICTCP_HZ) as f64;
        }
    }

    /// `bictcp_acked`: the packets/ACK ratio, a moving average ×16.
    pub(super) fn pkts_acked(&mut self, tp: &LinuxTp, cnt: u32) {
        if cnt > 0 && tp.ca_state == CaState::Open {
            let c = cnt.wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ns2::linux::{LinuxAgent, LinuxCa};

    #[test]
    fn test_cubic_root_matches_the_real_cube_root_closely() {
        for a in [1u64, 8, 27, 1000, 1 << 20, 123_456_789, 1 << 40, 75 << 30] {
            let r = cubic_root(a) as f64;
            let exact = (a as f64).cbrt();
            assert!(
                (r - exact).abs() <= 1.0 + exact * 0.002,
                "cbrt({a}) = {r}, {exact}"
            );
        }
    }

    #[test]
    fn test_linux_cubic_cuts_to_beta_and_remembers_last_max_cwnd() {
        let mut a = LinuxAgent::new(LinuxCa::Cubic(LinuxCubic::default()), 1000, 2);
        a.ca.init(&mut a.tp);
        a.tp.snd_cwnd = 100;
        let tp = a.tp;
        // β = 819/1024: ⌊100·819/1024⌋ = 79.
        assert_eq!(a.ca.ssthresh(&tp), 79);
        let s = a.trace_state();
        assert_eq!(s.w_max_segments, 100.0);
        assert!(s.epoch_start_s.is_nan());
        // The next loss below W_max: fast convergence, W_max = 80·(1024 + 819)/2048 = 71.
        a.tp.snd_cwnd = 80;
        let tp = a.tp;
        assert_eq!(a.ca.ssthresh(&tp), 63);
        assert_eq!(a.trace_state().w_max_segments, 71.0);
    }
}
