"""The ``redis:`` store (registered by :mod:`skillstate_redis`).

Runs in a Redis server shared by many processes and machines (redis-py). URLs and
their options: :mod:`skillstate_redis.url`; the keys and the Lua scripts every write
is: :mod:`skillstate_redis.scripts`.

Writes: ``create``, ``commit``, ``import_run`` and ``delete`` are each ONE Lua script,
run by the server alone: it checks the run's key is this store's and its version is the
expected one, then writes the record, the journal entry and the snapshot, or writes
nothing. Two writers of one run never fork its history.

Durability: at ``process`` a write is acknowledged once the server has applied it (in
its memory, and in its append-only file's OS buffer when it keeps one). At ``full``
the store first checks, with ``CONFIG GET``, that the server runs ``appendonly yes``
with ``appendfsync always`` (the server then fsyncs each write before it replies), and
refuses to open otherwise.

Reads are paged: listing walks the run index ``ZRANGE … BYLEX LIMIT`` 500 ids at a
time, a history window reads just its versions (``HMGET``), and a replay starts at the
latest snapshot at or before it. ``KEYS`` is never used.

Connections (:mod:`skillstate_redis.connection`): redis-py's pool, its own retries off;
a read that meets a dead connection is retried once on a fresh one; so is a write,
after looking its journal entry up (if it is there the write had landed).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Snapshot,
    Store,
    StoreError,
    VersionConflict,
    check_run_id,
    compact,
)

from .connection import RedisConnection
from .scripts import MARK

if TYPE_CHECKING:
    import redis

__all__ = ["PAGE", "RedisStore"]

PAGE = 500
"""Ids a listing reads at a time, and journal entries a journal read asks for at a time."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse_constant)


class RedisStore(RedisConnection, Store):
    """Runs in Redis hashes under one key prefix; connected on first use."""

    def _foreign(self, run_id: str, key: str | None = None) -> StoreError:
        shown = key or self._keys(run_id)[0]
        return StoreError(
            f"run '{run_id}': key '{shown}' in {self.shown} is not a run this store wrote; "
            "it is left as it is (choose another ?prefix=)"
        )

    # -- writes ----------------------------------------------------------------
    def _create(
        self, what: str, record: RunRecord, entries: Sequence[JournalEntry], snaps: dict[int, str]
    ) -> None:
        args: list[str] = [
            MARK,
            record.id,
            str(record.version),
            record.skill,
            record.status,
            record.updated,
            compact(record.to_dict()),
        ]
        for entry in entries:
            args += [str(entry.version), compact(entry.to_dict()), snaps.get(entry.version, "")]
        keys = [*self._keys(record.id), self._index]
        answer = self._run(
            what,
            lambda client: self._scripts["create"](keys=keys, args=args, client=client),
            self._entry_landed(record.id, entries[-1]),
        )
        if answer == "exists":
            raise RunExists(record.id)
        if answer == "foreign journal":
            raise self._foreign(record.id, f"{keys[1]}' or '{keys[2]}")
        if answer not in (None, "ok"):
            raise self._foreign(record.id)

    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        check_run_id(record.id)
        self._create(f"create run '{record.id}'", record, [entry], {})

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        """Write ``record`` and its whole journal (with its snapshots) in one script."""
        snaps = {
            entry.version: self._snapshot_member(Snapshot.of(current))
            for current, entry in self.import_steps(record, entries, merge)
            if self.snapshot_due(entry.version)
        }
        self._create(f"import run '{record.id}'", record, entries, snaps)

    @staticmethod
    def _snapshot_member(snapshot: Snapshot) -> str:
        return f"{snapshot.version} {compact(snapshot.to_dict())}"

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        snapshot = (
            self._snapshot_member(Snapshot.of(record)) if self.snapshot_due(record.version) else ""
        )
        args = [
            MARK,
            str(expected_version),
            str(record.version),
            record.skill,
            record.status,
            record.updated,
            compact(record.to_dict()),
            compact(entry.to_dict()),
            snapshot,
        ]
        keys = self._keys(record.id)
        answer = self._run(
            f"commit run '{record.id}' version {record.version}",
            lambda client: self._scripts["commit"](keys=keys, args=args, client=client),
            self._entry_landed(record.id, entry),
        )
        self._refused(record.id, answer, expected_version)

    def _refused(self, run_id: str, answer: Any, expected: int | None) -> None:
        """Raise what a script's ``answer`` says went wrong (nothing when it wrote)."""
        if answer in (None, "ok"):
            return
        if answer == "missing":
            raise RunNotFound(run_id)
        if isinstance(answer, str) and answer.startswith("conflict ") and expected is not None:
            actual = answer.split(" ", 1)[1]
            raise VersionConflict(run_id, expected, int(actual) if actual.isdigit() else -1)
        raise self._foreign(run_id)

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        """Remove the run; with ``expected_version``, only while it is at that version."""
        check_run_id(run_id)
        keys = [*self._keys(run_id), self._index]
        args = [MARK, run_id, "" if expected_version is None else str(int(expected_version))]
        answer = self._run(
            f"delete run '{run_id}'",
            lambda client: self._scripts["delete"](keys=keys, args=args, client=client),
        )
        if answer == "missing":
            return False
        self._refused(run_id, answer, expected_version)
        return True

    # -- reads -----------------------------------------------------------------
    def _fields(self, run_id: str, *names: str) -> list[Any] | None:
        """The run hash's ``names`` (after the mark), ``None`` when there is no run."""
        key = self._keys(run_id)[0]

        def work(client: redis.Redis) -> Any:
            pipe = client.pipeline(transaction=True)  # one round trip, one moment
            pipe.type(key)
            pipe.hmget(key, ["skillstate", *names])
            kind, values = pipe.execute(raise_on_error=False)
            if kind == "none":
                return None
            if kind != "hash":
                return "foreign"
            if isinstance(values, Exception):
                raise values
            return values

        values = self._run(f"read run '{run_id}'", work)
        if values is None:
            return None
        if values == "foreign":
            raise self._foreign(run_id)
        if values[0] != MARK:
            raise self._foreign(run_id)
        return list(values[1:])

    def _record(self, run_id: str, text: Any) -> RunRecord:
        try:
            return RunRecord.from_dict(_loads(str(text)))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"run '{run_id}' in {self.shown} is damaged: {exc}") from None

    def get(self, run_id: str) -> RunRecord:
        check_run_id(run_id)
        found = self._fields(run_id, "record")
        if found is None:
            raise RunNotFound(run_id)
        return self._record(run_id, found[0])

    def exists(self, run_id: str) -> bool:
        check_run_id(run_id)
        return self._fields(run_id, "version") is not None

    def _ids(self) -> Iterator[builtins.list[str]]:
        """The run ids in order, a page at a time."""
        low = "-"
        while True:
            page: builtins.list[str] = self._run(
                "list runs",
                lambda client, low=low: client.zrange(  # type: ignore[misc]
                    self._index, low, "+", bylex=True, offset=0, num=PAGE
                ),
            )
            if page:
                yield page
            if len(page) < PAGE:
                return
            low = f"({page[-1]}"

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        keys = tuple(dict.fromkeys(keys))
        names = ["skillstate", "skill", "status", "updated", "version"]
        if keys:
            names.append("record")
        out: builtins.list[RunSummary] = []
        for page in self._ids():

            def work(client: redis.Redis, page: builtins.list[str] = page) -> Any:
                pipe = client.pipeline(transaction=False)
                for run_id in page:
                    pipe.hmget(self._keys(run_id)[0], names)
                return pipe.execute(raise_on_error=False)

            for run_id, values in zip(page, self._run("list runs", work), strict=True):
                if isinstance(values, Exception) or values[0] != MARK:
                    if isinstance(values, Exception) or any(v is not None for v in values):
                        self.warn(f"skipping {run_id}: {self._foreign(run_id)}", run_id, 2)
                    continue  # gone since the page was read
                if skill is not None and values[1] != skill:
                    continue
                try:
                    if keys:
                        out.append(RunSummary.of(self._record(run_id, values[5]), keys))
                    else:
                        out.append(
                            RunSummary(
                                id=run_id,
                                skill=values[1],
                                status=values[2],
                                updated=values[3],
                                version=int(values[4]),
                            )
                        )
                except (StoreError, TypeError, ValueError) as exc:
                    self.warn(f"skipping {run_id}: {exc}", run_id, 2)
        return out

    def _entries(self, run_id: str, versions: range) -> builtins.list[JournalEntry]:
        journal = self._keys(run_id)[1]
        out: builtins.list[JournalEntry] = []
        for start in range(versions.start, versions.stop, PAGE):
            wanted = [str(v) for v in range(start, min(start + PAGE, versions.stop))]
            texts = self._run(
                f"read the journal of run '{run_id}'",
                lambda client, wanted=wanted: client.hmget(journal, wanted),  # type: ignore[misc]
            )
            for version, text in zip(wanted, texts, strict=True):
                if text is None:
                    continue
                try:
                    out.append(JournalEntry.from_dict(_loads(text)))
                except (TypeError, ValueError) as exc:
                    raise StoreError(
                        f"the journal of run '{run_id}' in {self.shown} is damaged at version "
                        f"{version}: {exc}"
                    ) from None
        return out

    def _last_version(self, run_id: str) -> int | None:
        found = self._fields(run_id, "version")
        return None if found is None else int(found[0])

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        last = self._last_version(run_id)
        if last is None:
            raise RunNotFound(run_id)
        return self._entries(run_id, range(1, last + 1))

    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        last = self._last_version(run_id)
        if last is None:
            return []
        stop = last + 1 if before is None else min(before, last + 1)
        return self._entries(run_id, range(max(after, 0) + 1, stop))

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        check_run_id(run_id)
        key = self._keys(run_id)[2]
        found = self._snapshots(
            run_id,
            lambda client: client.zrange(
                key, version, "-inf", byscore=True, desc=True, offset=0, num=1
            ),
        )
        return found[0] if found else None

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        check_run_id(run_id)
        key = self._keys(run_id)[2]
        return self._snapshots(run_id, lambda client: client.zrange(key, 0, -1))

    def _snapshots(self, run_id: str, work: Callable[[Any], Any]) -> builtins.list[Snapshot]:
        members = self._run(f"read the snapshots of run '{run_id}'", work)
        try:
            out = []
            for member in members:
                version, _, text = str(member).partition(" ")
                out.append(Snapshot.from_dict(int(version), _loads(text)))
            return out
        except (TypeError, ValueError) as exc:
            raise StoreError(f"run '{run_id}' has a damaged snapshot: {exc}") from None
