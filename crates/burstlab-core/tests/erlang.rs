//! Erlang B at network level (docs/topics/contention.md, "Validation"): with full
//! wavelength conversion, Poisson bursts of exponential length offered to a core fibre
//! of `k` wavelengths are an M/M/k/k loss system, so the share of bursts lost on that
//! fibre is Erlang B(k, A), `A` the offered load in Erlang.
//!
//! The set-up: one `poisson` UDP flow (exponential gaps, exponential sizes) from host
//! `s` through ingress `E1`, core `C1` and egress `E2` to host `d`; one packet per burst
//! (`length` assembly, `max_pkts = 1`), so a burst lasts the packet's bytes at 10 Gb/s.
//! The first fibre has 64 wavelengths (ingress loss below 1e-40 at these loads), the
//! access link is 100 Tb/s (a burst waits for no other there), and every burst has the
//! same path and offset, so the bursts reach `C1` in the order and with the gaps they
//! were formed and JET reserves each from its arrival: no voids, M/M/k/k exactly.

use burstlab_core::run_toml;

/// Erlang B by the recursion B(0) = 1, B(j) = A·B(j−1) / (j + A·B(j−1)).
fn erlang_b(k: u32, a: f64) -> f64 {
    (1..=k).fold(1.0, |b, j| a * b / (j as f64 + a * b))
}

fn scenario(k: u32, load: f64, duration_s: f64) -> String {
    // Mean burst 12 500 B = 10 µs at 10 Gb/s; A Erlang = A × 10 Gb/s of mean rate.
    let rate = load * 10e9;
    format!(
        r#"[sim]
duration = "{duration_s}s"
warmup = "1ms"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "E1"
kind = "edge"
[[node]]
name = "C1"
kind = "core"
[[node]]
name = "E2"
kind = "edge"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "E1"
rate = "100Tb/s"
delay = "1us"
[[link]]
a = "E2"
b = "d"
rate = "100Tb/s"
delay = "1us"
[[fibre]]
a = "E1"
b = "C1"
rate = "10Gb/s"
delay = "10us"
wavelengths = 64
[[fibre]]
a = "C1"
b = "E2"
rate = "10Gb/s"
delay = "10us"
wavelengths = {k}
[obs]
assembly = {{ type = "length", max_pkts = 1 }}
[[flow]]
type = "poisson"
src = "s"
dst = "d"
rate = "{rate}b/s"
packet_size = 12500
"#
    )
}

/// Several (k, A): the loss on C1 → E2 over 10 replications, against Erlang B(k, A),
/// within the replications' 99 % Student-t interval (t(0.995, 9) = 3.250).
#[test]
fn core_fibre_loss_is_erlang_b() {
    const T99_9: f64 = 3.250;
    for (k, load) in [(1u32, 0.5f64), (4, 2.0), (8, 5.0)] {
        // About 10 000 bursts per replication: λ = A / 10 µs.
        let duration = 10_000.0 / (load * 1e5);
        let text = scenario(k, load, duration);
        let mut p = Vec::new();
        for rep in 0..10u64 {
            let r = run_toml(&text, Some(11), Some(rep)).unwrap_or_else(|e| panic!("{e}"));
            let first = r
                .obs_links
                .iter()
                .find(|l| l.from == "E1" && l.to == "C1")
                .unwrap();
            assert_eq!(first.lost_contention, 0, "no loss at the ingress");
            let core = r
                .obs_links
                .iter()
                .find(|l| l.from == "C1" && l.to == "E2")
                .unwrap();
            assert!(core.bursts_offered > 5_000, "{}", core.bursts_offered);
            // The bursts' mean length is the generator's, 12 500 B (to 3 %).
            assert!(
                (core.mean_burst_bytes / 12_500.0 - 1.0).abs() < 0.03,
                "{}",
                core.mean_burst_bytes
            );
            p.push(core.lost_contention as f64 / core.bursts_offered as f64);
        }
        let n = p.len() as f64;
        let mean = p.iter().sum::<f64>() / n;
        let sd = (p.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let half = T99_9 * sd / n.sqrt();
        let b = erlang_b(k, load);
        eprintln!("k={k} A={load}: loss {mean:.4} ± {half:.4} (99 %), Erlang B {b:.4}");
        assert!(
            (mean - b).abs() <= half,
            "k={k} A={load}: simulated {mean:.4} ± {half:.4}, Erlang B {b:.4}"
        );
    }
}
