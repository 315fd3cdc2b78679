"""The paper's baseline prompts, Appendix A.1–A.3: what the benchmark's other runtimes render.

SKILL.state's own prompt (A.4) is the session runtime's
(:func:`skillstate.plugin.runtime.render_skill_state_prompt`); the baselines exist only
to be compared with it, so they live here. As there, lines are joined with ``"\\n"``
with no trailing newline, and ``spec`` (P) is rendered verbatim when it is a string,
as pretty JSON when it is an object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillstate.plugin import pretty

__all__ = ["render_memory_prompt", "render_react_prompt", "render_stateful_prompt"]

FOOTER = "Generate your next reasoning and action (format 'Action: <cmd>'):"

History = Sequence[tuple[str, str]]
"""Past turns, oldest first: ``(observation, response)`` pairs."""


def _spec(spec: Any) -> str:
    return spec if isinstance(spec, str) else pretty(spec)


def _turns(history: History, response_label: str) -> list[str]:
    lines: list[str] = []
    for observation, response in history:
        lines.append(f"Observation: {observation}")
        lines.append(f"{response_label}: {response}")
    return lines


def render_react_prompt(spec: Any, history: History, observation: str) -> str:
    """Appendix A.1, the Prompt (ReAct-style) baseline: every past turn, verbatim."""
    lines = ["Instructions:", _spec(spec), "", "History:"]
    lines += _turns(history, "Reasoning & Action")
    lines += ["", f"Latest Observation: {observation}", FOOTER]
    return "\n".join(lines)


def render_memory_prompt(
    spec: Any, summary: str, history: History, observation: str, recent: int = 3
) -> str:
    """Appendix A.2, the Memory-augmented baseline: a summary plus the ``recent`` last turns."""
    lines = ["Instructions:", _spec(spec), "", "Summarized History:", summary, ""]
    lines.append("Recent History:")
    lines += _turns(list(history)[-recent:] if recent > 0 else [], "Response")
    lines += ["", f"Latest Observation: {observation}", FOOTER]
    return "\n".join(lines)


def render_stateful_prompt(
    spec: Any, state: Mapping[str, Any], history: History, observation: str
) -> str:
    """Appendix A.3, the Stateful (LangGraph-style) baseline: Σ (pretty JSON) plus the full history."""
    lines = [
        "Instructions:",
        _spec(spec),
        "",
        "Current State:",
        pretty(dict(state)),
        "",
        "History:",
    ]
    lines += _turns(history, "Response")
    lines += [
        "",
        f"Latest Observation: {observation}",
        "Update the state if necessary, provide reasoning, and output 'Action: <cmd>'.",
        'To update state, use the format: StateUpdate: {"key": "value"}',
    ]
    return "\n".join(lines)
