"""The repo environment: the contract, the commands and texts, the generator, noise and drift."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from skillstate_repo.generator import SCENARIOS, generate
from skillstate_repo.world import Command, apply_command, finish_ci, new_world, parse_command
from skillstate_testing import EnvironmentConformance, make_host

HEADER = "--- BACKGROUND TELEMETRY ---"  # App. C's header, as the paper writes it


def _env(**options: Any) -> Any:
    host = make_host()
    try:
        return host.environment("repo").factory(options, None)
    finally:
        host.close()


class TestRepoConformance(EnvironmentConformance):
    @pytest.fixture
    def environment_name(self) -> str:
        return "repo"

    @pytest.fixture
    def environment_options(self) -> dict[str, Any]:
        return {"seed": 7, "horizon": 12, "noise": 2}

    @pytest.fixture
    def environment_actions(self) -> list[Any]:
        return ["Wait", {"command": "Wait"}, "wait"]

    @pytest.fixture
    def rejected_action(self) -> str:
        return "Merge 99"


def test_the_paper_s_actions_and_their_exact_texts() -> None:
    world = new_world(1)
    fails = frozenset({"11"})
    world["issues"]["11"] = {"branch": "feature/x", "file": "src/x.py", "merged": False}

    def do(raw: str) -> str:
        parsed = parse_command(raw)
        if not isinstance(parsed, Command):
            return parsed.text
        return apply_command(world, parsed, first_push_fails=fails).text

    assert do("Commit master README.md") == (
        "REJECTED: master is protected; commit to a feature branch. State transition rejected."
    )
    commit = do("Commit(feature/x, src/x.py)")  # the paper's B.1 call form works too
    assert re.fullmatch(
        r"Success: Committed src/x\.py to feature/x as [0-9a-f]{7} and pushed\.", commit
    )
    assert (
        do("CreatePR feature/x")
        == "Success: Opened PR #1 from feature/x into master for issue #11; CI is running."
    )
    assert do("CreatePR feature/x") == (
        'REJECTED: Branch "feature/x" already has an open pull request, PR #1. State transition rejected.'
    )
    assert do("Merge 1").startswith("REJECTED: PR #1 cannot be merged: CI is still running on ")
    from skillstate_repo.world import finish_ci

    assert finish_ci(world) == [("1", "failed")]  # issue 11's first CI run fails (the plan)
    assert re.fullmatch(
        r"REJECTED: PR #1 cannot be merged: CI Pipeline Failed on \w+\. State transition rejected\.",
        do("Merge #1"),
    )
    assert do("RunTests feature/x").startswith("Success: Re-running CI for PR #1 on ")
    finish_ci(world)
    assert world["ci"][world["prs"]["1"]["head"]]["status"] == "failed"  # a real failure stays
    fix = do("FixCI feature/x")
    assert re.fullmatch(
        r"Success: Pushed fix \w+ to feature/x; CI is running again for PR #1\.", fix
    )
    finish_ci(world)
    merged = do("Merge 1")
    assert re.fullmatch(
        r"Success: Merged PR #1 into master as (\w+); branch feature/x deleted\.", merged
    )
    assert world["issues"]["11"]["merged"] is True and "feature/x" not in world["branches"]
    assert do("Merge 1") == "REJECTED: PR #1 is already merged. State transition rejected."
    assert do("Merge 7") == "REJECTED: PR #7 does not exist. State transition rejected."
    assert do("Merge seven") == 'Error: "seven" is not a pull request number.'
    head = world["master"]
    assert do("CreateRelease 1.0") == 'Error: "1.0" is not a version (v<major>.<minor>, e.g. v0.3).'
    assert (
        do("CreateRelease v0.1")
        == f"Success: Released v0.1 from master at {head} (branch release/v0.1)."
    )
    assert (
        do("CreateRelease v0.1")
        == "REJECTED: Release v0.1 already exists. State transition rejected."
    )
    assert do(f"CherryPick {head} release/v0.1").startswith(
        f"Success: Cherry-picked {head} onto release/v0.1 as "
    )
    assert (
        do("CherryPick 0000000 release/v0.1")
        == 'REJECTED: Commit "0000000" does not exist. State transition rejected.'
    )
    assert do("CreateRelease v0.2").startswith("Success: Released v0.2")
    assert do("Rollback v0.2") == "Success: Rolled back release v0.2; production runs v0.1."
    assert (
        do("Rollback v0.2")
        == "REJECTED: Release v0.2 is already rolled back. State transition rejected."
    )
    assert do("Wait") == "Wait acknowledged; the repository is unchanged."
    assert do("Deploy now") == (
        'Unknown action "Deploy now". Allowed actions: Commit, CreatePR, Merge, FixCI, RunTests, '
        "CherryPick, CreateRelease, Rollback, Wait, Skip."
    )
    assert do("Merge 1 2") == "Error: Usage: Merge <pr_id>"
    assert (
        do("FixCI feature/nope")
        == 'REJECTED: Branch "feature/nope" does not exist. State transition rejected.'
    )


@pytest.mark.parametrize("horizon", [10, 25, 50, 100, 200])
def test_the_generator_is_seeded_exact_and_finishes_every_feature(horizon: int) -> None:
    episode = generate(42, horizon)
    assert len(episode.events) == horizon and episode == generate(42, horizon)
    assert episode.events[0].kind == "assign"
    for feature in episode.features:
        kinds = [e.kind for e in episode.events if e.issue == feature.issue]
        assert kinds[:2] == ["assign", "open_pr"] and kinds[-1] == "approve", kinds
        if feature.fails:  # the failing CI run is reported right after the PR is opened
            at = next(
                i
                for i, e in enumerate(episode.events)
                if e.issue == feature.issue and e.kind == "open_pr"
            )
            assert episode.events[at + 1].kind == "ci_failed"
    assert len({generate(42 + i, horizon).events for i in range(5)}) == 5


def test_syslog_noise_is_c3_s_and_never_touches_the_episode() -> None:
    quiet, noisy = _env(seed=3, horizon=20), _env(seed=3, horizon=20, noise=5)
    lines = noisy.initial_observation().split(f"\n\n{HEADER}\n")[1].splitlines()
    assert len(lines) == 5
    assert all(
        re.fullmatch(r"\[Syslog\] Server-\d+ CPU load: \d+%, RAM usage: \d+%", line)
        for line in lines
    )
    assert HEADER not in quiet.initial_observation()
    assert quiet.snapshot()["world"] == noisy.snapshot()["world"]
    assert _env(seed=3, horizon=20, noise="high").initial_observation().count("[Syslog]") == 50


def test_bad_options_and_a_drift_that_does_not_fit_are_named() -> None:
    from skillstate.plugin import InvalidInput

    with pytest.raises(InvalidInput, match="unknown repo option colour"):
        _env(colour="red")
    with pytest.raises(
        InvalidInput, match="repo option scenario must be one of force-push, flaky-ci, pr-closed"
    ):
        _env(scenario="meteor")
    with pytest.raises(InvalidInput, match="does not fit"):
        _env(horizon=12, scenario="A", drift_at=11)
    assert SCENARIOS == ("force-push", "flaky-ci", "pr-closed")


def test_a_snapshot_is_plain_json_and_restores_the_same_episode() -> None:
    env = _env(seed=5, horizon=30, scenario="flaky-ci", drift_at=10)
    snapshot = env.snapshot()
    again = type(env)(
        {"seed": 5, "horizon": 30, "scenario": "flaky-ci", "drift_at": 10},
        json.loads(json.dumps(snapshot)),
    )
    assert again.snapshot() == snapshot and again.initial_observation() == env.initial_observation()


def test_every_push_moves_the_pull_request_and_starts_ci() -> None:
    world = new_world(2)
    world["issues"]["11"] = {"branch": "feature/x", "file": "src/x.py", "merged": False}

    def do(raw: str) -> str:
        parsed = parse_command(raw)
        assert isinstance(parsed, Command), raw
        return apply_command(world, parsed).text

    do("Commit feature/x src/x.py")
    do("CreatePR feature/x")
    finish_ci(world)
    picked = world["master"]
    text = do(f"CherryPick {picked} feature/x")  # onto a branch with an open pull request
    head = world["branches"]["feature/x"]
    assert (
        text
        == f"Success: Cherry-picked {picked} onto feature/x as {head}. CI is running for PR #1."
    )
    assert world["prs"]["1"]["head"] == head  # the PR follows its branch, as on Commit
    assert world["ci"][head]["status"] == "running"
    commit = do("Commit feature/x src/y.py")
    assert commit.endswith(" CI is running for PR #1.")
    assert world["prs"]["1"]["head"] == world["branches"]["feature/x"]


def test_a_rejected_action_is_shown_the_drift_alert_again() -> None:
    from skillstate_repo.environment import correct_answer

    env = _env(seed=5, horizon=30, scenario="force-push", drift_at=10)
    observation = env.initial_observation()
    while "ALERT (force push)" not in observation:
        event = env.episode.events[env.cursor]
        answer = correct_answer(env.episode, event, env.world)
        action = "Wait" if answer is None else " ".join([answer.verb, *answer.args])
        observation = env.execute(action, {}).observation
    alert = next(line for line in observation.splitlines() if line.startswith("ALERT"))
    rejected = env.execute("Merge 99", {})
    assert rejected.status == "rejected"
    lines = rejected.observation.splitlines()
    assert lines[0] == "REJECTED: PR #99 does not exist. State transition rejected."
    assert alert in lines[1:]  # the pending event again, with the alert that came with it
