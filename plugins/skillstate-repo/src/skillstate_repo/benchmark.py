"""The repo benchmark record: what ``skillstate bench repo`` runs on the core's harness.

P (:data:`INSTRUCTIONS`), Σ_0 and its JSON Schema, the scripted policies, and the
score read from the environment's final snapshot: feature requests merged into master
(every merge passed CI: master is protected) over feature requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate_plugins.bench import BenchmarkSpec, EpisodeOutcome, relevant_lines

from .generator import SCENARIOS

__all__ = [
    "INITIAL_STATE",
    "INSTRUCTIONS",
    "REPO_BENCHMARK",
    "STATE_SCHEMA",
    "outcome",
    "summary_lines",
]

INSTRUCTIONS = """\
You are the release engineer of a software repository. master is protected: changes
reach it only by merging a pull request (PR) whose CI Pipeline passed. Every turn brings
one event; answer it with exactly one command:

- "Issue #N assigned to you: ... Implement it in <file> on branch <branch>."
  -> Commit <branch> <file>   (creates the branch from master and pushes)
- "Issue #N: the implementation is ready for review; open a pull request."
  -> CreatePR <branch of issue N>   (the reply names the new PR number; CI starts)
- "CI Pipeline Failed for PR #P. Linter error on line L." -> FixCI <branch of PR P>
- "Review comment on PR #P from ...: please re-run the tests ..." -> RunTests <branch of PR P>
- "Review on PR #P from ...: approved." -> Merge P if PR P's CI passed; if its CI failed,
  FixCI <branch> first (RunTests <branch> when the failure was a flaky test)
- "Release vX.Y requested ..." -> CreateRelease vX.Y
- "Hotfix for vX.Y: cherry-pick master's head commit onto release/vX.Y."
  -> CherryPick <master's head commit id> release/vX.Y
- "Incident: release vX.Y is broken in production; roll it back." -> Rollback vX.Y
- Wait does nothing.

Commands are exact: a verb and its arguments separated by spaces (e.g. "Merge 3",
"FixCI feature/dark-mode"). CI runs in the background and reports in later
observations ("CI Pipeline Passed for PR #3."). A rejected command changes nothing and
the same event stays pending; the observation says why.

Lines starting with "ALERT" report changes made by others (a force push, a flaky test);
they are authoritative: update your records. Lines under "--- BACKGROUND TELEMETRY ---"
are irrelevant server noise; ignore them.

Your only memory is the execution state. Keep it as
{"issues": {"<N>": {"branch": "...", "file": "..."}}, "prs": {"<P>": {"branch": "...",
"ci": "running|passed|failed|flaky"}}, "master": "<head commit id>"}: an issue until its
PR is opened, a PR until it is merged, master's head from the latest merge or release.
State patches merge recursively: keys you omit are kept, a key set to null is deleted.
Send only what changes."""
"""P: the repository instructions (persona, actions, rules, the state contract)."""

_ID = "^[0-9]{1,6}$"
STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "issues": {
            "type": "object",
            "propertyNames": {"pattern": _ID},
            "additionalProperties": {
                "type": "object",
                "properties": {"branch": {"type": "string"}, "file": {"type": "string"}},
                "required": ["branch"],
            },
        },
        "prs": {
            "type": "object",
            "propertyNames": {"pattern": _ID},
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "branch": {"type": "string"},
                    "ci": {"enum": ["running", "passed", "failed", "flaky"]},
                },
                "required": ["branch"],
            },
        },
        "master": {"type": "string"},
    },
    "required": ["issues", "prs", "master"],
    "additionalProperties": False,
}
"""Σ's JSON Schema (the SKILL.state runtime)."""

INITIAL_STATE: dict[str, Any] = {"issues": {}, "prs": {}, "master": ""}


def outcome(snapshot: Mapping[str, Any]) -> EpisodeOutcome:
    """Merged feature requests / feature requests; one mark per handled event; the drift plan."""
    plan = snapshot.get("drift_plan")
    return EpisodeOutcome(
        successes=len(snapshot.get("merged") or []),
        total=int(snapshot.get("features") or 0),
        events=str(snapshot.get("results", "")),
        drift=plan if isinstance(plan, Mapping) else None,
    )


def summary_lines(observation: str) -> list[str]:
    """Assignments, outcomes, CI webhooks and alerts: what the extractive Memory summary keeps."""
    keep = ("Issue #", "Success:", "CI Pipeline", "ALERT")
    return [line for line in relevant_lines(observation) if line.startswith(keep)]


def _oracle() -> Any:
    from .oracle import RepoOracle

    return RepoOracle()


def _stale() -> Any:
    from .oracle import RepoOracle

    return RepoOracle(use_alerts=False)


REPO_BENCHMARK = BenchmarkSpec(
    name="repo",
    help="the SKILL.state paper's Software Repository benchmark",
    environment="repo",
    instructions=INSTRUCTIONS,
    initial_state=INITIAL_STATE,
    state_schema=STATE_SCHEMA,
    policies={"oracle": _oracle, "stale": _stale},
    outcome=outcome,
    summary_lines=summary_lines,
    scenarios=SCENARIOS,
    window_chars=3000,
    description="the SKILL.state paper's Software Repository benchmark (SkillExecBench "
    "environment 2): feature requests, CI, pull requests, releases; App. C.3 noise; "
    "Table 10's drift",
)
