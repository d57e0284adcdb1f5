//! The run monitor (`world/monitor.rs`): called every few thousand events, it sees the
//! run's progress grow, can stop the run, and changes no result when it lets it finish.

use burstlab_core::scenario::ScenarioSpec;
use burstlab_core::world::monitor::{Progress, Verdict, STOPPED_FIELD};
use burstlab_core::world::World;
use std::sync::{Arc, Mutex};

fn resolved() -> burstlab_core::scenario::Resolved {
    let text = include_str!("../../../examples/single_flow.toml");
    ScenarioSpec::from_toml_str(text)
        .unwrap()
        .resolve(None, None)
        .unwrap()
}

#[test]
fn a_monitor_that_lets_the_run_finish_changes_nothing() {
    let r = resolved();
    let plain = World::new(&r).unwrap().try_run().unwrap();
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let log = seen.clone();
    let mut w = World::new(&r).unwrap();
    w.set_monitor(Box::new(move |p| {
        log.lock().unwrap().push(p);
        Verdict::Continue
    }));
    let watched = w.try_run().unwrap();
    assert_eq!(
        serde_json::to_string(&plain.flows).unwrap(),
        serde_json::to_string(&watched.flows).unwrap()
    );
    assert_eq!(plain.events, watched.events);
    let seen = seen.lock().unwrap();
    assert!(plain.events > 4 << 14, "{} events", plain.events);
    // One call per 2^14 events: the 300 s run handles far more than that.
    assert!(
        seen.len() as u64 >= plain.events / (1 << 14) - 1,
        "{}",
        seen.len()
    );
    assert!(seen
        .windows(2)
        .all(|w| w[0].now <= w[1].now && w[0].events < w[1].events));
    assert!(seen.last().unwrap().events <= plain.events);
}

#[test]
fn a_monitor_stops_the_run_with_an_error_naming_the_run() {
    let r = resolved();
    let calls = Arc::new(Mutex::new(0u32));
    let c = calls.clone();
    let mut w = World::new(&r).unwrap();
    w.set_monitor(Box::new(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        if *n == 3 {
            Verdict::Stop
        } else {
            Verdict::Continue
        }
    }));
    let Err(e) = w.try_run() else {
        panic!("the monitor did not stop the run");
    };
    assert_eq!(e.field, STOPPED_FIELD);
    assert!(e.reason.contains("stopped at t = "), "{}", e.reason);
    assert_eq!(*calls.lock().unwrap(), 3, "no call after the stop");
}
