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
and the digest consistently makes a valid export. So ``import`` also holds the run to
its skill's rules (:func:`rule_problems`), as ``fork`` does: a known skill, and a final
state the skill's schema, budgets and guards accept.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.errors import InvalidInput
from skillstate.jsondoc import compact, json_kind
from skillstate.records import JournalEntry, RunRecord

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.journal import Merge
    from skillstate.store import Store

__all__ = [
    "EXPORT_PAGE",
    "FORMAT",
    "FORMAT_VERSION",
    "ExportError",
    "dump_export",
    "export_chunks",
    "read_export",
    "renamed",
    "rule_problems",
]

_SURROGATE = re.compile("[\ud800-\udfff]")

FORMAT = "skillstate-run"
FORMAT_VERSION = 1


class ExportError(InvalidInput):
    """A file that is not a complete, intact skillstate run export; nothing was written."""


def _digest(run: Any, journal: Any) -> str:
    text = compact({"run": run, "journal": journal})
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _utf8(text: str) -> str:
    # A lone surrogate (legal in a Python str, not in UTF-8) can only be inside a JSON
    # string: written as its \\uXXXX escape, the file is UTF-8 and reads back the same.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _export_chunks(
    record: RunRecord, pages: Iterable[Sequence[JournalEntry]], now: str
) -> Iterator[str]:
    """The export's text in pieces: the head and the record, one piece per page of
    entries, then the digest, computed as the pages go by (:func:`_digest`'s)."""
    from skillstate._version import __version__

    run_text = compact(record.to_dict())
    head = compact(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "skillstate": __version__,
            "exported": now,
        }
    )
    digest = hashlib.sha256(f'{{"run":{run_text},"journal":['.encode("utf-8", "surrogatepass"))
    yield _utf8(f'{head[:-1]},\n"run":{run_text},\n"journal":[\n')
    first = True
    for page in pages:
        texts = [compact(entry.to_dict()) for entry in page]
        if not texts:
            continue
        sep = "" if first else ","
        digest.update((sep + ",".join(texts)).encode("utf-8", "surrogatepass"))
        yield _utf8(("" if first else ",\n") + ",\n".join(texts))
        first = False
    digest.update(b"]}")
    yield f'\n],\n"sha256":"{digest.hexdigest()}"}}\n'


def dump_export(record: RunRecord, entries: Sequence[JournalEntry], now: str) -> str:
    """The text of an export of ``record`` with its whole journal ``entries``."""
    return "".join(_export_chunks(record, [entries], now))


EXPORT_PAGE = 256
"""Journal entries read and written at a time by :func:`export_chunks`."""


def _pages(store: Store, record: RunRecord, page: int) -> Iterator[list[JournalEntry]]:
    """Entries 1..``record.version`` of the run's journal, ``page`` at a time, checked to
    be exactly those versions (:class:`StoreError` otherwise)."""
    from skillstate.errors import StoreError

    done = 0
    while done < record.version:
        upto = min(done + page, record.version)
        entries = store.journal_range(record.id, after=done, before=upto + 1)
        if [entry.version for entry in entries] != list(range(done + 1, upto + 1)):
            raise StoreError(
                f"run '{record.id}': its journal does not hold versions {done + 1} to {upto}; "
                f"run 'skillstate verify {record.id}'"
            )
        yield entries
        done = upto


def export_chunks(
    store: Store,
    record: RunRecord,
    now: str,
    merge: Merge | None = None,
    *,
    page: int = EXPORT_PAGE,
) -> Iterator[str]:
    """The export of ``record`` (byte for byte what :func:`dump_export` writes), read
    from ``store``'s journal ``page`` entries at a time: its memory is a page, not the
    journal, however long the run.

    Nothing is yielded before the journal was read once and replayed to the record
    (with ``merge``, ``host.merge``), a page at a time; then it is read again, as it
    is written. Entries up to ``record.version`` never change, so a commit landing
    meanwhile changes nothing of it. Raises
    :class:`~skillstate.errors.StoreError` when the journal does not replay to the
    record, before the first piece (or, when the run was deleted meanwhile, where
    its journal stops).
    """
    from skillstate.errors import StoreError
    from skillstate.journal import replay
    from skillstate.merge import merge_patch

    state: Any = {}
    status: str | None = None
    turn: int | None = None
    for entries in _pages(store, record, page):
        result = replay(entries, merge or merge_patch, start=state)
        state = result.state
        status = result.status if result.status is not None else status
        turn = result.turn if result.turn is not None else turn
    if (
        compact(state) != compact(record.state)
        or (status is not None and status != record.status)
        or (turn is not None and turn != record.step)
    ):
        raise StoreError(
            f"run '{record.id}' does not replay to its record; run 'skillstate verify {record.id}'"
        )
    yield from _export_chunks(record, _pages(store, record, page), now)


def read_export(
    text: str, name: str, merge: Merge | None = None
) -> tuple[RunRecord, list[JournalEntry]]:
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
            return f"{where}.{key} must be {wanted}, got {json_kind(value[key])}"
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
            return f"{where} must be an RFC 3339 time, got {compact(value)[:80]}"
    return None


def rule_problems(host: Host, record: RunRecord) -> list[str]:
    """Why the run may not be written as it is: its skill unknown, or its final state
    refused by the skill's schema, budgets or guards (checked as a creation, as a fork
    is). Empty when it may."""
    from skillstate.checks import check_candidate
    from skillstate.errors import SkillNotFound
    from skillstate.history import run_skill
    from skillstate.schema import json_schema_errors

    try:
        skill = run_skill(host, record)
    except SkillNotFound as exc:
        return [str(exc)]
    if record.schema is not None:
        errors = json_schema_errors(record.schema)
        if errors:
            return [f"its state schema is not a valid JSON Schema: {errors[0]}"]
    return [p.message for p in check_candidate(host, skill, None, record.state, record.schema)]


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
