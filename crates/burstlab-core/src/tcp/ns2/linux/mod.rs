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
//!
//! One module per file: `scoreboard.rs` (`ScoreBoard1`), `tp.rs` (the `tcp_sock` fields
//! the modules share), and one per Linux congestion module, `cubic.rs`, `highspeed.rs`,
//! `vegas.rs`, dispatched by [`LinuxCa`]; this file is the agent. A new module is one
//! new file here and one variant of [`LinuxCa`].

pub mod cubic;
pub mod highspeed;
mod scoreboard;
pub mod tp;
pub mod vegas;

/// Bytes of one node of the scoreboard's list (for `memory.rs`).
pub use scoreboard::NODE_BYTES as SCOREBOARD_NODE_BYTES;

pub use cubic::LinuxCubic;
pub use highspeed::LinuxHighSpeed;
pub use tp::{CaState, LinuxTp};
pub use vegas::LinuxVegas;

use super::{CwndAction, Ns2Sender};
use crate::tcp::{AckSeg, TcpOutput};
use crate::units::SimTime;
use scoreboard::{
    Sb1, FLAG_CA_ALERT, FLAG_DATA_ACKED, FLAG_DATA_LOST, FLAG_NOT_DUP, FLAG_UNSURE_TSTAMP,
};

/// `tcp_max_burst` (ns-linux-param.c).
const TCP_MAX_BURST: i64 = 3;

/// The Linux module a flow selected, in the integer arithmetic of the module ns-2.35
/// ships (statically dispatched).
#[derive(Clone, Debug)]
pub enum LinuxCa {
    Cubic(LinuxCubic),
    HighSpeed(LinuxHighSpeed),
    Vegas(LinuxVegas),
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
            LinuxCa::Cubic(c) => c.trace(&mut t),
            LinuxCa::Vegas(v) => v.trace(&mut t),
            LinuxCa::HighSpeed(_) => {}
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
                // Grows with the flight (`send_much_linux`), from at most
                // RING_START_SEGMENTS.
                let n = (wnd.max(1) as u64).min(crate::tcp::RING_START_SEGMENTS) as usize;
                vec![SimTime::ZERO; (2 * n).next_power_of_two().max(64)]
            } else {
                Vec::new()
            },
            ca,
            next_pif: 0,
            initialized: false,
        }
    }
    /// Bytes of the send-time ring and the scoreboard (for the run's memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.tss.capacity() * std::mem::size_of::<SimTime>() + self.sb.mem_bytes()
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
        let t_rtt = self.rtt_ticks(now, tao);
        if self.t_srtt != 0 {
            let mut delta = self.srtt_step(t_rtt);
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
        self.set_rtxcur();
    }
}
