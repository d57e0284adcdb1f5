//! Reliability (issue 43): a run that would take far too long is refused before it
//! starts (`events::check` against `sim.max_events`) or stopped by the run-time guard;
//! settings that contradict each other are refused naming the field.

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::world::World;
use burstlab_core::{events, run_toml};
use std::time::Instant;

const BASE: &str = r#"
[sim]
duration = "DUR"
EXTRA
[[node]]
name = "a"
kind = "host"
[[node]]
name = "r"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "r"
rate = "10Mb/s"
delay = "1ms"
queue_pkts = 100
[[link]]
a = "r"
b = "b"
rate = "10Mb/s"
delay = "1ms"
queue_pkts = 100
"#;

fn scenario(dur: &str, extra: &str, flows: &str) -> String {
    format!(
        "{}{flows}",
        BASE.replace("DUR", dur).replace("EXTRA", extra)
    )
}

fn resolve(text: &str) -> burstlab_core::scenario::Resolved {
    ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap()
}

const ONOFF_PS: &str = r#"
[[flow]]
type = "onoff"
src = "a"
dst = "b"
rate = "1Mb/s"
mean_on = "1ps"
mean_off = "1ps"
"#;

#[test]
fn picosecond_on_off_periods_are_refused_at_once_naming_the_figure() {
    let t = Instant::now();
    let e = run_toml(&scenario("10s", "", ONOFF_PS), None, None)
        .unwrap_err()
        .to_string();
    assert!(t.elapsed().as_secs_f64() < 1.0, "took {:?}", t.elapsed());
    assert!(e.starts_with("flow[0].mean_on"), "{e}");
    assert!(e.contains("sim.max_events = 1.000e12"), "{e}");
    // 10 s / 2 ps of periods, two toggles per cycle: 1e13 toggles, and each on period
    // begins with a packet (send, two hops) and leaves a stale send: 3e13 events.
    assert!(e.contains("toggles on and off 1.000e13 times"), "{e}");
    assert!(e.contains("needs up to 3.000e13 events"), "{e}");
}

#[test]
fn the_estimate_bounds_the_events_a_run_handles() {
    let tcp = "[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nwm = 64\n";
    let cbr = "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"12Mb/s\"\n";
    let onoff = "[[flow]]\ntype = \"onoff\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"5Mb/s\"\n\
                 mean_on = \"10ms\"\nmean_off = \"30ms\"\n";
    for flows in [tcp, cbr, onoff, &format!("{tcp}{cbr}{onoff}")[..]] {
        let text = scenario("20s", "", flows);
        let est = events::estimate(&resolve(&text)).events;
        let ran = run_toml(&text, None, None).unwrap().events as f64;
        assert!(ran <= est, "{ran} events > estimate {est} for\n{flows}");
        // Not uselessly loose either: within 10x of the events run.
        assert!(
            est < 10.0 * ran,
            "estimate {est} vs {ran} events for\n{flows}"
        );
    }
}

#[test]
fn a_scenario_within_its_budget_runs_and_one_over_it_is_refused() {
    let cbr = "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"8Mb/s\"\n";
    let text = scenario("10s", "", cbr);
    let est = events::estimate(&resolve(&text)).events;
    // 1000 packets/s × 10 s × (send + 2 hops).
    assert!((30_000.0..31_000.0).contains(&est), "{est}");
    let low = scenario("10s", "max_events = 20000", cbr);
    let e = run_toml(&low, None, None).unwrap_err().to_string();
    assert!(e.starts_with("sim.max_events"), "{e}");
    assert!(e.contains("sim.max_events = 2.000e4"), "{e}");
    let ok = scenario("10s", "max_events = 40000", cbr);
    assert!(run_toml(&ok, None, None).is_ok());
}

#[test]
fn the_run_time_guard_stops_what_the_estimate_cannot_foresee() {
    // The estimate passes (max_events above it), the world is asked to stop earlier:
    // the guard stops it with an error naming the setting and the count.
    let cbr = "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"8Mb/s\"\n";
    let mut r = resolve(&scenario("20s", "", cbr));
    r.max_events = 20_000;
    let e = World::new(&r).unwrap().try_run().unwrap_err();
    assert_eq!(e.field, "sim.max_events");
    assert!(e.reason.contains("32768 events"), "{e}");
    // Within its budget the guard changes nothing.
    let full = World::new(&resolve(&scenario("20s", "", cbr)))
        .unwrap()
        .run();
    r.max_events = full.events;
    let same = World::new(&r).unwrap().try_run().unwrap();
    assert_eq!(same.events, full.events);
}

#[test]
fn max_events_is_validated() {
    let e = run_toml(&scenario("1s", "max_events = 10", ""), None, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("sim.max_events: must be at least 1000"),
        "{e}"
    );
    let e = run_toml(&scenario("1s", "max_events = -1", ""), None, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("sim.max_events"), "{e}");
    assert!(run_toml(&scenario("1s", "max_events = 1e12", ""), None, None).is_ok());
}

fn refused(extra: &str, flows: &str) -> String {
    run_toml(&scenario("10s", extra, flows), None, None)
        .unwrap_err()
        .to_string()
}

#[test]
fn contradicting_settings_are_refused_naming_the_field() {
    let tcp = "[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\n";
    let cases = [
        ("warmup = \"10s\"", "", "sim.warmup"),
        (
            "[sim.trace]\ncwnd = true\nstart = \"5s\"\nend = \"2s\"",
            tcp,
            "sim.trace.end",
        ),
        (
            "[sim.trace]\ncwnd = true\nstart = \"5s\"\nend = \"5s\"",
            tcp,
            "sim.trace.end",
        ),
        (
            "[sim.trace]\ncwnd = true\nend = \"0s\"",
            tcp,
            "sim.trace.end",
        ),
        (
            "[sim.trace]\ncwnd = true\nstart = \"12s\"",
            tcp,
            "sim.trace.start",
        ),
        (
            "",
            &format!("{tcp}start = \"3s\"\nstop = \"2s\"\n"),
            "flow[0].stop",
        ),
        (
            "",
            &format!("{tcp}min_rto = \"2s\"\nmax_rto = \"1s\"\n"),
            "flow[0].max_rto",
        ),
        (
            "",
            &format!("{tcp}init_rto = \"5s\"\nmax_rto = \"2s\"\n"),
            "flow[0].init_rto",
        ),
        (
            "",
            &format!("{tcp}wm = 4\ninit_cwnd = 8\n"),
            "flow[0].init_cwnd",
        ),
        (
            "",
            &format!("{tcp}segments = 10\ndrop_segments = [[20, 30]]\n"),
            "flow[0].drop_segments[0]",
        ),
        (
            "",
            &format!("{tcp}drop_segments = [[5, 3]]\n"),
            "flow[0].drop_segments[0]",
        ),
    ];
    for (extra, flows, field) in cases {
        let e = refused(extra, flows);
        assert!(
            e.starts_with(&format!("{field}:")),
            "{field} expected:\n{e}"
        );
    }
    // The same settings in order are accepted.
    for (extra, flows) in [
        (
            "[sim.trace]\ncwnd = true\nstart = \"2s\"\nend = \"5s\"",
            tcp,
        ),
        (
            "[sim.trace]\ncwnd = true\nstart = \"2s\"\nend = \"50s\"",
            tcp,
        ),
        (
            "",
            &format!("{tcp}wm = 8\ninit_cwnd = 8\nsegments = 30\ndrop_segments = [[20, 30]]\n"),
        ),
    ] {
        run_toml(&scenario("10s", extra, flows), None, None).unwrap();
    }
}

#[test]
fn the_estimate_of_a_large_scenario_is_linear() {
    // 20 000 hosts on one router, 10 000 flows: resolve + both estimates in seconds.
    let n = 10_000;
    let mut s = String::from("[sim]\nduration = \"1s\"\n[[node]]\nname = \"r\"\n");
    for i in 0..2 * n {
        s += &format!("[[node]]\nname = \"h{i}\"\nkind = \"host\"\n");
    }
    for i in 0..2 * n {
        s += &format!("[[link]]\na = \"h{i}\"\nb = \"r\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\nqueue_pkts = 10\n");
    }
    for i in 0..n {
        s += &format!("[[flow]]\nsrc = \"h{i}\"\ndst = \"h{}\"\n", n + i);
    }
    let spec = ScenarioSpec::from_toml_str(&s).unwrap();
    let t = Instant::now();
    let r = spec.resolve(None, None).unwrap();
    burstlab_core::preflight(&r).unwrap();
    let checked = t.elapsed().as_secs_f64();
    World::new(&r).unwrap();
    let took = t.elapsed().as_secs_f64();
    eprintln!("10^4 flows: resolve + estimates {checked:.3} s, + world {took:.3} s");
    assert!(
        took < 5.0,
        "resolve + estimates + world of 10^4 flows took {took:.2} s"
    );
}

#[test]
fn the_route_cache_gives_the_routes_of_a_search_per_flow() {
    use burstlab_core::scenario::{shortest_route, Router};
    // Random directed graphs with leaves (hosts with one link) and cores: every pair's
    // route equals the plain breadth-first search's, ties included.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for _ in 0..200 {
        let n = 2 + next(14) as usize;
        let mut adj = vec![Vec::new(); n];
        for _ in 0..next(3 * n as u64) {
            let (a, b) = (next(n as u64) as u32, next(n as u64) as u32);
            if a != b {
                adj[a as usize].push(b);
                if next(4) != 0 {
                    adj[b as usize].push(a); // mostly duplex
                }
            }
        }
        for v in adj.iter_mut() {
            v.sort_unstable();
            v.dedup();
        }
        let mut router = Router::new(&adj);
        for s in 0..n as u32 {
            for d in 0..n as u32 {
                if s != d {
                    assert_eq!(
                        router.route(s, d),
                        shortest_route(&adj, s, d),
                        "{adj:?} {s}->{d}"
                    );
                }
            }
        }
    }
}
