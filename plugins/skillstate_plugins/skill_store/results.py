"""What the skill store returns: a value on success, a :class:`SkillError` on failure.

Every :class:`~skillstate_plugins.skill_store.store.SkillStore` method returns one of these
records, never raises for bad input or a failed read or write. Each record has
``to_dict()`` giving the Hermes-style JSON envelope ``{"success": bool, ...}``
(``error`` on failure, ``message`` on a write) that the CLI's ``--json`` and the
MCP tools print with ``json.dumps(..., ensure_ascii=False)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import attrs

__all__ = [
    "ERROR_CODES",
    "BrokenSkill",
    "Result",
    "SkillError",
    "SkillFile",
    "SkillListing",
    "SkillMeta",
    "SkillView",
    "WriteResult",
    "envelope",
]

ERROR_CODES = (
    "invalid-name",  # the skill name breaks the name rules
    "invalid-path",  # a support path breaks the path rules (1-8)
    "invalid-content",  # SKILL.md frontmatter/body rules, or a missing argument
    "too-large",  # over 100,000 characters (SKILL.md) or 1 MiB (support file)
    "not-found",  # no such skill, or no such file in it
    "exists",  # create: the name is taken
    "read-only",  # a write to a skill outside the project (write) root
    "broken",  # a stored SKILL.md that cannot be read or has broken frontmatter
    "no-match",  # patch: the text is not there
    "ambiguous",  # patch: the text is there more than once
    "io",  # the operating system refused a read or write
)


@attrs.frozen
class SkillError:
    """A failed operation: ``code`` (one of :data:`ERROR_CODES`), the exact ``message``, extras."""

    code: str
    message: str
    details: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"success": False, "error": self.message, **self.details}


@attrs.frozen
class SkillMeta:
    """Level 1: one skill as the listing shows it (frontmatter only, never the body)."""

    name: str
    description: str
    source: str  # "project" or "user": the root the skill was found in
    path: str  # the skill directory
    description_chars: int = 0
    """The description's length before the listing's cut (0: not measured)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "path": self.path,
        }


@attrs.frozen
class BrokenSkill:
    """Level 1: a skill directory with a SKILL.md that cannot be used, and why."""

    name: str
    source: str
    path: str
    reason: str  # the message view(name) gives, e.g. "... declares name 'y'; ..."

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "path": self.path, "reason": self.reason}


@attrs.frozen
class SkillListing:
    """Level 1: every visible skill, sorted by name, first root wins on a shared name.

    ``broken`` are the skill directories whose SKILL.md cannot be used (sorted by name):
    they are not in ``skills`` (nor ``count``), and each names its reason.
    """

    skills: tuple[SkillMeta, ...]
    broken: tuple[BrokenSkill, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "success": True,
            "skills": [skill.to_dict() for skill in self.skills],
            "count": len(self.skills),
            "broken": [skill.to_dict() for skill in self.broken],
        }
        if self.skills:
            result["hint"] = "Use skill_view(name) to see full content and linked files"
        else:
            result["message"] = "No skills found in skills/ directory."
        return result


@attrs.frozen
class SkillView:
    """Level 2: one skill's SKILL.md (body and frontmatter), its hash and its support files.

    ``sha256`` is the hex digest of SKILL.md's bytes as read, so a session can
    record exactly which version it froze as its spec P. ``skill_definition`` and
    ``environment`` are the ``skillstate-skill`` / ``skillstate-environment``
    frontmatter values (``None`` when absent). ``files`` is every file of the skill but
    SKILL.md; ``linked_files`` those under the four support directories and those the
    body links to (``[forms](forms.md)``).
    """

    name: str
    description: str
    source: str
    path: str
    frontmatter: Mapping[str, Any]
    body: str
    content: str
    sha256: str
    linked_files: tuple[str, ...]
    skill_definition: str | None = None
    environment: str | None = None
    files: tuple[str, ...] = ()
    files_truncated: bool = False
    """``files`` stopped at 1,000 names (``MAX_LISTED_FILES``); ``read`` still takes the rest."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "success": True,
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "path": self.path,
            "frontmatter": dict(self.frontmatter),
            "body": self.body,
            "content": self.content,
            "sha256": self.sha256,
            "skill_definition": self.skill_definition,
            "environment": self.environment,
            "linked_files": list(self.linked_files) or None,
            "files": list(self.files),
            **({"files_truncated": True} if self.files_truncated else {}),
            "usage_hint": (
                "To view linked files, call skill_read(name, file_path) where file_path is "
                "one of files, e.g. 'references/api.md' or 'forms.md'"
                if self.files
                else None
            ),
        }


@attrs.frozen
class SkillFile:
    """Level 3: one support file. Binary (not UTF-8) files carry a placeholder as ``content``."""

    name: str
    file: str
    content: str
    size: int
    sha256: str
    is_binary: bool = False

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "success": True,
            "name": self.name,
            "file": self.file,
            "content": self.content,
            "size": self.size,
            "sha256": self.sha256,
        }
        if self.is_binary:
            result["is_binary"] = True
        else:
            suffix = self.file.rsplit("/", 1)[-1]
            result["file_type"] = "." + suffix.rsplit(".", 1)[-1] if "." in suffix else ""
        return result


@attrs.frozen
class WriteResult:
    """A write that happened: the reference's ``message``, the path written, SKILL.md's new hash."""

    name: str
    message: str
    path: str
    sha256: str | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"success": True, "message": self.message, "path": self.path}
        if self.sha256 is not None:
            result["sha256"] = self.sha256
        return result


Result: TypeAlias = SkillListing | SkillView | SkillFile | WriteResult | SkillError


def envelope(result: Result) -> dict[str, Any]:
    """The JSON envelope of any store result (``result.to_dict()``)."""
    return result.to_dict()
