"""The site of ``burstlab reproduce all``: ``OUT/index.html`` lists every paper with its
verdict counts and every claim, linking each paper's page ``OUT/<paper>/report.html``;
``OUT/claims.csv`` holds every paper's claims.

Pages are self-contained (inline style, images as files beside each page) and load
nothing from the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from burstlab.reproduce.framework import (
    VERDICTS,
    Outcome,
    verdict_counts,
    write_claims_csv_rows,
)


def write_site(out: Path, outcomes: Sequence[Outcome]) -> Path:
    """Writes ``out/index.html`` and ``out/claims.csv``; returns the index's path."""
    import jinja2

    from burstlab.reproduce.report import render_page

    rows = [c.row(o.paper.name) for o in outcomes for c in o.claims]
    write_claims_csv_rows(rows, out / "claims.csv")
    papers = [{"name": o.paper.name, "title": o.paper.title,
               "href": f"{o.paper.name}/report.html",
               "counts": verdict_counts(c.verdict for c in o.claims),
               "mode": o.ctx.stamp.get("mode", ""), "wall": f"{o.wall_s:.0f} s"}
              for o in outcomes]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("burstlab.reproduce", "templates"),
        autoescape=jinja2.select_autoescape(["html"]))
    body = env.get_template("index_body.html").render(
        papers=papers, claims=rows, verdicts=VERDICTS, n_claims=len(rows))
    index = out / "index.html"
    index.write_text(render_page("burstlab reproductions", body), encoding="utf-8")
    return index
