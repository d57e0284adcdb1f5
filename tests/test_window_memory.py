"""Reliability, fourth round (issue 56): memory sized by a TCP window. A window near
2^32 validates and runs in a few MiB (the rings follow the flight), and a flight too big
for ``sim.max_memory`` is refused before the run naming ``wm`` or ``init_cwnd``. Each
case runs in a child process under a 1 GiB address-space limit: the old build asked
for 192 GiB (BBR), 64 GiB (ns-2 Vegas) or 1 GiB (each bit ring) and aborted, or killed
the Python process that called ``burstlab.run``."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

#: The child's address-space limit.
LIMIT = 1 << 30

WM = 2**32 - 1

CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
import burstlab
from burstlab import _core
sc = json.loads(sys.argv[1])
try:
    _core.validate(sys.argv[1], "json")  # what `burstlab validate` runs: builds the world
    est = burstlab.memory_estimate(sc)
    r = burstlab.run(sc)
    print(json.dumps({{"ok": True, "received": int(r.flows["segments_received"].iloc[0]),
                      "window_bytes": est["window_bytes"]}}))
except burstlab.ScenarioError as e:
    print(json.dumps({{"ok": False, "error": str(e)}}))
"""


def path(tcp: dict[str, Any], duration: str = "1s", limits: bool = True) -> dict[str, Any]:
    """One TCP flow over two 1 Gb/s links (RTT 100 ms), 1 % loss on the second."""
    link: dict[str, Any] = {"rate": "1Gb/s", "delay": "25ms"}
    if limits:
        link["queue_pkts"] = 100
    return {"name": "flight", "sim": {"duration": duration, "seed": 1},
            "node": [{"name": "s", "kind": "host"}, {"name": "r"},
                     {"name": "d", "kind": "host"}],
            "link": [{"a": "s", "b": "r", **link},
                     {"a": "r", "b": "d", **link, "loss_ab": 0.01}],
            "flow": [{"type": "tcp", "src": "s", "dst": "d", "mss": "1000B", "wm": WM,
                      **tcp}]}


def in_child(sc: dict[str, Any]) -> dict[str, Any]:
    p = subprocess.run([sys.executable, "-c", CHILD.format(limit=LIMIT), json.dumps(sc)],
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    out: dict[str, Any] = json.loads(p.stdout)
    return out


@pytest.mark.parametrize("tcp", [
    {"profile": "rfc", "variant": "sack", "cc": "bbr"},
    {"profile": "ns2", "variant": "sack", "cc": "vegas"},
    {"profile": "ns2", "variant": "sack", "cc": "cubic"},
    {"profile": "rfc", "variant": "newreno"},
], ids=lambda t: f"{t['profile']}-{t.get('cc', 'aimd')}")
@pytest.mark.parametrize("limits", [True, False], ids=["limited", "unlimited"])
def test_a_window_near_2_pow_32_runs_in_bounded_memory(tcp: dict[str, Any],
                                                       limits: bool) -> None:
    out = in_child(path(tcp, limits=limits))
    assert out["ok"], out
    assert out["received"] > 10
    # The estimate counts the flight one second can carry, not 2^32 segments.
    assert 0 < out["window_bytes"] < 512 << 20, out


def test_the_initial_window_is_refused_naming_init_cwnd() -> None:
    for limits in (True, False):
        out = in_child(path({"variant": "newreno", "init_cwnd": WM}, limits=limits))
        assert not out["ok"]
        assert out["error"].startswith(
            f"flow[0].init_cwnd: flow 'flow0' sends its initial window of {WM} segments "
            "at once"), out
        assert ("queue_pkts or queue_bytes" in out["error"]) is not limits, out


def test_a_long_unlimited_flight_is_refused_naming_wm(tmp_path: Any) -> None:
    sc = path({"profile": "rfc", "variant": "sack", "cc": "bbr"}, duration="300s",
              limits=False)
    out = in_child(sc)
    assert not out["ok"]
    assert out["error"].startswith("flow[0].wm: flow 'flow0' can have up to 7.2"), out
    # The CLI: one line, exit 2, and validate prints the flights of a scenario it accepts.
    f = tmp_path / "long.json"
    f.write_text(json.dumps(sc), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "burstlab.cli", "validate", str(f)],
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2 and p.stderr.startswith("burstlab: error: flow[0].wm: "), p
    assert "Traceback" not in p.stderr
    f.write_text(json.dumps(path({"variant": "newreno"})), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "burstlab.cli", "validate", str(f)],
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    assert "TCP flights: at most" in p.stdout, p.stdout
