//! ACK-ratio assembly (zhou §3): the R-control rule on scripted arrivals, through the
//! edge node's queue (`world::edge::Edges`) and the real event queue; `R_MAX = 1`
//! against plain assembly, burst for burst, in isolation and in whole simulations; bad
//! input rejected with the field named.

use burstlab_core::engine::EventQueue;
use burstlab_core::obs::{
    ack_ratio_allowed, ack_share_ok, AckRatioBase, Assembler, AssemblerConfig, PktKind, PktMeta,
    TimerCmd,
};
use burstlab_core::rng::RngStream;
use burstlab_core::run_toml;
use burstlab_core::units::SimTime;
use burstlab_core::world::edge::{Edges, Enqueued, QueueSpec};

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive(usize),
    Timer(u64),
}
burstlab_core::plain_event!(Ev);

/// One burst the node formed: (time, packet ids in burst order, bytes).
type Burst = (SimTime, Vec<u32>, u64);

/// A packet of the script: (arrival, kind, bytes).
type Arrival = (SimTime, PktKind, u32);

/// Drives one assembly queue of an edge through the event queue and returns the bursts
/// formed and the ids still queued at the end (none are: the drain below assembles
/// whatever is left with a final timer sweep when the policy has a timer).
fn drive(cfg: &AssemblerConfig, cap: u32, script: &[Arrival]) -> (Vec<Burst>, u64) {
    let mut edges = Edges::new(1);
    let asm = Assembler::new(cfg, cap, RngStream::derive(5, 0, "edge/0/asm/0")).unwrap();
    let qi = edges.add_queue(QueueSpec {
        edge: 0,
        egress: 1,
        key: "q".into(),
        flow: None,
        class: 0,
        path: vec![0],
        offset: SimTime::ZERO,
        asm,
        limit: None,
    });
    let mut eq: EventQueue<Ev> = EventQueue::new();
    for (i, a) in script.iter().enumerate() {
        eq.push(a.0, Ev::Arrive(i));
    }
    let mut bursts = Vec::new();
    let (mut list, mut path) = (Vec::new(), Vec::new());
    while let Some((now, ev)) = eq.pop() {
        let d = match ev {
            Ev::Arrive(i) => {
                let (_, kind, bytes) = script[i];
                let meta = PktMeta {
                    bytes,
                    flow: 0,
                    kind,
                    seq: i as u64,
                    mark: false,
                };
                match edges.enqueue(now, qi, i as u32, meta, |_| None) {
                    Enqueued::Queued(d) => d,
                    Enqueued::Full => unreachable!("no limit"),
                }
            }
            Ev::Timer(gen) => match edges.timer(now, qi, gen) {
                Some(d) => d,
                None => continue,
            },
        };
        for e in d.bursts() {
            let f = edges.take_burst(now, qi, e, &mut list, &mut path);
            assert_eq!(f.pkts as usize, list.len());
            if f.pkts > 0 {
                bursts.push((now, list.clone(), f.bytes));
            }
        }
        if let TimerCmd::Arm { deadline, gen } = d.timer {
            eq.push(deadline, Ev::Timer(gen));
        }
    }
    (bursts, edges.conservation().3)
}

/// A deterministic mix of data segments (512 B + 40 B headers) and ACKs (40 B), in
/// clumps as a window's worth of each would arrive, at irregular times.
fn script(n: usize, ack_every: u64, seed: u64) -> Vec<Arrival> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut t = 0u64;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t += (x >> 33) % 7_000;
            let kind = if (x >> 20).is_multiple_of(ack_every) {
                PktKind::Ack
            } else {
                PktKind::Data
            };
            let bytes = if kind == PktKind::Ack { 40 } else { 552 };
            (SimTime(t), kind, bytes)
        })
        .collect()
}

fn timer(tb: u64, jitter: f64) -> AckRatioBase {
    AckRatioBase::Timer {
        tb: SimTime(tb),
        jitter_sd_frac: jitter,
    }
}

fn bases() -> Vec<AckRatioBase> {
    vec![
        timer(20_000, 0.0),
        timer(20_000, 0.1),
        AckRatioBase::Length {
            max_bytes: Some(5_000),
            max_pkts: None,
        },
        AckRatioBase::Length {
            max_bytes: None,
            max_pkts: Some(7),
        },
        AckRatioBase::Hybrid {
            tmax: SimTime(30_000),
            lmax_bytes: 6_000,
            lmin_bytes: Some(3_000),
        },
    ]
}

fn kinds(script: &[Arrival], ids: &[u32]) -> (u32, u32) {
    let acks = ids
        .iter()
        .filter(|&&i| script[i as usize].1 == PktKind::Ack)
        .count() as u32;
    (ids.len() as u32 - acks, acks)
}

#[test]
fn the_rule_is_the_largest_share_at_or_below_r_max() {
    for r in [0.0, 0.1, 0.2, 0.25, 1.0 / 3.0, 0.5, 0.7, 0.9, 0.99, 1.0] {
        for d in 0..40 {
            for a in 0..40 {
                let k = ack_ratio_allowed(r, d, a);
                assert!(k <= a && ack_share_ok(r, d, k), "r={r} d={d} a={a} k={k}");
                assert!(k == a || !ack_share_ok(r, d, k + 1), "r={r} d={d} a={a}");
            }
        }
    }
    // Exact thresholds: R = 1/2 allows as many ACKs as data; R = 1/4 one per three.
    assert_eq!(ack_ratio_allowed(0.5, 3, 10), 3);
    assert_eq!(ack_ratio_allowed(0.25, 9, 10), 3);
    assert_eq!(ack_ratio_allowed(0.0, 100, 10), 0);
    assert_eq!(ack_ratio_allowed(1.0, 0, 10), 10);
}

/// zhou §3.1: "the value of R is controlled to be … equal to or less than R_MAX".
#[test]
fn no_burst_carries_more_than_r_max_acks() {
    for base in bases() {
        for ack_every in [2, 3, 5] {
            let s = script(3_000, ack_every, ack_every);
            for r in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9] {
                let cfg = AssemblerConfig::AckRatio { base, r_max: r };
                let (bursts, left) = drive(&cfg, u32::MAX, &s);
                assert!(!bursts.is_empty());
                let mut seen = vec![false; s.len()];
                let mut last_data = None;
                for (_, ids, _) in &bursts {
                    let (d, a) = kinds(&s, ids);
                    assert!(d + a > 0);
                    assert!(ack_share_ok(r, d, a), "{base:?} r={r}: {a} ACKs, {d} data");
                    for &i in ids {
                        assert!(!std::mem::replace(&mut seen[i as usize], true));
                        // Data keeps its order: only ACKs are held back.
                        if s[i as usize].1 == PktKind::Data {
                            assert!(last_data < Some(i));
                            last_data = Some(i);
                        }
                    }
                }
                let sent = seen.iter().filter(|&&x| x).count() as u64;
                assert_eq!(sent + left, s.len() as u64, "conservation");
                if r == 0.0 {
                    assert!(bursts.iter().all(|b| kinds(&s, &b.1).1 == 0));
                }
            }
        }
    }
}

/// zhou §3.1: "the delayed ACK packets in Extra-Queues are given higher priority than
/// those from the Input Queues to be assembled into bursts".
#[test]
fn held_acks_go_before_new_acks_at_the_next_assembly() {
    let (d, a) = (PktKind::Data, PktKind::Ack);
    let t = SimTime;
    // Timer 100: cycle 1 collects D0 A1 A2 A3 A4 (ids 0..4); R = 1/2 lets one ACK go
    // (A1) and holds A2 A3 A4. Cycle 2 collects D5 D6 A7 A8 D9: 3 data allow 3 ACKs,
    // and they are the held ones (A2 A3 A4), not A7 A8. Cycle 3 (D10) takes A7 only.
    let s = vec![
        (t(0), d, 552),
        (t(1), a, 40),
        (t(2), a, 40),
        (t(3), a, 40),
        (t(4), a, 40),
        (t(200), d, 552),
        (t(201), d, 552),
        (t(202), a, 40),
        (t(203), a, 40),
        (t(204), d, 552),
        (t(400), d, 552),
    ];
    let cfg = AssemblerConfig::AckRatio {
        base: timer(100, 0.0),
        r_max: 0.5,
    };
    let (bursts, left) = drive(&cfg, u32::MAX, &s);
    let ids: Vec<_> = bursts.iter().map(|b| (b.0, b.1.clone())).collect();
    assert_eq!(
        ids,
        vec![
            (t(100), vec![0, 1]),
            (t(300), vec![2, 3, 4, 5, 6, 9]),
            (t(500), vec![7, 10]),
        ]
    );
    assert_eq!(left, 1, "one data segment lets one ACK go: A8 still waits");
    assert_eq!(bursts[0].2, 552 + 40);
    // Held ACKs start no timer of their own: with no more data they wait.
    let (bursts, left) = drive(&cfg, u32::MAX, &s[..5]);
    assert_eq!(bursts.len(), 1);
    assert_eq!(left, 3);
    // ... and a queue of ACKs only forms no burst below R_MAX = 1.
    let only_acks: Vec<_> = (0..10).map(|i| (t(i), a, 40)).collect();
    let (bursts, left) = drive(&cfg, u32::MAX, &only_acks);
    assert!(bursts.is_empty());
    assert_eq!(left, 10);
    // Length trigger: held ACKs do not count towards max_pkts (the input queue does).
    let cfg = AssemblerConfig::AckRatio {
        base: AckRatioBase::Length {
            max_bytes: None,
            max_pkts: Some(3),
        },
        r_max: 0.5,
    };
    let s = vec![
        (t(0), a, 40),
        (t(1), a, 40),
        (t(2), d, 552), // burst: D2 A0 (A1 held)
        (t(3), a, 40),
        (t(4), d, 552),
        (t(5), d, 552), // candidate A1 | A3 D4 D5: 2 data, 2 ACKs (A1 first, then A3)
    ];
    let (bursts, _) = drive(&cfg, u32::MAX, &s);
    let ids: Vec<_> = bursts.into_iter().map(|b| b.1).collect();
    assert_eq!(ids, vec![vec![0, 2], vec![1, 3, 4, 5]]);
}

/// zhou §3.2: "R_MAX = 1 … works as the conventional assembly scheme": the same bursts
/// at the same times as the plain policy, for every trigger (jitter and caps included).
#[test]
fn r_max_one_is_plain_assembly_burst_for_burst() {
    for base in bases() {
        for cap in [u32::MAX, 5] {
            for ack_every in [2, 4] {
                let s = script(2_000, ack_every, 11);
                let plain = drive(&base.config(), cap, &s);
                let ratio = drive(&AssemblerConfig::AckRatio { base, r_max: 1.0 }, cap, &s);
                assert!(plain.0.len() > 50);
                assert_eq!(plain, ratio, "{base:?} cap={cap}");
            }
        }
    }
}

/// A bidirectional TCP pair over a small OBS network with mixed-flow assembly, so that
/// each queue holds one flow's data and the other's ACKs.
fn two_way(assembly: &str, extra_obs: &str) -> String {
    format!(
        r#"
name = "two-way"
[sim]
duration = "20s"
seed = 3
trace = {{ bursts = true }}
[[node]]
name = "h1"
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
[[node]]
name = "h2"
kind = "host"
[[link]]
a = "h1"
b = "E1"
rate = "100Mb/s"
delay = "5ms"
[[link]]
a = "E2"
b = "h2"
rate = "100Mb/s"
delay = "5ms"
[[fibre]]
a = "E1"
b = "C1"
rate = "1Gb/s"
delay = "5ms"
[[fibre]]
a = "C1"
b = "E2"
rate = "1Gb/s"
delay = "5ms"
[obs]
assembly = {assembly}
classifier = "per_egress"
loss = {{ p = 0.02, scope = "per_path", applies_to = "all" }}
{extra_obs}
[[flow]]
type = "tcp"
src = "h1"
dst = "h2"
mss = "512B"
wm = 64
[[flow]]
type = "tcp"
src = "h2"
dst = "h1"
mss = "512B"
wm = 64
"#
    )
}

#[test]
fn r_max_one_is_plain_assembly_in_a_whole_simulation() {
    for asm in [
        r#"{ type = "timer", tb = "2ms" }"#,
        r#"{ type = "hybrid", tmax = "5ms", lmax = "20KB", lmin = "4KB" }"#,
    ] {
        let plain = run_toml(&two_way(asm, ""), None, None).unwrap();
        let with = asm.replace(" }", ", ack_ratio_max = 1.0 }");
        let ratio = run_toml(&two_way(&with, ""), None, None).unwrap();
        assert!(plain.burst_trace.len() > 1_000);
        let a = serde_json::to_string(&plain).unwrap();
        let b = serde_json::to_string(&ratio).unwrap();
        assert!(a == b, "R_MAX = 1 differs from plain assembly for {asm}");
    }
}

#[test]
fn r_max_zero_starves_tcp_and_intermediate_r_max_caps_every_burst() {
    let asm = r#"{ type = "timer", tb = "2ms", ack_ratio_max = 0.0 }"#;
    let r = run_toml(&two_way(asm, ""), None, None).unwrap();
    for f in &r.obs_flows {
        // No ACK ever crosses: only the first window (and its retransmissions) goes.
        assert_eq!(f.acks_in_bursts, 0, "{f:?}");
    }
    for f in &r.flows {
        // The initial window is delivered, then nothing: no ACK ever comes back.
        let delivered = (f.goodput_segps * f.measured_s).round();
        assert!(delivered <= 4.0, "{delivered} segments delivered");
    }
    // Light symmetric traffic: the two directions starve each other even at R_MAX =
    // 1/2. A burst may carry only as many ACKs as the other direction's data allows,
    // and that data is clocked by the ACKs held back: after the first windows every
    // queue holds only ACKs, and only retransmissions after timeouts let a few go.
    // "Starve": each flow gets under 2 % of what it gets with plain assembly (R_MAX =
    // 1) on the same network.
    let plain = run_toml(
        &two_way(r#"{ type = "timer", tb = "2ms" }"#, ""),
        None,
        None,
    )
    .unwrap();
    for r_max in ["0.3", "0.5"] {
        let asm = format!(r#"{{ type = "timer", tb = "2ms", ack_ratio_max = {r_max} }}"#);
        let r = run_toml(&two_way(&asm, ""), None, None).unwrap();
        for (f, p) in r.flows.iter().zip(&plain.flows) {
            assert!(
                f.goodput_segps < 0.02 * p.goodput_segps,
                "R_MAX {r_max}: {} vs plain {} segments/s",
                f.goodput_segps,
                p.goodput_segps
            );
        }
    }
    // With other traffic in the queues (a CBR stream each way) there is room for ACKs:
    // TCP runs, and the ACK share stays below R_MAX.
    let cbr = |a: &str, b: &str| {
        format!(
            "[[flow]]\ntype = \"cbr\"\nsrc = \"{a}\"\ndst = \"{b}\"\nrate = \"8Mb/s\"\npacket_size = \"250B\"\n"
        )
    };
    let asm = r#"{ type = "timer", tb = "2ms", ack_ratio_max = 0.3 }"#;
    let text = two_way(asm, "") + &cbr("h1", "h2") + &cbr("h2", "h1");
    let r = run_toml(&text, None, None).unwrap();
    for f in r.flows.iter().filter(|f| f.kind == "tcp") {
        assert!(f.goodput_segps > 50.0, "{f:?}");
    }
    let acks: u64 = r.obs_flows.iter().map(|f| f.acks_in_bursts).sum();
    let pkts: f64 = r
        .bursts
        .iter()
        .map(|q| q.mean_pkts * q.bursts_sent as f64)
        .sum();
    assert!(
        acks > 0 && acks as f64 <= 0.3 * pkts + 1e-6,
        "{acks} of {pkts}"
    );
}

#[test]
fn bad_ack_ratio_input_names_the_field() {
    let err = |asm: &str, extra: &str| run_toml(&two_way(asm, extra), None, None).unwrap_err();
    for r in ["-0.1", "1.5", "nan", "inf"] {
        let e = err(
            &format!(r#"{{ type = "timer", tb = "2ms", ack_ratio_max = {r} }}"#),
            "",
        );
        assert_eq!(e.field, "obs.assembly.ack_ratio_max", "{r}: {e}");
    }
    let e = err(
        r#"{ type = "timer", tb = "2ms", ack_ratio_max = 0.5 }"#,
        r#"ack_mode = "bypass""#,
    );
    assert_eq!(e.field, "obs.assembly.ack_ratio_max", "{e}");
    assert!(e.to_string().contains("bypass"), "{e}");
    // Bypass without an ACK ratio is fine; the ratio on window assembly is not a thing.
    assert!(run_toml(
        &two_way(
            r#"{ type = "timer", tb = "2ms" }"#,
            r#"ack_mode = "bypass""#
        ),
        None,
        None
    )
    .is_ok());
    let e = err(
        r#"{ type = "cwba", window = "mark", tmax = "5ms", ack_ratio_max = 0.5 }"#,
        "",
    );
    assert_eq!(e.field, "obs.assembly.ack_ratio_max", "{e}");
    // The base trigger is still validated under its own name.
    let e = err(r#"{ type = "timer", tb = 0, ack_ratio_max = 0.5 }"#, "");
    assert_eq!(e.field, "obs.assembly.tb", "{e}");
}
