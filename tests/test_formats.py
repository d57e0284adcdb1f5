"""Result files (issue 55): Parquet by default, CSV on request, and burstlab.load reads
both back into tables equal to the ones written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import burstlab
from burstlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
TRACED = {"duration": "20s", "trace": {"cwnd": True, "packets": True}}


def traced_run(seed: int = 3) -> burstlab.Result:
    spec = burstlab.load_scenario(ROOT / "examples" / "single_flow.toml")
    spec["sim"].update(TRACED)
    return burstlab.run(spec, seed=seed)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("seed", [3, 2**64 - 1])
def test_a_run_comes_back_equal_from_either_format(tmp_path: Path, fmt: str, seed: int) -> None:
    res = traced_run(seed)
    names = [p.name for p in res.to_dir(tmp_path, format=fmt)]
    assert names == [f"{t}.{fmt}" for t in ("flows", "links", "cwnd_trace", "packet_trace",
                                            "routes")] + ["result.json"]
    doc = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert doc["format"] == fmt and doc["files"]["cwnd_trace"] == f"cwnd_trace.{fmt}"
    back = burstlab.load(tmp_path)
    assert back.seed == seed
    for t in ("flows", "links", "cwnd_trace", "packet_trace", "routes"):
        pd.testing.assert_frame_equal(back.table(t), res.table(t))


def test_parquet_keeps_types_and_stamps(tmp_path: Path) -> None:
    res = traced_run(2**64 - 1)
    res.to_dir(tmp_path)  # the default: Parquet
    flows = pd.read_parquet(tmp_path / "flows.parquet")
    assert flows["seed"].dtype == "uint64" and int(flows["seed"].iloc[0]) == 2**64 - 1
    assert flows["completed"].dtype == bool
    assert flows["size_segments"].dtype == float  # a bulk flow has no size: NaN
    assert (flows["burstlab_version"] == burstlab.__version__).all()
    cwnd = pd.read_parquet(tmp_path / "cwnd_trace.parquet")
    assert len(cwnd) == len(res.cwnd) and cwnd["time_s"].dtype == float


def test_a_trace_streamed_during_the_run_stays_csv(tmp_path: Path) -> None:
    spec = burstlab.load_scenario(ROOT / "examples" / "single_flow.toml")
    spec["sim"].update(TRACED)
    res = burstlab.run(spec, seed=3, trace_dir=tmp_path)
    names = {p.name for p in res.to_dir(tmp_path)}
    assert {"cwnd_trace.csv", "packet_trace.csv", "flows.parquet"} <= names
    back = burstlab.load(tmp_path)
    pd.testing.assert_frame_equal(back.cwnd, res.cwnd, check_dtype=False)


def test_cli_run_writes_parquet_unless_told_csv(tmp_path: Path) -> None:
    sc = str(ROOT / "examples" / "single_flow.toml")
    assert main(["run", sc, "--set", "sim.duration=5s", "--out", str(tmp_path / "p"),
                 "--no-progress"]) == 0
    assert (tmp_path / "p" / "flows.parquet").is_file()
    assert not list((tmp_path / "p").glob("*.csv"))
    assert main(["run", sc, "--set", "sim.duration=5s", "--out", str(tmp_path / "c"),
                 "--format", "csv", "--no-progress"]) == 0
    assert (tmp_path / "c" / "flows.csv").is_file()
    assert not list((tmp_path / "c").glob("*.parquet"))
    a, b = burstlab.load(tmp_path / "p"), burstlab.load(tmp_path / "c")
    pd.testing.assert_frame_equal(a.flows, b.flows)


def test_a_bad_format_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = traced_run()
    with pytest.raises(ValueError, match="format: 'parquet' or 'csv', got 'xlsx'"):
        res.to_dir(tmp_path, format="xlsx")
    rc = main(["run", str(ROOT / "examples" / "single_flow.toml"), "--out", str(tmp_path),
               "--format", "xlsx"])
    assert rc == 2 and "invalid choice: 'xlsx'" in capsys.readouterr().err


def test_without_pyarrow_the_message_says_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow fails
    with pytest.raises(ImportError, match="pip install pyarrow"):
        traced_run().to_dir(tmp_path)
    rc = main(["run", str(ROOT / "examples" / "single_flow.toml"), "--out",
               str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--format parquet" in err and "--format csv" in err
    assert "Traceback" not in err and not (tmp_path / "o" / "result.json").exists()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_sweep_comes_back_equal_from_either_format(tmp_path: Path, fmt: str) -> None:
    spec = burstlab.load_scenario(ROOT / "examples" / "single_flow.toml")
    spec["sim"]["duration"] = "5s"
    sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
                        executor="serial", progress=False)
    names = {p.name for p in sw.to_dir(tmp_path, format=fmt)}
    assert {f"{t}.{fmt}" for t in ("sweep", "summary", "runs", "links")} <= names
    other = "csv" if fmt == "parquet" else "parquet"
    assert not any(n.endswith(f".{other}") for n in names)
    back = burstlab.load(tmp_path)
    pd.testing.assert_frame_equal(back.table, sw.table)
    pd.testing.assert_frame_equal(back.summary, sw.summary)
