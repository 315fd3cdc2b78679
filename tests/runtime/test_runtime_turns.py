"""parse_turn_response: the A.4 format, the last block, categorised errors with positions, repairs."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate.runtime.turns import ParsedTurn, TurnParseError, parse_turn_response

FENCE = "```"


def _block(body: str, tag: str = "json") -> str:
    return f"{FENCE}{tag}\n{body}\n{FENCE}"


def test_a4_response_is_split() -> None:
    text = "Think.\n" + _block('{"state_patch": {"a": 1}, "action": "go"}') + "\nAfter."
    parsed = parse_turn_response(text)
    assert parsed == ParsedTurn("Think.\n\nAfter.", {"a": 1}, "go", ())
    assert parsed.to_dict() == {
        "reasoning_trace": "Think.\n\nAfter.",
        "state_update": {"a": 1},
        "action": "go",
        "repairs": [],
    }


def test_b3_example_turn() -> None:
    text = "Reasoning:\nThe customer ordered item_12. I need to ship it.\n" + _block(
        '{\n    "state_patch": {\n      "inventory": {\n        "shelf_42": null\n      }\n    },\n'
        '    "action": "Ship item_12 shelf_42"\n}'
    )
    parsed = parse_turn_response(text)
    assert parsed.state_update == {"inventory": {"shelf_42": None}}
    assert parsed.action == "Ship item_12 shelf_42"
    assert parsed.reasoning_trace.startswith("Reasoning:\nThe customer ordered item_12.")


def test_last_json_block_wins_and_other_blocks_stay_in_reasoning() -> None:
    first = _block('{"state_patch": {"a": 1}, "action": "old"}')
    code = _block("ls -la", "bash")
    last = _block('{"state_patch": {"b": 2}, "action": "new"}')
    parsed = parse_turn_response(f"A\n{first}\nB\n{code}\nC\n{last}")
    assert (parsed.state_update, parsed.action) == ({"b": 2}, "new")
    assert first in parsed.reasoning_trace and code in parsed.reasoning_trace


def test_untagged_block_counts_only_without_a_json_block() -> None:
    untagged = _block('{"state_patch": {}, "action": "bare"}', "")
    assert parse_turn_response(f"R\n{untagged}").action == "bare"
    tagged = _block('{"state_patch": {}, "action": "tagged"}', "JSON")
    assert parse_turn_response(f"R\n{tagged}\n{untagged}").action == "tagged"


def test_inline_fence() -> None:
    parsed = parse_turn_response('pre ```json {"state_patch": {}, "action": "y"} ``` post')
    assert (parsed.action, parsed.reasoning_trace) == ("y", "pre  post")


def _error(text: str) -> TurnParseError:
    with pytest.raises(TurnParseError) as info:
        parse_turn_response(text)
    return info.value


@pytest.mark.parametrize(
    "text",
    ["", "   ", "just words", '{"state_patch": {}, "action": "go"}', _block("print(1)", "python")],
)
def test_no_json_block(text: str) -> None:
    assert _error(text).category == "no_json_block"


def test_json_parse_error_has_a_position() -> None:
    text = 'Line one\n```json\n{"state_patch": {"a": 1} "action": "go"}\n```'
    error = _error(text)
    assert error.category == "json_parse_error"
    assert (error.line, error.column) == (3, 26)
    assert text[error.offset] == '"'
    assert str(error).startswith(
        "json_parse_error at line 3, column 26: the JSON block is not valid JSON: Expecting ','"
    )


@pytest.mark.parametrize(
    ("body", "category", "where"),
    [
        ('{"state_patch": {}, "action": "Wait", "x": 1}', "wrong_key_set", '"x": 1'),
        ('{"state_patch": {}}', "wrong_key_set", FENCE),
        ('{"shelf_02": "item"}', "wrong_key_set", '"shelf_02"'),
        ("[1, 2]", "wrong_key_set", FENCE),
        ('{"state_patch": [1], "action": "go"}', "state_patch_not_object", "[1]"),
        ('{"state_patch": null, "action": "go"}', "state_patch_not_object", "null"),
        ('{"state_patch": {}, "action": {"type": "noop"}}', "action_not_string", '{"type"'),
        ('{"state_patch": {}, "action": ""}', "action_not_string", '""'),
        ('{"state_patch": {}, "action": null}', "action_not_string", "null"),
        ('{"state_patch": {}, "action": "a", "action": "b"}', "json_parse_error", FENCE),
    ],
)
def test_categorised_errors_point_at_the_culprit(body: str, category: str, where: str) -> None:
    text = f"Reasoning here.\n{_block(body)}"
    error = _error(text)
    assert error.category == category, str(error)
    assert text[error.offset :].startswith(where), (error.offset, text[error.offset :])
    assert error.to_dict()["category"] == category


def test_wrong_key_set_message_names_the_keys() -> None:
    error = _error(_block('{"shelf_02": "item_1"}'))
    assert 'got ["shelf_02"] (missing "state_patch", "action"; unexpected "shelf_02")' in str(error)


def test_trailing_commas_are_repaired_and_recorded() -> None:
    parsed = parse_turn_response(
        _block('{"state_patch": {"a": [1, 2,], "s": "x,}"}, "action": "go",}')
    )
    assert parsed.state_update == {"a": [1, 2], "s": "x,}"}
    assert parsed.repairs == ("removed 2 trailing commas",)


def test_smart_quotes_are_repaired_and_recorded() -> None:
    parsed = parse_turn_response(
        _block("{\u201cstate_patch\u201d: {}, \u201caction\u201d: \u201cWait\u201d}")
    )
    assert (parsed.action, parsed.repairs) == (
        "Wait",
        ('replaced 6 curly double quotes (“ ”) with "',),
    )


def test_smart_quotes_inside_valid_json_are_data() -> None:
    parsed = parse_turn_response(
        _block('{"state_patch": {"q": "he said \u201chi\u201d"}, "action": "go"}')
    )
    assert parsed.state_update == {"q": "he said \u201chi\u201d"} and parsed.repairs == ()


def test_missing_closing_fence_is_repaired_and_recorded() -> None:
    parsed = parse_turn_response('Reason\n```json\n{"state_patch": {}, "action": "x"}')
    assert (parsed.action, parsed.reasoning_trace) == ("x", "Reason")
    assert parsed.repairs == ("added the missing closing ``` fence",)


def test_position_after_repair_maps_to_the_original_text() -> None:
    text = _block('{"state_patch": {"a": 1,}, "action": 5}')
    error = _error(text)
    assert error.category == "action_not_string" and text[error.offset] == "5"
    assert error.repairs == ("removed 1 trailing comma",)


@pytest.mark.parametrize(
    "body",
    [
        "{'state_patch': {}, 'action': 'go'}",  # single quotes: never guessed
        '{"state_patch": {"a": True}, "action": "go"}',  # Python literals
        '{"state_patch": {}, "action": "go"',  # missing brace
        '{"state_patch": {"a": NaN}, "action": "go"}',
    ],
)
def test_no_guessing_beyond_the_documented_repairs(body: str) -> None:
    assert _error(_block(body)).category == "json_parse_error"


def test_failed_repair_reports_the_original_error() -> None:
    error = _error(_block('{"state_patch": {"a": 1,}, "action": \'go\'}'))
    assert error.category == "json_parse_error"
    assert "repairs tried without success: removed 1 trailing comma" in str(error)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = '{"k":' * 5000 + "1" + "}" * 5000
    error = _error(_block('{"state_patch": ' + deep + ', "action": "go"}'))
    assert error.category == "json_parse_error" and "nested too deeply" in str(error)


def test_non_string_input_is_refused() -> None:
    from skillstate.errors import InvalidInput

    bad: Any = None
    with pytest.raises(InvalidInput, match="response_text must be a string"):
        parse_turn_response(bad)


def test_a_megabyte_turn_with_trailing_commas_parses_whole_and_maps_positions() -> None:
    """The repair pass is linear (it was quadratic: 18 s for 1 MB froze the HTTP server).

    Speed is measured by ``python -m benchmarks --only runtime``; this checks the result
    of the large case: every item kept, every trailing comma removed (and counted), and
    an error after the repair still points into the original text.
    """
    items = 60_000
    body = ",".join(f'[{i},"v,{i}",]' for i in range(items))  # commas inside strings stay
    text = f'Reasoning.\n```json\n{{"state_patch": {{"xs": [{body},]}}, "action": "go",}}\n```\n'
    assert len(text) > 1_000_000
    parsed = parse_turn_response(text)
    assert parsed.action == "go" and parsed.reasoning_trace == "Reasoning."
    assert len(parsed.state_update["xs"]) == items
    assert parsed.state_update["xs"][-1] == [items - 1, f"v,{items - 1}"]
    assert parsed.repairs == (f"removed {items + 2} trailing commas",)
    bad = text.replace('"action": "go",', '"action": 5,')
    with pytest.raises(TurnParseError) as caught:
        parse_turn_response(bad)
    assert caught.value.category == "action_not_string"
    assert bad[caught.value.offset] == "5"
