"""Policies: what answers each turn. A policy sees a :class:`TurnView` and returns a :class:`Reply`.

A reply is the raw text a model would write in the runtime's response format
(:func:`format_reply` writes one). Any object with a ``name`` and
``respond(view) -> Reply`` is a policy; one that also has ``summarize(prompt) ->
Reply`` can write the Memory runtime's summary itself. Two failures are told apart:

- :class:`PolicyError` — this turn could not be answered (a scripted policy's own
  problem); the runner counts it and treats the turn as failed;
- :class:`EndpointError` — the model endpoint is broken (after its retries): not a
  model failure, so the whole run stops, loudly, keeping the episodes already done.

:class:`Interrupted` is neither: the run was asked to stop (a policy may raise it from
a wait once its stop event is set).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

__all__ = [
    "EndpointError",
    "Interrupted",
    "Policy",
    "PolicyError",
    "Reply",
    "TurnView",
    "WaitPolicy",
    "format_reply",
]


class PolicyError(Exception):
    """A policy could not answer this turn (counted as ``policy_error``; the run goes on)."""


class EndpointError(Exception):
    """The model endpoint failed after its retries: the run stops (finished episodes are kept)."""


class Interrupted(Exception):
    """The run was asked to stop (Ctrl-C, or another episode's endpoint failure)."""


@attrs.frozen
class TurnView:
    """What one turn offers a policy.

    ``runtime`` — skill-state, react, memory, stateful or window; ``prompt`` — the
    rendered prompt (what a model reads); ``observation`` — O_t; ``state`` — Σ_t, or
    ``None`` for runtimes without one; ``history`` — the visible past turns
    ``(observation, response)``; ``summary`` — the memory runtime's summary;
    ``call`` — how many calls came before this one.
    """

    runtime: str
    prompt: str
    observation: str
    state: Mapping[str, Any] | None
    history: tuple[tuple[str, str], ...] = ()
    summary: str | None = None
    call: int = 0


@attrs.frozen
class Reply:
    """A policy's answer: the response ``text``; token counts when an endpoint reported them."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@runtime_checkable
class Policy(Protocol):
    """Anything with a ``name`` and ``respond(view)``."""

    name: str

    def respond(self, view: TurnView) -> Reply: ...


def format_reply(runtime: str, reasoning: str, patch: Mapping[str, Any], action: str) -> str:
    """A response in the runtime's format: A.4's fenced JSON, or ``Action:``/``StateUpdate:`` lines."""
    if runtime == "skill-state":
        block = json.dumps({"state_patch": patch, "action": action}, separators=(",", ":"))
        return f"Reasoning: {reasoning}\n\n```json\n{block}\n```"
    lines = [f"Reasoning: {reasoning}"]
    if runtime == "stateful" and patch:
        lines.append("StateUpdate: " + json.dumps(patch, separators=(",", ":")))
    lines.append(f"Action: {action}")
    return "\n".join(lines)


class WaitPolicy:
    """Always the benchmark's no-op with an empty patch: the floor of the score."""

    def __init__(self, action: str = "Wait") -> None:
        self.name = "wait"
        self.action = action

    def respond(self, view: TurnView) -> Reply:
        return Reply(format_reply(view.runtime, "Waiting", {}, self.action))
