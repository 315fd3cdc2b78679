"""The "pip-install a domain environment" story: an out-of-tree environment plugin, really
installed with pip into a fresh virtual environment, runs an episode through the runtime."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import venv
from pathlib import Path

import pytest
from support import ROOT, clean_env

FIXTURE = ROOT / "tests" / "fixtures" / "skillstate-ticket-queue"

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


@pytest.mark.slow
def test_an_installed_environment_plugin_runs_an_episode(tmp_path: Path) -> None:
    source = tmp_path / "ticket-queue"
    shutil.copytree(FIXTURE, source)  # build in a copy: no build/ or egg-info in the repo
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, str(ROOT), str(source)],
        check=True,
        env=clean_env(),
        timeout=600,
        capture_output=True,
    )
    listed = subprocess.run(
        [str(env_dir / "bin" / "skillstate"), "plugins", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        check=True,
        timeout=60,
    )
    row = next(r for r in json.loads(listed.stdout) if r["name"] == "ticket-queue")
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
