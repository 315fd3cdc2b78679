"""Findings of a new user's walk on a wheel install, through ``skillstate skills`` for real.

YAML aliases in frontmatter (a cycle, a "billion laughs"), unbounded ``--file`` and
standard-input reads, raw control characters in the listing, and a quoted ``name``
that the read path accepted and the write path refused.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from skillstate_testing import clean_env, run_command

from .. import SkillStore
from .skills_support import err, put_skill, skill_text, skills_cli, tree_hash

CYCLE = "---\nname: loop\ndescription: d\nx: &a [*a]\n---\nbody\n"

LAUGHS = (
    "---\nname: laughs\ndescription: d\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{k}: &{k} [{','.join([f'*{p}'] * 9)}]\n"
        for p, k in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\nbody\n"
)
"""About 400 bytes that expand to 9**9 strings when aliases are built."""

DEEP = "---\nname: deep\ndescription: d\nx: " + "[" * 600 + "]" * 600 + "\n---\nbody\n"


def cli(
    cwd: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return skills_cli(cwd, *args, stdin=stdin, SKILLSTATE_USER_SKILLS_PATH="", **env)


def _root(cwd: Path) -> Path:
    return cwd / ".skillstate" / "skills"


def test_aliases_and_deep_nesting_make_one_skill_broken_not_the_listing(tmp_path: Path) -> None:
    root = _root(tmp_path)
    put_skill(root, "good", skill_text("good", "Fine"))
    put_skill(root, "loop", CYCLE)
    put_skill(root, "laughs", LAUGHS)
    put_skill(root, "deep", DEEP)
    started = time.monotonic()
    out = cli(tmp_path, "list")
    assert time.monotonic() - started < 30
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stderr == ""
    lines = out.stdout.splitlines()
    assert len(lines) == 4 and lines[0].startswith("good    [project]  Fine")
    for name, line in (("laughs", 5), ("loop", 4)):
        assert (
            f"{name:<6}  [project]  BROKEN: SKILL.md of skill '{name}': Frontmatter line {line} "
            "uses a YAML alias ('*name'); SKILL.md frontmatter may not use aliases: write the "
            "value out." in lines
        )
    assert "deep    [project]  BROKEN: SKILL.md of skill 'deep': Frontmatter nests maps and " in (
        out.stdout
    )
    view = cli(tmp_path, "view", "laughs")
    assert view.returncode == 1 and "may not use aliases" in view.stderr
    assert len(view.stderr.splitlines()) == 1


def test_doctor_reports_an_alias_skill_as_broken(tmp_path: Path) -> None:
    put_skill(_root(tmp_path), "loop", CYCLE)
    out = run_command("skillstate", "doctor", cwd=tmp_path, SKILLSTATE_USER_SKILLS_PATH="")
    assert "RecursionError" not in out.stdout + out.stderr
    assert "skill 'loop' (project) is broken" in out.stdout
    assert "may not use aliases" in out.stdout


@pytest.mark.parametrize("text", [CYCLE, LAUGHS, DEEP])
def test_create_and_edit_refuse_aliases_in_one_line(tmp_path: Path, text: str) -> None:
    name = text.split("name: ", 1)[1].split("\n", 1)[0]
    nested = text.replace("\nx: ", "\nx:\n  - ").replace("\na: ", "\nmeta:\n  a: ")
    for content in (text, nested):
        before = tree_hash(tmp_path)
        out = cli(tmp_path, "create", name, stdin=content)
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith("skillstate: ")
        assert "alias" in out.stderr or "nests maps and lists" in out.stderr
        assert tree_hash(tmp_path) == before


# -- a quoted name: one rule for reading and writing -------------------------------------


@pytest.mark.parametrize("written", ['"q2"', "'q2'", "q2 # the name"])
def test_a_name_yaml_reads_as_the_directory_is_written_as_it_is_read(
    tmp_path: Path, written: str
) -> None:
    out = cli(tmp_path, "create", "q2", stdin=f"---\nname: {written}\ndescription: d\n---\nb\n")
    assert (out.returncode, out.stderr) == (0, ""), out.stderr
    assert cli(tmp_path, "list").stdout == "q2  [project]  d\n"
    put_skill(
        _root(tmp_path), "q3", f"---\nname: {written.replace('q2', 'q3')}\ndescription: d\n---\nb\n"
    )
    assert "q3  [project]  d" in cli(tmp_path, "list").stdout


def test_the_flat_reader_refuses_a_quoted_name_on_both_paths(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "p", None, use_yaml=False)
    text = '---\nname: "q2"\ndescription: d\n---\nb\n'
    refused = err(store.create("q2", text))
    assert "quotes included: write the name without quotes" in refused.message
    put_skill(tmp_path / "p", "q2", text)
    assert [b.name for b in store.list().broken] == ["q2"]


def test_a_name_yaml_reads_with_quotes_is_refused_without_the_quotes_hint(tmp_path: Path) -> None:
    out = cli(tmp_path, "create", "q4", stdin="---\nname: '\"q4\"'\ndescription: d\n---\nb\n")
    assert out.returncode == 1
    assert out.stderr == (
        "skillstate: Frontmatter 'name' is '\"q4\"' but the skill directory is 'q4'; "
        "they must be equal.\n"
    )


# -- bounded input ------------------------------------------------------------------------

_MEMORY = 768 * 1024 * 1024
"""The address space a bounded read fits in; reading /dev/zero whole would not."""


def _limited(
    cwd: Path, *args: str, stdin: object = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """``skillstate skills ARGS`` for real, with at most :data:`_MEMORY` of address space."""
    import resource
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY, _MEMORY))

    return subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "skills", *args],
        cwd=cwd,
        stdin=stdin,
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_USER_SKILLS_PATH=""),
        timeout=60,
        preexec_fn=limit,
        check=False,
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("write-file", "pdf", "references/z.bin"),
            "skillstate: File content is over 1,048,576 bytes (limit: 1,048,576 bytes / 1 MiB)",
        ),
        (("create", "big"), "skillstate: The SKILL.md text is over 400,000 bytes, so over the"),
        (("edit", "pdf"), "skillstate: The new body is over 400,000 bytes, so over the"),
    ],
)
@pytest.mark.parametrize("via", ["--file", "stdin"])
def test_endless_input_is_refused_after_the_limit(
    tmp_path: Path, args: tuple[str, ...], message: str, via: str
) -> None:
    assert cli(tmp_path, "create", "pdf", stdin=skill_text("pdf")).returncode == 0
    before = tree_hash(tmp_path)
    if via == "--file":
        out = _limited(tmp_path, *args, "--file", "/dev/zero")
    else:
        with open("/dev/zero", "rb") as zero:
            out = _limited(tmp_path, *args, stdin=zero)
    assert out.returncode == 1, out.stderr[-500:]
    assert out.stderr.startswith(message) and len(out.stderr.splitlines()) == 1
    assert out.stdout == "" and tree_hash(tmp_path) == before


def test_input_at_the_limit_is_taken(tmp_path: Path) -> None:
    assert cli(tmp_path, "create", "pdf", stdin=skill_text("pdf")).returncode == 0
    source = tmp_path / "exact.bin"
    source.write_bytes(b"\0" * 1_048_576)
    out = cli(tmp_path, "write-file", "pdf", "references/z.bin", "--file", str(source))
    assert out.returncode == 0, out.stderr
    source.write_bytes(b"\0" * 1_048_577)
    out = cli(tmp_path, "write-file", "pdf", "references/y.bin", "--file", str(source), "--json")
    assert out.returncode == 1 and json.loads(out.stdout)["success"] is False


# -- one line per skill, control characters escaped ---------------------------------------


def test_the_listing_escapes_control_characters_and_keeps_each_skill_on_its_line(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    put_skill(root, "raw", "---\nname: raw\ndescription: a \x1b[2J b \x07 c \r d\n---\nb\n")
    put_skill(root, "escaped", '---\nname: escaped\ndescription: "x \\e]0;t\\a y"\n---\nb\n')
    put_skill(root, "multi", "---\nname: multi\ndescription: |\n  line one\n  line two\n---\nb\n")
    put_skill(root, "bad", '---\nname: "b\\ead"\ndescription: d\n---\nb\n')
    out = cli(tmp_path, "list")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "escaped  [project]  x \\x1b]0;t\\x07 y",
        "multi    [project]  line one line two",
        "raw      [project]  a \\x1b[2J b \\x07 c \\x0d d",
        "bad      [project]  BROKEN: SKILL.md of skill 'bad' declares name 'b\\x1bad'; "
        "the frontmatter name must equal the directory name.",
    ]
    data = json.loads(cli(tmp_path, "list", "--json").stdout)  # the JSON stays exact
    assert {s["name"]: s["description"] for s in data["skills"]} == {
        "escaped": "x \x1b]0;t\x07 y",
        "multi": "line one\nline two",
        "raw": "a \x1b[2J b \x07 c \r d",
    }
