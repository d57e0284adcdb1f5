"""`burstlab reproduce sodhatar`: the smoke run (outputs, every claim id, ns-2 columns),
the queue-limit conversion, and the verdict rules on hand-made inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from burstlab.export import export_ns2
from burstlab.export.ns2trace import ns_binary
from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import VERDICTS, reproduce
from burstlab.reproduce.papers.sodhatar import ns2runs
from burstlab.reproduce.papers.sodhatar.claims import change_interval
from burstlab.reproduce.papers.sodhatar.experiments import (
    FIXED_PATTERNS,
    MODES,
    NS2_QUEUE_LIMIT,
    PAPER,
    QUEUE_PKTS,
    VARIANTS,
    change_table,
    cwnd_dynamics,
    dumbbell_points,
    random_starts,
    scenario,
    size_table,
)


def expected_claim_ids(mode_name: str) -> set[str]:
    m = MODES[mode_name]
    ids = {"figs.throughput_cwnd_vs_time", "cwnd.tahoe_to_one", "cwnd.reno_halves",
           "cwnd.newreno_halves", "cwnd.halve_then_one", "cwnd.growth",
           "cwnd.reno_ca_after_loss", "cwnd.newreno_ca_after_loss"}
    for suffix in ("", ".ns2"):  # burstlab's runs and ns-2's beside them
        ids |= {f"size.{v}_change{suffix}" for v in VARIANTS}
        ids |= {f"ranking.newreno_best.size={s}B{suffix}" for s in m.sizes}
    return ids


@pytest.fixture(scope="module")
def smoke_out(smoke_site: Path) -> Path:
    return smoke_site / "sodhatar"


def test_smoke_writes_claims_with_every_id(smoke_out: Path) -> None:
    c = pd.read_csv(smoke_out / "claims.csv", keep_default_na=False)
    assert list(c.columns) == ["paper", "claim_id", "source", "statement", "paper_value",
                               "burstlab_value", "ci", "verdict", "note"]
    assert set(c["claim_id"]) == expected_claim_ids("smoke")
    assert set(c["verdict"]) <= set(VERDICTS)
    assert (c["note"].str.len() > 20).all()
    # every size claim states the spread over start patterns
    for note in c[c["claim_id"].str.contains("size\\.")]["note"]:
        assert "over start patterns" in note


def test_smoke_writes_every_output(smoke_out: Path) -> None:
    for f in PAPER.figures:
        assert (smoke_out / f.file).stat().st_size > 1000, f.name
    for name in ("runs", "throughput_vs_size", "size_change", "best_variant",
                 "throughput_vs_time", "cwnd_vs_time", "cwnd_dynamics", "extensions"):
        assert (smoke_out / f"{name}.csv").is_file(), name
    runs = pd.read_csv(smoke_out / "runs.csv")
    m = MODES["smoke"]
    n_patterns = len(m.patterns) + m.random_draws
    assert len(runs) == len(m.networks) * n_patterns * len(m.sizes) * len(VARIANTS)
    for col in ("throughput_Mbps", "goodput_Mbps", "start_s", "size_B", "seed",
                "burstlab_version"):
        assert col in runs.columns
    assert (runs["throughput_Mbps"] >= 0).all()
    md = (smoke_out / "report.md").read_text(encoding="utf-8")
    for head in ("## Set-up", "## Claims", "## Throughput vs packet size",
                 "## Start-time sensitivity", "## Extension: with an OBS core"):
        assert head in md, head
    assert "`queue_pkts = 4`" in md


def test_queue_limit_5_is_queue_pkts_4_and_exports_back() -> None:
    assert (NS2_QUEUE_LIMIT, QUEUE_PKTS) == (5, 4)
    sc = scenario(1460, FIXED_PATTERNS["simultaneous"])
    bottleneck = [ln for ln in sc["link"] if {ln["a"], ln["b"]} == {"n3", "n4"}]
    assert len(bottleneck) == 1 and bottleneck[0]["queue_pkts"] == 4
    assert [ln.get("queue_pkts") for ln in sc["link"]].count(None) == 6  # access links
    tcl = export_ns2(sc).tcl
    assert "$ns queue-limit $n(n3) $n(n4) 5" in tcl
    # the OBS variants replace the bottleneck with a fibre between two edges
    obs = scenario(4000, (0.0, 0.01, 0.02), "obs per-egress")
    assert not any({ln["a"], ln["b"]} == {"n3", "n4"} for ln in obs["link"])
    assert obs["fibre"][0]["rate"] == "60Mb/s" and obs["obs"]["classifier"] == "per_egress"
    assert [f["start"] for f in obs["flow"]] == [0.0, 0.01, 0.02]
    assert all(f["mss"] == "4000B" and f["wm"] == 10 for f in obs["flow"])


def test_bad_network_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="network must be one of"):
        scenario(1460, (0.0, 0.0, 0.0), "ring")


def test_start_draws_are_reproducible_and_in_range() -> None:
    a = random_starts(3)
    assert a == random_starts(3) and a != random_starts(4)
    assert all(0.0 <= x <= 0.1 for x in a)
    pts = dumbbell_points(MODES["smoke"])
    # the same draw has the same start times at every size and network
    by_pattern: dict[str, set[tuple[float, float, float]]] = {}
    for p, _ in pts:
        by_pattern.setdefault(p["pattern"], set()).add(
            (p["start_tahoe_s"], p["start_reno_s"], p["start_newreno_s"]))
    assert all(len(v) == 1 for v in by_pattern.values())


def test_size_table_interval_stays_at_or_above_zero() -> None:
    runs = pd.DataFrame({"network": "packet", "variant": "tahoe", "size_B": 1460,
                         "pattern": ["random 0", "random 1"],
                         "throughput_Mbps": [0.01, 2.0]})
    t = size_table(runs)
    # a plain t interval from two draws would reach −11.6 Mb/s
    assert t["throughput_Mbps_random_ci_lo"].iloc[0] == 0.0
    assert t["throughput_Mbps_random_ci_hi"].iloc[0] > 2.0


def test_change_interval_is_paired_and_above_minus_100_percent() -> None:
    runs = pd.DataFrame({"network": "packet", "variant": "tahoe",
                         "size_B": [1460] * 3 + [4000] * 3,
                         "pattern": ["random 0", "random 1", "random 2"] * 2,
                         "throughput_Mbps": [1.0, 1.0, 1.2, 0.1, 0.9, 0.05]})
    ch = change_table(runs, 1460, 4000)
    m = ch[ch["pattern"] == "random mean"].iloc[0]
    iv = change_interval(m)
    assert iv.defined and -1.0 <= iv.lo < iv.estimate < iv.hi
    assert iv.estimate == pytest.approx(1.05 / 3.2 - 1.0)
    v = V.judge(iv, -0.82, kind="change", precision=0.005)
    assert v.verdict in ("reproduces", "not comparable", "same direction")


def _trace(values: list[tuple[float, float]]) -> pd.DataFrame:
    return pd.DataFrame({"time_s": np.arange(len(values), dtype=float), "flow": 0,
                         "cwnd_segments": [w for w, _ in values],
                         "ssthresh_segments": [s for _, s in values]})


def test_cwnd_dynamics_classifies_reductions_and_growth() -> None:
    flows = pd.DataFrame({"td_events": [1], "to_events": [1]})
    # slow start 1 → 4, congestion avoidance 4 → 4.25, halving, then a timeout to 1
    d = cwnd_dynamics(_trace([(1, 4), (2, 4), (3, 4), (4, 4), (4.25, 4), (2.125, 2),
                              (1, 1)]), flows)
    assert (d["ss_increments"], d["ss_increments_plus_one"]) == (3, 3)
    assert (d["ca_increments"], d["ca_increments_one_over_cwnd"]) == (1, 1)
    assert (d["halvings"], d["to_one"], d["halving_then_one"]) == (1, 1, 1)
    # a linear step in slow start (+0.5) and a cut to 0.7 of the window are caught
    d = cwnd_dynamics(_trace([(1, 8), (1.5, 8), (2.5, 8), (1.75, 1)]), flows)
    assert d["ss_increments_plus_one"] == 1 and d["ss_increments"] == 2
    assert d["other_reductions"] == 1 and d["halvings"] == 0
    # after a halving the next increase is in congestion avoidance (4 ≥ ssthresh 4) or
    # in slow start (2 < ssthresh 4: a restart from below ssthresh)
    d = cwnd_dynamics(_trace([(8, 8), (4, 4), (4.25, 4), (2.125, 4), (3.125, 4)]), flows)
    assert (d["halvings"], d["halving_then_increase"], d["halving_then_ca"]) == (2, 2, 1)
    # growth stops at the maximum window (wm = 10)
    d = cwnd_dynamics(_trace([(9.95, 2), (10.0, 2)]), flows)
    assert d["ca_increments_one_over_cwnd"] == 1


def test_cwnd_claims_reproduce_on_the_smoke_traces(smoke_out: Path) -> None:
    c = pd.read_csv(smoke_out / "claims.csv", keep_default_na=False).set_index("claim_id")
    for cid in ("cwnd.tahoe_to_one", "cwnd.reno_halves", "cwnd.newreno_halves",
                "cwnd.growth"):
        assert c.loc[cid, "verdict"] == "reproduces", c.loc[cid, "note"]


def test_obs_core_is_an_extension_without_verdict(smoke_out: Path) -> None:
    c = pd.read_csv(smoke_out / "claims.csv", keep_default_na=False)
    assert not c["claim_id"].str.startswith("obs.").any()
    ext = pd.read_csv(smoke_out / "extensions.csv", keep_default_na=False)
    assert "verdict" not in ext.columns
    assert set(ext["network"]) == set(MODES["smoke"].networks) - {"packet"}
    md = (smoke_out / "report.md").read_text(encoding="utf-8")
    assert "Extension: with an OBS core (not judged against the paper)" in md


@pytest.mark.skipif(ns_binary() is None,
                    reason="ns-2 not installed (apt-get install ns2): the ns-2 columns of "
                           "the sodhatar reproduction stay empty")
def test_smoke_ns2_columns_filled(smoke_out: Path) -> None:
    runs = pd.read_csv(smoke_out / "runs.csv")
    pk = runs[runs["network"] == "packet"]
    assert pk["ns2_throughput_Mbps"].notna().all()
    assert (pk["ns2_segments_received"] > 50).all()
    # OBS runs have no ns-2 counterpart
    assert runs[runs["network"] != "packet"]["ns2_throughput_Mbps"].isna().all()
    # throughput vs time has ns-2 curves for the packet network
    ts = pd.read_csv(smoke_out / "throughput_vs_time.csv")
    assert set(ts["simulator"]) == {"burstlab", "ns-2"}
    c = pd.read_csv(smoke_out / "claims.csv", keep_default_na=False)
    assert c[c["claim_id"] == "size.tahoe_change"]["note"].str.contains("ns-2.35").all()
    # the ns-2 claims are judged on ns-2's own runs
    ns = c[c["claim_id"].str.endswith(".ns2")]
    assert len(ns) == 3 + len(MODES["smoke"].sizes)
    assert not ns["note"].str.contains("not installed").any()


def test_without_ns2_the_claims_still_run(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ns2runs, "ns_binary", lambda: None)
    out = reproduce(PAPER, tmp_path, mode="smoke", jobs=1, progress=False,
                    log=lambda s: None)
    assert {c.id for c in out.claims} == expected_claim_ids("smoke")
    runs = pd.read_csv(tmp_path / "sodhatar" / "runs.csv")
    assert runs["ns2_throughput_Mbps"].isna().all()
    md = (tmp_path / "sodhatar" / "report.md").read_text(encoding="utf-8")
    assert "ns-2's columns are missing" in md
    note = next(c.note for c in out.claims if c.id == "size.reno_change")
    assert "ns-2's columns are missing" in note
    ns = [c for c in out.claims if c.id.endswith(".ns2")]
    assert ns and all(c.verdict == "not comparable" and "not installed" in c.note
                      for c in ns)


def test_example_is_the_reproduction_s_packet_dumbbell(root: Path) -> None:
    from burstlab.api import load_scenario

    ex = load_scenario(root / "examples" / "dumbbell_sodhatar.toml")
    bottleneck = [ln for ln in ex["link"] if {ln["a"], ln["b"]} == {"n3", "n4"}]
    assert bottleneck[0]["queue_pkts"] == QUEUE_PKTS
    assert [f["variant"] for f in ex["flow"]] == list(VARIANTS)
