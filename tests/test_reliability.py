"""Reliability, third round (issue 43): runs that would take far too long are refused
or stopped, contradicting settings are refused naming the field, PyData inputs are
accepted, and the sweep store survives concurrent writers, kills and lost workers."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import burstlab
from burstlab.grid import GridError, normalise_grid, parse_axis

sweep_mod = importlib.import_module("burstlab.sweep")
ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "burstlab.cli", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


def path_scenario(duration: str = "1s", **sim: Any) -> dict[str, Any]:
    """Two hosts and a router, 10 Mb/s links, no flows (tests add them)."""
    link = {"rate": "10Mb/s", "delay": "1ms", "queue_pkts": 100}
    return {"name": "rel", "sim": {"duration": duration, "seed": 3, **sim},
            "node": [{"name": "a", "kind": "host"}, {"name": "r"},
                     {"name": "b", "kind": "host"}],
            "link": [{"a": "a", "b": "r", **link}, {"a": "r", "b": "b", **link}],
            "flow": []}


ONOFF_PS = {"type": "onoff", "src": "a", "dst": "b", "rate": "1Mb/s",
            "mean_on": "1ps", "mean_off": "1ps"}


# --------------------------------------------------------------------------- time


def test_picosecond_on_off_run_is_refused_at_once() -> None:
    sc = path_scenario("10s")
    sc["flow"] = [ONOFF_PS]
    t = time.perf_counter()
    with pytest.raises(burstlab.ScenarioError) as e:
        burstlab.run(sc)
    assert time.perf_counter() - t < 2
    msg = str(e.value)
    assert msg.startswith("flow[0].mean_on: ") and "sim.max_events = 1.000e10" in msg, msg
    assert "3.000e13 events" in msg, msg


def test_cli_refuses_it_with_exit_2_and_validate_prints_the_estimate(tmp_path: Path) -> None:
    sc = path_scenario("10s")
    sc["flow"] = [ONOFF_PS]
    p = tmp_path / "ps.json"
    p.write_text(json.dumps(sc))
    for cmd in ("run", "validate"):
        r = cli(cmd, str(p), timeout=60)
        assert r.returncode == 2, r
        assert "Traceback" not in r.stderr and "sim.max_events" in r.stderr, r.stderr
    sc["flow"] = [{"type": "cbr", "src": "a", "dst": "b", "rate": "8Mb/s"}]
    p.write_text(json.dumps(sc))
    r = cli("validate", str(p))
    assert r.returncode == 0, r.stderr
    assert "event estimate" in r.stdout and "sim.max_events = 1.000e10" in r.stdout, r.stdout


def test_event_estimate_bounds_a_run_and_max_events_is_honoured() -> None:
    sc = path_scenario("10s")
    sc["flow"] = [{"type": "cbr", "src": "a", "dst": "b", "rate": "8Mb/s"}]
    est = burstlab.event_estimate(sc)
    res = burstlab.run(sc)
    assert res.meta["events"] <= est["events"] < 1.1 * res.meta["events"]
    sc["sim"]["max_events"] = int(est["events"] * 0.9)
    with pytest.raises(burstlab.ScenarioError, match=r"^sim\.max_events: the run needs up to"):
        burstlab.run(sc)


# --------------------------------------------------------------- contradictions


@pytest.mark.parametrize(("sim", "flow", "field"), [
    ({"trace": {"cwnd": True, "start": "5s", "end": "2s"}}, {}, "sim.trace.end"),
    ({"trace": {"cwnd": True, "start": "20s"}}, {}, "sim.trace.start"),
    ({"warmup": "10s"}, {}, "sim.warmup"),
    ({}, {"start": "3s", "stop": "1s"}, "flow[0].stop"),
    ({}, {"start": "11s"}, "flow[0].start"),
    ({}, {"min_rto": "2s", "max_rto": "1s"}, "flow[0].max_rto"),
    ({}, {"init_rto": "3s", "max_rto": "2s"}, "flow[0].init_rto"),
    ({}, {"wm": 4, "init_cwnd": 10}, "flow[0].init_cwnd"),
    ({}, {"segments": 5, "drop_segments": [[9, 9]]}, "flow[0].drop_segments[0]"),
])
def test_contradicting_settings_are_refused_by_validate_and_run(
        tmp_path: Path, sim: dict[str, Any], flow: dict[str, Any], field: str) -> None:
    sc = path_scenario("10s", **sim)
    sc["flow"] = [{"type": "tcp", "src": "a", "dst": "b", **flow}]
    with pytest.raises(burstlab.ScenarioError, match=rf"^{field.replace('[', '.').replace(']', '.')}: "):
        burstlab.run(sc)
    p = tmp_path / "c.json"
    p.write_text(json.dumps(sc))
    r = cli("validate", str(p))
    assert r.returncode == 2 and field in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize(("spec", "why"), [
    ("10ms..1ms:log:3", "down to"),
    ("5..1:lin:3", "down to"),
    ("1ms..1ms:lin:3", "equal end points"),
    ("1..10:lin:1", "one point cannot span"),
])
def test_contradicting_sweep_ranges_are_refused(spec: str, why: str) -> None:
    with pytest.raises(GridError, match=why) as e:
        parse_axis(spec, name="obs.tb")
    assert "obs.tb" in str(e.value)
    r = cli("sweep", str(ROOT / "examples" / "single_flow.toml"), "--grid",
            f"sim.duration={spec}", "--executor", "serial")
    assert r.returncode == 2 and "sim.duration" in r.stderr and "Traceback" not in r.stderr


def test_ranges_in_order_still_expand() -> None:
    assert parse_axis("1..5:lin:5") == [1, 2, 3, 4, 5]
    assert parse_axis("3ms..3ms:lin:1") == ["3ms"]


# -------------------------------------------------------------------- PyData


def test_numpy_and_numbers_scalars_are_accepted_wherever_a_number_is() -> None:
    sc = path_scenario("0.5s")
    sc["flow"] = [{"type": "tcp", "src": "a", "dst": "b", "wm": np.int32(20),
                   "mss": np.uint16(1000)}]
    sc["link"][1]["loss_ab"] = np.float32(0.01)
    sc["sim"]["duration"] = Fraction(1, 2)
    sc["sim"]["trace"] = {"cwnd": np.bool_(True)}
    base = burstlab.run(path_scenario("0.5s") | {"flow": [
        {"type": "tcp", "src": "a", "dst": "b", "wm": 20, "mss": 1000}],
        "link": [sc["link"][0], {**sc["link"][1], "loss_ab": float(np.float32(0.01))}],
        "sim": {"duration": 0.5, "seed": 3, "trace": {"cwnd": True}}}, seed=3)
    r = burstlab.run(sc, seed=np.int64(3), replication=np.uint8(0))
    assert r.seed == 3 and r.meta["events"] == base.meta["events"]
    assert r.flows.equals(base.flows)
    assert burstlab.memory_estimate(sc)["traces"]
    for bad in (np.float64(3.5), -1, True, "3", np.bool_(True)):
        with pytest.raises(burstlab.ScenarioError, match=r"^seed: must be an integer"):
            burstlab.run(sc, seed=bad)  # type: ignore[arg-type]


def test_numpy_values_in_sweep_grids_and_arguments() -> None:
    axes = normalise_grid({"flow.0.wm": np.arange(2, 5), "link.0.loss": np.array([0.1])})
    assert axes == {"flow.0.wm": [2, 3, 4], "link.0.loss": [0.1]}
    assert all(type(v) is int for v in axes["flow.0.wm"])
    with pytest.raises(GridError, match="values must be"):
        normalise_grid({"flow.0.wm": [object()]})
    res = burstlab.sweep(ROOT / "examples" / "single_flow.toml",
                         {"sim.duration": np.array([0.2, 0.3])}, replications=np.int64(1),
                         executor="serial", seed=np.uint32(4), progress=False)
    assert len(res.runs) == 2 and (res.runs["seed"] >= 0).all()


def test_deep_nesting_is_a_scenario_error_not_a_traceback() -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(100_000):
        cur["a"] = {}
        cur = cur["a"]
    sc = path_scenario() | {"x": deep}
    for call in (burstlab.run, burstlab.memory_estimate, burstlab.event_estimate):
        with pytest.raises(burstlab.ScenarioError, match="nested more than 32 levels"):
            call(sc)
    lst: list[Any] = []
    for _ in range(50_000):
        lst = [lst]
    with pytest.raises(burstlab.ScenarioError, match="nested more than"):
        burstlab.run(path_scenario() | {"flow": lst})
    with pytest.raises(burstlab.ScenarioError, match="malformed TOML"):
        burstlab.run("[sim]\nduration = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(burstlab.ScenarioError):
        burstlab.run(path_scenario() | {"sim": {"duration": 1.0, "seed": object()}})


# --------------------------------------------------------------------- scale


def _star(n_flows: int) -> dict[str, Any]:
    hosts = [f"h{i}" for i in range(2 * n_flows)]
    return {"sim": {"duration": "1s"},
            "node": [{"name": "r"}] + [{"name": h, "kind": "host"} for h in hosts],
            "link": [{"a": h, "b": "r", "rate": "1Gb/s", "delay": "1ms", "queue_pkts": 10}
                     for h in hosts],
            "flow": [{"src": f"h{i}", "dst": f"h{n_flows + i}"} for i in range(n_flows)]}


def test_ten_thousand_flows_validate_and_estimate_in_seconds() -> None:
    sc = _star(10_000)
    text = json.dumps(sc)
    t = time.perf_counter()
    burstlab._core.validate(text, "json")
    est = burstlab._core.event_estimate(text, "json")
    burstlab._core.memory_estimate(text, "json")
    took = time.perf_counter() - t
    assert took < 5, f"{took:.2f} s"
    assert len(est["flows"]) == 10_000
