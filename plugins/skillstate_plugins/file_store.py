"""The ``file`` store: the embedded default. One pretty JSON record and one journal per run.

URLs: ``file:PATH`` (relative to the current directory when opened), ``file:///abs/path``,
or ``file:`` alone for the default ``.skillstate/state``. Per run, in the root::

    <run-id>.json       the record (RunRecord.to_dict(), pretty, trailing newline)
    <run-id>.jsonl      the append-only journal, one compact JournalEntry per line
    <run-id>.lock       the per-run lock (flock), held around read–check–write
    <run-id>.json.new   the next record, present only while a commit is in flight

A commit, under the lock: recover if a ``.json.new`` is left over; compare the
stored version; write ``.json.new`` and fsync it; append the journal line
(``O_APPEND``) and fsync; rename ``.json.new`` over ``.json`` and fsync the
directory. So the journal is never behind the record, and a crash leaves at most one
journal entry ahead — whose record is already complete in ``.json.new``. Whoever
next opens the run finds ``.json.new``, takes the lock and finishes or discards the
commit (:meth:`FileStore._recover`). Full rules: ``docs/storage-format.md``.
"""

from __future__ import annotations

import builtins
import os
import urllib.parse
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import attrs

from skillstate.errors import RunExists, RunNotFound, StoreError, VersionConflict
from skillstate.markers import hookimpl
from skillstate.merge import merge_patch
from skillstate.records import JournalEntry, RunRecord, RunSummary, StoreSpec
from skillstate.store import Store, StoreWarning, check_run_id, is_valid_run_id
from skillstate_plugins.file_store_format import (
    ParsedRecord,
    count_legacy_lines,
    decode_entries,
    decode_record,
    encode_entry,
    encode_record,
    entry_version,
    head_version,
    import_entry,
    parse_line,
)
from skillstate_plugins.file_store_io import (
    RunLock,
    Tail,
    append_line,
    fsync_dir,
    read_file,
    read_tail,
    store_error,
    truncate,
    write_new_file,
)

__all__ = ["DEFAULT_ROOT", "FileStore", "root_from_url", "skillstate_register_stores"]

DEFAULT_ROOT = ".skillstate/state"


def root_from_url(url: str) -> str:
    """The absolute root directory named by a ``file:`` URL."""
    if not url.lower().startswith("file:"):
        raise StoreError(f"'{url}' is not a file store URL (file:PATH or file:///abs/path)")
    rest = url[5:]
    if rest.startswith("//"):
        parts = urllib.parse.urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise StoreError(
                f"file store URL '{url}' names the host '{parts.netloc}'; "
                "use file:///abs/path or file:relative/path"
            )
        path = urllib.parse.unquote(parts.path)
    else:
        path = rest or DEFAULT_ROOT
    if "\x00" in path:
        raise StoreError(f"file store URL {url!r} contains a NUL byte")
    return os.path.abspath(os.path.expanduser(path))


class _Paths(NamedTuple):
    record: str
    journal: str
    pending: str
    lock: str


class FileStore(Store):
    """Runs as files in one directory; safe under crashes and concurrent processes."""

    def __init__(self, url: str = "file:") -> None:
        self.url = url
        self.root = root_from_url(url)

    # -- paths ----------------------------------------------------------------
    def _paths(self, run_id: str) -> _Paths:
        base = f"{self.root}{os.sep}{check_run_id(run_id)}"
        return _Paths(base + ".json", base + ".jsonl", base + ".json.new", base + ".lock")

    def _ensure_root(self) -> None:
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as exc:
            raise store_error(exc, "create the store directory", self.root) from None

    # -- reading --------------------------------------------------------------
    def _parsed(self, run_id: str, paths: _Paths) -> ParsedRecord | None:
        data = read_file(paths.record)
        return None if data is None else decode_record(data, run_id, paths.record)

    def _record(self, run_id: str, parsed: ParsedRecord, paths: _Paths) -> RunRecord:
        legacy_version = 0
        if parsed.legacy:
            legacy_version = count_legacy_lines(read_file(paths.journal))
        try:
            return parsed.to_record(run_id, legacy_version)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"record file {paths.record} is damaged: {exc}") from None

    def _read(self, run_id: str, paths: _Paths) -> RunRecord:
        parsed = self._parsed(run_id, paths)
        if parsed is None:
            raise RunNotFound(run_id)
        return self._record(run_id, parsed, paths)

    def _settle(self, run_id: str, paths: _Paths) -> None:
        """If a commit is in flight or was interrupted, wait for it or finish it."""
        if not os.path.lexists(paths.pending):
            return
        try:
            with RunLock(paths.lock).hold():
                self._recover(run_id, paths)
        except StoreError as exc:
            # e.g. a read-only copy of a store: the record is still the last complete one
            warnings.warn(
                f"run {run_id}: an interrupted commit could not be repaired ({exc}); "
                "reading the last complete record",
                StoreWarning,
                stacklevel=3,
            )

    def get(self, run_id: str) -> RunRecord:
        paths = self._paths(run_id)
        self._settle(run_id, paths)
        return self._read(run_id, paths)

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        paths = self._paths(run_id)
        self._settle(run_id, paths)
        parsed = self._parsed(run_id, paths)
        if parsed is None:
            raise RunNotFound(run_id)
        data = read_file(paths.journal) or b""
        state = parsed.data if parsed.legacy else parsed.data["state"]
        return decode_entries(data, paths.journal, state)

    def list(self, skill: str | None = None) -> builtins.list[RunSummary]:
        try:
            entries = {entry.name: entry for entry in os.scandir(self.root)}
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise store_error(exc, "list", self.root) from None
        out = []
        for name in sorted(entries):
            if not name.endswith(".json"):
                continue
            run_id = name[:-5]
            try:
                if not is_valid_run_id(run_id):
                    raise StoreError(f"'{name}' is not named after a valid run id")
                if entries[name].is_symlink():
                    raise StoreError(f"{entries[name].path} is a symbolic link")
                if name + ".new" in entries:  # a commit in flight, or interrupted
                    record = self.get(run_id)
                else:
                    record = self._read(run_id, self._paths(run_id))
            except RunNotFound:
                continue  # deleted while we listed
            except StoreError as exc:
                warnings.warn(f"skipping {name}: {exc}", StoreWarning, stacklevel=2)
                continue
            if skill is None or record.skill == skill:
                out.append(record.summary())
        return out

    # -- writing --------------------------------------------------------------
    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        paths = self._paths(record.id)
        data, line = encode_record(record), encode_entry(entry)
        self._ensure_root()
        with RunLock(paths.lock).hold():
            self._recover(record.id, paths)
            if os.path.lexists(paths.record):
                raise RunExists(record.id)
            # A journal without a record is debris of a deleted run: start afresh.
            self._write(paths, data, line, journal_size=0, fresh_journal=True)

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        paths = self._paths(record.id)
        data, line = encode_record(record), encode_entry(entry)
        with self._existing_run_lock(paths, record.id):
            self._recover(record.id, paths)
            stored = read_file(paths.record)
            if stored is None:
                raise RunNotFound(record.id)
            version = head_version(stored, record.id)  # the fast path: no full parse
            legacy = None
            if version is None:
                parsed = decode_record(stored, record.id, paths.record)
                current = self._record(record.id, parsed, paths)
                version, legacy = current.version, (current if parsed.legacy else None)
            if version != expected_version:
                raise VersionConflict(record.id, expected_version, version)
            tail = self._clean_tail(paths)
            size = tail.size if tail is not None else 0
            if legacy is not None:
                if size == 0:  # a rig-state run without a journal: record its state first
                    line = encode_entry(import_entry(legacy.state, legacy.updated)) + line
            elif self._tail_version(tail, paths) != version:
                raise StoreError(
                    f"run '{record.id}': its journal does not end at version {version} "
                    f"like its record; nothing was written (run 'skillstate verify {record.id}')"
                )
            self._write(paths, data, line, journal_size=size, fresh_journal=False)

    @contextmanager
    def _existing_run_lock(self, paths: _Paths, run_id: str) -> Iterator[None]:
        """The run's lock; :class:`RunNotFound` (not a path error) when the root is missing."""
        try:
            fd = RunLock(paths.lock).acquire()
        except StoreError:
            if not os.path.isdir(self.root):
                raise RunNotFound(run_id) from None
            raise
        try:
            yield
        finally:
            os.close(fd)

    def _write(
        self, paths: _Paths, data: bytes, line: bytes, journal_size: int, fresh_journal: bool
    ) -> None:
        """The commit proper, under the lock: next record, journal line, rename."""
        write_new_file(paths.pending, data)
        try:
            if fresh_journal:
                write_new_file(paths.journal, line)
            else:
                append_line(paths.journal, line, journal_size)
        except StoreError:
            _unlink(paths.pending)
            raise
        try:
            os.replace(paths.pending, paths.record)
        except OSError as exc:
            try:  # undo: the journal line was never acknowledged
                truncate(paths.journal, journal_size)
                os.unlink(paths.pending)
            except (OSError, StoreError):
                pass  # left for recovery, which will finish the commit
            raise store_error(exc, "replace the record", paths.record) from None
        fsync_dir(self.root)

    def delete(self, run_id: str) -> bool:
        paths = self._paths(run_id)
        if not os.path.isdir(self.root):
            return False
        with RunLock(paths.lock).hold():
            existed = os.path.lexists(paths.record) or os.path.lexists(paths.pending)
            for path in (paths.record, paths.pending, paths.journal, paths.lock):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    raise store_error(exc, "delete", path) from None
            fsync_dir(self.root)
        return existed

    # -- recovery -------------------------------------------------------------
    def _clean_tail(self, paths: _Paths) -> Tail | None:
        """The journal's tail after repairing a torn last line (call under the lock).

        A partial line left by a killed writer is cut off; a last line that is
        complete but for its newline (killed between the two) gets its newline.
        """
        tail = read_tail(paths.journal)
        if tail is None or not tail.torn:
            return tail
        try:
            complete = isinstance(parse_line(tail.torn), dict)
        except ValueError:
            complete = False
        if complete:
            append_line(paths.journal, b"\n", tail.size)
        else:
            truncate(paths.journal, tail.clean_size)
        return read_tail(paths.journal)

    def _tail_version(self, tail: Tail | None, paths: _Paths) -> int:
        """The version of the journal's last entry (0 for an empty journal)."""
        if tail is None or tail.last is None:
            return 0
        try:
            version = entry_version(parse_line(tail.last))
        except ValueError as exc:
            raise StoreError(f"journal {paths.journal} has a damaged last line: {exc}") from None
        if version is None:  # a rig-state line: versions are positions
            return max(1, count_legacy_lines(read_file(paths.journal)))
        return version

    def _recover(self, run_id: str, paths: _Paths) -> None:
        """Finish or discard an interrupted commit (under the lock).

        ``.json.new`` exists only between the start and the end of a commit. Its
        journal line was appended after it was fsynced and before it was renamed, so:
        journal at the record's version → the line never made it, discard
        ``.json.new``; one ahead → rename ``.json.new`` into place (roll forward).
        """
        if not os.path.lexists(paths.pending):
            return
        tail = self._clean_tail(paths)
        parsed = self._parsed(run_id, paths)
        current = None if parsed is None else self._record(run_id, parsed, paths)
        have = 0 if current is None else current.version
        logged = self._tail_version(tail, paths)
        if logged == have or (current is None and logged == 0):
            _unlink(paths.pending)
        elif logged == have + 1:
            self._roll_forward(run_id, paths, current, tail)
        else:
            raise StoreError(
                f"run '{run_id}': its journal ends at version {logged} but its record is at "
                f"version {have}; the store was changed outside skillstate (see 'skillstate verify')"
            )
        fsync_dir(self.root)

    def _roll_forward(
        self, run_id: str, paths: _Paths, current: RunRecord | None, tail: Tail | None
    ) -> None:
        assert tail is not None and tail.last is not None
        entry = JournalEntry.from_dict(parse_line(tail.last))
        pending = read_file(paths.pending)
        try:
            ready = pending is not None and (
                self._record(run_id, decode_record(pending, run_id, paths.pending), paths).version
                == entry.version
            )
        except StoreError:
            ready = False
        if ready:
            try:
                os.replace(paths.pending, paths.record)
            except OSError as exc:
                raise store_error(exc, "replace the record", paths.record) from None
            return
        # .json.new was lost (a disk that lied about fsync): rebuild from the journal.
        if current is None:  # nothing to build on: the creation never completed
            truncate(paths.journal, tail.last_start)
            _unlink(paths.pending)
            return
        state = merge_patch(current.state, entry.patch)
        if entry.set:
            state = merge_patch(state, entry.set)
        rebuilt = attrs.evolve(
            current,
            state=state,
            version=entry.version,
            updated=entry.ts or current.updated,
            status=entry.status or current.status,
            step=entry.turn if entry.turn is not None else current.step,
        )
        write_new_file(paths.pending, encode_record(rebuilt))
        try:
            os.replace(paths.pending, paths.record)
        except OSError as exc:
            raise store_error(exc, "replace the record", paths.record) from None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise store_error(exc, "remove", path) from None


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], Any]) -> None:
    register(
        StoreSpec(
            scheme="file",
            factory=FileStore,
            description="files in a directory (default .skillstate/state); durable, multi-process",
        )
    )
