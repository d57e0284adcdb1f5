"""`burstlab reproduce zhou`: the smoke run (outputs, every claim id), the fig. 2 checks
on hand-made tables, and the testbed scenario (wavelengths, where Pb is applied)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import burstlab
from burstlab.reproduce.framework import VERDICTS
from burstlab.reproduce.papers.zhou import checks
from burstlab.reproduce.papers.zhou import testbed as tbmod
from burstlab.reproduce.papers.zhou.experiments import MODES, PAPER, duration_for, grid_points
from burstlab.reproduce.papers.zhou.testbed import BASE, WM_SEGMENTS, setups

CLAIM_IDS = {
    "fig2.pb0_delay_penalty", "fig2.optimal_period", "fig2.optimum_independent_of_pb",
    "fig2.loss_cost_pb0.8", "fig2.higher_pb_lower_bandwidth",
    "fig2.drop_to_3000us.pb=0.1%", "fig2.drop_to_3000us.pb=0.8%",
    "fig2.drop_larger_at_low_pb", "model.optimal_period",
    "fig5.rmax1_is_conventional", "fig5.intermediate_rmax_better", "fig5.rmax0_starves",
}


@pytest.fixture(scope="module")
def smoke_out(smoke_site: Path) -> Path:
    return smoke_site / "zhou"


def test_smoke_writes_claims_with_every_id(smoke_out: Path) -> None:
    c = pd.read_csv(smoke_out / "claims.csv")
    assert set(c["claim_id"]) == CLAIM_IDS
    assert set(c["verdict"]) <= set(VERDICTS)
    assert (c["paper"] == "zhou").all()
    part2 = c[c["claim_id"].str.startswith("fig5.")]
    assert (part2["verdict"] == "not comparable").all()
    assert part2["note"].str.contains("not reproduced yet").all()


def test_smoke_writes_tables_figures_report(smoke_out: Path) -> None:
    for name in ("fig2", "sensitivity"):
        assert (smoke_out / f"{name}.png").stat().st_size > 1000
    df = pd.read_csv(smoke_out / "fig2.csv")
    for col in ("tb_us", "pb", "goodput_Mbps_mean", "goodput_Mbps_ci_lo",
                "goodput_Mbps_ci_hi", "model_variant_Mbps", "model_sack_Mbps",
                "rtt_measured_s", "seed", "replications", "burstlab_version"):
        assert col in df.columns, col
    assert (df["replications_n"] == MODES["smoke"].reps).all()
    v = pd.read_csv(smoke_out / "sensitivity_verdicts.csv")
    assert set(v["setup"]) == set(setups())
    md = (smoke_out / "report.md").read_text(encoding="utf-8")
    assert "Part 2" in md and "not yet reproduced" in md
    assert "Sensitivity" in md


# ---------------------------------------------------------------------------------------
# The checks on hand-made tables.


def table(curves: dict[float, list[float]], periods: list[float],
          half: float = 0.01) -> pd.DataFrame:
    """Goodput per (Pb, period) with a 95 % CI of ±``half`` relative."""
    rows = []
    for pb, ys in curves.items():
        for t, y in zip(periods, ys, strict=True):
            rows.append({"pb": pb, "tb_us": t, "goodput_Mbps_mean": y,
                         "goodput_Mbps_ci_lo": y * (1 - half),
                         "goodput_Mbps_ci_hi": y * (1 + half)})
    return pd.DataFrame(rows)


PERIODS = [50.0, 100.0, 250.0, 1000.0, 3000.0]


def test_optimum_fixed_vs_moving() -> None:
    fixed = table({0.0: [900, 850, 800, 400, 200], 0.001: [300, 500, 700, 500, 420],
                   0.008: [150, 250, 380, 350, 320]}, PERIODS)
    moving = table({0.0: [900, 850, 800, 400, 200], 0.001: [300, 700, 500, 400, 300],
                    0.008: [100, 150, 200, 380, 300]}, PERIODS)
    assert checks.optimum_independent(fixed).verdict == "reproduces"
    assert checks.optimal_period(fixed, 250.0).verdict == "reproduces"
    c = checks.optimum_independent(moving)
    assert c.verdict == "differs" and "grows" in c.note
    assert checks.optimal_period(moving, 250.0).verdict in ("reproduces", "same direction")
    # The best period at the smallest period for every Pb: no rise, no interior optimum.
    edge = table({0.0: [900, 850, 800, 400, 200], 0.001: [800, 700, 500, 300, 200],
                  0.008: [300, 250, 200, 150, 100]}, PERIODS)
    assert checks.optimal_period(edge, 250.0).verdict == "differs"
    assert checks.optimum_independent(edge).verdict == "same direction"
    # Wide CIs: the best period moves 250 -> 1000 us, but both CIs hold 250 us as well.
    wide = table({0.0: [900, 850, 800, 400, 200], 0.001: [300, 500, 700, 650, 420],
                  0.008: [150, 250, 360, 380, 320]}, PERIODS, half=0.2)
    c = checks.optimum_independent(wide)
    assert c.verdict == "not comparable" and "too short" in c.note


def test_loss_cost_52_vs_30_percent() -> None:
    at52 = table({0.0: [900, 850, 800, 400, 200], 0.008: [430, 410, 384, 190, 100]}, PERIODS)
    at30 = table({0.0: [900, 850, 800, 400, 200], 0.008: [630, 600, 560, 280, 140]}, PERIODS)
    c52 = checks.loss_cost(at52, 0.008, 250.0, 0.52)
    c30 = checks.loss_cost(at30, 0.008, 250.0, 0.52)
    assert c52.verdict == "reproduces" and c52.value.startswith("52 %")
    assert c30.verdict == "same direction" and c30.value.startswith("30 %")
    # No significant drop at all.
    none = table({0.0: [900, 850, 800, 400, 200], 0.008: [900, 850, 800, 400, 200]}, PERIODS)
    assert checks.loss_cost(none, 0.008, 250.0, 0.52).verdict == "differs"
    # Too noisy to decide.
    noisy = table({0.0: [900, 850, 800, 400, 200], 0.008: [430, 410, 384, 190, 100]},
                  PERIODS, half=0.5)
    assert checks.loss_cost(noisy, 0.008, 250.0, 0.52).verdict == "not comparable"


def test_drops_and_delay_penalty() -> None:
    df = table({0.0: [900, 900, 800, 400, 200], 0.001: [400, 600, 700, 500, 420],
                0.008: [150, 250, 380, 350, 320]}, PERIODS)
    assert checks.delay_penalty(df).verdict == "reproduces"
    d1 = checks.drop_between(df, 0.001, 250.0, 3000.0, 0.40)
    d8 = checks.drop_between(df, 0.008, 250.0, 3000.0, 0.16)
    assert d1.verdict == "reproduces" and d1.value.startswith("40 %")
    assert d8.verdict == "reproduces" and d8.value.startswith("16 %")
    assert checks.drop_order(df, 0.001, 0.008, 250.0, 3000.0).verdict == "reproduces"
    assert checks.higher_pb_lower(df).verdict == "same direction"  # 50 µs: 400 > 150 ok,
    # but at 3000 µs 420 > 200 (Pb = 0.1 % above Pb = 0): not monotone everywhere.
    rising = table({0.0: [200, 300, 400, 500, 600]}, PERIODS)
    assert checks.delay_penalty(rising).verdict == "differs"


# ---------------------------------------------------------------------------------------
# The scenario.


def test_testbed_scenario_wavelengths_and_loss_element() -> None:
    sc = tbmod.testbed(250e-6, 0.004)
    fibres = {(f["a"], f["b"]): f for f in sc["fibre"]}
    assert set(fibres) == {("E1", "C1"), ("C1", "E2")}
    for f in fibres.values():
        assert f["wavelengths"] == 7  # 8 channels, one is the control channel
        assert f["rate"] == "1.25Gb/s"
    assert fibres[("E1", "C1")]["loss"] == 0.004  # deliberate dropping at one node
    assert fibres[("C1", "E2")]["loss"] == 0.0
    obs = sc["obs"]
    assert obs["loss"] == {"p": 0.0, "scope": "per_link", "applies_to": "data"}
    assert obs["scheduler"] == "laucvf" and obs["ack_mode"] == "assemble"
    assert obs["assembly"] == {"type": "timer", "tb": 250e-6}
    flow = sc["flow"][0]
    assert flow["mss"] == 512 and flow["wm"] == WM_SEGMENTS == 128
    ack = tbmod.testbed(250e-6, 0.004, setups()["ack_loss"])
    assert ack["obs"]["loss"]["applies_to"] == "all"
    with pytest.raises(ValueError, match="pb"):
        tbmod.testbed(250e-6, 1.5)


def test_testbed_runs_and_drops_only_data_on_e1_c1() -> None:
    res = burstlab.run(tbmod.testbed(250e-6, 0.05, duration=0.5), seed=1)
    lost = res.obs_links.set_index(["from", "to"])["lost_random"]
    assert lost[("E1", "C1")] > 0
    # ACK bursts (C1 → E1 carries the client's ACKs back) and the second fibre: never.
    assert lost[("C1", "E1")] == 0
    assert lost[("C1", "E2")] == 0 and lost[("E2", "C1")] == 0
    assert res.flows.iloc[0]["goodput_bps"] > 0


def test_grid_and_durations() -> None:
    m = MODES["quick"]
    pts = grid_points(m)
    assert len(pts) == len(m.periods_us) * len(m.pb)
    assert {p["setup"] for p, _ in pts} == {BASE.name}
    sens = grid_points(m, sensitivity=True)
    assert {p["setup"] for p, _ in sens} == set(setups()) - {BASE.name}
    assert duration_for(m, 250e-6, 0.0, BASE) == m.min_s
    d = [duration_for(m, 250e-6, pb, BASE) for pb in (0.001, 0.008)]
    assert d[0] >= d[1] and all(m.min_s <= x <= m.max_s for x in d)
    assert np.isfinite(d).all()


def test_paper_registered() -> None:
    assert {f.name for f in PAPER.figures} == {"fig2", "sensitivity"}
    assert {"quick", "full", "smoke"} <= set(PAPER.modes)
