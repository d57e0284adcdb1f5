//! The `ns2` profile's sender: ns-2.35's one-way `Agent/TCP` (Tahoe), `Agent/TCP/Reno`,
//! `Agent/TCP/Newreno` and `Agent/TCP/Sack1`, with the defaults of `ns-default.tcl`.
//!
//! Read first: [`Ns2Sender::on_ack`] (ns-2's per-variant `recv`), then
//! [`Ns2Sender::on_rto`] (`timeout`) and the helpers named after the ns-2 routines they
//! implement (`newack`, `opencwnd`, `slowdown`, `send_much`, `send_one`, `output`).
//! Beside it: `ns2/clock.rs` (the coarse clock's boot phase and the RTT and timer
//! routines `rtt_update`, `rtt_timeout`, `rtt_backoff`, `reset_rtx_timer`),
//! `ns2/sackboard.rs` (Sack1's scoreboard) and `ns2/linux/` (`Agent/TCP/Linux`).
//!
//! This is a behavioural reimplementation written for burstlab from ns-2.35's documented
//! behaviour (tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc, scoreboard-rq.cc), checked
//! packet by packet against Debian's `ns` binary by `tests/test_export_ns2.py`. Where it
//! differs from the RFC profile:
//!
//! - Numbering: ns-2's. With `syn` (ns-2 `syn_ true`) segment 0 is a header-only SYN sent
//!   with cwnd = 1; data segments are 1, 2, … and the initial window opens when the SYN
//!   is acknowledged (`delay_growth_`). ns-2's cumulative ACK `A` ("all segments ≤ A
//!   arrived") is burstlab's `cum − 1`.
//! - Limited Transmit (`singledup_`), fractional halving (`precisionReduce_`), no second
//!   fast retransmit before `highest_ack_ > recover_` (`bugFix_`), NewReno's timer reset
//!   on the first partial ACK only (`newreno_changes1_`), Sack1's pipe and its
//!   reassembly-queue scoreboard, ssthresh = ⌊min(cwnd, wnd)/2⌋ after a timeout (not
//!   FlightSize/2), and the first window shrinking to one segment when the SYN (or the
//!   first segment) is lost (`bugfix_ss_`).
//! - RTT: ns-2's coarse clock. A sample counts the ticks of `clock_granularity`
//!   (`tcpTick_`) crossed between send and ACK, with the clock booted at `clock_phase`
//!   (`boot_time_`); SRTT (×8) and RTTVAR (×4) are integers in ticks; RTO =
//!   (SRTT + 4·RTTVAR) ticks, at least `min_rto` before the backoff, at most `max_rto`,
//!   at least two ticks. The backoff doubles while below 64 or while RTO < `max_rto`,
//!   and beyond 8 the SRTT is folded into RTTVAR (`rtt_backoff`).
//! - Time: ns-2 works in double seconds; burstlab keeps integer picoseconds and converts
//!   the timeout interval once (`SimTime::from_secs_f64`), so timer expiries agree with
//!   ns-2's to well under a nanosecond.

use super::tcb::{Phase, Tcb, TraceEvent};
use super::{AckSeg, CcKind, SendReq, SenderStats, TcpConfig, TcpOutput, Variant};
use crate::units::SimTime;
use clock::secs;
use sackboard::SackBoard;

mod clock;
pub mod linux;
mod sackboard;

pub use clock::{boot_phase, boot_seed, mrg32k3a_first_u01};

/// ns-2 `last_cwnd_action_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CwndAction {
    None,
    Dupack,
    Timeout,
    Exited,
}

/// ns-2.35's one-way TCP sender (see the module docs).
///
/// Fields in the order an ACK reads them (`#[repr(C)]` keeps it): with hundreds of flows
/// a sender has left the caches between two of its ACKs, and every further cache line its
/// state spreads over is one more miss. Lines 0–3 hold the ns-2 state an ACK reads, the
/// observers' mirror `tcb` follows (its hot fields end within line 6), and the constants
/// and switches come last.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Ns2Sender {
    // --- line 0: ns-2 state, in ns-2's numbering (segments; ACK values "highest in
    // order").
    t_seqno: i64,
    maxseq: i64,
    last_ack: i64,
    highest_ack: i64,
    recover: i64,
    /// Segments `< curseq` may be sent (ns-2 `curseq_`).
    curseq: i64,
    cwnd: f64,
    ssthresh: i64,
    // --- line 1
    wnd: i64,
    numdupacks: i64,
    dupacks: i64,
    dupwnd: i64,
    // Sack1
    pipe: i64,
    rtx: Option<SimTime>,
    // --- RTT and timer (ns-2 `t_rtt_`, `t_srtt_`, `t_rttvar_`, `t_rtxcur_`, `t_backoff_`).
    rtt_seq: i64,
    // --- line 2
    rtt_ts: SimTime,
    /// The last `rtt_timeout()` as a duration, with the `(t_backoff, t_rtxcur)` it was
    /// computed from: the only inputs that change after start-up (see `set_rtx_timer`).
    rto_memo: Option<((i64, u64), SimTime)>,
    t_backoff: i64,
    t_rtxcur: f64,
    t_srtt: i32,
    t_rttvar: i32,
    // --- line 3
    sb: SackBoard,
    variant: Variant,
    last_action: CwndAction,
    firstpartial: bool,
    fastrecov: bool,
    timeout_flag: bool,
    rtt_active: bool,
    // --- from the end of line 3: mirror of the ns-2 state for observers (marks,
    // statistics, traces).
    tcb: Tcb,
    // --- cold
    next_pkt: i64,
    /// `Agent/TCP/Linux` with a Linux module (`ns2/linux/`) when the flow's controller
    /// is not AIMD; `None` for ns-2's one-way agents.
    linux: Option<Box<linux::LinuxAgent>>,
    wnd_init: i64,
    boot_time: f64,
    tick: f64,
    minrto: f64,
    maxrto: f64,
    backoff_cap: i64,
    // --- switches
    syn: bool,
    singledup: bool,
    precision_reduce: bool,
    bug_fix: bool,
    newreno_changes1: bool,
    partial_window_deflation: bool,
    sack_partial_ack: bool,
}

impl Ns2Sender {
    /// Bytes of its per-segment structures (for the run's memory guard).
    pub fn mem_bytes(&self) -> usize {
        self.sb.blocks.capacity() * std::mem::size_of::<(i64, i64)>()
            + self.linux.as_ref().map_or(0, |l| l.mem_bytes())
    }

    pub fn new(cfg: &TcpConfig, now: SimTime) -> Self {
        let mut tcb = Tcb::new(cfg, now);
        let tick = cfg.clock_granularity.as_secs_f64();
        let wnd_init = cfg.init_cwnd.max(1) as i64;
        let linux_ca = match cfg.cc {
            CcKind::Aimd => None,
            CcKind::Cubic => Some(linux::LinuxCa::Cubic(linux::LinuxCubic::default())),
            CcKind::HighSpeed => Some(linux::LinuxCa::HighSpeed(linux::LinuxHighSpeed::default())),
            CcKind::Vegas => Some(linux::LinuxCa::Vegas(linux::LinuxVegas::default())),
            // Rejected by the scenario parser (ns-2.35 has no BBR); AIMD if built directly.
            CcKind::Bbr => None,
        };
        // TcpAgent::set_initial_window(): cwnd 1 for the SYN round, else windowInit_
        // (Agent/TCP/Linux: delay_growth_ false, windowInit_ at once).
        let cwnd = if cfg.syn && linux_ca.is_none() {
            1.0
        } else {
            wnd_init as f64
        };
        let linux = linux_ca.map(|ca| {
            Box::new(linux::LinuxAgent::new(
                ca,
                cfg.wm.max(1) as i64,
                wnd_init as u32,
            ))
        });
        tcb.set_cwnd(cwnd);
        tcb.set_open_phase(now);
        tcb.clear_phase_changes();
        Ns2Sender {
            variant: cfg.variant,
            tcb,
            t_seqno: 0,
            maxseq: -1,
            last_ack: -1,
            highest_ack: -1,
            recover: 0,
            curseq: i64::MAX,
            cwnd,
            // TcpAgent::reset(): ssthresh_ = window_ (the scenario sets init_ssthresh).
            ssthresh: cfg.init_ssthresh as i64,
            wnd: cfg.wm.max(1) as i64,
            wnd_init,
            numdupacks: cfg.dupack_thresh.max(1) as i64,
            dupacks: 0,
            dupwnd: 0,
            last_action: CwndAction::None,
            firstpartial: false,
            fastrecov: false,
            timeout_flag: false,
            pipe: -1,
            next_pkt: 0,
            linux,
            sb: SackBoard::new(),
            // rtt_init(): srtt_init_ 0, rttvar_init_ 12 s, rtxcur_init_.
            t_srtt: 0,
            t_rttvar: ((12.0 / tick) as i32) << 2,
            t_rtxcur: cfg.init_rto.as_secs_f64(),
            t_backoff: 1,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: now,
            boot_time: cfg.clock_phase.unwrap_or(0.0),
            tick,
            minrto: cfg.min_rto.as_secs_f64(),
            maxrto: cfg.max_rto.as_secs_f64(),
            backoff_cap: cfg.max_backoff.max(1) as i64,
            rtx: None,
            rto_memo: None,
            syn: cfg.syn,
            singledup: cfg.limited_transmit,
            precision_reduce: cfg.precision_reduce,
            bug_fix: cfg.bug_fix,
            newreno_changes1: cfg.newreno_changes1,
            partial_window_deflation: cfg.partial_window_deflation,
            sack_partial_ack: cfg.sack_partial_ack,
        }
    }

    pub fn tcb(&self) -> &Tcb {
        &self.tcb
    }
    pub fn tcb_mut(&mut self) -> &mut Tcb {
        &mut self.tcb
    }
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rtx
    }
    /// The timeout interval without backoff (for the PFTK `T0` statistic).
    pub fn base_timeout(&self) -> SimTime {
        let t = if self.t_rtxcur < self.minrto {
            self.minrto
        } else {
            self.t_rtxcur
        };
        secs(t.min(self.maxrto).max(2.0 * self.tick))
    }
    pub fn backoff(&self) -> u32 {
        self.t_backoff.clamp(1, u32::MAX as i64) as u32
    }
    /// Data segments to send: `None` infinite; with the SYN, data are `1..=n`.
    pub fn set_data_limit(&mut self, limit: Option<u64>) {
        self.curseq = match limit {
            None => i64::MAX,
            Some(n) => (n.min(i64::MAX as u64 / 2) as i64) + i64::from(self.syn),
        };
        self.tcb.limit = self.curseq as u64;
    }
    pub fn stats(&self, now: SimTime) -> SenderStats {
        let mut s = self.tcb.stats;
        s.cwnd_integral = self.tcb.integral_until(now);
        s
    }
    pub fn cwnd(&self) -> f64 {
        self.tcb.cwnd()
    }
    /// The Linux module's state for the cwnd trace (defaults for ns-2's AIMD agents).
    pub fn cc_trace(&self) -> super::cc::CcTrace {
        self.linux
            .as_ref()
            .map_or_else(super::cc::CcTrace::default, |l| l.trace_state())
    }

    // ------------------------------------------------------------------ entry points

    /// FTP start: `send_much` with the initial window (the SYN alone with `syn`).
    pub fn start(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.tcb.advance_clock(now);
        self.send_much(now, 0, out);
        self.sync(now);
    }

    pub fn poll_send(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.tcb.advance_clock(now);
        self.send_much(now, 0, out);
        self.sync(now);
    }

    /// An ACK arrived: the variant's `recv`.
    pub fn on_ack(&mut self, now: SimTime, ack: &AckSeg, out: &mut TcpOutput) {
        self.tcb.advance_clock(now);
        if self.linux.is_some() {
            self.recv_linux(now, ack, out);
            self.sync(now);
            return;
        }
        let a = ack.cum.min(i64::MAX as u64) as i64 - 1;
        match self.variant {
            Variant::Tahoe => self.recv_tahoe(now, a, out),
            Variant::Reno => self.recv_reno(now, a, out),
            Variant::NewReno => self.recv_newreno(now, a, out),
            Variant::Sack => self.recv_sack1(now, a, ack, out),
        }
        self.sync(now);
    }

    /// The retransmission timer expired (stale events are ignored).
    pub fn on_rto(&mut self, now: SimTime, out: &mut TcpOutput) {
        match self.rtx {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rtx = None;
        self.tcb.advance_clock(now);
        if self.linux.is_some() {
            self.timeout_linux(now, out);
            self.sync(now);
            return;
        }
        match self.variant {
            Variant::Tahoe => {}
            Variant::Reno | Variant::NewReno => {
                // RenoTcpAgent::timeout.
                self.dupwnd = 0;
                self.dupacks = 0;
                if self.bug_fix {
                    self.recover = self.maxseq;
                }
            }
            Variant::Sack => {
                // Sack1TcpAgent::timeout.
                self.dupacks = 0;
                self.fastrecov = false;
                self.timeout_flag = true;
                if self.highest_ack > self.last_ack {
                    self.last_ack = self.highest_ack;
                }
                self.recover = self.maxseq;
                self.sb.clear();
            }
        }
        self.timeout(now, out);
        self.sync(now);
    }

    // ------------------------------------------------------------------ recv per variant

    /// `TcpAgent::recv` (Tahoe).
    fn recv_tahoe(&mut self, now: SimTime, a: i64, out: &mut TcpOutput) {
        if a > self.last_ack {
            self.recv_newack_helper(now, a);
            if self.last_ack == 0 && self.delay_growth() {
                self.cwnd = self.initial_window();
            }
        } else if a == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.numdupacks {
                self.dupack_action_tahoe(now);
            } else if self.dupacks < self.numdupacks && self.singledup {
                self.send_one(now, out);
            }
        }
        if a >= self.last_ack {
            self.send_much(now, 0, out);
        }
    }

    /// `RenoTcpAgent::recv`.
    fn recv_reno(&mut self, now: SimTime, a: i64, out: &mut TcpOutput) {
        if a > self.last_ack {
            if self.last_action == CwndAction::Dupack {
                self.last_action = CwndAction::Exited;
            }
            self.dupwnd = 0;
            self.recv_newack_helper(now, a);
            if self.last_ack == 0 && self.delay_growth() {
                self.cwnd = self.initial_window();
            }
        } else if a == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.numdupacks {
                self.dupack_action_reno(now, out, false);
            } else if self.dupacks > self.numdupacks && self.last_action == CwndAction::Dupack {
                self.dupwnd += 1; // fast recovery: window inflation
            } else if self.dupacks < self.numdupacks && self.singledup {
                self.send_one(now, out);
            }
        }
        if a >= self.last_ack && (self.dupacks == 0 || self.dupacks > self.numdupacks - 1) {
            self.send_much(now, 0, out);
        }
    }

    /// `NewRenoTcpAgent::recv`.
    fn recv_newreno(&mut self, now: SimTime, a: i64, out: &mut TcpOutput) {
        if a > self.last_ack {
            if a >= self.recover || self.last_action != CwndAction::Dupack {
                // A full ACK (or not in fast recovery).
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_action == CwndAction::Dupack {
                        self.last_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(now, a);
                if self.last_ack == 0 && self.delay_growth() {
                    self.cwnd = self.initial_window();
                }
            } else {
                // A partial ACK: stay in fast recovery (tcp-newreno.cc partialnewack).
                if !self.partial_window_deflation {
                    self.dupwnd = 0;
                }
                if !self.newreno_changes1 || !self.firstpartial {
                    // newreno_changes1_: the timer is reset on the first partial ACK
                    // only, so S losses cost at most one RTO rather than S RTTs.
                    self.firstpartial = true;
                    self.newtimer(now, a);
                }
                self.partialnewack(a);
                let s = self.last_ack + 1;
                self.output(now, s, out);
            }
        } else if a == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.numdupacks {
                self.dupack_action_reno(now, out, true);
            } else if self.dupacks > self.numdupacks && self.last_action == CwndAction::Dupack {
                self.dupwnd += 1;
            } else if self.dupacks < self.numdupacks && self.singledup {
                self.send_one(now, out);
            }
        }
        if a >= self.last_ack {
            if self.dupacks == 0 {
                self.send_much(now, 0, out);
            } else if self.dupacks > self.numdupacks - 1 {
                // newreno_changes_ 0: at most two segments per ACK in fast recovery.
                self.send_much(now, 2, out);
            }
        }
    }

    /// `Sack1TcpAgent::recv`.
    fn recv_sack1(&mut self, now: SimTime, a: i64, ack: &AckSeg, out: &mut TcpOutput) {
        let valid = a >= self.last_ack;
        if !self.fastrecov {
            if a > self.last_ack {
                self.firstpartial = false;
                self.recv_newack_helper(now, a);
                self.timeout_flag = false;
                self.sb.clear();
                if self.last_ack == 0 && self.delay_growth() {
                    self.cwnd = self.initial_window();
                }
            } else if a < self.last_ack {
                // An old ACK: nothing.
            } else if !self.timeout_flag {
                let ha = self.highest_ack;
                self.sb.update(ha, ack);
                // A duplicate ACK counts only if its SACK blocks changed the scoreboard.
                if self.sb.changed {
                    self.dupacks += 1;
                    if self.dupacks == self.numdupacks {
                        self.dupack_action_sack1(now, out);
                    } else if self.dupacks < self.numdupacks && self.singledup {
                        self.send_one(now, out);
                    }
                }
            }
            if valid && self.dupacks == 0 {
                self.send_much(now, 0, out);
            }
        } else {
            // In fast recovery: every ACK takes one segment out of the pipe.
            self.pipe -= 1;
            if a >= self.recover {
                // Recovery is over; cwnd stays at the halved window.
                self.recover = 0;
                self.fastrecov = false;
                self.newack(now, a);
                self.timeout_flag = false;
                self.sb.clear();
            } else if a > self.highest_ack {
                // A partial ACK: update highest_ack_, not last_ack_.
                self.highest_ack = a;
                self.sb.update(a, ack);
                if self.sack_partial_ack {
                    self.partial_ack_action(now, out);
                    self.pipe += 1;
                    if !self.firstpartial {
                        self.newtimer(now, a);
                        self.t_backoff = 1;
                        self.firstpartial = true;
                    }
                } else {
                    // Count the retransmission this ACK acknowledges out of the pipe too.
                    self.pipe -= 1;
                    self.newtimer(now, a);
                    self.t_backoff = 1;
                }
            } else if !self.timeout_flag {
                let ha = self.highest_ack;
                self.sb.update(ha, ack);
                if self.sb.changed && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if valid {
                self.send_much(now, 0, out);
            }
        }
    }

    // ------------------------------------------------------------------ ns-2 routines

    fn delay_growth(&self) -> bool {
        // Agent/TCP delay_growth_ true: with the SYN, the initial window opens when it
        // is acknowledged.
        true
    }

    /// `initial_window()` (windowInitOption_ 1).
    fn initial_window(&self) -> f64 {
        self.wnd_init as f64
    }

    /// `window()`: Tahoe and Sack1 min(⌊cwnd⌋, wnd); Reno and NewReno add `dupwnd_`.
    fn window(&self) -> i64 {
        match self.variant {
            Variant::Reno | Variant::NewReno => (self.cwnd as i64 + self.dupwnd).min(self.wnd),
            _ => {
                if self.cwnd < self.wnd as f64 {
                    self.cwnd as i64
                } else {
                    self.wnd
                }
            }
        }
    }

    /// `windowd()`: the same as a real number.
    fn windowd(&self) -> f64 {
        match self.variant {
            Variant::Reno | Variant::NewReno => {
                (self.cwnd + self.dupwnd as f64).min(self.wnd as f64)
            }
            _ => self.cwnd.min(self.wnd as f64),
        }
    }

    /// `recv_newack_helper`: `newack` then `opencwnd`.
    fn recv_newack_helper(&mut self, now: SimTime, a: i64) {
        self.newack(now, a);
        self.opencwnd();
    }

    /// `newack` (timerfix_ true: the timer is set after the RTT update).
    fn newack(&mut self, now: SimTime, a: i64) {
        self.dupacks = 0;
        self.last_ack = a;
        self.highest_ack = a;
        if self.t_seqno < a + 1 {
            self.t_seqno = a + 1;
        }
        if self.rtt_active && a >= self.rtt_seq {
            self.t_backoff = 1;
            self.rtt_active = false;
            let tao = now.as_secs_f64() - self.rtt_ts.as_secs_f64();
            self.rtt_update(now, tao);
            let r = now.saturating_sub(self.rtt_ts);
            self.tcb.stats.rtt_sum_s += r.as_secs_f64();
            self.tcb.stats.rtt_samples += 1;
        }
        self.newtimer(now, a);
    }

    /// `newtimer`: restart the timer while anything is outstanding, else cancel it.
    fn newtimer(&mut self, now: SimTime, a: i64) {
        if self.t_seqno > a || a < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.rtx = None;
        }
    }

    /// `partialnewack` (tcp-newreno.cc): deflate by the segments acknowledged, keep one.
    fn partialnewack(&mut self, a: i64) {
        if self.partial_window_deflation {
            let deflate = a - self.last_ack;
            if self.dupwnd > deflate {
                self.dupwnd -= deflate - 1;
            } else {
                self.cwnd -= (deflate - self.dupwnd) as f64;
                // dupwnd_ > 0 flags fast recovery.
                self.dupwnd = 1;
            }
            if self.cwnd < 1.0 {
                self.cwnd = 1.0;
            }
        }
        self.last_ack = a;
        self.highest_ack = a;
        if self.t_seqno < a + 1 {
            self.t_seqno = a + 1;
        }
        if self.rtt_active && a >= self.rtt_seq {
            self.rtt_active = false;
            self.t_backoff = 1;
        }
    }

    /// `opencwnd` (windowOption_ 1): +1 in slow start, +1/cwnd in congestion avoidance.
    fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | how)`; `cwnd_half`: CLOSE_CWND_HALF, else the
    /// window restarts at one segment.
    fn slowdown(&mut self, cwnd_half: bool) {
        let halfwin = if self.precision_reduce {
            self.windowd() / 2.0
        } else {
            (self.window() / 2) as f64
        };
        // decrease_num_ 0.5: the first and later decreases are both halfwin.
        self.ssthresh = halfwin as i64;
        self.cwnd = if cwnd_half { halfwin } else { 1.0 };
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
    }

    /// `dupack_action` of `Agent/TCP` (Tahoe).
    fn dupack_action_tahoe(&mut self, now: SimTime) {
        let recovered = self.highest_ack > self.recover;
        if recovered || !self.bug_fix || self.highest_ack == 0 {
            // (highest_ack_ == 0: bugfix_ss_, fast retransmit of the first segment.)
            self.recover = self.maxseq;
            self.last_action = CwndAction::Dupack;
            self.note_td(now);
            self.slowdown(false);
            self.reset_rtx_timer(now, false, false);
        }
    }

    /// `dupack_action` of Reno (`newreno`: NewReno's, which never re-enters fast
    /// retransmit from `last_cwnd_action_`).
    fn dupack_action_reno(&mut self, now: SimTime, out: &mut TcpOutput, newreno: bool) {
        let recovered = self.highest_ack > self.recover;
        let allow = !newreno && self.last_action == CwndAction::Dupack;
        if recovered || !self.bug_fix || allow || self.highest_ack == 0 {
            self.recover = self.maxseq;
            self.note_td(now);
            if newreno {
                self.reset_rtx_timer(now, true, false);
                self.last_action = CwndAction::Dupack;
                self.slowdown(true);
            } else {
                self.last_action = CwndAction::Dupack;
                self.slowdown(true);
                self.reset_rtx_timer(now, true, false);
            }
            let s = self.last_ack + 1;
            self.output(now, s, out);
            self.dupwnd = self.numdupacks;
        }
    }

    /// `dupack_action` of Sack1: pipe = outstanding − dupthresh, retransmit the first
    /// hole.
    fn dupack_action_sack1(&mut self, now: SimTime, out: &mut TcpOutput) {
        let recovered = self.highest_ack > self.recover;
        if recovered || !self.bug_fix || self.highest_ack == 0 {
            self.recover = self.maxseq;
            self.pipe = self.maxseq - self.highest_ack - self.numdupacks;
            self.reset_rtx_timer(now, true, false);
            self.fastrecov = true;
            let ha = self.highest_ack;
            self.sb.mark_retran(ha + 1);
            self.note_td(now);
            self.last_action = CwndAction::Dupack;
            self.slowdown(true);
            let s = self.last_ack + 1;
            self.output(now, s, out);
        }
    }

    /// Sack1 `partial_ack_action` (only with `sack_partial_ack`): two segments.
    fn partial_ack_action(&mut self, now: SimTime, out: &mut TcpOutput) {
        if self.next_pkt < self.highest_ack + 1 {
            self.next_pkt = self.highest_ack + 1;
        }
        for _ in 0..2 {
            let nxt = self.sb.next_unacked(self.next_pkt);
            if nxt > self.next_pkt {
                self.next_pkt = nxt;
            }
            if self.t_seqno < self.next_pkt {
                self.t_seqno = self.next_pkt;
            }
            let s = self.next_pkt;
            self.output(now, s, out);
            self.sb.mark_retran(s);
            self.next_pkt += 1;
        }
    }

    /// `send_one` (singledup_): one new segment on an early duplicate ACK, if the
    /// receiver window and cwnd + dupacks allow.
    fn send_one(&mut self, now: SimTime, out: &mut TcpOutput) {
        let ha = self.highest_ack;
        if self.t_seqno <= ha + self.wnd
            && self.t_seqno < self.curseq
            && (self.t_seqno as f64) <= ha as f64 + self.cwnd + self.dupacks as f64
        {
            let s = self.t_seqno;
            self.output(now, s, out);
            self.t_seqno += 1;
        }
    }

    /// `send_much(0, reason, maxburst)`.
    fn send_much(&mut self, now: SimTime, maxburst: u32, out: &mut TcpOutput) {
        if self.linux.is_some() {
            self.send_much_linux(now, out);
            return;
        }
        if self.variant == Variant::Sack {
            self.send_much_sack1(now, maxburst, out);
            return;
        }
        let mut win = self.window();
        let mut n = 0;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            let s = self.t_seqno;
            self.output(now, s, out);
            n += 1;
            self.t_seqno += 1;
            win = self.window();
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// Sack1's `send_much`: outside recovery the window loop (retransmitting holes
    /// first); in fast recovery while pipe < ⌊cwnd⌋.
    fn send_much_sack1(&mut self, now: SimTime, maxburst: u32, out: &mut TcpOutput) {
        let mut win = self.window();
        let mut n = 0;
        let mut found = true;
        while ((!self.fastrecov && self.t_seqno <= self.last_ack + win)
            || (self.fastrecov && self.pipe < self.cwnd as i64))
            && self.last_ack + 1 < self.curseq
            && found
        {
            found = false;
            let mut x = self.sb.next_retran();
            if x == -1 {
                let lim = if self.fastrecov { self.wnd } else { win };
                if self.t_seqno <= self.highest_ack + lim && self.t_seqno < self.curseq {
                    found = true;
                    x = self.t_seqno;
                    self.t_seqno += 1;
                }
            } else if self.recover > 0 && x <= self.highest_ack + self.wnd {
                found = true;
                self.sb.mark_retran(x);
                win = self.window();
            }
            if found {
                self.output(now, x, out);
                if self.t_seqno <= x {
                    self.t_seqno = x + 1;
                }
                n += 1;
                self.pipe += 1;
            }
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// `output(seqno)`: hand a segment to the network, start RTT timing of new data,
    /// and set the timer if none is pending (or nothing was outstanding).
    fn output(&mut self, now: SimTime, seqno: i64, out: &mut TcpOutput) {
        let force = self.highest_ack == self.maxseq;
        let seq = seqno.max(0) as u64;
        let retransmit = seqno <= self.maxseq;
        self.tcb.stats.segs_sent += 1;
        if retransmit {
            self.tcb.stats.retransmits += 1;
        } else {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        }
        out.sends.push(SendReq { seq, retransmit });
        self.tcb.record(TraceEvent::Send {
            t: now,
            seq,
            retransmit,
        });
        if self.rtx.is_none() || force {
            self.set_rtx_timer(now);
        }
    }

    /// `timeout(TCP_TIMER_RTX)` of `Agent/TCP`.
    fn timeout(&mut self, now: SimTime, out: &mut TcpOutput) {
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        let idle = self.highest_ack == self.maxseq;
        self.recover = self.maxseq;
        if self.highest_ack == -1 && self.wnd_init > 1 {
            // bugfix_ss_: the SYN (or first segment) was lost; start with one segment.
            self.wnd_init = 1;
        }
        if idle {
            // restart_bugfix_: nothing outstanding, do not cut ssthresh.
            self.cwnd = 1.0;
        } else {
            self.tcb.stats.to_events += 1;
            let s = self.tcb.snd_una;
            self.tcb.record(TraceEvent::To { t: now, seq: s });
            self.last_action = CwndAction::Timeout;
            self.slowdown(false);
        }
        self.reset_rtx_timer(now, false, !idle);
        self.last_action = CwndAction::Timeout;
        self.send_much(now, 0, out);
    }

    fn note_td(&mut self, now: SimTime) {
        self.tcb.stats.td_events += 1;
        let s = self.tcb.snd_una;
        self.tcb.record(TraceEvent::Td { t: now, seq: s });
    }

    /// Copies the ns-2 state into the control block observers read.
    fn sync(&mut self, now: SimTime) {
        let t = &mut self.tcb;
        t.snd_una = (self.highest_ack + 1).max(0) as u64;
        t.snd_max = (self.maxseq + 1).max(0) as u64;
        t.t_seqno = self.t_seqno.max(0) as u64;
        t.dupacks = self.dupacks.clamp(0, u32::MAX as i64) as u32;
        t.dupwnd = self.dupwnd.max(0) as u64;
        t.recover = (self.recover + 1).max(0) as u64;
        t.rto_deadline = self.rtx;
        t.set_cwnd(self.cwnd);
        t.set_ssthresh(self.ssthresh.clamp(2, u32::MAX as i64) as u32);
        let linux_state = self.linux.as_ref().map(|l| l.ca_state());
        let phase = if let Some(st) = linux_state {
            match st {
                linux::CaState::Recovery => Phase::FastRecovery,
                linux::CaState::Loss => Phase::Loss,
                linux::CaState::Open if self.cwnd <= self.ssthresh as f64 => Phase::SlowStart,
                linux::CaState::Open => Phase::CongestionAvoidance,
            }
        } else if self.dupwnd > 0 || self.fastrecov {
            Phase::FastRecovery
        } else if self.last_action == CwndAction::Timeout && self.highest_ack < self.recover {
            Phase::Loss
        } else if self.cwnd < self.ssthresh as f64 {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        t.set_phase(phase, now);
        t.clear_phase_changes();
        t.observe(now);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{align_of, offset_of};

    /// What an ACK reads fills lines 0–6: the ns-2 state, then the mirror's hot fields
    /// (`Tcb`'s first 192 bytes, see its docs); `Hosts::prefetch` asks for these lines.
    #[test]
    fn ack_state_fills_seven_lines() {
        assert_eq!(align_of::<Ns2Sender>(), 64);
        assert_eq!(offset_of!(Ns2Sender, ssthresh), 56);
        assert_eq!(offset_of!(Ns2Sender, rtt_seq), 2 * 64 - 8);
        assert_eq!(offset_of!(Ns2Sender, t_rttvar) + 4, 3 * 64);
        assert_eq!(offset_of!(Ns2Sender, sb), 3 * 64);
        assert!(offset_of!(Ns2Sender, rtt_active) < 4 * 64);
        assert!(offset_of!(Ns2Sender, tcb) + 192 <= 7 * 64);
        assert!(offset_of!(Ns2Sender, next_pkt) >= offset_of!(Ns2Sender, tcb) + 192);
    }
}
