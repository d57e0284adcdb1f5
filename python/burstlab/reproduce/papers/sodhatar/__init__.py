"""sodhatar: "Throughput Based Comparison of Different Variants of TCP in Optical Burst
Switching (OBS) Network" (§III–V): the dumbbell, Tahoe/Reno/NewReno, packet sizes.

``paper.toml`` holds the paper's numbers; :mod:`.experiments` the runs and their
tables (and :data:`PAPER`); :mod:`.ns2runs` ns-2.35's runs of the same scripts;
:mod:`.analysis` puts the two together;
:mod:`.figures`, :mod:`.claims` and :mod:`.report` register the figures, the claims and
the report body on it.
"""

from burstlab.reproduce.papers.sodhatar import analysis, claims, figures, report
from burstlab.reproduce.papers.sodhatar.experiments import PAPER

__all__ = ["PAPER", "analysis", "claims", "figures", "report"]
