"""The repository environment: one private repository per session, on a seeded episode.

The first observation is event 0. An accepted action is scored against the pending
event (:func:`correct_answer`), then the next event is delivered: background CI runs
finish (a passing one is announced, ``CI Pipeline Passed for PR #3.``), a drift
scenario changes the world silently before its event, its alert rides on the next
event's observation, and the event line comes last — then the telemetry noise. A
rejected action changes nothing: the observation is the rejection and the pending
event again. After the last event the session completes.

Everything the world holds is in :meth:`RepoEnvironment.snapshot`; a rejected action
leaves the instance to be discarded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from skillstate.plugin import ActionResult, Environment, InvalidInput

from .generator import DriftDoesNotFit, Episode, Event, generate
from .noise import noise_suffix
from .options import RepoOptions, parse_options
from .world import (
    Command,
    Outcome,
    apply_command,
    finish_ci,
    new_world,
    parse_command,
    pr_of_issue,
    raw_action,
    sha,
)

__all__ = ["RepoEnvironment", "correct_answer", "event_text"]

_FAILED = {"action_status": "failed"}


def _pr_number(world: Mapping[str, Any], event: Event) -> str:
    """The live pull request of the event's issue, else the ground truth's number."""
    return pr_of_issue(world, event.issue) or event.pr or "?"


def event_text(episode: Episode, event: Event, world: Mapping[str, Any]) -> str:
    """The observation line announcing ``event`` (pull request numbers as the live world has them)."""
    if event.kind in ("release", "hotfix", "rollback"):
        version = event.version
        if event.kind == "release":
            return f"Release {version} requested: cut it from master."
        if event.kind == "hotfix":
            return f"Hotfix for {version}: cherry-pick master's head commit onto release/{version}."
        return f"Incident: release {version} is broken in production; roll it back."
    feature = episode.feature(event.issue)
    pr = _pr_number(world, event)
    if event.kind == "assign":
        return (
            f"Issue #{feature.issue} assigned to you: {feature.title}. Implement it in "
            f"{feature.file} on branch {feature.branch}."
        )
    if event.kind == "open_pr":
        return (
            f"Issue #{feature.issue}: the implementation is ready for review; open a pull request."
        )
    if event.kind == "ci_failed":
        return f"CI Pipeline Failed for PR #{pr}. Linter error on line {event.line}."
    if event.kind == "comment":
        return f"Review comment on PR #{pr} from {event.reviewer}: please re-run the tests before I approve."
    return f"Review on PR #{pr} from {event.reviewer}: approved."


def correct_answer(episode: Episode, event: Event, world: Mapping[str, Any]) -> Command | None:
    """The command that answers ``event`` in the live ``world`` (``None``: nothing can)."""
    if event.kind == "release":
        return Command("createrelease", (event.version,))
    if event.kind == "hotfix":
        return Command("cherrypick", (world["master"], f"release/{event.version}"))
    if event.kind == "rollback":
        return Command("rollback", (event.version,))
    feature = episode.feature(event.issue)
    if event.kind == "assign":
        return Command("commit", (feature.branch, feature.file))
    if event.kind == "open_pr":
        return Command("createpr", (feature.branch,))
    if event.kind == "ci_failed":
        return Command("fixci", (feature.branch,))
    if event.kind == "comment":
        return Command("runtests", (feature.branch,))
    number = pr_of_issue(world, event.issue)
    pr = world["prs"].get(number) if number else None
    if number is None or pr is None or pr["state"] != "open":
        return None
    run = world["ci"].get(pr["head"], {"status": "running", "flaky": False})
    if run["status"] == "passed":
        return Command("merge", (number,))
    if run["status"] == "running":
        return Command("wait", ())
    return Command("runtests" if run["flaky"] else "fixci", (pr["branch"],))


def _same(command: Command, expected: Command | None) -> bool:
    if expected is None or command.verb != expected.verb:
        return False
    if command.verb == "merge":
        return command.args[0].removeprefix("#").lstrip("0") == expected.args[0]
    return command.args == expected.args


class RepoEnvironment(Environment):
    """A software repository for one session (see the module docstring)."""

    def __init__(self, options: Mapping[str, Any], snapshot: Any = None) -> None:
        self.options: RepoOptions = parse_options(options)
        opts = self.options
        try:
            self.episode = generate(opts.seed, opts.horizon, opts.scenario, opts.drift_at)
        except DriftDoesNotFit as exc:
            raise InvalidInput(str(exc)) from None
        self.fails = frozenset(f.issue for f in self.episode.features if f.fails)
        if snapshot is None:
            self.world = new_world(opts.seed)
            self.cursor, self.results = 0, ""
            self.notes: list[str] = []
            self.drift: dict[str, Any] | None = None
            self._deliver()
        else:
            self._restore(snapshot)

    def _restore(self, snapshot: Any) -> None:
        if (
            not isinstance(snapshot, Mapping)
            or not isinstance(snapshot.get("world"), Mapping)
            or type(snapshot.get("cursor")) is not int
            or not isinstance(snapshot.get("results"), str)
            or len(snapshot["results"]) != snapshot["cursor"]
            or not 0 <= snapshot["cursor"] <= self.options.horizon
        ):
            raise InvalidInput(f"repo snapshot is not valid: {snapshot!r:.200}")
        self.world = copy.deepcopy(dict(snapshot["world"]))
        self.cursor, self.results = snapshot["cursor"], snapshot["results"]
        self.notes = [str(n) for n in snapshot.get("notes") or []]
        self.drift = copy.deepcopy(snapshot.get("drift"))

    def snapshot(self) -> dict[str, Any]:
        plan = self.episode.drift
        return {
            "horizon": self.options.horizon,
            "cursor": self.cursor,
            "results": self.results,
            "world": copy.deepcopy(self.world),
            "notes": list(self.notes),
            "drift": copy.deepcopy(self.drift),
            "drift_plan": None
            if plan is None
            else {"scenario": plan.scenario, "at": plan.at, "follow_up": plan.follow_up},
            "features": len(self.episode.features),
            "merged": sorted(i for i, item in self.world["issues"].items() if item.get("merged")),
        }

    # -- delivery -----------------------------------------------------------------
    def _deliver(self) -> None:
        """Make event ``cursor`` pending: CI finishes, drift applies, the issue becomes known."""
        self.notes = []
        if self.cursor >= self.options.horizon:
            return
        event = self.episode.events[self.cursor]
        for number, status in finish_ci(self.world):
            if status == "passed":
                self.notes.append(f"CI Pipeline Passed for PR #{number}.")
            elif not (event.kind == "ci_failed" and _pr_number(self.world, event) == number):
                self.notes.append(f"CI Pipeline Failed for PR #{number}.")
        plan = self.episode.drift
        if plan is not None:
            when = plan.at + 1 if plan.scenario == "pr-closed" else plan.at
            if self.cursor == when:
                self.drift = self._apply_drift(plan.scenario, plan.issue)
            if self.cursor == plan.at + 1 and self.drift and self.drift.get("alert"):
                self.notes.append(self.drift["alert"])
        if event.kind == "assign":
            feature = self.episode.feature(event.issue)
            self.world["issues"][feature.issue] = {
                "branch": feature.branch,
                "file": feature.file,
                "merged": False,
            }

    def _apply_drift(self, scenario: str, issue: str) -> dict[str, Any]:
        world = self.world
        number = pr_of_issue(world, issue)
        pr = world["prs"].get(number) if number else None
        facts: dict[str, Any] = {
            "scenario": scenario,
            "issue": issue,
            "pr": number,
            "applied": False,
        }
        if pr is None or pr["state"] != "open":
            return facts
        facts["applied"] = True
        if scenario == "force-push":
            new = sha(world["seed"], world["counter"])
            world["counter"] += 1
            file = world["commits"][pr["head"]].get("file")
            world["commits"][new] = {"parent": pr["head"], "branch": pr["branch"], "file": file}
            world["branches"][pr["branch"]] = pr["head"] = new
            world["ci"][new] = {"status": "failed", "outcome": "failed", "flaky": False}
            facts["alert"] = (
                f"ALERT (force push): erin force-pushed {pr['branch']}; PR #{number}'s head is now "
                f"{new} and its CI Pipeline Failed."
            )
        elif scenario == "flaky-ci":
            world["ci"][pr["head"]] = {"status": "failed", "outcome": "failed", "flaky": True}
            facts["alert"] = (
                f"ALERT (flaky test): CI re-ran PR #{number} and test_upload_timeout failed; "
                "the test is known to be flaky."
            )
        else:  # pr-closed: silently, and the branch goes with it
            pr["state"] = "closed"
            world["branches"].pop(pr["branch"], None)
        return facts

    def _pending_text(self, with_notes: bool = True) -> str:
        event = self.episode.events[self.cursor]
        lines = [*(self.notes if with_notes else []), event_text(self.episode, event, self.world)]
        return "\n".join(lines)

    def _noise(self, position: str) -> str:
        return noise_suffix(self.options.noise_seed, position, self.options.noise)

    def initial_observation(self) -> str | None:
        if self.cursor >= self.options.horizon:
            return None
        return self._pending_text() + self._noise(str(self.cursor))

    def score(self) -> tuple[int, int]:
        """(merged feature requests, feature requests)."""
        merged = sum(1 for item in self.world["issues"].values() if item.get("merged"))
        return merged, len(self.episode.features)

    # -- execution ------------------------------------------------------------------
    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        horizon = self.options.horizon
        if self.cursor >= horizon:
            return ActionResult("rejected", f"The episode is over ({horizon} events).", _FAILED)
        parsed = parse_command(raw_action(action))
        event = self.episode.events[self.cursor]
        expected = correct_answer(self.episode, event, self.world)
        outcome = (
            parsed
            if isinstance(parsed, Outcome)
            else apply_command(self.world, parsed, first_push_fails=self.fails)
        )
        if outcome.status == "rejected":
            text = f"{outcome.text}\n{self._pending_text(with_notes=False)}" + self._noise(
                f"{self.cursor}r"
            )
            return ActionResult("rejected", text, {**_FAILED, "event": self.cursor})
        assert outcome.command is not None
        correct = _same(outcome.command, expected)
        details = {"event": self.cursor, "correct": correct}
        self.results += "1" if correct else "0"
        self.cursor += 1
        self._deliver()
        if self.cursor >= horizon:
            merged, features = self.score()
            text = (
                f"{outcome.text}\nEpisode complete: {horizon} events; {merged} of {features} "
                f"feature requests merged (score {merged / features if features else 0:.2f})."
            )
            return ActionResult("completed", text, details)
        text = f"{outcome.text}\n{self._pending_text()}" + self._noise(str(self.cursor))
        return ActionResult("accepted", text, details)
