"""The skill store through its Python API: the three levels, the edits, broken skills, limits."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from skillstate.plugin.cli import load_config

from .. import SessionSpec, SkillFile, SkillStore, SkillView, WriteResult
from .skills_support import err, new_store, ok, put_skill, skill_text, snapshot


@pytest.fixture
def store(tmp_path: Path) -> SkillStore:
    return new_store(tmp_path)


def view(store: SkillStore, name: str) -> SkillView:
    result = store.view(name)
    assert isinstance(result, SkillView), result
    return result


# -- level 1 ---------------------------------------------------------------------------


def test_list_is_sorted_and_says_where_each_skill_came_from(store: SkillStore) -> None:
    assert store.list().skills == ()
    assert store.list().to_dict()["message"] == "No skills found in skills/ directory."
    put_skill(store.project, "zeta", skill_text("zeta", "Last"))
    put_skill(store.project, "alpha", skill_text("alpha", "First"))
    assert store.user is not None
    put_skill(store.user, "mid", skill_text("mid", "From the user"))
    put_skill(store.user, "alpha", skill_text("alpha", "Hidden by the project one"))
    listing = store.list()
    assert [(s.name, s.description, s.source) for s in listing.skills] == [
        ("alpha", "First", "project"),
        ("mid", "From the user", "user"),
        ("zeta", "Last", "project"),
    ]
    assert listing.to_dict()["count"] == 3
    assert view(store, "mid").source == "user"


def test_list_skips_what_is_not_a_skill(store: SkillStore) -> None:
    put_skill(store.project, "good", skill_text("good"))
    (store.project / "no-skill-md").mkdir()
    (store.project / "plain-file").write_text("x")
    put_skill(store.project, ".hidden", skill_text(".hidden"))
    put_skill(store.project, ".good.tmp.abc", skill_text("good"))
    put_skill(store.project, "Upper", skill_text("Upper"))
    assert [s.name for s in store.list().skills] == ["good"]


def test_list_truncates_long_hand_written_descriptions(store: SkillStore) -> None:
    put_skill(store.project, "long", skill_text("long", "d" * 2000))
    (meta,) = store.list().skills
    assert meta.description == "d" * 1021 + "..."


def test_missing_roots_are_not_created_by_reads(store: SkillStore, tmp_path: Path) -> None:
    assert store.list().skills == ()
    err(store.view("x"))
    assert not (tmp_path / "project").exists() and not (tmp_path / "user").exists()


# -- broken skills: skipped by list, explained by view ------------------------------------

BROKEN = [
    (
        "no-fence",
        "# Title\nbody\n",
        "SKILL.md of skill 'no-fence' has no frontmatter: it must start with a '---' line.",
    ),
    (
        "unclosed",
        "---\nname: unclosed\ndescription: x\n",
        "SKILL.md of skill 'unclosed' has unclosed frontmatter: add a closing '---' line.",
    ),
    (
        "too-long",
        "---\nname: too-long\ndescription: x\nfiller: " + "f" * 9000 + "\n---\nbody\n",
        "SKILL.md of skill 'too-long' has no closing '---' within its first 8,192 bytes; keep the frontmatter short.",
    ),
    (
        "no-description",
        "---\nname: no-description\n---\nbody\n",
        "SKILL.md of skill 'no-description' has no 'description' in its frontmatter.",
    ),
    (
        "wrong-name",
        "---\nname: other\ndescription: x\n---\nbody\n",
        "SKILL.md of skill 'wrong-name' declares name 'other'; the frontmatter name must equal the directory name.",
    ),
    ("empty", "", "SKILL.md of skill 'empty' has no frontmatter: it must start with a '---' line."),
]


@pytest.mark.parametrize(("name", "text", "message"), BROKEN)
def test_broken_frontmatter_is_skipped_by_list_and_reported_by_view(
    store: SkillStore, name: str, text: str, message: str
) -> None:
    put_skill(store.project, "fine", skill_text("fine"))
    put_skill(store.project, name, text)
    assert [s.name for s in store.list().skills] == ["fine"]
    error = err(store.view(name))
    assert (error.code, error.message) == ("broken", message)


def test_unreadable_skill_md_entries(store: SkillStore, tmp_path: Path) -> None:
    put_skill(store.project, "fine", skill_text("fine"))
    (store.project / "is-a-dir" / "SKILL.md").mkdir(parents=True)
    os.symlink("loop", store.project / "loop")  # a directory symlink loop: ELOOP
    (store.project / "dangling").mkdir()
    os.symlink(tmp_path / "nowhere", store.project / "dangling" / "SKILL.md")
    (store.project / "fifo").mkdir()
    os.mkfifo(store.project / "fifo" / "SKILL.md")  # must not block the listing
    assert [s.name for s in store.list().skills] == ["fine"]
    assert (
        err(store.view("is-a-dir")).message
        == "SKILL.md of skill 'is-a-dir' cannot be read: Is a directory."
    )
    assert err(store.view("loop")).message.startswith("Skill 'loop' is a symbolic link;")
    assert (
        err(store.view("dangling")).message
        == "SKILL.md of skill 'dangling' cannot be read: it is a dangling symlink."
    )
    assert (
        err(store.view("fifo")).message
        == "SKILL.md of skill 'fifo' cannot be read: Not a regular file."
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied_directory(store: SkillStore) -> None:
    directory = put_skill(store.project, "locked", skill_text("locked"))
    put_skill(store.project, "fine", skill_text("fine"))
    directory.chmod(0)
    try:
        assert [s.name for s in store.list().skills] == ["fine"]
        assert "Permission denied" in err(store.view("locked")).message
    finally:
        directory.chmod(0o755)


def test_a_broken_project_skill_shadows_the_user_one(store: SkillStore) -> None:
    assert store.user is not None
    put_skill(store.user, "twin", skill_text("twin"))
    put_skill(store.project, "twin", "no frontmatter\n")
    assert store.list().skills == ()
    assert err(store.view("twin")).code == "broken"


# -- level 2 ---------------------------------------------------------------------------


def test_view_returns_body_hash_frontmatter_and_linked_files(store: SkillStore) -> None:
    text = skill_text(
        "rig",
        "Run a rig task",
        "# Rig\nStep one.\n",
        skillstate_skill="rig-task",
        skillstate_environment="warehouse",
    )
    directory = put_skill(store.project, "rig", text)
    for rel in ("references/api.md", "templates/deep/t.yaml", "assets/logo.png", "scripts/run.sh"):
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text("x")
    (directory / "references" / ".hidden.md").write_text("x")
    (directory / "references" / ".api.md.tmp.123").write_text("x")
    (directory / "notes.txt").write_text("not a support file")
    result = view(store, "rig")
    assert result.body == "# Rig\nStep one.\n"
    assert result.content == text
    assert result.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert result.frontmatter["skillstate-skill"] == "rig-task"
    assert (result.skill_definition, result.environment) == ("rig-task", "warehouse")
    assert result.linked_files == (
        "assets/logo.png",
        "references/api.md",
        "scripts/run.sh",
        "templates/deep/t.yaml",
    )
    envelope = result.to_dict()
    assert envelope["success"] is True and envelope["usage_hint"].startswith("To view linked files")


def test_view_with_bom_and_crlf(store: SkillStore) -> None:
    data = "\ufeff---\r\nname: crlf\r\ndescription: Windows\r\n---\r\nbody\r\n".encode()
    put_skill(store.project, "crlf", data)
    result = view(store, "crlf")
    assert result.description == "Windows" and result.body == "body\r\n"
    assert result.sha256 == hashlib.sha256(data).hexdigest()


def test_view_not_found_lists_available_skills(store: SkillStore) -> None:
    put_skill(store.project, "one", skill_text("one"))
    error = err(store.view("two"))
    assert error.message == "Skill 'two' not found."
    assert error.to_dict()["available_skills"] == ["one"]


def test_empty_skillstate_keys_are_broken(store: SkillStore) -> None:
    put_skill(store.project, "k", "---\nname: k\ndescription: x\nskillstate-skill:\n---\nbody\n")
    assert "'skillstate-skill' must be a non-empty name" in err(store.view("k")).message


# -- level 3 ---------------------------------------------------------------------------


def test_read_text_binary_missing_and_too_large(store: SkillStore) -> None:
    directory = put_skill(store.project, "files", skill_text("files"))
    (directory / "references").mkdir()
    (directory / "references" / "api.md").write_text("# API\n")
    (directory / "assets").mkdir()
    (directory / "assets" / "blob.bin").write_bytes(b"\xff\x00\xfe")
    with open(directory / "assets" / "huge.bin", "wb") as handle:
        handle.truncate(1_048_577)
    text = store.read("files", "references/api.md")
    assert isinstance(text, SkillFile) and text.content == "# API\n"
    assert text.to_dict()["file_type"] == ".md"
    binary = store.read("files", "assets/blob.bin")
    assert isinstance(binary, SkillFile) and binary.is_binary
    assert binary.content == "[Binary file: blob.bin, size: 3 bytes]"
    missing = err(store.read("files", "references/none.md"))
    assert missing.message == "File 'references/none.md' not found in skill 'files'."
    assert missing.details["available_files"] == [
        "assets/blob.bin",
        "assets/huge.bin",
        "references/api.md",
    ]
    big = err(store.read("files", "assets/huge.bin"))
    assert (
        big.message == "File 'assets/huge.bin' is 1,048,577 bytes (limit: 1,048,576 bytes / 1 MiB)."
    )
    assert err(store.read("nope", "references/api.md")).message == "Skill 'nope' not found."


# -- create ----------------------------------------------------------------------------


def test_create_writes_exactly_the_content(store: SkillStore) -> None:
    text = skill_text("pdf")
    result = store.create("pdf", text)
    assert isinstance(result, WriteResult)
    assert result.message == "Skill 'pdf' created."
    path = store.project / "pdf" / "SKILL.md"
    assert path.read_text() == text
    assert result.sha256 == hashlib.sha256(text.encode()).hexdigest() == view(store, "pdf").sha256
    assert [p.name for p in store.project.iterdir()] == ["pdf"]  # no temp dir left behind


def test_create_refusals_change_nothing(store: SkillStore, tmp_path: Path) -> None:
    assert store.user is not None
    put_skill(store.user, "taken", skill_text("taken"))
    ok(store.create("exists", skill_text("exists")))
    before = snapshot(tmp_path)
    cases = [
        (
            store.create("exists", skill_text("exists")),
            "exists",
            "A skill named 'exists' already exists at ",
        ),
        (
            store.create("taken", skill_text("taken")),
            "exists",
            "A skill named 'taken' already exists at ",
        ),
        (store.create("x", ""), "invalid-content", "content is required for 'create'."),
        (
            store.create("x", skill_text("y")),
            "invalid-content",
            "Frontmatter 'name' is 'y' but the skill directory is 'x'; they must be equal.",
        ),
        (
            store.create("x", '---\nname: "x"\ndescription: d\n---\nb\n'),
            "invalid-content",
            "Frontmatter 'name' is '\"x\"'",
        ),
        (
            store.create("x", skill_text("x", body="")),
            "invalid-content",
            "SKILL.md must have content after the frontmatter",
        ),
        (
            store.create("x", skill_text("x", body="b" * 100_000)),
            "too-large",
            "SKILL.md content is 100,",
        ),
        (
            store.create("x", skill_text("x", filler="f" * 9000)),
            "invalid-content",
            "SKILL.md of skill 'x' has no closing '---' within its first 8,192 bytes",
        ),
    ]
    for result, code, start in cases:
        error = err(result)
        assert error.code == code and error.message.startswith(start), error
    assert snapshot(tmp_path) == before


def test_create_at_the_size_limit(store: SkillStore) -> None:
    head = skill_text("big", body="")
    text = head + "b" * (100_000 - len(head))
    assert len(text) == 100_000
    ok(store.create("big", text))
    error = err(store.create("big2", skill_text("big2", body="") + "b" * 100_000))
    assert error.message.endswith(
        "(limit: 100,000). Consider splitting into a smaller SKILL.md with supporting files "
        "in references/ or templates/."
    )


def test_create_adopts_a_directory_without_skill_md(store: SkillStore) -> None:
    (store.project / "adopt" / "references").mkdir(parents=True)
    (store.project / "adopt" / "references" / "kept.md").write_text("kept\n")
    ok(store.create("adopt", skill_text("adopt")))
    assert view(store, "adopt").linked_files == ("references/kept.md",)


# -- edit ------------------------------------------------------------------------------


def test_edit_keeps_the_frontmatter_lines_verbatim(store: SkillStore) -> None:
    text = "---\nname: e\ndescription: keep me:  exactly\nextra: 1\n---\n\nold body\n"
    put_skill(store.project, "e", text)
    result = store.edit("e", "new body\n")
    assert isinstance(result, WriteResult) and result.message == "Skill 'e' updated (full rewrite)."
    assert (store.project / "e" / "SKILL.md").read_text() == (
        "---\nname: e\ndescription: keep me:  exactly\nextra: 1\n---\n\nnew body\n"
    )


def test_edit_refusals_change_nothing(store: SkillStore, tmp_path: Path) -> None:
    assert store.user is not None
    put_skill(store.project, "e", skill_text("e"))
    put_skill(store.project, "bare", "no frontmatter\n")
    put_skill(
        store.project, "nested", "---\nname: nested\ndescription: d\nmeta:\n  a: b\n---\nbody\n"
    )
    put_skill(store.user, "theirs", skill_text("theirs"))
    before = snapshot(tmp_path)
    empty = err(store.edit("e", " \n\t\n"))
    assert empty.message == (
        "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
    )
    assert err(store.edit("e", "")).message == empty.message
    assert err(store.edit("none", "b")).message == (
        "Skill 'none' not found. Use skills_list() to see available skills."
    )
    read_only = err(store.edit("theirs", "b"))
    assert (
        read_only.code == "read-only"
        and "writes go to the project skills directory" in read_only.message
    )
    assert err(store.edit("bare", "b")).message.startswith(
        "SKILL.md of skill 'bare' has no closed frontmatter"
    )
    assert snapshot(tmp_path) == before
    # Nested YAML frontmatter (a spec-valid map) is kept and the edit accepted (issue 16).
    ok(store.edit("nested", "b\n"))
    assert (store.project / "nested" / "SKILL.md").read_text().endswith("meta:\n  a: b\n---\nb\n")


# -- patch -----------------------------------------------------------------------------


def test_patch_exactly_one_match(store: SkillStore) -> None:
    ok(store.create("p", skill_text("p", body="one two three\n")))
    result = store.patch("p", "two", "2")
    assert isinstance(result, WriteResult)
    assert result.message == "Patched SKILL.md in skill 'p' (1 replacement)."
    assert view(store, "p").body == "one 2 three\n"


def test_patch_zero_and_two_matches_change_nothing(store: SkillStore, tmp_path: Path) -> None:
    ok(store.create("p", skill_text("p", body="same same\n")))
    ok(store.write_file("p", "references/r.md", "x x x\n"))
    before = snapshot(tmp_path)
    zero = err(store.patch("p", "absent", "y"))
    assert (zero.code, zero.message) == ("no-match", "old_string not found in the file.")
    assert zero.details["match_count"] == 0 and zero.details["file_preview"].startswith(
        "---\nname: p"
    )
    two = err(store.patch("p", "same", "diff"))
    assert two.code == "ambiguous" and two.details["match_count"] == 2
    assert two.message == (
        "old_string matched 2 times. Provide more surrounding context to make the match unique, "
        "or set replace_all=true to replace all occurrences."
    )
    three = err(store.patch("p", "x", "y", "references/r.md"))
    assert three.message.startswith("old_string matched 3 times.")
    overlapping = err(store.patch("p", "x x", "z", "references/r.md"))
    assert overlapping.details["match_count"] == 2  # "x x x" holds "x x" at two places
    assert (
        err(store.patch("p", "same", "same")).message == "old_string and new_string are identical"
    )
    assert err(store.patch("p", "", "y")).message == (
        "old_string is required for 'patch'. Provide the text to find."
    )
    assert err(store.patch("p", "x", "y", "references/none.md")).message == (
        "File not found: references/none.md"
    )
    assert snapshot(tmp_path) == before


def test_patch_replace_all_and_support_files(store: SkillStore) -> None:
    ok(store.create("p", skill_text("p", body="a a a\n")))
    result = store.patch("p", "a a", "b", replace_all=True)
    assert isinstance(result, WriteResult) and result.message.endswith("(1 replacement).")
    ok(store.write_file("p", "scripts/run.sh", "echo hi\necho hi\n"))
    result = store.patch("p", "hi", "bye", "scripts/run.sh", replace_all=True)
    assert isinstance(result, WriteResult)
    assert result.message == "Patched scripts/run.sh in skill 'p' (2 replacements)."
    assert (store.project / "p" / "scripts" / "run.sh").read_text() == "echo bye\necho bye\n"


def test_patch_that_would_break_skill_md_is_refused(store: SkillStore, tmp_path: Path) -> None:
    ok(store.create("p", skill_text("p", "Desc")))
    before = snapshot(tmp_path)
    cases = {
        "description: Desc\n": "Patch would break SKILL.md structure: Frontmatter must include 'description' field.",
        "name: p": "Patch would break SKILL.md structure: Frontmatter 'name' is 'q' but the skill directory is 'p'; they must be equal.",
        "---\n#": "Patch would break SKILL.md structure: Frontmatter line 4 is not a 'key: value' pair.",
    }
    replacements = {"description: Desc\n": "", "name: p": "name: q", "---\n#": "oops\n---\n#"}
    for find, message in cases.items():
        assert err(store.patch("p", find, replacements[find])).message == message
    huge = err(store.patch("p", "Do it.", "x" * 100_000))
    assert huge.message.startswith("Patch would break SKILL.md structure: SKILL.md content is 100,")
    assert snapshot(tmp_path) == before


# -- delete, write_file, remove_file ---------------------------------------------------


def test_delete(store: SkillStore, tmp_path: Path) -> None:
    ok(store.create("d", skill_text("d")))
    ok(store.write_file("d", "assets/a/b.txt", "x"))
    result = store.delete("d")
    assert isinstance(result, WriteResult) and result.message == "Skill 'd' deleted."
    assert list(store.project.iterdir()) == []
    assert err(store.delete("d")).message == "Skill 'd' not found."
    assert store.user is not None
    put_skill(store.user, "u", skill_text("u"))
    assert err(store.delete("u")).code == "read-only"
    assert (store.user / "u" / "SKILL.md").exists()
    target = put_skill(tmp_path / "elsewhere", "linked", skill_text("linked"))
    os.symlink(target, store.project / "linked")
    assert err(store.delete("linked")).message.startswith("Skill 'linked' is a symbolic link;")
    assert (target / "SKILL.md").exists()


def test_write_file_limits_and_errors(store: SkillStore, tmp_path: Path) -> None:
    ok(store.create("w", skill_text("w")))
    exact = store.write_file("w", "assets/exact.bin", b"\x00" * 1_048_576)
    assert (
        isinstance(exact, WriteResult)
        and exact.message == "File 'assets/exact.bin' written to skill 'w'."
    )
    before = snapshot(tmp_path)
    over = err(store.write_file("w", "assets/over.bin", b"\x00" * 1_048_577))
    assert over.message == (
        "File content is 1,048,577 bytes (limit: 1,048,576 bytes / 1 MiB). "
        "Consider splitting into smaller files."
    )
    multibyte = err(store.write_file("w", "references/m.md", "é" * 524_289))  # 1,048,578 bytes
    assert multibyte.code == "too-large"
    assert err(store.write_file("none", "references/a.md", "x")).message == (
        "Skill 'none' not found. Create it first with action='create'."
    )
    assert err(store.write_file("w", "assets", "x")).code == "invalid-path"
    (store.project / "w" / "templates" / "sub").mkdir(parents=True)
    before = snapshot(tmp_path)
    assert err(store.write_file("w", "templates/sub", "x")).message == (
        "'templates/sub' is a directory in skill 'w'."
    )
    assert snapshot(tmp_path) == before


def test_write_file_replaces_atomically_and_leaves_no_temp_files(store: SkillStore) -> None:
    ok(store.create("w", skill_text("w")))
    for content in ("one\n", "two\n", "three\n"):
        ok(store.write_file("w", "references/deep/x.md", content))
    directory = store.project / "w" / "references" / "deep"
    assert sorted(p.name for p in directory.iterdir()) == ["x.md"]
    assert (directory / "x.md").read_text() == "three\n"


def test_remove_file_cleans_empty_directories_only(store: SkillStore) -> None:
    ok(store.create("r", skill_text("r")))
    ok(store.write_file("r", "templates/a/b/c.md", "x"))
    ok(store.write_file("r", "templates/keep.md", "x"))
    result = store.remove_file("r", "templates/a/b/c.md")
    assert isinstance(result, WriteResult)
    assert result.message == "File 'templates/a/b/c.md' removed from skill 'r'."
    assert sorted(p.name for p in (store.project / "r" / "templates").iterdir()) == ["keep.md"]
    ok(store.remove_file("r", "templates/keep.md"))
    assert sorted(p.name for p in (store.project / "r").iterdir()) == ["SKILL.md"]
    missing = err(store.remove_file("r", "templates/keep.md"))
    assert missing.message == "File 'templates/keep.md' not found in skill 'r'."
    assert missing.to_dict()["available_files"] is None


# -- configuration and sessions --------------------------------------------------------


def test_from_config_uses_the_configured_roots(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        env={"SKILLSTATE_SKILLS_PATH": "mine", "SKILLSTATE_USER_SKILLS_PATH": str(tmp_path / "u")},
    )
    store = SkillStore.from_config(config)
    assert store.project == tmp_path / "mine" and store.user == tmp_path / "u"
    default = SkillStore.from_config(load_config(tmp_path, env={}))
    assert default.project == tmp_path / ".skillstate" / "skills"
    assert default.user == Path(os.path.expanduser("~/.skillstate/skills"))
    no_user = SkillStore.from_config(load_config(tmp_path, env={"SKILLSTATE_USER_SKILLS_PATH": ""}))
    assert no_user.user is None and [s for s, _ in no_user.roots] == ["project"]


def test_session_spec_freezes_body_and_hash(store: SkillStore) -> None:
    text = skill_text("task", "A task", "Do the task.\n", skillstate_skill="rig-task")
    ok(store.create("task", text))
    spec = store.session_spec("task")
    assert isinstance(spec, SessionSpec)
    assert spec.body == "Do the task.\n"
    assert spec.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert spec.skill_definition == "rig-task" and spec.environment is None
    assert spec.to_dict() == {  # the contract's envelope, what the runtime reads
        "success": True,
        "body": "Do the task.\n",
        "skill_definition": "rig-task",
        "environment": None,
        "provenance": {
            "name": "task",
            "sha256": spec.sha256,
            "source": "project",
            "path": str(store.project / "task"),
        },
        "frontmatter": {"name": "task", "description": "A task", "skillstate-skill": "rig-task"},
    }
    ok(store.edit("task", "Changed.\n"))
    assert spec.body == "Do the task.\n"  # frozen
    again = store.session_spec("task")
    assert isinstance(again, SessionSpec) and again.sha256 != spec.sha256
    missing = err(store.session_spec("missing"))
    assert missing.code == "not-found" and missing.to_dict()["success"] is False


def test_writes_are_read_back_with_the_read_path_in_use(tmp_path: Path) -> None:
    text = "---\nname: y\ndescription: null\n---\nbody\n"
    flat = SkillStore(tmp_path / "flat", use_yaml=False)
    ok(flat.create("y", text))  # the flat parser reads the text "null"
    assert view(flat, "y").description == "null"
    pytest.importorskip("yaml", reason="PyYAML is optional and not installed here")
    yaml_store = SkillStore(tmp_path / "yaml")
    error = err(yaml_store.create("y", text))
    assert error.message == "SKILL.md of skill 'y' has no 'description' in its frontmatter."
    assert not (tmp_path / "yaml" / "y").exists()


def test_yaml_read_path_in_the_store(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "p")
    text = (
        '---\nname: "n"\ndescription: >\n  Folded\n  text\nmetadata:\n  tags: [a, b]\n---\nbody\n'
    )
    put_skill(store.project, "n", text)
    (meta,) = store.list().skills
    assert meta.description == "Folded text"  # the block scalar's last newline is stripped
    result = view(store, "n")
    assert result.frontmatter["metadata"] == {"tags": ["a", "b"]}
    # The same skill under the flat parser: the quoted name no longer equals the directory.
    flat = SkillStore(tmp_path / "p", use_yaml=False)
    assert flat.list().skills == ()
    assert "declares name '\"n\"'" in err(flat.view("n")).message
