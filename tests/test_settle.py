"""burstlab.reproduce.settle: MSER-5, batch means, sequential run-length control."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from burstlab.reproduce.settle import (
    batch_means,
    goodput_series,
    mser,
    run_length_control,
    settle,
)


def transient_series(n: int, warm: int, seed: int) -> np.ndarray:
    """Noise around 10 after a linear climb from 0 over the first ``warm`` points."""
    rng = np.random.default_rng(seed)
    y = 10.0 + rng.normal(0.0, 1.0, n)
    y[:warm] += np.linspace(-10.0, 0.0, warm, endpoint=False)
    return y


def ar1(n: int, phi: float, rng: np.random.Generator) -> np.ndarray:
    e = rng.normal(0.0, 1.0, n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1 - phi * phi)  # started in steady state
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return x


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mser5_finds_a_known_transient(seed: int) -> None:
    y = transient_series(2000, 300, seed)
    m = mser(y)
    assert m.reliable
    assert m.truncate % 5 == 0
    # The climb ends at 300; MSER may stop a little before its last, small-bias part.
    assert 200 <= m.truncate <= 400, m.truncate
    # Without the truncation the mean is biased; with it, within noise of 10.
    assert abs(float(np.mean(y)) - 10) > 0.5
    assert abs(float(np.mean(y[m.truncate:])) - 10) < 0.15


def test_mser5_keeps_a_stationary_series_whole_and_flags_a_drifting_one() -> None:
    rng = np.random.default_rng(7)
    flat = rng.normal(5.0, 1.0, 1000)
    assert mser(flat).truncate <= 100 and mser(flat).reliable
    drift = np.linspace(0.0, 100.0, 1000) + rng.normal(0.0, 0.1, 1000)
    assert not mser(drift).reliable  # minimum at the end of the searched half


def test_mser_rejects_short_series() -> None:
    with pytest.raises(ValueError, match="at least 20 observations"):
        mser([1.0] * 19)


def test_batch_means_covers_an_ar1_mean_about_95_percent() -> None:
    """AR(1) with φ = 0.9 (zero mean): batch-means intervals from 10 batches of 1000 cover
    0 in 91–99 % of 400 replications; the naive i.i.d. interval would cover far less."""
    rng = np.random.default_rng(2026)
    cover = naive = 0
    reps = 400
    for _ in range(reps):
        x = ar1(10_000, 0.9, rng)
        bm = batch_means(x, batches=10)
        cover += bm.lo <= 0.0 <= bm.hi
        h = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
        naive += abs(x.mean()) <= h
    assert 0.91 <= cover / reps <= 0.99, cover / reps
    assert naive / reps < 0.6


def test_settle_reports_the_warmup_time_and_precision() -> None:
    y = transient_series(2000, 300, 1)
    t = np.arange(1, 2001, dtype=float) * 0.5  # 0.5 s per observation
    s = settle(t, y, rel_precision=0.05)
    assert s.settled and not s.reason
    assert 100 <= s.warmup_s <= 200
    assert s.lo < 10 < s.hi and s.rel_half_width < 0.05
    strict = settle(t, y, rel_precision=1e-4)
    assert not strict.settled and "half-width" in strict.reason


def test_run_length_control_stops_at_the_precision() -> None:
    calls: list[float] = []

    def measure(d: float) -> tuple[np.ndarray, np.ndarray]:
        calls.append(d)
        n = int(d)  # one observation per second; a deterministic extension
        y = transient_series(4096, 50, 3)[:n]
        return np.arange(1, n + 1, dtype=float), y

    rl = run_length_control(measure, start_s=100, cap_s=4000, rel_precision=0.01)
    assert rl.stopped == "precision" and rl.result.settled
    assert rl.durations_s == calls == [100, 200, 400, 800][: len(calls)]
    assert rl.result.rel_half_width <= 0.01
    # The run before the last did not reach the precision.
    t, y = measure(rl.durations_s[-2])
    assert not settle(t, y, rel_precision=0.01).settled


def test_run_length_control_stops_at_the_cap_and_says_so() -> None:
    def drifting(d: float) -> tuple[np.ndarray, np.ndarray]:
        n = int(d)
        return np.arange(1, n + 1, dtype=float), np.linspace(0, d, n)

    rl = run_length_control(drifting, start_s=100, cap_s=300, rel_precision=0.05)
    assert rl.stopped == "cap" and not rl.result.settled
    assert rl.durations_s == [100, 200, 300]
    assert "drifting" in rl.result.reason


def test_goodput_series_from_cumulative_counts() -> None:
    t, r = goodput_series(np.array([1.0, 2.0, 3.0]), np.array([10, 30, 30]), 8000.0)
    assert list(t) == [1.0, 2.0, 3.0]
    assert list(r) == [80_000.0, 160_000.0, 0.0]


def test_quick_vs_full_table_marks_disagreements(tmp_path: Path) -> None:
    from burstlab.reproduce.modes import QUICK_NOT_COMPARABLE, compare, main

    cols = "paper,claim_id,source,statement,paper_value,burstlab_value,ci,verdict,note\n"
    for mode, rows in (("q", ["p,a,,,,1,,reproduces,", "p,b,,,,2,,differs,"]),
                       ("f", ["p,a,,,,1.1,,reproduces,", "p,b,,,,3,,same direction,",
                              "p,c,,,,4,,differs,"])):
        d = tmp_path / mode / "p"
        d.mkdir(parents=True)
        (d / "claims.csv").write_text(cols + "\n".join(rows) + "\n", encoding="utf-8")
    t = compare(tmp_path / "q", tmp_path / "f").set_index("claim_id")
    assert list(t["agree"]) == [True, False, False]
    assert t.loc["a", "quick_shown"] == "reproduces"
    assert t.loc["b", "quick_shown"] == QUICK_NOT_COMPARABLE
    assert t.loc["c", "verdict_quick"] == ""  # full mode only
    assert main([str(tmp_path / "q"), str(tmp_path / "f")]) == 0
    assert (tmp_path / "q" / "quick_vs_full.csv").is_file()
    assert main([str(tmp_path / "none"), str(tmp_path / "f")]) == 2
