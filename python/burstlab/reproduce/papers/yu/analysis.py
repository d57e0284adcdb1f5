"""yu's analysis: the model beside the simulation (figs 5–7, 11), tables I–II, the trace
panels (figs 8–10) and the packet-path runs (:mod:`.packetpath`), as the tables every
figure, claim and the report read.

It imports :mod:`.experiments` and :mod:`.packetpath`; neither imports it (it is
registered on :data:`PAPER` here).
"""

from __future__ import annotations

import pandas as pd

from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.yu import packetpath
from burstlab.reproduce.papers.yu.experiments import (
    FIG_COLUMNS,
    PAPER,
    RENAME,
    TABLE_OF_S,
    Mode,
    add_models,
    moved_tables,
    moved_traces,
    ratio_tables,
    trace_panels,
)


def analyse(ctx: Context) -> None:
    """Model columns beside the simulation (figs 5–7, 11), the ratio tables (I–II) and
    the trace panels (figs 8–10); everything written as CSV goes into ``ctx.tables``."""
    m: Mode = ctx.mode
    sw = ctx.results["throughput"]
    summ = sw.summary
    figs: dict[str, pd.DataFrame] = {}
    for fig in ("fig5", "fig6", "fig7", "fig11"):
        figs[fig] = add_models(summ[summ["figure"] == fig].reset_index(drop=True))
    tables = ratio_tables(summ, m.table_s, ctx)
    tables_rfc = ratio_tables(ctx.results["throughput_rfc"].summary, m.table_s, ctx)
    tables_ns235 = ratio_tables(ctx.results["throughput_ns235"].summary, m.table_s, ctx)
    trs = trace_panels(ctx)
    trs_rfc = trace_panels(ctx, "_rfc")
    trs_ns235 = trace_panels(ctx, "_ns235")
    ctx.values.update(figs=figs, tables=tables, traces=trs, sweep=sw, tables_rfc=tables_rfc,
                      traces_rfc=trs_rfc)
    moved_t = moved_tables(tables, tables_rfc)
    moved_tr = moved_traces(trs, trs_rfc)
    ctx.values.update(moved_tables=moved_t, moved_traces=moved_tr)
    v_t = moved_tables(tables, tables_ns235, other="ns235")
    v_tr = moved_traces(trs, trs_ns235, other="ns235")
    ctx.values.update(tables_ns235=tables_ns235, traces_ns235=trs_ns235,
                      version_tables=v_t, version_traces=v_tr)
    ctx.tables["ns2_version_tables_235_vs_226"] = v_t.assign(**ctx.stamp)
    ctx.tables["ns2_version_traces_235_vs_226"] = v_tr.assign(**ctx.stamp)
    packetpath.analyse(ctx)

    stamp = ctx.stamp
    ctx.tables["moved_tables_rfc_vs_ns2"] = moved_t.assign(**stamp)
    ctx.tables["moved_traces_rfc_vs_ns2"] = moved_tr.assign(**stamp)
    for name, df in figs.items():
        cols = [c for c in FIG_COLUMNS if c in df.columns]
        ctx.tables[name] = df[cols].rename(columns=RENAME).assign(**stamp)
    for s, t in tables.items():
        ctx.tables[f"table{TABLE_OF_S[s]}_S{s}"] = t.assign(**stamp)
    for name, panels in trs.items():
        win = pd.concat([pn.window.assign(panel=pn.label, variant=pn.variant)
                         for pn in panels], ignore_index=True)
        ctx.tables[f"{name}_trace"] = win.assign(
            **{k: stamp[k] for k in ("seed", "burstlab_version")})
        ctx.tables[f"{name}_summary"] = pd.DataFrame([pn.summary for pn in panels]).assign(
            seed=stamp["seed"], burstlab_version=stamp["burstlab_version"])
    runs = sw.table
    keep = [c for c in ["figure", "access", "tb_s", "p", "variant", "wm", "duration_s",
                        "seed", "replication", "burstlab_version", "goodput_segps",
                        "throughput_segps", "segments_sent", "retransmits", "td_events",
                        "to_events", "mean_rtt_s", "mean_rto_s", "segments_per_burst",
                        "measured_s"] if c in runs.columns]
    ctx.tables["runs"] = runs[keep]


PAPER.analyse = analyse
