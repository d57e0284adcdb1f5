//! `burstlab-bench`: runs one scenario file and prints wall-clock speed and peak memory
//! as one JSON line. Used by `benchmarks/bench_path.py` (which takes medians over runs).
//!
//! Usage: burstlab-bench SCENARIO.toml [--seed N] [--duration SECONDS]

use std::time::Instant;

/// The allocator the Python extension uses too (`burstlab-py`), so that speeds measured
/// here are the speeds users get. At hundreds of flows the packet pool and the link pipes
/// are tens of MiB read at random; mimalloc backs its segments with transparent huge
/// pages, where the C allocator's 4 KiB pages miss the address-translation caches. Paired
/// CPU against the C allocator, user time (user + system, which includes zeroing the huge
/// pages): 0.85 (0.91) on the 320-flow dumbbell, 0.94 on the 320-flow OBS network, at par
/// at 10 flows and on the 5-hop path. The price is resident memory (a huge page is
/// resident whole): peak RSS 38.6 -> 79 MiB at 320 flows, 4.4 -> 19 MiB at 10.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: burstlab-bench SCENARIO.toml [--seed N] [--duration SECONDS]");
        std::process::exit(2);
    }
    let mut text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("burstlab-bench: cannot read {}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    // A `[network]` table names a graph file, which the Python package turns into nodes
    // and fibres (python/burstlab/topologies/network_table.py); this driver has no graph
    // reader, so it says where to go instead of the parser's "unknown field".
    if toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.contains_key("network")) {
        eprintln!(
            "burstlab-bench: {}: [network] (a graph file) is read by the Python package: \
             run it with `burstlab run`, or save the built scenario \
             (burstlab.load_scenario) as TOML or JSON and benchmark that",
            args[1]
        );
        std::process::exit(2);
    }
    let mut seed = None;
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--seed" => seed = args.get(i + 1).and_then(|s| s.parse().ok()),
            "--duration" => {
                if let Some(d) = args.get(i + 1) {
                    text = text
                        .lines()
                        .map(|l| {
                            if l.trim_start().starts_with("duration") {
                                format!("duration = {d}")
                            } else {
                                l.to_string()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                }
            }
            other => {
                eprintln!("burstlab-bench: unknown argument {other}");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    let t0 = Instant::now();
    let res = match burstlab_core::run_toml(&text, seed, None) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("burstlab-bench: {e}");
            std::process::exit(2);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let delivered: u64 = res.flows.iter().map(|f| f.segments_delivered).sum();
    if burstlab_core::world::probe::BUILT {
        print_phases(delivered);
    }
    println!(
        "{{\"wall_s\": {wall:.6}, \"simulated_s\": {}, \"delivered_segments\": {delivered}, \"events\": {}, \"segments_per_s\": {:.1}, \"events_per_s\": {:.1}, \"peak_rss_kib\": {}}}",
        res.duration_s,
        res.events,
        delivered as f64 / wall,
        res.events as f64 / wall,
        peak_rss_kib().unwrap_or(0)
    );
}

/// The phase timings of a build with the probe (`--features probe`), to standard error:
/// per phase how often it ran, its mean length and its share per delivered segment, in
/// time-stamp counter ticks (see `burstlab_core::world::probe`).
fn print_phases(delivered: u64) {
    eprintln!("phase                 count       mean ticks   ticks per segment");
    for t in burstlab_core::world::probe::take() {
        if t.count == 0 {
            continue;
        }
        eprintln!(
            "{:<20} {:>12} {:>10.1} {:>16.1}",
            format!("{:?}", t.phase),
            t.count,
            t.ticks as f64 / t.count as f64,
            t.ticks as f64 / delivered.max(1) as f64
        );
    }
}
