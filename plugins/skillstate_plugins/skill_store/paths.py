"""Skill names and support-file paths: the rules that keep every write inside its skill.

Both checkers return the error message (a ``str``) or ``None``; they never raise.
The support-path rules are checked on the raw string, in this order (messages from
the reference, ``docs/skills.md`` lists them):

1. empty; 1b. not valid Unicode (a lone surrogate); 2. a backslash; 3. absolute (``/x`` or a drive such as ``C:``);
4. a ``..`` segment; 5. a ``.`` or empty segment; 6. the first segment is not one of
``assets``, ``references``, ``scripts``, ``templates``; 7. fewer than two segments;
8. (:func:`confine`) the resolved real path leaves the skill directory (symlinks).

Reads (:func:`check_read_path`, :func:`confine_read`) take any file of the skill: rules
1-5 (after :func:`read_path` dropped ``.`` segments), then a hidden segment (``.x``: hidden files are never listed, and may hold secrets
such as ``.env``), then the resolved real path must stay inside the skill directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from skillstate.plugin import excerpt

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_SKILL_CHARS",
    "NAME_PATTERN",
    "SUPPORT_DIRS",
    "check_name",
    "check_read_path",
    "check_support_path",
    "confine",
    "confine_read",
    "find_surrogate",
    "is_valid_name",
    "read_path",
]

MAX_NAME_LENGTH = 64
MAX_SKILL_CHARS = 100_000
"""SKILL.md limit on create, edit and the result of a patch, in characters."""
MAX_FILE_BYTES = 1_048_576
"""Support-file limit (UTF-8 bytes) on write_file, the result of a patch, and read."""
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
SUPPORT_DIRS = ("assets", "references", "scripts", "templates")

_DRIVE = re.compile(r"^[A-Za-z]:")
_SURROGATE = re.compile("[\ud800-\udfff]")


def find_surrogate(text: str) -> int:
    """The index of the first lone surrogate in ``text`` (``-1`` when it is valid Unicode).

    A lone surrogate (``"\\ud800"`` in JSON, a non-UTF-8 byte in argv) cannot be
    written to a file name or encoded as UTF-8, so every text is checked first.
    """
    if text.isascii():
        return -1
    match = _SURROGATE.search(text)
    return -1 if match is None else match.start()


def check_name(name: object) -> str | None:
    """The reference's message for a bad skill name, or ``None`` when ``name`` is acceptable."""
    if not isinstance(name, str) or not name:
        return "Skill name is required."
    if len(name) > MAX_NAME_LENGTH:
        return f"Skill name exceeds {MAX_NAME_LENGTH} characters."
    if NAME_PATTERN.fullmatch(name) is None:
        return (
            f"Invalid skill name '{excerpt(name)}'. Use lowercase letters, numbers, hyphens, dots, "
            "and underscores. Must start with a letter or digit."
        )
    return None


def is_valid_name(name: object) -> bool:
    """``check_name(name) is None``."""
    return check_name(name) is None


def _check_relative(file_path: object) -> str | None:
    """Rules 1-5 of the module docstring, shared by reads and writes."""
    if not isinstance(file_path, str) or not file_path:
        return "file_path is required."
    bad = find_surrogate(file_path)
    if bad >= 0:
        return (
            f"file_path is not valid Unicode (a lone surrogate at character {bad}); "
            f"send UTF-8 text. Got: '{excerpt(file_path)}'"
        )
    if "\\" in file_path:
        return "Backslashes are not allowed in file_path; use '/'."
    if file_path.startswith("/") or _DRIVE.match(file_path):
        return f"file_path must be relative to the skill directory. Got: '{excerpt(file_path)}'"
    segments = file_path.split("/")
    if ".." in segments:
        return "Path traversal ('..') is not allowed."
    if any(segment in ("", ".") for segment in segments):
        return f"file_path must not contain '.' or empty segments. Got: '{excerpt(file_path)}'"
    return None


def _check_nul(file_path: str) -> str | None:
    if "\x00" in file_path:
        return f"file_path must not contain NUL characters. Got: '{excerpt(file_path)}'"
    return None


def check_support_path(file_path: object) -> str | None:
    """Rules 1-7 of the module docstring (writes): the message for a bad support path, or ``None``."""
    problem = _check_relative(file_path)
    if problem is not None or not isinstance(file_path, str):
        return problem
    segments = file_path.split("/")
    if segments[0] not in SUPPORT_DIRS:
        return f"File must be under one of: {', '.join(SUPPORT_DIRS)}. Got: '{excerpt(file_path)}'"
    if len(segments) < 2:
        return f"Provide a file path, not just a directory. Example: '{excerpt(segments[0])}/myfile.md'"
    return _check_nul(file_path)


def read_path(file_path: str) -> str:
    """``file_path`` without its ``.`` segments (``./reference/api.md`` is
    ``reference/api.md``, as SKILL.md bodies often link it); anything else unchanged,
    for :func:`check_read_path` to judge. Writes keep rule 5 whole."""
    if "." not in file_path.split("/"):
        return file_path
    kept = "/".join(segment for segment in file_path.split("/") if segment != ".")
    return kept or file_path


def check_read_path(file_path: object) -> str | None:
    """The rules for a read: 1-5, no hidden segment, no NUL; the message, or ``None``."""
    problem = _check_relative(file_path)
    if problem is not None or not isinstance(file_path, str):
        return problem
    if any(segment.startswith(".") for segment in file_path.split("/")):
        return f"Hidden files are not read (a segment starts with '.'). Got: '{excerpt(file_path)}'"
    return _check_nul(file_path)


def confine(skill_dir: Path, file_path: str) -> tuple[Path, str | None]:
    """Rule 8: ``(real target, None)``, or ``(target, message)`` when it escapes ``skill_dir``.

    Both sides are resolved with :func:`os.path.realpath`, so a symlinked support
    directory or file pointing elsewhere is refused; a target that does not exist
    yet resolves through its existing parents.
    """
    base = Path(os.path.realpath(skill_dir))
    target = Path(os.path.realpath(base / file_path))
    if target == base or base not in target.parents:
        return target, f"Path escapes allowed directory: '{file_path}' resolves to {target}"
    # Support files live below their support directory, never directly at the skill root.
    relative = target.relative_to(base).parts
    if relative[0] not in SUPPORT_DIRS or len(relative) < 2:
        return target, f"Path escapes allowed directory: '{file_path}' resolves to {target}"
    return target, None


def confine_read(skill_dir: Path, file_path: str) -> tuple[Path, str | None]:
    """Rule 8 for a read: ``(real target, None)``, or a message when it leaves ``skill_dir``.

    Any file of the skill may be read (SKILL.md beside its support files, folders of the
    skill's own such as ``reference/`` or ``examples/``); a symlink is followed only
    while its real target stays inside the skill directory.
    """
    base = Path(os.path.realpath(skill_dir))
    target = Path(os.path.realpath(base / file_path))
    if target == base or base not in target.parents:
        return target, f"Path escapes allowed directory: '{file_path}' resolves to {target}"
    return target, None
