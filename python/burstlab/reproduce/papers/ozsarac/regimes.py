"""ozsarac's mesh and dynamic flows explained with numbers (issue 53): the ceilings the
runs sit at, the capture of a shared single-wavelength fibre in burstlab and in nOBS,
and where CWBA's gain over the best timer turns positive as flows meet on a fibre.

Read first: :func:`capture_scenario` and :func:`capture_rows`, then
:func:`meeting_scenario` and :func:`meeting_table`, then :func:`regimes_text`.

- **Ceilings** (:func:`.topology.access_ceiling_bps`, :func:`.topology.cwba_ceiling_bps`):
  computed from each scenario's parameters. A timer-assembled flow alone on its fibres
  runs at its access link's payload rate; a CWBA flow sends one window per cycle.
- **Capture**: the two flows of the default mesh reading that share the core fibre
  N7 → N8 (flows 6 and 9), alone, Reno, 10 ms timer without jitter, one wavelength on
  every fibre (nOBS has one number of wavelengths for the whole network). Run in
  burstlab here and in nOBS when it is built; otherwise the stored measurement
  (:data:`CAPTURE_STORED`, written by ``python -m
  burstlab.reproduce.papers.ozsarac.regimes --out FILE``) is shown.
- **Flows meeting on a fibre**: fig. 2 gives no routes, so how many flows meet on a
  single-wavelength fibre, and at which access rate, is not given. ``k`` flows from ``k``
  ingresses cross one core fibre C1 → C2 (the mesh's delays and rates otherwise), each
  flow starting at a seeded time in [0, 100 ms); per (k, access rate), CWBA's total
  goodput against the best jittered timer's, paired over the start sets.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import Context, Experiment
from burstlab.reproduce.papers.ozsarac.experiments import PAPER, SEED, Mode, Point, gain_pct
from burstlab.reproduce.papers.ozsarac.topology import (
    MESH_ACCESS_DELAY,
    MESH_CORE_DELAY,
    MESH_READING,
    MESH_READINGS,
    OPTICAL_RATE,
    _obs,
    _tcp,
    access_ceiling_bps,
    assembly,
    cwba_ceiling_bps,
    mesh,
)
from burstlab.reproduce.report import Report, fmt

#: The shared core fibre of the capture case and its timer period (no jitter).
CAPTURE_FIBRE = ("N7", "N8")
CAPTURE_TIMER_S = 10e-3
#: nOBS and burstlab on the capture case, 60 s (nOBS aborts past about 64 s).
CAPTURE_STORED = Path(__file__).with_name("nobs_capture.csv")


def capture_flows() -> list[int]:
    """The flows of the default reading that share :data:`CAPTURE_FIBRE`."""
    return MESH_READINGS[MESH_READING].shared_fibres()[CAPTURE_FIBRE]


def capture_scenario(duration: float) -> dict[str, Any]:
    """The mesh with only :func:`capture_flows`, Reno, a 10 ms timer, one wavelength."""
    sc = mesh(assembly("timer", CAPTURE_TIMER_S), "reno", duration=duration, seed=SEED,
              edge_wavelengths=1)
    keep = {f"flow{i}" for i in capture_flows()}
    sc["flow"] = [f for f in sc["flow"] if f["name"] in keep]
    return sc


def capture_points(m: Mode) -> list[Point]:
    return [({"topology": "capture", "duration_s": float(m.capture_s)},
             capture_scenario(m.capture_s))]


def _rows(sim: str, spec: dict[str, Any], counts: list[tuple[int, int, int, int]],
          duration: float) -> list[dict[str, Any]]:
    """One row per flow: (delivered or acked, sent, retransmitted, timeouts)."""
    rows = []
    for i, (good, sent, retx, tos) in enumerate(counts):
        f = spec["flow"][i]
        rows.append({"simulator": sim, "flow": f["name"], "duration_s": duration,
                     "goodput_segps": good / duration,
                     "goodput_Mbps": good * 8.0 * float(f["mss"]) / duration / 1e6,
                     "segments_sent": sent, "retransmits": retx, "timeouts": tos,
                     "access_ceiling_Mbps": access_ceiling_bps(spec, i) / 1e6})
    return rows


def burstlab_capture(spec: dict[str, Any], flows: pd.DataFrame) -> list[dict[str, Any]]:
    """burstlab's rows of the capture case (goodput: segments delivered)."""
    t = flows[flows["kind"] == "tcp"]
    return _rows("burstlab", spec, [(int(r["segments_delivered"]), int(r["segments_sent"]),
                                     int(r["retransmits"]), int(r["to_events"]))
                                    for _, r in t.iterrows()],
                 float(spec["sim"]["duration"]))


def nobs_capture(spec: dict[str, Any]) -> list[dict[str, Any]] | None:
    """nOBS's rows of the capture case (goodput: segments acknowledged at the sender,
    ns-2's ``ack_``), or None when nOBS is not built."""
    from burstlab.export import export_nobs
    from burstlab.export.nobstrace import nobs_binary, run_nobs

    if nobs_binary() is None:
        return None
    nb = run_nobs(export_nobs(spec))
    return _rows("nOBS", spec, [(nb.flows[i].acked_segments, nb.flows[i].data_packets,
                                 nb.flows[i].retransmitted_packets, nb.flows[i].timeouts)
                                for i in range(len(spec["flow"]))],
                 float(spec["sim"]["duration"]))


def capture_rows(ctx: Context) -> pd.DataFrame:
    """The capture case: burstlab's run of this reproduction, and nOBS's run of the same
    scenario when nOBS is built (``source`` "this run"), else the stored measurement
    (``source`` "stored")."""
    sw = ctx.results.get("capture")
    rows: list[dict[str, Any]] = []
    if sw is not None:
        spec = capture_scenario(float(ctx.mode.capture_s))
        rows = burstlab_capture(spec, sw.table.sort_values("flow"))
        nb = nobs_capture(spec)
        if nb is not None:
            return pd.DataFrame([{**r, "source": "this run"} for r in rows + nb])
    df = pd.DataFrame([{**r, "source": "this run"} for r in rows])
    if CAPTURE_STORED.exists():
        df = pd.concat([df, pd.read_csv(CAPTURE_STORED).assign(source="stored")],
                       ignore_index=True)
    return df


# --- Flows meeting on one fibre ----------------------------------------------------------


def meeting_scenario(k: int, asm: dict[str, Any], access_bps: float, duration: float,
                     warmup: float, start_set: int) -> dict[str, Any]:
    """``k`` Reno flows S_i – I_i ═ C1 ═ C2 ═ O_i – D_i meeting on the one wavelength
    of C1 → C2 (2.5 ms), edge fibres of 0.1 ms, access links of ``access_bps`` and
    0.1 ms; flow i starts at a seeded time in [0, 100 ms) (start set ``start_set``)."""
    rng = np.random.default_rng(1000 * SEED + start_set)
    core = {"rate": OPTICAL_RATE, "delay": MESH_CORE_DELAY, "wavelengths": 1}
    edge = {"rate": OPTICAL_RATE, "delay": MESH_ACCESS_DELAY, "wavelengths": 1}
    el = {"rate": f"{access_bps:.12g}b/s", "delay": MESH_ACCESS_DELAY}
    nodes: list[dict[str, Any]] = [{"name": "C1", "kind": "core"},
                                   {"name": "C2", "kind": "core"}]
    links: list[dict[str, Any]] = []
    fibres: list[dict[str, Any]] = [{"a": "C1", "b": "C2", **core}]
    flows = []
    for i in range(1, k + 1):
        nodes += [{"name": f"I{i}", "kind": "edge"}, {"name": f"O{i}", "kind": "edge"},
                  {"name": f"S{i}", "kind": "host"}, {"name": f"D{i}", "kind": "host"}]
        fibres += [{"a": f"I{i}", "b": "C1", **edge}, {"a": "C2", "b": f"O{i}", **edge}]
        links += [{"a": f"S{i}", "b": f"I{i}", **el}, {"a": f"O{i}", "b": f"D{i}", **el}]
        flows.append(_tcp(f"flow{i}", f"S{i}", f"D{i}", "reno",
                          route=[f"S{i}", f"I{i}", "C1", "C2", f"O{i}", f"D{i}"],
                          start=round(float(rng.uniform(0.0, 0.1)), 6)))
    sc: dict[str, Any] = {"name": "ozsarac-meeting",
                          "sim": {"duration": duration, "seed": SEED + start_set},
                          "node": nodes, "link": links, "fibre": fibres,
                          "obs": _obs(asm), "flow": flows}
    if warmup > 0:
        sc["sim"]["warmup"] = warmup
    return sc


def meeting_points(m: Mode) -> list[Point]:
    """Every (flows meeting, access rate, start set): CWBA and each jittered timer of
    ``meet_timer_ms`` (10 % jitter, as in the mesh)."""
    pts: list[Point] = []
    for k in m.meet_flows:
        for mbps in m.meet_access_Mbps:
            for s in range(m.meet_sets):
                for kind, tb in [("cwba", 0.0)] + [("timer", float(t))
                                                   for t in m.meet_timer_ms]:
                    asm = assembly(kind, tb / 1e3 if tb else None,
                                   jitter=0.1 if kind == "timer" else 0.0)
                    pts.append(({"topology": "meeting", "assembler": kind, "tb_ms": tb,
                                 "flows_meeting": int(k), "access_Mbps": float(mbps),
                                 "start_set": s, "duration_s": float(m.meet_s)},
                                meeting_scenario(int(k), asm, 1e6 * float(mbps), m.meet_s,
                                                 m.meet_warmup_s, s)))
    return pts


def meeting_table(sw: Any) -> pd.DataFrame:
    """Per (flows meeting, access rate): CWBA's total goodput and the best timer's
    (AP_opt: the period of the highest mean total), CWBA's gain with its paired interval
    over the start sets (:func:`burstlab.reproduce.verdict.paired_ratio`), flows under
    1 % of the total, and the ceilings of one flow (the same for every flow here)."""
    from burstlab.reproduce import verdict as V

    prm = sw.runs.drop_duplicates("point").set_index("point")
    t = sw.table[sw.table["kind"] == "tcp"]
    runs = []
    for p, g in t.groupby("point"):
        r = prm.loc[int(str(p))]
        x = g["goodput_bps"].to_numpy(float)
        runs.append({"k": int(r["flows_meeting"]), "mbps": float(r["access_Mbps"]),
                     "kind": str(r["assembler"]), "tb": float(r["tb_ms"]),
                     "set": int(r["start_set"]), "total": float(x.sum()) / 1e6,
                     "starved": int((x < 0.01 * max(float(x.sum()), 1e-12)).sum())})
    df = pd.DataFrame(runs)
    out = []
    for (k, mbps), g in df.groupby(["k", "mbps"]):
        tm = g[g["kind"] == "timer"].groupby("tb")["total"].mean()
        ap = float(tm.index.to_numpy(float)[int(np.argmax(tm.to_numpy(float)))])
        cw = g[g["kind"] == "cwba"].set_index("set")
        bt = g[(g["kind"] == "timer") & (g["tb"] == ap)].set_index("set")
        sets = sorted(set(cw.index) & set(bt.index))
        r = V.paired_ratio([float(cw.loc[s, "total"]) for s in sets],
                           [float(bt.loc[s, "total"]) for s in sets])
        spec = meeting_scenario(int(str(k)), assembly("cwba"), 1e6 * float(str(mbps)),
                                1.0, 0.0, 0)
        out.append({"flows_meeting": int(str(k)), "access_Mbps": float(str(mbps)),
                    "ap_opt_ms": ap, "best_timer_total_Mbps": float(bt["total"].mean()),
                    "cwba_total_Mbps": float(cw["total"].mean()),
                    "gain_pct": gain_pct(float(cw["total"].mean()), float(bt["total"].mean())),
                    "gain_ci_lo_pct": 100.0 * (r.lo - 1.0) if r.defined else math.nan,
                    "gain_ci_hi_pct": 100.0 * (r.hi - 1.0) if r.defined else math.nan,
                    "start_sets_n": len(sets),
                    "cwba_starved_flows": float(cw["starved"].mean()),
                    "timer_starved_flows": float(bt["starved"].mean()),
                    "access_ceiling_Mbps": access_ceiling_bps(spec, 0) / 1e6,
                    "cwba_ceiling_Mbps": cwba_ceiling_bps(spec, 0) / 1e6})
    return pd.DataFrame(out)


def crossing_text(tab: pd.DataFrame) -> str:
    """Per number of flows meeting, the access rates at which CWBA's gain is positive and
    where it turns negative, from :func:`meeting_table`."""
    parts = []
    for k, g in tab.sort_values("access_Mbps").groupby("flows_meeting"):
        pos = g[g["gain_pct"] > 0]
        neg = g[g["gain_pct"] <= 0]
        txt = f"{int(str(k))} flow{'s' if int(str(k)) > 1 else ''}: gain " + ", ".join(
            f"{fmt(a)} Mb/s {float(x):+.1f} %" for a, x in zip(g["access_Mbps"], g["gain_pct"],
                                                             strict=True))
        if len(pos) and len(neg):
            lo = float(pos["access_Mbps"].max())
            hi = float(neg[neg["access_Mbps"] > lo]["access_Mbps"].min()) \
                if (neg["access_Mbps"] > lo).any() else math.nan
            txt += (f" (positive up to {fmt(lo)} Mb/s"
                    + (f", negative from {fmt(hi)} Mb/s)" if math.isfinite(hi) else ")"))
        elif len(pos):
            txt += " (positive at every rate run)"
        else:
            txt += " (negative at every rate run)"
        parts.append(txt)
    return "; ".join(parts)


def analyse_regimes(ctx: Context) -> None:
    if "capture" in ctx.results:
        cap = capture_rows(ctx)
        ctx.values["capture"] = cap
        ctx.tables["capture_two_flows"] = cap.assign(**ctx.stamp)
    if "meeting" in ctx.results:
        tab = meeting_table(ctx.results["meeting"])
        ctx.values["meeting"] = tab
        ctx.tables["meeting_flows_access_rate"] = tab.assign(**ctx.stamp)


def capture_text(cap: pd.DataFrame) -> str:
    """The capture case in words: per simulator and source, each flow's goodput and
    counters, and which counters agree between the simulators of one source."""
    parts = []
    for (src, sim), g in cap.groupby(["source", "simulator"], sort=False):
        parts.append(f"{sim} ({src}, {fmt(float(g['duration_s'].iloc[0]))} s): " + "; ".join(
            f"{r['flow']} {float(r['goodput_segps']):.1f} seg/s ({fmt(r['goodput_Mbps'])} "
            f"Mb/s), {int(r['segments_sent'])} sent, {int(r['retransmits'])} retransmitted, "
            f"{int(r['timeouts'])} timeouts" for _, r in g.iterrows()))
    same = []
    for src, g in cap.groupby("source", sort=False):
        sims = g.groupby("simulator")
        if len(sims) != 2:
            continue
        a, b = (x.set_index("flow") for _, x in sims)
        cols = ["segments_sent", "retransmits", "timeouts"]
        eq = [c for c in cols if (a[c] == b.loc[a.index, c]).all()]
        same.append(f"{str(src).capitalize()}: {', '.join(eq) if eq else 'no counter'} "
                    "equal in both "
                    f"simulators for every flow"
                    + (f", {', '.join(c for c in cols if c not in eq)} not" if len(eq) < 3
                       else ""))
    return ". ".join(parts) + (". " + "; ".join(same) + "." if same else ".")


def regimes_text(r: Report, ctx: Context) -> None:
    """The report section: ceilings, capture, and the sweep of flows meeting."""
    r.h(2, "Why the mesh and the dynamic flows lose: ceilings, capture and the regime")
    spec = mesh(assembly("cwba"), "reno", duration=1.0)
    cw = [cwba_ceiling_bps(spec, i) / 1e6 for i in range(len(spec["flow"]))]
    r.p(f"Two ceilings, computed from the scenario's parameters (`topology.py`, "
        f"`access_ceiling_bps`, `cwba_ceiling_bps`): a timer-assembled flow alone on its "
        f"fibres runs at its access link's payload limit, "
        f"{fmt(access_ceiling_bps(spec, 0) / 1e6)} Mb/s (500 Mb/s × 1000 B / 1040 B); a "
        f"CWBA flow sends one window of 10 000 segments per cycle (the window on the access "
        f"link, the offset, the burst on the wavelength, the route's delays and the ACK's "
        f"way back): {fmt(min(cw))}–{fmt(max(cw))} Mb/s on the mesh's routes. Where flows "
        "do not meet, the timer is the faster, by the ratio of the two.")
    cap: pd.DataFrame | None = ctx.values.get("capture")
    r.h(3, "Two flows on one single-wavelength fibre, in burstlab and in nOBS")
    if cap is not None and len(cap):
        r.p(f"Flows {' and '.join(str(i) for i in capture_flows())} of the mesh share "
            f"{' → '.join(CAPTURE_FIBRE)}; alone, Reno, a {fmt(1e3 * CAPTURE_TIMER_S)} ms "
            "timer without jitter, one wavelength per fibre. burstlab's goodput counts the "
            "segments delivered, nOBS's the segments acknowledged at the sender. "
            + capture_text(cap)
            + " One flow takes the wavelength at its access link's payload limit, the "
            "other starves: the same capture in both simulators.")
        r.table(cap)
    else:
        r.p("No capture run in this mode.")
    tab: pd.DataFrame | None = ctx.values.get("meeting")
    r.h(3, "Where CWBA's gain turns positive")
    if tab is None or not len(tab):
        r.p("No runs of flows meeting in this mode.")
        return
    m = ctx.mode
    r.p(f"Fig. 2 gives no routes, so how many flows meet on a single-wavelength fibre, and "
        f"at which access rate, is ours to choose. {', '.join(str(k) for k in m.meet_flows)}"
        f" flows meet on one core fibre (the mesh's delays, one wavelength, no buffer) at "
        f"access rates {', '.join(fmt(x) for x in m.meet_access_Mbps)} Mb/s; CWBA against "
        f"the best of the jittered timers {', '.join(fmt(x) for x in m.meet_timer_ms)} ms, "
        f"{m.meet_sets} start sets of {fmt(m.meet_s)} s (warm-up {fmt(m.meet_warmup_s)} s). "
        + crossing_text(tab) + ". At high access rates the flows' bursts capture the "
        "wavelength and each assembler runs its winner at its ceiling, where the timer is "
        "the faster; at low rates the timer's many short bursts collide with every other "
        "flow's and its flows lose, while CWBA's few whole-window bursts meet less often.")
    r.table(tab)
    sw = ctx.results.get("meeting")
    if sw is not None and m.name != "full":
        from burstlab.reproduce.papers.ozsarac.experiments import MODES

        cpu = float(sw.stats.get("sum_run_s") or 0.0)
        sim_here = sum(p["duration_s"] for p, _ in meeting_points(m))
        sim_full = sum(p["duration_s"] for p, _ in meeting_points(MODES["full"]))
        if cpu > 0 and sim_here > 0:
            r.p(f"Full mode runs {len(meeting_points(MODES['full']))} of these runs, "
                f"{fmt(sim_full)} simulated s: about {cpu / sim_here * sim_full / 3600:.1f} "
                f"CPU-hours at this run's {cpu / sim_here * 1e3:.0f} CPU-ms per simulated "
                "second (extrapolated; low access rates simulate fewer events per second).")


def _register() -> None:
    """Adds the two experiments and their analysis to :data:`PAPER`, once (``python -m``
    of this module imports it a second time as ``__main__``)."""
    if any(e.name == "capture" for e in PAPER.experiments):
        return
    PAPER.experiments.extend([
        Experiment("capture", lambda ctx: capture_points(ctx.mode)),
        Experiment("meeting", lambda ctx: meeting_points(ctx.mode)),
    ])
    before = PAPER.analyse

    def with_regimes(ctx: Context) -> None:
        before(ctx)
        analyse_regimes(ctx)

    PAPER.analyse = with_regimes


_register()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the capture case in burstlab and nOBS and writes both as one CSV."""
    import burstlab

    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.papers.ozsarac.regimes",
                                 description="the two-flow capture case of ozsarac's mesh "
                                             "in burstlab and in nOBS, as one CSV")
    ap.add_argument("--duration", type=float, default=60.0,
                    help="simulated seconds (nOBS aborts past about 64 s)")
    ap.add_argument("--out", default=str(CAPTURE_STORED))
    args = ap.parse_args(argv)
    if not 0 < args.duration <= 64:
        print("error: --duration must be in (0, 64] s", file=sys.stderr)
        return 2
    spec = capture_scenario(args.duration)
    rows = burstlab_capture(spec, burstlab.run(spec).flows)
    nb = nobs_capture(spec)
    if nb is None:
        print("error: nOBS is not built (`make nobs`, or set BURSTLAB_NOBS)", file=sys.stderr)
        return 2
    pd.DataFrame(rows + nb).to_csv(args.out, index=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
