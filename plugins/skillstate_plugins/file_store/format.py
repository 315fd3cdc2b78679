"""The bytes on disk of the ``file`` store: record files and journal lines.

A record file is ``RunRecord.to_dict()`` pretty-printed (2-space indent, trailing
newline) with a last key, ``journalSize``; a journal line is ``JournalEntry.to_dict()``
compact (keys ``ts, step, patch`` first, as rig-state writes them, then ``version``
and the rest), plus under ``record`` the record fields the entry does not imply
(:mod:`.replay`). The files of the original TypeScript rig-state are read by
:mod:`.legacy`, not here. See ``docs/storage-format.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from skillstate.plugin import (
    InvalidInput,
    JournalEntry,
    RunRecord,
    StoreError,
    compact,
    parse_json,
    pretty,
)

if TYPE_CHECKING:
    from skillstate.plugin import Snapshot

__all__ = [
    "BLANK",
    "DELTA_KEY",
    "JOURNAL_SIZE_KEY",
    "SNAPSHOT_KEY",
    "RecordFile",
    "decode_entries",
    "decode_record",
    "encode_entry",
    "encode_record",
    "parse_line",
    "parse_record_file",
]

JOURNAL_SIZE_KEY = "journalSize"
"""The record file's last key: the journal's length in bytes once this record's line is in."""

DELTA_KEY = "record"
"""The journal line key holding the record fields a replay of the entry would miss."""

SNAPSHOT_KEY = "snapshot"
"""The journal line key holding, every ``SNAPSHOT_INTERVAL`` versions, the run as it is
after the line (state, status, step): where reading an old version starts replaying."""


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of JSON text; :class:`StoreError` for a lone surrogate, which is not text
    (the pipeline refuses it at the door; this is for a record built by hand)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise StoreError(
            f"cannot write text that is not valid Unicode (a lone surrogate at character "
            f"{exc.start}); nothing was written"
        ) from None


def encode_record(record: RunRecord, journal_size: int | None = None) -> bytes:
    """The record file's bytes: pretty JSON and a trailing newline.

    ``journal_size`` (the journal's length up to and including this version's line)
    is written as a last key, ``journalSize``: a reader compares it with the journal's
    size to see whether the journal holds lines the record does not show yet. The
    store always gives it; tests and benchmarks may leave it out to write a record
    that is not known to be level with its journal.
    :func:`skillstate.plugin.pretty` builds the text with C-level string encoding (the
    standard library's indenting encoder is pure Python and dominated the commit).
    """
    data = record.to_dict()
    if journal_size is not None:
        data[JOURNAL_SIZE_KEY] = journal_size
    return _utf8(pretty(data) + "\n")


def encode_entry(
    entry: JournalEntry,
    delta: Mapping[str, Any] | None = None,
    snapshot: Snapshot | None = None,
) -> bytes:
    """One journal line: compact JSON and a newline; ``delta`` goes under ``record``,
    ``snapshot`` under ``snapshot``."""
    data = entry.to_dict()
    if delta:
        data[DELTA_KEY] = delta
    if snapshot is not None:
        data[SNAPSHOT_KEY] = snapshot.to_dict()
    return _utf8(compact(data) + "\n")


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_line(line: bytes) -> Any:
    """Parse one journal line (or a record file); ``ValueError`` if it is not JSON, or not
    valid Unicode (an escaped lone surrogate: half of a pair, a hand edit).

    Like :func:`json.loads` (UTF-8 only; NaN and Infinity refused). Only a line holding
    a ``\\ud800``-like escape is checked further, by the core's parser (whose message
    names the path), so the common line costs one byte search.
    """
    text = line.decode("utf-8")  # UnicodeDecodeError is a ValueError
    value = json.loads(text, parse_constant=_refuse_constant)
    if "\\u" in text and _ESCAPED_SURROGATE.search(text) is not None:
        try:
            parse_json(text, "record")
        except InvalidInput as exc:
            if "not valid Unicode" in str(exc):
                raise ValueError(str(exc)) from None
    return value


class RecordFile(NamedTuple):
    """What a record file holds.

    ``record`` is ``None`` for a blank file (empty or all NUL bytes: what a power loss
    leaves of a record swapped in unsynced) and for a damaged one (torn, garbage, not
    a record: ``damage`` says why); recovery rebuilds either from the journal.
    ``journal_size`` is the length of the journal this record is level with, -1 when
    the file does not say.
    """

    record: RunRecord | None
    journal_size: int
    damage: str = ""


BLANK = RecordFile(None, -1, "is empty")


def parse_record_file(data: bytes, path: str) -> dict[str, Any] | None:
    """The JSON object in a record file, ``None`` if it is blank; :class:`StoreError` otherwise."""
    try:
        value = parse_line(data)
    except ValueError as exc:
        if not data.strip(b"\x00"):
            return None
        raise StoreError(f"record file {path} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise StoreError(
            f"record file {path} holds a JSON {type(value).__name__}, not a run record"
        )
    return value


def decode_record(value: dict[str, Any], run_id: str, path: str) -> RecordFile:
    """Our record file's object as a :class:`RecordFile`; :class:`StoreError` if it is not one."""
    if not {"id", "skill", "version", "state"} <= value.keys():
        raise StoreError(
            f"record file {path} is not a skillstate record (it needs id, skill, version, state)"
        )
    if value["id"] != run_id:
        raise StoreError(f"record file {path} belongs to run {value['id']!r}, not '{run_id}'")
    if type(value["version"]) is not int or not isinstance(value["state"], dict):
        raise StoreError(
            f"record file {path} is damaged: version must be an integer and state an object"
        )
    try:
        record = RunRecord.from_dict(value)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"record file {path} is damaged: {exc}") from None
    size = value.get(JOURNAL_SIZE_KEY)
    return RecordFile(record, size if type(size) is int else -1)


def decode_entries(journal: bytes, path: str, first_number: int = 1) -> list[JournalEntry]:
    """Every complete line of a journal as an entry (a torn last line is ignored).

    ``first_number`` is the line number of the first line, for error messages.
    """
    entries: list[JournalEntry] = []
    for number, line in enumerate(journal.split(b"\n")[:-1], start=first_number):
        try:
            entries.append(JournalEntry.from_dict(parse_line(line)))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"journal {path} line {number} is damaged: {exc}") from None
    return entries
