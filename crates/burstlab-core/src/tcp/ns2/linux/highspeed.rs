//! Linux's HighSpeed TCP module (tcp_highspeed.c as ns-2.35 ships it) for
//! `Agent/TCP/Linux`, on RFC 3649's table (shared with the `rfc` profile's
//! `cc/highspeed.rs`).

use super::tp::LinuxTp;
use crate::tcp::cc::highspeed::{b_of_w, HSTCP_W};

/// Linux's HighSpeed TCP (tcp_highspeed.c as ns-2.35 ships it): RFC 3649's table of
/// a(w) and b(w) (b as ⌊256·b⌋), `ai` the table row of the current window, and Reno's
/// `min_cwnd` (ssthresh/2) on entering recovery.
#[derive(Clone, Debug, Default)]
pub struct LinuxHighSpeed {
    pub ai: u32,
}

impl LinuxHighSpeed {
    pub(super) fn md(ai: u32) -> u32 {
        let w = HSTCP_W[ai as usize] as f64;
        (b_of_w(w) * 256.0) as u32
    }
    /// `hstcp_cong_avoid`.
    pub(super) fn cong_avoid(&mut self, tp: &mut LinuxTp, in_flight: u32) {
        if in_flight < tp.snd_cwnd {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            tp.slow_start();
            return;
        }
        let max = HSTCP_W.len() as u32 - 1;
        if tp.snd_cwnd > HSTCP_W[self.ai as usize] {
            while tp.snd_cwnd > HSTCP_W[self.ai as usize] && self.ai < max {
                self.ai += 1;
            }
        } else if self.ai > 0 && tp.snd_cwnd <= HSTCP_W[self.ai as usize - 1] {
            while self.ai > 0 && tp.snd_cwnd <= HSTCP_W[self.ai as usize - 1] {
                self.ai -= 1;
            }
        }
        // cwnd += a(w)/cwnd, a(w) = ai + 1.
        if tp.snd_cwnd < tp.snd_cwnd_clamp {
            tp.snd_cwnd_cnt += self.ai + 1;
            if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                tp.snd_cwnd_cnt -= tp.snd_cwnd;
                tp.snd_cwnd += 1;
            }
        }
    }
    /// `hstcp_ssthresh`: cwnd − cwnd·b(w).
    pub(super) fn ssthresh(&self, tp: &LinuxTp) -> u32 {
        let cut = (tp.snd_cwnd as u64 * Self::md(self.ai) as u64) >> 8;
        (tp.snd_cwnd - cut as u32).max(2)
    }
}
