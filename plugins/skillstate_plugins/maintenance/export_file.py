"""Reading a run export (``skillstate export``'s file) back, checked in full.

:func:`read_export` refuses anything that is not exactly what ``export`` writes: not
JSON (cut short?), not an export, a format version this skillstate does not read, a
digest (``sha256``, of the compact JSON of ``{"run": …, "journal": […]}``) that does not
match, a field of the wrong type or a time that is not RFC 3339, a journal that is not
versions 1..n or does not replay exactly to the record. The digest is a check against
damage, not a signature: whoever edits both the content and the digest consistently
makes a valid export, so ``import`` also holds the run to its skill's rules
(:meth:`Host.refusals <skillstate.plugin.Host.refusals>`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import attrs

from skillstate.plugin import InvalidInput, JournalEntry, RunRecord, compact, excerpt, parse_json
from skillstate.plugin.history import verify_record

__all__ = ["FORMAT", "FORMAT_VERSION", "ExportError", "read_export", "renamed"]

FORMAT = "skillstate-run"
FORMAT_VERSION = 1
"""The format and version this reader reads (what the core's writer,
:func:`skillstate.plugin.history.dump_export`, writes)."""


class ExportError(InvalidInput):
    """A file that is not a complete, intact skillstate run export; nothing was written."""


def _digest(run: Any, journal: Any) -> str:
    text = compact({"run": run, "journal": journal})
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_export(text: str, name: str, merge: Any = None) -> tuple[RunRecord, list[JournalEntry]]:
    """The run in an export's ``text`` (``name`` is for messages), checked in full.

    Raises :class:`ExportError` with one line naming what is wrong: not JSON (cut
    short?), not an export, a format version this skillstate does not read, a digest
    that does not match, a journal that is not versions 1..n or does not replay to
    the record.
    """
    try:
        doc = parse_json(text, name)
    except InvalidInput as exc:
        raise ExportError(
            f"{name} is not a complete skillstate export (cut short or damaged?): {exc}"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExportError(f'{name} is not a skillstate run export (no "format": "{FORMAT}")')
    version = doc.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:  # not true, not 1.0
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
    problem = _type_problem(run, journal) or _time_problem(run, journal)
    if problem is not None:
        raise ExportError(f"{name} is damaged: {problem}")
    try:
        record = RunRecord.from_dict(run)
        entries = [JournalEntry.from_dict(entry) for entry in journal]
    except (TypeError, ValueError) as exc:  # pragma: no cover - the types were checked
        raise ExportError(f"{name} is damaged: {exc}") from None
    problems = verify_record(record, entries, merge) if merge else verify_record(record, entries)
    if problems:
        raise ExportError(f"{name} does not replay to its record: {'; '.join(problems)}")
    return record, entries


_OBJECT, _TEXT, _COUNT = "an object", "a string", "a whole number"
_RUN_FIELDS: dict[str, tuple[str, bool]] = {  # field -> (kind, may be null)
    "id": (_TEXT, False),
    "skill": (_TEXT, False),
    "version": (_COUNT, False),
    "step": (_COUNT, False),
    "status": (_TEXT, False),
    "created": (_TEXT, False),
    "updated": (_TEXT, False),
    "state": (_OBJECT, False),
    "spec": (_TEXT, True),
    "environment": (_OBJECT, True),
    "observation": (_TEXT, True),
    "schema": (_OBJECT, True),
    "meta": (_OBJECT, False),
}
_ENTRY_FIELDS: dict[str, tuple[str, bool]] = {
    "ts": (_TEXT, False),
    "step": (_TEXT, False),
    "patch": (_OBJECT, False),
    "version": (_COUNT, False),
    "base": (_OBJECT, True),
    "set": (_OBJECT, True),
    "action": ("", True),  # any JSON value: an action is the environment's to read
    "observation_sha256": (_TEXT, True),
    "observation": (_TEXT, True),
    "status": (_TEXT, True),
    "turn": (_COUNT, True),
    "origin": (_OBJECT, True),
}
_REQUIRED_ENTRY = ("ts", "step", "patch", "version")


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == _OBJECT:
        return isinstance(value, dict)
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _COUNT:
        return type(value) is int and value >= 0
    return True


def _fields_problem(
    value: Any, fields: dict[str, tuple[str, bool]], required: Sequence[str], where: str
) -> str | None:
    if not isinstance(value, dict):
        return f"{where} must be an object"
    for key in value:
        if key not in fields:
            return f"{where} has an unknown field {compact(key)}"
    for key in required:
        if key not in value:
            return f"{where} lacks the field {compact(key)}"
    for key, (kind, nullable) in fields.items():
        if key in value and not ((nullable and value[key] is None) or _kind_ok(value[key], kind)):
            wanted = f"{kind} or null" if nullable else kind
            return f"{where}.{key} must be {wanted}, got {excerpt(compact(value[key]), 80)}"
    return None


def _type_problem(run: Any, journal: list[Any]) -> str | None:
    """The first field of the export whose type is wrong (named by its path), or ``None``.

    Every field of the run and of each journal entry is checked, so nothing reaches a
    store (or a replay) that is not what ``skillstate export`` writes."""
    problem = _fields_problem(run, _RUN_FIELDS, tuple(_RUN_FIELDS), "run")
    if problem is not None:
        return problem
    for index, entry in enumerate(journal):
        problem = _fields_problem(entry, _ENTRY_FIELDS, _REQUIRED_ENTRY, f"journal[{index}]")
        if problem is not None:
            return problem
        text = entry.get("observation")
        sha = None if text is None else hashlib.sha256(text.encode("utf-8", "surrogatepass"))
        if sha is not None and sha.hexdigest() != entry.get("observation_sha256"):
            return f"journal[{index}].observation does not match its observation_sha256"
    return None


_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})"
)


def is_rfc3339(text: str) -> bool:
    """Whether ``text`` is an RFC 3339 date-time (``2026-12-02T20:54:11.954Z``), a real one."""
    from datetime import datetime

    if _RFC3339.fullmatch(text) is None:
        return False
    try:  # the shape is right: is it a date that exists (no 2026-02-30, no 25:00)?
        datetime.fromisoformat(text[:19])
    except ValueError:
        return False
    return True


def _time_problem(run: dict[str, Any], journal: list[Any]) -> str | None:
    """The first time of the export that is not RFC 3339 (named by its path), or ``None``."""
    times = [(f"run.{key}", run[key]) for key in ("created", "updated")]
    times += [(f"journal[{i}].ts", entry["ts"]) for i, entry in enumerate(journal)]
    for where, value in times:
        if not is_rfc3339(value):
            return f"{where} must be an RFC 3339 time, got {excerpt(compact(value), 80)}"
    return None


def renamed(
    record: RunRecord, entries: Sequence[JournalEntry], new_id: str, run_id_key: str | None
) -> tuple[RunRecord, list[JournalEntry]]:
    """The run under the id ``new_id``: the record's id, and the skill's run-id key in the
    state (rig's ``runId``) in the record and in every entry's ``base`` (the creation's,
    a rewind's) that holds the old id."""
    state = dict(record.state)
    out = list(entries)
    if run_id_key and state.get(run_id_key) == record.id:
        state[run_id_key] = new_id
        for index, entry in enumerate(out):
            if entry.base is not None and entry.base.get(run_id_key) == record.id:
                out[index] = attrs.evolve(entry, base={**entry.base, run_id_key: new_id})
    return attrs.evolve(record, id=new_id, state=state), out
