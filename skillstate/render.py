"""Text renderings of a state: rig-state's ``renderCompact`` block and ``get --field`` values.

The compact block is what a skill pastes into a (sub)agent prompt instead of the raw
JSON: one line per scalar, nested objects flattened to ``parent.child``, arrays as
``  - item`` lines (``(none)`` when empty), object items inline as ``k=v`` pairs::

    # rig-task state · abc-18 · phase: green
    spec.id: ABC-18
    tests.status: green
    blockers: (none)
    updated: 2026-09-01T00:00:00.000Z

Values are printed as JavaScript's ``String(v)`` would (``true``, ``1`` not ``1.0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.jsondoc import compact
from skillstate.schema import js_string

__all__ = ["HIDDEN_KEYS", "dig_field", "field_text", "render_compact"]

HIDDEN_KEYS = frozenset({"skill", "runId", "phase", "createdAt", "updatedAt"})

_MISSING: Any = object()


def _item(value: Any) -> str:
    if type(value) is dict:
        pairs = []
        for key, inner in value.items():
            if inner is None or (type(inner) is list and not inner):
                continue
            pairs.append(f"{key}={js_string(inner)}")
        return " ".join(pairs)
    return js_string(value)


def _lines(key: str, value: Any, out: list[str]) -> None:
    if value is None:
        return
    if type(value) is dict:
        for child, inner in value.items():
            _lines(f"{key}.{child}", inner, out)
    elif type(value) is list:
        if not value:
            out.append(f"{key}: (none)")
            return
        out.append(f"{key}:")
        out.extend(f"  - {_item(item)}" for item in value)
    else:
        out.append(f"{key}: {js_string(value)}")


def _shown(state: Mapping[str, Any], key: str, default: str | None) -> str:
    if key in state:
        return js_string(state[key])
    return default if default is not None else "undefined"


def render_compact(
    state: Mapping[str, Any], run_id: str | None = None, skill: str | None = None
) -> str:
    """rig-state's ``renderCompact(state)``, without a trailing newline.

    ``run_id`` and ``skill`` fill the header for states that do not carry ``runId`` /
    ``skill`` themselves (runs of non-rig skills).
    """
    header = (
        f"# {_shown(state, 'skill', skill)} state · {_shown(state, 'runId', run_id)}"
        f" · phase: {_shown(state, 'phase', None)}"
    )
    out = [header]
    for key, value in state.items():
        if key in HIDDEN_KEYS:
            continue
        _lines(key, value, out)
    updated = state.get("updatedAt")
    out.append(
        f"updated: {js_string(updated) if updated not in (None, '', 0, False) else 'unknown'}"
    )
    return "\n".join(out)


def dig_field(state: Any, dotted: str) -> tuple[bool, Any]:
    """``(found, value)`` for ``a.b.c`` walking plain objects only (as rig-state's ``dig``)."""
    value = state
    for part in dotted.split("."):
        if type(value) is not dict or part not in value:
            return False, None
        value = value[part]
    return True, value


def field_text(value: Any) -> str:
    """``get --field`` output: objects, arrays and null as compact JSON, anything else as ``String(v)``."""
    if value is None or type(value) in (dict, list):
        return compact(value)
    return js_string(value)
