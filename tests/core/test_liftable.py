"""Bundled plugins could live in their own repository: some are lifted out and tested alone.

The ``warehouse``, ``file_store``, ``skill_store``, ``mcp``, ``inspector`` and
``maintenance`` packages are copied, unchanged,
into scratch projects under new names (``skillstate_warehouse_lifted``...), each with a
minimal ``pyproject.toml`` declaring one entry point. They are built and pip-installed
into a fresh virtual environment beside skillstate (installed from this checkout, not
editable), and each package's own tests run there against the installed copy, with
the bundled copies blocked (``SKILLSTATE_DISABLE_PLUGINS=warehouse,file-store,...``) —
so every environment, store scheme, skill store and command the tests use comes from
the lifted ones.

The same venv gets ``plugins/skillstate-repo`` (a distribution of its own, the paper's
Software Repository environment) installed from its directory: it is listed as a
plugin, its tests pass against the installed copy, and blocking it removes its benchmark.

This is what holds a plugin to the contract: it imports only ``skillstate.plugin``
(and ``skillstate_testing`` in tests) and its own modules relatively, or it fails here.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT, clean_env

pytestmark = pytest.mark.slow

LIFTED = {  # bundled package -> (bundled entry point, new distribution, new import name)
    "warehouse": ("warehouse", "skillstate-warehouse-lifted", "skillstate_warehouse_lifted"),
    "file_store": ("file-store", "skillstate-file-store-lifted", "skillstate_file_store_lifted"),
    "skill_store": (
        "skill-store",
        "skillstate-skill-store-lifted",
        "skillstate_skill_store_lifted",
    ),
    "mcp": ("mcp", "skillstate-mcp-lifted", "skillstate_mcp_lifted"),
    "inspector": ("inspector", "skillstate-inspector-lifted", "skillstate_inspector_lifted"),
    "maintenance": (
        "maintenance",
        "skillstate-maintenance-lifted",
        "skillstate_maintenance_lifted",
    ),
}

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.0.1"
dependencies = ["skillstate"]

[project.entry-points.skillstate]
{dist} = "{module}"

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
"*" = ["templates/*.html", "static/*"]
"""


@pytest.fixture(scope="module")
def lifted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv with skillstate and the lifted plugins installed by pip; yields its bin/."""
    base = tmp_path_factory.mktemp("lifted")
    projects = []
    for package, (_, dist, module) in LIFTED.items():
        project = base / dist
        shutil.copytree(
            ROOT / "plugins" / "skillstate_plugins" / package,
            project / "src" / module,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        (project / "pyproject.toml").write_text(
            PYPROJECT.format(dist=dist, module=module), encoding="utf-8"
        )
        projects.append(str(project))
    repo = base / "skillstate-repo"  # built out of the tree: setuptools leaves build/ behind
    shutil.copytree(
        ROOT / "plugins" / "skillstate-repo",
        repo,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"),
    )
    venv.EnvBuilder(with_pip=True).create(base / "venv")
    python = str(base / "venv" / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = subprocess.run(
        [
            *pip,
            f"{ROOT}[plot,mcp,postgres,ui]",  # what the lifted packages' tests use (CI: no skips)
            "pytest>=8",
            "hypothesis>=6.100",
            "httpx2>=2.16",  # the mcp package's tests drive its HTTP server
            "playwright>=1.40",  # the inspector's browser test (Debian's chromium)
            *projects,
            str(repo),
        ],
        env=clean_env(),
        timeout=900,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    yield base / "venv" / "bin"


def _run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    blocked = ",".join(entry for entry, _, _ in LIFTED.values())
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_DISABLE_PLUGINS=blocked),
        cwd=cwd,
        timeout=900,
    )


def test_the_lifted_plugins_replace_the_bundled_ones(lifted: Path, tmp_path: Path) -> None:
    import json

    out = _run(lifted, "skillstate", "plugins", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    status = {row["name"]: row["status"] for row in json.loads(out.stdout)}
    for entry, dist, _ in LIFTED.values():
        assert status[entry] == "blocked" and status[dist] == "active"
    demo = _run(lifted, "skillstate", "demo", "--horizon", "3", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr  # the lifted warehouse's command, on the lifted store


@pytest.mark.parametrize("package", sorted(LIFTED))
def test_a_lifted_plugin_passes_its_own_tests_alone(
    lifted: Path, tmp_path: Path, package: str
) -> None:
    module = LIFTED[package][2]
    probe = textwrap.dedent(
        f"""
        import {module}, skillstate_plugins
        print({module}.__file__)
        """
    )
    where = _run(lifted, "python", "-c", probe, cwd=tmp_path)
    assert "site-packages" in where.stdout, where.stdout + where.stderr  # the installed copy
    out = _run(
        lifted,
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--pyargs",
        f"{module}.tests",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_the_repo_distribution_installs_from_its_own_directory(
    lifted: Path, tmp_path: Path
) -> None:
    import json

    out = _run(lifted, "skillstate", "plugins", "--json", cwd=tmp_path)
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["repo"]["distribution"] == "skillstate-repo" and rows["repo"]["status"] == "active"
    assert rows["repo"]["hooks"] == ["register_benchmarks", "register_environments"]
    tests = tmp_path / "repo-tests"
    shutil.copytree(ROOT / "plugins" / "skillstate-repo" / "tests", tests)
    done = _run(
        lifted, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests), cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    where = _run(
        lifted,
        "python",
        "-c",
        "import skillstate_repo; print(skillstate_repo.__file__)",
        cwd=tmp_path,
    )
    assert "site-packages" in where.stdout
