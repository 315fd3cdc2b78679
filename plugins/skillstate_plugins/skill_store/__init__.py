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

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from pathlib import Path

    from .frontmatter import (
        ENVIRONMENT_KEY as ENVIRONMENT_KEY,
        SKILL_KEY as SKILL_KEY,
        check_content as check_content,
        parse_flat as parse_flat,
        parse_frontmatter as parse_frontmatter,
    )
    from .paths import (
        MAX_FILE_BYTES as MAX_FILE_BYTES,
        MAX_NAME_LENGTH as MAX_NAME_LENGTH,
        MAX_SKILL_CHARS as MAX_SKILL_CHARS,
        SUPPORT_DIRS as SUPPORT_DIRS,
        check_name as check_name,
        check_read_path as check_read_path,
        check_support_path as check_support_path,
    )
    from .results import (
        BrokenSkill as BrokenSkill,
        Result as Result,
        SkillError as SkillError,
        SkillFile as SkillFile,
        SkillListing as SkillListing,
        SkillMeta as SkillMeta,
        SkillView as SkillView,
        WriteResult as WriteResult,
        envelope as envelope,
    )
    from .session import SessionSpec as SessionSpec
    from .store import SkillStore as SkillStore

# name -> the module defining it. The store, its result records (attrs classes) and
# hashlib are imported when a name is first used, not when the plugin is loaded: every
# command loads the plugin, few use the skill store.
_WHERE = {
    "ENVIRONMENT_KEY": "frontmatter",
    "SKILL_KEY": "frontmatter",
    "check_content": "frontmatter",
    "parse_flat": "frontmatter",
    "parse_frontmatter": "frontmatter",
    "MAX_FILE_BYTES": "paths",
    "MAX_NAME_LENGTH": "paths",
    "MAX_SKILL_CHARS": "paths",
    "SUPPORT_DIRS": "paths",
    "check_name": "paths",
    "check_read_path": "paths",
    "check_support_path": "paths",
    "BrokenSkill": "results",
    "Result": "results",
    "SkillError": "results",
    "SkillFile": "results",
    "SkillListing": "results",
    "SkillMeta": "results",
    "SkillView": "results",
    "WriteResult": "results",
    "envelope": "results",
    "SessionSpec": "session",
    "SkillStore": "store",
}

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


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


@hookimpl
def skillstate_skill_store(config: Any) -> SkillStore:
    from .store import SkillStore

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
