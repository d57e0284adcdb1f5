//! Contention resolution inside the OBS network (`[obs.contention]`,
//! docs/topics/contention.md): hand-made timelines for fibre delay lines (both
//! capacities) and limited wavelength converters, the per-wavelength table, and the
//! scenario errors. The golden tables (tests/golden.rs) guard that everything is off by
//! default.

mod common;

use burstlab_core::run_toml;

use burstlab_core::stats::{BurstEvent, BurstLoss, RunResult};
use burstlab_core::units::SimTime;
use common::{fate, one_packet_flows, queue_of, run};

/// Ingress edges `E1..En` (host `s_i` each, 1 Gb/s, 1 ms) → core `C1` → egress `E2` →
/// host `d`; fibres 10 Gb/s, 1 ms, `k` wavelengths. Flow `i` is one 1000 B packet
/// sent at `starts[i]`, so each ingress forms one burst 1 ms after its packet arrives
/// and the bursts meet at C1 with the flows' spacing (a 1000 B burst lasts 0.8 µs at
/// 10 Gb/s).
fn star(starts: &[&str], k: u32, obs: &str) -> String {
    let mut s = String::from("[sim]\nduration = \"50ms\"\ntrace = { bursts = true }\n");
    let n = starts.len();
    let mut nodes = vec![
        ("d".to_string(), "host"),
        ("C1".into(), "core"),
        ("E2".into(), "edge"),
    ];
    for i in 0..n {
        nodes.push((format!("s{i}"), "host"));
        nodes.push((format!("E{}", i + 3), "edge"));
    }
    for (m, kind) in &nodes {
        s += &format!("[[node]]\nname = \"{m}\"\nkind = \"{kind}\"\n");
    }
    s += "[[link]]\na = \"E2\"\nb = \"d\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    for i in 0..n {
        s += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"E{}\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n",
            i + 3
        );
        s += &format!(
            "[[fibre]]\na = \"E{}\"\nb = \"C1\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n",
            i + 3
        );
    }
    s += &format!(
        "[[fibre]]\na = \"C1\"\nb = \"E2\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = {k}\n"
    );
    s += "[obs]\nassembly = { type = \"timer\", tb = \"1ms\" }\nscheduler = \"ffuc\"\n";
    s += obs;
    s += "\n";
    s += &one_packet_flows(starts);
    s
}

fn us(x: u64) -> SimTime {
    SimTime::from_ns(x * 1000)
}

/// A burst that meets a busy wavelength at C1 is delayed by exactly one FDL: its
/// delivery is the undisturbed delivery plus the line's length, and it is counted on
/// the wavelength it took.
/// The random-contention traffic of the segmentation and preemption tests: `star` with
/// one wavelength, two exponential on/off sources at 400 Mb/s (mean on 5 ms, off
/// 20 ms) instead of the one-packet flows, 100 µs timer assembly, 4 s; `obs` is the
/// `[obs]` body, and with `classed` flow k is in class k.
fn onoff_contention(obs: &str, classed: bool) -> RunResult {
    let mut s = star(&["0s", "0s"], 1, obs);
    s = s.replace("duration = \"50ms\"", "duration = \"4s\"\nseed = 3");
    s = s.replace("tb = \"1ms\"", "tb = \"100us\"");
    let i = s.find("[[flow]]").unwrap();
    s.truncate(i);
    for k in 0..2 {
        s += &format!("[[flow]]\ntype = \"onoff\"\nsrc = \"s{k}\"\ndst = \"d\"\nrate = \"400Mb/s\"\npacket_size = 1000\nmean_on = \"5ms\"\nmean_off = \"20ms\"\n");
        if classed {
            s += &format!("class = {k}\n");
        }
    }
    run(&s)
}

/// Packets that entered a burst.
fn sent(r: &RunResult) -> u64 {
    r.bursts.iter().map(|b| b.pkts_in).sum()
}

/// Packets the destinations received.
fn recv(r: &RunResult) -> u64 {
    r.flows.iter().map(|f| f.segments_received).sum()
}

/// Bursts lost over bursts sent.
fn burst_loss(r: &RunResult) -> f64 {
    r.bursts.iter().map(|b| b.bursts_lost).sum::<u64>() as f64
        / r.bursts.iter().map(|b| b.bursts_sent).sum::<u64>() as f64
}

/// The packets of the bursts lost whole, from the burst trace.
fn pkts_in_bursts_lost_whole(r: &RunResult) -> u64 {
    r.burst_trace
        .iter()
        .filter(|b| b.event == BurstEvent::Lost)
        .map(|b| b.pkts as u64)
        .sum()
}

#[test]
fn a_burst_is_delayed_by_exactly_one_fdl() {
    // Undisturbed delivery times (each flow alone).
    let alone = |st: &str| {
        let r = run(&star(&[st], 1, ""));
        fate(&r, 0).0.unwrap()
    };
    let (a0, b0) = (alone("0s"), alone("100ns"));
    assert_eq!(b0 - a0, SimTime::from_ns(100));
    // Together on one wavelength, without FDLs: B overlaps A at C1 and is lost there.
    let r = run(&star(&["0s", "100ns"], 1, ""));
    assert_eq!(fate(&r, queue_of(&r, 0)).0, Some(a0));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    // With a 1 µs line B is delivered exactly 1 µs late; A is untouched.
    let cont = "[obs.contention]\nfdl = [\"1us\"]\nper_wavelength = true\n";
    let r = run(&star(&["0s", "100ns"], 1, cont));
    assert_eq!(fate(&r, queue_of(&r, 0)).0, Some(a0));
    assert_eq!(fate(&r, queue_of(&r, 1)).0, Some(b0 + us(1)));
    let out = r
        .obs_channels
        .iter()
        .find(|c| c.from == "C1" && c.to == "E2")
        .unwrap();
    assert_eq!((out.bursts_scheduled, out.bursts_via_fdl), (2, 1));
    assert_eq!(out.busy_s, 2.0 * 0.8e-6);
    assert_eq!(
        r.obs_links.iter().map(|l| l.bursts_scheduled).sum::<u64>(),
        4
    );
    // A line too short to clear A (50 ns: B would start at 150 ns, A ends at 800 ns)
    // does not help: B is lost to contention as before.
    let r = run(&star(
        &["0s", "100ns"],
        1,
        "[obs.contention]\nfdl = [\"50ns\"]\n",
    ));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    // Lines are tried in order: the first that clears A wins (50 ns fails, 2 µs fits).
    let r = run(&star(
        &["0s", "100ns"],
        1,
        "[obs.contention]\nfdl = [\"50ns\", \"2us\", \"1us\"]\n",
    ));
    assert_eq!(fate(&r, queue_of(&r, 1)).0, Some(b0 + us(2)));
}

/// FDL capacity: C arrives 1 µs after A, after B (100 ns after A) has entered the 1 µs
/// line but before B has left it. With `many` the line takes C too (entries do not
/// overlap): C leaves 1 µs late, after B's delayed passage [1.1, 1.9) µs. With `one`
/// the line is busy until B's tail leaves it (1.9 µs), so C takes the 2 µs line.
#[test]
fn fdl_capacity_one_versus_many() {
    let starts = ["0s", "100ns", "1us"];
    let alone = run(&star(&["1us"], 1, ""));
    let c0 = fate(&alone, 0).0.unwrap();
    for (cap, delay) in [("many", 1u64), ("one", 2)] {
        let cont =
            format!("[obs.contention]\nfdl = [\"1us\", \"2us\"]\nfdl_capacity = \"{cap}\"\n");
        let r = run(&star(&starts, 1, &cont));
        assert!(
            fate(&r, queue_of(&r, 1)).0.is_some(),
            "{cap}: B via the 1 µs line"
        );
        assert_eq!(fate(&r, queue_of(&r, 2)).0, Some(c0 + us(delay)), "{cap}");
    }
}

/// Limited conversion under wavelength continuity: three bursts on wavelength 0 (FFUC
/// at every ingress) overlap at C1, with 3 wavelengths toward E2. Without converters
/// B and C are lost (no_wavelength); one converter rescues B only (it is busy during
/// B's passage when C arrives); two rescue both, on wavelengths 1 and 2, undelayed.
#[test]
fn limited_converters_rescue_as_many_bursts_as_they_have_converters() {
    let starts = ["0s", "100ns", "200ns"];
    let base = "conversion = false\n";
    let r = run(&star(&starts, 3, base));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::NoWavelength))
    );
    assert_eq!(
        fate(&r, queue_of(&r, 2)),
        (None, Some(BurstLoss::NoWavelength))
    );
    let delivered = |n: u32, scope: &str| {
        let cont = format!(
            "{base}[obs.contention]\nconverters = {n}\nconverter_scope = \"{scope}\"\nper_wavelength = true\n"
        );
        let r = run(&star(&starts, 3, &cont));
        let got: Vec<bool> = (0..3)
            .map(|i| fate(&r, queue_of(&r, i)).0.is_some())
            .collect();
        let out: Vec<(u64, u64, u64)> = r
            .obs_channels
            .iter()
            .filter(|c| c.from == "C1" && c.to == "E2")
            .map(|c| {
                (
                    c.bursts_scheduled,
                    c.bursts_converted,
                    c.bursts_lost_no_wavelength,
                )
            })
            .collect();
        (got, out)
    };
    for scope in ["node", "fibre"] {
        assert_eq!(
            delivered(1, scope),
            (
                vec![true, true, false],
                vec![(1, 0, 1), (1, 1, 0), (0, 0, 0)]
            ),
            "{scope}"
        );
        assert_eq!(
            delivered(2, scope),
            (
                vec![true, true, true],
                vec![(1, 0, 0), (1, 1, 0), (1, 1, 0)]
            ),
            "{scope}"
        );
    }
    // Converted bursts are not delayed.
    let alone = run(&star(&["200ns"], 3, base));
    let cont = format!("{base}[obs.contention]\nconverters = 2\n");
    let r = run(&star(&starts, 3, &cont));
    assert_eq!(fate(&r, queue_of(&r, 2)).0, fate(&alone, 0).0);
}

/// Converter then FDL: with one converter and a 1 µs line, B is converted and C (no
/// converter free, no wavelength free) waits in the line on its own wavelength 0.
#[test]
fn converter_first_then_fdl() {
    let starts = ["0s", "100ns", "200ns"];
    let cont = "conversion = false\n[obs.contention]\nconverters = 1\nfdl = [\"1us\"]\nper_wavelength = true\n";
    let r = run(&star(&starts, 3, cont));
    let alone = run(&star(&["200ns"], 3, "conversion = false\n"));
    assert_eq!(
        fate(&r, queue_of(&r, 2)).0,
        Some(fate(&alone, 0).0.unwrap() + us(1))
    );
    let out: Vec<(u64, u64)> = r
        .obs_channels
        .iter()
        .filter(|c| c.from == "C1" && c.to == "E2")
        .map(|c| (c.bursts_via_fdl, c.bursts_converted))
        .collect();
    assert_eq!(out, vec![(1, 0), (0, 1), (0, 0)]);
}

#[test]
fn contention_settings_are_off_by_default_and_the_table_is_opt_in() {
    let r = run(&star(&["0s"], 1, ""));
    assert!(r.obs_channels.is_empty());
    let r = run(&star(
        &["0s"],
        2,
        "[obs.contention]\nper_wavelength = true\n",
    ));
    assert_eq!(r.obs_channels.len(), 8, "2 duplex fibres × 2 wavelengths");
}

#[test]
fn bad_contention_settings_name_the_field() {
    let cases = [
        (
            "[obs.contention]\nfdl = [\"0s\"]\n",
            "obs.contention.fdl[0]",
        ),
        (
            "[obs.contention]\nfdl_capacity = \"one\"\n",
            "obs.contention.fdl_capacity",
        ),
        (
            "[obs.contention]\nconverters = 2\n",
            "obs.contention.converters",
        ),
        (
            "conversion = false\n[obs.contention]\nconverters = 0\n",
            "obs.contention.converters",
        ),
        (
            "conversion = false\n[obs.contention]\nconverter_scope = \"node\"\n",
            "obs.contention.converter_scope",
        ),
    ];
    for (obs, field) in cases {
        let err = run_toml(&star(&["0s"], 1, obs), None, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains(field), "{obs}: {err}");
    }
    let err = run_toml(
        &star(&["0s"], 1, "[obs.contention]\nfdls = []\n"),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("fdls"), "{err}");
}

/// Head-dropping segmentation: A (one 1000 B packet, 0.8 µs) holds C1 → E2 when B (five
/// 1000 B packets, 4 µs) arrives 100 ns later. Without segmentation B is lost whole; with
/// it B keeps `[0.8, 4.1)` µs: its first 0.7 µs (875 bytes at 10 Gb/s) are cut, which
/// loses its first packet only; the other four arrive when B alone would have.
#[test]
fn head_dropping_loses_only_the_overlapping_packets() {
    let mk = |obs: &str| {
        star(&["0s", "100ns"], 1, obs).replace(
            "src = \"s1\"\ndst = \"d\"\nrate = \"8Mb/s\"",
            "src = \"s1\"\ndst = \"d\"\nrate = \"80Mb/s\"",
        )
    };
    let alone = run(&star(&["100ns"], 1, "").replace("8Mb/s", "80Mb/s"));
    assert_eq!(alone.flows[0].segments_received, 5);
    let b_alone = fate(&alone, 0).0.unwrap();
    let r = run(&mk(""));
    assert_eq!(r.flows[1].segments_received, 0);
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    let r = run(&mk(
        "[obs.contention]\nsegmentation = \"head\"\nper_wavelength = true\n",
    ));
    assert_eq!(r.flows[0].segments_received, 1, "A untouched");
    assert_eq!(r.flows[1].segments_received, 4, "B loses its first packet");
    assert_eq!(
        fate(&r, queue_of(&r, 1)).0,
        Some(b_alone),
        "B's tail is on time"
    );
    let out = r
        .obs_channels
        .iter()
        .find(|c| c.from == "C1" && c.to == "E2")
        .unwrap();
    assert_eq!((out.bursts_scheduled, out.bursts_segmented), (2, 1));
    let qb = queue_of(&r, 1);
    let row = r.bursts.iter().find(|b| b.queue == qb).unwrap();
    assert_eq!((row.pkts_lost_head_cut, row.pkts_lost_tail_cut), (1, 0));
    let link = r
        .obs_links
        .iter()
        .find(|l| l.from == "C1" && l.to == "E2")
        .unwrap();
    assert_eq!((link.bursts_head_cut, link.bursts_tail_cut), (1, 0));
    // Reserved: A's 0.8 µs and B's kept [0.8, 4.1) µs.
    assert_eq!(out.busy_s, 0.8e-6 + 3.3e-6);
    // JIT everywhere cannot cut a head: an error naming the field.
    let err = run_toml(
        &mk("signalling = \"jit\"\n[obs.contention]\nsegmentation = \"head\"\n"),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("obs.contention.segmentation"), "{err}");
}

/// Segmentation under random contention (two on/off UDP sources of 1000 B packets on
/// one wavelength): every packet lost is either in a burst lost whole or starts within
/// a cut head, and a cut of `c` bytes loses exactly ⌈c / 1000⌉ packets, so the packets
/// lost to cuts lie between Σc / 1000 and Σc / 1000 + (bursts cut). Packet loss then
/// falls below the burst loss without segmentation (the same traffic: UDP does not
/// react to loss).
#[test]
fn segmentation_loses_the_overlap_only() {
    let whole = onoff_contention("[obs.contention]\nper_wavelength = true\n", false);
    let lost_whole = sent(&whole) - recv(&whole);
    let burst_loss = burst_loss(&whole);
    assert!(lost_whole > 100, "contention happens: {lost_whole}");
    let seg = onoff_contention(
        "[obs.contention]\nsegmentation = \"head\"\nper_wavelength = true\n",
        false,
    );
    let out = seg
        .obs_channels
        .iter()
        .find(|c| c.from == "C1" && c.to == "E2")
        .unwrap();
    let (n_cut, bytes_cut) = (out.bursts_segmented, out.bytes_cut);
    assert!(n_cut > 20, "{n_cut}");
    let lost = sent(&seg) - recv(&seg);
    let in_lost_bursts = pkts_in_bursts_lost_whole(&seg);
    let cut_pkts = lost - in_lost_bursts;
    assert!(
        bytes_cut / 1000 <= cut_pkts && cut_pkts <= bytes_cut.div_ceil(1000) + n_cut,
        "{cut_pkts} packets lost to {n_cut} cuts of {bytes_cut} bytes"
    );
    assert!(
        cut_pkts >= n_cut,
        "every cut loses at least its first packet"
    );
    // Against the run without segmentation (same traffic: UDP does not react to loss):
    // the packet loss falls below the burst loss, by less than the share of packets cut.
    let pkt_loss = lost as f64 / sent(&seg) as f64;
    assert!(
        pkt_loss < burst_loss,
        "packet loss {pkt_loss} vs burst loss {burst_loss}"
    );
    assert_eq!(sent(&seg), sent(&whole));
    eprintln!(
        "burst loss without segmentation {burst_loss:.4}, packet loss with it {pkt_loss:.4}; \
         {n_cut} cuts, {bytes_cut} B, {cut_pkts} packets cut, {in_lost_bursts} in bursts lost whole"
    );
}

/// Tail-dropping segmentation: A (five 1000 B packets, 4 µs) holds C1 → E2 when B (one
/// 1000 B packet, 0.8 µs) arrives 2.05 µs later. Without segmentation B is lost whole;
/// with `segmentation = "tail"` B passes whole and on time, and A keeps the bytes sent
/// before B's head, ⌊2.05 µs × 10 Gb/s / 8⌋ = 2562: its first two packets (ending at
/// byte 2000) arrive, the three that end after byte 2562 are lost, and A's delivery is
/// its kept tail's arrival, 4 µs − 2.0496 µs earlier than alone.
#[test]
fn tail_dropping_cuts_the_scheduled_burst() {
    let mk = |obs: &str| {
        star(&["0s", "2050ns"], 1, obs).replace(
            "src = \"s0\"\ndst = \"d\"\nrate = \"8Mb/s\"",
            "src = \"s0\"\ndst = \"d\"\nrate = \"80Mb/s\"",
        )
    };
    let a_alone = run(&star(&["0s"], 1, "").replace("8Mb/s", "80Mb/s"));
    assert_eq!(a_alone.flows[0].segments_received, 5);
    let a_at = fate(&a_alone, 0).0.unwrap();
    let b_at = fate(&run(&star(&["2050ns"], 1, "")), 0).0.unwrap();
    let r = run(&mk(""));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    for spelling in ["tail", "head"] {
        let r = run(&mk(&format!(
            "[obs.contention]\nsegmentation = \"{spelling}\"\nper_wavelength = true\n"
        )));
        let out = r
            .obs_channels
            .iter()
            .find(|c| c.from == "C1" && c.to == "E2")
            .unwrap();
        let link = r
            .obs_links
            .iter()
            .find(|l| l.from == "C1" && l.to == "E2")
            .unwrap();
        let (qa, qb) = (queue_of(&r, 0), queue_of(&r, 1));
        let row = |q: u32| r.bursts.iter().find(|b| b.queue == q).unwrap();
        if spelling == "tail" {
            assert_eq!(r.flows[0].segments_received, 2, "A keeps two packets");
            assert_eq!(r.flows[1].segments_received, 1, "B passes whole");
            assert_eq!(fate(&r, qb).0, Some(b_at), "B on time");
            // 2562 B kept: 2.0496 µs at 10 Gb/s instead of 4 µs.
            assert_eq!(
                fate(&r, qa).0,
                Some(a_at - SimTime::from_ns(4000) + SimTime::from_ps(2_049_600))
            );
            assert_eq!((out.bursts_tail_cut, out.bursts_segmented), (1, 0));
            // The cut [2.05, 4) µs: 1.95 µs = 2437.5 B, rounded up.
            assert_eq!(out.tail_bytes_cut, 2438);
            assert_eq!((link.bursts_tail_cut, link.bursts_head_cut), (1, 0));
            assert_eq!(
                (row(qa).pkts_lost_tail_cut, row(qa).pkts_lost_head_cut),
                (3, 0)
            );
            assert_eq!(row(qa).bursts_lost + row(qb).bursts_lost, 0);
            // Reserved: A's [0, 2.05) µs and B's 0.8 µs.
            assert_eq!(out.busy_s, 2.05e-6 + 0.8e-6);
        } else {
            // Head-dropping instead: B lies inside A's passage, no tail of it is free,
            // so B is lost whole and A is untouched.
            assert_eq!(r.flows[0].segments_received, 5);
            assert_eq!(fate(&r, qb), (None, Some(BurstLoss::Contention)));
            assert_eq!((link.bursts_head_cut, link.bursts_tail_cut), (0, 0));
        }
    }
    // JIT everywhere cannot cut a segment: an error naming the field.
    let err = run_toml(
        &mk("signalling = \"jit\"\n[obs.contention]\nsegmentation = \"tail\"\n"),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("obs.contention.segmentation"), "{err}");
}

/// Tail-dropping under random contention (the traffic of the test above): every packet
/// lost is in a burst lost whole or ends within a cut tail, a cut of `c` bytes loses
/// between ⌊c / 1000⌋ and ⌈c / 1000⌉ + 1 packets, the burst table counts exactly the
/// packets lost to cuts, and packet loss falls below the burst loss without
/// segmentation (the same traffic: UDP does not react to loss).
#[test]
fn tail_dropping_loses_the_overlap_only() {
    let whole = onoff_contention("[obs.contention]\nper_wavelength = true\n", false);
    let burst_loss = burst_loss(&whole);
    let seg = onoff_contention(
        "[obs.contention]\nsegmentation = \"tail\"\nper_wavelength = true\n",
        false,
    );
    assert_eq!(sent(&seg), sent(&whole));
    let out = seg
        .obs_channels
        .iter()
        .find(|c| c.from == "C1" && c.to == "E2")
        .unwrap();
    let (n_cut, bytes_cut) = (out.bursts_tail_cut, out.tail_bytes_cut);
    assert!(n_cut > 20, "{n_cut}");
    let lost = sent(&seg) - recv(&seg);
    let in_lost_bursts = pkts_in_bursts_lost_whole(&seg);
    let cut_pkts = lost - in_lost_bursts;
    let counted: u64 = seg.bursts.iter().map(|b| b.pkts_lost_tail_cut).sum();
    assert_eq!(counted, cut_pkts, "the burst table names every packet cut");
    assert!(
        bytes_cut / 1000 <= cut_pkts && cut_pkts <= bytes_cut.div_ceil(1000) + n_cut,
        "{cut_pkts} packets lost to {n_cut} cuts of {bytes_cut} bytes"
    );
    let pkt_loss = lost as f64 / sent(&seg) as f64;
    assert!(
        pkt_loss < burst_loss,
        "packet loss {pkt_loss} vs burst loss {burst_loss}"
    );
    eprintln!(
        "burst loss without segmentation {burst_loss:.4}, packet loss with tail-dropping \
         {pkt_loss:.4}; {n_cut} cuts, {bytes_cut} B, {cut_pkts} packets cut, \
         {in_lost_bursts} in bursts lost whole"
    );
}

/// Priority preemption: A (class 0, five 1000 B packets, 4 µs) holds C1 → E2 when B
/// (class 1, one packet, 0.8 µs) arrives 2.05 µs later. With B's class of the higher
/// priority, `full` preemption loses A whole (`preempted`, charged to C1 → E2) and
/// delivers B on time; `segment` cuts A's tail from B's arrival (A keeps 2562 B, its
/// first two packets); with the priorities reversed B is lost as without preemption.
#[test]
fn a_higher_priority_burst_preempts_a_reservation() {
    let mk = |prio: (u32, u32), mode: &str| {
        let obs = format!(
            "classifier = \"per_flow\"\n[[obs.class]]\nname = \"low\"\npriority = {}\n\
             [[obs.class]]\nname = \"high\"\npriority = {}\n\
             [obs.contention]\npreemption = \"{mode}\"\nper_wavelength = true\n",
            prio.0, prio.1
        );
        star(&["0s", "2050ns"], 1, &obs)
            .replace(
                "src = \"s0\"\ndst = \"d\"\nrate = \"8Mb/s\"",
                "src = \"s0\"\ndst = \"d\"\nrate = \"80Mb/s\"",
            )
            .replace(
                "src = \"s1\"\ndst = \"d\"\n",
                "src = \"s1\"\ndst = \"d\"\nclass = 1\n",
            )
    };
    let b_at = fate(&run(&star(&["2050ns"], 1, "")), 0).0.unwrap();
    let link = |r: &RunResult| {
        r.obs_links
            .iter()
            .find(|l| l.from == "C1" && l.to == "E2")
            .unwrap()
            .clone()
    };
    // Full preemption: A lost at C1, B on time.
    let r = run(&mk((0, 1), "full"));
    let (qa, qb) = (queue_of(&r, 0), queue_of(&r, 1));
    assert_eq!(fate(&r, qa), (None, Some(BurstLoss::Preempted)));
    assert_eq!(fate(&r, qb).0, Some(b_at));
    assert_eq!(
        (r.flows[0].segments_received, r.flows[1].segments_received),
        (0, 1)
    );
    let l = link(&r);
    assert_eq!((l.lost_preempted, l.bursts_scheduled), (1, 2));
    let row = r.bursts.iter().find(|b| b.queue == qa).unwrap();
    assert_eq!((row.lost_preempted, row.bursts_lost), (1, 1));
    let lost = r
        .burst_trace
        .iter()
        .find(|b| b.queue == qa && b.event == BurstEvent::Lost)
        .unwrap();
    assert_eq!(lost.reason, Some(BurstLoss::Preempted));
    // Only B's 0.8 µs stays reserved on C1 → E2.
    let ch = r
        .obs_channels
        .iter()
        .find(|c| c.from == "C1" && c.to == "E2")
        .unwrap();
    assert_eq!(ch.busy_s, 0.8e-6);
    // Segment preemption: A keeps its first two packets.
    let r = run(&mk((0, 1), "segment"));
    let (qa, qb) = (queue_of(&r, 0), queue_of(&r, 1));
    assert_eq!(fate(&r, qb).0, Some(b_at));
    assert_eq!(
        (r.flows[0].segments_received, r.flows[1].segments_received),
        (2, 1)
    );
    let row = r.bursts.iter().find(|b| b.queue == qa).unwrap();
    assert_eq!((row.pkts_lost_tail_cut, row.bursts_lost), (3, 0));
    assert_eq!((link(&r).bursts_tail_cut, link(&r).lost_preempted), (1, 0));
    // Priorities reversed: B cannot preempt A.
    let r = run(&mk((1, 0), "full"));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    assert_eq!(r.flows[0].segments_received, 5);
    // One priority everywhere: the setting is an error naming the field.
    let err = run_toml(&mk((1, 1), "full"), None, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("obs.contention.preemption"), "{err}");
    // "none" is accepted and changes nothing.
    let r = run(&mk((1, 1), "none"));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
}

/// Preemption under random contention (the traffic of the segmentation tests, flow 1 in
/// the class of priority 1): the high-priority flow loses no more bursts than without
/// preemption, the low-priority one loses bursts to `preempted`, and every packet lost
/// is in a burst lost whole or in a cut tail (`segment`). Debug builds check every
/// removal and cut against the scheduler's reference model.
#[test]
fn preemption_under_random_contention() {
    let mk = |mode: &str| {
        let obs = format!(
            "classifier = \"per_flow\"\n[[obs.class]]\npriority = 0\n[[obs.class]]\npriority = 1\n\
             [obs.contention]\npreemption = \"{mode}\"\n"
        );
        onoff_contention(&obs, true)
    };
    let lost_by = |r: &RunResult, i: usize| {
        let q = queue_of(r, i);
        r.bursts.iter().find(|b| b.queue == q).unwrap().clone()
    };
    let none = mk("none");
    for mode in ["full", "segment"] {
        let r = mk(mode);
        let (lo, hi) = (lost_by(&r, 0), lost_by(&r, 1));
        assert!(
            hi.bursts_lost <= lost_by(&none, 1).bursts_lost,
            "{mode}: {} > {}",
            hi.bursts_lost,
            lost_by(&none, 1).bursts_lost
        );
        assert_eq!(hi.lost_preempted, 0, "{mode}");
        if mode == "full" {
            assert!(lo.lost_preempted > 10, "{mode}: {}", lo.lost_preempted);
        } else {
            assert!(
                lo.pkts_lost_tail_cut > 10,
                "{mode}: {}",
                lo.pkts_lost_tail_cut
            );
        }
        let cut: u64 = r.bursts.iter().map(|b| b.pkts_lost_tail_cut).sum();
        assert_eq!(
            sent(&r) - recv(&r),
            pkts_in_bursts_lost_whole(&r) + cut,
            "{mode}"
        );
        eprintln!(
            "{mode}: high-priority bursts lost {} (without preemption {}), low-priority \
             preempted {}, packets in cut tails {}",
            hi.bursts_lost,
            lost_by(&none, 1).bursts_lost,
            lo.lost_preempted,
            lo.pkts_lost_tail_cut
        );
    }
}

/// Preemption that can never act is refused naming `obs.contention.preemption`, even
/// when the classes' priorities differ: under `per_egress` every burst is class 0's,
/// and under `per_flow` / `per_class` flows that all use one class form bursts of one
/// priority. One flow in the other class makes the setting act (accepted).
#[test]
fn preemption_with_one_priority_in_use_is_refused() {
    let mk = |classifier: &str, second_class: Option<u32>| {
        let obs = format!(
            "classifier = \"{classifier}\"\n[[obs.class]]\nname = \"low\"\npriority = 0\n\
             [[obs.class]]\nname = \"high\"\npriority = 1\n\
             [obs.contention]\npreemption = \"full\"\n"
        );
        let s = star(&["0s", "2050ns"], 1, &obs);
        match second_class {
            Some(c) => s.replace(
                "src = \"s1\"\ndst = \"d\"\n",
                &format!("src = \"s1\"\ndst = \"d\"\nclass = {c}\n"),
            ),
            None => s,
        }
    };
    for classifier in ["per_flow", "per_class"] {
        let err = run_toml(&mk(classifier, None), None, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("obs.contention.preemption: has no effect")
                && err.contains("every flow crossing the OBS network is in a class of priority 0"),
            "{classifier}: {err}"
        );
        // Both flows in the high class: still one priority.
        let both_high = mk(classifier, Some(1)).replace(
            "src = \"s0\"\ndst = \"d\"\n",
            "src = \"s0\"\ndst = \"d\"\nclass = 1\n",
        );
        let err = run_toml(&both_high, None, None).unwrap_err().to_string();
        assert!(err.contains("class of priority 1"), "{classifier}: {err}");
        assert!(
            run_toml(&mk(classifier, Some(1)), None, None).is_ok(),
            "{classifier}"
        );
    }
    let err = run_toml(&mk("per_egress", None), None, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("obs.contention.preemption: has no effect")
            && err.contains("\"per_egress\" every burst is in class 0"),
        "{err}"
    );
}
