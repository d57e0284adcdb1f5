//! Scenario builders shared by the integration tests.

// Each test crate compiles this module and uses only some of its builders.
#![allow(dead_code)]

use burstlab_core::run_toml;
use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::stats::{BurstEvent, BurstLoss, RunResult};
use burstlab_core::units::SimTime;
use burstlab_core::world::World;

/// The world of scenario `text` (TOML), built and not yet run.
pub fn world(text: &str) -> World {
    let r = ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    World::new(&r).unwrap()
}

/// A packet dumbbell: `n` TCP senders on 100 Mb/s, 1 ms access links share an
/// `n` × 50 Mb/s, 5 ms bottleneck with a drop-tail queue of `queue_pkts`, each with its
/// own receiver behind a 100 Mb/s, 1 ms link. Flow `i` runs `variants[i % len]` with
/// window `wm` from `i` ms. `sim` is the body of the `[sim]` table.
pub fn dumbbell(n: usize, sim: &str, queue_pkts: u32, wm: u32, variants: &[&str]) -> String {
    let mut s = format!(
        "[sim]\n{sim}\n\
         [[node]]\nname = \"R1\"\n[[node]]\nname = \"R2\"\n\
         [[link]]\na = \"R1\"\nb = \"R2\"\nrate = \"{}Mb/s\"\ndelay = \"5ms\"\nqueue_pkts = {queue_pkts}\n",
        n * 50
    );
    for i in 0..n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\na = \"s{i}\"\nb = \"R1\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[link]]\na = \"R2\"\nb = \"d{i}\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[flow]]\ntype = \"tcp\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nvariant = \"{}\"\n\
             wm = {wm}\nstart = \"{i}ms\"\n",
            variants[i % variants.len()],
        );
    }
    s
}

/// `s –(1 Gb/s, 1 ms)– E1 –f– C1 … Cn –f– E2 –(1 Gb/s, 1 ms)– d`, fibres 10 Gb/s, 1 ms,
/// `k` wavelengths each, bursts traced; `obs` is the body of the `[obs]` table and
/// `flows` the `[[flow]]` tables.
pub fn obs_chain(cores: usize, k: u32, obs: &str, flows: &str, duration: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\ntrace = {{ bursts = true }}\n");
    let mut path = vec!["E1".to_string()];
    path.extend((1..=cores).map(|i| format!("C{i}")));
    path.push("E2".into());
    s += "[[node]]\nname = \"s\"\nkind = \"host\"\n[[node]]\nname = \"d\"\nkind = \"host\"\n";
    for (i, n) in path.iter().enumerate() {
        let kind = if i == 0 || i + 1 == path.len() {
            "edge"
        } else {
            "core"
        };
        s += &format!("[[node]]\nname = \"{n}\"\nkind = \"{kind}\"\n");
    }
    s += "[[link]]\na = \"s\"\nb = \"E1\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    s += "[[link]]\na = \"E2\"\nb = \"d\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    for w in path.windows(2) {
        s += &format!(
            "[[fibre]]\na = \"{}\"\nb = \"{}\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n",
            w[0], w[1]
        );
    }
    s += "[obs]\n";
    s += obs;
    s += "\n";
    s += flows;
    s
}

/// The result of scenario `text`; a scenario error panics with the scenario.
pub fn run(text: &str) -> RunResult {
    run_toml(text, None, None).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `[[flow]]` tables: flow `i` sends one 1000 B packet from host `s{i}` to `d` at
/// `starts[i]` (an 8 Mb/s CBR source stopped before its second packet, 1 ms later).
pub fn one_packet_flows(starts: &[&str]) -> String {
    let mut s = String::new();
    for (i, st) in starts.iter().enumerate() {
        let ns = burstlab_core::units::parse_duration(st).unwrap().0 / 1000;
        let stop = ns + 500_000;
        s += &format!("[[flow]]\ntype = \"cbr\"\nsrc = \"s{i}\"\ndst = \"d\"\nrate = \"8Mb/s\"\npacket_size = 1000\nstart = \"{ns}ns\"\nstop = \"{stop}ns\"\n");
    }
    s
}

/// Delivery time (or `None` if lost) of the one burst of queue `q`, and its loss
/// reason.
pub fn fate(r: &RunResult, q: u32) -> (Option<SimTime>, Option<BurstLoss>) {
    let ev: Vec<_> = r
        .burst_trace
        .iter()
        .filter(|b| b.queue == q && b.event != BurstEvent::Formed)
        .collect();
    assert_eq!(ev.len(), 1, "one fate per burst: {ev:?}");
    match ev[0].event {
        BurstEvent::Delivered => (Some(ev[0].time), None),
        _ => (None, ev[0].reason),
    }
}

/// The queue of the flow sent from ingress `E{i+3}`.
pub fn queue_of(r: &RunResult, i: usize) -> u32 {
    let name = format!("E{}", i + 3);
    r.bursts.iter().find(|b| b.edge == name).unwrap().queue
}

/// A duration in seconds: a number, or a string with a unit ("5s", "200ms", "1us").
pub fn secs(v: &toml::Value) -> f64 {
    match v {
        toml::Value::Float(x) => *x,
        toml::Value::Integer(x) => *x as f64,
        toml::Value::String(x) => {
            let x = x.trim();
            let (num, scale) = [
                ("ns", 1e-9),
                ("us", 1e-6),
                ("µs", 1e-6),
                ("ms", 1e-3),
                ("s", 1.0),
            ]
            .iter()
            .find_map(|(u, f)| x.strip_suffix(u).map(|n| (n, *f)))
            .unwrap_or_else(|| panic!("duration {x:?}"));
            num.trim().parse::<f64>().unwrap() * scale
        }
        other => panic!("duration {other:?}"),
    }
}

/// `text` with its `duration` cut to at most `max_s` seconds (and its warm-up to at most
/// a third of that, and a trace window cut to fit it).
pub fn shortened(text: &str, max_s: f64) -> String {
    let mut v: toml::Table = text.parse().unwrap();
    let sim = v.get_mut("sim").unwrap().as_table_mut().unwrap();
    let d = secs(&sim["duration"]);
    sim.insert("duration".into(), toml::Value::Float(d.min(max_s)));
    if let Some(w) = sim.get("warmup").map(secs) {
        sim.insert("warmup".into(), toml::Value::Float(w.min(max_s / 3.0)));
    }
    // A trace window inside the shortened run (a window past its end is refused).
    if let Some(tr) = sim.get_mut("trace").and_then(|t| t.as_table_mut()) {
        if let Some(s) = tr.get("start").map(secs) {
            tr.insert("start".into(), toml::Value::Float(s.min(max_s / 3.0)));
        }
        if let Some(e) = tr.get("end").map(secs) {
            tr.insert("end".into(), toml::Value::Float(e.min(max_s)));
        }
    }
    toml::to_string(&v).unwrap()
}

/// Whether the core alone can run scenario `raw`: a graph named by file (`[network]
/// file`) is built by the Python loader (docs/guide/networks.md), and a `type = "python"`
/// assembly (src/obs/external.rs) needs the Python package, so the core refuses both;
/// tests walking every shipped scenario leave them out.
pub fn core_alone_runs(raw: &str) -> bool {
    !raw.lines().any(|l| l.trim() == "[network]") && !raw.contains("type = \"python\"")
}
