//! The OBS network end to end: assembly sizes, signalling timelines (JET/JIT, offset
//! too short), random and contention loss, conservation, deterministic injection and
//! scenario errors. UDP sources stand in for TCP where TCP is not needed.

mod common;

use burstlab_core::run_toml;
use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::stats::{BurstEvent, BurstLoss, RunResult};
use burstlab_core::units::SimTime;
use burstlab_core::world::World as Sim;
use common::obs_chain;

fn cbr(rate: &str, stop: Option<&str>) -> String {
    let stop = stop.map_or(String::new(), |t| format!("stop = \"{t}\"\n"));
    format!("[[flow]]\ntype = \"cbr\"\nsrc = \"s\"\ndst = \"d\"\nrate = \"{rate}\"\npacket_size = 1000\n{stop}")
}

fn run(text: &str) -> RunResult {
    run_toml(text, None, None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// yu §II through the whole network: a paced flow (one 1000 B packet every d = 1/λ)
/// with timer Tb gives bursts of S = floor(Tb/d) + 1 packets (λ·Tb + 1 up to rounding;
/// Tb/d when Tb is a multiple of d), every one of them.
#[test]
fn timer_assembly_of_paced_flow_gives_s_per_burst() {
    // (CBR rate, d, Tb, expected S)
    let cases = [
        ("100Mb/s", "1ms", 13u64), // d = 80 us: 12.5 → 13
        ("100Mb/s", "250us", 4),   // 3.125 → 4
        ("8Mb/s", "5ms", 5),       // d = 1 ms, exact multiple: 5
        ("8Mb/s", "5.5ms", 6),     // 6
        ("1Gb/s", "1us", 1),       // Tb < d: S = 1
        ("500Mb/s", "100us", 7),   // d = 16 us: 6.25 → 7
    ];
    for (rate, tb, s) in cases {
        let text = obs_chain(
            2,
            1,
            &format!("assembly = {{ type = \"timer\", tb = \"{tb}\" }}"),
            &cbr(rate, None),
            "0.5s",
        );
        let r = run(&text);
        let q = &r.bursts[0];
        assert!(q.bursts_sent > 10, "{rate} {tb}: {q:?}");
        assert_eq!(q.mean_data_pkts, s as f64, "{rate} {tb}");
        assert_eq!((q.pkts_p10, q.pkts_max), (s, s), "{rate} {tb}");
        assert_eq!(q.mean_bytes, (s * 1000) as f64);
        assert_eq!(q.bursts_lost, 0);
        assert_eq!(r.obs_flows[0].mean_segments_per_burst, s as f64);
        // Every packet of a burst except the last waited; the first waited ~Tb.
        let tbs = burstlab_core::units::parse_duration(tb)
            .unwrap()
            .as_secs_f64();
        assert!((q.mean_burst_assembly_s - tbs).abs() < 1e-9, "{q:?}");
    }
}

/// yu §II: with ACKs assembled too, RTT = RTT0 + 2·Tb.
#[test]

fn one_tcp_flow_rtt_is_rtt0_plus_two_tb() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/yu_path.toml"
    ))
    .unwrap()
    .replace("p = 0.01", "p = 0.0")
    .replace("duration = \"100s\"", "duration = \"30s\"");
    let rtt = |tb: &str| {
        let r = run(&base.replace("tb = \"1ms\"", &format!("tb = \"{tb}\"")));
        assert_eq!(r.bursts.len(), 2, "data and ACK queues");
        r.flows[0].mean_rtt_s
    };
    let rtt0 = rtt("1ns");
    for tb in [0.002, 0.005, 0.01] {
        let got = rtt(&format!("{tb}s"));
        assert!(
            ((got - rtt0) - 2.0 * tb).abs() < 0.1 * 2.0 * tb,
            "Tb = {tb}: RTT {got} vs RTT0 {rtt0}"
        );
    }
}

/// One packet at t = 0 → E1 at 1.008 ms → with Tb = 1 ms a 1000 B burst is formed at
/// t0 = 2.008 ms. Path E1–C1–C2–E2: h = 3, δ = 10 µs, set-up 5 µs, fibres 1 ms.
fn one_burst(offset: Option<&str>, signalling: &str) -> RunResult {
    let off = offset.map_or(String::new(), |o| format!("offset = \"{o}\"\n"));
    let text = obs_chain(
        2,
        1,
        &format!("assembly = {{ type = \"timer\", tb = \"1ms\" }}\nbcp_processing = \"10us\"\nswitch_setup = \"5us\"\nsignalling = \"{signalling}\"\n{off}"),
        &cbr("8Mb/s", Some("0.5ms")),
        "50ms",
    );
    run(&text)
}

#[test]
fn offset_timeline_exact_and_too_short_offset_is_lost_where_it_runs_out() {
    let t0 = SimTime::from_us(2008);
    let burst_tx = SimTime::from_ns(800); // 1000 B at 10 Gb/s
                                          // Base offset 3·10 + 5 = 35 us: delivered when the tail reaches E2.
    let r = one_burst(None, "jet");
    assert_eq!(r.bursts[0].offset_s, 35e-6);
    let tr = &r.burst_trace;
    assert_eq!(tr.len(), 2, "{tr:?}");
    assert_eq!((tr[0].event, tr[0].time), (BurstEvent::Formed, t0));
    assert_eq!(tr[1].event, BurstEvent::Delivered);
    assert_eq!(
        tr[1].time,
        t0 + SimTime::from_us(35) + SimTime::from_ms(3) + burst_tx
    );
    assert_eq!(r.flows[0].segments_received, 1);
    // 34 us: after processing at E2 only 34 − 30 = 4 us < 5 us set-up remain. Lost at
    // E2, when its BCP processing ends (t0 + 3 ms + 30 us), charged to fibre C2→E2.
    let r = one_burst(Some("34us"), "jet");
    let lost = r.burst_trace[1];
    assert_eq!(lost.event, BurstEvent::Lost);
    assert_eq!(lost.reason, Some(BurstLoss::OffsetTooShort));
    assert_eq!(lost.time, t0 + SimTime::from_ms(3) + SimTime::from_us(30));
    let f = &r.obs_links[lost.fibre.unwrap() as usize];
    assert_eq!((f.from.as_str(), f.to.as_str()), ("C2", "E2"));
    assert_eq!(f.lost_offset_too_short, 1);
    assert_eq!(r.bursts[0].lost_offset_too_short, 1);
    assert_eq!(r.flows[0].segments_received, 0);
    // 24 us: at C2 only 24 − 20 = 4 us remain: lost there (fibre C1→C2).
    let r = one_burst(Some("24us"), "jet");
    let lost = r.burst_trace[1];
    assert_eq!(lost.reason, Some(BurstLoss::OffsetTooShort));
    assert_eq!(lost.time, t0 + SimTime::from_ms(2) + SimTime::from_us(20));
    let f = &r.obs_links[lost.fibre.unwrap() as usize];
    assert_eq!((f.from.as_str(), f.to.as_str()), ("C1", "C2"));
    // Exactly enough (35 us) in JIT too.
    let r = one_burst(Some("35us"), "jit");
    assert_eq!(r.burst_trace[1].event, BurstEvent::Delivered);
}

/// Two one-packet bursts from E1 and E3 meet at C1 on a single wavelength toward E2,
/// B 10 µs after A. Their data do not overlap (A lasts 0.8 µs), so JET carries both;
/// JIT reserves from BCP processing (A holds the channel from 3.018 ms to A's end at
/// 3.0338 ms) and B's BCP, processed at 3.028 ms, finds it busy: B is lost.
#[test]
fn jit_blocks_what_jet_carries() {
    let mk = |sig: &str| {
        let mut s = String::from("[sim]\nduration = \"50ms\"\ntrace = { bursts = true }\n");
        for (n, k) in [
            ("s1", "host"),
            ("s2", "host"),
            ("d", "host"),
            ("E1", "edge"),
            ("E3", "edge"),
            ("C1", "core"),
            ("E2", "edge"),
        ] {
            s += &format!("[[node]]\nname = \"{n}\"\nkind = \"{k}\"\n");
        }
        for (a, b) in [("s1", "E1"), ("s2", "E3"), ("E2", "d")] {
            s +=
                &format!("[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n");
        }
        for (a, b) in [("E1", "C1"), ("E3", "C1"), ("C1", "E2")] {
            s += &format!(
                "[[fibre]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\n"
            );
        }
        s += &format!("[obs]\nassembly = {{ type = \"timer\", tb = \"1ms\" }}\nsignalling = \"{sig}\"\nscheduler = \"lauc\"\n");
        for (src, start) in [("s1", "0s"), ("s2", "10us")] {
            s += &format!("[[flow]]\ntype = \"cbr\"\nsrc = \"{src}\"\ndst = \"d\"\nrate = \"8Mb/s\"\npacket_size = 1000\nstart = \"{start}\"\nstop = \"0.5ms\"\n");
        }
        run(&s)
    };
    let jet = mk("jet");
    assert_eq!(
        jet.flows[0].segments_received + jet.flows[1].segments_received,
        2
    );
    let jit = mk("jit");
    assert_eq!(jit.flows[0].segments_received, 1);
    assert_eq!(jit.flows[1].segments_received, 0);
    let lost: Vec<_> = jit
        .burst_trace
        .iter()
        .filter(|b| b.event == BurstEvent::Lost)
        .collect();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].reason, Some(BurstLoss::Contention));
    assert_eq!(lost[0].time, SimTime::from_us(3028));
    let f = &jit.obs_links[lost[0].fibre.unwrap() as usize];
    assert_eq!((f.from.as_str(), f.to.as_str()), ("C1", "E2"));
}

fn within(got: f64, p: f64, n: u64, what: &str) {
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (got - p).abs() < 4.0 * sd,
        "{what}: {got} vs {p} (n = {n}, sd {sd})"
    );
}

/// Independent loss: per link, each of the h = 3 fibres drops p; per path, p once.
#[test]
fn random_loss_matches_p_per_link_and_per_path() {
    let p: f64 = 0.1;
    for scope in ["per_link", "per_path"] {
        let text = obs_chain(
            2,
            1,
            &format!("assembly = {{ type = \"timer\", tb = \"0.5ms\" }}\nloss = {{ p = {p}, scope = \"{scope}\" }}"),
            &cbr("8Mb/s", None),
            "20s",
        )
        .replace("trace = { bursts = true }", "");
        let r = run(&text);
        let q = &r.bursts[0];
        assert_eq!(q.lost_random, q.bursts_lost);
        let expect = if scope == "per_link" {
            1.0 - (1.0 - p).powi(3)
        } else {
            p
        };
        within(q.loss_prob, expect, q.bursts_sent, scope);
        if scope == "per_link" {
            for f in r.obs_links.iter().filter(|f| f.bursts_offered > 0) {
                within(
                    f.loss_prob,
                    p,
                    f.bursts_offered,
                    &format!("fibre {}", f.fibre),
                );
            }
        }
        // Loss is per burst: packets are lost in whole bursts.
        let fl = &r.obs_flows[0];
        assert_eq!(fl.data_bursts_lost, q.bursts_lost);
        // (up to the bursts still in flight at the end: one per 0.5 ms over ~3 ms)
        let carried = q.bursts_sent - q.bursts_lost;
        let got = r.flows[0].segments_received;
        assert!(got <= carried && got + 10 >= carried, "{got} {carried}");
    }
}

/// `n` on-off sources, each on its own ingress edge, share the fibre C1→E2 with `k`
/// wavelengths; the fibre is 10× faster than the access links, so a source never
/// overlaps itself and `k ≥ n` cannot block.
fn contention(n: usize, k: u32, seed: u64) -> RunResult {
    let mut s = format!("[sim]\nduration = \"0.3s\"\nseed = {seed}\n");
    s += "[[node]]\nname = \"C1\"\nkind = \"core\"\n[[node]]\nname = \"E2\"\nkind = \"edge\"\n[[node]]\nname = \"d\"\nkind = \"host\"\n";
    s += "[[link]]\na = \"E2\"\nb = \"d\"\nrate = \"100Gb/s\"\ndelay = \"1ms\"\n";
    s += &format!("[[fibre]]\na = \"C1\"\nb = \"E2\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n");
    for i in 0..n {
        s += &format!("[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"I{i}\"\nkind = \"edge\"\n");
        s += &format!("[[link]]\na = \"s{i}\"\nb = \"I{i}\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n");
        s += &format!("[[fibre]]\na = \"I{i}\"\nb = \"C1\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n");
        s += &format!("[[flow]]\ntype = \"onoff\"\nsrc = \"s{i}\"\ndst = \"d\"\nrate = \"1Gb/s\"\npacket_size = 1250\nmean_on = \"200us\"\nmean_off = \"200us\"\n");
    }
    s += "[obs]\nassembly = { type = \"timer\", tb = \"40us\" }\n";
    run(&s)
}

#[test]
fn contention_loss_falls_with_wavelengths_and_vanishes_with_ample_k() {
    let n = 12;
    let loss = |k| {
        let r = contention(n, k, 3);
        let f = r
            .obs_links
            .iter()
            .find(|f| f.from == "C1" && f.to == "E2")
            .unwrap()
            .clone();
        assert_eq!(
            f.lost_random + f.lost_offset_too_short + f.lost_no_wavelength,
            0
        );
        (
            f.lost_contention as f64 / f.bursts_offered as f64,
            f.bursts_offered,
        )
    };
    let (l1, n1) = loss(1);
    let (l2, _) = loss(2);
    let (l4, _) = loss(4);
    let (l12, _) = loss(n as u32);
    assert!(n1 > 10_000, "{n1}");
    assert!(l1 > l2 && l2 > l4 && l4 >= l12, "{l1} {l2} {l4} {l12}");
    assert!(l1 > 0.1, "{l1}");
    assert_eq!(l12, 0.0);
}

/// Packets into the edges = packets out of the egresses + dropped (queue full, lost
/// bursts by reason) + in flight, at the end of a run with every loss cause active.
#[test]
fn obs_conserves_packets() {
    let text = obs_chain(
        2,
        1,
        "assembly = { type = \"timer\", tb = \"50us\" }\nqueue_limit = 4\nloss = { p = 0.05 }\nmax_pkts_per_burst = 4\n[[obs.drop_burst]]\nedge = \"E1\"\nqueue = \"flow0\"\nbursts = [0, 5]\n",
        &(cbr("900Mb/s", None) + &cbr("300Mb/s", None).replace("[[flow]]", "[[flow]]\nname = \"b\"")),
        "0.2s",
    )
    .replace("rate = \"10Gb/s\"", "rate = \"1Gb/s\""); // long bursts: contention
    let spec = ScenarioSpec::from_toml_str(&text).unwrap();
    let mut sim = Sim::new(&spec.resolve(None, None).unwrap()).unwrap();
    sim.run_until_end();
    let (inn, out, dropped, flight) = sim.obs_conservation();
    assert!(
        inn > 10_000 && dropped > 0 && out > 0,
        "{inn} {out} {dropped} {flight}"
    );
    assert_eq!(inn, out + dropped + flight);
    // Flat memory: the pool holds what is in flight (~3 ms of bursts), not the run.
    assert!(sim.obs_burst_pool() < 300, "{}", sim.obs_burst_pool());
    assert!(sim.obs_stored_reservations() < 64);
    let r = sim.into_result();
    let by_reason: u64 = r
        .obs_flows
        .iter()
        .map(|f| f.pkts_dropped_queue + f.segments_lost_in_bursts)
        .sum();
    assert_eq!(dropped, by_reason);
    let q_in: u64 = r.bursts.iter().map(|q| q.pkts_in).sum();
    assert_eq!(q_in, inn);
    let lost: u64 = r.bursts.iter().map(|q| q.bursts_lost).sum();
    let reasons: u64 = r
        .bursts
        .iter()
        .map(|q| {
            q.lost_contention
                + q.lost_no_wavelength
                + q.lost_offset_too_short
                + q.lost_random
                + q.lost_injected
        })
        .sum();
    assert_eq!(lost, reasons);
    assert!(r.bursts.iter().any(|q| q.lost_contention > 0));
    assert!(r.bursts.iter().any(|q| q.pkts_dropped_queue > 0));
    assert_eq!(r.bursts[0].lost_injected, 2);
}

/// yu figs 8/9: "drop burst k of queue X" loses exactly that burst.
#[test]
fn injector_drops_the_named_burst() {
    let text = obs_chain(
        1,
        1,
        "assembly = { type = \"timer\", tb = \"1ms\" }\n[[obs.drop_burst]]\nedge = \"E1\"\nqueue = \"flow0\"\nbursts = [3]\n",
        &cbr("8Mb/s", None),
        "30ms",
    );
    let r = run(&text);
    let lost: Vec<_> = r
        .burst_trace
        .iter()
        .filter(|b| b.event == BurstEvent::Lost)
        .collect();
    assert_eq!(lost.len(), 1);
    assert_eq!(
        (lost[0].burst, lost[0].reason),
        (3, Some(BurstLoss::Injected))
    );
    // Unknown queue keys are named.
    let bad = text.replace("queue = \"flow0\"", "queue = \"nope\"");
    let e = run_toml(&bad, None, None).unwrap_err().to_string();
    assert!(e.starts_with("obs.drop_burst[0].queue"), "{e}");
}

/// Mixed-flow assembly: per_egress puts both flows in one queue; each flow's own S is
/// still reported.
#[test]
fn per_egress_classifier_mixes_flows() {
    let flows =
        cbr("100Mb/s", None) + &cbr("8Mb/s", None).replace("[[flow]]", "[[flow]]\nname = \"slow\"");
    let per_flow = run(&obs_chain(
        1,
        1,
        "assembly = { type = \"timer\", tb = \"1ms\" }",
        &flows,
        "0.2s",
    ));
    assert_eq!(per_flow.bursts.len(), 2);
    let mixed = run(&obs_chain(
        1,
        1,
        "assembly = { type = \"timer\", tb = \"1ms\" }\nclassifier = \"per_egress\"",
        &flows,
        "0.2s",
    ));
    assert_eq!(mixed.bursts.len(), 1);
    assert_eq!(mixed.bursts[0].key, "E2");
    assert!(mixed.bursts[0].mean_data_pkts > 13.0);
    let s_fast = mixed.obs_flows[0].mean_segments_per_burst;
    let s_slow = mixed.obs_flows[1].mean_segments_per_burst;
    assert!((12.0..=14.0).contains(&s_fast), "{s_fast}");
    assert!((1.0..=2.0).contains(&s_slow), "{s_slow}");
}

/// ACKs are assembled (a reverse queue at E2) or bypass assembly (no reverse queue).
#[test]
fn ack_mode_decides_whether_acks_have_a_queue() {
    let tcp = "[[flow]]\ntype = \"tcp\"\nsrc = \"s\"\ndst = \"d\"\n";
    let a = run(&obs_chain(1, 1, "ack_mode = \"assemble\"", tcp, "0.1s"));
    assert_eq!(a.bursts.len(), 2);
    assert_eq!(
        (a.bursts[1].edge.as_str(), a.bursts[1].egress.as_str()),
        ("E2", "E1")
    );
    let b = run(&obs_chain(1, 1, "ack_mode = \"bypass\"", tcp, "0.1s"));
    assert_eq!(b.bursts.len(), 1);
    assert_eq!(b.links.len(), 4, "bypass links are hidden");
}

#[test]
fn same_seed_same_bursts() {
    let a = contention(4, 1, 9);
    let b = contention(4, 1, 9);
    let c = contention(4, 1, 10);
    let key = |r: &RunResult| {
        r.obs_links
            .iter()
            .map(|f| (f.bursts_offered, f.lost_contention))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
}

// ------------------------------------------------------------------ bad input

fn err(text: &str) -> String {
    run_toml(text, None, None).unwrap_err().to_string()
}

#[test]
fn zero_wavelengths_names_the_field() {
    let e = err(&obs_chain(1, 0, "", &cbr("1Mb/s", None), "1s"));
    assert!(e.starts_with("fibre[0].wavelengths"), "{e}");
}

#[test]
fn route_through_missing_fibre_names_the_hop() {
    let flow = cbr("1Mb/s", None) + "route = [\"s\", \"E1\", \"E2\", \"d\"]\n";
    let e = err(&obs_chain(1, 1, "", &flow, "1s"));
    assert!(e.starts_with("flow[0].route[2]"), "{e}");
    assert!(e.contains("no link or fibre from 'E1' to 'E2'"), "{e}");
}

#[test]
fn lmin_above_lmax_names_the_field() {
    let e = err(&obs_chain(
        1,
        1,
        "assembly = { type = \"hybrid\", tmax = \"1ms\", lmax = \"10KB\", lmin = \"20KB\" }",
        &cbr("1Mb/s", None),
        "1s",
    ));
    assert!(e.starts_with("obs.assembly.lmin"), "{e}");
}

#[test]
fn negative_timer_names_the_field() {
    let e = err(&obs_chain(
        1,
        1,
        "assembly = { type = \"timer\", tb = \"-1ms\" }",
        &cbr("1Mb/s", None),
        "1s",
    ));
    assert!(e.starts_with("obs.assembly.tb"), "{e}");
    let e = err(&obs_chain(
        1,
        1,
        "assembly = { type = \"timer\", tb = 0 }",
        &cbr("1Mb/s", None),
        "1s",
    ));
    assert!(e.starts_with("obs.assembly.tb"), "{e}");
}

#[test]
fn other_obs_errors_name_their_fields() {
    let c = |obs: &str| err(&obs_chain(1, 1, obs, &cbr("1Mb/s", None), "1s"));
    assert!(c("loss = { p = 2 }").starts_with("obs.loss.p"));
    assert!(c("assembly = { type = \"timer\", tb = \"1ms\", lmax = 5 }")
        .starts_with("obs.assembly.lmax"));
    assert!(c("scheduler = \"best\"").starts_with("obs.scheduler"));
    assert!(c("bogus = 1").contains("bogus"));
    assert!(c("max_pkts_per_burst = 0").starts_with("obs.max_pkts_per_burst"));
    let e = err(&obs_chain(1, 1, "", &cbr("1Mb/s", None), "1s").replace(
        "[[link]]\na = \"s\"\nb = \"E1\"",
        "[[link]]\na = \"s\"\nb = \"C1\"",
    ));
    assert!(e.starts_with("link[0].b"), "{e}");
    let e = err(&obs_chain(1, 1, "", &cbr("1Mb/s", None), "1s").replacen(
        "wavelengths = 1\n",
        "wavelengths = 1\nlength_km = 3\n",
        1,
    ));
    assert!(e.starts_with("fibre[0].length_km"), "{e}");
}
