//! The phase timings of a build with the probe (`--features probe`, see
//! `burstlab_core::world::probe`): every event is counted once in one event phase, and
//! the host phases once per delivery or handler run. Without the feature the probe
//! reports nothing.

mod common;

use burstlab_core::world::probe::{self, Phase};

fn count(timings: &[probe::Timing], phase: Phase) -> u64 {
    timings
        .iter()
        .find(|t| t.phase == phase)
        .map_or(0, |t| t.count)
}

#[test]
fn phases_count_every_event() {
    let sim = "duration = \"0.3s\"\nseed = 3";
    let text = common::dumbbell(4, sim, 40, 300, &["sack"]);
    probe::take();
    let mut w = common::world(&text);
    w.run_until_end();
    let events = w.events_processed();
    let res = w.into_result();
    let timings = probe::take();
    if !probe::BUILT {
        assert!(timings.is_empty());
        return;
    }
    let delivered: u64 = res.flows.iter().map(|f| f.segments_delivered).sum();
    assert!(delivered > 1000, "only {delivered} segments");
    // The last event (the end) breaks out of the loop before its event phase.
    let in_events = [Phase::LinkNamed, Phase::LinkUnnamed, Phase::OtherEvent]
        .map(|p| count(&timings, p))
        .iter()
        .sum::<u64>();
    assert_eq!(count(&timings, Phase::Pop), events);
    assert_eq!(in_events + 1, events);
    assert!(count(&timings, Phase::LinkNamed) > 0);
    // Every data segment delivered in order went through the receiver's phases.
    assert!(count(&timings, Phase::ReceiverData) >= delivered);
    assert_eq!(
        count(&timings, Phase::ReceiverData),
        count(&timings, Phase::ReceiverAck)
    );
    assert_eq!(
        count(&timings, Phase::HostHandler),
        count(&timings, Phase::HostSends)
    );
    assert!(timings.iter().all(|t| t.count == 0 || t.ticks > 0));
}
