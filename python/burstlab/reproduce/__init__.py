"""Paper reproductions: one framework, every paper's claims in one table, a site.

Read first: :mod:`.framework` (what a paper declares and the pipeline), then one paper,
e.g. :mod:`burstlab.reproduce.papers.yu`. Shared pieces: :mod:`.traces` (packet-trace
windows around a dropped burst), :mod:`.ratios` (throughput-ratio tables with propagated
CIs), :mod:`.report` (Markdown → self-contained HTML), :mod:`.site` (the index page of
``burstlab reproduce all``).

The registry is the folder :mod:`burstlab.reproduce.papers`: every sub-package that
holds a ``paper.toml`` is a paper, named by its folder; it exposes ``PAPER``. Listing
the papers imports nothing heavy.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from burstlab.reproduce.framework import Paper

__all__ = ["PAPERS", "load", "paper_names"]

_PAPERS_DIR = Path(__file__).with_name("papers")


def paper_names() -> tuple[str, ...]:
    """The reproducible papers, sorted by name (folders of ``papers/`` with a
    ``paper.toml`` and an ``__init__.py``)."""
    return tuple(sorted(d.name for d in _PAPERS_DIR.iterdir()
                        if (d / "paper.toml").is_file() and (d / "__init__.py").is_file()))


def load(name: str) -> Paper:
    """The :class:`~burstlab.reproduce.framework.Paper` called ``name``.

    Raises:
        ValueError: no such paper (the message lists the known ones).
    """
    names = paper_names()
    if name not in names:
        raise ValueError(f"unknown paper {name!r}; known papers: {', '.join(names)} "
                         "(or 'all')")
    paper: Paper = importlib.import_module(f"burstlab.reproduce.papers.{name}").PAPER
    return paper


#: The reproductions ``burstlab reproduce`` knows.
PAPERS = paper_names()
