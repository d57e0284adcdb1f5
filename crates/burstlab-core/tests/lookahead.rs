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

/// Runs `text` with the look-ahead threshold `above`; returns the results (as text, every
/// number exact), the queue drops and whether the loop was looking ahead at the end.
fn run(text: &str, above: u64) -> (String, u64, bool) {
    let mut w = common::world(text);
    w.set_lookahead_above(above);
    w.run_until_end();
    let on = w.looks_ahead();
    let mut res = w.into_result();
    res.version.clear();
    let drops = res.links.iter().map(|l| l.drops_queue).sum();
    (format!("{res:?}"), drops, on)
}

#[test]
fn looking_ahead_changes_no_result() {
    let text = dumbbell(12);
    let (with, drops, on) = run(&text, 0);
    let (without, _, off) = run(&text, u64::MAX);
    assert!(on && !off, "the threshold did not switch the look-ahead");
    assert!(drops > 100, "only {drops} queue drops");
    assert_eq!(with, without);
    // The default threshold gives the same results too.
    assert_eq!(
        run(&text, burstlab_core::world::LOOKAHEAD_ABOVE_BYTES).0,
        with
    );
}
