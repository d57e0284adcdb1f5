//! A test-only congestion controller with memory, and the scripted conversations that
//! show the sender driving it: the hooks arrive with the right time and window, in order.
//!
//! Read first: [`Probe`]. It behaves exactly as AIMD (so a conversation is the same with
//! or without it) and remembers, as CUBIC would, the window at the last loss (`w_max`) and
//! when the current epoch started, plus a log of every hook call.

use super::cc::{Aimd, Cc, CongestionControl};
use super::tcb::{Phase, Tcb};
use crate::units::SimTime;

/// One hook call as the controller saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seen {
    /// `on_loss`: the time, cwnd and outstanding segments at detection, and the ssthresh
    /// returned.
    Loss {
        t: SimTime,
        cwnd: f64,
        flight: u64,
        ssthresh: u32,
    },
    /// `on_timeout`, likewise.
    Timeout {
        t: SimTime,
        cwnd: f64,
        flight: u64,
        ssthresh: u32,
    },
    Phase {
        t: SimTime,
        from: Phase,
        to: Phase,
    },
}

/// AIMD with memory: W_max and epoch start, updated on loss and timeout.
#[derive(Clone, Debug, Default)]
pub struct Probe {
    aimd: Aimd,
    /// cwnd when the last loss (TD or TO) was reported.
    pub w_max: f64,
    /// When the current congestion-avoidance epoch started (the last loss), if any.
    pub epoch_start: Option<SimTime>,
    /// Loss, timeout and phase-change calls, in order.
    pub log: Vec<Seen>,
    /// RTT samples (time, rtt).
    pub rtts: Vec<(SimTime, SimTime)>,
    /// Calls of `on_ack` and the segments they acknowledged in total.
    pub acks: u64,
    pub acked_segs: u64,
    /// The time of the last `on_ack` call (hooks must arrive in time order).
    pub last_ack_t: SimTime,
}

impl CongestionControl for Probe {
    fn on_ack(&mut self, tcb: &mut Tcb, now: SimTime, acked_segs: u64) {
        assert!(now >= self.last_ack_t, "on_ack out of time order");
        assert!(
            matches!(
                tcb.phase(),
                Phase::SlowStart | Phase::CongestionAvoidance | Phase::Loss
            ),
            "on_ack during fast recovery"
        );
        self.last_ack_t = now;
        self.acks += 1;
        self.acked_segs += acked_segs;
        self.aimd.on_ack(tcb, now, acked_segs);
    }
    fn on_rtt_sample(&mut self, tcb: &Tcb, now: SimTime, rtt: SimTime) {
        assert!(
            tcb.rtt.srtt().is_some(),
            "estimator updated before the hook"
        );
        self.rtts.push((now, rtt));
    }
    fn on_loss(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        let ssthresh = self.aimd.on_loss(tcb, now);
        self.w_max = tcb.cwnd();
        self.epoch_start = Some(now);
        self.log.push(Seen::Loss {
            t: now,
            cwnd: tcb.cwnd(),
            flight: tcb.flight_size(),
            ssthresh,
        });
        ssthresh
    }
    fn on_timeout(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        let ssthresh = self.aimd.on_timeout(tcb, now);
        self.w_max = tcb.cwnd();
        self.epoch_start = Some(now);
        self.log.push(Seen::Timeout {
            t: now,
            cwnd: tcb.cwnd(),
            flight: tcb.flight_size(),
            ssthresh,
        });
        ssthresh
    }
    fn on_phase_change(&mut self, tcb: &Tcb, now: SimTime, from: Phase, to: Phase) {
        assert_eq!(tcb.phase(), to, "phase change delivered late");
        self.log.push(Seen::Phase { t: now, from, to });
    }
    fn name(&self) -> &'static str {
        "probe"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::tcb::TraceEvent;
    use crate::tcp::testkit::{Drop, Harness};
    use crate::tcp::{Profile, TcpConfig, TcpSender, Variant};

    fn cfg(v: Variant, wm: u32, ssthresh: u32) -> TcpConfig {
        // ns-2's parameter values on the strategy engine (the only one with controller
        // hooks; the ns2 profile's agents implement ns-2's AIMD themselves).
        let mut c = TcpConfig::defaults(v, Profile::Ns2);
        c.profile = Profile::Rfc;
        c.wm = wm;
        c.init_ssthresh = ssthresh;
        c
    }

    /// Runs the same conversation with the probe and with the configured AIMD.
    fn run_both(c: TcpConfig, drops: Vec<Drop>, secs: u64) -> (Harness, Harness) {
        let one_way = SimTime::from_ms(50);
        let mut hp = Harness::with_sender(
            TcpSender::with_cc(c.clone(), SimTime::ZERO, Cc::Probe(Probe::default())),
            &c,
            one_way,
            None,
            drops.clone(),
        );
        let mut ha = Harness::new(c, one_way, None, drops);
        for h in [&mut hp, &mut ha] {
            h.start();
            h.run_until(SimTime::from_secs(secs), |_| false);
        }
        (hp, ha)
    }

    fn probe(h: &Harness) -> &Probe {
        match h.snd.cc() {
            Cc::Probe(p) => p,
            other => panic!("not the probe: {other:?}"),
        }
    }

    fn phases(p: &Probe) -> Vec<(SimTime, Phase, Phase)> {
        p.log
            .iter()
            .filter_map(|s| match *s {
                Seen::Phase { t, from, to } => Some((t, from, to)),
                _ => None,
            })
            .collect()
    }

    /// The phases the sender's own trace recorded, with the time of each change.
    fn traced_phases(h: &Harness) -> Vec<(SimTime, Phase)> {
        let mut v: Vec<(SimTime, Phase)> = Vec::new();
        for e in &h.trace {
            if let TraceEvent::State { t, phase, .. } = *e {
                if v.last().map(|x| x.1) != Some(phase) {
                    v.push((t, phase));
                }
            }
        }
        v
    }

    #[test]
    fn test_cc_probe_reno_td_seen_at_detection_with_full_window() {
        // One loss at cwnd = wm = 20: the controller hears of it at the third duplicate
        // ACK, with the window still at 20, and returns ssthresh 10.
        let (hp, ha) = run_both(
            cfg(Variant::Reno, 20, u32::MAX),
            vec![Drop::FirstTx(30, 30)],
            5,
        );
        // Same conversation as the plain AIMD controller.
        assert_eq!(hp.sends, ha.sends);
        assert_eq!(hp.states(), ha.states());
        let p = probe(&hp);
        let td = hp.td_times();
        assert_eq!(td.len(), 1);
        let losses: Vec<Seen> = p
            .log
            .iter()
            .copied()
            .filter(|s| matches!(s, Seen::Loss { .. }))
            .collect();
        assert_eq!(losses.len(), 1);
        let Seen::Loss {
            t,
            cwnd,
            flight,
            ssthresh,
        } = losses[0]
        else {
            unreachable!()
        };
        assert_eq!(t, td[0]);
        assert_eq!(cwnd, 20.0);
        assert_eq!(flight, 20);
        assert_eq!(ssthresh, 10);
        // Memory kept across calls: W_max and the epoch start.
        assert_eq!(p.w_max, 20.0);
        assert_eq!(p.epoch_start, Some(td[0]));
        // Phase changes: slow start → fast recovery at the TD (after the loss hook),
        // fast recovery → congestion avoidance on the recovering ACK one RTT later.
        let ph = phases(p);
        assert_eq!(ph.len(), 2);
        assert_eq!(ph[0], (td[0], Phase::SlowStart, Phase::FastRecovery));
        assert_eq!(
            (ph[1].1, ph[1].2),
            (Phase::FastRecovery, Phase::CongestionAvoidance)
        );
        assert_eq!(ph[1].0 - ph[0].0, SimTime::from_ms(100));
        let i_loss = p.log.iter().position(|s| matches!(s, Seen::Loss { .. }));
        let i_fr = p.log.iter().position(|s| {
            matches!(
                s,
                Seen::Phase {
                    to: Phase::FastRecovery,
                    ..
                }
            )
        });
        assert!(i_loss < i_fr);
        // The controller saw exactly the phase changes the sender traced.
        let traced = traced_phases(&hp);
        let seen: Vec<(SimTime, Phase)> = ph.iter().map(|x| (x.0, x.2)).collect();
        assert_eq!(&traced[1..], &seen[..]);
        // Every valid RTT sample reached it: 100 ms on this unloaded pipe.
        let st = hp.snd.stats(SimTime::from_secs(5));
        assert_eq!(p.rtts.len() as u64, st.rtt_samples);
        assert!(p.rtts.iter().all(|r| r.1 == SimTime::from_ms(100)));
        assert!(p.acks > 0 && p.acked_segs >= p.acks);
    }

    #[test]
    fn test_cc_probe_reno_burst_two_losses_then_timeout_in_order() {
        // yu §III.C: five segments lost at W = 20; two TDs (window 20 then 10), then a
        // timeout. The controller sees each with its time and window, and the phases in
        // the order the sender went through them.
        let (hp, ha) = run_both(
            cfg(Variant::Reno, 64, 20),
            vec![Drop::RunAtCwnd {
                min_cwnd: 20.0,
                len: 5,
            }],
            10,
        );
        assert_eq!(hp.sends, ha.sends);
        let p = probe(&hp);
        let td = hp.td_times();
        let to = hp.to_times();
        assert_eq!((td.len(), to.len()), (2, 1));
        let events: Vec<(SimTime, f64, u32, bool)> = p
            .log
            .iter()
            .filter_map(|s| match *s {
                Seen::Loss {
                    t, cwnd, ssthresh, ..
                } => Some((t, cwnd, ssthresh, false)),
                Seen::Timeout {
                    t, cwnd, ssthresh, ..
                } => Some((t, cwnd, ssthresh, true)),
                Seen::Phase { .. } => None,
            })
            .collect();
        assert_eq!(events.len(), 3);
        // Detected in congestion avoidance a little above 20, then at the deflated 10.
        assert_eq!(
            (events[0].0, events[0].1 as u64, events[0].3),
            (td[0], 20, false)
        );
        assert_eq!(
            (events[1].0, events[1].1 as u64, events[1].3),
            (td[1], 10, false)
        );
        assert_eq!(events[0].2, 10);
        assert_eq!(events[1].2, 5);
        assert_eq!((events[2].0, events[2].3), (to[0], true));
        // The timeout hook sees the window before the reset to 1 segment.
        assert!(events[2].1 >= 1.0);
        assert_eq!(p.epoch_start, Some(to[0]));
        // Phases, in order: SS → CA (cwnd reached ssthresh 20) → FR → CA → FR → CA →
        // Loss → (slow start after the go-back-N recovery).
        let ph = phases(p);
        let tos: Vec<Phase> = ph.iter().map(|x| x.2).collect();
        assert_eq!(ph[0].1, Phase::SlowStart);
        assert_eq!(
            &tos[..6],
            &[
                Phase::CongestionAvoidance,
                Phase::FastRecovery,
                Phase::CongestionAvoidance,
                Phase::FastRecovery,
                Phase::CongestionAvoidance,
                Phase::Loss,
            ]
        );
        assert_eq!(ph[5].0, to[0]);
        assert_eq!((ph[1].0, ph[3].0), (td[0], td[1]));
        for w in ph.windows(2) {
            assert_eq!(w[0].2, w[1].1, "phase changes chain");
            assert!(w[0].0 <= w[1].0, "phase changes in time order");
        }
        let traced = traced_phases(&hp);
        let seen: Vec<(SimTime, Phase)> = ph.iter().map(|x| (x.0, x.2)).collect();
        assert_eq!(&traced[1..], &seen[..]);
    }

    #[test]
    fn test_cc_probe_tahoe_and_sack_loss_hooks() {
        // Tahoe: the TD hook precedes the move to the Loss phase (slow start from 1).
        let (hp, ha) = run_both(
            cfg(Variant::Tahoe, 20, u32::MAX),
            vec![Drop::FirstTx(30, 30)],
            5,
        );
        assert_eq!(hp.sends, ha.sends);
        let p = probe(&hp);
        let td = hp.td_times();
        assert_eq!(td.len(), 1);
        assert!(matches!(
            p.log[0],
            Seen::Loss { t, cwnd, ssthresh: 10, .. } if t == td[0] && cwnd == 20.0
        ));
        assert_eq!(
            p.log[1],
            Seen::Phase {
                t: td[0],
                from: Phase::SlowStart,
                to: Phase::Loss
            }
        );
        // SACK: a burst of 4 losses is one TD, one recovery episode.
        let (hp, ha) = run_both(
            cfg(Variant::Sack, 40, u32::MAX),
            vec![Drop::FirstTx(60, 63)],
            5,
        );
        assert_eq!(hp.sends, ha.sends);
        let p = probe(&hp);
        let losses = p
            .log
            .iter()
            .filter(|s| matches!(s, Seen::Loss { .. }))
            .count();
        assert_eq!(losses, hp.td_times().len());
        assert_eq!(losses, 1);
        let ph = phases(p);
        assert_eq!(ph[0].2, Phase::FastRecovery);
        assert_eq!(ph[1].1, Phase::FastRecovery);
        assert!(matches!(
            ph[1].2,
            Phase::SlowStart | Phase::CongestionAvoidance
        ));
    }
}
