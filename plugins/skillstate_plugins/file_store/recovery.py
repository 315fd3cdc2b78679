"""Recovery for the ``file`` store: bringing a run's record level with its journal.

The journal is the only file a commit syncs: a commit writes ``<id>.json.new``
(no sync), appends its journal line and ``fdatasync``s it (the commit point), then
swaps ``<id>.json.new`` into place and removes the old record. So the record is
never ahead of the journal; a killed process leaves it one line behind, a power
loss (record not synced) any number of lines behind, or — the swapped-in file's
data never reached the disk — empty. Every journal line carries what rebuilding
the record needs (:mod:`skillstate_plugins.file_store_replay`), so recovery replays
the lines the record lacks. Everything here runs under the run's lock. The rules,
with the state each crash point leaves, are in ``docs/storage-format.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

from skillstate.plugin import JournalEntry, RunNotFound, RunRecord, StoreError, VersionConflict

from .fileio import (
    OpenJournal,
    RunFiles,
    Tail,
    fsync_dir,
    read_file,
    remove,
    store_error,
    truncate,
    write_new_file,
)
from .format import (
    count_legacy_lines,
    decode_record,
    encode_record,
    entry_version,
    head_version,
    parse_line,
)
from .replay import DELTA_KEY, apply_line

__all__ = [
    "Loaded",
    "check_version",
    "clean_open_tail",
    "clean_tail",
    "last_version",
    "out_of_step",
    "recover",
    "tail_version",
]


def clean_tail(journal: str) -> Tail:
    """The tail of the journal at ``journal`` after :func:`clean_open_tail` (empty if missing)."""
    opened = OpenJournal(journal)
    try:
        return clean_open_tail(opened)
    finally:
        opened.close()


def clean_open_tail(journal: OpenJournal) -> Tail:
    """The journal's tail after repairing a torn last line.

    A partial line left by a killed writer is cut off; a last line that is complete
    but for its newline (killed between the two) gets its newline.
    """
    tail = journal.tail()
    if not tail.torn:
        return tail
    if _complete(tail.torn):
        journal.append(b"\n")
    else:
        journal.cut(tail.clean_size)
    return journal.tail()


def _complete(torn: bytes) -> bool:
    """Whether a last line without its newline is nevertheless a whole entry."""
    try:
        return isinstance(parse_line(torn), dict)
    except ValueError:
        return False


def last_version(tail: Tail, journal: str) -> int | None:
    """The ``version`` of the journal's last line; ``None`` if empty or a rig-state line."""
    if tail.last is None:
        return None
    try:
        return entry_version(parse_line(tail.last))
    except ValueError as exc:
        raise StoreError(f"journal {journal} has a damaged last line: {exc}") from None


def tail_version(tail: Tail, journal: str) -> int:
    """The version of the journal's last entry (0 for an empty or missing journal)."""
    version = last_version(tail, journal)
    if version is not None:
        return version
    if tail.last is None:
        return 0
    return max(1, count_legacy_lines(read_file(journal)))  # rig-state's: positions


def check_version(
    run_id: str,
    files: RunFiles,
    journal: OpenJournal,
    expected: int,
    found: Callable[[], tuple[RunRecord, bool] | None],
) -> int:
    """A commit's compare-and-swap check, under the lock: the journal's size, or -1 to import.

    After recovery the journal's last version *is* the record's version, so the usual
    path reads no record at all, only the journal's last line. A rig-state run (a last
    line without a version, or no journal) is read in full through ``found``, which
    gives the record and whether it is a bare rig-state state file.
    """
    version = last_version(clean_open_tail(journal), files.journal)
    if version is None:
        current = found()
        if current is None:
            raise RunNotFound(run_id)
        record, legacy = current
        if not legacy:  # our record with an empty (or rig-state) journal
            raise out_of_step(run_id, record.version)
        if record.version != expected:
            raise VersionConflict(run_id, expected, record.version)
        return -1 if journal.size == 0 else journal.size
    if version != expected:
        if head_version(read_file(files.record) or b"", run_id) == expected:
            raise out_of_step(run_id, expected)  # the record says yes, its journal no
        raise VersionConflict(run_id, expected, version)
    return journal.size


def out_of_step(run_id: str, version: int) -> StoreError:
    """The error for a record and a journal that disagree on the run's version."""
    return StoreError(
        f"run '{run_id}': its journal does not end at version {version} like its record; "
        f"nothing was written (run 'skillstate verify {run_id}')"
    )


class Loaded(NamedTuple):
    """The record as read for recovery: ``None`` if missing; ``blank`` if empty or all NUL."""

    record: RunRecord | None
    journal_size: int | None
    blank: bool = False


def recover(run_id: str, files: RunFiles, root: str, load: Callable[[], Loaded]) -> None:
    """Bring the record of ``run_id`` level with its journal (under the lock).

    Journal at the record's version: a left-over ``.json.new`` is removed (and a
    wrong ``journalSize`` rewritten). Ahead: the missing lines are replayed onto the
    record (a blank record is rebuilt from the first line), or a complete
    ``.json.new`` for the next version is renamed into place. Behind, or a gap: the
    files were changed outside skillstate, which is refused.
    """
    loaded = load()
    current = loaded.record
    if current is None and not loaded.blank and not os.path.lexists(files.pending):
        return  # no run: a journal alone is debris of a deleted one, which create replaces
    tail = clean_tail(files.journal)
    have = 0 if current is None else current.version
    logged = tail_version(tail, files.journal)
    size = tail.size
    if logged == have and not loaded.blank:
        changed = os.path.lexists(files.pending)
        remove(files.pending)
        if current is not None and loaded.journal_size not in (None, size):
            _write_record(files, current, size)
            changed = True
        if changed:
            fsync_dir(root)
        return
    if logged < have and not loaded.blank:
        raise StoreError(
            f"run '{run_id}': its journal ends at version {logged} but its record is at "
            f"version {have}; the store was changed outside skillstate (see 'skillstate verify')"
        )
    ready = None if loaded.blank else _pending_record(run_id, files, logged)
    if ready is None:
        ready = _replay(run_id, files, None if loaded.blank else current, loaded.journal_size)
    if ready is None and loaded.blank:
        raise StoreError(
            f"record file {files.record} is empty and journal {files.journal} does not hold "
            "what rebuilding it needs (it was written by an older skillstate)"
        )
    if ready is None:  # an interrupted creation whose line holds no record: drop it
        if tail.last is not None:
            truncate(files.journal, tail.last_start)
        remove(files.pending)
        fsync_dir(root)
        return
    _write_record(files, ready, size)
    remove(files.pending)
    fsync_dir(root)


def _write_record(files: RunFiles, record: RunRecord, journal_size: int) -> None:
    """Write the record durably (recovery is rare: sync everything)."""
    write_new_file(files.pending, encode_record(record, journal_size))
    try:
        os.replace(files.pending, files.record)
    except OSError as exc:
        raise store_error(exc, "replace the record", files.record) from None


def _pending_record(run_id: str, files: RunFiles, version: int) -> RunRecord | None:
    """``.json.new`` if it is a complete record at ``version`` (written by an older release)."""
    pending = read_file(files.pending)
    if pending is None:
        return None
    try:
        record = decode_record(pending, run_id, files.pending).to_record(run_id, 0)
    except (StoreError, TypeError, ValueError):
        return None
    return record if record.version == version else None


def _replay(
    run_id: str, files: RunFiles, current: RunRecord | None, journal_size: int | None
) -> RunRecord | None:
    """``current`` with the journal's later lines applied; ``None`` if nothing can be built.

    Lines are read from ``journal_size`` when that offset is a line boundary, else
    from the start; lines at or below the record's version are skipped. A line
    without a ``record`` key (written by an older release) rolls the state, version,
    status, step and ``updated`` forward; a creation line without one builds nothing.
    """
    data = read_file(files.journal) or b""
    start = 0
    if journal_size is not None and 0 < journal_size <= len(data):
        if data[journal_size - 1 : journal_size] == b"\n":
            start = journal_size
    have = 0 if current is None else current.version
    record = current
    for number, line in enumerate(data[start:].split(b"\n")[:-1], start=1):
        try:
            raw = parse_line(line)
            version = entry_version(raw)
        except ValueError as exc:
            raise StoreError(f"journal {files.journal} has a damaged line: {exc}") from None
        if version is None or version <= have:
            continue
        if version != (record.version if record is not None else 0) + 1:
            raise StoreError(
                f"run '{run_id}': journal {files.journal} skips from version "
                f"{0 if record is None else record.version} to {version} (line {number})"
            )
        entry = JournalEntry.from_dict(raw)
        delta = raw.get(DELTA_KEY)
        if record is None and not (isinstance(delta, dict) and "skill" in delta):
            return None  # a creation line that does not hold its record
        record = apply_line(run_id, record, entry, delta if isinstance(delta, dict) else None)
    return record
