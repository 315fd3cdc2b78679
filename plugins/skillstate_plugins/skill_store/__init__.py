"""The skill store: skills as SKILL.md directories, served at three levels of cost.

>>> from skillstate_plugins.skill_store import SkillStore, SkillError
>>> store = SkillStore(".skillstate/skills")           # doctest: +SKIP
>>> listing = store.list()                              # level 1: metadata only
>>> view = store.view("pdf-tools")                      # level 2: body + linked files
>>> if isinstance(view, SkillError): print(view.message)

Every operation returns a result record or a :class:`SkillError`; none raises for
bad input. See ``docs/skills.md``.

The plugin (entry point ``skill-store``) answers the core's ``skillstate_skill_store``
hook with :meth:`SkillStore.from_config` and adds the ``skillstate skills`` and
``skillstate session start --skill NAME`` commands.
It imports only ``skillstate.plugin`` and its own modules.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .frontmatter import (
    ENVIRONMENT_KEY,
    SKILL_KEY,
    check_content,
    parse_flat,
    parse_frontmatter,
)
from .paths import (
    MAX_FILE_BYTES,
    MAX_NAME_LENGTH,
    MAX_SKILL_CHARS,
    SUPPORT_DIRS,
    check_name,
    check_read_path,
    check_support_path,
)
from .results import (
    BrokenSkill,
    Result,
    SkillError,
    SkillFile,
    SkillListing,
    SkillMeta,
    SkillView,
    WriteResult,
    envelope,
)
from .session import SessionSpec
from .store import SkillStore

__all__ = [
    "ENVIRONMENT_KEY",
    "MAX_FILE_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_SKILL_CHARS",
    "SKILL_KEY",
    "SUPPORT_DIRS",
    "BrokenSkill",
    "Result",
    "SessionSpec",
    "SkillError",
    "SkillFile",
    "SkillListing",
    "SkillMeta",
    "SkillStore",
    "SkillView",
    "WriteResult",
    "check_content",
    "check_name",
    "check_read_path",
    "check_support_path",
    "envelope",
    "parse_flat",
    "parse_frontmatter",
]


from skillstate.plugin import hookimpl


@hookimpl
def skillstate_skill_store(config: Any) -> SkillStore:
    return SkillStore.from_config(config)


@hookimpl
def skillstate_doctor(root: Path, store: Any) -> Iterable[Any]:
    from .doctor import skill_findings

    return skill_findings(root)


@hookimpl
def skillstate_register_commands(register: Any) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "skills", "the skill store: SKILL.md skills, list/view/edit", f"{__name__}.command"
        )
    )
    register(
        CommandSpec.from_module(
            "session",
            "start a SKILL.state session from a stored skill (session start)",
            f"{__name__}.session_cmd",
        )
    )
