"""The SKILL.state session runtime: durable (P, Σ, O) sessions, turn parsing and prompts.

- :class:`Runtime` (``skillstate.runtime.sessions``) — initialize_skill, execute_step,
  inject_observation, close_session, get_session, list_sessions, session_history,
  fork_session, rewind_session;
- :func:`parse_turn_response` (``skillstate.runtime.turns``) — an A.4 model response
  into reasoning, state patch and action, with categorised errors;
- ``skillstate.runtime.prompts`` — the A.4 prompt, the tool-calling prompt and the
  A.1–A.3 baseline prompts.

See ``docs/runtime.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.runtime.inputs import SessionLimits
    from skillstate.runtime.sessions import Runtime
    from skillstate.runtime.turns import ParsedTurn, TurnParseError, parse_turn_response

__all__ = ["ParsedTurn", "Runtime", "SessionLimits", "TurnParseError", "parse_turn_response"]

_LAZY = {
    "Runtime": "skillstate.runtime.sessions",
    "SessionLimits": "skillstate.runtime.inputs",
    "ParsedTurn": "skillstate.runtime.turns",
    "TurnParseError": "skillstate.runtime.turns",
    "parse_turn_response": "skillstate.runtime.turns",
}


__getattr__ = lazy_getattr("skillstate.runtime", _LAZY, globals())
