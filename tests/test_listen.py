"""Runs that listen (issue 55, item 3): Ctrl-C stops a run within about a second (exit
code 130, no traceback), an interrupted sweep keeps its finished runs and resumes, a long
run shows its progress on a terminal only, and ``burstlab run --set`` overrides a key."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import burstlab
from burstlab import _progress
from burstlab.cli import CliError, main, parse_set

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "examples" / "single_flow.toml"


def long_scenario(tmp_path: Path, duration: str = "10000000s") -> Path:
    """One flow for far longer than any test waits (minutes of wall time)."""
    p = tmp_path / "long.toml"
    p.write_text(SINGLE.read_text(encoding="utf-8").replace('"300s"', f'"{duration}"'),
                 encoding="utf-8")
    return p


def start(cmd: list[str]) -> subprocess.Popen[str]:
    # A terminal's foreground job starts with SIGINT at its default disposition; a child
    # of the test process would otherwise inherit whatever disposition the test has.
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_stops_a_long_run_within_a_second(tmp_path: Path) -> None:
    proc = start([sys.executable, "-m", "burstlab", "run", str(long_scenario(tmp_path))])
    time.sleep(2.0)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, err = proc.communicate(timeout=30)
    waited = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert waited < 3.0, f"the run took {waited:.2f} s to stop"
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "burstlab: interrupted"


def test_a_python_run_raises_keyboard_interrupt_and_a_callback_error_stops_it(
        tmp_path: Path) -> None:
    calls: list[tuple[float, float, int]] = []

    def stop(now_s: float, end_s: float, events: int) -> None:
        calls.append((now_s, end_s, events))
        raise KeyboardInterrupt

    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        burstlab._core.run(long_scenario(tmp_path).read_text(), "toml", None, None, stop)
    assert time.monotonic() - t0 < 3.0
    assert len(calls) == 1
    now_s, end_s, events = calls[0]
    assert 0 < now_s < end_s == 1e7 and events > 0


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def test_a_serial_sweep_stops_inside_a_run_and_resumes_only_the_missing_points(
        tmp_path: Path) -> None:
    # Six points: two short runs, then runs of minutes. Ctrl-C lands inside the third
    # run (serial: in this process); the sweep keeps the two finished runs.
    sc = long_scenario(tmp_path, duration="300s")
    out = tmp_path / "o"
    store = out / "store.sqlite"

    def cmd(grid: str) -> list[str]:
        return [sys.executable, "-m", "burstlab", "sweep", str(sc), "--out", str(out),
                "--grid", grid, "--executor", "serial", "--no-progress"]

    proc = start(cmd("sim.duration=200s,300s,2000000s,2000001s,2000002s,2000003s"))
    deadline = time.monotonic() + 60
    while _stored(store) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    assert proc.poll() is None, "the sweep ended before it could be interrupted"
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 3.0
    assert "Traceback" not in err
    assert _stored(store) == 2
    # Re-run with the long points shortened by a grid of their own: the stored runs are
    # reused, only the missing ones run.
    resumed = subprocess.run(cmd("sim.duration=200s,300s,400s,500s"), capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "(2 from the store, 2 run now" in resumed.stdout
    assert _stored(store) == 4


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_run_progress_shows_simulated_time_events_per_second_and_an_eta() -> None:
    out, clock = io.StringIO(), _Clock()
    bar = _progress.RunProgress(out, clock=clock)
    for t in (0.5, 1.0, 1.5):  # a run under 2 s shows nothing
        clock.t = t
        bar(t * 10, 100.0, int(t * 4e6))
    assert out.getvalue() == ""
    clock.t = 2.5
    bar(25.0, 100.0, 10_000_000)
    clock.t = 3.0
    bar(30.0, 100.0, 12_000_000)  # 2e6 events in 0.5 s
    last = out.getvalue().split("\r")[-1]
    assert "simulated 30 of 100 s, 4 M events/s" in last, last
    assert " 30% " in last and "ETA 00:" in last, last
    bar.close()


def test_a_run_about_to_end_shows_no_bar() -> None:
    out, clock = io.StringIO(), _Clock()
    bar = _progress.RunProgress(out, clock=clock)
    clock.t = 3.0
    bar(99.9, 100.0, 1000)  # an ETA of 3 ms: nothing to show
    assert out.getvalue() == ""


def test_progress_is_off_when_stderr_is_not_a_terminal(
        tmp_path: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_progress, "SHOW_AFTER_S", 0.0)
    # Long enough that the core reports at least once (every 0.25 s of wall time) even
    # in a release build on a fast machine.
    sc = long_scenario(tmp_path, duration="200000s")
    burstlab.run(sc)  # stderr is captured here: not a terminal
    assert capfd.readouterr().err == ""
    burstlab.run(sc, progress=True)
    assert "events/s" in capfd.readouterr().err


def test_set_overrides_keys_with_toml_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_set("sim.duration=10s") == ("sim.duration", "10s")
    assert parse_set("flow[0].wm = 20") == ("flow.0.wm", 20)
    assert parse_set("link.1.loss_ab=1e-3") == ("link.1.loss_ab", 1e-3)
    assert parse_set('name="a b"') == ("name", "a b")
    assert parse_set("flow.0.ack_ratio=[1, 2]")[1] == [1, 2]
    rc = main(["run", str(SINGLE), "--set", "sim.duration=20s", "--set",
               "flow[0].variant=reno", "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "simulated 20 s" in text and " reno " in text


@pytest.mark.parametrize(("entry", "message"), [
    ("sim.duration", "--set 'sim.duration': expected KEY=VALUE"),
    ("sim..x=1", "--set 'sim..x': not a dotted key"),
    ("link.7.rate=1Gb/s", "--set link.7.rate: index 7 out of range"),
    ("link.0.rate=[1,", "--set link.0.rate: '[1,' is not a TOML value"),
    ("link.0.rate=-5", "link[0].rate: a rate must be positive"),
    ("sim.bogus=5", "sim.bogus: unknown field"),
])
def test_set_errors_name_the_key(entry: str, message: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["run", str(SINGLE), "--set", entry, "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"burstlab: error: {message}"), err


def test_parse_set_raises_cli_error() -> None:
    with pytest.raises(CliError, match="expected KEY=VALUE"):
        parse_set("novalue")


def _wanted_in_worker() -> bool:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    return _progress.wanted(Tty())


def test_progress_is_off_in_worker_processes() -> None:
    from concurrent.futures import ProcessPoolExecutor

    assert _wanted_in_worker()  # this process, a terminal: on
    with ProcessPoolExecutor(1) as pool:
        assert pool.submit(_wanted_in_worker).result() is False
