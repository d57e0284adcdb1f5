//! The ingress edge and the control plane: settings that select a flow's class and
//! assembly, and the ingress electronic buffer (`obs.ingress`). Hand-made timelines on
//! a short chain; UDP sources stand in for TCP.

mod common;

use burstlab_core::run_toml;
use burstlab_core::stats::{BurstEvent, BurstLoss, RunResult};
use burstlab_core::units::SimTime;
use common::obs_chain;

fn cbr(rate: &str, stop: Option<&str>, extra: &str) -> String {
    let stop = stop.map_or(String::new(), |t| format!("stop = \"{t}\"\n"));
    format!("[[flow]]\ntype = \"cbr\"\nsrc = \"s\"\ndst = \"d\"\nrate = \"{rate}\"\npacket_size = 1000\n{stop}{extra}")
}

fn run(text: &str) -> RunResult {
    run_toml(text, None, None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> String {
    match run_toml(text, None, None) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const TWO_CLASSES: &str = "[[obs.class]]\nname = \"plain\"\n[[obs.class]]\nname = \"slow\"\nextra_offset = \"100us\"\nassembly = { type = \"timer\", tb = \"3ms\" }\n";

// ------------------------------------------------------------ a flow's class and assembly

/// Under `per_flow` a flow's class sets its queue's offset (class 1's extra 100 µs) and,
/// without an assembly of its own, its assembly (class 1's 3 ms timer). One packet
/// reaches E1 at 1.008 ms; δ = 10 µs, set-up 5 µs on E1–C1–E2: base offset 25 µs.
#[test]
fn per_flow_class_sets_offset_and_default_assembly() {
    let obs = format!(
        "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\nswitch_setup = \"5us\"\n{TWO_CLASSES}"
    );
    let r0 = run(&obs_chain(
        1,
        1,
        &obs,
        &cbr("8Mb/s", Some("0.5ms"), ""),
        "50ms",
    ));
    assert_eq!(r0.bursts[0].offset_s, 25e-6);
    assert_eq!(r0.burst_trace[0].time, SimTime::from_us(2008));
    let r1 = run(&obs_chain(
        1,
        1,
        &obs,
        &cbr("8Mb/s", Some("0.5ms"), "class = 1\n"),
        "50ms",
    ));
    assert_eq!(r1.bursts[0].offset_s, 125e-6);
    assert_eq!(r1.burst_trace[0].time, SimTime::from_us(4008));
    // The flow's own assembly wins over its class's.
    let r2 = run(&obs_chain(
        1,
        1,
        &obs,
        &cbr(
            "8Mb/s",
            Some("0.5ms"),
            "class = 1\nassembly = { type = \"timer\", tb = \"2ms\" }\n",
        ),
        "50ms",
    ));
    assert_eq!(r2.burst_trace[0].time, SimTime::from_us(3008));
    assert_eq!(r2.bursts[0].offset_s, 125e-6);
}

#[test]
fn per_egress_rejects_a_flow_class_and_a_class_assembly() {
    let obs = format!("classifier = \"per_egress\"\n{TWO_CLASSES}");
    let e = err(&obs_chain(1, 1, &obs, &cbr("1Mb/s", None, ""), "1s"));
    assert!(e.starts_with("obs.class[1].assembly"), "{e}");
    // Without the class assembly the scenario runs (class 0's path policy)…
    let plain =
        "classifier = \"per_egress\"\n[[obs.class]]\n[[obs.class]]\nextra_offset = \"1us\"\n";
    run(&obs_chain(
        1,
        1,
        plain,
        &cbr("1Mb/s", Some("1ms"), ""),
        "20ms",
    ));
    // …unless a flow names a class, which per_egress would ignore.
    let e = err(&obs_chain(
        1,
        1,
        plain,
        &cbr("1Mb/s", None, "class = 1\n"),
        "1s",
    ));
    assert!(e.starts_with("flow[0].class"), "{e}");
    assert!(e.contains("per_egress"), "{e}");
}

// ------------------------------------------------------------ ingress electronic buffer

/// Two flows in per-flow queues (timer 1 ms) on E1–C1–E2 with one wavelength: each
/// sends 25 packets of 1000 B at 400 Mb/s, so each burst lasts 20 µs at 10 Gb/s, and
/// B's burst is formed 8 µs after A's (the access link serialises their first
/// packets): B's reservation overlaps A's. Offset 25 µs (δ 10 µs, set-up 5 µs).
fn two_bursts(ingress: &str) -> RunResult {
    let obs = format!(
        "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\nswitch_setup = \"5us\"\n{ingress}"
    );
    let flows = cbr("400Mb/s", Some("0.5ms"), "name = \"A\"\n")
        + &cbr("400Mb/s", Some("0.5ms"), "name = \"B\"\n");
    run(&obs_chain(1, 1, &obs, &flows, "50ms"))
}

fn trace_of(r: &RunResult, queue: u32, ev: BurstEvent) -> burstlab_core::stats::BurstSample {
    *r.burst_trace
        .iter()
        .find(|s| s.queue == queue && s.event == ev)
        .unwrap_or_else(|| panic!("no {ev:?} of queue {queue}: {:?}", r.burst_trace))
}

#[test]
fn bufferless_ingress_loses_the_overlapping_burst() {
    let r = two_bursts("");
    let a = trace_of(&r, 0, BurstEvent::Formed);
    let b = trace_of(&r, 1, BurstEvent::Formed);
    assert_eq!(a.bytes, 25_000);
    assert!(
        b.time > a.time && b.time < a.time + SimTime::from_us(20),
        "{a:?} {b:?}"
    );
    let lost = trace_of(&r, 1, BurstEvent::Lost);
    assert_eq!(
        (lost.time, lost.reason),
        (b.time, Some(BurstLoss::Contention))
    );
}

/// With the buffer, B's BCP leaves when A's reservation ends (A formed at tA, 20 µs
/// long): B is delivered at tA + 20 µs + T + 2 ms (two fibres) + L_B.
#[test]
fn buffered_burst_takes_the_earliest_reservation_and_its_bcp_leaves_then() {
    let r = two_bursts("[obs.ingress]\nmax_wait = \"100us\"\n");
    let a = trace_of(&r, 0, BurstEvent::Formed);
    let b = trace_of(&r, 1, BurstEvent::Formed);
    let la = SimTime::from_ns(a.bytes * 8 / 10);
    let lb = SimTime::from_ns(b.bytes * 8 / 10);
    let t = SimTime::from_us(25);
    let fibres = SimTime::from_ms(2);
    let da = trace_of(&r, 0, BurstEvent::Delivered);
    assert_eq!(da.time, a.time + t + fibres + la);
    let db = trace_of(&r, 1, BurstEvent::Delivered);
    assert_eq!(db.time, a.time + la + t + fibres + lb);
    assert!(r.burst_trace.iter().all(|s| s.event != BurstEvent::Lost));
    assert_eq!(r.obs_links[0].bursts_scheduled, 2);
    // A wait longer than allowed is contention, as without the buffer.
    let wait = a.time + la - b.time;
    let short = format!("[obs.ingress]\nmax_wait = \"{}ps\"\n", wait.0 - 1);
    let r = two_bursts(&short);
    assert_eq!(
        trace_of(&r, 1, BurstEvent::Lost).reason,
        Some(BurstLoss::Contention)
    );
    let exact = format!("[obs.ingress]\nmax_wait = \"{}ps\"\n", wait.0);
    let r = two_bursts(&exact);
    assert_eq!(trace_of(&r, 1, BurstEvent::Delivered).time, db.time);
    // A buffer of one burst holds B (A did not wait); of 10 kB it cannot.
    let r = two_bursts("[obs.ingress]\nmax_wait = \"1ms\"\nmax_bursts = 1\n");
    assert_eq!(trace_of(&r, 1, BurstEvent::Delivered).time, db.time);
    let r = two_bursts("[obs.ingress]\nmax_wait = \"1ms\"\nmax_bytes = \"10kB\"\n");
    assert_eq!(
        trace_of(&r, 1, BurstEvent::Lost).reason,
        Some(BurstLoss::Contention)
    );
}

/// Summed over a fibre's wavelengths, `obs_channels` gives the fibre's `obs_links`
/// row (docs/topics/contention.md, "Per-wavelength statistics"): bursts scheduled and
/// reserved time, with and without the ingress buffer. Three flows on two wavelengths
/// (timer 1 ms, 20 ms of 400 Mb/s each, formed 8 µs apart) contend at E1, so with the
/// buffer some bursts wait there and are scheduled through its delayed first
/// reservation.
#[test]
fn channels_sum_to_links_with_and_without_ingress_buffer() {
    let mk = |ingress: &str| {
        let obs = format!(
            "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\n\
             switch_setup = \"5us\"\n{ingress}[obs.contention]\nper_wavelength = true\n"
        );
        let flows: String = ["A", "B", "C"]
            .iter()
            .map(|n| cbr("400Mb/s", Some("20ms"), &format!("name = \"{n}\"\n")))
            .collect();
        run(&obs_chain(1, 2, &obs, &flows, "50ms"))
    };
    let bare = mk("");
    let buffered = mk("[obs.ingress]\nmax_wait = \"1ms\"\n");
    let span_s = 0.05;
    for (what, r) in [("bufferless", &bare), ("buffered", &buffered)] {
        assert_eq!(r.obs_channels.len(), 2 * r.obs_links.len(), "{what}");
        for l in &r.obs_links {
            let chs: Vec<_> = r
                .obs_channels
                .iter()
                .filter(|c| c.fibre == l.fibre)
                .collect();
            assert_eq!(chs.len(), 2, "{what}");
            let scheduled: u64 = chs.iter().map(|c| c.bursts_scheduled).sum();
            assert_eq!(scheduled, l.bursts_scheduled, "{what} {}->{}", l.from, l.to);
            let busy_s: f64 = chs.iter().map(|c| c.busy_s).sum();
            let link_busy_s = l.utilisation * l.wavelengths as f64 * span_s;
            assert!(
                (busy_s - link_busy_s).abs() <= 1e-9 * link_busy_s.max(1e-12),
                "{what} {}->{}: {busy_s} s over the channels, {link_busy_s} s on the link",
                l.from,
                l.to
            );
        }
    }
    // The buffer was used: bursts lost at E1 without it are scheduled with it.
    let first = |r: &RunResult| r.obs_links.iter().find(|l| l.from == "E1").unwrap().clone();
    assert!(first(&bare).lost_contention > 0);
    assert!(first(&buffered).bursts_scheduled > first(&bare).bursts_scheduled);
}

#[test]
fn ingress_errors_name_their_fields() {
    let c = |obs: &str| err(&obs_chain(1, 1, obs, &cbr("1Mb/s", None, ""), "1s"));
    assert!(c("[obs.ingress]\nmax_bursts = 2").starts_with("obs.ingress"));
    assert!(c("[obs.ingress]\nmax_wait = \"1ms\"\nmax_bursts = 0")
        .starts_with("obs.ingress.max_bursts"));
    assert!(
        c("[obs.ingress]\nmax_wait = \"1ms\"\nmax_bytes = 0").starts_with("obs.ingress.max_bytes")
    );
    assert!(c("[obs.ingress]\nmax_wait = \"-1ms\"").starts_with("obs.ingress.max_wait"));
    assert!(c("[obs.ingress]\nmax_wait = \"1ms\"\nbogus = 1").contains("bogus"));
}

// ------------------------------------------------------------ control-packet loss

/// A 1000 B packet every 1 ms and a 1 ms timer: one burst per millisecond over
/// E1–C1–C2–E2 (three fibres). Each BCP is lost on each fibre with p, so a burst
/// survives with (1 − p)³; the burst is lost where its BCP would have been processed
/// (δ = 10 µs after the fibre), charged to that fibre, reason `control_lost`.
#[test]
fn control_packet_loss_is_independent_per_fibre_and_has_its_own_reason() {
    let p = 0.1;
    let obs = format!(
        "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\n[obs.control]\nloss = {p}\n"
    );
    let r = run(&obs_chain(2, 1, &obs, &cbr("8Mb/s", None, ""), "4s"));
    let row = &r.bursts[0];
    let n = row.bursts_sent as f64;
    assert!(n > 3900.0, "{n}");
    let lost = row.lost_control as f64;
    assert_eq!(row.bursts_lost, row.lost_control);
    let want = 1.0 - (1.0f64 - p).powi(3);
    let sd = (want * (1.0 - want) / n).sqrt();
    assert!(
        (lost / n - want).abs() < 4.0 * sd,
        "{} vs {want} ± {sd}",
        lost / n
    );
    // Per fibre: offered × p lost there, the offered thinning hop by hop.
    for f in r.obs_links.iter().filter(|f| f.bursts_offered > 0) {
        let m = f.bursts_offered as f64;
        let sd = (p * (1.0 - p) / m).sqrt();
        let got = f.lost_control as f64 / m;
        assert!((got - p).abs() < 4.0 * sd, "{} {}: {got}", f.from, f.to);
    }
    // Timeline: a burst formed at t0 whose BCP is lost on fibre j (0-based) is lost at
    // t0 + (j + 1)·(1 ms + 10 µs).
    let formed: std::collections::HashMap<u64, SimTime> = r
        .burst_trace
        .iter()
        .filter(|s| s.event == BurstEvent::Formed)
        .map(|s| (s.burst, s.time))
        .collect();
    let names: Vec<(&str, &str)> = r
        .obs_links
        .iter()
        .map(|f| (f.from.as_str(), f.to.as_str()))
        .collect();
    let mut seen = 0;
    for s in r.burst_trace.iter().filter(|s| s.event == BurstEvent::Lost) {
        assert_eq!(s.reason, Some(BurstLoss::Control));
        let hop = match names[s.fibre.unwrap() as usize] {
            ("E1", "C1") => 1,
            ("C1", "C2") => 2,
            ("C2", "E2") => 3,
            other => panic!("{other:?}"),
        };
        let step = SimTime::from_ms(1) + SimTime::from_us(10);
        assert_eq!(s.time, formed[&s.burst] + SimTime(step.0 * hop));
        seen += 1;
    }
    assert_eq!(seen as u64, row.lost_control);
    // Off (or 0): no draw, nothing lost.
    let r0 = run(&obs_chain(
        2,
        1,
        "assembly = { type = \"timer\", tb = \"1ms\" }\n[obs.control]\nloss = 0\n",
        &cbr("8Mb/s", None, ""),
        "1s",
    ));
    assert_eq!(r0.bursts[0].bursts_lost, 0);
    let c = |obs: &str| err(&obs_chain(1, 1, obs, &cbr("1Mb/s", None, ""), "1s"));
    assert!(c("[obs.control]\nloss = 1.5").starts_with("obs.control.loss"));
    assert!(c("[obs.control]\nbogus = 1").contains("bogus"));
}

// ------------------------------------------------------------ burst retransmission

/// Random loss p once per burst at the egress (`per_path`) and up to R retransmissions:
/// a burst is finally lost with p^(R+1) (independent draws per attempt).
#[test]
fn retransmission_leaves_p_to_the_r_plus_one() {
    let p: f64 = 0.3;
    for r_max in [1u32, 2] {
        let obs = format!(
            "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nloss = {{ p = {p}, scope = \"per_path\" }}\n[obs.retransmit]\nmax = {r_max}\nhold = \"1s\"\n"
        );
        let r = run(&obs_chain(1, 1, &obs, &cbr("8Mb/s", None, ""), "8s"));
        let row = &r.bursts[0];
        let n = row.bursts_sent as f64;
        let want = p.powi(r_max as i32 + 1);
        let sd = (want * (1.0 - want) / n).sqrt();
        let got = row.bursts_lost as f64 / n;
        assert!(
            (got - want).abs() < 4.0 * sd,
            "R={r_max}: {got} vs {want} ± {sd}"
        );
        assert_eq!(row.bursts_lost, row.lost_random);
        // Every attempt is drawn: the egress fibre saw p of the attempts lost.
        let f = r.obs_links.iter().find(|f| f.to == "E2").unwrap();
        let m = f.bursts_offered as f64;
        assert!(m > n, "retransmissions are offered again: {m} vs {n}");
        let sd = (p * (1.0 - p) / m).sqrt();
        assert!((f.lost_random as f64 / m - p).abs() < 4.0 * sd);
    }
}

/// Timeline on E1–C1–E2 (fibres 1 ms, δ 10 µs, set-up 5 µs, T = 25 µs): a burst
/// formed at t0 is lost at the egress when its BCP is processed there, at t0 + 2 ms +
/// 20 µs; the NACK takes 1 ms + 10 µs (C1) + 1 ms back to E1, where the burst leaves
/// again at once and is delivered T + 2 ms + L later. With a hold shorter than the
/// NACK's return the loss is final.
#[test]
fn retransmission_waits_for_the_nack_on_the_control_channel() {
    let mk = |hold: &str| {
        let obs = format!(
            "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\nswitch_setup = \"5us\"\nloss = {{ p = 0.5, scope = \"per_path\" }}\n[obs.retransmit]\nmax = 3\nhold = \"{hold}\"\n"
        );
        run(&obs_chain(
            1,
            1,
            &obs,
            &cbr("8Mb/s", Some("20ms"), ""),
            "100ms",
        ))
    };
    let r = mk("1s");
    let l = SimTime::from_ns(800);
    let lose_after = SimTime::from_ms(2) + SimTime::from_us(20);
    let nack = SimTime::from_ms(2) + SimTime::from_us(10);
    let deliver_after = SimTime::from_us(25) + SimTime::from_ms(2) + l;
    let mut checked = 0;
    for (i, s) in r.burst_trace.iter().enumerate() {
        if s.event != BurstEvent::Formed {
            continue;
        }
        let mut t_send = s.time;
        let evs: Vec<_> = r.burst_trace[i + 1..]
            .iter()
            .filter(|x| x.queue == s.queue && x.burst == s.burst)
            .collect();
        for e in &evs {
            match e.event {
                BurstEvent::Lost => {
                    assert_eq!(e.time, t_send + lose_after);
                    t_send = e.time + nack;
                }
                BurstEvent::Delivered => assert_eq!(e.time, t_send + deliver_after),
                BurstEvent::Formed => unreachable!(),
            }
        }
        if evs.len() > 1 {
            checked += 1;
        }
    }
    assert!(checked > 3, "{checked}");
    // The NACK is back 4 ms + 30 µs after formation: a hold of 4 ms finds no copy.
    let r = mk("4ms");
    let lost = r
        .burst_trace
        .iter()
        .filter(|s| s.event == BurstEvent::Lost)
        .count() as u64;
    assert_eq!(lost, r.bursts[0].bursts_lost);
    assert!(lost > 3);
    let c = |obs: &str| err(&obs_chain(1, 1, obs, &cbr("1Mb/s", None, ""), "1s"));
    assert!(c("[obs.retransmit]\nmax = 0\nhold = \"1ms\"").starts_with("obs.retransmit.max"));
    assert!(c("[obs.retransmit]\nmax = 1\nhold = 0").starts_with("obs.retransmit.hold"));
    assert!(c("[obs.retransmit]\nmax = 1").starts_with("obs.retransmit"));
}

/// A burst the ingress buffer refuses is lost at the ingress: no NACK, no retry, even
/// when the pooled burst it reuses was last lost in the core.
#[test]
fn a_burst_refused_at_the_ingress_is_not_retransmitted() {
    let r =
        two_bursts("[obs.ingress]\nmax_wait = \"1ps\"\n[obs.retransmit]\nmax = 3\nhold = \"1s\"\n");
    let lost: Vec<_> = r
        .burst_trace
        .iter()
        .filter(|s| s.event == BurstEvent::Lost)
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].reason, Some(BurstLoss::Contention));
    assert_eq!(r.bursts[1].bursts_lost, 1);
}

// ------------------------------------------------------------ control-channel queueing

/// Two flows' bursts formed 8 µs apart (A at tA, then B) on two wavelengths, fixed
/// offset 46 µs, δ 10 µs, set-up 5 µs, BCPs of 100 B on an 80 Mb/s control
/// wavelength (10 µs each). A's BCP: channel [tA, tA+10), C1 at tA+1.010 ms,
/// processed by 1.020, channel [1.020, 1.030), E2 at 2.030, processed by tA+2.040 ms:
/// its head (tA+2.046 ms) leaves the 5 µs set-up. B's BCP waits 2 µs behind A's on
/// E1's channel: [tA+10, tA+20) … processed at E2 by tA+2.050 ms, while its head
/// arrives at tA+8 µs+2.046 ms = tA+2.054 ms < 2.050 + 5 µs: lost, offset_too_short,
/// at tA+2.050 ms. Without the queue B would need 45 µs and is delivered.
#[test]
fn control_channel_serialises_and_queues_bcps() {
    let run2 = |control: &str| {
        let obs = format!(
            "assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\nswitch_setup = \"5us\"\noffset = \"46us\"\n{control}"
        );
        let flows = cbr("400Mb/s", Some("0.5ms"), "name = \"A\"\n")
            + &cbr("400Mb/s", Some("0.5ms"), "name = \"B\"\n");
        run(&obs_chain(1, 2, &obs, &flows, "50ms"))
    };
    let r = run2("[obs.control]\nrate = \"80Mb/s\"\nbcp_size = \"100B\"\n");
    let a = trace_of(&r, 0, BurstEvent::Formed);
    let b = trace_of(&r, 1, BurstEvent::Formed);
    assert_eq!(b.time, a.time + SimTime::from_us(8));
    let da = trace_of(&r, 0, BurstEvent::Delivered);
    let la = SimTime::from_ns(a.bytes * 8 / 10);
    assert_eq!(
        da.time,
        a.time + SimTime::from_us(46) + SimTime::from_ms(2) + la
    );
    let lb = trace_of(&r, 1, BurstEvent::Lost);
    assert_eq!(lb.reason, Some(BurstLoss::OffsetTooShort));
    assert_eq!(lb.time, a.time + SimTime::from_ms(2) + SimTime::from_us(50));
    // Without the channel (or a fast one) both arrive.
    let r = run2("");
    assert!(r.burst_trace.iter().all(|s| s.event != BurstEvent::Lost));
    let c = |obs: &str| err(&obs_chain(1, 1, obs, &cbr("1Mb/s", None, ""), "1s"));
    assert!(c("[obs.control]\nbcp_size = \"100B\"").starts_with("obs.control.bcp_size"));
    assert!(c("[obs.control]\nrate = \"1Gb/s\"\nbcp_size = 0").starts_with("obs.control.bcp_size"));
}
