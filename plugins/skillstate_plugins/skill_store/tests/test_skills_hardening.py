"""Issue 16 in the skill store: confinement (hard links, symlinked skills), failed writes, view.

A hard link under ``references/`` could name any file of the filesystem, and a skill
directory that is a symbolic link let reads and writes reach outside the skills root;
both are refused now (the delete path already refused the second). A write that fails
leaves no empty support directory behind.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillstate_testing import SmallFilesystem

from .. import SkillStore
from .skills_support import err, new_store, ok, put_skill, skill_text, skills_cli, snapshot


def test_a_hard_link_under_references_is_refused(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    skill_dir = put_skill(store.project, "s", skill_text("s"))
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("top secret")
    (skill_dir / "references").mkdir()
    os.link(secret, skill_dir / "references" / "notes.md")
    error = err(store.read("s", "references/notes.md"))
    assert error.code == "invalid-path" and "hard link (2 names)" in error.message
    assert "top secret" not in str(error.to_dict())
    patched = err(store.patch("s", "secret", "public", "references/notes.md"))
    assert patched.code == "invalid-path" and "hard link" in patched.message
    assert secret.read_text() == "top secret"


def test_a_hard_linked_skill_md_is_not_listed_or_viewed(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text(skill_text("s", description="someone else's file"))
    (store.project / "s").mkdir(parents=True)
    os.link(outside, store.project / "s" / "SKILL.md")
    assert store.list().skills == ()
    assert "hard link" in err(store.view("s")).message


def test_a_skill_directory_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    outside = put_skill(tmp_path / "outside", "s", skill_text("s"))
    (outside / "references").mkdir()
    (outside / "references" / "a.md").write_text("outside text")
    store.project.mkdir(parents=True)
    os.symlink(outside, store.project / "s")
    before = snapshot(tmp_path / "outside")
    assert store.list().skills == ()
    assert err(store.view("s")).message.startswith("Skill 's' is a symbolic link;")
    assert err(store.read("s", "references/a.md")).code == "invalid-path"
    for result in (
        store.write_file("s", "references/b.md", "x"),
        store.edit("s", "new body\n"),
        store.patch("s", "Do it", "Do not"),
        store.remove_file("s", "references/a.md"),
        store.delete("s"),
    ):
        assert err(result).message.startswith("Skill 's' is a symbolic link;")
    assert snapshot(tmp_path / "outside") == before


def test_a_failed_write_leaves_no_empty_support_directory(small_fs: SmallFilesystem) -> None:
    store = SkillStore(small_fs.path / "skills", None, use_yaml=False)
    ok(store.create("s", skill_text("s")))
    small_fs.fill()
    before = snapshot(store.project)
    error = err(store.write_file("s", "references/deep/er/notes.md", "x" * 10_000))
    assert error.code == "io" and "No space left on device" in error.message
    assert snapshot(store.project) == before
    assert not (store.project / "s" / "references").exists()


def test_plain_view_names_the_support_files_as_the_json_does(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    ok(store.create("s", skill_text("s")))
    ok(store.write_file("s", "references/api.md", "# API\n"))
    ok(store.write_file("s", "templates/t.md", "x"))
    args = ("--skills-path", str(store.project), "--user-skills-path", "", "view", "s")
    plain = skills_cli(tmp_path, *args)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.endswith(
        "\nSupport files (skillstate skills read s PATH):\n  references/api.md\n  templates/t.md\n"
    )
    assert plain.stdout.startswith(skill_text("s"))


def test_text_that_is_not_unicode_is_refused_by_every_write_and_read(tmp_path: Path) -> None:
    """Issue 16, class 1 in the skill store: a lone surrogate used to raise UnicodeEncodeError."""
    store = new_store(tmp_path)
    ok(store.create("s", skill_text("s")))
    before = snapshot(tmp_path)
    for result, code in (
        (store.create("t", skill_text("t", description="d\ud800")), "invalid-content"),
        (store.edit("s", "body \ud800\n"), "invalid-content"),
        (store.patch("s", "Do it", "Do \udfff"), "invalid-content"),
        (store.write_file("s", "references/a.md", "x\ud800"), "invalid-content"),
        (store.write_file("s", "references/\udcffx.md", "x"), "invalid-path"),  # a non-UTF-8 byte
        (store.read("s", "references/\ud800.md"), "invalid-path"),
        (store.remove_file("s", "references/\ud800.md"), "invalid-path"),
    ):
        error = err(result)
        assert error.code == code and "not valid Unicode" in error.message
        error.message.encode("utf-8")
    assert snapshot(tmp_path) == before
    os.makedirs(store.project / "s" / "references", exist_ok=True)
    (store.project / "s" / "references" / os.fsdecode(b"bad\xff.md")).write_text("x")
    assert ok(store.view("s")).linked_files == ()  # type: ignore[attr-defined]
