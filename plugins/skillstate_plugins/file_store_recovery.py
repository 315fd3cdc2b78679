"""Recovery for the ``file`` store: finishing or discarding an interrupted commit.

A commit writes ``<id>.json.new`` (fsynced), then appends the journal line (fsynced),
then renames ``<id>.json.new`` over ``<id>.json``. So ``<id>.json.new`` exists only
while a commit is in flight, the record is never ahead of the journal, and a crash
leaves the journal at most one entry ahead — with that entry's record complete in
``<id>.json.new``. Everything here runs under the run's lock. The rules, with the
state each crash point leaves, are in ``docs/storage-format.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import attrs

from skillstate.errors import StoreError
from skillstate.merge import merge_patch
from skillstate.records import JournalEntry, RunRecord
from skillstate_plugins.file_store_format import (
    count_legacy_lines,
    decode_record,
    encode_record,
    entry_version,
    parse_line,
)
from skillstate_plugins.file_store_io import (
    OpenJournal,
    RunFiles,
    Tail,
    append_line,
    fsync_dir,
    read_file,
    read_tail,
    remove,
    store_error,
    truncate,
    write_new_file,
)

__all__ = ["clean_open_tail", "clean_tail", "last_version", "recover", "tail_version"]


def clean_tail(journal: str) -> Tail | None:
    """The journal's tail after repairing a torn last line.

    A partial line left by a killed writer is cut off; a last line that is complete
    but for its newline (killed between the two) gets its newline.
    """
    tail = read_tail(journal)
    if tail is None or not tail.torn:
        return tail
    if _complete(tail.torn):
        append_line(journal, b"\n", tail.size)
    else:
        truncate(journal, tail.clean_size)
    return read_tail(journal)


def clean_open_tail(journal: OpenJournal) -> Tail:
    """:func:`clean_tail` for a journal opened for a commit."""
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


def last_version(tail: Tail | None, journal: str) -> int | None:
    """The ``version`` of the journal's last line; ``None`` if empty or a rig-state line."""
    if tail is None or tail.last is None:
        return None
    try:
        return entry_version(parse_line(tail.last))
    except ValueError as exc:
        raise StoreError(f"journal {journal} has a damaged last line: {exc}") from None


def tail_version(tail: Tail | None, journal: str) -> int:
    """The version of the journal's last entry (0 for an empty or missing journal)."""
    version = last_version(tail, journal)
    if version is not None:
        return version
    if tail is None or tail.last is None:
        return 0
    return max(1, count_legacy_lines(read_file(journal)))  # rig-state's: positions


def recover(run_id: str, files: RunFiles, root: str, load: Callable[[], RunRecord | None]) -> None:
    """Finish or discard an interrupted commit of ``run_id``; a no-op without ``.json.new``.

    ``load`` reads the current record (``None`` if there is none). Journal at the
    record's version: the line never made it, ``.json.new`` is discarded. One ahead:
    ``.json.new`` is renamed into place (rolled forward). Anything else was done
    outside skillstate and is refused.
    """
    if not os.path.lexists(files.pending):
        return
    tail = clean_tail(files.journal)
    current = load()
    have = 0 if current is None else current.version
    logged = tail_version(tail, files.journal)
    if logged == have:
        remove(files.pending)
    elif logged == have + 1 and tail is not None and tail.last is not None:
        _roll_forward(run_id, files, current, tail.last, tail.last_start)
    else:
        raise StoreError(
            f"run '{run_id}': its journal ends at version {logged} but its record is at "
            f"version {have}; the store was changed outside skillstate (see 'skillstate verify')"
        )
    fsync_dir(root)


def _roll_forward(
    run_id: str, files: RunFiles, current: RunRecord | None, last: bytes, last_start: int
) -> None:
    entry = JournalEntry.from_dict(parse_line(last))
    pending = read_file(files.pending)
    try:
        ready = (
            pending is not None
            and decode_record(pending, run_id, files.pending).to_record(run_id, 0).version
            == entry.version
        )
    except (StoreError, TypeError, ValueError):
        ready = False
    if not ready:
        # .json.new is unreadable (a disk that lied about fsync): rebuild from the journal.
        if current is None:  # nothing to build on: the creation never completed
            truncate(files.journal, last_start)
            remove(files.pending)
            return
        write_new_file(files.pending, encode_record(_replayed(current, entry)))
    try:
        os.replace(files.pending, files.record)
    except OSError as exc:
        raise store_error(exc, "replace the record", files.record) from None


def _replayed(current: RunRecord, entry: JournalEntry) -> RunRecord:
    """``current`` with ``entry`` applied, as far as a journal entry can say."""
    state = merge_patch(current.state, entry.patch)
    if entry.set:
        state = merge_patch(state, entry.set)
    return attrs.evolve(
        current,
        state=state,
        version=entry.version,
        updated=entry.ts or current.updated,
        status=entry.status or current.status,
        step=entry.turn if entry.turn is not None else current.step,
    )
