"""CITATION.cff (issue 55's small defects): its version is the package's, and it carries
the keys the Citation File Format 1.2.0 requires."""

from __future__ import annotations

import re
from pathlib import Path

import burstlab

ROOT = Path(__file__).resolve().parents[1]


def test_citation_file_names_the_current_version() -> None:
    text = (ROOT / "CITATION.cff").read_text()
    top = dict(re.findall(r'^([a-z-]+): *"?([^"\n]*)"?$', text, flags=re.M))
    assert top["cff-version"] == "1.2.0"
    assert top["version"] == burstlab.__version__
    assert top["title"].startswith("burstlab") and top["license"] == "MIT"
    for key in ("message", "type"):
        assert top[key]
    assert re.search(r"^authors:\n  - name: \S", text, flags=re.M)
