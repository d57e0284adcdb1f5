"""Timer-based burst assembly (yu §II) written in Python: the built-in
``assembly = { type = "timer", tb = … }`` as a burstlab hook (burstlab/hooks.py).

Select it with ``assembly = { type = "python", object = "python_timer:Assembler",
params = { tb = "1ms" } }`` (examples/python_timer.toml); it forms the same bursts at
the same instants as the built-in timer, bit for bit (tests/test_python_hooks.py). The
built-in's ``jitter`` is left out: the periods here are exact.

Conventions, as crates/burstlab-core/src/obs/assembler.rs: a cycle starts when a
packet joins an empty queue and collects the packets arriving in ``[t0, t0 + tb)``; a
packet arriving exactly at the deadline (delivered before the timer) goes to the next
burst; an expiry takes at most ``max_pkts_per_burst`` packets and the rest start the
next cycle at once.
"""

from __future__ import annotations

from typing import Any

from burstlab.hooks import HookView, QueueContext, ps


class Assembler:
    # on_packet changes nothing mid-cycle (before the deadline): the core calls it only
    # for a cycle's first packet and one arriving at a due deadline.
    calls = "first_packet"

    def __init__(self, ctx: QueueContext, tb: str | float, jitter: float = 0.0) -> None:
        if jitter:
            raise ValueError("python_timer has no jitter (use the built-in timer)")
        self.tb = ps(tb)
        if self.tb <= 0:
            raise ValueError("tb must be positive")
        self.cap = ctx.max_pkts_per_burst
        self.deadline: int | None = None

    def on_packet(self, v: HookView) -> tuple[Any, int | None] | None:
        now = v.now
        if self.deadline is None:  # the packet opens a cycle
            self.deadline = now + self.tb
            return 0, self.deadline
        if now < self.deadline:
            return None
        # At or after the deadline (before the timer fired): the burst is what came
        # before this packet, which opens the next cycle (half-open cycles).
        self.deadline = now + self.tb
        return min(v.queue_pkts - 1, self.cap), self.deadline

    def on_timer(self, v: HookView) -> tuple[Any, int | None] | None:
        n = min(v.queue_pkts, self.cap)
        # The cap left packets behind: they start the next cycle now.
        self.deadline = v.now + self.tb if v.queue_pkts > n else None
        return n, self.deadline
