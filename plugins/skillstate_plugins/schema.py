"""The default validation: a skill's field schema and JSON Schema, a session's JSON Schema, the phase."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.markers import hookimpl
from skillstate.records import Budget, Problem, SkillDefinition
from skillstate.schema import validate_state

__all__ = ["skillstate_validate"]


@hookimpl(trylast=True)
def skillstate_validate(
    skill: SkillDefinition,
    state: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
    budget: Budget,
) -> list[Problem]:
    return validate_state(skill, state, budget, schema, source="schema")
