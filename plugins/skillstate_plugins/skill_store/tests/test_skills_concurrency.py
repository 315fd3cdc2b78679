"""Several real processes writing one skill at once: no torn file, no lost patch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from skillstate_testing import clean_env

from .. import SkillStore, SkillView
from .skills_support import ok, skill_text

WORKER = f"{__package__}.skills_worker"  # run with -m: it imports the package relatively
WRITERS = 4


def spawn(root: Path, mode: str, worker: int, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", WORKER, str(root), mode, str(worker), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )


def finish(process: subprocess.Popen[str]) -> str:
    out, errors = process.communicate(timeout=240)
    assert process.returncode == 0, (out, errors)
    return out


@pytest.mark.slow
def test_concurrent_writers_never_tear_a_file_nor_lose_a_patch(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "project", use_yaml=False)
    padding = "padding line\n" * 3000  # ~39 KB: a torn write would be easy to catch
    ok(store.create("shared", skill_text("shared", body="MARK\n" + padding)))
    ok(store.write_file("shared", "references/big.md", "a" * 300_000 + "\n"))
    reader = spawn(tmp_path, "read", 0, WRITERS)
    patches = 25
    writers = [spawn(tmp_path, "patch", w, patches) for w in range(WRITERS)]
    writers += [spawn(tmp_path, "write", w, 10) for w in range(WRITERS)]
    for process in writers:
        assert finish(process) == ""
    (tmp_path / "STOP").touch()
    report = finish(reader)
    assert "torn" not in report, report
    assert int(report.split()[-1]) >= 50
    result = store.view("shared")
    assert isinstance(result, SkillView)
    lines = set(result.body.splitlines())
    missing = [
        f"line {w}-{s}"
        for w in range(WRITERS)
        for s in range(patches)
        if f"line {w}-{s}" not in lines
    ]
    assert missing == []  # every patch of every process survived
    assert result.body.count("padding line") == 3000
    leftovers = [p.name for p in (tmp_path / "project" / "shared").rglob(".*")]
    assert leftovers == []  # no temp file left behind


@pytest.mark.slow
def test_concurrent_edits_leave_one_whole_version(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "project", use_yaml=False)
    ok(store.create("shared", skill_text("shared", body="MARK\nstart\n")))
    reader = spawn(tmp_path, "read", 0, 1)
    writers = [spawn(tmp_path, "edit", w, 15) for w in range(WRITERS)]
    for process in writers:
        assert finish(process) == ""
    (tmp_path / "STOP").touch()
    report = finish(reader)
    assert "torn" not in report, report
    result = store.view("shared")
    assert isinstance(result, SkillView)
    authors = {line for line in result.body.splitlines() if line.startswith("edited by")}
    assert len(authors) == 1  # one writer's whole body, never a mix
    assert result.body.endswith("-14\n")
