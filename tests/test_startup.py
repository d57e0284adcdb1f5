"""Start-up cost and notebook display: ``import burstlab`` and ``burstlab --help`` do not
import pandas or matplotlib; results render as HTML in Jupyter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import burstlab
from _scenarios import two_host_cbr

HEAVY = ("pandas", "matplotlib", "scipy")


@pytest.mark.parametrize("code", [
    "import burstlab",
    "import burstlab.cli as c\ntry:\n    c.main(['--help'])\nexcept SystemExit:\n    pass",
    "import burstlab.cli as c\ntry:\n    c.main(['reproduce', '--help'])\nexcept SystemExit:\n    pass",
])
def test_startup_does_not_import_heavy_modules(code: str) -> None:
    check = "\nimport sys\nbad = [m for m in " + repr(HEAVY) + " if m in sys.modules]\n" \
            "assert not bad, bad\nprint('ok')"
    cp = subprocess.run([sys.executable, "-c", code + check], capture_output=True, text=True,
                        check=False)
    assert cp.returncode == 0 and cp.stdout.strip().endswith("ok"), cp.stderr


def test_burstlab_help_entry_point() -> None:
    exe = Path(sys.executable).with_name("burstlab")
    if not exe.exists():
        pytest.skip("the burstlab script is not installed beside this interpreter")
    cp = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=False)
    assert cp.returncode == 0 and "reproduce" in cp.stdout


def test_lazy_names_are_the_real_objects() -> None:
    from burstlab.api import Result, run
    from burstlab.sweep import SweepResult, sweep

    assert burstlab.run is run and burstlab.Result is Result
    assert burstlab.sweep is sweep and burstlab.SweepResult is SweepResult
    with pytest.raises(AttributeError):
        burstlab.no_such_name  # noqa: B018


def test_result_and_sweep_render_as_html() -> None:
    sc = two_host_cbr()
    res = burstlab.run(sc, seed=2)
    h = res._repr_html_()
    assert "<table" in h and "goodput_segps" in h and "seed 2" in h
    sw = burstlab.sweep(sc, {"flow.0.rate": "1Mb/s,2Mb/s"}, executor="serial",
                        progress=False)
    h = sw._repr_html_()
    assert "<table" in h and "goodput_segps_mean" in h and "2 points" in h
