"""The references are complete (issue 55, item 1): every scenario key has a description,
its type in words and its effective default; every output table's every column is in the
output reference with its unit. The pages are generated (docs/_ext/burstlab_docs.py);
these tests fail when a key or a column is left out."""

from __future__ import annotations

import copy
import importlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import burstlab

ROOT = Path(__file__).resolve().parents[1]


def docs() -> Any:
    ext = str(ROOT / "docs" / "_ext")
    if ext not in sys.path:
        sys.path.insert(0, ext)
    return importlib.import_module("burstlab_docs")


@pytest.fixture(scope="module")
def keys() -> list[Any]:
    return list(docs().scenario_keys())


def test_every_key_has_a_description(keys: list[Any]) -> None:
    empty = [k.path for k in keys if not k.doc.strip()]
    assert not empty, f"{len(empty)} keys without a description: {empty}"


def test_every_key_has_its_effective_default(keys: list[Any]) -> None:
    d = docs()
    unset = [k.path for k in keys if k.default in ("", "unset")]
    assert not unset, f"{len(unset)} keys whose default reads 'unset': {unset}"
    for k in keys:  # a default the text states is the one shown (a profile's TCP
        # default, "x (ns2), y (rfc)", includes it)
        stated = d.stated_default(k.doc)
        if stated is not None and k.rust_type.startswith("Option<"):
            assert stated.replace("`", "") in k.default.replace("`", ""), (k.path, stated)
    by = {k.path: k for k in keys}
    assert by["obs.contention.max_deflections"].default == "1"  # "(default 1)" in its text
    assert by["obs.bcp_processing"].default == "10 us"
    assert by["sim.max_memory"].default == "4 GiB"
    assert by["obs.contention.fdl_capacity"].default == "one"  # the enum's #[default]
    assert by["fibre[].delay"].default == "none: give it or `length_km`"
    assert by["obs.assembly.tb"].default == "none: required for `timer`"
    assert by["flow[].name"].default == "`flow<i>`, `i` its index"


def test_stated_default_reads_the_forms_the_descriptions_use() -> None:
    sd = docs().stated_default
    assert sd("How often one burst may be deflected on its way (default 1).") == "1"
    assert sd("Drop-tail limit (default: no limit)") == "no limit"
    assert sd("Loss of `b` → `a` (overrides `loss`; default: `loss`).") == "`loss`"
    assert sd("Class (index into `obs.class`, default 0): under …") == "0"
    assert sd("Which path. Default `first`.") == "`first`"
    assert sd("Switch set-up time.") is None


def test_types_are_in_words(keys: list[Any]) -> None:
    page = docs().scenario_reference()
    assert not re.search(r"list of tables \(`(Dur|Rate|Size|f64|u32|u64|String)`\)", page)
    row = next(ln for ln in page.splitlines() if ln.startswith("| `obs.contention.fdl` "))
    assert "list of durations" in row
    for k in keys:  # a quantity's row says its unit
        if k.rust_type.removeprefix("Option<").removesuffix(">") in ("Dur", "Rate", "Size"):
            assert k.unit, k.path


def _traced(spec: dict[str, Any]) -> dict[str, Any]:
    sc = copy.deepcopy(spec)
    sim = sc.setdefault("sim", {})
    sim["duration"], sim["warmup"] = 0.5, 0
    sim["trace"] = {"cwnd": True, "packets": True, "bursts": True, "cc": True,
                    "goodput": 0.1}
    return sc


def test_the_output_reference_lists_every_column_with_its_unit(monkeypatch) -> None:
    # The examples' Python assemblers (examples/python_*.py) are found beside their
    # files; a scenario given as a dict looks on sys.path.
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    d = docs()
    page = d.output_reference()
    sections = dict(re.findall(r"## `(\w+)`\n\n(.*?)(?=\n## |\Z)", page, re.S))
    # Through the loader, which resolves a `[network] file` beside its scenario file.
    specs = [burstlab.load_scenario(p) for p in sorted((ROOT / "examples").glob("*.toml"))]
    from burstlab.topologies import yu_path

    specs.append(yu_path(tb="1ms", p=0.01))
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        res = burstlab.run(_traced(spec), progress=False)
        for table in res.tables:
            assert table in sections, f"table {table!r} is not in the output reference"
            for col in res.table(table).columns:
                seen.add((table, str(col)))
                row = re.search(rf"^\| `{re.escape(str(col))}` \| ([^|]+) \|",
                                sections[table], re.M)
                assert row, f"{table}.{col} is not in the output reference"
                assert row.group(1).strip(), f"{table}.{col} has no unit cell"
    assert len(seen) > 150
    assert d.column_unit("fct_s") == "s" and d.column_unit("goodput_bps") == "bit/s"
    assert d.column_unit("burst_loss_prob") == "probability"
    assert d.column_unit("td_events") == d.UNITLESS
