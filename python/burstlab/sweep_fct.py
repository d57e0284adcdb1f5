"""Completion-time summaries in sweeps: per run, then across replications with intervals.

Read first: :func:`run_rows` (what a worker keeps of one run's ``fct`` table), then
:func:`tables` (the sweep's ``fct`` and ``fct_summary``). The summaries are
:mod:`burstlab.fct`'s: per run, over its finite TCP flows, once for all of them
(``size_bin = "all"``) and once per flow-size bin (:data:`burstlab.fct.SIZE_BINS`,
:func:`burstlab.fct.fct_percentiles`); over all its finite flows (``workload = "*"``)
and, when they come from two or more workloads, over each workload's (``""`` for the
flows listed in ``[[flow]]``):

=========================  ==========================================================
column                     per run
=========================  ==========================================================
``finite_flows``           finite TCP flows in the bin
``completed_flows``        of them, completed within the run
``unfinished_flows``       of them, still running at the end
``completed_fraction``     ``completed_flows / finite_flows``
``fct_mean_s``             mean completion time of the completed flows
``fct_p50_s``,             median and 99th percentile of those (numpy's linear
``fct_p99_s``              interpolation between order statistics)
``slowdown_mean``,         mean, median and 99th percentile of ``fct_s / ideal_fct_s``
``slowdown_p50``,          (flows with an ideal)
``slowdown_p99``
``jain_goodput``           Jain's index of the goodput (``all`` rows only): for ``*``
                           of every TCP flow of ``res.flows`` (the listed ones), or,
                           with none listed, as for a workload; for a workload of its
                           completed flows over their own lives
                           (``segments_delivered / fct_s``: generated flows are not
                           in ``res.flows``)
=========================  ==========================================================

A run's row is one observation; ``fct_summary`` summarises them across the
replications of a point with the sweep's own method (:func:`burstlab.stats.summarise`:
mean, sample standard deviation and a 95 % Student-t interval per metric, cut at 0 for
metrics that cannot be negative), so the interval of ``fct_p99_s`` is that of the mean
over replications of each run's 99th percentile. Unfinished flows are counted, never
timed (docs/guide/completion-times.md): a run whose flows all failed to complete has
NaN times, which the summary leaves out (``<metric>_n`` says how many runs counted).

The worker keeps these rows (a few per run) in the stored run's metadata, not the
``fct`` table itself, whose size grows with the flows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: The per-run metrics, in column order (besides ``workload``, ``size_bin`` and its
#: edges).
METRICS = ("finite_flows", "completed_flows", "unfinished_flows", "completed_fraction",
           "fct_mean_s", "fct_p50_s", "fct_p99_s", "slowdown_mean", "slowdown_p50",
           "slowdown_p99", "jain_goodput")

#: The size bin of all finite flows of a run.
ALL = "all"
#: The workload of all finite flows of a run (whatever workload made them).
ALL_WORKLOADS = "*"


def _finite(x: Any) -> float | None:
    """``x`` as a float for JSON (None for NaN and infinity, which JSON cannot carry)."""
    f = float(x)
    return f if math.isfinite(f) else None


def run_rows(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The completion-time rows of one run (the core's raw output: ``fct`` and
    ``flows`` as JSON rows): for all its finite flows (``workload = "*"``), one ``all``
    row and one per non-empty size bin, the columns of :data:`METRICS`; the same again
    per workload when the flows come from two or more (flows listed in ``[[flow]]``
    have the workload ``""``). ``[]`` for a run without finite flows. Values are plain
    JSON (NaN and infinity as None)."""
    text = raw.get("fct")
    rows = json.loads(text) if isinstance(text, str) else list(text or [])
    if not rows:
        return []
    import pandas as pd

    from burstlab import fct as F

    fct = F.as_table(pd.DataFrame(rows))
    flows_text = raw.get("flows")
    flows = pd.DataFrame(json.loads(flows_text) if isinstance(flows_text, str)
                         else list(flows_text or []))
    tcp = flows[flows["kind"] == "tcp"] if "kind" in flows.columns else flows
    jain = F.run_scalars(fct, tcp)["jain_goodput"] if len(tcp) else _own_life_jain(fct)
    out = [{"workload": ALL_WORKLOADS, **r} for r in _rows_of(fct, jain)]
    labels = list(dict.fromkeys(fct["workload"].fillna("").astype(str)))
    if len(labels) > 1:
        for w in labels:
            sub = fct[fct["workload"].fillna("").astype(str) == w]
            out += [{"workload": w, **r} for r in _rows_of(sub, _own_life_jain(sub))]
    return [{k: (_finite(v) if isinstance(v, float) else v) for k, v in r.items()}
            for r in out]


def _own_life_jain(fct: pd.DataFrame) -> float:
    """Jain's index of the completed finite flows' goodput over their own lives
    (``segments_delivered / fct_s``, what ``res.flows`` reports for such a flow): the
    index of flows that ``res.flows`` does not list (generated by a workload)."""
    import pandas as pd

    from burstlab import fct as F

    done = fct[fct["completed"]]
    seg = pd.to_numeric(done["segments_delivered"], errors="coerce")
    t = pd.to_numeric(done["fct_s"], errors="coerce")
    rate = (seg / t)[(t > 0) & seg.notna()]
    return F.jain_index(rate.to_numpy(float))


def _rows_of(fct: pd.DataFrame, jain: float) -> list[dict[str, Any]]:
    """The ``all`` row (with Jain's index ``jain``) and the size-bin rows of a set of
    finite flows (``fct``)."""
    from burstlab import fct as F

    n = len(fct)
    done = int(fct["completed"].sum())
    scal = F.run_scalars(fct)
    sd = F.slowdown_summary(fct)
    out = [{"size_bin": ALL, "size_lo_bytes": 0.0, "size_hi_bytes": None,
            "finite_flows": n, "completed_flows": done, "unfinished_flows": n - done,
            "completed_fraction": done / n, "fct_mean_s": scal["fct_mean_s"],
            "fct_p50_s": scal["fct_p50_s"], "fct_p99_s": scal["fct_p99_s"],
            "slowdown_mean": sd["slowdown_mean"], "slowdown_p50": sd["slowdown_p50"],
            "slowdown_p99": sd["slowdown_p99"],
            "jain_goodput": jain}]
    for b in F.fct_percentiles(fct).to_dict("records"):
        out.append({"size_bin": b["size_bin"], "size_lo_bytes": b["size_lo_bytes"],
                    "size_hi_bytes": b["size_hi_bytes"], "finite_flows": b["flows"],
                    "completed_flows": b["completed"], "unfinished_flows": b["unfinished"],
                    "completed_fraction": b["completed"] / b["flows"],
                    **{m: b[m] for m in ("fct_mean_s", "fct_p50_s", "fct_p99_s",
                                         "slowdown_mean", "slowdown_p50", "slowdown_p99")},
                    "jain_goodput": math.nan})
    return out


#: The columns of the runs table that are not a run's parameters or stamp.
_RUN_ONLY = ("status", "error", "wall_s", "host", "key")
#: The stamp columns that tell the replications of a point apart.
_STAMP = ("seed", "replication", "burstlab_version")


def tables(runs: pd.DataFrame, stored: Mapping[str, Mapping[str, Any]]
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sweep's ``fct`` table (one row per successful run, workload and size bin:
    the run's stamp from ``runs`` — point, parameters, seed, replication — then
    ``workload``, ``size_bin``, ``size_lo_bytes``, ``size_hi_bytes`` and
    :data:`METRICS`) and ``fct_summary`` (per point — its index, parameters and their
    SI values, the columns of ``runs`` besides the seed, replication, version and the
    run's own — workload and size bin: ``n`` and each metric's mean, std and
    95 % interval, :func:`burstlab.stats.summarise`). Both are empty when no run had a
    finite flow. ``stored`` maps a run's key to its stored row, ``meta`` parsed."""
    import pandas as pd

    from burstlab.stats import summarise

    out: list[dict[str, Any]] = []
    if len(runs):
        stamp_cols = [c for c in runs.columns if c not in _RUN_ONLY]
        for run in runs[runs["status"] == "ok"].to_dict("records"):
            rec = stored.get(run["key"])
            meta = (rec or {}).get("meta") or {}
            stamp = {c: run[c] for c in stamp_cols}
            out += [{**stamp, **r} for r in meta.get("fct", [])]
    if not out:
        return pd.DataFrame(), pd.DataFrame()
    fct = pd.DataFrame(out)
    for c in ("size_lo_bytes", "size_hi_bytes", *METRICS):
        fct[c] = pd.to_numeric(fct[c], errors="coerce").astype(float)
    fct["size_hi_bytes"] = fct["size_hi_bytes"].fillna(math.inf)
    fct["workload"] = fct["workload"].fillna(ALL_WORKLOADS) if "workload" in fct.columns \
        else ALL_WORKLOADS
    point = [c for c in runs.columns if c not in _RUN_ONLY and c not in _STAMP]
    by = [*point, "workload", "size_bin", "size_lo_bytes", "size_hi_bytes"]
    # Counts, fractions, times and ratios: none can be negative (intervals cut at 0).
    summary = summarise(fct, by, list(METRICS), lower={m: 0.0 for m in METRICS})
    return fct, summary
