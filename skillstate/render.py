"""Text renderings of a run: the compact block ``skillstate show`` prints, and ``get --field``.

The compact block is what a skill pastes into a (sub)agent prompt instead of the raw
JSON: one line per scalar, nested objects flattened to ``parent.child``, arrays as
``  - item`` lines (``(none)`` when empty), object items inline as ``k=v`` pairs::

    # deploy state · d-1 · phase: approved
    approved_by: ana
    checks:
      - lint
    updated: 2026-09-01T00:00:00.000Z

:func:`render_block` is the core's generic block: it honours the skill's own keys
(``phase_key``, ``updated_key`` and the other stamped keys are not repeated as lines).
A skill may render its own runs (``SkillDefinition.render``): rig renders rig-state's
exact ``renderCompact`` with :func:`compact_lines`. Values are printed as
JavaScript's ``String(v)`` would (``true``, ``1`` not ``1.0``), a line break inside one
written ``\\n`` so that every line is one field.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.display import one_line
from skillstate.jsondoc import compact
from skillstate.schema import js_string

if TYPE_CHECKING:
    from skillstate.records import RunRecord, SkillDefinition

__all__ = ["compact_lines", "dig_field", "field_text", "render_block", "render_run"]


def _text(value: Any) -> str:
    """``String(value)`` on one line: a line break inside is written ``\\n``, so a value
    cannot print a line that reads as another field (``ok\\ntests.status: green``)."""
    return one_line(js_string(value))


def _item(value: Any) -> str:
    if type(value) is dict:
        pairs = []
        for key, inner in value.items():
            if inner is None or (type(inner) is list and not inner):
                continue
            pairs.append(f"{one_line(key)}={_text(inner)}")
        return " ".join(pairs)
    return _text(value)


def _lines(key: str, value: Any, out: list[str]) -> None:
    if value is None:
        return
    if type(value) is dict:
        for child, inner in value.items():
            _lines(f"{key}.{one_line(child)}", inner, out)
    elif type(value) is list:
        if not value:
            out.append(f"{key}: (none)")
            return
        out.append(f"{key}:")
        out.extend(f"  - {_item(item)}" for item in value)
    else:
        out.append(f"{key}: {_text(value)}")


def compact_lines(state: Mapping[str, Any], hidden: Collection[str] = ()) -> list[str]:
    """The body lines of a compact block: every top-level key but ``hidden``, flattened."""
    out: list[str] = []
    for key, value in state.items():
        if key not in hidden:
            _lines(one_line(key), value, out)
    return out


def render_block(record: RunRecord, skill: SkillDefinition | None = None) -> str:
    """The generic compact block of a run, without a trailing newline.

    Header ``# {skill} state · {run id}`` (plus `` · {phase_key}: {phase}`` when the
    skill has phases), a line per value, then ``updated:`` — the state's
    ``updated_key`` when the skill stamps one, else the record's last write.
    """
    state = record.state
    header = f"# {record.skill} state · {record.id}"
    hidden: tuple[str, ...] = ()
    updated: Any = record.updated
    if skill is not None:
        hidden = skill.stamped_keys()
        if skill.phases:
            header += f" · {skill.phase_key}: {_text(state.get(skill.phase_key))}"
        if skill.updated_key and state.get(skill.updated_key):
            updated = state[skill.updated_key]
    out = [header, *compact_lines(state, hidden)]
    out.append(f"updated: {_text(updated) if updated else 'unknown'}")
    return "\n".join(out)


def render_run(record: RunRecord, skill: SkillDefinition | None) -> str:
    """What ``show`` prints: the skill's own rendering when it has one, else the generic block."""
    if skill is not None and skill.render is not None:
        return skill.render(record)
    return render_block(record, skill)


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
