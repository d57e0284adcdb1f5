//! The part of Linux's `struct tcp_sock` that the congestion modules read and write,
//! and the Reno helpers of tcp_cong.c they share (ns-2.35's ns-linux-util.h view of it).

/// Linux's congestion states (`TCP_CA_*`) that ns-2's agent uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// The part of Linux's `struct tcp_sock` the modules read and write.
#[derive(Clone, Copy, Debug)]
pub struct LinuxTp {
    pub snd_cwnd: u32,
    pub snd_cwnd_cnt: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd_clamp: u32,
    /// `bytes_acked`, in segments (ABC compares it with one MSS).
    pub acked_segs: u32,
    /// `tcp_time_stamp`: the time in jiffies (ms), truncated.
    pub jiffies: u32,
    /// `snd_nxt` in segments (ns-2's `t_seqno_`).
    pub snd_nxt: u32,
    pub ca_state: CaState,
}

impl LinuxTp {
    /// `tcp_reno_cong_avoid` (tcp_cong.c) with ABC: +1 per window of acknowledged data.
    pub(super) fn reno_cong_avoid(&mut self, in_flight: u32) {
        if in_flight < self.snd_cwnd {
            return;
        }
        if self.snd_cwnd <= self.snd_ssthresh {
            self.slow_start();
        } else if self.acked_segs >= self.snd_cwnd {
            self.acked_segs -= self.snd_cwnd;
            if self.snd_cwnd < self.snd_cwnd_clamp {
                self.snd_cwnd += 1;
            }
        }
    }
    /// `tcp_slow_start` (tcp_cong.c) with `sysctl_tcp_abc` 1, `sysctl_tcp_max_ssthresh` 0.
    pub(super) fn slow_start(&mut self) {
        if self.acked_segs < 1 {
            return;
        }
        let cnt = self.snd_cwnd;
        self.acked_segs = 0;
        self.snd_cwnd_cnt = self.snd_cwnd_cnt.wrapping_add(cnt);
        while self.snd_cwnd_cnt >= self.snd_cwnd {
            self.snd_cwnd_cnt -= self.snd_cwnd;
            if self.snd_cwnd < self.snd_cwnd_clamp {
                self.snd_cwnd += 1;
            }
        }
    }
}
