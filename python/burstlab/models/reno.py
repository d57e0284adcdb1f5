"""Alias of :mod:`burstlab.models.yu.reno` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.reno import *  # noqa: F403
