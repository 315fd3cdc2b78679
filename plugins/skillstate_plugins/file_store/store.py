"""The ``file`` store: the embedded default. One pretty JSON record and one journal per run.

URLs: ``file:PATH`` (relative to the current directory when opened), ``file:///abs/path``,
or ``file:`` alone for the default ``.skillstate/state``. Per run, in the root::

    <run-id>.json       the record (RunRecord.to_dict(), pretty, trailing newline)
    <run-id>.jsonl      the append-only journal, one compact JournalEntry per line
    <run-id>.lock       the per-run lock (flock), held around read–check–write
    <run-id>.json.new   the next record, present only while a commit is in flight (or cut short)

A commit, under the lock: take the current record from this store's memory of the
run or read it (recovering first if it is not level with the journal); compare the
stored version; write ``.json.new`` (not synced); append the journal line
(``O_APPEND``) and ``fdatasync`` it — the commit point, the only sync; swap
``.json.new`` in for ``.json``. The record is never ahead of the journal, and every
journal line carries the record fields its entry does not imply, so whoever next
opens the run after a crash or a power loss replays the lines the record lacks
(:mod:`.recovery`). Full rules:
``docs/storage-format.md``.
"""

from __future__ import annotations

import builtins
import os
import urllib.parse
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import attrs

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Store,
    StoreError,
    StoreWarning,
    VersionConflict,
    check_run_id,
    is_valid_run_id,
)

from .cache import OpenRuns
from .fileio import (
    OpenJournal,
    RunFiles,
    RunLock,
    fsync_dir,
    read_file,
    remove,
    store_error,
    swap_in,
    truncate,
    write_new_file,
)
from .format import (
    ParsedRecord,
    count_legacy_lines,
    decode_entries,
    decode_record,
    encode_entry,
    encode_record,
    import_entry,
)
from .recovery import Loaded, check_version, recover
from .replay import record_delta

__all__ = ["DEFAULT_ROOT", "FileStore", "root_from_url"]

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


class FileStore(Store):
    """Runs as files in one directory; safe under crashes and concurrent processes."""

    def __init__(self, url: str = "file:") -> None:
        self.url = url
        self.root = root_from_url(url)
        self._open = OpenRuns()

    def close(self) -> None:
        self._open.clear()

    # -- paths ----------------------------------------------------------------
    def _paths(self, run_id: str) -> RunFiles:
        base = f"{self.root}{os.sep}{check_run_id(run_id)}"
        return RunFiles(base + ".json", base + ".jsonl", base + ".json.new", base + ".lock")

    def _ensure_root(self) -> None:
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as exc:
            raise store_error(exc, "create the store directory", self.root) from None

    # -- reading --------------------------------------------------------------
    def _parsed(self, run_id: str, paths: RunFiles) -> ParsedRecord | None:
        data = read_file(paths.record)
        return None if data is None else decode_record(data, run_id, paths.record)

    def _parsed_or_blank(self, run_id: str, paths: RunFiles) -> tuple[ParsedRecord | None, bool]:
        """The record file parsed (``None`` if missing), or ``(None, True)`` when it is empty
        or all NUL bytes — what a power loss leaves of a record swapped in unsynced."""
        data = read_file(paths.record)
        if data is None:
            return None, False
        if not data.strip(b"\x00"):
            return None, True
        return decode_record(data, run_id, paths.record), False

    def _record(self, run_id: str, parsed: ParsedRecord, paths: RunFiles) -> RunRecord:
        legacy_version = 0
        if parsed.legacy:
            legacy_version = count_legacy_lines(read_file(paths.journal))
        try:
            return parsed.to_record(run_id, legacy_version)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"record file {paths.record} is damaged: {exc}") from None

    def _current(self, run_id: str, paths: RunFiles) -> ParsedRecord | None:
        """The record, brought level with its journal first when it may not be.

        The usual cost is one read and two ``stat`` calls: no ``.json.new`` and the
        record's ``journalSize`` equal to the journal's size mean that no line is
        missing from it and no commit is in flight. Otherwise (a commit in flight, or
        one a crash cut short) the lock is taken — which waits for a running commit —
        and the record recovered.
        """
        parsed, blank = self._parsed_or_blank(run_id, paths)
        if blank or self._behind(parsed, paths):
            self._settle(run_id, paths)
            parsed = self._parsed(run_id, paths)
        return parsed

    @staticmethod
    def _behind(parsed: ParsedRecord | None, paths: RunFiles, journal_size: int = -1) -> bool:
        """Whether a commit is in flight or was cut short: ``.json.new`` is there, or the
        journal holds lines the record does not show yet."""
        if os.path.lexists(paths.pending):
            return True
        if parsed is None or parsed.journal_size is None:  # no record, or rig-state's / older
            return False
        if journal_size < 0:
            try:
                journal_size = os.lstat(paths.journal).st_size
            except FileNotFoundError:
                return True
            except OSError as exc:
                raise store_error(exc, "read", paths.journal) from None
        return journal_size != parsed.journal_size

    def _settle(self, run_id: str, paths: RunFiles) -> None:
        """Under the lock, wait for a commit in flight or finish one a crash cut short."""
        try:
            with RunLock(paths.lock).hold():
                self._recover(run_id, paths)
        except StoreError as exc:
            # e.g. a read-only copy of a store: the record is still the last complete one
            warnings.warn(
                f"run {run_id}: its record could not be brought level with its journal "
                f"({exc}); reading the record as it is",
                StoreWarning,
                stacklevel=4,
            )

    def get(self, run_id: str) -> RunRecord:
        paths = self._paths(run_id)
        hit = self._open.hit(run_id, paths.journal, paths.pending)
        if hit is not None:
            return hit.record
        return self._get(run_id, paths, remember=True)

    def _get(self, run_id: str, paths: RunFiles, *, remember: bool) -> RunRecord:
        parsed = self._current(run_id, paths)
        if parsed is None:
            raise RunNotFound(run_id)
        record = self._record(run_id, parsed, paths)
        if remember and parsed.journal_size is not None:
            self._open.remember(run_id, paths.journal, record, parsed.journal_size)
        return record

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        paths = self._paths(run_id)
        parsed = self._current(run_id, paths)
        if parsed is None:
            raise RunNotFound(run_id)
        data = read_file(paths.journal) or b""
        state = parsed.data if parsed.legacy else parsed.data["state"]
        return decode_entries(data, paths.journal, state)

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        try:
            entries = {entry.name: entry for entry in os.scandir(self.root)}
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise store_error(exc, "list", self.root) from None
        # A run is a <id>.json, or a lone <id>.json.new: a creation that was interrupted.
        names = {n[:-4] for n in entries if n.endswith(".json.new")} - entries.keys()
        names.update(n for n in entries if n.endswith(".json"))
        out = []
        for name in sorted(names):
            run_id = name[:-5]
            try:
                if not is_valid_run_id(run_id):
                    raise StoreError(f"'{name}' is not named after a valid run id")
                if name in entries and entries[name].is_symlink():
                    raise StoreError(f"{entries[name].path} is a symbolic link")
                paths = self._paths(run_id)
                hit = self._open.hit(run_id, paths.journal, paths.pending)
                record = hit.record if hit else self._get(run_id, paths, remember=False)
            except RunNotFound:
                continue  # deleted while we listed
            except StoreError as exc:
                warnings.warn(f"skipping {name}: {exc}", StoreWarning, stacklevel=2)
                continue
            if skill is None or record.skill == skill:
                out.append(RunSummary.of(record, keys))
        return out

    def _load(self, run_id: str, paths: RunFiles) -> Loaded:
        parsed, blank = self._parsed_or_blank(run_id, paths)
        if parsed is None:
            return Loaded(None, None, blank=blank)
        return Loaded(self._record(run_id, parsed, paths), parsed.journal_size)

    def _recover(self, run_id: str, paths: RunFiles) -> None:
        """Bring the record level with its journal (under the lock); see the recovery module."""
        recover(run_id, paths, self.root, lambda: self._load(run_id, paths))

    # -- writing --------------------------------------------------------------
    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        paths = self._paths(record.id)
        line = encode_entry(entry, record_delta(None, record, entry))
        data = encode_record(record, len(line))
        self._ensure_root()
        with RunLock(paths.lock).hold():
            self._recover(record.id, paths)
            if os.path.lexists(paths.record):
                raise RunExists(record.id)
            write_new_file(paths.pending, data)
            try:  # a journal without a record is debris of a deleted run: start afresh
                write_new_file(paths.journal, line)
            except StoreError:
                remove(paths.pending)
                raise
            self._publish(paths, journal_size=0)
        self._open.remember(record.id, paths.journal, record, len(line))

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        """Write the next record: one ``fdatasync`` (of the journal line) per commit.

        Under the lock: the record is brought level with its journal if it is not;
        the version is checked against the journal's last line; ``.json.new`` is
        written (not synced); the journal line — the entry plus the record fields it
        does not imply — is appended and ``fdatasync``ed, which is the commit point;
        then ``.json.new`` is swapped in for the record.
        """
        paths = self._paths(record.id)
        run_id = record.id
        try:
            with self._existing_run_lock(paths, run_id):
                journal = OpenJournal(paths.journal)
                try:
                    before, size = self._before(run_id, paths, journal, expected_version)
                    line = encode_entry(entry, record_delta(before, record, entry))
                    if size < 0:  # a rig-state run without a journal: record its state first
                        first = import_entry(before.state, before.updated)
                        start = attrs.evolve(before, version=1)
                        line = encode_entry(first, record_delta(None, start, first)) + line
                        size = 0
                    data = encode_record(record, size + len(line))
                    write_new_file(paths.pending, data, sync=False)
                    try:
                        journal.append(line)
                    except StoreError:
                        remove(paths.pending)
                        raise
                finally:
                    journal.close()
                self._swap(paths, journal_size=size)
        except BaseException:
            self._open.drop(run_id)
            raise
        self._open.remember(run_id, paths.journal, record, size + len(line))

    def _before(
        self, run_id: str, paths: RunFiles, journal: OpenJournal, expected: int
    ) -> tuple[RunRecord, int]:
        """The record being replaced and the journal's size (-1: import), version checked.

        When this store remembers the run and the journal is the same file with the
        same size, nothing is read; otherwise the record is read (recovered first if
        it is not level with the journal) and the version checked on the journal's
        last line.
        """
        hit = self._open.hit(run_id, paths.journal, paths.pending)
        if hit is not None and hit.ino == journal.ino and hit.journal_size == journal.size:
            if hit.record.version != expected:
                raise VersionConflict(run_id, expected, hit.record.version)
            return hit.record, journal.size
        parsed = self._level(run_id, paths, journal)
        size = check_version(run_id, paths, journal, expected, lambda: self._found(run_id, paths))
        return self._record(run_id, parsed, paths), size

    def _level(self, run_id: str, paths: RunFiles, journal: OpenJournal) -> ParsedRecord:
        """The record under the lock, recovered first if it is not level with ``journal``."""
        parsed, blank = self._parsed_or_blank(run_id, paths)
        if blank or self._behind(parsed, paths, journal.size):
            self._recover(run_id, paths)
            journal.reopen()
            parsed = self._parsed(run_id, paths)
        if parsed is None:
            remove(paths.lock)  # held, so removing it is safe (see RunLock)
            raise RunNotFound(run_id)
        return parsed

    def _found(self, run_id: str, paths: RunFiles) -> tuple[RunRecord, bool] | None:
        """The record and whether it is a bare rig-state state file; ``None`` if missing."""
        parsed = self._parsed(run_id, paths)
        return None if parsed is None else (self._record(run_id, parsed, paths), parsed.legacy)

    def _publish(self, paths: RunFiles, journal_size: int) -> None:
        """Rename the created record into place and sync the directory (a creation)."""
        try:
            os.replace(paths.pending, paths.record)
        except OSError as exc:
            self._undo(paths, journal_size)
            raise store_error(exc, "replace the record", paths.record) from None
        fsync_dir(self.root)

    def _swap(self, paths: RunFiles, journal_size: int) -> None:
        """Swap the next record in; no sync: the journal line, synced, can rebuild it."""
        try:
            swap_in(paths.pending, paths.record)
        except OSError as exc:
            self._undo(paths, journal_size)
            raise store_error(exc, "replace the record", paths.record) from None

    @staticmethod
    def _undo(paths: RunFiles, journal_size: int) -> None:
        """After a failed rename: cut the unacknowledged line off, drop ``.json.new``.

        If even that fails, recovery finishes the commit on the next open.
        """
        try:
            truncate(paths.journal, journal_size)
            os.unlink(paths.pending)
        except (OSError, StoreError):
            pass

    @contextmanager
    def _existing_run_lock(self, paths: RunFiles, run_id: str) -> Iterator[None]:
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

    def delete(self, run_id: str) -> bool:
        paths = self._paths(run_id)
        if not os.path.isdir(self.root):
            return False
        self._open.drop(run_id)
        with RunLock(paths.lock).hold():
            existed = os.path.lexists(paths.record) or os.path.lexists(paths.pending)
            for path in (paths.record, paths.pending, paths.journal, paths.lock):
                remove(path)
            fsync_dir(self.root)
        return existed
