"""Sweeps: executors agree, runs are stored once and resumed, failures are recorded, the
CLI reports bad input in one line, and a killed sweep resumes to the same table.

The scenarios use UDP flows (CBR and exponential on/off over a lossy link), whose
results depend on the seed and replication through the loss and on/off substreams.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import burstlab
from burstlab.api import load_scenario
from burstlab.cli import main
from burstlab.sweep import Store, run_key

# ``burstlab.sweep`` is the function; the module is reached through importlib.
sweep_mod = importlib.import_module("burstlab.sweep")

SCENARIO = """
name = "udp-path"
[sim]
duration = "{duration}"
seed = 7
trace = {{ cwnd = true }}
[[node]]
name = "src"
kind = "host"
[[node]]
name = "r1"
[[node]]
name = "dst"
kind = "host"
[[link]]
a = "src"
b = "r1"
rate = "1Gb/s"
delay = "10ms"
[[link]]
a = "r1"
b = "dst"
rate = "200Mb/s"
delay = "10ms"
loss_ab = 0.01
[[flow]]
type = "cbr"
src = "src"
dst = "dst"
rate = "10Mb/s"
packet_size = "1000B"
[[flow]]
type = "onoff"
src = "src"
dst = "dst"
rate = "50Mb/s"
packet_size = "1000B"
mean_on = "10ms"
mean_off = "90ms"
"""

GRID = {"link.1.loss_ab": "1e-3..1e-1:log:3", "flow.0.rate": "1Mb/s,10Mb/s"}


def write_scenario(tmp_path: Path, duration: str = "5s") -> Path:
    p = tmp_path / "udp.toml"
    p.write_text(SCENARIO.format(duration=duration), encoding="utf-8")
    return p


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    return table.sort_values(["point", "replication", "flow"]).reset_index(drop=True)


def test_sweep_table_shape_and_columns(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    res = burstlab.sweep(sc, GRID, replications=3, store=tmp_path / "s.sqlite", jobs=2,
                         progress=False)
    t = res.table
    assert len(t) == 3 * 2 * 3 * 2  # points × replications × flows
    for col in ("point", "link.1.loss_ab", "flow.0.rate", "flow.0.rate [b/s]", "seed",
                "replication", "burstlab_version", "flow", "goodput_bps"):
        assert col in t.columns
    assert set(t["seed"]) == {7} and set(t["replication"]) == {0, 1, 2}
    assert set(t["burstlab_version"]) == {burstlab.__version__}
    assert t.groupby(["point", "replication", "flow"]).size().eq(1).all()
    # replications differ (independent substreams); the CBR rate follows the grid
    on = t[t["kind"] == "onoff"]
    assert on.groupby("point")["segments_sent"].nunique().gt(1).all()
    cbr = t[(t["kind"] == "cbr") & (t["link.1.loss_ab"] == pytest.approx(1e-3))]
    assert (cbr["goodput_bps"] / cbr["flow.0.rate [b/s]"]).between(0.98, 1.0).all()
    s = res.summary
    assert len(s) == 6 * 2 and set(s["n"]) == {3}
    assert (s["goodput_bps_ci_lo"] <= s["goodput_bps_mean"]).all()
    assert (s["goodput_bps_mean"] <= s["goodput_bps_ci_hi"]).all()
    assert res.stats["ran"] == 18 and res.stats["failed"] == 0
    # the same run through burstlab.run gives the same row
    base = burstlab.load_scenario(sc)
    base["link"][1]["loss_ab"] = 0.1
    base["flow"][0]["rate"] = "10Mb/s"
    one = burstlab.run(base, seed=7, replication=2).flows
    row = t[(t["point"] == 5) & (t["replication"] == 2)].reset_index(drop=True)
    assert row["goodput_bps"].tolist() == one["goodput_bps"].tolist()


def test_executors_agree_and_rerun_skips_finished_runs(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    local = burstlab.sweep(sc, GRID, replications=2, store=tmp_path / "a.sqlite", jobs=2,
                           progress=False)
    serial = burstlab.sweep(sc, GRID, replications=2, store=tmp_path / "b.sqlite",
                            executor="serial", progress=False)
    pd.testing.assert_frame_equal(comparable(local.table), comparable(serial.table))
    again = burstlab.sweep(sc, GRID, replications=2, store=tmp_path / "a.sqlite", jobs=2,
                           progress=False)
    assert again.stats["ran"] == 0 and again.stats["cached"] == 12
    pd.testing.assert_frame_equal(comparable(local.table), comparable(again.table))
    # a larger sweep sharing points only runs the new ones
    more = burstlab.sweep(sc, GRID, replications=3, store=tmp_path / "a.sqlite", jobs=2,
                          progress=False)
    assert more.stats["ran"] == 6 and more.stats["cached"] == 12


def test_key_depends_on_scenario_seed_replication_and_version() -> None:
    sc = {"sim": {"duration": "1s"}, "flow": []}
    k = run_key(sc, 1, 0, "0.1.0")
    assert k == run_key({"flow": [], "sim": {"duration": "1s"}}, 1, 0, "0.1.0")
    assert len({k, run_key(sc, 2, 0, "0.1.0"), run_key(sc, 1, 1, "0.1.0"),
                run_key(sc, 1, 0, "0.2.0"), run_key({**sc, "name": "x"}, 1, 0, "0.1.0")}) == 5


def test_a_failing_point_is_recorded_and_the_others_finish(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    grid = {"flow.0.rate": "1Mb/s,-3Mb/s,10Mb/s"}
    res = burstlab.sweep(sc, grid, replications=2, store=tmp_path / "s.sqlite", jobs=2,
                         progress=False)
    assert res.stats["failed"] == 2
    err = res.errors
    assert set(err["flow.0.rate"]) == {"-3Mb/s"} and set(err["replication"]) == {0, 1}
    assert err["error"].str.startswith("ScenarioError: flow[0].rate").all()
    assert sorted(res.table["flow.0.rate"].unique()) == ["10Mb/s", "1Mb/s"]
    assert len(res.table) == 2 * 2 * 2
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        rows = db.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall()
    assert dict(rows) == {"ok": 4, "error": 2}
    # failures are not rerun unless asked
    again = burstlab.sweep(sc, grid, replications=2, store=tmp_path / "s.sqlite",
                           executor="serial", progress=False)
    assert again.stats["ran"] == 0
    retry = burstlab.sweep(sc, grid, replications=2, store=tmp_path / "s.sqlite",
                           executor="serial", progress=False, retry_errors=True)
    assert retry.stats["ran"] == 2 and retry.stats["failed"] == 2


def test_any_exception_in_a_run_is_recorded(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    sc = write_scenario(tmp_path)
    real = sweep_mod._core.run

    def flaky(text: str, fmt: str, seed: int, rep: int) -> Any:
        if json.loads(text)["link"][1]["loss_ab"] == 0.01:
            raise RuntimeError("boom")
        return real(text, fmt, seed, rep)

    monkeypatch.setattr(sweep_mod._core, "run", flaky)
    res = burstlab.sweep(sc, {"link.1.loss_ab": "1e-3,1e-2,1e-1"}, store=None,
                         executor="serial", progress=False)
    assert res.errors["error"].tolist() == ["RuntimeError: boom"]
    assert sorted(res.table["link.1.loss_ab"].unique()) == [1e-3, 1e-1]


def test_store_is_wal_and_refuses_foreign_files(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as st:
        mode = st.db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a database" * 100)
    with pytest.raises(ValueError, match="not a burstlab sweep store"):
        Store(bad)


def test_bad_arguments_raise_value_error(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    with pytest.raises(ValueError, match="grid entry 'link.5.loss_ab': index 5 out of range"):
        burstlab.sweep(sc, {"link.5.loss_ab": "0.1"}, progress=False)
    with pytest.raises(ValueError, match="replications must be a positive integer"):
        burstlab.sweep(sc, GRID, replications=0, progress=False)
    with pytest.raises(ValueError, match="executor must be one of"):
        burstlab.sweep(sc, GRID, executor="mpi", progress=False)


def test_dask_local_cluster_gives_the_same_table(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    sc = write_scenario(tmp_path)
    local = burstlab.sweep(sc, GRID, replications=2, store=tmp_path / "a.sqlite", jobs=2,
                           progress=False)
    dask = burstlab.sweep(sc, GRID, replications=2, store=tmp_path / "b.sqlite",
                          executor="dask", jobs=2, progress=False)
    assert dask.stats["executor"] == "dask" and dask.stats["ran"] == 12
    pd.testing.assert_frame_equal(comparable(local.table), comparable(dask.table))
    pd.testing.assert_frame_equal(local.summary, dask.summary)


def test_progress_bar_reports_counts_and_eta(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    burstlab.sweep(sc, {"flow.0.rate": "1Mb/s,2Mb/s"}, executor="serial", progress=True,
                   store=tmp_path / "s.sqlite")
    err = capsys.readouterr().err
    assert "0/2 runs" in err and "2/2 runs" in err and "ETA" in err and "done" in err
    burstlab.sweep(sc, {"flow.0.rate": "1Mb/s,2Mb/s"}, executor="serial", progress=True,
                   store=tmp_path / "s.sqlite")
    assert "2 cached" in capsys.readouterr().err


# --- command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grid", "link.1.loss_ab=1e-3..1e-1:log"], "a range must read a..b:lin:n"),
        (["--grid", "link.1.loss_ab"], "expected path=values"),
        (["--grid", "link.9.loss_ab=0.1"], "index 9 out of range"),
        (["--grid", "flow.0.rate=1Mb/s", "--reps", "zero"], "--reps: expected an integer"),
        (["--grid", "flow.0.rate=1Mb/s", "--jobs", "0"], "--jobs: must be at least 1"),
        (["--grid", "a=1", "--grid", "a=2"], "a is swept twice"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    sc = write_scenario(tmp_path)
    rc = main(["sweep", str(sc), "--out", str(tmp_path / "o"), "--no-progress", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("burstlab: error: ")
    assert message in err


def test_cli_missing_scenario_and_bad_plot_input(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(tmp_path / "nope.toml"), "--grid", "a=1"]) == 2
    assert "scenario file not found" in capsys.readouterr().err
    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no sweep table" in err


def test_cli_sweep_then_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sc = write_scenario(tmp_path)
    out = tmp_path / "o"
    rc = main(["sweep", str(sc), "--grid", "link.1.loss_ab=1e-3..1e-1:log:3",
               "--grid", "flow.0.rate=1Mb/s,10Mb/s", "--reps", "2", "--jobs", "2",
               "--out", str(out), "--no-progress"])
    assert rc == 0
    assert "12 runs (0 from the store, 12 run now, 0 failed)" in capsys.readouterr().out
    for f in ("sweep.parquet", "summary.parquet", "runs.parquet", "links.parquet",
              "sweep.json", "store.sqlite"):  # Parquet: the default format
        assert (out / f).is_file()
    info = json.loads((out / "sweep.json").read_text())
    assert info["params"] == ["link.1.loss_ab", "flow.0.rate"] and info["seed"] == 7
    tidy = pd.read_parquet(out / "sweep.parquet")
    assert len(tidy) == 6 * 2 * 2
    assert main(["plot", str(out), "--logx", "--flow", "0"]) == 0
    assert (out / "goodput_bps_vs_link.1.loss_ab.png").stat().st_size > 1000
    svg = tmp_path / "fig.svg"
    assert main(["plot", str(out / "summary.parquet"), "--x", "flow.0.rate",
                 "--by", "link.1.loss_ab", "--y", "goodput_segps", "--logy",
                 "--out", str(svg)]) == 0
    text = svg.read_text()
    assert "<svg" in text and "segments/s" in text
    # plotting against one parameter while another varies asks for --where
    assert main(["plot", str(out), "--x", "flow.0.rate", "--by", "", "--flow", "0"]) == 2
    assert "--where" in capsys.readouterr().err
    assert main(["plot", str(out), "--x", "flow.0.rate", "--where", "link.1.loss_ab=0.01",
                 "--out", str(tmp_path / "w.png")]) == 0


def test_cli_failed_runs_give_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sc = write_scenario(tmp_path)
    rc = main(["sweep", str(sc), "--grid", "flow.0.rate=1Mb/s,-1Mb/s", "--executor",
               "serial", "--out", str(tmp_path / "o"), "--format", "csv", "--no-progress"])
    assert rc == 1
    assert "1 run(s) failed" in capsys.readouterr().err
    runs = pd.read_csv(tmp_path / "o" / "runs.csv")
    assert runs["status"].tolist() == ["ok", "error"]


def _count(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def test_sigkill_mid_sweep_then_resume_matches_an_uninterrupted_sweep(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path, duration="30s")  # ~40 ms per run
    grid = ["--grid", "link.1.loss_ab=1e-3..1e-1:log:5", "--grid", "flow.0.rate=1Mb/s,10Mb/s",
            "--reps", "4", "--jobs", "2", "--no-progress", "--format", "csv"]
    total = 5 * 2 * 4
    out, store = tmp_path / "killed", tmp_path / "killed" / "store.sqlite"
    cmd = [sys.executable, "-m", "burstlab.cli", "sweep", str(sc), "--out", str(out), *grid]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while _count(store) < 6 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the sweep finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, no clean-up
    proc.wait()
    killed_at = _count(store)
    assert 6 <= killed_at < total
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({killed_at} from the store, {total - killed_at} run now, 0 failed)" in (
        resumed.stdout)
    fresh = tmp_path / "fresh"
    clean = subprocess.run([*cmd[:5], "--out", str(fresh), *grid], capture_output=True,
                           text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr

    with sqlite3.connect(store) as db:
        keys = db.execute("SELECT key, count(*) FROM runs GROUP BY key").fetchall()
    assert len(keys) == total and all(n == 1 for _, n in keys)
    runs = pd.read_csv(out / "runs.csv")
    assert runs.groupby(["point", "replication"]).size().eq(1).all() and len(runs) == total
    a = pd.read_csv(out / "sweep.csv")
    b = pd.read_csv(fresh / "sweep.csv")
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(pd.read_csv(out / "summary.csv"),
                                  pd.read_csv(fresh / "summary.csv"))


def test_ctrl_c_stops_at_once_and_the_sweep_resumes(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path, duration="30s")
    out, store = tmp_path / "o", tmp_path / "o" / "store.sqlite"
    cmd = [sys.executable, "-m", "burstlab.cli", "sweep", str(sc), "--out", str(out),
           "--grid", "link.1.loss_ab=1e-3..1e-1:log:10", "--grid", "flow.0.rate=1Mb/s,2Mb/s",
           "--reps", "2", "--jobs", "2", "--no-progress"]
    # A terminal's foreground job starts with SIGINT at its default disposition; a child
    # of this test process would otherwise inherit whatever the test process has (an
    # ignored SIGINT is inherited across exec, and Python then keeps ignoring it).
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while _count(store) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the sweep finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "burstlab: interrupted"
    stopped_at = _count(store)
    assert 3 <= stopped_at < 40
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({stopped_at} from the store, {40 - stopped_at} run now" in resumed.stdout


def test_cli_dask_scheduler_address(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    sc = write_scenario(tmp_path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        rc = main(["sweep", str(sc), "--grid", "flow.0.rate=1Mb/s,10Mb/s", "--reps", "2",
                   "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "d"),
                   "--format", "csv", "--no-progress"])
    assert rc == 0
    local = burstlab.sweep(sc, {"flow.0.rate": "1Mb/s,10Mb/s"}, replications=2, jobs=2,
                           progress=False)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "d" / "sweep.csv"),
                                  _roundtrip(comparable(local.table), tmp_path))
    info = json.loads((tmp_path / "d" / "sweep.json").read_text())
    assert info["stats"]["executor"] == "dask"


def _roundtrip(df: pd.DataFrame, tmp_path: Path) -> pd.DataFrame:
    """The table as read back from CSV (dtypes as in a written sweep.csv)."""
    df.to_csv(tmp_path / "roundtrip.csv", index=False)
    return pd.read_csv(tmp_path / "roundtrip.csv")


def test_sweeping_the_seed(tmp_path: Path) -> None:
    sc = write_scenario(tmp_path)
    res = burstlab.sweep(sc, {"sim.seed": "3,4"}, replications=2, executor="serial",
                         progress=False)
    t = res.table
    assert t.groupby("point")["seed"].unique().map(list).tolist() == [[3], [4]]
    on = t[t["kind"] == "onoff"].set_index(["seed", "replication"])["segments_sent"]
    assert on.nunique() == 4  # four distinct random streams
    with pytest.raises(ValueError, match="seeds must be non-negative integers"):
        burstlab.sweep(sc, {"sim.seed": "1.5"}, progress=False)
    with pytest.raises(ValueError, match="use replications="):
        burstlab.sweep(sc, {"sim.replication": "1,2"}, progress=False)


def test_a_worker_that_dies_is_recorded_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("needs forked workers to inherit the patched core")
    sc = write_scenario(tmp_path)
    real = sweep_mod._core.run

    def crashing(text: str, fmt: str, seed: int, rep: int) -> Any:
        if json.loads(text)["link"][1]["loss_ab"] == 0.01:
            os._exit(3)  # a segfault or an OOM kill, as far as the pool can tell
        return real(text, fmt, seed, rep)

    monkeypatch.setattr(sweep_mod._core, "run", crashing)
    loss = "1e-3,2e-3,3e-3,1e-2,4e-3,5e-3,6e-3,7e-3,8e-3,9e-3"
    res = burstlab.sweep(sc, {"link.1.loss_ab": loss}, store=tmp_path / "s.sqlite", jobs=2,
                         progress=False)
    runs = res.runs.set_index("link.1.loss_ab")
    assert len(runs) == 10
    assert runs.loc[0.01, "status"] == "error"
    assert runs.loc[0.01, "error"].startswith("WorkerDied")
    assert (runs["status"] == "ok").sum() == 9  # the bystanders were rerun, not failed
    assert len(res.table) == 9 * 2


def test_kept_traces_leave_the_obs_columns_in_the_table(tmp_path: Path) -> None:
    """A trace sweep over an OBS scenario keeps the per-flow burst statistics in its
    table (yu's S) as well as in each kept Result."""
    from burstlab.sweep import sweep_points

    sc = Path(__file__).resolve().parent.parent / "examples" / "yu_path.toml"
    text = sc.read_text().replace('duration = "100s"', 'duration = "2s"')
    sw = sweep_points([({"k": 1}, text)], keep_traces=True, executor="serial",
                      progress=False)
    assert "segments_per_burst" in sw.table.columns
    assert sw.table["segments_per_burst"].notna().all()
    assert len(sw.result(0).obs_flows) == 1


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_kept_traces_beyond_the_budget_are_read_from_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int) -> None:
    """With a store file a trace sweep whose stored rows exceed KEPT_TRACE_BYTES leaves
    its traces in the store and :meth:`SweepResult.result` reads each run back; a
    smaller one holds them. Either way a run equals the in-memory sweep's."""
    from burstlab.sweep import sweep_points

    monkeypatch.setattr(sweep_mod, "KEPT_TRACE_BYTES", budget)
    sc = Path(__file__).resolve().parent.parent / "examples" / "yu_path.toml"
    text = sc.read_text().replace('duration = "100s"', 'duration = "2s"').replace(
        "[sim]\n", "[sim]\ntrace = { bursts = true, cwnd = true }\n", 1)
    pts = [({"k": 1}, text), ({"k": 2}, text.replace("seed = 1", "seed = 2"))]
    mem = sweep_points(pts, keep_traces=True, replications=2, executor="serial",
                       progress=False)
    disk = sweep_points(pts, keep_traces=True, replications=2, executor="serial",
                        progress=False, store=tmp_path / "s.sqlite")
    assert sorted(disk.kept) == sorted(mem.kept) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for pr in mem.kept:
        a, b = mem.result(*pr), disk.result(*pr)
        assert len(a.burst_trace) > 0
        pd.testing.assert_frame_equal(a.burst_trace, b.burst_trace)
        pd.testing.assert_frame_equal(a.cwnd, b.cwnd)
        pd.testing.assert_frame_equal(a.flows, b.flows)
        pd.testing.assert_frame_equal(a.obs_flows, b.obs_flows)
    # held in memory, the traces make the SweepResult large; left in the store, a few kB
    size = len(pickle.dumps(disk.kept))
    assert (size < 2000) if budget == 0 else (size > 0.9 * len(pickle.dumps(mem.kept)))
    with pytest.raises(KeyError, match="was not kept"):
        disk.result(5)


def test_an_interrupted_pool_leaves_no_thread_behind(tmp_path: Path) -> None:
    """An interrupted local sweep joins the pool's manager thread before it returns. A
    manager thread still running at interpreter exit races CPython's exit hook for the
    pool's wakeup pipe, and the loser prints ``OSError: [Errno 9] Bad file descriptor``
    after ``burstlab: interrupted``."""
    sc = load_scenario(write_scenario(tmp_path, duration="30s"))
    sc = json.loads(json.dumps(sc, default=str))
    for k in ("seed", "trace"):
        sc["sim"].pop(k, None)
    text = sweep_mod.canonical_json(sc)
    tasks = [sweep_mod.Task(f"run{r}", 0, text, 7, r) for r in range(8)]
    before = set(threading.enumerate())
    outcomes = sweep_mod._iter_local(tasks, 2, None)
    assert next(outcomes)["status"] == "ok"
    outcomes.close()  # what an interrupt does: the executor's clean-up runs with runs in flight
    left = [t.name for t in threading.enumerate() if t not in before]
    assert left == []
