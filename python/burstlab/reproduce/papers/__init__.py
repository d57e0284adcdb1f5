"""One package per reproduced paper; :mod:`burstlab.reproduce` finds them by folder.

A paper's package exposes ``PAPER`` (a :class:`burstlab.reproduce.framework.Paper`) and
ships ``paper.toml`` (its reported values). Adding a paper is adding a folder here.
"""
