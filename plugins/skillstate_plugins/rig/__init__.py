"""The rig workflow plugin: rig-task, rig-epic and rig-review, their guards and doctor checks.

Registered through the ``rig`` entry point, so it can be blocked like any plugin
(``SKILLSTATE_DISABLE_PLUGINS=rig``). The ``rig-state`` command (:mod:`.cli`) is a
drop-in replacement for rig's ``scripts/rig-state.ts``; see ``docs/rig.md``. Runs of
the rig skills render as rig-state's ``renderCompact`` (:mod:`.render`), and the
plugin brings ``skillstate migrate-rig-epics`` (:mod:`.epics`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from pathlib import Path

    from skillstate.plugin import CommandSpec, DoctorFinding, Problem, SkillDefinition, Store

__all__ = [
    "skillstate_doctor",
    "skillstate_guards",
    "skillstate_register_commands",
    "skillstate_register_skills",
]

RIG_SKILL_NAMES = ("rig-task", "rig-epic", "rig-review")


@hookimpl
def skillstate_register_skills(register: Callable[[SkillDefinition], None]) -> None:
    from .skills import rig_skills

    for skill in rig_skills():
        register(skill)


@hookimpl
def skillstate_guards(
    skill: SkillDefinition, before: Mapping[str, Any] | None, after: Mapping[str, Any]
) -> list[Problem] | None:
    if skill.name not in RIG_SKILL_NAMES:
        return None
    from .guards import check_guards

    return check_guards(skill.name, after)


@hookimpl
def skillstate_doctor(root: Path, store: Store | None) -> Iterable[DoctorFinding] | None:
    from .doctor import rig_findings

    return rig_findings(root, store)


@hookimpl
def skillstate_register_commands(register: Callable[[CommandSpec], None]) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "migrate-rig-epics",
            "convert rig's old .rig/epics/*.json files into rig-epic runs (dry run unless --apply)",
            f"{__name__}.epics",
        )
    )
