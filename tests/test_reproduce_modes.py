"""Quick mode against the committed full-mode records (burstlab.reproduce.modes): a quick
run shows each claim's full-mode verdict beside its own and ``not comparable (quick)``
where they differ; every committed record is well-formed and its counts match its
claims.csv."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from burstlab.reproduce import modes, paper_names
from burstlab.reproduce.framework import (
    CLAIM_COLUMNS,
    Claim,
    Context,
    Paper,
    reproduce,
    verdict_counts,
)
from burstlab.reproduce.modes import (
    NO_RECORD,
    QUICK_NOT_COMPARABLE,
    check_record,
    load_record,
    records_table,
)
from burstlab.reproduce.site import write_site

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass(frozen=True)
class ToyMode:
    name: str
    draws: int
    sizes: tuple[int, ...] = (1, 2)


def _toy(tmp_path: Path) -> Paper:
    """A paper without simulations whose claim ``b`` is judged differently with fewer
    draws; ``a`` is judged alike in both modes."""
    data = tmp_path / "paper.toml"
    data.write_text('[paper]\nname = "toy"\n', encoding="utf-8")
    paper = Paper(name="toy", title="toy", data_file=data,
                  modes={"quick": ToyMode("quick", 2), "full": ToyMode("full", 10),
                         "smoke": ToyMode("smoke", 1)},
                  stamp=lambda ctx: {"mode": ctx.mode.name})

    @paper.claim
    def claims(ctx: Context) -> list[Claim]:
        d = ctx.mode.draws
        return [Claim(id="a", source="-", statement="-", paper_value="1",
                      burstlab_value="1.0", verdict="reproduces", note="same"),
                Claim(id="b", source="-", statement="-", paper_value="2",
                      burstlab_value=f"{2 + 1 / d:.2f}", ci=f"[{2 - 4 / d:.1f}, 3]",
                      verdict="reproduces" if d >= 10 else "not comparable",
                      note="wide with few draws")]

    return paper


def _record(root: Path, paper: str, rows: list[dict[str, str]], **run: object) -> Path:
    d = root / paper / modes.RECORD_DIR
    d.mkdir(parents=True)
    pd.DataFrame(rows, columns=list(CLAIM_COLUMNS)).to_csv(d / "claims.csv", index=False)
    doc = {"paper": paper, "commit": COMMIT, "command": "burstlab reproduce toy",
           "wall_s": 7200.0, "cpu_s": 13000.0,
           "machine": {"cpus": 2, "processor": "toy"}, "when": "2026-11-26 19:00 UTC",
           "load_note": "shared with 0 other jobs",
           "counts": verdict_counts(r["verdict"] for r in rows)}
    doc.update(run)
    (d / "run.json").write_text(json.dumps(doc), encoding="utf-8")
    return d


def _full_rows(tmp_path: Path) -> list[dict[str, str]]:
    paper = _toy(tmp_path)
    out = reproduce(paper, tmp_path / "full", mode="full", jobs=1, progress=False,
                    log=lambda s: None)
    assert all(c.full == "" and c.quick_note == "" for c in out.claims)  # full: own verdicts
    return pd.read_csv(tmp_path / "full" / "toy" / "claims.csv", dtype=str,
                       keep_default_na=False).to_dict("records")


def test_quick_shows_full_verdicts_and_marks_disagreement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "records"
    _record(root, "toy", _full_rows(tmp_path))
    monkeypatch.setattr(modes, "records_root", lambda: root)
    paper = _toy(tmp_path)
    out = reproduce(paper, tmp_path / "q", mode="quick", jobs=1, progress=False,
                    log=lambda s: None)
    by = {c.id: c for c in out.claims}
    assert (by["a"].full, by["a"].shown, by["a"].quick_note) == ("reproduces", "reproduces", "")
    b = by["b"]
    assert b.verdict == "not comparable" and b.full == "reproduces"
    assert b.shown == QUICK_NOT_COMPARABLE
    # the reason is computed from both runs and from what quick reduced
    for part in ("draws 2 (full 10)", "2.50 [0.0, 3]", "2.10 [1.6, 3]", COMMIT[:10],
                 "gives not comparable", "gives reproduces"):
        assert part in b.quick_note, (part, b.quick_note)
    assert "sizes" not in b.quick_note  # unchanged fields are not listed
    d = tmp_path / "q" / "toy"
    # claims.csv keeps quick's own verdicts; the comparison has its own table
    raw = pd.read_csv(d / "claims.csv", keep_default_na=False)
    assert list(raw["verdict"]) == ["reproduces", "not comparable"]
    qf = pd.read_csv(d / "quick_vs_full.csv", keep_default_na=False).set_index("claim_id")
    assert qf.loc["b", "shown"] == QUICK_NOT_COMPARABLE and qf.loc["a", "reason"] == ""
    md = (d / "report.md").read_text(encoding="utf-8")
    assert "| full mode |" in md and f"**{QUICK_NOT_COMPARABLE}**" in md
    index = write_site(tmp_path / "q", [out]).read_text(encoding="utf-8")
    assert QUICK_NOT_COMPARABLE in index and "2 reproduces" in index


def test_missing_record_is_said_not_failed(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modes, "records_root", lambda: tmp_path / "none")
    out = reproduce(_toy(tmp_path), tmp_path / "q", mode="quick", jobs=1, progress=False,
                    log=lambda s: None)
    assert all(c.full == NO_RECORD and c.shown == c.verdict for c in out.claims)
    assert NO_RECORD in (tmp_path / "q" / "toy" / "report.md").read_text(encoding="utf-8")
    t = records_table(["toy"], root=tmp_path / "none")
    assert t.iloc[0]["full-mode wall time"] == NO_RECORD


def test_records_table_and_checks(tmp_path: Path) -> None:
    rows = _full_rows(tmp_path)
    _record(tmp_path / "r", "toy", rows)
    rec = load_record("toy", tmp_path / "r")
    assert rec is not None and check_record(rec) == []
    t = records_table(["toy"], root=tmp_path / "r").iloc[0]
    assert (t["full-mode wall time"], t["CPU time"], t["reproduces"]) == \
        ("2.00 h", "3.61 h", "2")
    # counts that do not match claims.csv, a short commit, a missing key
    _record(tmp_path / "bad", "toy", rows, counts={"reproduces": 1, "same direction": 0,
                                                    "differs": 0, "not comparable": 0},
            commit="abc", wall_s=-1)
    bad = load_record("toy", tmp_path / "bad")
    assert bad is not None
    problems = " ".join(check_record(bad))
    assert "do not match" in problems and "40 hex" in problems and "wall_s" in problems


def test_modes_cli_prints_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert modes.main(["--records"]) == 0
    text = capsys.readouterr().out
    for name in paper_names():
        assert f"| {name} |" in text
    assert modes.main([]) == 2


@pytest.mark.parametrize("name", paper_names())
def test_committed_full_mode_record_is_well_formed(name: str) -> None:
    rec = load_record(name)
    if rec is None:
        pytest.skip(f"{name} has no full-mode record yet ({NO_RECORD})")
    assert check_record(rec) == []
    # a committed record is of the paper's own claims (every full-mode claim id)
    assert rec.run["paper"] == name


def test_an_incomplete_record_shows_its_estimated_cost(tmp_path: Path) -> None:
    """A run.json without claims.csv (the full mode stopped, its cost measured) is no
    verdict source, but the records table shows its estimate instead of 'no record'."""
    d = tmp_path / "r" / "toy" / "full_mode"
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"paper": "toy", "commit": "a" * 40,
                                            "complete": False, "when": "today",
                                            "extrapolated": {"cpu_h": 2.5}}))
    assert load_record("toy", tmp_path / "r") is None
    row = records_table(["toy"], root=tmp_path / "r").iloc[0]
    assert row["complete"] == "no" and row["CPU time"] == "≈ 2.50 h (estimate)"
    assert row["reproduces"] == ""
    (d / "run.json").write_text(json.dumps({"paper": "toy", "complete": False}))
    assert records_table(["toy"], root=tmp_path / "r").iloc[0]["full-mode wall time"] \
        == "no full-mode record"
