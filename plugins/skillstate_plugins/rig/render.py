"""rig-state's ``renderCompact``: the block ``rig-state show`` (and ``skillstate show``) prints::

    # rig-task state · abc-18 · phase: green
    spec.id: ABC-18
    tests.status: green
    blockers: (none)
    updated: 2026-09-01T00:00:00.000Z

The header and the ``updated`` line read the state's own ``skill``, ``runId``,
``phase`` and ``updatedAt`` exactly as the original does (``undefined`` when one is
missing); the body is the core's :func:`~skillstate.plugin.compact_lines`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.plugin import RunRecord, compact_lines, js_string

__all__ = ["HIDDEN_KEYS", "render_compact", "render_record"]

HIDDEN_KEYS = frozenset({"skill", "runId", "phase", "createdAt", "updatedAt"})


def _shown(state: Mapping[str, Any], key: str, default: str | None) -> str:
    if key in state:
        return js_string(state[key])
    return default if default is not None else "undefined"


def render_compact(
    state: Mapping[str, Any], run_id: str | None = None, skill: str | None = None
) -> str:
    """rig-state's ``renderCompact(state)``, without a trailing newline.

    ``run_id`` and ``skill`` fill the header for states that do not carry ``runId`` /
    ``skill`` themselves.
    """
    header = (
        f"# {_shown(state, 'skill', skill)} state · {_shown(state, 'runId', run_id)}"
        f" · phase: {_shown(state, 'phase', None)}"
    )
    updated = state.get("updatedAt")
    footer = f"updated: {js_string(updated) if updated not in (None, '', 0, False) else 'unknown'}"
    return "\n".join([header, *compact_lines(state, HIDDEN_KEYS), footer])


def render_record(record: RunRecord) -> str:
    """``SkillDefinition.render`` of the rig skills."""
    return render_compact(record.state, record.id, record.skill)
