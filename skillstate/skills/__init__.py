"""The skill store: skills as SKILL.md directories, served at three levels of cost.

>>> from skillstate.skills import SkillStore, SkillError
>>> store = SkillStore(".skillstate/skills")           # doctest: +SKIP
>>> listing = store.list()                              # level 1: metadata only
>>> view = store.view("pdf-tools")                      # level 2: body + linked files
>>> if isinstance(view, SkillError): print(view.message)

Every operation returns a result record or a :class:`SkillError`; none raises for
bad input. See ``docs/skills.md``.
"""

from __future__ import annotations

from skillstate.skills.frontmatter import (
    ENVIRONMENT_KEY,
    SKILL_KEY,
    check_content,
    parse_flat,
    parse_frontmatter,
)
from skillstate.skills.paths import (
    MAX_FILE_BYTES,
    MAX_NAME_LENGTH,
    MAX_SKILL_CHARS,
    SUPPORT_DIRS,
    check_name,
    check_support_path,
)
from skillstate.skills.results import (
    Result,
    SkillError,
    SkillFile,
    SkillListing,
    SkillMeta,
    SkillView,
    WriteResult,
    envelope,
)
from skillstate.skills.session import SessionSpec, session_spec
from skillstate.skills.store import SkillStore

__all__ = [
    "ENVIRONMENT_KEY",
    "MAX_FILE_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_SKILL_CHARS",
    "SKILL_KEY",
    "SUPPORT_DIRS",
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
    "check_support_path",
    "envelope",
    "parse_flat",
    "parse_frontmatter",
    "session_spec",
]
