"""Skill definitions: the fields, phases and rules a run of a skill obeys."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

# At run time, not only for type checkers: typing.get_type_hints (cattrs,
# attrs.resolve_types) resolves SkillDefinition's annotations in this module.
from skillstate.records.problems import Budget
from skillstate.records.runs import RunRecord

__all__ = [
    "ADHOC_SKILL",
    "FIELD_TYPES",
    "TEXT_UNITS",
    "FieldSpec",
    "SkillDefinition",
]

FIELD_TYPES = ("string", "number", "boolean", "string[]", "object", "object[]")

TEXT_UNITS = ("unicode", "utf16")
"""How a skill's budget counts text (:attr:`SkillDefinition.text_units`)."""


@attrs.frozen
class FieldSpec:
    """The type of one state field: ``type`` is one of :data:`FIELD_TYPES`.

    ``enum`` restricts a ``string`` field; ``of`` gives the nested fields of an
    ``object`` or of each element of an ``object[]``.
    """

    type: str
    enum: tuple[str, ...] | None = None
    of: Mapping[str, FieldSpec] | None = None

    def __attrs_post_init__(self) -> None:
        if self.type not in FIELD_TYPES:
            raise ValueError(f"field type {self.type!r} is not one of {', '.join(FIELD_TYPES)}")
        if self.of is not None and self.type not in ("object", "object[]"):
            raise ValueError(f"'of' is only allowed on object and object[] fields, not {self.type}")
        if self.enum is not None and self.type != "string":
            raise ValueError(f"'enum' is only allowed on string fields, not {self.type}")


def _freeze_fields(value: Mapping[str, FieldSpec] | None) -> Mapping[str, FieldSpec] | None:
    return None if value is None else dict(value)


@attrs.frozen
class SkillDefinition:
    """A registered skill: the schema, phases and rules a run of it obeys.

    - ``fields``: the state's fields (rig style); unknown keys are rejected at every
      depth. ``json_schema``: a JSON Schema (draft 2020-12) instead of, or on top of,
      ``fields``. With neither, any JSON object is accepted (budgets still apply).
    - ``phases`` (ordered) and ``terminal_phases``: when ``phases`` is non-empty the
      value at ``phase_key`` must be one of them, and leaving a terminal phase needs
      ``force``.
    - ``immutable_keys``: set at creation, never patched, and not settable through the
      creation seed either.
    - ``run_id_key``, ``skill_key``, ``created_key``, ``updated_key``: when set, the
      pipeline writes the run id, the skill name and timestamps into the state
      (rig's ``runId``, ``skill``, ``createdAt``, ``updatedAt``).
    - ``next_action_key``: the top-level key whose string value ``skillstate list``
      shows as a run's next action (rig's ``nextAction``); ``None`` shows none.
    - ``budget``: overrides the default :class:`Budget` for this skill.
    - ``text_units``: how the budget counts text: ``"unicode"`` (the default) counts a
      string's code points and the document's UTF-8 bytes; ``"utf16"`` counts UTF-16
      code units for both, as JavaScript's ``.length`` does (rig-state: an emoji is 2).
    - ``render``: ``render(record)`` gives the text ``skillstate show`` prints for a
      run of this skill; ``None`` uses the core's generic block
      (:func:`skillstate.render.render_block`), which honours the keys above.
    """

    name: str
    description: str = ""
    fields: Mapping[str, FieldSpec] | None = attrs.field(default=None, converter=_freeze_fields)
    json_schema: Mapping[str, Any] | None = None
    phases: tuple[str, ...] = ()
    terminal_phases: tuple[str, ...] = ()
    immutable_keys: tuple[str, ...] = ()
    budget: Budget | None = None
    phase_key: str = "phase"
    run_id_key: str | None = None
    skill_key: str | None = None
    created_key: str | None = None
    updated_key: str | None = None
    next_action_key: str | None = None
    render: Callable[[RunRecord], str] | None = attrs.field(default=None, eq=False)
    text_units: str = "unicode"

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a skill name must be a non-empty string, got {self.name!r}")
        unknown = [p for p in self.terminal_phases if p not in self.phases]
        if unknown:
            raise ValueError(
                f"skill {self.name}: terminal phases {unknown} are not among its phases {list(self.phases)}"
            )
        if self.text_units not in TEXT_UNITS:
            raise ValueError(
                f"skill {self.name}: text_units must be one of {', '.join(TEXT_UNITS)}, "
                f"got {self.text_units!r}"
            )
        if self.json_schema is not None:  # checked now, not at the first transition
            from skillstate.jsonschemas import json_schema_errors

            errors = json_schema_errors(self.json_schema, f"skill {self.name}: json_schema")
            if errors:
                raise ValueError(errors[0])

    def stamped_keys(self) -> tuple[str, ...]:
        """The state keys the pipeline writes itself (id, skill, phase, timestamps)."""
        keys = (
            self.run_id_key,
            self.skill_key,
            self.phase_key if self.phases else None,
            self.created_key,
            self.updated_key,
        )
        return tuple(k for k in keys if k)

    def initial_state(self, run_id: str, now: str) -> dict[str, Any]:
        """The state a new run starts from, before its seed is merged in."""
        state: dict[str, Any] = {}
        if self.run_id_key:
            state[self.run_id_key] = run_id
        if self.skill_key:
            state[self.skill_key] = self.name
        if self.phases:
            state[self.phase_key] = self.phases[0]
        if self.created_key:
            state[self.created_key] = now
        if self.updated_key:
            state[self.updated_key] = now
        return state


ADHOC_SKILL = SkillDefinition(
    name="skill-state",
    description="a SKILL.state session that names no registered skill (its own JSON Schema only)",
)
"""The skill of a session that names none: no fields, no JSON Schema of its own.

Such a session's record has ``skill == "skill-state"`` and ``meta["adhoc_skill"]``
true; the runtime passes this definition to the pipeline explicitly, so a plugin
registering a skill of the same name never changes how these sessions validate.
"""
