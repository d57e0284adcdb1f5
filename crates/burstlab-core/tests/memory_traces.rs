//! Hardening (issue 16, item 3): memory is estimated before a run and a scenario that
//! would exceed `sim.max_memory` is refused with the setting to change; traces can be
//! streamed to disk (`sim.trace.dir`) in bounded memory, with the same rows as the
//! in-memory tables; writing errors are errors, not panics.

use burstlab_core::memory;
use burstlab_core::run_toml;
use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::stats::{Column, TableData};
use burstlab_core::tracefile::CHUNK_ROWS;
use burstlab_core::world::World;
use std::path::PathBuf;

/// One TCP flow over a 10 Mb/s path (RTT 100 ms), random loss on the middle link.
const PATH: &str = r#"
name = "traced"
[sim]
duration = "DUR"
seed = 5
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
delay = "20ms"
queue_pkts = 50
[[link]]
a = "r"
b = "b"
rate = "10Mb/s"
delay = "30ms"
loss_ab = 0.01
queue_pkts = 50
[[flow]]
type = "tcp"
src = "a"
dst = "b"
variant = "newreno"
mss = "1000B"
wm = 64
"#;

fn scenario(dur: &str, extra: &str) -> String {
    PATH.replace("DUR", dur).replace("EXTRA", extra)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("burstlab-mt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn resolve(text: &str) -> burstlab_core::scenario::Resolved {
    ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap()
}

/// A packet trace over 10^5 s used to take gigabytes before anything said so; now the
/// estimate refuses it before the run and names the setting, the estimate and the fixes.
#[test]
fn a_huge_trace_is_refused_before_the_run_with_the_setting_named() {
    let text = scenario("100000s", "[sim.trace]\npackets = true");
    let e = run_toml(&text, None, None).unwrap_err().to_string();
    assert!(e.starts_with("sim.trace.packets: estimated "), "{e}");
    assert!(e.contains("GiB of trace"), "{e}");
    assert!(e.contains("exceeds sim.max_memory = 4.0 GiB"), "{e}");
    assert!(e.contains("sim.trace.dir") && e.contains("--out"), "{e}");
    // The estimate is an upper bound from the link rates: 10 Mb/s carries at most
    // 1201.9 segments of 1040 bytes per second; two records per segment.
    let est = memory::estimate(&resolve(&text));
    let t = &est.traces[0];
    assert_eq!(t.setting, "sim.trace.packets");
    let per_s = 10e6 / (1040.0 * 8.0);
    assert!(
        (t.rows - 2.0 * (per_s * 1e5 + 64.0)).abs() < 2.0,
        "{}",
        t.rows
    );
    // The same trace streamed to disk holds a bounded chunk: not refused.
    let d = tmp("refused");
    let streamed = text.replace(
        "packets = true",
        &format!("packets = true\ndir = {:?}", d.to_str().unwrap()),
    );
    let est = memory::check(&resolve(&streamed)).unwrap();
    assert!(est.streamed && est.trace_bytes() == 0.0);
    // A short run of the same scenario is well within the budget.
    assert!(memory::check(&resolve(&scenario("100s", "[sim.trace]\npackets = true"))).is_ok());
    // The cwnd trace is named when it is the larger one.
    let e = run_toml(
        &scenario(
            "1000000s",
            "max_memory = \"64MiB\"\n[sim.trace]\ncwnd = true",
        ),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("sim.trace.cwnd: estimated "), "{e}");
}

/// The estimate bounds what a run records: the rows a run actually traces never exceed
/// it (here with heavy loss and timeouts).
#[test]
fn the_estimate_bounds_the_recorded_rows() {
    let text = scenario("60s", "[sim.trace]\npackets = true\ncwnd = true")
        .replace("loss_ab = 0.01", "loss_ab = 0.05");
    let est = memory::estimate(&resolve(&text));
    let r = run_toml(&text, None, None).unwrap();
    let rows = |table: &str| est.traces.iter().find(|t| t.table == table).unwrap().rows;
    assert!(!r.packet_trace.is_empty() && !r.cwnd_trace.is_empty());
    assert!((r.packet_trace.len() as f64) <= rows("packet_trace"));
    assert!((r.cwnd_trace.len() as f64) <= rows("cwnd_trace"));
}

/// A UDP source far faster than an unlimited queue: refused before the run (it used to
/// grow ~17 MB per simulated second until the run-time guard stopped it).
#[test]
fn an_overloaded_unlimited_queue_is_refused_before_the_run() {
    let text = scenario("1000s", "max_memory = \"16MiB\"").replace("queue_pkts = 50\n", "")
        + "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Gb/s\"\n";
    let e = run_toml(&text, None, None).unwrap_err().to_string();
    assert!(
        e.starts_with("link[0].queue_pkts: link a->r has no queue limit"),
        "{e}"
    );
    assert!(
        e.contains("1.000 Gb/s to 10.000 Mb/s") && e.contains("queue_bytes"),
        "{e}"
    );
    let est = memory::estimate(&resolve(&text));
    let lines = est.lines().join("\n");
    assert!(
        lines.contains("link[0] a->r: no queue limit and UDP offers"),
        "{lines}"
    );
    // Under its rate the same source is not a growth.
    let calm = text.replace("rate = \"1Gb/s\"", "rate = \"1Mb/s\"");
    assert!(memory::check(&resolve(&calm)).is_ok());
}

fn trace_dir_scenario(dur: &str, d: &std::path::Path) -> String {
    scenario(
        dur,
        &format!(
            "[sim.trace]\npackets = true\ncwnd = true\ndir = {:?}",
            d.to_str().unwrap()
        ),
    )
}

/// Streaming writes the rows the in-memory run holds (the same rows, same order), and
/// the result's tables are then empty, with the files listed in `streamed`.
#[test]
fn streamed_traces_have_the_in_memory_rows() {
    let d = tmp("same");
    let streamed_text = trace_dir_scenario("60s", &d);
    let held_text = scenario("60s", "[sim.trace]\npackets = true\ncwnd = true");
    let held = run_toml(&held_text, None, None).unwrap();
    let streamed = run_toml(&streamed_text, None, None).unwrap();
    assert!(streamed.packet_trace.is_empty() && streamed.cwnd_trace.is_empty());
    assert_eq!(streamed.flows[0].goodput_bps, held.flows[0].goodput_bps);
    assert_eq!(streamed.streamed.len(), 2);
    for s in &streamed.streamed {
        let table = held
            .tables()
            .into_iter()
            .find(|t| t.name == s.table)
            .unwrap();
        let TableData::Columns(cols) = table.data else {
            panic!("a trace is columns")
        };
        let n = cols[0].1.len();
        if s.table == "packet_trace" {
            assert!(n > CHUNK_ROWS, "{n} rows: too few to cross a chunk");
        }
        assert!(n > 0, "{}", s.table);
        assert_eq!(s.rows, n as u64);
        let text = std::fs::read_to_string(&s.path).unwrap();
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
        assert_eq!(&head[..names.len()], &names[..]);
        assert_eq!(
            &head[names.len()..],
            &["scenario", "seed", "replication", "burstlab_version"]
        );
        for (i, line) in lines.enumerate() {
            let cells: Vec<&str> = line.split(',').collect();
            // time_s round-trips exactly; the integer columns print as integers.
            let Column::F64(t) = &cols[0].1 else { panic!() };
            assert_eq!(
                cells[0].parse::<f64>().unwrap(),
                t[i],
                "{} row {i}",
                s.table
            );
            let Column::U64(f) = &cols[1].1 else { panic!() };
            assert_eq!(cells[1], f[i].to_string());
            assert_eq!(&cells[names.len()..names.len() + 3], &["traced", "5", "0"]);
            if i + 1 == n {
                assert_eq!(lines_count(&text), n + 1);
            }
        }
    }
    // Same scenario and seed, same files.
    let first: Vec<Vec<u8>> = streamed
        .streamed
        .iter()
        .map(|s| std::fs::read(&s.path).unwrap())
        .collect();
    let again = run_toml(&streamed_text, None, None).unwrap();
    for (s, want) in again.streamed.iter().zip(&first) {
        assert_eq!(&std::fs::read(&s.path).unwrap(), want, "{}", s.table);
    }
    let _ = std::fs::remove_dir_all(&d);
}

fn lines_count(text: &str) -> usize {
    text.lines().count()
}

/// A long streamed run holds at most one chunk of each trace, however many rows it
/// writes (counted, not timed), and its memory guard sees only that chunk.
#[test]
fn a_long_streamed_trace_holds_a_bounded_chunk() {
    let d = tmp("bounded");
    let r = resolve(&trace_dir_scenario("400s", &d));
    let mut w = World::new(&r).unwrap();
    w.run_until_end();
    assert!(w.trace_rows_peak() <= CHUNK_ROWS, "{}", w.trace_rows_peak());
    let res = w.into_result();
    let rows: u64 = res.streamed.iter().map(|s| s.rows).sum();
    assert!(rows > 10 * CHUNK_ROWS as u64, "only {rows} rows");
    // The same run held in memory keeps every row at once.
    let r = resolve(&scenario(
        "400s",
        "[sim.trace]\npackets = true\ncwnd = true",
    ));
    let mut w = World::new(&r).unwrap();
    w.run_until_end();
    assert!(
        w.trace_rows_peak() > 5 * CHUNK_ROWS,
        "{}",
        w.trace_rows_peak()
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// An unwritable trace folder is an error naming `sim.trace.dir` before the run; a
/// disk that fills up during the run (here /dev/full) is an error after it, not a panic.
#[test]
fn trace_write_errors_are_errors() {
    let d = tmp("errors");
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("not_a_dir");
    std::fs::write(&file, "x").unwrap();
    let e = run_toml(&trace_dir_scenario("1s", &file), None, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("sim.trace.dir: cannot write"), "{e}");
    #[cfg(target_os = "linux")]
    if std::path::Path::new("/dev/full").exists() {
        let full = d.join("full");
        std::fs::create_dir_all(&full).unwrap();
        std::os::unix::fs::symlink("/dev/full", full.join("packet_trace.csv")).unwrap();
        let e = run_toml(&trace_dir_scenario("60s", &full), None, None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("sim.trace.dir: writing "), "{e}");
        assert!(e.contains("packet_trace.csv"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

// ------------------------------------------------------------ TCP flights (issue 56)

/// The path with flow 0's window `wm`, and `cc` / `variant` / `profile` set.
fn flight_scenario(dur: &str, wm: &str, tcp: &str) -> String {
    scenario(dur, "")
        .replace("wm = 64", &format!("wm = {wm}"))
        .replace("variant = \"newreno\"\n", tcp)
}

/// `wm` near 2^32 under every controller whose rings were sized by it: building the
/// world (what `validate` does) allocates rings for the first segments only, and the
/// run grows them with its flight. The old build asked for 192 GiB (BBR's delivery-rate
/// slots), 64 GiB (Agent/TCP/Linux's send times) or 1 GiB (each bit ring) here and
/// aborted.
#[test]
fn a_window_near_2_pow_32_allocates_for_the_flight_not_the_window() {
    for tcp in [
        "variant = \"sack\"\nprofile = \"rfc\"\ncc = \"bbr\"\n",
        "variant = \"sack\"\nprofile = \"ns2\"\ncc = \"vegas\"\n",
        "variant = \"sack\"\nprofile = \"ns2\"\ncc = \"cubic\"\n",
        "variant = \"sack\"\nprofile = \"rfc\"\n",
        "variant = \"newreno\"\nprofile = \"ns2\"\n",
    ] {
        let text = flight_scenario("2s", "4294967295", tcp);
        let r = resolve(&text);
        let est = memory::check(&r).unwrap_or_else(|e| panic!("{tcp}: {e}"));
        let w = World::new(&r).unwrap();
        assert!(w.mem_bytes() < 4 << 20, "{tcp}: {} bytes", w.mem_bytes());
        let res = run_toml(&text, None, None).unwrap();
        assert!(res.flows[0].segments_received > 100, "{tcp}");
        // The estimate counts the flight 2 s can carry (init_cwnd + 2 R t), not wm.
        assert!(
            est.windows[0].segments < 5000.0,
            "{tcp}: {:?}",
            est.windows[0]
        );
    }
}

/// Without queue limits and without loss, slow start puts the whole flight in the
/// first queue: the estimate counts it (`W = init_cwnd + 2 R t`, R = 10 Mb/s over a
/// 1040-byte segment) and the world the run built stays within it.
#[test]
fn the_estimate_counts_tcp_flights_and_bounds_the_run() {
    let text = flight_scenario(
        "5s",
        "4294967295",
        "variant = \"newreno\"\nprofile = \"rfc\"\n",
    )
    .replace("queue_pkts = 50\n", "")
    .replace("loss_ab = 0.01\n", "");
    let r = resolve(&text);
    let est = memory::check(&r).unwrap();
    let w = &est.windows[0];
    let seg_rate = 10e6 / (1040.0 * 8.0);
    assert_eq!(w.segments, w.init_cwnd as f64 + 2.0 * seg_rate * 5.0);
    assert!(!w.capped && w.queue_bytes > 0.0, "{w:?}");
    let lines = est.lines().join("\n");
    assert!(
        lines.contains("TCP flights: at most 1.202e4 segments"),
        "{lines}"
    );
    let mut world = World::new(&r).unwrap();
    let before = world.mem_bytes();
    world.run_until_end();
    let grown = world.mem_bytes() - before;
    // Thousands of segments waited at once (the run is a real test of the bound) ...
    assert!(grown > 100_000, "{grown}");
    // ... and the world grew by less than the estimate.
    assert!(
        (grown as f64) < est.total_bytes(),
        "{grown} > {}",
        est.total_bytes()
    );
}

/// A flight too big for `sim.max_memory` is refused before the run naming the setting:
/// `init_cwnd` when the initial window (sent in one event) is most of it, else `wm`.
/// The old estimate reported these queues at "about 0 B".
#[test]
fn a_flight_over_the_budget_is_refused_naming_the_window() {
    let unlimited = |dur: &str, tcp: &str| {
        flight_scenario(dur, "4294967295", tcp).replace("queue_pkts = 50\n", "")
    };
    let small = unlimited("1000s", "variant = \"newreno\"\n")
        .replace("seed = 5", "seed = 5\nmax_memory = \"64MiB\"");
    let e = run_toml(&small, None, None).unwrap_err().to_string();
    assert!(
        e.starts_with("flow[0].wm: flow 'flow0' can have up to "),
        "{e}"
    );
    assert!(
        e.contains("queue_pkts or queue_bytes") && e.contains("64.0 MiB"),
        "{e}"
    );
    let init = "variant = \"newreno\"\ninit_cwnd = 4294967295\n";
    for text in [
        unlimited("1s", init),
        flight_scenario("1s", "4294967295", init),
    ] {
        let e = run_toml(&text, None, None).unwrap_err().to_string();
        assert!(
            e.starts_with("flow[0].init_cwnd: flow 'flow0' sends its initial window of 4294967295 segments at once"),
            "{e}"
        );
    }
    // With queue limits the same window over 1000 s is estimated from what the path
    // holds and accepted.
    let limited = flight_scenario("1000s", "4294967295", "variant = \"newreno\"\n");
    let est = memory::check(&resolve(&limited)).unwrap();
    assert!(est.windows[0].capped && est.windows[0].queue_bytes == 0.0);
}
