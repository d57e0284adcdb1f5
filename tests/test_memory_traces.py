"""Hardening, issue 16 item 3: memory is estimated before a run (a scenario over
``sim.max_memory`` is refused with the setting named, and ``burstlab validate`` prints
the estimate); traces stream to disk in bounded memory (``sim.trace.dir``,
``run(trace_dir=...)``, ``burstlab run --out``) with files equal byte for byte to the
in-memory tables written by ``Result.to_dir``; huge sweep grids are refused or expanded
lazily."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import burstlab
from burstlab.grid import GridError, iter_points, parse_axis

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "burstlab.cli", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


def one_line_error(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("burstlab: error: "), p.stderr
    return p.stderr


def traced(example: str, duration: str, traces: str, name: str | None = None) -> str:
    """An example scenario with its duration and [sim.trace] replaced."""
    text = (EXAMPLES / example).read_text(encoding="utf-8")
    text = re.sub(r'(?m)^duration = "[^"]*"', f'duration = "{duration}"', text, count=1)
    text = re.sub(r"(?ms)^\[sim\.trace\].*?(?=^\[)", "", text)
    text = text.replace("[sim]\n", f"[sim]\ntrace = {{ {traces} }}\n", 1)
    if name is not None:
        toml_name = name.replace('"', '\\"')
        text = re.sub(r'(?m)^name = "[^"]*"', lambda _: f'name = "{toml_name}"', text, count=1)
    return text


SINGLE_TRACED = traced("single_flow.toml", "20s", "cwnd = true, packets = true",
                       # a name the CSV writer must quote, as Python's csv module does
                       name='single, "quoted"')
YU_TRACED = traced("yu_path.toml", "3s", "cwnd = true, packets = true, bursts = true")


def csvs(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.csv"))}


@pytest.mark.parametrize("text", [SINGLE_TRACED, YU_TRACED], ids=["single_flow", "yu_obs"])
def test_streamed_traces_equal_the_in_memory_tables_byte_for_byte(
        tmp_path: Path, text: str) -> None:
    held = burstlab.run(text, seed=4)
    assert not held.streamed and len(held.packets) > 0
    held.to_dir(tmp_path / "held", format="csv")

    streamed = burstlab.run(text, seed=4, trace_dir=tmp_path / "streamed")
    traces = {"cwnd_trace", "packet_trace"} | ({"burst_trace"} if "[obs]" in text else set())
    assert set(streamed.streamed) == traces
    for name in traces:
        path, rows = streamed.streamed[name]
        assert path == tmp_path / "streamed" / f"{name}.csv" and rows == len(held.table(name))
        # The tables read back from the files equal the in-memory ones.
        pd.testing.assert_frame_equal(streamed.table(name), held.table(name),
                                      check_dtype=False)
    streamed.to_dir(tmp_path / "streamed", format="csv")  # the traces are there already
    copied = streamed.to_dir(tmp_path / "copied", format="csv")  # copied elsewhere
    assert {p.name for p in copied} >= {f"{n}.csv" for n in traces}
    want = csvs(tmp_path / "held")
    assert set(want) >= {f"{n}.csv" for n in traces}
    assert csvs(tmp_path / "streamed") == want
    assert csvs(tmp_path / "copied") == want

    # `burstlab run --out` streams into its folder: the same files again, and the same
    # scenario and seed give the same bytes every time.
    sc = tmp_path / "sc.toml"
    sc.write_text(text, encoding="utf-8")
    for out in ("cli1", "cli2"):
        p = cli("run", str(sc), "--seed", "4", "--out", str(tmp_path / out), "--format", "csv")
        assert p.returncode == 0, p.stderr
        assert csvs(tmp_path / out) == want


def test_a_huge_trace_is_refused_with_the_setting_and_estimate(tmp_path: Path) -> None:
    text = traced("single_flow.toml", "100000s", "cwnd = true, packets = true")
    sc = tmp_path / "long.toml"
    sc.write_text(text, encoding="utf-8")
    t0 = time.monotonic()
    for cmd in ("run", "validate"):
        msg = one_line_error(cli(cmd, str(sc)))
        assert msg.startswith("burstlab: error: sim.trace.packets: estimated "), msg
        assert "GiB of trace" in msg and "sim.max_memory = 4.0 GiB" in msg, msg
        assert "sim.trace.dir" in msg, msg
    assert time.monotonic() - t0 < 60  # refused before running, not after
    with pytest.raises(burstlab.ScenarioError, match=r"^sim\.trace\.packets: estimated"):
        burstlab.run(text)
    # Streamed, the same traces hold a bounded chunk: the estimate accepts them.
    est = burstlab.memory_estimate(text.replace("packets = true",
                                                f"packets = true, dir = '{tmp_path}'"))
    assert est["streamed"] and est["trace_bytes"] == 0
    big = burstlab.memory_estimate(text)
    assert big["trace_bytes"] > big["max_memory"]
    assert {t["setting"] for t in big["traces"]} == {"sim.trace.cwnd", "sim.trace.packets"}


def test_validate_prints_the_memory_estimate(tmp_path: Path) -> None:
    sc = tmp_path / "ok.toml"
    sc.write_text(traced("single_flow.toml", "300s", "cwnd = true"), encoding="utf-8")
    p = cli("validate", str(sc))
    assert p.returncode == 0, p.stderr
    assert "memory estimate (upper bounds from link rates)" in p.stdout, p.stdout
    assert re.search(r"sim\.trace\.cwnd: at most [\d.e+]+ rows, [\d.]+ \w+ in memory", p.stdout)


def test_an_unwritable_trace_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(burstlab.ScenarioError, match=r"^sim\.trace\.dir: cannot write"):
        burstlab.run(SINGLE_TRACED, trace_dir=blocker)


def test_a_huge_range_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    with pytest.raises(GridError, match="1,000,000,000 points"):
        parse_axis("1..1000000000:lin:1000000000")
    sc = tmp_path / "sc.toml"
    sc.write_text((EXAMPLES / "single_flow.toml").read_text(encoding="utf-8"))
    t0 = time.monotonic()
    msg = one_line_error(cli("sweep", str(sc), "--grid", "flow.0.wm=1..1000000000:lin:1000000000",
                             "--out", str(tmp_path / "o"), "--no-progress"))
    assert "1,000,000,000 points" in msg and "split it" in msg, msg
    # A product of a billion points: refused from its size, nothing expanded.
    msg = one_line_error(cli("sweep", str(sc), "--grid", "flow.0.wm=1..1000:lin:1000",
                             "--grid", "flow.0.mss=100..1099:lin:1000",
                             "--grid", "sim.duration=1..1000:lin:1000",
                             "--out", str(tmp_path / "o"), "--no-progress"))
    assert "1,000,000,000 runs" in msg, msg
    assert time.monotonic() - t0 < 60


def test_grid_points_are_expanded_lazily() -> None:
    axes = {"a": list(range(1000)), "b": list(range(1000)), "c": list(range(1000))}
    it = iter_points(axes)
    assert next(it) == {"a": 0, "b": 0, "c": 0}
    assert next(it) == {"a": 0, "b": 0, "c": 1}
    assert list(itertools.islice(iter_points({"x": [1, 2], "y": ["p", "q"]}), 4)) == [
        {"x": 1, "y": "p"}, {"x": 1, "y": "q"}, {"x": 2, "y": "p"}, {"x": 2, "y": "q"}]
