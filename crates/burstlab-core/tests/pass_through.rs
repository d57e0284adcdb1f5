//! Passing packets through links (a packet bound for a link that only one link feeds and
//! that never drops skips the feeding link's pipe and arrival event when that pipe is
//! empty: `Links::pass_through`), and early delivery at hosts that only receive (such a
//! host takes a packet when its last link does, at its arrival time: the world's
//! `EARLY_DELIVERY`), change speed only. Every scenario here runs with them on and off
//! and must give the same results, number for number, traces included; the runs with
//! them on must take fewer events where they apply.

mod common;

use burstlab_core::world::World;
use std::path::Path;

/// Runs `text` with `set(world, on)` applied first (a switch of the world): the results as
/// text (every number exact; `f64`s print in their shortest round-trip form) and the
/// events processed.
fn run(text: &str, set: fn(&mut World, bool), on: bool) -> (String, u64) {
    let mut w = common::world(text);
    set(&mut w, on);
    w.run_until_end();
    let events = w.events_processed();
    let mut res = w.into_result();
    res.version.clear();
    res.events = 0;
    (format!("{res:?}"), events)
}

/// `text` with switch `set` on and off (`what` names it): the same results, and no more
/// events with it on; returns the events with and without.
fn same_with_and_without(
    name: &str,
    text: &str,
    what: &str,
    set: fn(&mut World, bool),
) -> (u64, u64) {
    let (on, e_on) = run(text, set, true);
    let (off, e_off) = run(text, set, false);
    assert!(
        on == off,
        "{name}: {what} changed the results ({e_on} events against {e_off})"
    );
    assert!(e_on <= e_off, "{name}: {e_on} events against {e_off}");
    (e_on, e_off)
}

/// Passing through (and with it early delivery) on and off.
fn same_both_ways(name: &str, text: &str) -> (u64, u64) {
    same_with_and_without(name, text, "passing through", World::set_pass_through)
}

/// Early delivery at hosts that only receive on and off, passing through on.
fn same_early_or_not(name: &str, text: &str) -> (u64, u64) {
    same_with_and_without(name, text, "early delivery", World::set_early_delivery)
}

/// A path of `rates.len()` links from `src` to `dst`; `extra` is appended to link `k`'s
/// entry for `(k, extra)` in `links`.
fn path(sim: &str, rates: &[&str], links: &[(usize, &str)], flows: &str) -> String {
    let mut s = format!("[sim]\n{sim}\n[[node]]\nname = \"src\"\nkind = \"host\"\n");
    for k in 1..rates.len() {
        s += &format!("[[node]]\nname = \"r{k}\"\n");
    }
    s += "[[node]]\nname = \"dst\"\nkind = \"host\"\n";
    for (k, rate) in rates.iter().enumerate() {
        let a = if k == 0 {
            "src".into()
        } else {
            format!("r{k}")
        };
        let b = if k + 1 == rates.len() {
            "dst".into()
        } else {
            format!("r{}", k + 1)
        };
        s += &format!("[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"10ms\"\n");
        for (_, extra) in links.iter().filter(|(i, _)| *i == k) {
            s += extra;
            s += "\n";
        }
    }
    s + flows
}

#[test]
fn every_golden_scenario_gives_the_same_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/scenarios");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 8);
    let mut fewer = 0;
    for p in &names {
        let text = std::fs::read_to_string(p).unwrap();
        let (on, off) = same_both_ways(&p.display().to_string(), &text);
        fewer += usize::from(on < off);
    }
    // The mesh (a third fewer events) and the linear OBS network (a fifth) have links
    // that only one link feeds; the others' paths have limited or lossy links, or an
    // edge hook.
    assert!(
        fewer >= 2,
        "passing through applied in only {fewer} scenarios"
    );
}

/// The 5-hop benchmark path (SACK, random loss on the middle hop: a link that drops is
/// never passed into), with a warm-up and traces: packets in flight at the warm-up
/// instant and at the end take the pipes, and the counters see them there.
#[test]
fn a_lossy_path_with_warmup_and_traces() {
    let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"src\"\ndst = \"dst\"\nvariant = \"sack\"\n\
                 wm = 50\nmss = \"1000B\"\n";
    let text = path(
        "duration = \"120.0137s\"\nwarmup = \"30.0071s\"\nseed = 5\n\
         trace = { cwnd = true, packets = true, start = \"29s\", end = \"31s\" }",
        &["1Gb/s"; 5],
        &[(2, "loss_ab = 0.01")],
        flows,
    );
    let (on, off) = same_both_ways("path", &text);
    // Data cross two arrival events instead of five, ACKs one instead of five.
    assert!(on * 2 < off, "{on} events against {off}");
}

/// Queues that build up: a CBR source overloads the second hop of a path (no limit
/// there, so a waiting packet must stay in that link's pipe), a TCP flow shares it, and
/// the third hop has a drop-tail limit (a limited link is never passed through).
#[test]
fn queues_building_up_and_limited_links() {
    let flows = "[[flow]]\ntype = \"cbr\"\nsrc = \"src\"\ndst = \"dst\"\nrate = \"12Mb/s\"\n\
                 stop = \"1.5s\"\n\
                 [[flow]]\ntype = \"tcp\"\nsrc = \"src\"\ndst = \"dst\"\nvariant = \"newreno\"\n\
                 wm = 100\n\
                 [[flow]]\ntype = \"onoff\"\nsrc = \"src\"\ndst = \"dst\"\nrate = \"4Mb/s\"\n\
                 mean_on = \"20ms\"\nmean_off = \"30ms\"\nstart = \"0.2s\"\n";
    let text = path(
        "duration = \"4s\"\nwarmup = \"0.5s\"\nseed = 11",
        &["100Mb/s", "10Mb/s", "20Mb/s", "100Mb/s"],
        &[(2, "queue_pkts = 20")],
        flows,
    );
    same_both_ways("overload", &text);
}

/// Eight TCP flows of four variants on a dumbbell whose 40-packet drop-tail queue is full
/// at the warm-up instant (0.2003 s of a 0.6 s run).
fn mixed_dumbbell() -> String {
    let sim = "duration = \"0.6s\"\nwarmup = \"0.2003s\"\nseed = 3";
    common::dumbbell(8, sim, 40, 300, &["sack", "newreno", "reno", "tahoe"])
}

/// A dumbbell: the drop-tail bottleneck feeds each receiver's link alone, so packets pass
/// through it, waiting in its queue or not, and its limit counts them all (losses,
/// retransmissions and timeouts); the warm-up instant falls while its queue is full.
#[test]
fn a_dumbbell_with_a_full_drop_tail_queue() {
    let s = mixed_dumbbell();
    let (on, off) = same_both_ways("dumbbell", &s);
    // Data and ACKs cross two arrival events instead of three.
    assert!(on * 10 < off * 8, "{on} events against {off}");
}

/// Packets kept in a limited link's pipe across the warm-up instant, with the run's end
/// close behind: the link's next arrival event passes on the kept packets that arrive
/// inside the run (`Due::Flush`), and must keep those that arrive after its end. A CBR
/// source keeps a 20-packet queue at the 10 Mb/s hop, so the packets in its pipe span
/// about 34 ms, longer than the 4 ms between warm-up and end.
#[test]
fn kept_packets_across_warmup_with_the_end_close_behind() {
    let flows = "[[flow]]\ntype = \"cbr\"\nsrc = \"src\"\ndst = \"dst\"\nrate = \"12Mb/s\"\n\
                 [[flow]]\ntype = \"tcp\"\nsrc = \"src\"\ndst = \"dst\"\nvariant = \"sack\"\n\
                 wm = 64\n";
    for (duration, warmup) in [
        ("1.000s", "0.996s"),
        ("1.0021s", "0.9993s"),
        ("0.7s", "0.69s"),
    ] {
        let text = path(
            &format!("duration = \"{duration}\"\nwarmup = \"{warmup}\"\nseed = 2"),
            &["100Mb/s", "10Mb/s", "100Mb/s"],
            &[(1, "queue_pkts = 20")],
            flows,
        );
        same_both_ways(&format!("warm-up {warmup}, end {duration}"), &text);
    }
}

/// A limited link whose packets go on to two links: one it alone feeds and that never
/// drops (passed into), one with a queue limit of its own (never passed into). A flush
/// of kept packets after warm-up passes them on up to the first packet bound for the
/// limited link, which takes an arrival event as usual.
#[test]
fn a_limited_link_feeding_a_passable_and_a_limited_link() {
    let link = |a: &str, b: &str, rate: &str, extra: &str| {
        format!("[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"5ms\"\n{extra}")
    };
    let mut s = String::new();
    for (n, host) in [
        ("s1", true),
        ("s2", true),
        ("r1", false),
        ("r2", false),
        ("r3", false),
        ("d1", true),
        ("d2", true),
    ] {
        s += &format!("[[node]]\nname = \"{n}\"\n");
        if host {
            s += "kind = \"host\"\n";
        }
    }
    s += &link("s1", "r1", "100Mb/s", "");
    s += &link("s2", "r1", "100Mb/s", "");
    s += &link("r1", "r2", "10Mb/s", "queue_pkts = 20\n");
    s += &link("r2", "d1", "100Mb/s", "");
    s += &link("r2", "r3", "8Mb/s", "queue_pkts = 5\n");
    s += &link("r3", "d2", "100Mb/s", "");
    s += "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"d1\"\nrate = \"6Mb/s\"\n\
          [[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"d1\"\nvariant = \"sack\"\nwm = 64\n\
          [[flow]]\ntype = \"tcp\"\nsrc = \"s2\"\ndst = \"d2\"\nvariant = \"newreno\"\nwm = 64\n";
    for (duration, warmup) in [("1.5s", "0.7003s"), ("1.000s", "0.996s")] {
        let text =
            format!("[sim]\nduration = \"{duration}\"\nwarmup = \"{warmup}\"\nseed = 4\n{s}");
        same_both_ways(&format!("two next hops, warm-up {warmup}"), &text);
    }
}

/// Every golden scenario, example and benchmark scenario (cut to a few simulated seconds)
/// gives the same results with early delivery at hosts that only receive and without
/// it; it applies on the packet networks (dumbbells, paths) and not behind OBS edges.
#[test]
fn early_delivery_changes_no_result() {
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
    assert!(files.len() >= 20, "{files:?}");
    let mut fewer = Vec::new();
    for p in &files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read_to_string(p).unwrap();
        if !common::core_alone_runs(&raw) {
            continue;
        }
        let text = common::shortened(&raw, 3.0);
        let text = if name.starts_with("dumbbell_320") {
            common::shortened(&text, 0.2)
        } else {
            text
        };
        let (on, off) = same_early_or_not(&name, &text);
        if on < off {
            fewer.push(name);
        }
    }
    for name in [
        "path_5hop.toml",
        "dumbbell_320.toml",
        "single_flow.toml",
        "tahoe_path.toml",
    ] {
        assert!(
            fewer.iter().any(|f| f == name),
            "{name} not among {fewer:?}"
        );
    }
    // Receivers behind OBS edges, and a run tracing packets, take no packet early.
    for name in [
        "yu_1flow.toml",
        "mesh_9flow.toml",
        "yu_path.toml",
        "sack_traces.toml",
    ] {
        assert!(!fewer.iter().any(|f| f == name), "{name} among {fewer:?}");
    }
}

/// Where early delivery applies and where it does not: on a dumbbell of TCP flows whose
/// receivers acknowledge every segment, a segment and its ACK take three arrival events
/// instead of four; with delayed ACKs or a packet trace, none is saved.
#[test]
fn early_delivery_only_at_hosts_that_only_receive() {
    let base = mixed_dumbbell();
    let (on, off) = same_early_or_not("dumbbell", &base);
    assert!(on * 10 < off * 9, "{on} events against {off}");

    // Delayed ACKs: a receiver's timer would see a state run ahead of the clock.
    let delack = base.replace("variant = ", "b = 2\nvariant = ");
    assert_ne!(delack, base);
    let (on, off) = same_early_or_not("delayed ACKs", &delack);
    assert_eq!(on, off);

    // A packet trace records deliveries in the order they are handled.
    let traced = base.replace(
        "seed = 3",
        "seed = 3\ntrace = { packets = true, start = \"0.3s\", end = \"0.31s\" }",
    );
    assert_ne!(traced, base);
    let (on, off) = same_early_or_not("packet trace", &traced);
    assert_eq!(on, off);
}

/// The events that may deliver a packet name it, so that the look-ahead fetches its
/// record: with early delivery on a dumbbell, the access links' events (whose packets
/// pass the bottleneck and the receiver's link while both are empty) and the
/// bottleneck's; without it, only the links into hosts. Only speed depends on this, so
/// only this test notices when a change loses it (at 320 flows it is a tenth of the run).
#[test]
fn events_that_may_deliver_name_their_packet() {
    let sim = "duration = \"0.1s\"\nseed = 3";
    let n = 3;
    let text = common::dumbbell(n, sim, 40, 300, &["sack"]);
    // Nodes in scenario order: R1, R2, then s0, d0, s1, d1, ...
    let (r1, r2) = (0, 1);
    let (s, d) = (|i: u32| 2 + 2 * i, |i: u32| 3 + 2 * i);
    let naming = |early: bool| {
        let mut w = common::world(&text);
        w.set_early_delivery(early);
        let mut v = w.packet_naming_links();
        v.sort();
        v
    };
    let mut into_hosts: Vec<(u32, u32)> = (0..n as u32)
        .flat_map(|i| [(r1, s(i)), (r2, d(i))])
        .collect();
    into_hosts.sort();
    assert_eq!(naming(false), into_hosts);
    let mut early = into_hosts.clone();
    early.push((r1, r2));
    early.extend((0..n as u32).map(|i| (s(i), r1)));
    early.sort();
    assert_eq!(naming(true), early);
}
