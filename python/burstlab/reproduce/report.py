"""Report pages: Markdown built block by block, rendered to self-contained HTML.

Read first: :class:`Report` (what a paper's report body calls), then :func:`write_page`.
Markdown is rendered by markdown-it-py (CommonMark plus pipe tables), the page shell by a
Jinja2 template (:mod:`burstlab.reproduce.templates`). Pages load nothing from the
network: the style is inline, images are files beside the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from burstlab.reproduce.claim import Claim


def fmt(x: Any, digits: int = 3) -> str:
    """A number with ``digits`` significant digits; NaN as an en dash."""
    if x is None:
        return "–"
    if isinstance(x, str):
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return "–"
    if v == 0:
        return "0"
    return f"{v:.{digits}g}"


def cell(text: str) -> str:
    """Text safe inside a Markdown pipe-table cell: ``|`` escaped, no line breaks."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_table(df: pd.DataFrame, digits: int = 3) -> str:
    """A pipe table of ``df`` (numbers with ``digits`` significant digits)."""
    head = "| " + " | ".join(cell(str(c)) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    lines = [head, sep]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(cell(fmt(v, digits)) for v in row.tolist()) + " |")
    return "\n".join(lines)


#: What each verdict means, stated once for every report (the rule is
#: :func:`burstlab.reproduce.verdict.judge`; docs/topics/verdicts.md).
VERDICT_RULES = (
    "Each row compares a number or statement of the paper (`paper.toml`: its source, and "
    "whether it was printed, read off a plot or stated) with burstlab's value and its 95 % "
    "interval, by one rule (docs/topics/verdicts.md): the paper value gets a band, its own "
    "precision plus the claim kind's tolerance. *reproduces*: burstlab's interval meets "
    "the band and is no wider than it; *same direction*: it misses the band on the paper's "
    "side of the no-effect value (or some, not all, claimed differences are significant); "
    "*differs*: it misses the band otherwise; *not comparable*: the runs cannot decide (no "
    "interval, an interval wider than the band, or a point this mode does not run).")


def claims_table(claims: Sequence[Claim]) -> str:
    """The claims as a pipe table (one row per claim, verdict in bold). A quick run's
    claims (:attr:`Claim.full` set) get the full-mode record's verdict beside theirs, and
    show ``not comparable (quick)`` with its reason where the two differ."""
    quick = any(c.full for c in claims)
    lines = ["| claim | source | paper | burstlab | 95 % CI | verdict | "
             + ("full mode | " if quick else "") + "why |",
             "|---|---|---|---|---|---|---|" + ("---|" if quick else "")]
    for c in claims:
        why = c.note + (f" — quick against full: {c.quick_note}" if c.quick_note else "")
        row = [f"`{c.id}`", c.source, c.paper_value, c.burstlab_value, c.ci or "–",
               f"**{c.shown}**"] + ([c.full or "–"] if quick else []) + [why]
        lines.append("| " + " | ".join(cell(x) for x in row) + " |")
    return "\n".join(lines)


class Report:
    """Accumulates Markdown blocks."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.blocks: list[str] = [f"# {title}"]

    def h(self, level: int, text: str) -> None:
        self.blocks.append(f"{'#' * level} {text}")

    def p(self, text: str) -> None:
        self.blocks.append(text.strip())

    def bullets(self, items: Sequence[str]) -> None:
        if items:
            self.blocks.append("\n".join(f"- {i}" for i in items))

    def table(self, df: pd.DataFrame, digits: int = 3) -> None:
        self.blocks.append(md_table(df, digits))

    def claims(self, claims: Sequence[Claim]) -> None:
        """The claims table with the verdict counts above it."""
        from burstlab.reproduce.claim import (
            QUICK_NOT_COMPARABLE,
            VERDICTS,
            counts_text,
        )

        text = (counts_text((c.id, c.verdict) for c in claims)
                + ". Every row is also in `claims.csv`.")
        if any(c.full for c in claims):
            differ = sum(1 for c in claims if c.quick_note)
            full = [(c.id, c.full) for c in claims if c.full in VERDICTS]
            text += (" Beside each, the verdict of the paper's committed full-mode run ("
                     + (counts_text(full) if full else claims[0].full)
                     + f"); {differ} claim(s) judged otherwise in quick mode show "
                     f"*{QUICK_NOT_COMPARABLE}* with both values (`quick_vs_full.csv`).")
        self.p(text)
        self.blocks.append(claims_table(claims))

    def claims_section(self, claims: Sequence[Claim], intro: str = "") -> None:
        """The report's standard claims section: its heading, the paper's ``intro`` (what
        its claims compare, beyond the rule), :data:`VERDICT_RULES`, and
        :meth:`claims`."""
        self.h(2, "Claims")
        if intro:
            self.p(intro)
        self.p(VERDICT_RULES)
        self.claims(claims)

    def image(self, path: str, alt: str) -> None:
        self.blocks.append(f"![{alt}]({path})")

    def code(self, text: str) -> None:
        self.blocks.append("```\n" + text.rstrip() + "\n```")

    def markdown(self) -> str:
        return "\n\n".join(self.blocks) + "\n"


def markdown_to_html(md: str) -> str:
    """The HTML body of ``md`` (CommonMark with pipe tables; raw HTML is escaped)."""
    from markdown_it import MarkdownIt

    mdi = MarkdownIt("commonmark", {"html": False}).enable("table")
    return mdi.render(md)


def render_page(title: str, body_html: str, *, nav: Sequence[tuple[str, str]] = ()) -> str:
    """A complete, self-contained HTML page around ``body_html``."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("burstlab.reproduce", "templates"),
        autoescape=jinja2.select_autoescape(["html"]))
    return env.get_template("page.html").render(title=title, body=body_html, nav=list(nav))


def write_page(rep: Report, out_dir: Path, *, title: str, stem: str = "report",
               nav: Sequence[tuple[str, str]] = (("../index.html", "all papers"),)
               ) -> tuple[Path, Path]:
    """Writes ``<stem>.md`` and the self-contained ``<stem>.html``."""
    md = rep.markdown()
    p_md = out_dir / f"{stem}.md"
    p_html = out_dir / f"{stem}.html"
    p_md.write_text(md, encoding="utf-8")
    p_html.write_text(render_page(title, markdown_to_html(md), nav=nav), encoding="utf-8")
    return p_md, p_html
