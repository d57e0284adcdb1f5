//! Link timing, drop-tail queues, random loss, conservation and determinism with UDP
//! sources (no TCP involved).

use burstlab_core::run_toml;

fn cbr(rate: &str, bottleneck: &str, queue: u64, loss: f64, dur: &str) -> String {
    format!(
        r#"
[sim]
duration = "{dur}"
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
rate = "1Gb/s"
delay = "1ms"
[[link]]
a = "r"
b = "b"
rate = "{bottleneck}"
delay = "5ms"
queue_pkts = {queue}
loss = {loss}
[[flow]]
type = "cbr"
src = "a"
dst = "b"
rate = "{rate}"
packet_size = "1000B"
"#
    )
}

#[test]
fn cbr_below_capacity_is_delivered_whole() {
    // 8 Mb/s of 1000 B packets = one packet per ms; 10 s => 10 000 packets sent.
    let r = run_toml(&cbr("8Mb/s", "10Mb/s", 10, 0.0, "10s"), None, None).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.segments_sent, 10_000);
    // A packet sent at t arrives at t + 8 us + 1 ms + 0.8 ms + 5 ms = t + 6.808 ms, so the
    // packets sent at 0, 1, ..., 9993 ms have arrived by t = 10 s: 9994 of them.
    assert_eq!(f.segments_received, 9_994);
    assert_eq!(r.links[2].drops_queue, 0);
}

#[test]
fn link_statistics_cover_the_window_after_warmup() {
    // 4 Mb/s of 1000 B packets into 8 Mb/s: one 1 ms transmission every 2 ms, offered to
    // the bottleneck at t = 1.008 + 2k ms. With a 4 s warm-up of a 10 s run, those in
    // [4 s, 10 s) number
    // 3000, and busy time is 3000 ms of a 6 s window (utilisation 0.5, not 0.3 = 3 s / 10 s
    // as when the window was the whole run while the counters started at 4 s).
    let text = cbr("4Mb/s", "8Mb/s", 5, 0.0, "10s")
        .replace("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"4s\"");
    let r = run_toml(&text, None, None).unwrap();
    let l = &r.links[2];
    assert_eq!(l.pkts_offered, 3000);
    assert!((l.utilisation - 0.5).abs() < 1e-9, "{}", l.utilisation);
    // Without warm-up: 5000 packets; the last transmission (9999.008 ms .. 10000.008 ms)
    // is clipped at the end of the run, so busy time is 5000 ms − 8 us.
    let r = run_toml(&cbr("4Mb/s", "8Mb/s", 5, 0.0, "10s"), None, None).unwrap();
    let l = &r.links[2];
    assert_eq!(l.pkts_offered, 5000);
    assert!(
        (l.utilisation - (5.0 - 8e-6) / 10.0).abs() < 1e-12,
        "{}",
        l.utilisation
    );
}

#[test]
fn overload_is_clipped_to_link_rate_with_queue_drops() {
    // 16 Mb/s offered into 8 Mb/s: the bottleneck delivers 1 packet per ms.
    let r = run_toml(&cbr("16Mb/s", "8Mb/s", 5, 0.0, "10s"), None, None).unwrap();
    let f = &r.flows[0];
    let l = &r.links[2];
    assert_eq!(f.segments_sent, 20_000);
    // The bottleneck transmits back to back from t = 1.008 ms on; the last ~6 ms of
    // transmissions are still in flight at t = 10 s.
    let expect = ((10.0f64 - 0.001008 - 0.005) / 0.001).floor() as u64;
    assert!(
        (f.segments_received as i64 - expect as i64).abs() <= 1,
        "{} vs {}",
        f.segments_received,
        expect
    );
    assert!(
        l.drops_queue > 9_900 && l.drops_queue < 10_010,
        "{}",
        l.drops_queue
    );
    assert!((l.utilisation - 1.0).abs() < 0.002, "{}", l.utilisation);
    // Conservation at the link: offered = delivered + dropped + still queued/propagating.
    let in_link = l.pkts_offered - l.pkts_delivered - l.drops_queue - l.drops_loss;
    assert!(in_link <= 5 + 1 + 6, "{in_link}");
}

#[test]
fn random_loss_matches_probability() {
    let r = run_toml(&cbr("8Mb/s", "10Mb/s", 100, 0.1, "100s"), None, None).unwrap();
    let l = &r.links[2];
    let n = l.pkts_offered as f64;
    let phat = l.drops_loss as f64 / n;
    let se = (0.1 * 0.9 / n).sqrt();
    assert!(
        (phat - 0.1).abs() < 4.0 * se,
        "loss {phat} over {n} packets"
    );
}

#[test]
fn same_seed_identical_different_seed_different() {
    let s = cbr("8Mb/s", "10Mb/s", 100, 0.05, "20s");
    let a = serde_json::to_string(&run_toml(&s, Some(7), None).unwrap()).unwrap();
    let b = serde_json::to_string(&run_toml(&s, Some(7), None).unwrap()).unwrap();
    let c = serde_json::to_string(&run_toml(&s, Some(8), None).unwrap()).unwrap();
    let d = serde_json::to_string(&run_toml(&s, Some(7), Some(1)).unwrap()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_ne!(a, d);
}

#[test]
fn onoff_source_is_on_the_expected_fraction() {
    let s = r#"
[sim]
duration = "2000s"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "1Gb/s"
delay = "1ms"
[[flow]]
type = "onoff"
src = "a"
dst = "b"
rate = "8Mb/s"
packet_size = "1000B"
mean_on = "1s"
mean_off = "3s"
"#;
    let r = run_toml(s, None, None).unwrap();
    // On 25 % of the time at 1000 packets/s => ~500 000 packets in 2000 s.
    let sent = r.flows[0].segments_sent as f64;
    let frac = sent / (2000.0 * 1000.0);
    // ~500 on/off cycles: the on fraction has a relative sd of about 5 %.
    assert!((frac - 0.25).abs() < 0.04, "on fraction {frac}");
}
