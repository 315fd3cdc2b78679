"""The ticket queue passes skillstate's environment conformance suite, and runs sessions."""

from __future__ import annotations

import re

import pytest

from skillstate import Runtime
from skillstate.errors import InvalidInput
from skillstate.testing import EnvironmentConformance

CLAIM_1 = {"type": "claim", "id": "T-1"}
RESOLVE_1 = {"type": "resolve", "id": "T-1", "resolution": "raised the timeout"}


class TestTicketQueue(EnvironmentConformance):
    """Every guarantee of the environment contract, run against ``tickets``."""

    @pytest.fixture
    def environment_name(self):
        return "tickets"

    @pytest.fixture
    def environment_actions(self):
        return [
            "list",
            CLAIM_1,
            {"type": "comment", "id": "T-1", "text": "reproduced"},
            RESOLVE_1,
            {"type": "claim", "id": "T-2"},
        ]

    @pytest.fixture
    def rejected_action(self):
        return RESOLVE_1  # nothing is claimed in a fresh queue


@pytest.fixture
def runtime():
    rt = Runtime("memory:")
    yield rt
    rt.close()


def test_a_session_works_the_queue_to_completion(runtime):
    options = {"tickets": [{"id": "A", "title": "one"}, {"id": "B", "title": "two"}]}
    init = runtime.initialize_skill(
        "support-1",
        "Resolve every ticket.",
        {"done": []},
        environment="tickets",
        environment_options=options,
    )
    assert init["prompt_payload"]["latest_observation"].startswith("2 ticket(s) waiting:")
    for ticket in ("A", "B"):
        step = runtime.execute_step("support-1", "", {}, {"type": "claim", "id": ticket})
        assert step["meta"]["action_status"] == "ok", step
        step = runtime.execute_step(
            "support-1",
            "",
            {"done": ["A"] if ticket == "A" else ["A", "B"]},
            {"type": "resolve", "id": ticket, "resolution": "fixed"},
        )
    assert step["meta"]["status"] == "completed"
    assert step["prompt_payload"]["latest_observation"] == "resolved B. Queue empty: all done."
    assert runtime.get_session("support-1")["execution_state"]["done"] == ["A", "B"]


def test_a_rejected_action_rolls_back_the_state_patch_too(runtime):
    runtime.initialize_skill(
        "support-2", "Work the queue.", {"note": "start"}, environment="tickets"
    )
    step = runtime.execute_step(
        "support-2", "", {"note": "changed"}, {"type": "claim", "id": "T-9"}
    )
    assert step["meta"]["rolled_back"] is True
    assert step["meta"]["rejection"] == "environment"
    session = runtime.get_session("support-2")
    assert session["execution_state"]["note"] == "start"
    assert session["metadata"]["stepCount"] == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"queue": []}, "unknown tickets option(s) queue; known: tickets"),
        ({"tickets": []}, "must be a non-empty list"),
        ({"tickets": [{"id": "A"}, {"id": "A"}]}, "duplicate ticket id 'A'"),
        ({"tickets": [{"id": "A", "priority": "urgent"}]}, "priority must be one of high"),
    ],
)
def test_bad_options_are_refused_with_the_reason(runtime, options, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        runtime.initialize_skill("bad", "x", environment="tickets", environment_options=options)
