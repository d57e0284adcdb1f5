"""The command line: summary table, outputs, exit codes, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from burstlab.cli import main

CBR = """
name = "cli-cbr"
[sim]
duration = 1
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[link]]
a = "a"
b = "b"
rate = "10Mb/s"
delay = "1ms"
[[flow]]
type = "cbr"
src = "a"
dst = "b"
rate = "1Mb/s"
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_prints_table_and_writes_outputs(tmp_path, capsys) -> None:
    sc = write(tmp_path, CBR)
    rc = main(["run", str(sc), "--seed", "4", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "seed 4" in out and "goodput_segps" in out
    assert (tmp_path / "o" / "flows.parquet").is_file()  # the default format
    assert (tmp_path / "o" / "result.json").is_file()


def test_validate_ok_and_bad(tmp_path, capsys) -> None:
    assert main(["validate", str(write(tmp_path, CBR))]) == 0
    bad = CBR.replace('rate = "1Mb/s"', 'rate = "1Mb/s"\nmss = 0')
    assert main(["validate", str(write(tmp_path, bad, "b.toml"))]) == 2
    err = capsys.readouterr().err
    assert "flow[0].mss" in err


def test_bad_input_exit_2_without_traceback(tmp_path) -> None:
    cases = [
        "[sim\nduration = 1",  # malformed TOML
        CBR.replace('rate = "10Mb/s"', 'rate = "-10Mb/s"'),  # negative rate
        CBR.replace('type = "cbr"', 'type = "tcp"\nvariant = "vegas"').replace(
            'rate = "1Mb/s"', ""
        ),  # unknown variant
    ]
    for i, text in enumerate(cases):
        sc = write(tmp_path, text, f"c{i}.toml")
        p = subprocess.run(
            [sys.executable, "-m", "burstlab.cli", "run", str(sc)],
            capture_output=True, text=True,
        )
        assert p.returncode == 2, (text, p.stderr)
        assert "Traceback" not in p.stderr
        assert p.stderr.startswith("burstlab: error:"), p.stderr


def test_missing_file_and_bad_seed(tmp_path, capsys) -> None:
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert main(["run", str(write(tmp_path, CBR)), "--seed", "x"]) == 2


def test_every_shipped_scenario_validates(capsys) -> None:
    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "examples").glob("*.toml")) + sorted((root / "benchmarks").glob("*.toml"))
    assert len(files) >= 6
    for f in files:
        assert main(["validate", str(f)]) == 0, capsys.readouterr().err
