"""The paper's baseline prompts, App. A.1–A.3, exactly; and how they grow beside A.4."""

from __future__ import annotations

from skillstate.plugin.runtime import render_skill_state_prompt

from ..prompts import render_memory_prompt, render_react_prompt, render_stateful_prompt

HISTORY = [("o0", "r0"), ("o1", "r1"), ("o2", "r2"), ("o3", "r3")]


def test_react_prompt_a1() -> None:
    text = render_react_prompt("P", HISTORY[:2], "now")
    assert text == (
        "Instructions:\nP\n\nHistory:\n"
        "Observation: o0\nReasoning & Action: r0\nObservation: o1\nReasoning & Action: r1\n\n"
        "Latest Observation: now\nGenerate your next reasoning and action (format 'Action: <cmd>'):"
    )


def test_memory_prompt_a2_keeps_three_recent_turns() -> None:
    text = render_memory_prompt("P", "summary so far", HISTORY, "now")
    assert text == (
        "Instructions:\nP\n\nSummarized History:\nsummary so far\n\nRecent History:\n"
        "Observation: o1\nResponse: r1\nObservation: o2\nResponse: r2\nObservation: o3\nResponse: r3\n\n"
        "Latest Observation: now\nGenerate your next reasoning and action (format 'Action: <cmd>'):"
    )


def test_stateful_prompt_a3() -> None:
    text = render_stateful_prompt("P", {"k": [1]}, HISTORY[:1], "now")
    assert text == (
        'Instructions:\nP\n\nCurrent State:\n{\n  "k": [\n    1\n  ]\n}\n\nHistory:\n'
        "Observation: o0\nResponse: r0\n\nLatest Observation: now\n"
        "Update the state if necessary, provide reasoning, and output 'Action: <cmd>'.\n"
        'To update state, use the format: StateUpdate: {"key": "value"}'
    )


def test_history_prompts_grow_while_a4_stays_flat() -> None:
    history = [
        (f"Customer ordered item_{i}.", f"Action: Ship item_{i} shelf_{i}") for i in range(50)
    ]
    react = [len(render_react_prompt("P", history[:t], "o")) for t in range(50)]
    a4 = [len(render_skill_state_prompt("P", {"t": t % 10}, f"o{t % 10}")) for t in range(50)]
    assert react[-1] > 10 * react[1]
    assert max(a4) == min(a4)


def test_p_given_as_an_object_is_pretty_json_and_state_is_written_as_javascript_writes_it() -> None:
    text = render_stateful_prompt({"rules": ["a"]}, {"n": 1.0, "name": "café"}, [], "now")
    assert text.startswith('Instructions:\n{\n  "rules": [\n    "a"\n  ]\n}\n\nCurrent State:\n')
    assert '"n": 1,\n  "name": "café"' in text
