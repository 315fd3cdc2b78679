"""rig's doctor checks: the state directory is gitignored, and no run is left stale.

Read-only. Findings (source ``rig``):

- ``rig-gitignore`` — ``.rig/state/`` must be ignored by git (throwaway coordination
  state, never committed). Checked with ``git check-ignore``; its ``autofix`` (applied
  by ``doctor --fix``, the only automatic one) appends ``.rig/state/`` to ``.gitignore``.
- ``rig-stale-run`` — a run whose phase is not terminal but whose work is finished or
  gone: its branch (rig-task ``branch``, rig-epic ``integrationBranch``) exists neither
  locally nor on ``origin``; its PR (rig-task ``pr.number``, rig-review ``pr``) is
  MERGED or CLOSED according to ``gh`` (when ``gh`` is installed); or it has not been
  updated for longer than ``SKILLSTATE_RIG_STALE_DAYS`` days (default 14). Report only:
  the printed fix is ``rig-state rm <id>``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skillstate.plugin import DoctorFinding, Host, Store
from skillstate.plugin.cli import load_config

from .skills import RIG_SKILL_NAMES, TERMINAL

__all__ = ["DEFAULT_STALE_DAYS", "StaleCheck", "append_gitignore", "rig_findings"]

DEFAULT_STALE_DAYS = 14.0
STATE_DIR = ".rig/state/"
SOURCE = "rig"
TIMEOUT = 20


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _stale_days() -> float:
    raw = os.environ.get("SKILLSTATE_RIG_STALE_DAYS", "")
    try:
        days = float(raw) if raw.strip() else DEFAULT_STALE_DAYS
    except ValueError:
        return DEFAULT_STALE_DAYS
    return days if days > 0 else DEFAULT_STALE_DAYS


class StaleCheck:
    """The stale-run rule for one project: git and ``gh`` are asked at most once per name."""

    def __init__(
        self,
        root: Path,
        stale_days: float | None = None,
        now: datetime | None = None,
        gh: str | None = "auto",
    ) -> None:
        self.root = root
        self.stale_days = stale_days if stale_days is not None else _stale_days()
        self.now = now or datetime.now(UTC)
        self.gh = shutil.which("gh") if gh == "auto" else gh
        probe = _git(root, "rev-parse", "--is-inside-work-tree")
        self.in_git = probe is not None and probe.returncode == 0
        remotes = _git(root, "remote") if self.in_git else None
        self.has_origin = remotes is not None and "origin" in remotes.stdout.split()
        self._branches: dict[str, bool | None] = {}
        self._prs: dict[int, str | None] = {}

    def branch_gone(self, branch: str) -> bool | None:
        """True if ``branch`` exists neither locally nor on origin; None when unknown."""
        if not self.in_git or not branch or branch.startswith("-"):
            return None
        if branch not in self._branches:
            self._branches[branch] = self._branch_gone(branch)
        return self._branches[branch]

    def _branch_gone(self, branch: str) -> bool | None:
        local = _git(self.root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        if local is None:
            return None
        if local.returncode == 0:
            return False
        if not self.has_origin:
            return True
        remote = _git(
            self.root, "ls-remote", "--exit-code", "--heads", "origin", f"refs/heads/{branch}"
        )
        if remote is None:
            return None
        if remote.returncode == 0:
            return False
        return True if remote.returncode == 2 else None

    def pr_state(self, number: Any) -> str | None:
        """``MERGED``, ``CLOSED`` or ``OPEN`` from ``gh``; None without gh or on any failure."""
        if (
            self.gh is None
            or type(number) not in (int, float)
            or number != int(number)
            or number < 1
        ):
            return None
        key = int(number)
        if key not in self._prs:
            try:
                done = subprocess.run(
                    [self.gh, "pr", "view", str(key), "--json", "state", "-q", ".state"],
                    cwd=self.root,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                    check=False,
                )
                state = done.stdout.strip().upper() if done.returncode == 0 else None
            except (OSError, subprocess.TimeoutExpired):
                state = None
            self._prs[key] = state or None
        return self._prs[key]

    def age_days(self, updated: Any) -> float | None:
        if not isinstance(updated, str) or not updated:
            return None
        try:
            when = datetime.fromisoformat(updated.replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return (self.now - when).total_seconds() / 86400

    def reasons(self, skill: str, state: Mapping[str, Any], updated: str) -> list[str]:
        """Why a non-terminal run of ``skill`` looks stale (empty when it does not)."""
        out: list[str] = []
        branch_key = {"rig-task": "branch", "rig-epic": "integrationBranch"}.get(skill)
        branch = state.get(branch_key) if branch_key else None
        if isinstance(branch, str) and self.branch_gone(branch):
            where = "locally or on origin" if self.has_origin else "locally (no origin remote)"
            out.append(f"branch '{branch}' no longer exists {where}")
        pr = state.get("pr")
        number = pr.get("number") if isinstance(pr, dict) else pr
        pr_state = self.pr_state(number) if skill in ("rig-task", "rig-review") else None
        if pr_state in ("MERGED", "CLOSED"):
            out.append(f"PR #{number:g} is {pr_state.lower()}")
        age = self.age_days(state.get("updatedAt") or updated)
        if age is not None and age > self.stale_days:
            out.append(f"not updated for {int(age)} days (limit {self.stale_days:g})")
        return out


def append_gitignore(root: Path, pattern: str) -> bool:
    """Append ``pattern`` to ``root/.gitignore`` unless a line already says it; True if written."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if pattern in (line.strip() for line in text.splitlines()):
        return False
    prefix = "" if not text or text.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{prefix}{pattern}\n")
    return True


def _gitignore_finding(root: Path) -> DoctorFinding | None:
    done = _git(root, "check-ignore", "-q", "--no-index", f"{STATE_DIR}x.json")
    if done is None or done.returncode not in (0, 1):
        return None  # not a git work tree (or no git): nothing to check
    if done.returncode == 0:
        return DoctorFinding("rig-gitignore", "ok", f"{STATE_DIR} is gitignored", source=SOURCE)
    return DoctorFinding(
        "rig-gitignore",
        "nit",
        f"{STATE_DIR} is not gitignored: rig run state is throwaway coordination state "
        "and must never be committed",
        fix=f"append {STATE_DIR} to .gitignore",
        source=SOURCE,
        autofix=lambda: (
            f"appended {STATE_DIR} to .gitignore" if append_gitignore(root, STATE_DIR) else None
        ),
    )


def _rig_stores(root: Path, store: Store | None) -> Iterator[Store]:
    """The configured store, and ``<root>/.rig/state`` when that is another one."""
    rig_dir = (root / ".rig" / "state").resolve()
    url = getattr(store, "url", "") or ""
    same = url.startswith("file:") and Path(url[5:]).resolve() == rig_dir
    if store is not None:
        yield store
    if not same and rig_dir.is_dir():
        host = Host.from_config(load_config(root, overrides={"store": f"file:{rig_dir}"}))
        try:
            yield host.open_store()
        finally:
            host.close()


def rig_findings(
    root: Path,
    store: Store | None,
    stale_days: float | None = None,
    now: datetime | None = None,
    gh: str | None = "auto",
) -> list[DoctorFinding]:
    """Every rig finding for the project at ``root`` (see the module docstring)."""
    root = Path(root)
    findings: list[DoctorFinding] = []
    if (root / ".rig").is_dir():
        gitignore = _gitignore_finding(root)
        if gitignore is not None:
            findings.append(gitignore)
    check: StaleCheck | None = None
    for each in _rig_stores(root, store):
        for summary in each.list(keys=("phase",)):
            phase = summary.fields.get("phase")
            if summary.skill not in RIG_SKILL_NAMES or phase in TERMINAL:
                continue
            if check is None:
                check = StaleCheck(root, stale_days, now, gh)
            record = each.get(summary.id)
            reasons = check.reasons(summary.skill, record.state, record.updated)
            if reasons:
                findings.append(
                    DoctorFinding(
                        "rig-stale-run",
                        "nit",
                        f"run '{summary.id}' ({summary.skill}, phase {phase}) looks stale: "
                        + "; ".join(reasons),
                        fix=f"rig-state rm {summary.id}",
                        source=SOURCE,
                    )
                )
    return findings
