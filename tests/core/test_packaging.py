"""Issue 27 section 4: the install lines the docs give work, and a release's metadata is there.

Before, README, docs/mcp.md and docs/ui.md gave only `pip install 'skillstate[mcp]'`,
which ends in "No matching distribution found" while the project is unpublished, and
`pip install ./plugins/skillstate-repo` failed the same way in a fresh venv; the
metadata had no classifiers or authors, two version sources, and the sdist no docs
or tests. This builds both distributions as ./dev lint does and installs them as the
docs say, in a fresh venv.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path

import pytest
from support import ROOT, VENV_BIN, clean_env

from skillstate import __version__

pytestmark = pytest.mark.slow


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), capture_output=True, text=True, env=clean_env(), cwd=cwd, timeout=900
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    for project in (ROOT, ROOT / "plugins" / "skillstate-repo"):
        done = _run(sys.executable, "-m", "build", "-q", "--outdir", str(out), str(project))
        assert done.returncode == 0, done.stderr[-3000:]
    yield out


def _metadata(wheel: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(name).decode())
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        fields.setdefault(key, []).append(value)
    return fields


def test_the_wheels_carry_a_releases_metadata_and_one_version(dist: Path) -> None:
    wheel = next(dist.glob("skillstate-*.whl"))
    meta = _metadata(wheel)
    assert meta["Version"] == [__version__]  # from skillstate/_version.py, the one source
    assert meta["Author"] == ["the skillstate authors"]
    assert "Programming Language :: Python :: 3.11" in meta["Classifier"]
    assert "Typing :: Typed" in meta["Classifier"]
    assert meta["License-Expression"] == ["MIT"]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "skillstate_plugins/inspector/templates/run.html" in names
    assert "skillstate/py.typed" in names
    assert not [n for n in names if "/tests/" in n]  # the wheel is code only
    repo = _metadata(next(dist.glob("skillstate_repo-*.whl")))
    assert repo["Version"] and repo["Classifier"] and repo["Author"]


def test_the_sdists_carry_the_docs_and_the_tests(dist: Path) -> None:
    with tarfile.open(next(dist.glob("skillstate-*.tar.gz"))) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "docs/cli.md",
        "README.md",
        "CHANGELOG.md",
        "LICENSE",
        "tests/support.py",
        "tests/cli/test_first_hour.py",
        "plugins/skillstate_plugins/sqlite_store/tests/test_store_sqlite.py",
        "conftest.py",
    ):
        assert needed in names, needed
    with tarfile.open(next(dist.glob("skillstate_repo-*.tar.gz"))) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert "tests/test_repo_environment.py" in names and "README.md" in names


def test_twine_check_passes(dist: Path) -> None:
    done = _run(str(VENV_BIN / "twine"), "check", "--strict", *map(str, sorted(dist.iterdir())))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_documented_install_lines_work_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
    bin_dir = tmp_path / "venv" / "bin"
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    wheel = next(dist.glob("skillstate-*.whl"))
    # README: `pip install dist/skillstate-*.whl`, then `pip install ./plugins/skillstate-repo`
    done = _run(*pip, str(wheel))
    assert done.returncode == 0, done.stderr[-3000:]
    done = _run(*pip, str(ROOT / "plugins" / "skillstate-repo"))
    assert done.returncode == 0, done.stderr[-3000:]
    version = _run(str(bin_dir / "skillstate"), "--version", cwd=tmp_path)
    assert version.stdout == f"skillstate {__version__}\n"
    plugins = _run(str(bin_dir / "skillstate"), "plugins", cwd=tmp_path)
    assert plugins.returncode == 0, plugins.stderr
    assert any(line.split()[:1] == ["repo"] for line in plugins.stdout.splitlines())
    missing = _run(str(bin_dir / "skillstate"), "mcp", cwd=tmp_path)  # no mcp extra: exit 3
    assert missing.returncode == 3 and missing.stderr.count("\n") == 1
    assert "pip install -e '.[mcp]'" in missing.stderr
