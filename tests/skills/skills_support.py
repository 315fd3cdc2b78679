"""Helpers for the skill-store tests (import with ``from skills_support import ...``)."""

from __future__ import annotations

import os
from pathlib import Path

from skillstate_plugins.skill_store import SkillError, SkillStore


def skill_text(
    name: str, description: str = "Does a thing", body: str = "# Steps\nDo it.\n", **extra: str
) -> str:
    lines = [f"name: {name}", f"description: {description}"]
    lines += [f"{key.replace('_', '-')}: {value}" for key, value in extra.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def put_skill(root: Path, name: str, text: str | bytes) -> Path:
    """Write a SKILL.md by hand (no validation): how skills arrive from elsewhere."""
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    (directory / "SKILL.md").write_bytes(data)
    return directory


def snapshot(root: Path) -> dict[str, object]:
    """Every entry under ``root``: files with their bytes, directories, symlinks with targets."""
    result: dict[str, object] = {}
    if not root.exists():
        return result
    for current, dirs, files in os.walk(root):
        for entry in dirs + files:
            path = Path(current) / entry
            key = str(path.relative_to(root))
            if path.is_symlink():
                result[key] = ("link", os.readlink(path))
            elif path.is_dir():
                result[key] = "dir"
            else:
                result[key] = path.read_bytes()
    return result


def ok(result: object) -> object:
    """Assert a store result is not an error, and return it."""
    assert not isinstance(result, SkillError), result
    return result


def err(result: object) -> SkillError:
    """Assert a store result is an error, and return it."""
    assert isinstance(result, SkillError), result
    return result


def new_store(tmp_path: Path) -> SkillStore:
    return SkillStore(tmp_path / "project", tmp_path / "user", use_yaml=False)
