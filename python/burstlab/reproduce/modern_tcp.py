"""Extension beyond the five papers (no paper verdicts): today's controllers on yu's OBS
path and on ozsarac's linear topology, as a page of its own,
``OUT/modern_tcp/report.html``.

yu §V's path (figs 5–6 set-up: one flow, per-flow timer assembly with period Tb, burst
loss p = 0.01 on data bursts; ``burstlab.topologies.yu_path``) with Reno and SACK
(AIMD) beside CUBIC, HighSpeed and Vegas (ns-2.35's ``Agent/TCP/Linux`` modules, the
``ns2`` profile) and BBR (v1 as ns-3's TcpBbr; the ``rfc`` profile, the only one it
runs under: RFC 6298's 1 s minimum RTO where the ``ns2`` senders have ns-2's 0.2 s, and
RFC 5681's initial window). ``wm`` is raised to 1000 segments so that the receiver
window does not hide the controllers' differences (yu's runs use 50).

Each point is one settled run (``settle.run_length_control``: goodput per second, MSER
warm-up, batch means, doubling the run until the 95 % interval is within 10 % of the
mean or the cap is reached). The sentences of the page are computed from the runs.

ozsarac's part (:func:`ozsarac_grid`): ozsarac's linear topology (fig. 1: one FTP flow
against the on/off real-time source, scenarios from
``burstlab.reproduce.papers.ozsarac.topology``) with CWBA (the sender marks the segment
that completes its window) against timer assembly at each period of ``OZ_TIMERS_MS``,
for Reno, SACK, CUBIC (``Agent/TCP/Linux``, ``ns2`` profile) and BBR (``rfc``
profile), each point a settled run as above; the best timer of a sender is its period
of highest mean goodput.

Run: ``python -m burstlab.reproduce.modern_tcp --out OUT [--quick]``
(docs/topics/modern-tcp.md).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import burstlab
from burstlab.plot import error_bars
from burstlab.topologies import yu_path

#: (label, variant, cc, profile) of the senders compared.
SENDERS = [("reno", "reno", "aimd", "ns2"), ("sack", "sack", "aimd", "ns2"),
           ("cubic", "sack", "cubic", "ns2"), ("highspeed", "sack", "highspeed", "ns2"),
           ("vegas", "sack", "vegas", "ns2"), ("bbr", "sack", "bbr", "rfc")]

#: Assembly periods Tb (yu figs 5–6 span 1–20 ms).
TBS = ("1ms", "2ms", "5ms", "10ms", "20ms")
QUICK_TBS = ("1ms", "5ms", "20ms")
P_LOSS = 0.01
WM = 1000
#: Run-length control: first run and cap, simulated seconds (full, quick).
START_S, CAP_S = 100.0, 3200.0
QUICK_START_S, QUICK_CAP_S = 100.0, 800.0


@dataclass(kw_only=True)
class Settled:
    """One run-length-controlled measurement (:mod:`burstlab.reproduce.settle`): the
    settled goodput, its 95 % interval (cut at 0), whether it settled and why not, the
    run's length and its warm-up."""
    mean_segps: float
    lo_segps: float
    hi_segps: float
    settled: bool
    why: str
    duration_s: float
    warmup_s: float

    @classmethod
    def of(cls, r: Any, **key: Any) -> Any:
        """From a :func:`~burstlab.reproduce.settle.run_length_control` result; a goodput
        is >= 0, so its batch-means interval is cut there."""
        return cls(**key, mean_segps=r.mean, lo_segps=max(r.lo, 0.0), hi_segps=r.hi,
                   settled=r.settled, why=r.reason, duration_s=r.duration_s,
                   warmup_s=r.warmup_s)


@dataclass(kw_only=True)
class Point(Settled):
    """yu's path at assembly period ``tb`` with one sender."""
    tb: str
    sender: str


def spec_for(tb: str, variant: str, cc: str, profile: str, duration_s: float,
             seed: int = 1) -> dict[str, Any]:
    spec = yu_path(tb=tb, p=P_LOSS, variant=variant, wm=WM, duration=f"{duration_s:g}s",
                   seed=seed, trace={"goodput": "1s"})
    spec["flow"][0].update(cc=cc, profile=profile)
    return spec


def measure_point(tb: str, label: str, variant: str, cc: str, profile: str, *,
                  start_s: float, cap_s: float) -> Point:
    from burstlab.reproduce.settle import goodput_series, run_length_control

    def measure(d: float) -> tuple[np.ndarray, np.ndarray]:
        g = burstlab.run(spec_for(tb, variant, cc, profile, d)).goodput_trace
        return goodput_series(g.time_s.to_numpy(), g.delivered_segments.to_numpy(), 1.0)

    rl = run_length_control(measure, start_s=start_s, cap_s=cap_s)
    r = rl.result
    return Point.of(r, tb=tb, sender=label)


def run_grid(quick: bool = False) -> list[Point]:
    tbs = QUICK_TBS if quick else TBS
    start, cap = (QUICK_START_S, QUICK_CAP_S) if quick else (START_S, CAP_S)
    return [measure_point(tb, *s, start_s=start, cap_s=cap) for tb in tbs for s in SENDERS]


#: ozsarac's part: (label, variant, cc, profile), timer periods (ms), run-length control.
OZ_SENDERS = [("reno", "reno", "aimd", "ns2"), ("sack", "sack", "aimd", "ns2"),
              ("cubic", "sack", "cubic", "ns2"), ("bbr", "sack", "bbr", "rfc")]
OZ_TIMERS_MS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
QUICK_OZ_TIMERS_MS = (1.0, 4.0, 16.0)
OZ_START_S, OZ_CAP_S = 60.0, 960.0
QUICK_OZ_START_S, QUICK_OZ_CAP_S = 30.0, 120.0


@dataclass(kw_only=True)
class OzPoint(Settled):
    """One settled run on ozsarac's linear topology: ``assembler`` is ``cwba`` or
    ``timer`` (period ``tb_ms``; 0 for CWBA)."""
    sender: str
    assembler: str
    tb_ms: float


def oz_spec(assembler: str, tb_ms: float, variant: str, cc: str, profile: str,
            duration_s: float) -> dict[str, Any]:
    from burstlab.reproduce.papers.ozsarac.topology import assembly, linear

    asm = assembly("timer", tb_ms / 1e3) if assembler == "timer" else assembly(assembler)
    spec = linear(asm, variant, duration=duration_s, seed=1, goodput_every=1.0)
    spec["flow"][0].update(cc=cc, profile=profile)
    return spec


def oz_point(assembler: str, tb_ms: float, label: str, variant: str, cc: str,
             profile: str, *, start_s: float, cap_s: float) -> OzPoint:
    from burstlab.reproduce.settle import goodput_series, run_length_control

    def measure(d: float) -> tuple[np.ndarray, np.ndarray]:
        g = burstlab.run(oz_spec(assembler, tb_ms, variant, cc, profile, d)).goodput_trace
        g = g[g.flow == 0]
        return goodput_series(g.time_s.to_numpy(), g.delivered_segments.to_numpy(), 1.0)

    r = run_length_control(measure, start_s=start_s, cap_s=cap_s).result
    return OzPoint.of(r, sender=label, assembler=assembler, tb_ms=tb_ms)


def ozsarac_grid(quick: bool = False) -> list[OzPoint]:
    timers = QUICK_OZ_TIMERS_MS if quick else OZ_TIMERS_MS
    start, cap = (QUICK_OZ_START_S, QUICK_OZ_CAP_S) if quick else (OZ_START_S, OZ_CAP_S)
    out = []
    for s in OZ_SENDERS:
        out.append(oz_point("cwba", 0.0, *s, start_s=start, cap_s=cap))
        out += [oz_point("timer", tb, *s, start_s=start, cap_s=cap) for tb in timers]
    return out


def oz_sentences(points: list[OzPoint]) -> list[str]:
    """CWBA against each sender's best timer, computed from the runs."""
    out = []
    for label in dict.fromkeys(p.sender for p in points):
        mine = [p for p in points if p.sender == label]
        cwba = next((p for p in mine if p.assembler == "cwba"), None)
        timers = [p for p in mine if p.assembler == "timer"]
        if cwba is None or not timers:
            continue
        best = max(timers, key=lambda p: p.mean_segps)
        ratio = cwba.mean_segps / best.mean_segps if best.mean_segps > 0 else math.nan
        if cwba.lo_segps > best.hi_segps:
            verdict = "above it, the 95 % intervals apart"
        elif cwba.hi_segps < best.lo_segps:
            verdict = "below it, the 95 % intervals apart"
        else:
            verdict = "the 95 % intervals overlap"
        edge = (" (the largest period run: a better timer may lie above it)"
                if len(timers) > 1 and best.tb_ms == max(p.tb_ms for p in timers) else "")
        out.append(f"{label}: CWBA {cwba.mean_segps:.0f} segments/s against the best timer "
                   f"(Tb = {best.tb_ms:g} ms) {best.mean_segps:.0f} segments/s, "
                   f"{ratio:.2f}×; {verdict}{edge}.")
    cw = {p.sender: p for p in points if p.assembler == "cwba"}
    if "reno" in cw and "sack" in cw and cw["reno"].mean_segps == cw["sack"].mean_segps:
        out.append(f"With CWBA Reno and SACK give the same goodput to the last digit "
                   f"({cw['sack'].mean_segps:.2f} segments/s): their runs did not diverge.")
    unsettled = [p for p in points if not p.settled]
    if unsettled:
        out.append(f"{len(unsettled)} of {len(points)} runs did not settle within their cap "
                   "(marked in the table).")
    return out


def _oz_figure(points: list[OzPoint], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for i, label in enumerate(dict.fromkeys(p.sender for p in points)):
        color = f"C{i}"
        ts = sorted((p for p in points if p.sender == label and p.assembler == "timer"
                     and math.isfinite(p.mean_segps)), key=lambda p: p.tb_ms)
        err = error_bars([p.mean_segps for p in ts], [p.lo_segps for p in ts],
                         [p.hi_segps for p in ts], lower=0)  # a goodput is >= 0
        ax.errorbar([p.tb_ms for p in ts], [p.mean_segps for p in ts], yerr=err,
                    marker="o", capsize=3, color=color, label=f"{label}, timer")
        for c in (p for p in points if p.sender == label and p.assembler == "cwba"
                  and math.isfinite(p.mean_segps)):
            ax.axhline(c.mean_segps, color=color, linestyle="--", label=f"{label}, CWBA")
    ax.set_xscale("log")
    ax.set_xlabel("timer period Tb (ms)")
    ax.set_ylabel("FTP goodput (segments/s)")
    ax.set_title("ozsarac's linear topology: timer assembly (points) and CWBA (dashed)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _ms(tb: str) -> float:
    return float(tb.removesuffix("ms"))


def sentences(points: list[Point]) -> list[str]:
    """Plain statements computed from the runs."""
    by = {(p.tb, p.sender): p for p in points}
    tbs = sorted({p.tb for p in points}, key=_ms)
    out = []
    for tb in tbs:
        sack = by[(tb, "sack")].mean_segps
        best = max((p for p in points if p.tb == tb), key=lambda p: p.mean_segps)
        ratios = ", ".join(f"{s} {by[(tb, s)].mean_segps / sack:.2f}×"
                           for s in ("cubic", "highspeed", "vegas", "bbr"))
        out.append(f"At Tb = {tb}, against SACK's {sack:.0f} segments/s: {ratios}; the "
                   f"highest goodput is {best.sender}'s ({best.mean_segps:.0f} segments/s).")
    for tb in tbs:
        reno, sack_p = by[(tb, "reno")], by[(tb, "sack")]
        if reno.mean_segps == sack_p.mean_segps:
            out.append(f"At Tb = {tb} Reno and SACK give the same goodput to the last digit "
                       f"({sack_p.mean_segps:.1f} segments/s): their runs did not diverge, so "
                       "the recovery variant never acted differently.")
    lo_tb = tbs[0]
    v, s = by[(lo_tb, "vegas")], by[(lo_tb, "sack")]
    if v.hi_segps < s.lo_segps:
        out.append(f"At Tb = {lo_tb} Vegas delivers less than SACK "
                   f"({v.mean_segps:.0f} against {s.mean_segps:.0f} segments/s, intervals "
                   "apart).")
    unsettled = [p for p in points if not p.settled]
    if unsettled:
        out.append(f"{len(unsettled)} of {len(points)} runs did not settle within their cap "
                   "(marked in the table; their intervals are wider than 10 % of the mean).")
    return out


def _setup_text() -> str:
    """The module doc's set-up paragraph as plain text."""
    para = (__doc__ or "").split("\n\n")[1]
    return " ".join(para.replace("``", "").split())


def _figure(points: list[Point], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, *_ in SENDERS:
        ps = sorted((p for p in points if p.sender == label), key=lambda p: _ms(p.tb))
        x = [_ms(p.tb) for p in ps]
        y = [p.mean_segps for p in ps]
        # a goodput is >= 0: its interval cut there (burstlab.plot.error_bars)
        err = error_bars(y, [p.lo_segps for p in ps], [p.hi_segps for p in ps], lower=0)
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("assembly period Tb (ms)")
    ax.set_ylabel("goodput (segments/s)")
    ax.set_title(f"yu's path, p = {P_LOSS} per data burst, wm = {WM}")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_page(out: Path, *, quick: bool = False) -> tuple[Path, float]:
    """Runs the grid and writes ``out/modern_tcp/report.html`` (with its figure and
    ``goodput.csv``). Returns the page and the CPU seconds the runs took."""
    from burstlab.reproduce.report import render_page

    d = out / "modern_tcp"
    d.mkdir(parents=True, exist_ok=True)
    cpu0 = time.process_time()
    points = run_grid(quick)
    oz = ozsarac_grid(quick)
    cpu = time.process_time() - cpu0
    _oz_figure(oz, d / "ozsarac_cwba_vs_timer.png")
    _figure(points, d / "goodput_vs_tb.png")
    import csv

    with open(d / "goodput.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tb_ms", "sender", "goodput_segps", "ci95_lo_segps", "ci95_hi_segps",
                    "settled", "duration_s", "warmup_s"])
        for p in points:
            w.writerow([_ms(p.tb), p.sender, p.mean_segps, p.lo_segps, p.hi_segps,
                        p.settled, p.duration_s, p.warmup_s])
    with open(d / "ozsarac_cwba.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sender", "assembler", "tb_ms", "goodput_segps", "ci95_lo_segps",
                    "ci95_hi_segps", "settled", "duration_s", "warmup_s"])
        for q in oz:
            w.writerow([q.sender, q.assembler, q.tb_ms, q.mean_segps, q.lo_segps,
                        q.hi_segps, q.settled, q.duration_s, q.warmup_s])
    import jinja2

    # The body is a template (autoescaped): every value from the runs is escaped there.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("burstlab.reproduce", "templates"),
        autoescape=jinja2.select_autoescape(["html"]))
    oz_para = " ".join((__doc__ or "").split("\n\n")[3].replace("``", "")
                       .replace(":func:", "").replace("`", "").split())
    body = env.get_template("modern_tcp_body.html").render(
        setup=_setup_text(), mode="quick" if quick else "full", points=points, oz=oz,
        cap_s=QUICK_CAP_S if quick else CAP_S, oz_cap_s=QUICK_OZ_CAP_S if quick else OZ_CAP_S,
        cpu=cpu, said=sentences(points), oz_para=oz_para, oz_said=oz_sentences(oz))
    page = d / "report.html"
    page.write_text(render_page("Today's TCP on OBS (extension)", body,
                                nav=(("../index.html", "all papers"),)), encoding="utf-8")
    return page, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", default="out")
    ap.add_argument("--quick", action="store_true", help="three Tb values, runs capped "
                    f"at {QUICK_CAP_S:g} s")
    a = ap.parse_args(argv)
    page, cpu = write_page(Path(a.out), quick=a.quick)
    print(f"modern_tcp: {page} ({cpu:.1f} s CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
