"""``skillstate session start SESSION_ID --skill NAME`` through the real CLI, and the
``max_spec_bytes`` setting a big published skill (claude-api, a 72,772-byte body) needs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from skillstate_testing import run_command

from skillstate.plugin.runtime import Runtime

from .skills_support import put_skill, snapshot

ORDERS_MD = (
    "---\nname: orders\ndescription: Ship warehouse orders.\n"
    "skillstate-environment: warehouse\n---\n# Orders\nPick, pack, ship.\n"
)

CLAUDE_API_BODY_BYTES = 72_772
"""The size of the official claude-api skill's SKILL.md body."""


def claude_api_md() -> str:
    head = "# Building LLM-Powered Applications with Claude\n\n"
    line = "Use the Messages API with streaming for long outputs; see python/README.md.\n"
    body = head + line * ((CLAUDE_API_BODY_BYTES - len(head)) // len(line))
    body += "x" * (CLAUDE_API_BODY_BYTES - len(body) - 1) + "\n"
    assert len(body.encode()) == CLAUDE_API_BODY_BYTES
    return (
        "---\nname: claude-api\ndescription: Build apps with the Claude API or Anthropic SDK.\n"
        "license: Complete terms in LICENSE.txt\n---\n" + body
    )


def ss(cwd: Path, *args: str, **env: str) -> tuple[int, str, str]:
    done = run_command(
        "skillstate", *args, cwd=cwd, timeout=60, SKILLSTATE_USER_SKILLS_PATH="", **env
    )
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the project root
    skills = tmp_path / ".skillstate" / "skills"
    put_skill(skills, "orders", ORDERS_MD)
    put_skill(skills, "claude-api", claude_api_md())
    put_skill(
        skills, "react-best-practices", "---\nname: vercel-react\ndescription: x\n---\nbody\n"
    )
    return tmp_path


def session(project: Path, session_id: str) -> dict[str, object]:
    with Runtime(f"file:{project / '.skillstate' / 'state'}") as runtime:
        return runtime.get_session(session_id)


def test_session_start_from_a_stored_skill(project: Path) -> None:
    code, out, err = ss(project, "session", "start", "o1", "--skill", "orders")
    digest = hashlib.sha256(ORDERS_MD.encode()).hexdigest()
    assert (code, err) == (0, "")
    assert out == (
        f"session o1 started from skill orders (project, sha256 {digest[:12]}…), "
        "environment warehouse, step 0\n"
    )
    got = session(project, "o1")
    assert got["skill_spec"] == "# Orders\nPick, pack, ship.\n"
    source = got["metadata"]["skillSource"]  # type: ignore[index]
    assert (source["name"], source["sha256"], source["source"]) == ("orders", digest, "project")

    code, out, err = ss(
        project, "session", "start", "o2", "--skill", "orders", "--state", '{"n": 1}', "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["prompt_payload"]["current_state"] == {"n": 1}
    assert data["skill_source"]["sha256"] == digest and data["environment"] == "warehouse"


def test_session_start_refusals_change_nothing(project: Path) -> None:
    assert ss(project, "session", "start", "o1", "--skill", "orders")[0] == 0
    before = snapshot(project)
    cases = [
        (("o1", "--skill", "orders"), 2, 'SKILL.state session "o1" already exists.'),
        (("bad id", "--skill", "orders"), 2, "run id 'bad id' must be alphanumeric"),
        (("o3", "--skill", "nope"), 2, "Skill 'nope' not found."),
        (
            ("o3", "--skill", "react-best-practices"),
            2,
            "SKILL.md of skill 'react-best-practices' declares name 'vercel-react'",
        ),
        (("o3", "--skill", "orders", "--state", "[1"), 1, "--state is not valid JSON"),  # as init
        (("o3", "--skill", "orders", "--state", "null"), 1, "--state must be a JSON object"),
        (("o3", "--skill", "orders", "--state", "[1]"), 1, "initial_state must be a JSON object"),
        (("o3", "--skill", "orders", "--environment", "nope"), 2, "unknown environment 'nope'"),
    ]
    for args, expected, message in cases:
        code, out, err = ss(project, "session", "start", *args)
        assert (code, out) == (expected, ""), (args, err)
        assert err.startswith(f"skillstate: {message}"), (args, err)
        assert err.count("\n") == 1, err
    assert snapshot(project) == before


def test_a_big_published_skill_starts_once_the_limit_is_raised(project: Path) -> None:
    before = snapshot(project)
    code, out, err = ss(project, "session", "start", "c1", "--skill", "claude-api")
    assert (code, out) == (1, "")
    assert err == (
        f"skillstate: skill_specification is {CLAUDE_API_BODY_BYTES} bytes, over the "
        "65536-byte limit (raise it with the setting max_spec_bytes, "
        "SKILLSTATE_MAX_SPEC_BYTES)\n"
    )
    assert snapshot(project) == before
    code, out, err = ss(project, "config", "set", "max_spec_bytes", "131072")
    assert code == 0, err
    code, out, err = ss(project, "session", "start", "c1", "--skill", "claude-api")
    assert (code, err) == (0, ""), err
    spec = session(project, "c1")["skill_spec"]
    assert isinstance(spec, str) and len(spec.encode()) == CLAUDE_API_BODY_BYTES
    code, _, err = ss(
        project,
        "session",
        "start",
        "c2",
        "--skill",
        "claude-api",
        SKILLSTATE_MAX_SPEC_BYTES="70000",
    )
    assert code == 1 and "over the 70000-byte limit" in err


@pytest.mark.parametrize("value", ["0", "1000001", "-1", "lots"])
def test_max_spec_bytes_out_of_range_is_refused(project: Path, value: str) -> None:
    before = snapshot(project)
    code, out, err = ss(project, "config", "set", "max_spec_bytes", value)
    assert code in (2, 3) and out == "", err
    assert "max_spec_bytes" in err and "from 1 to 1,000,000" in err, err
    assert snapshot(project) == before


def test_verbose_names_the_store_as_every_command_does(project: Path) -> None:
    code, out, err = ss(project, "-v", "session", "start", "o1", "--skill", "orders")
    assert code == 0 and out.startswith("session o1 started")
    assert err == (
        "skillstate: store file:.skillstate/state (from default; "
        f"project directory {project.resolve()})\n"
    )
    listed = ss(project, "-v", "list")[2]
    assert listed == err  # the line `list -v` gives
    assert ss(project, "session", "start", "o2", "--skill", "orders")[2] == ""


def test_a_refused_initial_state_lists_at_most_100_reasons(project: Path) -> None:
    before = snapshot(project)
    state = json.dumps({f"k{i}": i for i in range(1000)})
    code, out, err = ss(
        project,
        "session",
        "start",
        "o1",
        "--skill",
        "orders",
        "--definition",
        "rig-task",
        "--state",
        state,
    )
    assert (code, out) == (1, "")
    title, *lines = err.splitlines()
    assert title == "skillstate: session start rejected (nothing created):"
    assert lines[0].startswith("  - k0: unknown key.") and len(lines) <= 102
    assert lines[99].startswith("  - k99: unknown key.")
    assert "  - … and 1 more" in lines  # the state's budget, past the 100 listed
    init = run_command("skillstate", "init", "rig-task", "r1", "--json", state, cwd=project)
    assert init.stderr.splitlines()[1:] == lines  # the same reasons as `init` gives
    assert snapshot(project) == before
