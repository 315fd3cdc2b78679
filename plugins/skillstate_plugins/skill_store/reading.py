"""The read side of the skill store: locating a skill, checking a stored SKILL.md, support listings.

"Lenient read" means: any frontmatter PyYAML or the flat parser accepts, with
two requirements a listing cannot do without — a non-empty ``description``, and a
``name`` (when present) equal to the directory name. A SKILL.md failing them is
*broken*: :meth:`SkillStore.list` lists it under ``broken`` with the reason
:meth:`SkillStore.view` gives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from .frontmatter import ENVIRONMENT_KEY, SKILL_KEY, HeaderProblem, parse_source
from .fsio import HEADER_WINDOW, TEMP_MARK, Header
from .paths import SUPPORT_DIRS, find_surrogate

__all__ = [
    "MAX_LISTED_DESCRIPTION",
    "MAX_LISTED_FILES",
    "SYMLINKED_SKILL",
    "Probe",
    "body_links",
    "check_stored",
    "describe_header",
    "full_description",
    "os_message",
    "skill_files",
    "string_value",
    "support_files",
]

MAX_LISTED_DESCRIPTION = 1024

MAX_LISTED_FILES = 1000
"""``view`` lists at most this many files of a skill (``files_truncated`` says when it stopped)."""

SYMLINKED_SKILL = (
    "is a symbolic link; skills must be real directories inside the skills root "
    "(symbolic links are refused: replace the link with the directory)"
)
"""Why a skill directory that is a symbolic link is refused (after ``Skill 'name' ``)."""


@attrs.frozen
class Probe:
    """Where a name resolved: ``found`` (a SKILL.md entry exists), else ``absent`` or ``error``."""

    status: str
    source: str = ""
    root: Path | None = None
    message: str = ""


def os_message(exc: OSError) -> str:
    """A short reason for an ``OSError`` (its strerror, else its text)."""
    return exc.strerror or str(exc) or type(exc).__name__


def describe_header(name: str, header: Header) -> str | None:
    """The message for a SKILL.md whose first bytes are unusable, or ``None`` when ``ok``."""
    if header.status == "no-fence":
        return f"SKILL.md of skill '{name}' has no frontmatter: it must start with a '---' line."
    if header.status == "unclosed":
        return f"SKILL.md of skill '{name}' has unclosed frontmatter: add a closing '---' line."
    if header.status == "too-long":
        return (
            f"SKILL.md of skill '{name}' has no closing '---' within its first "
            f"{HEADER_WINDOW:,} bytes; keep the frontmatter short."
        )
    return None


def check_stored(name: str, source: str, use_yaml: bool | None) -> tuple[dict[str, Any], str] | str:
    """``(frontmatter, description)`` of a stored skill's frontmatter source, or the reason it is broken."""
    try:
        fields = parse_source(source, use_yaml=use_yaml)
    except HeaderProblem as exc:  # an alias, too deep: refused before it is built
        return f"SKILL.md of skill '{name}': {exc}"
    description = fields.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        return f"SKILL.md of skill '{name}' has no 'description' in its frontmatter."
    declared = fields.get("name")
    if declared is not None and str(declared) != name:
        return (
            f"SKILL.md of skill '{name}' declares name '{declared}'; "
            "the frontmatter name must equal the directory name."
        )
    for key in (SKILL_KEY, ENVIRONMENT_KEY):
        value = fields.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            return f"SKILL.md of skill '{name}': '{key}' must be a non-empty name, got {value!r}."
    text = full_description(fields)
    if len(text) > MAX_LISTED_DESCRIPTION:  # a YAML block scalar ends in a newline: stripped
        text = text[: MAX_LISTED_DESCRIPTION - 3] + "..."
    return fields, text


def full_description(fields: Mapping[str, Any]) -> str:
    """The frontmatter's description as text, stripped, before any cut."""
    description = fields.get("description")
    return (description if isinstance(description, str) else str(description)).strip()


def _visible(entry: str) -> bool:
    """Not hidden, not a temp file, and a name that is text (not undecodable bytes)."""
    return not entry.startswith(".") and TEMP_MARK not in entry and find_surrogate(entry) < 0


def support_files(skill_dir: Path) -> tuple[str, ...]:
    """Every file under the four support directories, as sorted ``dir/…`` paths (hidden ones skipped).

    Only names are listed (no file is opened); symlinked subdirectories are not followed.
    """
    found: list[str] = []
    for top in SUPPORT_DIRS:
        base = skill_dir / top
        if not base.is_dir():
            continue
        for current, dirs, files in os.walk(base, followlinks=False):
            dirs[:] = sorted(d for d in dirs if _visible(d))
            relative = Path(current).relative_to(skill_dir).as_posix()
            found.extend(f"{relative}/{f}" for f in files if _visible(f))
    return tuple(sorted(found))


def skill_files(skill_dir: Path) -> tuple[tuple[str, ...], bool]:
    """Every file of the skill but its SKILL.md, as sorted relative paths (hidden ones
    skipped), and whether the list stopped at :data:`MAX_LISTED_FILES`.

    Only names are listed (no file is opened); symlinked subdirectories are not followed.
    Real skills keep files beside SKILL.md (``forms.md``) and in folders of their own
    (``reference/``, ``examples/``, ``agents/``), not only in the four support directories.
    The walk visits directories in name order and stops once it has more than the
    limit, so a skill holding a whole ``node_modules`` costs a bounded time and answer.
    """
    found: list[str] = []
    for current, dirs, files in os.walk(skill_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if _visible(d))
        relative = Path(current).relative_to(skill_dir).as_posix()
        prefix = "" if relative == "." else f"{relative}/"
        found.extend(
            f"{prefix}{f}" for f in sorted(files) if _visible(f) and (prefix or f != "SKILL.md")
        )
        if len(found) > MAX_LISTED_FILES:
            break
    return tuple(sorted(found)[:MAX_LISTED_FILES]), len(found) > MAX_LISTED_FILES


_PATH_TOKEN = re.compile(r"[\w@./-]+")
"""A run of path characters: a link target ``(forms.md#top)``, a mention ```reference/api.md```."""


def body_links(body: str, files: Iterable[str]) -> tuple[str, ...]:
    """The files of ``files`` that ``body`` links to or names, sorted.

    Markdown links (``[forms](forms.md)``, ``[api](./reference/api.md#auth)``) and plain
    mentions (``read forms.md``, ``@agents/reviewer.md``) both count, as published skills
    use both; external and missing targets are left out.
    """
    known = set(files)
    linked: set[str] = set()
    for token in _PATH_TOKEN.findall(body):
        token = token.lstrip("@").rstrip(".")
        while token.startswith("./"):
            token = token[2:]
        if token in known:
            linked.add(token)
    return tuple(sorted(linked))


def string_value(fields: Mapping[str, Any], key: str) -> str | None:
    """A frontmatter value that must be a name, stripped (``None`` when absent)."""
    value = fields.get(key)
    return value.strip() if isinstance(value, str) else None
