"""The scripted policies: an oracle that reads only what it is shown, and a stale one.

The oracle's belief has Σ's shape — ``{"issues": {n: {branch, file}}, "prs": {n:
{branch, ci}}, "master": sha}`` — and is updated from observation lines in order:
assignments, outcomes (``Success: Opened PR #3 …``, ``Merged …``, ``Released …``), CI
webhooks, alerts. Under SKILL.state and Stateful it starts from Σ_t and sends the
difference as its patch (plus what its own action will change); under the history
runtimes it replays what the prompt still shows (summary, history, latest
observation). Whatever scrolled out of view is gone, as for a sliding window.
``stale`` ignores alerts (it shows the recovery lag of an agent that never updates).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any

from skillstate_plugins.bench import Reply, TurnView, format_reply, relevant_lines

__all__ = ["RepoOracle", "apply_observation", "diff", "relevant_lines", "replay"]

_ASSIGN = re.compile(r"Issue #(\d+) assigned to you: .*\. Implement it in (\S+) on branch (\S+)\.")
_READY = re.compile(r"Issue #(\d+): the implementation is ready for review; open a pull request\.")
_OPENED = re.compile(
    r"Success: Opened PR #(\d+) from (\S+) into master(?: for issue #(\d+))?; CI is running\."
)
_COMMITTED = re.compile(
    r"Success: Committed \S+ to \S+ as \w+ and pushed\. CI is running for PR #(\d+)\."
)
_PASSED = re.compile(r"CI Pipeline Passed for PR #(\d+)\.")
_FAILED_EVENT = re.compile(r"CI Pipeline Failed for PR #(\d+)\. Linter error on line \d+\.")
_FAILED = re.compile(r"CI Pipeline Failed for PR #(\d+)\.")
_RUNNING = re.compile(
    r"Success: (?:Pushed fix \w+ to \S+; CI is running again for PR #(\d+)|Re-running CI for PR #(\d+) on \w+)\."
)
_MERGED = re.compile(r"Success: Merged PR #(\d+) into master as (\w+); branch \S+ deleted\.")
_RELEASED = re.compile(r"Success: Released \S+ from master at (\w+) \(branch \S+\)\.")
_FORCE = re.compile(
    r"ALERT \(force push\): \S+ force-pushed \S+; PR #(\d+)'s head is now \w+ and its CI Pipeline Failed\."
)
_FLAKY = re.compile(r"ALERT \(flaky test\): CI re-ran PR #(\d+) and .*")
_COMMENT = re.compile(
    r"Review comment on PR #(\d+) from \w+: please re-run the tests before I approve\."
)
_APPROVED = re.compile(r"Review on PR #(\d+) from \w+: approved\.")
_RELEASE = re.compile(r"Release (\S+) requested: cut it from master\.")
_HOTFIX = re.compile(r"Hotfix for (\S+): cherry-pick master's head commit onto (\S+)\.")
_ROLLBACK = re.compile(r"Incident: release (\S+) is broken in production; roll it back\.")

EMPTY: dict[str, Any] = {"issues": {}, "prs": {}, "master": ""}


def _pr(belief: dict[str, Any], number: str) -> dict[str, Any] | None:
    found = belief["prs"].get(number)
    return found if isinstance(found, dict) else None


def _set_ci(belief: dict[str, Any], number: str, status: str) -> None:
    pr = _pr(belief, number)
    if pr is not None:
        pr["ci"] = status


def apply_observation(belief: dict[str, Any], observation: str, *, alerts: bool = True) -> None:
    """Fold the facts ``observation`` states into ``belief``, line by line."""
    for line in relevant_lines(observation):
        if m := _ASSIGN.fullmatch(line):
            belief["issues"][m.group(1)] = {"branch": m.group(3), "file": m.group(2)}
        elif m := _OPENED.fullmatch(line):
            belief["prs"][m.group(1)] = {"branch": m.group(2), "ci": "running"}
            if m.group(3):
                belief["issues"].pop(m.group(3), None)
        elif m := _COMMITTED.fullmatch(line):
            _set_ci(belief, m.group(1), "running")
        elif m := _PASSED.fullmatch(line):
            _set_ci(belief, m.group(1), "passed")
        elif (m := _FAILED_EVENT.fullmatch(line)) or (m := _FAILED.fullmatch(line)):
            _set_ci(belief, m.group(1), "failed")
        elif m := _RUNNING.fullmatch(line):
            _set_ci(belief, m.group(1) or m.group(2), "running")
        elif m := _MERGED.fullmatch(line):
            belief["prs"].pop(m.group(1), None)
            belief["master"] = m.group(2)
        elif m := _RELEASED.fullmatch(line):
            belief["master"] = m.group(1)
        elif alerts and (m := _FORCE.fullmatch(line)):
            _set_ci(belief, m.group(1), "failed")
        elif alerts and (m := _FLAKY.fullmatch(line)):
            _set_ci(belief, m.group(1), "flaky")


def replay(
    texts: Iterable[str], *, alerts: bool = True, start: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The belief implied by ``texts`` in order (from ``start``, or an empty one)."""
    belief = _normal(start)
    for text in texts:
        apply_observation(belief, text, alerts=alerts)
    return belief


def _normal(state: Mapping[str, Any] | None) -> dict[str, Any]:
    belief = copy.deepcopy(dict(state or {}))
    for key, empty in EMPTY.items():
        if not isinstance(belief.get(key), type(empty)):
            belief[key] = copy.deepcopy(empty)
    return belief


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The RFC 7396 merge patch turning ``before`` into ``after``."""
    patch: dict[str, Any] = {}
    for key in before:
        if key not in after:
            patch[key] = None
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            sub = diff(old, value)
            if sub:
                patch[key] = sub
        elif key not in before or old != value:
            patch[key] = copy.deepcopy(value)
    return patch


def _event(lines: list[str]) -> tuple[str, re.Match[str]] | None:
    found = None
    for line in lines:
        for kind, pattern in (
            ("assign", _ASSIGN), ("open_pr", _READY), ("ci_failed", _FAILED_EVENT),
            ("comment", _COMMENT), ("approve", _APPROVED), ("release", _RELEASE),
            ("hotfix", _HOTFIX), ("rollback", _ROLLBACK),
        ):  # fmt: skip
            if m := pattern.fullmatch(line):
                found = (kind, m)
    return found


def decide(belief: dict[str, Any], observation: str) -> tuple[str, str]:
    """(action, reason) for the pending event; updates ``belief`` with what the action will do."""
    found = _event(relevant_lines(observation))
    if found is None:
        return "Wait", "no event to handle"
    kind, m = found
    if kind == "assign":
        return f"Commit {m.group(3)} {m.group(2)}", f"issue #{m.group(1)} is mine"
    if kind == "open_pr":
        issue = belief["issues"].get(m.group(1))
        if not isinstance(issue, dict):
            return "Wait", f"I do not know issue #{m.group(1)}'s branch"
        return f"CreatePR {issue['branch']}", f"issue #{m.group(1)} is on {issue['branch']}"
    if kind == "release":
        return f"CreateRelease {m.group(1)}", "a release was requested"
    if kind == "hotfix":
        if not belief["master"]:
            return "Wait", "I do not know master's head"
        return f"CherryPick {belief['master']} {m.group(2)}", f"master is at {belief['master']}"
    if kind == "rollback":
        return f"Rollback {m.group(1)}", "the release is broken"
    number = m.group(1)
    pr = _pr(belief, number)
    if pr is None:
        if kind == "approve":
            return f"Merge {number}", f"PR #{number} is approved (I have no record of it)"
        return "Wait", f"I do not know PR #{number}'s branch"
    status = pr.get("ci")
    rerun = {
        "ci_failed": ("FixCI", "failed its linter"),
        "comment": ("RunTests", "is to be re-tested for the reviewer"),
        "failed": ("FixCI", "is approved but its CI failed"),
        "flaky": ("RunTests", "only failed a flaky test"),
    }.get(kind if kind != "approve" else str(status))
    if rerun is not None:
        pr["ci"] = "running"  # what the command will do: CI runs again
        return f"{rerun[0]} {pr['branch']}", f"PR #{number} {rerun[1]}"
    if status == "running":
        return "Wait", f"CI is still running on PR #{number}"
    belief["prs"].pop(number, None)
    return f"Merge {number}", f"PR #{number} is approved and green"


class RepoOracle:
    """Answers every event from what it is shown (``use_alerts=False``: the ``stale`` policy)."""

    def __init__(self, *, use_alerts: bool = True) -> None:
        self.name = "oracle" if use_alerts else "stale"
        self.use_alerts = use_alerts

    def respond(self, view: TurnView) -> Reply:
        if view.state is not None:
            before = _normal(view.state)
            belief = copy.deepcopy(before)
            apply_observation(belief, view.observation, alerts=self.use_alerts)
        else:
            texts = [view.summary or ""] + [obs for obs, _ in view.history] + [view.observation]
            before = belief = replay(texts, alerts=self.use_alerts)
        action, reason = decide(belief, view.observation)
        patch = diff(before, belief) if view.state is not None else {}
        return Reply(
            format_reply(view.runtime, reason[:1].upper() + reason[1:] + ".", patch, action)
        )
