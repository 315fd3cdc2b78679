"""Prompt renderers: A.4 exactly (closed fence and the paper's literal form), the tool prompt.

(The A.1–A.3 baselines are the bench plugin's: its tests check them.)"""

from __future__ import annotations

from skillstate.runtime.prompts import render_skill_state_prompt, render_tool_prompt

ITEM2 = (
    "2. A JSON block fenced with json ... containing both your State Patch and your Action. "
    'The JSON block MUST have exactly these two keys: { "state_patch": { <dict: your state updates, '
    'set keys to null to delete> }, "action": "<string: the exact command you want to execute>" }'
)
STATE = {"inventory": {"shelf_42": "item_12"}, "n": 1.0, "name": "café"}


def test_a4_default_closes_the_fence_and_writes_compact_js_json() -> None:
    text = render_skill_state_prompt("Run the warehouse.", STATE, "Customer ordered item_12.")
    assert text == "\n".join(
        [
            "Instructions:",
            "Run the warehouse.",
            "",
            "Skill Execution State:",
            "```json",
            '{"inventory":{"shelf_42":"item_12"},"n":1,"name":"café"}',
            "```",
            "Latest Observation: Customer ordered item_12.",
            "",
            "Provide your response with:",
            "",
            "1. Step-by-step reasoning (will be discarded after execution)",
            ITEM2,
        ]
    )


def test_a4_literal_form_is_the_printed_listing() -> None:
    text = render_skill_state_prompt("P", STATE, "O", literal=True)
    lines = text.split("\n")
    assert lines[4:7] == [
        "```json",
        '{"inventory":{"shelf_42":"item_12"},"n":1.0,"name":"caf\\u00e9"}',
        "Latest Observation: O",
    ]
    assert text.count("```") == 1


def test_a4_pretty_and_object_spec() -> None:
    text = render_skill_state_prompt({"rules": ["a"]}, {"k": 1}, "O", compact=False)
    assert text.startswith(
        'Instructions:\n{\n  "rules": [\n    "a"\n  ]\n}\n\nSkill Execution State:'
    )
    assert '```json\n{\n  "k": 1\n}\n```' in text


def test_tool_prompt_is_the_reference_template() -> None:
    text = render_tool_prompt("s1", "Spec", {"a": 1}, 3, "active", "obs")
    assert text == "\n".join(
        [
            'You are executing skill session "s1" under the SKILL.state protocol (arXiv:2608.26263).',
            "There is no conversation history. Your ENTIRE working context is the tuple below.",
            "",
            "## P — Skill Specification (immutable)",
            "Spec",
            "",
            "## Σ_3 — Current Execution State (step 3, status: active)",
            '{\n  "a": 1\n}',
            "",
            "## O — Latest Environment Observation",
            "obs",
            "",
            "## Required response format",
            "1. R_t — reason as much as you need inside reasoning_trace (it will be DISCARDED by the runtime).",
            '2. ΔΣ_t — a sparse JSON patch in state_update. Use null to DELETE a key, e.g. {"draft": null}.',
            "3. a_t — the next action in the action field (string or JSON object).",
            'Call the execute_step tool with exactly these three fields plus session_id="s1"',
            "and environment_observation set to the observation above.",
        ]
    )
    assert "(no observation yet)" in render_tool_prompt("s1", "P", {}, 0, "active", None)
