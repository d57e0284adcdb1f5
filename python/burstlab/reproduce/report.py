"""A small report writer: build Markdown, convert it to a self-contained HTML page.

The Markdown subset is what the reproductions write: ``#`` headings, paragraphs,
``- `` lists, pipe tables, fenced code blocks, images ``![alt](file.png)``, links,
``**bold**``, ``*italic*`` and ``code``. No dependency beyond the standard library.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd


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


def md_table(df: pd.DataFrame, digits: int = 3) -> str:
    """A pipe table of ``df`` (numbers with ``digits`` significant digits)."""
    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    lines = [head, sep]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(fmt(v, digits) for v in row.tolist()) + " |")
    return "\n".join(lines)


class Report:
    """Accumulates Markdown blocks."""

    def __init__(self, title: str) -> None:
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

    def image(self, path: str, alt: str) -> None:
        self.blocks.append(f"![{alt}]({path})")

    def code(self, text: str) -> None:
        self.blocks.append("```\n" + text.rstrip() + "\n```")

    def markdown(self) -> str:
        return "\n\n".join(self.blocks) + "\n"

    def write(self, out_dir: Path, stem: str = "report") -> tuple[Path, Path]:
        md = self.markdown()
        p_md = out_dir / f"{stem}.md"
        p_html = out_dir / f"{stem}.html"
        p_md.write_text(md, encoding="utf-8")
        p_html.write_text(markdown_to_html(md), encoding="utf-8")
        return p_md, p_html


_INLINE = [
    (re.compile(r"!\[([^\]]*)\]\(([^)]+)\)"), r'<img src="\2" alt="\1">'),
    (re.compile(r"\[([^\]]+)\]\(([^)]+)\)"), r'<a href="\2">\1</a>'),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![*\w])\*([^*\s][^*]*)\*(?!\w)"), r"<em>\1</em>"),
]


def _inline(text: str) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) >= 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part, quote=False)
        for rx, rep in _INLINE:
            s = rx.sub(rep, s)
        out.append(s)
    return "".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def markdown_to_html(md: str, title: str | None = None) -> str:
    """Converts the Markdown subset above into a standalone HTML page."""
    lines = md.splitlines()
    body: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            buf = []
            while j < len(lines) and not lines[j].startswith("```"):
                buf.append(lines[j])
                j += 1
            body.append("<pre><code>" + html.escape("\n".join(buf)) + "</code></pre>")
            i = j + 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            n = len(m.group(1))
            if title is None and n == 1:
                title = m.group(2)
            body.append(f"<h{n}>{_inline(m.group(2))}</h{n}>")
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            head = _cells(rows[0])
            t = ["<table>", "<thead><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head)
                 + "</tr></thead>", "<tbody>"]
            for r in rows[2:] if len(rows) > 1 and set(rows[1]) <= set("|-: ") else rows[1:]:
                t.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in _cells(r))
                         + "</tr>")
            t.append("</tbody></table>")
            body.append("\n".join(t))
            continue
        if line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(lines[i][2:])
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    items[-1] += " " + lines[i].strip()
                    i += 1
            body.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in items) + "</ul>")
            continue
        buf = []
        while i < len(lines) and lines[i].strip() and not re.match(r"^(#|\||- |```)", lines[i]):
            buf.append(lines[i])
            i += 1
        body.append("<p>" + _inline(" ".join(buf)) + "</p>")
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;"
             "line-height:1.45}table{border-collapse:collapse;margin:1em 0;font-size:90%}"
             "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
             "th{background:#eee}img{max-width:100%;border:1px solid #ddd}"
             "code{background:#f4f4f4}pre{background:#f4f4f4;padding:.5em;overflow:auto}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title or 'report')}</title><style>{style}</style></head>\n"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")
