"""burstlab: simulation and models of TCP over optical burst switching (OBS) networks.

    >>> import burstlab
    >>> res = burstlab.run("examples/single_flow.toml", seed=3)
    >>> res.flows[["variant", "goodput_segps"]]
"""

from burstlab import topologies
from burstlab._core import ScenarioError, SimulationError
from burstlab._core import __version__ as __version__
from burstlab.api import Result, load_scenario, run
from burstlab.sweep import SweepResult, sweep

__all__ = [
    "Result",
    "ScenarioError",
    "SimulationError",
    "SweepResult",
    "__version__",
    "load_scenario",
    "run",
    "sweep",
    "topologies",
]
