"""Hybrid time–volume burst assembly (hybrid §II) written in Python: the built-in
``assembly = { type = "hybrid", tmax = …, lmax = …, lmin = … }`` as a burstlab hook
(burstlab/hooks.py).

A burst leaves when its queue holds ``lmax`` bytes (or ``max_pkts_per_burst`` packets)
or ``tmax`` after its first packet, whichever is first; a shorter burst is padded up to
``lmin``. Select it with ``assembly = { type = "python", object =
"python_hybrid:Assembler", params = { tmax = "2ms", lmax = "60KB", lmin = "5KB" } }``;
it gives the built-in's bursts bit for bit (tests/test_python_hooks.py). Conventions
as crates/burstlab-core/src/obs/assembler.rs.
"""

from __future__ import annotations

from typing import Any

from burstlab.hooks import HookView, QueueContext, nbytes, ps


class Assembler:
    def __init__(self, ctx: QueueContext, tmax: str | float, lmax: str | float,
                 lmin: str | float | None = None) -> None:
        self.tmax = ps(tmax)
        self.lmax = nbytes(lmax)
        self.lmin = 0 if lmin is None else nbytes(lmin)
        if self.tmax <= 0 or self.lmax <= 0 or self.lmin > self.lmax:
            raise ValueError("need tmax > 0, lmax > 0 and lmin <= lmax")
        self.cap = ctx.max_pkts_per_burst
        self.deadline: int | None = None
        # on_packet acts only on a burst's first packet, at a due deadline or when a
        # threshold is reached: the core calls it for those packets only.
        self.calls = "first_packet"
        self.max_bytes = self.lmax
        self.max_pkts = self.cap

    def on_packet(self, v: HookView) -> tuple[Any, int | None] | None:
        now, pkts, size = v.now, v.queue_pkts, v.queue_bytes
        bursts = []
        if self.deadline is not None and now >= self.deadline:
            # Arrived at the deadline before the timer: the burst is what came before.
            self.deadline = None
            if pkts > 1:
                bursts.append((pkts - 1, max(self.lmin - (size - v.size), 0)))
            pkts, size = 1, v.size
        if size >= self.lmax or pkts >= self.cap:
            self.deadline = None
            bursts.append((pkts, max(self.lmin - size, 0)))
        elif self.deadline is None:
            self.deadline = now + self.tmax
        elif not bursts:
            return None  # mid-burst: nothing changes
        return bursts, self.deadline

    def on_timer(self, v: HookView) -> tuple[Any, int | None] | None:
        self.deadline = None
        if v.queue_pkts == 0:
            return None
        return (v.queue_pkts, max(self.lmin - v.queue_bytes, 0)), None
