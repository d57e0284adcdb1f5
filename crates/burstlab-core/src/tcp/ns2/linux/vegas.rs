//! Linux's TCP Vegas module (tcp_vegas.c as ns-2.35 ships it) for `Agent/TCP/Linux`.

use super::tp::LinuxTp;
use crate::tcp::cc::CcTrace;

/// Linux's TCP Vegas (tcp_vegas.c as ns-2.35 ships it): once per RTT (when the ACK
/// passes the `snd_nxt` recorded at the start of the round) compare the expected and
/// actual rates through `diff` = old_wnd·(1 − baseRTT/minRTT)·2 (α = 2, β = 4, γ = 1
/// packets, scaled by 2); RTT samples in µs from the send time of the segment an ACK of
/// new data acknowledges (ns-2 `tss[]`, `bugfix_ts_`); Reno outside `TCP_CA_Open`, or
/// with fewer than three samples in the round.
#[derive(Clone, Debug, Default)]
pub struct LinuxVegas {
    pub beg_snd_una: u32,
    pub beg_snd_nxt: u32,
    pub beg_snd_cwnd: u32,
    pub doing_vegas_now: bool,
    pub cnt_rtt: u32,
    pub min_rtt_us: u32,
    pub base_rtt_us: u32,
    /// The last round's `diff` (segments · 2, wrapping as the module computes it), for
    /// the controller trace only.
    pub last_diff: Option<u32>,
}

const V_PARAM_SHIFT: u32 = 1;
const V_ALPHA: u32 = 2 << V_PARAM_SHIFT;
const V_BETA: u32 = 4 << V_PARAM_SHIFT;
const V_GAMMA: u32 = 1 << V_PARAM_SHIFT;

impl LinuxVegas {
    pub(super) fn enable(&mut self, snd_nxt: u32) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt_us = 0x7fff_ffff;
    }
    pub(super) fn init(&mut self, snd_nxt: u32) {
        self.base_rtt_us = 0x7fff_ffff;
        self.enable(snd_nxt);
    }
    /// `tcp_vegas_pkts_acked` with the RTT sample in µs (+1), if the ACK is sure.
    pub(super) fn sample(&mut self, vrtt: u32) {
        self.base_rtt_us = self.base_rtt_us.min(vrtt);
        self.min_rtt_us = self.min_rtt_us.min(vrtt);
        self.cnt_rtt += 1;
    }
    /// The module's state for the cwnd trace.
    pub(super) fn trace(&self, t: &mut CcTrace) {
        if self.base_rtt_us != 0x7fff_ffff && self.base_rtt_us != 0 {
            t.base_rtt_s = self.base_rtt_us as f64 * 1e-6;
        }
        if let Some(d) = self.last_diff {
            // The module's unsigned diff, read as signed, unscaled.
            t.vegas_diff_segments = (d as i32) as f64 / (1u32 << V_PARAM_SHIFT) as f64;
        }
    }

    /// `tcp_vegas_cong_avoid`; `ack` is the first unacknowledged segment.
    pub(super) fn cong_avoid(&mut self, tp: &mut LinuxTp, ack: u32, in_flight: u32) {
        if !self.doing_vegas_now {
            return tp.reno_cong_avoid(in_flight);
        }
        if ack > self.beg_snd_nxt {
            let old_wnd = self.beg_snd_nxt.wrapping_sub(self.beg_snd_una);
            let old_snd_cwnd = self.beg_snd_cwnd;
            self.beg_snd_una = self.beg_snd_nxt;
            self.beg_snd_nxt = tp.snd_nxt;
            self.beg_snd_cwnd = tp.snd_cwnd;
            if self.cnt_rtt <= 2 {
                tp.reno_cong_avoid(in_flight);
            } else {
                let rtt = self.min_rtt_us.max(1);
                let target = (((old_wnd as u64 * self.base_rtt_us as u64) << V_PARAM_SHIFT)
                    / rtt as u64) as u32;
                let diff = (old_wnd << V_PARAM_SHIFT).wrapping_sub(target);
                self.last_diff = Some(diff);
                if tp.snd_cwnd <= tp.snd_ssthresh {
                    if diff > V_GAMMA {
                        tp.snd_ssthresh = 2;
                        tp.snd_cwnd = tp.snd_cwnd.min((target >> V_PARAM_SHIFT) + 1);
                    }
                    tp.slow_start();
                } else {
                    let next = if diff > V_BETA {
                        old_snd_cwnd.wrapping_sub(1)
                    } else if diff < V_ALPHA {
                        old_snd_cwnd + 1
                    } else {
                        old_snd_cwnd
                    };
                    if next > tp.snd_cwnd {
                        tp.snd_cwnd += 1;
                    } else if next < tp.snd_cwnd {
                        tp.snd_cwnd -= 1;
                    }
                }
                if tp.snd_cwnd < 2 {
                    tp.snd_cwnd = 2;
                } else if tp.snd_cwnd > tp.snd_cwnd_clamp {
                    tp.snd_cwnd = tp.snd_cwnd_clamp;
                }
            }
            self.cnt_rtt = 0;
            self.min_rtt_us = 0x7fff_ffff;
        } else if tp.snd_cwnd <= tp.snd_ssthresh {
            tp.slow_start();
        }
    }
}
