"""The inbox passes skillstate's environment conformance suite, and runs sessions."""

from __future__ import annotations

import re

import pytest
from skillstate_testing import EnvironmentConformance

from skillstate.plugin import InvalidInput
from skillstate.plugin.runtime import Runtime

READ_2 = {"type": "read", "id": "M-2"}
ARCHIVE_2 = {"type": "archive", "id": "M-2"}


class TestInbox(EnvironmentConformance):
    """Every guarantee of the environment contract, run against ``inbox``."""

    @pytest.fixture
    def environment_name(self):
        return "inbox"

    @pytest.fixture
    def environment_actions(self):
        return [
            "list",
            READ_2,
            ARCHIVE_2,
            {"type": "read", "id": "M-1"},
            {"type": "reply", "id": "M-1", "text": "on it"},
        ]

    @pytest.fixture
    def rejected_action(self):
        return ARCHIVE_2  # unread messages cannot be archived


@pytest.fixture
def runtime():
    rt = Runtime("memory:")
    yield rt
    rt.close()


def test_a_session_triages_the_inbox_to_zero(runtime):
    options = {"messages": [{"id": "A", "subject": "hi"}, {"id": "B", "urgent": True}]}
    init = runtime.initialize_skill(
        "triage-1",
        "Empty the inbox.",
        {"done": []},
        environment="inbox",
        environment_options=options,
    )
    assert init["prompt_payload"]["latest_observation"].startswith("2 message(s) in the inbox:")
    script = [
        ({}, {"type": "read", "id": "A"}),
        ({"done": ["A"]}, {"type": "archive", "id": "A"}),
        ({}, {"type": "read", "id": "B"}),
        ({}, {"type": "reply", "id": "B", "text": "done"}),
        ({"done": ["A", "B"]}, {"type": "archive", "id": "B"}),
    ]
    for patch, action in script:
        step = runtime.execute_step("triage-1", "", patch, action)
        assert step["meta"]["rolled_back"] is False, step
    assert step["meta"]["status"] == "completed"
    assert step["prompt_payload"]["latest_observation"] == "archived B. Inbox zero."
    assert runtime.get_session("triage-1")["execution_state"]["done"] == ["A", "B"]


def test_an_urgent_message_needs_a_reply_and_the_step_rolls_back(runtime):
    runtime.initialize_skill("triage-2", "Empty the inbox.", {"done": []}, environment="inbox")
    runtime.execute_step("triage-2", "", {}, {"type": "read", "id": "M-1"})
    step = runtime.execute_step("triage-2", "", {"done": ["M-1"]}, {"type": "archive", "id": "M-1"})
    assert (step["meta"]["rolled_back"], step["meta"]["rejection"]) == (True, "environment")
    assert step["prompt_payload"]["latest_observation"] == (
        "M-1 is urgent: reply to it before archiving it"
    )
    session = runtime.get_session("triage-2")
    assert session["execution_state"]["done"] == []  # the patch was rolled back with the action
    assert session["metadata"]["stepCount"] == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mail": []}, "unknown inbox option(s) mail; known: messages"),
        ({"messages": []}, "inbox option 'messages' must be a non-empty list"),
        ({"messages": [{"id": "A"}, {"id": "A"}]}, "messages[1]: duplicate message id 'A'"),
        ({"messages": [{"id": "A", "urgent": "yes"}]}, "urgent must be true or false"),
    ],
)
def test_bad_options_are_refused_with_the_reason(runtime, options, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        runtime.initialize_skill("bad", "x", environment="inbox", environment_options=options)
    assert runtime.list_sessions()["sessions"] == []
