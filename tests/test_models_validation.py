"""Invalid model input raises ValueError naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

import burstlab.models as m

OK = {"lam": 125_000.0, "wm": 50.0, "rtt0": 0.1, "rto": 1.0}


@pytest.mark.parametrize(
    ("override", "name"),
    [
        ({"p": 0.0}, "p"),
        ({"p": 1.0}, "p"),
        ({"p": -0.1}, "p"),
        ({"p": math.nan}, "p"),
        ({"p": [0.1, 1.5]}, "p"),
        ({"tb": -1e-3}, "tb"),
        ({"tb": math.inf}, "tb"),
        ({"lam": 0.0}, "lam"),
        ({"wm": 0.5}, "wm"),
        ({"rtt0": 0.0}, "rtt0"),
        ({"rtt0": -0.1}, "rtt0"),
        ({"rto": 0.0}, "rto"),
        ({"b": 3}, "b"),
        ({"b": 1.5}, "b"),
        ({"p": []}, "p"),
    ],
)
def test_throughput_rejects_invalid(override: dict[str, object], name: str) -> None:
    args: dict[str, object] = {"p": 0.01, "tb": 1e-3, **OK, "b": 1, **override}
    for fn in (
        m.sack_throughput,
        m.newreno_throughput,
        m.reno_throughput,
        m.sack_throughput_unsaturated,
    ):
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            fn(**args)  # type: ignore[arg-type]


def test_string_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="^p must be a number"):
        m.sack_throughput("0.1", 0.0, **OK)  # type: ignore[arg-type]


def test_error_message_shows_bad_value() -> None:
    with pytest.raises(
        ValueError, match=r"p must lie strictly between 0 and 1, got 1.5"
    ):
        m.sack_throughput([0.1, 1.5], 0.0, **OK)
    with pytest.raises(
        ValueError, match=r"b \(segments per ACK\) must be 1 or 2, got 3"
    ):
        m.sack_throughput(0.1, 0.0, **OK, b=3)


def test_other_functions_validate() -> None:
    with pytest.raises(ValueError, match="^wm"):
        m.burst_segments(1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="^s "):
        m.timeout_ratio(10.0, 0.5, 0.1)
    with pytest.raises(ValueError, match="^rtt "):
        m.pftk_throughput_full(0.01, rtt=0.0, rto=1.0, wm=10)
    with pytest.raises(ValueError, match="^rto "):
        m.pftk_throughput_approx(0.01, rtt=0.1, rto=-1.0, wm=10)
    with pytest.raises(ValueError, match="^rtt0"):
        m.optimal_tb_unsaturated(0.0)
    with pytest.raises(ValueError, match="^form"):
        m.optimal_tb_saturated(0.01, lam=1.0, wm=10, rtt0=0.1, form="other")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^tb"):
        m.delay_penalty_ratio(-1.0, rtt0=0.1)
    with pytest.raises(ValueError, match="^lam"):
        m.dfl_gain_ratio(0.0, lam=-1.0, wm=10)


def test_incompatible_shapes() -> None:
    with pytest.raises(ValueError, match="incompatible shapes"):
        m.sack_throughput(np.array([0.1, 0.2]), np.array([0.0, 1.0, 2.0]), **OK)
