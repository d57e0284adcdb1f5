"""`burstlab reproduce sodhatar`: the smoke run (outputs, every claim id, ns-2 columns),
the queue-limit conversion, and the verdict rules on hand-made inputs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from burstlab.export import export_ns2
from burstlab.export.ns2trace import ns_binary
from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import VERDICTS, reproduce
from burstlab.reproduce.papers.sodhatar import ns2runs
from burstlab.reproduce.papers.sodhatar.claims import change_verdict, ranking_verdict
from burstlab.reproduce.papers.sodhatar.experiments import (
    FIXED_PATTERNS,
    MODES,
    NS2_QUEUE_LIMIT,
    PAPER,
    QUEUE_PKTS,
    VARIANTS,
    dumbbell_points,
    paired_ratio_ci,
    random_starts,
    scenario,
)


def expected_claim_ids(mode_name: str) -> set[str]:
    m = MODES[mode_name]
    ids = {"figs.throughput_cwnd_vs_time"}
    for prefix in ("", "obs."):
        ids |= {f"{prefix}size.{v}_change" for v in VARIANTS}
        ids |= {f"{prefix}ranking.newreno_best.size={s}B" for s in m.sizes}
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
                 "throughput_vs_time", "cwnd_vs_time"):
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
                 "## Start-time sensitivity", "## With an OBS core"):
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


@pytest.mark.parametrize("sim, lo, hi, paper, verdict", [
    (-0.80, math.nan, math.nan, -0.82, "not comparable"),  # no interval: never judged
    (1.74, 1.70, 1.78, 0.43, "same direction"),
    (-0.50, -0.60, -0.40, -0.82, "same direction"),       # misses the band, both down
    (-0.80, -0.85, -0.70, -0.82, "reproduces"),           # meets the ±10.5-point band
    (0.60, -0.10, 1.30, 0.32, "not comparable"),          # meets it, far wider than it
    (0.01, -0.02, 0.04, 0.32, "differs"),                 # no change vs +32 %
    (0.25, 0.20, 0.30, -0.82, "differs"),                 # opposite sign
    (math.nan, math.nan, math.nan, 0.32, "not comparable"),
])
def test_change_verdict(sim: float, lo: float, hi: float, paper: float,
                        verdict: str) -> None:
    v, reason = change_verdict(sim, lo, hi, paper)
    assert v == verdict, reason
    assert reason


def test_change_interval_is_cut_at_minus_100_percent() -> None:
    v, reason = change_verdict(-0.9, -1.3, -0.5, -0.82)
    assert "[-100 %, -50 %]" in reason and v == "not comparable"


def test_ranking_verdict_by_paired_leads() -> None:
    sig = V.Interval(0.3, 0.2, 0.4, 10, "paired-t")
    undecided = V.Interval(0.2, -0.05, 0.45, 10, "paired-t")
    behind = V.Interval(-0.2, -0.3, -0.1, 10, "paired-t")
    assert ranking_verdict({"tahoe": sig, "reno": sig})[0] == "reproduces"
    v, why = ranking_verdict({"tahoe": sig, "reno": undecided})
    assert v == "same direction" and "Reno" in why
    assert ranking_verdict({"tahoe": sig, "reno": behind})[0] == "differs"
    # issue 37: means 0.723 and 0.724 with overlapping intervals are not a ranking
    tie_a = V.paired_difference([0.723, 0.70, 0.75], [0.724, 0.69, 0.76])
    assert ranking_verdict({"tahoe": sig, "reno": tie_a})[0] == "same direction"
    assert ranking_verdict({"reno": tie_a})[0] == "not comparable"


def test_paired_ratio_ci() -> None:
    r, lo, hi = paired_ratio_ci(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0]))
    assert (r, lo, hi) == pytest.approx((2.0, 2.0, 2.0))
    r, lo, hi = paired_ratio_ci(np.array([1.0, 1.0, 1.2]), np.array([2.0, 2.6, 2.0]))
    assert lo < r < hi
    assert math.isnan(paired_ratio_ci(np.array([1.0]), np.array([2.0]))[1])


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


def test_without_ns2_the_claims_still_run(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ns2runs, "ns_binary", lambda: None)
    out = reproduce(PAPER, tmp_path, mode="smoke", jobs=1, progress=False,
                    log=lambda s: None)
    assert {c.id for c in out.claims} == expected_claim_ids("smoke")
    runs = pd.read_csv(tmp_path / "sodhatar" / "runs.csv")
    assert runs["ns2_throughput_Mbps"].isna().all()
    md = (tmp_path / "sodhatar" / "report.md").read_text(encoding="utf-8")
    assert "ns-2 was not available" in md
    note = next(c.note for c in out.claims if c.id == "size.reno_change")
    assert "ns-2 was not available" in note


def test_example_is_the_reproduction_s_packet_dumbbell(root: Path) -> None:
    from burstlab.api import load_scenario

    ex = load_scenario(root / "examples" / "dumbbell_sodhatar.toml")
    bottleneck = [ln for ln in ex["link"] if {ln["a"], ln["b"]} == {"n3", "n4"}]
    assert bottleneck[0]["queue_pkts"] == QUEUE_PKTS
    assert [f["variant"] for f in ex["flow"]] == list(VARIANTS)
