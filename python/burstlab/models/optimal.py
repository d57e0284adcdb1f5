"""Alias of :mod:`burstlab.models.yu.optimal` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.optimal import *  # noqa: F403
