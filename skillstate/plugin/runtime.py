"""For environment and benchmark authors: the SKILL.state session runtime, its prompts and parser.

- :class:`Runtime` — durable (P, Σ_t, O_t) sessions over any store: ``initialize_skill``,
  ``execute_step``, ``inject_observation``, ``close_session``, ``get_session``;
- :func:`parse_turn_response` — an A.4 model response into reasoning, patch and action;
- the prompts: SKILL.state's A.4 (:func:`render_skill_state_prompt`) and the paper's
  A.1–A.3 baselines (:func:`render_react_prompt`, :func:`render_memory_prompt`,
  :func:`render_stateful_prompt`);
- :func:`json_size` — a JSON value's size in bytes, as the runtime measures Σ.

The session errors (:class:`SessionError` and its kinds) are what ``Runtime`` raises
for bad input; see ``docs/runtime.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.runtime.errors import (
        SessionError,
        SessionExists,
        SessionInputError,
        SessionNotActive,
        SessionNotFound,
        StateRejected,
    )
    from skillstate.runtime.payloads import json_size
    from skillstate.runtime.prompts import (
        render_memory_prompt,
        render_react_prompt,
        render_skill_state_prompt,
        render_stateful_prompt,
    )
    from skillstate.runtime.sessions import Runtime
    from skillstate.runtime.turns import ParsedTurn, TurnParseError, parse_turn_response


__all__ = [
    "ParsedTurn",
    "Runtime",
    "SessionError",
    "SessionExists",
    "SessionInputError",
    "SessionNotActive",
    "SessionNotFound",
    "StateRejected",
    "TurnParseError",
    "json_size",
    "parse_turn_response",
    "render_memory_prompt",
    "render_react_prompt",
    "render_skill_state_prompt",
    "render_stateful_prompt",
]

_ERRORS = (
    "SessionError",
    "SessionExists",
    "SessionInputError",
    "SessionNotActive",
    "SessionNotFound",
    "StateRejected",
)
_PROMPTS = (
    "render_memory_prompt",
    "render_react_prompt",
    "render_skill_state_prompt",
    "render_stateful_prompt",
)

_LAZY = {
    **{name: "skillstate.runtime.errors" for name in _ERRORS},
    "json_size": "skillstate.runtime.payloads",
    **{name: "skillstate.runtime.prompts" for name in _PROMPTS},
    "Runtime": "skillstate.runtime.sessions",
    "ParsedTurn": "skillstate.runtime.turns",
    "TurnParseError": "skillstate.runtime.turns",
    "parse_turn_response": "skillstate.runtime.turns",
}

__getattr__ = lazy_getattr("skillstate.plugin.runtime", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
