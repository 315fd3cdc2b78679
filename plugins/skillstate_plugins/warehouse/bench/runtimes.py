"""The five runtimes an episode can run under: how each renders its prompt and reads replies.

- ``skill-state`` — App. A.4: (P, Σ_t, O_t) only; the reply is A.4's fenced JSON.
- ``react`` — App. A.1: P plus every past (observation, response); ``Action: <cmd>``.
- ``memory`` — App. A.2: P, a summary of older turns, the 3 most recent turns.
- ``stateful`` — App. A.3: P, Σ (pretty JSON), every past turn; ``StateUpdate: {...}``
  lines are merged into Σ through the runtime, then ``Action: <cmd>``.
- ``window`` — Table 5's "Truncated (Sliding Window)": the A.1 prompt keeping only the
  most recent turns that fit a character budget (default: about the SKILL.state prompt).

The memory runtime's summariser is not given by the paper. Ours is extractive and
deterministic: the confirmation and alert lines of every turn older than the recent
window, one per line — so it grows with T, as the paper's Memory prompt does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillstate.plugin.runtime import (
    render_memory_prompt,
    render_react_prompt,
    render_skill_state_prompt,
    render_stateful_prompt,
)

from . import belief

__all__ = [
    "DEFAULT_WINDOW_CHARS",
    "RUNTIMES",
    "ParseFailure",
    "ParsedReply",
    "memory_summary",
    "parse_reply",
    "render_prompt",
    "uses_state",
]

RUNTIMES = ("skill-state", "react", "memory", "stateful", "window")
DEFAULT_WINDOW_CHARS = 2600
"""The window runtime's default budget: about the oracle's SKILL.state prompt (see docs)."""
RECENT = 3

History = Sequence[tuple[str, str]]


def uses_state(runtime: str) -> bool:
    """Whether the runtime keeps Σ (SKILL.state and Stateful)."""
    return runtime in ("skill-state", "stateful")


def memory_summary(history: History, recent: int = RECENT) -> str:
    """The deterministic summary of every turn older than the ``recent`` last ones."""
    older = list(history)[:-recent] if recent else list(history)
    lines = []
    for observation, _ in older:
        lines += [
            line
            for line in belief.relevant_lines(observation)
            if line.startswith(("Success:", "ALERT", "Floor staff"))
        ]
    return "\n".join(lines) if lines else "(nothing yet)"


def _window(spec: str, history: History, observation: str, budget: int) -> tuple[int, str]:
    """The most recent turns whose A.1 prompt fits ``budget`` characters: (start, prompt)."""
    turns = list(history)
    lo, hi = 0, len(turns)
    # binary search the smallest start index that fits (prompt length falls as start grows)
    while lo < hi:
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
    window_chars: int = DEFAULT_WINDOW_CHARS,
) -> tuple[str, tuple[tuple[str, str], ...], str | None]:
    """(prompt, the history the prompt shows, the summary) for one turn."""
    if runtime == "skill-state":
        return render_skill_state_prompt(spec, state or {}, observation), (), None
    if runtime == "react":
        return render_react_prompt(spec, history, observation), tuple(history), None
    if runtime == "memory":
        summary = memory_summary(history)
        prompt = render_memory_prompt(spec, summary, history, observation, recent=RECENT)
        return prompt, tuple(history[-RECENT:]), summary
    if runtime == "stateful":
        prompt = render_stateful_prompt(spec, state or {}, history, observation)
        return prompt, tuple(history), None
    if runtime == "window":
        start, prompt = _window(spec, history, observation, window_chars)
        return prompt, tuple(history[start:]), None
    raise ValueError(f"unknown runtime {runtime!r}; choose one of {', '.join(RUNTIMES)}")


@attrs.frozen
class ParsedReply:
    reasoning: str
    patch: dict[str, Any]
    action: str


@attrs.frozen
class ParseFailure:
    """A reply the runtime cannot use: ``category`` (§8's failure names) and a message."""

    category: str
    message: str


_ACTION = re.compile(r"^\s*\**Action\**:\s*(.*?)\s*$", re.MULTILINE)
_UPDATE = re.compile(r"^\s*\**StateUpdate\**:\s*(.*?)\s*$", re.MULTILINE)


def _compose(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """One patch doing ``first`` then ``second`` (nulls kept: they still delete)."""
    out = dict(first)
    for key, value in second.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _compose(out[key], value)
        else:
            out[key] = value
    return out


def _parse_baseline(text: str, with_updates: bool) -> ParsedReply | ParseFailure:
    actions = [a.strip("`") for a in _ACTION.findall(text)]
    if not actions or not actions[-1]:
        return ParseFailure(
            "action_grammar_error", "the response has no line 'Action: <cmd>' with a command"
        )
    patch: dict[str, Any] = {}
    if with_updates:
        for raw in _UPDATE.findall(text):
            try:
                update = json.loads(raw)
            except ValueError as exc:
                return ParseFailure("json_parse_error", f"StateUpdate is not valid JSON: {exc}")
            if not isinstance(update, dict):
                return ParseFailure(
                    "state_patch_not_object", "StateUpdate must be a JSON object of key updates"
                )
            patch = _compose(patch, update)
    reasoning = _UPDATE.sub("", _ACTION.sub("", text)).strip()
    return ParsedReply(reasoning, patch, actions[-1])


def parse_reply(runtime: str, text: str) -> ParsedReply | ParseFailure:
    """Read a reply in ``runtime``'s format (A.4 via the runtime's turn parser)."""
    if runtime == "skill-state":
        from skillstate.plugin.runtime import TurnParseError, parse_turn_response

        try:
            turn = parse_turn_response(text)
        except TurnParseError as exc:
            return ParseFailure(exc.category, str(exc))
        return ParsedReply(turn.reasoning_trace, turn.state_update, turn.action)
    return _parse_baseline(text, with_updates=runtime == "stateful")
