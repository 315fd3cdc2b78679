"""For plugins over sessions: the SKILL.state session runtime, its prompt and its parser.

- :class:`Runtime` — durable (P, Σ_t, O_t) sessions over any store: ``initialize_skill``,
  ``execute_step``, ``inject_observation``, ``close_session``, ``get_session``,
  ``list_sessions``, and a session's past (``docs/runtime.md``). Bad input raises a
  :class:`~skillstate.plugin.InvalidInput` (a missing session a
  :class:`~skillstate.plugin.RunNotFound`), whose message is the reference server's;
- :class:`SessionError` — the base of the runtime's own refusals (P too large, an initial
  state its rules refuse, the session limit, a stale step…), each a
  :class:`~skillstate.plugin.SkillstateError`;
- :func:`parse_turn_response` — an A.4 model response into reasoning, patch and action;
- :func:`render_skill_state_prompt` — SKILL.state's A.4 prompt: P, Σ_t and O_t;
- :func:`session_prompt` — the prompt a session's model was shown at any version, byte for
  byte as the runtime rendered it (``paper``, ``paper-pretty`` or ``turn``), in pieces
  marking P, Σ and O, from the store alone (an inspector or an audit tool needs no Runtime).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_exports

if TYPE_CHECKING:
    from skillstate.runtime.errors import SessionError as SessionError
    from skillstate.runtime.prompts import (
        render_skill_state_prompt as render_skill_state_prompt,
        session_prompt as session_prompt,
    )
    from skillstate.runtime.sessions import Runtime as Runtime
    from skillstate.runtime.turns import parse_turn_response as parse_turn_response

_WHERE = {
    "skillstate.runtime.prompts": ("render_skill_state_prompt", "session_prompt"),
    "skillstate.runtime.errors": ("SessionError",),
    "skillstate.runtime.sessions": ("Runtime",),
    "skillstate.runtime.turns": ("parse_turn_response",),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
