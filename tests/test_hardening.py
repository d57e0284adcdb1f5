"""Bad input and hostile environments on the Python side: each test is a regression test
for a finding of the hardening review (seeds beyond 64 bits, unwritable outputs, damaged
sweep stores, orphaned workers, unsafe plot names, plaintext Dask, odd scenario paths,
grids too large to hold)."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

import burstlab
from burstlab import _dask
from burstlab.grid import GridError
from burstlab.plot import plot_sweep

sweep_mod = importlib.import_module("burstlab.sweep")
ROOT = Path(__file__).resolve().parent.parent
SINGLE = ROOT / "examples" / "single_flow.toml"

UDP = """
name = "udp"
[sim]
duration = "{duration}"
seed = 3
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "100Mb/s"
delay = "1ms"
loss = 0.01
[[flow]]
type = "cbr"
src = "a"
dst = "b"
rate = "50Mb/s"
"""


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "burstlab.cli", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


def one_line_error(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("burstlab: error: "), p.stderr
    return p.stderr


@pytest.fixture
def udp(tmp_path: Path) -> Path:
    p = tmp_path / "udp.toml"
    p.write_text(UDP.format(duration="2s"), encoding="utf-8")
    return p


# --- seeds ---------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--seed", "--replication"])
def test_run_seed_beyond_64_bits_is_a_usage_error(flag: str) -> None:
    p = cli("run", str(SINGLE), flag, str(2**64))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "2^64 - 1" in p.stderr


def test_api_and_sweep_refuse_seeds_beyond_64_bits(udp: Path, tmp_path: Path) -> None:
    with pytest.raises(burstlab.ScenarioError, match="seed: must be an integer from 0"):
        burstlab.run(udp, seed=2**64)
    burstlab.run(udp, seed=2**64 - 1)  # the largest seed is fine
    err = one_line_error(cli("sweep", str(udp), "--grid", "flow.0.rate=1Mb/s", "--seed",
                             str(2**64), "--out", str(tmp_path / "s")))
    assert "--seed" in err


# --- output folders -------------------------------------------------------------------


def test_out_naming_a_file_fails_before_running(tmp_path: Path) -> None:
    f = tmp_path / "taken"
    f.write_text("x")
    for cmd in (["run", str(SINGLE), "--out", str(f)], ["demo", "--out", str(f)]):
        err = one_line_error(cli(*cmd))
        assert "exists and is not a directory" in err


def test_unwritable_output_folder_is_one_line(tmp_path: Path, udp: Path) -> None:
    if os.geteuid() == 0:  # root writes through permissions; sysfs refuses everyone
        target = Path("/sys/burstlab-test-out")
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        target = ro / "out"
    err = one_line_error(cli("run", str(udp), "--out", str(target)))
    assert "--out: cannot write in" in err
    err = one_line_error(cli("sweep", str(udp), "--grid", "flow.0.rate=1Mb/s,2Mb/s",
                             "--out", str(target), "--no-progress"))
    assert "--out: cannot write in" in err


# --- the sweep store ------------------------------------------------------------------


def test_store_with_damaged_bytes_is_a_clear_error(tmp_path: Path, udp: Path) -> None:
    store = tmp_path / "s" / "store.sqlite"
    store.parent.mkdir()
    store.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    err = one_line_error(cli("sweep", str(udp), "--grid", "flow.0.rate=1Mb/s", "--out",
                             str(tmp_path / "s"), "--no-progress"))
    assert "store.sqlite" in err and "delete it or choose another --store" in err


def test_a_damaged_row_is_recomputed_not_reused(tmp_path: Path, udp: Path) -> None:
    store = tmp_path / "store.sqlite"
    grid = {"flow.0.rate": "1Mb/s,5Mb/s"}
    first = sweep_mod.sweep(udp, grid, store=store, executor="serial", progress=False)
    with sqlite3.connect(store) as db:
        key, flows = db.execute("SELECT key, flows FROM runs ORDER BY key LIMIT 1").fetchone()
        rows = json.loads(flows)
        rows[0]["goodput_bps"] = 1.0  # a flipped value, checksum left as it was
        db.execute("UPDATE runs SET flows = ? WHERE key = ?", (json.dumps(rows), key))
    again = sweep_mod.sweep(udp, grid, store=store, executor="serial", progress=False)
    assert again.stats["cached"] == 1 and again.stats["ran"] == 1
    pd.testing.assert_frame_equal(first.table, again.table)


def test_a_version_1_store_is_migrated_and_its_rows_recomputed(tmp_path: Path,
                                                               udp: Path) -> None:
    store = tmp_path / "v1.sqlite"
    sweep_mod.sweep(udp, {"flow.0.rate": "1Mb/s"}, store=store, executor="serial",
                    progress=False)
    with sqlite3.connect(store) as db:  # make it look like a store written before checksums
        db.execute("UPDATE store_info SET value = '1' WHERE name = 'schema_version'")
        db.execute("ALTER TABLE runs DROP COLUMN checksum")
    res = sweep_mod.sweep(udp, {"flow.0.rate": "1Mb/s"}, store=store, executor="serial",
                          progress=False)
    assert res.stats["ran"] == 1  # unverifiable rows are not trusted
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT value FROM store_info").fetchone()[0] == "2"


# --- workers --------------------------------------------------------------------------


def _workers(pid: int, want: int, timeout: float = 60) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = psutil.Process(pid).children(recursive=True)
        if len(kids) >= want:
            return kids
        time.sleep(0.05)
    raise AssertionError("the sweep did not start its workers")


def _all_gone(procs: list[psutil.Process], timeout: float = 15) -> bool:
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    return not alive


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_the_sweep_is_killed(tmp_path: Path, sig: int) -> None:
    sc = tmp_path / "long.toml"
    sc.write_text(UDP.format(duration="200s"), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "burstlab.cli", "sweep", str(sc), "--grid",
         "flow.0.rate=1Mb/s..50Mb/s:lin:8", "--jobs", "2", "--no-progress", "--out",
         str(tmp_path / "o")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        workers = _workers(proc.pid, 2)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        assert _all_gone(workers), "worker processes outlived their sweep"
        if sig == signal.SIGTERM:
            assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()


def _forked_child_status(sig: int) -> int:
    """Forks while the sweep's signal handlers are installed (as the pool does), signals
    the child while it still has them (as before a worker's initializer replaces them),
    and returns its wait status. The child sleeps 1 s in Python and exits 0; any exception
    makes it exit 3."""
    with sweep_mod._SigtermAsInterrupt():
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never return into pytest
            try:
                # Running Python code: past the interpreter's after-fork reset, which
                # drops a signal caught before it.
                os.write(ready_w, b"r")
                for _ in range(20):
                    time.sleep(0.05)
            except BaseException:  # noqa: B036 - KeyboardInterrupt is the failure here
                os._exit(3)
            os._exit(0)
        os.close(ready_w)
        assert os.read(ready_r, 1) == b"r"
        os.close(ready_r)
        os.kill(pid, sig)
        _, status = os.waitpid(pid, 0)
    return status


def test_a_worker_signalled_before_its_initializer_ends_quietly() -> None:
    # SIGTERM (an interrupted sweep terminating its workers): the default action.
    status = _forked_child_status(signal.SIGTERM)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status
    # SIGINT (Ctrl-C reaches the process group): ignored; the parent stops the worker.
    status = _forked_child_status(signal.SIGINT)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_sigterm_interrupts_the_sweep_process_and_handlers_are_restored() -> None:
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT))
    with pytest.raises(KeyboardInterrupt), sweep_mod._SigtermAsInterrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises long before this ends
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


# --- plots, Dask, paths, grids --------------------------------------------------------


def test_plot_file_name_from_sweep_json_stays_inside_the_folder(tmp_path: Path) -> None:
    d = tmp_path / "sweep"
    d.mkdir()
    evil = "../../../escaped"
    pd.DataFrame({evil: [1.0, 2.0], "flow": [0, 0], "goodput_bps": [1e6, 2e6]}).to_csv(
        d / "sweep.csv", index=False)
    (d / "sweep.json").write_text(json.dumps({"params": [evil]}), encoding="utf-8")
    out = plot_sweep(d)
    assert out.resolve().parent == d.resolve() and out.is_file()
    assert not (tmp_path.parent.parent / "escaped").exists()


@pytest.mark.parametrize(("address", "warns"), [
    ("tcp://10.1.2.3:8786", True), ("scheduler.example:8786", True),
    ("tcp://127.0.0.1:8786", False), ("tcp://localhost:8786", False),
    ("tls://10.1.2.3:8786", False),
])
def test_plaintext_remote_dask_scheduler_warns(address: str, warns: bool,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _dask.warn_if_plaintext_remote(address)
    err = capsys.readouterr().err
    assert ("pickled data" in err) is warns


def test_scenario_file_whose_name_contains_equals(tmp_path: Path) -> None:
    p = tmp_path / "loss=0.01.toml"
    p.write_text(SINGLE.read_text().replace('duration = "300s"', 'duration = "5s"'))
    assert burstlab.run(str(p)).meta["scenario"] == "single-flow"


def test_run_none_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="got NoneType"):
        burstlab.run(None)  # type: ignore[arg-type]


def test_a_grid_too_large_to_hold_is_refused_before_expanding(udp: Path) -> None:
    grid = {"flow.0.rate": [f"{i}b/s" for i in range(1, 1001)],
            "sim.duration": [f"{i}s" for i in range(1, 1001)],
            "link.0.delay": "1ms,2ms"}
    t0 = time.perf_counter()
    with pytest.raises(GridError, match="2,000,000 runs, more than 1,000,000"):
        sweep_mod.sweep(udp, grid, executor="serial", progress=False)
    assert time.perf_counter() - t0 < 5  # refused from the axis lengths, not by expanding


def test_integer_grid_values_written_as_floats_pass(tmp_path: Path) -> None:
    text = SINGLE.read_text().replace('duration = "300s"', 'duration = "1s"')
    res = burstlab.sweep(text, {"flow.0.wm": [10.0, 20.0]}, executor="serial",
                         progress=False)
    assert list(res.runs["status"]) == ["ok", "ok"]


def test_a_grid_of_non_integers_for_an_integer_setting_is_announced_before_running(
        tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sc = tmp_path / "short.toml"
    sc.write_text(SINGLE.read_text().replace('duration = "300s"', 'duration = "2s"'))
    p = cli("sweep", str(sc), "--grid", "flow.0.wm=10..200:lin:7", "--out", str(out),
            "--format", "csv", "--no-progress")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    first = p.stderr.splitlines()[0]
    assert first.startswith("burstlab: warning: grid entry 'flow.0.wm' value 41.66"), first
    assert "flow[0].wm" in first and "non-integers for an integer setting" in first, first
    # The integral points 10, 105 and 200 ran; the four others failed.
    runs = pd.read_csv(out / "runs.csv")
    assert sorted(runs["status"]) == ["error"] * 4 + ["ok"] * 3


def test_an_overloaded_unlimited_queue_is_a_clear_error_not_an_abort(tmp_path: Path) -> None:
    text = (UDP.format(duration="1000s").replace('rate = "50Mb/s"', 'rate = "1Gb/s"')
            .replace("seed = 3", 'seed = 3\nmax_memory = "16MiB"'))
    path = tmp_path / "overload.toml"
    path.write_text(text)
    p = cli("run", str(path), "--out", str(tmp_path / "o"))
    assert p.returncode == 2, p.stderr
    msg = one_line_error(p)
    # Refused before the run from the memory estimate (the run-time guard behind it is
    # tested in crates/burstlab-core/tests/scenario_errors.rs).
    assert msg.startswith("burstlab: error: link[0].queue_pkts: link a->b has no queue "
                          "limit"), msg
    assert "sim.max_memory = 16.0 MiB" in msg and "queue_bytes" in msg, msg
    with pytest.raises(burstlab.ScenarioError, match=r"link\[0\]\.queue_pkts"):
        burstlab.run(text)
