"""Quick mode against full mode: every claim's verdict in both, side by side.

Read first: :func:`load_record` (a paper's committed full-mode record), then
:func:`against_full` (what a quick run shows beside it), :func:`records_table` and
:func:`compare`. Quick mode may run fewer points and replications than full mode, never
shorter-than-settled runs; where its verdict still differs from full mode's, quick shows
``not comparable (quick)``: a quick verdict a reader may cite is one full mode confirms.

**Full-mode record.** Each paper commits the outcome of one full run beside its code,
``papers/<paper>/full_mode/``: ``claims.csv`` (that run's, verbatim) and ``run.json``
(:data:`RUN_KEYS`: the commit that ran, the command, wall and CPU seconds, the machine,
when, the load, the verdict counts; ``"complete": false`` with per-experiment costs when
the full mode could not finish). A quick run (``burstlab reproduce NAME --quick``) reads
it: every claim's report row and the site index show the full-mode verdict beside
quick's (``no full-mode record`` when the paper has none), and quick's own verdicts are
written with full mode's to ``OUT/<paper>/quick_vs_full.csv``.

**Records proven current.** A record's runs were made at an older commit and are not in
the repository; ``full_mode/sample.json`` holds a few of them with the digest of their
results (:mod:`burstlab.reproduce.records`). Before a record's verdicts are shown, its
sample is re-run with the installed core (or the outcome of an earlier check with the
same core identity is read): a record whose sample differs is **stale**, and its verdicts
are not shown as full mode's (:data:`STALE_RECORD`); ``--records`` shows each record's
sample status in its ``sample`` column.

    python -m burstlab.reproduce.modes --records [--no-check]
    python -m burstlab.reproduce.modes --agreement OUT_QUICK
    python -m burstlab.reproduce.modes OUT_QUICK OUT_FULL [--csv FILE]

``--records`` prints every paper's full-mode wall time, CPU time, commit and verdict
counts (the README's table); ``--agreement`` the quick/full agreement per paper of a
quick output root against the records; the two roots form reads ``claims.csv`` of every
paper present in both output roots (``OUT/<paper>/``), prints the agreement per paper
and writes the table.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

# Re-exported: what quick mode shows where full mode's verdict differs.
from burstlab.reproduce.claim import QUICK_NOT_COMPARABLE as QUICK_NOT_COMPARABLE

if TYPE_CHECKING:
    from burstlab.reproduce.claim import Claim
    from burstlab.reproduce.paper import Paper


def _claims(root: Path) -> pd.DataFrame:
    frames = []
    for p in sorted(root.glob("*/claims.csv")):
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
        if "paper" not in df.columns:
            df["paper"] = p.parent.name
        frames.append(df[["paper", "claim_id", "verdict", "burstlab_value"]])
    if not frames:
        raise FileNotFoundError(f"{root}: no <paper>/claims.csv below it")
    return pd.concat(frames, ignore_index=True)


def compare(quick: str | Path, full: str | Path) -> pd.DataFrame:
    """One row per claim of the papers in both roots: ``verdict_quick``,
    ``verdict_full``, ``agree``, and ``quick_shown`` (quick's verdict where full mode
    agrees, :data:`QUICK_NOT_COMPARABLE` where not). A claim in one mode only is listed
    with an empty verdict on the other side (``agree`` False)."""
    q, f = _claims(Path(quick)), _claims(Path(full))
    both = set(q["paper"]) & set(f["paper"])
    q, f = q[q["paper"].isin(both)], f[f["paper"].isin(both)]
    m = q.merge(f, on=["paper", "claim_id"], how="outer", suffixes=("_quick", "_full"))
    m = m.fillna("")
    m["agree"] = m["verdict_quick"] == m["verdict_full"]
    m["quick_shown"] = [vq if a else QUICK_NOT_COMPARABLE
                        for vq, a in zip(m["verdict_quick"], m["agree"], strict=True)]
    return m.sort_values(["paper", "claim_id"]).reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# The committed full-mode records.

#: The folder of a paper's full-mode record, beside its code.
RECORD_DIR = "full_mode"

#: Keys every ``run.json`` of a full-mode record holds.
RUN_KEYS = ("paper", "commit", "command", "wall_s", "cpu_s", "machine", "when", "load_note",
            "counts")

#: What the full-mode column says for a paper without a record.
NO_RECORD = "no full-mode record"

#: What it says for a claim the record lacks (a claim added after the full run).
NOT_IN_RECORD = "not in the full-mode record"

#: What it says for every claim of a record whose sample no longer re-runs bit for bit:
#: its verdicts describe runs this code does not make.
STALE_RECORD = ("stale full-mode record (its sample runs differ with this core: "
                "python -m burstlab.reproduce.records --check)")


def records_root() -> Path:
    """The folder holding one package per paper (``burstlab/reproduce/papers``)."""
    import burstlab.reproduce.papers as pkg

    return Path(pkg.__file__).parent


@dataclass(frozen=True)
class FullRecord:
    """A paper's committed full-mode record.

    Attributes:
        paper: the paper's name.
        claims: its ``claims.csv`` (every column text).
        run: its ``run.json``.
        path: its folder.
    """

    paper: str
    claims: pd.DataFrame
    run: dict[str, Any]
    path: Path

    @property
    def commit(self) -> str:
        return str(self.run.get("commit", ""))[:10]

    @property
    def complete(self) -> bool:
        return bool(self.run.get("complete", True))

    def verdicts(self) -> dict[str, tuple[str, str, str]]:
        """``claim_id -> (verdict, burstlab_value, ci)``, each verdict judged again by the
        present rule from the record's numbers (:mod:`burstlab.reproduce.rejudge`; one it
        cannot decide without its store is ``not comparable``), each id under its
        present name (:data:`burstlab.reproduce.claim.RENAMED`)."""
        from burstlab.reproduce.claim import RENAMED
        from burstlab.reproduce.rejudge import rejudge_claims, shown

        now = {r.claim_id: shown(r) for r in rejudge_claims(self.paper, self.claims)}
        return {RENAMED.get(str(r.claim_id), str(r.claim_id)):
                (now.get(str(r.claim_id), str(r.verdict)), str(r.burstlab_value), str(r.ci))
                for r in self.claims.itertuples(index=False)}


def load_record(paper: str, root: Path | None = None) -> FullRecord | None:
    """The full-mode record of ``paper`` under ``root`` (default :func:`records_root`),
    None when it has none. A record missing one of its two files is None too, so a
    half-committed record never decides a verdict."""
    d = (root or records_root()) / paper / RECORD_DIR
    c, r = d / "claims.csv", d / "run.json"
    if not (c.is_file() and r.is_file()):
        return None
    claims = pd.read_csv(c, dtype=str, keep_default_na=False)
    return FullRecord(paper, claims, json.loads(r.read_text(encoding="utf-8")), d)


def check_record(rec: FullRecord) -> list[str]:
    """What is wrong with a record (empty when it is well-formed): ``run.json`` has
    :data:`RUN_KEYS`, a 40-hex commit, non-negative times, counts over exactly the
    framework's verdicts that match its ``claims.csv``; ``claims.csv`` has the
    framework's columns, one row per claim, verdicts among the framework's."""
    from burstlab.reproduce.claim import CLAIM_COLUMNS, VERDICTS, verdict_counts

    bad = [f"run.json lacks {k!r}" for k in RUN_KEYS if k not in rec.run]
    if rec.run.get("paper") not in (None, rec.paper):
        bad.append(f"run.json names paper {rec.run.get('paper')!r}, not {rec.paper!r}")
    if "commit" in rec.run and not re.fullmatch(r"[0-9a-f]{40}", str(rec.run["commit"])):
        bad.append(f"commit must be 40 hex digits, got {rec.run['commit']!r}")
    for k in ("wall_s", "cpu_s"):
        v = rec.run.get(k)
        if k in rec.run and (isinstance(v, bool) or not isinstance(v, int | float)
                             or not math.isfinite(v) or v < 0):
            bad.append(f"{k} must be a number ≥ 0, got {v!r}")
    if tuple(rec.claims.columns) != CLAIM_COLUMNS:
        bad.append(f"claims.csv columns {list(rec.claims.columns)} are not "
                   f"{list(CLAIM_COLUMNS)}")
        return bad
    if rec.claims["claim_id"].duplicated().any():
        bad.append("claims.csv repeats a claim id")
    if not set(rec.claims["paper"]) <= {rec.paper}:
        bad.append(f"claims.csv names papers {sorted(set(rec.claims['paper']))}")
    odd = sorted(set(rec.claims["verdict"]) - set(VERDICTS))
    if odd:
        bad.append(f"claims.csv has verdicts outside the framework's: {odd}")
    counts = rec.run.get("counts")
    if isinstance(counts, Mapping):
        if set(counts) != set(VERDICTS):
            bad.append(f"counts must have exactly {list(VERDICTS)}, got {sorted(counts)}")
        else:
            want = verdict_counts(rec.claims["verdict"])
            if {k: int(v) for k, v in counts.items()} != want:
                bad.append(f"counts {dict(counts)} do not match claims.csv's {want}")
    return bad


def mode_reductions(paper: Paper, mode: str) -> str:
    """What ``mode`` runs less of than full mode, from the two mode objects' fields
    (``random_draws 40 (full 200)``); empty when they cannot be compared."""
    q, f = paper.modes.get(mode), paper.modes.get("full")

    def fields(m: Any) -> dict[str, Any]:
        if dataclasses.is_dataclass(m) and not isinstance(m, type):
            return {x.name: getattr(m, x.name) for x in dataclasses.fields(m)}
        return dict(vars(m)) if hasattr(m, "__dict__") else {}

    fq, ff = fields(q), fields(f)
    if not fq or not ff:
        return "" if q == f else f"mode {q!r} (full {f!r})"

    def short(v: Any) -> str:
        if isinstance(v, tuple | list) and len(v) > 4:
            return f"{len(v)} values"
        return str(v)

    return ", ".join(f"{k} {short(fq[k])} (full {short(ff[k])})" for k in fq
                     if k in ff and k != "name" and fq[k] != ff[k])


def against_full(paper: Paper, claims: Sequence[Claim], mode: str = "quick",
                 root: Path | None = None) -> list[Claim]:
    """``claims`` of a ``mode`` run with their full-mode verdicts (:attr:`Claim.full`) and,
    where the two differ, the reason quick shows :data:`QUICK_NOT_COMPARABLE`
    (:attr:`Claim.quick_note`), computed from both runs' values and intervals and from
    what ``mode`` reduced. Claims both modes judge alike are left as they are."""
    from burstlab.reproduce.records import STALE, record_status

    rec = load_record(paper.name, root)
    if rec is None:
        return [dataclasses.replace(c, full=NO_RECORD, quick_note="") for c in claims]
    if record_status(paper.name, root).status == STALE:
        return [dataclasses.replace(c, full=STALE_RECORD, quick_note="") for c in claims]
    full = rec.verdicts()
    cut = mode_reductions(paper, mode)
    when = f"commit {rec.commit}, {rec.run.get('when', '?')}" \
        + ("" if rec.complete else ", incomplete run")
    out = []
    for c in claims:
        if c.id not in full:
            out.append(dataclasses.replace(c, full=NOT_IN_RECORD, quick_note=""))
            continue
        vf, val_f, ci_f = full[c.id]
        note = ""
        if vf != c.verdict:
            note = (f"{mode} mode{f' ({cut})' if cut else ''} gives {c.verdict}: "
                    f"{c.burstlab_value} {c.ci}".rstrip()
                    + f"; full mode ({when}) gives {vf}: {val_f} {ci_f}".rstrip())
        out.append(dataclasses.replace(c, full=vf, quick_note=note))
    return out


def write_against_full(paper: str, claims: Sequence[Claim], path: Path) -> Path:
    """``quick_vs_full.csv``: per claim, quick's verdict, full mode's, the verdict shown
    and the reason."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["paper", "claim_id", "verdict_quick", "verdict_full", "shown", "reason"])
        for c in claims:
            w.writerow([paper, c.id, c.verdict, c.full, c.shown, c.quick_note])
    return path


def duration(seconds: float) -> str:
    """``3.3 min`` under an hour, ``2.45 h`` from an hour."""
    return f"{seconds / 60:.1f} min" if seconds < 3600 else f"{seconds / 3600:.2f} h"


def cost_estimate(paper: str, root: Path | None = None) -> tuple[float, str, str] | None:
    """An incomplete record's estimated full-mode CPU seconds (``run.json`` without
    ``claims.csv``: ``extrapolated_total_cpu_s``, or ``extrapolated.cpu_h``), with its
    commit and date; None when there is no such estimate."""
    r = (root or records_root()) / paper / RECORD_DIR / "run.json"
    if not r.is_file():
        return None
    run = json.loads(r.read_text(encoding="utf-8"))
    cpu = run.get("extrapolated_total_cpu_s")
    if cpu is None and isinstance(run.get("extrapolated"), Mapping):
        h = run["extrapolated"].get("cpu_h")
        cpu = None if h is None else 3600.0 * float(h)
    if cpu is None:
        return None
    return float(cpu), str(run.get("commit", ""))[:10], str(run.get("when", ""))


def records_table(names: Sequence[str] | None = None, root: Path | None = None,
                  *, check: bool = True) -> pd.DataFrame:
    """One row per paper: full-mode wall and CPU time, commit, date, complete, the
    verdict counts of its record's validation claims (``no full-mode record`` where it
    has none), its calibration claims counted apart and its extensions (not counted),
    all from :func:`burstlab.reproduce.claim.role_counts` of its ``claims.csv`` judged
    again by the present rule (:mod:`burstlab.reproduce.rejudge`: ``re-judged`` says how
    many moved and how many the record cannot decide without its store), and its
    sample's status (:func:`burstlab.reproduce.records.record_status`: re-run now
    unless this core checked it before; ``unchecked`` without ``check``). A stale
    record's counts are shown, marked ``stale``."""
    from burstlab.reproduce import paper_names
    from burstlab.reproduce.claim import CALIBRATION, EXTENSION, VALIDATION, VERDICTS, role_counts
    from burstlab.reproduce.records import record_status
    from burstlab.reproduce.rejudge import NEEDS_STORE, rejudge_claims

    def apart(c: dict[str, int]) -> str:
        n = sum(c.values())
        return "" if not n else f"{n}: " + ", ".join(f"{k} {v}" for v, k in c.items() if k)

    rows = []
    for name in names or paper_names():
        rec = load_record(name, root)
        if rec is None:
            est = cost_estimate(name, root)
            if est is not None:  # an incomplete record: its measured cost, no verdicts
                rows.append({"paper": name, "full-mode wall time": "not run to the end",
                             "CPU time": f"≈ {duration(est[0])} (estimate)",
                             "commit": est[1], "when (UTC)": est[2], "complete": "no",
                             **{v: "" for v in VERDICTS}, "calibration": "",
                             "extensions": "", "re-judged": "", "sample": ""})
                continue
            rows.append({"paper": name, "full-mode wall time": NO_RECORD, "CPU time": "",
                         "commit": "", "when (UTC)": "", "complete": "",
                         **{v: "" for v in VERDICTS}, "calibration": "",
                         "extensions": "", "re-judged": "", "sample": ""})
            continue
        rc = role_counts((cid, v) for cid, (v, _, _) in rec.verdicts().items())
        rj = rejudge_claims(name, rec.claims)
        moved = sum(1 for r in rj if r.moved and r.now != NEEDS_STORE)
        store = sum(1 for r in rj if r.now == NEEDS_STORE)
        rows.append({"paper": name,
                     "full-mode wall time": duration(float(rec.run["wall_s"])),
                     "CPU time": duration(float(rec.run["cpu_s"])),
                     "commit": rec.commit, "when (UTC)": str(rec.run.get("when", "")),
                     "complete": "yes" if rec.complete else "no",
                     **{v: str(rc[VALIDATION][v]) for v in VERDICTS},
                     "calibration": apart(rc[CALIBRATION]),
                     "extensions": str(sum(rc[EXTENSION].values()) or ""),
                     "re-judged": f"{moved} moved, {store} need the store",
                     "sample": record_status(name, root, run=check).shown})
    return pd.DataFrame(rows)


def agreement_table(quick_root: Path, root: Path | None = None) -> pd.DataFrame:
    """Per paper of a quick output root (``OUT/<paper>/claims.csv``): how many claims
    quick and the full-mode record judge alike, how many differ (shown as
    :data:`QUICK_NOT_COMPARABLE`), how many have no full-mode verdict."""
    rows = []
    for p in sorted(Path(quick_root).glob("*/claims.csv")):
        name = p.parent.name
        q = pd.read_csv(p, dtype=str, keep_default_na=False)
        rec = load_record(name, root)
        if rec is None:
            rows.append({"paper": name, "claims": len(q), "agree": "", "differ": "",
                         "no full-mode verdict": NO_RECORD})
            continue
        full = rec.verdicts()
        both = [(v, full[c][0]) for c, v in zip(q["claim_id"], q["verdict"], strict=True)
                if c in full]
        rows.append({"paper": name, "claims": len(q),
                     "agree": sum(a == b for a, b in both),
                     "differ": sum(a != b for a, b in both),
                     "no full-mode verdict": len(q) - len(both)})
    if not rows:
        raise FileNotFoundError(f"{quick_root}: no <paper>/claims.csv below it")
    return pd.DataFrame(rows)


def markdown(df: pd.DataFrame) -> str:
    """``df`` as a Markdown pipe table (every cell as text)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(str(x) for x in r) + " |"
              for r in df.itertuples(index=False)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.modes",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("quick", type=Path, nargs="?", default=None)
    ap.add_argument("full", type=Path, nargs="?", default=None)
    ap.add_argument("--csv", type=Path, default=None,
                    help="write the table here (default QUICK/quick_vs_full.csv)")
    ap.add_argument("--records", action="store_true",
                    help="print every paper's full-mode record: wall and CPU time, commit, "
                         "verdict counts, sample status (a Markdown table for the README)")
    ap.add_argument("--no-check", action="store_true",
                    help="with --records: do not re-run samples this core has not checked "
                         "(their status shows 'unchecked')")
    ap.add_argument("--agreement", type=Path, default=None, metavar="OUT_QUICK",
                    help="print the quick/full agreement of a quick output root against "
                         "the committed full-mode records")
    a = ap.parse_args(argv)
    if a.records or a.agreement is not None:
        if a.records:
            print(markdown(records_table(check=not a.no_check)))
        if a.agreement is not None:
            try:
                print(markdown(agreement_table(a.agreement)))
            except FileNotFoundError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
        return 0
    if a.quick is None or a.full is None:
        print("error: give OUT_QUICK and OUT_FULL, or --records, or --agreement OUT_QUICK",
              file=sys.stderr)
        return 2
    try:
        t = compare(a.quick, a.full)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = a.csv or a.quick / "quick_vs_full.csv"
    t.to_csv(out, index=False)
    for paper, g in t.groupby("paper"):
        print(f"{paper}: {int(g['agree'].sum())} of {len(g)} verdicts agree")
    print(f"table: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
