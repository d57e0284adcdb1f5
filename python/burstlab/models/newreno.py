"""Alias of :mod:`burstlab.models.yu.newreno` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.newreno import *  # noqa: F403
