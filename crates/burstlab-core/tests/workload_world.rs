//! Flows generated inside the core (`[[workload]]`, `world/workloads.rs`): the same seed
//! gives the same `fct` table bit for bit and another seed another; every arrival
//! leaves one row, completed or not; the flows follow the pair and size sequence of the
//! `Workload` generator drawn alone; slots are reused, so a light load keeps few of
//! them; one fixed arrival completes exactly as the same flow listed in `[[flow]]`; bad
//! input is refused before anything runs, naming the field.

use burstlab_core::run_toml;
use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::stats::FctRow;
use burstlab_core::units::SimTime;
use burstlab_core::workload::{Arrivals, Pairs, SizeDist, Workload};
use burstlab_core::world::World;

/// Hosts S1, S2 –(100 Mb/s, 1 ms)– R1 –(`core`, 5 ms, 50 packets)– R2 –(100 Mb/s, 1 ms)–
/// D1, D2, and the tables `extra` (workloads, flows).
fn net(core: &str, duration: &str, extra: &str) -> String {
    let mut s = format!(
        "[sim]\nduration = \"{duration}\"\n\
         [[node]]\nname = \"R1\"\n[[node]]\nname = \"R2\"\n\
         [[link]]\na = \"R1\"\nb = \"R2\"\nrate = \"{core}\"\ndelay = \"5ms\"\nqueue_pkts = 50\n"
    );
    for h in ["S1", "S2"] {
        s += &format!(
            "[[node]]\nname = \"{h}\"\nkind = \"host\"\n\
             [[link]]\na = \"{h}\"\nb = \"R1\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n"
        );
    }
    for h in ["D1", "D2"] {
        s += &format!(
            "[[node]]\nname = \"{h}\"\nkind = \"host\"\n\
             [[link]]\na = \"R2\"\nb = \"{h}\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n"
        );
    }
    s + extra
}

const WEB: &str = r#"
[[workload]]
name = "web"
src = ["S1", "S2"]
dst = ["D1", "D2"]
arrivals = "poisson"
rate = "40/s"
size = { type = "pareto", shape = 1.2, lower = "2KB", upper = "2MB" }
variant = "sack"
mss = "1000B"
"#;

fn fct(text: &str, seed: Option<u64>) -> Vec<FctRow> {
    run_toml(text, seed, None).unwrap().fct
}

fn key(r: &FctRow) -> String {
    format!("{r:?}")
}

#[test]
fn same_seed_same_table_other_seed_other() {
    // About 100 % of a 3 Mb/s core: its 50-packet queue overflows.
    let t = net("3Mb/s", "5s", WEB);
    let a = fct(&t, Some(1));
    let b = fct(&t, Some(1));
    assert!(a.len() > 100, "{} rows", a.len());
    assert_eq!(
        a.iter().map(key).collect::<Vec<_>>(),
        b.iter().map(key).collect::<Vec<_>>()
    );
    let c = fct(&t, Some(2));
    assert_ne!(
        a.iter().map(key).collect::<Vec<_>>(),
        c.iter().map(key).collect::<Vec<_>>()
    );
    // The heavy load loses packets: some flows retransmit.
    assert!(a.iter().any(|r| r.retransmits > 0));
}

/// The generator drawn alone, with the arrivals before `end`.
fn drawn(seed: u64, end: SimTime) -> Vec<(SimTime, u32, u32, u64)> {
    // Node indices: R1 0, R2 1, S1 2, S2 3, D1 4, D2 5 (`net`'s order).
    let mut w = Workload::new(
        "web",
        seed,
        0,
        Arrivals::poisson(40.0, SimTime::ZERO, "r").unwrap(),
        SizeDist::pareto(1.2, 2000.0, Some(2e6), "s").unwrap(),
        Pairs::uniform(vec![2, 3], vec![4, 5], "p").unwrap(),
    );
    let mut v = Vec::new();
    while let Some(a) = w.next_flow() {
        if a.at >= end {
            break;
        }
        v.push((a.at, a.src, a.dst, a.size));
    }
    v
}

#[test]
fn every_arrival_leaves_one_row_with_the_drawn_pair_and_size() {
    let t = net("20Mb/s", "5s", WEB);
    let mut rows = fct(&t, Some(3));
    let want = drawn(3, SimTime::from_secs(5));
    assert_eq!(rows.len(), want.len(), "one row per arrival");
    let done = rows.iter().filter(|r| r.completed).count();
    assert!(done > 0 && done < rows.len(), "{done} of {}", rows.len());
    rows.sort_by_key(|r| r.flow);
    let name = ["R1", "R2", "S1", "S2", "D1", "D2"];
    for (i, (r, w)) in rows.iter().zip(&want).enumerate() {
        assert_eq!(r.name, format!("web#{i}"));
        assert_eq!(r.workload, "web");
        assert_eq!(r.start_s, w.0.as_secs_f64());
        assert_eq!(
            (r.src.as_str(), r.dst.as_str()),
            (name[w.1 as usize], name[w.2 as usize])
        );
        assert_eq!(r.size_bytes, w.3);
        assert_eq!(r.size_segments, w.3.div_ceil(1000));
        if r.completed {
            assert_eq!(r.segments_delivered, r.size_segments);
            assert!(r.fct_s > 0.0 && r.slowdown >= 1.0 - 1e-9, "{r:?}");
        } else {
            assert!(r.end_s.is_nan() && r.fct_s.is_nan());
        }
    }
}

#[test]
fn slots_are_reused_under_a_light_load() {
    // 20 flows of 10 KB per second on 100 Mb/s: each lasts a few round trips.
    let w = WEB.replace("rate = \"40/s\"", "rate = \"20/s\"").replace(
        "size = { type = \"pareto\", shape = 1.2, lower = \"2KB\", upper = \"2MB\" }",
        "size = \"10KB\"",
    );
    let t = net("100Mb/s", "60s", &w);
    let r = ScenarioSpec::from_toml_str(&t)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    let mut world = World::new(&r).unwrap();
    world.run_until_end();
    let (peak, arrivals) = world.generated_peak_and_arrivals();
    assert!(arrivals > 1000, "{arrivals}");
    assert!(peak < 20, "peak {peak} slots for {arrivals} arrivals");
    let res = world.into_result();
    assert_eq!(res.fct.len() as u64, arrivals);
    // A flow takes 57 ms alone: only those of the last moments are still running.
    for r in &res.fct {
        assert!(r.completed || r.start_s > 59.5, "{r:?}");
    }
    // Generated flows have no row in `flows` (the table of the listed flows).
    assert!(res.flows.is_empty());
}

#[test]
fn one_fixed_arrival_completes_as_the_same_listed_flow() {
    let tcp = "variant = \"newreno\"\nmss = \"1000B\"\nclock_phase = \"5ms\"\n";
    let wl = format!(
        "[[workload]]\nname = \"one\"\nsrc = [\"S1\"]\ndst = [\"D2\"]\narrivals = \"fixed\"\n\
         rate = \"1/s\"\nstart = \"1s\"\nmax_flows = 1\nsize = \"300KB\"\n{tcp}"
    );
    let listed =
        format!("[[flow]]\nsrc = \"S1\"\ndst = \"D2\"\nstart = \"1s\"\nsegments = 300\n{tcp}");
    let g = fct(&net("10Mb/s", "20s", &wl), None);
    let l = fct(&net("10Mb/s", "20s", &listed), None);
    assert_eq!((g.len(), l.len()), (1, 1));
    let (g, l) = (&g[0], &l[0]);
    assert!(g.completed && l.completed);
    assert_eq!(g.name, "one#0");
    assert_eq!(g.start_s, l.start_s);
    assert_eq!(g.end_s, l.end_s);
    assert_eq!(g.fct_s, l.fct_s);
    assert_eq!(g.ideal_fct_s, l.ideal_fct_s);
    assert_eq!(
        (
            g.segments_delivered,
            g.retransmits,
            g.td_events,
            g.to_events
        ),
        (
            l.segments_delivered,
            l.retransmits,
            l.td_events,
            l.to_events
        )
    );
}

#[test]
fn an_obs_network_carries_workload_flows() {
    // Two edges joined by a core node; mixed-flow timer assembly.
    let t = format!(
        "[sim]\nduration = \"3s\"\n{}{}{}",
        ["S1", "S2", "D1", "D2"]
            .iter()
            .map(|h| format!("[[node]]\nname = \"{h}\"\nkind = \"host\"\n"))
            .collect::<String>(),
        "[[node]]\nname = \"E1\"\nkind = \"edge\"\n[[node]]\nname = \"C\"\nkind = \"core\"\n\
         [[node]]\nname = \"E2\"\nkind = \"edge\"\n\
         [[link]]\na = \"S1\"\nb = \"E1\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n\
         [[link]]\na = \"S2\"\nb = \"E1\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n\
         [[link]]\na = \"E2\"\nb = \"D1\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n\
         [[link]]\na = \"E2\"\nb = \"D2\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n\
         [[fibre]]\na = \"E1\"\nb = \"C\"\nrate = \"10Gb/s\"\nlength_km = 400\nwavelengths = 2\n\
         [[fibre]]\na = \"C\"\nb = \"E2\"\nrate = \"10Gb/s\"\nlength_km = 400\nwavelengths = 2\n\
         [obs]\nclassifier = \"per_egress\"\nassembly = { type = \"timer\", tb = \"1ms\" }\n",
        WEB.replace("rate = \"40/s\"", "rate = \"200/s\"")
    );
    let rows = fct(&t, None);
    assert!(rows.len() > 400, "{}", rows.len());
    let done: Vec<&FctRow> = rows.iter().filter(|r| r.completed).collect();
    assert!(done.len() > rows.len() * 9 / 10);
    // A round trip is 12 ms of propagation and, alone, two assembly periods. In a
    // queue shared with other flows a packet may join a cycle another opened and wait
    // less than its own Tb: a flow may beat the lone-flow ideal, but not propagation.
    for r in &done {
        assert!(r.ideal_fct_s > 0.012 + 0.002, "{r:?}");
        assert!(r.fct_s > 0.012, "{r:?}");
    }
    // The per_flow classifier (the default) is refused for generated flows.
    let bad = t.replace("classifier = \"per_egress\"\n", "");
    let e = run_toml(&bad, None, None).unwrap_err();
    assert_eq!(e.field, "obs.classifier", "{e}");
}

/// The error of `extra` (replacing WEB's lines `from` by `to`) on the packet network.
fn err(from: &str, to: &str) -> burstlab_core::ScenarioError {
    assert!(WEB.contains(from), "{from}");
    let t = net("20Mb/s", "1s", &WEB.replace(from, to));
    run_toml(&t, None, None).unwrap_err()
}

#[test]
fn bad_input_is_refused_naming_the_field() {
    let e = err("src = [\"S1\", \"S2\"]", "src = []");
    assert_eq!(e.field, "workload[0].src", "{e}");
    assert!(e.reason.contains("empty"), "{e}");
    let e = err("dst = [\"D1\", \"D2\"]", "dst = [\"D1\", \"X9\"]");
    assert_eq!(e.field, "workload[0].dst[1]", "{e}");
    assert!(e.reason.contains("unknown node 'X9'"), "{e}");
    let e = err("dst = [\"D1\", \"D2\"]", "dst = [\"R1\"]");
    assert_eq!(e.field, "workload[0].dst[0]", "{e}");
    for bad in ["\"-5/s\"", "\"NaN/s\"", "-3", "nan", "0"] {
        let e = err("rate = \"40/s\"", &format!("rate = {bad}"));
        assert_eq!(e.field, "workload[0].rate", "{bad}: {e}");
    }
    let e = err(
        "shape = 1.2, lower = \"2KB\", upper = \"2MB\"",
        "shape = 1.0, lower = \"2KB\"",
    );
    assert_eq!(e.field, "workload[0].size.shape", "{e}");
    assert!(e.reason.contains("infinite mean"), "{e}");
    let e = err("shape = 1.2,", "shape = 1.2, mu = 3.0,");
    assert_eq!(e.field, "workload[0].size.mu", "{e}");
    let e = err("rate = \"40/s\"", "rate = \"40/s\"\nload = \"1Mb/s\"");
    assert_eq!(e.field, "workload[0].load", "{e}");
    let e = err("rate = \"40/s\"", "rate = \"40/s\"\ntrace = \"x.csv\"");
    assert_eq!(e.field, "workload[0].trace", "{e}");
    let e = err("variant = \"sack\"", "variant = \"sack\"\nwm = 0");
    assert_eq!(e.field, "workload[0].wm", "{e}");
    let e = err(
        "variant = \"sack\"",
        "variant = \"sack\"\nrouting = { policy = \"least_loaded\" }",
    );
    assert_eq!(e.field, "workload[0].routing.policy", "{e}");
    let e = err("name = \"web\"", "name = \"\"");
    assert_eq!(e.field, "workload[0].name", "{e}");
    let e = err("variant = \"sack\"", "variant = \"sack\"\nbogus = 1");
    assert!(e.field.starts_with("workload[0]"), "{e}");
    // A pair with no route: D3 hangs off nothing.
    let t = net(
        "20Mb/s",
        "1s",
        &(WEB.replace("dst = [\"D1\", \"D2\"]", "dst = [\"D1\", \"D3\"]")
            + "[[node]]\nname = \"D3\"\nkind = \"host\"\n"),
    );
    let e = run_toml(&t, None, None).unwrap_err();
    assert_eq!(e.field, "workload[0].dst", "{e}");
    assert!(e.reason.contains("unreachable"), "{e}");
}

#[test]
fn a_trace_replays_and_a_bad_one_is_refused() {
    let dir = std::env::temp_dir().join(format!("burstlab-wl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.csv");
    std::fs::write(
        &good,
        "start,src,dst,size\n0.1,S1,D1,20KB\n0.3,S2,D2,5000\n",
    )
    .unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "start,src,dst,size\n0.3,S1,D1,20KB\n0.1,S2,D2,5000\n").unwrap();
    let wl = |p: &std::path::Path| {
        format!(
            "[[workload]]\nname = \"tr\"\narrivals = \"trace\"\ntrace = \"{}\"\n",
            p.display()
        )
    };
    let rows = fct(&net("20Mb/s", "5s", &wl(&good)), None);
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].start_s, rows[0].size_bytes), (0.1, 20_000));
    assert_eq!((rows[1].src.as_str(), rows[1].size_bytes), ("S2", 5000));
    assert!(rows.iter().all(|r| r.completed));
    let e = run_toml(&net("20Mb/s", "5s", &wl(&bad)), None, None).unwrap_err();
    assert_eq!(e.field, "workload[0].trace", "{e}");
    assert!(e.reason.starts_with("line 3, column start"), "{e}");
    let e = run_toml(&net("20Mb/s", "5s", &wl(&dir.join("none.csv"))), None, None).unwrap_err();
    assert_eq!(e.field, "workload[0].trace", "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_matrix_weighs_the_pairs_and_load_sets_the_rate() {
    let base = "[[workload]]\nname = \"tm\"\nrate = \"50/s\"\nsize = \"5KB\"\n";
    let m = format!("{base}matrix = [[0, 1], [3, 0]]\nhosts = [\"S1\", \"D1\"]\n");
    let rows = fct(&net("20Mb/s", "20s", &m), None);
    let n = rows.len() as f64;
    let back = rows.iter().filter(|r| r.src == "D1").count() as f64;
    assert!(rows
        .iter()
        .all(|r| (r.src == "S1" && r.dst == "D1") || (r.src == "D1" && r.dst == "S1")));
    // D1 → S1 is drawn with probability 3/4: five binomial standard deviations.
    let sd = (n * 0.75 * 0.25).sqrt();
    assert!((back - 0.75 * n).abs() < 5.0 * sd, "{back} of {n}");
    // A matrix whose size is not the hosts'.
    let bad =
        format!("{base}matrix = [[0, 1, 1], [3, 0, 1], [1, 1, 0]]\nhosts = [\"S1\", \"D1\"]\n");
    let e = run_toml(&net("20Mb/s", "1s", &bad), None, None).unwrap_err();
    assert_eq!(e.field, "workload[0].matrix", "{e}");
    assert!(e.reason.contains("3 rows but there are 2 nodes"), "{e}");
    // load = 1 Mb/s of 10 KB flows: 12.5 arrivals per second, 1 000 in 80 s
    // (Poisson: sd 31.6; five sd = 158).
    let l = "[[workload]]\nname = \"ld\"\nsrc = [\"S1\"]\ndst = [\"D1\"]\nload = \"1Mb/s\"\nsize = \"10KB\"\n";
    let rows = fct(&net("20Mb/s", "80s", l), None);
    assert!((rows.len() as f64 - 1000.0).abs() < 158.0, "{}", rows.len());
}

#[test]
fn the_estimates_refuse_a_workload_too_large_naming_it() {
    let w = |rate: &str, sim: &str| {
        let t = net(
            "20Mb/s",
            "100s",
            &format!(
                "[[workload]]\nname = \"big\"\nsrc = [\"S1\"]\ndst = [\"D1\"]\nrate = \"{rate}\"\nsize = \"10KB\"\n"
            ),
        );
        run_toml(
            &t.replace(
                "duration = \"100s\"\n",
                &format!("duration = \"100s\"\n{sim}"),
            ),
            None,
            None,
        )
        .unwrap_err()
    };
    // 10^7 arrivals: their rows alone exceed 64 MiB.
    let e = w("100000/s", "max_memory = \"64MiB\"\n");
    assert_eq!(e.field, "workload[0].rate", "{e}");
    assert!(
        e.reason.contains("sim.max_memory") && e.reason.contains("1.000e7"),
        "{e}"
    );
    // 10^5 flows of 11 segments over 8 hops: about 10^7 events.
    let e = w("1000/s", "max_events = 1e6\n");
    assert_eq!(e.field, "workload[0].rate", "{e}");
    assert!(e.reason.contains("sim.max_events"), "{e}");
}

#[test]
fn the_fct_table_streams_to_sim_trace_dir() {
    let dir = std::env::temp_dir().join(format!("burstlab-wl-fct-{}", std::process::id()));
    // 500 flows per second for 20 s: about 10 000 rows, more than one chunk.
    let t = net(
        "100Mb/s",
        "20s",
        &WEB.replace("rate = \"40/s\"", "rate = \"500/s\""),
    );
    let held = run_toml(&t, Some(5), None).unwrap();
    let streamed_text = t.replace(
        "duration = \"20s\"\n",
        &format!(
            "duration = \"20s\"\n[sim.trace]\ndir = \"{}\"\n",
            dir.display()
        ),
    );
    let s = run_toml(&streamed_text, Some(5), None).unwrap();
    assert!(s.fct.is_empty());
    let f = s
        .streamed
        .iter()
        .find(|x| x.table == "fct")
        .expect("fct streamed");
    assert!(
        held.fct.len() > 8192,
        "more than one chunk: {}",
        held.fct.len()
    );
    assert_eq!(f.rows, held.fct.len() as u64);
    let text = std::fs::read_to_string(&f.path).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("flow,name,workload,src,dst,size_segments"));
    // The rows in the same order, each with the row held in memory's values.
    for (line, r) in lines.zip(&held.fct) {
        let c: Vec<&str> = line.split(',').collect();
        assert_eq!(
            (c[1], c[3], c[4]),
            (r.name.as_str(), r.src.as_str(), r.dst.as_str())
        );
        assert_eq!(c[6].parse::<u64>().unwrap(), r.size_bytes);
        assert_eq!(c[12], if r.completed { "True" } else { "False" });
        if r.completed {
            assert_eq!(c[9].parse::<f64>().unwrap(), r.fct_s);
        } else {
            assert_eq!(c[9], "nan");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_routes_table_lists_each_workload_pair_after_the_flows() {
    let listed = "[[flow]]\nname = \"ftp\"\nsrc = \"S1\"\ndst = \"D2\"\nsegments = 10\n";
    let r = run_toml(
        &net("100Mb/s", "0.2s", &format!("{listed}{WEB}")),
        Some(1),
        None,
    )
    .unwrap();
    // flow, name, workload, route, (policy, path, paths)
    let rows: Vec<String> = r
        .routes
        .iter()
        .map(|x| {
            let p = (x.policy, x.path, x.paths);
            format!("{} {} {} {} {p:?}", x.flow, x.name, x.workload, x.route)
        })
        .collect();
    let one = "(\"first\", Some(0), 1)";
    assert_eq!(
        rows,
        vec![
            format!("0 ftp  S1>R1>R2>D2 {one}"),
            format!("0 web:S1>D1 web S1>R1>R2>D1 {one}"),
            format!("1 web:S1>D2 web S1>R1>R2>D2 {one}"),
            format!("2 web:S2>D1 web S2>R1>R2>D1 {one}"),
            format!("3 web:S2>D2 web S2>R1>R2>D2 {one}"),
        ]
    );
    let w = &r.routes[4];
    assert_eq!((w.src.as_str(), w.dst.as_str()), ("S2", "D2"));
    assert_eq!(w.reverse_route, "D2>R2>R1>S2");
    assert_eq!(w.hops, 3);
    // 1 + 5 + 1 ms of propagation.
    assert!((w.delay_s - 0.007).abs() < 1e-12, "{}", w.delay_s);
}
