//! The TCP sender: the shared control block [`Tcb`] and the event entry points of
//! [`TcpSender`] (`start`, `on_ack`, `on_rto`).
//!
//! Read first: [`Tcb`] (every field states its invariant), then [`TcpSender::on_ack`],
//! which drives the two strategy objects: congestion control (`cc.rs`) and loss recovery
//! (`recovery.rs`). No strategy sees the sender; they read and update the `Tcb` only.
//!
//! Semantics (segment granularity, like ns-2's one-way `Agent/TCP`):
//! - `snd_una` = first unacknowledged segment, `snd_max` = one past the highest segment
//!   ever sent (RFC 6675 HighData + 1), `t_seqno` = next segment the window loop sends
//!   (ns-2 `t_seqno_`; a timeout or Tahoe's fast retransmit resets it to `snd_una`:
//!   go-back-N).
//! - Effective window = min(cwnd, wm) (+ duplicate-ACK inflation during Reno/NewReno fast
//!   recovery); segments `t_seqno < snd_una + window` may be sent.
//! - cwnd is `f64` segments, clamped to `[1, wm]` (ns-2 `maxcwnd_` = `window_`; ns-2 lets
//!   cwnd exceed `window_` but never sends or halves beyond `window_`, so behaviour is the
//!   same and the cwnd integral stays meaningful).
//! - RTO per RFC 6298 (`rtt.rs`), timer restarted on every ACK of new data (5.3), stopped
//!   when nothing is outstanding (5.2). Karn: one timed segment at a time, timing is
//!   abandoned whenever anything is retransmitted (ns-2 `reset_rtx_timer` clears
//!   `rtt_active_`), and the backoff is kept until a valid sample is taken.

use super::cc::{Cc, CongestionControl};
use super::recovery::LossRecovery;
use super::rtt::RttEstimator;
use super::*;

/// RFC 5681 §3.1 initial window in segments for a given SMSS (bytes).
pub fn rfc5681_initial_window(mss: u32) -> u32 {
    if mss > 2190 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}

/// Parameter defaults for a variant under a profile.
pub fn default_config(variant: Variant, profile: Profile) -> TcpConfig {
    match profile {
        // ns-2.35 tcl/lib/ns-default.tcl (read from the public ns-2.35 tree, lines
        // 918–1090). The ns-2 name of each value is given.
        Profile::Ns2 => TcpConfig {
            variant,
            profile,
            mss: 1000,          // Agent/TCP packetSize_ 1000 (bytes incl. nothing else)
            header_bytes: 40,   // Agent/TCP tcpip_base_hdr_size_ 40
            ack_bytes: 40,      // Agent/TCPSink packetSize_ 40
            wm: 20,             // Agent/TCP window_ 20
            init_cwnd: 2,       // Agent/TCP windowInit_ 2 (windowInitOption_ 1)
            init_ssthresh: 20,  // TcpAgent::reset(): ssthresh_ = window_ (tcp.cc)
            dupack_thresh: 3,   // Agent/TCP numdupacks_ 3
            delayed_ack: false, // plain Agent/TCPSink acks every segment
            delack_timeout: SimTime::from_ms(100), // Agent/TCPSink/DelAck interval_ 100ms
            min_rto: SimTime::from_ms(200), // Agent/TCP minrto_ 0.2
            max_rto: SimTime::from_secs(60), // Agent/TCP maxrto_ 60
            init_rto: SimTime::from_secs(3), // Agent/TCP rtxcur_init_ 3.0
            clock_granularity: SimTime::from_ms(10), // Agent/TCP tcpTick_ 0.01
            max_backoff: 64,    // tcp.cc rtt_backoff(): t_backoff_ < 64
            sack_blocks: 3,     // Agent/TCPSink maxSackBlocks_ 3
        },
        Profile::Rfc => {
            // An RFC-conformant host on Ethernet: SMSS 1460 gives IW = 3 by RFC 5681 §3.1
            // (1095 < SMSS ≤ 2190); with segment-granularity accounting this is the IW a
            // real 1460-byte-MSS stack starts with.
            let mss = 1460;
            TcpConfig {
                variant,
                profile,
                mss,
                header_bytes: 40,
                ack_bytes: 40,
                wm: 20,
                init_cwnd: rfc5681_initial_window(mss),
                init_ssthresh: u32::MAX, // RFC 5681 §3.1: "arbitrarily high"
                dupack_thresh: 3,        // RFC 5681 §3.2 / RFC 6675 DupThresh
                delayed_ack: true,       // RFC 5681 §4.2 SHOULD, every 2nd full segment
                delack_timeout: SimTime::from_ms(200), // RFC 5681 §4.2: < 500 ms
                min_rto: SimTime::from_secs(1), // RFC 6298 (2.4)
                max_rto: SimTime::from_secs(60), // RFC 6298 (2.5)
                init_rto: SimTime::from_secs(1), // RFC 6298 (2.1)
                clock_granularity: SimTime::from_ms(1), // RFC 6298 G (fine clock)
                max_backoff: 64,         // yu eq. 23
                sack_blocks: 3,          // RFC 2018 §3 (with timestamps)
            }
        }
    }
}

/// Congestion phase. Changed only through [`Tcb::set_phase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// cwnd < ssthresh, no loss being repaired.
    SlowStart,
    /// cwnd ≥ ssthresh, no loss being repaired.
    CongestionAvoidance,
    /// Fast retransmit/fast recovery after duplicate ACKs (Reno, NewReno, SACK), until
    /// the strategy's exit condition.
    FastRecovery,
    /// After a retransmission timeout (or Tahoe's fast retransmit): slow start from
    /// cwnd = 1 with go-back-N, until `snd_una ≥ recover`. Duplicate ACKs do not trigger
    /// fast retransmit in this phase (ns-2 `bugFix_`, RFC 6582 §3.2 step 1 "recover").
    Loss,
}

/// One observation, recorded only when tracing was enabled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceEvent {
    /// (cwnd, ssthresh, phase) after a change.
    State {
        t: SimTime,
        cwnd: f64,
        ssthresh: u32,
        phase: Phase,
    },
    Send {
        t: SimTime,
        seq: u64,
        retransmit: bool,
    },
    /// A fast-retransmit (triple-duplicate) episode started.
    Td { t: SimTime, seq: u64 },
    /// A retransmission timeout fired.
    To { t: SimTime, seq: u64 },
}

/// The TCP control block shared by the sender and its strategies.
#[derive(Debug)]
pub struct Tcb {
    /// Duplicate-ACK threshold (DupThresh).
    pub dupthresh: u32,
    /// Maximum window `Wm`, segments (≥ 1).
    pub wm: u64,
    /// First unacknowledged segment. Invariant: `snd_una ≤ t_seqno` and `snd_una ≤ snd_max`.
    pub snd_una: u64,
    /// One past the highest segment ever sent (HighData + 1).
    pub snd_max: u64,
    /// Next segment of the in-order window loop (ns-2 `t_seqno_`).
    pub t_seqno: u64,
    /// Segments `≥ limit` are never sent (`u64::MAX`: infinite source).
    pub limit: u64,
    /// Duplicate ACKs received in a row (reset by any ACK of new data).
    pub dupacks: u32,
    /// Window inflation in segments during Reno/NewReno fast recovery (ns-2 `dupwnd_`);
    /// 0 outside fast recovery.
    pub dupwnd: u64,
    /// Recovery point: `snd_max` when the current fast recovery or loss phase began.
    pub recover: u64,
    /// Duplicate ACKs still expected from go-back-N retransmissions of segments the
    /// receiver already held; they are not counted as duplicates (otherwise they
    /// trigger a spurious fast retransmit right after an RTO, cf. RFC 6582 §4).
    pub expected_dups: u64,
    /// RTT estimator and backoff.
    pub rtt: RttEstimator,
    /// Retransmission timer deadline (one per flow).
    pub rto_deadline: Option<SimTime>,
    /// The segment being timed and when it was sent (Karn: never a retransmission).
    pub timed: Option<(u64, SimTime)>,
    pub stats: SenderStats,
    cwnd: f64,
    ssthresh: u32,
    phase: Phase,
    /// Time up to which `stats.cwnd_integral` has been accumulated.
    integ_t: SimTime,
    trace: Option<Vec<TraceEvent>>,
    last_state: (f64, u32, Phase),
}

impl Tcb {
    pub fn new(cfg: &TcpConfig, now: SimTime) -> Self {
        let wm = cfg.wm.max(1) as u64;
        let cwnd = (cfg.init_cwnd.max(1) as f64).min(wm as f64);
        let ssthresh = cfg.init_ssthresh.max(2);
        let phase = if cwnd < ssthresh as f64 {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        Tcb {
            dupthresh: cfg.dupack_thresh.max(1),
            wm,
            snd_una: 0,
            snd_max: 0,
            t_seqno: 0,
            limit: u64::MAX,
            dupacks: 0,
            dupwnd: 0,
            recover: 0,
            expected_dups: 0,
            rtt: RttEstimator::new(
                cfg.init_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
                cfg.max_backoff,
            ),
            rto_deadline: None,
            timed: None,
            stats: SenderStats::default(),
            cwnd,
            ssthresh,
            phase,
            integ_t: now,
            trace: None,
            last_state: (cwnd, ssthresh, phase),
        }
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u32 {
        self.ssthresh
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Sets cwnd, clamped to `[1, wm]`.
    pub fn set_cwnd(&mut self, w: f64) {
        self.cwnd = w.clamp(1.0, self.wm as f64);
    }
    pub fn set_ssthresh(&mut self, s: u32) {
        self.ssthresh = s.max(2);
    }
    /// The one setter of the congestion phase; records the change when tracing.
    pub fn set_phase(&mut self, p: Phase, now: SimTime) {
        if p != self.phase {
            self.phase = p;
            self.observe(now);
        }
    }
    /// Returns to SlowStart or CongestionAvoidance according to cwnd vs ssthresh.
    pub fn set_open_phase(&mut self, now: SimTime) {
        let p = if self.cwnd < self.ssthresh as f64 {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        self.set_phase(p, now);
    }
    /// ns-2 `window()`: min(⌊cwnd⌋, wm), the window a loss response halves.
    pub fn loss_window(&self) -> u64 {
        (self.cwnd as u64).min(self.wm)
    }
    /// Segments outstanding (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Send window: min(⌊cwnd⌋ + dupwnd, wm) (ns-2 `RenoTcpAgent::window()`).
    pub fn send_window(&self) -> u64 {
        (self.cwnd as u64 + self.dupwnd).min(self.wm)
    }

    /// Accumulates the cwnd integral up to `now` (call before changing cwnd).
    pub fn advance_clock(&mut self, now: SimTime) {
        if now > self.integ_t {
            self.stats.cwnd_integral += self.cwnd * (now - self.integ_t).as_secs_f64();
            self.integ_t = now;
        }
    }
    pub fn integral_until(&self, now: SimTime) -> f64 {
        self.stats.cwnd_integral + self.cwnd * now.saturating_sub(self.integ_t).as_secs_f64()
    }

    /// Hands segment `seq` to the network: stats, Karn bookkeeping, RFC 6298 (5.1).
    pub fn transmit(&mut self, now: SimTime, seq: u64, out: &mut TcpOutput) {
        let retransmit = seq < self.snd_max;
        self.stats.segs_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn: an ACK after a retransmission is ambiguous; stop timing.
            self.timed = None;
        } else {
            self.snd_max = seq + 1;
            if self.timed.is_none() {
                self.timed = Some((seq, now));
            }
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 (5.1).
            self.restart_timer(now);
        }
        out.sends.push(SendReq { seq, retransmit });
        if let Some(tr) = self.trace.as_mut() {
            tr.push(TraceEvent::Send {
                t: now,
                seq,
                retransmit,
            });
        }
    }
    pub fn restart_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.timeout());
    }
    /// Records a TD event (the strategies call this when fast retransmit starts).
    pub fn note_td(&mut self, now: SimTime) {
        self.stats.td_events += 1;
        let seq = self.snd_una;
        if let Some(tr) = self.trace.as_mut() {
            tr.push(TraceEvent::Td { t: now, seq });
        }
    }

    /// The in-order window loop: sends `t_seqno…` while the send window allows.
    pub fn send_window_loop(&mut self, now: SimTime, out: &mut TcpOutput) {
        let win = self.send_window();
        while self.t_seqno < self.limit && self.t_seqno < self.snd_una + win {
            let s = self.t_seqno;
            self.t_seqno += 1;
            self.transmit(now, s, out);
        }
    }

    /// Records (cwnd, ssthresh, phase) if tracing and it changed.
    pub fn observe(&mut self, now: SimTime) {
        if let Some(tr) = self.trace.as_mut() {
            let st = (self.cwnd, self.ssthresh, self.phase);
            if st != self.last_state {
                self.last_state = st;
                tr.push(TraceEvent::State {
                    t: now,
                    cwnd: st.0,
                    ssthresh: st.1,
                    phase: st.2,
                });
            }
        }
    }
}

/// A segment-granularity TCP sender (one flow).
pub struct TcpSender {
    cfg: TcpConfig,
    tcb: Tcb,
    cc: Cc,
    rec: LossRecovery,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, now: SimTime) -> Self {
        let tcb = Tcb::new(&cfg, now);
        let rec = LossRecovery::new(cfg.variant, tcb.wm);
        TcpSender {
            cfg,
            tcb,
            cc: Cc::default(),
            rec,
        }
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Opens the connection (no handshake) and sends the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.tcb.advance_clock(now);
        self.tcb.observe(now);
        self.rec.send(&mut self.tcb, now, out);
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &AckSeg, out: &mut TcpOutput) {
        let tcb = &mut self.tcb;
        tcb.advance_clock(now);
        let cum = ack.cum.min(tcb.snd_max);
        self.rec.on_sack_info(tcb, cum, ack);
        if cum > tcb.snd_una {
            let newly = cum - tcb.snd_una;
            if tcb.t_seqno < cum {
                // The ACK jumped over go-back-N retransmissions still in flight
                // ([snd_una + 1, t_seqno)); each will come back as a duplicate.
                tcb.expected_dups += tcb.t_seqno.saturating_sub(tcb.snd_una + 1);
                tcb.t_seqno = cum;
            }
            tcb.snd_una = cum;
            tcb.dupacks = 0;
            // Karn / RFC 6298 §3: sample only the timed, never-retransmitted segment.
            if let Some((s, t0)) = tcb.timed {
                if cum > s {
                    tcb.rtt.sample(now - t0);
                    tcb.stats.rtt_sum_s += (now - t0).as_secs_f64();
                    tcb.stats.rtt_samples += 1;
                    tcb.timed = None;
                }
            }
            // RFC 6298 (5.2)/(5.3).
            if tcb.snd_una >= tcb.snd_max {
                tcb.rto_deadline = None;
            } else {
                tcb.restart_timer(now);
            }
            let grow = self.rec.on_new_ack(tcb, now, newly, out);
            if grow {
                self.cc.on_ack(tcb, newly);
            }
            let open = matches!(tcb.phase(), Phase::SlowStart | Phase::CongestionAvoidance);
            if open || (tcb.phase() == Phase::Loss && tcb.snd_una >= tcb.recover) {
                tcb.set_open_phase(now);
            }
        } else if cum == tcb.snd_una && tcb.snd_una < tcb.snd_max {
            if tcb.expected_dups > 0 && ack.nsack == 0 {
                tcb.expected_dups -= 1;
                self.rec.send(tcb, now, out);
                tcb.observe(now);
                return;
            }
            tcb.dupacks += 1;
            self.rec.on_dupack(tcb, &self.cc, now, out);
        }
        self.rec.send(tcb, now, out);
        tcb.observe(now);
    }

    /// Called when the retransmission timer deadline has been reached.
    pub fn on_rto(&mut self, now: SimTime, out: &mut TcpOutput) {
        let tcb = &mut self.tcb;
        match tcb.rto_deadline {
            Some(d) if d <= now => {}
            _ => return, // stale timer event (lazy cancellation)
        }
        tcb.advance_clock(now);
        if tcb.snd_una >= tcb.snd_max {
            tcb.rto_deadline = None;
            return;
        }
        tcb.stats.to_events += 1;
        if let Some(tr) = tcb.trace.as_mut() {
            tr.push(TraceEvent::To {
                t: now,
                seq: tcb.snd_una,
            });
        }
        // RFC 5681 §3.1 eq. (4) and "cwnd = LW = 1 SMSS".
        let ss = self.cc.ssthresh_on_to(tcb);
        tcb.set_ssthresh(ss);
        tcb.set_cwnd(1.0);
        tcb.dupacks = 0;
        tcb.dupwnd = 0;
        tcb.recover = tcb.snd_max;
        tcb.expected_dups = 0;
        // Go-back-N from snd_una (ns-2 `reset_rtx_timer(0, 1)`: t_seqno_ = highest_ack_+1).
        tcb.t_seqno = tcb.snd_una;
        tcb.timed = None;
        self.rec.on_timeout(tcb);
        tcb.set_phase(Phase::Loss, now);
        // RFC 6298 (5.5) back off, (5.6) restart, (5.4) retransmit the earliest segment.
        tcb.rtt.back_off();
        tcb.restart_timer(now);
        self.rec.send(tcb, now, out);
        tcb.observe(now);
    }

    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.tcb.rto_deadline
    }
    /// Stops sending segments with `seq >= limit` (None: infinite source).
    pub fn set_data_limit(&mut self, limit: Option<u64>) {
        self.tcb.limit = limit.unwrap_or(u64::MAX);
    }
    /// Sends whatever the window allows now (e.g. after raising the data limit).
    pub fn poll_send(&mut self, now: SimTime, out: &mut TcpOutput) {
        self.tcb.advance_clock(now);
        self.rec.send(&mut self.tcb, now, out);
        self.tcb.observe(now);
    }
    pub fn cwnd(&self) -> f64 {
        self.tcb.cwnd()
    }
    pub fn ssthresh(&self) -> u32 {
        self.tcb.ssthresh()
    }
    pub fn phase(&self) -> Phase {
        self.tcb.phase()
    }
    /// The control block (read-only).
    pub fn tcb(&self) -> &Tcb {
        &self.tcb
    }
    /// All segments `< limit` acknowledged.
    pub fn done(&self) -> bool {
        self.tcb.snd_una >= self.tcb.limit
    }
    pub fn stats(&self, now: SimTime) -> SenderStats {
        let mut s = self.tcb.stats;
        s.cwnd_integral = self.tcb.integral_until(now);
        s
    }
    /// Starts recording [`TraceEvent`]s (allocates; off by default, costs nothing when off).
    pub fn enable_trace(&mut self) {
        if self.tcb.trace.is_none() {
            self.tcb.trace = Some(Vec::new());
            self.tcb.last_state = (f64::NAN, 0, self.tcb.phase);
        }
    }
    pub fn take_trace(&mut self) -> Vec<TraceEvent> {
        self.tcb
            .trace
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}
