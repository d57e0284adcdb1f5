"""The site of `burstlab reproduce all`: structure, claims on every page, and a headless
Chromium load of every page (images load, no console errors, no horizontal overflow on a
narrow screen — 360 px asked, headless Chromium gives at least 500 —, every claim row present).

The browser is Debian's ``chromium`` (``make browser`` installs it when root). A checker
script is injected at the top of a copy of each page, beside it so relative images
resolve: it records script errors and ``console.error`` calls, and on ``load`` writes
each image's state and the page width into the DOM, which ``--dump-dom`` returns.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from burstlab.reproduce import paper_names
from burstlab.reproduce.framework import VERDICTS

CHECKER = """<script>
window.__errs = [];
window.addEventListener('error', function (e) {
  window.__errs.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || '?'));
}, true);
(function () {
  var orig = console.error;
  console.error = function () {
    window.__errs.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    orig.apply(console, arguments);
  };
})();
window.addEventListener('load', function () {
  var imgs = document.images, broken = [];
  for (var i = 0; i < imgs.length; i++) {
    if (!(imgs[i].complete && imgs[i].naturalWidth > 0)) broken.push(imgs[i].getAttribute('src'));
  }
  var d = document.createElement('pre');
  d.id = '__check';
  d.textContent = JSON.stringify({images: imgs.length, broken: broken, errors: window.__errs,
    scroll_width: document.documentElement.scrollWidth, inner_width: window.innerWidth});
  document.body.appendChild(d);
});
</script>"""


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _load(page: Path) -> tuple[dict[str, object], str, str]:
    """Loads a checker-injected copy of ``page`` in headless Chromium (narrow window, no
    network); returns the checker's record, the DOM and the browser's log."""
    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser: install Debian's chromium (`make browser` does it "
                    "as root); the site's browser test cannot run")
    text = page.read_text(encoding="utf-8")
    probe = page.with_name(f".check_{page.name}")
    probe.write_text(text.replace("<head>", "<head>" + CHECKER, 1), encoding="utf-8")
    try:
        cp = subprocess.run(
            [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--window-size=360,800", "--virtual-time-budget=10000",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
             "--dump-dom", probe.as_uri()],
            capture_output=True, text=True, timeout=120, check=False)
    finally:
        probe.unlink()
    m = re.search(r'<pre id="__check">(.*?)</pre>', cp.stdout, re.S)
    assert m, f"the page never finished loading: {cp.stderr[-2000:]}"
    return json.loads(html.unescape(m.group(1))), cp.stdout, cp.stderr


def _claims(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_site_files(smoke_site: Path) -> None:
    assert (smoke_site / "index.html").is_file()
    rows = _claims(smoke_site / "claims.csv")
    assert {r["paper"] for r in rows} == set(paper_names())
    for name in paper_names():
        assert (smoke_site / name / "report.html").is_file()
        per_paper = _claims(smoke_site / name / "claims.csv")
        assert per_paper == [r for r in rows if r["paper"] == name]
    assert all(r["verdict"] in VERDICTS for r in rows)


def test_pages_load_nothing_from_the_network(smoke_site: Path) -> None:
    for page in [smoke_site / "index.html", *smoke_site.glob("*/report.html")]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), page
        assert "@import" not in text and "<link" not in text, page


def test_index_in_browser(smoke_site: Path) -> None:
    rec, dom, log = _load(smoke_site / "index.html")
    assert rec["errors"] == [] and rec["broken"] == []
    assert "CONSOLE" not in log, log
    assert rec["scroll_width"] <= rec["inner_width"], rec  # no sideways scrolling on a narrow screen
    rows = _claims(smoke_site / "claims.csv")
    for r in rows:  # every claim row is on the page
        assert f'data-claim="{html.escape(r["paper"] + "/" + r["claim_id"])}"' in dom, r
    for name in paper_names():
        assert f'href="{name}/report.html"' in dom


@pytest.mark.parametrize("name", paper_names())
def test_paper_page_in_browser(smoke_site: Path, name: str) -> None:
    page = smoke_site / name / "report.html"
    rec, dom, log = _load(page)
    assert rec["errors"] == [], rec
    assert rec["broken"] == [], rec
    assert int(str(rec["images"])) >= 1
    assert "CONSOLE" not in log, log
    assert rec["scroll_width"] <= rec["inner_width"], rec
    for r in _claims(smoke_site / name / "claims.csv"):
        assert f"<code>{html.escape(r['claim_id'], quote=False)}</code>" in dom, r["claim_id"]


def test_checker_sees_broken_images_and_errors(tmp_path: Path) -> None:
    """The harness itself: a page with a missing image and a script error fails it."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><head><title>t</title></head><body>"
                    '<img src="missing.png"><script>undefinedFunction()</script></body></html>',
                    encoding="utf-8")
    rec, _, _ = _load(page)
    assert rec["broken"] == ["missing.png"]
    assert any("undefinedFunction" in str(e) for e in rec["errors"])  # type: ignore[union-attr]


def test_concurrent_papers_give_what_one_at_a_time_gives(smoke_site: Path,
                                                        tmp_path: Path) -> None:
    """``reproduce all`` runs papers side by side (``run_concurrently``); a paper run on
    its own, one simulation worker, writes the same claims, tables and run stamps."""
    from burstlab.cli import main

    assert main(["reproduce", "sodhatar", "--smoke", "--jobs", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    alone, together = tmp_path / "sodhatar", smoke_site / "sodhatar"
    assert (alone / "claims.csv").read_bytes() == (together / "claims.csv").read_bytes()
    csvs = sorted(p.name for p in together.glob("*.csv"))
    assert csvs == sorted(p.name for p in alone.glob("*.csv")) and len(csvs) > 2
    for name in csvs:
        assert (alone / name).read_bytes() == (together / name).read_bytes(), name
    # the site index lists the papers in their order, whichever finished first
    index = (smoke_site / "index.html").read_text("utf-8")
    from burstlab.reproduce import paper_names

    at = [index.index(f'href="{n}/report.html"') for n in paper_names()]
    assert at == sorted(at)
