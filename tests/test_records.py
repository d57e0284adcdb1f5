"""Records proven current (burstlab.reproduce.records): the core's identity in the store
key, each full-mode record's sample re-run bit for bit, and a record whose sample
differs shown stale."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from burstlab import _core
from burstlab.reproduce import load, modes, paper_names, records
from burstlab.reproduce.framework import Claim
from burstlab.reproduce.modes import STALE_RECORD, against_full, load_record, records_table
from burstlab.reproduce.records import (
    CURRENT,
    NO_SAMPLE,
    STALE,
    UNCHECKED,
    changed_columns,
    check_sample,
    load_sample,
    record_status,
    resolved,
    result_digest,
    table_digests,
)
from burstlab.sweep import NotStored, canonical_json, run_key, sweep_points

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "crates" / "burstlab-core"

TINY = {"name": "tiny", "sim": {"duration": "2s", "seed": 7, "replication": 3,
                                "trace": {"cwnd": True}},
        "node": [{"name": "a", "kind": "host"}, {"name": "r"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "r", "rate": "10Mb/s", "delay": "5ms"},
                 {"a": "r", "b": "b", "rate": "10Mb/s", "delay": "5ms", "loss_ab": 0.01}],
        "flow": [{"type": "tcp", "src": "a", "dst": "b", "variant": "reno"}]}


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test checks afresh: its own cache of check outcomes."""
    monkeypatch.setenv("BURSTLAB_RECORDS_CACHE", str(tmp_path / "cache"))


# ---------------------------------------------------------------------------------------
# The core's identity.


def _identity_of_tree() -> str:
    """crates/burstlab-core/build.rs's identity, computed again here from the tree: the
    files under src/ but src/bin, Cargo.toml, the Cargo.lock entries of the dependency
    closure, each as length-prefixed name and bytes, SHA-256, 16 hex digits."""
    buf = bytearray()

    def item(name: bytes, data: bytes) -> None:
        for part in (name, data):
            buf.extend(len(part).to_bytes(8, "little"))
            buf.extend(part)

    files = sorted(p.relative_to(CORE).as_posix() for p in (CORE / "src").rglob("*")
                   if p.is_file() and not p.relative_to(CORE).as_posix().startswith("src/bin/"))
    for rel in files:
        item(rel.encode(), (CORE / rel).read_bytes())
    manifest = (CORE / "Cargo.toml").read_bytes()
    item(b"Cargo.toml", manifest)
    lock = tomllib.loads((ROOT / "Cargo.lock").read_text(encoding="utf-8"))
    pkgs: dict[str, list[dict[str, object]]] = {}
    for p in lock["package"]:
        pkgs.setdefault(p["name"], []).append(p)
    todo = list(tomllib.loads(manifest.decode())["dependencies"])
    seen: set[str] = set()
    while todo:
        name, *rest = todo.pop().split()
        got = [p for p in pkgs[name] if not rest or p["version"] == rest[0]]
        assert len(got) == 1 or rest
        for p in got:
            line = f"{name} {p['version']} {p.get('source', '')} {p.get('checksum', '')}"
            if line not in seen:
                seen.add(line)
                todo += list(p.get("dependencies", []))  # type: ignore[call-overload]
    item(b"Cargo.lock entries", "\n".join(sorted(seen)).encode())
    return hashlib.sha256(bytes(buf)).hexdigest()[:16]


def test_the_installed_core_is_the_one_this_tree_builds() -> None:
    """The identity build.rs compiles in equals the same hash computed from the source
    tree: the installed module is not a stale build (whose samples would prove nothing)."""
    got = _core.core_identity()
    assert len(got) == 16 and all(c in "0123456789abcdef" for c in got)
    assert got == _identity_of_tree(), (
        f"the installed core's identity {got} is not this tree's {_identity_of_tree()}: "
        "rebuild the native module (maturin develop --release)")


def test_the_store_key_holds_the_core_identity(tmp_path: Path) -> None:
    sc = {"flow": [], "sim": {"duration": "1s"}}
    assert run_key(sc, 1, 0, "0.1.0", "a" * 16) != run_key(sc, 1, 0, "0.1.0", "b" * 16)
    assert run_key(sc, 1, 0, "0.1.0", "a" * 16) != run_key(sc, 1, 0, "0.1.0")
    sw = sweep_points([({"x": 1}, TINY)], store=tmp_path / "s.sqlite", executor="serial",
                      progress=False)
    spec, seed = resolved(TINY, keep_traces=False)
    assert seed == 7
    assert sw.runs["key"].tolist() == [run_key(spec, 7, 0, _core.__version__,
                                               _core.core_identity())]


def test_sample_scenarios_are_what_the_sweep_passes_to_the_core(tmp_path: Path) -> None:
    """records.resolved gives the scenario whose key the sweep stores, with and without
    kept traces (the sample's scenario is the sweep's, so its digest is the stored run's)."""
    for keep in (False, True):
        sw = sweep_points([({"x": 1}, TINY)], replications=2, store=None,
                          executor="serial", progress=False, keep_traces=keep)
        spec, seed = resolved(TINY, keep_traces=keep)
        assert ("trace" in spec["sim"]) is keep
        assert "seed" not in spec["sim"] and "replication" not in spec["sim"]
        want = [run_key(spec, seed, r, _core.__version__, _core.core_identity())
                for r in (0, 1)]
        assert sorted(sw.runs["key"]) == sorted(want)


def test_rows_stored_without_the_identity_are_never_reused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store written before keys held the core's identity: its rows stay, are not
    reused, and both a stored-only judgement and a sweep say why."""
    db = tmp_path / "old.sqlite"
    sweep_points([({"x": 1}, TINY)], store=db, executor="serial", progress=False)
    spec, seed = resolved(TINY, keep_traces=False)
    old = run_key(spec, seed, 0, _core.__version__)
    with sqlite3.connect(db) as c:
        assert c.execute("UPDATE runs SET key = ?", (old,)).rowcount == 1
    with pytest.raises(NotStored) as e:
        sweep_points([({"x": 1}, TINY)], store=db, executor="serial", progress=False,
                     stored_only=True)
    assert e.value.legacy == 1 and e.value.stored == 0
    assert "old key" in str(e.value) and _core.core_identity() in str(e.value)
    sw = sweep_points([({"x": 1}, TINY)], store=db, executor="serial", progress=False)
    assert sw.stats["ran"] == 1
    assert "1 of these runs is stored under the old key" in capsys.readouterr().err
    with sqlite3.connect(db) as c:  # the old row is kept beside the new one
        assert c.execute("SELECT count(*) FROM runs").fetchone()[0] == 2


# ---------------------------------------------------------------------------------------
# Digests.


def test_one_ulp_anywhere_changes_the_digest() -> None:
    raw = _core.run(canonical_json(resolved(TINY, False)[0]), "json", 7, 0)
    d = result_digest(raw)
    assert d == result_digest(_core.run(canonical_json(resolved(TINY, False)[0]), "json",
                                        7, 0))
    flows = json.loads(raw["flows"])
    k = next(k for k, v in flows[0].items() if isinstance(v, float) and v > 0)
    flows[0][k] = math.nextafter(flows[0][k], math.inf)
    assert result_digest({**raw, "flows": json.dumps(flows)}) != d
    assert result_digest({**raw, "meta": {**raw["meta"], "events": 1}}) != d
    # the package version alone is not a number of the run, nor the tables' order, nor
    # a table without rows; a table with rows is
    assert result_digest({**raw, "meta": {**raw["meta"], "version": "9"}}) == d
    assert result_digest({**raw, "tables": list(reversed(raw["tables"]))}) == d
    assert result_digest({**raw, "tables": [*raw["tables"], "x", "y"], "x": "[]",
                          "y": {"a": [], "b": []}}) == d
    assert result_digest({**raw, "tables": [*raw["tables"], "x"], "x": "[{}]"}) != d
    assert result_digest({**raw, "tables": raw["tables"][1:]}) != d


def test_a_core_that_only_adds_columns_or_tables_leaves_the_record_current() -> None:
    raw = _core.run(canonical_json(resolved(TINY, False)[0]), "json", 7, 0)
    rec = table_digests(raw)
    flows = json.loads(raw["flows"])
    wider = [{**row, "new_column_s": 1.5} for row in flows]
    added = {**raw, "flows": json.dumps(wider), "tables": [*raw["tables"], "a_new_table"],
             "a_new_table": json.dumps([{"flow": 0, "path": "a r b"}])}
    assert changed_columns(rec, table_digests(added)) == []
    k = next(k for k, v in flows[0].items() if isinstance(v, float) and v > 0)
    moved = [{**row, k: math.nextafter(row[k], math.inf)} for row in wider]
    assert changed_columns(rec, table_digests({**added, "flows": json.dumps(moved)})) == [
        f"flows.{k}"]
    gone = [{c: v for c, v in row.items() if c != k} for row in flows]
    assert changed_columns(rec, table_digests({**raw, "flows": json.dumps(gone)})) == [
        f"flows.{k}"]
    longer = {**raw, "flows": json.dumps([*flows, flows[0]])}
    assert "flows.#rows" in changed_columns(rec, table_digests(longer))


# ---------------------------------------------------------------------------------------
# The committed samples.

RECORDED = [n for n in paper_names() if load_record(n) is not None]


@pytest.mark.parametrize("name", RECORDED)
def test_every_record_has_a_sample_of_its_own_runs(name: str) -> None:
    doc = load_sample(name)
    assert doc is not None, f"{name}'s full-mode record has no {records.SAMPLE_FILE}"
    assert doc["paper"] == name and 3 <= len(doc["runs"]) <= records.MAX_RUNS
    assert len({r["experiment"] for r in doc["runs"]}) >= 2
    rec = load_record(name)
    assert rec is not None and doc["record_commit"] == rec.run["commit"]


@pytest.mark.parametrize("name", RECORDED)
def test_every_record_sample_reruns_bit_for_bit(name: str) -> None:
    """The runs behind each committed record are the runs this core makes: every sample
    run gives its recorded digest (a failure names the paper, the run, both digests)."""
    c = check_sample(name)
    assert c.status == CURRENT, "\n".join(c.failures)


def _stale_copy(tmp_path: Path, name: str = "sodhatar") -> Path:
    """A copy of ``name``'s record whose sample holds its first run with one digit of
    its digest changed."""
    src = modes.records_root() / name / modes.RECORD_DIR
    dst = tmp_path / "r" / name / modes.RECORD_DIR
    shutil.copytree(src, dst)
    doc = json.loads((dst / records.SAMPLE_FILE).read_text(encoding="utf-8"))
    run = doc["runs"][0]
    run["digest"] = ("0" if run["digest"][0] != "0" else "1") + run["digest"][1:]
    doc["runs"] = [run]
    (dst / records.SAMPLE_FILE).write_text(json.dumps(doc), encoding="utf-8")
    return tmp_path / "r"


def test_a_wrong_digest_makes_the_record_stale(tmp_path: Path) -> None:
    root = _stale_copy(tmp_path)
    c = check_sample("sodhatar", root)
    assert c.status == STALE and len(c.failures) == 1
    doc = load_sample("sodhatar", root)
    assert doc is not None
    f = c.failures[0]
    assert f.startswith("sodhatar: ") and doc["runs"][0]["digest"] in f
    assert f"point {doc['runs'][0]['point']}" in f
    # the records table and a quick page say stale, never the record's verdicts
    row = records_table(["sodhatar"], root=root).iloc[0]
    assert row["sample"].startswith("stale: 1 of 1")
    rec = load_record("sodhatar", root)
    assert rec is not None
    claims = [Claim(id=r.claim_id, source="-", statement="-", paper_value="-",
                    burstlab_value="-", verdict=r.verdict, note="-")
              for r in rec.claims.itertuples(index=False)]
    shown = against_full(load("sodhatar"), claims, "quick", root)
    assert {c.full for c in shown} == {STALE_RECORD}
    assert all(c.shown == c.verdict for c in shown)


def test_the_status_is_cached_per_core_and_sample(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = _stale_copy(tmp_path)
    assert record_status("sodhatar", root, run=False).status == UNCHECKED
    first = record_status("sodhatar", root)
    assert first.status == STALE and not first.cached
    again = record_status("sodhatar", root, run=False)
    assert again.status == STALE and again.cached and again.failures == first.failures
    # another core is checked again, not given this core's outcome
    monkeypatch.setattr(_core, "core_identity", lambda: "f" * 16)
    assert record_status("sodhatar", root, run=False).status == UNCHECKED
    # an edited sample too
    monkeypatch.undo()
    p = root / "sodhatar" / modes.RECORD_DIR / records.SAMPLE_FILE
    p.write_text(p.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert record_status("sodhatar", root, run=False).status == UNCHECKED
    assert record_status("nopaper", root).status == NO_SAMPLE


def test_a_damaged_sample_is_stale_with_its_reason(tmp_path: Path) -> None:
    root = _stale_copy(tmp_path)
    p = root / "sodhatar" / modes.RECORD_DIR / records.SAMPLE_FILE
    doc = json.loads(p.read_text(encoding="utf-8"))
    del doc["runs"][0]["seed"]
    p.write_text(json.dumps(doc), encoding="utf-8")
    c = record_status("sodhatar", root)
    assert c.status == STALE and "runs[0].seed" in c.failures[0]


def test_records_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert records.main(["--check", "nopaper"]) == 2
    assert "unknown paper 'nopaper'" in capsys.readouterr().err
    assert records.main(["--check", "sodhatar"]) == 0
    assert "sodhatar: current (" in capsys.readouterr().out
    # modes --records shows the status (here from the check just cached)
    assert modes.main(["--records", "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "| sample |" in out.splitlines()[0]
    line = next(ln for ln in out.splitlines() if ln.startswith("| sodhatar |"))
    assert "current (" in line


def test_the_records_table_has_a_sample_column() -> None:
    t = records_table(check=False)
    assert "sample" in t.columns
    assert isinstance(t, pd.DataFrame) and set(t["paper"]) == set(paper_names())
