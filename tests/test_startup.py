"""Start-up cost and notebook display: ``import burstlab`` and ``burstlab --help`` do not
import pandas or matplotlib; results render as HTML in Jupyter."""

from __future__ import annotations

import inspect
import json
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
    assert burstlab.sweep.sweep is sweep and burstlab.SweepResult is SweepResult
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


def test_a_small_run_writes_its_results_without_heavy_modules(tmp_path: Path) -> None:
    """`burstlab run SCENARIO --out DIR --format csv` prints its summary and writes every
    CSV without importing numpy, pandas or matplotlib (what made a small run take most of
    a second). The default format, Parquet, needs pyarrow, which imports numpy and pandas."""
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps(two_host_cbr()))
    code = (f"import burstlab.cli as c\nrc = c.main(['run', {str(sc)!r}, '--out', "
            f"{str(tmp_path / 'o')!r}, '--format', 'csv'])\nassert rc == 0, rc\n")
    check = "\nimport sys\nbad = [m for m in " + repr((*HEAVY, "numpy")) + \
            " if m in sys.modules]\nassert not bad, bad\nprint('ok')"
    cp = subprocess.run([sys.executable, "-c", code + check], capture_output=True, text=True,
                        check=False)
    assert cp.returncode == 0 and cp.stdout.strip().endswith("ok"), cp.stderr
    assert (tmp_path / "o" / "flows.csv").is_file() and (tmp_path / "o" / "links.csv").is_file()


def test_result_tables_are_the_cores_list() -> None:
    """The tables are listed once, in the core: a Result exposes exactly those (the two
    traces under their short names), and its type annotations name the same ones."""
    from burstlab.api import _ATTR_OF, Result

    res = burstlab.run(two_host_cbr())
    assert res.tables[:4] == ("flows", "links", "cwnd_trace", "packet_trace")
    attrs = {_ATTR_OF.get(t, t) for t in res.tables}
    # The annotations for type checkers sit under TYPE_CHECKING: read them from the source.
    src = Path(inspect.getsourcefile(Result) or "").read_text(encoding="utf-8")
    block = src.split("if TYPE_CHECKING:  # the tables", 1)[1].split("def __init__", 1)[0]
    declared = {ln.split(":")[0].strip() for ln in block.splitlines()[1:] if ":" in ln}
    assert declared == attrs, (declared ^ attrs)
    for a in attrs:
        assert getattr(res, a).__class__.__name__ == "DataFrame"
    assert len(res.flows) == 1 and res.cwnd.empty
    with pytest.raises(AttributeError):
        res.no_such_table  # noqa: B018
