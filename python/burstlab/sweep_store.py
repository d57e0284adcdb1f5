"""The store of a sweep (:mod:`burstlab.sweep`): how a run is identified, and the SQLite
file of finished runs that makes a sweep resumable.

Read in this order: :func:`run_key` (a run's identity: the SHA-256 of its scenario, seed,
replication, burstlab version and core identity), then :class:`Store` (one transaction
per finished run; rows checked against :func:`row_checksum` when read). Why SQLite, and
what survives a killed sweep, is in the docstring of :mod:`burstlab.sweep` ("The store").
Every name here is also importable from :mod:`burstlab.sweep`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from burstlab import _core

SCHEMA_VERSION = 2


# ---------------------------------------------------------------------------------------
# Identity of a run.


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, no NaN: equal dicts give equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False, default=str)


def run_key(scenario: Mapping[str, Any], seed: int, replication: int, version: str,
            core: str | None = None) -> str:
    """SHA-256 (hex) of the canonical JSON of (scenario, seed, replication, version, core
    identity). Without ``core``, the key rows had before the store keyed by the core's
    identity (they are looked up only to say why they are not reused)."""
    doc: dict[str, Any] = {"scenario": scenario, "seed": seed, "replication": replication,
                           "version": version}
    if core is not None:
        doc["core"] = core
    return hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------
# The store.

_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_info (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    key          TEXT PRIMARY KEY,   -- run_key(): sha256 of (scenario, seed, replication, version, core)
    params       TEXT NOT NULL,      -- JSON {path: value} of the swept parameters
    scenario     TEXT NOT NULL,      -- canonical JSON of the scenario as run
    seed         INTEGER NOT NULL,
    replication  INTEGER NOT NULL,
    version      TEXT NOT NULL,      -- burstlab version
    status       TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error        TEXT,               -- 'ExceptionType: message' when status = 'error'
    flows        TEXT,               -- JSON records, one per flow (Result.flows)
    links        TEXT,               -- JSON records, one per link direction (Result.links)
    meta         TEXT,               -- JSON (Result.meta)
    wall_s       REAL,               -- wall time of the run inside the worker
    host         TEXT,
    pid          INTEGER,
    finished_utc TEXT NOT NULL,
    checksum     TEXT                -- row_checksum() of the outcome; a mismatch = recompute
);
"""

#: Columns that carry a run's outcome, covered by its checksum.
_OUTCOME = ("key", "status", "error", "flows", "links", "meta")


def row_checksum(rec: Mapping[str, Any]) -> str:
    """SHA-256 of a run's outcome columns: a stored row whose bytes were damaged no longer
    matches, and its run is recomputed instead of reused."""
    doc = [rec.get(c) for c in _OUTCOME]
    return hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()


class StoreError(ValueError):
    """The store file cannot be used (not SQLite, damaged, another schema)."""


class NotStored(LookupError):
    """``stored_only`` was asked and the store lacks some of the runs.

    Attributes:
        stored: runs of the sweep the store holds.
        total: runs of the sweep.
        legacy: missing runs the store holds under the key without the core's identity
            (made before keys held it), which are never reused.
    """

    def __init__(self, stored: int, total: int, legacy: int = 0) -> None:
        super().__init__(f"the store holds {stored} of the sweep's {total} runs "
                         "(stored_only: nothing was run)"
                         + (f"; {legacy} more {_legacy_note(legacy)}" if legacy else ""))
        self.stored = stored
        self.total = total
        self.legacy = legacy


def _legacy_note(n: int) -> str:
    """Why ``n`` runs stored under the key without the core's identity are not reused."""
    return (f"{'is' if n == 1 else 'are'} stored under the old key, without the core's "
            "identity (made by a core nobody recorded): never reused, since nothing proves "
            f"this core ({_core.core_identity()}) makes the same numbers "
            "(docs/topics/settled-runs.md)")


def _count_stored(st: Store, keys: Sequence[str]) -> int:
    """How many of ``keys`` the store holds a row for, without reading the rows."""
    try:
        return sum(int(cur.fetchone()[0]) for cur in st._select("count(*)", keys))
    except sqlite3.DatabaseError as e:
        raise st._damaged(e) from None


class Store:
    """The SQLite file of finished runs (see the module docstring for why SQLite).

    Only the sweep's parent process opens it for writing; every :meth:`put` is its own
    transaction.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._recognise()
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            self.db.execute(
                "INSERT OR IGNORE INTO store_info VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
            row = self.db.execute(
                "SELECT value FROM store_info WHERE name = 'schema_version'"
            ).fetchone()
            if row is not None and row[0] == "1":  # v1 -> v2: rows gain a checksum
                self.db.execute("ALTER TABLE runs ADD COLUMN checksum TEXT")
                self.db.execute("UPDATE store_info SET value = ? WHERE name = "
                                "'schema_version'", (str(SCHEMA_VERSION),))
                row = (str(SCHEMA_VERSION),)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"store {self.path}: not a burstlab sweep store or damaged "
                             f"({e}); delete it or choose another --store") from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"store {self.path}: schema version {row and row[0]}, "
                             f"expected {SCHEMA_VERSION}")

    def _recognise(self) -> None:
        """Refuses, before anything is written to it, a file that is not a burstlab store:
        another program's SQLite database would otherwise gain our tables and be switched
        to WAL. A missing or empty file, or an SQLite file with no tables, becomes a store;
        one with tables must have ``store_info`` (with a schema version) and ``runs``."""
        if str(self.path) == ":memory:" or not self.path.exists():
            return
        if self.path.is_file() and self.path.stat().st_size == 0:
            return
        with closing(sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro",
                                     uri=True, timeout=30.0)) as db:
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return
            if {"store_info", "runs"} <= tables and db.execute(
                    "SELECT 1 FROM store_info WHERE name = 'schema_version'").fetchone():
                return
        shown = ", ".join(sorted(tables)[:5]) + (", …" if len(tables) > 5 else "")
        raise StoreError(f"store {self.path}: an SQLite database that is not a burstlab "
                         f"sweep store (its tables: {shown}); left untouched: choose "
                         "another --store")

    def _damaged(self, e: sqlite3.DatabaseError) -> StoreError:
        return StoreError(f"store {self.path}: damaged ({e}); delete it or choose another "
                          "--store (runs will be recomputed)")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def finished(self, keys: Iterable[str], include_errors: bool = True) -> set[str]:
        """The subset of ``keys`` already stored (only successful ones unless
        ``include_errors``)."""
        return {rec["key"] for rec in self.rows(list(keys))
                if include_errors or rec["status"] == "ok"}

    def put(self, rec: Mapping[str, Any]) -> None:
        """Stores one finished run in one transaction (replacing an earlier attempt)."""
        cols = ("key", "params", "scenario", "seed", "replication", "version", "status",
                "error", "flows", "links", "meta", "wall_s", "host", "pid", "finished_utc",
                "checksum")
        rec = {**rec, "checksum": row_checksum(rec)}
        try:
            with self.db:  # isolation_level=None: make the transaction explicit
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute(
                    f"INSERT OR REPLACE INTO runs ({','.join(cols)}) "
                    f"VALUES ({','.join('?' * len(cols))})",
                    tuple(rec.get(c) for c in cols),
                )
        except sqlite3.DatabaseError as e:
            raise self._damaged(e) from None

    def get(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The stored rows for ``keys`` whose checksum holds (missing keys, and rows whose
        bytes were damaged since they were written, are absent)."""
        return {rec["key"]: rec for rec in self.rows(keys)}

    def meta_bytes(self, keys: Sequence[str]) -> int:
        """The bytes of the ``meta`` column (where a trace run keeps its traces) of the
        stored rows for ``keys``, read without loading them."""
        try:
            return sum(int(cur.fetchone()[0] or 0) for cur in
                       self._select("sum(length(CAST(meta AS BLOB)))", keys))
        except sqlite3.DatabaseError as e:
            raise self._damaged(e) from None

    def rows(self, keys: Sequence[str]) -> Iterator[dict[str, Any]]:
        """:meth:`get`'s rows one at a time, in no particular order: a caller that keeps
        only part of each row holds one whole row at a time (a trace experiment's rows
        hold its traces, gigabytes over a sweep)."""
        try:
            for cur in self._select("*", keys):
                names = [d[0] for d in cur.description]
                for row in cur:
                    rec = dict(zip(names, row, strict=True))
                    if rec.get("checksum") == row_checksum(rec):
                        yield rec
        except sqlite3.DatabaseError as e:
            raise self._damaged(e) from None

    def _select(self, what: str, keys: Sequence[str]) -> Iterator[sqlite3.Cursor]:
        """``SELECT what FROM runs WHERE key IN (...)`` over ``keys``, 500 keys per
        statement (below SQLite's limit on bound parameters)."""
        for i in range(0, len(keys), 500):
            chunk = list(keys[i : i + 500])
            yield self.db.execute(
                f"SELECT {what} FROM runs WHERE key IN ({','.join('?' * len(chunk))})", chunk)
