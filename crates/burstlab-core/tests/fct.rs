//! Completion times of finite TCP flows (issue 52 item 7): the flow's end is the
//! arrival at its sender of the ACK of its last segment; `ideal_fct_s` (the closed
//! recursion of `world/fct.rs`) is checked against uncontended, lossless runs on packet
//! and OBS paths and several sizes; a flow still running at the end is not completed;
//! a finite flow's goodput is taken over its own life.

mod common;

use burstlab_core::stats::{FctRow, RunResult};
use common::run;

/// `s –(access, 10 ms)– r –(core, 20 ms)– d`, one TCP flow of `segments`.
fn packet_path(access: &str, core: &str, flow: &str, duration: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "r"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "r"
rate = "{access}"
delay = "10ms"
[[link]]
a = "r"
b = "d"
rate = "{core}"
delay = "20ms"
[[flow]]
type = "tcp"
src = "s"
dst = "d"
{flow}
"#
    )
}

/// yu's OBS path (examples/yu_path.toml) without loss: access `access`, per-flow
/// `assembly`, ACKs assembled too.
fn yu_path(access: &str, assembly: &str, flow: &str, duration: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\n");
    for (n, k) in [
        ("sender", "host"),
        ("E1", "edge"),
        ("C1", "core"),
        ("C2", "core"),
        ("E2", "edge"),
        ("receiver", "host"),
    ] {
        s += &format!("[[node]]\nname = \"{n}\"\nkind = \"{k}\"\n");
    }
    s += &format!("[[link]]\na = \"sender\"\nb = \"E1\"\nrate = \"{access}\"\ndelay = \"10ms\"\n");
    s +=
        &format!("[[link]]\na = \"E2\"\nb = \"receiver\"\nrate = \"{access}\"\ndelay = \"10ms\"\n");
    for (a, b) in [("E1", "C1"), ("C1", "C2"), ("C2", "E2")] {
        s += &format!(
            "[[fibre]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10GB/s\"\ndelay = \"10ms\"\nwavelengths = 1\n"
        );
    }
    s += &format!(
        "[obs]\nassembly = {assembly}\nclassifier = \"per_flow\"\nack_mode = \"assemble\"\n\
         bcp_processing = \"10us\"\nswitch_setup = \"5us\"\n"
    );
    s += &format!(
        "[[flow]]\ntype = \"tcp\"\nsrc = \"sender\"\ndst = \"receiver\"\nmss = \"1000B\"\n{flow}\n"
    );
    s
}

fn fct(r: &RunResult) -> &FctRow {
    assert_eq!(r.fct.len(), 1, "one finite flow");
    &r.fct[0]
}

/// The profiles of the packet-path check: ns-2's agents with and without the SYN
/// (segment 0 then has no header) and with delayed ACKs, the RFC profile with one ACK
/// per segment and with its default delayed ACKs (200 ms timer).
const PROFILES: [&str; 5] = [
    "profile = \"ns2\"",
    "profile = \"ns2\"\nsyn = false",
    "profile = \"ns2\"\nb = 2",
    "profile = \"rfc\"\nb = 1",
    "profile = \"rfc\"",
];
const SIZES: [u64; 6] = [1, 2, 7, 50, 300, 2000];

/// Uncontended and lossless on a packet path, the simulated completion time is the
/// ideal to the picosecond: with a slow access link (the ACK clock paces the pairs),
/// a slow core link (the bottleneck downstream), and equal links (rounds overlap once
/// the window exceeds the path), for every profile and size.
#[test]
fn lone_flows_finish_at_their_ideal_on_packet_paths() {
    for (access, core) in [
        ("100Mb/s", "10Mb/s"),
        ("1Mb/s", "100Mb/s"),
        ("1Gb/s", "1Gb/s"),
    ] {
        for prof in PROFILES {
            for n in SIZES {
                let flow = format!("{prof}\nwm = 64\nsegments = {n}\n");
                let r = run(&packet_path(access, core, &flow, "200s"));
                let f = fct(&r);
                let case = format!("{access}/{core} {prof:?} {n} segments: {f:?}");
                assert!(f.completed, "{case}");
                assert_eq!(
                    (f.retransmits, f.to_events, f.td_events),
                    (0, 0, 0),
                    "{case}"
                );
                assert_eq!(f.segments_delivered, n, "{case}");
                assert!(f.fct_s > 0.0, "{case}");
                assert_eq!(f.fct_s, f.ideal_fct_s, "{case}");
                assert_eq!(f.slowdown, 1.0, "{case}");
            }
        }
    }
}

/// yu's OBS path, uncontended and lossless: the rounds cross the timer assembler in
/// one burst each way (125 MB/s access) or evenly spaced over several (500 KB/s), and
/// the ideal is exact; with the hybrid assembler too while Lmax cuts no round.
#[test]
fn lone_flows_finish_at_their_ideal_on_yus_obs_path() {
    let timer1 = "{ type = \"timer\", tb = \"1ms\" }";
    let timer10 = "{ type = \"timer\", tb = \"10ms\" }";
    let hybrid = "{ type = \"hybrid\", tmax = \"5ms\", lmax = \"20KB\" }";
    let mut cases = Vec::new();
    for access in ["125MB/s", "500KB/s"] {
        for asm in [timer1, timer10, hybrid] {
            for n in [1u64, 7, 50, 300] {
                cases.push((access, asm, n));
            }
        }
    }
    // Not here: at 125 MB/s the 50-segment rounds of a 300-segment flow reach E1 as
    // pairs that Lmax = 20 kB cuts mid-round; the ideal, taking them evenly spaced, is
    // then an estimate (docs/guide/completion-times.md).
    cases.retain(|&(a, asm, n)| !(a == "125MB/s" && asm == hybrid && n == 300));
    for (access, asm, n) in cases {
        let flow = format!("variant = \"sack\"\nwm = 50\nsegments = {n}\n");
        let r = run(&yu_path(access, asm, &flow, "1000s"));
        let f = fct(&r);
        let case = format!("{access} {asm} {n} segments: {f:?}");
        assert!(f.completed, "{case}");
        assert_eq!(
            (f.retransmits, f.to_events, f.bursts_lost),
            (0, 0, 0),
            "{case}"
        );
        assert_eq!(f.fct_s, f.ideal_fct_s, "{case}");
    }
}

/// The ideal leaves out what is not the path's: at 1.25 KB/s a segment takes 0.83 s to
/// send, longer than the initial RTO, so the lone flow times out spuriously and
/// retransmits; its completion time exceeds the ideal by those retransmissions.
#[test]
fn spurious_timeouts_cost_more_than_the_ideal() {
    let asm = "{ type = \"timer\", tb = \"1ms\" }";
    let r = run(&yu_path(
        "1.25KB/s",
        asm,
        "variant = \"sack\"\nwm = 50\nsegments = 7\n",
        "1000s",
    ));
    let f = fct(&r);
    assert!(f.completed && f.to_events > 0 && f.retransmits > 0, "{f:?}");
    assert!(f.slowdown > 1.2, "{f:?}");
    // One segment has no second to be held behind: exact again.
    let r = run(&yu_path(
        "1.25KB/s",
        asm,
        "variant = \"sack\"\nwm = 50\nsegments = 1\n",
        "1000s",
    ));
    assert_eq!(fct(&r).fct_s, fct(&r).ideal_fct_s);
}

/// A flow still running at the end: counted, not completed, no end or completion time;
/// its goodput is measured over the run as for an infinite flow.
#[test]
fn a_flow_running_at_the_end_is_not_completed() {
    let flow = "profile = \"rfc\"\nwm = 64\nsegments = 100000\n";
    let r = run(&packet_path("100Mb/s", "10Mb/s", flow, "5s"));
    let f = fct(&r);
    assert!(!f.completed);
    assert!(f.end_s.is_nan() && f.fct_s.is_nan() && f.slowdown.is_nan());
    assert!(f.ideal_fct_s > 5.0, "{f:?}");
    let row = &r.flows[0];
    assert!(!row.completed && row.end_s.is_nan());
    assert_eq!(row.size_segments, Some(100_000));
    assert_eq!(row.measured_s, 5.0);
}

/// The user report of issue 52: 2000 segments on a 100 s run reported the goodput over
/// the whole run. A finite flow's goodput, rates and mean cwnd are over its own life:
/// from its start to its end.
#[test]
fn a_finite_flows_goodput_is_over_its_own_life() {
    let flow = "profile = \"ns2\"\nwm = 50\nsegments = 2000\nstart = \"3s\"\n";
    let r = run(&packet_path("100Mb/s", "10Mb/s", flow, "100s"));
    let row = &r.flows[0];
    assert!(row.completed);
    assert_eq!(row.start_s, 3.0);
    let life = row.end_s - row.start_s;
    assert!(life > 0.0 && life < 5.0, "{row:?}");
    assert_eq!(row.measured_s, life);
    assert_eq!(row.segments_delivered, 2000);
    assert_eq!(row.goodput_segps, 2000.0 / life);
    assert!(row.mean_cwnd_segments > 1.0 && row.mean_cwnd_segments <= 50.0);
    // An infinite flow has no size, end or completion.
    let r = run(&packet_path("100Mb/s", "10Mb/s", "wm = 50\n", "10s"));
    assert!(r.fct.is_empty());
    let row = &r.flows[0];
    assert_eq!(row.size_segments, None);
    assert!(!row.completed && row.end_s.is_nan());
    assert_eq!(row.measured_s, 10.0);
}
