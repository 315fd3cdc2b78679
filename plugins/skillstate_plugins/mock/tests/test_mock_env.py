"""The mock environment: exact reference observations, boolean reject_transition, the contract."""

from __future__ import annotations

from typing import Any

import pytest
from skillstate_testing import EnvironmentConformance, make_host


class TestMockConformance(EnvironmentConformance):
    @pytest.fixture
    def environment_name(self) -> str:
        return "mock"

    @pytest.fixture
    def environment_actions(self) -> list[Any]:
        return ["do it", {"type": "echo", "message": "hi"}, {"type": "noop"}, {"type": "fail"}]

    @pytest.fixture
    def rejected_action(self) -> Any:
        return {"type": "fail", "reason": "Shelf full", "reject_transition": True}


def _env(snapshot: Any = None) -> Any:
    host = make_host()
    return host.environment("mock").factory({}, snapshot)


P1 = "[MOCK ENV · step 1]"


@pytest.mark.parametrize(
    ("action", "status", "observation"),
    [
        (
            "do it",
            "accepted",
            f'{P1} Generic action executed successfully: "do it". No side effects. (mock)',
        ),
        (
            "complete",
            "accepted",
            f'{P1} Generic action executed successfully: "complete". No side effects. (mock)',
        ),
        ({"type": "echo", "message": "hi"}, "accepted", f"{P1} echo → hi. (mock)"),
        ({"type": "echo"}, "accepted", f"{P1} echo → (empty message). (mock)"),
        ({"type": "echo", "message": ""}, "accepted", f"{P1} echo → . (mock)"),
        ({"type": "echo", "message": [1, 2]}, "accepted", f"{P1} echo → 1,2. (mock)"),
        ({"type": "echo", "message": {}}, "accepted", f"{P1} echo → [object Object]. (mock)"),
        (
            {"type": "noop"},
            "accepted",
            f"{P1} no-op action acknowledged; environment unchanged. (mock)",
        ),
        (
            {"type": "fail"},
            "accepted",
            f"{P1} ACTION FAILED — unspecified mock failure. Recover per skill procedure P. (mock)",
        ),
        (
            {"type": "fail", "reason": "boom", "reject_transition": True},
            "rejected",
            f"{P1} ACTION FAILED — boom. Recover per skill procedure P. (mock)",
        ),
        (
            {"type": "fail", "reason": "boom", "reject_transition": False},
            "accepted",
            f"{P1} ACTION FAILED — boom. Recover per skill procedure P. (mock)",
        ),
        ({"type": "complete"}, "completed", f"{P1} SKILL COMPLETE — all objectives met. (mock)"),
        (
            {"type": "complete", "summary": "done"},
            "completed",
            f"{P1} SKILL COMPLETE — done. (mock)",
        ),
        ({}, "accepted", f"{P1} Structured action executed: {{}}. (mock)"),
        (
            {"type": "Echo", "x": 1},
            "accepted",
            f'{P1} Structured action executed: {{\n  "type": "Echo",\n  "x": 1\n}}. (mock)',
        ),
    ],
)
def test_observations_are_the_reference_texts(action: Any, status: str, observation: str) -> None:
    result = _env().execute(action, {})
    assert (result.status, result.observation) == (status, observation)


def test_fail_reports_failed_action_status() -> None:
    assert _env().execute({"type": "fail"}, {}).details["action_status"] == "failed"


@pytest.mark.parametrize("flag", ["false", "true", 1, 0, {}, [], None])
def test_reject_transition_must_be_a_real_boolean(flag: Any) -> None:
    result = _env().execute({"type": "fail", "reject_transition": flag}, {})
    assert result.status == "rejected"
    assert "reject_transition must be true or false" in result.observation


def test_step_prefix_counts_accepted_actions_only() -> None:
    env = _env()
    env.execute("a", {})
    env.execute({"type": "fail", "reject_transition": True}, {})
    assert env.execute("b", {}).observation.startswith("[MOCK ENV · step 2]")
    assert env.snapshot() == {"executed": 2}
    assert _env({"executed": 7}).execute("x", {}).observation.startswith("[MOCK ENV · step 8]")


@pytest.mark.parametrize(
    ("options", "snapshot", "message"),
    [
        ({"noise": "high"}, None, "takes no options; got noise"),
        ({}, {"executed": -1}, "snapshot must be"),
        ({}, [], "snapshot must be"),
    ],
)
def test_bad_options_and_snapshots_are_refused(options: Any, snapshot: Any, message: str) -> None:
    from skillstate.plugin import InvalidInput

    host = make_host()
    with pytest.raises(InvalidInput, match=message):
        host.environment("mock").factory(options, snapshot)
