"""A skillstate storage backend on the standard library's ``dbm``: the ``dbm:`` URL scheme.

``dbm:/var/lib/agent/runs`` (or ``dbm:///var/lib/agent/runs``, or a relative
``dbm:runs``) keeps every run in one dbm database at that path. ``dbm.open`` picks
the best module the interpreter has (gdbm, ndbm, else the pure-Python dbm.dumb),
so the files next to the path depend on the platform.

Layout, one key per value:

- ``r/<run id>`` — the run record as compact JSON (key order kept);
- ``j/<run id>/<version, 10 digits>`` — one journal entry.

Every operation opens the database, does its work and closes it again, under an
``flock`` on ``<path>.lock``: shared for reads, exclusive for writes. That is what
makes two store objects (threads or processes) safe on one database, and the
version check of ``commit`` happen inside the same locked step as the write.

A commit writes the journal entry first and the record second. The record's
version is the commit point: ``journal()`` returns entries up to the record's
version only, so an entry left behind by a crash between the two writes is
invisible and is overwritten by the next commit of that version. (dbm itself is
not crash-safe the way the bundled ``file:`` and ``sqlite:`` stores are; this
package is an example of the plugin contract, not a recommendation.)
"""

from __future__ import annotations

import builtins
import contextlib
import dbm
import fcntl
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Store,
    StoreError,
    StoreSpec,
    VersionConflict,
    check_run_id,
    hookimpl,
)

__all__ = ["DbmStore", "parse_dbm_url", "skillstate_register_stores"]

__version__ = "0.1.0"


def parse_dbm_url(url: str) -> Path:
    """The database path of a ``dbm:`` URL; :class:`StoreError` naming the URL if there is none."""
    scheme, _, rest = url.partition(":")
    if scheme.lower() != "dbm":
        raise StoreError(f"bad dbm URL '{url}': it must start with dbm:")
    if rest.startswith("//"):
        rest = rest[2:]
    if not rest or rest.endswith("/"):
        raise StoreError(f"bad dbm URL '{url}': expected dbm:/path/to/database (a file name)")
    return Path(rest)


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _entry_key(run_id: str, version: int) -> bytes:
    return f"j/{run_id}/{version:010d}".encode()


class DbmStore(Store):
    """Runs and journals in one dbm database, guarded by a lock file."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = parse_dbm_url(url)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._open(write=True):  # create the database once, under the lock
                pass
        except OSError as exc:
            raise StoreError(f"cannot open dbm store {url}: {exc.strerror or exc}") from None

    @contextlib.contextmanager
    def _open(self, write: bool) -> Iterator[Any]:
        lock_path = f"{self.path}.lock"
        with open(lock_path, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            try:
                with dbm.open(str(self.path), "c" if write else "r") as db:
                    yield db
                    if write and hasattr(db, "sync"):
                        db.sync()
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    @staticmethod
    def _record(db: Any, run_id: str) -> RunRecord | None:
        raw = db.get(f"r/{run_id}".encode())
        return None if raw is None else RunRecord.from_dict(json.loads(raw))

    def get(self, run_id: str) -> RunRecord:
        check_run_id(run_id)
        with self._open(write=False) as db:
            record = self._record(db, run_id)
        if record is None:
            raise RunNotFound(run_id)
        return record

    def exists(self, run_id: str) -> bool:
        check_run_id(run_id)
        with self._open(write=False) as db:
            return f"r/{run_id}".encode() in db

    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        check_run_id(record.id)
        with self._open(write=True) as db:
            if f"r/{record.id}".encode() in db:
                raise RunExists(record.id)
            db[_entry_key(record.id, entry.version)] = _dump(entry.to_dict())
            db[f"r/{record.id}".encode()] = _dump(record.to_dict())

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        with self._open(write=True) as db:
            current = self._record(db, record.id)
            if current is None:
                raise RunNotFound(record.id)
            if current.version != expected_version:
                raise VersionConflict(record.id, expected_version, current.version)
            db[_entry_key(record.id, entry.version)] = _dump(entry.to_dict())
            db[f"r/{record.id}".encode()] = _dump(record.to_dict())  # the commit point

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        out = []
        with self._open(write=False) as db:
            for key in db.keys():
                if key.startswith(b"r/"):
                    record = RunRecord.from_dict(json.loads(db[key]))
                    if skill is None or record.skill == skill:
                        out.append(RunSummary.of(record, keys))
        return sorted(out, key=lambda summary: summary.id)

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        with self._open(write=False) as db:
            record = self._record(db, run_id)
            if record is None:
                raise RunNotFound(run_id)
            return [
                JournalEntry.from_dict(json.loads(db[_entry_key(run_id, version)]))
                for version in range(1, record.version + 1)
            ]

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        check_run_id(run_id)
        with self._open(write=True) as db:  # the write lock: the check and delete are one step
            record = self._record(db, run_id)
            if record is None:
                return False
            if expected_version is not None and record.version != expected_version:
                raise VersionConflict(run_id, expected_version, record.version)
            del db[f"r/{run_id}".encode()]  # gone from here on; then the entries
            prefix = f"j/{run_id}/".encode()
            for key in [k for k in db.keys() if k.startswith(prefix)]:
                del db[key]
        return True


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    """Provide the ``dbm:`` scheme."""
    register(
        StoreSpec(
            scheme="dbm",
            factory=DbmStore,
            description="one standard-library dbm database (example plugin)",
        )
    )
