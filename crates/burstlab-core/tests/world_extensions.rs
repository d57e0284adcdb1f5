//! The extension points of the world: switching fabrics per node and a path policy per
//! traffic class, parallel fibres, and the assembler context (sender marks, the cwnd
//! oracle, the edge hook). Each test pins an exact, hand-computed outcome.

use burstlab_core::run_toml;
use burstlab_core::stats::{BurstEvent, BurstLoss, RunResult};
use burstlab_core::units::SimTime;

fn run(text: &str) -> RunResult {
    run_toml(text, None, None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> String {
    run_toml(text, None, None)
        .err()
        .unwrap_or_else(|| panic!("should be rejected:\n{text}"))
        .to_string()
}

/// Hosts `s1`, `s2` → E1 (1 Gb/s, 1 ms each) → OBS → E2 → `d` (1 Gb/s, 1 ms); the
/// one-way OBS fibres need a packet return path for the (unused) reverse routes: R.
const HOSTS: &str = r#"
[[node]]
name = "R"
[[link]]
a = "d"
b = "R"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "R"
b = "s1"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "R"
b = "s2"
rate = "1Gb/s"
delay = "1ms"
[sim]
duration = "50ms"
trace = { bursts = true }
[[node]]
name = "s1"
kind = "host"
[[node]]
name = "s2"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s1"
b = "E1"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "s2"
b = "E1"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "d"
rate = "1Gb/s"
delay = "1ms"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "E2"
kind = "edge"
"#;

/// One 1000 B packet at t = 0 from `src` (CBR at 8 Mb/s stopped after 0.5 ms).
fn one_packet(src: &str, class: u32) -> String {
    format!(
        "[[flow]]\ntype = \"cbr\"\nsrc = \"{src}\"\ndst = \"d\"\nrate = \"8Mb/s\"\npacket_size = 1000\nstop = \"0.5ms\"\nclass = {class}\nroute = [\"{src}\", \"E1\", \"C1\", \"E2\", \"d\"]\n"
    )
}

/// hybrid §II: core node C1 with a slow MEMS fabric (set-up 10 ms, δ 10 µs, 10 Gb/s)
/// and a fast SOA fabric (set-up 1 µs, δ 1 µs, 40 Gb/s); class 0 → mems, class 1 → soa.
fn hybrid_core() -> String {
    let mut s = HOSTS.to_string();
    s += r#"
[[node]]
name = "C1"
kind = "core"
[[node.fabric]]
name = "mems"
setup = "10ms"
bcp_processing = "10us"
rate = "10Gb/s"
[[node.fabric]]
name = "soa"
setup = "1us"
bcp_processing = "1us"
rate = "40Gb/s"
[[fibre]]
a = "E1"
b = "C1"
rate = "10Gb/s"
delay = "1ms"
fabric_b = "mems"
duplex = false
[[fibre]]
a = "E1"
b = "C1"
rate = "40Gb/s"
delay = "1ms"
fabric_b = "soa"
duplex = false
[[fibre]]
a = "C1"
b = "E2"
delay = "1ms"
fabric_a = "mems"
duplex = false
[[fibre]]
a = "C1"
b = "E2"
delay = "1ms"
fabric_a = "soa"
duplex = false
[obs]
classifier = "per_class"
assembly = { type = "timer", tb = "1ms" }
bcp_processing = "10us"
switch_setup = "5us"
[[obs.class]]
name = "slow"
fabric = "mems"
[[obs.class]]
name = "fast"
fabric = "soa"
"#;
    s
}

/// Each class's burst: formed at t0 = 2.008 ms (the packet reaches E1 at 1.008 ms,
/// Tb = 1 ms). Offset T = Σδ + max set-up over C1 and E2 (E2's default fabric: δ 10 µs,
/// set-up 5 µs): mems 10 µs + 10 µs + 10 ms = 10.02 ms; soa 1 µs + 10 µs + 5 µs = 16 µs.
/// Tail at E2: t0 + T + 2 × 1 ms + 1000 B / R (800 ns at 10 Gb/s, 200 ns at 40 Gb/s).
#[test]
fn two_fabrics_give_two_classes_their_offsets_and_line_rates() {
    let text = hybrid_core() + &one_packet("s1", 0) + &one_packet("s2", 1);
    let r = run(&text);
    assert_eq!(r.bursts.len(), 2);
    let by_class = |c: u32| r.bursts.iter().find(|q| q.class == c).unwrap();
    assert_eq!(
        SimTime::from_secs_f64(by_class(0).offset_s).unwrap(),
        SimTime::from_us(10_020)
    );
    assert_eq!(
        SimTime::from_secs_f64(by_class(1).offset_s).unwrap(),
        SimTime::from_us(16)
    );
    // Fibres 2 and 3 (C1 → E2) take their line rate from the fabric they leave through.
    assert_eq!(r.obs_links[2].rate_bps, 10_000_000_000);
    assert_eq!(r.obs_links[3].rate_bps, 40_000_000_000);
    for (c, fibres) in [(0, [0, 2]), (1, [1, 3])] {
        for f in fibres {
            assert_eq!(r.obs_links[f].bursts_scheduled, 1, "class {c} fibre {f}");
        }
        assert_eq!(by_class(c).bursts_delivered, 1);
    }
    let delivered: Vec<(u32, u64)> = r
        .burst_trace
        .iter()
        .filter(|s| s.event == BurstEvent::Delivered)
        .map(|s| (s.queue, s.time.0))
        .collect();
    let q = |c: u32| r.bursts.iter().position(|x| x.class == c).unwrap() as u32;
    let t0 = 2_008_000_000u64;
    assert_eq!(
        delivered,
        vec![
            (q(1), t0 + 16_000_000 + 2_000_000_000 + 200_000),
            (q(0), t0 + 10_020_000_000 + 2_000_000_000 + 800_000),
        ]
    );
    assert_eq!(r.flows[0].segments_received, 1);
    assert_eq!(r.flows[1].segments_received, 1);
}

#[test]
fn fabric_settings_are_validated_naming_the_field() {
    let no_fabric =
        hybrid_core().replace("fabric = \"soa\"\n", "fabric = \"fdl\"\n") + &one_packet("s2", 1);
    let m = err(&no_fabric);
    assert!(m.starts_with("obs.class[1].fabric:"), "{m}");
    assert!(m.contains("'fdl'"), "{m}");
    let bad_end = hybrid_core().replace("fabric_b = \"mems\"", "fabric_b = \"memz\"");
    let m = err(&bad_end);
    assert!(
        m.starts_with("fibre[0].fabric_b: node 'C1' has no fabric 'memz'"),
        "{m}"
    );
    let dup = hybrid_core().replace("name = \"soa\"", "name = \"mems\"");
    assert!(
        err(&dup).starts_with("node[6].fabric[1].name:"),
        "{}",
        err(&dup)
    );
    let no_rate = hybrid_core().replace("rate = \"40Gb/s\"\ndelay", "delay");
    assert!(
        err(&no_rate).starts_with("fibre[1].rate:"),
        "{}",
        err(&no_rate)
    );
    let on_host = hybrid_core().replace(
        "[[node]]\nname = \"d\"\nkind = \"host\"\n",
        "[[node]]\nname = \"d\"\nkind = \"host\"\n[[node.fabric]]\nname = \"x\"\n",
    );
    assert!(
        err(&on_host).starts_with("node[3].fabric:"),
        "{}",
        err(&on_host)
    );
}

/// `hybrid_core` with a fixed offset per class (`slow`, `fast`) and `obs.safe_offset`.
fn hybrid_fixed(slow: &str, fast: &str, safe: bool) -> String {
    let s = hybrid_core()
        .replace(
            "fabric = \"mems\"\n",
            &format!("fabric = \"mems\"\noffset = \"{slow}\"\n"),
        )
        .replace(
            "fabric = \"soa\"\n",
            &format!("fabric = \"soa\"\noffset = \"{fast}\"\n"),
        )
        .replace(
            "switch_setup = \"5us\"\n",
            &format!("switch_setup = \"5us\"\nsafe_offset = {safe}\n"),
        );
    s + &one_packet("s1", 0) + &one_packet("s2", 1)
}

/// The set-up check per fabric (core_node.rs timeline: lost unless `a_i ≥ t_i + s_i`,
/// i.e. `T ≥ Σ_{j≤i} δ_j + s_i`). Slow path (mems at C1, default at E2): C1 needs
/// 10 µs + 10 ms = 10.01 ms, E2 10 + 10 + 5 = 25 µs. Fast path (soa at C1): C1 needs
/// 1 + 1 = 2 µs, E2 1 + 10 + 5 = 16 µs. Exactly enough is delivered, 1 µs less is lost
/// where the offset runs out: slow at C1 (BCP done at t0 + 1 ms + 10 µs, charged to
/// fibre 0), fast at E2 (t0 + 2 ms + 11 µs, fibre 3).
#[test]
fn fixed_class_offsets_meet_each_fabrics_setup_check_exactly() {
    let t0 = 2_008_000_000u64;
    let r = run(&hybrid_fixed("10.01ms", "16us", false));
    let q = |r: &RunResult, c: u32| r.bursts.iter().position(|x| x.class == c).unwrap() as u32;
    assert_eq!(r.bursts[q(&r, 0) as usize].offset_s, 10.01e-3);
    assert_eq!(r.bursts[q(&r, 1) as usize].offset_s, 16e-6);
    let ev: Vec<(u32, BurstEvent, u64)> = r
        .burst_trace
        .iter()
        .filter(|s| s.event != BurstEvent::Formed)
        .map(|s| (s.queue, s.event, s.time.0))
        .collect();
    assert_eq!(
        ev,
        vec![
            (
                q(&r, 1),
                BurstEvent::Delivered,
                t0 + 16_000_000 + 2_000_000_000 + 200_000
            ),
            (
                q(&r, 0),
                BurstEvent::Delivered,
                t0 + 10_010_000_000 + 2_000_000_000 + 800_000
            ),
        ]
    );
    let r = run(&hybrid_fixed("10009us", "15us", false));
    let lost: Vec<(u32, u64, Option<u32>)> = r
        .burst_trace
        .iter()
        .filter(|s| s.event == BurstEvent::Lost)
        .map(|s| {
            assert_eq!(s.reason, Some(BurstLoss::OffsetTooShort));
            (s.queue, s.time.0, s.fibre)
        })
        .collect();
    assert_eq!(
        lost,
        vec![
            (q(&r, 0), t0 + 1_000_000_000 + 10_000_000, Some(0)),
            (q(&r, 1), t0 + 2_000_000_000 + 11_000_000, Some(3)),
        ]
    );
    assert_eq!(r.obs_links[0].lost_offset_too_short, 1);
    assert_eq!(r.obs_links[3].lost_offset_too_short, 1);
    assert_eq!(
        r.flows[0].segments_received + r.flows[1].segments_received,
        0
    );
}

#[test]
fn safe_offset_rejects_a_fixed_offset_shorter_than_the_setup_naming_the_field() {
    // Exactly enough passes the check.
    run(&hybrid_fixed("10.01ms", "16us", true));
    let m = err(&hybrid_fixed("10009us", "16us", true));
    assert!(m.starts_with("obs.class[0].offset:"), "{m}");
    assert!(m.contains("0.010009s") && m.contains("0.01001s"), "{m}");
    assert!(m.contains("'E1' → 'C1' → 'E2'"), "{m}");
    let m = err(&hybrid_fixed("10.01ms", "15us", true));
    assert!(m.starts_with("obs.class[1].offset:"), "{m}");
    assert!(m.contains("0.000016s"), "{m}");
    // The global fixed offset is checked too (MEMS path: 10.01 ms needed).
    let global = hybrid_core().replace(
        "switch_setup = \"5us\"\n",
        "switch_setup = \"5us\"\noffset = \"1ms\"\nsafe_offset = true\n",
    ) + &one_packet("s1", 0);
    let m = err(&global);
    assert!(m.starts_with("obs.offset:"), "{m}");
}

/// The core declares only the MEMS fabric; the edges declare both, so the fast class's
/// fabric exists in the network but not at C1: rejected naming the class's field.
#[test]
fn class_on_a_fabric_the_core_lacks_is_rejected_naming_the_field() {
    let edges = "kind = \"edge\"\n[[node.fabric]]\nname = \"mems\"\nrate = \"10Gb/s\"\n[[node.fabric]]\nname = \"soa\"\nrate = \"40Gb/s\"\n";
    let mut s = HOSTS.replace("kind = \"edge\"\n", edges);
    s += r#"
[[node]]
name = "C1"
kind = "core"
[[node.fabric]]
name = "mems"
setup = "10ms"
rate = "10Gb/s"
[[fibre]]
a = "E1"
b = "C1"
delay = "1ms"
fabric_a = "mems"
duplex = false
[[fibre]]
a = "C1"
b = "E2"
delay = "1ms"
fabric_b = "mems"
duplex = false
[obs]
classifier = "per_class"
assembly = { type = "timer", tb = "1ms" }
[[obs.class]]
name = "slow"
fabric = "mems"
[[obs.class]]
name = "fast"
fabric = "soa"
"#;
    run(&(s.clone() + &one_packet("s1", 0)));
    let m = err(&(s + &one_packet("s2", 1)));
    assert!(m.starts_with("obs.class[1].fabric:"), "{m}");
    assert!(
        m.contains("from 'E1' to 'C1' attached to fabric 'soa'"),
        "{m}"
    );
}

/// hybrid §II: classification into classes, hybrid time–volume assembly per class and
/// mixed-flow bursts within a class. Four CBR flows of one 1000 B packet per ms
/// (reaching E1 over 1 Gb/s, 1 ms links at k ms + 1.008 ms): s1 and s2 in class 0
/// (Tmax 2.5 ms, Lmax 1 MB), s1 and s2 again in class 1 from 0.5 ms (Tmax 10 ms,
/// Lmax 3000 B), 12 packets each. Class 0 closes on Tmax: cycles [1.008, 3.508),
/// [4.008, 6.508), … hold 3 packets of each flow: 4 bursts of 6000 B at 3.508, 6.508,
/// 9.508, 12.508 ms. Class 1 closes on Lmax at its 3rd packet: 8 bursts of 3000 B
/// (2 + 1 and 1 + 2 packets of the two flows) at 2.508, 3.508, 5.508, 6.508, … ms.
#[test]
fn classes_get_their_own_hybrid_assembly_and_mix_their_flows() {
    let mut s = hybrid_core()
        .replace("rate = \"10Gb/s\"\ndelay = \"1ms\"\nfabric_b = \"mems\"", "rate = \"10Gb/s\"\ndelay = \"1ms\"\nfabric_b = \"mems\"\nwavelengths = 8")
        .replace("fabric_a = \"mems\"\n", "fabric_a = \"mems\"\nwavelengths = 8\n")
        .replace("rate = \"40Gb/s\"\ndelay = \"1ms\"\nfabric_b = \"soa\"", "rate = \"40Gb/s\"\ndelay = \"1ms\"\nfabric_b = \"soa\"\nwavelengths = 8")
        .replace("fabric_a = \"soa\"\n", "fabric_a = \"soa\"\nwavelengths = 8\n")
        .replace(
            "fabric = \"mems\"\n",
            "fabric = \"mems\"\nassembly = { type = \"hybrid\", tmax = \"2.5ms\", lmax = \"1MB\" }\n",
        )
        .replace(
            "fabric = \"soa\"\n",
            "fabric = \"soa\"\nassembly = { type = \"hybrid\", tmax = \"10ms\", lmax = \"3000B\" }\n",
        );
    for (src, class, start) in [
        ("s1", 0, "0ms"),
        ("s2", 0, "0ms"),
        ("s1", 1, "0.5ms"),
        ("s2", 1, "0.5ms"),
    ] {
        s += &format!(
            "[[flow]]\ntype = \"cbr\"\nsrc = \"{src}\"\ndst = \"d\"\nrate = \"8Mb/s\"\npacket_size = 1000\nstart = \"{start}\"\nstop = \"11.6ms\"\nclass = {class}\nroute = [\"{src}\", \"E1\", \"C1\", \"E2\", \"d\"]\n"
        );
    }
    let r = run(&s);
    assert_eq!(r.bursts.len(), 2, "one mixed-flow queue per class");
    let row = |c: u32| r.bursts.iter().find(|q| q.class == c).unwrap();
    let (slow, fast) = (row(0), row(1));
    assert_eq!(
        (slow.bursts_sent, slow.min_bytes, slow.max_bytes),
        (4, 6000, 6000)
    );
    assert_eq!(
        (fast.bursts_sent, fast.min_bytes, fast.max_bytes),
        (8, 3000, 3000)
    );
    assert_eq!((slow.mean_pkts, fast.mean_pkts), (6.0, 3.0));
    let formed = |c: u32| -> Vec<u64> {
        let q = r.bursts.iter().position(|x| x.class == c).unwrap() as u32;
        r.burst_trace
            .iter()
            .filter(|e| e.queue == q && e.event == BurstEvent::Formed)
            .map(|e| e.time.0 / 1_000_000)
            .collect()
    };
    assert_eq!(formed(0), vec![3_508, 6_508, 9_508, 12_508]);
    assert_eq!(
        formed(1),
        vec![2_508, 3_508, 5_508, 6_508, 8_508, 9_508, 11_508, 12_508]
    );
    // Every burst of a class carries both of its flows.
    for (f, bursts, per) in [(0, 4, 3.0), (1, 4, 3.0), (2, 8, 1.5), (3, 8, 1.5)] {
        let o = &r.obs_flows[f];
        assert_eq!(o.data_bursts, bursts, "flow {f}");
        assert_eq!(o.segments_in_bursts, 12, "flow {f}");
        assert_eq!(o.mean_segments_per_burst, per, "flow {f}");
        assert_eq!(r.flows[f].segments_received, 12, "flow {f}");
    }
}

/// Two parallel fibres E1 → C1 with one wavelength each: two bursts formed at the same
/// instant both get through (first fit: fibre 0, then its parallel fibre 1). With one
/// fibre the second burst is lost to contention.
#[test]
fn parallel_fibres_both_carry_bursts() {
    let net = |parallel: bool| {
        let mut s = HOSTS.to_string();
        s += "[[node]]\nname = \"C1\"\nkind = \"core\"\n";
        let f = "[[fibre]]\na = \"E1\"\nb = \"C1\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nduplex = false\n";
        s += f;
        if parallel {
            s += f;
        }
        s += "[[fibre]]\na = \"C1\"\nb = \"E2\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = 2\nduplex = false\n";
        s += "[obs]\nclassifier = \"per_flow\"\nassembly = { type = \"timer\", tb = \"1ms\" }\n";
        s + &one_packet("s1", 0) + &one_packet("s2", 0)
    };
    let r = run(&net(true));
    assert_eq!(r.obs_links[0].bursts_scheduled, 1);
    assert_eq!(r.obs_links[1].bursts_scheduled, 1);
    assert_eq!(r.obs_links[1].bursts_offered, 1);
    assert_eq!(r.obs_links[2].bursts_scheduled, 2);
    assert!(r
        .bursts
        .iter()
        .all(|q| q.bursts_delivered == 1 && q.bursts_lost == 0));
    let r = run(&net(false));
    assert_eq!(r.obs_links[0].bursts_scheduled, 1);
    assert_eq!(r.obs_links[0].lost_contention, 1);
}

/// One SACK flow `s → E1 → C1 → E2 → d` (access 100 Mb/s, 1 ms; fibres 10 Gb/s, 1 ms),
/// `Wm` = 10, no loss, with the given `[obs]` assembly and ACK mode.
fn tcp_path(assembly: &str, ack_mode: &str) -> String {
    format!(
        r#"
[sim]
duration = "20s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "C1"
kind = "core"
[[node]]
name = "E2"
kind = "edge"
[[link]]
a = "s"
b = "E1"
rate = "100Mb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "d"
rate = "100Mb/s"
delay = "1ms"
[[fibre]]
a = "E1"
b = "C1"
rate = "10Gb/s"
delay = "1ms"
[[fibre]]
a = "C1"
b = "E2"
rate = "10Gb/s"
delay = "1ms"
[obs]
assembly = {assembly}
ack_mode = "{ack_mode}"
[[flow]]
type = "tcp"
src = "s"
dst = "d"
variant = "sack"
wm = 10
"#
    )
}

/// ozsarac §2.1 (CWBA) through three window sources: once cwnd has reached `Wm` = 10,
/// every data burst is exactly one window when the edge learns the window from the
/// sender's mark or from the cwnd oracle. The passive flight estimator sees less than
/// the window while ACKs and new data are still on the access loop (E1 ↔ s), so its
/// bursts are at most one window and mostly a little less. A timer assembler
/// (Tb = 0.3 ms, about 4 segments at 100 Mb/s) gives smaller bursts, so the check can
/// fail.
#[test]
fn window_assemblers_emit_one_window_per_burst() {
    for window in ["mark", "oracle", "estimator"] {
        let r = run(&tcp_path(
            &format!("{{ type = \"cwba\", window = \"{window}\", tmax = \"1s\" }}"),
            "bypass",
        ));
        let q = &r.bursts[0];
        assert!(q.bursts_sent > 1000, "{window}: {q:?}");
        assert_eq!(q.bursts_lost, 0);
        if window == "estimator" {
            assert_eq!(q.pkts_max, 10, "{q:?}");
            assert!((8..=10).contains(&q.pkts_p50), "{q:?}");
        } else {
            assert_eq!(
                (q.pkts_p10, q.pkts_p50, q.pkts_max),
                (10, 10, 10),
                "{window}"
            );
        }
    }
    let r = run(&tcp_path("{ type = \"timer\", tb = \"0.3ms\" }", "bypass"));
    assert!(r.bursts[0].pkts_p50 < 10, "{:?}", r.bursts[0]);
}

/// The edge hook sees every ACK of the flow at its ingress E1, whether the ACKs bypass
/// the core (hidden link E2 → E1) or ride bursts disassembled at E1. Without loss the
/// estimate is at most the window (10) and close to it.
#[test]
fn edge_hook_sees_acks_that_bypass_assembly() {
    use burstlab_core::scenario::ScenarioSpec;
    use burstlab_core::world::World;
    for ack_mode in ["bypass", "assemble"] {
        let text = tcp_path("{ type = \"timer\", tb = \"0.3ms\" }", ack_mode);
        let spec = ScenarioSpec::from_toml_str(&text).unwrap();
        let mut w = World::new(&spec.resolve(None, None).unwrap()).unwrap();
        w.enable_edge_hook();
        w.run_until_end();
        let est = w.edge_estimator(0);
        let r = w.into_result();
        let f = &r.flows[0];
        assert_eq!(r.bursts.len(), if ack_mode == "bypass" { 1 } else { 2 });
        // Every segment sent reached E1 except those on the access link at the end.
        assert!(f.segments_sent - est.data_seen <= 10, "{ack_mode}: {est:?}");
        // Every ACK of a received segment reached E1 except those still on their way.
        assert!(est.acks_seen <= f.segments_received, "{ack_mode}: {est:?}");
        assert!(
            f.segments_received - est.acks_seen <= 20,
            "{ack_mode}: {est:?}"
        );
        assert_eq!(
            est.high_data,
            f.segments_sent - (f.segments_sent - est.data_seen)
        );
        assert!(
            est.estimate().is_some_and(|e| (8..=10).contains(&e)),
            "{ack_mode}: {est:?}"
        );
    }
}

#[test]
fn window_assembly_is_validated_naming_the_field() {
    let m = err(&tcp_path("{ type = \"cwba\", tmax = \"1s\" }", "bypass"));
    assert!(m.starts_with("obs.assembly.window:"), "{m}");
    let m = err(&tcp_path(
        "{ type = \"cwba\", window = \"mark\", tb = \"1s\" }",
        "bypass",
    ));
    assert!(m.starts_with("obs.assembly.tb:"), "{m}");
    let m = err(&tcp_path(
        "{ type = \"cwba\", window = \"mark\", tmax = \"0s\" }",
        "bypass",
    ));
    assert!(m.starts_with("obs.assembly.tmax:"), "{m}");
}

/// Two parallel links r1 – r2 (10 Mb/s each) under two CBR flows of 6 Mb/s: the flows
/// are spread over them (flow i on the (i mod 2)-th), so each link carries exactly one
/// flow's 750 packets per second and nothing is dropped. With one link of 10 Mb/s the
/// 12 Mb/s would overflow its 10-packet queue.
#[test]
fn parallel_links_both_carry_traffic() {
    let net = |parallel: bool| {
        let second = if parallel {
            "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"10Mb/s\"\ndelay = \"1ms\"\nqueue_pkts = 10\n"
        } else {
            ""
        };
        format!(
            r#"
[sim]
duration = "2s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "r1"
[[node]]
name = "r2"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "r1"
rate = "100Mb/s"
delay = "1ms"
[[link]]
a = "r1"
b = "r2"
rate = "10Mb/s"
delay = "1ms"
queue_pkts = 10
{second}[[link]]
a = "r2"
b = "d"
rate = "100Mb/s"
delay = "1ms"
[[flow]]
type = "cbr"
src = "s"
dst = "d"
rate = "6Mb/s"
[[flow]]
type = "cbr"
src = "s"
dst = "d"
rate = "6Mb/s"
"#
        )
    };
    let r = run(&net(true));
    let mid: Vec<_> = r
        .links
        .iter()
        .filter(|l| l.from == "r1" && l.to == "r2")
        .collect();
    assert_eq!(mid.len(), 2);
    for l in &mid {
        // 6 Mb/s of 1000-byte packets for 2 s: 1500 packets each, none dropped.
        assert_eq!(l.pkts_offered, 1500, "{l:?}");
        assert_eq!(l.drops_queue, 0, "{l:?}");
    }
    let single = run(&net(false));
    let l = single
        .links
        .iter()
        .find(|l| l.from == "r1" && l.to == "r2")
        .unwrap();
    assert_eq!(l.pkts_offered, 3000);
    assert!(l.drops_queue > 0, "{l:?}");
}
