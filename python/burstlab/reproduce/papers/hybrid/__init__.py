"""hybrid: "TCP performance with different offset times in hybrid multi-granular OBS
core nodes" (§II–IV): slow connections on a MEMS fabric, fast ones on an SOA fabric.

``paper.toml`` holds the paper's numbers; :mod:`.experiments` the network, the runs
and their analysis (and :data:`PAPER`); :mod:`.figures`, :mod:`.claims` and
:mod:`.report` register the figures, the claims and the report body on it;
:mod:`.sensitivity` measures how the scaled-down modes' N moves the results,
:mod:`.edge` the ingress edge model (bufferless against buffered).
"""

from burstlab.reproduce.papers.hybrid import claims, edge, figures, report, sensitivity
from burstlab.reproduce.papers.hybrid.experiments import PAPER

__all__ = ["PAPER", "claims", "edge", "figures", "report", "sensitivity"]
