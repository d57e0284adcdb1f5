//! Golden result tables: every number that eight seeded scenarios produce, frozen.
//!
//! Each scenario in `tests/golden/scenarios/` is run with its own seed and the whole
//! `RunResult` (flows, links, OBS tables, traces) is flattened to one `path = value` line
//! per number and compared with `tests/golden/expected/<name>.txt`. Only two fields are
//! left out: `version` (changes with every release) and `events` (a measure of work, not
//! of behaviour: a restructuring may legitimately change how many events a run takes).
//!
//! A commit that changes a golden number must say which and why. To regenerate after a
//! deliberate change: `BURSTLAB_BLESS=1 cargo test -p burstlab-core --test golden`, then
//! read `git diff crates/burstlab-core/tests/golden/expected` before committing.
//!
//! The scenarios together cover: Tahoe, Reno (delayed ACKs, scripted drops), NewReno (RFC
//! profile, warm-up), SACK (cwnd and packet traces); the yu OBS path (per-path loss,
//! drop-burst injector, burst trace, warm-up); contention between nine flows in the mesh
//! (LAUC-VF); a linear OBS network with JIT, LAUC, no conversion, hybrid per-egress
//! assembly, per-link loss on all bursts, ACKs bypassing the core and on-off UDP; a
//! packet dumbbell with drop-tail queues, three TCP variants, on-off and CBR UDP.

use burstlab_core::scenario::ScenarioSpec;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Appends `path = value` lines for every leaf of `v`. Numbers print in serde_json's
/// shortest round-trip form, so equal text means bit-identical `f64`s (NaN prints `null`).
fn flatten(prefix: &str, v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&p, x, out);
            }
        }
        Value::Array(a) => {
            if a.is_empty() {
                let _ = writeln!(out, "{prefix} = []");
            }
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        leaf => {
            let _ = writeln!(out, "{prefix} = {leaf}");
        }
    }
}

fn render(name: &str) -> String {
    let path = golden_dir().join("scenarios").join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).expect("golden scenario readable");
    let spec = ScenarioSpec::from_toml_str(&text).expect("golden scenario parses");
    let res = burstlab_core::run_spec(&spec, None, None).expect("golden scenario runs");
    let mut v = serde_json::to_value(&res).expect("result serialises");
    let obj = v.as_object_mut().expect("result is an object");
    obj.remove("version");
    obj.remove("events");
    let mut out = String::new();
    flatten("", &v, &mut out);
    out
}

/// The lines that differ, at most `max` of them, for a readable failure.
fn diff(expected: &str, got: &str, max: usize) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let mut s = String::new();
    let mut n = 0;
    for i in 0..e.len().max(g.len()) {
        let (a, b) = (e.get(i).copied(), g.get(i).copied());
        if a != b {
            n += 1;
            if n <= max {
                let _ = writeln!(
                    s,
                    "  line {}: expected `{}`, got `{}`",
                    i + 1,
                    a.unwrap_or("<none>"),
                    b.unwrap_or("<none>")
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "  {n} line(s) differ ({} expected, {} got)",
        e.len(),
        g.len()
    );
    s
}

fn check(name: &str) {
    let got = render(name);
    let file = golden_dir().join("expected").join(format!("{name}.txt"));
    if std::env::var_os("BURSTLAB_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &got).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_else(|_| {
        panic!(
            "{} missing: run `BURSTLAB_BLESS=1 cargo test -p burstlab-core --test golden`",
            file.display()
        )
    });
    if expected != got {
        panic!(
            "golden results of `{name}` changed (a commit that changes a number must say \
             which and why; bless with BURSTLAB_BLESS=1):\n{}",
            diff(&expected, &got, 40)
        );
    }
}

#[test]
fn golden_tahoe_path() {
    check("tahoe_path");
}

#[test]
fn golden_reno_delack_drops() {
    check("reno_delack_drops");
}

#[test]
fn golden_newreno_rfc_warmup() {
    check("newreno_rfc_warmup");
}

#[test]
fn golden_sack_traces() {
    check("sack_traces");
}

#[test]
fn golden_yu_obs_warmup() {
    check("yu_obs_warmup");
}

#[test]
fn golden_mesh_contention() {
    check("mesh_contention");
}

#[test]
fn golden_obs_linear_jit_udp() {
    check("obs_linear_jit_udp");
}

#[test]
fn golden_dumbbell_udp() {
    check("dumbbell_udp");
}

/// The golden runs are only worth freezing if they exercise what they claim to: losses of
/// both kinds, contention, traces. A change that silently made a scenario trivial (no
/// loss, no trace) would keep its golden file stable and guard nothing.
#[test]
fn golden_scenarios_exercise_their_mechanisms() {
    let num = |text: &str, key: &str| -> f64 {
        text.lines()
            .filter(|l| l.split(" = ").next().is_some_and(|p| p.ends_with(key)))
            .map(|l| l.split(" = ").nth(1).unwrap().parse::<f64>().unwrap_or(0.0))
            .sum()
    };
    let t = render("tahoe_path");
    assert!(num(&t, ".td_events") > 0.0);
    let r = render("reno_delack_drops");
    assert!(num(&r, ".to_events") > 0.0 && num(&r, ".td_events") > 0.0);
    let s = render("sack_traces");
    assert!(s.contains("packet_trace[0]") && s.contains("cwnd_trace[0]"));
    let y = render("yu_obs_warmup");
    assert!(num(&y, ".lost_injected") > 0.0 && num(&y, ".lost_random") > 0.0);
    assert!(y.contains("burst_trace[0]"));
    let m = render("mesh_contention");
    assert!(num(&m, ".lost_contention") > 0.0);
    let o = render("obs_linear_jit_udp");
    assert!(num(&o, ".lost_no_wavelength") > 0.0);
    let d = render("dumbbell_udp");
    assert!(num(&d, ".drops_queue") > 0.0);
}
