"""The write side of the skill store: create, edit, patch, delete, write_file, remove_file.

Each operation validates everything it can before touching the disk (a rejected
operation changes nothing; the checks are :mod:`skillstate_plugins.skill_store.write_checks`'s),
then works under an exclusive lock — the project root's for create and delete, the
skill directory's for the others — and writes with
:func:`~skillstate_plugins.skill_store.fsio.atomic_write`. Messages are the reference's
(Hermes' ``skill_manage``); ``docs/skills.md`` lists them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from .frontmatter import BOM, split_frontmatter
from .fsio import TEMP_MARK, atomic_write, fsync_dir, locked
from .paths import MAX_FILE_BYTES, check_name
from .reading import support_files
from .results import SkillError, WriteResult
from .write_checks import (
    SKILL_FILE,
    Abort,
    bytes_error,
    check_skill_text,
    confined,
    invalid_target,
    read_text,
    run_write,
    skill_lock,
    text_error,
    writable_dir,
)

if TYPE_CHECKING:
    from .store import SkillStore

__all__ = ["create", "delete", "edit", "patch", "remove_file", "write_file"]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    error = text_error("content", content) or check_skill_text(
        name, content, use_yaml=store.use_yaml
    )
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
                raise Abort(again)
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

    return run_write("create", name, body)


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
    unicode = text_error("body", body_text)
    if unicode is not None:
        return unicode
    skill_dir = writable_dir(store, name, " Use skills_list() to see available skills.")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with skill_lock(skill_dir, name):
            path = skill_dir / SKILL_FILE
            old = read_text(path, SKILL_FILE, name)
            parts = split_frontmatter(old)
            if parts is None:
                raise Abort(
                    SkillError(
                        "broken",
                        f"SKILL.md of skill '{name}' has no closed frontmatter to keep; "
                        "recreate the skill (delete, then create).",
                    )
                )
            new = old[: parts[2]] + body_text
            error = check_skill_text(name, new, use_yaml=store.use_yaml)
            if error is not None:
                raise Abort(error)
            data = new.encode("utf-8")
            atomic_write(path, data)
        return WriteResult(name, f"Skill '{name}' updated (full rewrite).", str(path), _sha(data))

    return run_write("edit", name, body)


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
    unicode = text_error("old_string or new_string", find, replace)
    if unicode is not None:
        return unicode
    invalid = invalid_target(name, path)
    if invalid is not None:
        return invalid
    skill_dir = writable_dir(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir
    label = path or SKILL_FILE

    def body() -> WriteResult:
        with skill_lock(skill_dir, name):
            if path is None:
                target = skill_dir / SKILL_FILE
            else:
                target = confined(skill_dir, path)
            text = read_text(target, label, name)
            count = _occurrences(text, find)
            if count == 0:
                preview = text[:500] + ("..." if len(text) > 500 else "")
                raise Abort(
                    SkillError(
                        "no-match",
                        "old_string not found in the file.",
                        {"match_count": 0, "file_preview": preview},
                    )
                )
            if count > 1 and not replace_all:
                raise Abort(
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
                    raise Abort(error)
            else:
                if len(data) > MAX_FILE_BYTES:
                    raise Abort(bytes_error(len(data)))
            atomic_write(target, data)
        plural = "s" if replaced > 1 else ""
        return WriteResult(
            name,
            f"Patched {label} in skill '{name}' ({replaced} replacement{plural}).",
            str(target),
            _sha(data) if path is None else None,
        )

    return run_write("patch", name, body)


def delete(store: SkillStore, name: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.delete`."""
    skill_dir = writable_dir(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with locked(store.project), skill_lock(skill_dir, name):
            trash = store.project / f".{name}{TEMP_MARK}{uuid.uuid4().hex}"
            os.rename(skill_dir, trash)
        fsync_dir(store.project)
        shutil.rmtree(trash, ignore_errors=True)
        return WriteResult(name, f"Skill '{name}' deleted.", str(skill_dir))

    return run_write("delete", name, body)


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
    invalid = invalid_target(name, file_path) or text_error("file_content", content)
    if invalid is not None:
        return invalid
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    if len(data) > MAX_FILE_BYTES:
        return bytes_error(len(data))
    skill_dir = writable_dir(store, name, " Create it first with action='create'.")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with skill_lock(skill_dir, name):
            target = confined(skill_dir, file_path)
            if target.is_dir():
                raise Abort(
                    SkillError("invalid-path", f"'{file_path}' is a directory in skill '{name}'.")
                )
            atomic_write(target, data)
        return WriteResult(
            name, f"File '{file_path}' written to skill '{name}'.", str(skill_dir / file_path)
        )

    return run_write("write", name, body)


def remove_file(store: SkillStore, name: str, file_path: str) -> WriteResult | SkillError:
    """See :meth:`SkillStore.remove_file`."""
    if not isinstance(file_path, str) or not file_path:
        return SkillError("invalid-path", "file_path is required for 'remove_file'.")
    invalid = invalid_target(name, file_path)
    if invalid is not None:
        return invalid
    skill_dir = writable_dir(store, name, "")
    if isinstance(skill_dir, SkillError):
        return skill_dir

    def body() -> WriteResult:
        with skill_lock(skill_dir, name):
            confined(skill_dir, file_path)
            target = skill_dir / file_path  # unresolved: a symbolic link is removed, not followed
            if not (target.is_file() or target.is_symlink()):
                files = list(support_files(skill_dir))
                raise Abort(
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

    return run_write("remove", name, body)
