//! The `ns2` profile's sender for a modern controller: ns-2.35's `Agent/TCP/Linux`
//! (tcp-linux.cc, scoreboard1.cc) running a Linux congestion-control module
//! (`$tcp select_ca cubic`).
//!
//! Read first: `Ns2Sender::recv_linux` (ns-2's `LinuxTcpAgent::recv`, the equivalent of
//! Linux's `tcp_ack`), then `Ns2Sender::timeout_linux` and `Ns2Sender::send_much_linux`.
//! Its sender semantics differ from ns-2's one-way agents:
//!
//! - Windows are integers in Linux's style: `snd_cwnd` (segments), `snd_cwnd_cnt`
//!   (ACKs counted towards the next increment), `snd_ssthresh`, grown by the module's
//!   `cong_avoid` only while the ACK found the window full (`tcp_is_cwnd_limited`), with
//!   Appropriate Byte Counting in slow start (`sysctl_tcp_abc` 1: +1 per ACK of new data).
//! - Loss detection is FACK-style on a SACK scoreboard (`Sb1`, ns-2's `ScoreBoard1`):
//!   a segment is lost once the highest SACKed segment is more than 3 beyond it, a
//!   retransmission is lost once a later one is SACKed or the highest SACK passes the
//!   `snd_nxt` it was sent at. There is no duplicate-ACK counter.
//! - Fast recovery (`TCP_CA_Recovery`) cuts `snd_cwnd` to the module's ssthresh and sends
//!   while `packets_in_flight` (outstanding − lost − SACKed) is below
//!   max(`snd_cwnd`, `next_pkts_in_flight_`), the latter the rate-halving allowance that
//!   decays by one per segment sent; it ends when the recovery point is acknowledged.
//! - Every ACK, duplicate or not, re-arms the retransmission timer (`time_processing`);
//!   a timeout marks every unSACKed outstanding segment lost (`MarkLoss`), sets
//!   `snd_cwnd` = 1 and retransmits from the scoreboard without going back in
//!   `t_seqno_` (`reset_rtx_timer(TCP_REASON_TIMEOUT, 1)` is "mild").
//! - The RTT clock ticks in jiffies (`tcp_tick_` = 1 ms once a module is selected), the
//!   RTO is ns-2's (`rtt_update` without the lower bound on RTTVAR), `maxrto_` 120 s.

use super::{CwndAction, Ns2Sender};
use crate::tcp::cc_highspeed::{b_of_w, HSTCP_W};
use crate::tcp::{AckSeg, TcpOutput};
use crate::units::SimTime;

// Scoreboard node states (scoreboard1.h SKB_FLAG_*).
const INFLIGHT: u8 = 0;
const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANSMITTED: u8 = 4;

// ACK flags (ns-linux-util.h FLAG_*).
const FLAG_DATA_SACKED: u8 = 2;
const FLAG_DATA_ACKED: u8 = 4;
const FLAG_DATA_LOST: u8 = 8;
const FLAG_UNSURE_TSTAMP: u8 = 16;
/// FLAG_CA_ALERT without ECN.
const FLAG_CA_ALERT: u8 = FLAG_DATA_SACKED;
/// FLAG_NOT_DUP.
const FLAG_NOT_DUP: u8 = FLAG_DATA_ACKED;

/// ns-2's `ScoreBoard1::UpdateScoreBoard` default `dupack_threshold`.
const SB_DUPTHRESH: i64 = 3;
/// `tcp_max_burst` (ns-linux-param.c).
const TCP_MAX_BURST: i64 = 3;

/// One run of segments with one state (`ScoreBoardNode1`): `[seq, nxt]` inclusive, or
/// for a retransmitted segment `seq` alone with `nxt` the `snd_nxt` it was resent at.
#[derive(Clone, Copy, Debug)]
struct Node {
    flag: u8,
    seq: i64,
    nxt: i64,
    rtx: i64,
}

impl Node {
    fn new(seq: i64, nxt: i64, flag: u8) -> Self {
        Node {
            flag,
            seq,
            nxt,
            rtx: 0,
        }
    }
    fn end(&self) -> i64 {
        if self.flag == RETRANSMITTED {
            self.seq
        } else {
            self.nxt
        }
    }
    fn len(&self) -> i64 {
        if self.flag == RETRANSMITTED {
            1
        } else {
            self.nxt + 1 - self.seq
        }
    }
    fn set_flag(&mut self, f: u8) {
        if self.flag == RETRANSMITTED {
            self.nxt = self.seq;
        }
        self.flag = f;
    }
}

/// ns-2's `ScoreBoard1` (scoreboard1.cc) over a vector of runs, head first; `nxt` (the
/// run where the search for the next retransmission starts, `nxt_to_retrx_`) is an index
/// kept valid across inserts and removals.
#[derive(Clone, Debug, Default)]
pub(super) struct Sb1 {
    nodes: Vec<Node>,
    nxt: Option<usize>,
    acked_rtx_id: i64,
    rtx_id: i64,
    fack: i64,
    fack_out: i64,
    sack_out: i64,
}

impl Sb1 {
    fn new() -> Self {
        let mut s = Sb1 {
            nodes: Vec::with_capacity(16),
            ..Sb1::default()
        };
        s.clear();
        s
    }
    fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// `ClearScoreBoard`.
    fn clear(&mut self) {
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
        self.fack_out = 0;
        self.sack_out = 0;
        self.fack = 0;
        self.nxt = None;
        self.nodes.clear();
    }
    fn packets_in_flight(&self, snd_una: i64, snd_nxt: i64) -> i64 {
        snd_nxt - snd_una - self.fack_out - self.sack_out
    }
    /// `Split(seq)`: run `i` keeps `[seq_i, seq − 1]`, a new run `[seq, end]` follows it.
    fn split(&mut self, i: usize, seq: i64) {
        let n = self.nodes[i];
        self.nodes.insert(i + 1, Node::new(seq, n.nxt, n.flag));
        self.nodes[i].nxt = seq - 1;
        if let Some(x) = self.nxt {
            if x > i {
                self.nxt = Some(x + 1);
            }
        }
    }
    /// `Merge()`: run `i` absorbs run `i + 1`.
    fn merge(&mut self, i: usize) {
        self.nodes[i].nxt = self.nodes[i + 1].nxt;
        self.nodes.remove(i + 1);
        if let Some(x) = self.nxt {
            if x > i + 1 {
                self.nxt = Some(x - 1);
            } else if x == i + 1 {
                self.nxt = Some(i);
            }
        }
    }
    fn mergeable(&self, i: usize) -> bool {
        i + 1 < self.nodes.len()
            && self.nodes[i + 1].flag != RETRANSMITTED
            && self.nodes[i + 1].flag == self.nodes[i].flag
    }
    /// `CleanRtxQueue`: forget what the cumulative ACK covers. Returns whether a
    /// later retransmission than any before was acknowledged.
    fn clean(&mut self, last_ack: i64, flag: &mut u8) -> bool {
        let mut changed = false;
        while let Some(&h) = self.nodes.first() {
            // ShouldClean: 0 untouched, −1 whole run, > 0 its first n segments.
            let cmp = if last_ack < h.seq {
                0
            } else if h.flag == RETRANSMITTED || last_ack >= h.nxt {
                -1
            } else {
                last_ack + 1 - h.seq
            };
            if cmp == 0 {
                break;
            }
            let n = if cmp < 0 { h.len() } else { cmp };
            match h.flag {
                SACKED => self.sack_out -= n,
                LOST => self.fack_out -= n,
                _ => {}
            }
            if cmp < 0 {
                if h.flag == RETRANSMITTED {
                    if h.rtx > self.acked_rtx_id {
                        changed = true;
                        self.acked_rtx_id = h.rtx;
                    }
                    *flag |= FLAG_UNSURE_TSTAMP;
                }
                self.nodes.remove(0);
                self.nxt = match self.nxt {
                    Some(0) if self.nodes.is_empty() => None,
                    Some(0) => Some(0),
                    Some(x) => Some(x - 1),
                    None => None,
                };
            } else {
                self.nodes[0].seq = last_ack + 1;
                break;
            }
        }
        changed
    }

    /// `UpdateScoreBoard(last_ack, tcph)`: returns the ACK flags it raises.
    fn update(&mut self, last_ack: i64, ack: &AckSeg) -> u8 {
        let mut flag = 0u8;
        let mut thorough = self.clean(last_ack, &mut flag);
        if self.nodes.is_empty() {
            self.clear();
            thorough = false;
        }
        let nsa = ack.nsack as usize;
        if !thorough && nsa == 0 {
            return flag;
        }
        // D-SACK filter and insertion sort by left edge.
        let mut left = [0i64; 4];
        let mut right = [0i64; 4];
        let mut n = 0usize;
        for b in &ack.sack[..nsa.min(4)] {
            let (l, r) = (b.start as i64, b.end as i64);
            if l >= last_ack {
                let mut j = n;
                n += 1;
                while j > 0 && left[j - 1] > l {
                    left[j] = left[j - 1];
                    right[j] = right[j - 1];
                    j -= 1;
                }
                left[j] = l;
                right[j] = r;
            }
        }
        if !thorough && n == 0 {
            return flag;
        }
        if n > 0 && self.fack < right[n - 1] - 1 {
            self.fack = right[n - 1] - 1;
            thorough = true;
        }
        if self.nodes.is_empty() {
            self.nodes
                .push(Node::new(last_ack + 1, self.fack, INFLIGHT));
        }
        self.nxt = None;
        let lost_thr = self.fack - (SB_DUPTHRESH + 1);
        let mut now = Some(0usize);
        let mut prev: Option<usize> = None;
        let mut si = 0usize;
        while let Some(c) = now {
            if !(si < n || thorough) {
                break;
            }
            if self.nodes[c].flag != SACKED {
                while si < n && right[si] <= self.nodes[c].seq {
                    si += 1;
                }
                if si < n && left[si] <= self.nodes[c].end() {
                    if left[si] > self.nodes[c].seq {
                        self.split(c, left[si]);
                    } else {
                        if right[si] <= self.nodes[c].end() {
                            self.split(c, right[si]);
                        }
                        let k = self.nodes[c].len();
                        match self.nodes[c].flag {
                            LOST => self.fack_out -= k,
                            RETRANSMITTED => {
                                self.acked_rtx_id = self.nodes[c].rtx;
                                flag |= FLAG_UNSURE_TSTAMP;
                                thorough = true;
                            }
                            _ => {}
                        }
                        self.sack_out += k;
                        flag |= FLAG_DATA_SACKED;
                        self.nodes[c].set_flag(SACKED);
                    }
                }
                if si >= n || left[si] > self.nodes[c].end() {
                    match self.nodes[c].flag {
                        RETRANSMITTED => {
                            let nd = self.nodes[c];
                            if nd.nxt <= self.fack || nd.rtx + SB_DUPTHRESH + 1 < self.acked_rtx_id
                            {
                                self.nodes[c].set_flag(LOST);
                                self.fack_out += 1;
                                flag |= FLAG_DATA_LOST;
                                self.nxt.get_or_insert(c);
                            }
                        }
                        INFLIGHT if self.nodes[c].seq <= lost_thr => {
                            if lost_thr < self.nodes[c].end() {
                                self.split(c, lost_thr + 1);
                            }
                            self.nodes[c].set_flag(LOST);
                            self.fack_out += self.nodes[c].len();
                            flag |= FLAG_DATA_LOST;
                            self.nxt.get_or_insert(c);
                        }
                        LOST => {
                            self.nxt.get_or_insert(c);
                        }
                        _ => {}
                    }
                }
            }
            let p = match prev {
                Some(p) if self.mergeable(p) => {
                    self.merge(p);
                    p
                }
                _ => {
                    prev = Some(c);
                    c
                }
            };
            if p + 1 == self.nodes.len() && self.nodes[p].end() < self.fack {
                let s = self.nodes[p].end() + 1;
                self.nodes.push(Node::new(s, self.fack, INFLIGHT));
            }
            now = (p + 1 < self.nodes.len()).then_some(p + 1);
        }
        flag
    }

    /// `MarkLoss(snd_una, snd_nxt)` on a timeout: every unSACKed segment is lost.
    fn mark_loss(&mut self, snd_una: i64, snd_nxt: i64) {
        self.nxt = None;
        let mut i = 0usize;
        let mut prev: Option<usize> = None;
        let mut last_lost = false;
        while i < self.nodes.len() {
            let mut cur = i;
            if self.nodes[cur].flag & SACKED == 0 {
                if self.nodes[cur].flag & LOST == 0 {
                    self.fack_out += self.nodes[cur].end() - self.nodes[cur].seq + 1;
                }
                self.nodes[cur].set_flag(LOST);
                match prev {
                    Some(p) if last_lost => {
                        self.merge(p);
                        cur = p;
                    }
                    _ => {
                        self.nxt.get_or_insert(cur);
                    }
                }
                last_lost = true;
            } else {
                last_lost = false;
            }
            prev = Some(cur);
            i = cur + 1;
            if i == self.nodes.len() && self.nodes[cur].end() + 1 < snd_nxt {
                let s = self.nodes[cur].end() + 1;
                self.nodes.push(Node::new(s, snd_nxt - 1, INFLIGHT));
            }
        }
        if prev.is_none() && snd_una < snd_nxt {
            self.nodes.push(Node::new(snd_una, snd_nxt - 1, LOST));
            self.nxt = Some(0);
            self.fack_out += snd_nxt - snd_una;
        }
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
    }

    /// `GetNextRetran`: the first lost segment from `nxt` on, or −1.
    fn next_retran(&mut self) -> i64 {
        while let Some(x) = self.nxt {
            if x >= self.nodes.len() {
                self.nxt = None;
            } else if self.nodes[x].flag != LOST {
                self.nxt = Some(x + 1);
            } else {
                return self.nodes[x].seq;
            }
        }
        -1
    }

    /// `MarkRetran(seq, snd_nxt)`: the first segment of the run at `nxt` is resent.
    fn mark_retran(&mut self, snd_nxt: i64) {
        let Some(x) = self.nxt else { return };
        self.fack_out -= 1;
        if self.nodes[x].nxt > self.nodes[x].seq {
            let s = self.nodes[x].seq + 1;
            self.split(x, s);
        }
        let nd = &mut self.nodes[x];
        nd.flag = RETRANSMITTED;
        nd.nxt = snd_nxt;
        nd.rtx = self.rtx_id;
        self.rtx_id += 1;
    }
}

/// Linux's congestion states (`TCP_CA_*`) that ns-2's agent uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// The Linux module a flow selected, in the integer arithmetic of the module ns-2.35
/// ships (statically dispatched).
#[derive(Clone, Debug)]
pub enum LinuxCa {
    Cubic(LinuxCubic),
    HighSpeed(LinuxHighSpeed),
    Vegas(LinuxVegas),
}

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
    fn enable(&mut self, snd_nxt: u32) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt_us = 0x7fff_ffff;
    }
    fn init(&mut self, snd_nxt: u32) {
        self.base_rtt_us = 0x7fff_ffff;
        self.enable(snd_nxt);
    }
    /// `tcp_vegas_pkts_acked` with the RTT sample in µs (+1), if the ACK is sure.
    fn sample(&mut self, vrtt: u32) {
        self.base_rtt_us = self.base_rtt_us.min(vrtt);
        self.min_rtt_us = self.min_rtt_us.min(vrtt);
        self.cnt_rtt += 1;
    }
    /// `tcp_vegas_cong_avoid`; `ack` is the first unacknowledged segment.
    fn cong_avoid(&mut self, tp: &mut LinuxTp, ack: u32, in_flight: u32) {
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

/// Linux's HighSpeed TCP (tcp_highspeed.c as ns-2.35 ships it): RFC 3649's table of
/// a(w) and b(w) (b as ⌊256·b⌋), `ai` the table row of the current window, and Reno's
/// `min_cwnd` (ssthresh/2) on entering recovery.
#[derive(Clone, Debug, Default)]
pub struct LinuxHighSpeed {
    pub ai: u32,
}

impl LinuxHighSpeed {
    fn md(ai: u32) -> u32 {
        let w = HSTCP_W[ai as usize] as f64;
        (b_of_w(w) * 256.0) as u32
    }
    /// `hstcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut LinuxTp, in_flight: u32) {
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
    fn ssthresh(&self, tp: &LinuxTp) -> u32 {
        let cut = (tp.snd_cwnd as u64 * Self::md(self.ai) as u64) >> 8;
        (tp.snd_cwnd - cut as u32).max(2)
    }
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
    fn reno_cong_avoid(&mut self, in_flight: u32) {
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
    fn slow_start(&mut self) {
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
    fn reset(&mut self) {
        *self = LinuxCubic {
            delayed_ack: 2 << ACK_RATIO_SHIFT,
            ..LinuxCubic::default()
        };
    }

    /// `bictcp_update`: the ACK count per increment, `cnt`.
    fn update(&mut self, cwnd: u32, now: u32) {
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
    fn cong_avoid(&mut self, tp: &mut LinuxTp, in_flight: u32) {
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
    fn ssthresh(&mut self, tp: &LinuxTp) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if tp.snd_cwnd < self.last_max_cwnd {
            (tp.snd_cwnd * (BICTCP_BETA_SCALE + CUBIC_BETA)) / (2 * BICTCP_BETA_SCALE)
        } else {
            tp.snd_cwnd
        };
        self.loss_cwnd = tp.snd_cwnd;
        ((tp.snd_cwnd * CUBIC_BETA) / BICTCP_BETA_SCALE).max(2)
    }

    /// `bictcp_acked`: the packets/ACK ratio, a moving average ×16.
    fn pkts_acked(&mut self, tp: &LinuxTp, cnt: u32) {
        if cnt > 0 && tp.ca_state == CaState::Open {
            let c = cnt.wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(c);
        }
    }
}

impl LinuxCa {
    /// The module's `init`, with the `tcp_sock` it may adjust.
    fn init(&mut self, tp: &mut LinuxTp) {
        match self {
            LinuxCa::Cubic(c) => c.reset(),
            LinuxCa::HighSpeed(h) => {
                h.ai = 0;
                tp.snd_cwnd_clamp = tp.snd_cwnd_clamp.min(0xffff_ffff / 128);
            }
            LinuxCa::Vegas(v) => v.init(tp.snd_nxt),
        }
    }
    fn cong_avoid(&mut self, tp: &mut LinuxTp, ack: u32, in_flight: u32) {
        match self {
            LinuxCa::Cubic(c) => c.cong_avoid(tp, in_flight),
            LinuxCa::HighSpeed(h) => h.cong_avoid(tp, in_flight),
            LinuxCa::Vegas(v) => v.cong_avoid(tp, ack, in_flight),
        }
    }
    /// Whether the module asks for send times (`TCP_CONG_RTT_STAMP`: ns-2 `bugfix_ts_`).
    fn wants_send_times(&self) -> bool {
        matches!(self, LinuxCa::Vegas(_))
    }
    fn ssthresh(&mut self, tp: &LinuxTp) -> u32 {
        match self {
            LinuxCa::Cubic(c) => c.ssthresh(tp),
            LinuxCa::HighSpeed(h) => h.ssthresh(tp),
            // tcp_reno_ssthresh.
            LinuxCa::Vegas(_) => (tp.snd_cwnd >> 1).max(2),
        }
    }
    /// `min_cwnd`, when the module has one (otherwise cwnd = ssthresh).
    fn min_cwnd(&self, tp: &LinuxTp) -> Option<u32> {
        match self {
            LinuxCa::Cubic(_) => None,
            // tcp_reno_min_cwnd (tcp_cong.c): ssthresh/2.
            LinuxCa::HighSpeed(_) | LinuxCa::Vegas(_) => Some(tp.snd_ssthresh / 2),
        }
    }
    /// `pkts_acked(cnt, last)`; `rtt_us` is the µs sample (+1) when the ACK is sure.
    fn pkts_acked(&mut self, tp: &LinuxTp, cnt: u32, rtt_us: Option<u32>) {
        match self {
            LinuxCa::Cubic(c) => c.pkts_acked(tp, cnt),
            LinuxCa::HighSpeed(_) => {}
            LinuxCa::Vegas(v) => {
                if let Some(r) = rtt_us {
                    v.sample(r);
                }
            }
        }
    }
    fn set_state(&mut self, to: CaState, snd_nxt: u32) {
        match self {
            LinuxCa::Cubic(c) => {
                if to == CaState::Loss {
                    c.reset();
                }
            }
            LinuxCa::HighSpeed(_) => {}
            LinuxCa::Vegas(v) => {
                if to == CaState::Open {
                    v.enable(snd_nxt);
                } else {
                    v.doing_vegas_now = false;
                }
            }
        }
    }
}

/// The Linux agent's own state beside the `Agent/TCP` state in [`Ns2Sender`].
#[derive(Clone, Debug)]
pub struct LinuxAgent {
    sb: Sb1,
    pub tp: LinuxTp,
    pub ca: LinuxCa,
    /// `next_pkts_in_flight_`: the rate-halving allowance.
    next_pif: i64,
    initialized: bool,
    /// Send time of each outstanding segment, ps, indexed by `seq & mask` (ns-2 `tss[]`);
    /// empty unless the module asks for it.
    tss: Vec<SimTime>,
}

impl LinuxAgent {
    /// The module's state for the cwnd trace.
    pub fn trace_state(&self) -> crate::tcp::cc::CcTrace {
        let mut t = crate::tcp::cc::CcTrace::default();
        match &self.ca {
            LinuxCa::Cubic(c) => {
                t.w_max_segments = c.last_max_cwnd as f64;
                if c.epoch_start != 0 {
                    t.epoch_start_s = c.epoch_start as f64 / HZ as f64;
                    // bic_K is in units of 2^-BICTCP_HZ s (tcp_cubic.c bictcp_update).
                    t.k_s = c.bic_k as f64 / (1u32 << BICTCP_HZ) as f64;
                }
            }
            LinuxCa::Vegas(v) => {
                if v.base_rtt_us != 0x7fff_ffff && v.base_rtt_us != 0 {
                    t.base_rtt_s = v.base_rtt_us as f64 * 1e-6;
                }
                if let Some(d) = v.last_diff {
                    // The module's unsigned diff, read as signed, unscaled.
                    t.vegas_diff_segments = (d as i32) as f64 / (1u32 << V_PARAM_SHIFT) as f64;
                }
            }
            _ => {}
        }
        t
    }
    pub fn new(ca: LinuxCa, wnd: i64, init_cwnd: u32) -> Self {
        LinuxAgent {
            sb: Sb1::new(),
            tp: LinuxTp {
                // LinuxTcpAgent::reset → load_to_linux_once / load_to_linux.
                snd_cwnd: init_cwnd.max(1),
                snd_cwnd_cnt: 0,
                snd_ssthresh: wnd.max(1) as u32,
                snd_cwnd_clamp: wnd.max(1) as u32,
                acked_segs: 0,
                jiffies: 0,
                snd_nxt: 0,
                ca_state: CaState::Open,
            },
            tss: if ca.wants_send_times() {
                vec![SimTime::ZERO; (2 * wnd.max(1) as usize).next_power_of_two().max(64)]
            } else {
                Vec::new()
            },
            ca,
            next_pif: 0,
            initialized: false,
        }
    }
    pub fn ca_state(&self) -> CaState {
        self.tp.ca_state
    }
    fn set_ca_state(&mut self, s: CaState) {
        self.ca.set_state(s, self.tp.snd_nxt);
        self.tp.ca_state = s;
    }
}

impl Ns2Sender {
    fn lx(&mut self) -> &mut LinuxAgent {
        self.linux.as_mut().expect("a Linux flow")
    }
    fn pif(&self) -> i64 {
        let l = self.linux.as_ref().expect("a Linux flow");
        l.sb.packets_in_flight(self.highest_ack + 1, self.t_seqno)
    }

    /// `save_from_linux`: `cwnd_` and `ssthresh_` as ns-2 reports them.
    fn save_from_linux(&mut self) {
        let l = self.linux.as_ref().expect("a Linux flow");
        self.cwnd = if l.next_pif > l.tp.snd_cwnd as i64 {
            l.next_pif as f64
        } else {
            l.tp.snd_cwnd as f64
        };
        self.ssthresh = l.tp.snd_ssthresh as i64;
        self.last_ack = self.highest_ack;
    }

    /// `LinuxTcpAgent::recv`: ns-2's `tcp_ack`.
    pub(super) fn recv_linux(&mut self, now: SimTime, ack: &AckSeg, out: &mut TcpOutput) {
        let prior_snd_una = self.highest_ack + 1;
        let a = ack.cum.min(i64::MAX as u64) as i64; // Linux's ack: first unacknowledged
        if a > self.t_seqno || a < prior_snd_una {
            return; // uninteresting or old ACK
        }
        // tcp_time_stamp = trunc(now · JIFFY_RATIO).
        let jiffies = (now.as_secs_f64() * 1000.0).trunc() as u64 as u32;
        self.lx().tp.jiffies = jiffies;
        let mut flag = 0u8;
        let prior_in_flight = self.pif();
        if a > prior_snd_una {
            let l = self.lx();
            l.tp.acked_segs = l.tp.acked_segs.wrapping_add((a - prior_snd_una) as u32);
            flag |= FLAG_DATA_ACKED;
        }
        // ack_processing.
        if flag & FLAG_DATA_ACKED != 0 {
            self.highest_ack = a - 1;
            self.maxseq = self.maxseq.max(self.highest_ack);
            if self.t_seqno < self.highest_ack + 1 {
                self.t_seqno = self.highest_ack + 1;
            }
        } else {
            flag |= FLAG_UNSURE_TSTAMP;
        }
        let ha = self.highest_ack;
        {
            let l = self.lx();
            if ack.nsack > 0 || !l.sb.is_empty() {
                flag |= l.sb.update(ha, ack);
            }
        }
        // time_processing (timerfix_ true: RTT first, then the timer).
        if self.rtt_active && a > self.rtt_seq {
            // ns-2: tcph->seqno() (= a − 1) >= rtt_seq_.
            self.t_backoff = 1;
            self.rtt_active = false;
            let tao = now.as_secs_f64() - self.rtt_ts.as_secs_f64();
            self.rtt_update_linux(now, tao);
            let r = now.saturating_sub(self.rtt_ts);
            self.tcb.stats.rtt_sum_s += r.as_secs_f64();
            self.tcb.stats.rtt_samples += 1;
        }
        if self.t_seqno > self.highest_ack
            || self.highest_ack < self.maxseq
            || self.lx().tp.snd_cwnd < 1
        {
            self.set_rtx_timer(now);
        } else {
            self.rtx = None;
        }
        // The module's hooks.
        let ack32 = a as u32;
        let t_seqno = self.t_seqno as u32;
        let l = self.lx();
        l.tp.snd_nxt = t_seqno;
        if !l.initialized {
            l.ca.init(&mut l.tp);
            l.initialized = true;
        }
        if flag & FLAG_NOT_DUP != 0 {
            // last_ackt: the send time of the segment this ACK names (tss[seqno]), unless
            // the ACK is unsure; the sample is ktime_to_us(now − then) + 1.
            let rtt_us = if flag & FLAG_UNSURE_TSTAMP == 0 && !l.tss.is_empty() {
                let then = l.tss[(a - 1) as usize & (l.tss.len() - 1)];
                let now_ns = (now.as_secs_f64() * 1e9).trunc() as i64;
                let then_ns = (then.as_secs_f64() * 1e9).trunc() as i64;
                Some(((now_ns - then_ns) / 1000 + 1) as u32)
            } else {
                None
            };
            let tp = l.tp;
            l.ca.pkts_acked(&tp, (a - prior_snd_una) as u32, rtt_us);
        }
        let dubious =
            flag & FLAG_NOT_DUP == 0 || flag & FLAG_CA_ALERT != 0 || l.tp.ca_state != CaState::Open;
        let in_flight = prior_in_flight.max(0) as u32;
        if dubious {
            // tcp_may_raise_cwnd: not in Recovery (nor CWR).
            if flag & FLAG_DATA_ACKED != 0 && l.tp.ca_state != CaState::Recovery {
                l.ca.cong_avoid(&mut l.tp, ack32, in_flight);
            }
            self.fastretrans_alert(now, flag);
        } else if flag & FLAG_DATA_ACKED != 0 {
            l.ca.cong_avoid(&mut l.tp, ack32, in_flight);
        }
        self.save_from_linux();
        self.send_much_linux(now, out);
    }

    /// `tcp_fastretrans_alert`: leave recovery once the recovery point is acknowledged;
    /// enter it on a newly marked loss.
    fn fastretrans_alert(&mut self, now: SimTime, flag: u8) {
        let state = self.lx().tp.ca_state;
        if state != CaState::Open && self.highest_ack >= self.recover {
            // The scoreboard is cleared first, so packets_in_flight is what is outstanding.
            let outstanding = self.t_seqno - (self.highest_ack + 1);
            let l = self.lx();
            l.sb.clear();
            if l.tp.snd_cwnd < l.tp.snd_ssthresh {
                l.tp.snd_cwnd = l.tp.snd_ssthresh;
                // tcp_moderate_cwnd: at most tcp_max_burst beyond what is in flight.
                l.tp.snd_cwnd = (l.tp.snd_cwnd as i64).min(outstanding + TCP_MAX_BURST) as u32;
            }
            l.set_ca_state(CaState::Open);
            l.next_pif = 0;
            return;
        }
        if state == CaState::Recovery {
            return;
        }
        if flag & FLAG_DATA_LOST != 0 {
            self.recover = self.maxseq;
            self.last_action = CwndAction::Dupack;
            self.note_td(now);
            let l = self.lx();
            l.next_pif = l.tp.snd_cwnd as i64;
            let tp = l.tp;
            l.tp.snd_ssthresh = l.ca.ssthresh(&tp);
            l.tp.snd_cwnd_cnt = 0;
            l.tp.acked_segs = 0;
            let tp = l.tp;
            l.tp.snd_cwnd = l.ca.min_cwnd(&tp).unwrap_or(l.tp.snd_ssthresh);
            l.set_ca_state(CaState::Recovery);
        }
    }

    /// `LinuxTcpAgent::timeout(TCP_TIMER_RTX)` with `enter_loss`.
    pub(super) fn timeout_linux(&mut self, now: SimTime, out: &mut TcpOutput) {
        let idle = self.highest_ack == self.maxseq;
        self.last_action = CwndAction::Timeout;
        if idle {
            // restart_bugfix_: nothing outstanding; restart from the initial window.
            let w = self.wnd_init as u32;
            self.lx().tp.snd_cwnd = w;
        } else {
            self.tcb.stats.to_events += 1;
            let s = self.tcb.snd_una;
            self.tcb.record(super::TraceEvent::To { t: now, seq: s });
            let l = self.lx();
            let tp = l.tp;
            l.tp.snd_ssthresh = l.ca.ssthresh(&tp);
            l.tp.snd_cwnd = 1;
            l.tp.snd_cwnd_cnt = 0;
            l.tp.acked_segs = 0;
            self.recover = self.maxseq;
            let (una, nxt) = (self.highest_ack + 1, self.t_seqno);
            let l = self.lx();
            l.set_ca_state(CaState::Loss);
            l.sb.mark_loss(una, nxt);
        }
        // reset_rtx_timer(TCP_REASON_TIMEOUT, backoff): "mild", t_seqno_ stays.
        if !idle {
            self.rtt_backoff();
        }
        self.set_rtx_timer(now);
        self.rtt_active = false;
        let l = self.lx();
        l.next_pif = 0;
        l.tp.acked_segs = 0;
        self.save_from_linux();
        self.send_much_linux(now, out);
    }

    /// `LinuxTcpAgent::send_much`: retransmit lost segments first, then new data, while
    /// packets in flight < max(snd_cwnd, next_pkts_in_flight_).
    pub(super) fn send_much_linux(&mut self, now: SimTime, out: &mut TcpOutput) {
        let mut win = self.lx().tp.snd_cwnd as i64;
        let pif = self.pif();
        let l = self.lx();
        l.next_pif = l.next_pif.min(pif + 1);
        loop {
            let pif = self.pif();
            let np = self.lx().next_pif;
            if pif >= win.max(np) {
                break;
            }
            let x = self.lx().sb.next_retran();
            let x = if x == -1 {
                if self.t_seqno >= self.curseq {
                    return;
                }
                self.t_seqno += 1;
                self.t_seqno - 1
            } else {
                let snd_nxt = self.t_seqno;
                let l = self.lx();
                l.sb.mark_retran(snd_nxt);
                win = l.tp.snd_cwnd as i64;
                x
            };
            self.output(now, x, out);
            let base = self.highest_ack;
            let l = self.lx();
            if !l.tss.is_empty() {
                // Grow the ring (rarely) so every outstanding segment keeps its slot.
                while x - base >= l.tss.len() as i64 / 2 {
                    let old = std::mem::take(&mut l.tss);
                    let (om, n) = (old.len() - 1, old.len() * 2);
                    l.tss = vec![SimTime::ZERO; n];
                    for q in base.max(0)..x {
                        l.tss[q as usize & (n - 1)] = old[q as usize & om];
                    }
                }
                let m = l.tss.len() - 1;
                l.tss[x as usize & m] = now;
            }
            let pif = self.pif();
            let l = self.lx();
            l.next_pif = l.next_pif.min((pif - 1).max(1));
            if self.t_seqno <= x {
                self.t_seqno = x + 1;
            }
        }
    }

    /// `LinuxTcpAgent::rtt_update` without timestamps: `Agent/TCP`'s, but RTTVAR has no
    /// lower bound.
    fn rtt_update_linux(&mut self, now: SimTime, tao: f64) {
        let sendtime = now.as_secs_f64() - tao + self.boot_time;
        let tickoff = sendtime % self.tick;
        let mut t_rtt = ((tao + tickoff) / self.tick) as i32;
        if t_rtt < 1 {
            t_rtt = 1;
        }
        if self.t_srtt != 0 {
            let mut delta = (t_rtt - (self.t_srtt >> 3)) as i16;
            self.t_srtt = self.t_srtt.wrapping_add(delta as i32);
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = delta.wrapping_neg();
                delta = delta.wrapping_sub((self.t_rttvar >> 2) as i16);
                if delta > 0 {
                    delta >>= 3;
                }
            } else {
                delta = delta.wrapping_sub((self.t_rttvar >> 2) as i16);
            }
            self.t_rttvar = self.t_rttvar.wrapping_add(delta as i32);
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
        let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        self.t_rtxcur = ticks as f64 * self.tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::SackBlock;

    fn sack(blocks: &[(u64, u64)]) -> AckSeg {
        let mut a = AckSeg::default();
        for (i, &(s, e)) in blocks.iter().enumerate() {
            a.sack[i] = SackBlock { start: s, end: e };
        }
        a.nsack = blocks.len() as u8;
        a
    }

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
    fn test_scoreboard_marks_fack_losses_and_retransmits_them_in_order() {
        // Segment 1 acknowledged (last_ack 1); 2 and 3 lost; 4..=9 SACKed: fack = 9,
        // lost threshold 9 − 4 = 5, so 2 and 3 are lost, nothing else is in flight.
        let mut sb = Sb1::new();
        let f = sb.update(1, &sack(&[(4, 10)]));
        assert_ne!(f & FLAG_DATA_LOST, 0);
        assert_eq!((sb.fack, sb.fack_out, sb.sack_out), (9, 2, 6));
        assert_eq!(sb.packets_in_flight(2, 10), 0);
        assert_eq!(sb.next_retran(), 2);
        sb.mark_retran(10);
        assert_eq!(sb.next_retran(), 3);
        sb.mark_retran(10);
        assert_eq!(sb.next_retran(), -1);
        assert_eq!(sb.packets_in_flight(2, 10), 2);
        // The retransmission of 2 arrives: cumulative ACK to 3.
        let f = sb.update(2, &sack(&[(4, 10)]));
        assert_eq!(f & FLAG_DATA_LOST, 0);
        assert_eq!(sb.packets_in_flight(3, 10), 1);
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

    #[test]
    fn test_mark_loss_makes_every_unsacked_segment_lost() {
        let mut sb = Sb1::new();
        sb.update(1, &sack(&[(5, 6)]));
        sb.mark_loss(2, 12);
        assert_eq!(sb.sack_out, 1);
        assert_eq!(sb.fack_out, 9); // 2, 3, 4 and 6..=11
        assert_eq!(sb.packets_in_flight(2, 12), 0);
        let mut resent = vec![];
        while sb.next_retran() != -1 {
            resent.push(sb.next_retran());
            sb.mark_retran(12);
        }
        assert_eq!(resent, vec![2, 3, 4, 6, 7, 8, 9, 10, 11]);
    }
}
