"""Small defects of issue 55 (item 4), one test each."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import burstlab
from burstlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "examples" / "single_flow.toml"


def short(duration: str = "5s") -> dict[str, object]:
    spec = burstlab.load_scenario(SINGLE)
    spec["sim"] = {**spec["sim"], "duration": duration}
    return spec


def test_burstlab_sweep_is_the_module_and_runs_a_sweep() -> None:
    from burstlab.sweep import sweep, sweep_points

    assert burstlab.sweep.sweep_points is sweep_points  # was: AttributeError
    assert burstlab.sweep.sweep is sweep
    assert "cases" in inspect.signature(burstlab.sweep).parameters
    from burstlab import sweep as imported

    sw = imported(short(), {"sim.duration": ["1s", "2s"]}, executor="serial",
                  progress=False)
    assert isinstance(sw, burstlab.SweepResult) and len(sw.table) == 2


def test_plot_help_prints_a_single_percent_sign() -> None:
    cp = subprocess.run([sys.executable, "-m", "burstlab", "plot", "--help"],
                        capture_output=True, text=True, check=False)
    assert cp.returncode == 0
    assert "95 % confidence" in " ".join(cp.stdout.split())
    assert "%%" not in cp.stdout


def test_a_toml_syntax_error_names_its_line_and_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[sim]\nduration = 10s\n')
    for cmd in (["run", str(bad)], ["validate", str(bad)]):
        assert main(cmd) == 2
        err = capsys.readouterr().err
        assert err.startswith("burstlab: error: malformed TOML"), err
        assert "(at line 3, column 12)" in err, err
    with pytest.raises(burstlab.ScenarioError, match=r"at line 3, column 12"):
        burstlab.run(bad.read_text())
    # Python's own reader (tomllib) places it where its parser stops
    with pytest.raises(burstlab.ScenarioError, match=r"at line 3, column \d+\)"):
        burstlab.load_scenario(bad)


def test_sweep_result_repr_is_one_short_line() -> None:
    sw = burstlab.sweep(short(), {"link.1.loss_ab": "1e-3..1e-1:log:5"},
                        replications=2, executor="serial", progress=False)
    text = repr(sw)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("<burstlab SweepResult: 5 rows of summary, 10 runs (0 failed)")
    assert "link.1.loss_ab" in text


def test_result_summary_is_a_table_like_the_sweeps_and_still_callable() -> None:
    res = burstlab.run(short(), progress=False)
    text = res.summary()  # the call every caller makes still gives the text
    assert text == res.summary_text() and text.startswith("scenario 'single-flow'")
    assert repr(res.summary) == text
    table = res.summary.frame()
    assert list(res.summary.columns) == list(table.columns)
    assert "goodput_bps" in res.summary.columns and len(res.summary) == 1
    pd.testing.assert_series_equal(res.summary["goodput_bps"], res.flows["goodput_bps"])
    sw = burstlab.sweep(short(), {"sim.duration": ["1s", "2s"]}, executor="serial",
                        progress=False)
    # both: .summary is a table with the goodput column(s)
    assert "goodput_bps_mean" in sw.summary.columns
    assert "<table" in res.summary._repr_html_()


def test_the_modern_tcp_page_is_a_jinja2_template_that_escapes() -> None:
    from burstlab.reproduce import modern_tcp

    src = inspect.getsource(modern_tcp)
    assert "<tr>" not in src and "<td>" not in src  # no HTML written with f-strings
    tpl = ROOT / "python" / "burstlab" / "reproduce" / "templates" / "modern_tcp_body.html"
    assert "{% for p in points %}" in tpl.read_text()
