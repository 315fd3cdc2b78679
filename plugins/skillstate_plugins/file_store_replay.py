"""Rebuilding a ``file`` store record from its journal lines, exactly.

A commit makes only its journal line durable (one ``fdatasync``); the record file is
a cache of the journal that is rewritten without a sync. So a journal line carries,
besides the rig-state-compatible entry (``ts, step, patch, version, ...``), whatever a
replay of the entry alone would get wrong: under the key ``record``, each record field
whose new value differs from what the entry implies. A creation line carries every
field (``skill``, ``created``, ``spec``, ``environment``, ``schema``...), a session
step its ``environment`` and ``observation``, a rig-state ``patch`` usually nothing.

:func:`record_delta` computes that key when a line is written; :func:`apply_line`
applies a line to the record before it. Folding the lines of a journal from its first
with :func:`apply_line` gives back every committed record, bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.merge import merge_patch
from skillstate.records import JournalEntry, RunRecord

__all__ = ["DELTA_KEY", "apply_line", "implied_record", "record_delta"]

DELTA_KEY = "record"
"""The journal line key holding the record fields a replay of the entry would miss."""

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
    state: Any = entry.base if entry.base is not None else (before or {})
    state = merge_patch(state, entry.patch)
    if entry.set:
        state = merge_patch(state, entry.set)
    return state


def implied_record(run_id: str, before: RunRecord | None, entry: JournalEntry) -> RunRecord:
    """What ``entry`` alone says the record becomes (``before`` is ``None`` for a creation)."""
    base = before if before is not None else RunRecord(id=run_id, skill="", state={})
    return RunRecord(
        id=run_id,
        skill=base.skill,
        state=_state_after(None if before is None else before.state, entry),
        version=entry.version,
        step=entry.turn if entry.turn is not None else base.step,
        status=entry.status or base.status,
        created=base.created,
        updated=entry.ts or base.updated,
        spec=base.spec,
        environment=base.environment,
        observation=base.observation,
        schema=base.schema,
        meta=base.meta,
    )


def record_delta(
    before: RunRecord | None, after: RunRecord, entry: JournalEntry
) -> dict[str, Any] | None:
    """The fields of ``after`` that :func:`implied_record` would not reproduce (``None``: none).

    ``state`` appears only when the committed state is not the RFC 7396 replay of the
    entry (a merge plugin, or a caller writing a state of its own).
    """
    implied = implied_record(after.id, before, entry)
    delta = {
        name: getattr(after, name)
        for name in _FIELDS
        if getattr(after, name) != getattr(implied, name)
    }
    if after.state != implied.state:
        delta["state"] = after.state
    return delta or None


def apply_line(
    run_id: str, before: RunRecord | None, entry: JournalEntry, delta: Mapping[str, Any] | None
) -> RunRecord:
    """The record after the journal line (``entry``, its ``record`` key ``delta``)."""
    implied = implied_record(run_id, before, entry)
    if not delta:
        return implied
    fields = {name: delta[name] for name in (*_FIELDS, "state") if name in delta}
    return RunRecord(
        id=run_id,
        skill=fields.get("skill", implied.skill),
        state=fields.get("state", implied.state),
        version=entry.version,
        step=fields.get("step", implied.step),
        status=fields.get("status", implied.status),
        created=fields.get("created", implied.created),
        updated=fields.get("updated", implied.updated),
        spec=fields.get("spec", implied.spec),
        environment=fields.get("environment", implied.environment),
        observation=fields.get("observation", implied.observation),
        schema=fields.get("schema", implied.schema),
        meta=fields.get("meta", implied.meta),
    )
