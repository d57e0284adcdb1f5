"""Paper reproductions: one command per paper, simulation beside model beside paper.

- :mod:`burstlab.reproduce.yu` — yu §V, figs 5–11 and tables I–II
  (``burstlab reproduce yu``).

Shared pieces: :mod:`.traces` (packet-trace windows around a dropped burst),
:mod:`.ratios` (throughput-ratio tables with propagated CIs), :mod:`.report`
(Markdown and HTML report writer).
"""

from __future__ import annotations

__all__ = ["PAPERS"]

#: The reproductions ``burstlab reproduce`` knows.
PAPERS = ("yu",)
