//! The resolved scenario as plain data (`Resolved::view`, `scenario/view.rs`): the
//! defaults the core applies and the routes it computes, as the exporters read them.

use burstlab_core::scenario::{assembly_view, ScenarioSpec, ScenarioView};
use burstlab_core::tcp::{Profile, TcpConfig, Variant};
use serde_json::Value;

/// Two hosts per side of an OBS line `E1 = C1 = C2 = E2` (yu §V's topology), plus a
/// second path `C1 = C3 = C2` one hop longer that the fewest-hops route must avoid.
fn line(obs: &str, flows: &str) -> ScenarioView {
    let text = format!(
        r#"
[sim]
duration = "1s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "u"
kind = "host"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "C1"
kind = "core"
[[node]]
name = "C3"
kind = "core"
[[node]]
name = "C4"
kind = "core"
[[node]]
name = "C2"
kind = "core"
[[node]]
name = "E2"
kind = "edge"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "E1"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "u"
b = "E1"
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "E2"
b = "d"
rate = "1Gb/s"
delay = "1ms"
queue_pkts = 50
[[fibre]]
a = "E1"
b = "C1"
rate = "10Gb/s"
delay = "1ms"
[[fibre]]
a = "C1"
b = "C3"
rate = "10Gb/s"
delay = "1ms"
[[fibre]]
a = "C3"
b = "C4"
rate = "10Gb/s"
delay = "1ms"
[[fibre]]
a = "C4"
b = "C2"
rate = "10Gb/s"
delay = "1ms"
[[fibre]]
a = "C1"
b = "C2"
length_km = 200
rate = "10Gb/s"
wavelengths = 4
[[fibre]]
a = "C2"
b = "E2"
rate = "10Gb/s"
delay = "1ms"
{obs}
{flows}
"#
    );
    ScenarioSpec::from_toml_str(&text)
        .unwrap()
        .resolve(None, None)
        .unwrap()
        .view()
}

const TCP: &str = "[[flow]]\nsrc = \"s\"\ndst = \"d\"\n";

#[test]
fn defaults_are_applied_and_routes_computed() {
    let v = line("", TCP);
    // [obs] absent but fibres present: its defaults, the 1 ms timer first.
    let o = v.obs.as_ref().expect("an OBS section");
    assert_eq!(o.assembly.kind, "timer");
    assert_eq!(o.assembly.tb, Some(0.001));
    assert_eq!(o.assembly.jitter, Some(0.0));
    assert_eq!(
        (o.classifier, o.ack_mode, o.scheduler, o.signalling),
        ("per_flow", "assemble", "laucvf", "jet")
    );
    assert_eq!(o.bcp_processing_s, 10e-6);
    assert_eq!(o.switch_setup_s, 5e-6);
    assert_eq!(o.max_pkts_per_burst, None);
    assert_eq!(o.contention.preemption, "none");
    assert!(o.contention.fdl_s.is_empty());
    // The fewest-hops route takes C1 = C2, not the detour through C3 and C4.
    let f = &v.flows[0];
    assert_eq!((f.name.as_str(), f.kind), ("flow0", "tcp"));
    assert_eq!(f.route, ["s", "E1", "C1", "C2", "E2", "d"]);
    assert_eq!(f.reverse_route, ["d", "E2", "C2", "C1", "E1", "s"]);
    // One OBS crossing each way, both with obs.assembly.
    let seg: Vec<_> = f
        .obs_segments
        .iter()
        .map(|s| {
            (
                s.direction,
                s.ingress.as_str(),
                s.egress.as_str(),
                s.path.len(),
            )
        })
        .collect();
    assert_eq!(
        seg,
        [("forward", "E1", "E2", 4), ("reverse", "E2", "E1", 4)]
    );
    assert!(f
        .obs_segments
        .iter()
        .all(|s| s.assembly_from == "obs.assembly"));
    assert_eq!(f.obs_segments[0].assembly, o.assembly);
    // The TCP sender's settings are the ns2 profile's Reno defaults.
    let t = f.tcp.as_ref().expect("a TCP flow");
    let want = TcpConfig::defaults(Variant::Reno, Profile::Ns2);
    assert_eq!((t.variant, t.profile), ("reno", "ns2"));
    assert_eq!(
        (t.mss, t.wm, t.init_ssthresh),
        (want.mss, want.wm, want.init_ssthresh)
    );
    assert_eq!(t.min_rto_s, want.min_rto.as_secs_f64());
    // Nodes, links and fibres: per direction, names not indices.
    let e1 = &v.nodes[2];
    assert_eq!((e1.name.as_str(), e1.kind), ("E1", "edge"));
    assert_eq!(e1.switch_setup_s, Some(5e-6));
    assert_eq!(e1.fabrics.len(), 1);
    assert_eq!(e1.fabrics[0].name, "default");
    assert_eq!(v.nodes[0].switch_setup_s, None);
    assert_eq!(v.links.len(), 6);
    assert_eq!(
        (v.links[4].from.as_str(), v.links[4].to.as_str()),
        ("E2", "d")
    );
    assert_eq!(v.links[4].queue_pkts, Some(50));
    assert_eq!(v.links[4].rate_bps, 1_000_000_000);
    let long = v.fibres.iter().find(|f| f.wavelengths == 4).unwrap();
    assert_eq!((long.from.as_str(), long.to.as_str()), ("C1", "C2"));
    // 200 km at 5 µs per km.
    assert!((long.delay_s - 1e-3).abs() < 1e-15, "{}", long.delay_s);
    assert_eq!(v.fibres.len(), 12);
}

#[test]
fn the_assembly_of_each_queue_follows_the_precedence_of_the_core() {
    let obs = r#"
[obs]
assembly = { type = "hybrid", tmax = "2ms", lmax = 9000 }
[[obs.class]]
assembly = { type = "length", max_pkts = 4 }
[[obs.class]]
name = "slow"
"#;
    let flows = "[[flow]]\nsrc = \"s\"\ndst = \"d\"\n\
                 assembly = { type = \"timer\", tb = \"250us\", ack_ratio_max = 0.5 }\n\
                 [[flow]]\nsrc = \"u\"\ndst = \"d\"\n\
                 [[flow]]\nsrc = \"u\"\ndst = \"d\"\nclass = 1\nname = \"late\"\n\
                 start = \"0.5s\"\nroute = [\"u\", \"E1\", \"C1\", \"C3\", \"C4\", \"C2\", \"E2\", \"d\"]\n";
    let v = line(obs, flows);
    let from: Vec<_> = v
        .flows
        .iter()
        .map(|f| f.obs_segments[0].assembly_from.as_str())
        .collect();
    assert_eq!(
        from,
        ["flow[0].assembly", "obs.class[0].assembly", "obs.assembly"]
    );
    let a = &v.flows[0].obs_segments[0].assembly;
    assert_eq!(
        (a.kind, a.tb, a.ack_ratio_max),
        ("timer", Some(250e-6), Some(0.5))
    );
    let b = &v.flows[1].obs_segments[0].assembly;
    assert_eq!((b.kind, b.max_pkts, b.max_bytes), ("length", Some(4), None));
    let c = &v.flows[2].obs_segments[0].assembly;
    assert_eq!(
        (c.kind, c.tmax, c.lmax, c.lmin),
        ("hybrid", Some(0.002), Some(9000), None)
    );
    // The explicit route is kept; the reverse one is still the fewest hops.
    let late = &v.flows[2];
    assert_eq!(late.route.len(), 8);
    assert_eq!(late.reverse_route, ["d", "E2", "C2", "C1", "E1", "u"]);
    assert_eq!((late.start_s, late.class), (0.5, 1));
    let o = v.obs.as_ref().unwrap();
    assert_eq!(o.classes[1].name, "slow");
    assert_eq!(o.classes[0].name, "class0");
}

#[test]
fn udp_flows_and_the_json_form() {
    let flows = "[[flow]]\ntype = \"onoff\"\nsrc = \"u\"\ndst = \"d\"\nrate = \"500Mb/s\"\n\
                 mean_on = \"10ms\"\nmean_off = \"990ms\"\n";
    let v = line("[obs]\nack_mode = \"bypass\"\n", flows);
    let f = &v.flows[0];
    assert_eq!(f.kind, "onoff");
    assert_eq!((f.rate_bps, f.packet_size), (Some(500_000_000), Some(1000)));
    assert_eq!((f.mean_on_s, f.mean_off_s), (Some(0.01), Some(0.99)));
    assert!(f.tcp.is_none());
    let j: Value = serde_json::to_value(&v).unwrap();
    assert_eq!(j["obs"]["assembly"]["type"], "timer");
    assert_eq!(j["obs"]["assembly"]["tb"], 0.001);
    // Keys that do not apply to a policy's type are left out, not null.
    assert!(j["obs"]["assembly"].get("tmax").is_none());
    assert_eq!(j["obs"]["ack_mode"], "bypass");
    assert_eq!(j["flows"][0]["type"], "onoff");
    assert_eq!(j["flows"][0]["route"][1], "E1");
    assert_eq!(j["flows"][0]["tcp"], Value::Null);
}

#[test]
fn an_assembly_table_is_valid_scenario_input() {
    // The view of a policy parses back into the same policy.
    for table in [
        "type = \"timer\"\ntb = \"3ms\"\njitter = 0.1",
        "type = \"length\"\nmax_bytes = 64000",
        "type = \"hybrid\"\ntmax = \"10ms\"\nlmax = 10000000\nlmin = 1000",
        "type = \"cwba\"\nwindow = \"estimator\"",
        "type = \"mcwba\"\ntmax = \"166.6ms\"",
        "type = \"ecwba\"",
        "type = \"length\"\nmax_pkts = 10\nack_ratio_max = 0.25",
    ] {
        let cfg = toml::from_str::<burstlab_core::scenario::AssemblySpec>(table)
            .unwrap()
            .resolve("a", u32::MAX)
            .unwrap();
        let back = toml::to_string(&serde_json::to_value(assembly_view(&cfg)).unwrap()).unwrap();
        let again = toml::from_str::<burstlab_core::scenario::AssemblySpec>(&back)
            .unwrap()
            .resolve("a", u32::MAX)
            .unwrap();
        assert_eq!(cfg, again, "{table} → {back}");
    }
}
