"""Window-based burst assembly (ozsarac §2.1 CWBA; with ``tmax``, §2.2 MCWBA) written
in Python: the built-in ``assembly = { type = "cwba", window = "mark", tmax = … }`` as a
burstlab hook (burstlab/hooks.py).

A burst leaves when the segment carrying the sender's mark (it fills the sender's
window; see crates/burstlab-core/src/world/hosts.rs) joins the queue, when the queue
holds ``max_pkts_per_burst`` packets, or, with ``tmax``, ``tmax`` after the burst's
first packet. Only ``window = "mark"`` is offered (the other window sources read edge
estimators the hook view does not carry). Needs ``obs.classifier = "per_flow"``, as the
built-in. Gives the built-in's bursts bit for bit (tests/test_python_hooks.py).
"""

from __future__ import annotations

from typing import Any

from burstlab.hooks import HookView, QueueContext, ps


class Assembler:
    def __init__(self, ctx: QueueContext, window: str = "mark",
                 tmax: str | float | None = None) -> None:
        if window != "mark":
            raise ValueError(f"python_cwba reads the sender's mark only, got window={window!r}")
        self.tmax = None if tmax is None else ps(tmax)
        self.cap = ctx.max_pkts_per_burst
        self.deadline: int | None = None

    def on_packet(self, v: HookView) -> tuple[Any, int | None] | None:
        now, pkts = v.now, v.queue_pkts
        bursts = []
        if self.deadline is not None and now >= self.deadline:
            # MCWBA: the timer expired before this packet: it opens the next burst.
            self.deadline = None
            if pkts > 1:
                bursts.append(pkts - 1)
            pkts = 1
        if v.mark or pkts >= self.cap:
            self.deadline = None
            bursts.append(pkts)
        elif self.deadline is None and self.tmax is not None:
            self.deadline = now + self.tmax
        elif not bursts:
            return None
        return bursts, self.deadline

    def on_timer(self, v: HookView) -> tuple[Any, int | None] | None:
        self.deadline = None
        return v.queue_pkts, None
