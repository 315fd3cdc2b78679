"""The ``file`` store: the embedded default. One pretty JSON record and one journal per run.

URLs: ``file:PATH`` (relative to the current directory when opened), ``file:///abs/path``,
or ``file:`` alone for the default ``.skillstate/state``; the one query option is
``?durability=full|process`` (default: the ``durability`` setting). Per run, in the root::

    <run-id>.json       the record (RunRecord.to_dict(), pretty, trailing newline)
    <run-id>.jsonl      the append-only journal, one compact JournalEntry per line
    <run-id>.lock       the per-run lock (flock), held around read–check–write
    <run-id>.json.new   the next record, present only while a commit is in flight (or cut short)

A commit (:mod:`.commit`), under the lock: take the current record from this store's
memory of the run or read it (recovering first if it is not level with the journal);
compare its version; write ``.json.new`` (not synced); append the journal line
(``O_APPEND``) and ``fdatasync`` it — the commit point, the only sync; put
``.json.new`` in place of ``.json``. A run the store remembers is committed through
the lock file and journal it keeps open (:mod:`.cache`): ten system calls. The record is never ahead of the journal, and every journal line carries
the record fields its entry does not imply, so whoever next opens the run after a
crash or a power loss replays the lines the record lacks (:mod:`.recovery`). A run
written by the original rig-state is read by :mod:`.legacy`. Full rules:
``docs/storage-format.md``.

At ``durability=process`` nothing is synced on the commit path: the journal line is
written (the OS holds it, so a killed process loses nothing) and handed to this
process's :class:`~.group_sync.PendingSyncs`, which ``fdatasync``s it at most a
second later; a creation hands over its record, journal and directory. After a power
loss the record may then be ahead of its journal, and recovery rolls it back to the
last journal line (with a warning); at ``full`` that state means the files were
changed outside skillstate and is refused (``skillstate verify --repair`` rolls back).
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    Store,
    StoreError,
    check_run_id,
)

from .cache import OpenRuns
from .commit import Committing, snapshot_of
from .deleting import Deleting, valid_id
from .fileio import (
    OpenJournal,
    RunFiles,
    discard,
    ends_with_newline,
    file_size,
    fsync_dir,
    put_in_place,
    read_file,
    remove,
    store_error,
    write_file,
)
from .format import (
    BLANK,
    RecordFile,
    decode_entries,
    decode_record,
    encode_entry,
    encode_record,
    parse_record_file,
)
from .legacy import read_rig_state_run, rig_state_entries, starts_with_rig_state_line
from .locks import RunLock, release
from .recovery import rebuild, recover
from .replay import record_delta
from .syncs import NO_FLOCK, flock_module
from .url import DEFAULT_ROOT, parse_file_url, root_from_url

if TYPE_CHECKING:
    from skillstate.plugin import RunSummary, Snapshot

    from .group_sync import PendingSyncs
    from .history import JournalView

__all__ = ["DEFAULT_ROOT", "FileStore", "root_from_url"]


class FileStore(Committing, Deleting, Store):
    """Runs as files in one directory; safe under crashes and concurrent processes."""

    def __init__(self, url: str = "file:") -> None:
        if flock_module() is None:
            raise StoreError(NO_FLOCK)
        self.url = url
        self.root, self.durability = parse_file_url(url)
        self._syncs: PendingSyncs | None = None
        if self.durability == "process":
            from .group_sync import pending_syncs

            self._syncs = pending_syncs()
        self._open = OpenRuns()

    def close(self) -> None:
        """Forget the runs this store remembers; at ``process``, sync what is pending."""
        self._open.clear()
        if self._syncs is not None:
            try:
                self._syncs.flush()
            except StoreError as exc:
                self.warn(str(exc), stacklevel=2)

    def found(self) -> bool:
        """Whether the store's directory exists (a first write creates it)."""
        return os.path.lexists(self.root)

    def _files(self, run_id: str) -> RunFiles:
        base = f"{self.root}{os.sep}{check_run_id(run_id)}"
        return RunFiles(base + ".json", base + ".jsonl", base + ".json.new", base + ".lock")

    # -- reading --------------------------------------------------------------
    @staticmethod
    def _read(run_id: str, files: RunFiles) -> RecordFile | None:
        """The record file as it is (``None`` if there is none): the one way it is read."""
        data = read_file(files.record)
        if data is None:
            return None
        try:
            value = parse_record_file(data, files.record)
            if value is None:
                return BLANK
            if "version" not in value:  # not ours: a state file of the original rig-state?
                return read_rig_state_run(run_id, value, files)
            return decode_record(value, run_id, files.record)
        except StoreError as exc:  # torn or garbage: recovery rebuilds it from the journal
            return RecordFile(None, -1, str(exc))

    @staticmethod
    def _is_level(stored: RecordFile | None, files: RunFiles, size: int = -1) -> bool:
        """Whether no commit is in flight or was cut short: no ``.json.new``, and the
        journal (``size`` bytes if known) is as long as the record says.

        Checked after reading the record, so a commit that slips in between is seen.
        """
        if os.path.lexists(files.pending):
            return False
        if stored is None:
            return True  # no run, and nothing to finish
        if stored.record is None and stored is not BLANK and not os.path.lexists(files.journal):
            return True  # damaged, and no journal to rebuild it from: nothing recovery can do
        size = size if size >= 0 else file_size(files.journal)
        return stored.journal_size == size

    def _is_whole(self, stored: RecordFile | None, files: RunFiles) -> bool:
        """Whether the journal's last byte, the record says, is a newline.

        After a power loss at ``process`` a journal can have its new size but not the
        data of its last lines (NUL bytes): as long as the record says, yet not level.
        One byte read, for a run this store does not remember. Checked at ``full`` too:
        a store written at ``process`` may be reopened at ``full`` after the power loss,
        and a commit must not append after those bytes (recovery then refuses it).
        """
        if stored is None or stored.record is None:
            return True
        return ends_with_newline(files.journal, stored.journal_size)

    def _recover(self, run_id: str, files: RunFiles) -> None:
        """Under the lock: bring the record level with its journal (see :mod:`.recovery`)."""
        recover(
            run_id,
            files,
            self.root,
            lambda: self._read(run_id, files),
            roll_back=self._syncs is not None,
        )

    def _current(
        self, run_id: str, files: RunFiles, journal: OpenJournal | None = None
    ) -> tuple[RunRecord, int]:
        """The record and the journal size it is level with, brought level first if need be.

        The usual cost is one read and two ``stat`` calls. Otherwise (a commit in
        flight, or one a crash cut short) the record is recovered under the lock —
        which waits for a running commit. A reader takes the lock here, and if recovery
        fails (a read-only copy of a store) reads the record as it is, with a
        store warning (:meth:`~skillstate.plugin.Store.warn`); a commit holds the lock already and passes its open
        ``journal``, and a failure is its error.
        """
        stored = self._read(run_id, files)
        level = self._is_level(stored, files, -1 if journal is None else journal.size)
        if not level or not self._is_whole(stored, files):
            if journal is not None:
                self._recover(run_id, files)
                journal.reopen()
            else:
                try:
                    with RunLock(files.lock).hold():
                        self._recover(run_id, files)
                except StoreError as exc:
                    self.warn(
                        f"run {run_id}: its record could not be brought level with its "
                        f"journal ({exc}); reading the record as it is",
                        stacklevel=3,
                    )
            stored = self._read(run_id, files)
        if stored is None:
            raise RunNotFound(run_id)
        if stored.record is None:
            if stored is BLANK:
                raise StoreError(f"record file {files.record} is empty")
            raise StoreError(stored.damage)
        return stored.record, stored.journal_size

    def get(self, run_id: str) -> RunRecord:
        record = self._open.hit(run_id)
        if record is not None:
            return record
        files = self._files(run_id)
        # The journal is opened before the record is read: remembered only if it is
        # still the file at the path afterwards, so a run deleted and created again in
        # between (a new journal, perhaps of the same length) is never paired with the
        # old record.
        journal = OpenRuns.open_journal(files)
        try:
            record, size = self._current(run_id, files)
        except BaseException:
            if journal is not None:
                journal.close()
            raise
        self._open.remember(run_id, files, record, size, journal)
        return record

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        state = self.get(run_id).state
        path = self._files(run_id).journal
        data = read_file(path) or b""
        if starts_with_rig_state_line(data):
            return rig_state_entries(data, path, state)
        return decode_entries(data, path)

    def raw_journal(self, run_id: str) -> str | None:
        """``<id>.jsonl`` as it is on disk, up to its last complete line."""
        data = read_file(self._files(run_id).journal)
        if data is None:
            return None
        return data[: data.rfind(b"\n") + 1].decode("utf-8", errors="replace")

    def _view(self, run_id: str) -> JournalView:
        """The run's journal, opened for reads by offset (after the record is brought
        level with it); imported here, so ``get``/``patch`` never load the reader."""
        from .history import JournalView

        self.get(run_id)  # RunNotFound, and recovery if a commit was cut short
        return JournalView(self._files(run_id).journal)

    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        """The lines of those versions only (found by bisection), parsed."""
        with self._view(run_id) as view:
            found = view.entries(after, before) if view.is_ours() else None
        if found is None:
            return super().journal_range(run_id, after=after, before=before)
        return found

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        with self._view(run_id) as view:
            return view.snapshot(version) if view.is_ours() else None

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        with self._view(run_id) as view:
            return view.snapshots()

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        from skillstate.plugin import RunSummary  # listing records: built when listing

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
                if not valid_id(run_id):
                    raise StoreError(f"'{name}' is not named after a valid run id")
                if name in entries and entries[name].is_symlink():
                    raise StoreError(f"{entries[name].path} is a symbolic link")
                record = self._open.hit(run_id) or self._current(run_id, self._files(run_id))[0]
            except RunNotFound:
                continue  # deleted while we listed
            except StoreError as exc:
                self.warn(f"skipping {name}: {exc}", run_id, stacklevel=2)
                continue
            if skill is None or record.skill == skill:
                out.append(RunSummary.of(record, keys))
        return out

    # -- writing --------------------------------------------------------------
    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        """Create the run with every sync: ``.json.new``, the journal, the directory."""
        self._write_new(record, encode_entry(entry, record_delta(None, record, entry)))

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        """The whole journal written at once, like a creation (every sync, one lock):
        each line carries what rebuilding its record needs, and its snapshot when due."""
        lines, before = [], None
        for current, entry in self.import_steps(record, entries, merge):
            snapshot = snapshot_of(current) if self.snapshot_due(entry.version) else None
            lines.append(encode_entry(entry, record_delta(before, current, entry), snapshot))
            before = current
        self._write_new(record, b"".join(lines))

    def _write_new(self, record: RunRecord, journal: bytes) -> None:
        """A new run's record and journal (``RunExists`` if the id is taken), every sync
        (at ``process``: none, the three handed to the pending syncs)."""
        sync = self._syncs is None
        if self._syncs is not None:
            self._syncs.check()
        files = self._files(record.id)
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as exc:
            raise store_error(exc, "create the store directory", self.root) from None
        with RunLock(files.lock).hold():
            self._recover(record.id, files)
            if os.path.lexists(files.record):
                raise RunExists(record.id)
            try:
                write_file(files.pending, encode_record(record, len(journal)), sync=sync)
                try:  # a journal without a record is debris of a deleted run: start afresh,
                    # with a new file (a store that remembers the old one sees it gone)
                    remove(files.journal)
                    write_file(files.journal, journal, sync=sync)
                    put_in_place(files.pending, files.record)
                except StoreError:
                    discard(files.journal)
                    discard(files.pending)
                    raise
            except StoreError:
                remove(files.lock)  # a failed creation leaves nothing (held: safe, see RunLock)
                raise
            if self._syncs is None:
                fsync_dir(self.root)
            else:
                self._syncs.add(files.journal)
                self._syncs.add(files.record)
                self._syncs.add(self.root, directory=True)
            # under the lock: no delete and creation by another process can come between
            self._open.remember(record.id, files, record, len(journal), append=True)

    def repair(self, run_id: str) -> str:
        """Rebuild the run's record from its journal alone (``verify --repair``)."""
        files = self._files(run_id)
        self._open.drop(run_id)
        fd = self._lock_run(files, run_id)
        try:
            lines = rebuild(run_id, files, self.root)
            # again, under the lock: the record another thread read meanwhile is the one
            # just replaced (the journal, unchanged, would keep it remembered)
            self._open.drop(run_id)
        finally:
            release(fd)
        return f"record rebuilt from its journal ({lines} line{'s' if lines != 1 else ''})"
