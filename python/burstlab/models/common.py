"""Alias of :mod:`burstlab.models.yu.common` (yu's models live in ``models/yu/``)."""

from burstlab.models.yu.common import *  # noqa: F403
