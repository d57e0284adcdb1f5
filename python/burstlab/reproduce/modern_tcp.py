"""Extension beyond the five papers (no paper verdicts): today's controllers on yu's OBS
path, as a page of its own, ``OUT/modern_tcp/report.html``.

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

Run: ``python -m burstlab.reproduce.modern_tcp --out OUT [--quick]``
(docs/topics/modern-tcp.md).
"""

from __future__ import annotations

import argparse
import html
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


@dataclass
class Point:
    tb: str
    sender: str
    mean_segps: float
    lo_segps: float
    hi_segps: float
    settled: bool
    why: str
    duration_s: float
    warmup_s: float


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
    # a goodput is >= 0: its batch-means interval cut there (docs/topics/verdicts.md)
    return Point(tb, label, r.mean, max(r.lo, 0.0), r.hi, r.settled, r.reason, r.duration_s,
                 r.warmup_s)


def run_grid(quick: bool = False) -> list[Point]:
    tbs = QUICK_TBS if quick else TBS
    start, cap = (QUICK_START_S, QUICK_CAP_S) if quick else (START_S, CAP_S)
    return [measure_point(tb, *s, start_s=start, cap_s=cap) for tb in tbs for s in SENDERS]


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
    cpu = time.process_time() - cpu0
    _figure(points, d / "goodput_vs_tb.png")
    import csv

    with open(d / "goodput.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tb_ms", "sender", "goodput_segps", "ci95_lo_segps", "ci95_hi_segps",
                    "settled", "duration_s", "warmup_s"])
        for p in points:
            w.writerow([_ms(p.tb), p.sender, p.mean_segps, p.lo_segps, p.hi_segps,
                        p.settled, p.duration_s, p.warmup_s])
    rows = "".join(
        f"<tr><td>{html.escape(p.tb)}</td><td>{p.sender}</td>"
        f"<td>{p.mean_segps:.0f}</td><td>{p.lo_segps:.0f} – {p.hi_segps:.0f}</td>"
        f"<td>{p.duration_s:g}</td><td>{'yes' if p.settled else 'no: ' + html.escape(p.why)}"
        "</td></tr>" for p in points)
    said = "".join(f"<li>{html.escape(s)}</li>" for s in sentences(points))
    mode = "quick" if quick else "full"
    body = (
        "<p><strong>Extension beyond the five papers.</strong> No paper ran these "
        "controllers; this page has no paper values and no verdicts.</p>"
        f"<p>{html.escape(_setup_text())}</p>"
        f"<p>Mode: {mode}; {len(points)} runs (one per point, lengthened until settled "
        f"or capped at {(QUICK_CAP_S if quick else CAP_S):g} s), {cpu:.0f} CPU-s.</p>"
        f"<ul>{said}</ul>"
        '<img src="goodput_vs_tb.png" alt="goodput against assembly period, one line per '
        'controller, 95 % intervals">'
        "<table><tr><th>Tb</th><th>sender</th><th>goodput (segments/s)</th>"
        "<th>95 % interval (segments/s)</th><th>run (simulated s)</th><th>settled</th></tr>"
        f"{rows}</table>")
    page = d / "report.html"
    page.write_text(render_page("Today's TCP on yu's OBS path (extension)", body,
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
