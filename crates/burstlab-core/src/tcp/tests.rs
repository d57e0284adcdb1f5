//! Scripted conversations and paper scenarios (yu §III, §V.B figs 8–9) over the
//! deterministic harness of `testkit.rs`.

use super::sender::Phase;
use super::testkit::{Drop, Harness};
use super::*;
use crate::units::BitRate;

const MS: u64 = 1_000_000_000;

/// ns-2's parameter values on the strategy engine (control block, controller, recovery
/// strategies: the RFC profile's code path). The ns2 profile's own agents (`ns2.rs`) are
/// checked against ns-2 itself by the differential tests and by `ns2_tests` below.
fn cfg(v: Variant, wm: u32) -> TcpConfig {
    let mut c = TcpConfig::defaults(v, Profile::Ns2);
    c.profile = Profile::Rfc;
    c.wm = wm;
    c.init_ssthresh = u32::MAX;
    c
}

fn run(c: TcpConfig, drops: Vec<Drop>, secs: u64) -> Harness {
    let mut h = Harness::new(c, SimTime::from_ms(50), None, drops);
    h.start();
    h.run_until(SimTime::from_secs(secs), |_| false);
    h
}

fn ms(t: SimTime) -> f64 {
    t.ps() as f64 / MS as f64
}

fn secs(h: &Harness, f: impl Fn(&Harness) -> Vec<SimTime>) -> Vec<f64> {
    f(h).iter().map(|t| ms(*t)).collect()
}

/// States recorded from the first TD on.
fn states_after_td(h: &Harness) -> Vec<(f64, u32, Phase)> {
    let st = h.states();
    let i = st
        .iter()
        .position(|s| s.2 == Phase::FastRecovery || (s.2 == Phase::Loss))
        .unwrap();
    st[i..].to_vec()
}

#[test]
fn test_reno_three_dupacks_halves_once() {
    let h = run(cfg(Variant::Reno, 20), vec![Drop::FirstTx(30, 30)], 5);
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
    assert_eq!(h.retransmitted(), vec![30]);
    let st = states_after_td(&h);
    // Window 20 → ssthresh 10, cwnd 10 (+dupwnd), one full ACK ends recovery, then
    // congestion avoidance +1/cwnd per ACK.
    assert_eq!(st[0], (10.0, 10, Phase::FastRecovery));
    assert_eq!(st[1], (10.0, 10, Phase::CongestionAvoidance));
    assert_eq!(st[2], (10.1, 10, Phase::CongestionAvoidance));
    // Retransmission on the third duplicate ACK: one RTT after the loss plus the
    // time for three later segments (sent back-to-back here).
    let lost = h.sends.iter().find(|s| s.seq == 30).unwrap().t;
    let rtx = h
        .sends
        .iter()
        .find(|s| s.seq == 30 && s.retransmit)
        .unwrap()
        .t;
    assert_eq!(ms(rtx - lost), 100.0);
}

#[test]
fn test_reno_fast_recovery_inflates_and_sends_new_data() {
    // wm large so that the window, not wm, limits: inflated window lets new data out.
    let mut c = cfg(Variant::Reno, 64);
    c.init_ssthresh = 16;
    let h = run(
        c,
        vec![Drop::RunAtCwnd {
            min_cwnd: 16.0,
            len: 1,
        }],
        5,
    );
    let (a, _) = h.run_dropped().unwrap();
    let rtx_t = h
        .sends
        .iter()
        .find(|s| s.seq == a && s.retransmit)
        .unwrap()
        .t;
    let new_in_fr = h
        .sends
        .iter()
        .filter(|s| s.t >= rtx_t && s.t < rtx_t + SimTime::from_ms(100) && !s.retransmit)
        .count();
    assert!(new_in_fr > 0, "window inflation must release new segments");
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
}

#[test]
fn test_reno_burst_loss_halves_repeatedly_then_times_out() {
    // yu §III.C: 5 consecutive segments lost at W = 20 (wm not binding): Reno halves
    // 20 → 10 → 5 on two 3-dupack episodes, exits recovery on each partial ACK, and the
    // window can no longer produce three duplicates: a timeout follows.
    let mut c = cfg(Variant::Reno, 64);
    c.init_ssthresh = 20;
    let h = run(
        c,
        vec![Drop::RunAtCwnd {
            min_cwnd: 20.0,
            len: 5,
        }],
        10,
    );
    let (a, b) = h.run_dropped().unwrap();
    assert_eq!(b - a, 4);
    assert_eq!(h.td_times().len(), 2);
    assert_eq!(h.to_times().len(), 1);
    assert!(h.to_times()[0] > h.td_times()[1]);
    let fr: Vec<u32> = h
        .states()
        .iter()
        .filter(|s| s.2 == Phase::FastRecovery)
        .map(|s| s.1)
        .collect();
    assert_eq!(fr, vec![10, 5]);
    // After the timeout: ssthresh = FlightSize/2, cwnd = 1, go-back-N from snd_una.
    let st = h.states();
    let loss = st.iter().find(|s| s.2 == Phase::Loss).unwrap();
    assert_eq!(loss.0, 1.0);
    let to = h.to_times()[0];
    let first_after_to = h.sends.iter().find(|s| s.t >= to).unwrap();
    assert_eq!(
        (first_after_to.seq, first_after_to.retransmit),
        (a + 2, true)
    );
}

#[test]
fn test_yu_fig8a_reno_w20_burst_of_5_times_out() {
    // yu fig. 8(a): S = 5 lost when W = wm = 20 → timeout.
    for prof in [Profile::Ns2, Profile::Rfc] {
        let mut c = cfg(Variant::Reno, 20);
        c.profile = prof;
        let mut h = Harness::new(
            c,
            SimTime::from_ms(50),
            Some(BitRate(8_000_000)),
            vec![Drop::RunAtCwnd {
                min_cwnd: 20.0,
                len: 5,
            }],
        );
        h.start();
        h.run_until(SimTime::from_secs(20), |_| false);
        assert!(!h.td_times().is_empty());
        assert_eq!(h.to_times().len(), 1, "{prof:?}");
        let (_, b) = h.run_dropped().unwrap();
        assert!(h.time_delivered(b + 1).unwrap() > h.to_times()[0]);
    }
}

#[test]
fn test_yu_fig8b_reno_w200_full_window_semantics() {
    // yu fig. 8(b) reports that with W = wm = 200 Reno recovers a burst of S = 5
    // without a timeout. With RFC 5681 / ns-2.35 window accounting this cannot happen
    // when the window is full at wm: the inflated window is capped by wm relative to
    // snd_una, so no new segment leaves during the first recovery, the partial ACK ends
    // recovery with cwnd = 100 < 199 outstanding, and no duplicate ACK can announce the
    // second hole. burstlab reproduces ns-2's mechanics, so this test pins that outcome
    // (see the module report); what a large window does buy is shown below: with room
    // in the window (W = 200 < wm) a burst of 2 is repaired by two fast retransmits.
    let mut h = Harness::new(
        cfg(Variant::Reno, 200),
        SimTime::from_ms(50),
        Some(BitRate(80_000_000)),
        vec![Drop::RunAtCwnd {
            min_cwnd: 200.0,
            len: 5,
        }],
    );
    h.start();
    h.run_until(SimTime::from_secs(20), |_| false);
    assert_eq!((h.td_times().len(), h.to_times().len()), (1, 1));

    let mut c = cfg(Variant::Reno, 400);
    c.init_ssthresh = 200;
    let mut h = Harness::new(
        c,
        SimTime::from_ms(50),
        Some(BitRate(80_000_000)),
        vec![Drop::RunAtCwnd {
            min_cwnd: 200.0,
            len: 2,
        }],
    );
    h.start();
    h.run_until(SimTime::from_secs(20), |_| false);
    assert_eq!((h.td_times().len(), h.to_times().len()), (2, 0));
    let fr: Vec<u32> = h
        .states()
        .iter()
        .filter(|s| s.2 == Phase::FastRecovery)
        .map(|s| s.1)
        .collect();
    assert_eq!(fr, vec![100, 50]);
}

#[test]
fn test_newreno_partial_ack_one_retransmit_per_rtt() {
    let h = run(cfg(Variant::NewReno, 20), vec![Drop::FirstTx(30, 34)], 10);
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
    assert_eq!(h.retransmitted(), vec![30, 31, 32, 33, 34]);
    let t: Vec<f64> = h
        .sends
        .iter()
        .filter(|s| s.retransmit)
        .map(|s| ms(s.t))
        .collect();
    for w in t.windows(2) {
        assert_eq!(w[1] - w[0], 100.0, "one retransmission per RTT: {t:?}");
    }
    // Halved once; stays in fast recovery until the recovery point is acknowledged.
    let st = states_after_td(&h);
    assert_eq!(st[0], (10.0, 10, Phase::FastRecovery));
    let exit = st.iter().position(|s| s.2 != Phase::FastRecovery).unwrap();
    assert!(st[..exit].iter().all(|s| s.1 == 10));
    assert_eq!(st[exit], (10.0, 10, Phase::CongestionAvoidance));
    let full = h.time_delivered(35).unwrap();
    assert!(ms(full) > t[4]);
}

#[test]
fn test_sack_retransmits_all_holes_in_one_rtt() {
    let h = run(cfg(Variant::Sack, 20), vec![Drop::FirstTx(30, 34)], 10);
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
    assert_eq!(h.retransmitted(), vec![30, 31, 32, 33, 34]);
    let t: Vec<f64> = h
        .sends
        .iter()
        .filter(|s| s.retransmit)
        .map(|s| ms(s.t))
        .collect();
    assert!(t[4] - t[0] < 100.0, "all holes within one RTT: {t:?}");
    let st = states_after_td(&h);
    assert_eq!(st[0], (10.0, 10, Phase::FastRecovery));
    let lost = h.sends.iter().find(|s| s.seq == 30).unwrap().t;
    assert!(h.time_delivered(35).unwrap() - lost <= SimTime::from_ms(201));
}

#[test]
fn test_sack_second_loss_of_retransmission_needs_timeout() {
    // A retransmission lost again cannot be detected by RFC 6675 without a timeout.
    let h = run(
        cfg(Variant::Sack, 20),
        vec![Drop::FirstTx(30, 31), Drop::NthTx { seq: 31, n: 2 }],
        10,
    );
    assert_eq!(h.td_times().len(), 1);
    assert_eq!(h.to_times().len(), 1);
    assert!(h.time_delivered(32).is_some());
}

#[test]
fn test_tahoe_fast_retransmit_then_slow_start_from_one() {
    let h = run(cfg(Variant::Tahoe, 20), vec![Drop::FirstTx(30, 30)], 5);
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
    let st = states_after_td(&h);
    assert_eq!(st[0], (1.0, 10, Phase::Loss));
    // The ACK of the retransmission covers everything sent before (recover): the loss
    // phase ends and slow start continues from 2.
    assert_eq!(st[1], (2.0, 10, Phase::SlowStart));
    assert_eq!(h.retransmitted(), vec![30]);
    assert_eq!(h.tail_phase(), Phase::CongestionAvoidance);
}

#[test]
fn test_yu_fig9_variants_one_burst_loss_w40() {
    // yu fig. 9: one burst of S = 5 and one of S = 25 lost at W = 40.
    for prof in [Profile::Rfc, Profile::Ns2] {
        let mut done = std::collections::HashMap::new();
        for s in [5u64, 25] {
            for v in [Variant::Sack, Variant::NewReno, Variant::Reno] {
                let mut c = TcpConfig::defaults(v, prof);
                c.wm = 40;
                c.init_ssthresh = u32::MAX;
                c.delayed_ack = false;
                let mut h = Harness::new(
                    c,
                    SimTime::from_ms(50),
                    Some(BitRate(8_000_000)),
                    vec![Drop::RunAtCwnd {
                        min_cwnd: 40.0,
                        len: s,
                    }],
                );
                h.start();
                h.run_until(SimTime::from_secs(30), |_| false);
                let (a, b) = h.run_dropped().unwrap();
                let t0 = h.sends.iter().find(|x| x.seq == a).unwrap().t;
                let dt = h.time_delivered(b + 1).unwrap() - t0;
                let (td, to) = (h.td_times().len(), h.to_times().len());
                match v {
                    Variant::Sack if prof == Profile::Ns2 && s == 25 => {
                        // Sack1's pipe estimate (outstanding − 3) far exceeds the halved
                        // cwnd and drains by one per ACK: 25 holes outlast the timer.
                        assert_eq!((td, to), (1, 1), "{prof:?} S={s}");
                    }
                    Variant::Sack => {
                        assert_eq!((td, to), (1, 0), "{prof:?} S={s}");
                        assert_eq!(h.retransmitted().len() as u64, s);
                    }
                    Variant::NewReno if prof == Profile::Ns2 => {
                        // ns-2 newreno_changes1_: the timer is reset on the first partial
                        // ACK only, so one hole per RTT ends in a timeout for S ≥ 5.
                        assert_eq!((td, to), (1, 1), "{prof:?} S={s}");
                    }
                    Variant::NewReno => {
                        assert_eq!((td, to), (1, 0), "{prof:?} S={s}");
                        assert_eq!(h.retransmitted().len() as u64, s);
                        // ≈ S round trips (RTT ≈ 100 ms + queueing).
                        assert!(dt >= SimTime::from_ms(100 * s), "{dt}");
                    }
                    _ => assert_eq!(to, 1, "{prof:?} S={s} Reno must time out"),
                }
                done.insert((s, v), dt);
            }
        }
        let d = |s, v| done[&(s, v)];
        if prof == Profile::Ns2 {
            // Sack1 repairs the small burst without a timeout and before the others.
            assert!(d(5, Variant::Sack) < d(5, Variant::NewReno), "{done:?}");
            assert!(d(5, Variant::Sack) < d(5, Variant::Reno), "{done:?}");
            continue;
        }
        assert!(
            d(5, Variant::Sack) < d(5, Variant::NewReno),
            "{prof:?} {done:?}"
        );
        assert!(
            d(5, Variant::NewReno) < d(5, Variant::Reno),
            "{prof:?} {done:?}"
        );
        assert!(
            d(25, Variant::Sack) < d(25, Variant::Reno),
            "{prof:?} {done:?}"
        );
        assert!(
            d(25, Variant::Reno) < d(25, Variant::NewReno),
            "{prof:?} {done:?}"
        );
        // SACK repairs the small burst in about one RTT after detection (loss → detection
        // ≈ 1 RTT, repair ≈ 1 RTT; RTT ≈ 100 ms + up to 60 ms queueing).
        assert!(
            d(5, Variant::Sack) < SimTime::from_ms(350),
            "{:?}",
            d(5, Variant::Sack)
        );
    }
}

#[test]
fn test_rto_backoff_doubles_and_caps_at_64x() {
    let mut c = cfg(Variant::Reno, 20);
    c.init_rto = SimTime::from_ms(100);
    c.min_rto = SimTime::from_ms(100);
    c.max_rto = SimTime::from_secs(1000);
    c.init_cwnd = 1;
    let drops = (1..=9).map(|n| Drop::NthTx { seq: 0, n }).collect();
    let h = run(c, drops, 100);
    let t = secs(&h, Harness::to_times);
    assert_eq!(t.len(), 9);
    let gaps: Vec<f64> = std::iter::once(t[0])
        .chain(t.windows(2).map(|w| w[1] - w[0]))
        .collect();
    assert_eq!(
        gaps,
        vec![100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 6400.0, 6400.0]
    );
    // Only segment 0 was ever retransmitted (cwnd = 1 after each timeout).
    assert!(h.retransmitted().iter().all(|&s| s == 0));
}

#[test]
fn test_rto_min_rto_respected_and_timer_restarted_on_new_ack() {
    let mut h = Harness::new(cfg(Variant::Reno, 20), SimTime::from_ms(50), None, vec![]);
    h.start();
    h.run_until(SimTime::from_secs(20), |_| false);
    let tcb = h.snd.tcb();
    // RTT is exactly 100 ms: RTTVAR decays to 0 and SRTT + max(G, 4·RTTVAR) = 110 ms
    // < minrto_ = 200 ms.
    assert_eq!(tcb.rtt.srtt(), Some(SimTime::from_ms(100)));
    assert_eq!(tcb.rtt.rto(), SimTime::from_ms(200));
    assert!(h.to_times().is_empty());
    // Timer always re-armed relative to the latest ACK of new data.
    assert!(h.snd.rto_deadline().unwrap() > SimTime::from_secs(20) - SimTime::from_ms(100));
}

#[test]
fn test_rto_karn_no_sample_from_retransmitted_segment() {
    let mut c = cfg(Variant::Reno, 20);
    c.init_cwnd = 1;
    let mut h = Harness::new(c, SimTime::from_ms(50), None, vec![Drop::FirstTx(0, 0)]);
    h.start();
    // Run until the retransmitted segment 0 is acknowledged.
    h.run_until(SimTime::from_secs(100), |h| h.snd.tcb().snd_una >= 1);
    assert_eq!(h.to_times(), vec![SimTime::from_secs(3)]); // rtxcur_init_ = 3 s
    let st = h.snd.stats(SimTime::from_secs(4));
    assert_eq!(
        st.rtt_samples, 0,
        "the ACK of a retransmission gives no RTT sample"
    );
    assert_eq!(
        h.snd.tcb().rtt.backoff(),
        2,
        "backoff kept until a valid sample"
    );
    h.run_until(SimTime::from_secs(100), |h| {
        h.snd.stats(SimTime::ZERO).rtt_samples >= 1
    });
    assert_eq!(h.snd.tcb().rtt.backoff(), 1);
    let st = h.snd.stats(SimTime::ZERO);
    assert!((st.rtt_sum_s - 0.1).abs() < 1e-12);
}

#[test]
fn test_data_limit_finite_transfer_and_stats() {
    let mut c = cfg(Variant::Sack, 20);
    c.delayed_ack = true;
    let mut h = Harness::new(c, SimTime::from_ms(50), None, vec![Drop::FirstTx(40, 42)]);
    h.snd.set_data_limit(Some(100));
    h.start();
    h.run_until(SimTime::from_secs(100), |_| false);
    assert!(h.snd.done());
    assert_eq!(h.rcv.delivered(), 100);
    assert_eq!(h.snd.rto_deadline(), None);
    let st = h.snd.stats(SimTime::from_secs(100));
    assert_eq!(st.segs_sent, 103);
    assert_eq!(st.retransmits, 3);
    assert_eq!(st.td_events, 1);
    assert!(h.sends.iter().all(|s| s.seq < 100));
}

#[test]
fn test_cwnd_integral_is_time_weighted() {
    let mut c = cfg(Variant::Reno, 2);
    c.init_cwnd = 2;
    let mut h = Harness::new(c, SimTime::from_ms(50), None, vec![]);
    h.start();
    h.run_until(SimTime::from_secs(10), |_| false);
    let st = h.snd.stats(SimTime::from_secs(10));
    assert!(
        (st.cwnd_integral - 20.0).abs() < 1e-9,
        "{}",
        st.cwnd_integral
    );
}

#[test]
fn test_deterministic_replay() {
    let a = run(
        cfg(Variant::Sack, 40),
        vec![Drop::FirstTx(50, 60), Drop::NthTx { seq: 55, n: 2 }],
        20,
    );
    let b = run(
        cfg(Variant::Sack, 40),
        vec![Drop::FirstTx(50, 60), Drop::NthTx { seq: 55, n: 2 }],
        20,
    );
    assert_eq!(a.sends, b.sends);
    assert_eq!(a.states(), b.states());
}

/// One loss (segment 30) in slow start at cwnd = 32 on a 10 Mb/s link (ACKs 0.832 ms
/// apart), SACK with RFC 6675's or PRR's cwnd in recovery: the new-data sends in
/// recovery (as the index of the ACK after the one that entered recovery that sent
/// each), the segments sent in recovery, and the harness.
fn one_loss_recovery(kind: RecoveryKind) -> (Vec<u64>, usize, Harness) {
    let mut c = cfg(Variant::Sack, 100);
    c.recovery = kind;
    let rate = Some(BitRate(10_000_000));
    let mut h = Harness::new(c, SimTime::from_ms(50), rate, vec![Drop::FirstTx(30, 30)]);
    h.start();
    h.run_until(SimTime::from_secs(3), |_| false);
    assert_eq!(h.td_times().len(), 1);
    assert!(h.to_times().is_empty());
    assert_eq!(h.retransmitted(), vec![30]);
    let td = h.td_times()[0];
    let exit = h.time_delivered(31).unwrap() + SimTime::from_ms(50);
    let slot = SimTime::from_ps(832_000_000); // 1040 bytes at 10 Mb/s
    let new: Vec<u64> = h
        .sends
        .iter()
        .filter(|s| !s.retransmit && s.t >= td && s.t < exit)
        .map(|s| (s.t - td).ps().div_ceil(slot.ps()))
        .collect();
    let n = h.sends.iter().filter(|s| s.t >= td && s.t < exit).count();
    (new, n, h)
}

#[test]
fn test_prr_spreads_recovery_sends_rfc6675_pauses() {
    let (rfc, n_rfc, h_rfc) = one_loss_recovery(RecoveryKind::Rfc6675);
    let (prr, n_prr, h_prr) = one_loss_recovery(RecoveryKind::Prr);
    // ssthresh = 16. RFC 6675 §5 (4.2): cwnd = 16 at once while pipe is 29 (32
    // outstanding, 3 SACKed, 1 lost, 1 retransmitted): no new segment until pipe < 16,
    // 14 ACKs later.
    assert_eq!(rfc[0], 14, "{rfc:?}");
    // RFC 6937 §3: sndcnt = CEIL(prr_delivered · 16 / 32) − prr_out, prr_out = 1 (the
    // retransmission): the first new segment 2 ACKs after entering, then one every
    // other ACK while pipe > ssthresh, then PRR-SSRB.
    assert_eq!(prr[0], 2, "{prr:?}");
    assert!(prr.windows(2).all(|w| w[1] - w[0] <= 3), "{prr:?}");
    let first_half = prr.iter().filter(|&&k| k < 14).count();
    assert_eq!(first_half, 6, "{prr:?}");
    // Both send ssthresh segments in recovery and leave it with cwnd = ssthresh.
    assert_eq!((n_rfc, n_prr), (16, 16));
    for h in [&h_rfc, &h_prr] {
        let st = h.states();
        let exit = st
            .iter()
            .skip_while(|s| s.2 != Phase::FastRecovery)
            .find(|s| s.2 != Phase::FastRecovery)
            .unwrap();
        assert_eq!((exit.0, exit.1), (16.0, 16));
    }
}

/// The sender driving a controller with memory (`cc/probe.rs`): the hooks arrive with
/// the right time and window, in order.
mod probe_conversations {
    use crate::tcp::cc::probe::{Probe, Seen};
    use crate::tcp::cc::Cc;
    use crate::tcp::tcb::Phase;
    use crate::tcp::tcb::TraceEvent;
    use crate::tcp::testkit::{Drop, Harness};
    use crate::tcp::{Profile, TcpConfig, TcpSender, Variant};
    use crate::units::SimTime;

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
