"""ozsarac: "Congestion window-based adaptive burst assembly for TCP traffic in OBS
networks" — CWBA, MCWBA and ECWBA (§2) on the linear topology (§3.1, 3.2, 3.4) and on
our reading of the mesh with static flows (§3.3, 3.5) and dynamic flows (§3.6; in
``--quick`` mode scaled from 10 000 s to 20 s per run).

``paper.toml`` holds the paper's numbers; :mod:`.topology` the scenarios and our choices
for what the paper leaves out; :mod:`.experiments` the runs and their analysis (and
:data:`PAPER`); :mod:`.figures`, :mod:`.claims` and :mod:`.report` register the figures,
the claims and the report body; :mod:`.sensitivity` the sweep of the UDP source's
on/off timescale, which the paper does not give; :mod:`.regimes` the ceilings, the
two-flow capture case in burstlab and nOBS, and the sweep of flows meeting on a fibre.
"""

from burstlab.reproduce.papers.ozsarac import claims, figures, regimes, report, sensitivity
from burstlab.reproduce.papers.ozsarac.experiments import PAPER

# The dynamic-flow runs (§3.6: 10 000 s each in full mode, three quarters of its cost)
# run last, so that a full run stopped on the way holds every other experiment's runs
# in its store (``burstlab reproduce ozsarac --stored-only`` judges those).
PAPER.experiments.sort(key=lambda e: e.name == "dynamic")

__all__ = ["PAPER", "claims", "figures", "regimes", "report", "sensitivity"]
