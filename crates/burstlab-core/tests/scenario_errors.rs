//! Bad input gets a clear error naming the field, never a panic.

use burstlab_core::run_toml;

const BASE: &str = r#"
[sim]
duration = "1s"
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
[[link]]
a = "r"
b = "b"
rate = "10Mb/s"
delay = "1ms"
"#;

fn err(extra: &str) -> String {
    match run_toml(&format!("{BASE}{extra}"), None, None) {
        Ok(_) => panic!("expected an error for:\n{extra}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_toml_is_reported() {
    let e = run_toml("[sim\nduration = 1", None, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("malformed TOML"), "{e}");
}

#[test]
fn unknown_variant_names_the_field() {
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nvariant = \"vegas\"\n");
    assert!(e.starts_with("flow[0].variant"), "{e}");
    assert!(e.contains("vegas"), "{e}");
}

#[test]
fn prr_recovery_needs_rfc_sack_and_not_bbr() {
    let f = "[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\n";
    let e = err(&format!("{f}variant = \"sack\"\nrecovery = \"prr\"\n"));
    assert!(
        e.starts_with("flow[0].recovery") && e.contains("profile"),
        "{e}"
    );
    let e = err(&format!("{f}profile = \"rfc\"\nrecovery = \"prr\"\n"));
    assert!(
        e.starts_with("flow[0].recovery") && e.contains("sack"),
        "{e}"
    );
    let e = err(&format!(
        "{f}profile = \"rfc\"\nvariant = \"sack\"\ncc = \"bbr\"\nrecovery = \"prr\"\n"
    ));
    assert!(
        e.starts_with("flow[0].recovery") && e.contains("bbr"),
        "{e}"
    );
    let e = err(&format!("{f}recovery = \"rate-halving\"\n"));
    assert!(
        e.starts_with("flow[0].recovery") && e.contains("prr"),
        "{e}"
    );
    let e = err(&format!(
        "{f}profile = \"rfc\"\ncubic_ssthresh = \"cwnd\"\n"
    ));
    assert!(
        e.starts_with("flow[0].cubic_ssthresh") && e.contains("cubic"),
        "{e}"
    );
    let e = err(&format!(
        "{f}variant = \"sack\"\ncc = \"cubic\"\ncubic_ssthresh = \"cwnd\"\n"
    ));
    assert!(
        e.starts_with("flow[0].cubic_ssthresh") && e.contains("rfc"),
        "{e}"
    );
}

#[test]
fn unknown_congestion_control_names_the_field_and_the_choices() {
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\ncc = \"bbr2\"\n");
    assert!(e.starts_with("flow[0].cc"), "{e}");
    assert!(
        e.contains("bbr2") && e.contains("aimd") && e.contains("cubic"),
        "{e}"
    );
    // BBR exists only under the rfc profile (ns-2.35 has none).
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\ncc = \"bbr\"\n");
    assert!(e.starts_with("flow[0].cc") && e.contains("rfc"), "{e}");
    // A known controller in a combination the ns2 profile cannot run names that field.
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\ncc = \"cubic\"\n");
    assert!(e.starts_with("flow[0].variant"), "{e}");
    // A TCP-only key on a UDP flow.
    let e = err(
        "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Mb/s\"\ncc = \"aimd\"\n",
    );
    assert!(e.starts_with("flow[0].cc"), "{e}");
}

#[test]
fn negative_rate_names_the_field() {
    let e = run_toml(
        &BASE.replacen("rate = \"10Mb/s\"", "rate = \"-5Mb/s\"", 1),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("link[0].rate"), "{e}");
    assert!(e.contains("positive"), "{e}");
}

#[test]
fn zero_mss_names_the_field() {
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nmss = 0\n");
    assert!(e.starts_with("flow[0].mss"), "{e}");
}

#[test]
fn unreachable_destination_names_the_field() {
    let s = format!("{BASE}[[node]]\nname = \"island\"\nkind = \"host\"\n[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"island\"\n");
    let e = run_toml(&s, None, None).unwrap_err().to_string();
    assert!(e.starts_with("flow[0].dst"), "{e}");
    assert!(e.contains("unreachable"), "{e}");
}

#[test]
fn explicit_route_through_missing_link_names_the_hop() {
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nroute = [\"a\", \"b\"]\n");
    assert!(e.starts_with("flow[0].route[1]"), "{e}");
}

#[test]
fn unknown_field_and_node_are_reported() {
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nwindow = 5\n");
    assert!(e.contains("window"), "{e}");
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"nowhere\"\ndst = \"b\"\n");
    assert!(e.starts_with("flow[0].src"), "{e}");
}

#[test]
fn bad_probability_and_delayed_ack() {
    let e = run_toml(
        &BASE.replacen("delay = \"1ms\"", "delay = \"1ms\"\nloss = 1.5", 1),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("link[0].loss"), "{e}");
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nb = 3\n");
    assert!(e.starts_with("flow[0].b"), "{e}");
}

#[test]
fn duration_must_be_positive_and_flow_to_router_rejected() {
    let e = run_toml(
        &BASE.replacen("duration = \"1s\"", "duration = 0", 1),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("sim.duration"), "{e}");
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"r\"\n");
    assert!(e.starts_with("flow[0].dst"), "{e}");
}

#[test]
fn json_data_errors_name_the_field_without_a_position() {
    let text = r#"{"sim": {"duration": 1}, "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "1e9s"}]}"#;
    let e = burstlab_core::run_json(text, None, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("link[0].delay: "), "{e}");
    assert!(!e.contains("at line"), "{e}");
    let e = burstlab_core::run_json("{\"sim\": ", None, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 1"),
        "syntax errors keep their position: {e}"
    );
}

/// Hardening findings (fuzzer, seed 2): a size given as a rate, and a wavelength count
/// that aborted the process allocating channel timelines.
#[test]
fn a_size_as_a_rate_and_absurd_wavelength_counts_are_rejected() {
    let e = err(r#"
[[flow]]
type = "cbr"
src = "a"
dst = "b"
rate = "10GB"
"#);
    assert!(
        e.starts_with("flow[0].rate") && e.contains("not a rate"),
        "{e}"
    );
    let obs = r#"
[sim]
duration = "1s"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "E2"
kind = "edge"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "E1"
rate = "10Mb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "b"
rate = "10Mb/s"
delay = "1ms"
[[fibre]]
a = "E1"
b = "E2"
rate = "1Gb/s"
delay = "1ms"
wavelengths = 4294967295
[[flow]]
type = "tcp"
src = "a"
dst = "b"
"#;
    let e = run_toml(obs, None, None).unwrap_err().to_string();
    assert!(
        e.starts_with("fibre[0].wavelengths") && e.contains("at most 4096"),
        "{e}"
    );
    let ok = obs.replace("4294967295", "4096");
    assert!(run_toml(&ok, None, None).is_ok());
}

/// An OBS scenario (two edges, one core) for the findings below; `{obs}` and `{flow}`
/// are appended to the `[obs]` section and to the one TCP flow.
fn obs_scenario(obs: &str, flow: &str) -> String {
    format!(
        r#"
[sim]
duration = "1s"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "C"
kind = "core"
[[node]]
name = "E2"
kind = "edge"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "E1"
rate = "10Mb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "b"
rate = "10Mb/s"
delay = "1ms"
[[fibre]]
a = "E1"
b = "C"
rate = "1Gb/s"
delay = "1ms"
loss = 0.1
[[fibre]]
a = "C"
b = "E2"
rate = "1Gb/s"
delay = "1ms"
[obs]
assembly = {{ type = "timer", tb = "1ms" }}
{obs}
[[flow]]
type = "tcp"
src = "a"
dst = "b"
{flow}
"#
    )
}

fn obs_err(obs: &str, flow: &str) -> String {
    match run_toml(&obs_scenario(obs, flow), None, None) {
        Ok(_) => panic!("expected an error for obs {obs:?}, flow {flow:?}"),
        Err(e) => e.to_string(),
    }
}

/// Hardening: settings that were accepted and silently ignored are now rejected.
#[test]
fn settings_that_would_be_ignored_are_rejected() {
    // The scenario itself is fine with per-link loss.
    run_toml(&obs_scenario("", ""), None, None).unwrap();
    // A fibre's own loss under per-path loss.
    let e = obs_err("loss = { p = 0.01, scope = \"per_path\" }", "");
    assert!(
        e.starts_with("fibre[0].loss") && e.contains("per_link"),
        "{e}"
    );
    // A flow's own assembly under a shared classifier.
    let e = obs_err(
        "classifier = \"per_egress\"",
        "assembly = { type = \"timer\", tb = \"2ms\" }",
    );
    assert!(
        e.starts_with("flow[0].assembly") && e.contains("per_egress"),
        "{e}"
    );
    // ...which is fine with per-flow queues.
    run_toml(
        &obs_scenario("", "assembly = { type = \"timer\", tb = \"2ms\" }"),
        None,
        None,
    )
    .unwrap();
    // Headers so large that the packet size would wrap.
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nheader_bytes = 4294967295\n");
    assert!(e.starts_with("flow[0].header_bytes"), "{e}");
    // An explicit route that loops.
    let e = obs_err(
        "",
        "route = [\"a\", \"E1\", \"C\", \"E1\", \"C\", \"E2\", \"b\"]",
    );
    assert!(
        e.starts_with("flow[0].route[3]") && e.contains("'E1' twice"),
        "{e}"
    );
    // The jitter of a timer is named as the user wrote it.
    let e = obs_err(
        "",
        "assembly = { type = \"timer\", tb = \"2ms\", jitter = -1 }",
    );
    assert!(e.starts_with("flow[0].assembly.jitter:"), "{e}");
}

#[test]
fn flows_to_obs_nodes_name_the_node_kind() {
    let text = obs_scenario("", "").replace("dst = \"b\"", "dst = \"E2\"");
    let e = run_toml(&text, None, None).unwrap_err().to_string();
    assert!(
        e.starts_with("flow[0].dst") && e.contains("an OBS edge node"),
        "{e}"
    );
}

/// Hardening: quantities that size memory or event rates are bounded at validation.
#[test]
fn quantities_that_size_memory_or_event_rates_are_bounded() {
    let cbr = |rate: &str| {
        err(&format!(
            "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"{rate}\"\n"
        ))
    };
    let e = cbr("1e30b/s");
    assert!(e.starts_with("flow[0].rate") && e.contains("1 Pb/s"), "{e}");
    let e = cbr("1e15b/s");
    assert!(
        e.starts_with("flow[0].rate") && e.contains("1e9 packets"),
        "{e}"
    );
    let e = err("[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\ninit_rto = \"1ps\"\n");
    assert!(e.starts_with("flow[0].init_rto"), "{e}");
    let e = run_toml(
        &BASE.replacen("duration = \"1s\"", "duration = 18446740", 1),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("sim.duration") && e.contains("10000000 s"),
        "{e}"
    );
    let e = run_toml(
        &BASE.replacen(
            "duration = \"1s\"",
            "duration = \"1s\"\nmax_memory = \"1KiB\"",
            1,
        ),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("sim.max_memory"), "{e}");
}

/// Hardening: a source far faster than its unlimited queue drains used to grow until
/// the allocator aborted the process; now the run stops at `sim.max_memory` with an
/// error that names the setting, the link and the fix. (`run_toml` refuses this
/// scenario before it runs, from the memory estimate — see `tests/memory_traces.rs`;
/// the world is run directly here to test the run-time guard behind the estimate.)
#[test]
fn an_overloaded_unlimited_queue_stops_at_the_memory_budget() {
    let text = BASE.replacen(
        "duration = \"1s\"",
        "duration = \"1000s\"\nmax_memory = \"16MiB\"",
        1,
    ) + "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Gb/s\"\n";
    let estimated = run_toml(&text, None, None).unwrap_err().to_string();
    assert!(estimated.starts_with("link[0].queue_pkts: "), "{estimated}");
    let r = burstlab_core::scenario::ScenarioSpec::from_toml_str(&text)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    let e = burstlab_core::world::World::new(&r)
        .unwrap()
        .try_run()
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("sim.max_memory: the run needs more than"),
        "{e}"
    );
    assert!(e.contains("link a->r") && e.contains("queue_pkts"), "{e}");
    // With a queue limit the same overload runs to its end.
    let text = text.replace(
        "delay = \"1ms\"\n[[link]]",
        "delay = \"1ms\"\nqueue_pkts = 100\n[[link]]",
    );
    let r = run_toml(&text.replace("1000s", "2s"), None, None).unwrap();
    assert!(r.links[0].drops_queue > 0);
}

/// Hardening: with time near the end of the clock's range, backed-off timers used to
/// wrap into the past and the run never ended. Time arithmetic saturates now; the
/// longest allowed run with a flow starting near its end finishes.
#[test]
fn timers_near_the_end_of_the_clock_do_not_wrap() {
    let text = BASE
        .replacen("duration = \"1s\"", "duration = 10000000", 1)
        .replacen("delay = \"1ms\"", "delay = \"1ms\"\nloss_ab = 1.0", 1)
        + "[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nstart = 9999000\nmax_rto = 100000\n";
    let r = run_toml(&text, None, None).unwrap();
    assert_eq!(r.flows[0].segments_delivered, 0);
    // And the clock itself: a sum past its range saturates instead of wrapping.
    use burstlab_core::units::SimTime;
    assert_eq!(SimTime::MAX + SimTime::from_secs(1), SimTime::MAX);
}

#[test]
fn ns2_agent_switches_need_the_ns2_profile_and_a_valid_clock_phase() {
    let tcp = "[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\n";
    for key in [
        "syn = false",
        "limited_transmit = false",
        "precision_reduce = false",
        "bug_fix = false",
        "newreno_changes1 = false",
        "partial_window_deflation = false",
        "sack_partial_ack = true",
        "clock_phase = \"1ms\"",
    ] {
        let e = err(&format!("{tcp}profile = \"rfc\"\n{key}\n"));
        let name = key.split(' ').next().unwrap();
        assert!(e.starts_with(&format!("flow[0].{name}")), "{e}");
        assert!(e.contains("profile = \"ns2\""), "{e}");
        // Accepted under the ns2 profile.
        run_toml(
            &format!("{BASE}{tcp}profile = \"ns2\"\n{key}\n"),
            None,
            None,
        )
        .unwrap();
    }
    let e = err(&format!("{tcp}clock_phase = \"10ms\"\n"));
    assert!(
        e.starts_with("flow[0].clock_phase") && e.contains("below clock_granularity"),
        "{e}"
    );
    let e = err(&format!("{tcp}clock_granularity = \"0s\"\n"));
    assert!(e.starts_with("flow[0].clock_granularity"), "{e}");
    // UDP flows reject TCP-only keys.
    let e =
        err("[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Mb/s\"\nsyn = true\n");
    assert!(e.contains("syn"), "{e}");
}

/// A BBR flow under the rfc profile runs, paces, delivers, and is deterministic.
#[test]
fn bbr_flow_runs_under_rfc() {
    let toml = format!(
        "{BASE}[[flow]]\ntype = \"tcp\"\nsrc = \"a\"\ndst = \"b\"\nprofile = \"rfc\"\n\
         variant = \"sack\"\ncc = \"bbr\"\nwm = 200\n"
    );
    let a = run_toml(&toml, None, None).expect("bbr runs");
    let b = run_toml(&toml, None, None).expect("bbr runs");
    assert_eq!(a.events, b.events);
    let (fa, fb) = (&a.flows[0], &b.flows[0]);
    assert_eq!(fa.cc, "bbr");
    assert_eq!(fa.goodput_bps.to_bits(), fb.goodput_bps.to_bits());
    // 10 Mb/s path, 4 ms RTT, 1 s: BBR fills most of the pipe after STARTUP.
    assert!(fa.goodput_bps > 5e6, "{}", fa.goodput_bps);
}
