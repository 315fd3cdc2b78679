"""Out-of-tree plugins really pip-installed into one fresh virtual environment.

Two fixture distributions (a guard plugin and an environment plugin) are installed
with pip beside skillstate, with no configuration: they must be listed and enforced
(the guard) or runnable through the runtime (the environment) — the "pip-install a
plugin" stories of the core and warehouse issues. One venv serves both tests,
because installing skillstate and its dependencies is the slow part.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT, clean_env

pytestmark = pytest.mark.slow

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv with skillstate and both fixture plugins installed by pip; yields its bin/."""
    base = tmp_path_factory.mktemp("third-party")
    sources = []
    for name in ("skillstate-word-limit", "skillstate-ticket-queue"):
        shutil.copytree(FIXTURES / name, base / name)  # build in a copy: no build/ in the repo
        sources.append(str(base / name))
    venv.EnvBuilder(with_pip=True).create(base / "venv")
    pip = [
        str(base / "venv" / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
    ]
    subprocess.run(
        [*pip, str(ROOT), *sources], check=True, env=clean_env(), timeout=600, capture_output=True
    )
    yield base / "venv" / "bin"


def listed(bin_dir: Path, cwd: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [str(bin_dir / "skillstate"), "plugins", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=cwd,
        check=True,
        timeout=60,
    )
    rows: list[dict[str, object]] = json.loads(out.stdout)
    return rows


def test_out_of_tree_guard_plugin_installs_lists_and_enforces(
    plugin_env: Path, tmp_path: Path
) -> None:
    row = next(r for r in listed(plugin_env, tmp_path) if r["name"] == "word-limit")
    assert row["distribution"] == "skillstate-word-limit" and row["version"] == "1.2.0"
    assert row["status"] == "active"
    assert row["hooks"] == ["after_commit", "guards", "register_skills"]
    script = textwrap.dedent(
        """
        from skillstate.plugin import Change, Host, create_run, transition
        from skillstate.plugin.cli import load_config
        host = Host.from_config(load_config(overrides={"store": "memory:"}))
        store = host.open_store()
        memo = host.skill("memo")
        assert create_run(host, store, memo, "m", {"summary": "short"}).accepted
        outcome = transition(host, store, "m", Change(patch={"summary": "one two three four five six"}))
        print([p.message for p in outcome.problems])
        """
    )
    out = subprocess.run(
        [str(plugin_env / "python"), "-c", script],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert out.stdout.strip() == "['summary must be at most 5 words']", out.stderr
    # the subset-signature observer ran for the creation only (the patch was rejected)
    assert out.stderr == "word-limit saw m v1\n"


def test_the_base_install_does_not_pull_the_mcp_sdk(plugin_env: Path, tmp_path: Path) -> None:
    """``pip install skillstate`` is the small core: no MCP SDK, and ``skillstate mcp`` says so."""
    probe = subprocess.run(
        [str(plugin_env / "python"), "-c", "import importlib.util as u; print(u.find_spec('mcp'))"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert probe.stdout.strip() == "None", probe.stdout + probe.stderr
    out = subprocess.run(
        [str(plugin_env / "skillstate"), "mcp"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert (out.returncode, out.stdout) == (3, "")  # exits.ERROR: an optional extra is missing
    assert out.stderr == (
        "skillstate: the MCP server needs the 'mcp' extra, which is not installed: "
        "pip install -e '.[mcp]' from a checkout (pip install 'skillstate[mcp]' after the first "
        "release)\n"
    )


EPISODE = textwrap.dedent(
    """
    import json
    from skillstate.runtime import Runtime

    rt = Runtime("file:state")
    first = rt.initialize_skill("q", "Resolve tickets in order.", {"done": []},
                                environment="ticket-queue", environment_options={"tickets": 3})
    out = {"first": first["prompt_payload"]["latest_observation"], "steps": []}
    done = []
    for action in ["Resolve T-1", "Resolve T-3", "Resolve T-2", "Resolve T-3"]:
        patch = {"done": done + [action.split()[1]]}
        step = rt.execute_step("q", "thinking", patch, action)
        if not step["meta"]["rolled_back"]:
            done = patch["done"]
        out["steps"].append([step["step"], step["meta"]["status"], step["meta"]["rolled_back"],
                             step["prompt_payload"]["latest_observation"]])
    out["state"] = rt.get_session("q")["execution_state"]
    print(json.dumps(out))
    """
)


def test_an_installed_environment_plugin_runs_an_episode(plugin_env: Path, tmp_path: Path) -> None:
    python = plugin_env / "python"
    row = next(r for r in listed(plugin_env, tmp_path) if r["name"] == "ticket-queue")
    assert row["distribution"] == "skillstate-ticket-queue" and row["version"] == "0.3.0"
    assert row["status"] == "active" and row["hooks"] == ["register_environments"]
    work = tmp_path / "work"
    work.mkdir()
    ran = subprocess.run(
        [str(python), "-c", EPISODE],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=work,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["first"] == "Ticket T-1 opened: printer jammed."
    assert out["steps"] == [
        [1, "active", False, "Resolved T-1. Ticket T-2 opened: password reset."],
        [1, "active", True, 'No open ticket "T-3". Open: T-2.'],
        [2, "active", False, "Resolved T-2. Ticket T-3 opened: VPN down."],
        [3, "completed", False, "Resolved T-3. Queue empty."],
    ]
    assert out["state"] == {"done": ["T-1", "T-2", "T-3"]}
    assert (work / "state" / "q.jsonl").exists()  # the embedded default store kept it
    # and blocking it by name makes it unknown, listing what is left
    blocked = subprocess.run(
        [str(python), "-c", EPISODE],
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_DISABLE_PLUGINS="ticket-queue"),
        cwd=tmp_path,
        timeout=60,
    )
    line = blocked.stderr.strip().splitlines()[-1]
    assert "unknown environment 'ticket-queue'. Available: " in line
    assert sorted(line.split("Available: ")[1].split(" (")[0].split(", ")) == ["mock", "warehouse"]
