"""The repository's commands, rules and exact texts.

The world is a small relational graph: ``commits`` (sha → parent, branch, file),
``branches`` (name → head sha; ``master`` is always there), pull requests (number →
branch, issue, head, state ``open``/``merged``/``closed``), CI runs (sha → status
``running``/``passed``/``failed``, the outcome it will have, whether a failure is a
flaky test), releases (version → sha, ``live``/``rolled-back``) and the feature
requests (issue → branch, file, merged or not).

Commands (verbs case-insensitive, ids case-sensitive, exact arity; ``Verb a b`` or the
paper's ``Verb(a, b)``):

======================================  =================================================
``Commit <branch> <file>``              commit ``file`` to ``branch`` (created from master
                                        if new) and push; re-runs CI if the branch has an
                                        open pull request
``CreatePR <branch>``                   open a pull request into master; CI starts on it
``Merge <pr>``                          merge an open PR whose CI passed (``3`` or ``#3``);
                                        master moves, the branch is deleted
``FixCI <branch>``                      push a fix for a failing PR; CI runs again
``RunTests <branch>``                   re-run the PR's CI on the same commit (a flaky
                                        failure passes; a real one fails again)
``CherryPick <sha> <branch>``           copy a commit onto a (release) branch and push;
                                        re-runs CI if the branch has an open pull request
``CreateRelease <version>``             tag master as ``v<major>.<minor>``, branch
                                        ``release/<version>``
``Rollback <version>``                  withdraw a live release
``Wait`` / ``Skip``                     nothing (``Skip``: the harness gives an event up)
======================================  =================================================

CI is evaluated in the background: a run started by an action finishes when the next
event is delivered (:func:`finish_ci`). Everything here is a pure function of the world
dict; a rejected command changes nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from skillstate_plugins.bench import Command, Outcome, raw_action

__all__ = [
    "VERBS",
    "Command",
    "Outcome",
    "apply_command",
    "finish_ci",
    "new_world",
    "open_pr_of",
    "parse_command",
    "raw_action",
]

VERBS = (
    "commit", "createpr", "merge", "fixci", "runtests", "cherrypick", "createrelease",
    "rollback", "wait", "skip",
)  # fmt: skip
_NAMES = {
    "commit": "Commit", "createpr": "CreatePR", "merge": "Merge", "fixci": "FixCI",
    "runtests": "RunTests", "cherrypick": "CherryPick", "createrelease": "CreateRelease",
    "rollback": "Rollback", "wait": "Wait", "skip": "Skip",
}  # fmt: skip
_USAGE = {
    "commit": "Commit <branch> <file>",
    "createpr": "CreatePR <branch>",
    "merge": "Merge <pr_id>",
    "fixci": "FixCI <branch>",
    "runtests": "RunTests <branch>",
    "cherrypick": "CherryPick <commit_sha> <branch>",
    "createrelease": "CreateRelease <version>",
    "rollback": "Rollback <version>",
    "wait": "Wait",
    "skip": "Skip",
}
_ARITY = {
    "commit": 2, "createpr": 1, "merge": 1, "fixci": 1, "runtests": 1, "cherrypick": 2,
    "createrelease": 1, "rollback": 1, "wait": 0, "skip": 0,
}  # fmt: skip
_BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")
_FILE = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_./-]{0,199}$")
_VERSION = re.compile(r"^v\d{1,3}\.\d{1,3}$")
_CALL = re.compile(r"^([A-Za-z]+)\s*\((.*)\)$", re.DOTALL)
REJECTED = "State transition rejected."


def parse_command(raw: str) -> Command | Outcome:
    """``Verb a b`` or ``Verb(a, b)``; an :class:`Outcome` (rejected) when it is not a command."""
    call = _CALL.match(raw)
    if call:
        verb = call.group(1).lower()
        inner = call.group(2).strip()
        args = tuple(a.strip() for a in inner.split(",")) if inner else ()
    else:
        parts = raw.split()
        verb = parts[0].lower() if parts else ""
        args = tuple(parts[1:])
    if verb not in VERBS:
        allowed = ", ".join(_NAMES[v] for v in VERBS)
        return Outcome("rejected", f'Unknown action "{raw}". Allowed actions: {allowed}.')
    if len(args) != _ARITY[verb] or any(not a or " " in a for a in args):
        return Outcome("rejected", f"Error: Usage: {_USAGE[verb]}")
    return Command(verb, args)


def sha(seed: int, counter: int) -> str:
    """The id of the world's ``counter``-th commit (deterministic from the seed)."""
    return hashlib.sha1(f"skillstate-repo/{seed}/{counter}".encode()).hexdigest()[:7]


def new_world(seed: int) -> dict[str, Any]:
    """An empty repository: master at its initial commit, no pull request, no release."""
    root = sha(seed, 0)
    return {
        "seed": seed,
        "counter": 1,
        "next_pr": 1,
        "master": root,
        "commits": {root: {"parent": None, "branch": "master", "file": "README.md"}},
        "branches": {"master": root},
        "prs": {},
        "ci": {},
        "releases": {},
        "issues": {},
    }


def _commit(world: dict[str, Any], branch: str, file: str, parent: str) -> str:
    new = sha(world["seed"], world["counter"])
    world["counter"] += 1
    world["commits"][new] = {"parent": parent, "branch": branch, "file": file}
    world["branches"][branch] = new
    return new


def _push(world: dict[str, Any], branch: str, file: str, parent: str) -> tuple[str, str | None]:
    """Commit ``file`` onto ``branch`` and push it: the branch head moves, and when the branch
    has an open pull request its head follows and CI starts on it (and will pass).

    Every command that puts a commit on a branch (Commit, FixCI, CherryPick) pushes
    through here. Returns (the new commit, the pull request whose CI started, or ``None``).
    """
    new = _commit(world, branch, file, parent)
    number = open_pr_of(world, branch)
    if number is not None:
        world["prs"][number]["head"] = new
        _start_ci(world, new, "passed")
    return new, number


def open_pr_of(world: Mapping[str, Any], branch: str) -> str | None:
    """The number (a string) of ``branch``'s open pull request, if any."""
    for number, pr in world["prs"].items():
        if pr["branch"] == branch and pr["state"] == "open":
            return str(number)
    return None


def pr_of_issue(world: Mapping[str, Any], issue: str) -> str | None:
    """The most recent pull request opened for ``issue`` (any state)."""
    found = [n for n, pr in world["prs"].items() if pr["issue"] == issue]
    return max(found, key=int) if found else None


def issue_of_branch(world: Mapping[str, Any], branch: str) -> str | None:
    for issue, item in world["issues"].items():
        if item["branch"] == branch:
            return str(issue)
    return None


def _start_ci(world: dict[str, Any], head: str, outcome: str, *, flaky: bool = False) -> None:
    world["ci"][head] = {"status": "running", "outcome": outcome, "flaky": flaky}


def finish_ci(world: dict[str, Any]) -> list[tuple[str, str]]:
    """Finish every running CI run (background evaluation): ``(pr, status)`` of open PRs' heads."""
    done = []
    for head, run in world["ci"].items():
        if run["status"] != "running":
            continue
        run["status"] = run["outcome"]
        for number, pr in world["prs"].items():
            if pr["state"] == "open" and pr["head"] == head:
                done.append((str(number), run["status"]))
    return done


def _ci_started(number: str | None) -> str:
    return "" if number is None else f" CI is running for PR #{number}."


def _reject(text: str) -> Outcome:
    return Outcome("rejected", f"REJECTED: {text} {REJECTED}")


def _branch_problem(world: Mapping[str, Any], branch: str, *, exists: bool) -> Outcome | None:
    if not _BRANCH.match(branch):
        return Outcome(
            "rejected", f'Error: "{branch}" is not a branch name (letters, digits, . _ / -).'
        )
    if exists and branch not in world["branches"]:
        return _reject(f'Branch "{branch}" does not exist.')
    return None


def _pr_branch(world: dict[str, Any], branch: str) -> tuple[str, dict[str, Any]] | Outcome:
    """``(number, pull request)`` of ``branch``'s open PR, or the rejection saying why not."""
    problem = _branch_problem(world, branch, exists=True)
    if problem:
        return problem
    number = open_pr_of(world, branch)
    if number is None:
        return _reject(f'Branch "{branch}" has no open pull request.')
    return number, world["prs"][number]


def _fix(world: dict[str, Any], command: Command, number: str, pr: dict[str, Any]) -> Outcome:
    """FixCI: push a fix commit onto a failing pull request; CI runs again (and passes)."""
    run = world["ci"].get(pr["head"], {"status": "running"})
    if run["status"] != "failed":
        return _reject(
            f"CI is not failing on PR #{number} (it is {run['status']}); nothing to fix."
        )
    parent = pr["head"]
    new, _ = _push(world, pr["branch"], world["commits"][parent].get("file") or "fix", parent)
    world["commits"][new]["fix"] = True
    text = f"Success: Pushed fix {new} to {pr['branch']}; CI is running again for PR #{number}."
    return Outcome("accepted", text, command)


def _rerun(world: dict[str, Any], command: Command, number: str, pr: dict[str, Any]) -> Outcome:
    """RunTests: re-run CI on the same commit (a flaky failure passes, a real one fails again)."""
    run = world["ci"].get(pr["head"])
    if run is not None and run["status"] == "running":
        return _reject(f"CI is already running on PR #{number}.")
    real = run is not None and run["status"] == "failed" and not run["flaky"]
    _start_ci(world, pr["head"], "failed" if real else "passed")
    return Outcome("accepted", f"Success: Re-running CI for PR #{number} on {pr['head']}.", command)


def apply_command(
    world: dict[str, Any], command: Command, *, first_push_fails: frozenset[str] = frozenset()
) -> Outcome:
    """Check ``command`` against ``world`` and, when valid, change it.

    ``first_push_fails`` — issues whose first pull request fails CI (the episode's plan:
    a linter error that FixCI repairs).
    """
    verb, args = command.verb, command.args
    if verb == "commit":
        branch, file = args
        problem = _branch_problem(world, branch, exists=False)
        if problem:
            return problem
        if branch == "master" or branch.startswith("release/"):
            return _reject(f"{branch} is protected; commit to a feature branch.")
        if not _FILE.match(file):
            return Outcome("rejected", f'Error: "{file}" is not a file path.')
        new, number = _push(world, branch, file, world["branches"].get(branch, world["master"]))
        text = f"Success: Committed {file} to {branch} as {new} and pushed."
        return Outcome("accepted", text + _ci_started(number), command)
    if verb == "createpr":
        (branch,) = args
        problem = _branch_problem(world, branch, exists=True)
        if problem:
            return problem
        if branch == "master" or branch.startswith("release/"):
            return _reject(f"{branch} cannot be the head of a pull request.")
        number = open_pr_of(world, branch)
        if number is not None:
            return _reject(f'Branch "{branch}" already has an open pull request, PR #{number}.')
        number = str(world["next_pr"])
        world["next_pr"] += 1
        head = world["branches"][branch]
        issue = issue_of_branch(world, branch)
        world["prs"][number] = {"branch": branch, "issue": issue, "head": head, "state": "open"}
        first = not any(pr["branch"] == branch for n, pr in world["prs"].items() if n != number)
        fails = (
            issue in first_push_fails and first and world["commits"][head].get("fix") is not True
        )
        _start_ci(world, head, "failed" if fails else "passed")
        about = f" for issue #{issue}" if issue else ""
        return Outcome(
            "accepted",
            f"Success: Opened PR #{number} from {branch} into master{about}; CI is running.",
            command,
        )
    if verb == "merge":
        number = args[0].removeprefix("#")
        if not number.isdigit():
            return Outcome("rejected", f'Error: "{args[0]}" is not a pull request number.')
        number = str(int(number))
        pr = world["prs"].get(number)
        if pr is None:
            return _reject(f"PR #{number} does not exist.")
        if pr["state"] == "closed":
            return _reject(f"PR #{number} is closed; a closed pull request cannot be merged.")
        if pr["state"] == "merged":
            return _reject(f"PR #{number} is already merged.")
        run = world["ci"].get(pr["head"])
        if run is None or run["status"] == "running":
            return _reject(f"PR #{number} cannot be merged: CI is still running on {pr['head']}.")
        if run["status"] != "passed":
            return _reject(f"PR #{number} cannot be merged: CI Pipeline Failed on {pr['head']}.")
        merge = sha(world["seed"], world["counter"])
        world["counter"] += 1
        world["commits"][merge] = {"parent": world["master"], "branch": "master", "file": None}
        world["master"] = world["branches"]["master"] = merge
        pr["state"] = "merged"
        del world["branches"][pr["branch"]]
        if pr["issue"] in world["issues"]:
            world["issues"][pr["issue"]]["merged"] = True
        return Outcome(
            "accepted",
            f"Success: Merged PR #{number} into master as {merge}; branch {pr['branch']} deleted.",
            command,
        )
    if verb in ("fixci", "runtests"):
        found = _pr_branch(world, args[0])
        if isinstance(found, Outcome):
            return found
        number, pr = found
        return (_fix if verb == "fixci" else _rerun)(world, command, number, pr)
    if verb == "cherrypick":
        commit, branch = args
        if commit not in world["commits"]:
            return _reject(f'Commit "{commit}" does not exist.')
        problem = _branch_problem(world, branch, exists=True)
        if problem:
            return problem
        if branch == "master":
            return _reject("master is protected; cherry-pick onto a release branch.")
        file = world["commits"][commit].get("file") or commit
        new, number = _push(world, branch, file, world["branches"][branch])
        text = f"Success: Cherry-picked {commit} onto {branch} as {new}."
        return Outcome("accepted", text + _ci_started(number), command)
    if verb == "createrelease":
        (version,) = args
        if not _VERSION.match(version):
            return Outcome(
                "rejected", f'Error: "{version}" is not a version (v<major>.<minor>, e.g. v0.3).'
            )
        if version in world["releases"]:
            return _reject(f"Release {version} already exists.")
        world["releases"][version] = {"sha": world["master"], "state": "live"}
        world["branches"][f"release/{version}"] = world["master"]
        return Outcome(
            "accepted",
            f"Success: Released {version} from master at {world['master']} (branch release/{version}).",
            command,
        )
    if verb == "rollback":
        (version,) = args
        release = world["releases"].get(version)
        if release is None:
            return _reject(f"Release {version} does not exist.")
        if release["state"] != "live":
            return _reject(f"Release {version} is already rolled back.")
        release["state"] = "rolled-back"
        live = [v for v, r in world["releases"].items() if r["state"] == "live"]
        now = f"production runs {live[-1]}" if live else "no release is live"
        return Outcome("accepted", f"Success: Rolled back release {version}; {now}.", command)
    if verb == "wait":
        return Outcome("accepted", "Wait acknowledged; the repository is unchanged.", command)
    return Outcome("accepted", "Skipped: the event was not handled.", command)
