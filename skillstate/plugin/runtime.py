"""For plugins over sessions: the SKILL.state session runtime, its prompt and its parser.

- :class:`Runtime` — durable (P, Σ_t, O_t) sessions over any store: ``initialize_skill``,
  ``execute_step``, ``inject_observation``, ``close_session``, ``get_session``,
  ``list_sessions``, and a session's past (``docs/runtime.md``). Bad input raises a
  :class:`~skillstate.plugin.InvalidInput` (a missing session a
  :class:`~skillstate.plugin.RunNotFound`), whose message is the reference server's;
- :func:`parse_turn_response` — an A.4 model response into reasoning, patch and action;
- :func:`render_skill_state_prompt` — SKILL.state's A.4 prompt: P, Σ_t and O_t;
- :func:`session_prompt` — the prompt a session's model was shown at any version, byte for
  byte as the runtime rendered it (``paper``, ``paper-pretty`` or ``turn``), in pieces
  marking P, Σ and O, from the store alone (an inspector or an audit tool needs no Runtime).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.runtime.prompts import render_skill_state_prompt, session_prompt
    from skillstate.runtime.sessions import Runtime
    from skillstate.runtime.turns import parse_turn_response


__all__ = ["Runtime", "parse_turn_response", "render_skill_state_prompt", "session_prompt"]

_LAZY = {
    "Runtime": "skillstate.runtime.sessions",
    "parse_turn_response": "skillstate.runtime.turns",
    "render_skill_state_prompt": "skillstate.runtime.prompts",
    "session_prompt": "skillstate.runtime.prompts",
}

__getattr__ = lazy_getattr("skillstate.plugin.runtime", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
