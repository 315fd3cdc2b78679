"""The example plugin packages in docs/examples, built into wheels and pip-installed for real.

One fresh virtual environment is shared by the three packages (installing skillstate
with its dependencies is the slow part): each package is copied out of the source
tree, built into a wheel, and the wheels are installed beside skillstate and pytest.
Then the plugins are listed, used end to end through the CLI and the Python API, and
each package's own test suite runs with that environment's pytest — so the
conformance suites of ``skillstate_testing`` really run against the installed plugins.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, clean_env

pytestmark = pytest.mark.slow

EXAMPLES = ROOT / "docs" / "examples"
PACKAGES = {
    # directory: (entry-point name, at least this many of its own tests must pass)
    "skillstate-deploy-checklist": ("deploy-checklist", 10),
    "skillstate-dbm-store": ("dbm-store", 27),
    "skillstate-inbox": ("inbox", 13),
}


class Venv:
    def __init__(self, root: Path, sources: Path) -> None:
        self.root = root
        self.sources = sources
        self.bin = root / "bin"

    def run(self, *args: str, cwd: Path | None = None, check: bool = True) -> Any:
        done = subprocess.run(
            list(args),
            capture_output=True,
            text=True,
            env=clean_env(),
            cwd=cwd or self.root.parent,
            timeout=300,
        )
        if check and done.returncode != 0:
            pytest.fail(f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    def skillstate(self, *args: str, check: bool = True) -> Any:
        return self.run(str(self.bin / "skillstate"), *args, check=check)

    def python(self, code: str) -> Any:
        return self.run(str(self.bin / "python"), "-c", textwrap.dedent(code))


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    base = tmp_path_factory.mktemp("examples")
    sources = base / "src"
    for name in PACKAGES:  # out of the source tree: builds leave build/ and egg-info behind
        shutil.copytree(
            EXAMPLES / name,
            sources / name,
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"),
        )
    builder = venv.EnvBuilder(with_pip=True)
    builder.create(base / "venv")
    env = Venv(base / "venv", sources)
    pip = [str(env.bin / "python"), "-m", "pip", "-q", "--disable-pip-version-check"]
    no_compile = "--no-compile"  # the dependencies are not byte-compiled up front
    wheels = base / "wheels"
    env.run(*pip, "wheel", "--no-deps", "-w", str(wheels), *(str(sources / n) for n in PACKAGES))
    built = sorted(p.name for p in wheels.glob("*.whl"))
    assert [re.sub(r"-0\.1\.0-.*", "", w) for w in built] == [
        "skillstate_dbm_store",
        "skillstate_deploy_checklist",
        "skillstate_inbox",
    ], built
    env.run(*pip, "install", no_compile, str(ROOT), "pytest", *(str(wheels / w) for w in built))
    yield env


def test_the_three_plugins_are_listed_as_active(env: Venv) -> None:
    rows = {r["name"]: r for r in json.loads(env.skillstate("plugins", "--json").stdout)}
    for directory, (entry_point, _) in PACKAGES.items():
        row = rows[entry_point]
        assert (row["distribution"], row["version"], row["status"]) == (
            directory,
            "0.1.0",
            "active",
        ), row
    assert rows["deploy-checklist"]["hooks"] == ["guards", "register_skills"]
    assert rows["dbm-store"]["hooks"] == ["register_stores"]
    assert rows["inbox"]["hooks"] == ["register_environments"]


def test_deploy_runs_in_the_dbm_store_through_the_cli(env: Venv, tmp_path: Path) -> None:
    store = f"dbm:{tmp_path / 'runs'}"
    seed = {"service": "api", "author": "bob", "checklist": [{"item": "smoke", "done": True}]}
    env.skillstate("--store", store, "init", "deploy", "rel-1", "--json", json.dumps(seed))
    refused = env.skillstate(
        "--store", store, "patch", "rel-1", "--json", '{"phase": "deployed"}', check=False
    )
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[1:] == [
        "  - phase 'deployed' requires approved_by",
        "  - phase 'deployed' can only follow 'approved' (was 'draft')",
    ], refused.stderr
    env.skillstate(
        "--store", store, "patch", "rel-1", "--json", '{"phase":"approved","approved_by":"alice"}'
    )
    env.skillstate("--store", store, "patch", "rel-1", "--json", '{"phase": "deployed"}')
    assert (
        env.skillstate("--store", store, "get", "rel-1", "--field", "phase").stdout == "deployed\n"
    )
    lines = env.skillstate("--store", store, "journal", "rel-1").stdout.splitlines()
    assert [json.loads(line)["version"] for line in lines] == [1, 2, 3]
    assert json.loads(lines[1])["patch"] == {"phase": "approved", "approved_by": "alice"}
    verified = env.skillstate("--store", store, "verify").stdout
    assert verified.startswith("1 run checked, 0 differ"), verified
    assert Path(f"{tmp_path / 'runs'}.lock").exists()  # it really was the dbm store


def test_an_inbox_session_is_kept_in_the_dbm_store(env: Venv, tmp_path: Path) -> None:
    out = env.python(
        f"""
        from skillstate import Runtime
        url = "dbm:{tmp_path / "sessions"}"
        rt = Runtime(url)
        rt.initialize_skill("s1", "Empty the inbox.", {{"done": []}}, environment="inbox",
                            environment_options={{"messages": [{{"id": "A", "urgent": True}}]}})
        rt.execute_step("s1", "", {{}}, {{"type": "read", "id": "A"}})
        early = rt.execute_step("s1", "", {{"done": ["A"]}}, {{"type": "archive", "id": "A"}})
        rt.execute_step("s1", "", {{}}, {{"type": "reply", "id": "A", "text": "ok"}})
        last = rt.execute_step("s1", "", {{"done": ["A"]}}, {{"type": "archive", "id": "A"}})
        rt.close()
        again = Runtime(url).get_session("s1")
        print(early["meta"]["rejection"], last["meta"]["status"],
              again["execution_state"]["done"], again["metadata"]["stepCount"])
        """
    )
    assert out.stdout.split() == ["environment", "completed", "['A']", "3"], out.stderr


@pytest.mark.parametrize("directory", sorted(PACKAGES))
def test_each_package_passes_its_own_tests_in_the_venv(env: Venv, directory: str) -> None:
    _, expected = PACKAGES[directory]
    done = env.run(
        str(env.bin / "python"),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        cwd=env.sources / directory,
        check=False,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    match = re.fullmatch(r"(\d+) passed in [\d.]+s(?: \([\d:]+\))?", summary)
    assert match, summary  # nothing skipped, failed or in error
    assert int(match.group(1)) >= expected, summary  # the suites were really collected
