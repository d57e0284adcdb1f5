"""burstlab: simulation and models of TCP over optical burst switching (OBS) networks.

    >>> import burstlab
    >>> res = burstlab.run("examples/single_flow.toml", seed=3)
    >>> res.flows[["variant", "goodput_segps"]]
      variant  goodput_segps
    0    sack         120.68

The API reference (docs/reference/api.md) shows an example for every public function;
tests/test_api_examples.py runs them.

``import burstlab`` is light: pandas and matplotlib are imported only when a name that
needs them (``run``, ``sweep``, ``Result``, …) is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from burstlab._core import ScenarioError, SimulationError
from burstlab._core import __version__ as __version__

if TYPE_CHECKING:
    from burstlab import topologies
    from burstlab.analysis import compare, load
    from burstlab.api import Result, event_estimate, load_scenario, memory_estimate, run
    from burstlab.sweep import SweepResult, sweep

__all__ = [
    "Result",
    "ScenarioError",
    "SimulationError",
    "SweepResult",
    "__version__",
    "compare",
    "event_estimate",
    "load",
    "load_scenario",
    "memory_estimate",
    "run",
    "sweep",
    "topologies",
]

#: Public names imported on first use: name → module that defines it.
_LAZY = {"Result": "burstlab.api", "load_scenario": "burstlab.api", "run": "burstlab.api",
         "memory_estimate": "burstlab.api", "event_estimate": "burstlab.api",
         "SweepResult": "burstlab.sweep", "sweep": "burstlab.sweep",
         "topologies": "burstlab.topologies", "load": "burstlab.analysis",
         "compare": "burstlab.analysis"}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'burstlab' has no attribute {name!r}")
    m = importlib.import_module(mod)
    # burstlab.sweep is the module burstlab.sweep, callable as the function sweep().
    value = m if name in ("topologies", "sweep") else getattr(m, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
