"""Rebuilding a ``file`` store record from its journal lines, exactly.

A commit makes only its journal line durable (one ``fdatasync``); the record file is
a cache of the journal that is rewritten without a sync. So a journal line carries,
besides the rig-state-compatible entry (``ts, step, patch, version, ...``), whatever a
replay of the entry alone would get wrong: under the key ``record``, each record field
whose new value differs from what the entry implies. A creation line carries every
field (``skill``, ``created``, ``spec``, ``environment``, ``schema``...), a session
step what changed in its ``environment`` (its ``observation`` only when the entry does
not keep the text: one longer than the entry keeps), a rig-state
``patch`` usually nothing.

An object-valued field that changed (``environment``, ``meta``) is written, when
possible, as a merge patch from its previous value, under ``record.merge`` — a
warehouse step then carries the one shelf it filled, not the whole warehouse, so a
journal grows by what each step changed. The patch is used only if applying it
gives back the new value exactly, key order included (RFC 7396 cannot set a
``null``); otherwise the whole value is written.

:func:`record_delta` computes that key when a line is written; :func:`apply_line`
applies a line to the record before it. Folding the lines of a journal from its first
with :func:`apply_line` gives back every committed record, bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.plugin import JournalEntry, RunRecord, compact, merge_patch, replay

__all__ = ["MERGE_KEY", "apply_line", "implied_record", "record_delta"]

MERGE_KEY = "merge"
"""Inside ``record``: object-valued fields given as a merge patch from their old value."""

_PATCHABLE = ("environment", "meta")

_FIELDS = (
    "skill",
    "step",
    "status",
    "created",
    "updated",
    "spec",
    "environment",
    "observation",
    "schema",
    "meta",
)


def _state_after(before: Mapping[str, Any] | None, entry: JournalEntry) -> Any:
    return replay((entry,), start={} if before is None else before).state


def implied_record(run_id: str, before: RunRecord | None, entry: JournalEntry) -> RunRecord:
    """What ``entry`` alone says the record becomes (``before`` is ``None`` for a creation)."""
    base = before if before is not None else RunRecord(id=run_id, skill="", state={})
    return attrs.evolve(
        base,
        id=run_id,
        state=_state_after(None if before is None else before.state, entry),
        version=entry.version,
        step=entry.turn if entry.turn is not None else base.step,
        status=entry.status or base.status,
        updated=entry.ts or base.updated,
        observation=base.observation if entry.observation is None else entry.observation,
    )


def record_delta(
    before: RunRecord | None, after: RunRecord, entry: JournalEntry
) -> dict[str, Any] | None:
    """The fields of ``after`` that :func:`implied_record` would not reproduce (``None``: none).

    ``state`` appears only when the committed state is not the RFC 7396 replay of the
    entry (a merge plugin, or a caller writing a state of its own). Computed on every
    commit, so the implied fields are worked out here without building the implied
    record (the same values as :func:`implied_record`; the tests compare the two).
    """
    base = before if before is not None else _blank()
    implied = {
        "step": entry.turn if entry.turn is not None else base.step,
        "status": entry.status or base.status,
        "updated": entry.ts or base.updated,
        "observation": base.observation if entry.observation is None else entry.observation,
    }
    delta: dict[str, Any] = {}
    patches: dict[str, Any] = {}
    for name in _FIELDS:
        new = getattr(after, name)
        old = implied[name] if name in implied else getattr(base, name)
        if new is old or (new == old and (not isinstance(new, dict) or _same(new, old))):
            continue
        patch = _patch_between(old, new) if before is not None and name in _PATCHABLE else None
        if patch is not None:
            patches[name] = patch
        else:
            delta[name] = new
    state = _state_after(None if before is None else before.state, entry)
    if after.state != state or not _same(after.state, state):
        delta["state"] = after.state
    if patches:
        delta[MERGE_KEY] = patches
    return delta or None


_PLAIN = frozenset((dict, list, str, int, float, bool, type(None)))
_blank_record: list[RunRecord] = []


def _blank() -> RunRecord:
    """What a creation's fields are replayed onto (the defaults of an empty record)."""
    if not _blank_record:
        _blank_record.append(RunRecord(id="blank", skill="", state={}))
    return _blank_record[0]


def _same(a: Any, b: Any) -> bool:
    """Whether equal values (``a == b``) are also the same JSON text: key order, and the
    number types (``1``, ``1.0``, ``True`` and ``-0.0`` vs ``0.0`` are equal in Python).

    The same answer as ``compact(a) == compact(b)`` (the tests check it on generated
    values), without encoding either: the walk skips what the two share (untouched
    parts of a state are the same objects) and stops at the first difference.
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        if kind in _PLAIN and type(b) in _PLAIN:
            return False  # e.g. 1 and 1.0, or 1 and True: never the same text
        return compact(a) == compact(b)  # a subclass (an IntEnum): as encoded
    if kind is dict:
        if len(a) != len(b):
            return False
        for (key, value), (other_key, other) in zip(a.items(), b.items(), strict=True):
            if type(key) is not str or type(other_key) is not str:
                return compact(a) == compact(b)  # not JSON keys: as the encoder sees them
            if key != other_key or (value is not other and not _same(value, other)):
                return False
        return True
    if kind is list:
        if len(a) != len(b):
            return False
        for value, other in zip(a, b, strict=True):
            if value is not other and not _same(value, other):
                return False
        return True
    if kind is str or kind is int or kind is bool:
        return bool(a == b)
    if kind is float:
        return float.__repr__(a) == float.__repr__(b)  # 0.0 and -0.0
    return compact(a) == compact(b)  # anything else (a tuple, a subclass): as encoded


def _patch_between(old: Any, new: Any) -> Any:
    """A merge patch turning ``old`` into ``new`` exactly (key order too), or ``None``.

    One walk of both values: RFC 7396 keeps the target's key order and appends new
    keys, and cannot set a ``null`` inside an object it adds, so anything else is
    refused here rather than checked afterwards by re-encoding both values.
    """
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return None
    try:
        return _diff(old, new)
    except _Inexact:
        return None


class _Inexact(Exception):
    """RFC 7396 cannot turn this value into that one exactly."""


def _diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    kept = [key for key in old if key in new]
    if list(new)[: len(kept)] != kept:  # merge_patch keeps old keys' order, appends new ones
        raise _Inexact
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    for key, value in new.items():
        if key in old:
            before = old[key]
            if before is value:
                continue
            if isinstance(before, dict) and isinstance(value, dict):
                sub = _diff(before, value)
                if sub:
                    patch[key] = sub
                continue
            if type(before) is type(value) and before == value:
                if not isinstance(value, list) or _same(before, value):
                    continue
        if _holds_null(value):
            raise _Inexact
        patch[key] = value
    return patch


def _holds_null(value: Any) -> bool:
    """Whether merging ``value`` in would drop a ``null`` (at its top or in its objects)."""
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_holds_null(item) for item in value.values())
    return False


def apply_line(
    run_id: str, before: RunRecord | None, entry: JournalEntry, delta: Mapping[str, Any] | None
) -> RunRecord:
    """The record after the journal line (``entry``, its ``record`` key ``delta``)."""
    implied = implied_record(run_id, before, entry)
    if not delta:
        return implied
    fields = {name: delta[name] for name in (*_FIELDS, "state") if name in delta}
    patches = delta.get(MERGE_KEY)
    if isinstance(patches, dict):
        for name in _PATCHABLE:
            if name in patches:
                fields[name] = merge_patch(getattr(implied, name), patches[name])
    return attrs.evolve(implied, **fields)
