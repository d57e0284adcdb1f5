"""Alias of :mod:`burstlab.models.yu.summary` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.summary import *  # noqa: F403
