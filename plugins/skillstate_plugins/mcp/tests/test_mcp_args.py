"""Unit tests of the MCP layer's pure parts: strict argument checks and the result text."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate.plugin import mask_url

from ..args import ArgumentError, Param, check_arguments, input_schema
from ..http import security_settings

PARAMS = [
    Param("session_id", "string", "id"),
    Param("state_update", "object", "patch"),
    Param("action", "action", "a"),
    Param("note", "text", "n", required=False),
    Param("flag", "boolean", "f", required=False),
    Param("env", "name", "e", required=False, choices=("mock", "warehouse")),
    Param("step", "integer", "s", required=False),
    Param("limit", "integer", "l", required=False, minimum=1),
]
GOOD = {"session_id": "s", "state_update": {"a": 1}, "action": "go"}


def test_schema_is_closed_and_lists_required() -> None:
    schema = input_schema(PARAMS)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["session_id", "state_update", "action"]
    assert schema["properties"]["env"]["enum"] == ["mock", "warehouse"]
    assert schema["properties"]["action"]["anyOf"][1] == {"type": "object"}
    assert schema["properties"]["step"]["minimum"] == 0
    assert schema["properties"]["limit"]["minimum"] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": 1}, 'unknown argument "extra" (accepted: session_id, state_update, action'),
        ({"session_id": ""}, "session_id must be a non-empty string, got an empty string"),
        ({"state_update": [1]}, "state_update must be a JSON object, got an array"),
        ({"state_update": None}, "state_update must be a JSON object, got null"),
        ({"state_update": "{x"}, "not JSON text of an object"),
        ({"state_update": "3"}, "holding JSON text of a number"),
        ({"action": ""}, "action must be a non-empty string (the exact command) or a JSON object"),
        ({"action": [1]}, "got an array"),
        ({"flag": "true"}, "flag must be true or false, got a string"),
        ({"env": "Mars"}, "env must be one of mock, warehouse; got 'Mars'"),
        ({"note": 5}, "note must be a string, got a number"),
        # an integer argument says what it got, and its own minimum
        ({"step": -1}, "step must be a whole number >= 0, got -1"),
        ({"step": 1.5}, "step must be a whole number >= 0, got 1.5"),
        (
            {"step": 100.0},  # how 1e2 arrives
            "step must be a whole number >= 0, got 100.0 (a number with a fraction or an "
            "exponent; send 100)",
        ),
        ({"step": "3"}, "step must be a whole number >= 0, got a string"),
        ({"step": True}, "step must be a whole number >= 0, got a boolean"),
        ({"step": -(10**100)}, "step must be a whole number >= 0, got -1000000000000000000"),
        ({"limit": 0}, "limit must be a whole number >= 1, got 0"),
        ({"limit": False}, "limit must be a whole number >= 1, got a boolean"),
    ],
)
def test_bad_arguments_name_the_problem(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        check_arguments("tool_x", PARAMS, {**GOOD, **change})
    assert str(caught.value).startswith("Invalid arguments for tool tool_x: ")
    assert message in str(caught.value)


def test_missing_and_many_unknown() -> None:
    with pytest.raises(ArgumentError, match='missing required argument "action"'):
        check_arguments("t", PARAMS, {"session_id": "s", "state_update": {}})
    many = {**GOOD, **{f"k{i}": i for i in range(8)}}
    with pytest.raises(ArgumentError, match=r"unknown arguments .* and 3 more"):
        check_arguments("t", PARAMS, many)


def test_accepted_forms() -> None:
    checked = check_arguments("t", PARAMS, {**GOOD, "state_update": '{"a": {"b": null}}'})
    assert checked["state_update"] == {"a": {"b": None}}
    assert check_arguments("t", PARAMS, {**GOOD, "note": None, "flag": None}) == GOOD
    assert check_arguments("t", PARAMS, {**GOOD, "action": {"type": "noop"}})["action"] == {
        "type": "noop"
    }


def test_security_settings_and_masking() -> None:
    settings_ = security_settings("0.0.0.0", ["mcp.example.com", "::2"])
    assert "mcp.example.com:*" in settings_.allowed_hosts
    assert "[::2]:*" in settings_.allowed_hosts
    assert "https://mcp.example.com" in settings_.allowed_origins
    assert "0.0.0.0" not in settings_.allowed_hosts
    assert "10.0.0.5:*" in security_settings("10.0.0.5").allowed_hosts
    assert mask_url("postgresql://u:pw@db:5432/x") == "postgresql://u:***@db:5432/x"
    assert mask_url("file:/srv/state") == "file:/srv/state"


def test_without_the_mcp_extra_the_command_says_what_to_install(tmp_path: Any) -> None:
    """The libraries are hidden from a real subprocess by an import hook, as if not installed."""
    from .support import run_without

    done = run_without(["mcp", "starlette"], "mcp", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (3, "")  # ExitCode.ERROR: an optional extra is missing
    assert done.stderr == (
        "skillstate: the MCP server needs the 'mcp' extra, which is not installed: "
        "pip install -e '.[mcp]' from a checkout (pip install 'skillstate[mcp]' after the first "
        "release)\n"
    )
