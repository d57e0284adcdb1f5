"""yu: "Performance Evaluation of TCP Implementations in OBS Networks" (§V).

``paper.toml`` holds the paper's numbers; :mod:`.experiments` the runs and their
tables (and :data:`PAPER`); :mod:`.analysis` assembles them; :mod:`.figures`, :mod:`.claims` and :mod:`.report`
register the figures, the claims and the report body on it (:mod:`.penalties`: §IV's
gains and penalties; :mod:`.trace_claims`: the claims on the traces of figs 8–10);
:mod:`.packetpath` the
packet-path runs of figs 8–9 in burstlab and ns-2.35.
"""

from burstlab.reproduce.papers.yu import (
    analysis,
    claims,
    figures,
    packetpath,
    penalties,
    report,
    trace_claims,
)
from burstlab.reproduce.papers.yu.experiments import PAPER

__all__ = ["PAPER", "analysis", "claims", "figures", "packetpath", "penalties", "report",
           "trace_claims"]
