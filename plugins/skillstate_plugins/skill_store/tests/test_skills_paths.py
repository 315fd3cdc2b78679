"""Name rules and support-path confinement: every rejection, with its message, changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .. import SkillStore, check_name, check_read_path, check_support_path
from .skills_support import err, new_store, ok, skill_text, snapshot

SHOWN = {"a\x00": "a\\x00"}
"""Messages show control characters escaped (skillstate.display.printable)."""

PATH_REJECTIONS = [
    ("", "file_path is required."),
    ("references\\a.md", "Backslashes are not allowed in file_path; use '/'."),
    ("/etc/passwd", "file_path must be relative to the skill directory. Got: '/etc/passwd'"),
    ("C:/x/a.md", "file_path must be relative to the skill directory. Got: 'C:/x/a.md'"),
    ("references/../SKILL.md", "Path traversal ('..') is not allowed."),
    ("../other/SKILL.md", "Path traversal ('..') is not allowed."),
    (
        "./references/a.md",
        "file_path must not contain '.' or empty segments. Got: './references/a.md'",
    ),
    (
        "references/./a.md",
        "file_path must not contain '.' or empty segments. Got: 'references/./a.md'",
    ),
    (
        "references//a.md",
        "file_path must not contain '.' or empty segments. Got: 'references//a.md'",
    ),
    ("references/", "file_path must not contain '.' or empty segments. Got: 'references/'"),
]
"""Refused by reads and writes alike."""

WRITE_ONLY_REJECTIONS = [
    (
        "notes/a.md",
        "File must be under one of: assets, references, scripts, templates. Got: 'notes/a.md'",
    ),
    (
        "SKILL.md",
        "File must be under one of: assets, references, scripts, templates. Got: 'SKILL.md'",
    ),
    ("references", "Provide a file path, not just a directory. Example: 'references/myfile.md'"),
]
"""Refused by writes only: a read takes any file of the skill."""

NAME_REJECTIONS = [
    ("", "Skill name is required."),
    ("a" * 65, "Skill name exceeds 64 characters."),
    *[
        (
            bad,
            f"Invalid skill name '{SHOWN.get(bad, bad)}'. Use lowercase letters, "
            "numbers, hyphens, dots, "
            "and underscores. Must start with a letter or digit.",
        )
        for bad in ("Pdf", "-a", ".a", "_a", "a/b", "a b", "..", "../x", "café", "a\\b", "a\x00")
    ],
]


@pytest.fixture
def store(tmp_path: Path) -> SkillStore:
    s = new_store(tmp_path)
    ok(s.create("pdf", skill_text("pdf")))
    ok(s.write_file("pdf", "references/a.md", "alpha\n"))
    return s


@pytest.mark.parametrize(("path", "message"), PATH_REJECTIONS + WRITE_ONLY_REJECTIONS)
def test_path_rules_in_order(path: str, message: str) -> None:
    assert check_support_path(path) == message


@pytest.mark.parametrize(("path", "message"), PATH_REJECTIONS)
def test_read_path_rules(path: str, message: str) -> None:
    assert check_read_path(path) == message


@pytest.mark.parametrize(("path", "message"), WRITE_ONLY_REJECTIONS)
def test_writes_stay_under_the_support_directories(
    store: SkillStore, tmp_path: Path, path: str, message: str
) -> None:
    before = snapshot(tmp_path)
    for result in (
        store.write_file("pdf", path, "x"),
        store.remove_file("pdf", path),
        store.patch("pdf", "alpha", "beta", path),
    ):
        assert (err(result).code, err(result).message) == ("invalid-path", message)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("path", "message"), PATH_REJECTIONS)
def test_every_operation_applies_the_path_rules(
    store: SkillStore, tmp_path: Path, path: str, message: str
) -> None:
    before = snapshot(tmp_path)
    dotted = "." in path.split("/")  # a read drops "." segments: it reads the file named
    writes = (
        store.write_file("pdf", path, "x"),
        store.remove_file("pdf", path),
        *(() if dotted else (store.read("pdf", path),)),
    )
    for result in writes:
        error = err(result)
        assert error.code == "invalid-path"
        if path:
            assert error.message == message
    assert err(store.patch("pdf", "alpha", "beta", path)).message == message
    if not dotted:
        assert err(store.read("pdf", path)).message == message
    assert snapshot(tmp_path) == before


def test_missing_path_messages_name_the_operation(store: SkillStore) -> None:
    assert (
        err(store.write_file("pdf", "", "x")).message
        == "file_path is required for 'write_file'. Example: 'references/api-guide.md'"
    )
    assert err(store.remove_file("pdf", "")).message == "file_path is required for 'remove_file'."


def test_symlinked_support_dir_pointing_outside_is_refused(
    store: SkillStore, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    skill_dir = store.project / "pdf"
    os.symlink(outside, skill_dir / "templates")
    before = snapshot(tmp_path)
    for result in (
        store.write_file("pdf", "templates/new.md", "x"),
        store.read("pdf", "templates/secret.md"),
        store.remove_file("pdf", "templates/secret.md"),
        store.patch("pdf", "secret", "public", "templates/secret.md"),
    ):
        error = err(result)
        assert error.code == "invalid-path"
        assert error.message.startswith("Path escapes allowed directory: 'templates/")
    assert snapshot(tmp_path) == before
    assert not (outside / "new.md").exists()


def test_symlinked_file_pointing_outside_or_at_skill_md_is_refused(
    store: SkillStore, tmp_path: Path
) -> None:
    references = store.project / "pdf" / "references"
    os.symlink("/etc/passwd", references / "passwd.md")
    os.symlink("../SKILL.md", references / "skill.md")
    before = snapshot(tmp_path)
    assert err(store.read("pdf", "references/passwd.md")).message.startswith(
        "Path escapes allowed directory"
    )
    assert ok(store.read("pdf", "references/skill.md")).content.startswith("---")  # type: ignore[attr-defined]
    for path in ("references/passwd.md", "references/skill.md"):
        assert err(store.write_file("pdf", path, "x")).code == "invalid-path"
        assert err(store.patch("pdf", "name", "nom", path)).code == "invalid-path"
        assert err(store.remove_file("pdf", path)).code == "invalid-path"
    assert snapshot(tmp_path) == before


def test_symlink_inside_the_skill_is_followed(store: SkillStore) -> None:
    references = store.project / "pdf" / "references"
    os.symlink("a.md", references / "alias.md")
    assert ok(store.read("pdf", "references/alias.md")).content == "alpha\n"  # type: ignore[attr-defined]
    ok(store.write_file("pdf", "references/alias.md", "beta\n"))
    assert (references / "a.md").read_text() == "beta\n"  # written through, link kept
    assert (references / "alias.md").is_symlink()


@pytest.mark.parametrize(("name", "message"), NAME_REJECTIONS)
def test_name_rules(name: str, message: str) -> None:
    assert check_name(name) == message


@pytest.mark.parametrize(("name", "message"), NAME_REJECTIONS)
def test_every_operation_applies_the_name_rules(
    store: SkillStore, tmp_path: Path, name: str, message: str
) -> None:
    before = snapshot(tmp_path)
    results = [
        store.create(name, skill_text(name)),
        store.view(name),
        store.read(name, "references/a.md"),
        store.edit(name, "new body\n"),
        store.patch(name, "Do it.", "Do it now."),
        store.delete(name),
        store.write_file(name, "references/a.md", "x"),
        store.remove_file(name, "references/a.md"),
    ]
    for result in results:
        error = err(result)
        assert (error.code, error.message) == ("invalid-name", message)
    assert snapshot(tmp_path) == before


def test_name_edge_cases_that_are_accepted(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    for name in ("a" * 64, "0", "a.b_c-d", "a--", "v1.2"):
        assert check_name(name) is None
        ok(store.create(name, skill_text(name)))
    assert [s.name for s in store.list().skills] == sorted(
        ["a" * 64, "0", "a.b_c-d", "a--", "v1.2"]
    )
