"""Issue 27 section 4, "a newcomer's first hour": store URLs and reads on a missing store.

Before the fix, ``sqlite:///runs.db`` (the docs/ui.md example) opened ``/runs.db`` at
the filesystem root, and ``list``, ``get`` and ``ui`` on a mistyped store path created
a new, empty SQLite store there and answered as if nothing were wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run_skillstate

STORES = {
    "sqlite": ("sqlite:///typo/runs.db", "typo/runs.db"),
    "sqlite-absolute": ("sqlite:////{tmp}/typo/runs.db", "typo/runs.db"),
    "file": ("file:typo/state", "typo/state"),
}


def test_three_slashes_is_relative_to_the_current_directory(tmp_path: Path) -> None:
    done = run_skillstate("--store", "sqlite:///runs.db", "init", "rig-task", "t1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "runs.db").is_file()
    listed = run_skillstate("--store", "sqlite:///runs.db", "list", cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("t1\trig-task"), listed.stderr


def test_four_slashes_is_absolute(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'abs.db'}"  # tmp_path starts with '/': four slashes
    assert url.startswith("sqlite:////")
    done = run_skillstate("--store", url, "init", "rig-task", "t1", cwd=tmp_path / "..")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "abs.db").is_file()


def test_a_relative_sqlite_url_in_the_config_file_is_taken_from_the_project(
    tmp_path: Path,
) -> None:
    (tmp_path / "skillstate.toml").write_text('store = "sqlite:///data/runs.db"\n')
    (tmp_path / "src").mkdir()
    done = run_skillstate("init", "rig-task", "t1", cwd=tmp_path / "src")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "runs.db").is_file()
    assert not (tmp_path / "src" / "data").exists()


@pytest.mark.parametrize("kind", sorted(STORES))
@pytest.mark.parametrize(
    "command",
    [["list"], ["get", "t1"], ["show", "t1"], ["journal", "t1"], ["log", "t1"], ["ui"]],
)
def test_a_read_on_a_missing_store_says_so_and_creates_nothing(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    url, created = STORES[kind]
    url = url.format(tmp=str(tmp_path).lstrip("/"))
    done = run_skillstate("--store", url, *command, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skillstate: no store at "), done.stderr
    assert "nothing was created" in lines[0]
    assert not (tmp_path / created).exists() and not (tmp_path / "typo").exists()


@pytest.mark.parametrize("kind", sorted(STORES))
def test_doctor_reports_a_missing_store_without_creating_it(tmp_path: Path, kind: str) -> None:
    url, _ = STORES[kind]
    url = url.format(tmp=str(tmp_path).lstrip("/"))
    done = run_skillstate("--store", url, "doctor", cwd=tmp_path)
    assert done.returncode == 0  # a new project has no store yet: a nit, not a failure
    assert "nit: store: no store at" in done.stdout, done.stdout
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("kind", sorted(STORES))
def test_a_write_still_creates_the_store(tmp_path: Path, kind: str) -> None:
    url, created = STORES[kind]
    url = url.format(tmp=str(tmp_path).lstrip("/"))
    done = run_skillstate("--store", url, "init", "rig-task", "t1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / created).exists()
    got = run_skillstate("--store", url, "get", "t1", "--field", "phase", cwd=tmp_path)
    assert got.returncode == 0 and got.stdout.strip() == "spec", got.stderr


def test_migrate_from_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    done = run_skillstate(
        "migrate", "--from", "sqlite:///nope.db", "--to", "file:out", cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.startswith("skillstate: no store at sqlite:///nope.db (--from)")
    assert not (tmp_path / "nope.db").exists() and not (tmp_path / "out").exists()
