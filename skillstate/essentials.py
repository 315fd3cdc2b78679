"""The essential plugins: the core's own defaults for merge, validation and budgets.

pytest has essential plugins (``main``, ``runner``...) that ``-p no:`` refuses to
block; these are skillstate's. The guard spec promises guards a well-shaped state, so
the checks every transition owes are not something a block list can switch off by
accident: ``SKILLSTATE_DISABLE_PLUGINS=schema`` (or ``--disable-plugin merge``) is a
usage error, and an allow-list loads them whatever it names. Each is still an
ordinary ``trylast`` implementation of its hook, registered under its name, so
another plugin replaces or extends it the pluggy way (see ``docs/plugins.md``):

- ``merge`` — ``skillstate_merge``: RFC 7396; a plugin returning a value replaces it;
- ``schema`` — ``skillstate_validate``: the skill's fields and JSON Schema, a session's
  JSON Schema, the phase; other validators add problems;
- ``budgets`` — ``skillstate_budget``: the skill's own budget; a plugin returning one
  replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillstate.markers import hookimpl

if TYPE_CHECKING:
    from skillstate.records import Budget, Problem, SkillDefinition

__all__ = ["ESSENTIAL", "BudgetsPlugin", "MergePlugin", "SchemaPlugin"]


class MergePlugin:
    """RFC 7396 JSON Merge Patch."""

    @hookimpl(trylast=True)
    def skillstate_merge(self, state: Mapping[str, Any], patch: Mapping[str, Any]) -> Any:
        from skillstate.merge import merge_patch

        return merge_patch(state, patch)


class SchemaPlugin:
    """A skill's field schema and JSON Schema, a session's JSON Schema, the phase.

    It keeps the JSON Schemas it compiled (by their text, a bounded number): compiling
    one checks it against the metaschema, which costs more than validating a state;
    and the field walkers it built, one per skill definition and budget.
    """

    def __init__(self) -> None:
        self.validators: dict[str, Any] = {}
        self.walkers: dict[Any, Any] = {}

    @hookimpl(trylast=True)
    def skillstate_validate(
        self,
        skill: SkillDefinition,
        state: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        budget: Budget,
    ) -> list[Problem]:
        from skillstate.schema import validate_state

        return validate_state(
            skill,
            state,
            budget,
            schema,
            source="schema",
            validators=self.validators,
            walkers=self.walkers,
        )


class BudgetsPlugin:
    """The skill's own budget (else the configured or built-in default, applied by the host)."""

    @hookimpl(trylast=True)
    def skillstate_budget(self, skill: SkillDefinition) -> Budget | None:
        return skill.budget


ESSENTIAL: dict[str, type] = {
    "merge": MergePlugin,
    "schema": SchemaPlugin,
    "budgets": BudgetsPlugin,
}
"""The essential plugins by name, in registration order."""
