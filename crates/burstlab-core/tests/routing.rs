//! Routing chosen by the simulator (`[routing]`, a flow's `routing`): the metrics, Yen's
//! k shortest paths with their per-flow policies, explicit routes winning, the errors,
//! and the `routes` table. The property test against networkx is tests/test_routing.py.

use burstlab_core::scenario::{shortest_route, Graph, Resolved, ScenarioSpec};
use burstlab_core::stats::RouteRow;

fn resolve(text: &str) -> Result<Resolved, String> {
    ScenarioSpec::from_toml_str(text)
        .and_then(|s| s.resolve(None, None))
        .map_err(|e| e.to_string())
}

fn names(r: &Resolved, p: &[u32]) -> Vec<String> {
    p.iter().map(|&n| r.nodes[n as usize].0.clone()).collect()
}

/// Cores C0..C4: C0–C1–C3 is two hops of 100 km each; C0–C2–C4–C3 three hops of 50 km
/// (150 km, but more hops); C0–C1 has the shortest `delay`-free route. Hosts H0 (via E0
/// at C0) and H3 (via E3 at C3). `routing` is spliced in at the top, `flows` at the end.
fn mesh(routing: &str, flows: &str) -> String {
    format!(
        r#"
[sim]
duration = "200ms"
{routing}
[[node]]
name = "C0"
kind = "core"
[[node]]
name = "C1"
kind = "core"
[[node]]
name = "C2"
kind = "core"
[[node]]
name = "C3"
kind = "core"
[[node]]
name = "C4"
kind = "core"
[[node]]
name = "E0"
kind = "edge"
[[node]]
name = "E3"
kind = "edge"
[[node]]
name = "H0"
kind = "host"
[[node]]
name = "H3"
kind = "host"
[[link]]
a = "H0"
b = "E0"
rate = "1Gb/s"
delay = "1us"
[[link]]
a = "H3"
b = "E3"
rate = "1Gb/s"
delay = "1us"
[[fibre]]
a = "E0"
b = "C0"
rate = "1Gb/s"
length_km = 0
wavelengths = 4
[[fibre]]
a = "E3"
b = "C3"
rate = "1Gb/s"
length_km = 0
wavelengths = 4
[[fibre]]
a = "C0"
b = "C1"
rate = "1Gb/s"
length_km = 100
wavelengths = 4
[[fibre]]
a = "C1"
b = "C3"
rate = "1Gb/s"
length_km = 100
wavelengths = 4
[[fibre]]
a = "C0"
b = "C2"
rate = "1Gb/s"
length_km = 50
wavelengths = 4
[[fibre]]
a = "C2"
b = "C4"
rate = "1Gb/s"
length_km = 50
wavelengths = 4
[[fibre]]
a = "C4"
b = "C3"
rate = "1Gb/s"
length_km = 50
wavelengths = 4
{flows}
"#
    )
}

fn tcp_flows(n: usize, extra: &str) -> String {
    (0..n)
        .map(|i| {
            format!(
                "[[flow]]\nname = \"f{i}\"\nsrc = \"H0\"\ndst = \"H3\"\nsegments = 20\n{extra}\n"
            )
        })
        .collect()
}

const HOPS: [&str; 6] = ["H0", "E0", "C0", "C1", "C3", "E3"];
const KM: [&str; 7] = ["H0", "E0", "C0", "C2", "C4", "C3", "E3"];

fn with_h3(p: &[&str]) -> Vec<String> {
    p.iter()
        .map(|s| s.to_string())
        .chain(["H3".into()])
        .collect()
}

#[test]
fn the_default_is_fewest_hops_and_km_takes_the_shorter_fibres() {
    let r = resolve(&mesh("", &tcp_flows(1, ""))).unwrap();
    assert_eq!(names(&r, &r.flows[0].route), with_h3(&HOPS));
    let r = resolve(&mesh("[routing]\nmetric = \"km\"", &tcp_flows(1, ""))).unwrap();
    assert_eq!(names(&r, &r.flows[0].route), with_h3(&KM));
    let mut back = with_h3(&KM);
    back.reverse();
    assert_eq!(names(&r, &r.flows[0].reverse_route), back);
    // Delay follows km here (5 µs/km; the access links are equal).
    let r = resolve(&mesh("[routing]\nmetric = \"delay\"", &tcp_flows(1, ""))).unwrap();
    assert_eq!(names(&r, &r.flows[0].route), with_h3(&KM));
    // A flow's own key overrides [routing].
    let r = resolve(&mesh(
        "[routing]\nmetric = \"km\"",
        &tcp_flows(1, "routing = { metric = \"hops\" }"),
    ))
    .unwrap();
    assert_eq!(names(&r, &r.flows[0].route), with_h3(&HOPS));
}

#[test]
fn explicit_routes_win_over_routing_keys() {
    let route = r#"route = ["H0", "E0", "C0", "C1", "C3", "E3", "H3"]"#;
    let r = resolve(&mesh(
        "[routing]\nmetric = \"km\"\nk = 2\npolicy = \"round_robin\"",
        &tcp_flows(1, route),
    ))
    .unwrap();
    assert_eq!(names(&r, &r.flows[0].route), with_h3(&HOPS));
    assert_eq!(r.flows[0].routing.index, None);
    // The reverse route, not given, is still chosen by the policy (the km path back).
    let mut back = with_h3(&KM);
    back.reverse();
    assert_eq!(names(&r, &r.flows[0].reverse_route), back);
}

#[test]
fn round_robin_cycles_through_the_k_paths_of_a_pair() {
    let r = resolve(&mesh(
        "[routing]\nmetric = \"km\"\nk = 2\npolicy = \"round_robin\"",
        &tcp_flows(5, ""),
    ))
    .unwrap();
    let got: Vec<_> = r.flows.iter().map(|f| names(&r, &f.route)).collect();
    for (i, g) in got.iter().enumerate() {
        let want = if i % 2 == 0 {
            with_h3(&KM)
        } else {
            with_h3(&HOPS)
        };
        assert_eq!(*g, want, "flow {i}");
        assert_eq!(r.flows[i].routing.index, Some((i % 2) as u32));
        assert_eq!(r.flows[i].routing.paths, 2);
        // The ACKs take the same-ranked path back.
        let mut back = want.clone();
        back.reverse();
        assert_eq!(names(&r, &r.flows[i].reverse_route), back);
    }
    // The mesh has exactly two loop-free core paths: k = 5 finds two.
    let r = resolve(&mesh(
        "[routing]\nk = 5\npolicy = \"round_robin\"",
        &tcp_flows(3, ""),
    ))
    .unwrap();
    assert_eq!(r.flows[2].routing.paths, 2);
    assert_eq!(r.flows[2].routing.index, Some(0));
}

#[test]
fn least_loaded_alternates_on_equal_loads_and_counts_explicit_routes() {
    let r = resolve(&mesh(
        "[routing]\nk = 2\npolicy = \"least_loaded\"",
        &tcp_flows(4, ""),
    ))
    .unwrap();
    let idx: Vec<_> = r.flows.iter().map(|f| f.routing.index.unwrap()).collect();
    assert_eq!(idx, [0, 1, 0, 1]);
    // An explicit flow on the fewest-hops path loads it: the next flow avoids it.
    let explicit = r#"[[flow]]
src = "H0"
dst = "H3"
segments = 20
route = ["H0", "E0", "C0", "C1", "C3", "E3", "H3"]
"#;
    let text = mesh(
        "[routing]\nk = 2\npolicy = \"least_loaded\"",
        &format!("{explicit}{}", tcp_flows(1, "")),
    );
    let r = resolve(&text).unwrap();
    assert_eq!(names(&r, &r.flows[1].route), with_h3(&KM));
}

#[test]
fn random_draws_from_its_own_substream() {
    let pick = |seed: u64| -> Vec<u32> {
        let text = mesh("[routing]\nk = 2\npolicy = \"random\"", &tcp_flows(40, ""));
        let r = ScenarioSpec::from_toml_str(&text)
            .unwrap()
            .resolve(Some(seed), None)
            .unwrap();
        r.flows.iter().map(|f| f.routing.index.unwrap()).collect()
    };
    let a = pick(1);
    assert_eq!(a, pick(1), "same seed, same routes");
    assert_ne!(a, pick(2), "another seed draws other routes");
    let ones = a.iter().filter(|&&j| j == 1).count();
    assert!(
        (8..=32).contains(&ones),
        "40 fair draws gave {ones} second paths"
    );
}

#[test]
fn errors_name_the_field() {
    let err =
        |routing: &str, extra: &str| resolve(&mesh(routing, &tcp_flows(2, extra))).unwrap_err();
    let e = err("[routing]\nk = 0", "");
    assert!(e.starts_with("routing.k:"), "{e}");
    let e = err("", "routing = { k = 65 }");
    assert!(e.starts_with("flow[0].routing.k:"), "{e}");
    let e = err("[routing]\npolicy = \"busiest\"", "");
    assert!(e.starts_with("routing.policy"), "{e}");
    // km on a fibre that gives only its delay names the fibre and the key that asked.
    let text = mesh("", &tcp_flows(1, "routing = { metric = \"km\" }")).replacen(
        "length_km = 50\n",
        "delay = \"250us\"\n",
        1,
    );
    let e = resolve(&text).unwrap_err();
    assert!(
        e.starts_with("fibre[4].length_km:") && e.contains("flow[0].routing.metric"),
        "{e}"
    );
    // A pair with no route names the flow.
    let lone = "[[node]]\nname = \"H9\"\nkind = \"host\"\n[[flow]]\nsrc = \"H0\"\ndst = \"H9\"\n";
    let e = resolve(&mesh("[routing]\nmetric = \"km\"", lone)).unwrap_err();
    assert!(e.starts_with("flow[0].dst: unreachable"), "{e}");
}

/// Routes by hops through `ksp.rs` equal the breadth-first search of every scenario
/// before routing keys existed: same lexicographic tie order.
#[test]
fn least_hops_path_equals_the_breadth_first_search() {
    let mut rng = burstlab_core::rng::RngStream::derive(7, 0, "routing-test");
    for case in 0..300 {
        let n = 3 + (rng.next_u64() % 12) as usize;
        let p = 0.15 + 0.4 * rng.uniform();
        let mut arcs = Vec::new();
        let mut adj = vec![Vec::new(); n];
        for a in 0..n as u32 {
            for b in 0..n as u32 {
                if a != b && rng.uniform() < p {
                    arcs.push((a, b, 1));
                    adj[a as usize].push(b);
                }
            }
        }
        let g = Graph::new(n, arcs);
        for s in 0..n as u32 {
            for d in 0..n as u32 {
                if s != d {
                    assert_eq!(
                        g.best(s, d),
                        shortest_route(&adj, s, d),
                        "case {case}: {s}→{d}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_routes_table_lists_every_flow() {
    let text = mesh(
        "[routing]\nmetric = \"km\"\nk = 2\npolicy = \"round_robin\"",
        &tcp_flows(2, ""),
    );
    let spec = ScenarioSpec::from_toml_str(&text).unwrap();
    let res = burstlab_core::run_spec(&spec, None, None).unwrap();
    let rows: &[RouteRow] = &res.routes;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].route, "H0>E0>C0>C2>C4>C3>E3>H3");
    assert_eq!(rows[1].route, "H0>E0>C0>C1>C3>E3>H3");
    assert_eq!(rows[1].reverse_route, "H3>E3>C3>C1>C0>E0>H0");
    assert_eq!((rows[0].hops, rows[1].hops), (7, 6));
    assert_eq!((rows[0].km, rows[1].km), (150.0, 200.0));
    // 2 µs of access links plus 5 µs per km.
    assert!((rows[0].delay_s - (2e-6 + 150.0 * 5e-6)).abs() < 1e-12);
    assert_eq!(
        (rows[0].metric, rows[0].policy, rows[0].k),
        ("km", "round_robin", 2)
    );
    assert_eq!(
        (rows[0].path, rows[1].path, rows[1].paths),
        (Some(0), Some(1), 2)
    );
    // Both transfers complete on their different paths.
    for f in &res.flows {
        assert!(f.segments_delivered >= 20, "{f:?}");
    }
    let t = res.tables();
    assert!(t.iter().any(|x| x.name == "routes"));
}

/// Every golden scenario keeps its routes: resolved with the default routing, each flow
/// without an explicit route has the breadth-first fewest-hops route.
#[test]
fn golden_scenarios_keep_their_routes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/scenarios");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = ScenarioSpec::from_toml_str(&text).unwrap();
        let r = spec.resolve(None, None).unwrap();
        let mut adj = vec![Vec::new(); r.nodes.len()];
        for l in &r.links {
            adj[l.from as usize].push(l.to);
        }
        for f in &r.fibres {
            adj[f.from as usize].push(f.to);
        }
        for v in adj.iter_mut() {
            v.sort_unstable();
            v.dedup();
        }
        for (i, (f, fs)) in r.flows.iter().zip(&spec.flows).enumerate() {
            if fs.route.is_none() {
                assert_eq!(
                    Some(f.route.clone()),
                    shortest_route(&adj, f.src, f.dst),
                    "{path:?} flow {i}"
                );
                seen += 1;
            }
            if fs.reverse_route.is_none() {
                assert_eq!(
                    Some(f.reverse_route.clone()),
                    shortest_route(&adj, f.dst, f.src)
                );
            }
        }
    }
    assert!(seen > 0);
}
