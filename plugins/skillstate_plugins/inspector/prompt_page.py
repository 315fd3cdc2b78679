"""What the model saw: a session's prompt at any version, as the runtime rendered it.

:func:`prompt_view` reads it through :func:`skillstate.plugin.runtime.session_prompt`
(the runtime's own renderer, fed from the store: P, Σ of that version, and the
observation its journal entry kept) and hands the template its pieces, so the page can
mark where P, Σ and O begin and end. The text is shown with control characters and
bidirectional overrides escaped (:func:`skillstate.plugin.excerpt`, what every terminal
surface prints); ``/runs/RUN/prompt.txt`` answers the exact bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillstate.plugin import SkillstateError, excerpt
from skillstate.plugin.runtime import session_prompt

from .queries import NoSuchVersion, is_session

if TYPE_CHECKING:
    from skillstate.plugin import Host, Store

__all__ = ["STYLES", "NotASession", "prompt_view", "shown"]

STYLES = {
    "paper": "A.4 (the paper's prompt; Runtime.paper_prompt, MCP skill_state_paper_turn)",
    "paper-pretty": "A.4 with Σ pretty-printed (paper_prompt compact=False)",
    "turn": "tool-calling (Runtime.turn_prompt, MCP skill_state_turn)",
}
"""The styles a session's prompt is rendered in, as the runtime offers them to clients."""

PART_NAMES = {"P": "P — the skill specification", "Σ": "Σ — the state", "O": "O — the observation"}


class NotASession(SkillstateError):
    """A prompt asked of a run that is not a session (it has no P): 404."""

    kind = "usage"

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"run '{run_id}' is not a session (it has no P): no model was prompted with it"
        )


def shown(text: str) -> str:
    """``text`` with control characters and bidi overrides escaped, nothing cut."""
    return excerpt(text, len(text) + 1)


def prompt_view(
    host: Host, store: Store, run_id: str, version: int | None, style: str
) -> dict[str, Any]:
    """The prompt page of ``run_id`` at ``version`` (``None``: its head) in ``style``.

    :class:`NotASession` for a run without P, :class:`~.queries.NoSuchVersion` for a
    version it lacks; an unknown style is an :class:`~skillstate.plugin.InvalidInput`."""
    record = store.get(run_id)
    if not is_session(record):
        raise NotASession(run_id)
    if version is not None and not 1 <= version <= record.version:
        raise NoSuchVersion(run_id, version, record.version)
    got = session_prompt(store, run_id, version, style=style, merge=host.merge)
    parts = [
        {"part": p["part"], "name": PART_NAMES.get(p["part"], ""), "text": shown(p["text"])}
        for p in got["parts"]
    ]
    return {
        **got,
        "id": run_id,
        "parts": parts,
        "escaped": shown(got["text"]) != got["text"],
        "size": len(got["text"].encode("utf-8")),
        "styles": STYLES,
    }
