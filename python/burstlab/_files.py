"""Output folders checked before any work is spent on what will be written there."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def writable_dir(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """Creates ``path`` if needed and checks that files can be written in it.

    Raises:
        ValueError: ``path`` names an existing file, cannot be created, or is not
            writable; the message starts with ``what`` and the path.
    """
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise ValueError(f"{what}: {d} exists and is not a directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=d):
            pass
    except OSError as e:
        raise ValueError(f"{what}: cannot write in {d} ({e.strerror or e})") from None
    return d
