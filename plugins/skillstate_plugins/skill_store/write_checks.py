"""The checks of the skill store's writes, before and under the lock, as :class:`SkillError`.

Before the disk is touched: the name and support-path rules (:func:`invalid_target`),
a whole SKILL.md text (:func:`check_skill_text`), a support file's size
(:func:`bytes_error`), and that the skill is in the project root (:func:`writable_dir`).
Under the lock: the skill is still the one at its path (:func:`skill_lock`), a support
file stays inside it (:func:`confined`), the file to edit is readable UTF-8 text
(:func:`read_text`). A check failing under the lock raises :class:`Abort`, which
:func:`run_write` turns back into the :class:`SkillError` it carries, as it does any
``OSError``. Messages are the reference's; ``docs/skills.md`` lists them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .frontmatter import BOM, HeaderProblem, check_content, parse_source, split_frontmatter
from .fsio import HardLink, locked, read_all, scan_header
from .paths import (
    MAX_FILE_BYTES,
    MAX_SKILL_CHARS,
    check_name,
    check_support_path,
    confine,
    find_surrogate,
)
from .reading import SYMLINKED_SKILL, check_stored, describe_header, os_message
from .results import SkillError, WriteResult

if TYPE_CHECKING:
    from .store import SkillStore

__all__ = [
    "SKILL_FILE",
    "Abort",
    "bytes_error",
    "check_skill_text",
    "confined",
    "invalid_target",
    "io_error",
    "read_text",
    "run_write",
    "skill_lock",
    "text_error",
    "writable_dir",
]

SKILL_FILE = "SKILL.md"


class Abort(Exception):
    """Carries a SkillError out of a locked block."""

    def __init__(self, error: SkillError) -> None:
        super().__init__(error.message)
        self.error = error


def read_name(content: str, use_yaml: bool | None, written: object) -> object:
    """The ``name`` as the read path reads it (``name: "q2"`` is ``q2`` to YAML, ``"q2"``
    to the flat parser), so a name is accepted on write exactly when the skill would list."""
    text = content[1:] if content.startswith(BOM) else content
    parts = split_frontmatter(text)
    if parts is None:  # pragma: no cover - check_content refused it already
        return written
    return parse_source(parts[0], use_yaml=use_yaml).get("name", written)


def check_skill_text(
    name: str, content: str, prefix: str = "", use_yaml: bool | None = None
) -> SkillError | None:
    """Every write-side rule for a whole SKILL.md text, or ``None`` when it may be written.

    Last, the text is read back with the read path in use (``use_yaml``), so whatever
    is written is listable: e.g. ``description: null`` passes the flat rules but is
    empty to PyYAML.
    """
    try:
        fields, _ = check_content(content)
        declared = str(read_name(content, use_yaml, fields["name"]))
    except HeaderProblem as exc:
        return SkillError("invalid-content", f"{prefix}{exc}")
    if declared != name:
        hint = ""
        if declared[:1] in ("'", '"') and declared == str(fields["name"]):  # read verbatim
            hint = " Values are kept verbatim, quotes included: write the name without quotes."
        return SkillError(
            "invalid-content",
            f"{prefix}Frontmatter 'name' is '{declared}' but the skill directory is "
            f"'{name}'; they must be equal.{hint}",
        )
    if len(content) > MAX_SKILL_CHARS:
        return SkillError(
            "too-large",
            f"{prefix}SKILL.md content is {len(content):,} characters "
            f"(limit: {MAX_SKILL_CHARS:,}). "
            "Consider splitting into a smaller SKILL.md with supporting files in references/ "
            "or templates/.",
        )
    header = scan_header(content.encode("utf-8"), complete=True)
    if header is None or header.status != "ok":
        message = describe_header(name, header) if header is not None else None
        return SkillError("invalid-content", f"{prefix}{message or 'SKILL.md is empty.'}")
    readback = check_stored(name, header.source, use_yaml)
    if isinstance(readback, str):
        return SkillError("invalid-content", f"{prefix}{readback}")
    return None


def text_error(what: str, *texts: object) -> SkillError | None:
    """The error for a text that is not valid Unicode (a lone surrogate), else ``None``."""
    for text in texts:
        if isinstance(text, str):
            bad = find_surrogate(text)
            if bad >= 0:
                return SkillError(
                    "invalid-content",
                    f"{what} is not valid Unicode (a lone surrogate at character {bad}); "
                    "send UTF-8 text.",
                )
    return None


def invalid_target(name: str, file_path: str | None) -> SkillError | None:
    """The name rule, then (when a support file is named) the path rules, in that order."""
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    if file_path is not None:
        problem = check_support_path(file_path)
        if problem is not None:
            return SkillError("invalid-path", problem)
    return None


def bytes_error(size: int) -> SkillError:
    """The error for a support file of ``size`` bytes, over :data:`MAX_FILE_BYTES`."""
    return SkillError(
        "too-large",
        f"File content is {size:,} bytes (limit: 1,048,576 bytes / 1 MiB). "
        "Consider splitting into smaller files.",
    )


def writable_dir(store: SkillStore, name: str, missing_suffix: str) -> Path | SkillError:
    """The skill's directory in the project root, or the error (bad name, not found, read-only)."""
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    where = store.probe(name)
    if where.status == "error" and where.message == SYMLINKED_SKILL:
        return SkillError("read-only", f"Skill '{name}' {SYMLINKED_SKILL}.")
    if where.status == "absent" or where.root is None:
        return store.not_found(name, missing_suffix)
    if where.source != "project":
        return SkillError(
            "read-only",
            f"Skill '{name}' is in the {where.source} skills directory ({where.root}); "
            f"writes go to the project skills directory ({store.project}) only.",
        )
    return where.root / name


@contextlib.contextmanager
def skill_lock(skill_dir: Path, name: str) -> Iterator[None]:
    """Lock the skill directory and check it is still the one at its path, with a SKILL.md."""
    with locked(skill_dir) as fd:
        try:
            here = os.stat(skill_dir)
            os.stat(skill_dir / SKILL_FILE)
        except OSError:
            raise Abort(SkillError("not-found", f"Skill '{name}' not found.")) from None
        mine = os.fstat(fd)
        if (here.st_dev, here.st_ino) != (mine.st_dev, mine.st_ino):
            raise Abort(SkillError("not-found", f"Skill '{name}' not found."))
        yield


def confined(skill_dir: Path, file_path: str) -> Path:
    """The resolved support file, checked to stay inside the skill (under its lock)."""
    target, escape = confine(skill_dir, file_path)
    if escape is not None:
        raise Abort(SkillError("invalid-path", escape))
    return target


def read_text(path: Path, label: str, name: str) -> str:
    """The text of a file to edit (BOM dropped); :class:`Abort` when missing, too large or not UTF-8."""
    try:
        data = read_all(path, 4 * MAX_FILE_BYTES)
    except HardLink as link:
        raise Abort(
            SkillError(
                "invalid-path",
                f"{label} of skill '{name}' is a hard link ({link.count} names): "
                "only files the skill owns are edited.",
            )
        ) from None
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise Abort(SkillError("not-found", f"File not found: {label}")) from None
    except ValueError as exc:
        raise Abort(
            SkillError("too-large", f"{label} is {exc.args[0]:,} bytes; too large to edit.")
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Abort(
            SkillError("invalid-content", f"{label} of skill '{name}' is not UTF-8 text.")
        ) from None
    return text[1:] if text.startswith(BOM) else text


def io_error(verb: str, name: str, exc: OSError) -> SkillError:
    """The error for an ``OSError`` while a write was to ``verb`` skill ``name``."""
    where = f" ({exc.filename})" if exc.filename else ""
    return SkillError("io", f"Could not {verb} skill '{name}': {os_message(exc)}{where}.")


def run_write(verb: str, name: str, body: Callable[[], WriteResult]) -> WriteResult | SkillError:
    """``body()``, or the error of the :class:`Abort` or ``OSError`` it raised."""
    try:
        return body()
    except Abort as abort:
        return abort.error
    except OSError as exc:
        return io_error(verb, name, exc)
