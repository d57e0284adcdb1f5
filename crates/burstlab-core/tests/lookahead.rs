//! The event loop's look-ahead (fetching the next event's link and packet into the cache
//! one event ahead, in worlds that outgrow the caches) changes speed only: the same
//! scenario run with it forced on and forced off gives the same results, number for
//! number. In debug builds the loop also checks every hint it follows (the packet an
//! arrival event names is the one that arrives).

mod common;

/// `n` SACK senders on 100 Mb/s access links share a `n` × 50 Mb/s bottleneck with a
/// short drop-tail queue (losses, retransmissions and timeouts), each with its own
/// receiver.
fn dumbbell(n: usize) -> String {
    let sim = "duration = \"0.5s\"\nwarmup = \"0.1s\"\nseed = 3";
    common::dumbbell(n, sim, 60, 200, &["sack"])
}

/// `n` SACK senders through one OBS ingress edge, a core node and an egress edge to
/// their own receivers: bursts mix the flows' packets (one queue per egress), and two
/// wavelengths per fibre make bursts collide (lost bursts, retransmissions). Every burst
/// that arrives hands its packets to the egress's links, where receivers take them.
fn obs_mixed(n: usize) -> String {
    let mut s = String::from(
        "name = \"obs-mixed\"\n[sim]\nduration = \"0.5s\"\nseed = 5\n\
         [[node]]\nname = \"E1\"\nkind = \"edge\"\n\
         [[node]]\nname = \"C1\"\nkind = \"core\"\n\
         [[node]]\nname = \"E2\"\nkind = \"edge\"\n\
         [[fibre]]\na = \"E1\"\nb = \"C1\"\nrate = \"400Mb/s\"\ndelay = \"2ms\"\nwavelengths = 2\n\
         [[fibre]]\na = \"C1\"\nb = \"E2\"\nrate = \"400Mb/s\"\ndelay = \"2ms\"\nwavelengths = 2\n\
         [obs]\nassembly = { type = \"hybrid\", tmax = \"1ms\", lmax = \"25KB\" }\n\
         classifier = \"per_egress\"\nack_mode = \"bypass\"\n",
    );
    for i in 0..n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\na = \"s{i}\"\nb = \"E1\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[link]]\na = \"E2\"\nb = \"d{i}\"\nrate = \"100Mb/s\"\ndelay = \"1ms\"\n\
             [[flow]]\ntype = \"tcp\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nvariant = \"sack\"\nwm = 200\n\
             start = \"{i}ms\"\n"
        );
    }
    s
}

/// Runs `text` with the look-ahead threshold `above`; returns the results (as text, every
/// number exact), the queue drops, the bursts delivered and lost and their most packets
/// on average (over the assembly queues), and whether the loop was looking ahead at the
/// end.
fn run(text: &str, above: u64) -> (String, u64, (u64, u64, f64), bool) {
    let mut w = common::world(text);
    w.set_lookahead_above(above);
    w.run_until_end();
    let on = w.looks_ahead();
    let mut res = w.into_result();
    res.version.clear();
    let drops = res.links.iter().map(|l| l.drops_queue).sum();
    let delivered = res.bursts.iter().map(|b| b.bursts_delivered).sum();
    let lost = res.bursts.iter().map(|b| b.bursts_lost).sum();
    let pkts = res.bursts.iter().map(|b| b.mean_pkts).fold(0.0, f64::max);
    (format!("{res:?}"), drops, (delivered, lost, pkts), on)
}

#[test]
fn looking_ahead_changes_no_result() {
    let text = dumbbell(12);
    let (with, drops, _, on) = run(&text, 0);
    let (without, _, _, off) = run(&text, u64::MAX);
    assert!(on && !off, "the threshold did not switch the look-ahead");
    assert!(drops > 100, "only {drops} queue drops");
    assert_eq!(with, without);
    // The default threshold gives the same results too.
    assert_eq!(
        run(&text, burstlab_core::world::LOOKAHEAD_ABOVE_BYTES).0,
        with
    );
}

/// The same on an OBS network, where an arriving burst's packets are asked for a few
/// packets ahead of their turn (`World::burst_arrive`).
#[test]
fn looking_ahead_changes_no_result_on_an_obs_network() {
    let text = obs_mixed(24);
    let (with, _, (delivered, lost, pkts), on) = run(&text, 0);
    let (without, _, _, off) = run(&text, u64::MAX);
    assert!(on && !off, "the threshold did not switch the look-ahead");
    assert!(
        delivered > 500 && lost > 10,
        "{delivered} bursts delivered, {lost} lost"
    );
    // More packets to a burst than the hints look ahead (four records, two flows).
    assert!(pkts > 8.0, "{pkts} packets per burst");
    assert_eq!(with, without);
}

/// On the OBS network, besides the links into hosts, the links into the ingress edge
/// name their packets: the edge reads a packet's record to put it into an assembly queue.
#[test]
fn links_into_an_ingress_edge_name_their_packets() {
    let n = 3u32;
    let w = common::world(&obs_mixed(n as usize));
    let mut naming = w.packet_naming_links();
    naming.sort();
    // Nodes in scenario order: E1, C1, E2, then s0, d0, s1, d1, ...
    let (e1, e2) = (0, 2);
    let (s, d) = (|i: u32| 3 + 2 * i, |i: u32| 4 + 2 * i);
    let mut expect: Vec<(u32, u32)> = (0..n)
        .flat_map(|i| [(e1, s(i)), (e2, d(i)), (s(i), e1)])
        .collect();
    expect.sort();
    assert_eq!(naming, expect);
}
