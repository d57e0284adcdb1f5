//! Deflection routing (`obs.contention.deflection`, docs/topics/contention.md):
//! hand-made timelines on a two-path topology (the deflected burst's path and its
//! delivery time, exact; the offset it needs, to the nanosecond), the hop limit, the
//! two loss reasons, and the scenario errors. The golden tables (tests/golden.rs)
//! guard that it is off by default.

mod common;

use burstlab_core::run_toml;

use burstlab_core::stats::{BurstLoss, RunResult};
use burstlab_core::units::SimTime;
use common::{fate, one_packet_flows, queue_of, run};

/// Ingress edges `E3, E4, …` (host `s_i` each, 1 Gb/s, 1 ms) → core `C1` → egress
/// `E2` → host `d`, with a longer way round `C1 → C2 → E2` and `C2 → C3 → E2`; every
/// fibre 10 Gb/s, 1 ms, one wavelength. Flow `i` is one 1000 B packet sent at
/// `starts[i]` from `s_i`; its ingress is `E{i+3}`, attached to `C1`, except the
/// ingresses listed in `at_c2` (attached to `C2`). A 1000 B burst lasts 0.8 µs at
/// 10 Gb/s. Defaults: δ = 10 µs per node, set-up 5 µs, so a two-fibre path has an
/// offset of 25 µs.
fn two_path(starts: &[&str], at_c2: &[usize], obs: &str) -> String {
    let mut s = String::from("[sim]\nduration = \"50ms\"\ntrace = { bursts = true }\n");
    let mut nodes = vec![
        ("d".to_string(), "host"),
        ("C1".into(), "core"),
        ("C2".into(), "core"),
        ("C3".into(), "core"),
        ("E2".into(), "edge"),
    ];
    for i in 0..starts.len() {
        nodes.push((format!("s{i}"), "host"));
        nodes.push((format!("E{}", i + 3), "edge"));
    }
    for (m, kind) in &nodes {
        s += &format!("[[node]]\nname = \"{m}\"\nkind = \"{kind}\"\n");
    }
    let fibre = |a: &str, b: &str| {
        format!(
            "[[fibre]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Gb/s\"\ndelay = \"1ms\"\nwavelengths = 1\n"
        )
    };
    s += "[[link]]\na = \"E2\"\nb = \"d\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    for i in 0..starts.len() {
        s += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"E{}\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n",
            i + 3
        );
        let core = if at_c2.contains(&i) { "C2" } else { "C1" };
        s += &fibre(&format!("E{}", i + 3), core);
    }
    s += &fibre("C1", "E2");
    s += &fibre("C1", "C2");
    s += &fibre("C2", "E2");
    s += &fibre("C2", "C3");
    s += &fibre("C3", "E2");
    s += "[obs]\nassembly = { type = \"timer\", tb = \"1ms\" }\nscheduler = \"ffuc\"\n";
    s += obs;
    s += "\n";
    s += &one_packet_flows(starts);
    s
}

/// The deflection table: `C1` may deflect to `C2`, `C2` to `C3`.
fn table(extra: &str) -> String {
    format!(
        "[obs.contention]\n{extra}\n[[obs.contention.deflection]]\nnode = \"C1\"\nvia = [\"C2\"]\n\
         [[obs.contention.deflection]]\nnode = \"C2\"\nvia = [\"C3\"]\n"
    )
}

/// (bursts scheduled, bursts deflected onto it) on fibre `a → b`.
fn link(r: &RunResult, a: &str, b: &str) -> burstlab_core::stats::ObsLinkRow {
    r.obs_links
        .iter()
        .find(|l| l.from == a && l.to == b)
        .unwrap_or_else(|| panic!("no fibre {a} -> {b}"))
        .clone()
}

fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

/// B meets A's reservation on C1 → E2 and is deflected to C2: it takes C1 → C2 →
/// E2 and is delivered exactly 1 ms (the longer path's extra fibre) after its
/// undisturbed delivery; A is untouched. The offset the deflected path needs is exact:
/// at C1 B has 25 µs − δ = 15 µs of offset left plus `deflection_offset`, and the
/// path C2, E2 needs 2δ + set-up = 25 µs: 10 µs of extra offset is enough, 1 ns less
/// loses B with `deflection_offset`.
#[test]
fn a_deflected_burst_takes_the_other_path() {
    let cont = table("deflection_offset = \"10us\"");
    // Undisturbed delivery times (each burst alone, same offset).
    let alone = |st: &str| {
        let r = run(&two_path(&[st], &[], &cont));
        assert_eq!(link(&r, "C1", "C2").bursts_scheduled, 0);
        fate(&r, 0).0.unwrap()
    };
    let (a0, b0) = (alone("0s"), alone("100ns"));
    assert_eq!(b0 - a0, SimTime::from_ns(100));
    // Without deflection B is lost to contention at C1 (and the offset is 10 µs
    // shorter: A arrives 10 µs earlier).
    let r = run(&two_path(&["0s", "100ns"], &[], ""));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    assert_eq!(fate(&r, queue_of(&r, 0)).0, Some(a0 - SimTime::from_us(10)));
    // With deflection: A as alone, B 1 ms late through C2.
    let r = run(&two_path(&["0s", "100ns"], &[], &cont));
    assert_eq!(fate(&r, queue_of(&r, 0)).0, Some(a0));
    assert_eq!(fate(&r, queue_of(&r, 1)).0, Some(b0 + ms(1)));
    let (direct, c1c2, c2e2) = (
        link(&r, "C1", "E2"),
        link(&r, "C1", "C2"),
        link(&r, "C2", "E2"),
    );
    assert_eq!((direct.bursts_scheduled, direct.bursts_deflected), (1, 0));
    assert_eq!((c1c2.bursts_scheduled, c1c2.bursts_deflected), (1, 1));
    assert_eq!((c2e2.bursts_scheduled, c2e2.bursts_deflected), (1, 0));
    assert_eq!(link(&r, "C2", "C3").bursts_scheduled, 0);
    assert!(r
        .obs_links
        .iter()
        .all(|l| l.bursts_offered == l.bursts_scheduled));
    // 1 ns less extra offset: B cannot be deflected, lost with its own reason, charged
    // to the fibre it wanted.
    let r = run(&two_path(
        &["0s", "100ns"],
        &[],
        &table("deflection_offset = \"9999ns\""),
    ));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::DeflectionOffset))
    );
    let direct = link(&r, "C1", "E2");
    assert_eq!(
        (
            direct.lost_deflection_offset,
            direct.bursts_offered - direct.bursts_scheduled
        ),
        (1, 1)
    );
    assert_eq!(link(&r, "C1", "C2").bursts_scheduled, 0);
    let row = r.bursts.iter().find(|b| b.edge == "E4").unwrap();
    assert_eq!((row.lost_deflection_offset, row.bursts_lost), (1, 1));
    // No extra offset at all: the same.
    let r = run(&two_path(&["0s", "100ns"], &[], &table("")));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::DeflectionOffset))
    );
}

/// A third burst C finds both C1 → E2 (A) and C1 → C2 (B, deflected) busy: it is
/// lost with `deflection_failed`, charged to C1 → E2.
#[test]
fn every_alternative_busy_loses_the_burst() {
    let cont = table("deflection_offset = \"10us\"");
    let r = run(&two_path(&["0s", "100ns", "200ns"], &[], &cont));
    assert_eq!(fate(&r, queue_of(&r, 0)).1, None);
    assert_eq!(fate(&r, queue_of(&r, 1)).1, None);
    assert_eq!(
        fate(&r, queue_of(&r, 2)),
        (None, Some(BurstLoss::DeflectionFailed))
    );
    let direct = link(&r, "C1", "E2");
    assert_eq!(
        (
            direct.lost_deflection_failed,
            direct.bursts_offered - direct.bursts_scheduled
        ),
        (1, 1)
    );
    let row = r.bursts.iter().find(|b| b.edge == "E5").unwrap();
    assert_eq!(row.lost_deflection_failed, 1);
}

/// The hop limit: B, deflected at C1, meets X (from an ingress at C2) on C2 → E2.
/// With `max_deflections = 1` it is lost to contention there; with 2 it is deflected
/// again through C3 and delivered 2 ms late (path C1 → C2 → C3 → E2). The second
/// deflection needs 20 µs of extra offset (at C2 the path C3, E2 needs 25 µs).
#[test]
fn the_hop_limit_stops_a_second_deflection() {
    // X reaches C2 50 ns before B (both 1 ms from their ingress, B 1 ms more from C1).
    let starts = ["0s", "100ns", "1000050ns"];
    let alone = {
        let r = run(&two_path(
            &["100ns"],
            &[],
            &table("deflection_offset = \"20us\""),
        ));
        fate(&r, 0).0.unwrap()
    };
    let r = run(&two_path(
        &starts,
        &[2],
        &table("deflection_offset = \"20us\"\nmax_deflections = 1"),
    ));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::Contention))
    );
    assert_eq!(fate(&r, queue_of(&r, 2)).1, None);
    assert_eq!(link(&r, "C2", "E2").lost_contention, 1);
    assert_eq!(link(&r, "C1", "C2").bursts_deflected, 1);
    assert_eq!(link(&r, "C2", "C3").bursts_scheduled, 0);
    let r = run(&two_path(
        &starts,
        &[2],
        &table("deflection_offset = \"20us\"\nmax_deflections = 2"),
    ));
    assert_eq!(fate(&r, queue_of(&r, 1)).0, Some(alone + ms(2)));
    assert_eq!(fate(&r, queue_of(&r, 2)).1, None);
    assert_eq!(link(&r, "C2", "C3").bursts_deflected, 1);
    assert_eq!(link(&r, "C3", "E2").bursts_scheduled, 1);
    // With 10 µs of extra offset the second deflection is too long for what is left.
    let r = run(&two_path(
        &starts,
        &[2],
        &table("deflection_offset = \"10us\"\nmax_deflections = 2"),
    ));
    assert_eq!(
        fate(&r, queue_of(&r, 1)),
        (None, Some(BurstLoss::DeflectionOffset))
    );
    assert_eq!(link(&r, "C2", "E2").lost_deflection_offset, 1);
}

fn err(cont: &str) -> String {
    match run_toml(&two_path(&["0s"], &[], cont), None, None) {
        Ok(_) => panic!("expected an error for:\n{cont}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_deflection_settings_name_the_field() {
    let one = |node: &str, via: &str| {
        format!("[[obs.contention.deflection]]\nnode = \"{node}\"\nvia = [{via}]\n")
    };
    let cases = [
        (
            one("X", "\"C2\""),
            "obs.contention.deflection[0].node",
            "no node named 'X'",
        ),
        (
            one("d", "\"C2\""),
            "obs.contention.deflection[0].node",
            "not an OBS node",
        ),
        (
            one("C1", ""),
            "obs.contention.deflection[0].via",
            "at least one",
        ),
        (
            one("C1", "\"Y\""),
            "obs.contention.deflection[0].via[0]",
            "no node named 'Y'",
        ),
        (
            one("C1", "\"C1\""),
            "obs.contention.deflection[0].via[0]",
            "itself",
        ),
        (
            one("C1", "\"C2\", \"C2\""),
            "obs.contention.deflection[0].via[1]",
            "listed twice",
        ),
        (
            one("C1", "\"C3\""),
            "obs.contention.deflection[0].via[0]",
            "no fibre from 'C1' to 'C3'",
        ),
        (
            format!("{}{}", one("C1", "\"C2\""), one("C1", "\"E2\"")),
            "obs.contention.deflection[1].node",
            "already has",
        ),
        (
            format!(
                "[obs.contention]\nmax_deflections = 0\n{}",
                one("C1", "\"C2\"")
            ),
            "obs.contention.max_deflections",
            "at least 1",
        ),
        (
            "[obs.contention]\nmax_deflections = 2\n".to_string(),
            "obs.contention.max_deflections",
            "needs obs.contention.deflection",
        ),
        (
            "[obs.contention]\ndeflection_offset = \"1us\"\n".to_string(),
            "obs.contention.deflection_offset",
            "needs obs.contention.deflection",
        ),
        (
            one("C1", "\"C2\"").replace("via", "vias"),
            "obs.contention.deflection",
            "vias",
        ),
    ];
    for (cont, field, why) in cases {
        let e = err(&cont);
        assert!(e.contains(field) && e.contains(why), "{cont}\n=> {e}");
    }
}

/// `examples/deflection.toml` over 4 s: every burst C1 deflects is scheduled on
/// C1 → C2 and then on C2 → E2 (nothing else uses them), the TCP flow loses fewer
/// bursts than without the deflection table, and the offsets are long enough that no
/// burst is lost to `deflection_offset` or `offset_too_short`.
#[test]
fn the_example_deflects_and_tcp_loses_fewer_bursts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(dir.join("deflection.toml"))
        .unwrap()
        .replace("duration = \"10s\"", "duration = \"4s\"");
    let on = run(&text);
    let c1c2 = link(&on, "C1", "C2");
    let c2e2 = link(&on, "C2", "E2");
    let direct = link(&on, "C1", "E2");
    assert!(c1c2.bursts_deflected > 10, "{c1c2:?}");
    assert_eq!(c1c2.bursts_deflected, c1c2.bursts_scheduled);
    assert_eq!(c2e2.bursts_offered, c1c2.bursts_scheduled);
    assert_eq!(direct.lost_deflection_offset, 0);
    assert!(on.obs_links.iter().all(|l| l.lost_offset_too_short == 0));
    // Without the table (the same extra offset, so the same timeline until the first
    // contention).
    let a = text.find("[[obs.contention.deflection]]").unwrap();
    let off_text = text[..a]
        .replace("max_deflections = 1\n", "")
        .replace("deflection_offset = \"20us\"\n", "")
        .replace("[obs]\n", "[obs]\nextra_offset = \"20us\"\n")
        + &text[text.find("[[flow]]").unwrap()..];
    let off = run(&off_text);
    let lost = |r: &RunResult| {
        let q = r.bursts.iter().find(|b| b.edge == "E0").unwrap();
        (q.bursts_lost, q.bursts_sent)
    };
    let (lost_on, lost_off) = (lost(&on), lost(&off));
    let tcp = |r: &RunResult| {
        r.flows
            .iter()
            .find(|f| f.name == "tcp")
            .unwrap()
            .goodput_segps
    };
    eprintln!(
        "deflected {} (lost deflection_failed {}), TCP bursts lost/sent {:?} vs {:?} without; goodput {:.1} vs {:.1} seg/s",
        c1c2.bursts_deflected,
        direct.lost_deflection_failed,
        lost_on,
        lost_off,
        tcp(&on),
        tcp(&off)
    );
    assert!(
        lost_off.0 > 0 && lost_on.0 < lost_off.0,
        "{lost_on:?} {lost_off:?}"
    );
}

/// A ring of 1 500 OBS nodes with a deflection table at every node (both neighbours):
/// the estimate counts the tables (3 000 table fibres, each an entry per node and a
/// search-tree slot per fibre: about 150 MB) and the world builds them; under a
/// 64 MiB budget the scenario is refused naming `obs.contention.deflection`. The
/// first build wrote every path out (about 13 GB here) and scanned every fibre at
/// each step of each search.
#[test]
fn a_1500_node_ring_builds_its_tables_in_bounded_memory() {
    let n = 1500;
    let mut s = String::from("[sim]\nduration = \"10ms\"\n");
    s += "[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n";
    for i in 0..n {
        let kind = if i == 0 || i == n / 2 { "edge" } else { "core" };
        s += &format!("[[node]]\nname = \"N{i}\"\nkind = \"{kind}\"\n");
    }
    s += "[[link]]\na = \"a\"\nb = \"N0\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n";
    s += &format!(
        "[[link]]\na = \"N{}\"\nb = \"b\"\nrate = \"1Gb/s\"\ndelay = \"1ms\"\n",
        n / 2
    );
    for i in 0..n {
        s += &format!(
            "[[fibre]]\na = \"N{i}\"\nb = \"N{}\"\nrate = \"10Gb/s\"\ndelay = \"10us\"\n",
            (i + 1) % n
        );
    }
    s += "[obs]\nassembly = { type = \"timer\", tb = \"1ms\" }\n[obs.contention]\nmax_deflections = 1\n";
    for i in 0..n {
        s += &format!(
            "[[obs.contention.deflection]]\nnode = \"N{i}\"\nvia = [\"N{}\", \"N{}\"]\n",
            (i + 1) % n,
            (i + n - 1) % n
        );
    }
    s += "[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"1Mb/s\"\n";
    let r = burstlab_core::scenario::ScenarioSpec::from_toml_str(&s)
        .unwrap()
        .resolve(None, None)
        .unwrap();
    let est = burstlab_core::memory::check(&r).unwrap();
    let entry = std::mem::size_of::<Option<(u32, u32, SimTime)>>() as f64;
    assert_eq!(
        est.deflection_bytes,
        3000.0 * (1502.0 * entry + 3000.0 * 4.0)
    );
    assert!(est
        .lines()
        .iter()
        .any(|l| l.starts_with("  obs.contention.deflection: ")));
    let w = burstlab_core::world::World::new(&r).unwrap();
    // What the world built is what the estimate counts (plus the packet pools etc.).
    let built = w.mem_bytes() as f64;
    assert!(built >= est.deflection_bytes * 0.99, "{built}");
    assert!(built <= est.deflection_bytes + (16 << 20) as f64, "{built}");
    let e = run_toml(
        &s.replace(
            "duration = \"10ms\"",
            "duration = \"10ms\"\nmax_memory = \"64MiB\"",
        ),
        None,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("obs.contention.deflection: the deflection tables take about "),
        "{e}"
    );
}
