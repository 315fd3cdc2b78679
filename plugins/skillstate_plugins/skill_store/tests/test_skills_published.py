"""Skills in the layouts public skill repositories use, read through the real CLI.

Anthropic's ``pdf`` skill keeps ``forms.md`` and ``reference.md`` beside SKILL.md;
obra/superpowers-style skills keep folders of their own (``reference/``, ``examples/``,
``agents/``, ``shared/``, ``themes/``). Every file such a SKILL.md links to can be read,
``view --json`` lists every file, and the confinement (``..``, symlinks, hard links,
hidden files) still holds.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from skillstate_testing import run_command

from .skills_support import put_skill, skills_cli, snapshot

PDF_BODY = """# PDF Processing Guide

## Overview
This guide covers essential PDF processing operations using Python libraries.
For advanced features, JavaScript libraries, and detailed examples, see [reference.md](reference.md).
If you need to fill out a PDF form, read forms.md and follow its instructions.

## Quick Start
Run `python scripts/check_fillable_fields.py input.pdf` first.
"""

PDF_FILES = {
    "forms.md": "# PDF form filling\nCheck the fields first.\n",
    "reference.md": "# PDF reference\npypdfium2 renders pages.\n",
    "LICENSE.txt": "Proprietary. See the terms.\n",
    "scripts/check_fillable_fields.py": "import sys\nprint(sys.argv)\n",
    "scripts/fill_fillable_fields.py": "print('fill')\n",
}

WRITING_BODY = """# Writing skills

Read [the testing guide](./reference/testing.md#pressure) before writing a skill.
See @examples/CLAUDE_MD_TESTING.md for a worked example, and dispatch the
[reviewer](agents/code-reviewer.md "the reviewer agent") when done.
Shared wording lives in `shared/persuasion.md`; the slides use themes/dark.css.
"""

WRITING_FILES = {
    "reference/testing.md": "# Testing skills\nPressure scenarios.\n",
    "reference/anthropic-best-practices.md": "# Best practices\n",
    "examples/CLAUDE_MD_TESTING.md": "# Example\n",
    "agents/code-reviewer.md": "# Code reviewer agent\n",
    "shared/persuasion.md": "# Persuasion principles\n",
    "themes/dark.css": "body { color: white; }\n",
    "graphviz-conventions.dot": "digraph { a -> b }\n",
}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return skills_cli(cwd, *args, SKILLSTATE_USER_SKILLS_PATH=str(cwd / "user"))


def build(root: Path, name: str, description: str, body: str, files: dict[str, str]) -> Path:
    directory = put_skill(root, name, f"---\nname: {name}\ndescription: {description}\n---\n{body}")
    for relative, text in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_text(text)
    return directory


@pytest.fixture
def project(tmp_path: Path) -> Path:
    skills = tmp_path / ".skillstate" / "skills"
    build(skills, "pdf", "Extract text and fill PDF forms.", PDF_BODY, PDF_FILES)
    build(skills, "writing-skills", "Use when creating skills.", WRITING_BODY, WRITING_FILES)
    return tmp_path


@pytest.mark.parametrize(("name", "files"), [("pdf", PDF_FILES), ("writing-skills", WRITING_FILES)])
def test_every_file_of_a_published_skill_is_read(
    project: Path, name: str, files: dict[str, str]
) -> None:
    for relative, text in files.items():
        out = cli(project, "read", name, relative)
        assert (out.returncode, out.stdout, out.stderr) == (0, text, ""), relative
        data = json.loads(cli(project, "read", name, relative, "--json").stdout)
        assert (data["file"], data["content"]) == (relative, text)


@pytest.mark.parametrize(
    ("name", "files", "linked"),
    [
        (
            "pdf",
            PDF_FILES,
            [
                "forms.md",
                "reference.md",
                "scripts/check_fillable_fields.py",
                "scripts/fill_fillable_fields.py",
            ],
        ),
        (
            "writing-skills",
            WRITING_FILES,
            [
                "agents/code-reviewer.md",
                "examples/CLAUDE_MD_TESTING.md",
                "reference/testing.md",
                "shared/persuasion.md",
                "themes/dark.css",
            ],
        ),
    ],
)
def test_view_lists_every_file_and_the_linked_ones(
    project: Path, name: str, files: dict[str, str], linked: list[str]
) -> None:
    data = json.loads(cli(project, "view", name, "--json").stdout)
    assert data["files"] == sorted(files) and "files_truncated" not in data
    assert data["linked_files"] == linked
    plain = cli(project, "view", name).stdout
    assert all(f"\n  {path}\n" in plain for path in files)


def test_a_missing_file_names_every_file(project: Path) -> None:
    out = cli(project, "read", "pdf", "FORMS.md", "--json")
    assert out.returncode == 1
    assert out.stderr == "skillstate: File 'FORMS.md' not found in skill 'pdf'.\n"
    assert json.loads(out.stdout)["available_files"] == sorted(PDF_FILES)


def test_confinement_holds_outside_the_support_directories(project: Path) -> None:
    skill = project / ".skillstate" / "skills" / "writing-skills"
    outside = project / "secret.txt"
    outside.write_text("secret\n")
    os.symlink(outside, skill / "reference" / "escape.md")
    os.link(outside, skill / "examples" / "hard.md")
    (skill / ".env").write_text("TOKEN=secret\n")
    (skill / "shared" / ".private.md").write_text("secret\n")
    before = snapshot(project)
    cases = {
        "reference/escape.md": "skillstate: Path escapes allowed directory: 'reference/escape.md'",
        "examples/hard.md": "skillstate: File 'examples/hard.md' of skill 'writing-skills' is a "
        "hard link (2 names)",
        ".env": "skillstate: Hidden files are not read (a segment starts with '.'). Got: '.env'",
        "shared/.private.md": "skillstate: Hidden files are not read",
        "../pdf/forms.md": "skillstate: Path traversal ('..') is not allowed.",
        "/etc/passwd": "skillstate: file_path must be relative to the skill directory.",
        "reference": "skillstate: File 'reference' not found in skill 'writing-skills'.",
    }
    for path, message in cases.items():
        out = cli(project, "read", "writing-skills", path)
        assert out.returncode == 1 and out.stdout == "", path
        assert out.stderr.startswith(message), (path, out.stderr)
        assert "secret" not in out.stderr.replace("secret.txt", "")
    listed = json.loads(cli(project, "view", "writing-skills", "--json").stdout)["files"]
    assert ".env" not in listed and "shared/.private.md" not in listed
    assert snapshot(project) == before


def test_writes_stay_under_the_support_directories(project: Path) -> None:
    before = snapshot(project)
    out = skills_cli(project, "write-file", "pdf", "forms.md", stdin="changed\n")
    assert out.returncode == 1
    assert out.stderr.startswith("skillstate: File must be under one of: assets, references")
    assert snapshot(project) == before


LONG_DESCRIPTION = (
    "Guides the creation of distinctive, production-grade frontend interfaces. " * 15
)[:1068]


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """vercel-labs-style skills whose frontmatter name differs from the directory, a
    SKILL.md with unreadable frontmatter, and a description over the format's 1,024."""
    skills = tmp_path / ".skillstate" / "skills"
    build(skills, "pdf", "Extract text and fill PDF forms.", PDF_BODY, PDF_FILES)
    put_skill(
        skills,
        "react-best-practices",
        "---\nname: vercel-react-best-practices\ndescription: React performance rules.\n---\n"
        "# Rules\n",
    )
    put_skill(skills, "no-fence", "# A skill without frontmatter\n")
    put_skill(skills, "long", f"---\nname: long\ndescription: {LONG_DESCRIPTION}\n---\n# Long\n")
    return tmp_path


MISMATCH = (
    "SKILL.md of skill 'react-best-practices' declares name 'vercel-react-best-practices'; "
    "the frontmatter name must equal the directory name."
)
NO_FENCE = "SKILL.md of skill 'no-fence' has no frontmatter: it must start with a '---' line."


def test_broken_skills_are_listed_with_their_reason(mixed: Path) -> None:
    out = cli(mixed, "list")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "long",
        "pdf",
        "no-fence",
        "react-best-practices",
    ]
    assert lines[2].endswith(f"[project]  BROKEN: {NO_FENCE}")
    assert lines[3].endswith(f"[project]  BROKEN: {MISMATCH}")
    data = json.loads(cli(mixed, "list", "--json").stdout)
    assert [s["name"] for s in data["skills"]] == ["long", "pdf"] and data["count"] == 2
    skills = mixed / ".skillstate" / "skills"
    assert data["broken"] == [
        {
            "name": "no-fence",
            "source": "project",
            "path": str(skills / "no-fence"),
            "reason": NO_FENCE,
        },
        {
            "name": "react-best-practices",
            "source": "project",
            "path": str(skills / "react-best-practices"),
            "reason": MISMATCH,
        },
    ]
    view = cli(mixed, "view", "react-best-practices")
    assert (view.returncode, view.stderr) == (1, f"skillstate: {MISMATCH}\n")


def test_long_descriptions_are_cut_to_the_format_limit(mixed: Path) -> None:
    data = json.loads(cli(mixed, "list", "--json").stdout)
    listed = next(s for s in data["skills"] if s["name"] == "long")["description"]
    assert len(LONG_DESCRIPTION) == 1068
    assert listed == LONG_DESCRIPTION[:1021] + "..." and len(listed) == 1024


def test_doctor_reports_broken_skills_and_long_descriptions(mixed: Path) -> None:
    out = run_command("skillstate", "doctor", cwd=mixed, timeout=60, SKILLSTATE_USER_SKILLS_PATH="")
    assert out.returncode == 1, out.stdout + out.stderr  # a warn
    assert (
        f"warn: skills: skill 'react-best-practices' (project) is broken, so it cannot be used: {MISMATCH}"
        in out.stdout
    )
    assert (
        f"warn: skills: skill 'no-fence' (project) is broken, so it cannot be used: {NO_FENCE}"
        in (out.stdout)
    )
    assert (
        "nit: skills: skill 'long' (project): its description is 1,068 characters; listings "
        "show the first 1,021 and '...' (the Agent Skills limit is 1,024)" in out.stdout
    )
    assert "'pdf'" not in out.stdout


def test_a_skill_with_thousands_of_files_lists_a_bounded_number(tmp_path: Path) -> None:
    skills = tmp_path / ".skillstate" / "skills"
    directory = build(skills, "web", "A web app skill.", "Run `npm test`.\n", {})
    modules = directory / "node_modules"
    modules.mkdir()
    for n in range(1500):
        (modules / f"m{n:04}.js").write_text("")
    data = json.loads(cli(tmp_path, "view", "web", "--json").stdout)
    assert len(data["files"]) == 1000 and data["files_truncated"] is True
    assert data["files"][0] == "node_modules/m0000.js"
    assert cli(tmp_path, "read", "web", "node_modules/m1499.js").returncode == 0
