"""The site of ``burstlab reproduce all``: ``OUT/index.html`` lists every paper with its
verdict counts and every claim, linking each paper's page ``OUT/<paper>/report.html``;
``OUT/claims.csv`` holds every paper's claims.

Pages are self-contained (inline style, images as files beside each page) and load
nothing from the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from burstlab.reproduce.claim import VALIDATION, counts_text, role_counts
from burstlab.reproduce.framework import (
    VERDICTS,
    Outcome,
    write_claims_csv_rows,
)


def write_site(out: Path, outcomes: Sequence[Outcome],
               extensions: Sequence[tuple[str, str, str]] = ()) -> Path:
    """Writes ``out/index.html`` and ``out/claims.csv``; returns the index's path.
    ``extensions``: pages beyond the papers, ``(href, title, note)``, linked in their
    own section (no claims, no verdicts)."""
    import jinja2

    from burstlab.reproduce.modes import load_record
    from burstlab.reproduce.report import render_page

    rows = [c.row(o.paper.name) for o in outcomes for c in o.claims]
    write_claims_csv_rows(rows, out / "claims.csv")
    shown = [{**c.row(o.paper.name), "shown": c.shown, "full": c.full,
              "quick_note": c.quick_note} for o in outcomes for c in o.claims]
    papers = []
    for o in outcomes:
        rec = load_record(o.paper.name)
        # every count from role_counts: validation claims; calibration apart; the
        # record's verdicts judged by the present rule (FullRecord.verdicts)
        full = "no full-mode record" if rec is None else (
            counts_text((cid, v) for cid, (v, _, _) in rec.verdicts().items())
            + f" (commit {rec.commit}, {float(rec.run.get('wall_s', 0)) / 3600:.1f} h)")
        papers.append({"name": o.paper.name, "title": o.paper.title,
                       "href": f"{o.paper.name}/report.html",
                       "counts": role_counts((c.id, c.verdict) for c in o.claims)[VALIDATION],
                       "quick_nc": sum(1 for c in o.claims if c.quick_note),
                       "full": full, "mode": o.ctx.stamp.get("mode", ""),
                       "wall": f"{o.wall_s:.0f} s"})
    any_full = any(c.full for o in outcomes for c in o.claims)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("burstlab.reproduce", "templates"),
        autoescape=jinja2.select_autoescape(["html"]))
    body = env.get_template("index_body.html").render(
        papers=papers, claims=shown, verdicts=VERDICTS, n_claims=len(rows),
        quick=any_full, extensions=list(extensions))
    index = out / "index.html"
    index.write_text(render_page("burstlab reproductions", body), encoding="utf-8")
    return index
