"""A single run's progress: simulated time, events per second and an ETA.

The core calls back every few thousand events (``burstlab_core::world::monitor``, through
``_core.run(..., progress=...)`` every 0.25 s of wall time); :class:`RunProgress` draws
nothing for the first :data:`SHOW_AFTER_S` seconds, so a short run stays silent, and then
a tqdm bar on stderr (a terminal) or a widget (Jupyter, through ``tqdm.auto``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

#: A run shows its progress once it has taken this long (wall seconds) and is not
#: about to end.
SHOW_AFTER_S = 2.0

#: The bar's text; ``desc`` is "simulated X of Y s, R M events/s" (:func:`describe`).
FORMAT = "run {percentage:3.0f}% [{bar:20}] {desc}  elapsed {elapsed}  ETA {remaining}"


def seconds(x: float) -> str:
    """Simulated seconds, short: ``0.0125``, ``12.5``, ``12,500``."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def describe(now_s: float, end_s: float, events_per_s: float) -> str:
    """The bar's description: simulated time of the run's end and the event rate."""
    return (f"simulated {seconds(now_s)} of {seconds(end_s)} s, "
            f"{events_per_s / 1e6:.3g} M events/s")


def in_jupyter() -> bool:
    """Whether this interpreter is a Jupyter kernel."""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - an IPython too old or half-imported: no widget
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def wanted(stream: TextIO | None = None) -> bool:
    """Whether progress is drawn by default: stderr is a terminal, or in Jupyter; never
    in a worker process (a sweep's or a reproduction's runs would draw over each other)."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        return False
    s = stream if stream is not None else sys.stderr
    try:
        tty = bool(s.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        tty = False
    return tty or in_jupyter()


class RunProgress:
    """The ``progress`` callback of ``_core.run``: ``(simulated_s, end_s, events)``."""

    def __init__(self, stream: TextIO | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 show_after_s: float | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.show_after_s = SHOW_AFTER_S if show_after_s is None else show_after_s
        self.t0 = clock()
        self.last = (self.t0, 0)  # (wall time, events) of the previous call
        self.bar: Any = None

    def __call__(self, now_s: float, end_s: float, events: int) -> None:
        t = self.clock()
        dt = t - self.last[0]
        rate = (events - self.last[1]) / dt if dt > 0 else 0.0
        self.last = (t, events)
        if self.bar is None:
            elapsed = t - self.t0
            if elapsed < self.show_after_s or now_s <= 0 or end_s <= 0:
                return
            if elapsed * (end_s - now_s) / now_s < 0.5:  # about to end: stay silent
                return
            self.bar = self._open(end_s)
        now_s = min(now_s, end_s)
        self.bar.set_description_str(describe(now_s, end_s, rate), refresh=False)
        self.bar.update(now_s - self.bar.n)

    def _open(self, end_s: float) -> Any:
        if in_jupyter():
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm
        # Redrawn at every call (the core calls every 0.25 s of wall time).
        return tqdm(total=end_s, file=self.stream, bar_format=FORMAT, ascii=".#",
                    mininterval=0, miniters=0, leave=False, dynamic_ncols=False)

    def close(self) -> None:
        """Removes the bar (the run has ended or stopped)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
