//! The BCPs crossing one fibre wait in its lane, with one event per fibre instead of
//! one per burst in flight (`world/control.rs`, `BcpLanes`); each keeps the sequence
//! number its event took when it was sent. That changes speed only: every scenario
//! with an OBS core here (the golden ones, the examples, the benchmarks) runs with the
//! lanes on and off and must give the same results, number for number, traces
//! included, with the same number of events.

mod common;

use std::path::Path;

/// Runs `text` with the lanes `on` or off: the results as text (every number exact) and
/// the events processed.
fn run(text: &str, on: bool) -> (String, u64) {
    let mut w = common::world(text);
    w.set_bcp_lanes(on);
    w.run_until_end();
    let events = w.events_processed();
    let mut res = w.into_result();
    res.version.clear();
    res.events = 0;
    (format!("{res:?}"), events)
}

#[test]
fn every_obs_scenario_gives_the_same_results_with_and_without_lanes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("tests/golden/scenarios"),
        root.join("../../examples"),
        root.join("../../benchmarks"),
    ] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut ran = Vec::new();
    for p in &files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read_to_string(p).unwrap();
        if !common::core_alone_runs(&raw) {
            continue;
        }
        if !raw.lines().any(|l| l.trim() == "[[fibre]]") {
            continue; // no OBS core, no BCP
        }
        let text = common::shortened(&raw, 2.0);
        let (on, e_on) = run(&text, true);
        let (off, e_off) = run(&text, false);
        assert!(on == off, "{name}: the lanes changed the results");
        assert_eq!(e_on, e_off, "{name}: events with and without the lanes");
        ran.push(name);
    }
    // The contention stages, the ingress buffer (BCPs launched later than sent, pushed
    // at once), the control channel (no lanes), deflection and the workloads among them.
    for name in [
        "mesh_contention.toml",
        "yu_obs_warmup.toml",
        "contention_core.toml",
        "contention_preemption.toml",
        "contention_tail.toml",
        "ingress_buffer.toml",
        "control_channel.toml",
        "deflection.toml",
        "hybrid_fabrics.toml",
        "mesh_9flow.toml",
        "nsfnet_workload.toml",
    ] {
        assert!(ran.iter().any(|f| f == name), "{name} not among {ran:?}");
    }
}
