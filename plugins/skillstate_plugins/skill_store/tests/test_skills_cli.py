"""``skillstate skills ...`` through real subprocesses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .skills_support import skill_text, skills_cli, snapshot


def cli(
    cwd: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return skills_cli(cwd, *args, stdin=stdin, SKILLSTATE_USER_SKILLS_PATH=str(cwd / "user"), **env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    out = cli(
        tmp_path, "create", "pdf", stdin=skill_text("pdf", "Fill PDF forms", "# PDF\nUse it.\n")
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "Skill 'pdf' created.\n", "")
    return tmp_path


def test_create_list_view_read(project: Path) -> None:
    skill_md = project / ".skillstate" / "skills" / "pdf" / "SKILL.md"
    assert skill_md.is_file()  # the default project root, relative to the working directory
    out = cli(project, "list")
    assert out.returncode == 0 and out.stdout == "pdf  [project]  Fill PDF forms\n"
    listing = json.loads(cli(project, "list", "--json").stdout)
    assert listing["count"] == 1 and listing["skills"][0]["source"] == "project"
    view = cli(project, "view", "pdf")
    assert view.returncode == 0 and view.stdout == skill_md.read_text()
    data = json.loads(cli(project, "view", "pdf", "--json").stdout)
    assert data["body"] == "# PDF\nUse it.\n" and len(data["sha256"]) == 64
    source = project / "api.md"
    source.write_text("# API\n")
    out = cli(project, "write-file", "pdf", "references/api.md", "--file", str(source))
    assert out.stdout == "File 'references/api.md' written to skill 'pdf'.\n"
    assert cli(project, "read", "pdf", "references/api.md").stdout == "# API\n"
    assert json.loads(cli(project, "view", "pdf", "--json").stdout)["linked_files"] == [
        "references/api.md"
    ]


def test_edit_patch_remove_delete(project: Path) -> None:
    out = cli(project, "edit", "pdf", stdin="New body.\n")
    assert out.stdout == "Skill 'pdf' updated (full rewrite).\n"
    out = cli(project, "patch", "pdf", "--find", "New", "--replace", "Newer")
    assert out.stdout == "Patched SKILL.md in skill 'pdf' (1 replacement).\n"
    assert cli(project, "view", "pdf").stdout.endswith("---\nNewer body.\n")
    cli(project, "write-file", "pdf", "scripts/a.sh", stdin="echo a\n")
    out = cli(project, "remove-file", "pdf", "scripts/a.sh")
    assert out.stdout == "File 'scripts/a.sh' removed from skill 'pdf'.\n"
    assert cli(project, "delete", "pdf").stdout == "Skill 'pdf' deleted.\n"
    assert cli(project, "list").stdout == "no skills\n"


def test_failures_go_to_stderr_with_exit_1_and_change_nothing(project: Path) -> None:
    before = snapshot(project)
    cases = [
        (("view", "nope"), "skillstate: Skill 'nope' not found.\n"),
        (
            ("view", "Bad"),
            "skillstate: Invalid skill name 'Bad'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit.\n",
        ),
        (
            ("read", "pdf", "references\\a.md"),
            "skillstate: Backslashes are not allowed in file_path; use '/'.\n",
        ),
        (
            ("remove-file", "pdf", "notes/a.md"),
            "skillstate: File must be under one of: assets, references, scripts, templates. Got: 'notes/a.md'\n",
        ),
        (
            ("patch", "pdf", "--find", "zzz", "--replace", "y"),
            "skillstate: old_string not found in the file.\n",
        ),
        (("patch", "pdf", "--find", "e", "--replace", "E"), "skillstate: old_string matched "),
    ]
    for args, message in cases:
        out = cli(project, *args)
        assert out.returncode == 1, (args, out)
        assert out.stdout == "" and out.stderr.startswith(message), (args, out.stderr)
    out = cli(project, "edit", "pdf", stdin="  \n")
    assert out.returncode == 1 and "must have content after the frontmatter" in out.stderr
    out = cli(project, "create", "pdf", stdin=skill_text("pdf"))
    assert out.returncode == 1 and "already exists" in out.stderr
    assert snapshot(project) == before


def test_json_error_envelope(project: Path) -> None:
    out = cli(project, "patch", "pdf", "--find", "e", "--replace", "E", "--json")
    assert out.returncode == 1
    envelope = json.loads(out.stdout)
    assert envelope["success"] is False and envelope["match_count"] > 1
    assert out.stderr.startswith("skillstate: old_string matched")


def test_usage_errors_exit_2(project: Path) -> None:
    assert cli(project).returncode == 2
    assert cli(project, "view").returncode == 2
    assert cli(project, "patch", "pdf", "--find", "x").returncode == 2
    out = cli(project, "write-file", "pdf", "references/a.md", "--file", str(project / "none"))
    assert out.returncode == 2 and "cannot read --file" in out.stderr
    out = cli(project, "create", "x", stdin=None)  # stdin is empty, not a TTY: empty content
    assert out.returncode == 1 and "content is required for 'create'" in out.stderr


def test_roots_from_environment_and_flags(tmp_path: Path) -> None:
    user = tmp_path / "user"
    (user / "shared").mkdir(parents=True)
    (user / "shared" / "SKILL.md").write_text(skill_text("shared", "From the user"))
    out = cli(tmp_path, "list", SKILLSTATE_SKILLS_PATH=str(tmp_path / "elsewhere"))
    assert out.stdout == "shared  [user]  From the user\n"
    out = cli(tmp_path, "--user-skills-path", "", "list")
    assert out.stdout == "no skills\n"
    out = cli(tmp_path, "--skills-path", "mine", "create", "m", stdin=skill_text("m"))
    assert out.returncode == 0 and (tmp_path / "mine" / "m" / "SKILL.md").is_file()
    out = cli(tmp_path, "edit", "shared", stdin="x\n")
    assert out.returncode == 1 and "writes go to the project skills directory" in out.stderr
