"""``rig-state doctor`` / ``skillstate doctor`` in a real git repository with a real (bare) origin.

``gh`` is not installed here and needs the network and a login, so the PR check runs
against a stand-in ``gh`` executable that prints what ``gh pr view --json state -q
.state`` prints; everything else (git, the CLI, the store) is real.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from . import rigcli
from .rigcli import Cli

cli = rigcli.cli

OLD = "2020-01-01T00:00:00.000Z"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.test",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(cli: Cli) -> Cli:
    """The scratch project as a git repo whose origin has `main`, `feat-live` and `remote-only`."""
    origin = cli.root.parent / "origin.git"
    git(cli.root.parent, "init", "-q", "--bare", str(origin))
    git(cli.root, "init", "-q")
    (cli.root / "README").write_text("x\n", encoding="utf-8")
    git(cli.root, "add", "README")
    git(cli.root, "commit", "-q", "-m", "init")
    git(cli.root, "remote", "add", "origin", str(origin))
    for branch in ("feat-live", "remote-only"):
        git(cli.root, "branch", branch)
    git(cli.root, "push", "-q", "origin", "main", "feat-live", "remote-only")
    git(cli.root, "branch", "-D", "remote-only")
    return cli


def seed(cli: Cli, skill: str, run_id: str, state: dict[str, object]) -> None:
    r = cli.rig("init", skill, run_id, "--json", json.dumps(state))
    assert r.code == 0, r


def test_doctor_reports_gitignore_and_stale_runs_read_only(repo: Cli) -> None:
    seed(repo, "rig-task", "t-live", {"branch": "feat-live"})
    seed(repo, "rig-task", "t-remote", {"branch": "remote-only"})
    seed(repo, "rig-task", "t-gone", {"branch": "feat-gone"})
    seed(repo, "rig-task", "t-done", {"branch": "feat-gone", "phase": "abandoned"})
    seed(repo, "rig-task", "t-old", {"branch": "main", "updatedAt": OLD})
    seed(repo, "rig-epic", "e-gone", {"integrationBranch": "epic-gone"})
    status_before = git(repo.root, "status", "--porcelain")

    r = repo.rig("doctor")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert "nit: rig-gitignore: .rig/state/ is not gitignored" in r.out
    assert "  fix: append .rig/state/ to .gitignore" in lines
    stale = [line for line in lines if line.startswith("nit: rig-stale-run:")]
    assert [line.split("'")[1] for line in stale] == ["e-gone", "t-gone", "t-old"]
    assert "branch 'feat-gone' no longer exists locally or on origin" in stale[1]
    assert "branch 'epic-gone'" in stale[0]
    assert "not updated for" in stale[2] and "(limit 14)" in stale[2]
    assert "  fix: rig-state rm t-gone" in lines
    assert not (repo.root / ".gitignore").exists()  # read-only without --fix
    assert git(repo.root, "status", "--porcelain") == status_before

    r = repo.rig("doctor", "--stale-days", "100000")
    assert "t-old" not in r.out and "t-gone" in r.out

    # the same findings through skillstate doctor (its own store is elsewhere)
    r = repo.ss("doctor")
    assert "rig-gitignore" in r.out and "run 't-gone'" in r.out

    r = repo.rig("doctor", "--fix")
    assert "fixed: appended .rig/state/ to .gitignore" in r.out
    assert (repo.root / ".gitignore").read_text(encoding="utf-8") == ".rig/state/\n"
    r = repo.rig("doctor", "--fix")
    assert "ok: rig-gitignore: .rig/state/ is gitignored" in r.out and "fixed:" not in r.out
    assert (repo.root / ".gitignore").read_text(encoding="utf-8") == ".rig/state/\n"
    assert not git(repo.root, "status", "--porcelain", "--untracked-files=all", ".rig")


def test_fix_appends_after_existing_lines(repo: Cli) -> None:
    (repo.root / ".gitignore").write_text("node_modules/", encoding="utf-8")  # no final newline
    seed(repo, "rig-task", "t1", {"branch": "feat-live"})
    r = repo.ss("doctor", "--fix")
    assert r.code == 0 and "fixed: appended .rig/state/ to .gitignore" in r.out
    assert (repo.root / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n.rig/state/\n"


def test_merged_or_closed_pr_makes_a_run_stale(repo: Cli, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(
        '#!/bin/sh\ncase "$3" in 5) echo MERGED;; 6) echo CLOSED;; *) echo OPEN;; esac\n',
        encoding="utf-8",
    )
    gh.chmod(0o755)
    seed(repo, "rig-task", "t-merged", {"branch": "feat-live", "pr": {"number": 5}})
    seed(repo, "rig-review", "pr-6", {"pr": 6})
    seed(repo, "rig-review", "pr-7", {"pr": 7})
    path = f"{bin_dir}:{repo.env['PATH']}"
    r = repo.rig("doctor", PATH=path)
    stale = [line for line in r.out.splitlines() if line.startswith("nit: rig-stale-run:")]
    assert len(stale) == 2
    assert "run 'pr-6'" in stale[0] and "PR #6 is closed" in stale[0]
    assert "run 't-merged'" in stale[1] and "PR #5 is merged" in stale[1]


def test_outside_git_there_is_nothing_to_check(cli: Cli) -> None:
    seed(cli, "rig-task", "t1", {"branch": "whatever"})
    r = cli.rig("doctor")
    assert (r.code, r.out) == (0, "doctor: no findings\n")
