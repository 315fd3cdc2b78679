"""A third-party plugin really pip-installed into a fresh virtual environment."""

from __future__ import annotations

import json
import subprocess
import textwrap
import venv
from pathlib import Path

import pytest
from support import ROOT, clean_env

FIXTURE = ROOT / "tests" / "fixtures" / "skillstate-word-limit"


@pytest.mark.slow
def test_out_of_tree_guard_plugin_installs_lists_and_enforces(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, str(ROOT), str(FIXTURE)],
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
    row = next(r for r in json.loads(listed.stdout) if r["name"] == "word-limit")
    assert row["distribution"] == "skillstate-word-limit" and row["version"] == "1.2.0"
    assert row["status"] == "active" and row["hooks"] == ["guards", "register_skills"]
    script = textwrap.dedent(
        """
        from skillstate import Change, create_run, transition
        from skillstate.config import load_config
        from skillstate.host import Host
        host = Host.from_config(load_config(overrides={"store": "memory:"}))
        store = host.open_store()
        memo = host.skill("memo")
        assert create_run(host, store, memo, "m", {"summary": "short"}).accepted
        outcome = transition(host, store, "m", Change(patch={"summary": "one two three four five six"}))
        print([p.message for p in outcome.problems])
        """
    )
    out = subprocess.run(
        [str(python), "-c", script],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert out.stdout.strip() == "['summary must be at most 5 words']", out.stderr
