"""Reading replies in each runtime's format (A.4 through the session runtime's parser, the
A.1–A.3 ``Action:`` / ``StateUpdate:`` lines), the premature-overwrite check, and the
extractive Memory summary: the harness's own, no environment needed."""

from __future__ import annotations

from ..replies import dropped_keys, parse_reply
from ..runtimes import extractive_summary


def summary_lines(observation: str) -> list[str]:
    """What a benchmark's extractive summary keeps (the warehouse's confirmations, say)."""
    return [line for line in observation.splitlines() if line.startswith("Success:")]


def test_a4_replies_go_through_the_runtimes_parser_and_keep_its_categories() -> None:
    text = 'Thinking.\n```json\n{"state_patch": {"a": 1}, "action": "Wait"}\n```'
    parsed = parse_reply("skill-state", text)
    assert parsed.patch == {"a": 1} and parsed.action == "Wait" and parsed.repairs == ()
    assert parse_reply("skill-state", "no json here").category == "no_json_block"
    wrong = parse_reply(
        "skill-state", '```json\n{"state_patch": {}, "action": "Wait", "x": 1}\n```'
    )
    assert wrong.category == "wrong_key_set"
    unclosed = '```json\n{"state_patch": {}, "action": "Wait"}'
    assert parse_reply("skill-state", unclosed).repairs == ("added the missing closing ``` fence",)
    assert parse_reply("skill-state", unclosed, strict=True).category == "json_parse_error"


def test_baseline_replies_parse_action_and_state_update_lines() -> None:
    parsed = parse_reply(
        "stateful",
        'Reasoning: x\nStateUpdate: {"inventory": {"shelf_1": "item_0"}}\n'
        'StateUpdate: {"inventory": {"shelf_1": null}}\nAction: Wait',
    )
    assert parsed.patch == {"inventory": {"shelf_1": None}} and parsed.action == "Wait"
    assert parse_reply("react", "I think so").category == "action_grammar_error"
    assert parse_reply("stateful", "StateUpdate: {x}\nAction: Wait").category == "json_parse_error"
    assert parse_reply("stateful", "StateUpdate: [1]\nAction: Wait").category == (
        "state_patch_not_object"
    )


def test_memory_runtime_keeps_three_recent_turns_and_summarises_the_rest() -> None:
    history = [(f"Success: Stored item_{i} on shelf_{i}.\nnext", f"r{i}") for i in range(6)]
    assert extractive_summary(history, summary_lines) == "\n".join(
        f"Success: Stored item_{i} on shelf_{i}." for i in range(3)
    )
    assert extractive_summary(history[:3], summary_lines) == "(nothing yet)"


def test_premature_overwrite_detection() -> None:
    before = {"inventory": {"shelf_1": "a", "shelf_2": "b"}, "note": "x"}
    # a null on the key itself is a deliberate deletion
    assert (
        dropped_keys(
            before, {"inventory": {"shelf_1": "a"}, "note": "x"}, {"inventory": {"shelf_2": None}}
        )
        == []
    )
    # replacing the container, or nulling it whole, drops what it held
    assert dropped_keys(before, {"inventory": [], "note": "x"}, {"inventory": []}) == [
        "inventory.shelf_1",
        "inventory.shelf_2",
    ]
    assert dropped_keys(before, {"note": "x"}, {"inventory": None}) == [
        "inventory.shelf_1",
        "inventory.shelf_2",
    ]


def test_markdown_around_the_action_line_is_a_counted_repair() -> None:
    for text in (
        "**Action:** `Store item_0 shelf_0`",
        '- Action: "Store item_0 shelf_0"',
        "**Action**: Store item_0 shelf_0",
    ):
        parsed = parse_reply("react", f"I store it.\n{text}")
        assert parsed.action == "Store item_0 shelf_0", text
        assert parsed.repairs == ("read the Action line without its markdown",)
    assert parse_reply("react", "Action: Store item_0 shelf_0").repairs == ()
    strict = parse_reply("react", "**Action:** `Wait`", strict=True)
    assert strict.category == "action_grammar_error" and "strict parsing" in strict.message


def test_only_matched_markdown_around_the_whole_action_is_read_off() -> None:
    # underscores that belong to the command are the command's: no repair, strict accepts it
    for strict in (False, True):
        parsed = parse_reply("react", "Action: Commit feature/x _private_", strict=strict)
        assert parsed.action == "Commit feature/x _private_" and parsed.repairs == ()
    assert parse_reply("react", "Action: `Wait").action == "`Wait"  # unmatched: as written
    for text, action in (
        ("### Action: Wait", "Wait"),  # a heading
        ("action: Wait", "Wait"),  # another case
        ("> **action**: `Wait`", "Wait"),
        ("**Action:** **Store item_0 shelf_0**", "Store item_0 shelf_0"),
        ("__Action__: _Store item_0 shelf_0_", "Store item_0 shelf_0"),
    ):
        parsed = parse_reply("react", f"I think.\n{text}")
        assert parsed.action == action, text
        assert parsed.repairs == ("read the Action line without its markdown",), text
        assert parse_reply("react", text, strict=True).category == "action_grammar_error"
    update = parse_reply("stateful", '### StateUpdate: `{"shelf_1": "item_0"}`\nAction: Wait')
    assert update.patch == {"shelf_1": "item_0"}
    assert update.repairs == ("read a StateUpdate line without its markdown",)
