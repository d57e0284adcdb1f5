"""Alias of :mod:`burstlab.models.yu.penalties` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.penalties import *  # noqa: F403
