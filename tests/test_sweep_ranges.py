"""issue 37: a two-replication sweep's summary (and ``burstlab plot``'s error bars of its
tidy table) keep every interval inside the quantity's range: a non-negative metric's
interval never goes below 0, where a plain Student-t interval from two runs does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import burstlab
from burstlab.plot import figure
from burstlab.stats import t_ppf

SCENARIO = {
    "name": "tcp-lossy",
    "sim": {"duration": 2.0, "seed": 11},
    "node": [{"name": "a", "kind": "host"}, {"name": "r", "kind": "router"},
             {"name": "b", "kind": "host"}],
    "link": [{"a": "a", "b": "r", "rate": "100Mb/s", "delay": "1ms"},
             {"a": "r", "b": "b", "rate": "10Mb/s", "delay": "20ms", "loss": 0.05}],
    "flow": [{"type": "tcp", "src": "a", "dst": "b", "variant": "reno"}],
}


def test_two_replication_summary_stays_in_range(tmp_path: Path) -> None:
    res = burstlab.sweep(SCENARIO, {"link.1.loss_ab": "0.02,0.1"}, replications=2,
                         store=tmp_path / "s.sqlite", executor="serial", progress=False)
    s, t = res.summary, res.table
    assert set(s["n"]) == {2}
    cut = 0
    for m in res.metrics:
        x = pd.to_numeric(t[m], errors="coerce")
        lo, hi, mean = s[f"{m}_ci_lo"], s[f"{m}_ci_hi"], s[f"{m}_mean"]
        ok = lo.notna()
        assert (lo[ok] <= mean[ok]).all() and (mean[ok] <= hi[ok]).all(), m
        if bool((x.dropna() >= 0).all()):
            assert (lo[ok] >= 0).all(), (m, lo[ok].tolist())
            # where the raw t interval (two runs: t = 12.7) would go below 0, it is cut
            half = t_ppf(0.975, 1) * s[f"{m}_std"] / np.sqrt(2)
            cut += int(((mean - half) < 0).sum())
    assert cut > 0  # the test exercises the cut: some raw interval went below 0
    # burstlab plot summarises the tidy table the same way: no bar reaches below 0
    fig = figure(t, x="link.1.loss_ab", y="goodput_bps")
    for coll in fig.axes[0].collections:
        for seg in coll.get_segments():
            assert np.nanmin(np.asarray(seg)[:, 1]) >= 0
