"""Every error bar burstlab draws stays inside its quantity's range (issue: no interval
in any figure lies outside the quantity's range). Figures cut their 95 % intervals with
:func:`burstlab.plot.error_bars`; this test finds every ``yerr=`` in the package and
checks that its value comes from that function (directly, through a variable assigned
from it, or through a module helper that returns it)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from burstlab.plot import error_bars

PKG = Path(__file__).resolve().parents[1] / "python" / "burstlab"

#: yerr values that are not burstlab intervals: (file, source of the value, why).
NOT_INTERVALS = {
    ("reproduce/papers/zhou/figures.py", "[at[OPT_US] * prec]"):
        "the paper's printed drop with its reading precision, around the paper's value",
    ("reproduce/papers/hybrid/figures.py", "[float(v.precision or 0.0) / 1000000000.0]"):
        "the paper's printed ideal aggregate with its rounding precision",
}


def _calls_error_bars(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "error_bars" for n in ast.walk(node))


def _cut(value: ast.AST, helpers: set[str]) -> bool:
    """The value calls error_bars, or a module function that does."""
    return _calls_error_bars(value) or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers
        for n in ast.walk(value))


def _yerr_sites() -> list[tuple[str, str, bool]]:
    out = []
    for path in sorted(PKG.rglob("*.py")):
        rel = str(path.relative_to(PKG))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        helpers = {f.name for f in ast.walk(tree)
                   if isinstance(f, ast.FunctionDef) and _calls_error_bars(f)}
        for fn in (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)):
            assigned: dict[str, list[ast.AST]] = {}
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        if isinstance(t, ast.Name):
                            assigned.setdefault(t.id, []).append(n.value)
            for call in (c for c in ast.walk(fn) if isinstance(c, ast.Call)):
                for kw in call.keywords:
                    if kw.arg != "yerr":
                        continue
                    v = kw.value
                    values = assigned.get(v.id, []) if isinstance(v, ast.Name) else [v]

                    ok = bool(values) and all(_cut(x, helpers) for x in values)
                    out.append((rel, ast.unparse(v), ok))
    return out


def test_every_error_bar_is_cut_to_its_range() -> None:
    sites = _yerr_sites()
    assert len(sites) >= 10, sites  # the papers' figures draw error bars
    bad = [(f, src) for f, src, ok in sites if not ok and (f, src) not in NOT_INTERVALS]
    assert not bad, f"error bars not cut by burstlab.plot.error_bars: {bad}"


def test_error_bars_cut_at_the_range() -> None:
    err = error_bars([0.5, 0.9, 3.0], [-0.2, 0.7, 1.0], [0.8, 1.3, 5.0], lower=0, upper=1)
    # below the mean: 0.5 - 0, 0.9 - 0.7, 3 - 1 (a mean outside the range keeps its bar)
    assert np.allclose(err[0], [0.5, 0.2, 2.0])
    # above: 0.8 - 0.5, 1 - 0.9, and nothing above a mean beyond the upper bound
    assert np.allclose(err[1], [0.3, 0.1, 0.0])
    assert np.allclose(error_bars([1.0], [np.nan], [np.nan]), 0.0)  # no interval, no bar
