"""The run export file: one self-contained JSON document (record + journal) with a format version.

``skillstate export RUN`` writes it for bug reports and for moving a run between
machines or stores; ``skillstate import FILE`` reads it back, and checks all of it
before anything is written::

    {"format":"skillstate-run","format_version":1,"skillstate":"0.1.0","exported":"…Z",
    "run":{…the RunRecord…},
    "journal":[
    {…entry 1…},
    {…entry n…}
    ],
    "sha256":"…"}

One journal entry per line, so the file diffs and greps well. ``sha256`` is the
SHA-256 of the compact JSON of ``{"run": …, "journal": […]}``: an edit, or a file cut
short, is caught before the journal is even replayed. Then the journal must be
versions 1..n and replay exactly to the record (:func:`skillstate.journal.verify_record`).
The digest is a check against damage, not a signature: whoever edits both the content
and the digest consistently makes a valid export.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from skillstate.errors import InvalidInput
from skillstate.jsondoc import compact
from skillstate.records import JournalEntry, RunRecord

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ExportError",
    "dump_export",
    "read_export",
    "renamed",
]

_SURROGATE = re.compile("[\ud800-\udfff]")

FORMAT = "skillstate-run"
FORMAT_VERSION = 1


class ExportError(InvalidInput):
    """A file that is not a complete, intact skillstate run export; nothing was written."""


def _digest(run: Any, journal: Any) -> str:
    text = compact({"run": run, "journal": journal})
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def dump_export(record: RunRecord, entries: Sequence[JournalEntry], now: str) -> str:
    """The text of an export of ``record`` with its whole journal ``entries``."""
    from skillstate._version import __version__

    run = record.to_dict()
    journal = [entry.to_dict() for entry in entries]
    head = compact(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "skillstate": __version__,
            "exported": now,
        }
    )
    lines = ",\n".join(compact(entry) for entry in journal)
    text = (
        f'{head[:-1]},\n"run":{compact(run)},\n"journal":[\n{lines}\n],\n'
        f'"sha256":"{_digest(run, journal)}"}}\n'
    )
    # A lone surrogate (legal in a Python str, not in UTF-8) can only be inside a JSON
    # string: written as its \\uXXXX escape, the file is UTF-8 and reads back the same.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def read_export(text: str, name: str, merge: Any = None) -> tuple[RunRecord, list[JournalEntry]]:
    """The run in an export's ``text`` (``name`` is for messages), checked in full.

    Raises :class:`ExportError` with one line naming what is wrong: not JSON (cut
    short?), not an export, a format version this skillstate does not read, a digest
    that does not match, a journal that is not versions 1..n or does not replay to
    the record.
    """
    from skillstate.journal import verify_record
    from skillstate.jsondoc import parse_json

    try:
        doc = parse_json(text, name)
    except InvalidInput as exc:
        raise ExportError(
            f"{name} is not a complete skillstate export (cut short or damaged?): {exc}"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExportError(f'{name} is not a skillstate run export (no "format": "{FORMAT}")')
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise ExportError(
            f"{name} has export format version {version!r}; this skillstate reads version "
            f"{FORMAT_VERSION} (upgrade skillstate to import it)"
        )
    run, journal = doc.get("run"), doc.get("journal")
    if not isinstance(run, dict) or not isinstance(journal, list):
        raise ExportError(f'{name} is damaged: it needs a "run" object and a "journal" list')
    if doc.get("sha256") != _digest(run, journal):
        raise ExportError(
            f"{name} does not match its sha256: it was changed (or damaged) after it was exported"
        )
    try:
        record = RunRecord.from_dict(run)
        entries = [JournalEntry.from_dict(entry) for entry in journal]
    except (TypeError, ValueError) as exc:
        raise ExportError(f"{name} is damaged: {exc}") from None
    problems = verify_record(record, entries, merge) if merge else verify_record(record, entries)
    if problems:
        raise ExportError(f"{name} does not replay to its record: {'; '.join(problems)}")
    return record, entries


def renamed(
    record: RunRecord, entries: Sequence[JournalEntry], new_id: str, run_id_key: str | None
) -> tuple[RunRecord, list[JournalEntry]]:
    """The run under the id ``new_id``: the record's id, and the skill's run-id key in the
    state (rig's ``runId``) in the record and in every entry's ``base`` (the creation's,
    a rewind's) that holds the old id."""
    import attrs

    state = dict(record.state)
    out = list(entries)
    if run_id_key and state.get(run_id_key) == record.id:
        state[run_id_key] = new_id
        for index, entry in enumerate(out):
            if entry.base is not None and entry.base.get(run_id_key) == record.id:
                out[index] = attrs.evolve(entry, base={**entry.base, run_id_key: new_id})
    return attrs.evolve(record, id=new_id, state=state), out
