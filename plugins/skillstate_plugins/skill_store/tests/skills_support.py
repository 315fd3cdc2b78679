"""Helpers for the skill-store tests (``from .skills_support import ...``).

Besides the skill helpers: :func:`skills_cli` runs ``skillstate skills`` for real, and
:data:`FUZZ`, :data:`hostile_text` and :func:`tree_hash` are the fuzz harness's
settings, hostile strings and invariant (the core's ``tests/fuzzing.py`` has the same,
for the surfaces that stay in the core).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, settings, strategies as st
from skillstate_testing import run_command

from .. import SkillError, SkillStore

_EXAMPLES = int(os.environ.get("SKILLSTATE_FUZZ_EXAMPLES", 60))

FUZZ = settings(
    max_examples=_EXAMPLES,
    deadline=None,
    derandomize=_EXAMPLES <= 60,  # CI: the same inputs every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
"""The settings every fuzz test uses (``SKILLSTATE_FUZZ_EXAMPLES`` examples per test)."""

_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"])
_ODD_CHARS = st.sampled_from("\x00\x07\x1b\n\r\t\u2028\ufeff\u202e😀é→\\\"'/.:[]{}$%")

hostile_text = st.one_of(
    st.text(max_size=30),  # any code point but surrogates
    st.text(_ODD_CHARS, max_size=12),  # control characters, quotes, emoji, bidi, BOM
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=6), _SURROGATES, st.text(max_size=6)),
    st.sampled_from(["", " ", "..", "../x", "a/b", "null", "-", "--json", "\\u0000"]),
    st.builds(
        lambda c, n: c * n, st.sampled_from("kv😀\x00"), st.sampled_from([501, 9000, 70_000])
    ),
)
"""Strings a caller might send: control characters, lone surrogates, path tricks, long runs."""


def tree_hash(root: Path) -> str:
    """One digest of every file under ``root`` (path and bytes): what a rejection must not change."""
    digest = hashlib.sha256()
    if not root.exists():
        return digest.hexdigest()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def skills_cli(
    cwd: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """``skillstate skills ARGS`` run for real in ``cwd`` (a clean environment plus ``env``)."""
    return run_command("skillstate", "skills", *args, cwd=cwd, stdin=stdin, timeout=60, **env)


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
