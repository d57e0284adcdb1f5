from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def smoke_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``burstlab reproduce all --smoke``: every paper on a tiny grid, plus the site."""
    from burstlab.cli import main

    out = tmp_path_factory.mktemp("site")
    rc = main(["reproduce", "all", "--smoke", "--jobs", "2", "--no-progress",
               "--out", str(out)])
    assert rc == 0
    return out
