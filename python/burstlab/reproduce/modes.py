"""Quick mode against full mode: every claim's verdict in both, side by side.

Read first: :func:`compare`. Quick mode may run fewer points and replications than full
mode, never shorter-than-settled runs; where its verdict still differs from full mode's,
the table says ``not comparable (quick)`` for quick: a quick verdict a reader may cite
is one full mode confirms.

    python -m burstlab.reproduce.modes OUT_QUICK OUT_FULL [--csv FILE]

reads ``claims.csv`` of every paper present in both output roots (``OUT/<paper>/``),
prints the agreement per paper and writes the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

#: What quick mode shows for a claim whose verdict full mode does not confirm.
QUICK_NOT_COMPARABLE = "not comparable (quick)"


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.modes",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("quick", type=Path)
    ap.add_argument("full", type=Path)
    ap.add_argument("--csv", type=Path, default=None,
                    help="write the table here (default QUICK/quick_vs_full.csv)")
    a = ap.parse_args(argv)
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
