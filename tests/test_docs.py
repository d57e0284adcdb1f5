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
