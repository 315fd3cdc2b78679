"""Recovery for the ``file`` store: bringing a run's record level with its journal.

The journal is the only file a commit syncs: a commit writes ``<id>.json.new``
(no sync), appends its journal line and ``fdatasync``s it (the commit point), then
puts ``<id>.json.new`` in place of the record. So the record is never ahead of the
journal; a killed process leaves it one line behind, a power loss (record not
synced) any number of lines behind, or — the new file's data never reached the disk —
empty. Every journal line carries what rebuilding the record needs (:mod:`.replay`),
and the record says how long the journal was when it was written (``journalSize``),
so recovery replays the lines after that point. Everything here runs under the run's
lock. The rules, with the state each crash point leaves, are in
``docs/storage-format.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from skillstate.plugin import JournalEntry, RunRecord, Store, StoreError

from .fileio import (
    OpenJournal,
    RunFiles,
    fsync_dir,
    in_store,
    put_in_place,
    read_file,
    remove,
    write_file,
)
from .format import BLANK, DELTA_KEY, RecordFile, encode_record, parse_line
from .replay import apply_line

__all__ = ["recover"]


class JournalBehind(StoreError):
    """The record is ahead of its journal: its last journal lines were never synced."""


def recover(
    run_id: str,
    files: RunFiles,
    root: str,
    read: Callable[[], RecordFile | None],
    *,
    roll_back: bool = False,
) -> None:
    """Bring the record of ``run_id`` level with its journal (under the run's lock).

    ``read`` reads the record file. A torn last line of the journal is repaired first.
    Then, if the journal is as long as the record's ``journalSize``, the record is
    current and a left-over ``.json.new`` (a commit cut short before its line, or just
    after the swap) is removed. Otherwise the lines after ``journalSize`` are replayed
    onto the record — onto nothing for a blank record or an interrupted creation — and
    the result written with every sync. A journal shorter than the record, or with a
    gap in its versions, means the files were changed outside skillstate: refused.

    With ``roll_back`` (a store at ``durability=process``) a record ahead of its
    journal is what a power loss leaves when the journal's last lines were not synced
    yet: the record is rolled back to the journal's last version (or, if the journal
    lost even the creation, the run is removed), with a store warning (``Store.warn``).
    """
    size = _repair_torn_line(files.journal)
    stored = read()
    pending = os.path.lexists(files.pending)
    if stored is None and not pending:
        return  # no run: a journal alone is debris of a deleted one, which create replaces
    if stored is not None and stored.record is not None and stored.journal_size == size:
        if not pending:
            return
        remove(files.pending)
    else:
        current = None if stored is None else stored.record
        at = -1 if stored is None else stored.journal_size
        try:
            rebuilt = _roll_forward(run_id, files.journal, current, at)
        except JournalBehind as exc:
            if not roll_back:
                raise
            _roll_back(run_id, files, size, exc)
            fsync_dir(root)
            return
        if rebuilt is not None:
            write_file(files.pending, encode_record(rebuilt, size))
            put_in_place(files.pending, files.record)
            if stored is not None and stored.damage and stored is not BLANK:
                Store.warn(
                    f"run {run_id}: its record was damaged ({in_store(stored.damage, root)}); "
                    "rebuilt "
                    "from its journal",
                    run_id,
                    stacklevel=4,
                )
        elif stored is not None:
            raise StoreError(
                f"record file {files.record} {stored.damage or 'is damaged'} and journal "
                f"{files.journal} does not hold what rebuilding it needs (its first line is "
                "not a creation holding the whole record)"
            )
        else:  # a creation cut short before its journal line: it never happened
            remove(files.pending)
    fsync_dir(root)


def _roll_back(run_id: str, files: RunFiles, size: int, behind: JournalBehind) -> None:
    """The record rebuilt from the whole journal, or the run removed when the journal is
    empty (its creation line was lost); a journal that cannot rebuild it is refused."""
    rebuilt = _roll_forward(run_id, files.journal, None, -1)
    if rebuilt is not None:
        write_file(files.pending, encode_record(rebuilt, size))
        put_in_place(files.pending, files.record)
        what = f"rolled back to version {rebuilt.version}"
    elif size:  # lines that cannot rebuild a record (rig-state's): never guess, never remove
        raise behind
    else:
        remove(files.record)
        remove(files.pending)
        remove(files.journal)
        what = "its creation was lost, so the run was removed"
    Store.warn(
        f"run {run_id}: {behind}; writes not yet synced at durability=process were "
        f"lost by a power loss or OS crash: {what}",
        run_id,
        stacklevel=5,
    )


def rebuild(run_id: str, files: RunFiles, root: str) -> int:
    """Under the lock: write the record replayed from the whole journal; its line count.

    For a record that differs from its journal (``skillstate verify --repair``): the
    journal, the only synced file, is the truth. :class:`StoreError` when it cannot
    rebuild the record (a damaged line, a gap, a rig-state journal without records).
    """
    size = _repair_torn_line(files.journal)
    rebuilt = _roll_forward(run_id, files.journal, None, -1)
    if rebuilt is None:
        raise StoreError(
            f"run '{run_id}': journal {files.journal} does not hold what rebuilding the "
            "record needs (its first line is not a creation holding the whole record)"
        )
    write_file(files.pending, encode_record(rebuilt, size))
    put_in_place(files.pending, files.record)
    fsync_dir(root)
    return rebuilt.version


def _repair_torn_line(path: str) -> int:
    """Cut off a torn last line, or give a whole one its missing newline; returns the size.

    A writer killed inside its append leaves part of a line; one killed between the
    line's last byte and its newline, a whole line without its newline.
    """
    journal = OpenJournal(path)
    try:
        torn = journal.torn_tail()
        if torn:
            if _is_whole_line(torn):
                journal.append(b"\n")
            else:
                journal.cut(journal.size - len(torn))
        return journal.size
    finally:
        journal.close()


def _is_whole_line(torn: bytes) -> bool:
    try:
        return isinstance(parse_line(torn), dict)
    except ValueError:
        return False


def _roll_forward(run_id: str, path: str, current: RunRecord | None, at: int) -> RunRecord | None:
    """``current`` with the journal's later lines applied; ``None`` if nothing can be built.

    Lines are read from ``at`` (the record's ``journalSize``) when that offset is a
    line boundary, else from the start, skipping lines at or below the record's
    version. Without a ``current`` record the first line must be a creation that holds
    the whole record under ``record``.
    """
    data = read_file(path) or b""
    start = 0
    if current is not None and 0 < at <= len(data) and data[at - 1 : at] == b"\n":
        start = at
    have = 0 if current is None else current.version
    record, last = current, 0
    for number, line in enumerate(data[start:].split(b"\n")[:-1], start=1):
        try:
            raw = parse_line(line)
            if record is None and not _holds_its_record(raw):
                return None
            entry = JournalEntry.from_dict(raw)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"journal {path} has a damaged line: {exc}") from None
        last = entry.version
        if last <= have:
            continue
        if last != (0 if record is None else record.version) + 1:
            raise StoreError(
                f"run '{run_id}': journal {path} skips from version "
                f"{0 if record is None else record.version} to {last} (line {number})"
            )
        delta = raw.get(DELTA_KEY)
        record = apply_line(run_id, record, entry, delta if isinstance(delta, dict) else None)
    if last < have:
        raise JournalBehind(
            f"run '{run_id}': its journal ends at version {last} but its record is at "
            f"version {have}; the store was changed outside skillstate, or a power loss "
            "lost writes made at durability=process ('skillstate verify --repair' rolls "
            "the record back to its journal)"
        )
    return record


def _holds_its_record(line: object) -> bool:
    """Whether a parsed line is a creation holding the whole record (its ``skill`` and all)."""
    delta = line.get(DELTA_KEY) if isinstance(line, dict) else None
    return isinstance(delta, dict) and "skill" in delta
