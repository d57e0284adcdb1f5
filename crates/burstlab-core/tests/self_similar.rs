//! `[[flow]]` of type `self_similar` and `pareto_onoff` (docs/guide/workloads.md): the
//! world sends exactly the packet instants of the generator in `workload/onoff.rs`
//! (checked packet by packet against the generator built on its own), the same seed
//! gives bit-identical results, the long-run mean rate is rate × duty × sources within
//! a stated bound, the variance-time estimate of the aggregate's counts finds the target
//! Hurst parameter, and each bad value is refused naming its key.

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::units::SimTime;
use burstlab_core::workload::hurst::aggregated_variance;
use burstlab_core::workload::{alpha_for_hurst, SelfSimilar, SelfSimilarParams};
use burstlab_core::{memory, run_toml};

/// Two hosts on a 10 Gb/s link (never a bottleneck here) and one Pareto source.
fn scenario(duration: &str, flow: &str, extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
seed = 7
{extra}
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "10Gb/s"
delay = "1ms"
[[flow]]
src = "a"
dst = "b"
{flow}
"#
    )
}

/// 32 sources, H = 0.8, mean on and off 10 ms, 500 packets/s of 1000 B each while on
/// (4 Mb/s): 32 × 1/2 × 500 = 8 000 packets/s in all.
const SS: &str = r#"type = "self_similar"
sources = 32
hurst = 0.8
mean_on = "10ms"
mean_off = "10ms"
rate = "4Mb/s"
packet_size = "1000B"
"#;

fn params() -> SelfSimilarParams {
    SelfSimilarParams {
        sources: 32,
        alpha: alpha_for_hurst(0.8),
        mean_on_s: 0.01,
        mean_off_s: 0.01,
        gap: SimTime::from_ms(2),
    }
}

/// The generator of flow 0 of a run with seed 7, built on its own.
fn generator(p: SelfSimilarParams, start: SimTime) -> SelfSimilar {
    SelfSimilar::new(p, 7, 0, "flow/0/self_similar", start, "flow[0]").unwrap()
}

#[test]
fn the_world_sends_the_generators_instants_and_is_deterministic() {
    // Packets sent over [0.5 s, 2.5 s): the generator's instants in that window, built
    // on its own with the flow's start and substream (another start or stream would
    // give another count).
    let text = scenario(
        "3s",
        &format!("{SS}start = \"0.5s\"\nstop = \"2.5s\"\n"),
        "",
    );
    let a = run_toml(&text, None, None).unwrap();
    let mut g = generator(params(), SimTime::from_ms(500));
    let mut want = 0u64;
    while g.next_send().0 < SimTime::from_ms(2_500) {
        want += 1;
    }
    assert!(want > 10_000, "{want}");
    assert_eq!(a.flows[0].segments_sent, want);
    assert_eq!(a.flows[0].kind, "self_similar");
    // Same seed: bit-identical; another seed: other packets.
    let b = run_toml(&text, None, None).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let c = run_toml(&text, Some(8), None).unwrap();
    assert_ne!(a.flows[0].segments_sent, c.flows[0].segments_sent);
}

#[test]
fn a_long_run_sends_the_generators_count_at_the_configured_mean_rate() {
    // 100 s at 8 000 packets/s: the world's count equals the generator's exactly.
    let r = run_toml(&scenario("100s", SS, ""), None, None).unwrap();
    let mut g = generator(params(), SimTime::ZERO);
    let (mut n, mut early) = (0u64, 0u64);
    loop {
        let t = g.next_send().0;
        if t >= SimTime::from_secs(100) {
            break;
        }
        n += 1;
        // Sent early enough to arrive: 1 ms of delay, 0.8 us of transmission, and
        // (a generous) 100 us of queueing behind packets sent at nearly the same time.
        early += u64::from(t + SimTime::from_us(1_101) <= SimTime::from_secs(100));
    }
    assert_eq!(r.flows[0].segments_sent, n);
    let got = r.flows[0].segments_received;
    assert!(early <= got && got <= n, "{early} <= {got} <= {n}");

    // The mean over a long run, from the same generator (2^17 bins of 10 ms, 1 311 s).
    // Expected per bin: rate × duty × sources × 10 ms = 500 × 1/2 × 32 × 0.01 = 80.
    // For a second-order self-similar series the mean of n bins has variance
    // σ² n^(2H−2) (σ² the variance of one bin's count); a superposition of on/off
    // sources is only asymptotically so, and below its periods' time scale its block
    // variances fall faster (as 1/m), so σ n^(H−1) overstates the standard error:
    // five of those is a conservative bound. It is about 8 % here, far below the
    // +100 % a source counting both periods as on would give, or the −50 % of a
    // source sending at the mean rate only while on.
    let bins = 1usize << 17;
    let bin = SimTime::from_ms(10);
    let mut c = vec![0.0f64; bins];
    let mut g = generator(params(), SimTime::ZERO);
    loop {
        let i = (g.next_send().0.ps() / bin.ps()) as usize;
        if i >= bins {
            break;
        }
        c[i] += 1.0;
    }
    let n = bins as f64;
    let mean = c.iter().sum::<f64>() / n;
    let sd = (c.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    let bound = 5.0 * sd * n.powf(0.8 - 1.0);
    assert!(bound < 0.1 * 80.0, "bound {bound}");
    assert!(
        (mean - 80.0).abs() < bound,
        "mean {mean} per bin, bound {bound}"
    );

    // Its variance-time estimate of H (workload/hurst.rs). On 2^17 bins the
    // estimator's error is a few hundredths, biased low near H = 1 (Taqqu, Teverovsky
    // and Willinger, Fractals 1995); 0.1 leaves margin for the slow convergence of 32
    // sources and still excludes short-range dependence (H = 0.5: Poisson counts give
    // 0.5 within 0.05 with the same estimator, `workload/onoff.rs`).
    let h = aggregated_variance(&c);
    assert!((h - 0.8).abs() < 0.1, "estimated H {h}");
}

#[test]
fn pareto_onoff_is_one_source_at_its_duty_cycle() {
    // α = 2.5 (finite variance), mean on and off 10 ms, 1 000 packets/s while on:
    // 500 packets/s on average over 2 000 s (10^5 cycles). The on fraction's variance
    // over n cycles is ((1−p)² Var(on) + p² Var(off)) / (n E[cycle]²) = 0.1/n with
    // p = 1/2 and Var = xm² α/((α−1)²(α−2)) = 8e-5 s², E[cycle] = 20 ms: sd 0.001, that is
    // 1 packet/s. Five sd: 5 packets/s.
    let flow = r#"type = "pareto_onoff"
alpha = 2.5
mean_on = "10ms"
mean_off = "10ms"
rate = "8Mb/s"
packet_size = "1000B"
"#;
    let r = run_toml(&scenario("2000s", flow, ""), None, None).unwrap();
    assert_eq!(r.flows[0].kind, "pareto_onoff");
    let rate = r.flows[0].segments_sent as f64 / 2_000.0;
    assert!((rate - 500.0).abs() < 5.0, "{rate}");
}

#[test]
fn each_bad_value_names_its_key() {
    let err = |flow: &str| {
        ScenarioSpec::from_toml_str(&scenario("1s", flow, ""))
            .and_then(|s| s.resolve(None, None))
            .unwrap_err()
            .to_string()
    };
    let ss = |change: &str, drop: &str| {
        let mut s: String = SS
            .lines()
            .filter(|l| {
                let key = l.split(' ').next().unwrap_or("");
                key != drop && Some(key) != change.split(' ').next()
            })
            .map(|l| format!("{l}\n"))
            .collect();
        if !change.is_empty() {
            s += &format!("{change}\n");
        }
        s
    };
    for (change, drop, field) in [
        ("hurst = 0.5", "", "flow[0].hurst"),
        ("hurst = 1.0", "", "flow[0].hurst"),
        ("hurst = nan", "", "flow[0].hurst"),
        ("alpha = 2.0", "hurst", "flow[0].alpha"),
        ("alpha = 1.0", "hurst", "flow[0].alpha"),
        ("alpha = 1.5", "", "flow[0].alpha"), // both hurst and alpha
        ("", "hurst", "flow[0].hurst"),       // neither
        ("sources = 0", "", "flow[0].sources"),
        ("sources = 1000001", "", "flow[0].sources"),
        ("", "sources", "flow[0].sources"),
        ("mean_on = \"0s\"", "", "flow[0].mean_on"),
        ("", "mean_off", "flow[0].mean_off"),
        ("", "rate", "flow[0].rate"),
        ("segments = 10", "", "flow[0].segments"),
    ] {
        let e = err(&ss(change, drop));
        assert!(
            e.starts_with(&format!("{field}:")),
            "{change} / -{drop}: {e}"
        );
    }
    // A negative duration is refused by the parser, naming the key.
    let e = err(&ss("mean_off = \"-1s\"", ""));
    assert!(e.contains("mean_off"), "{e}");
    // pareto_onoff: alpha above 1; no sources or hurst.
    let po = "type = \"pareto_onoff\"\nmean_on = \"1ms\"\nmean_off = \"1ms\"\nrate = \"1Mb/s\"\n";
    assert!(err(&format!("{po}alpha = 1.0\n")).starts_with("flow[0].alpha:"));
    assert!(err(&format!("{po}sources = 3\n")).starts_with("flow[0].sources:"));
    assert!(err(&format!("{po}hurst = 0.7\n")).starts_with("flow[0].hurst:"));
    // Other UDP types refuse the Pareto keys.
    let cbr = "type = \"cbr\"\nrate = \"1Mb/s\"\n";
    assert!(err(&format!("{cbr}alpha = 1.5\n")).starts_with("flow[0].alpha:"));
}

#[test]
fn its_packets_and_state_are_in_the_estimates() {
    let spec = ScenarioSpec::from_toml_str(&scenario("100s", SS, "")).unwrap();
    let r = spec.resolve(None, None).unwrap();
    let ev = burstlab_core::events::estimate(&r);
    // 8 000 packets/s for 100 s: a send and one hop each, about 1.6e6 events.
    let pkts = ev.flows[0].packet_events;
    assert!((pkts / 1.6e6 - 1.0).abs() < 0.01, "{pkts}");
    let m = memory::estimate(&r);
    assert_eq!(m.generators.len(), 1);
    assert!(m.generators[0].1 > 32.0 * 64.0, "{:?}", m.generators);
    // 10^6 sources against a 64 MiB budget: refused naming `sources`.
    // (1 packet/s per source while on: 4 Gb/s on average, below the link's rate.)
    let big = SS
        .replace("sources = 32", "sources = 1000000")
        .replace("rate = \"4Mb/s\"", "rate = \"8kb/s\"");
    let text = scenario("1s", &big, "max_memory = \"64MiB\"");
    let e = run_toml(&text, None, None).unwrap_err().to_string();
    assert!(e.starts_with("flow[0].sources:"), "{e}");
}
