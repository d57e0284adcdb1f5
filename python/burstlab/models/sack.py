"""Alias of :mod:`burstlab.models.yu.sack` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.sack import *  # noqa: F403
