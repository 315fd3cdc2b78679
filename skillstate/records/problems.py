"""Problems and budgets: what a rejected transition reports and the size limits it is held to."""

from __future__ import annotations

import attrs

__all__ = [
    "DEFAULT_BUDGET",
    "MAX_MESSAGE",
    "MAX_PATH",
    "Budget",
    "Problem",
]

MAX_MESSAGE = 8192
"""A problem's message is cut at this many characters (a plugin's too): messages quote
what they found through :func:`skillstate.display.excerpt`, this is the last bound."""

MAX_PATH = 200
"""A problem's path is cut at this many characters (a path is made of the caller's keys)."""


def _bounded_message(text: object) -> str:
    from skillstate.display import excerpt

    return excerpt(text if isinstance(text, str) else str(text), MAX_MESSAGE)


def _bounded_path(text: object) -> str:
    from skillstate.display import excerpt

    return excerpt(text if isinstance(text, str) else str(text), MAX_PATH)


@attrs.frozen
class Problem:
    """One reason a transition was rejected.

    ``code`` is a short kind (``unknown-key``, ``type``, ``enum``, ``budget``,
    ``guard``, ``immutable``, ``phase``, ``terminal``, ``patch``, ``schema``,
    ``action``, ``input``); ``path`` is dotted (``children[1].status``) or ``""``
    for the whole document; ``message`` is the exact user-facing text; ``source``
    names the plugin (or ``"core"``) that found it.
    """

    code: str
    message: str = attrs.field(converter=_bounded_message)
    path: str = attrs.field(default="", converter=_bounded_path)
    source: str = "core"

    def to_dict(self) -> dict[str, str]:
        return {
            "code": self.code,
            "path": self.path,
            "message": self.message,
            "source": self.source,
        }


@attrs.frozen
class Budget:
    """Size limits a state must stay within (rig's defaults)."""

    string_chars: int = 500
    array_items: int = 50
    document_bytes: int = 8192

    def __attrs_post_init__(self) -> None:
        for name in ("string_chars", "array_items", "document_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"budget {name} must be a positive integer, got {value!r}")


DEFAULT_BUDGET = Budget()
