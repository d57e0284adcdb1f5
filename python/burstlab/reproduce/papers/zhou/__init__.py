"""zhou: "Improvement of TCP Performance over Optical Burst Switching Networks".

Part 1 (§2, fig. 2, the testbed) and part 2 (§3, fig. 5, ACK-ratio assembly on our
reading of fig. 4's network) are both simulated.

``paper.toml`` holds the paper's numbers; :mod:`.testbed` the scenario and our choices
for the testbed's unknowns; :mod:`.ackratio` the §3 network, its analysis and checks;
:mod:`.experiments` the runs and their analysis (and :data:`PAPER`); :mod:`.checks` the
fig. 2 claims as pure functions of a table; :mod:`.figures`, :mod:`.claims` and
:mod:`.report` register the figures, the claims and the report body.
"""

from burstlab.reproduce.papers.zhou import claims, figures, report
from burstlab.reproduce.papers.zhou.experiments import PAPER

__all__ = ["PAPER", "claims", "figures", "report"]
