"""The write side of the skill store: create, edit, patch, delete, write_file, remove_file.

Each operation validates everything it can before touching the disk (a rejected
operation changes nothing), then works under an exclusive lock — the project root's
for create and delete, the skill directory's for the others — and writes with
:func:`~skillstate.skills.fsio.atomic_write`. Messages are the reference's
(Hermes' ``skill_manage``); ``docs/skills.md`` lists them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from skillstate.skills.frontmatter import BOM, HeaderProblem, check_content, split_frontmatter
from skillstate.skills.fsio import (
    TEMP_MARK,
    atomic_write,
    fsync_dir,
    locked,
    read_all,
    scan_header,
)
from skillstate.skills.paths import (
    MAX_FILE_BYTES,
    MAX_SKILL_CHARS,
    check_name,
    check_support_path,
    confine,
)
from skillstate.skills.reading import check_stored, describe_header, os_message, support_files
from skillstate.skills.results import SkillError, WriteResult

if TYPE_CHECKING:
    from skillstate.skills.store import SkillStore

__all__ = ["create", "delete", "edit", "patch", "remove_file", "write_file"]

SKILL_FILE = "SKILL.md"


class _Abort(Exception):
    """Carries a SkillError out of a locked block."""

    def __init__(self, error: SkillError) -> None:
        super().__init__(error.message)
        self.error = error


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
    except HeaderProblem as exc:
        return SkillError("invalid-content", f"{prefix}{exc}")
    declared = fields["name"]
    if declared != name:
        hint = ""
        if declared[:1] in ("'", '"'):
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


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _io_error(verb: str, name: str, exc: OSError) -> SkillError:
    where = f" ({exc.filename})" if exc.filename else ""
    return SkillError("io", f"Could not {verb} skill '{name}': {os_message(exc)}{where}.")


def _writable(store: SkillStore, name: str, missing_suffix: str) -> Path | SkillError:
    """The skill's directory in the project root, or the error (bad name, not found, read-only)."""
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    where = store.probe(name)
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
def _skill_lock(skill_dir: Path, name: str) -> Iterator[None]:
    """Lock the skill directory and check it is still the one at its path, with a SKILL.md."""
    with locked(skill_dir) as fd:
        try:
            here = os.stat(skill_dir)
            os.stat(skill_dir / SKILL_FILE)
        except OSError:
            raise _Abort(SkillError("not-found", f"Skill '{name}' not found.")) from None
        mine = os.fstat(fd)
        if (here.st_dev, here.st_ino) != (mine.st_dev, mine.st_ino):
            raise _Abort(SkillError("not-found", f"Skill '{name}' not found."))
        yield


def _run(verb: str, name: str, body: Callable[[], WriteResult]) -> WriteResult | SkillError:
    try:
        return body()
    except _Abort as abort:
        return abort.error
    except OSError as exc:
        return _io_error(verb, name, exc)


def create(store: SkillStore, name: str, content: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.create`."""
    if not isinstance(content, str) or not content:
        return SkillError(
            "invalid-content",
            "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).",
        )
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    error = check_skill_text(name, content, use_yaml=store.use_yaml)
    if error is not None:
        return error
    if content.startswith(BOM):
        content = content[1:]
    data = content.encode("utf-8")

    def exists_error() -> SkillError | None:
        where = store.probe(name)
        if where.status != "absent" and where.root is not None:
            return SkillError(
                "exists", f"A skill named '{name}' already exists at {where.root / name}."
            )
        return None

    found = exists_error()
    if found is not None:
        return found

    def body() -> WriteResult:
        root = store.project
        root.mkdir(parents=True, exist_ok=True)
        with locked(root):
            again = exists_error()
            if again is not None:
                raise _Abort(again)
            target = root / name
            if target.is_dir() and not target.is_symlink():
                atomic_write(target / SKILL_FILE, data)  # adopt a directory without SKILL.md
            else:
                staging = Path(tempfile.mkdtemp(dir=root, prefix=f".{name}{TEMP_MARK}"))
                try:
                    atomic_write(staging / SKILL_FILE, data)
                    os.chmod(staging, 0o755)
                    os.rename(staging, target)
                except BaseException:
                    shutil.rmtree(staging, ignore_errors=True)
                    raise
                fsync_dir(root)
        return WriteResult(name, f"Skill '{name}' created.", str(target), _sha(data))

    return _run("create", name, body)


def edit(store: SkillStore, name: str, body_text: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.edit`."""
    if not isinstance(body_text, str):
        return SkillError(
            "invalid-content",
            "body is required for 'edit'. Provide the new SKILL.md body (the frontmatter is kept).",
        )
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    if not body_text.strip():
        return SkillError(
            "invalid-content",
            "SKILL.md must have content after the frontmatter (instructions, procedures, etc.).",
        )
    skill_dir = _writable(store, name, " Use skills_list() to see available skills.")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with _skill_lock(skill_dir, name):
            path = skill_dir / SKILL_FILE
            old = _read_text(path, SKILL_FILE, name)
            parts = split_frontmatter(old)
            if parts is None:
                raise _Abort(
                    SkillError(
                        "broken",
                        f"SKILL.md of skill '{name}' has no closed frontmatter to keep; "
                        "recreate the skill (delete, then create).",
                    )
                )
            new = old[: parts[2]] + body_text
            error = check_skill_text(name, new, use_yaml=store.use_yaml)
            if error is not None:
                raise _Abort(error)
            data = new.encode("utf-8")
            atomic_write(path, data)
        return WriteResult(name, f"Skill '{name}' updated (full rewrite).", str(path), _sha(data))

    return _run("edit", name, body)


def _read_text(path: Path, label: str, name: str) -> str:
    try:
        data = read_all(path, 4 * MAX_FILE_BYTES)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise _Abort(SkillError("not-found", f"File not found: {label}")) from None
    except ValueError as exc:
        raise _Abort(
            SkillError("too-large", f"{label} is {exc.args[0]:,} bytes; too large to edit.")
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Abort(
            SkillError("invalid-content", f"{label} of skill '{name}' is not UTF-8 text.")
        ) from None
    return text[1:] if text.startswith(BOM) else text


def _occurrences(text: str, find: str) -> int:
    """How many places ``find`` starts at in ``text`` (overlapping ones counted)."""
    count, start = 0, text.find(find)
    while start != -1:
        count += 1
        start = text.find(find, start + 1)
    return count


def patch(
    store: SkillStore,
    name: str,
    find: str,
    replace: str,
    path: str | None = None,
    *,
    replace_all: bool = False,
) -> WriteResult | SkillError:
    """See :meth:`SkillStore.patch`."""
    if not isinstance(find, str) or not find:
        return SkillError(
            "invalid-content", "old_string is required for 'patch'. Provide the text to find."
        )
    if not isinstance(replace, str):
        return SkillError(
            "invalid-content",
            "new_string is required for 'patch'. Use empty string to delete matched text.",
        )
    if find == replace:
        return SkillError("invalid-content", "old_string and new_string are identical")
    invalid = _invalid_target(name, path)
    if invalid is not None:
        return invalid
    skill_dir = _writable(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir
    label = path or SKILL_FILE

    def body() -> WriteResult:
        with _skill_lock(skill_dir, name):
            if path is None:
                target = skill_dir / SKILL_FILE
            else:
                target = _confined(skill_dir, path)
            text = _read_text(target, label, name)
            count = _occurrences(text, find)
            if count == 0:
                preview = text[:500] + ("..." if len(text) > 500 else "")
                raise _Abort(
                    SkillError(
                        "no-match",
                        "old_string not found in the file.",
                        {"match_count": 0, "file_preview": preview},
                    )
                )
            if count > 1 and not replace_all:
                raise _Abort(
                    SkillError(
                        "ambiguous",
                        f"old_string matched {count} times. Provide more surrounding context "
                        "to make the match unique, or set replace_all=true to replace all "
                        "occurrences.",
                        {"match_count": count},
                    )
                )
            replaced = text.count(find) if replace_all else 1
            new = text.replace(find, replace, -1 if replace_all else 1)
            data = new.encode("utf-8")
            if path is None:
                error = check_skill_text(
                    name, new, "Patch would break SKILL.md structure: ", store.use_yaml
                )
                if error is not None:
                    raise _Abort(error)
            else:
                if len(data) > MAX_FILE_BYTES:
                    raise _Abort(_bytes_error(len(data)))
            atomic_write(target, data)
        plural = "s" if replaced > 1 else ""
        return WriteResult(
            name,
            f"Patched {label} in skill '{name}' ({replaced} replacement{plural}).",
            str(target),
            _sha(data) if path is None else None,
        )

    return _run("patch", name, body)


def delete(store: SkillStore, name: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.delete`."""
    skill_dir = _writable(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir
    if skill_dir.is_symlink():
        return SkillError(
            "read-only",
            f"Skill '{name}' is a symlink ({skill_dir} -> {os.readlink(skill_dir)}); "
            "remove the link by hand.",
        )

    def body() -> WriteResult:
        with locked(store.project), _skill_lock(skill_dir, name):
            trash = store.project / f".{name}{TEMP_MARK}{uuid.uuid4().hex}"
            os.rename(skill_dir, trash)
        fsync_dir(store.project)
        shutil.rmtree(trash, ignore_errors=True)
        return WriteResult(name, f"Skill '{name}' deleted.", str(skill_dir))

    return _run("delete", name, body)


def _invalid_target(name: str, file_path: str | None) -> SkillError | None:
    """The name rule, then (when a support file is named) the path rules, in that order."""
    problem = check_name(name)
    if problem is not None:
        return SkillError("invalid-name", problem)
    if file_path is not None:
        problem = check_support_path(file_path)
        if problem is not None:
            return SkillError("invalid-path", problem)
    return None


def _bytes_error(size: int) -> SkillError:
    return SkillError(
        "too-large",
        f"File content is {size:,} bytes (limit: 1,048,576 bytes / 1 MiB). "
        "Consider splitting into smaller files.",
    )


def write_file(
    store: SkillStore, name: str, file_path: str, content: str | bytes
) -> WriteResult | SkillError:
    """See :meth:`SkillStore.write_file`."""
    if not isinstance(file_path, str) or not file_path:
        return SkillError(
            "invalid-path",
            "file_path is required for 'write_file'. Example: 'references/api-guide.md'",
        )
    if not isinstance(content, str | bytes):
        return SkillError("invalid-content", "file_content is required for 'write_file'.")
    invalid = _invalid_target(name, file_path)
    if invalid is not None:
        return invalid
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    if len(data) > MAX_FILE_BYTES:
        return _bytes_error(len(data))
    skill_dir = _writable(store, name, " Create it first with action='create'.")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with _skill_lock(skill_dir, name):
            target = _confined(skill_dir, file_path)
            if target.is_dir():
                raise _Abort(
                    SkillError("invalid-path", f"'{file_path}' is a directory in skill '{name}'.")
                )
            atomic_write(target, data)
        return WriteResult(
            name, f"File '{file_path}' written to skill '{name}'.", str(skill_dir / file_path)
        )

    return _run("write", name, body)


def _confined(skill_dir: Path, file_path: str) -> Path:
    """The resolved support file, checked to stay inside the skill (under its lock)."""
    target, escape = confine(skill_dir, file_path)
    if escape is not None:
        raise _Abort(SkillError("invalid-path", escape))
    return target


def remove_file(store: SkillStore, name: str, file_path: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.remove_file`."""
    if not isinstance(file_path, str) or not file_path:
        return SkillError("invalid-path", "file_path is required for 'remove_file'.")
    invalid = _invalid_target(name, file_path)
    if invalid is not None:
        return invalid
    skill_dir = _writable(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with _skill_lock(skill_dir, name):
            _confined(skill_dir, file_path)
            target = skill_dir / file_path  # unresolved: a symbolic link is removed, not followed
            if not (target.is_file() or target.is_symlink()):
                files = list(support_files(skill_dir))
                raise _Abort(
                    SkillError(
                        "not-found",
                        f"File '{file_path}' not found in skill '{name}'.",
                        {"available_files": files or None},
                    )
                )
            os.unlink(target)
            parent = target.parent
            while parent != skill_dir:
                try:
                    os.rmdir(parent)  # succeeds only when the directory is now empty
                except OSError:
                    break
                parent = parent.parent
            fsync_dir(parent)
        return WriteResult(
            name, f"File '{file_path}' removed from skill '{name}'.", str(skill_dir / file_path)
        )

    return _run("remove", name, body)
