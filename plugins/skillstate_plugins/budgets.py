"""The default budget: the skill's own, else the configured or built-in defaults (``trylast``)."""

from __future__ import annotations

from skillstate.markers import hookimpl
from skillstate.records import Budget, SkillDefinition

__all__ = ["skillstate_budget"]


@hookimpl(trylast=True)
def skillstate_budget(skill: SkillDefinition) -> Budget | None:
    return skill.budget
