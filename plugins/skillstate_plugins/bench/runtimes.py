"""The five runtimes an episode can run under: how each one renders its prompt.

- ``skill-state`` — App. A.4: (P, Σ_t, O_t) only.
- ``react`` — App. A.1: P plus every past (observation, response).
- ``memory`` — App. A.2: P, a summary of older turns, the 3 most recent turns.
- ``stateful`` — App. A.3: P, Σ (pretty JSON), every past turn.
- ``window`` — Table 5's "Truncated (Sliding Window)": the A.1 prompt keeping only
  the most recent turns that fit a character budget.

The Memory summary is either **extractive** (the lines of older observations that the
benchmark's ``summary_lines`` keeps — its confirmations and alerts; deterministic, so
a scripted policy can run it) or **model**-written: every turn that scrolls out of
the recent window is folded into the summary by the policy's own model
(:data:`SUMMARY_PROMPT`), as the paper's "periodically updated natural language
summary" is (the runner counts those calls separately).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skillstate.plugin.runtime import render_skill_state_prompt

from .prompts import render_memory_prompt, render_react_prompt, render_stateful_prompt

__all__ = [
    "RECENT",
    "SUMMARY_PROMPT",
    "extractive_summary",
    "render_prompt",
    "summary_prompt",
]

RECENT = 3
"""The Memory runtime's recent window (A.2: "the 3 most recent turns")."""

History = Sequence[tuple[str, str]]

SUMMARY_PROMPT = """\
You keep the running summary of an agent's past turns. Fold the turn below into the
summary: keep every fact the agent may need later (ids, locations, numbers, what is
still open), drop what is done or irrelevant (telemetry), and answer with the new
summary only, as short plain-text lines.

Current summary:
{summary}

Turn to fold in:
Observation: {observation}
Response: {response}"""
"""The prompt with which a model updates the Memory summary (the paper gives none; ours)."""


def summary_prompt(summary: str, observation: str, response: str) -> str:
    """The prompt that folds one turn into the summary."""
    return SUMMARY_PROMPT.format(summary=summary, observation=observation, response=response)


def extractive_summary(
    history: History, keep: Callable[[str], list[str]], recent: int = RECENT
) -> str:
    """The kept lines of every turn older than the ``recent`` last ones, one per line."""
    older = list(history)[:-recent] if recent else list(history)
    lines = [line for observation, _ in older for line in keep(observation)]
    return "\n".join(lines) if lines else "(nothing yet)"


def _window(spec: str, history: History, observation: str, budget: int) -> tuple[int, str]:
    """The most recent turns whose A.1 prompt fits ``budget`` characters: (start, prompt)."""
    turns = list(history)
    lo, hi = 0, len(turns)
    while lo < hi:  # the smallest start index that fits (the prompt shrinks as start grows)
        mid = (lo + hi) // 2
        if len(render_react_prompt(spec, turns[mid:], observation)) <= budget:
            hi = mid
        else:
            lo = mid + 1
    return lo, render_react_prompt(spec, turns[lo:], observation)


def render_prompt(
    runtime: str,
    spec: str,
    state: Mapping[str, Any] | None,
    history: History,
    observation: str,
    *,
    summary: str = "(nothing yet)",
    window_chars: int = 2600,
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(the prompt, the past turns it shows) for one turn of ``runtime``."""
    if runtime == "skill-state":
        return render_skill_state_prompt(spec, state or {}, observation), ()
    if runtime == "react":
        return render_react_prompt(spec, history, observation), tuple(history)
    if runtime == "memory":
        prompt = render_memory_prompt(spec, summary, history, observation, recent=RECENT)
        return prompt, tuple(history[-RECENT:])
    if runtime == "stateful":
        return render_stateful_prompt(spec, state or {}, history, observation), tuple(history)
    if runtime == "window":
        start, prompt = _window(spec, history, observation, window_chars)
        return prompt, tuple(history[start:])
    raise ValueError(f"unknown runtime {runtime!r}")
