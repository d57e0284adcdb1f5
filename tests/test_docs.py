"""The documentation and the packaging metadata: one minimum Python version everywhere,
a LICENSE matching the declared licence, no placeholder metadata, and comments and
docstrings that cite only files the repository has.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if (ROOT / f).exists()]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------
# Metadata.


def test_one_minimum_python_version_everywhere() -> None:
    proj = _pyproject()
    m = re.fullmatch(r">=\s*3\.(\d+)", proj["project"]["requires-python"])
    assert m, proj["project"]["requires-python"]
    minor = int(m.group(1))
    assert proj["tool"]["ruff"]["target-version"] == f"py3{minor}"
    assert proj["tool"]["mypy"]["python_version"] == f"3.{minor}"
    cargo = (ROOT / "crates" / "burstlab-py" / "Cargo.toml").read_text(encoding="utf-8")
    assert re.findall(r"abi3-py3(\d+)", cargo) == [str(minor)]  # the wheel's floor
    # Every "Python ≥ 3.x" / "CPython >= 3.x" a reader is told.
    said = []
    for f in ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]:
        text = (ROOT / f).read_text(encoding="utf-8")
        said += [(f, int(x)) for x in re.findall(r"Python\s*(?:≥|>=)\s*3\.(\d+)", text)]
    assert said, "the docs should say which Python they need"
    assert all(v == minor for _, v in said), said


def test_license_file_matches_the_declared_licence() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Permission is hereby granted" in text
    assert _pyproject()["project"]["license"] == {"text": "MIT"}
    ws = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    assert ws["workspace"]["package"]["license"] == "MIT"


def test_no_placeholder_metadata() -> None:
    for f in ["Cargo.toml", "pyproject.toml", "crates/burstlab-core/Cargo.toml",
              "crates/burstlab-py/Cargo.toml"]:
        text = (ROOT / f).read_text(encoding="utf-8")
        assert not re.search(r"example\.(invalid|com|org)|TODO|FIXME|localhost", text), f


def test_readme_is_the_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first and text.index(first.group(0)) < text.index("burstlab is")
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert [c for c in commands if c] == ["make demo", "make test"]
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+:", target):
            assert (ROOT / target).exists(), target


# ---------------------------------------------------------------------------------------
# Comments and docstrings cite files that exist.

# A file name a comment may cite: a path with a slash, or a name with a source extension.
CITE = re.compile(
    r"(?<![\w/.:-])([A-Za-z_][\w./-]*\.(?:rs|py|pyi|md)|[A-Za-z_][\w.-]*/[\w./-]*\.toml)(?![\w/])")
# Documents of the project's own planning that are not part of the repository.
OUTSIDE = re.compile(r"\b(STYLE|DESIGN)(\.md)?\s*§|\b(STYLE|DESIGN)\.md\b")
# Files a run writes, named in docstrings as outputs (not citations).
OUTPUTS = {"report.md"}


def _comments(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".rs":
        return [(i, line[line.index("//"):]) for i, line in enumerate(text.splitlines(), 1)
                if "//" in line]
    out = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
           if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                first = node.body[0].lineno
                out += [(first + k, line) for k, line in enumerate(doc.splitlines())]
    return out


def _cited_files_missing(files: list[str]) -> list[str]:
    tracked = set(files)
    names = {Path(f).name for f in files}
    bad = []
    for f in files:
        if not f.endswith((".rs", ".py", ".pyi")):
            continue
        for line_no, text in _comments(ROOT / f):
            if OUTSIDE.search(text):
                bad.append(f"{f}:{line_no}: cites a document outside the repository: {text.strip()}")
            for m in CITE.finditer(text):
                c = m.group(1).rstrip(".")
                if c in OUTPUTS:
                    continue
                if "/" in c:
                    ok = (any(t == c or t.endswith("/" + c) for t in tracked)
                          or (ROOT / f).parent.joinpath(c).exists())
                else:
                    ok = c in names
                if not ok:
                    bad.append(f"{f}:{line_no}: {c}")
    return bad


def test_comments_cite_only_files_in_the_repository() -> None:
    assert _cited_files_missing(_tracked()) == []


def test_citation_check_finds_a_missing_file(tmp_path: Path) -> None:
    """The check itself: a comment naming a file the repository lacks is reported."""
    fake = ROOT / "python" / "burstlab" / "_citation_probe.py"
    fake.write_text('"""Read sim.rs and DESIGN.md §3 first; then api.py."""\n', encoding="utf-8")
    try:
        bad = _cited_files_missing([*_tracked(), "python/burstlab/_citation_probe.py"])
    finally:
        fake.unlink()
    probe = [b for b in bad if "_citation_probe" in b]
    assert any(b.endswith(": sim.rs") for b in probe), probe
    assert any("outside the repository" in b for b in probe), probe
    assert not any(b.endswith(": api.py") for b in probe), probe


# ---------------------------------------------------------------------------------------
# The scenario reference: generated from the Rust schema, every key covered.

def _docs_ext():  # type: ignore[no-untyped-def]
    import importlib
    import sys

    ext = str(ROOT / "docs" / "_ext")
    if ext not in sys.path:
        sys.path.insert(0, ext)
    return importlib.import_module("burstlab_docs")


def _schema_keys() -> set[str]:
    """Every key path the Rust parser accepts (list elements folded into their list)."""
    import json

    from burstlab import _core

    return {k["path"] for k in json.loads(_core.scenario_schema())["keys"]
            if not k["path"].endswith("[]")}


def test_schema_export_lists_the_parsers_keys() -> None:
    keys = _schema_keys()
    for k in ("sim.duration", "flows[].variant", "fibres[].wavelengths", "obs.loss.p",
              "nodes[].fabric[].setup", "obs.classes[].assembly.tmax", "sim.trace.dir"):
        assert k in keys, k
    assert len(keys) > 100
    # Every key of every example scenario is in the schema (under its TOML name).
    docs = _docs_ext()
    reference = {k.path for k in docs.scenario_keys()}

    def walk(prefix: str, value: object) -> list[str]:
        out = []
        if isinstance(value, dict):
            for name, v in value.items():
                p = f"{prefix}.{name}" if prefix else name
                out.append(p)
                if not (name == "params" and prefix.endswith("assembly")):
                    out += walk(p, v)  # a Python assembler's params are its own
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            for v in value:
                out += walk(prefix + "[]", v)
        return out

    from burstlab.topologies.network_table import NETWORK_KEYS

    for ex in sorted((ROOT / "examples").glob("*.toml")):
        for p in walk("", tomllib.loads(ex.read_text(encoding="utf-8"))):
            if p.startswith("network"):  # read by the Python package (network_table.py)
                assert p == "network" or p[len("network."):] in {*NETWORK_KEYS, "file"}, p
                continue
            assert p in reference, f"{ex.name}: {p}"


def test_scenario_reference_covers_every_key_with_its_error() -> None:
    docs = _docs_ext()
    keys = docs.scenario_keys()
    assert {k.rust_path for k in keys} == _schema_keys()
    page = docs.scenario_reference()
    for k in keys:
        assert k.error, f"{k.path}: no error for a bad value"
        concrete = k.path.replace("[]", "[0]")
        # The error is the validator's, and names this key (or its table, for a table).
        assert concrete.rsplit(".", 1)[0] in k.error, (k.path, k.error)
        shown = f"assembly.{k.path.rsplit('.', 1)[1]}" if ".assembly." in k.path else k.path
        assert f"`{shown}`" in page, shown
        assert k.default, k.path
    # Spot checks against the code's own values.
    by = {k.path: k for k in keys}
    assert by["sim.seed"].default == "1"
    assert by["flow[].min_rto"].default == "0.2 s (ns2), 1 s (rfc)"
    assert by["obs.scheduler"].values == ["ffuc", "lauc", "laucvf"]
    assert "a rate must be positive" in by["link[].rate"].error
    assert by["flow"].aliases == ["flows"]  # TOML's [[flow]]; `flows` is accepted too
    assert set(by["fibre"].aliases) == {"fibres", "fiber", "fibers"}
    assert by["flow[].variant"].aliases == []


def test_cli_reference_has_every_command() -> None:
    page = _docs_ext().cli_reference()
    for cmd in ("burstlab run", "burstlab validate", "burstlab sweep", "burstlab plot",
                "burstlab export ns2", "burstlab reproduce", "burstlab model"):
        assert f"## `{cmd}" in page, cmd


# ---------------------------------------------------------------------------------------
# The site: built with warnings as errors, every internal link resolves, every page loads
# in headless Chromium without errors and with its images.

import html as _html  # noqa: E402
import json as _json  # noqa: E402
import shutil  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import pytest  # noqa: E402

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
  d.textContent = JSON.stringify({images: imgs.length, broken: broken, errors: window.__errs});
  document.body.appendChild(d);
});
</script>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from docs/ as `make docs` builds it (-W: a warning fails it)."""
    sphinx = Path(__import__("sys").executable).with_name("sphinx-build")
    if not sphinx.exists():
        pytest.fail("sphinx-build is missing: install the docs extra (`make docs-env`)")
    out = tmp_path_factory.mktemp("site") / "html"
    cp = subprocess.run([str(sphinx), "-b", "html", "-W", "--keep-going", "-q", "-E",
                         "-d", str(out.parent / "doctrees"), str(ROOT / "docs"), str(out)],
                        capture_output=True, text=True, cwd=ROOT, check=False)
    # Sphinx's own warnings and errors (the notebook kernels' log lines are not Sphinx's).
    warnings = [line for line in cp.stderr.splitlines()
                if re.search(r"(^|: )(WARNING|ERROR|CRITICAL):|Traceback", line)]
    assert cp.returncode == 0 and not warnings, cp.stderr[-4000:]
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def test_site_has_every_page(site: Path) -> None:
    for page in ["index", "getting-started", "concepts/obs", "concepts/tcp-profiles",
                 "concepts/reproduction", "reference/scenario", "reference/api",
                 "reference/cli", "reproductions/index", "benchmarks", "performance",
                 "topics/index", "tutorials/run-a-scenario", "tutorials/sweep",
                 "tutorials/yu-model", "tutorials/ns2", "tutorials/new-assembler",
                 *(f"reproductions/{p}" for p in ("yu", "ozsarac", "sodhatar", "zhou", "hybrid"))]:
        assert (site / f"{page}.html").is_file(), page
    # Every docs/topics page is on the topics index (a glob), whoever added it.
    topics = (site / "topics" / "index.html").read_text(encoding="utf-8")
    for md in (ROOT / "docs" / "topics").glob("*.md"):
        if md.stem != "index":
            assert f'href="{md.stem}.html"' in topics, md.name
    # The notebooks ran: their figures are in the pages.
    assert list((site / "_images").glob("*.png")), "no figure from the tutorials"
    sweep = (site / "tutorials" / "sweep.html").read_text(encoding="utf-8")
    assert "goodput_segps_ci_lo" in sweep and "<img" in sweep


def test_every_internal_link_resolves(site: Path) -> None:
    bad = []
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        for ref in re.findall(r'(?:href|src)="([^"#?]+)(?:[#?][^"]*)?"', text):
            if re.match(r"[a-z]+:", ref) or ref.startswith("//"):
                continue  # external (and mailto:); the site loads nothing from them
            if not (page.parent / _html.unescape(ref)).exists():
                bad.append(f"{page.relative_to(site)}: {ref}")
    assert bad == []


def test_pages_load_nothing_from_the_network(site: Path) -> None:
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""<(script|link|img)[^>]+(src|href)\s*=\s*["']?(https?:)?//""", text), page


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _load(browser: str, page: Path) -> tuple[Path, dict[str, object] | None, str]:
    text = page.read_text(encoding="utf-8")
    probe = page.with_name(f".check_{page.name}")
    probe.write_text(text.replace("<head>", "<head>" + CHECKER, 1), encoding="utf-8")
    try:
        cp = subprocess.run(
            [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
             "--window-size=1000,800", "--virtual-time-budget=10000",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
             "--dump-dom", probe.as_uri()],
            capture_output=True, text=True, timeout=120, check=False)
    finally:
        probe.unlink()
    m = re.search(r'<pre id="__check">(.*?)</pre>', cp.stdout, re.S)
    rec = _json.loads(_html.unescape(m.group(1))) if m else None
    return page, rec, cp.stderr


def test_every_page_loads_in_the_browser(site: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser: install Debian's chromium (`make system-deps` does "
                    "it as root); the site's browser test cannot run")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: _load(browser, p), _pages(site)))
    problems = []
    images = 0
    for page, rec, log in results:
        name = str(page.relative_to(site))
        if rec is None:
            problems.append(f"{name}: never finished loading: {log[-500:]}")
            continue
        images += int(str(rec["images"]))
        if rec["errors"] or rec["broken"]:
            problems.append(f"{name}: {rec}")
        if "CONSOLE" in log:
            problems.append(f"{name}: console: {log[-500:]}")
    assert problems == []
    assert images >= 3  # the tutorials' figures were drawn and load


def test_browser_check_sees_broken_images_and_errors(tmp_path: Path) -> None:
    """The harness itself: a page with a missing image and a script error fails it."""
    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser")
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><head><title>t</title></head><body>"
                    '<img src="missing.png"><script>undefinedFunction()</script></body></html>',
                    encoding="utf-8")
    _, rec, _ = _load(browser, page)
    assert rec is not None and rec["broken"] == ["missing.png"]
    assert any("undefinedFunction" in str(e) for e in rec["errors"])  # type: ignore[union-attr]
